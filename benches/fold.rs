//! The counts and ratings step alone (not a test): `cargo bench --bench fold [PATH ...]`.
//!
//! Reads the logs under each PATH (default: the synthetic 1000-match log of `cargo bench --bench
//! rating`, `gen_q3log.py 1000 3`), then runs [`fragstats::fold::fold`] (the counts, Becker's
//! ladder and the evaluation of every rating system) `FOLD_RUNS` times (default 3) from nothing,
//! and prints each run's wall-clock and processor time (all threads) and a digest of everything
//! the fold produced (the evaluation, ratings, counts and the checkpoint with every system's
//! learnt state): a change meant to be only faster must leave the digest unchanged to the bit.
//! With `FRAGSTATS_TIMINGS=1`, each replay's thread processor time is printed too.

mod common;
use common::cpu;

use std::path::{Path, PathBuf};
use std::time::Instant;

use fragstats::build::read_logs;
use fragstats::config::RatingConfig;
use fragstats::model::clans::Clans;
use fragstats::model::identity::{Aliases, Roster};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths: Vec<PathBuf> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .collect();
    if paths.is_empty() {
        paths.push(common::synthetic_1000(root));
    }
    let runs: usize = std::env::var("FOLD_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let (matches, _) = read_logs(&paths).expect("read logs");
    let roster = Roster::build(&matches, &Aliases::default());
    let clans = Clans::assign(&roster, &[], true);
    let cfg = RatingConfig::default();
    for run in 0..runs {
        let (t, c) = (Instant::now(), cpu());
        let folds = fragstats::fold::fold((&matches).into(), &roster, &clans, &cfg, None);
        let (wall, cpu_secs) = (t.elapsed().as_secs_f64(), cpu() - c);
        let mut h = fragstats::hash::Hasher::new();
        h.str(&format!("{:?}", folds.evaluation));
        h.str(&format!("{:?}", folds.dynamic));
        h.str(&format!("{:?}", folds.static_));
        let continuation = folds
            .continuation
            .expect("fold always leaves its continuation");
        let checkpoint = continuation.checkpoint(
            &folds.stats,
            matches.len(),
            &roster,
            &clans,
            &cfg,
            folds.tallies,
        );
        h.bytes(&postcard::to_allocvec(&checkpoint).expect("encode the checkpoint"));
        println!(
            "fold run {run}: {} matches, {wall:.3} s wall, {cpu_secs:.3} s cpu, digest {:016x}",
            matches.len(),
            h.finish()
        );
    }
}
