//! What becomes of the big structures a build no longer needs (the matches, the roster, the
//! counts and ratings, the pages). Freeing them is work: hundreds of thousands of small
//! allocations on a public server's site. `fragstats build` ends its process right after the
//! build (without the allocator's clean-up, see `main`), and the system takes back the memory
//! at once, so there they are left as they are; a process that builds again (`watch`, `serve`,
//! the tests) frees them.

/// Whether the big structures of a build are freed or left for the system.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Leftovers {
    /// Freed where they are last used (a process that goes on after the build).
    #[default]
    Free,
    /// Left allocated: the process ends right after the build, and the system takes back
    /// its memory then.
    Leave,
}

impl Leftovers {
    /// Frees `value`, or leaves it allocated under [`Leftovers::Leave`]. Only for plain data:
    /// a value whose drop does more than free memory (joins a thread, removes or flushes a
    /// file) must be dropped.
    pub fn discard<T>(self, value: T) {
        match self {
            Leftovers::Free => drop(value),
            Leftovers::Leave => std::mem::forget(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    /// `Free` drops the value, `Leave` does not (its drop never runs).
    #[test]
    fn leave_skips_the_drop_and_free_runs_it() {
        let shared = Rc::new(());
        Leftovers::Free.discard(Rc::clone(&shared));
        assert_eq!(Rc::strong_count(&shared), 1);
        Leftovers::Leave.discard(Rc::clone(&shared));
        assert_eq!(Rc::strong_count(&shared), 2);
    }
}
