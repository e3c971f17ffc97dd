//! Finds the log files: every regular file under the log paths (walked recursively with walkdir),
//! sorted by the byte order of their path. Symbolic links and special files are reported and not
//! followed or read. Does not open files; sniffing and parsing happen later.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use walkdir::WalkDir;

use crate::diagnostics::FileReport;

/// One file to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFile {
    /// Full path to open.
    pub path: PathBuf,
    /// Path relative to its log root (`/`-separated); the file name when the root is a file.
    pub rel: String,
}

/// Lists the files under `roots` in byte order of path. A root that does not exist is an error;
/// anything unreadable or not a regular file inside a root is reported in `skipped`.
pub fn crawl(roots: &[PathBuf], skipped: &mut Vec<FileReport>) -> Result<Vec<LogFile>> {
    let mut files = Vec::new();
    for root in roots {
        if std::fs::symlink_metadata(root).is_err() {
            bail!(
                "log path {} does not exist: check `logs` in site.toml or the PATH arguments",
                root.display()
            );
        }
        for entry in WalkDir::new(root).follow_links(false) {
            let entry = match entry {
                Ok(e) => e,
                Err(err) => {
                    let path = err
                        .path()
                        .map(|p| relative(root, p))
                        .unwrap_or_else(|| root.display().to_string());
                    let mut r = FileReport::new(path);
                    r.file_skipped = Some(format!("cannot read: {err}"));
                    skipped.push(r);
                    continue;
                }
            };
            let kind = entry.file_type();
            if kind.is_dir() {
                continue;
            }
            let rel = relative(root, entry.path());
            if kind.is_symlink() {
                // The root itself may be a link the user named on purpose.
                if entry.depth() == 0 && entry.path().is_file() {
                    files.push(LogFile {
                        path: entry.path().to_path_buf(),
                        rel,
                    });
                    continue;
                }
                let mut r = FileReport::new(rel);
                r.file_skipped = Some("symbolic link (not followed)".into());
                skipped.push(r);
            } else if kind.is_file() {
                files.push(LogFile {
                    path: entry.path().to_path_buf(),
                    rel,
                });
            } else {
                let mut r = FileReport::new(rel);
                r.file_skipped = Some("not a regular file (device, socket or pipe)".into());
                skipped.push(r);
            }
        }
    }
    files.sort_by(|a, b| {
        a.path
            .as_os_str()
            .as_encoded_bytes()
            .cmp(b.path.as_os_str().as_encoded_bytes())
    });
    files.dedup_by(|a, b| a.path == b.path);
    Ok(files)
}

/// `path` relative to `root` with `/` separators; the file name when `root` is the file itself.
fn relative(root: &Path, path: &Path) -> String {
    let rel = match path.strip_prefix(root) {
        Ok(r) if !r.as_os_str().is_empty() => r,
        _ => Path::new(path.file_name().unwrap_or(path.as_os_str())),
    };
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_by_path_bytes_and_relative() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::create_dir_all(root.join("a-c")).unwrap();
        std::fs::write(root.join("a/b.log"), "x").unwrap();
        std::fs::write(root.join("a-c/x.log"), "x").unwrap();
        std::fs::write(root.join("B.log"), "x").unwrap();
        let mut skipped = Vec::new();
        let files = crawl(&[root.to_path_buf()], &mut skipped).unwrap();
        let rels: Vec<_> = files.iter().map(|f| f.rel.as_str()).collect();
        // Byte order of the whole path: '-' (0x2d) sorts before '/' (0x2f).
        assert_eq!(rels, ["B.log", "a-c/x.log", "a/b.log"]);
        assert!(skipped.is_empty());
    }

    #[test]
    fn missing_root_is_a_clear_error() {
        let err = crawl(&[PathBuf::from("/nonexistent/logs")], &mut Vec::new()).unwrap_err();
        assert!(
            err.to_string()
                .contains("log path /nonexistent/logs does not exist")
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_reported_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("real.log"), "x").unwrap();
        std::os::unix::fs::symlink(root, root.join("loop")).unwrap();
        let mut skipped = Vec::new();
        let files = crawl(&[root.to_path_buf()], &mut skipped).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(skipped.len(), 1);
        assert_eq!(
            skipped[0].file_skipped.as_deref(),
            Some("symbolic link (not followed)")
        );
    }
}
