//! Writes the site: every file goes into a staging folder beside the output folder, which then
//! replaces the old site by rename, so a reader never sees a half-written site. Refuses to replace a
//! non-empty folder that fragstats did not make.

use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::render::OutputFile;

/// Marker file that says "this folder is a fragstats site, safe to replace".
pub const MARKER: &str = ".fragstats-site";

/// Replaces the folder `out` with exactly `files`.
pub fn write_site(out: &Path, files: &[OutputFile]) -> Result<()> {
    if out.exists() && !is_replaceable(out)? {
        bail!(
            "output folder {} exists, is not empty and was not made by fragstats; \
             choose another --out (or `output` in site.toml) or empty it",
            out.display()
        );
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)
        .with_context(|| format!("cannot create folder {}", parent.display()))?;
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "site".into());
    let staging = parent.join(format!(".{name}.staging-{}", std::process::id()));
    let old = parent.join(format!(".{name}.old-{}", std::process::id()));
    if staging.exists() {
        std::fs::remove_dir_all(&staging)?;
    }
    let result = write_all(&staging, files);
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    if out.exists() {
        std::fs::rename(out, &old)
            .with_context(|| format!("cannot move the old site {} aside", out.display()))?;
    }
    std::fs::rename(&staging, out)
        .with_context(|| format!("cannot move the new site into {}", out.display()))?;
    if old.exists() {
        std::fs::remove_dir_all(&old)
            .with_context(|| format!("cannot remove the old site {}", old.display()))?;
    }
    Ok(())
}

fn is_replaceable(out: &Path) -> Result<bool> {
    if !out.is_dir() {
        return Ok(false);
    }
    if out.join(MARKER).is_file() {
        return Ok(true);
    }
    let mut entries = std::fs::read_dir(out)
        .with_context(|| format!("cannot read output folder {}", out.display()))?;
    Ok(entries.next().is_none())
}

fn write_all(staging: &Path, files: &[OutputFile]) -> Result<()> {
    std::fs::create_dir_all(staging)
        .with_context(|| format!("cannot create {}", staging.display()))?;
    std::fs::write(
        staging.join(MARKER),
        b"made by fragstats; replaced on every build\n",
    )?;
    for f in files {
        let rel = safe_relative(&f.path)?;
        let path = staging.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        std::fs::write(&path, &f.bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// A relative path made only of normal components: nothing can land outside the output folder.
fn safe_relative(path: &str) -> Result<PathBuf> {
    let p = Path::new(path);
    if path.is_empty() || !p.components().all(|c| matches!(c, Component::Normal(_))) {
        bail!("refusing to write unsafe output path {path:?}");
    }
    Ok(p.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str) -> OutputFile {
        OutputFile {
            path: path.into(),
            bytes: b"x".to_vec(),
        }
    }

    #[test]
    fn replaces_own_site_and_refuses_foreign_folders() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("public");
        write_site(&out, &[file("a.html"), file("players/b.html")]).unwrap();
        assert!(out.join("players/b.html").is_file());
        write_site(&out, &[file("c.html")]).unwrap();
        assert!(!out.join("a.html").exists());
        assert!(out.join("c.html").is_file());
        // Nothing left beside it.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

        let foreign = dir.path().join("home");
        std::fs::create_dir(&foreign).unwrap();
        std::fs::write(foreign.join("precious.txt"), "keep").unwrap();
        let err = write_site(&foreign, &[file("x.html")]).unwrap_err();
        assert!(
            err.to_string().contains("was not made by fragstats"),
            "{err}"
        );
        assert!(foreign.join("precious.txt").is_file());
    }

    #[test]
    fn unsafe_paths_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["../x.html", "/etc/x", "a/../../x", ""] {
            let err = write_site(&dir.path().join("o"), &[file(bad)]).unwrap_err();
            assert!(
                err.to_string().contains("unsafe output path"),
                "{bad}: {err}"
            );
        }
        assert!(!dir.path().join("x.html").exists());
    }
}
