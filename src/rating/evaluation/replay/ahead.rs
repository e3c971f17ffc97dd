//! The replay split for the build's pipeline: the headline and the team model, which every page
//! reads (ratings, curves, match predictions, the balancer), lead; the other systems, which only
//! the comparison of systems reads (`evaluation.html`, `data/evaluation.json`, the table on
//! `ranking.html`), follow them part by part, each part once the headline's losses on its frags
//! are known. The build makes every other page as soon as the leaders are done, while the
//! followers finish beside it ([`crate::fold::fold_ahead`]).
//!
//! Each system replays the same outcomes in the same order as in [`Evaluator::advance`], and
//! the followers' finish is [`Evaluator::finish`]'s, so both give the same numbers to the bit.

use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::sync::{Arc, OnceLock};

use crate::model::Match;
use crate::model::identity::Roster;
use crate::progress::PieceTimes;
use crate::rating::evaluation::replay::{
    Batch, Book, Comparison, Evaluator, LEADERS, PIPELINE_PARTS, Part, Run, SkillKey, answer_key,
    boundary, finish_followers, finish_leaders, replay, replay_others, replay_sharing,
};
use crate::rating::evaluation::{Evaluation, ReplayCheckpoint};
use crate::rating::systems::whole_history::SettledFits;

/// The outcomes every system replays, cut into parts.
struct Shared {
    batch: Batch,
    parts: Vec<Part>,
}

/// The headline and the team model, replaying ahead of the others.
pub struct Leaders {
    book: Book,
    runs: Vec<Run>,
    share: bool,
    shared: Arc<Shared>,
    /// The headline's losses on each part's frags, for the followers (dropped once every part
    /// is sent, which tells them no more will come).
    losses: Option<Sender<Vec<f32>>>,
    /// Set once the leaders are done (so that the followers stop catching up), to the team
    /// model's settled fits when it shares the headline's.
    finished: Arc<OnceLock<Option<SettledFits>>>,
}

/// The other systems, following the leaders part by part.
pub struct Followers {
    runs: Vec<Run>,
    times: Vec<PieceTimes>,
    shared: Arc<Shared>,
    losses: Receiver<Vec<f32>>,
    /// Parts replayed so far.
    next: usize,
    answer: SkillKey,
    boundary: u64,
    finished: Arc<OnceLock<Option<SettledFits>>>,
}

impl Evaluator {
    /// Splits the replay of matches `from..` of `matches` (in rating order; `roster` numbers
    /// their players) into the leaders and the followers, to be run by [`Leaders::replay`] and
    /// [`Followers::catch_up`] side by side, then [`Leaders::finish`] and, whenever the
    /// comparison is wanted, [`Followers::finish`].
    pub fn split(
        mut self,
        matches: &[Match],
        roster: &Roster,
        from: usize,
    ) -> (Leaders, Followers) {
        let part = matches[from..]
            .iter()
            .zip(roster.match_players[from..].iter().map(Vec::as_slice));
        let batch = self.batch(part, roster);
        let parts = batch.parts(PIPELINE_PARTS);
        let shared = Arc::new(Shared { batch, parts });
        let followers = self.runs.split_off(LEADERS.min(self.runs.len()));
        let (sender, receiver) = channel();
        let finished = Arc::new(OnceLock::new());
        // The book holds every frag of the history now: the held-out boundary and the bots'
        // answer key are final.
        let (answer, boundary) = (answer_key(&self.book), boundary(&self.book));
        (
            Leaders {
                book: self.book,
                runs: self.runs,
                share: self.share,
                shared: Arc::clone(&shared),
                losses: Some(sender),
                finished: Arc::clone(&finished),
            },
            Followers {
                times: vec![PieceTimes::default(); followers.len()],
                runs: followers,
                shared,
                losses: receiver,
                next: 0,
                answer,
                boundary,
                finished,
            },
        )
    }
}

impl Leaders {
    /// Replays every part through the headline and the team model, handing the headline's
    /// losses on each part to the followers as soon as it is done.
    pub fn replay(&mut self) {
        let shared = Arc::clone(&self.shared);
        let mut time = PieceTimes::default();
        let (headline, others) = self.runs.split_first_mut().expect("the headline runs");
        let mut team = others.first_mut();
        for part in &shared.parts {
            let losses = time.time(|| match team.as_deref_mut() {
                Some(team) if self.share => replay_sharing(headline, team, &shared.batch, part),
                Some(team) => {
                    let outcomes = shared.batch.decoded(part);
                    let losses = replay(headline, &shared.batch, part, &outcomes, None);
                    replay(team, &shared.batch, part, &outcomes, Some(&losses));
                    losses
                }
                None => replay(
                    headline,
                    &shared.batch,
                    part,
                    &shared.batch.decoded(part),
                    None,
                ),
            });
            if let Some(sender) = &self.losses {
                // The followers may be gone (a build that stopped early): nothing to tell.
                let _ = sender.send(losses);
            }
        }
        self.losses = None;
        let names: Vec<&str> = self.runs.iter().map(|r| r.rater.id()).collect();
        time.report(&format!("replay {}", names.join(" with ")));
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
    /// Replays the parts the leaders have already done, without waiting for more: returns
    /// when none is ready, or once the leaders are finished (the rest is then
    /// [`Followers::finish`]'s, beside the pages).
    pub fn catch_up(&mut self) {
        while self.finished.get().is_none() {
            match self.losses.try_recv() {
                Ok(losses) => self.replay_part(&losses),
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return,
            }
        }
    }

    /// Replays the parts left and finishes every follower: their reports and, when `saves`,
    /// their saved states. Call it once [`Leaders::replay`] has returned (it waits for every
    /// part).
    pub fn finish(mut self, saves: bool) -> Comparison {
        while self.next < self.shared.parts.len() {
            let losses = self
                .losses
                .recv()
                .expect("the leaders replay every part before the followers finish");
            self.replay_part(&losses);
        }
        for (run, time) in self.runs.iter().zip(&self.times) {
            time.report(&format!("replay {}", run.rater.id()));
        }
        // Before the leaders finish (a caller that wants the comparison first), the followers
        // that are one of the team model's fits refit their own: the same bits, more work.
        let fits = self.finished.get().and_then(Option::as_ref);
        finish_followers(self.runs, &self.answer, self.boundary, fits, saves)
    }

    /// Replays the next part through every follower against the headline's `losses` on it.
    fn replay_part(&mut self, losses: &[f32]) {
        let part = &self.shared.parts[self.next];
        replay_others(
            &mut self.runs,
            &mut self.times,
            &self.shared.batch,
            part,
            losses,
        );
        self.next += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RatingConfig;

    /// The leaders and followers run apart (the followers catching up in between, then
    /// finishing later) give the evaluation and checkpoint of one [`Evaluator::advance`] and
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
                    one.advance(&matches[..cut], &roster, 0);
                    let (_, halfway) = one.finish(&roster);
                    let (mut one, from) = Evaluator::resume(halfway.clone(), &cfg, all).unwrap();
                    one.advance(&matches, &roster, from);
                    let (e, c) = one.finish(&roster);
                    let expected = whole(&e, &c);

                    let (rest, from) = Evaluator::resume(halfway.clone(), &cfg, all).unwrap();
                    let (mut leaders, mut followers) = rest.split(&matches, &roster, from);
                    leaders.replay();
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
                    let (mut leaders, followers) = rest.split(&matches, &roster, from);
                    leaders.replay();
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
