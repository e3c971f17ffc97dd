//! The system calls fragstats makes beyond what std offers: the atomic exchange of two paths,
//! for the output (the site) and the state (the ratings checkpoint). The memory map of a file
//! is [`crate::mapped`]'s.

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
