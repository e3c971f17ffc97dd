//! [`MatchIds`]: each match's players' identity numbers, every match's in one list. Not how
//! identities are resolved (see [`super::identity`]).

use std::fmt;
use std::ops::{Deref, Range};

/// For each match of a history (in its order), the identity number of each of its players:
/// the numbers of all matches one after another, with where each match's end. A list per match
/// took a list's 24 bytes beside its numbers and an allocation each, kept for the whole build
/// (issue 41: 1.5 MB at 64,000 matches). Each number takes the fewest bytes that hold the
/// largest (one for a roster of up to 256 players: 2 MB at 64,000 matches as four). At most
/// `u32::MAX` numbers in all (a player of four billion matches' lines).
#[derive(Clone, Default)]
pub struct MatchIds {
    /// Every match's numbers, match after match.
    ids: Numbers,
    /// Where each match's numbers end in `ids` (they start where the match before ends).
    ends: Vec<u32>,
}

/// Numbers, each in as many bytes as the largest needs.
#[derive(Clone)]
enum Numbers {
    Narrow(Vec<u8>),
    Middle(Vec<u16>),
    Wide(Vec<u32>),
}

impl Default for Numbers {
    fn default() -> Numbers {
        Numbers::Narrow(Vec::new())
    }
}

impl Numbers {
    fn len(&self) -> usize {
        match self {
            Numbers::Narrow(v) => v.len(),
            Numbers::Middle(v) => v.len(),
            Numbers::Wide(v) => v.len(),
        }
    }

    /// Adds `id`, first widening every number held when it does not fit.
    fn push(&mut self, id: u32) {
        match self {
            Numbers::Narrow(v) => match u8::try_from(id) {
                Ok(id) => v.push(id),
                Err(_) => {
                    let wider = v.iter().map(|&n| u16::from(n)).collect();
                    *self = Numbers::Middle(wider);
                    self.push(id);
                }
            },
            Numbers::Middle(v) => match u16::try_from(id) {
                Ok(id) => v.push(id),
                Err(_) => {
                    let wider = v.iter().map(|&n| u32::from(n)).collect();
                    *self = Numbers::Wide(wider);
                    self.push(id);
                }
            },
            Numbers::Wide(v) => v.push(id),
        }
    }

    /// The numbers `range` (which lies inside them).
    fn slice(&self, range: Range<usize>) -> Ids<'_> {
        match self {
            Numbers::Narrow(v) => Ids::copied(v[range].iter().map(|&n| u32::from(n))),
            Numbers::Middle(v) => Ids::copied(v[range].iter().map(|&n| u32::from(n))),
            Numbers::Wide(v) => Ids(Held::Borrowed(&v[range])),
        }
    }

    fn shrink_to_fit(&mut self) {
        match self {
            Numbers::Narrow(v) => v.shrink_to_fit(),
            Numbers::Middle(v) => v.shrink_to_fit(),
            Numbers::Wide(v) => v.shrink_to_fit(),
        }
    }
}

/// Numbers a match's [`Ids`] holds in place, beyond which they are in a list of their own.
const INLINE: usize = 32;

/// One match's identity numbers, read as a slice of `u32`: borrowed where they are held so,
/// else widened into place (or, for more than [`INLINE`] players, into a list).
pub struct Ids<'a>(Held<'a>);

enum Held<'a> {
    Borrowed(&'a [u32]),
    Inline(u8, [u32; INLINE]),
    Owned(Vec<u32>),
}

impl Ids<'_> {
    /// The numbers `numbers`, copied.
    fn copied(numbers: impl ExactSizeIterator<Item = u32>) -> Ids<'static> {
        let len = numbers.len();
        if len > INLINE {
            return Ids(Held::Owned(numbers.collect()));
        }
        let mut held = [0; INLINE];
        for (slot, n) in held.iter_mut().zip(numbers) {
            *slot = n;
        }
        Ids(Held::Inline(len as u8, held))
    }
}

impl Default for Ids<'_> {
    /// No numbers.
    fn default() -> Self {
        Ids(Held::Borrowed(&[]))
    }
}

impl Deref for Ids<'_> {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        match &self.0 {
            Held::Borrowed(ids) => ids,
            Held::Inline(len, ids) => &ids[..usize::from(*len)],
            Held::Owned(ids) => ids,
        }
    }
}

impl fmt::Debug for Ids<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for Ids<'_> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<const N: usize> PartialEq<[u32; N]> for Ids<'_> {
    fn eq(&self, other: &[u32; N]) -> bool {
        **self == *other
    }
}

impl<'a> IntoIterator for &'a Ids<'_> {
    type Item = &'a u32;
    type IntoIter = std::slice::Iter<'a, u32>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
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
        for id in ids {
            self.ids.push(id);
        }
        let end = u32::try_from(self.ids.len()).expect("at most 4 billion match players");
        self.ends.push(end);
    }

    /// The numbers of match `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<Ids<'_>> {
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        (start <= end && end <= self.ids.len()).then(|| self.ids.slice(start..end))
    }

    /// The numbers of match `i`.
    ///
    /// # Panics
    /// When there is no match `i`.
    pub fn at(&self, i: usize) -> Ids<'_> {
        match self.get(i) {
            Some(ids) => ids,
            None => panic!("match {i} of {} has no numbers", self.len()),
        }
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

impl PartialEq for MatchIds {
    /// The same numbers for the same matches, however wide they are held.
    fn eq(&self, other: &MatchIds) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for MatchIds {}

impl fmt::Debug for MatchIds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a MatchIds {
    type Item = Ids<'a>;
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
    type Item = Ids<'a>;

    fn next(&mut self) -> Option<Ids<'a>> {
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

    fn nth(&mut self, n: usize) -> Option<Ids<'a>> {
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
            assert_eq!(&*ids.at(i), list.as_slice());
        }
        assert!(ids.get(5).is_none());
        let as_lists = |it: Iter<'_>| it.map(|m| m.to_vec()).collect::<Vec<_>>();
        assert_eq!(as_lists(ids.iter()), lists);
        let back: Vec<Vec<u32>> = ids.iter().rev().map(|m| m.to_vec()).collect();
        assert_eq!(back, lists.iter().rev().cloned().collect::<Vec<_>>());
        assert_eq!(
            as_lists(ids.iter_range(1..4)),
            [vec![], vec![7], vec![0, 2, 4]]
        );
        assert_eq!(ids.iter_range(3..99).len(), 2);
        assert_eq!(as_lists(ids.iter_from(3)), [vec![0, 2, 4], vec![]]);
        assert_eq!(ids.iter_range(9..20).count(), 0);
        assert_eq!(ids.iter().nth(3).unwrap(), [0, 2, 4]);
        assert_eq!(ids.iter().skip(4).len(), 1);
        assert_eq!(format!("{ids:?}"), format!("{lists:?}"));
        assert!(MatchIds::default().is_empty());
    }

    /// Numbers are held one byte each until one needs two, then two until one needs four;
    /// every match reads back the same whatever the width, also a match of more players
    /// than an [`Ids`] holds in place, and lists of equal numbers are equal however held.
    #[test]
    fn numbers_read_back_the_same_as_they_widen() {
        let lists: Vec<Vec<u32>> = vec![
            vec![0, 255, 3],
            (0..INLINE as u32 + 5).collect(),
            vec![256, 1],
            vec![],
            vec![65_535, 2],
            vec![65_536, u32::MAX, 9],
            vec![4],
        ];
        let mut ids = MatchIds::default();
        let mut widths = Vec::new();
        for (n, list) in lists.iter().enumerate() {
            ids.push(list.iter().copied());
            widths.push(match ids.ids {
                Numbers::Narrow(_) => 1,
                Numbers::Middle(_) => 2,
                Numbers::Wide(_) => 4,
            });
            for (i, earlier) in lists[..=n].iter().enumerate() {
                assert_eq!(&*ids.at(i), earlier.as_slice(), "match {i} after {n}");
            }
        }
        assert_eq!(widths, [1, 1, 2, 2, 2, 4, 4]);
        let mut narrow = MatchIds::default();
        narrow.push([1, 2]);
        let wide = MatchIds {
            ids: Numbers::Wide(vec![1, 2]),
            ends: vec![2],
        };
        assert_eq!(narrow, wide);
        let other = MatchIds {
            ids: Numbers::Wide(vec![1, 70_000]),
            ends: vec![2],
        };
        assert_ne!(narrow, other);
    }
}
