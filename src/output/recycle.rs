//! The old versions of the site's files, written over for their next versions rather than
//! removed while new files are made.
//!
//! A build replaces the files that changed (on an append to a public server's site, 500-1,000
//! files and about 110 MB: `players.json`, `ladders.json`, `matches.json`, the player list's
//! pages and the player pages of the match). The versions they replaced go to a trash beside
//! the spare folder (see `keep_as_spare` in the parent module). They were removed by the next
//! build while it wrote the new versions as new files: the system freed the old files' cached
//! pages and blocks (ext4 with online discard) and found fresh ones for the new files, about
//! 0.05-0.1 s of processor time per append there. Now the next build takes that trash as its
//! bin ([`Bin`]), and each file it writes anew is written over its old version from the bin,
//! under the same name: the pages and blocks of the file are used again. What the build does
//! not take is removed by the build after.
//!
//! A file is taken from the bin only if it is a plain file with no other name (a `cp -l`
//! backup of the state folder keeps its bytes); it is moved into the staging folder and opened
//! there without following links. The written file is cut to its new length. All of it is
//! written in one vectored write, after the old file was first cut to the last whole block
//! below the new length: every block the write covers in part is then past the end of the file,
//! so the system never reads a block of the old file back from disk to fill in the rest of it
//! (each write that started or ended inside an old block would, when its pages are no longer
//! cached).

use std::fs::File;
use std::io::IoSlice;
use std::path::{Path, PathBuf};

use super::stamps::PartsHasher;
use crate::render::OutputFile;

/// The trash a build took over to write its files over their old versions.
pub(super) struct Bin {
    dir: PathBuf,
}

impl Bin {
    /// The folder `trash` (what the previous build replaced), moved to `bin` to be taken from;
    /// None when there is no such folder or the move fails (`bin` is in the way: what a killed
    /// build left, which the caller removes).
    pub(super) fn take_over(trash: &Path, bin: &Path) -> Option<Bin> {
        let plain = trash
            .symlink_metadata()
            .is_ok_and(|meta| meta.file_type().is_dir());
        if !plain || bin.symlink_metadata().is_ok() {
            return None;
        }
        std::fs::rename(trash, bin).ok()?;
        Some(Bin {
            dir: bin.to_path_buf(),
        })
    }

    /// The folder of the bin.
    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The old version of the file at the output path `rel`, moved to `path` (where nothing
    /// is) and opened there for writing; None when the bin holds none that is a plain file of
    /// its own.
    pub(super) fn take(&self, rel: &str, path: &Path) -> Option<Recycled> {
        let from = self.dir.join(name(rel)?);
        if !from.symlink_metadata().ok()?.file_type().is_file() {
            return None;
        }
        std::fs::rename(&from, path).ok()?;
        let file = open_own(path);
        let recycled = file.and_then(|file| {
            let meta = file.metadata().ok()?;
            Some(Recycled {
                old_len: meta.len(),
                block: block_size(&meta),
                file,
            })
        });
        if recycled.is_none() {
            // Not what was looked at (it changed in between): made anew by the caller.
            let _ = std::fs::remove_file(path);
        }
        recycled
    }
}

/// An old version of a file taken from the bin, opened at its start to be written over.
pub(super) struct Recycled {
    file: File,
    old_len: u64,
    /// The file system's block size (at least a page).
    block: u64,
}

/// The block size of the file of `meta` (at least 4 KiB, a page).
fn block_size(meta: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    let size = std::os::unix::fs::MetadataExt::blksize(meta);
    #[cfg(not(unix))]
    let size = 0;
    size.max(4096)
}

/// The name in a trash of the old version of the file at the output path `rel`: `rel` with
/// every byte but ASCII letters, digits, `.`, `-` and `_` written as `%XX`, so that it is one
/// file name and names one path. None when that is too long for a file name.
pub(super) fn name(rel: &str) -> Option<String> {
    let mut out = String::with_capacity(rel.len() + 8);
    for b in rel.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    (out.len() <= 240).then_some(out)
}

/// The plain file at `path`, opened for writing from its start without following a link,
/// if it has no other name (a hard link would carry what is written to another file) and
/// is not another kind of file (a pipe, whose opening would wait for a reader).
pub(crate) fn open_own(path: &Path) -> Option<File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let plain = std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_file());
    if !plain {
        return None;
    }
    let file = options.open(path).ok()?;
    let meta = file.metadata().ok()?;
    #[cfg(unix)]
    let own = {
        use std::os::unix::fs::MetadataExt;
        meta.is_file() && meta.nlink() == 1
    };
    #[cfg(not(unix))]
    let own = meta.is_file();
    own.then_some(file)
}

impl Recycled {
    /// Writes `f`'s bytes over the old ones and cuts the file to their length; each part goes
    /// to `hasher` (when there is one) first.
    pub(super) fn overwrite(
        self,
        f: &OutputFile,
        hasher: Option<&mut PartsHasher>,
    ) -> std::io::Result<()> {
        use std::io::Write as _;
        let whole_blocks = f.len() as u64 / self.block * self.block;
        if self.old_len > whole_blocks {
            self.file.set_len(whole_blocks)?;
        }
        if let Some(hasher) = hasher {
            f.parts().for_each(|part| hasher.write(part));
        }
        let mut slices: Vec<IoSlice> = (f.parts())
            .filter(|part| !part.is_empty())
            .map(IoSlice::new)
            .collect();
        let mut rest = slices.as_mut_slice();
        let mut out = &self.file;
        while !rest.is_empty() {
            match out.write_vectored(rest) {
                Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                Ok(n) => IoSlice::advance_slices(&mut rest, n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names are one file name per path, and tell paths apart.
    #[test]
    fn each_path_has_a_name_of_its_own() {
        assert_eq!(name("data/players.json").unwrap(), "data%2Fplayers.json");
        assert_eq!(name("a%2Fb").unwrap(), "a%252Fb");
        assert_ne!(name("a/b"), name("a%2Fb"));
        assert_eq!(name("é").unwrap(), "%C3%A9");
        assert!(name(&"x".repeat(241)).is_none());
    }
}
