//! Ratings: Becker's dynamic Elo ladder ([`dynamic`]) and static least-squares ranking
//! ([`static_rank`]), exactly as `../shared/design/RANKING.md` specifies. Takes ordered matches and
//! counts; knows nothing of HTML.

pub mod dynamic;
pub mod explain;
pub mod static_rank;

use crate::config::RatingConfig;
use crate::model::Match;
use crate::model::clans::Clans;
use crate::model::identity::Roster;
use crate::stats::Stats;
use dynamic::{DynamicRatings, Stream};
use static_rank::{FragMatrix, StaticRanking};

/// Every rating the site shows.
#[derive(Debug, Clone)]
pub struct Ratings {
    pub dynamic: DynamicRatings,
    pub static_: StaticRanking,
}

impl Ratings {
    /// Rates `matches` (in rating order) for the identities of `roster` and the clans of `clans`.
    pub fn compute(
        matches: &[Match],
        roster: &Roster,
        clans: &Clans,
        stats: &Stats,
        cfg: &RatingConfig,
    ) -> Ratings {
        let dynamic = Stream::build(matches, roster, clans, &cfg.dynamic).run(&cfg.dynamic);
        let matrix = FragMatrix::from_counts(
            roster.players.len(),
            stats
                .players
                .iter()
                .enumerate()
                .flat_map(|(k, p)| p.victims.iter().map(move |(v, c)| (k as u32, *v, *c))),
        );
        let static_ = static_rank::rank(&matrix, &cfg.static_);
        Ratings { dynamic, static_ }
    }
}
