//! [`MatchList`]: the matches a step reads, in order, wherever they are: a slice of matches in
//! memory, a list of borrowed ones (a game type's or a season's, picked from the history), or
//! the history's packed descriptions ([`super::history::History`]), each decoded as it is
//! read. What counts, ladders, replays and pages take, so that none of them needs the history
//! whole in memory (issue 41). Not a store: it borrows what it lists.

use std::ops::{Bound, Deref, RangeBounds};
use std::sync::Arc;

use rayon::prelude::*;

use super::history::History;
use super::{Match, MatchHead, WhoRef};

/// The matches a step reads, in order: a cheap view (a few words), copied freely.
#[derive(Clone, Copy)]
pub struct MatchList<'a> {
    source: Source<'a>,
    /// Some of the source's matches, by their places in it (in order); None: all of them.
    picked: Option<&'a [u32]>,
    /// The range of the list (of `picked` when given) this view holds.
    start: usize,
    end: usize,
}

/// Where a [`MatchList`]'s matches are.
#[derive(Clone, Copy)]
enum Source<'a> {
    /// Matches in memory.
    Slice(&'a [Match]),
    /// Matches borrowed one by one.
    Refs(&'a [&'a Match]),
    /// The history's packed descriptions.
    History(&'a History),
}

/// One match of a [`MatchList`]: borrowed where the list holds it, decoded where it is packed.
pub enum MatchRef<'a> {
    /// Held by the list's owner.
    Borrowed(&'a Match),
    /// Decoded, and shared with the thread's next reads of the same match (a page reads its
    /// match several times).
    Decoded(Arc<Match>),
}

impl Deref for MatchRef<'_> {
    type Target = Match;

    fn deref(&self) -> &Match {
        match self {
            MatchRef::Borrowed(m) => m,
            MatchRef::Decoded(m) => m,
        }
    }
}

impl AsRef<Match> for MatchRef<'_> {
    fn as_ref(&self) -> &Match {
        self
    }
}

impl std::fmt::Debug for MatchRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl MatchRef<'_> {
    /// The match, owned (a copy where it is borrowed).
    pub fn into_owned(self) -> Match {
        match self {
            MatchRef::Borrowed(m) => m.clone(),
            MatchRef::Decoded(m) => Arc::unwrap_or_clone(m),
        }
    }
}

impl<'a> MatchList<'a> {
    fn whole(source: Source<'a>, len: usize) -> MatchList<'a> {
        MatchList {
            source,
            picked: None,
            start: 0,
            end: len,
        }
    }

    /// The history's matches, decoded as they are read.
    pub fn history(history: &'a History) -> MatchList<'a> {
        MatchList::whole(Source::History(history), history.len())
    }

    /// The matches of this whole list at the places `picked` (in order). Panics on a list
    /// that is itself a part or a pick of another.
    pub fn pick(&self, picked: &'a [u32]) -> MatchList<'a> {
        assert!(
            self.start == 0 && self.picked.is_none(),
            "matches picked from a part of a list"
        );
        MatchList {
            source: self.source,
            picked: Some(picked),
            start: 0,
            end: picked.len(),
        }
    }

    /// How many matches the list holds.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// True when the list holds no match.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// The place in the source of the list's `i`-th match. Panics when `i` is not below
    /// [`MatchList::len`].
    fn place(&self, i: usize) -> usize {
        assert!(i < self.len(), "match {i} of a list of {}", self.len());
        let i = self.start + i;
        self.picked.map_or(i, |p| p[i] as usize)
    }

    /// The `i`-th match of the list. Panics when `i` is not below [`MatchList::len`].
    pub fn at(&self, i: usize) -> MatchRef<'a> {
        let i = self.place(i);
        match self.source {
            Source::Slice(s) => MatchRef::Borrowed(&s[i]),
            Source::Refs(r) => MatchRef::Borrowed(r[i]),
            Source::History(h) => h.at(i),
        }
    }

    /// The `i`-th match's head: what lists and keys read of it, decoding nothing from a
    /// history. Panics when `i` is not below [`MatchList::len`].
    pub fn head(&self, i: usize) -> MatchHead<'a> {
        let i = self.place(i);
        match self.source {
            Source::Slice(s) => MatchHead::of(&s[i]),
            Source::Refs(r) => MatchHead::of(r[i]),
            Source::History(h) => h.head(i),
        }
    }

    /// Gives `each` the identity fields of each player of the `i`-th match, in order: what the
    /// roster reads of a match, decoding nothing else from a history and making no text.
    /// Panics when `i` is not below [`MatchList::len`].
    pub fn each_who(&self, i: usize, mut each: impl FnMut(WhoRef)) {
        let i = self.place(i);
        let players = match self.source {
            Source::Slice(s) => &s[i].players,
            Source::Refs(r) => &r[i].players,
            Source::History(h) => return h.each_who(i, &mut each),
        };
        for p in players {
            each(p.view());
        }
    }

    /// The matches' heads in order (see [`MatchList::head`]).
    pub fn heads(&self) -> impl DoubleEndedIterator<Item = MatchHead<'a>> + ExactSizeIterator + 'a {
        let list = *self;
        (0..list.len()).map(move |i| list.head(i))
    }

    /// The matches' heads, read on the thread pool.
    pub fn par_heads(&self) -> impl IndexedParallelIterator<Item = MatchHead<'a>> + 'a {
        let list = *self;
        (0..list.len()).into_par_iter().map(move |i| list.head(i))
    }

    /// The `i`-th match, if the list holds that many.
    pub fn get(&self, i: usize) -> Option<MatchRef<'a>> {
        (i < self.len()).then(|| self.at(i))
    }

    /// The first match, if any.
    pub fn first(&self) -> Option<MatchRef<'a>> {
        self.get(0)
    }

    /// The last match, if any.
    pub fn last(&self) -> Option<MatchRef<'a>> {
        self.len().checked_sub(1).map(|i| self.at(i))
    }

    /// The matches of `range` (places in this list).
    pub fn slice(&self, range: impl RangeBounds<usize>) -> MatchList<'a> {
        let from = match range.start_bound() {
            Bound::Included(&s) => s,
            Bound::Excluded(&s) => s + 1,
            Bound::Unbounded => 0,
        };
        let to = match range.end_bound() {
            Bound::Included(&e) => e + 1,
            Bound::Excluded(&e) => e,
            Bound::Unbounded => self.len(),
        };
        assert!(
            from <= to && to <= self.len(),
            "matches {from}..{to} of a list of {}",
            self.len()
        );
        MatchList {
            source: self.source,
            picked: self.picked,
            start: self.start + from,
            end: self.start + to,
        }
    }

    /// The matches in order.
    pub fn iter(&self) -> Iter<'a> {
        Iter {
            list: *self,
            next: 0,
            end: self.len(),
        }
    }

    /// The matches, read on the thread pool (in order where collected in order).
    pub fn par_iter(&self) -> impl IndexedParallelIterator<Item = MatchRef<'a>> + 'a {
        let list = *self;
        (0..list.len()).into_par_iter().map(move |i| list.at(i))
    }

    /// The list cut into runs of `len` matches (the last may be shorter), on the thread pool.
    pub fn par_chunks(
        &self,
        len: usize,
    ) -> impl IndexedParallelIterator<Item = MatchList<'a>> + 'a {
        let list = *self;
        let len = len.max(1);
        (0..list.len().div_ceil(len))
            .into_par_iter()
            .map(move |c| list.slice(c * len..((c + 1) * len).min(list.len())))
    }
}

impl<'a> From<&'a [Match]> for MatchList<'a> {
    fn from(matches: &'a [Match]) -> MatchList<'a> {
        MatchList::whole(Source::Slice(matches), matches.len())
    }
}

impl<'a> From<&'a Vec<Match>> for MatchList<'a> {
    fn from(matches: &'a Vec<Match>) -> MatchList<'a> {
        MatchList::from(matches.as_slice())
    }
}

impl<'a> From<&'a [&'a Match]> for MatchList<'a> {
    fn from(matches: &'a [&'a Match]) -> MatchList<'a> {
        MatchList::whole(Source::Refs(matches), matches.len())
    }
}

impl<'a> From<&'a Vec<&'a Match>> for MatchList<'a> {
    fn from(matches: &'a Vec<&'a Match>) -> MatchList<'a> {
        MatchList::from(matches.as_slice())
    }
}

impl<'a, const N: usize> From<&'a [Match; N]> for MatchList<'a> {
    fn from(matches: &'a [Match; N]) -> MatchList<'a> {
        MatchList::from(matches.as_slice())
    }
}

impl<'a> From<&'a History> for MatchList<'a> {
    fn from(history: &'a History) -> MatchList<'a> {
        MatchList::history(history)
    }
}

/// A [`MatchList`]'s matches in order.
pub struct Iter<'a> {
    list: MatchList<'a>,
    /// The places not read yet: `next..end`.
    next: usize,
    end: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = MatchRef<'a>;

    fn next(&mut self) -> Option<MatchRef<'a>> {
        if self.next == self.end {
            return None;
        }
        self.next += 1;
        Some(self.list.at(self.next - 1))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end - self.next;
        (left, Some(left))
    }

    fn nth(&mut self, n: usize) -> Option<MatchRef<'a>> {
        self.next = self.next.saturating_add(n).min(self.end);
        self.next()
    }
}

impl<'a> DoubleEndedIterator for Iter<'a> {
    fn next_back(&mut self) -> Option<MatchRef<'a>> {
        if self.next == self.end {
            return None;
        }
        self.end -= 1;
        Some(self.list.at(self.end))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for MatchList<'a> {
    type Item = MatchRef<'a>;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &MatchList<'a> {
    type Item = MatchRef<'a>;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: u32) -> Vec<Match> {
        (1..=n)
            .map(|number| Match {
                number,
                ..crate::testdata::bare_match("ffa", &[])
            })
            .collect()
    }

    /// A list and its slices give the matches of the places asked, borrowed from a slice or a
    /// list of references alike.
    #[test]
    fn slices_and_references_list_the_same_matches() {
        let matches = numbered(10);
        let refs: Vec<&Match> = matches.iter().collect();
        for list in [MatchList::from(&matches), MatchList::from(&refs)] {
            assert_eq!(list.len(), 10);
            let numbers = |l: MatchList| l.iter().map(|m| m.number).collect::<Vec<_>>();
            assert_eq!(numbers(list), (1..=10).collect::<Vec<_>>());
            let tail = list.slice(4..);
            assert_eq!(numbers(tail), (5..=10).collect::<Vec<_>>());
            assert_eq!(numbers(tail.slice(1..=2)), vec![6, 7]);
            assert_eq!(tail.first().unwrap().number, 5);
            assert_eq!(tail.last().unwrap().number, 10);
            assert!(tail.get(6).is_none());
            assert_eq!(tail.iter().nth(2).unwrap().number, 7);
            let back: Vec<u32> = tail.iter().rev().map(|m| m.number).collect();
            assert_eq!(back, (5..=10).rev().collect::<Vec<_>>());
            let par: Vec<u32> = tail.par_iter().map(|m| m.number).collect();
            assert_eq!(par, numbers(tail));
            let heads: Vec<u32> = tail.heads().map(|h| h.number).collect();
            assert_eq!(heads, numbers(tail));
            let par: Vec<u32> = tail.par_heads().map(|h| h.number).collect();
            assert_eq!(par, numbers(tail));
            assert!(list.slice(3..3).is_empty());
            let picked = list.pick(&[1, 4, 9]);
            assert_eq!(numbers(picked), vec![2, 5, 10]);
            assert_eq!(numbers(picked.slice(1..)), vec![5, 10]);
        }
    }
}
