//! Ladders per game type (free-for-all, duel, team deathmatch, CTF, ...) and, when the logs hold
//! several games, per game: each one the headline rating computed from that group's matches
//! only, exactly as a build on only those matches would compute it (same provisional rule,
//! same inactivity rule, same order), so a duel specialist is not ranked by their CTF frags.
//!
//! A group that holds every match (a site with one game type, or one game) is the site's own
//! headline ladder: it is not rated again. Every other group replays its matches once through
//! the headline system; the groups of one kind partition the matches, so rating all of them
//! costs about one more replay of the history per kind. Takes matches, counts and ratings;
//! renders nothing.

use crate::model::MatchList;
use std::cmp::Ordering;
use std::collections::BTreeMap;

use chrono::NaiveDate;
use rayon::prelude::*;

use crate::config::Config;
use crate::model::identity::{Aliases, Roster};
use crate::model::{EventKind, Text};
use crate::stats::Stats;

pub use crate::fold::tallies::LadderKind;
use crate::fold::tallies::{SavedTally, Tallies, Tally};
use crate::rating::Headline;
use crate::standings::standing::{add_result, results};

/// The matches of one ladder.
#[derive(Debug, Clone)]
pub struct Group {
    pub kind: LadderKind,
    /// Game type code or game code.
    pub key: String,
    /// Display name ("Capture the Flag", "Urban Terror").
    pub name: String,
    /// Indices of its matches in the order a build of only these matches would rate them
    /// (RANKING.md: by start time when every one of them has one, else in site order).
    pub matches: Vec<u32>,
}

/// The groups of a site's matches: one per game type present, and one per game when there
/// are several games; each kind by number of matches (most first), then key.
pub fn groups(matches: MatchList) -> Vec<Group> {
    let mut by_type: BTreeMap<Text, Group> = BTreeMap::new();
    let mut by_game: BTreeMap<Text, Group> = BTreeMap::new();
    // Each match's place in time order, read once.
    let mut when = Vec::with_capacity(matches.len());
    for (i, m) in matches.heads().enumerate() {
        when.push((m.start, m.file_index, m.line));
        let code = Text::new(&m.gametype.code);
        let t = by_type.entry(code).or_insert_with(|| Group {
            kind: LadderKind::GameType,
            key: m.gametype.code.to_string(),
            name: m.gametype.name.to_string(),
            matches: Vec::new(),
        });
        t.matches.push(i as u32);
        let g = by_game.entry(m.game.clone()).or_insert_with(|| Group {
            kind: LadderKind::Game,
            key: m.game.to_string(),
            name: crate::model::game_name(m.game).to_string(),
            matches: Vec::new(),
        });
        g.matches.push(i as u32);
    }
    let sorted = |groups: BTreeMap<Text, Group>| {
        let mut v: Vec<Group> = groups.into_values().collect();
        for g in &mut v {
            // Undated matches elsewhere put the site in file order; a group of dated matches
            // alone is in time order.
            let m = |i: &u32| when[*i as usize];
            if g.matches.iter().all(|i| m(i).0.is_some()) {
                g.matches.sort_by_key(m);
            }
        }
        v.sort_by(|a, b| {
            b.matches
                .len()
                .cmp(&a.matches.len())
                .then(a.key.cmp(&b.key))
        });
        v
    };
    let mut out = sorted(by_type);
    if by_game.len() > 1 {
        out.extend(sorted(by_game));
    }
    out
}

/// A group and the headline rating of every identity of the roster in it (0 for those not in
/// it), as a build on only that group's matches computes it; empty for a group holding every
/// match (the site's headline is that group's).
#[derive(Debug, Clone)]
pub struct Rated {
    pub group: Group,
    values: Vec<f64>,
}

/// Rates each of `groups` (in parallel) for the identities of `roster`.
pub fn rate(
    groups: Vec<Group>,
    matches: MatchList,
    roster: &Roster,
    config: &Config,
    aliases: &Aliases,
) -> Vec<Rated> {
    groups
        .into_par_iter()
        .map(|g| {
            let values = rate_group(&g, matches, roster, config, aliases);
            Rated { group: g, values }
        })
        .collect()
}

fn rate_group(
    g: &Group,
    matches: MatchList,
    roster: &Roster,
    config: &Config,
    aliases: &Aliases,
) -> Vec<f64> {
    if g.matches.len() == matches.len() {
        return Vec::new();
    }
    let members: Vec<usize> = g.matches.iter().map(|&i| i as usize).collect();
    let mut values = vec![0.0; roster.players.len()];
    for p in crate::standings::subset::rate(config, matches, roster, aliases, &members) {
        values[p.id] = p.rating;
    }
    values
}

/// One player's place on one ladder.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Identity number.
    pub player: u32,
    /// Headline rating from the group's matches only.
    pub rating: f64,
    /// Fewer frags made plus suffered in the group than `provisional_incidents`.
    pub provisional: bool,
    /// Seen within `[ladder] inactive_after_days` of the group's newest match.
    pub active: bool,
    /// 1-based place among the ranked (active, not provisional); None for the others.
    pub rank: Option<u32>,
    /// Matches of the group the player took part in, and frags made in them.
    pub matches: u32,
    pub frags: u32,
    /// Wins, draws and losses in the group's team matches and duels.
    pub record: [u32; 3],
}

/// One ladder: its group and its listed players, best first (ranked by rating, then
/// provisional, then inactive; ties: more frags, then identity order), hidden ones left out.
#[derive(Debug, Clone)]
pub struct Ladder {
    pub group: Group,
    pub entries: Vec<Entry>,
    /// Each listed identity's index in `entries`.
    pub position: std::collections::HashMap<u32, u32>,
}

/// The ladders of the `rated` groups (a group without values: the site's `headline`), with
/// the counts of `stats`; `hidden` identities are left out. `saved` tallies (over the first
/// `saved.matches()` of `matches`, in this roster's numbering) are gone on with; a group they
/// lack is tallied from its first match. Also returns the tallies over all `matches`.
#[allow(clippy::too_many_arguments)]
pub fn ladders(
    config: &Config,
    matches: MatchList,
    roster: &Roster,
    stats: &Stats,
    headline: &Headline,
    hidden: &[bool],
    rated: Vec<Rated>,
    saved: Tallies,
) -> (Vec<Ladder>, Tallies) {
    let threshold = u64::from(config.rating.headline.provisional_incidents);
    let from = saved.matches;
    let mut saved: std::collections::HashMap<(LadderKind, String), SavedTally> = saved
        .groups
        .into_iter()
        .map(|g| ((g.kind, g.key.clone()), g))
        .collect();
    let work: Vec<(Rated, Option<SavedTally>)> = rated
        .into_iter()
        .map(|r| {
            let s = saved.remove(&(r.group.kind, r.group.key.clone()));
            (r, s)
        })
        .collect();
    let (ladders, groups): (Vec<Ladder>, Vec<SavedTally>) = work
        .into_par_iter()
        .map(|(Rated { group, values }, saved)| {
            let value = if values.is_empty() {
                &headline.value
            } else {
                &values
            };
            // Dense by identity (every number here is the roster's): the frag loop below runs
            // over every event of the group's new matches, so a look-up must cost an index,
            // not a tree search.
            let mut tally: Vec<Tally> = vec![Tally::default(); roster.players.len()];
            let mut newest: Option<NaiveDate> = None;
            // Matches before `first` are in the saved tally.
            let mut first = 0;
            if let Some(s) = saved {
                for (p, t) in s.players {
                    if let Some(slot) = tally.get_mut(p as usize) {
                        *slot = t;
                    }
                }
                newest = s.newest;
                first = from;
            }
            for &mi in &group.matches {
                if u64::from(mi) < first {
                    continue;
                }
                let (m, ms) = (matches.at(mi as usize), &stats.matches[mi as usize]);
                let ids = &roster.match_players.at(mi as usize);
                let day = m.start.map(|t| t.date());
                newest = newest.max(day);
                for l in &ms.lines {
                    let t = &mut tally[l.player as usize];
                    t.matches += 1;
                    t.frags += l.frags;
                    t.last_seen = t.last_seen.max(day);
                }
                // Incidents as the static ranking counts them: frags between two identities.
                for e in m.events.read().iter() {
                    if e.kind != EventKind::Frag {
                        continue;
                    }
                    let (Some(&k), Some(&v)) =
                        (ids.get(e.actor as usize), ids.get(e.target as usize))
                    else {
                        continue;
                    };
                    if k != v {
                        tally[k as usize].incidents += 1;
                        tally[v as usize].incidents += 1;
                    }
                }
                results(matches.head(mi as usize), ms, |p, o: Ordering| {
                    add_result(&mut tally[p as usize].record, o);
                });
            }
            let kept = SavedTally {
                kind: group.kind,
                key: group.key.clone(),
                newest,
                players: tally
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.matches > 0)
                    .map(|(p, t)| (p as u32, t.clone()))
                    .collect(),
            };
            let mut entries: Vec<Entry> = kept
                .players
                .iter()
                .filter(|(p, _)| !hidden.get(*p as usize).copied().unwrap_or(true))
                .map(|&(player, ref t)| Entry {
                    player,
                    rating: value.get(player as usize).copied().unwrap_or(0.0),
                    provisional: t.incidents < threshold,
                    active: match (config.ladder.inactive_after_days, newest, t.last_seen) {
                        (Some(days), Some(newest), Some(seen)) => {
                            (newest - seen).num_days() <= i64::from(days)
                        }
                        _ => true,
                    },
                    rank: None,
                    matches: t.matches,
                    frags: t.frags,
                    record: t.record,
                })
                .collect();
            let group_of = |e: &Entry| match (e.active, e.provisional) {
                (true, false) => 0,
                (true, true) => 1,
                (false, _) => 2,
            };
            // A stable sort in parallel (a public server's ladders have tens of thousands).
            entries.par_sort_by(|a, b| {
                group_of(a)
                    .cmp(&group_of(b))
                    .then(b.rating.total_cmp(&a.rating))
                    .then(b.frags.cmp(&a.frags))
                    .then(a.player.cmp(&b.player))
            });
            for (pos, e) in entries.iter_mut().enumerate() {
                if group_of(e) == 0 {
                    e.rank = Some(pos as u32 + 1);
                }
            }
            let position = entries
                .iter()
                .enumerate()
                .map(|(n, e)| (e.player, n as u32))
                .collect();
            let ladder = Ladder {
                group,
                entries,
                position,
            };
            (ladder, kept)
        })
        .unzip();
    let tallies = Tallies {
        matches: matches.len() as u64,
        groups,
    };
    (ladders, tallies)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::Listed;

    /// The game type groups split the matches, in site order; one game makes no game groups.
    #[test]
    fn groups_partition_the_matches() {
        let (matches, _) = crate::testdata::history("openarena");
        let g = groups(crate::model::MatchList::from(&matches));
        let codes: Vec<&str> = g.iter().map(|g| g.key.as_str()).collect();
        assert_eq!(codes, ["ffa", "duel", "ctf", "tdm"]);
        assert!(g.iter().all(|g| g.kind == LadderKind::GameType));
        let mut all: Vec<u32> = g.iter().flat_map(|g| g.matches.clone()).collect();
        assert!(g.iter().all(|g| g.matches.windows(2).all(|w| w[0] < w[1])));
        all.sort_unstable();
        assert_eq!(all, (0..matches.len() as u32).collect::<Vec<_>>());
        for g in &g {
            assert!(
                g.matches
                    .iter()
                    .all(|&i| matches[i as usize].gametype.code == g.key)
            );
        }
        let mut mixed = matches.clone();
        mixed[0].game = "urt".into();
        let g = groups(crate::model::MatchList::from(&mixed));
        let games: Vec<(&str, usize)> = g
            .iter()
            .filter(|g| g.kind == LadderKind::Game)
            .map(|g| (g.key.as_str(), g.matches.len()))
            .collect();
        assert_eq!(games, [("openarena", matches.len() - 1), ("urt", 1)]);
    }

    /// The ladders of `matches` on the default configuration, going on from `saved`.
    fn ladders_of(matches: MatchList, saved: Tallies) -> (Roster, Vec<Ladder>, Tallies) {
        let config = Config::default();
        let aliases = Aliases::default();
        let roster = Roster::build(matches, &aliases);
        let clans = crate::model::clans::Clans::assign(&roster, &[], false);
        let folds = crate::fold::fold(matches, &roster, &clans, &config.rating, None);
        let ratings = crate::rating::Ratings::compute(
            folds.dynamic,
            folds.evaluation,
            folds.static_,
            &config.rating,
        );
        let rated = rate(groups(matches), matches, &roster, &config, &aliases);
        let hidden = vec![false; roster.players.len()];
        let (ladders, tallies) = ladders(
            &config,
            matches,
            &roster,
            &folds.stats,
            &ratings.headline,
            &hidden,
            rated,
            saved,
        );
        (roster, ladders, tallies)
    }

    /// Tallies saved after the first matches (with fewer players, numbered differently), read
    /// back and renumbered, go on to the same ladders and tallies as one tally of everything;
    /// tallies left unrenumbered do not.
    #[test]
    fn resumed_tallies_equal_one_tally() {
        let (matches, _) = crate::testdata::history("openarena");
        let (_, whole, all) =
            ladders_of(crate::model::MatchList::from(&matches), Tallies::default());
        let roster = Roster::build(&matches, &Aliases::default());
        // The largest cut after which players join who move some earlier one's number.
        let number = |r: &Roster| -> Vec<u32> {
            r.players
                .iter()
                .map(|p| roster.players.iter().position(|q| q.key == p.key).unwrap() as u32)
                .collect()
        };
        let cut = (1..matches.len())
            .rev()
            .find(|&cut| {
                let before = Roster::build(matches.slice(..cut), &Aliases::default());
                number(&before)
                    .iter()
                    .enumerate()
                    .any(|(i, &n)| n != i as u32)
            })
            .expect("some later player is numbered before an earlier one");
        let (before, _, saved) = ladders_of(matches.slice(..cut), Tallies::default());
        let bytes = postcard::to_allocvec(&saved).unwrap();
        let saved: Tallies = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(saved.matches(), cut as u64);
        let to = number(&before);
        let mut moved = saved.clone();
        moved.renumber(&to).unwrap();
        let (_, resumed, again) = ladders_of(crate::model::MatchList::from(&matches), moved);
        assert_eq!(again, all);
        assert_eq!(resumed.len(), whole.len());
        for (a, b) in resumed.iter().zip(&whole) {
            assert_eq!(a.entries, b.entries, "ladder {}", a.group.key);
        }
        let (_, _, wrong) = ladders_of(crate::model::MatchList::from(&matches), saved);
        assert_ne!(wrong, all);
    }
}
