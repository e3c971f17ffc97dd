//! [`EventsList`]: the events of a history's matches, in its order. Of the matches whose
//! events lie in a state file (those of a build with a state folder), each takes 8 bytes, their
//! place in it, and a run of matches of one file shares the file's handle (a list of
//! [`Events`] took 16 bytes a match, the handle's pointer in each: 0.5 MB at 64,000 matches,
//! issue 41). Events held in memory are kept aside. Not the events themselves (see
//! [`super::events`]).

use std::sync::Arc;

use super::Events;
use super::events::StoredFile;

/// What `places` holds for a match whose events are held in memory (in `held`).
const HELD: u64 = u64::MAX;

/// Each match's events, in order.
#[derive(Default)]
pub struct EventsList {
    /// Each match's events' place in their state file ([`Events::stored_place`]), or [`HELD`].
    places: Vec<u64>,
    /// The state files, each with the first match from which on the events kept in a state
    /// file are in it.
    runs: Vec<(u32, Arc<StoredFile>)>,
    /// The events held in memory, by match, in order.
    held: Vec<(u32, Events)>,
}

impl EventsList {
    /// How many matches' events it holds.
    pub fn len(&self) -> usize {
        self.places.len()
    }

    /// It holds no match's.
    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }

    /// Room for `more` matches' events.
    pub fn reserve_exact(&mut self, more: usize) {
        self.places.reserve_exact(more);
    }

    /// Adds the next match's events.
    ///
    /// # Panics
    /// Past `u32::MAX` matches.
    pub fn push(&mut self, events: Events) {
        let i = u32::try_from(self.places.len()).expect("fewer than 2^32 matches");
        let stored = (events.stored_place()).filter(|&(_, place)| place != HELD);
        let Some((file, place)) = stored else {
            self.places.push(HELD);
            self.held.push((i, events));
            return;
        };
        if !(self.runs.last()).is_some_and(|(_, last)| Arc::ptr_eq(last, file)) {
            self.runs.push((i, Arc::clone(file)));
        }
        self.places.push(place);
    }

    /// The `i`-th match's events.
    ///
    /// # Panics
    /// When there is no `i`-th match.
    pub fn get(&self, i: usize) -> Events {
        match self.place(i) {
            Place::Stored(file, place) => Events::at_stored_place(file, place),
            Place::Held(at) => self.held[at].1.clone(),
        }
    }

    /// How many events the `i`-th match holds (those held in memory not copied to know).
    ///
    /// # Panics
    /// When there is no `i`-th match.
    pub fn len_of(&self, i: usize) -> usize {
        match self.place(i) {
            Place::Stored(file, place) => Events::at_stored_place(file, place).len(),
            Place::Held(at) => self.held[at].1.len(),
        }
    }

    /// The `i`-th match's events, taken out (those held in memory are not copied; the list
    /// holds none for it from now on).
    ///
    /// # Panics
    /// When there is no `i`-th match.
    pub fn take(&mut self, i: usize) -> Events {
        match self.place(i) {
            Place::Stored(file, place) => Events::at_stored_place(file, place),
            Place::Held(at) => std::mem::take(&mut self.held[at].1),
        }
    }

    /// Where the `i`-th match's events are.
    fn place(&self, i: usize) -> Place<'_> {
        let place = self.places[i];
        if place == HELD {
            let at = (self.held).partition_point(|(m, _)| (*m as usize) < i);
            return Place::Held(at);
        }
        let run = (self.runs).partition_point(|(first, _)| *first as usize <= i);
        Place::Stored(&self.runs[run - 1].1, place)
    }
}

/// Where a match's events are in an [`EventsList`].
enum Place<'a> {
    /// In a state file, at a place in it.
    Stored(&'a Arc<StoredFile>, u64),
    /// In memory, the `held` entry at this index.
    Held(usize),
}

impl Extend<Events> for EventsList {
    fn extend<I: IntoIterator<Item = Events>>(&mut self, events: I) {
        for e in events {
            self.push(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Event, EventKind, NO_PLAYER};

    fn events(n: u64) -> Vec<Event> {
        (0..n)
            .map(|line| Event {
                time: line as u32,
                line,
                kind: EventKind::Suicide,
                actor: 0,
                target: NO_PLAYER,
                detail: 0,
            })
            .collect()
    }

    /// Events of two state files, in runs broken by events held in memory and by each other,
    /// read back as they were pushed, and taken out once.
    #[test]
    fn events_read_back_from_their_files_and_from_memory() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = Vec::new();
        let mut stored = Vec::new();
        for (name, first) in [("a", 1u64), ("b", 5)] {
            // Each file holds three matches' packed events one after another.
            let path = dir.path().join(name);
            let lists: Vec<Vec<Event>> = (first..first + 3).map(events).collect();
            let mut bytes = Vec::new();
            let mut places = Vec::new();
            for list in &lists {
                let packed = postcard::to_allocvec(list).unwrap();
                places.push((bytes.len() as u64, packed.len()));
                bytes.extend(packed);
            }
            std::fs::write(&path, &bytes).unwrap();
            let file = StoredFile::open(&path).unwrap();
            for (list, (at, len)) in lists.into_iter().zip(places) {
                let place = at | (len as u64) << 40;
                stored.push((Events::at_stored_place(&file, place), list));
            }
            files.push(file);
        }
        // a0 held a1 b0 held b1 a2 b2: runs of a, b, a, b.
        let order = [0usize, 6, 1, 3, 7, 4, 2, 5];
        let mut want = Vec::new();
        let mut list = EventsList::default();
        for &k in &order {
            let (e, w) = match stored.get(k) {
                Some((e, w)) => (e.clone(), w.clone()),
                None => (Events::from(events(k as u64 + 10)), events(k as u64 + 10)),
            };
            assert_eq!(e.is_stored(), k < 6);
            list.push(e);
            want.push(w);
        }
        assert_eq!(list.len(), order.len());
        assert_eq!((list.runs.len(), list.held.len()), (4, 2));
        for i in (0..order.len()).rev().chain(0..order.len()) {
            assert_eq!(&*list.get(i).read(), &want[i][..], "match {i}");
            assert_eq!(list.len_of(i), want[i].len());
            assert_eq!(list.get(i).is_stored(), order[i] < 6);
        }
        assert_eq!(&*list.take(1).read(), &want[1][..]);
        assert!(list.get(1).is_empty());
        assert_eq!(&*list.take(2).read(), &want[2][..]);
        assert_eq!(&*list.get(2).read(), &want[2][..]);
    }
}
