//! One writer of a state folder at a time: two builds of the same site at once (a cron build
//! beside `fragstats watch`, or two cron builds overlapping) would otherwise each save a state
//! made from what it loaded, and remove the other's new files as unreferenced: a build that
//! archived a log's matches (the log was rotated away) could end with the other's archive,
//! which lacks them, and an index naming a per-log file the first one removed.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;

/// File name of the lock inside the state folder.
const LOCK_FILE: &str = "lock";

/// An exclusive lock on a state folder, held until dropped (or the process ends, however it
/// ends: the system releases it with the file).
#[derive(Debug)]
pub struct StateLock {
    file: Option<File>,
}

impl StateLock {
    /// Whether the lock was taken (else the build goes on unlocked, see [`lock`]): only then
    /// does a build write a state file in place (the checkpoint's spare, `super::spare`).
    pub fn held(&self) -> bool {
        self.file.is_some()
    }
}

/// Locks the state folder `dir` (creating it), waiting for another build that holds it to
/// finish; `waiting` is called once if it has to wait. Where the lock cannot be taken (a file
/// system without `flock`, a folder that cannot be written), the build goes on unlocked, as
/// before: saving the state reports what cannot be written.
pub fn lock(dir: &Path, waiting: impl FnOnce()) -> StateLock {
    let file = std::fs::create_dir_all(dir).and_then(|()| {
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(LOCK_FILE))
    });
    let Ok(file) = file else {
        return StateLock { file: None };
    };
    let flock = |op| {
        // SAFETY: flock on a file descriptor this function owns, open until it returns.
        (unsafe { libc::flock(file.as_raw_fd(), op) } == 0)
            .then_some(())
            .ok_or_else(std::io::Error::last_os_error)
    };
    match flock(libc::LOCK_EX | libc::LOCK_NB) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
            waiting();
            loop {
                match flock(libc::LOCK_EX) {
                    Ok(()) => break,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => return StateLock { file: None },
                }
            }
        }
        Err(_) => return StateLock { file: None },
    }
    remove_leftovers(dir);
    StateLock { file: Some(file) }
}

/// Removes the temporary files of the state folder's own files that a killed build left (the
/// rating checkpoint's is about 56 MB on a public server's site): with the lock held, no
/// build is writing them.
fn remove_leftovers(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let left = name
            .to_str()
            .and_then(|n| n.strip_prefix('.'))
            .is_some_and(|n| {
                [
                    super::STATE_FILE,
                    super::ARCHIVE_FILE,
                    super::CHECKPOINT_FILE,
                ]
                .iter()
                .any(|file| {
                    n.strip_prefix(file)
                        .and_then(|rest| rest.strip_prefix(".tmp-"))
                        .is_some_and(|pid| {
                            !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())
                        })
                })
            });
        if left && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::build::{BuildRequest, build};

    /// Taking the lock removes the temporary files a killed build left, and nothing else.
    #[test]
    fn the_lock_removes_what_a_killed_build_left() {
        let dir = tempfile::tempdir().unwrap();
        let left = [
            ".ratings.bin.tmp-123",
            ".state.bin.tmp-9",
            ".archive.bin.tmp-77",
        ];
        let other = [
            "ratings.bin",
            "ratings.spare.bin",
            ".ratings.bin.tmp-",
            ".notes.tmp-1",
            "state.bin.tmp-1",
        ];
        for name in left.iter().chain(&other) {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        let _lock = super::lock(dir.path(), || panic!("nobody holds it"));
        for name in left {
            assert!(!dir.path().join(name).exists(), "{name} removed");
        }
        for name in other {
            assert!(dir.path().join(name).exists(), "{name} kept");
        }
    }

    /// A build waits while another holds the site's state folder, then builds.
    #[test]
    fn a_build_waits_for_the_one_holding_the_state() {
        let dir = tempfile::tempdir().unwrap();
        let logs = format!(
            "{}/tests/fixtures/openarena/duel",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::write(dir.path().join("site.toml"), format!("logs = [{logs:?}]\n")).unwrap();
        let state = dir.path().join(".fragstats");
        let held = super::lock(&state, || panic!("nobody holds it yet"));
        std::thread::scope(|s| {
            let building = s.spawn(|| {
                build(&BuildRequest {
                    config: Some(dir.path().join("site.toml")),
                    ..Default::default()
                })
            });
            std::thread::sleep(std::time::Duration::from_millis(300));
            assert!(!building.is_finished(), "the build waits for the lock");
            assert!(!state.join("state.bin").exists(), "nothing saved meanwhile");
            drop(held);
            let built = building.join().unwrap().unwrap();
            assert!(built.matches > 0);
        });
        assert!(state.join("state.bin").exists());
        // Released with the build: it is taken at once again.
        let _again = super::lock(&state, || panic!("the build released it"));
    }
}
