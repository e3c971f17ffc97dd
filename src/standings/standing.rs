//! Each player's standing on the ladder: when they were last seen, whether they are still active
//! (`[ladder] inactive_after_days`, in log time), the ladder order (ranked players by headline
//! rating, then provisional ones, then inactive ones) and the division (`[[divisions]]`) of each
//! ranked player. Takes counts and ratings; renders nothing.

use crate::model::MatchList;
use std::cmp::Ordering;

use chrono::{NaiveDate, NaiveDateTime};
use rayon::prelude::*;

use crate::config::Config;
use crate::model::{MatchHead, Team};
use crate::stats::{MatchStats, Stats};

use crate::rating::Ratings;

/// Where every identity stands.
#[derive(Debug, Clone, Default)]
pub struct Standing {
    /// Per identity: the date of their latest dated match.
    pub last_seen: Vec<Option<NaiveDate>>,
    /// Per identity: seen within `inactive_after_days` of the newest match (always true without
    /// that key, or when the player's matches carry no date).
    pub active: Vec<bool>,
    /// Every listed identity (hidden ones left out), best first: ranked (active, not
    /// provisional) by headline rating, then provisional, then inactive (ties: more frags, then
    /// identity order).
    pub ladder: Vec<usize>,
    /// Per identity: the index of their division in `config.divisions`; None when unranked or
    /// under every bar.
    pub division: Vec<Option<usize>>,
    /// Per identity: wins, draws and losses in team matches with a final score (by their team
    /// at the end) and in duels (by score, else frags), as [`results`] judges them.
    pub record: Vec<[u32; 3]>,
}

/// The result of one match for each player it judges, `(identity, their side against the
/// other)`: in a team match with a final score ([`Match::final_team_scores`]) every player on
/// red or blue at the end, by their team's score; in a duel of two players, each by score
/// (else frags). Other matches judge nobody.
pub fn results(m: MatchHead, ms: &MatchStats, mut judge: impl FnMut(u32, Ordering)) {
    if m.gametype.team_based {
        let Some([red, blue]) = m.final_team_scores() else {
            return;
        };
        for l in &ms.lines {
            match l.team {
                Some(Team::Red) => judge(l.player, red.cmp(&blue)),
                Some(Team::Blue) => judge(l.player, blue.cmp(&red)),
                _ => {}
            }
        }
    } else if m.gametype.duel
        && let Some([a, b]) = ms.lines.pair()
    {
        let o = match (a.score, b.score) {
            (Some(x), Some(y)) => x.cmp(&y),
            _ => a.frags.cmp(&b.frags),
        };
        judge(a.player, o);
        judge(b.player, o.reverse());
    }
}

/// Adds a result to a `[wins, draws, losses]` record.
pub fn add_result(record: &mut [u32; 3], o: Ordering) {
    let slot = match o {
        Ordering::Greater => 0,
        Ordering::Equal => 1,
        Ordering::Less => 2,
    };
    record[slot] += 1;
}

/// Wins, draws and losses of every identity of `stats` in `matches`.
fn records(matches: MatchList, stats: &Stats) -> Vec<[u32; 3]> {
    let mut record = vec![[0u32; 3]; stats.players.len()];
    for (m, ms) in matches.heads().zip(&stats.matches) {
        results(m, ms, |player, o| {
            if let Some(r) = record.get_mut(player as usize) {
                add_result(r, o);
            }
        });
    }
    record
}

impl Standing {
    /// The standing of every identity of `stats` in `matches` (site order), leaving out the
    /// `hidden` ones.
    pub fn compute(
        config: &Config,
        matches: MatchList,
        stats: &Stats,
        ratings: &Ratings,
        hidden: &[bool],
    ) -> Standing {
        let players = stats.players.len();
        // Each match's start, read once.
        let starts: Vec<Option<NaiveDateTime>> = matches.par_heads().map(|m| m.start).collect();
        let last_seen: Vec<Option<NaiveDate>> = stats
            .players
            .par_iter()
            .map(|s| {
                s.matches
                    .iter()
                    .filter_map(|mi| *starts.get(mi as usize)?)
                    .max()
                    .map(|t| t.date())
            })
            .collect();
        let newest = starts.iter().flatten().max().map(|t| t.date());
        let active: Vec<bool> = last_seen
            .iter()
            .map(
                |seen| match (config.ladder.inactive_after_days, newest, seen) {
                    (Some(days), Some(newest), Some(seen)) => {
                        (newest - *seen).num_days() <= i64::from(days)
                    }
                    _ => true,
                },
            )
            .collect();
        let h = &ratings.headline;
        let value = |i: usize| h.value.get(i).copied().unwrap_or(0.0);
        let provisional = |i: usize| h.provisional.get(i).copied().unwrap_or(true);
        let group = |i: usize| match (active[i], provisional(i)) {
            (true, false) => 0,
            (true, true) => 1,
            (false, _) => 2,
        };
        let mut ladder: Vec<usize> = (0..players).filter(|&i| !hidden[i]).collect();
        // A stable sort in parallel (a public server's ladder has tens of thousands).
        ladder.par_sort_by(|&a, &b| {
            group(a)
                .cmp(&group(b))
                .then(value(b).total_cmp(&value(a)))
                .then(stats.players[b].kills.cmp(&stats.players[a].kills))
                .then(a.cmp(&b))
        });
        let ranked: Vec<usize> = ladder.iter().copied().filter(|&i| group(i) == 0).collect();
        let mut division = vec![None; players];
        for (pos, &i) in ranked.iter().enumerate() {
            division[i] = config.divisions.iter().position(|d| {
                match (d.top_percent, d.min_rating) {
                    // Position 1 of 100 is in the top 1%: ceil(share * count) places qualify.
                    (Some(p), _) => (pos + 1) as f64 <= (p * ranked.len() as f64 / 100.0).ceil(),
                    (None, Some(min)) => value(i) >= min,
                    (None, None) => true,
                }
            });
        }
        Standing {
            record: records(matches, stats),
            last_seen,
            active,
            ladder,
            division,
        }
    }
}
