//! [`Scratch`]: a build's file without a name in the state folder, where what a build made and
//! reads back later goes instead of memory (issue 41: the rating curves' old points, the
//! replay's scores and the batches its followers have not replayed yet, the counts' packed
//! lines). Bytes are appended by any thread and read back
//! by where they lie; the file is gone once the last owner drops it, however the build ends.
//! Not a store between builds (see [`crate::state`]).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A file without a name, made in its folder when the first bytes are put.
#[derive(Debug)]
pub struct Scratch {
    dir: PathBuf,
    file: OnceLock<Option<File>>,
    end: AtomicU64,
    /// A write failed (a full disk): nothing is put from then on.
    failed: AtomicBool,
    /// Tells this file apart from the others the process made (in caches of what was read).
    number: u64,
}

impl Scratch {
    /// A file to be made in `dir` (the state folder).
    pub fn new(dir: PathBuf) -> Scratch {
        static MADE: AtomicU64 = AtomicU64::new(0);
        Scratch {
            dir,
            file: OnceLock::new(),
            end: AtomicU64::new(0),
            failed: AtomicBool::new(false),
            number: MADE.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// Appends `bytes`; where they lie, or `None` when they cannot be written (a folder that
    /// cannot be written, a full disk): the caller keeps them in memory.
    pub fn put(&self, bytes: &[u8]) -> Option<u64> {
        if self.failed.load(Ordering::Relaxed) {
            return None;
        }
        let file = self
            .file
            .get_or_init(|| crate::sys::unnamed_file(&self.dir).ok())
            .as_ref();
        let Some(file) = file else {
            self.failed.store(true, Ordering::Relaxed);
            return None;
        };
        let at = self.end.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        if file.write_all_at(bytes, at).is_err() {
            self.failed.store(true, Ordering::Relaxed);
            return None;
        }
        Some(at)
    }

    /// Fills `bytes` from where they lie, `at` (bytes [`Scratch::put`] placed there).
    pub fn read_exact_at(&self, bytes: &mut [u8], at: u64) -> std::io::Result<()> {
        let file =
            self.file.get().and_then(Option::as_ref).ok_or_else(|| {
                std::io::Error::other("the build's scratch file was never written")
            })?;
        file.read_exact_at(bytes, at)
    }

    /// This file's number among those the process made.
    pub fn number(&self) -> u64 {
        self.number
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes put from several threads read back where each put lies; a folder where no file
    /// can be made puts nothing.
    #[test]
    fn bytes_put_read_back_where_they_lie() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = Scratch::new(dir.path().to_path_buf());
        let placed: Vec<(u64, Vec<u8>)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4u8)
                .map(|t| {
                    let scratch = &scratch;
                    s.spawn(move || {
                        (0..50u8)
                            .map(|i| {
                                let bytes =
                                    vec![t.wrapping_mul(50).wrapping_add(i); 1 + i as usize];
                                (scratch.put(&bytes).unwrap(), bytes)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect()
        });
        for (at, bytes) in &placed {
            let mut back = vec![0; bytes.len()];
            scratch.read_exact_at(&mut back, *at).unwrap();
            assert_eq!(&back, bytes);
        }

        let nowhere = Scratch::new(dir.path().join("missing"));
        assert_eq!(nowhere.put(b"lost"), None);
        assert!(nowhere.read_exact_at(&mut [0; 4], 0).is_err());
        assert_ne!(nowhere.number(), scratch.number());
    }
}
