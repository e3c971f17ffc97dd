//! Rating benchmark (not a test): `cargo bench --bench rating`.
//!
//! 1. Dynamic rating: replays the rating operations of the synthetic 1000-match log
//!    (`../shared/bench/gen_q3log.py 1000 3`, generated into `target/` on first run) and of the
//!    real logs in `../shared/data`, and reports rating events per second on one core.
//! 2. Static ranking: a synthetic frag matrix of 100,000 players and 5,000,000 met pairs (a dense
//!    group of 300 plus random pairs), timing the core peeling + closed form + conjugate gradient,
//!    and the peak memory of the process.
//! 3. Evaluation: every rating system replayed over the synthetic 1000-match log, predicting and
//!    learning each frag and team result (issue target: under 2 s).

mod common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use fragstats::build::read_logs;
use fragstats::config::{DynamicConfig, StaticConfig};
use fragstats::model::clans::Clans;
use fragstats::model::identity::{Aliases, Roster};
use fragstats::rating::systems::dynamic::{Op, Stream};
use fragstats::rating::systems::static_rank::{FragMatrix, Pair, core, least_squares, rank};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let synthetic = common::synthetic_1000(root);
    evaluation("synthetic 1000 matches", std::slice::from_ref(&synthetic));
    evaluation("real logs (../shared/data)", &[root.join("../shared/data")]);
    dynamic("synthetic 1000 matches", &[synthetic]);
    dynamic("real logs (../shared/data)", &[root.join("../shared/data")]);
    static_ranking(100_000, 5_000_000);
    println!("peak memory (VmHWM): {}", peak_memory());
}

fn evaluation(label: &str, paths: &[PathBuf]) {
    let (matches, _) = read_logs(paths).expect("read logs");
    let roster = Roster::build(&matches, &Aliases::default());
    let cfg = fragstats::config::RatingConfig::default();
    let mut best = f64::MAX;
    let mut frags = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let e = fragstats::rating::evaluation::evaluate_all((&matches).into(), &roster, &cfg, true);
        best = best.min(t.elapsed().as_secs_f64());
        frags = e.frags;
        assert_eq!(e.systems.len(), fragstats::rating::system::SYSTEM_IDS.len());
    }
    println!(
        "evaluation, {label}: {} matches, {frags} frags, {} systems: best of 3 runs {:.3} s",
        matches.len(),
        fragstats::rating::system::SYSTEM_IDS.len(),
        best
    );
}

fn dynamic(label: &str, paths: &[PathBuf]) {
    let (matches, _) = read_logs(paths).expect("read logs");
    let roster = Roster::build(&matches, &Aliases::default());
    let clans = Clans::assign(&roster, &[], true);
    let cfg = DynamicConfig::default();
    let stream = Stream::build((&matches).into(), &roster, &clans, &cfg);
    let events = stream
        .ops
        .iter()
        .filter(|op| !matches!(op, Op::EndMatch { .. } | Op::Decay { .. }))
        .count();
    // Repeat to at least ~1 second of work, take the best run.
    let runs = (20_000_000 / events.max(1)).clamp(3, 200);
    let mut best = f64::MAX;
    let mut check = 0.0;
    for _ in 0..runs {
        let t = Instant::now();
        let r = stream.run(&cfg);
        best = best.min(t.elapsed().as_secs_f64());
        check += r.players.iter().sum::<f64>();
    }
    println!(
        "dynamic, {label}: {} matches, {events} rating events, best of {runs} replays {:.2} ms = {:.1} M events/s (checksum {check:.1})",
        matches.len(),
        best * 1e3,
        events as f64 / best / 1e6
    );
}

/// xorshift64*: a small deterministic generator, so the benchmark needs no extra crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn static_ranking(players: u32, pairs: usize) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let t = Instant::now();
    let mut seen = std::collections::HashSet::with_capacity(pairs);
    let mut list = Vec::with_capacity(pairs);
    let dense = 300u32;
    for i in 0..dense {
        for j in i + 1..dense {
            seen.insert((i, j));
            list.push(Pair {
                i,
                j,
                a_ij: 3 + rng.below(10) as u32,
                a_ji: 3 + rng.below(10) as u32,
            });
        }
    }
    while list.len() < pairs {
        let a = rng.below(u64::from(players)) as u32;
        let b = rng.below(u64::from(players)) as u32;
        let (i, j) = (a.min(b), a.max(b));
        if i == j || !seen.insert((i, j)) {
            continue;
        }
        let a_ij = rng.below(8) as u32;
        let a_ji = if a_ij == 0 {
            1 + rng.below(7) as u32
        } else {
            rng.below(8) as u32
        };
        list.push(Pair { i, j, a_ij, a_ji });
    }
    drop(seen);
    list.sort_unstable_by_key(|p| (p.i, p.j));
    let matrix = FragMatrix {
        n: players as usize,
        pairs: list,
    };
    println!(
        "static: generated {players} players, {pairs} met pairs in {:.2} s",
        t.elapsed().as_secs_f64()
    );
    let cfg = StaticConfig::default();
    let t = Instant::now();
    let incidents = matrix.incidents();
    let core_only = core(&matrix, &incidents, &cfg);
    let t_core = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let _ = least_squares(&matrix);
    println!(
        "static parts: core peeling {t_core:.2} s ({} players), least squares on all met pairs {:.2} s",
        core_only.len(),
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let r = rank(&matrix, &cfg);
    let secs = t.elapsed().as_secs_f64();
    let outside = r.outside.iter().filter(|v| v.is_some()).count();
    println!(
        "static: core {} players, {outside} exact values outside the core, ranked in {secs:.2} s",
        r.core.len()
    );
}

fn peak_memory() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l[6..].trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}
