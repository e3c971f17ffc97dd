//! Whole-history fit benchmark (not a test): `cargo bench --bench whole_history [GAMES ...]`.
//!
//! Public-server crowds from `../shared/bench/gen_q3log.py GAMES 5 (5 x GAMES)` (by default 5,000,
//! 10,000 and 20,000 games; the last is the 619 MB crowd log), generated once into the
//! system's temporary folder. For each: the online replay of the headline fit (predict and learn
//! every frag, refit at each match end), the final solve (Newton steps with a preconditioned
//! conjugate gradient) with the tolerance it reached, and every rating system's evaluation
//! together. The time per frag staying flat across the sizes is the claim that the cost is
//! linear in frags.

mod common;
use common::cpu;

use std::path::{Path, PathBuf};
use std::time::Instant;

use fragstats::build::read_logs;
use fragstats::config::RatingConfig;
use fragstats::model::EventKind;
use fragstats::model::identity::{Aliases, Roster};
use fragstats::rating::systems::whole_history::WholeHistory;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let per_system = std::env::args().any(|a| a == "--systems");
    let sizes: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![5_000, 10_000, 20_000]
    } else {
        sizes
    };
    for games in sizes {
        let log = crowd_log(root, games);
        run(&log, games, per_system);
    }
}

/// The crowd log of `games` games, generated on first use.
fn crowd_log(root: &Path, games: u32) -> PathBuf {
    common::generated_log(
        root,
        std::env::temp_dir().join(format!("fragstats-crowd-{games}.log")),
        &[games.to_string(), "5".into(), (games * 5).to_string()],
    )
}

fn run(log: &Path, games: u32, per_system: bool) {
    let (matches, _) = read_logs(&[log.to_path_buf()]).expect("read the crowd log");
    let roster = Roster::build(&matches, &Aliases::default());
    let players = roster.players.len();
    // Frags per match, in roster numbers.
    let frags: Vec<Vec<(u32, u32)>> = matches
        .iter()
        .zip(&roster.match_players)
        .map(|(m, ids)| {
            m.events
                .read()
                .iter()
                .filter(|e| e.kind == EventKind::Frag)
                .map(|e| (ids[e.actor as usize], ids[e.target as usize]))
                .collect()
        })
        .collect();
    let total: usize = frags.iter().map(Vec::len).sum();
    let cfg = RatingConfig::default();

    let (t, c) = (Instant::now(), cpu());
    let mut fit = WholeHistory::new(players, cfg.whole_history.decay);
    let mut loss = 0.0;
    for m in &frags {
        for &(k, v) in m {
            loss -= fit.predict(k, v).ln();
            fit.frag(k, v);
        }
        fit.end_match();
    }
    let (replay, replay_cpu) = (t.elapsed().as_secs_f64(), cpu() - c);
    let (t, c) = (Instant::now(), cpu());
    let solved = fit.converge();
    let (solve, solve_cpu) = (t.elapsed().as_secs_f64(), cpu() - c);
    // The fits below NEGLIGIBLE_WEIGHT are the ones the final solve leaves unsolved.
    let weights = fit
        .fit_weights()
        .iter()
        .fold(String::new(), |s, w| format!("{s} {w:.1e}"));
    let (t, c) = (Instant::now(), cpu());
    let evaluation =
        fragstats::rating::evaluation::evaluate_all((&matches).into(), &roster, &cfg, true);
    let (all, all_cpu) = (t.elapsed().as_secs_f64(), cpu() - c);
    let per_frag = |secs: f64| secs / total as f64 * 1e9;
    println!(
        "crowd {games} games: {players} players, {total} frags\n  \
         whole-history replay {replay:.2} s wall, {replay_cpu:.2} s cpu ({:.0} ns cpu/frag; \
         log-loss {:.4})\n  \
         final solve {solve:.2} s wall, {solve_cpu:.2} s cpu ({:.0} ns cpu/frag; {solved})\n  \
         fit weights {weights}\n  \
         all {} systems evaluated {all:.2} s wall, {all_cpu:.2} s cpu ({:.0} ns cpu/frag)",
        per_frag(replay_cpu),
        loss / total as f64,
        per_frag(solve_cpu),
        evaluation.systems.len(),
        per_frag(all_cpu),
    );
    if per_system {
        for id in fragstats::rating::system::SYSTEM_IDS {
            let Ok(system) = serde_json::from_value(id.into()) else {
                continue;
            };
            let mut cfg = cfg.clone();
            cfg.headline.system = system;
            let (t, c) = (Instant::now(), cpu());
            fragstats::rating::evaluation::evaluate_all((&matches).into(), &roster, &cfg, false);
            println!(
                "  {id} alone: {:.2} s wall, {:.2} s cpu",
                t.elapsed().as_secs_f64(),
                cpu() - c
            );
        }
    }
}
