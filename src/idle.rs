//! Background work that should use only processors the build leaves idle (freeing the old
//! site's replaced files). A build of a public server's site keeps both processors busy most of
//! the time, with short stretches where one waits (a step done on one thread); small work at
//! idle priority fills those stretches instead of slowing the busy threads, and whoever waits
//! for it lets it run. Not for bigger work such as the ratings checkpoint's writing, which finds
//! too few such stretches (`benches/RESULTS.md`).

/// Runs the calling thread only when a processor would otherwise be idle (Linux's
/// `SCHED_IDLE`), where the system allows it; elsewhere it runs as before.
pub fn lower_to_idle() {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: changes only the calling thread's policy (pid 0), with a valid parameter.
        let _ = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
    }
}

#[cfg(test)]
mod tests {
    /// The calling thread, and only it, is put at idle priority.
    #[test]
    #[cfg(target_os = "linux")]
    fn only_the_calling_thread_goes_idle() {
        // SAFETY: reads the calling thread's policy.
        let policy = || unsafe { libc::sched_getscheduler(0) };
        let lowered = std::thread::spawn(move || {
            super::lower_to_idle();
            policy()
        });
        assert_eq!(lowered.join().unwrap(), libc::SCHED_IDLE);
        assert_eq!(policy(), libc::SCHED_OTHER);
    }
}
