//! The scores of the matches that may yet be held out ([`MatchScore`]), one per match from the
//! first that can still end up held out: about the last 30% of the history, for every system.
//! Kept in blocks of a fixed number of matches, so the room reserved beyond them is at most a
//! block (a list that doubles kept up to as much again: about 9 MB of 23 at 64,000 matches),
//! and the matches that can no longer be held out go a block at a time. Saved and read back as
//! the list of scores, in the same bytes as a list. Not the scoring itself (see [`super`]).

use std::collections::VecDeque;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::MatchScore;

/// Matches per block: 64 KB of scores.
const BLOCK: usize = 1024;

/// The scores of the recent matches, in replay order.
#[derive(Debug, Clone, Default)]
pub(super) struct Recent {
    blocks: VecDeque<Vec<MatchScore>>,
}

impl Recent {
    /// Adds the next match's scores.
    pub(super) fn push(&mut self, score: MatchScore) {
        match self.blocks.back_mut() {
            Some(last) if last.len() < BLOCK => last.push(score),
            _ => {
                let mut block = Vec::with_capacity(BLOCK);
                block.push(score);
                self.blocks.push_back(block);
            }
        }
    }

    /// Keeps only the scores `keep` holds to, in order; blocks left empty go.
    pub(super) fn retain(&mut self, mut keep: impl FnMut(&MatchScore) -> bool) {
        for block in &mut self.blocks {
            block.retain(&mut keep);
        }
        self.blocks.retain(|b| !b.is_empty());
    }

    /// The scores in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &MatchScore> {
        self.blocks.iter().flatten()
    }

    /// How many there are.
    pub(super) fn len(&self) -> usize {
        self.blocks.iter().map(Vec::len).sum()
    }
}

impl Serialize for Recent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for score in self.iter() {
            seq.serialize_element(score)?;
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
        MatchScore {
            first_frag,
            ..Default::default()
        }
    }

    /// Scores come back in order across blocks, dropped ones go (whole blocks too), and saved
    /// they are the bytes of the list of scores.
    #[test]
    fn recent_scores_keep_their_order_and_save_as_a_list() {
        for n in [0, 1, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 5] {
            let mut recent = Recent::default();
            let list: Vec<MatchScore> = (0..n as u64).map(score).collect();
            list.iter().cloned().for_each(|s| recent.push(s));
            let firsts = |r: &Recent| r.iter().map(|s| s.first_frag).collect::<Vec<_>>();
            assert_eq!(firsts(&recent), (0..n as u64).collect::<Vec<_>>());
            assert_eq!(recent.len(), n);
            let saved = postcard::to_allocvec(&recent).unwrap();
            assert_eq!(saved, postcard::to_allocvec(&list).unwrap(), "{n} scores");
            let read: Recent = postcard::from_bytes(&saved).unwrap();
            assert_eq!(firsts(&read), firsts(&recent));
            let cut = (n as u64).saturating_sub(BLOCK as u64 + 2);
            recent.retain(|s| s.first_frag >= cut);
            assert_eq!(firsts(&recent), (cut..n as u64).collect::<Vec<_>>());
            assert!(recent.blocks.len() <= 3, "{} blocks", recent.blocks.len());
            recent.push(score(n as u64));
            assert_eq!(recent.iter().last().map(|s| s.first_frag), Some(n as u64));
        }
    }
}
