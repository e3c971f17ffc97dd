//! A file's bytes read through a read-only memory map of it, for the state's ratings checkpoint
//! and its segments of matches (tens of MB each on a public server's site, whose packed events
//! the model decodes from these bytes while the build runs: so the model and the state both
//! use it, and it is neither's). Read into a buffer, its bytes are copied out of the system's page cache into fresh memory, which is
//! dear (the first touch of every page) and stays with the allocator a while once freed;
//! mapped, the decoder reads the page cache itself, and the pages go with the mapping.
//! Falls back to an ordinary read where a file cannot be mapped (an empty one).

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;

/// The bytes of a file: mapped, or read when the file cannot be mapped.
pub enum FileBytes {
    Mapped(Map),
    Read(Vec<u8>),
}

/// A private read-only mapping of a whole file, unmapped on drop.
pub struct Map {
    ptr: *mut libc::c_void,
    len: usize,
}

// SAFETY: the mapping is read-only and owned by this value alone: nothing writes through it,
// and unmapping happens once, on drop.
unsafe impl Send for Map {}
// SAFETY: as above; shared references only read.
unsafe impl Sync for Map {}

impl FileBytes {
    /// Reads the file at `path`: mapped when it can be, read otherwise.
    pub fn read(path: &Path) -> std::io::Result<FileBytes> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        match usize::try_from(len).ok().filter(|&len| len > 0) {
            Some(len) => match Map::of(&file, len) {
                Some(map) => Ok(FileBytes::Mapped(map)),
                None => read_whole(file, len).map(FileBytes::Read),
            },
            None => read_whole(file, 0).map(FileBytes::Read),
        }
    }
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            // SAFETY: `ptr` is a live mapping of `len` readable bytes (made in `Map::of`,
            // unmapped only on drop, which cannot happen while `self` is borrowed). Fragstats
            // writes its state files only under the state folder's lock, and in place only the
            // checkpoint's spare, which is never mapped: the other files are written through a
            // temporary file renamed over them (`stage_file_with`), and a checkpoint is swapped
            // out to be the spare (`spare`) only by a build holding the lock, as every reader
            // of it does while it is mapped. So the mapped file's bytes do not change while
            // they are read. (Another program cutting the file short meanwhile would end the
            // process with SIGBUS.)
            FileBytes::Mapped(map) => unsafe {
                std::slice::from_raw_parts(map.ptr.cast::<u8>(), map.len)
            },
            FileBytes::Read(bytes) => bytes,
        }
    }
}

impl Map {
    /// Maps the first `len` (> 0) bytes of `file`, its pages mapped in at once (they are in
    /// the page cache after the build that wrote the file, and all of them are read); None
    /// when the system refuses.
    fn of(file: &File, len: usize) -> Option<Map> {
        // SAFETY: a new private read-only mapping of an open file descriptor, at an address the
        // system chooses: it aliases no memory of this process. The result is checked.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_POPULATE,
                file.as_raw_fd(),
                0,
            )
        };
        (ptr != libc::MAP_FAILED).then_some(Map { ptr, len })
    }
}

impl Drop for Map {
    fn drop(&mut self) {
        // SAFETY: `ptr` and `len` are those of the mapping made in `Map::of`, unmapped only here;
        // no borrow of its bytes outlives `self`.
        unsafe {
            libc::munmap(self.ptr, self.len);
        }
    }
}

/// The whole of `file`, read into a buffer of the `len` bytes it holds (more if it grew).
fn read_whole(mut file: File, len: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::with_capacity(len);
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapped_and_empty_files_read_their_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let bytes: Vec<u8> = (0..20_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let read = FileBytes::read(&path).unwrap();
        assert!(matches!(read, FileBytes::Mapped(_)));
        assert_eq!(&*read, &bytes[..]);
        std::fs::write(&path, b"").unwrap();
        let read = FileBytes::read(&path).unwrap();
        assert!(matches!(read, FileBytes::Read(_)));
        assert!(read.is_empty());
        assert_eq!(
            FileBytes::read(&dir.path().join("missing"))
                .err()
                .map(|e| e.kind()),
            Some(std::io::ErrorKind::NotFound)
        );
    }
}
