//! [`MatchIds`]: each match's players' identity numbers, every match's in one list. Not how
//! identities are resolved (see [`super::identity`]).

use std::fmt;
use std::ops::{Index, Range};

/// For each match of a history (in its order), the identity number of each of its players:
/// the numbers of all matches one after another, with where each match's end. A list per match
/// took a list's 24 bytes beside its numbers and an allocation each, kept for the whole build
/// (issue 41: 1.5 MB at 64,000 matches). At most `u32::MAX` numbers in all (a player of four
/// billion matches' lines).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct MatchIds {
    /// Every match's numbers, match after match.
    ids: Vec<u32>,
    /// Where each match's numbers end in `ids` (they start where the match before ends).
    ends: Vec<u32>,
}

impl MatchIds {
    /// How many matches there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// There is no match.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Adds the next match, whose players have the numbers `ids`.
    pub fn push(&mut self, ids: impl IntoIterator<Item = u32>) {
        self.ids.extend(ids);
        let end = u32::try_from(self.ids.len()).expect("at most 4 billion match players");
        self.ends.push(end);
    }

    /// The numbers of match `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<&[u32]> {
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        self.ids.get(start..end)
    }

    /// Every match's numbers, in order.
    pub fn iter(&self) -> Iter<'_> {
        self.iter_range(0..self.len())
    }

    /// The numbers of the matches from number `from` on, in order.
    pub fn iter_from(&self, from: usize) -> Iter<'_> {
        self.iter_range(from..self.len())
    }

    /// The numbers of the matches `range` (cut to the matches there are), in order.
    pub fn iter_range(&self, range: Range<usize>) -> Iter<'_> {
        let back = range.end.min(self.len());
        Iter {
            ids: self,
            front: range.start.min(back),
            back,
        }
    }

    /// Frees the room the lists grew into.
    pub fn shrink_to_fit(&mut self) {
        self.ids.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

impl Index<usize> for MatchIds {
    type Output = [u32];

    fn index(&self, i: usize) -> &[u32] {
        match self.get(i) {
            Some(ids) => ids,
            None => panic!("match {i} of {} has no numbers", self.len()),
        }
    }
}

impl fmt::Debug for MatchIds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a MatchIds {
    type Item = &'a [u32];
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// The numbers of a run of matches, match after match (see [`MatchIds::iter_range`]).
#[derive(Clone)]
pub struct Iter<'a> {
    ids: &'a MatchIds,
    front: usize,
    back: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a [u32];

    fn next(&mut self) -> Option<&'a [u32]> {
        if self.front >= self.back {
            return None;
        }
        self.front += 1;
        self.ids.get(self.front - 1)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.back - self.front;
        (left, Some(left))
    }

    fn nth(&mut self, n: usize) -> Option<&'a [u32]> {
        self.front = self.front.saturating_add(n).min(self.back);
        self.next()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        self.ids.get(self.back)
    }
}

impl ExactSizeIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_match_reads_back_its_numbers_whole_in_runs_and_backwards() {
        let lists: Vec<Vec<u32>> = vec![vec![3, 1], vec![], vec![7], vec![0, 2, 4], vec![]];
        let mut ids = MatchIds::default();
        for list in &lists {
            ids.push(list.iter().copied());
        }
        ids.shrink_to_fit();
        assert_eq!(ids.len(), lists.len());
        for (i, list) in lists.iter().enumerate() {
            assert_eq!(&ids[i], list.as_slice());
        }
        assert_eq!(ids.get(5), None);
        let all: Vec<&[u32]> = ids.iter().collect();
        assert_eq!(all, lists.iter().map(Vec::as_slice).collect::<Vec<_>>());
        let back: Vec<&[u32]> = ids.iter().rev().collect();
        assert_eq!(
            back,
            lists.iter().rev().map(Vec::as_slice).collect::<Vec<_>>()
        );
        let run: Vec<&[u32]> = ids.iter_range(1..4).collect();
        assert_eq!(run, [&[][..], &[7], &[0, 2, 4]]);
        assert_eq!(ids.iter_range(3..99).len(), 2);
        assert_eq!(ids.iter_from(3).collect::<Vec<_>>(), [&[0, 2, 4][..], &[]]);
        assert_eq!(ids.iter_range(9..20).count(), 0);
        assert_eq!(ids.iter().nth(3), Some(&[0, 2, 4][..]));
        assert_eq!(ids.iter().skip(4).len(), 1);
        assert_eq!(format!("{ids:?}"), format!("{lists:?}"));
        assert!(MatchIds::default().is_empty());
    }
}
