//! Ratings: Becker's dynamic Elo ladder ([`dynamic`]) and static least-squares ranking
//! ([`static_rank`]), exactly as `../shared/design/RANKING.md` specifies. Takes ordered matches and
//! counts; knows nothing of HTML.

pub mod dynamic;
pub mod explain;
pub mod static_rank;
pub mod whole_history;

use crate::config::{HeadlineSystem, RatingConfig};
use crate::evaluate::{Evaluation, Evaluator, ReplayCheckpoint};
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
    pub headline: Headline,
}

/// How the evaluation replay started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replayed {
    /// From the first match (no checkpoint given).
    Whole,
    /// From a checkpoint, after this many matches.
    Resumed(usize),
    /// From the first match, because the checkpoint could not be used, and why.
    Refused(String),
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
    /// Every system's scores on these logs (only the headline's when `rating.evaluation` is
    /// off).
    pub evaluation: Evaluation,
}

/// The replays of the whole history that need only the matches: Becker's ladder and the
/// evaluation of every system (with the headline's ratings), run in parallel.
pub struct Replays {
    pub dynamic: DynamicRatings,
    pub evaluation: Evaluation,
    /// Where the next build can resume the evaluation.
    pub checkpoint: ReplayCheckpoint,
    pub replayed: Replayed,
}

impl Replays {
    /// Replays `matches` (in rating order) for the identities of `roster` and the clans of
    /// `clans`. The evaluation resumes `resume` when that covers a start of `matches` under the
    /// same configuration, and otherwise starts from the first match.
    pub fn compute(
        matches: &[Match],
        roster: &Roster,
        clans: &Clans,
        cfg: &RatingConfig,
        resume: Option<ReplayCheckpoint>,
    ) -> Replays {
        let (dynamic, (evaluation, checkpoint, replayed)) = rayon::join(
            || Stream::build(matches, roster, clans, &cfg.dynamic).run(&cfg.dynamic),
            || evaluate(matches, roster, cfg, resume),
        );
        Replays {
            dynamic,
            evaluation,
            checkpoint,
            replayed,
        }
    }
}

/// Runs the headline system (and, with `cfg.evaluation`, every other one) over `matches`,
/// resuming `resume` where it can.
fn evaluate(
    matches: &[Match],
    roster: &Roster,
    cfg: &RatingConfig,
    resume: Option<ReplayCheckpoint>,
) -> (Evaluation, ReplayCheckpoint, Replayed) {
    let (mut evaluator, from, replayed) = match resume {
        None => (Evaluator::new(cfg, cfg.evaluation), 0, Replayed::Whole),
        Some(cp) => match Evaluator::resume(cp, cfg, cfg.evaluation, matches) {
            Ok((e, from)) => (e, from, Replayed::Resumed(from)),
            Err(why) => (
                Evaluator::new(cfg, cfg.evaluation),
                0,
                Replayed::Refused(why),
            ),
        },
    };
    evaluator.advance(matches, roster, from);
    let (evaluation, checkpoint) = evaluator.finish(roster);
    (evaluation, checkpoint, replayed)
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
        let value = match cfg.headline.system {
            HeadlineSystem::Becker => becker.to_vec(),
            _ => std::mem::take(&mut evaluation.headline_ratings),
        };
        let threshold = u64::from(cfg.headline.provisional_incidents);
        Headline {
            value,
            provisional: incidents.iter().map(|&n| n < threshold).collect(),
            evaluation,
        }
    }
}

impl Ratings {
    /// Every rating from the replays ([`Replays`]) and the counts (for the static ranking's
    /// frag matrix).
    pub fn compute(
        dynamic: DynamicRatings,
        evaluation: Evaluation,
        stats: &Stats,
        cfg: &RatingConfig,
    ) -> Ratings {
        let players = stats.players.len();
        let matrix = FragMatrix::from_counts(
            players,
            stats
                .players
                .iter()
                .enumerate()
                .flat_map(|(k, p)| p.victims.iter().map(move |(v, c)| (k as u32, *v, *c))),
        );
        let static_ = static_rank::rank(&matrix, &cfg.static_);
        let headline = Headline::new(evaluation, &static_.incidents, &dynamic.players, cfg);
        Ratings {
            dynamic,
            static_,
            headline,
        }
    }
}
