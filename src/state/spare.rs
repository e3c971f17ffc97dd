//! The ratings checkpoint written over a spare file and swapped in, not written to a new file
//! renamed over the old one. On a public server's site the checkpoint is tens of MB: a new file
//! costs the system fresh pages and blocks for all of it, and the rename frees the old file's
//! (slow with online discard), while overwriting a file of about the same size reuses both.
//! `python3 benches/file_replace.py DIR 72 5` measures the two ways (figures in
//! `benches/RESULTS.md`).
//!
//! The swap is Linux's `renameat2(RENAME_EXCHANGE)`, done once the build has published its
//! site: a killed build leaves the old checkpoint or the new one under
//! [`super::CHECKPOINT_FILE`], and the spare then holds the other. Like the old way, the file
//! is not flushed to disk first, so after a power loss it may hold blocks of both: its
//! checksum refuses it, and the next build rates every match again. Only a build holding the
//! state folder's lock writes the spare, and every reader of the checkpoint holds the lock
//! while it reads it ([`super::load_checkpoint`]), so no mapped file is written in place.
//! Where the swap is not available (another system, a file system without it, no checkpoint
//! yet) the spare is renamed over the checkpoint as any state file.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

/// Writes `bytes` over the file at `spare` (made anew if it is not a plain file of its own:
/// missing, a link, linked under another name too, or another kind of file).
pub fn write(spare: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = open(spare)?;
    file.write_all(bytes)?;
    file.set_len(bytes.len() as u64)
}

/// Puts the file at `spare` in the place of `target`: swapped with it, or renamed over it
/// where swapping is not possible.
pub fn swap_in(spare: &Path, target: &Path) -> std::io::Result<()> {
    // The same swap that puts a new site in place of the old one.
    match crate::sys::exchange(spare, target) {
        Ok(()) => Ok(()),
        Err(_) => std::fs::rename(spare, target),
    }
}

/// The plain file at `path`, opened for writing from its start, with no other name: a hard
/// link (a backup made with `cp -l`), a symbolic link or another kind of file (a pipe, whose
/// opening would wait for a reader) is removed and a new file made, so that writing in place
/// changes nothing outside the state folder.
pub fn open(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let plain = std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_file());
    if plain
        && let Ok(file) = options.open(path)
        && is_own(&file)
    {
        return Ok(file);
    }
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    options.create_new(true).open(path)
}

/// Whether `file` is a plain file with no other name.
fn is_own(file: &File) -> bool {
    let Ok(meta) = file.metadata() else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.is_file() && meta.nlink() == 1
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::os::unix::fs::MetadataExt;

    /// Writes the spare and swaps it in, as a checkpoint is saved.
    fn save(spare: &Path, target: &Path, bytes: &[u8]) -> std::io::Result<()> {
        write(spare, bytes)?;
        swap_in(spare, target)
    }

    /// Three writes: the target holds the newest bytes and the spare the ones before; the
    /// spare's file is the one written before (overwritten in place, cut to the new length).
    #[test]
    fn the_target_holds_the_newest_bytes_and_the_spare_the_ones_before() {
        let dir = tempfile::tempdir().unwrap();
        let (spare, target) = (dir.path().join("spare"), dir.path().join("target"));
        save(&spare, &target, b"first, the longest of all").unwrap();
        assert_eq!(
            std::fs::read(&target).unwrap(),
            b"first, the longest of all"
        );
        assert!(!spare.exists(), "with no target, the spare is renamed");
        save(&spare, &target, b"second").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"second");
        #[cfg(target_os = "linux")]
        {
            assert_eq!(std::fs::read(&spare).unwrap(), b"first, the longest of all");
            let first = std::fs::metadata(&spare).unwrap().ino();
            save(&spare, &target, b"third").unwrap();
            assert_eq!(std::fs::read(&target).unwrap(), b"third");
            assert_eq!(std::fs::read(&spare).unwrap(), b"second");
            assert_eq!(
                std::fs::metadata(&target).unwrap().ino(),
                first,
                "the spare was written in place"
            );
        }
    }

    /// A spare linked under another name (a backup's hard link, or a symbolic link) is not
    /// written through: the other name keeps its bytes; a pipe in its place is replaced.
    #[cfg(unix)]
    #[test]
    fn a_linked_spare_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let (spare, target) = (dir.path().join("spare"), dir.path().join("target"));
        let backup = dir.path().join("backup");
        std::fs::write(&backup, b"kept").unwrap();
        std::fs::hard_link(&backup, &spare).unwrap();
        save(&spare, &target, b"new").unwrap();
        assert_eq!(std::fs::read(&backup).unwrap(), b"kept");
        assert_eq!(std::fs::read(&target).unwrap(), b"new");

        let elsewhere = dir.path().join("elsewhere");
        std::fs::write(&elsewhere, b"untouched").unwrap();
        let _ = std::fs::remove_file(&spare);
        std::os::unix::fs::symlink(&elsewhere, &spare).unwrap();
        save(&spare, &target, b"newer").unwrap();
        assert_eq!(std::fs::read(&elsewhere).unwrap(), b"untouched");
        assert_eq!(std::fs::read(&target).unwrap(), b"newer");

        // A pipe is not opened (that would wait for a reader): a file is made in its place.
        std::fs::remove_file(&spare).unwrap();
        let fifo = std::ffi::CString::new(spare.to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        save(&spare, &target, b"newest").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"newest");
    }
}
