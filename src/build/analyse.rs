//! The build's analysis, between reading the logs and rendering the pages: who is who
//! ([`identify`]: moderation, identities, bots, hidden players, clans) and what the matches say
//! of them ([`analyse`]: the fold of counts and ratings, standings, ladders and seasons). Renders
//! nothing and writes nothing; the rating systems that finish beside the pages and the
//! checkpoint they complete are handed on as they are.

use std::borrow::Cow;
use std::path::Path;

use crate::config::Config;
use crate::diagnostics::Diagnostics;
use crate::fold::tallies::Tallies;
use crate::fold::{self, CheckpointRule, Continuation, Folds, Replayed, Restored};
use crate::model::clans::Clans;
use crate::model::identity::{Aliases, Roster};
use crate::model::moderation::Moderation;
use crate::model::{History, MatchList};
use crate::progress::timed;
use crate::rating::Ratings;
use crate::rating::evaluation::Followers;
use crate::standings::ladders::{self, Ladder};
use crate::standings::season::Seasons;
use crate::standings::standing::Standing;
use crate::stats::Stats;

/// Who is who in the matches, under the site's configuration.
pub struct People<'m> {
    pub aliases: Aliases,
    /// The matches without excluded players (the history's when nobody is excluded).
    pub matches: Moderated<'m>,
    pub roster: Roster,
    /// Per identity: a bot.
    pub bots: Vec<bool>,
    /// Per identity: never named on the site.
    pub hidden: Vec<bool>,
    pub clans: Clans,
    /// The diagnostics without the names the site does not publish.
    pub diagnostics: Cow<'m, Diagnostics>,
    /// `[moderation]` and `bots` settings that matched no player, for the terminal.
    pub unmatched: Vec<String>,
}

/// The matches a site is made of: the history's, or a copy without the players moderation
/// excludes (packed as the history is).
pub enum Moderated<'m> {
    /// Nobody is excluded.
    Same(MatchList<'m>),
    /// The matches without the excluded players.
    Applied(Box<History>),
}

impl Moderated<'_> {
    /// The matches.
    pub fn list(&self) -> MatchList<'_> {
        match self {
            Moderated::Same(list) => *list,
            Moderated::Applied(history) => history.list(),
        }
    }
}

/// Moderation, identities, bots, hidden players and clans of `matches` (in site order); a copy
/// of the matches without excluded players is packed into a scratch file in `dir` (the state
/// folder; None: in memory).
pub fn identify<'m>(
    matches: MatchList<'m>,
    diagnostics: &'m Diagnostics,
    config: &Config,
    dir: Option<&Path>,
) -> People<'m> {
    let aliases = Aliases::for_config(config);
    let moderation = Moderation::new(config, &aliases);
    // Excluded players (bans, bots under `bots = "exclude"`) leave before anything is counted.
    let applied = match moderation.apply(matches, &aliases, dir.map(Path::to_path_buf)) {
        Some(history) => Moderated::Applied(Box::new(history)),
        None => Moderated::Same(matches),
    };
    let roster = Roster::build(applied.list(), &aliases);
    let bots = roster.bots.clone();
    let hidden = moderation.hidden(&roster, &bots, &aliases);
    let excluded = match &applied {
        Moderated::Applied(_) => moderation.excluded(matches, &aliases),
        Moderated::Same(_) => Default::default(),
    };
    let unmatched = moderation.unmatched(config, &aliases, &roster, &bots, &excluded);
    // The examples of skipped lines quote the logs: the names the site hides leave them here,
    // for this build's `[moderation]` (the state keeps them as read).
    let diagnostics =
        diagnostics.without_names(&moderation.unpublished(config, &roster, &hidden, &excluded));
    let clans = Clans::assign(&roster, &config.clans, config.detect_clans);
    People {
        aliases,
        matches: applied,
        roster,
        bots,
        hidden,
        clans,
        diagnostics,
        unmatched,
    }
}

/// What the matches say of the people: counts, ratings, standings, ladders and seasons, and
/// what goes on beside the pages.
pub struct Analysis {
    pub stats: Stats,
    pub ratings: Ratings,
    pub standing: Standing,
    pub ladders: Vec<Ladder>,
    pub seasons: Seasons,
    pub replayed: Replayed,
    /// The rating systems still replaying, to finish beside the pages.
    pub followers: Followers,
    /// The folds' end, to become the next build's checkpoint (None: no new one is made).
    pub continuation: Option<Continuation>,
    /// The ladders' tallies over every match, for that checkpoint.
    pub tallies: Tallies,
}

/// The fold (from `resume` when it covers a start of the matches) and everything made of it;
/// the rating replay spills into `spill_dir` (the state folder), when given.
pub fn analyse(
    config: &Config,
    people: &People,
    resume: Option<Restored>,
    rule: CheckpointRule,
    spill_dir: Option<&std::path::Path>,
    timer: &crate::progress::Timer,
) -> Analysis {
    let matches = people.matches.list();
    let roster = &people.roster;
    // The per game type and per game ladders replay their matches beside the site's folds.
    let groups = ladders::groups(matches);
    let ((folds, followers), rated) = rayon::join(
        || {
            fold::fold_ahead(
                matches,
                roster,
                &people.clans,
                &config.rating,
                resume,
                rule,
                spill_dir,
                true,
            )
        },
        || {
            timed("per game type ladders", || {
                ladders::rate(groups, matches, roster, config, &people.aliases)
            })
        },
    );
    let Folds {
        stats,
        static_,
        dynamic,
        evaluation,
        continuation,
        replayed,
        tallies,
    } = folds;
    let ratings = Ratings::compute(dynamic, evaluation, static_, &config.rating);
    let hidden = &people.hidden;
    let (standing, (ladders, tallies)) = rayon::join(
        || Standing::compute(config, matches, &stats, &ratings, hidden),
        || {
            timed("ladder tables", || {
                ladders::ladders(
                    config,
                    matches,
                    roster,
                    &stats,
                    &ratings.headline,
                    hidden,
                    rated,
                    tallies,
                )
            })
        },
    );
    timer.lap("counts and ratings");
    // What the counting and rating freed (each pass's lists of a block of matches) goes back to
    // the system before the pages grow: held for the allocator's purge delay, it stood under
    // the pages' peak (a few MB at 64,000 games).
    crate::sys::give_back_freed_memory();
    // Nothing is computed for a site without seasons.
    let seasons = Seasons::compute(config, matches, roster, &people.aliases, hidden);
    timer.lap("seasons");
    Analysis {
        stats,
        ratings,
        standing,
        ladders,
        seasons,
        replayed,
        followers,
        continuation,
        tallies,
    }
}
