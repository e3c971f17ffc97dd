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
    let per_match = |value: &'static dyn Fn(&super::MatchLine) -> u32| {
        move || {
            (stats.matches.iter().enumerate()).flat_map(move |(mi, m)| {
                m.lines.iter().map(move |l| Place {
                    player: l.player,
                    value: f64::from(value(&l)),
                    match_index: Some(mi as u32),
                })
            })
        }
    };
    out.push(top2("Most frags in one match", 0, per_match(&|l| l.frags)));
    out.push(top2(
        "Longest killing spree",
        0,
        per_match(&|l| l.best_spree),
    ));
    let totals = |value: &'static dyn Fn(&super::PlayerStats) -> Option<f64>| {
        move || {
            stats.players.iter().enumerate().filter_map(move |(i, p)| {
                value(p).map(|v| Place {
                    player: i as u32,
                    value: v,
                    match_index: None,
                })
            })
        }
    };
    out.push(top2(
        "Most suicides",
        0,
        totals(&|p| Some(f64::from(p.suicides))),
    ));
    let min_matches = MIN_MATCHES_FOR_KD
        .min(
            stats
                .players
                .iter()
                .map(|p| p.matches.len())
                .max()
                .unwrap_or(0),
        )
        .max(1);
    let kd = |p: &super::PlayerStats| (p.matches.len() >= min_matches).then(|| p.kd());
    out.push(top2("Best kills per death", 2, || {
        stats.players.iter().enumerate().filter_map(move |(i, p)| {
            kd(p).map(|v| Place {
                player: i as u32,
                value: v,
                match_index: None,
            })
        })
    }));
    out.retain(|a| a.places.first().is_some_and(|p| p.value > 0.0));
    out
}

/// Whether place `a` is listed before `b`: the higher value, then the earlier match, then the
/// lower identity number.
fn ahead(a: &Place, b: &Place) -> bool {
    b.value
        .total_cmp(&a.value)
        .then(a.match_index.cmp(&b.match_index))
        .then(a.player.cmp(&b.player))
        .is_lt()
}

/// The award's first place and a runner-up who is another player, both above zero, from the
/// places that `places` yields (called twice): two passes rather than a sort of every match
/// line of the history. Of equal places the first yielded wins, as a stable sort would keep it.
fn top2<I: Iterator<Item = Place>>(
    title: &'static str,
    decimals: usize,
    places: impl Fn() -> I,
) -> Award {
    let best = |skip: Option<u32>| {
        places()
            .filter(|p| p.value > 0.0 && Some(p.player) != skip)
            .reduce(|a, b| if ahead(&b, &a) { b } else { a })
    };
    let first = best(None);
    let second = first.as_ref().and_then(|f| best(Some(f.player)));
    Award {
        title,
        decimals,
        places: first.into_iter().chain(second).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two places as a stable sort of every place lists them (how they were found before).
    fn sorted(mut places: Vec<Place>) -> Vec<Place> {
        places.sort_by(|a, b| {
            b.value
                .total_cmp(&a.value)
                .then(a.match_index.cmp(&b.match_index))
                .then(a.player.cmp(&b.player))
        });
        let mut best: Vec<Place> = Vec::new();
        for p in places {
            if best.len() < 2 && best.iter().all(|b| b.player != p.player) && p.value > 0.0 {
                best.push(p);
            }
        }
        best
    }

    /// On many small sets full of ties (equal values, one player's several places, zeros,
    /// a NaN), the two passes find the places the sort found.
    #[test]
    fn two_passes_find_what_the_sort_found() {
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % n
        };
        for _ in 0..2000 {
            let len = next(9) as usize;
            let places: Vec<Place> = (0..len)
                .map(|_| Place {
                    player: next(4) as u32,
                    value: match next(8) {
                        0 => f64::NAN,
                        v => v as f64 - 2.0,
                    },
                    match_index: (next(3) > 0).then(|| next(3) as u32),
                })
                .collect();
            let award = top2("t", 0, || places.iter().cloned());
            assert_eq!(award.places.len(), sorted(places.clone()).len());
            for (a, b) in award.places.iter().zip(sorted(places.clone())) {
                assert_eq!((a.player, a.match_index), (b.player, b.match_index));
                assert_eq!(a.value.to_bits(), b.value.to_bits());
            }
        }
    }
}
