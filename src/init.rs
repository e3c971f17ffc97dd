//! `fragstats init [DIR]`: a new site folder for an admin, with a commented `site.toml` (every
//! key with its default), an empty `logs/`, a `content/` page, and the next steps. Never
//! overwrites a file that exists.

use std::path::Path;

use anyhow::{Context, Result, bail};

/// The `site.toml` that `init` writes.
pub const SITE_TOML: &str = include_str!("init_site.toml");

const ABOUT_MD: &str = "# About\n\nThis page comes from `content/about.md`: edit it, or add more \
                        Markdown pages beside it.\n";

/// Creates the site folder `dir` (which may exist, without a `site.toml`); returns the message
/// to print.
pub fn init(dir: &Path) -> Result<String> {
    let config = dir.join("site.toml");
    if config.exists() {
        bail!(
            "{} already exists: fragstats init never overwrites a site; edit it, or choose \
             another folder",
            config.display()
        );
    }
    std::fs::create_dir_all(dir.join("logs"))
        .with_context(|| format!("cannot create {}", dir.join("logs").display()))?;
    std::fs::create_dir_all(dir.join("content"))?;
    std::fs::write(&config, SITE_TOML)
        .with_context(|| format!("cannot write {}", config.display()))?;
    let about = dir.join("content/about.md");
    if !about.exists() {
        std::fs::write(&about, ABOUT_MD)?;
    }
    let d = dir.display();
    Ok(format!(
        "created {d}/site.toml, {d}/logs/ and {d}/content/about.md\n\
         next:\n  \
         1. put your server's logs in {d}/logs/, or link them: ln -s /path/to/games.log {d}/logs/\n  \
         2. cd {d} && fragstats build          (writes public/)\n  \
         3. fragstats serve                   (preview on http://127.0.0.1:8000/, rebuilds on change)\n  \
         4. publish public/ on any web host, e.g. rsync -a --delete public/ host:/var/www/stats/\n"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    /// The written file is the defaults, and names every key the defaults have.
    #[test]
    fn site_toml_is_the_defaults_with_every_key() {
        let parsed = Config::parse(SITE_TOML, "site.toml").unwrap();
        assert_eq!(parsed, Config::default());
        let defaults = toml::to_string(&Config::default()).unwrap();
        for line in defaults.lines() {
            let key = line.split(" = ").next().unwrap().trim();
            if key.is_empty() || matches!(key, "clans" | "nav") {
                continue; // empty tables, shown as commented examples
            }
            assert!(
                SITE_TOML.contains(key),
                "{key} is missing from init's site.toml"
            );
        }
    }

    #[test]
    fn init_makes_a_site_that_builds_and_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("clan");
        let said = init(&site).unwrap();
        assert!(said.contains("next:"));
        assert!(site.join("logs").is_dir() && site.join("content/about.md").is_file());
        std::fs::write(site.join("site.toml"), "title = \"mine\"\n").unwrap();
        let err = init(&site).unwrap_err().to_string();
        assert!(err.contains("already exists"), "{err}");
        assert_eq!(
            std::fs::read_to_string(site.join("site.toml")).unwrap(),
            "title = \"mine\"\n"
        );
    }
}
