//! Finds the log files: every regular file under the log paths (walked recursively with walkdir),
//! in RANKING.md's file order: byte order of path, except that the rotated copies of a log
//! (`NAME.N`, `NAME.N.gz`, `NAME-20261101`) come before `NAME`, oldest first. Symbolic links to
//! files and folders are followed (a loop is reported, not walked twice) and listed as followed;
//! special files are reported and not read. Also stamps paths (size, time, inode) for `watch`'s
//! poll. Does not open files; sniffing and parsing happen later.

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
    /// Reached through a symbolic link (the file or a folder above it, below the root).
    pub via_link: bool,
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
        for entry in WalkDir::new(root).follow_links(true) {
            let entry = match entry {
                Ok(e) => e,
                Err(err) => {
                    let path = err
                        .path()
                        .map(|p| relative(root, p))
                        .unwrap_or_else(|| root.display().to_string());
                    let mut r = FileReport::new(path);
                    r.file_skipped = Some(if err.loop_ancestor().is_some() {
                        "symbolic link loop (a folder that contains itself): not walked again"
                            .to_string()
                    } else {
                        format!("cannot read: {err}")
                    });
                    skipped.push(r);
                    continue;
                }
            };
            let kind = entry.file_type();
            if kind.is_dir() {
                continue;
            }
            let rel = relative(root, entry.path());
            if kind.is_file() {
                let via_link = entry.depth() > 0
                    && entry
                        .path()
                        .ancestors()
                        .take(entry.depth())
                        .any(|p| p.is_symlink());
                files.push(LogFile {
                    path: entry.path().to_path_buf(),
                    rel,
                    via_link,
                });
            } else if kind.is_symlink() {
                let mut r = FileReport::new(rel);
                r.file_skipped = Some("broken symbolic link (its target does not exist)".into());
                skipped.push(r);
            } else {
                let mut r = FileReport::new(rel);
                r.file_skipped = Some("not a regular file (device, socket or pipe)".into());
                skipped.push(r);
            }
        }
    }
    files.sort_by_cached_key(|f| rotation_key(&f.path));
    files.dedup_by(|a, b| a.path == b.path);
    Ok(files)
}

/// Where a file sorts among the logs (RANKING.md section 1): by the path of the log it is a
/// copy of (byte order), then dated copies by date, numbered copies highest number first, then
/// the log itself; ties by the whole path.
pub fn rotation_key(path: &Path) -> (Vec<u8>, u8, Vec<u8>, u64, Vec<u8>) {
    let whole = path.as_os_str().as_encoded_bytes().to_vec();
    let name = path
        .file_name()
        .map(|n| n.as_encoded_bytes())
        .unwrap_or_default();
    let dir_len = whole.len() - name.len();
    let plain = name.strip_suffix(b".gz").unwrap_or(name);
    let (base, rank, date, older) = match rotation_suffix(plain) {
        Some((base, Rotation::Dated(date))) => (base, 0, date, 0),
        Some((base, Rotation::Numbered(n))) => (base, 1, Vec::new(), u64::MAX - n),
        None => (plain, 2, Vec::new(), 0),
    };
    let mut log = whole[..dir_len].to_vec();
    log.extend_from_slice(base);
    (log, rank, date, older, whole)
}

/// How a rotated copy's name differs from its log's.
enum Rotation {
    /// `NAME-20261101`, `NAME.2026-11-01` (the date's digits).
    Dated(Vec<u8>),
    /// `NAME.3` (3).
    Numbered(u64),
}

/// Splits a file name (without `.gz`) into the log's name and its rotation suffix, if any.
fn rotation_suffix(name: &[u8]) -> Option<(&[u8], Rotation)> {
    let sep = name.iter().rposition(|&b| b == b'.' || b == b'-')?;
    let (base, suffix) = (&name[..sep], &name[sep + 1..]);
    if base.is_empty() || suffix.is_empty() {
        return None;
    }
    // A date with dashes: `2026-11-01` follows the last '.' or '-' before it.
    if suffix.len() == 2 && suffix.iter().all(u8::is_ascii_digit) {
        let cut = name.len().checked_sub(11)?;
        let (base, date) = (&name[..cut], &name[cut + 1..]);
        let digits: Vec<u8> = date.iter().copied().filter(|&b| b != b'-').collect();
        if matches!(name[cut], b'.' | b'-')
            && !base.is_empty()
            && date.len() == 10
            && date[4] == b'-'
            && date[7] == b'-'
            && is_date(&digits)
        {
            return Some((base, Rotation::Dated(digits)));
        }
    }
    if !suffix.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if suffix.len() >= 8 && is_date(suffix) {
        return Some((base, Rotation::Dated(suffix.to_vec())));
    }
    if name[sep] != b'.' || suffix.len() > 6 {
        return None;
    }
    let n = std::str::from_utf8(suffix).ok()?.parse().ok()?;
    Some((base, Rotation::Numbered(n)))
}

/// `YYYYMMDD` followed by at most six more digits (hours, minutes, seconds), a plausible date.
fn is_date(digits: &[u8]) -> bool {
    if !(8..=14).contains(&digits.len()) || !digits.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let num = |r: std::ops::Range<usize>| -> u32 {
        std::str::from_utf8(&digits[r])
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    };
    (1990..=2200).contains(&num(0..4))
        && (1..=12).contains(&num(4..6))
        && (1..=31).contains(&num(6..8))
}

/// What `watch` compares between two looks at a path: a file's size, modification time and inode
/// (a folder's inode only, since a build writing beside its output changes the folder's time).
pub type Stamp = (u64, Option<std::time::SystemTime>, u64);

/// Every file and folder at or under `root` (links followed) with its stamp, leaving out what
/// `skip` refuses and all below it; empty when `root` does not exist. Unreadable entries are left
/// out: this is a cheap check for changes, the build reports them.
pub fn stamps(root: &Path, skip: impl Fn(&Path) -> bool) -> Vec<(PathBuf, Stamp)> {
    use std::os::unix::fs::MetadataExt;
    WalkDir::new(root)
        .follow_links(true)
        .into_iter()
        .filter_entry(|e| !skip(e.path()))
        .filter_map(|e| {
            let e = e.ok()?;
            let m = e.metadata().ok()?;
            let stamp = if m.is_dir() {
                (0, None, m.ino())
            } else {
                (m.len(), m.modified().ok(), m.ino())
            };
            Some((e.into_path(), stamp))
        })
        .collect()
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
    fn symlinks_are_followed_and_loops_reported() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("logs");
        let live = dir.path().join("server");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&live).unwrap();
        std::fs::write(root.join("real.log"), "x").unwrap();
        std::fs::write(live.join("games.log"), "x").unwrap();
        std::os::unix::fs::symlink(live.join("games.log"), root.join("live.log")).unwrap();
        std::os::unix::fs::symlink(&live, root.join("server")).unwrap();
        std::os::unix::fs::symlink(&root, root.join("loop")).unwrap();
        let mut skipped = Vec::new();
        let files = crawl(std::slice::from_ref(&root), &mut skipped).unwrap();
        let rels: Vec<(&str, bool)> = files.iter().map(|f| (f.rel.as_str(), f.via_link)).collect();
        assert_eq!(
            rels,
            [
                ("live.log", true),
                ("real.log", false),
                ("server/games.log", true)
            ]
        );
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        assert!(skipped[0].file_skipped.as_deref().unwrap().contains("loop"));
    }

    #[test]
    fn rotated_copies_come_before_their_log_oldest_first() {
        let mut names = vec![
            "games.log",
            "games.log.1",
            "games.log.2.gz",
            "games.log.10.gz",
            "games.log.3",
            "games.logx",
            "games-1.log",
            "games-2.log",
            "qconsole.log-20261102",
            "qconsole.log-20261101.gz",
            "qconsole.log",
            "server.log.2026-11-03",
            "server.log.2026-10-30",
            "server.log",
        ];
        names.sort_by_cached_key(|n| rotation_key(&Path::new("/srv/logs").join(n)));
        assert_eq!(
            names,
            [
                "games-1.log",
                "games-2.log",
                "games.log.10.gz",
                "games.log.3",
                "games.log.2.gz",
                "games.log.1",
                "games.log",
                "games.logx",
                "qconsole.log-20261101.gz",
                "qconsole.log-20261102",
                "qconsole.log",
                "server.log.2026-10-30",
                "server.log.2026-11-03",
                "server.log",
            ]
        );
    }
}
