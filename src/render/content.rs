//! Site-owner pages: every `*.md` file in the content folder becomes `pages/<slug>.html` with the
//! site's layout, linked from the navigation. The title is the first `# ` heading, else the file
//! name.

use std::path::Path;

use anyhow::{Context, Result};

use super::markdown;
use super::paths::unique_slugs;

/// One Markdown page, rendered.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentPage {
    pub title: String,
    /// `pages/<slug>.html`.
    pub url: String,
    pub html: String,
}

/// Reads every `*.md` file directly in `dir` (none when the folder does not exist), sorted by name.
pub fn pages(dir: &Path) -> Result<Vec<ContentPage>> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read content folder {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    let mut pages = Vec::new();
    let mut stems = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f)
            .with_context(|| format!("cannot read page {} (is it UTF-8?)", f.display()))?;
        let stem = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let title = text
            .lines()
            .find_map(|l| l.strip_prefix("# "))
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| stem.clone());
        stems.push(stem);
        pages.push(ContentPage {
            title,
            url: String::new(),
            html: markdown::to_html(&text),
        });
    }
    for (p, slug) in pages
        .iter_mut()
        .zip(unique_slugs(stems.iter().map(String::as_str), "page"))
    {
        p.url = format!("pages/{slug}.html");
    }
    Ok(pages)
}
