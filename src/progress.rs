//! A progress bar for long builds (bytes parsed, rate, ETA) when stderr is a terminal; nothing
//! otherwise (cron, CI), where the summary lines say what happened. The only module that talks
//! to indicatif. Also the step timer that `FRAGSTATS_TIMINGS=1` turns on.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// Progress of reading the logs. Cheap to share between threads.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar over `total` bytes when stderr is a terminal and the work is large enough to watch.
    pub fn bytes(total: u64) -> Progress {
        let visible = std::io::stderr().is_terminal() && total > 32 * 1024 * 1024;
        let bar = visible.then(|| {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template(
                    "parsing {bar:30} {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        Progress { bar }
    }

    /// `bytes` more were read.
    pub fn add(&self, bytes: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(bytes);
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Prints how long each step took when `FRAGSTATS_TIMINGS` is set.
pub struct Timer {
    on: bool,
    last: std::cell::Cell<std::time::Instant>,
}

impl Timer {
    /// Starts timing (silent unless `FRAGSTATS_TIMINGS` is set).
    pub fn new() -> Timer {
        Timer {
            on: std::env::var_os("FRAGSTATS_TIMINGS").is_some(),
            last: std::cell::Cell::new(std::time::Instant::now()),
        }
    }

    /// Prints the time since the last lap (or the start) as `timing: what N s`.
    pub fn lap(&self, what: &str) {
        if self.on {
            let now = std::time::Instant::now();
            eprintln!(
                "timing: {what} {:.2} s",
                (now - self.last.get()).as_secs_f64()
            );
            self.last.set(now);
        }
    }
}

impl Default for Timer {
    fn default() -> Self {
        Timer::new()
    }
}
