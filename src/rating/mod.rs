//! Ratings: Becker's dynamic Elo ladder ([`dynamic`]) and static least-squares ranking
//! ([`static_rank`]), exactly as `../shared/design/RANKING.md` specifies. Takes ordered matches and
//! counts; knows nothing of HTML.

pub mod dynamic;
pub mod explain;
pub mod ladders;
pub mod season;
pub mod standing;
pub mod static_rank;
pub mod subset;
pub mod whole_history;

use crate::config::{HeadlineSystem, RatingConfig};
use crate::evaluate::Evaluation;
use crate::stats::Stats;
use dynamic::DynamicRatings;
use static_rank::{FragMatrix, StaticRanking};

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
    /// played, the rating as the replay had it then (online), then once more at the last
    /// match the final published value (which for the whole-history fit is refitted on
    /// everything). Empty for every identity when the headline is Becker's ladder, whose
    /// curve the pages draw from [`DynamicRatings::history`].
    pub curve: Vec<Vec<(u32, f64)>>,
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
        let mut curve = std::mem::take(&mut evaluation.headline_curves);
        let value = match cfg.headline.system {
            HeadlineSystem::Becker => {
                curve.clear();
                becker.to_vec()
            }
            _ => std::mem::take(&mut evaluation.headline_ratings),
        };
        for (points, &v) in curve.iter_mut().zip(&value) {
            if let Some(&(last, _)) = points.last() {
                points.push((last, v));
            }
        }
        let threshold = u64::from(cfg.headline.provisional_incidents);
        Headline {
            value,
            provisional: incidents.iter().map(|&n| n < threshold).collect(),
            curve,
            evaluation,
        }
    }
}

/// The static least-squares ranking of the counts' frag matrix (what [`Ratings::compute`] is
/// given; [`crate::history::fold`] computes it beside the replays).
pub fn static_ranking(stats: &Stats, cfg: &RatingConfig) -> StaticRanking {
    let matrix = FragMatrix::from_rows(stats.players.iter().map(|p| &p.victims));
    static_rank::rank(&matrix, &cfg.static_)
}

impl Ratings {
    /// Every rating from the replays ([`crate::history::fold`]) and the static ranking of the
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
