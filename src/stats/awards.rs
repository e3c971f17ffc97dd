//! "Big numbers": memorable records with winner and runner-up (pisg-style awards). Pure counting
//! over [`Stats`]; the render layer names and links them.

use super::Stats;

/// One place in an award: who, the value, and the match where it happened (if it is a match
/// record).
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub player: u32,
    pub value: f64,
    pub match_index: Option<u32>,
}

/// An award and its best two places.
#[derive(Debug, Clone, PartialEq)]
pub struct Award {
    pub title: &'static str,
    /// How to print the value (`{}` frags, K/D with two decimals).
    pub decimals: usize,
    pub places: Vec<Place>,
}

/// Minimum matches for the best K/D award, so one lucky match does not win it.
pub const MIN_MATCHES_FOR_KD: usize = 5;

/// The awards shown on the index, each with its best two places (ties: earlier match, then lower
/// identity number). Awards nobody qualifies for are left out.
pub fn awards(stats: &Stats) -> Vec<Award> {
    let mut out = Vec::new();
    let per_match = |value: &dyn Fn(&super::MatchLine) -> u32| {
        let mut places: Vec<Place> = Vec::new();
        for (mi, m) in stats.matches.iter().enumerate() {
            for l in &m.lines {
                places.push(Place {
                    player: l.player,
                    value: f64::from(value(l)),
                    match_index: Some(mi as u32),
                });
            }
        }
        places
    };
    out.push(top2("Most frags in one match", 0, per_match(&|l| l.frags)));
    out.push(top2(
        "Longest killing spree",
        0,
        per_match(&|l| l.best_spree),
    ));
    let totals = |value: &dyn Fn(&super::PlayerStats) -> Option<f64>| {
        stats
            .players
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                value(p).map(|v| Place {
                    player: i as u32,
                    value: v,
                    match_index: None,
                })
            })
            .collect::<Vec<_>>()
    };
    out.push(top2(
        "Most suicides",
        0,
        totals(&|p| Some(f64::from(p.suicides))),
    ));
    let min_matches = MIN_MATCHES_FOR_KD.min(
        stats
            .players
            .iter()
            .map(|p| p.matches.len())
            .max()
            .unwrap_or(0),
    );
    out.push(top2(
        "Best kills per death",
        2,
        totals(&|p| (p.matches.len() >= min_matches.max(1)).then(|| p.kd())),
    ));
    out.retain(|a| a.places.first().is_some_and(|p| p.value > 0.0));
    out
}

fn top2(title: &'static str, decimals: usize, mut places: Vec<Place>) -> Award {
    places.sort_by(|a, b| {
        b.value
            .total_cmp(&a.value)
            .then(a.match_index.cmp(&b.match_index))
            .then(a.player.cmp(&b.player))
    });
    // The runner-up is another player.
    let mut best: Vec<Place> = Vec::new();
    for p in places {
        if best.len() == 2 {
            break;
        }
        if best.iter().all(|b| b.player != p.player) && p.value > 0.0 {
            best.push(p);
        }
    }
    Award {
        title,
        decimals,
        places: best,
    }
}
