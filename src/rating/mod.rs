//! Ratings, the one wing of every rating system: the systems themselves ([`systems`]: Becker's
//! dynamic ladder and static ranking exactly as `../shared/design/RANKING.md` specifies them, the
//! whole-history fit, Glicko-2, TrueSkill, Weng-Lin, NS2, the team model), the interface the
//! replay drives them through ([`system`]), the replay that judges them on the site's own history
//! and picks the headline ([`evaluation`]), and the plain-words explanation of Becker's rankings
//! ([`explain`]). Takes ordered matches and counts; knows neither pages nor the fold's
//! checkpoint.

pub mod curve_point;
pub mod curves;
pub mod evaluation;
pub mod explain;
pub mod system;
pub mod systems;

use crate::config::{HeadlineSystem, RatingConfig};
use crate::rating::curves::Curves;
use crate::rating::evaluation::Evaluation;
use crate::stats::Stats;
use systems::dynamic::DynamicRatings;
use systems::static_rank::{self, FragMatrix, StaticRanking};

/// Every rating the site shows.
#[derive(Debug, Clone)]
pub struct Ratings {
    pub dynamic: DynamicRatings,
    pub static_: StaticRanking,
    pub headline: Headline,
}

/// The headline rating (the system `[rating.headline]` names, by default the whole-history fit)
/// and the evaluation of every system that backs the choice.
#[derive(Debug, Clone)]
pub struct Headline {
    /// Final rating per identity (higher is better).
    pub value: Vec<f64>,
    /// Per identity: too little evidence yet (fewer frags made plus suffered than
    /// `provisional_incidents`).
    pub provisional: Vec<bool>,
    /// Per identity: (match number in rating order, headline rating after it) of every match
    /// played, the rating as the replay had it then (online); [`Headline::curve`] adds the
    /// final point. Empty for every identity when the headline is Becker's ladder, whose
    /// curve the pages draw from [`DynamicRatings::history`].
    pub online: Curves,
    /// Per identity with a curve: once more at its last match, the final published value
    /// (which for the whole-history fit is refitted on everything).
    pub last: Vec<Option<(u32, f64)>>,
    /// Every system's scores on these logs (only the headline's when `rating.evaluation` is
    /// off).
    pub evaluation: Evaluation,
}

impl Headline {
    /// The headline from the `evaluation`: the ratings of the system `[rating.headline]` names,
    /// or `becker`, the site's full dynamic ladder, when that is Becker (the evaluated ladder
    /// predicts frags only, without the flag, clan and duel rules). `incidents` are each
    /// identity's frags made plus suffered, for the provisional flags.
    pub fn new(
        mut evaluation: Evaluation,
        incidents: &[u64],
        becker: &[f64],
        cfg: &RatingConfig,
    ) -> Headline {
        let mut online = std::mem::take(&mut evaluation.headline_curves);
        let value = match cfg.headline.system {
            HeadlineSystem::Becker => {
                online = Curves::default();
                becker.to_vec()
            }
            _ => std::mem::take(&mut evaluation.headline_ratings),
        };
        // Beside the online points, not pushed onto them: they are shared with the checkpoint.
        let last = (value.iter().enumerate())
            .take(online.count())
            .map(|(i, &v)| online.last(i).map(|p| (p.pair().0, v)))
            .collect();
        let threshold = u64::from(cfg.headline.provisional_incidents);
        Headline {
            value,
            provisional: incidents.iter().map(|&n| n < threshold).collect(),
            online,
            last,
            evaluation,
        }
    }

    /// Identity `i`'s curve: its online points, then its final point (none when it has no
    /// curve).
    pub fn curve(&self, i: usize) -> impl Iterator<Item = (u32, f64)> + '_ {
        (self.online.points(i))
            .map(|p| p.pair())
            .chain(self.last.get(i).copied().flatten())
    }

    /// The number of points of identity `i`'s [`Headline::curve`].
    pub fn curve_len(&self, i: usize) -> usize {
        self.online.len(i) + usize::from(self.last.get(i).is_some_and(Option::is_some))
    }

    /// Point `n` of identity `i`'s [`Headline::curve`] (`n` below [`Headline::curve_len`]).
    pub fn curve_point(&self, i: usize, n: usize) -> (u32, f64) {
        match n < self.online.len(i) {
            true => self.online.point(i, n).pair(),
            false => self.last[i].expect("a point of the curve"),
        }
    }
}

/// The static least-squares ranking of the counts' frag matrix (what [`Ratings::compute`] is
/// given; [`crate::fold::fold`] computes it beside the replays).
pub fn static_ranking(stats: &Stats, cfg: &RatingConfig) -> StaticRanking {
    let matrix = FragMatrix::from_rows(stats.players.iter().map(|p| &p.victims));
    static_rank::rank(&matrix, &cfg.static_)
}

impl Ratings {
    /// Every rating from the replays ([`crate::fold::fold`]) and the static ranking of the
    /// counts ([`static_ranking`]).
    pub fn compute(
        dynamic: DynamicRatings,
        evaluation: Evaluation,
        static_: StaticRanking,
        cfg: &RatingConfig,
    ) -> Ratings {
        let headline = Headline::new(evaluation, &static_.incidents, &dynamic.players, cfg);
        Ratings {
            dynamic,
            static_,
            headline,
        }
    }
}
