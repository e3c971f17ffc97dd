//! A progress bar for long builds (bytes parsed, rate, ETA) when stderr is a terminal; nothing
//! otherwise (cron, CI), where the summary lines say what happened. The only module that talks
//! to indicatif.

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

    /// No progress display.
    pub fn hidden() -> Progress {
        Progress { bar: None }
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
