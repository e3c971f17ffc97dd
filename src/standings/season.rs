//! Seasons (`[seasons]` in site.toml): periods of log time, each with a ladder of its own. A
//! season's headline rating is computed on that season's matches only, exactly as a build on only
//! those matches would compute it (identities, clans, counts and the headline system replayed
//! from nothing), and its players are provisional by that season's frags alone. With `carry`
//! (the game-coordinator note's soft reset) each player then starts `carry` times their distance
//! from the previous season's average ahead of a newcomer. Matches without a date belong to no
//! season. Computes nothing when no season is configured; renders nothing.

use crate::model::MatchList;
use chrono::{Datelike, NaiveDate, NaiveDateTime};
use rayon::prelude::*;

use crate::config::{Config, SeasonEvery};
use crate::model::identity::{Aliases, Roster};

use crate::standings::subset;

/// Every season of a site, oldest first.
#[derive(Debug, Clone, Default)]
pub struct Seasons {
    /// The seasons by start date (then end date, then config order).
    pub list: Vec<Season>,
    /// Matches without a date: they belong to no season.
    pub undated: usize,
    /// The latest season that has begun by the newest dated match (what the index shows).
    pub current: Option<usize>,
    /// Per identity of the site: (season, position in its `players`) of each season they are
    /// listed in, oldest first. Empty when no season is configured.
    pub placements: Vec<Vec<(usize, usize)>>,
}

/// One season and its ladder.
#[derive(Debug, Clone)]
pub struct Season {
    pub name: String,
    /// First and last day, both inclusive (log time).
    pub start: NaiveDate,
    pub end: NaiveDate,
    /// Positions (in the site's matches) of the season's matches, by start time.
    pub matches: Vec<usize>,
    /// Every player of the season but the hidden ones, best first: ranked players by rating,
    /// then provisional ones (ties: more frags, then identity order).
    pub players: Vec<SeasonPlayer>,
    /// How many of `players` are ranked (not provisional).
    pub ranked: usize,
}

/// A player's standing in one season.
#[derive(Debug, Clone, PartialEq)]
pub struct SeasonPlayer {
    /// Identity number on the site (the all-time roster).
    pub id: usize,
    /// The season's headline rating (with the carried share of the previous season, if any).
    pub rating: f64,
    /// Fewer frags made plus suffered in this season than `provisional_incidents`.
    pub provisional: bool,
    /// 1-based position among the season's ranked players; None while provisional.
    pub rank: Option<usize>,
    /// Matches and frags in this season.
    pub matches: usize,
    pub kills: u32,
}

impl Seasons {
    /// The seasons of `config` over `matches` (site order, moderation applied); `roster` is the
    /// site's, `hidden` leaves players out of the season ladders (they still count in others').
    pub fn compute(
        config: &Config,
        matches: MatchList,
        roster: &Roster,
        aliases: &Aliases,
        hidden: &[bool],
    ) -> Seasons {
        if !config.seasons.configured() {
            return Seasons::default();
        }
        // Each match's place in time order, read once from the heads (no match decoded).
        let when: Vec<_> = (matches.par_heads())
            .map(|h| (h.start, h.file_index, h.line))
            .collect();
        let undated = when.iter().filter(|w| w.0.is_none()).count();
        let periods = periods(config, &when);
        // Dated matches by start time: each season is one range of them, in the order a build
        // on only its matches would rate them (RANKING.md: by start time when all are dated),
        // whatever order the site has.
        let mut dated: Vec<usize> = (0..matches.len())
            .filter(|&i| when[i].0.is_some())
            .collect();
        dated.sort_by_key(|&i| when[i]);
        let day = |i: usize| when[i].0.map(|t| t.date());
        // Each season is replayed on its own (in parallel); the carry then runs in order.
        let mut rated: Vec<(Vec<usize>, Vec<SeasonPlayer>)> = periods
            .par_iter()
            .map(|(_, start, end)| {
                let from = dated.partition_point(|&i| day(i) < Some(*start));
                let to = dated.partition_point(|&i| day(i) <= Some(*end));
                let members = dated[from..to.max(from)].to_vec();
                let players = subset::rate(config, matches, roster, aliases, &members)
                    .into_iter()
                    .map(|p| SeasonPlayer {
                        id: p.id,
                        rating: p.rating,
                        provisional: p.provisional,
                        rank: None,
                        matches: p.matches,
                        kills: p.kills,
                    })
                    .collect();
                (members, players)
            })
            .collect();
        let carry = config.seasons.carry;
        if carry > 0.0 {
            for s in 1..rated.len() {
                let previous = &rated[s - 1].1;
                if previous.is_empty() {
                    continue;
                }
                let mean = previous.iter().map(|p| p.rating).sum::<f64>() / previous.len() as f64;
                let before: std::collections::HashMap<usize, f64> =
                    previous.iter().map(|p| (p.id, p.rating)).collect();
                for p in &mut rated[s].1 {
                    if let Some(r) = before.get(&p.id) {
                        p.rating += carry * (r - mean);
                    }
                }
            }
        }
        let newest = (when.iter()).filter_map(|w| w.0).max().map(|t| t.date());
        let mut list = Vec::with_capacity(periods.len());
        let mut placements = vec![Vec::new(); roster.players.len()];
        for (s, ((name, start, end), (members, mut players))) in
            periods.into_iter().zip(rated).enumerate()
        {
            players.retain(|p| !hidden.get(p.id).copied().unwrap_or(false));
            players.sort_by(|a, b| {
                a.provisional
                    .cmp(&b.provisional)
                    .then(b.rating.total_cmp(&a.rating))
                    .then(b.kills.cmp(&a.kills))
                    .then(a.id.cmp(&b.id))
            });
            for (pos, p) in players.iter_mut().enumerate() {
                p.rank = (!p.provisional).then_some(pos + 1);
                if let Some(v) = placements.get_mut(p.id) {
                    v.push((s, pos));
                }
            }
            list.push(Season {
                name,
                start,
                end,
                matches: members,
                ranked: players.iter().filter(|p| p.rank.is_some()).count(),
                players,
            });
        }
        let current = newest.and_then(|day| list.iter().rposition(|s| s.start <= day));
        Seasons {
            list,
            undated,
            current,
            placements,
        }
    }
}

/// The seasons' names and inclusive bounds, by start: the listed ones, or one per calendar
/// period of `every` that holds a dated match.
fn periods(
    config: &Config,
    when: &[(Option<NaiveDateTime>, u32, u64)],
) -> Vec<(String, NaiveDate, NaiveDate)> {
    let Some(every) = config.seasons.every else {
        let mut list: Vec<_> = config
            .seasons
            .list
            .iter()
            .filter_map(|s| {
                let (start, end) = s.dates()?;
                Some((s.name.trim().to_string(), start, end))
            })
            .collect();
        list.sort_by_key(|(_, start, end)| (*start, *end));
        return list;
    };
    let starts: std::collections::BTreeSet<NaiveDate> = when
        .iter()
        .filter_map(|w| period_start(every, w.0?.date()))
        .collect();
    starts
        .into_iter()
        .filter_map(|start| period_of(every, start))
        .collect()
}

/// The first day of the `every` period holding `day`.
fn period_start(every: SeasonEvery, day: NaiveDate) -> Option<NaiveDate> {
    let month = match every {
        SeasonEvery::Month => day.month(),
        SeasonEvery::Quarter => (day.month0() / 3) * 3 + 1,
        SeasonEvery::Year => 1,
    };
    NaiveDate::from_ymd_opt(day.year(), month, 1)
}

/// The name and last day of the `every` period starting on `start`.
fn period_of(every: SeasonEvery, start: NaiveDate) -> Option<(String, NaiveDate, NaiveDate)> {
    let months = match every {
        SeasonEvery::Month => 1,
        SeasonEvery::Quarter => 3,
        SeasonEvery::Year => 12,
    };
    let end = start
        .checked_add_months(chrono::Months::new(months))?
        .pred_opt()?;
    let name = match every {
        SeasonEvery::Month => start.format("%B %Y").to_string(),
        SeasonEvery::Quarter => format!("{} Q{}", start.year(), start.month0() / 3 + 1),
        SeasonEvery::Year => start.year().to_string(),
    };
    Some((name, start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn calendar_periods_have_inclusive_bounds_and_names() {
        for (every, d, name, start, end) in [
            (
                SeasonEvery::Month,
                "2024-02-29",
                "February 2024",
                "2024-02-01",
                "2024-02-29",
            ),
            (
                SeasonEvery::Month,
                "2026-12-31",
                "December 2026",
                "2026-12-01",
                "2026-12-31",
            ),
            (
                SeasonEvery::Quarter,
                "2026-05-31",
                "2026 Q2",
                "2026-04-01",
                "2026-06-30",
            ),
            (
                SeasonEvery::Quarter,
                "2026-10-01",
                "2026 Q4",
                "2026-10-01",
                "2026-12-31",
            ),
            (
                SeasonEvery::Year,
                "2014-03-07",
                "2014",
                "2014-01-01",
                "2014-12-31",
            ),
        ] {
            let s = period_start(every, day(d)).unwrap();
            let got = period_of(every, s).unwrap();
            assert_eq!(got, (name.to_string(), day(start), day(end)), "{d}");
        }
    }
}
