//! The export folder is replaced in one step: the tables are written into a staging folder
//! beside it, which then takes its place (an atomic exchange on Linux, two renames elsewhere),
//! so a reader never sees a half-written export, and a failed or killed export leaves the
//! previous one as it was. Only a folder fragstats exported into (it holds [`MARKER`]) or an
//! empty one is replaced.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// Marker file that says "this folder is a fragstats export, safe to replace". Its leading dot
/// keeps it out of the tables for readers that list files (Spark, Polars and DuckDB globs).
pub const MARKER: &str = ".fragstats-export";

/// Text of the marker file.
const MARKER_TEXT: &[u8] = b"made by fragstats export; replaced on every export\n";

/// Fails, saying what to do, when `out` exists and is not a folder this command may replace.
pub fn check_replaceable(out: &Path) -> Result<()> {
    if !out.exists() {
        return Ok(());
    }
    if !out.is_dir() {
        bail!(
            "{} is a file, not a folder: give --out a folder to export into",
            out.display()
        );
    }
    if out.join(MARKER).is_file() {
        return Ok(());
    }
    let mut entries = std::fs::read_dir(out)
        .with_context(|| format!("cannot read the export folder {}", out.display()))?;
    if entries.next().is_some() {
        bail!(
            "{} is not empty and was not written by `fragstats export`; it would be replaced \
             as a whole, so give --out a new or empty folder",
            out.display()
        );
    }
    Ok(())
}

/// Runs `write` on a new staging folder beside `out` and, when it succeeds, puts that folder
/// in the place of `out`. The staging folder is removed when `write` fails.
pub fn publish<T>(out: &Path, write: impl FnOnce(&Path) -> Result<T>) -> Result<T> {
    check_replaceable(out)?;
    let (parent, name) = parent_and_name(out);
    std::fs::create_dir_all(&parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    remove_stale(&parent, &name);
    let staging = Staged(marked_folder(&parent, &format!(".{name}.export-"))?);
    let result = write(&staging.0)?;
    swap_in(&staging.0, out)?;
    Ok(result)
}

/// A folder beside the export for what an export writes only while it runs: the parsed matches
/// of the logs it reads (their events are read back from there, not held in memory, see
/// [`crate::read::Previous::store`]). Removed when dropped; one a killed export left is removed
/// by the next.
pub struct Scratch(PathBuf);

impl Scratch {
    /// A new, empty scratch folder beside `out`.
    pub fn beside(out: &Path) -> Result<Scratch> {
        let (parent, name) = parent_and_name(out);
        std::fs::create_dir_all(&parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
        remove_stale(&parent, &name);
        marked_folder(&parent, &format!(".{name}.scratch-")).map(Scratch)
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if self.0.join(MARKER).is_file() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A new, empty folder `prefix` + this process's id in `parent`, holding [`MARKER`] first, so
/// that a killed export's folder is recognised and removed ([`remove_stale`]).
fn marked_folder(parent: &Path, prefix: &str) -> Result<PathBuf> {
    let path = parent.join(format!("{prefix}{}", std::process::id()));
    if path.exists() {
        std::fs::remove_dir_all(&path)
            .with_context(|| format!("cannot remove {}", path.display()))?;
    }
    std::fs::create_dir(&path).with_context(|| format!("cannot create {}", path.display()))?;
    if let Err(e) = std::fs::write(path.join(MARKER), MARKER_TEXT) {
        let _ = std::fs::remove_dir_all(&path);
        return Err(e).with_context(|| format!("cannot write in {}", path.display()));
    }
    Ok(path)
}

/// The staging folder, removed when dropped (after a failure, or holding the old export after
/// the exchange).
struct Staged(PathBuf);

impl Drop for Staged {
    fn drop(&mut self) {
        if self.0.join(MARKER).is_file() {
            let _ = std::fs::remove_dir_all(&self.0);
        } else {
            // The empty folder the export replaced.
            let _ = std::fs::remove_dir(&self.0);
        }
    }
}

/// Puts the finished `staging` folder where `out` is.
fn swap_in(staging: &Path, out: &Path) -> Result<()> {
    if !out.exists() {
        return std::fs::rename(staging, out)
            .with_context(|| format!("cannot move the export into {}", out.display()));
    }
    // The exchange leaves the old export at the staging path, removed with it.
    if crate::sys::exchange(staging, out).is_ok() {
        return Ok(());
    }
    // Without an atomic exchange the old export steps aside first: for a moment there is none,
    // but never a half-written one.
    let (parent, name) = parent_and_name(out);
    let old = parent.join(format!(".{name}.old-{}", std::process::id()));
    std::fs::rename(out, &old)
        .with_context(|| format!("cannot move the old export {} aside", out.display()))?;
    if let Err(e) = std::fs::rename(staging, out) {
        let _ = std::fs::rename(&old, out);
        return Err(e).with_context(|| format!("cannot move the export into {}", out.display()));
    }
    std::fs::remove_dir_all(&old)
        .with_context(|| format!("cannot remove the old export {}", old.display()))
}

/// The folder that holds `out` and `out`'s own name.
fn parent_and_name(out: &Path) -> (PathBuf, String) {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "export".into());
    (parent, name)
}

/// Removes the staging and scratch folders of exports that were killed (their process is gone).
fn remove_stale(parent: &Path, name: &str) {
    let prefixes = [format!(".{name}.export-"), format!(".{name}.scratch-")];
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let pid = prefixes
            .iter()
            .find_map(|p| file_name.strip_prefix(p.as_str()));
        if let Some(pid) = pid
            && entry.path().join(MARKER).is_file()
            && crate::output::process_is_gone(pid)
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testdata::names_in;

    /// A failed export leaves the previous one untouched and no staging folder behind; a
    /// successful one replaces it whole.
    #[test]
    fn replaced_whole_or_not_at_all() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("export");
        publish(&out, |dir| {
            std::fs::write(dir.join("a"), "1").map_err(Into::into)
        })
        .unwrap();
        assert_eq!(names_in(&out), [MARKER, "a"]);
        let failed: Result<()> = publish(&out, |dir| {
            std::fs::write(dir.join("b"), "half")?;
            bail!("disk full")
        });
        assert_eq!(failed.unwrap_err().to_string(), "disk full");
        assert_eq!(names_in(&out), [MARKER, "a"]);
        assert_eq!(names_in(tmp.path()), ["export"]);
        publish(&out, |dir| {
            std::fs::write(dir.join("c"), "2").map_err(Into::into)
        })
        .unwrap();
        assert_eq!(names_in(&out), [MARKER, "c"]);
        assert_eq!(names_in(tmp.path()), ["export"]);
    }

    /// A folder of someone else's files is never replaced; the message says what to do.
    #[test]
    fn refuses_a_foreign_folder() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("thesis.tex"), "x").unwrap();
        let err = publish(tmp.path(), |_| Ok(())).unwrap_err().to_string();
        assert!(err.contains("give --out a new or empty folder"), "{err}");
        assert_eq!(names_in(tmp.path()), ["thesis.tex"]);
        let file = tmp.path().join("thesis.tex");
        let err = publish(&file, |_| Ok(())).unwrap_err().to_string();
        assert!(err.contains("is a file, not a folder"), "{err}");
    }

    /// An empty folder is replaced, and leaves nothing behind.
    #[test]
    fn replaces_an_empty_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("export");
        std::fs::create_dir(&out).unwrap();
        publish(&out, |dir| {
            std::fs::write(dir.join("a"), "1").map_err(Into::into)
        })
        .unwrap();
        assert_eq!(names_in(&out), [MARKER, "a"]);
        assert_eq!(names_in(tmp.path()), ["export"]);
    }

    /// The staging folder of a killed export is removed by the next one.
    #[test]
    fn stale_staging_is_removed() {
        let tmp = tempfile::tempdir().unwrap();
        // No process has the largest possible id.
        let stale = tmp.path().join(format!(".export.export-{}", i32::MAX));
        std::fs::create_dir(&stale).unwrap();
        std::fs::write(stale.join(MARKER), MARKER_TEXT).unwrap();
        publish(&tmp.path().join("export"), |_| Ok(())).unwrap();
        assert_eq!(names_in(tmp.path()), ["export"]);
    }
}
