//! The system calls fragstats makes beyond what std offers: the atomic exchange of two paths,
//! for the output (the site) and the state (the ratings checkpoint), and files without a name
//! (the replay's and the curves' scratch files in the state folder), and the allocator's
//! hand-back of freed memory. The memory map of a file is [`crate::mapped`]'s.

use std::path::Path;

/// Swaps two folders or files in one step (Linux `renameat2(RENAME_EXCHANGE)`), so a reader sees
/// either the old or the new one (site, or ratings checkpoint), never none. Fails where the
/// system cannot do it.
#[cfg(target_os = "linux")]
pub(crate) fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let ca = CString::new(a.as_os_str().as_bytes())?;
    let cb = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both are valid NUL-terminated paths; the call only reads them.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "no atomic exchange",
    ))
}

/// A new file in `dir` for reading and writing that has no name (`O_TMPFILE`), or whose name
/// is removed at once on a file system without unnamed files: gone once closed.
pub(crate) fn unnamed_file(dir: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let unnamed = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .mode(0o600)
        .custom_flags(libc::O_TMPFILE)
        .open(dir);
    match unnamed {
        Ok(file) => Ok(file),
        Err(_) => {
            static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let made = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let path = dir.join(format!(".replay-spill-{}-{made}", std::process::id()));
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)?;
            std::fs::remove_file(&path)?;
            Ok(file)
        }
    }
}

/// Hands the memory mimalloc holds freed back to the system, on this thread and on each thread
/// of the pool (`mi_collect`): called between a build's steps, where one step's freed memory
/// otherwise stayed with the allocator beside what the next step makes (measured on 64,000
/// games' build in benches/RESULTS.md). Where mimalloc is not the allocator (the tests), it
/// holds nothing to give back.
pub(crate) fn give_back_freed_memory() {
    rayon::broadcast(|_| give_back_this_threads_memory());
    give_back_this_threads_memory();
}

/// Hands the memory this thread freed back to the system (`mi_collect` on this thread):
/// called as a helper thread's work ends (the stamps read, the site mirrored, the state files
/// written), whose freed memory otherwise stayed with the allocator for its purge delay,
/// beside what the build's next steps make (with the give-back between steps, 3 to 5 MB less
/// held after the reading of 64,000 games: benches/RESULTS.md).
pub(crate) fn give_back_this_threads_memory() {
    // SAFETY: mi_collect only walks the allocator's own free lists; it takes no pointer.
    unsafe { libmimalloc_sys::mi_collect(true) };
}

/// Runs `work`, then gives back what this thread freed ([`give_back_this_threads_memory`]):
/// the body of a helper thread.
pub(crate) fn helper<T>(work: impl FnOnce() -> T) -> T {
    let done = work();
    give_back_this_threads_memory();
    done
}
