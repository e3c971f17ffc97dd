//! Becker's dynamic rating (RANKING.md section 1): an Elo ladder where every frag is a 1:0 result,
//! suicides and team kills are -1:0 against an imaginary player of equal rating, flag captures are
//! x:0 against the mean rating of the opposing team present, duels can be rated per match, ratings
//! decay with log time, and clans are virtual players fed by their members' events.
//!
//! Two steps: [`Stream::build`] turns matches into a flat list of rating operations (all the game
//! logic: who was present, which clan, which weight), and [`Stream::run`] replays it (only
//! arithmetic, fast). Players are numbered as in the roster; clan `c` is number `players + c`.
//! A [`Ladder`] holds the replay's state between builds: it builds and runs the operations of
//! the matches it has not seen yet.

use crate::model::MatchList;
use std::collections::HashSet;
use std::sync::Arc;

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use crate::config::{DuelMode, DynamicConfig};
use crate::model::clans::Clans;
use crate::model::identity::Roster;
use crate::model::{EventKind, FlagAction, Match, Team};
use crate::rating::curve_point::CurvePoint;
use crate::rating::curves::Curves;

/// The Elo scale (400 points = 10:1 odds).
pub const SCALE: f64 = 400.0;

/// Expected score of a player rated `gi` against one rated `gj`: 1 / (1 + 10^((gj - gi)/400)).
#[inline]
pub fn expected(gi: f64, gj: f64) -> f64 {
    1.0 / (1.0 + ((gj - gi) * (std::f64::consts::LN_10 / SCALE)).exp())
}

/// Matches turned into operations at a time by [`Ladder::advance`]: 16, whose operations (one
/// or two of 32 bytes a frag) take about 0.3 MB on a busy server's matches. A run of 256 took
/// 4 MB at 64,000 synthetic games, the peak of the counts and ratings (issue 41).
const LADDER_RUN: usize = 16;

/// One rating operation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    /// A result between `a` and `b` with weight `weight` and share `e` for `a` (1 = a won).
    Result { a: u32, b: u32, weight: f64, e: f64 },
    /// A -x:0 result against an imaginary player of equal rating: g <- max(0, g - x*K/2).
    Penalty { player: u32, weight: f64 },
    /// An x:0 result against a virtual opponent rated at the mean of `side[start..end]`.
    Bonus {
        player: u32,
        weight: f64,
        start: u32,
        end: u32,
    },
    /// Subtract the decay points `periods` times from every rated player (floor 0).
    Decay { periods: u32 },
    /// End of match `index`: record the ratings of `side[start..end]`.
    EndMatch { index: u32, start: u32, end: u32 },
}

/// Whether decay was applied, for the site to say so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecayStatus {
    /// `decay_points` is 0.
    Off,
    /// Decay is configured but the logs carry no dates.
    NoDates,
    /// Decay was applied this many periods in all.
    Applied { periods: u32 },
}

/// The operations of a whole history, ready to replay.
#[derive(Debug, Clone)]
pub struct Stream {
    pub ops: Vec<Op>,
    /// Player lists referenced by [`Op::Bonus`] and [`Op::EndMatch`].
    pub side: Vec<u32>,
    /// Number of players; clans follow them.
    pub players: usize,
    pub clans: usize,
    pub decay: DecayStatus,
}

/// Final ratings and their history.
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicRatings {
    /// Final rating per player.
    pub players: Vec<f64>,
    /// Final rating per clan.
    pub clans: Vec<f64>,
    /// Per player, then per clan (index `players + c`): (match index, rating after the match).
    /// Shared with the [`Ladder`] it was read from (a point per player per match of the
    /// history: the ladder keeps it for the next build's checkpoint).
    pub history: Arc<Curves>,
    pub decay: DecayStatus,
    /// Points added by the floor at 0 over the whole history.
    pub floor_added: f64,
}

/// Per-match view used while building: the identity and current side of each match player.
struct Presence {
    team: Vec<Option<Team>>,
}

/// Where the decay clock stands: the start of the first dated match, and the decay periods
/// applied since.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct DecayClock {
    epoch: Option<NaiveDateTime>,
    periods: i64,
}

impl DecayClock {
    /// The periods that fall due by a match starting at `start` and were not applied yet.
    fn due(&mut self, start: NaiveDateTime, cfg: &DynamicConfig) -> Option<u32> {
        let period_seconds = i64::from(cfg.decay_every_days) * 86_400;
        let epoch = *self.epoch.get_or_insert(start);
        let due = (start - epoch).num_seconds().div_euclid(period_seconds);
        if due <= self.periods {
            return None;
        }
        let new = (due - self.periods).min(i64::from(u32::MAX)) as u32;
        self.periods = due;
        Some(new)
    }

    /// Whether decay was applied so far.
    fn status(&self, cfg: &DynamicConfig) -> DecayStatus {
        if !decay_on(cfg) {
            DecayStatus::Off
        } else if self.epoch.is_none() {
            DecayStatus::NoDates
        } else {
            DecayStatus::Applied {
                periods: self.periods as u32,
            }
        }
    }
}

fn decay_on(cfg: &DynamicConfig) -> bool {
    cfg.decay_points > 0.0 && cfg.decay_every_days > 0
}

impl Stream {
    /// Turns `matches` (in rating order) into operations. `roster` maps match players to
    /// identities; `clans` gives each identity's clan.
    pub fn build(
        matches: MatchList,
        roster: &Roster,
        clans: &Clans,
        cfg: &DynamicConfig,
    ) -> Stream {
        Stream::build_part(
            matches,
            roster.match_players.iter(),
            0,
            roster.players.len(),
            clans,
            cfg,
            &mut DecayClock::default(),
        )
    }

    /// The operations of `matches`, which are the history's matches from number `first` on
    /// (`match_players` maps their players to identities), with the decay clock where the
    /// matches before left it.
    fn build_part(
        matches: MatchList,
        match_players: crate::model::match_ids::Iter<'_>,
        first: usize,
        players: usize,
        clans: &Clans,
        cfg: &DynamicConfig,
        clock: &mut DecayClock,
    ) -> Stream {
        let clan_of = |id: u32| clans.of_player[id as usize].map(|c| players as u32 + c);
        let mut ops = Vec::new();
        let mut side = Vec::new();
        let matches = matches.iter();
        for (mi, (m, ids)) in matches.zip(match_players).enumerate() {
            let m = &*m;
            if decay_on(cfg)
                && let Some(start) = m.start
                && let Some(periods) = clock.due(start, cfg)
            {
                ops.push(Op::Decay { periods });
            }
            let duel_pair = duel_pair(m, &ids, cfg);
            let mut presence = Presence {
                team: vec![None; m.players.len()],
            };
            // Where a duel is rated as one result, its players are not rated per event; clans
            // always are (RANKING.md section 1, "Clans").
            let players_per_event = duel_pair.is_none();
            for e in m.events.read().iter() {
                let actor = ids[e.actor as usize];
                match e.kind {
                    EventKind::TeamChange(t) => presence.team[e.actor as usize] = Some(t),
                    EventKind::Leave => presence.team[e.actor as usize] = None,
                    EventKind::Frag => {
                        let victim = ids[e.target as usize];
                        if players_per_event {
                            ops.push(Op::Result {
                                a: actor,
                                b: victim,
                                weight: cfg.frag,
                                e: 1.0,
                            });
                        }
                        match (clan_of(actor), clan_of(victim)) {
                            (Some(ca), Some(cv)) if ca != cv => ops.push(Op::Result {
                                a: ca,
                                b: cv,
                                weight: cfg.frag,
                                e: 1.0,
                            }),
                            (Some(ca), Some(_)) => ops.push(Op::Penalty {
                                player: ca,
                                weight: cfg.frag,
                            }),
                            _ => {}
                        }
                    }
                    // A team kill is rated as a suicide of the killer, for the clan too.
                    EventKind::Suicide | EventKind::TeamKill => {
                        if players_per_event {
                            ops.push(Op::Penalty {
                                player: actor,
                                weight: cfg.frag,
                            });
                        }
                        if let Some(c) = clan_of(actor) {
                            ops.push(Op::Penalty {
                                player: c,
                                weight: cfg.frag,
                            });
                        }
                    }
                    _ if !players_per_event => {}
                    EventKind::Flag(action, flag_team) => {
                        let weight = match action {
                            FlagAction::Capture => cfg.capture,
                            FlagAction::Return => cfg.flag_return,
                            FlagAction::Pickup => cfg.flag_pickup,
                            FlagAction::CarrierKill => cfg.flag_carrier_kill,
                            FlagAction::Drop => 0.0,
                            FlagAction::BombPlant => cfg.bomb_plant,
                            FlagAction::BombDefuse => cfg.bomb_defuse,
                            FlagAction::BombExplode => cfg.bomb_explode,
                            FlagAction::PointCapture => cfg.point_capture,
                        };
                        if weight == 0.0 {
                            continue;
                        }
                        let own = presence.team[e.actor as usize].filter(|t| t.is_side());
                        let Some(opposing) = own
                            .and_then(Team::opponent)
                            .or(flag_team.is_side().then_some(flag_team))
                        else {
                            continue;
                        };
                        let present: Vec<u32> = unique(
                            presence
                                .team
                                .iter()
                                .enumerate()
                                .filter(|(_, t)| **t == Some(opposing))
                                .map(|(i, _)| ids[i]),
                        );
                        push_bonus(&mut ops, &mut side, actor, weight, &present);
                        if let Some(c) = clan_of(actor) {
                            let opposing_clans: Vec<u32> =
                                present.iter().filter_map(|p| clan_of(*p)).collect();
                            push_bonus(&mut ops, &mut side, c, weight, &opposing_clans);
                        }
                    }
                    EventKind::Award | EventKind::Assist | EventKind::Headshot => {}
                }
            }
            if let Some((a, b, share)) = duel_pair {
                ops.push(Op::Result {
                    a,
                    b,
                    weight: 1.0,
                    e: share,
                });
            }
            let start = side.len() as u32;
            let participants = unique(m.active_players().map(|(i, _)| ids[i]));
            let participant_clans = unique(participants.iter().filter_map(|p| clan_of(*p)));
            side.extend(participants);
            side.extend(participant_clans);
            ops.push(Op::EndMatch {
                index: (first + mi) as u32,
                start,
                end: side.len() as u32,
            });
        }
        Stream {
            ops,
            side,
            players,
            clans: clans.clans.len(),
            decay: clock.status(cfg),
        }
    }

    /// Replays the operations from `cfg.initial` and returns the final ratings and history.
    pub fn run(&self, cfg: &DynamicConfig) -> DynamicRatings {
        self.run_from(cfg, vec![cfg.initial; self.players + self.clans])
    }

    /// Replays the operations from the given starting ratings (players, then clans).
    pub fn run_from(&self, cfg: &DynamicConfig, start: Vec<f64>) -> DynamicRatings {
        let mut ladder = Ladder::new(self.players, self.clans, cfg);
        ladder.g = start;
        ladder.g.resize(self.players + self.clans, cfg.initial);
        ladder.apply(self, cfg);
        DynamicRatings {
            decay: self.decay,
            ..ladder.ratings(cfg)
        }
    }
}

/// Becker's ladder part-way through the history: it rates the matches after those it has seen
/// ([`Ladder::advance`]), so a build can go on from the previous build's ladder. Players and
/// clans are numbered as in the roster and the clans (clan `c` is `players + c`);
/// [`Ladder::renumber`] follows a roster that grew.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ladder {
    players: usize,
    clans: usize,
    g: Vec<f64>,
    /// Has a rating (decay applies to rated players only), and those players in order.
    seen: Vec<bool>,
    seen_list: Vec<u32>,
    /// Shared with the [`DynamicRatings`] read from it (copied only if the ladder goes on).
    history: Arc<Curves>,
    floor_added: f64,
    clock: DecayClock,
    /// Matches rated.
    matches: usize,
}

impl Ladder {
    /// A ladder before the first match, everyone at `cfg.initial`.
    pub fn new(players: usize, clans: usize, cfg: &DynamicConfig) -> Ladder {
        let n = players + clans;
        Ladder {
            players,
            clans,
            g: vec![cfg.initial; n],
            seen: vec![false; n],
            seen_list: Vec::new(),
            history: Arc::new(Curves::new(n)),
            floor_added: 0.0,
            clock: DecayClock::default(),
            matches: 0,
        }
    }

    /// Number of matches rated so far.
    pub fn matches(&self) -> usize {
        self.matches
    }

    /// Rates the matches of `matches` (the whole history, in rating order) after those already
    /// rated. The ladder must be numbered like `roster` and `clans`.
    pub fn advance(
        &mut self,
        matches: MatchList,
        roster: &Roster,
        clans: &Clans,
        cfg: &DynamicConfig,
    ) {
        debug_assert_eq!(self.players, roster.players.len());
        debug_assert_eq!(self.clans, clans.clans.len());
        self.advance_in_runs(matches, roster, clans, cfg, LADDER_RUN);
    }

    /// [`Ladder::advance`], turning `run` matches into operations at a time (the ratings do
    /// not depend on it).
    fn advance_in_runs(
        &mut self,
        matches: MatchList,
        roster: &Roster,
        clans: &Clans,
        cfg: &DynamicConfig,
        run: usize,
    ) {
        let from = self.matches.min(matches.len());
        // In runs of matches, so that the operations of a whole archive (one or two per frag)
        // are never held at once: each run's stream continues the ladder and the decay clock
        // where the run before left them, so the ratings are those of one stream.
        let mut first = from;
        while first < matches.len() {
            let end = (first + run.max(1)).min(matches.len());
            let stream = Stream::build_part(
                matches.slice(first..end),
                roster.match_players.iter_range(first..end),
                first,
                self.players,
                clans,
                cfg,
                &mut self.clock,
            );
            self.apply(&stream, cfg);
            first = end;
        }
        if first > from {
            // Kept to the end of the build (and in its checkpoint): without the room each
            // curve grew into.
            Arc::make_mut(&mut self.history).shrink_to_fit();
        }
        self.matches = matches.len();
    }

    /// Moves player `p` to number `players[p]` and clan `c` to `clans[c]` in a ladder of
    /// `new_players` players and `new_clans` clans; the new ones start at `cfg.initial`, unrated.
    pub fn renumber(
        &mut self,
        players: &[u32],
        new_players: usize,
        clans: &[u32],
        new_clans: usize,
        cfg: &DynamicConfig,
    ) {
        let old_players = self.players;
        let to = |id: u32| -> u32 {
            let id = id as usize;
            if id < old_players {
                players[id]
            } else {
                new_players as u32 + clans[id - old_players]
            }
        };
        let mut fresh = Ladder::new(new_players, new_clans, cfg);
        for old in 0..self.g.len() as u32 {
            let new = to(old) as usize;
            fresh.g[new] = self.g[old as usize];
            fresh.seen[new] = self.seen[old as usize];
        }
        fresh.history = Arc::new(
            Arc::make_mut(&mut self.history)
                .renumbered(fresh.g.len(), |old| to(old as u32) as usize),
        );
        fresh.seen_list = self.seen_list.iter().map(|&id| to(id)).collect();
        fresh.floor_added = self.floor_added;
        fresh.clock = std::mem::take(&mut self.clock);
        fresh.matches = self.matches;
        *self = fresh;
    }

    /// Replays `stream`'s operations.
    fn apply(&mut self, stream: &Stream, cfg: &DynamicConfig) {
        let Ladder {
            g,
            seen,
            seen_list,
            history,
            floor_added,
            ..
        } = self;
        let history = Arc::make_mut(history);
        let k = cfg.k;
        for op in &stream.ops {
            match *op {
                Op::Result { a, b, weight, e } => {
                    let (ia, ib) = (a as usize, b as usize);
                    let (ga, gb) = (g[ia], g[ib]);
                    let ea = expected(ga, gb);
                    let na = ga + weight * k * (e - ea);
                    let nb = gb + weight * k * ((1.0 - e) - (1.0 - ea));
                    g[ia] = floor(na, floor_added);
                    g[ib] = floor(nb, floor_added);
                    mark(a, seen, seen_list);
                    mark(b, seen, seen_list);
                }
                Op::Penalty { player, weight } => {
                    let i = player as usize;
                    g[i] = floor(g[i] - weight * k * 0.5, floor_added);
                    mark(player, seen, seen_list);
                }
                Op::Bonus {
                    player,
                    weight,
                    start,
                    end,
                } => {
                    let opponents = &stream.side[start as usize..end as usize];
                    if opponents.is_empty() {
                        continue;
                    }
                    let mean = opponents.iter().map(|o| g[*o as usize]).sum::<f64>()
                        / opponents.len() as f64;
                    let i = player as usize;
                    g[i] = floor(
                        g[i] + weight * k * (1.0 - expected(g[i], mean)),
                        floor_added,
                    );
                    mark(player, seen, seen_list);
                }
                Op::Decay { periods } => {
                    let points = cfg.decay_points * f64::from(periods);
                    for &id in seen_list.iter() {
                        let i = id as usize;
                        g[i] = (g[i] - points).max(0.0);
                    }
                }
                Op::EndMatch { index, start, end } => {
                    for &id in &stream.side[start as usize..end as usize] {
                        history.push(id as usize, CurvePoint::new(index, g[id as usize]));
                    }
                }
            }
        }
    }

    /// Writes the curves' full blocks to a file without a name in `dir` (the state folder)
    /// from now on ([`Curves::spill_to`]).
    pub fn spill_curves_to(&mut self, dir: std::path::PathBuf) {
        Arc::make_mut(&mut self.history).spill_to(dir);
    }

    /// The ratings and their history so far (the decay status under `cfg`).
    pub fn ratings(&self, cfg: &DynamicConfig) -> DynamicRatings {
        let mut players = self.g.clone();
        let clans = players.split_off(self.players);
        DynamicRatings {
            players,
            clans,
            history: Arc::clone(&self.history),
            decay: self.clock.status(cfg),
            floor_added: self.floor_added,
        }
    }
}

/// Notes that `id` has a rating (decay applies to rated players only).
#[inline]
fn mark(id: u32, seen: &mut [bool], list: &mut Vec<u32>) {
    if !seen[id as usize] {
        seen[id as usize] = true;
        list.push(id);
    }
}

/// Applies the floor at 0, counting the points it adds.
#[inline]
fn floor(value: f64, added: &mut f64) -> f64 {
    if value < 0.0 {
        *added -= value;
        0.0
    } else {
        value
    }
}

fn push_bonus(ops: &mut Vec<Op>, side: &mut Vec<u32>, player: u32, weight: f64, opponents: &[u32]) {
    // No opponent present: no change.
    if opponents.is_empty() {
        return;
    }
    let start = side.len() as u32;
    side.extend_from_slice(opponents);
    ops.push(Op::Bonus {
        player,
        weight,
        start,
        end: side.len() as u32,
    });
}

/// Distinct values in first-seen order.
fn unique(it: impl Iterator<Item = u32>) -> Vec<u32> {
    let mut seen = HashSet::new();
    it.filter(|x| seen.insert(*x)).collect()
}

/// For a duel rated per match: the two players and the first one's share, from frags minus
/// suicides with negative scores lifted (`6:-2 -> 8:0`, `-3:-5 -> 5:3`).
fn duel_pair(m: &Match, ids: &[u32], cfg: &DynamicConfig) -> Option<(u32, u32, f64)> {
    if cfg.duel != DuelMode::Match || !m.gametype.duel {
        return None;
    }
    let players = unique(m.active_players().map(|(i, _)| ids[i]));
    let [a, b] = players[..] else {
        return None;
    };
    let mut score = [0i64; 2];
    for e in m.events.read().iter() {
        let slot = |id: u32| {
            if id == a {
                Some(0)
            } else if id == b {
                Some(1)
            } else {
                None
            }
        };
        match e.kind {
            EventKind::Frag => {
                if let Some(s) = slot(ids[e.actor as usize]) {
                    score[s] += 1;
                }
            }
            EventKind::Suicide | EventKind::TeamKill => {
                if let Some(s) = slot(ids[e.actor as usize]) {
                    score[s] -= 1;
                }
            }
            _ => {}
        }
    }
    Some((a, b, duel_share(score[0], score[1])))
}

/// The share of the first player in a duel ending `a:b`, by RANKING.md's negative-score rule.
pub fn duel_share(a: i64, b: i64) -> f64 {
    let negative: i64 = [a, b].iter().filter(|s| **s < 0).sum();
    let (a, b) = (a - negative, b - negative);
    if a + b == 0 {
        0.5
    } else {
        a as f64 / (a + b) as f64
    }
}

#[cfg(test)]
mod tests;
