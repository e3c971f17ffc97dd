//! The scores of the matches that may yet be held out ([`MatchScore`]), one per match from the
//! first that can still end up held out: about the last 30% of the history, for every system.
//! Kept in blocks of a fixed number of matches; with a [`Shelf`] (a file without a name in the
//! state folder, shared by every system of a replay), each block is written there once full,
//! and only where it lies is kept (issue 41: 12 MB of a 157 MB peak at 64,000 matches), so
//! memory holds about a block per system. The matches that can no longer be held out go a block
//! at a time. Saved and read back as the list of scores, in the same bytes as a list. Not the
//! scoring itself (see [`super`]).

use std::borrow::Cow;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::MatchScore;
use crate::rating::evaluation::{PairedSums, Sums};
use crate::scratch::Scratch;

/// Matches per block: 64 KB of scores.
const BLOCK: usize = 1024;

/// Bytes of one score on a shelf: eight little-endian 64-bit words.
const SCORE_BYTES: usize = 64;

/// The scores of the recent matches, in replay order.
#[derive(Debug, Clone, Default)]
pub(super) struct Recent {
    blocks: VecDeque<Block>,
    /// Where full blocks go, when there is one.
    shelf: Option<Arc<Shelf>>,
}

/// Some consecutive scores: in memory, or on a shelf.
#[derive(Debug, Clone)]
enum Block {
    Held(Vec<MatchScore>),
    Shelved(Shelved),
}

/// A full block written to a shelf.
#[derive(Debug, Clone)]
struct Shelved {
    shelf: Arc<Shelf>,
    at: u64,
    count: u32,
    /// The least and the greatest [`reach`] of its scores.
    reach: (u64, u64),
}

/// A file that blocks of scores are written to, made in its folder when the first block is
/// (never, for a history of less than a block). Shared by the systems of a replay, each
/// writing its blocks at its own offsets.
#[derive(Debug)]
pub(super) struct Shelf(Scratch);

impl Shelf {
    /// A shelf whose file will be made in `dir` (the state folder).
    pub(super) fn new(dir: PathBuf) -> Shelf {
        Shelf(Scratch::new(dir))
    }

    /// Writes `scores`; returns where they lie, or `None` when they cannot be written (a folder
    /// that cannot be written, a full disk): they then stay in memory.
    fn put(self: &Arc<Shelf>, scores: &[MatchScore]) -> Option<Shelved> {
        let mut bytes = Vec::with_capacity(scores.len() * SCORE_BYTES);
        for s in scores {
            let words = [
                s.first_frag,
                s.sums.n,
                s.sums.log_loss.to_bits(),
                s.sums.brier.to_bits(),
                s.sums.correct.to_bits(),
                s.paired.n.to_bits(),
                s.paired.sum.to_bits(),
                s.paired.squares.to_bits(),
            ];
            bytes.extend(words.iter().flat_map(|w| w.to_le_bytes()));
        }
        let at = self.0.put(&bytes)?;
        let reaches = scores.iter().map(reach);
        Some(Shelved {
            shelf: Arc::clone(self),
            at,
            count: scores.len() as u32,
            reach: (reaches.clone().min()?, reaches.max()?),
        })
    }
}

impl Shelved {
    /// The scores as written.
    fn read(&self) -> std::io::Result<Vec<MatchScore>> {
        let mut bytes = vec![0; self.count as usize * SCORE_BYTES];
        self.shelf.0.read_exact_at(&mut bytes, self.at)?;
        Ok(bytes
            .chunks_exact(SCORE_BYTES)
            .map(|record| {
                let mut words = record
                    .chunks_exact(8)
                    .map(|w| u64::from_le_bytes(w.try_into().expect("eight bytes")));
                let mut next = || words.next().expect("eight words a score");
                MatchScore {
                    first_frag: next(),
                    sums: Sums {
                        n: next(),
                        log_loss: f64::from_bits(next()),
                        brier: f64::from_bits(next()),
                        correct: f64::from_bits(next()),
                    },
                    paired: PairedSums {
                        n: f64::from_bits(next()),
                        sum: f64::from_bits(next()),
                        squares: f64::from_bits(next()),
                    },
                }
            })
            .collect())
    }
}

/// One past the number of a match's last frag: the match reaches a boundary below this.
fn reach(score: &MatchScore) -> u64 {
    score.first_frag + score.sums.n
}

impl Block {
    fn len(&self) -> usize {
        match self {
            Block::Held(scores) => scores.len(),
            Block::Shelved(shelved) => shelved.count as usize,
        }
    }
}

impl Recent {
    /// Writes every full block to `shelf` from now on, those held now included.
    pub(super) fn shelve_to(&mut self, shelf: Arc<Shelf>) {
        self.shelf = Some(shelf);
        for i in 0..self.blocks.len() {
            self.shelve(i);
        }
    }

    /// Writes block `i` to the shelf when it is full and held (it stays held when it cannot be
    /// written).
    fn shelve(&mut self, i: usize) {
        let (Some(shelf), Some(Block::Held(scores))) = (&self.shelf, self.blocks.get(i)) else {
            return;
        };
        if scores.len() < BLOCK {
            return;
        }
        if let Some(shelved) = shelf.put(scores) {
            self.blocks[i] = Block::Shelved(shelved);
        }
    }

    /// Adds the next match's scores.
    pub(super) fn push(&mut self, score: MatchScore) {
        match self.blocks.back_mut() {
            Some(Block::Held(last)) if last.len() < BLOCK => last.push(score),
            _ => {
                let mut block = Vec::with_capacity(BLOCK);
                block.push(score);
                self.blocks.push_back(Block::Held(block));
            }
        }
        self.shelve(self.blocks.len() - 1);
    }

    /// Keeps only the scores of the matches that reach frag `boundary` (that have a frag
    /// numbered `boundary` or later), in order; blocks left empty go. A shelved block is read
    /// back only when some of its scores go and some stay.
    pub(super) fn prune(&mut self, boundary: u64) {
        for block in &mut self.blocks {
            match block {
                Block::Held(scores) => scores.retain(|s| s.reaches(boundary)),
                Block::Shelved(shelved) if shelved.reach.1 <= boundary => {
                    *block = Block::Held(Vec::new());
                }
                Block::Shelved(shelved) if shelved.reach.0 > boundary => {}
                Block::Shelved(shelved) => {
                    let mut scores = shelved.read().unwrap_or_else(|e| unreadable(e));
                    scores.retain(|s| s.reaches(boundary));
                    *block = Block::Held(scores);
                }
            }
        }
        self.blocks.retain(|b| b.len() > 0);
    }

    /// The scores in order, a block at a time (shelved ones read back).
    fn blocks(&self) -> impl Iterator<Item = std::io::Result<Cow<'_, [MatchScore]>>> {
        self.blocks.iter().map(|block| match block {
            Block::Held(scores) => Ok(Cow::Borrowed(&scores[..])),
            Block::Shelved(shelved) => shelved.read().map(Cow::Owned),
        })
    }

    /// Calls `each` on the scores in order.
    pub(super) fn for_each(&self, mut each: impl FnMut(&MatchScore)) {
        for block in self.blocks() {
            block
                .unwrap_or_else(|e| unreadable(e))
                .iter()
                .for_each(&mut each);
        }
    }

    /// How many there are.
    fn len(&self) -> usize {
        self.blocks.iter().map(Block::len).sum()
    }
}

/// A shelved block cannot be read back: the file is the build's own, written moments ago, so
/// this is the disk failing under the build, which stops it (the site and state are left as
/// they were).
fn unreadable(e: std::io::Error) -> ! {
    panic!(
        "cannot read back the rating replay's scores file in the state folder: {e} (build again)"
    )
}

impl Serialize for Recent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for block in self.blocks() {
            for score in block.map_err(S::Error::custom)?.iter() {
                seq.serialize_element(score)?;
            }
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Recent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Recent, D::Error> {
        let scores = Vec::<MatchScore>::deserialize(deserializer)?;
        let mut recent = Recent::default();
        for score in scores {
            recent.push(score);
        }
        Ok(recent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(first_frag: u64) -> MatchScore {
        let mut score = MatchScore {
            first_frag,
            ..Default::default()
        };
        // Every field its own value, so that any two mixed up on the shelf tell.
        let x = first_frag as f64;
        score.sums.n = 1;
        score.sums.log_loss = x / 7.0;
        score.sums.brier = x / 11.0;
        score.sums.correct = x / 13.0;
        score.paired.n = x / 17.0;
        score.paired.sum = -x / 19.0;
        score.paired.squares = -x.sqrt();
        score
    }

    fn scores(r: &Recent) -> Vec<(u64, u64, u64)> {
        let mut all = Vec::new();
        r.for_each(|s| {
            all.push((
                s.first_frag,
                s.sums.log_loss.to_bits(),
                s.paired.squares.to_bits(),
            ))
        });
        all
    }

    /// Scores come back in order across blocks, held or shelved, to the bit; pruned ones go
    /// (whole blocks too, a shelved block cut in two read back); saved they are the bytes of
    /// the list of scores; a shelved recent holds at most a block in memory.
    #[test]
    fn recent_scores_keep_their_order_and_save_as_a_list() {
        let dir = tempfile::tempdir().unwrap();
        for shelved in [false, true] {
            for n in [0, 1, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 5] {
                let mut recent = Recent::default();
                if shelved {
                    recent.shelve_to(Arc::new(Shelf::new(dir.path().to_path_buf())));
                }
                let list: Vec<MatchScore> = (0..n as u64).map(score).collect();
                list.iter().cloned().for_each(|s| recent.push(s));
                let expected = |from: u64, to: u64| {
                    let mut r = Recent::default();
                    (from..to).for_each(|i| r.push(score(i)));
                    scores(&r)
                };
                assert_eq!(scores(&recent), expected(0, n as u64));
                assert_eq!(recent.len(), n);
                let held = |r: &Recent| {
                    r.blocks
                        .iter()
                        .filter(|b| matches!(b, Block::Held(_)))
                        .count()
                };
                assert_eq!(
                    held(&recent),
                    if shelved {
                        usize::from(n % BLOCK != 0)
                    } else {
                        n.div_ceil(BLOCK)
                    }
                );
                let saved = postcard::to_allocvec(&recent).unwrap();
                assert_eq!(saved, postcard::to_allocvec(&list).unwrap(), "{n} scores");
                let read: Recent = postcard::from_bytes(&saved).unwrap();
                assert_eq!(scores(&read), scores(&recent));
                // Cut inside the second block from the end.
                let cut = (n as u64).saturating_sub(BLOCK as u64 + 2);
                recent.prune(cut);
                assert_eq!(
                    scores(&recent),
                    expected(cut, n as u64),
                    "{n} scores, cut {cut}"
                );
                assert!(recent.blocks.len() <= 3, "{} blocks", recent.blocks.len());
                recent.push(score(n as u64));
                assert_eq!(scores(&recent).last().map(|s| s.0), Some(n as u64));
                // A read-back recent given a shelf shelves its full blocks at once.
                let mut read = read;
                read.shelve_to(Arc::new(Shelf::new(dir.path().to_path_buf())));
                assert_eq!(held(&read), usize::from(n % BLOCK != 0));
                assert_eq!(scores(&read), expected(0, n as u64));
            }
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "no name");
    }

    /// A shelf whose file cannot be made keeps the blocks in memory, losing nothing.
    #[test]
    fn a_shelf_that_cannot_be_written_keeps_the_scores_held() {
        let mut recent = Recent::default();
        recent.shelve_to(Arc::new(Shelf::new(PathBuf::from(
            "/nonexistent/fragstats-shelf",
        ))));
        (0..3 * BLOCK as u64).for_each(|i| recent.push(score(i)));
        assert!(recent.blocks.iter().all(|b| matches!(b, Block::Held(_))));
        assert_eq!(scores(&recent).len(), 3 * BLOCK);
        recent.prune(BLOCK as u64 + 5);
        assert_eq!(scores(&recent).first().map(|s| s.0), Some(BLOCK as u64 + 5));
    }
}
