//! Render benchmark (not a test): `cargo bench --bench render`.
//!
//! Builds a synthetic history of 10,000 players (20,000 FFA matches of 8 players, 30 frags each),
//! then times `build::render`: identities, counts, ratings and every page (10,000 player pages
//! with their rating curves, match and map pages, JSON), rendered in parallel with rayon.

use std::path::Path;
use std::time::Instant;

use chrono::NaiveDate;
use fragstats::build::{NewCheckpoint, RenderRequest, render};
use fragstats::config::Config;
use fragstats::leftovers::Leftovers;
use fragstats::model::{
    Event, EventKind, GameType, Match, MatchPlayer, NO_PLAYER, PlayerFields, Team,
};
use fragstats::render::PageCache;

/// The same allocator as the binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

fn synthetic(players: u64, matches: usize) -> Vec<Match> {
    let mut rng = Rng(42);
    let start = NaiveDate::from_ymd_opt(2026, 1, 1)
        .unwrap()
        .and_hms_opt(0, 0, 0)
        .unwrap();
    (0..matches)
        .map(|mi| {
            let mut names: Vec<u64> = Vec::new();
            while names.len() < 8 {
                let p = rng.below(players);
                if !names.contains(&p) {
                    names.push(p);
                }
            }
            let mut events: Vec<Event> = (0..8)
                .map(|i| Event {
                    time: 0,
                    line: i,
                    kind: EventKind::TeamChange(Team::Free),
                    actor: i as u32,
                    target: NO_PLAYER,
                    detail: 0,
                })
                .collect();
            for f in 0..30u32 {
                let k = rng.below(8) as u32;
                let v = (k + 1 + rng.below(7) as u32) % 8;
                events.push(Event {
                    time: f * 20,
                    line: u64::from(10 + f),
                    kind: EventKind::Frag,
                    actor: k,
                    target: v,
                    detail: rng.below(3) as u16,
                });
            }
            Match {
                id: format!("{mi:016x}").into(),
                content: mi as u64,
                open: false,
                number: 0,
                source: "synthetic.log".into(),
                file_index: 0,
                line: mi as u64,
                map: format!("map{}", mi % 40).into(),
                game: "quake3".into(),
                gametype: GameType::new("ffa", "Free For All", false, false),
                server: "bench".into(),
                start: Some(start + chrono::Duration::minutes(15 * mi as i64)),
                duration_seconds: 600,
                exit_reason: Some("Fraglimit hit.".into()),
                team_scores: None,
                partial: false,
                players: names
                    .iter()
                    .map(|n| {
                        MatchPlayer::from(PlayerFields {
                            plain: format!("Player{n}").into(),
                            name: format!("^{}Player^7{n}", n % 8).into(),
                            score: Some(3),
                            team: Team::Free,
                            joined: 0,
                            left: None,
                            active: true,
                            bot_skill: None,
                            uid: None,
                            bot: false,
                        })
                    })
                    .collect(),
                events: events.into(),
                weapons: ["MOD_ROCKET", "MOD_RAILGUN", "MOD_SHOTGUN"]
                    .iter()
                    .collect(),
                awards: Default::default(),
                rounds: Default::default(),
                spots: Default::default(),
            }
        })
        .collect()
}

fn main() {
    let matches = synthetic(10_000, 20_000);
    let config = Config::default();
    let t = Instant::now();
    let diagnostics = fragstats::diagnostics::Diagnostics::default();
    let request = |resume| RenderRequest {
        matches: (&matches).into(),
        diagnostics: &diagnostics,
        config: &config,
        site_dir: Path::new("/nonexistent-bench-site"),
        resume,
        rule: Default::default(),
        state_dir: None,
        sink: None,
        leftovers: Leftovers::Free,
    };
    let site = render(request(fragstats::build::Resume::None), PageCache::default).expect("render");
    let secs = t.elapsed().as_secs_f64();
    // The same site again, resuming the counts and ratings from the checkpoint (no match to
    // fold).
    let t = Instant::now();
    let resume = fragstats::build::Resume::Decoded(match &site.checkpoint {
        Some(NewCheckpoint::Encoded(bytes)) => {
            fragstats::state::decode_checkpoint(bytes).map(Box::new)
        }
        _ => None,
    });
    let resumed = render(request(resume), PageCache::default).expect("render");
    let resumed_secs = t.elapsed().as_secs_f64();
    assert!(
        matches!(resumed.replayed, fragstats::fold::Replayed::Resumed(n) if n == matches.len()),
        "{:?}",
        resumed.replayed
    );
    let player_pages = site
        .files
        .iter()
        .filter(|f| f.path.starts_with("players/"))
        .count();
    let with_curve = site
        .files
        .iter()
        .filter(|f| {
            f.path.starts_with("players/") && f.to_vec().windows(10).any(|w| w == b"class=\"cha")
        })
        .count();
    let bytes: usize = site.files.iter().map(|f| f.len()).sum();
    for dir in ["players/", "matches/", "maps/", "clans/"] {
        let (n, b) = site
            .files
            .iter()
            .filter(|f| f.path.starts_with(dir))
            .fold((0, 0), |(n, b), f| (n + 1, b + f.len()));
        println!(
            "  {dir}: {n} pages, {:.0} KB each",
            b as f64 / n.max(1) as f64 / 1e3
        );
    }
    println!(
        "render: {} players, {} matches -> {} files ({} player pages, {with_curve} with a curve, {:.0} MB) in {secs:.2} s on {} threads",
        site.players,
        matches.len(),
        site.files.len(),
        player_pages,
        bytes as f64 / 1e6,
        rayon::current_num_threads()
    );
    println!(
        "render again from the rating checkpoint (nothing new to replay): {resumed_secs:.2} s"
    );
}
