//! Test helpers: the bot logs of `tests/fixtures/openarena` and the real logs of
//! `../shared/data`, read as a build reads them.

mod needs;

pub use needs::{openarena, shared};

use crate::model::identity::{Aliases, Roster};
use crate::model::{Events, GameType, Match, MatchList, MatchPlayer, PlayerFields, Team, Text};

/// The names in folder `dir`, sorted.
pub fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The matches of the bot logs `openarena[/sub]` (the repository's copy) in site order, and
/// their roster.
pub fn history(set: &str) -> (Vec<Match>, Roster) {
    let sub = set
        .strip_prefix("openarena")
        .expect("a set of the bot logs");
    read_history(openarena(sub.trim_start_matches('/')))
}

/// As [`history`], for `openarena[/sub]` or a set under `../shared/data` (None when it is
/// absent: the test said it skipped it).
pub fn history_of(set: &str) -> Option<(Vec<Match>, Roster)> {
    if set.starts_with("openarena") {
        return Some(history(set));
    }
    Some(read_history(shared(&format!("data/{set}"))?))
}

fn read_history(root: std::path::PathBuf) -> (Vec<Match>, Roster) {
    let (matches, _) = crate::build::read_logs(&[root]).expect("the logs are readable");
    let roster = Roster::build(&matches, &Aliases::default());
    (matches, roster)
}

/// Every `.log` file under `dir` (the real logs under `../shared/data`), sorted by path.
pub fn log_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(log_files(&path));
        } else if path.extension().is_some_and(|e| e == "log") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// A match of game type `gametype` (`ctf` is team based, `duel` a duel) with these players,
/// all active, and no events: the start of hand-made cases.
pub fn bare_match(gametype: &str, players: &[(&str, Team)]) -> Match {
    Match {
        id: Box::default(),
        content: 0,
        open: false,
        number: 0,
        source: "t.log".into(),
        file_index: 0,
        line: 1,
        map: "m".into(),
        game: "quake3".into(),
        gametype: GameType::new(gametype, gametype, gametype == "ctf", gametype == "duel"),
        server: String::new().into(),
        start: None,
        duration_seconds: 0,
        exit_reason: None,
        team_scores: None,
        partial: false,
        players: players
            .iter()
            .map(|(n, t)| {
                MatchPlayer::from(PlayerFields {
                    plain: Text::new(n),
                    name: Text::new(n),
                    score: None,
                    team: *t,
                    joined: 0,
                    left: None,
                    active: true,
                    bot_skill: None,
                    uid: None,
                    bot: false,
                })
            })
            .collect(),
        events: Events::default(),
        weapons: ["MOD_X"].iter().collect(),
        awards: Default::default(),
        rounds: Default::default(),
        spots: Default::default(),
    }
}

/// A small deterministic random generator for simulations (64-bit LCG, top 53 bits).
pub struct Lcg(pub u64);

impl Lcg {
    /// Uniform in [0, 1).
    pub fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in 0..n.
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next() * n as f64) as usize).min(n.saturating_sub(1))
    }

    /// Standard normal (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u = self.next().max(1e-300);
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * self.next()).cos()
    }
}

/// Simulated team deathmatches with known skills: `pool` players with skills drawn from
/// N(0, 1) (natural-log frag odds); each match takes 6 to 10 of them at random, splits them at
/// random (one in four matches uneven by one), and plays 120 encounters between a random player
/// and a random opponent, won with σ(skill difference + ln(own side's size / other's)). A side
/// scores a point per frag. Returns the matches (in order, roster built) and the true skills in
/// roster order.
pub fn simulated_team_matches(
    matches: usize,
    pool: usize,
    seed: u64,
) -> (Vec<Match>, Roster, Vec<f64>) {
    use crate::model::{Event, EventKind};
    let mut rng = Lcg(seed);
    let skills: Vec<f64> = (0..pool).map(|_| rng.normal()).collect();
    let mut out = Vec::with_capacity(matches);
    for number in 0..matches {
        let n = 6 + rng.below(5);
        let mut picked: Vec<usize> = Vec::with_capacity(n);
        while picked.len() < n {
            let k = rng.below(pool);
            if !picked.contains(&k) {
                picked.push(k);
            }
        }
        let reds = if n % 2 == 1 || rng.next() < 0.75 {
            n / 2
        } else {
            n / 2 - 1
        };
        let names: Vec<String> = picked.iter().map(|k| format!("Sim{k}")).collect();
        let lineup: Vec<(&str, Team)> = names
            .iter()
            .enumerate()
            .map(|(i, name)| (name.as_str(), if i < reds { Team::Red } else { Team::Blue }))
            .collect();
        let mut m = bare_match("tdm", &lineup);
        m.gametype = GameType::new("tdm", "tdm", true, false);
        m.id = format!("sim{number}").into();
        m.number = number as u32;
        m.duration_seconds = 600;
        m.map = ["sim1", "sim2", "sim3"][number % 3].into();
        let size = [reds as f64, (n - reds) as f64];
        let mut score = [0i32; 2];
        let mut events = Vec::new();
        for t in 0..120u32 {
            let a = rng.below(n);
            let side_a = usize::from(a >= reds);
            let b = if side_a == 0 {
                reds + rng.below(n - reds)
            } else {
                rng.below(reds)
            };
            let edge =
                skills[picked[a]] - skills[picked[b]] + (size[side_a] / size[1 - side_a]).ln();
            let (killer, victim) = if rng.next() < 1.0 / (1.0 + (-edge).exp()) {
                (a, b)
            } else {
                (b, a)
            };
            score[usize::from(killer >= reds)] += 1;
            events.push(Event {
                time: t * 5,
                line: u64::from(t) + 2,
                kind: EventKind::Frag,
                actor: killer as u32,
                target: victim as u32,
                detail: 0,
            });
        }
        m.events = Events::from(events);
        m.team_scores = Some(score);
        out.push(m);
    }
    let roster = Roster::build(&out, &Aliases::default());
    let truth = roster
        .players
        .iter()
        .map(|p| {
            p.key
                .strip_prefix("Sim")
                .and_then(|k| k.parse::<usize>().ok())
                .map_or(0.0, |k| skills[k])
        })
        .collect();
    (out, roster, truth)
}

/// Matches in memory as the [`MatchList`] a step takes (in tests, where a list is a `Vec`).
pub trait Listed {
    /// All the matches.
    fn list(&self) -> MatchList<'_>;
    /// The matches of `range`.
    fn slice(&self, range: impl std::ops::RangeBounds<usize>) -> MatchList<'_> {
        self.list().slice(range)
    }
}

impl Listed for [Match] {
    fn list(&self) -> MatchList<'_> {
        MatchList::from(self)
    }
}
