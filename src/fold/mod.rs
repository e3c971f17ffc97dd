//! The folds over the whole ordered match history (the counts, Becker's ladder and the
//! evaluation of every rating system) and the [`Checkpoint`] that lets the next build go on after
//! the matches it has already seen instead of starting again from the first match.
//!
//! A checkpoint is resumed only when it cannot change the result: the build's matches must begin
//! with the checkpointed ones, in the same order, with the same identity keys for their players
//! (so alias rules did not change), under the same rating configuration and fragstats version,
//! and every identity already counted must keep its clan. The roster numbers identities in byte
//! order of key, so newcomers renumber the saved counts and ladder ([`Stats::renumber`],
//! [`Ladder::renumber`]); that order-keeping move is all that differs from one fold over
//! everything, which gives the same numbers to the last bit.

use crate::model::MatchList;
use std::borrow::Cow;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::config::RatingConfig;
use crate::model::clans::Clans;
use crate::model::identity::Roster;
use crate::progress::timed;
use crate::rating::evaluation::{Comparison, Evaluation, Evaluator, Followers, ReplayCheckpoint};
use crate::rating::systems::dynamic::{DynamicRatings, Ladder};
use crate::rating::systems::static_rank::StaticRanking;
use crate::stats::Stats;
use tallies::Tallies;

mod renewal;
pub mod tallies;

pub use renewal::CheckpointRule;

/// Bump when the layout of [`Checkpoint`] or the meaning of anything saved in it changes (what
/// each bump changed is in git's history of this line).
const CHECKPOINT_FORMAT: u64 = 13;

/// How the folds started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replayed {
    /// From the first match (no checkpoint given).
    Whole,
    /// From a checkpoint, after this many matches.
    Resumed(usize),
    /// From the first match, because the checkpoint could not be used, and why.
    Refused(String),
}

/// A clan as a checkpoint remembers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct ClanMark {
    name: String,
    declared: bool,
}

/// The folds stopped after a match, to be resumed by the next build. Made by
/// [`Continuation::checkpoint`]; the counts are borrowed while the site is rendered from them,
/// and owned once read back.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Checkpoint<'a> {
    /// Configuration, versions and checkpoint format the folds ran under.
    fingerprint: u64,
    /// Matches folded, and the chained hash of their ids and players' identity keys.
    matches: u64,
    chain: u64,
    /// Identity keys in the numbering of the saved counts (the roster's, then).
    keys: Vec<String>,
    /// Clans in the numbering of the saved ladder, and each identity's clan.
    clans: Vec<ClanMark>,
    clan_of: Vec<Option<u32>>,
    stats: Cow<'a, Stats>,
    ladder: Ladder,
    #[serde(borrow)]
    evaluation: ReplayCheckpoint<'a>,
    /// The per game type (and per game) ladders' tallies over the same matches.
    tallies: Tallies,
}

/// A checkpoint with its evaluation replay restored ([`Checkpoint::restore`]): the part of
/// resuming that needs neither the roster nor the clans, so that it runs while they are made
/// (on a crowd's append the rating systems' saved states take about 0.05 s of processor time
/// to restore, which the build no longer waits for once the identities are made).
pub struct Restored {
    /// The checkpoint, its evaluation taken out.
    checkpoint: Checkpoint<'static>,
    /// The restored replay and the matches it has seen, or why it cannot be resumed (the
    /// configuration changed, or the systems' states do not restore).
    evaluator: Result<(Evaluator, usize), String>,
}

impl Restored {
    /// Number of matches folded.
    pub fn matches(&self) -> u64 {
        self.checkpoint.matches
    }

    /// The saved folds renumbered for this build, and the number of matches they cover (with
    /// the chain so far); or why they cannot be resumed.
    fn resume(
        self,
        matches: MatchList,
        roster: &Roster,
        clans: &Clans,
        cfg: &RatingConfig,
    ) -> Result<Start, String> {
        let Restored {
            checkpoint,
            evaluator,
        } = self;
        if checkpoint.fingerprint != fingerprint(cfg) {
            return Err(OTHER_CONFIG.into());
        }
        let seen = checkpoint.matches as usize;
        if seen > matches.len() {
            return Err(CHANGED.into());
        }
        let Renumbered {
            stats,
            ladder,
            tallies,
            chain,
        } = checkpoint.renumbered(matches, roster, clans, cfg)?;
        let (evaluator, evaluated) = evaluator?;
        if evaluated != seen || ladder.matches() != seen || stats.matches.len() != seen {
            return Err("the saved folds cover different matches".into());
        }
        Ok(Start {
            stats,
            ladder,
            evaluator,
            tallies,
            from: seen,
            chain,
        })
    }
}

/// Everything the folds produce.
pub struct Folds {
    pub stats: Stats,
    /// The static ranking of `stats` ([`crate::rating::static_ranking`]).
    pub static_: StaticRanking,
    pub dynamic: DynamicRatings,
    pub evaluation: Evaluation,
    /// The rest of the checkpoint, to be saved with the counts: None when the build keeps the
    /// checkpoint it resumed ([`CheckpointRule`]).
    pub continuation: Option<Continuation>,
    pub replayed: Replayed,
    /// The resumed checkpoint's ladder tallies, renumbered (empty without one), for
    /// [`crate::standings::ladders::ladders`] to go on with.
    pub tallies: Tallies,
}

/// Becker's ladder and the evaluation replay where the folds stopped, and the chained hash of
/// the matches folded: with the counts, the next build's [`Checkpoint`].
pub struct Continuation {
    ladder: Ladder,
    evaluation: ReplayCheckpoint<'static>,
    chain: u64,
}

/// Where the folds start: nothing, or a resumed checkpoint renumbered for this build.
struct Start {
    stats: Stats,
    ladder: Ladder,
    evaluator: Evaluator,
    tallies: Tallies,
    /// Matches already folded, and their chained hash.
    from: usize,
    chain: u64,
}

/// A checkpoint's counts, ladder and tallies in this build's numbering, and the chain of the
/// matches they cover ([`Checkpoint::renumbered`]).
struct Renumbered {
    stats: Stats,
    ladder: Ladder,
    tallies: Tallies,
    chain: u64,
}

/// Why a checkpoint made under another configuration or fragstats is refused.
const OTHER_CONFIG: &str = "the rating configuration or fragstats changed";

/// Why a checkpoint whose matches are not a start of this build's is refused.
const CHANGED: &str = "matches before the newest ones, or their players' aliases, changed";

/// What a checkpoint must agree with to be resumed. The configuration enters through its
/// `Debug` text, which names every field and value.
fn fingerprint(cfg: &RatingConfig) -> u64 {
    let mut h = crate::hash::Hasher::new();
    h.u64(CHECKPOINT_FORMAT);
    h.str(env!("CARGO_PKG_VERSION"));
    h.u64(u64::from(crate::parse::PARSER_VERSION));
    h.str(&format!("{cfg:?}"));
    h.finish()
}

/// The chained hash of `matches` (ids, contents, and their players' identity keys in order) on
/// `hash`.
fn chain(
    mut hash: u64,
    matches: MatchList,
    match_players: crate::model::match_ids::Iter<'_>,
    roster: &Roster,
) -> u64 {
    for (m, ids) in matches.heads().zip(match_players) {
        let mut h = crate::hash::Hasher::new();
        h.u64(hash);
        h.str(&m.id);
        h.u64(m.content);
        for &id in ids.iter() {
            h.str(&roster.players[id as usize].key);
        }
        hash = h.finish();
    }
    hash
}

/// Counts and rates `matches` (in rating order) for the identities of `roster` and the clans of
/// `clans`: from `resume` on when that checkpoint covers a start of them and agrees with them
/// (module docs), and otherwise from the first match. The folds run in parallel, and always
/// leave their [`Continuation`].
pub fn fold(
    matches: MatchList,
    roster: &Roster,
    clans: &Clans,
    cfg: &RatingConfig,
    resume: Option<Restored>,
) -> Folds {
    fold_drawing(matches, roster, clans, cfg, resume, true)
}

/// [`fold`] from nothing, the headline's curves and the matches' lines not drawn up
/// ([`Stats::totals_only`]): for the ladder of one game type or season on its own, which shows
/// final ratings and totals only.
pub fn fold_without_curves(
    matches: MatchList,
    roster: &Roster,
    clans: &Clans,
    cfg: &RatingConfig,
) -> Folds {
    fold_drawing(matches, roster, clans, cfg, None, false)
}

/// [`fold`], drawing the headline's curves when `curves`.
fn fold_drawing(
    matches: MatchList,
    roster: &Roster,
    clans: &Clans,
    cfg: &RatingConfig,
    resume: Option<Restored>,
    curves: bool,
) -> Folds {
    let rule = CheckpointRule::EVERY_BUILD;
    let (mut folds, followers) =
        fold_ahead(matches, roster, clans, cfg, resume, rule, None, curves);
    let comparison = followers.finish(true);
    let continuation = folds
        .continuation
        .as_mut()
        .expect("every build renews the checkpoint");
    comparison.complete(&mut folds.evaluation, &mut continuation.evaluation);
    folds
}

/// [`fold`], returning as soon as the counts, Becker's ladder, the headline and the team model
/// are done: everything but the comparison of rating systems. The other systems, which only
/// that comparison reads, are returned still replaying ([`Followers`]): their
/// [`Followers::finish`] can run beside the pages that do not need them, and its
/// [`crate::rating::evaluation::Comparison`] completes the folds' evaluation (which until then holds the
/// leaders' reports only) and checkpoint ([`Continuation::compared`]).
///
/// The folds leave a [`Continuation`] only when `rule` says their end earns a new checkpoint;
/// otherwise the systems do not save their states (the followers' [`Followers::finish`] must
/// then be told so too, as `folds.continuation.is_some()`).
///
/// What the leaders have replayed and the followers not yet goes to a spill file in
/// `spill_dir` (the state folder) once it is more than a few megabytes, when given, and so do
/// Becker's curves but their newest points ([`Ladder::spill_curves_to`]) and the counts' lines
/// but the newest matches' ([`Stats::shelve_lines_in`]). Without
/// `curves`, a replay from nothing draws no headline curve ([`Evaluator::without_curves`]).
#[allow(clippy::too_many_arguments)]
pub fn fold_ahead(
    matches: MatchList,
    roster: &Roster,
    clans: &Clans,
    cfg: &RatingConfig,
    resume: Option<Restored>,
    rule: CheckpointRule,
    spill_dir: Option<&std::path::Path>,
    curves: bool,
) -> (Folds, Followers) {
    let evaluator = || match curves {
        true => Evaluator::new(cfg, cfg.evaluation),
        false => Evaluator::new(cfg, cfg.evaluation).without_curves(),
    };
    let fresh = || Start {
        // A ladder that draws no curve shows final values only: no match's lines.
        stats: match curves {
            true => Stats::default(),
            false => Stats::totals_only(),
        },
        ladder: Ladder::new(roster.players.len(), clans.clans.len(), &cfg.dynamic),
        evaluator: evaluator(),
        tallies: Tallies::default(),
        from: 0,
        chain: 0,
    };
    let (start, replayed) = match resume {
        None => (fresh(), Replayed::Whole),
        Some(cp) => match cp.resume(matches, roster, clans, cfg) {
            Ok(start) => {
                let from = start.from;
                (start, Replayed::Resumed(from))
            }
            Err(why) => (fresh(), Replayed::Refused(why)),
        },
    };
    let Start {
        mut stats,
        mut ladder,
        evaluator,
        tallies,
        from,
        chain: chained,
    } = start;
    if let Some(dir) = spill_dir {
        ladder.spill_curves_to(dir.to_path_buf());
        stats.shelve_lines_in(dir.to_path_buf());
    }
    let renews = rule.renews(&replayed, matches.len());
    let (mut leaders, mut followers) =
        evaluator.split(matches, roster, from, spill_dir.map(Into::into));
    // The static ranking needs only the counts: it runs beside the replays. The core that
    // is done with the counts and the ladder first replays the other systems behind the
    // leaders.
    let (static_, (evaluation, replay)) = rayon::join(
        || {
            let (static_, ()) = rayon::join(
                || {
                    timed("counts", || stats.advance(matches, roster));
                    timed("static ranking", || {
                        crate::rating::static_ranking(&stats, cfg)
                    })
                },
                || {
                    timed("Becker's ladder", || {
                        ladder.advance(matches, roster, clans, &cfg.dynamic)
                    })
                },
            );
            followers.catch_up();
            static_
        },
        || {
            timed("evaluation of the headline and the team model", || {
                leaders.replay();
                leaders.finish(roster, renews)
            })
        },
    );
    let dynamic = ladder.ratings(&cfg.dynamic);
    let continuation = replay.map(|replay| Continuation {
        ladder,
        evaluation: replay,
        chain: chain(
            chained,
            matches.slice(from..),
            roster.match_players.iter_from(from),
            roster,
        ),
    });
    let folds = Folds {
        dynamic,
        stats,
        static_,
        evaluation,
        continuation,
        replayed,
        tallies,
    };
    (folds, followers)
}

impl Continuation {
    /// Adds the other systems' saved states, once they are done ([`fold_ahead`]).
    pub fn compared(&mut self, comparison: Comparison) {
        comparison.complete_checkpoint(&mut self.evaluation);
    }

    /// The checkpoint after all `matches` of this build, with its `stats` (borrowed), `roster`,
    /// `clans` and ladder `tallies` (over the same matches, or empty).
    pub fn checkpoint<'a>(
        self,
        stats: &'a Stats,
        matches: usize,
        roster: &Roster,
        clans: &Clans,
        cfg: &RatingConfig,
        tallies: Tallies,
    ) -> Checkpoint<'a> {
        Checkpoint {
            fingerprint: fingerprint(cfg),
            matches: matches as u64,
            chain: self.chain,
            keys: roster.players.iter().map(|p| p.key.clone()).collect(),
            clans: clans
                .clans
                .iter()
                .map(|c| ClanMark {
                    name: c.name.clone(),
                    declared: c.declared,
                })
                .collect(),
            clan_of: clans.of_player.clone(),
            stats: Cow::Borrowed(stats),
            ladder: self.ladder,
            evaluation: self.evaluation,
            tallies,
        }
    }
}

impl Checkpoint<'_> {
    /// The same checkpoint, all of it its own (the counts and the systems' saved bytes).
    pub fn into_owned(self) -> Checkpoint<'static> {
        Checkpoint {
            fingerprint: self.fingerprint,
            matches: self.matches,
            chain: self.chain,
            keys: self.keys,
            clans: self.clans,
            clan_of: self.clan_of,
            stats: Cow::Owned(self.stats.into_owned()),
            ladder: self.ladder,
            evaluation: self.evaluation.into_owned(),
            tallies: self.tallies,
        }
    }

    /// The checkpoint with its evaluation replay restored for `cfg`, which needs neither this
    /// build's roster nor its clans: it can run while they are made. A checkpoint made under
    /// another configuration or fragstats is not restored (it is refused on resuming). The
    /// systems' saved bytes may be borrowed (from the checkpoint file in memory): only the
    /// states restored from them are kept.
    pub fn restore(mut self, cfg: &RatingConfig) -> Restored {
        let evaluation = std::mem::take(&mut self.evaluation);
        let evaluator = if self.fingerprint != fingerprint(cfg) {
            Err(OTHER_CONFIG.into())
        } else {
            timed("restore the rating systems", || {
                Evaluator::resume(evaluation, cfg, cfg.evaluation)
            })
        };
        Restored {
            checkpoint: self.into_owned(),
            evaluator,
        }
    }
}

impl Checkpoint<'_> {
    /// Number of matches folded.
    pub fn matches(&self) -> u64 {
        self.matches
    }

    /// The saved counts, ladder and tallies renumbered for `roster` and `clans`, and the chain
    /// so far; or why the matches, players or clans do not agree with the saved ones. The chain
    /// of the saved matches is hashed beside the renumbering, which is thrown away when it does
    /// not match.
    fn renumbered(
        self,
        matches: MatchList,
        roster: &Roster,
        clans: &Clans,
        cfg: &RatingConfig,
    ) -> Result<Renumbered, String> {
        let seen = self.matches as usize;
        let (chained, numbered) = rayon::join(
            || {
                chain(
                    0,
                    matches.slice(..seen),
                    roster.match_players.iter_range(0..seen),
                    roster,
                )
            },
            || {
                let players = self.player_numbers(roster)?;
                let clan_numbers = self.clan_numbers(clans, &players)?;
                Ok::<_, String>((players, clan_numbers))
            },
        );
        if chained != self.chain {
            return Err(CHANGED.into());
        }
        if !self.stats.names_sound() {
            return Err("the saved counts name a weapon, map or award they do not hold".into());
        }
        let (players, clan_numbers) = numbered?;
        let Checkpoint {
            stats,
            mut ladder,
            mut tallies,
            matches: saved,
            ..
        } = self;
        let (stats, tallies) = rayon::join(
            || {
                let mut stats = stats.into_owned();
                stats.renumber(&players, roster.players.len());
                stats
            },
            || {
                ladder.renumber(
                    &players,
                    roster.players.len(),
                    &clan_numbers,
                    clans.clans.len(),
                    &cfg.dynamic,
                );
                // Tallies over other matches than the folds (a build that kept none) are not
                // used.
                if tallies.matches() != saved {
                    tallies = Tallies::default();
                }
                tallies.renumber(&players).map(|()| tallies)
            },
        );
        Ok(Renumbered {
            stats,
            ladder,
            tallies: tallies?,
            chain: chained,
        })
    }

    /// Each saved identity's number in `roster`. The numbers must keep their order, which they
    /// do when the roster only gained identities.
    fn player_numbers(&self, roster: &Roster) -> Result<Vec<u32>, String> {
        // Both lists go in byte order of key: one walk over them finds every number (a crowd's
        // 63,000 keys, hashed into a table before). When it does not, the table finds why.
        if let Some(numbers) = self.walked_numbers(roster)
            && self.stats.players.len() == numbers.len()
        {
            return Ok(numbers);
        }
        let index: HashMap<&str, u32> = roster
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| (p.key.as_str(), i as u32))
            .collect();
        let numbers = self
            .keys
            .iter()
            .map(|k| index.get(k.as_str()).copied())
            .collect::<Option<Vec<u32>>>()
            .ok_or("a player of the earlier matches is gone")?;
        if numbers.windows(2).any(|w| w[0] >= w[1]) || self.stats.players.len() != numbers.len() {
            return Err("the players are numbered differently".into());
        }
        Ok(numbers)
    }

    /// Each saved identity's number in `roster`, found by walking both lists in byte order of
    /// key: None unless every saved key is there, in that order.
    fn walked_numbers(&self, roster: &Roster) -> Option<Vec<u32>> {
        let mut numbers = Vec::with_capacity(self.keys.len());
        let mut players = roster.players.iter().enumerate();
        for key in &self.keys {
            let (at, _) = players.find(|(_, p)| p.key.as_str() >= key.as_str())?;
            (roster.players[at].key == *key).then(|| numbers.push(at as u32))?;
        }
        Some(numbers)
    }

    /// Each saved clan's number in `clans`, provided every saved identity (numbered `players`
    /// now) is still in the same clan, or still in none.
    fn clan_numbers(&self, clans: &Clans, players: &[u32]) -> Result<Vec<u32>, String> {
        let mark = |c: &crate::model::clans::Clan| ClanMark {
            name: c.name.clone(),
            declared: c.declared,
        };
        let now: Vec<ClanMark> = clans.clans.iter().map(mark).collect();
        let mut numbers = Vec::with_capacity(self.clans.len());
        for saved in &self.clans {
            let mut at = now
                .iter()
                .enumerate()
                .filter(|(_, c)| *c == saved)
                .map(|(i, _)| i);
            match (at.next(), at.next()) {
                (Some(i), None) => numbers.push(i as u32),
                _ => return Err(format!("the clan {} changed", saved.name)),
            }
        }
        if self.clan_of.len() != players.len() {
            return Err("the clans are numbered differently".into());
        }
        for (old, &new) in players.iter().enumerate() {
            let before = self.clan_of[old].map(|c| numbers.get(c as usize).copied());
            let after = clans.of_player[new as usize].map(Some);
            if before != after {
                return Err(format!(
                    "the clan of {} changed",
                    self.keys.get(old).map_or("a player", String::as_str)
                ));
            }
        }
        Ok(numbers)
    }
}

#[cfg(test)]
mod tests;
