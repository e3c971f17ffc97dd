//! Work on a thread of its own whose handle is joined when dropped: a build that stops early
//! (an error) still waits for what it started, so that none of it outlives the state folder's
//! lock (a mapping of the checkpoint file, a checkpoint half written).

use std::thread::JoinHandle;

/// A thread joined when dropped, its result ignored then; [`Joined::join`] gives it.
pub struct Joined<T>(Option<JoinHandle<T>>);

impl<T: Send + 'static> Joined<T> {
    /// Runs `work` on a thread of its own.
    pub fn spawn(work: impl FnOnce() -> T + Send + 'static) -> Joined<T> {
        Joined(Some(std::thread::spawn(work)))
    }
}

impl<T> Joined<T> {
    /// Waits for the thread and gives its result (a panic on it goes on here).
    pub fn join(mut self) -> T {
        let handle = self.0.take().expect("a thread is joined once");
        handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }
}

impl<T> Drop for Joined<T> {
    fn drop(&mut self) {
        if let Some(handle) = self.0.take() {
            let _ = handle.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Dropped, the thread is waited for; joined, its result is given.
    #[test]
    fn a_dropped_thread_is_waited_for() {
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        drop(Joined::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            flag.store(true, Ordering::SeqCst);
        }));
        assert!(done.load(Ordering::SeqCst));
        assert_eq!(Joined::spawn(|| 7).join(), 7);
    }
}
