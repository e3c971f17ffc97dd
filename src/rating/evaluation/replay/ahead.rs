//! The replay split for the build's pipeline: the headline and the team model, which every page
//! reads (ratings, curves, match predictions, the balancer), lead; the other systems, which only
//! the comparison of systems reads (`evaluation.html`, `data/evaluation.json`, the table on
//! `ranking.html`), follow them batch by batch, each batch once the headline's losses on its
//! frags are known. The build makes every other page as soon as the leaders are done, while the
//! followers finish beside it ([`crate::fold::fold_ahead`]). The batches waiting for the
//! followers are held in memory up to [`HELD_BYTES`], the rest in a spill file ([`spill`]) when
//! the leaders are given a folder for it.
//!
//! Each system replays the same outcomes in the same order as in [`Evaluator::advance`], and
//! the followers' finish is [`Evaluator::finish`]'s, so both give the same numbers to the bit.

use crate::scratch::Scratch;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::sync::{Arc, OnceLock};

use super::recent::Shelf;
use super::spill::{self, Spill};
use crate::model::identity::Roster;
use crate::model::match_ids::Ids;
use crate::model::{MatchList, MatchRef};
use crate::progress::PieceTimes;
use crate::rating::evaluation::replay::{
    Batch, Book, Comparison, Evaluator, LEADERS, PIPELINE_PARTS, Run, SkillKey, answer_key,
    boundary, finish_followers, finish_leaders, next_batch, part_matches, replay, replay_others,
    replay_sharing,
};
use crate::rating::evaluation::{Evaluation, ReplayCheckpoint};
use crate::rating::systems::whole_history::SettledFits;

/// Bytes of batches (their outcomes, losses and descriptions) held in memory for the followers
/// at most when a spill file can take the rest: about four batches.
const HELD_BYTES: usize = 2 << 20;

/// What the leaders hand the followers.
enum Handed {
    /// A batch replayed by the leaders and the headline's losses on its frags, in memory.
    Held(Batch, Vec<f32>),
    /// The same, in this spill file at this range.
    Spilled(Arc<Scratch>, std::ops::Range<u64>),
    /// Every batch is handed: the bots' answer key and the held-out boundary of the history.
    Done(SkillKey, u64),
}

/// About the bytes `batch` and its `losses` hold.
fn held_bytes(batch: &Batch, losses: &[f32]) -> usize {
    // A match's description (its team results, line-up and members) is a few hundred bytes.
    batch.outcomes.end() + 4 * losses.len() + 256 * batch.starts.len()
}

/// Matches in replay order, each with its players' roster numbers.
type Pairs<'m> = Box<dyn Iterator<Item = (MatchRef<'m>, Ids<'m>)> + Send + 'm>;

/// The headline and the team model, replaying ahead of the others.
pub struct Leaders<'m> {
    book: Book,
    runs: Vec<Run>,
    share: bool,
    /// The matches to replay, each with its players' roster numbers, and how many they are.
    matches: Option<(Pairs<'m>, usize)>,
    roster: &'m Roster,
    /// What is handed to the followers (None once every batch is handed, or when they are
    /// gone).
    handed: Option<Sender<Handed>>,
    /// There are followers to hand batches to: without (the evaluation is off, as for the
    /// ladders of one game type or season), only the end is handed, and no batch is kept.
    feeds: bool,
    /// Bytes held in memory for the followers (they take off what they receive), and at most
    /// ([`HELD_BYTES`]) when a spill file can take more.
    held: Arc<AtomicUsize>,
    held_limit: usize,
    /// The folder for a spill file, until one is made there (or cannot be).
    spill_dir: Option<PathBuf>,
    spill: Option<Spill>,
    /// Set once the leaders are done (so that the followers stop catching up), to the team
    /// model's settled fits when it shares the headline's.
    finished: Arc<OnceLock<Option<SettledFits>>>,
}

/// The other systems, following the leaders batch by batch.
pub struct Followers {
    runs: Vec<Run>,
    times: Vec<PieceTimes>,
    handed: Receiver<Handed>,
    held: Arc<AtomicUsize>,
    /// The bots' answer key and the held-out boundary, once every batch is handed.
    done: Option<(SkillKey, u64)>,
    finished: Arc<OnceLock<Option<SettledFits>>>,
}

impl Evaluator {
    /// Splits the replay of matches `from..` of `matches` (in rating order; `roster` numbers
    /// their players) into the leaders and the followers, to be run by [`Leaders::replay`] and
    /// [`Followers::catch_up`] side by side, then [`Leaders::finish`] and, whenever the
    /// comparison is wanted, [`Followers::finish`]. What waits for the followers beyond
    /// [`HELD_BYTES`] is written to a spill file in `spill_dir`, when given.
    pub fn split<'m>(
        mut self,
        matches: MatchList<'m>,
        roster: &'m Roster,
        from: usize,
        spill_dir: Option<PathBuf>,
    ) -> (Leaders<'m>, Followers) {
        if let Some(dir) = &spill_dir {
            // The scores that may yet be held out go to a file beside the spill file.
            let shelf = Arc::new(Shelf::new(dir.clone()));
            for run in &mut self.runs {
                run.scores.recent.shelve_to(Arc::clone(&shelf));
            }
            // And so do the headline's curves but their newest points.
            if let Some(headline) = self.runs.first_mut() {
                headline.scores.curves.spill_to(dir.clone());
            }
        }
        let followers = self.runs.split_off(LEADERS.min(self.runs.len()));
        let (sender, receiver) = channel();
        let finished = Arc::new(OnceLock::new());
        let held = Arc::new(AtomicUsize::new(0));
        (
            Leaders {
                book: self.book,
                runs: self.runs,
                share: self.share,
                matches: Some((
                    Box::new(
                        (matches.slice(from..).iter()).zip(roster.match_players.iter_from(from)),
                    ),
                    matches.len() - from,
                )),
                roster,
                handed: Some(sender),
                feeds: !followers.is_empty(),
                held: Arc::clone(&held),
                held_limit: HELD_BYTES,
                spill_dir,
                spill: None,
                finished: Arc::clone(&finished),
            },
            Followers {
                times: vec![PieceTimes::default(); followers.len()],
                runs: followers,
                handed: receiver,
                held,
                done: None,
                finished,
            },
        )
    }
}

impl Leaders<'_> {
    /// Replays every batch through the headline and the team model, handing each batch and
    /// the headline's losses on it to the followers as soon as it is done.
    pub fn replay(&mut self) {
        let Some((mut matches, count)) = self.matches.take() else {
            return;
        };
        let per_part = part_matches(count, PIPELINE_PARTS);
        let mut time = PieceTimes::default();
        while let Some(batch) = next_batch(&mut self.book, &mut matches, self.roster, per_part) {
            let (headline, others) = self.runs.split_first_mut().expect("the headline runs");
            let team = others.first_mut();
            let losses = time.time(|| match team {
                Some(team) if self.share => replay_sharing(headline, team, &batch),
                Some(team) => {
                    let outcomes = batch.decoded();
                    let losses = replay(headline, &batch, &outcomes, None);
                    replay(team, &batch, &outcomes, Some(&losses));
                    losses
                }
                None => replay(headline, &batch, &batch.decoded(), None),
            });
            self.hand(batch, losses);
        }
        // The book holds every frag of the history now: the held-out boundary and the bots'
        // answer key are final.
        if let Some(handed) = self.handed.take() {
            let _ = handed.send(Handed::Done(answer_key(&self.book), boundary(&self.book)));
        }
        let names: Vec<&str> = self.runs.iter().map(|r| r.rater.id()).collect();
        time.report(&format!("replay {}", names.join(" with ")));
    }

    /// Hands `batch` and the headline's `losses` on it to the followers: in memory while they
    /// hold less than [`HELD_BYTES`] (or no spill file can be had), else in the spill file.
    fn hand(&mut self, batch: Batch, losses: Vec<f32>) {
        let Some(handed) = self.handed.as_ref().filter(|_| self.feeds) else {
            return;
        };
        let bytes = held_bytes(&batch, &losses);
        if self.held.load(Ordering::Acquire) + bytes > self.held_limit {
            if self.spill.is_none()
                && let Some(dir) = self.spill_dir.take()
            {
                self.spill = Some(Spill::new(dir));
            }
            // A record that cannot be written (a folder that cannot be written, a full disk)
            // stays in memory.
            if let Some(spill) = &self.spill
                && let Some(range) = spill.put(&batch, &losses)
            {
                // The followers may be gone (a build that stopped early): nothing to tell.
                let _ = handed.send(Handed::Spilled(Arc::clone(spill.file()), range));
                return;
            }
        }
        self.held.fetch_add(bytes, Ordering::AcqRel);
        if handed.send(Handed::Held(batch, losses)).is_err() {
            self.handed = None;
        }
    }

    /// The leaders' evaluation (their reports, the headline's ratings and curves, the team
    /// model's predictions and skills) and, when `saves`, the checkpoint of their states, which
    /// [`crate::rating::evaluation::replay::Comparison::complete`] completes with the followers'. Saving costs a public
    /// server's site about 0.08 s: a build that keeps no new checkpoint skips it.
    pub fn finish(
        self,
        roster: &Roster,
        saves: bool,
    ) -> (Evaluation, Option<ReplayCheckpoint<'static>>) {
        let (evaluation, checkpoint, fits) =
            finish_leaders(self.book, self.runs, self.share, roster, saves);
        // Set once: only this consumes the leaders.
        let _ = self.finished.set(fits);
        (evaluation, checkpoint)
    }
}

impl Followers {
    /// Replays the batches the leaders have already done, without waiting for more: returns
    /// when none is ready, or once the leaders are finished (the rest is then
    /// [`Followers::finish`]'s, beside the pages).
    pub fn catch_up(&mut self) {
        while self.finished.get().is_none() {
            match self.handed.try_recv() {
                Ok(handed) => self.receive(handed),
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return,
            }
        }
    }

    /// Replays the batches left and finishes every follower: their reports and, when `saves`,
    /// their saved states. Call it once [`Leaders::replay`] has returned (it waits for every
    /// batch).
    pub fn finish(mut self, saves: bool) -> Comparison {
        while self.done.is_none() {
            let handed = self
                .handed
                .recv()
                .expect("the leaders replay every batch before the followers finish");
            self.receive(handed);
        }
        for (run, time) in self.runs.iter().zip(&self.times) {
            time.report(&format!("replay {}", run.rater.id()));
        }
        // Before the leaders finish (a caller that wants the comparison first), the followers
        // that are one of the team model's fits refit their own: the same bits, more work.
        let fits = self.finished.get().and_then(Option::as_ref);
        let (answer, boundary) = self.done.take().expect("every batch was handed");
        finish_followers(self.runs, &answer, boundary, fits, saves)
    }

    /// Replays what the leaders handed through every follower.
    fn receive(&mut self, handed: Handed) {
        let (batch, losses) = match handed {
            Handed::Held(batch, losses) => {
                self.held
                    .fetch_sub(held_bytes(&batch, &losses), Ordering::AcqRel);
                (batch, losses)
            }
            Handed::Spilled(file, range) => spill::take(&file, range).unwrap_or_else(|e| {
                panic!(
                    "cannot read back the rating replay's spill file in the state folder: {e} \
                     (build again)"
                )
            }),
            Handed::Done(answer, boundary) => {
                self.done = Some((answer, boundary));
                return;
            }
        };
        replay_others(&mut self.runs, &mut self.times, &batch, &losses);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RatingConfig;
    use crate::testdata::Listed;

    /// The leaders and followers run apart (the followers catching up in between, then
    /// finishing later, every batch read back from the spill file) give the evaluation and
    /// checkpoint of one [`Evaluator::advance`] and
    /// [`Evaluator::finish`], to the bit: from the start and resumed mid-history, with a shared
    /// and an unshared headline fit, with and without the other systems; and without saving the
    /// systems' states (a build that keeps its older checkpoint), the same evaluation.
    #[test]
    fn leaders_and_followers_equal_one_replay() {
        let whole = |e: &Evaluation, c: &ReplayCheckpoint| {
            (
                serde_json::to_string(e).unwrap(),
                format!("{e:?}"),
                postcard::to_allocvec(c).unwrap(),
            )
        };
        let mut glicko = RatingConfig::default();
        glicko.headline.system = serde_json::from_value("glicko2".into()).unwrap();
        for set in ["openarena", "public/hl-tf2"] {
            let Some((matches, roster)) = crate::testdata::history_of(set) else {
                continue;
            };
            let cut = matches.len() / 2;
            for cfg in [RatingConfig::default(), glicko.clone()] {
                for all in [true, false] {
                    let mut one = Evaluator::new(&cfg, all);
                    one.advance(matches.slice(..cut), &roster, 0);
                    let (_, halfway) = one.finish(&roster);
                    let (mut one, from) = Evaluator::resume(halfway.clone(), &cfg, all).unwrap();
                    one.advance(crate::model::MatchList::from(&matches), &roster, from);
                    let (e, c) = one.finish(&roster);
                    let expected = whole(&e, &c);

                    // Every batch past the first spilled, into a folder of its own.
                    let spill = tempfile::tempdir().unwrap();
                    let (rest, from) = Evaluator::resume(halfway.clone(), &cfg, all).unwrap();
                    let (mut leaders, mut followers) = rest.split(
                        crate::model::MatchList::from(&matches),
                        &roster,
                        from,
                        Some(spill.path().into()),
                    );
                    leaders.held_limit = 0;
                    leaders.replay();
                    // Without followers (the other systems not evaluated) nothing is kept.
                    assert_eq!(leaders.feeds, all, "{set}");
                    assert_eq!(leaders.spill.is_some(), all, "{set}: spilled");
                    followers.catch_up();
                    let (mut e, c) = leaders.finish(&roster, true);
                    let mut c = c.unwrap();
                    let (systems, team_model) = (e.systems.len(), e.report("team-model"));
                    assert!(systems <= LEADERS && team_model.is_some(), "{set}");
                    let leaders_alone = format!("{e:?}");
                    let comparison = followers.finish(true);
                    let all_systems = comparison.of_all(&e);
                    comparison.complete(&mut e, &mut c);
                    assert!(whole(&e, &c) == expected, "{set}, all systems {all}");
                    assert_eq!(
                        serde_json::to_string(&all_systems).unwrap(),
                        expected.0,
                        "{set}"
                    );

                    // Without saving the states (a build that keeps its older checkpoint):
                    // no checkpoint, the same evaluation.
                    let (rest, from) = Evaluator::resume(halfway, &cfg, all).unwrap();
                    let (mut leaders, followers) =
                        rest.split(crate::model::MatchList::from(&matches), &roster, from, None);
                    leaders.replay();
                    // With no spill file, what the followers have not taken waits in memory:
                    // nothing, when there are none.
                    let held = leaders.held.load(Ordering::Acquire);
                    assert_eq!(held > 0, all, "{set}: {held} bytes held");
                    let (e, c) = leaders.finish(&roster, false);
                    assert!(c.is_none(), "{set}");
                    assert!(
                        format!("{e:?}") == leaders_alone,
                        "{set}, all systems {all}"
                    );
                    let comparison = followers.finish(false);
                    assert_eq!(
                        serde_json::to_string(&comparison.of_all(&e)).unwrap(),
                        expected.0,
                        "{set}"
                    );
                }
            }
        }
    }
}
