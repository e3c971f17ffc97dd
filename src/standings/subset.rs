//! Rating a subset of the site's matches (a season, a ladder of one game type or game) exactly
//! as a build on only those matches would: identities and clans numbered afresh, counts, and
//! the headline system replayed from nothing. One place for the rule, so that seasons and
//! ladders cannot drift apart. Takes matches; renders nothing.

use crate::config::Config;
use crate::model::MatchList;
use crate::model::clans::Clans;
use crate::model::identity::{Aliases, Roster};

use crate::rating::Headline;
use crate::rating::systems::static_rank::FragMatrix;

/// A player of the subset, as the subset's own build rates them.
#[derive(Debug, Clone, PartialEq)]
pub struct SubsetPlayer {
    /// Identity number on the site (the all-time roster).
    pub id: usize,
    /// The headline rating on the subset's matches alone.
    pub rating: f64,
    /// Fewer frags made plus suffered in the subset than `provisional_incidents`.
    pub provisional: bool,
    /// Matches played and frags made in the subset.
    pub matches: usize,
    pub kills: u32,
}

/// Rates the matches at positions `members` (in that order) on their own: identities, clans,
/// counts and the headline replayed on those matches alone, as a build on only them would, and
/// gives each of their players with their site identity. Unsorted; empty for no match.
pub fn rate(
    config: &Config,
    matches: MatchList,
    roster: &Roster,
    aliases: &Aliases,
    members: &[usize],
) -> Vec<SubsetPlayer> {
    if members.is_empty() {
        return Vec::new();
    }
    let picked: Vec<u32> = members.iter().map(|&i| i as u32).collect();
    let sub = matches.pick(&picked);
    let local = Roster::build(sub, aliases);
    // A subset identity is the site identity in the same seat of the same match.
    let mut site_id = vec![usize::MAX; local.players.len()];
    for (&i, seats) in members.iter().zip(&local.match_players) {
        for (&l, &g) in seats.iter().zip(&roster.match_players.at(i)) {
            site_id[l as usize] = g as usize;
        }
    }
    let clans = Clans::assign(&local, &config.clans, config.detect_clans);
    // Only the headline's final values are needed: the other systems of the evaluation are not
    // replayed (each system runs on its own, so the headline is the same either way), and no
    // curve is drawn.
    let mut cfg = config.rating.clone();
    cfg.evaluation = false;
    let folds = crate::fold::fold_without_curves(sub, &local, &clans, &cfg);
    let stats = &folds.stats;
    let incidents = FragMatrix::from_rows(stats.players.iter().map(|p| &p.victims)).incidents();
    let headline = Headline::new(folds.evaluation, &incidents, &folds.dynamic.players, &cfg);
    (0..local.players.len())
        .filter(|&l| site_id[l] != usize::MAX)
        .map(|l| SubsetPlayer {
            id: site_id[l],
            rating: headline.value.get(l).copied().unwrap_or(0.0),
            provisional: headline.provisional.get(l).copied().unwrap_or(true),
            matches: stats.players.get(l).map_or(0, |p| p.matches.len()),
            kills: stats.players.get(l).map_or(0, |p| p.kills),
        })
        .collect()
}
