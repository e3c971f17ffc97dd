//! The evaluation as a resumable replay. Every system is online (it predicts and learns outcome
//! by outcome), so the replay can stop after any match and go on later: [`Evaluator::finish`]
//! returns a [`ReplayCheckpoint`] with each system's learnt state and scores, and the next build, when
//! its matches begin with the same matches in the same order under the same configuration
//! (which [`crate::fold`] checks), replays only the matches after them. A full replay is the same code starting from nothing, so
//! both give the same numbers to the last bit.
//!
//! Players are numbered here in order of first appearance (not the roster's byte order of keys),
//! so that a newcomer never renumbers the players already in a checkpoint.

mod ahead;
mod recent;
mod spill;

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

use crate::progress::{PieceTimes, timed};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::config::RatingConfig;
use crate::model::identity::Roster;
use crate::model::match_ids::Ids;
use crate::model::{EventKind, MatchList, MatchRef};
use crate::rating::curve_point::CurvePoint;
use crate::rating::curves::Curves;
use crate::rating::evaluation::outcomes::Outcomes;
use crate::rating::evaluation::per_match::PerMatch;
use crate::rating::evaluation::reliability::Calibration;
use crate::rating::evaluation::{
    Evaluation, HELD_OUT_SHARE, MIN_INCIDENTS_FOR_SKILL, Outcome, PairedSums, Scored, SkillKey,
    Sums, SystemReport, TeamSnapshot, team_games, team_lineup,
};
use crate::rating::system::{self, FragRater, MatchStart, TeamGame};
use crate::rating::systems::team_model::TEAM_MODEL_ID;
use crate::rating::systems::whole_history::SettledFits;
pub use ahead::{Followers, Leaders};

/// Median of the match lengths seen so far (NS2's `r`), kept as two heaps: the lower half
/// (max-heap) and the upper half (min-heap), which holds the extra element when the count is odd.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct RunningMedian {
    lower: BinaryHeap<u32>,
    upper: BinaryHeap<Reverse<u32>>,
}

impl RunningMedian {
    fn push(&mut self, x: u32) {
        match self.upper.peek() {
            Some(Reverse(least)) if x < *least => self.lower.push(x),
            _ => self.upper.push(Reverse(x)),
        }
        if self.upper.len() > self.lower.len() + 1 {
            let Reverse(v) = self.upper.pop().expect("upper is not empty");
            self.lower.push(v);
        } else if self.lower.len() > self.upper.len() {
            let v = self.lower.pop().expect("lower is not empty");
            self.upper.push(Reverse(v));
        }
    }

    /// The element at position `len / 2` of the sorted lengths.
    fn median(&self) -> Option<u32> {
        self.upper.peek().map(|Reverse(v)| *v)
    }
}

/// NS2's `a = 2^(2/r)`, r the median length in seconds of the matches so far (this one
/// included; 10 minutes before any length is known).
fn time_base(lengths: &RunningMedian) -> f64 {
    let r = lengths.median().unwrap_or(600).max(1);
    2f64.powf(2.0 / f64::from(r))
}

/// One match's scores, kept for the held-out part (which only the final frag count decides).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct MatchScore {
    /// Number of the match's first frag in the whole history.
    first_frag: u64,
    sums: Sums,
    paired: PairedSums,
}

impl MatchScore {
    /// The match has a frag numbered `boundary` or later.
    fn reaches(&self, boundary: u64) -> bool {
        self.first_frag + self.sums.n > boundary
    }
}

/// A system's scores so far.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Scores {
    all: Sums,
    teams: Sums,
    /// The team results' predictions against what happened, binned.
    calibration: Calibration,
    by_type: BTreeMap<String, Sums>,
    paired: PairedSums,
    /// Per match, from the first one that can still end up held out.
    recent: recent::Recent,
    /// The team model only: (match number in rating order, P(red wins) before it) of every
    /// team match with players on both sides.
    predictions: Vec<(u64, f64)>,
    /// The team model only: (match number, P(red wins) of the fairest split of the same
    /// players before it), for the same matches as `predictions`.
    #[serde(default)]
    fairest: Vec<(u64, f64)>,
    /// The team model only: (match number, expected margin before it), for the same matches.
    #[serde(default)]
    margins: Vec<(u64, f64)>,
    /// The headline only, per player (the book's numbering): (match number in rating order,
    /// online rating after it) of every match the player played.
    curves: Curves,
}

impl Scores {
    /// Forgets matches over before frag `boundary`: they can no longer be held out (the
    /// boundary only moves on as frags are added).
    fn prune(&mut self, boundary: u64) {
        self.recent.prune(boundary);
    }

    /// Scores and paired differences over the held-out matches: those with a frag at or after
    /// frag `boundary`.
    fn held_out(&self, boundary: u64) -> (Sums, PairedSums) {
        let mut sums = Sums::default();
        let mut paired = PairedSums::default();
        self.recent.for_each(|m| {
            if m.reaches(boundary) {
                sums.merge(&m.sums);
                paired.merge(&m.paired);
            }
        });
        (sums, paired)
    }
}

/// What every system shares: the matches replayed, the player numbering and the answer key.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Book {
    /// Matches replayed.
    matches: u64,
    /// Identity keys in order of first appearance: player `i` of every system is `keys[i]`.
    keys: Vec<String>,
    #[serde(skip)]
    index: HashMap<String, u32>,
    lengths: RunningMedian,
    frags: u64,
    team_results: u64,
    /// Latest configured skill of every player seen as a bot (answer key only).
    skill: BTreeMap<u32, f64>,
    /// Frags made plus suffered per player.
    incidents: Vec<u64>,
}

impl Book {
    fn number(&mut self, key: &str) -> u32 {
        if let Some(&i) = self.index.get(key) {
            return i;
        }
        let i = self.keys.len() as u32;
        self.keys.push(key.to_string());
        self.index.insert(key.to_string(), i);
        self.incidents.push(0);
        i
    }
}

/// A system with its scores.
struct Run {
    rater: Box<dyn FragRater>,
    scores: Scores,
    /// The headline draws its players' curves (see [`Evaluator::without_curves`]).
    curves: bool,
}

/// One system's saved state.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SavedRun<'a> {
    id: String,
    #[serde(borrow, with = "byte_string")]
    rater: Cow<'a, [u8]>,
    scores: Scores,
}

impl SavedRun<'_> {
    /// The same run, its bytes its own.
    fn into_owned(self) -> SavedRun<'static> {
        SavedRun {
            id: self.id,
            rater: Cow::Owned(self.rater.into_owned()),
            scores: self.scores,
        }
    }
}

/// A saved rater's bytes written and read as one byte string. In postcard this is the
/// encoding of a sequence of bytes (their number, then the bytes), so checkpoints keep their
/// bytes; read from a checkpoint in memory they are borrowed from it, not copied (tens of
/// megabytes for the whole-history fits of a public server, copied into fresh memory on
/// every append, where the state restored from them is all that is kept).
mod byte_string {
    use serde::{Deserializer, Serializer};
    use std::borrow::Cow;

    /// Writes `bytes` as a byte string.
    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }

    /// Reads a byte string (or a sequence of bytes, where a format writes it as one),
    /// borrowed from the input where the format can lend it.
    pub fn deserialize<'de: 'a, 'a, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Cow<'a, [u8]>, D::Error> {
        deserializer.deserialize_bytes(Bytes)
    }

    /// The visitor of [`deserialize`].
    struct Bytes;

    impl<'de> serde::de::Visitor<'de> for Bytes {
        type Value = Cow<'de, [u8]>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("the saved state of a rating system")
        }
        fn visit_borrowed_bytes<E>(self, v: &'de [u8]) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(v))
        }
        fn visit_bytes<E>(self, v: &[u8]) -> Result<Self::Value, E> {
            Ok(Cow::Owned(v.to_vec()))
        }
        fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Self::Value, E> {
            Ok(Cow::Owned(v))
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
            while let Some(b) = seq.next_element()? {
                bytes.push(b);
            }
            Ok(Cow::Owned(bytes))
        }
    }
}

/// The replay stopped after a match, to be resumed by the next build (by default, before the
/// first match of no system).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ReplayCheckpoint<'a> {
    book: Book,
    /// The headline system first.
    #[serde(borrow)]
    runs: Vec<SavedRun<'a>>,
}

impl ReplayCheckpoint<'_> {
    /// Number of matches replayed.
    pub fn matches(&self) -> u64 {
        self.book.matches
    }

    /// The same checkpoint, the systems' saved bytes its own.
    pub fn into_owned(self) -> ReplayCheckpoint<'static> {
        ReplayCheckpoint {
            book: self.book,
            runs: self.runs.into_iter().map(SavedRun::into_owned).collect(),
        }
    }
}

/// The outcomes of a run of matches, in the numbering of the [`Book`]. Its description (all but
/// the outcomes) is what a spill file keeps of it beside the outcomes' bytes ([`spill`]).
#[derive(Serialize, Deserialize)]
struct Batch {
    /// Number of the batch's first match in the whole history.
    first: u64,
    #[serde(skip)]
    outcomes: Outcomes,
    /// Per match: its team results (rounds, each predicted at its start, or the match).
    team_games: Vec<Vec<TeamGame>>,
    /// Team matches without a winner (only predicted): their line-up.
    lineups: Vec<Option<TeamGame>>,
    starts: Vec<MatchStart>,
    gametypes: Vec<crate::model::Text>,
    /// Per match: its players (the book's numbering, each once).
    members: Vec<Vec<u32>>,
    /// Per match: players numbered once it starts (systems grow to it at its start, so a
    /// newcomer joins at the same point of the replay however the history was split).
    players: Vec<usize>,
    /// Frags in the whole history before the batch, and in it.
    frags_before: u64,
    frags: usize,
    /// The held-out boundary once the book holds the batch's frags ([`boundary`]): a match
    /// over before it is never held out (the boundary only moves on), so each system forgets
    /// its scores as a part ends (issue 41: they were kept for every match of the history).
    boundary: u64,
}

/// The systems an evaluation runs: the headline first, then the team model (always: match
/// pages and the balancer need it), then (with `all_systems`) every other.
fn system_ids(cfg: &RatingConfig, all_systems: bool) -> Vec<&'static str> {
    let headline = cfg.headline.system.id();
    let mut ids = vec![headline, TEAM_MODEL_ID];
    if all_systems {
        ids.extend(
            system::SYSTEM_IDS
                .iter()
                .filter(|id| **id != headline && **id != TEAM_MODEL_ID),
        );
    }
    ids
}

/// The replay in progress.
pub struct Evaluator {
    book: Book,
    runs: Vec<Run>,
    /// The team model (second run) reads the headline's whole-history fit instead of learning
    /// its own copy of it ([`replay_sharing`]): when the headline is that fit.
    share: bool,
}

/// Whether the team model (`runs[1]`) can read the headline's fit: the headline is the
/// whole-history fit, the same one (same priors and decay) the team model learns. If so, tells
/// the team model to stop learning its own copy.
fn share_fit(runs: &mut [Run]) -> bool {
    let [headline, team, ..] = runs else {
        return false;
    };
    let same = match (headline.rater.whole_history(), team.rater.whole_history()) {
        (Some(a), Some(b)) => a.same_model(b),
        _ => false,
    };
    if same {
        team.rater.borrow_fit(true);
    }
    same
}

/// Has the fixed-prior whole-history fit ("bradley-terry") save no pair records when the
/// averaged one ("whole-history") is also replayed: fed the same frags with the same decay, the
/// two learn the same records, which the checkpoint then holds once (on a public server's site
/// 17 MB less to encode and write, of 72). A `resumed` fixed-prior fit takes its copy of them
/// from the averaged one (a fit restored without records it cannot take is an error). Returns
/// whether the records are saved once.
fn share_pairs(runs: &mut [Run], resumed: bool) -> Result<bool, String> {
    let position = |id: &str| runs.iter().position(|r| r.rater.id() == id);
    let (Some(whole), Some(single)) = (position("whole-history"), position("bradley-terry")) else {
        return Ok(false);
    };
    let Ok([whole, single]) = runs.get_disjoint_mut([whole, single]) else {
        return Ok(false);
    };
    let (Some(whole), Some(single)) = (whole.rater.any_fit(), single.rater.any_fit()) else {
        return Ok(false);
    };
    if resumed && single.lacks_pairs() && !single.take_pairs_from(whole) {
        return Err("the saved state of bradley-terry lacks its pair records".into());
    }
    single.save_pairs_elsewhere(true);
    Ok(true)
}

/// Matches a part holds at most when `total` are replayed in about `parts` parts.
fn part_matches(total: usize, parts: usize) -> usize {
    total.div_ceil(parts.max(1)).max(1)
}

/// Collects the outcomes of the next matches of `matches` into a batch, updating the shared
/// book: `at_most` matches, fewer once the batch holds [`PART_BYTES`] of packed outcomes (a
/// batch is decoded whole while it is replayed); None when no match is left. A history is
/// replayed batch after batch, so that what a replay holds is one batch, not the history
/// (issue 41).
fn next_batch<'m>(
    book: &mut Book,
    matches: &mut impl Iterator<Item = (MatchRef<'m>, Ids<'m>)>,
    roster: &Roster,
    at_most: usize,
) -> Option<Batch> {
    let frags_before = book.frags;
    let mut batch = Batch {
        first: book.matches,
        outcomes: Outcomes::default(),
        team_games: Vec::new(),
        lineups: Vec::new(),
        starts: Vec::new(),
        gametypes: Vec::new(),
        players: Vec::new(),
        members: Vec::new(),
        frags_before,
        frags: 0,
        boundary: 0,
    };
    let mut ids = Vec::new();
    for (mi, (m, roster_ids)) in matches.take(at_most).enumerate() {
        let m = &*m;
        book.matches += 1;
        ids.clear();
        ids.extend(
            roster_ids
                .iter()
                .map(|&r| book.number(&roster.players[r as usize].key)),
        );
        for (i, p) in m.players.iter().enumerate() {
            if let Some(s) = p.bot_skill {
                book.skill.insert(ids[i], f64::from(s));
            }
        }
        batch.players.push(book.keys.len());
        let mut members = ids.clone();
        members.sort_unstable();
        members.dedup();
        batch.members.push(members);
        batch
            .outcomes
            .push(Outcome::StartMatch { index: mi as u32 });
        if m.duration_seconds > 0 {
            book.lengths.push(m.duration_seconds);
        }
        let base = time_base(&book.lengths);
        let (games, ends): (Vec<TeamGame>, Vec<Option<u32>>) =
            team_games(m, &ids, base).into_iter().unzip();
        // Each round's result goes in after the frags of its last second.
        let mut rounds = ends
            .iter()
            .enumerate()
            .filter_map(|(k, end)| end.map(|end| (end, k as u32)))
            .peekable();
        for e in m.events.read().iter() {
            while let Some((_, round)) = rounds.next_if(|(end, _)| *end < e.time) {
                batch.outcomes.push(Outcome::RoundEnd {
                    index: mi as u32,
                    round,
                });
            }
            match e.kind {
                EventKind::Frag => {
                    let (killer, victim) = (ids[e.actor as usize], ids[e.target as usize]);
                    book.incidents[killer as usize] += 1;
                    book.incidents[victim as usize] += 1;
                    batch.frags += 1;
                    batch.outcomes.push(Outcome::Frag { killer, victim });
                }
                EventKind::Suicide | EventKind::TeamKill => {
                    batch.outcomes.push(Outcome::Penalty {
                        player: ids[e.actor as usize],
                    });
                }
                _ => {}
            }
        }
        for (_, round) in rounds {
            batch.outcomes.push(Outcome::RoundEnd {
                index: mi as u32,
                round,
            });
        }
        batch.outcomes.push(Outcome::EndMatch { index: mi as u32 });
        book.team_results += games.len() as u64;
        batch.lineups.push(if games.is_empty() {
            team_lineup(m, &ids, base)
        } else {
            None
        });
        batch.team_games.push(games);
        batch.starts.push(MatchStart {
            day: m.start.map(|t| {
                t.date()
                    .signed_duration_since(chrono::NaiveDate::MIN)
                    .num_days()
            }),
        });
        batch.gametypes.push(m.gametype.code.clone());
        if batch.outcomes.end() >= PART_BYTES {
            break;
        }
    }
    if batch.starts.is_empty() {
        return None;
    }
    book.frags += batch.frags as u64;
    // The held-out boundary so far: it only moves on as frags are added, so the scores it
    // lets a system forget can never be held out.
    batch.boundary = boundary(book);
    batch.outcomes.shrink_to_fit();
    Some(batch)
}

impl Evaluator {
    /// A replay from the start.
    pub fn new(cfg: &RatingConfig, all_systems: bool) -> Evaluator {
        let mut runs: Vec<Run> = system_ids(cfg, all_systems)
            .into_iter()
            .map(|id| Run {
                rater: system::by_id(id, cfg).expect("every listed system exists"),
                scores: Scores::default(),
                curves: true,
            })
            .collect();
        let share = share_fit(&mut runs);
        share_pairs(&mut runs, false).expect("a new replay takes no pair records");
        Evaluator {
            book: Book::default(),
            runs,
            share,
        }
    }

    /// The same replay drawing no curve: for a replay whose curves nothing shows (a game
    /// type's or season's ladder on its own), where they would be a point per player and match
    /// (11 MB at 64,000 matches).
    pub fn without_curves(mut self) -> Evaluator {
        for run in &mut self.runs {
            run.curves = false;
        }
        self
    }

    /// Like [`Evaluator::new`], the team model always learning its own copy of the fit (to test
    /// that sharing the headline's gives the same numbers).
    #[cfg(test)]
    fn unshared(cfg: &RatingConfig, all_systems: bool) -> Evaluator {
        let mut e = Evaluator::new(cfg, all_systems);
        if e.share {
            let own = e.runs[0].rater.whole_history().expect("shared").clone();
            *e.runs[1].rater.whole_history().expect("shared") = own;
            e.runs[1].rater.borrow_fit(false);
            e.share = false;
        }
        e
    }

    /// Resumes `checkpoint`, which the caller has checked was made under this configuration
    /// from a start of this build's matches ([`crate::fold`] does); returns the replay and
    /// the number of matches it has already seen, or why it cannot be restored.
    pub fn resume(
        checkpoint: ReplayCheckpoint,
        cfg: &RatingConfig,
        all_systems: bool,
    ) -> Result<(Evaluator, usize), String> {
        let ReplayCheckpoint { mut book, runs } = checkpoint;
        let seen = book.matches as usize;
        let ids = system_ids(cfg, all_systems);
        if runs.len() != ids.len() || runs.iter().zip(&ids).any(|(r, id)| r.id != *id) {
            return Err("the set of rating systems changed".into());
        }
        // The systems are decoded side by side, each on a thread of its own, and beside the
        // index of the book's keys; a damaged one is named in the order of the systems, as one
        // after the other would. Not on rayon's threads: a build restores them while it makes
        // its identities there, and a worker that took the whole-history fit (0.05 s on a
        // public server's site) held up the identities, waiting on it, with the other core
        // idle (perf timeline of a crowd append); threads of their own share the cores.
        let restore = |saved: &SavedRun| {
            let mut rater = system::by_id(&saved.id, cfg).expect("ids were checked");
            rater
                .restore(&saved.rater)
                .map_err(|e| format!("the saved state of {} is damaged ({e})", saved.id))?;
            Ok(rater)
        };
        let (index, raters) = std::thread::scope(|s| {
            // A thread that cannot be made (a limit on threads) leaves its system to be
            // restored here.
            let restoring = runs
                .iter()
                .map(|saved| {
                    std::thread::Builder::new()
                        .spawn_scoped(s, move || restore(saved))
                        .ok()
                })
                .collect::<Vec<_>>();
            let index = book
                .keys
                .iter()
                .enumerate()
                .map(|(i, k)| (k.clone(), i as u32))
                .collect();
            let raters = restoring
                .into_iter()
                .zip(&runs)
                .map(|(thread, saved)| match thread {
                    Some(thread) => thread
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                    None => restore(saved),
                })
                .collect::<Vec<Result<Box<dyn FragRater>, String>>>();
            (index, raters)
        });
        book.index = index;
        let mut live = raters
            .into_iter()
            .zip(runs)
            .map(|(rater, saved)| {
                Ok(Run {
                    rater: rater?,
                    scores: saved.scores,
                    curves: true,
                })
            })
            .collect::<Result<Vec<Run>, String>>()?;
        let share = share_fit(&mut live);
        share_pairs(&mut live, true)?;
        Ok((
            Evaluator {
                book,
                runs: live,
                share,
            },
            seen,
        ))
    }

    /// Replays matches `from..` of `matches` (in rating order; `roster` numbers their players).
    pub fn advance(&mut self, matches: MatchList, roster: &Roster, from: usize) {
        let part = matches
            .slice(from..)
            .iter()
            .zip(roster.match_players.iter_from(from));
        self.replay(part, roster, PIPELINE_PARTS);
    }

    /// Replays `matches` through every system, cut into about `parts` batches (see
    /// [`PIPELINE_PARTS`]; the result does not depend on it).
    fn replay<'m>(
        &mut self,
        matches: impl ExactSizeIterator<Item = (MatchRef<'m>, Ids<'m>)>,
        roster: &Roster,
        parts: usize,
    ) {
        let per_part = part_matches(matches.len(), parts);
        let mut matches = matches;
        let (headline, others) = self.runs.split_first_mut().expect("the headline runs");
        let (mut team, others) = match others.split_first_mut() {
            Some((team, rest)) if self.share => (Some(team), rest),
            _ => (None, others),
        };
        let mut head_time = PieceTimes::default();
        let mut other_times = vec![PieceTimes::default(); others.len()];
        // The other systems compare each frag with the headline's loss on it, so they replay
        // part k - 1 while the headline replays part k: one system's outcomes still go through
        // it in order, and the headline's replay no longer leaves a core idle before the rest.
        let mut previous: Option<(Batch, Vec<f32>)> = None;
        while let Some(batch) = next_batch(&mut self.book, &mut matches, roster, per_part) {
            let (losses, ()) = rayon::join(
                || {
                    head_time.time(|| match team.as_deref_mut() {
                        Some(team) => replay_sharing(headline, team, &batch),
                        None => replay(headline, &batch, &batch.decoded(), None),
                    })
                },
                || {
                    if let Some((done, reference)) = &previous {
                        replay_others(others, &mut other_times, done, reference);
                    }
                },
            );
            previous = Some((batch, losses));
        }
        if let Some((done, reference)) = &previous {
            replay_others(others, &mut other_times, done, reference);
        }
        match &team {
            Some(team) => head_time.report(&format!(
                "replay {} with {}",
                headline.rater.id(),
                team.rater.id()
            )),
            None => head_time.report(&format!("replay {}", headline.rater.id())),
        }
        for (run, time) in others.iter().zip(&other_times) {
            time.report(&format!("replay {}", run.rater.id()));
        }
    }

    /// Stops the replay: the checkpoint to resume from next time, and every system's report
    /// with its final ratings (the headline's in `roster` order).
    pub fn finish(self, roster: &Roster) -> (Evaluation, ReplayCheckpoint<'static>) {
        let Evaluator {
            book,
            mut runs,
            share,
        } = self;
        let followers = runs.split_off(LEADERS.min(runs.len()));
        let (answer, boundary) = (answer_key(&book), boundary(&book));
        let (mut evaluation, checkpoint, fits) = finish_leaders(book, runs, share, roster, true);
        let mut checkpoint = checkpoint.expect("the leaders saved their states");
        let comparison = finish_followers(followers, &answer, boundary, fits.as_ref(), true);
        comparison.complete(&mut evaluation, &mut checkpoint);
        (evaluation, checkpoint)
    }
}

/// How many runs lead the replay: the headline and the team model, which every page reads (the
/// others only feed the comparison of systems, see [`ahead`]).
const LEADERS: usize = 2;

/// The first frag of the held-out future, once `book` holds every frag.
fn boundary(book: &Book) -> u64 {
    crate::rating::evaluation::held_out_from(book.frags as usize) as u64
}

/// The bots' skills, for the systems' rank correlations (bots with enough frags).
fn answer_key(book: &Book) -> SkillKey {
    SkillKey {
        bots: book
            .skill
            .iter()
            .filter(|(id, _)| book.incidents[**id as usize] >= MIN_INCIDENTS_FOR_SKILL)
            .map(|(id, s)| (*id, *s))
            .collect(),
    }
}

/// What [`finish_runs`] gives per run: its saved state (None unless asked for), report and
/// final ratings (empty for a follower when the answer key ranks none, [`SkillKey::ranks_ratings`]).
type Finished = (Option<Vec<u8>>, SystemReport, Vec<f64>);

/// Each run's state saved for the next build when `saves` (before the final ratings, which may
/// refit: the next build's replay must not start from a refit), report and final ratings; the
/// first run is the headline when `headline_first`. A run that is one fit of the team model's
/// learnt alone takes its final state from `fits`, the team model's settled fits, when given
/// ([`FragRater::converge_from`]).
fn finish_runs(
    runs: &mut [Run],
    answer: &SkillKey,
    boundary: u64,
    headline_first: bool,
    fits: Option<&SettledFits>,
    saves: bool,
) -> Vec<Finished> {
    for run in runs.iter_mut() {
        run.scores.prune(boundary);
    }
    runs.par_iter_mut()
        .enumerate()
        .map(|(i, run)| {
            let saved = saves.then(|| run.rater.save());
            // A follower's final ratings only go into its correlation with the bots' skills:
            // without bots to rank, they are not computed (on a public server's crowd the
            // bradley-terry fit's own final solve was most of the followers' finish).
            if !headline_first && !answer.ranks_ratings() {
                return (saved, report(run, &[], answer, boundary, false), Vec::new());
            }
            if let Some(fits) = fits {
                run.rater.converge_from(fits);
            }
            let (report, ratings) = rate(run, answer, boundary, headline_first && i == 0);
            (saved, report, ratings)
        })
        .collect()
}

/// A run's final ratings and its report (see [`report`]).
fn rate(
    run: &mut Run,
    answer: &SkillKey,
    boundary: u64,
    headline: bool,
) -> (SystemReport, Vec<f64>) {
    let ratings = timed(&format!("final ratings {}", run.rater.id()), || {
        run.rater.ratings()
    });
    (report(run, &ratings, answer, boundary, headline), ratings)
}

/// [`finish_runs`] of the headline and the team model when the team model borrowed the
/// headline's fit through the replay: the headline saves the fit as it is before the final
/// refit (the team model saves the rest of its state, its own fit empty); the team model then
/// takes the refitted fit instead of refitting a copy of its own (the same steps to the bit),
/// which it finds settled. Neither saves its state unless `saves`.
fn finish_shared(
    headline: &mut Run,
    team: &mut Run,
    answer: &SkillKey,
    boundary: u64,
    saves: bool,
) -> Vec<Finished> {
    headline.scores.prune(boundary);
    team.scores.prune(boundary);
    // The team model saves its own fit, left empty while it borrowed the headline's: the fit
    // is saved once, with the headline. A resumed replay shares it again (whether the two are
    // one model is settled by the configuration, which a checkpoint is only resumed under);
    // saved twice, a public server's append decoded the second copy (tens of megabytes) only to
    // drop it.
    let (team_saved, headline_saved) = if saves {
        (Some(team.rater.save()), Some(headline.rater.save()))
    } else {
        (None, None)
    };
    team.rater.borrow_fit(false);
    let (headline_report, headline_ratings) = rate(headline, answer, boundary, true);
    swap_fits(headline, team);
    let (team_report, team_ratings) = rate(team, answer, boundary, false);
    vec![
        (headline_saved, headline_report, headline_ratings),
        (team_saved, team_report, team_ratings),
    ]
}

/// The systems that follow the leaders, finished: their reports and saved states (None when
/// not asked for).
pub struct Comparison {
    reports: Vec<SystemReport>,
    saved: Option<Vec<SavedRun<'static>>>,
}

/// Finishes the runs that follow the leaders (see [`finish_runs`]), those that are one fit of
/// the team model's taking their final state from its settled `fits` when given; their states
/// are saved when `saves`.
fn finish_followers(
    mut runs: Vec<Run>,
    answer: &SkillKey,
    boundary: u64,
    fits: Option<&SettledFits>,
    saves: bool,
) -> Comparison {
    let finished = finish_runs(&mut runs, answer, boundary, false, fits, saves);
    let mut reports = Vec::with_capacity(runs.len());
    let mut saved = Vec::with_capacity(runs.len());
    for (run, (rater, report, _)) in runs.into_iter().zip(finished) {
        reports.push(report);
        if let Some(rater) = rater {
            saved.push(SavedRun {
                id: run.rater.id().to_string(),
                rater: Cow::Owned(rater),
                scores: run.scores,
            });
        }
    }
    Comparison {
        reports,
        saved: saves.then_some(saved),
    }
}

impl Comparison {
    /// Adds the followers' reports to the leaders' `evaluation` and their states to the
    /// leaders' `checkpoint`: what [`Evaluator::finish`] returns for all of them.
    pub fn complete(self, evaluation: &mut Evaluation, checkpoint: &mut ReplayCheckpoint<'static>) {
        evaluation.systems.extend(self.reports);
        in_system_order(&mut evaluation.systems);
        checkpoint.runs.extend(self.saved.expect(UNSAVED));
    }

    /// The comparison of every system: the leaders' `evaluation` with the followers' reports
    /// added, the per-match and per-player fields (which only the leaders fill) left empty.
    /// What `evaluation.html`, `data/evaluation.json` and the ranking page show.
    pub fn of_all(&self, evaluation: &Evaluation) -> Evaluation {
        let mut systems = evaluation.systems.clone();
        systems.extend(self.reports.iter().cloned());
        in_system_order(&mut systems);
        Evaluation {
            headline: evaluation.headline.clone(),
            held_out_share: evaluation.held_out_share,
            frags: evaluation.frags,
            held_out_frags: evaluation.held_out_frags,
            team_results: evaluation.team_results,
            systems,
            team_model: evaluation.team_model.clone(),
            headline_ratings: Vec::new(),
            headline_curves: Default::default(),
            predicted_red_win: Default::default(),
            fairest_red_win: Default::default(),
            expected_margin: Default::default(),
            team: TeamSnapshot::default(),
        }
    }

    /// Adds the followers' saved states to the leaders' `checkpoint` (the half of
    /// [`Comparison::complete`] the build needs once the pages have the [`Comparison::of_all`]).
    pub fn complete_checkpoint(self, checkpoint: &mut ReplayCheckpoint<'static>) {
        checkpoint.runs.extend(self.saved.expect(UNSAVED));
    }
}

/// A checkpoint is completed only with followers that saved their states: the callers that keep
/// one ask the followers to save, as they asked the leaders (see [`Followers::finish`]).
const UNSAVED: &str = "the followers saved their states";

/// Sorts reports in the order of [`system::SYSTEM_IDS`] (stable: the order the runs had
/// otherwise).
fn in_system_order(reports: &mut [SystemReport]) {
    reports.sort_by_key(|r| system::SYSTEM_IDS.iter().position(|id| *id == r.id));
}

/// Per player of `roster`, the value `per_book` holds at the player's number in the `book`,
/// or `missing` for a player the replay never numbered.
fn in_roster_order<T: Clone>(roster: &Roster, book: &Book, per_book: &[T], missing: T) -> Vec<T> {
    in_roster_order_by(roster, book, per_book, |held| {
        held.cloned().unwrap_or_else(|| missing.clone())
    })
}

/// Per player of `roster`, `make` of what `per_book` holds at the player's number in the
/// `book` (None for a player the replay never numbered).
fn in_roster_order_by<T, U>(
    roster: &Roster,
    book: &Book,
    per_book: &[T],
    make: impl Fn(Option<&T>) -> U,
) -> Vec<U> {
    (roster.players.iter())
        .map(|p| {
            make(
                book.index
                    .get(&p.key)
                    .and_then(|&n| per_book.get(n as usize)),
            )
        })
        .collect()
}

/// Finishes the leading runs (the headline, then the team model): the evaluation with their
/// reports, the headline's final ratings and curves and the team model's predictions and
/// skills (in `roster` order), the checkpoint with the `book` and their states (when `saves`),
/// and, when the team model shares the headline's fit, that fit's settled final state (which
/// the followers that are one of its fits take, [`finish_followers`]).
fn finish_leaders(
    book: Book,
    mut runs: Vec<Run>,
    share: bool,
    roster: &Roster,
    saves: bool,
) -> (
    Evaluation,
    Option<ReplayCheckpoint<'static>>,
    Option<SettledFits>,
) {
    let boundary = boundary(&book);
    let answer = answer_key(&book);
    let (finished, fits) = match &mut runs[..] {
        [headline, team] if share => {
            let finished = finish_shared(headline, team, &answer, boundary, saves);
            let fits = team.rater.whole_history().and_then(|fit| fit.settled());
            (finished, fits)
        }
        _ => (
            finish_runs(&mut runs, &answer, boundary, true, None, saves),
            None,
        ),
    };
    let mut team = TeamSnapshot::default();
    // Each run's values in run order, a later run's value for a match winning.
    let (mut predicted, mut fairest, mut margins) = (Vec::new(), Vec::new(), Vec::new());
    for run in &mut runs {
        if let Some((skills, params)) = run.rater.team_snapshot() {
            team.skills = in_roster_order(roster, &book, &skills, params.newcomer);
            team.params = Some(params);
            predicted.extend_from_slice(&run.scores.predictions);
            fairest.extend_from_slice(&run.scores.fairest);
            margins.extend_from_slice(&run.scores.margins);
        }
    }
    let [predicted_red_win, fairest_red_win, expected_margin] =
        [predicted, fairest, margins].map(|known| PerMatch::from_known(known, book.matches));
    // Kept to the end of the build without the room each curve grew into, one copy shared by
    // the checkpoint (until it is encoded) and the evaluation.
    runs[0].scores.curves.shrink_to_fit();
    let headline_curves = runs[0]
        .scores
        .curves
        .reordered((roster.players.iter()).map(|p| book.index.get(&p.key).map(|&n| n as usize)));
    let mut reports = Vec::with_capacity(finished.len());
    let mut headline_ratings = Vec::new();
    let mut saved = Vec::with_capacity(finished.len());
    for (i, (rater, report, ratings)) in finished.into_iter().enumerate() {
        if i == 0 {
            headline_ratings = in_roster_order(roster, &book, &ratings, 0.0);
        }
        reports.push(report);
        saved.push(rater);
    }
    let headline = reports[0].id.clone();
    in_system_order(&mut reports);
    let held_out_frags = runs[0].scores.held_out(boundary).0.n;
    let evaluation = Evaluation {
        headline,
        held_out_share: HELD_OUT_SHARE,
        frags: book.frags as usize,
        held_out_frags,
        team_results: book.team_results as usize,
        systems: reports,
        team_model: TEAM_MODEL_ID.to_string(),
        headline_ratings,
        headline_curves,
        predicted_red_win,
        fairest_red_win,
        expected_margin,
        team,
    };
    // Every run saved its state, or none did (`saves`).
    let checkpoint = saved
        .into_iter()
        .collect::<Option<Vec<Vec<u8>>>>()
        .map(|saved| ReplayCheckpoint {
            runs: runs
                .into_iter()
                .zip(saved)
                .map(|(run, rater)| SavedRun {
                    id: run.rater.id().to_string(),
                    rater: Cow::Owned(rater),
                    scores: run.scores,
                })
                .collect(),
            book,
        });
    (evaluation, checkpoint, fits)
}

/// The report of one system from its scores and final state.
fn report(
    run: &Run,
    ratings: &[f64],
    answer: &SkillKey,
    boundary: u64,
    headline: bool,
) -> SystemReport {
    let scores = &run.scores;
    let (spearman_bot_skill, bots) = answer.spearman(ratings);
    let (held_out, paired_held_out) = scores.held_out(boundary);
    SystemReport {
        id: run.rater.id().to_string(),
        system: run.rater.name().to_string(),
        all: scores.all.score(),
        held_out: held_out.score(),
        by_gametype: scores
            .by_type
            .iter()
            .map(|(k, v)| (k.clone(), v.score()))
            .collect(),
        team_results: scores.teams.score(),
        team_reliability: scores.calibration.reliability(),
        team_margin: run.rater.margin_score(),
        spearman_bot_skill,
        bots,
        vs_headline: (!headline).then(|| scores.paired.paired()),
        vs_headline_held_out: (!headline).then(|| paired_held_out.paired()),
    }
}

/// How many batches a history is replayed in, at least (see [`Evaluator::replay`]): the
/// headline's replay of the first batch and the others' of the last run beside nothing else of
/// the evaluation.
const PIPELINE_PARTS: usize = 16;

/// Packed outcomes a batch holds at most: 43,000 frags between players numbered under 128 (0.5
/// MB once decoded, and their losses 0.17 MB), 18,000 in a crowd of 60,000. Batches of a long
/// history are more than [`PIPELINE_PARTS`]; each system's replay holds one or two of them,
/// whatever the history's length, beside the first pages. (Twice as large, the heap's peak at
/// 64,000 matches was 1.2 MB higher, 30.8 MB; eight times as large, with the followers'
/// backlog held up to 8 MB, 8-9 MB higher; neither built faster: `benches/RESULTS.md`.)
const PART_BYTES: usize = 1 << 17;

impl Batch {
    /// The batch's outcomes, decoded.
    fn decoded(&self) -> Vec<Outcome> {
        (self.outcomes.iter(0..self.outcomes.end()))
            .map(|(_, o)| o)
            .collect()
    }
}

/// Replays `batch` through every run but the headline, in parallel, against the headline's
/// `reference` losses on its frags; `times` gathers each run's time.
fn replay_others(runs: &mut [Run], times: &mut [PieceTimes], batch: &Batch, reference: &[f32]) {
    // Decoded once for every run: while each decoded them, the crowd's other systems
    // (benches/build_speed.sh) took 2.2 s to replay, 1.7 s before the outcomes were packed.
    let outcomes = batch.decoded();
    runs.par_iter_mut()
        .zip(times.par_iter_mut())
        .for_each(|(run, time)| {
            time.time(|| replay(run, batch, &outcomes, Some(reference)));
        });
}

/// Replays `batch` through one system, scoring every frag and team-result prediction before it
/// is learnt and comparing it frag by frag with `headline_losses` (the headline's on the
/// batch's frags) when given. Returns the system's log-loss on every frag of the batch when no
/// reference is given (the headline's).
fn replay(
    run: &mut Run,
    batch: &Batch,
    outcomes: &[Outcome],
    headline_losses: Option<&[f32]>,
) -> Vec<f32> {
    let mode = match headline_losses {
        Some(reference) => Against::Losses(reference),
        None => Against::Own,
    };
    let mut cursor = Cursor::new(run, batch, mode);
    for &o in outcomes {
        match o {
            Outcome::StartMatch { index } => cursor.start_match(run, batch, index),
            Outcome::RoundEnd { index, round } => cursor.round_end(run, batch, index, round),
            Outcome::Frag { killer, victim } => {
                let p = run.rater.predict(killer, victim);
                cursor.score_frag(run, p);
                run.rater.frag(killer, victim);
            }
            Outcome::Penalty { player } => run.rater.penalty(player),
            Outcome::EndMatch { index } => {
                cursor.team_results(run, batch, index);
                cursor.end_match(run, batch, index);
            }
        }
    }
    run.scores.prune(batch.boundary);
    cursor.losses
}

/// Replays `batch` through the headline whole-history fit and the team model together,
/// outcome by outcome, the team model learning nothing into its own copy of the fit
/// ([`FragRater::borrow_fit`]) but reading the headline's wherever it reads its own: before each
/// frag (its prediction is the headline's, the same function of the same state), at a match's
/// start and rounds, and at its end before and after the headline's refit, exactly where its own
/// copy would stand then. Returns the headline's losses, as [`replay`] does.
fn replay_sharing(headline: &mut Run, team: &mut Run, batch: &Batch) -> Vec<f32> {
    // The team model reads the headline's fit lent to it for a moment (swapped in and out).
    fn lent(headline: &mut Run, team: &mut Run, read: impl FnOnce(&mut Run)) {
        swap_fits(headline, team);
        read(team);
        swap_fits(headline, team);
    }
    let mut lead = Cursor::new(headline, batch, Against::Own);
    let mut follow = Cursor::new(team, batch, Against::Same);
    for (_, o) in batch.outcomes.iter(0..batch.outcomes.end()) {
        match o {
            Outcome::StartMatch { index } => {
                lead.start_match(headline, batch, index);
                lent(headline, team, |team| {
                    follow.start_match(team, batch, index)
                });
            }
            Outcome::RoundEnd { index, round } => {
                lead.round_end(headline, batch, index, round);
                lent(headline, team, |team| {
                    follow.round_end(team, batch, index, round)
                });
            }
            Outcome::Frag { killer, victim } => {
                let p = headline.rater.predict(killer, victim);
                follow.score_frag(team, p);
                lead.score_frag(headline, p);
                headline.rater.frag(killer, victim);
                team.rater.frag(killer, victim);
            }
            Outcome::Penalty { player } => {
                headline.rater.penalty(player);
                team.rater.penalty(player);
            }
            Outcome::EndMatch { index } => {
                // The team model's results are scored before the headline refits at its end.
                lent(headline, team, |team| {
                    follow.team_results(team, batch, index)
                });
                lead.team_results(headline, batch, index);
                lead.end_match(headline, batch, index);
                lent(headline, team, |team| follow.end_match(team, batch, index));
            }
        }
    }
    headline.scores.prune(batch.boundary);
    team.scores.prune(batch.boundary);
    lead.losses
}

/// Swaps the whole-history fits of the headline and the team model.
fn swap_fits(headline: &mut Run, team: &mut Run) {
    let own = headline
        .rater
        .whole_history()
        .expect("the headline is a whole-history fit");
    let copy = team
        .rater
        .whole_history()
        .expect("the team model has a fit");
    std::mem::swap(own, copy);
}

/// What a system's frag predictions are compared with.
#[derive(Clone, Copy)]
enum Against<'a> {
    /// Nothing: it is the headline (its losses are kept for the others, its curves drawn).
    Own,
    /// The headline's losses on the batch's frags.
    Losses(&'a [f32]),
    /// The headline's, which are its own (the team model sharing the headline's fit).
    Same,
}

/// Where one system's replay of a batch stands.
struct Cursor<'a> {
    against: Against<'a>,
    /// The team model: its predictions, margins and fairest splits are recorded.
    records: bool,
    losses: Vec<f32>,
    /// Frags of the batch before the next one.
    frag: usize,
    current: MatchScore,
    /// The match's team results: the next one to score and its prediction, made at its start.
    next_game: usize,
    team_prediction: Option<f64>,
}

impl<'a> Cursor<'a> {
    fn new(run: &Run, batch: &Batch, against: Against<'a>) -> Cursor<'a> {
        Cursor {
            against,
            records: run.rater.id() == TEAM_MODEL_ID,
            losses: Vec::with_capacity(match against {
                Against::Own => batch.frags,
                _ => 0,
            }),
            frag: 0,
            current: MatchScore::default(),
            next_game: 0,
            team_prediction: None,
        }
    }

    fn start_match(&mut self, run: &mut Run, batch: &Batch, index: u32) {
        let Run { rater, scores, .. } = run;
        rater.grow(batch.players[index as usize]);
        rater.start_match(batch.starts[index as usize]);
        let i = index as usize;
        let games = &batch.team_games[i];
        self.next_game = 0;
        self.team_prediction = games.first().map(|g| rater.predict_team(g));
        if let Some(g) = games.first() {
            rater.team_start(g);
        }
        if self.records {
            let lineup = games.first().or(batch.lineups[i].as_ref());
            let p = self
                .team_prediction
                .or_else(|| lineup.map(|g| rater.predict_team(g)));
            let number = batch.first + u64::from(index);
            if let Some(p) = p {
                scores.predictions.push((number, p));
            }
            if let Some(margin) = lineup.and_then(|g| rater.expected_margin(g)) {
                scores.margins.push((number, margin));
            }
            if let Some(f) = lineup.and_then(|g| rater.fairest_team(g)) {
                scores.fairest.push((number, f));
            }
        }
        self.current = MatchScore {
            first_frag: batch.frags_before + self.frag as u64,
            ..MatchScore::default()
        };
    }

    fn round_end(&mut self, run: &mut Run, batch: &Batch, index: u32, round: u32) {
        score_team_results(
            run.rater.as_mut(),
            &mut run.scores,
            &batch.team_games[index as usize],
            round as usize + 1,
            (&mut self.next_game, &mut self.team_prediction),
        );
    }

    /// Scores the system's prediction `p` of the next frag (before it is learnt).
    fn score_frag(&mut self, run: &mut Run, p: f64) {
        let scores = &mut run.scores;
        let scored = Scored::of(p);
        scores.all.add_scored(&scored);
        self.current.sums.add_scored(&scored);
        let reference = match self.against {
            Against::Own => {
                self.losses.push(scored.loss as f32);
                None
            }
            Against::Losses(reference) => Some(f64::from(reference[self.frag])),
            Against::Same => Some(f64::from(scored.loss as f32)),
        };
        if let Some(reference) = reference {
            let d = scored.loss - reference;
            scores.paired.add(d);
            self.current.paired.add(d);
        }
        self.frag += 1;
    }

    /// The match's game type scores, and its team results not yet scored.
    fn team_results(&mut self, run: &mut Run, batch: &Batch, index: u32) {
        let Run { rater, scores, .. } = run;
        let code = &batch.gametypes[index as usize];
        match scores.by_type.get_mut(code.as_str()) {
            Some(sums) => sums.merge(&self.current.sums),
            None => {
                scores
                    .by_type
                    .insert(code.to_string(), self.current.sums.clone());
            }
        }
        let games = &batch.team_games[index as usize];
        score_team_results(
            rater.as_mut(),
            scores,
            games,
            games.len(),
            (&mut self.next_game, &mut self.team_prediction),
        );
    }

    /// The match ends: the system learns it, its scores are kept and (the headline) its players'
    /// curves drawn.
    fn end_match(&mut self, run: &mut Run, batch: &Batch, index: u32) {
        let Run {
            rater,
            scores,
            curves,
        } = run;
        rater.end_match();
        scores.recent.push(std::mem::take(&mut self.current));
        if matches!(self.against, Against::Own) && *curves {
            let number = (batch.first + u64::from(index)) as u32;
            for &p in &batch.members[index as usize] {
                if let Some(r) = rater.online(p) {
                    let p = p as usize;
                    scores.curves.grow_to(p + 1);
                    scores.curves.push(p, CurvePoint::new(number, r));
                }
            }
        }
    }
}

/// Scores the team results of a match from `*next` up to (not including) `until`, each against
/// its prediction; `cursor` is the next result to score and its prediction, made at its start.
fn score_team_results(
    rater: &mut dyn FragRater,
    scores: &mut Scores,
    games: &[TeamGame],
    until: usize,
    cursor: (&mut usize, &mut Option<f64>),
) {
    let (next, prediction) = cursor;
    while *next < until {
        score_team_result(rater, scores, games, next, prediction);
    }
}

/// Scores team result `*next` of a match against its prediction, learns it, and predicts the
/// next one (at its start: after everything before it, the earlier rounds included).
fn score_team_result(
    rater: &mut dyn FragRater,
    scores: &mut Scores,
    games: &[TeamGame],
    next: &mut usize,
    prediction: &mut Option<f64>,
) {
    let Some(game) = games.get(*next) else {
        *next += 1;
        return;
    };
    let p_red = prediction
        .take()
        .unwrap_or_else(|| rater.predict_team(game));
    scores
        .teams
        .add(if game.red_won { p_red } else { 1.0 - p_red });
    scores.calibration.add(p_red, game.red_won);
    rater.team_result(game);
    *next += 1;
    if let Some(following) = games.get(*next) {
        *prediction = Some(rater.predict_team(following));
        rater.team_start(following);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::Listed;
    use crate::testdata::history;

    /// A saved run's rater bytes, written as one byte string, have the postcard encoding of
    /// the sequence of bytes they used to be written as (checkpoints keep their bytes), and
    /// read back the same, borrowed from the bytes read.
    #[test]
    fn saved_rater_bytes_keep_their_encoding() {
        #[derive(Serialize)]
        struct AsSequence {
            id: String,
            rater: Vec<u8>,
            scores: Scores,
        }
        let rater: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
        let run = SavedRun {
            id: "whole-history".into(),
            rater: Cow::Owned(rater.clone()),
            scores: Scores::default(),
        };
        let bytes = postcard::to_allocvec(&run).unwrap();
        let sequence = AsSequence {
            id: run.id.clone(),
            rater,
            scores: Scores::default(),
        };
        assert_eq!(bytes, postcard::to_allocvec(&sequence).unwrap());
        let back: SavedRun = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back.rater, run.rater);
        assert!(
            matches!(back.rater, Cow::Borrowed(_)),
            "read from memory, the bytes are borrowed, not copied"
        );
        assert_eq!(postcard::to_allocvec(&back).unwrap(), bytes);
    }

    /// Stopping the replay after any match, saving the checkpoint to bytes and resuming it
    /// gives the same evaluation and ratings, to the bit, as one replay of everything.
    #[test]
    fn resumed_replay_equals_one_replay() {
        let (matches, roster) = history("openarena");
        let cfg = RatingConfig::default();
        let whole = |e: &Evaluation| {
            (
                serde_json::to_string(e).unwrap(),
                e.headline_ratings.clone(),
                e.predicted_red_win.clone(),
                e.fairest_red_win.clone(),
                format!("{:?}", e.team),
            )
        };
        let mut one = Evaluator::new(&cfg, true);
        one.advance(crate::model::MatchList::from(&matches), &roster, 0);
        let expected = whole(&one.finish(&roster).0);
        for cut in [1, matches.len() / 3, matches.len() - 1] {
            let mut first = Evaluator::new(&cfg, true);
            first.advance(matches.slice(..cut), &roster, 0);
            let (_, checkpoint) = first.finish(&roster);
            let bytes = postcard::to_allocvec(&checkpoint).unwrap();
            let checkpoint: ReplayCheckpoint = postcard::from_bytes(&bytes).unwrap();
            let (mut rest, from) = Evaluator::resume(checkpoint, &cfg, true).unwrap();
            assert_eq!(from, cut);
            rest.advance(crate::model::MatchList::from(&matches), &roster, from);
            assert!(
                whole(&rest.finish(&roster).0) == expected,
                "cut after {cut}"
            );
        }
    }

    /// The history replayed in one batch or pipelined in many gives the same evaluation, to
    /// the bit; the batches are whole matches and cover the history.
    #[test]
    fn pipelined_replay_equals_one_part() {
        let (matches, roster) = history("openarena");
        let cfg = RatingConfig::default();
        let run = |parts: usize| {
            let mut e = Evaluator::new(&cfg, true);
            let all = matches.list().iter().zip(roster.match_players.iter());
            e.replay(all, &roster, parts);
            serde_json::to_string(&e.finish(&roster).0).unwrap()
        };
        let one = run(1);
        for parts in [2, 7, PIPELINE_PARTS, matches.len() * 3] {
            assert!(run(parts) == one, "{parts} parts");
        }
        let mut book = Book::default();
        let mut all = matches.list().iter().zip(roster.match_players.iter());
        let per_part = part_matches(matches.len(), PIPELINE_PARTS);
        let (mut batches, mut frags) = (0, 0);
        while let Some(batch) = next_batch(&mut book, &mut all, &roster, per_part) {
            assert_eq!(
                (batch.first, batch.frags_before),
                (book.matches - batch.starts.len() as u64, frags)
            );
            assert!(batch.starts.len() <= per_part);
            assert!(matches!(
                batch.outcomes.at(0),
                Outcome::StartMatch { index: 0 }
            ));
            frags += batch.frags as u64;
            batches += 1;
        }
        assert!(batches > 1 && batches <= PIPELINE_PARTS + 1);
        assert_eq!((book.matches, book.frags), (matches.len() as u64, frags));
    }

    /// The team model reading the headline's fit gives exactly the numbers of its own copy:
    /// the same evaluation (every score, prediction, curve and final skill) and the same
    /// checkpoint (every system's learnt state), on logs with team matches, rounds (Counter-
    /// Strike, TF2) and newcomers, with and without the other systems, and resumed mid-history.
    #[test]
    fn team_model_on_the_headline_fit_equals_its_own_copy() {
        let cfg = RatingConfig::default();
        for set in ["openarena", "public/hl-cs16", "public/hl-tf2"] {
            let Some((matches, roster)) = crate::testdata::history_of(set) else {
                continue;
            };
            let cut = matches.len() / 2;
            for all in [true, false] {
                let run = |mut e: Evaluator| {
                    e.advance(matches.slice(..cut), &roster, 0);
                    let (_, checkpoint) = e.finish(&roster);
                    let halfway = postcard::to_allocvec(&checkpoint).unwrap();
                    let (mut e, from) = Evaluator::resume(checkpoint, &cfg, all).unwrap();
                    assert!(e.share, "{set}: a resumed replay shares the fit");
                    e.advance(crate::model::MatchList::from(&matches), &roster, from);
                    let (evaluation, checkpoint) = e.finish(&roster);
                    let end = postcard::to_allocvec(&checkpoint).unwrap();
                    (halfway, format!("{evaluation:?}"), end)
                };
                let shared = Evaluator::new(&cfg, all);
                assert!(shared.share);
                let own = Evaluator::unshared(&cfg, all);
                assert!(!own.share);
                let (a, b) = (run(shared), run(own));
                // Halfway, the team model's own copy of the fit is saved only by the replay
                // that learnt one; resumed, both share the headline's and save the same.
                assert!(
                    a.0.len() < b.0.len(),
                    "{set}, all systems {all}: a shared fit is saved once"
                );
                assert!(a.1 == b.1, "{set}, all systems {all}: evaluation");
                assert!(a.2 == b.2, "{set}, all systems {all}: final checkpoint");
            }
        }
        // Another headline: the team model learns its own fit.
        let mut other = cfg.clone();
        other.headline.system = serde_json::from_value("glicko2".into()).unwrap();
        assert!(!Evaluator::new(&other, true).share);
    }

    /// The fixed-prior fit saves no pair records beside the averaged fit, which saves the
    /// same: halfway the checkpoint is smaller than one where both save them, and resumed, the
    /// replay ends with the same evaluation (the fixed-prior fit's scores and ratings read its
    /// records), with the averaged fit as the headline and as a follower.
    #[test]
    fn the_fixed_prior_fit_saves_no_pair_records_and_resumes_the_same() {
        let both_save = |e: &mut Evaluator| {
            for run in &mut e.runs {
                if let Some(fit) = run.rater.any_fit() {
                    fit.save_pairs_elsewhere(false);
                }
            }
        };
        for headline in ["whole-history", "glicko2", "bradley-terry"] {
            let mut cfg = RatingConfig::default();
            cfg.headline.system = serde_json::from_value(headline.into()).unwrap();
            for set in ["openarena", "public/hl-cs16"] {
                let Some((matches, roster)) = crate::testdata::history_of(set) else {
                    continue;
                };
                let cut = matches.len() / 2;
                let run = |once: bool| {
                    let mut e = Evaluator::new(&cfg, true);
                    if !once {
                        both_save(&mut e);
                    }
                    e.advance(matches.slice(..cut), &roster, 0);
                    let (_, checkpoint) = e.finish(&roster);
                    let halfway = postcard::to_allocvec(&checkpoint).unwrap().len();
                    let (mut e, from) = Evaluator::resume(checkpoint, &cfg, true).unwrap();
                    if !once {
                        both_save(&mut e);
                    }
                    e.advance(crate::model::MatchList::from(&matches), &roster, from);
                    let (evaluation, _) = e.finish(&roster);
                    (halfway, format!("{evaluation:?}"))
                };
                let (once, both) = (run(true), run(false));
                assert!(
                    once.0 < both.0,
                    "{headline}, {set}: {} of {}",
                    once.0,
                    both.0
                );
                assert!(once.1 == both.1, "{headline}, {set}: evaluation");
            }
        }
        // Without the averaged fit (no other systems), the fixed-prior headline saves its own.
        let mut cfg = RatingConfig::default();
        cfg.headline.system = serde_json::from_value("bradley-terry".into()).unwrap();
        assert_eq!(
            share_pairs(&mut Evaluator::new(&cfg, false).runs, false),
            Ok(false)
        );
        assert_eq!(
            share_pairs(&mut Evaluator::new(&cfg, true).runs, false),
            Ok(true)
        );
    }

    /// The followers' final ratings are made only when the answer key ranks bots with them:
    /// with it, bradley-terry's final solve moves its fit (and no other follower's state
    /// moves); without it, no follower's state moves, and each report is the one the computed
    /// ratings give.
    #[test]
    fn followers_rate_only_for_an_answer_key() {
        let (matches, roster) = history("openarena");
        let cfg = RatingConfig::default();
        // The followers replayed, and the book's answer key and boundary.
        let replayed = || {
            let mut e = Evaluator::new(&cfg, true);
            e.advance(crate::model::MatchList::from(&matches), &roster, 0);
            let followers = e.runs.split_off(LEADERS);
            (followers, answer_key(&e.book), boundary(&e.book))
        };
        let finish = |key: Option<&SkillKey>| {
            let (mut runs, own_key, boundary) = replayed();
            let finished = finish_runs(
                &mut runs,
                key.unwrap_or(&own_key),
                boundary,
                false,
                None,
                true,
            );
            // The followers whose state the final ratings moved (the saves are from before).
            let solved = (runs.iter().zip(&finished))
                .filter(|(r, f)| f.0.as_ref() != Some(&r.rater.save()))
                .map(|(r, _)| r.rater.id())
                .collect::<Vec<_>>();
            (finished, solved, runs, boundary)
        };
        let (rated, solved, runs, boundary) = finish(None);
        assert!(
            replayed().1.ranks_ratings(),
            "the bot logs have an answer key"
        );
        let bradley_terry = rated.iter().find(|f| f.1.id == "bradley-terry").unwrap();
        assert!(!bradley_terry.2.is_empty());
        assert_eq!(solved, ["bradley-terry"], "bradley-terry solves its fit");
        let none = SkillKey { bots: Vec::new() };
        let (unrated, unsolved, _, _) = finish(Some(&none));
        assert!(unrated.iter().all(|f| f.2.is_empty()));
        assert!(unsolved.is_empty(), "{unsolved:?}: no follower moves");
        for ((run, (_, _, ratings)), (_, without, _)) in runs.iter().zip(&rated).zip(&unrated) {
            let expected = report(run, ratings, &none, boundary, false);
            assert_eq!(format!("{without:?}"), format!("{expected:?}"));
        }
    }

    /// A checkpoint is refused when it holds other systems than the evaluation runs.
    #[test]
    fn checkpoint_refused_for_other_systems() {
        let (matches, roster) = history("openarena/tdm");
        let cfg = RatingConfig::default();
        let mut e = Evaluator::new(&cfg, false);
        e.advance(matches.slice(..2), &roster, 0);
        let (_, checkpoint) = e.finish(&roster);
        let why = Evaluator::resume(checkpoint.clone(), &cfg, true).err();
        assert!(why.unwrap().contains("systems"));
        assert!(Evaluator::resume(checkpoint, &cfg, false).is_ok());
    }

    #[test]
    fn running_median_is_the_upper_median() {
        let mut m = RunningMedian::default();
        assert_eq!(m.median(), None);
        let mut seen = Vec::new();
        for x in [5u32, 1, 9, 9, 3, 7, 2, 2, 8, 6, 1] {
            m.push(x);
            seen.push(x);
            let mut sorted = seen.clone();
            sorted.sort_unstable();
            assert_eq!(m.median(), Some(sorted[sorted.len() / 2]), "{seen:?}");
        }
    }
}
