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

/// Prints how long each step took when `FRAGSTATS_TIMINGS` is set: wall-clock time and the
/// processor time of every thread (on a shared machine the latter is what the step costs).
pub struct Timer {
    on: bool,
    last: std::cell::Cell<(std::time::Instant, f64)>,
}

/// Processor time of the process so far, in seconds (all threads; 0 where unavailable).
fn cpu_seconds() -> f64 {
    clock_seconds(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// The time of clock `clock` (a `clock_gettime` clock id), in seconds (0 where unavailable).
fn clock_seconds(clock: libc::clockid_t) -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes one timespec into the valid pointer it is given.
    if unsafe { libc::clock_gettime(clock, &mut t) } != 0 {
        return 0.0;
    }
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// The most memory the process has held so far (resident), in MB, where Linux's
/// `/proc/self/status` says it.
fn peak_memory() -> Option<u64> {
    memory_line("VmHWM:")
}

/// The memory the process holds now (resident), in MB, where Linux says it: what a step keeps
/// for the next ones, beside the peak it reached.
fn memory_now() -> Option<u64> {
    memory_line("VmRSS:")
}

/// The figure in KB of `/proc/self/status`'s line starting with `key`, in MB.
fn memory_line(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

impl Timer {
    /// Starts timing (silent unless `FRAGSTATS_TIMINGS` is set).
    pub fn new() -> Timer {
        Timer {
            on: std::env::var_os("FRAGSTATS_TIMINGS").is_some(),
            last: std::cell::Cell::new((std::time::Instant::now(), cpu_seconds())),
        }
    }

    /// Prints the time since the last lap (or the start) as `timing: what N s (cpu M s, peak
    /// P MB so far)` (the peak where the system says it).
    pub fn lap(&self, what: &str) {
        if self.on {
            let (now, cpu) = (std::time::Instant::now(), cpu_seconds());
            let (then, cpu_then) = self.last.get();
            eprintln!(
                "timing: {what} {:.2} s (cpu {:.2} s{})",
                (now - then).as_secs_f64(),
                cpu - cpu_then,
                peak_memory().map_or(String::new(), |mb| {
                    let now = memory_now().map_or(String::new(), |n| format!(", {n} MB now"));
                    format!(", peak {mb} MB so far{now}")
                })
            );
            self.last.set((now, cpu));
        }
    }
}

/// Processor time of the calling thread so far, in seconds (0 where unavailable).
fn thread_cpu_seconds() -> f64 {
    clock_seconds(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// The wall and thread processor time of a task run in pieces (on any threads), printed once
/// as [`timed`] prints a task run whole.
#[derive(Debug, Default, Clone, Copy)]
pub struct PieceTimes {
    wall: f64,
    cpu: f64,
}

impl PieceTimes {
    /// Runs `task`, one piece, adding its times when `FRAGSTATS_TIMINGS` is set.
    pub fn time<T>(&mut self, task: impl FnOnce() -> T) -> T {
        if std::env::var_os("FRAGSTATS_TIMINGS").is_none() {
            return task();
        }
        let (start, cpu) = (std::time::Instant::now(), thread_cpu_seconds());
        let out = task();
        self.wall += start.elapsed().as_secs_f64();
        self.cpu += thread_cpu_seconds() - cpu;
        out
    }

    /// Prints the pieces' total as `timing:     what ...` when `FRAGSTATS_TIMINGS` is set.
    pub fn report(&self, what: &str) {
        if std::env::var_os("FRAGSTATS_TIMINGS").is_some() {
            eprintln!(
                "timing:     {what} {:.2} s (thread cpu {:.2} s)",
                self.wall, self.cpu
            );
        }
    }
}

/// Runs `task` and, when `FRAGSTATS_TIMINGS` is set, prints its wall time and the processor
/// time of the thread that ran it as `timing:     what ...` (for one part of a step that runs
/// beside others, e.g. each rating system's replay; work it hands to other threads is not in
/// its processor time).
pub fn timed<T>(what: &str, task: impl FnOnce() -> T) -> T {
    if std::env::var_os("FRAGSTATS_TIMINGS").is_none() {
        return task();
    }
    let (start, cpu) = (std::time::Instant::now(), thread_cpu_seconds());
    let out = task();
    eprintln!(
        "timing:     {what} {:.2} s (thread cpu {:.2} s)",
        start.elapsed().as_secs_f64(),
        thread_cpu_seconds() - cpu
    );
    out
}

impl Default for Timer {
    fn default() -> Self {
        Timer::new()
    }
}
