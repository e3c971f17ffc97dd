//! [`History`]: the build's matches in site order, their descriptions packed a block of 64 at a
//! time ([`super::packed_match`]) into a [`Scratch`] file in the state folder, and decoded one at a
//! time as a step reads them (issue 41: held decoded, a match's description took about 440 bytes of
//! memory, 28 MB for 64,000 matches, the largest part of what a build held for its history). Memory
//! keeps about 50 bytes a match: where its description lies and its number (12), its events (8
//! where they are a range of a state file: [`EventsList`]), and its head packed in memory
//! ([`heads`]: about 30, its texts shared with the other heads', read alone; what every page's
//! key and every list reads, so that an append, which keys every page again, decodes no match
//! for them). Read through [`MatchList`]; a thread keeps the last blocks it read and the last
//! match it decoded. Without a state folder (or where it cannot be written) the blocks stay in
//! memory. Not a store between builds (see [`crate::state`]).

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use rayon::prelude::*;

use super::events_list::EventsList;
use super::match_head::{HeadTable, HeldHead, MatchHead, Renumbering};
use super::match_list::{MatchList, MatchRef};
use super::packed_match::{self, BlockWriter, Tables};
use super::{Events, Match, WhoRef};
use crate::scratch::Scratch;

mod heads;
mod staged;
use heads::Heads;
pub use staged::{Pick, StagedLog};

/// Matches packed together, with the tables of their texts: what a thread reads at once from
/// the scratch file (about 6 KB of the synthetic benchmark's matches).
const BLOCK_MATCHES: usize = 64;

/// Blocks a thread keeps once read: the steps that run side by side on a thread (a list's
/// rows, the match pages, a server's page) each read their own run of matches.
const BLOCKS_KEPT: usize = 16;

/// The build's matches, in site order, described in packed bytes.
pub struct History {
    /// Where each match's description lies, and its number.
    places: Vec<Place>,
    /// Each match's events (kept out of its packed description: they are a range of a state
    /// file, or bytes of their own).
    events: EventsList,
    /// Each match's head: what every page's key and every list reads.
    heads: Heads,
    /// The texts the heads share.
    head_texts: HeadTable,
    /// The packed descriptions, a block of [`BLOCK_MATCHES`] at a time.
    blocks: Vec<Block>,
    /// The scratch file the blocks are in (those that could be written).
    scratch: Option<Scratch>,
    /// Tells this history apart from any other in the per-thread cache of blocks read.
    id: u64,
}

/// Where one match's packed description lies: its block, and where in it (it ends where its
/// last field does).
#[derive(Clone, Copy)]
struct Place {
    block: u32,
    at: u32,
    /// [`Match::number`] (not packed: each build assigns it).
    number: u32,
}

/// A block of packed descriptions.
enum Block {
    /// In the scratch file: where it starts and its length.
    Written(u64, u32),
    /// In memory (the scratch file could not be written).
    Held(Box<[u8]>),
}

impl History {
    /// The history of `matches` (in site order), their descriptions packed into a scratch file
    /// made in `dir` (the state folder) or, without one or where it cannot be written, into
    /// memory. The matches are let go as they are packed. (The tests' way to make one: a
    /// build packs each log's matches where the log holds them, [`History::stage_log`].)
    #[cfg(test)]
    pub fn new(matches: Vec<Match>, dir: Option<PathBuf>) -> History {
        let mut matches = matches.into_iter();
        let batch = History::batch();
        let batches = std::iter::from_fn(|| {
            let group: Vec<Match> = matches.by_ref().take(batch).collect();
            (!group.is_empty()).then_some(group)
        });
        History::from_batches(batches, dir)
    }

    /// How many matches [`History::from_batches`] packs at a time at best: a few blocks a
    /// thread.
    pub fn batch() -> usize {
        BLOCK_MATCHES * rayon::current_num_threads().max(1) * 8
    }

    /// The history of the matches of `batches`, in order (see [`History::new`]); a batch
    /// of [`History::batch`] matches keeps the thread pool busy.
    pub fn from_batches(
        batches: impl Iterator<Item = Vec<Match>>,
        dir: Option<PathBuf>,
    ) -> History {
        let scratch = dir.map(Scratch::new);
        let mut all = Vec::new();
        // Blocks are cut where a batch ends: a batch's matches are packed on the thread pool.
        let mut pending: Vec<Match> = Vec::new();
        let mut batches = batches.peekable();
        while let Some(batch) = batches.next() {
            pending.extend(batch);
            let last = batches.peek().is_none();
            let whole = if last {
                pending.len()
            } else {
                pending.len() / BLOCK_MATCHES * BLOCK_MATCHES
            };
            if whole == 0 {
                continue;
            }
            let rest = pending.split_off(whole);
            let packed: Vec<Packed> = std::mem::replace(&mut pending, rest)
                .into_par_iter()
                .chunks(BLOCK_MATCHES)
                .map(|mut block| pack(block.iter_mut(), scratch.as_ref()))
                .collect();
            all.extend(packed);
        }
        History::of_blocks(all, scratch)
    }

    /// The history of the blocks `packed`, in order (each of [`BLOCK_MATCHES`] matches but the
    /// last), in `scratch` where written.
    fn of_blocks(packed: Vec<Packed>, scratch: Option<Scratch>) -> History {
        let mut history = History::empty(scratch);
        history.append(packed);
        history.head_texts.seal();
        history.heads.pack();
        history
    }

    /// A history of no match yet, its blocks to go to `scratch`.
    fn empty(scratch: Option<Scratch>) -> History {
        History {
            places: Vec::new(),
            events: EventsList::default(),
            heads: Heads::default(),
            head_texts: HeadTable::default(),
            blocks: Vec::new(),
            scratch,
            id: History::new_id(),
        }
    }

    /// An id no other history of the process has: one count for every history it makes.
    fn new_id() -> u64 {
        static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    /// Adds the blocks `packed` after its matches, in order, each with its own table of texts
    /// (its table of texts not sealed).
    fn append(&mut self, packed: Vec<Packed>) {
        self.reserve_for(&packed);
        for p in packed {
            let renumbering = self.head_texts.renumbering(&p.head_texts);
            self.push_block(p, &renumbering);
        }
    }

    /// Room for the matches of the blocks `packed` (it grows once, to its size).
    fn reserve_for<'p>(&mut self, packed: impl IntoIterator<Item = &'p Packed>) {
        let (blocks, matches) = (packed.into_iter()).fold((0, 0), |(blocks, matches), p| {
            (blocks + 1, matches + p.places.len())
        });
        self.places.reserve_exact(matches);
        self.events.reserve_exact(matches);
        self.heads.open().reserve_exact(matches);
        self.blocks.reserve_exact(blocks);
    }

    /// Adds the block `p` after its matches, its heads' texts numbered as `renumbering` says.
    fn push_block(&mut self, p: Packed, renumbering: &Renumbering) {
        let block = u32::try_from(self.blocks.len()).expect("fewer blocks than matches");
        self.places
            .extend(p.places.into_iter().map(|place| Place { block, ..place }));
        self.events.extend(p.events);
        let heads = self.heads.open();
        for mut head in p.heads {
            head.renumber(renumbering);
            heads.push(head);
        }
        self.blocks.push(p.block);
    }

    /// Its matches, decoded into a list of their own (for tests and for steps that take every
    /// match at once).
    pub fn to_vec(&self) -> Vec<Match> {
        self.list().par_iter().map(MatchRef::into_owned).collect()
    }

    /// How many matches it holds.
    pub fn len(&self) -> usize {
        self.places.len()
    }

    /// True when it holds none.
    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }

    /// Its matches, as a list to read.
    pub fn list(&self) -> MatchList<'_> {
        MatchList::history(self)
    }

    /// The `i`-th match's head (nothing decoded).
    pub fn head(&self, i: usize) -> MatchHead<'_> {
        (self.heads).with(i, |h| h.head(self.places[i].number, &self.head_texts))
    }

    /// The `i`-th match, decoded (the one this thread decoded last, when it is that match).
    pub fn at(&self, i: usize) -> MatchRef<'_> {
        thread_local! {
            /// The match this thread decoded last: history id, place, match.
            static LAST: RefCell<Option<(u64, usize, Arc<Match>)>> = const { RefCell::new(None) };
        }
        let last = LAST.with_borrow(|last| match last {
            Some((id, at, m)) if *id == self.id && *at == i => Some(Arc::clone(m)),
            _ => None,
        });
        if let Some(m) = last {
            return MatchRef::Decoded(m);
        }
        let m = Arc::new(self.decode(i));
        LAST.set(Some((self.id, i, Arc::clone(&m))));
        MatchRef::Decoded(m)
    }

    /// Gives `each` the identity fields of each player of the `i`-th match, in order (the rest
    /// of it not decoded, no text made).
    pub fn each_who(&self, i: usize, each: &mut dyn FnMut(WhoRef)) {
        self.with_packed(i, |tables, block, at| {
            packed_match::each_who(tables, block, at, each);
        });
    }

    /// The `i`-th match, decoded from its block (its id, place among the sources and number as
    /// its head and place hold them: a block packed as its log was read is kept as it is once
    /// the site's order gives them, [`History::reordered`]).
    fn decode(&self, i: usize) -> Match {
        let mut m = self.decode_described(i);
        m.events = self.events.get(i);
        m
    }

    /// The `i`-th match without its events (see [`History::decode`]).
    fn decode_described(&self, i: usize) -> Match {
        let mut m = self.with_packed(i, packed_match::decode);
        m.number = self.places[i].number;
        let (file_index, id) = (self.heads).with(i, |h| (h.file_index(), h.id(&self.head_texts)));
        m.file_index = file_index;
        if *m.id != *id {
            m.id = id.as_str().into();
        }
        m
    }

    /// What `read` makes of the `i`-th match's packed bytes, given its block's tables, the
    /// block's bytes, and where in them the match starts.
    fn with_packed<T>(&self, i: usize, read: impl FnOnce(&Tables, &[u8], usize) -> T) -> T {
        let place = self.places[i];
        let block = place.block as usize;
        let got = self.read_block(block);
        let bytes = match &self.blocks[block] {
            Block::Held(bytes) => bytes,
            Block::Written(..) => &got.bytes[..],
        };
        read(&got.tables, bytes, got.body + place.at as usize)
    }

    /// Block `block` read and its tables decoded, through this thread's cache of the last
    /// [`BLOCKS_KEPT`] blocks read.
    fn read_block(&self, block: usize) -> Rc<ReadBlock> {
        thread_local! {
            /// The last blocks read, newest first.
            static READ: RefCell<Vec<Rc<ReadBlock>>> = const { RefCell::new(Vec::new()) };
        }
        READ.with_borrow_mut(|read| {
            let found = read
                .iter()
                .position(|r| r.id == self.id && r.block == block);
            if let Some(found) = found {
                let hit = read.remove(found);
                read.insert(0, Rc::clone(&hit));
                return hit;
            }
            let (bytes, held): (Vec<u8>, &[u8]) =
                match &self.blocks[block] {
                    Block::Held(bytes) => (Vec::new(), bytes),
                    Block::Written(start, len) => {
                        let mut bytes = vec![0; *len as usize];
                        let scratch = self.scratch.as_ref().expect("written blocks have a file");
                        scratch.read_exact_at(&mut bytes, *start).unwrap_or_else(|e| {
                        panic!(
                            "cannot read the matches back from the build's scratch file in the \
                             state folder: {e} (build again)"
                        )
                    });
                        (bytes, &[])
                    }
                };
            let (tables, body) =
                packed_match::read_block(if bytes.is_empty() { held } else { &bytes });
            let new = Rc::new(ReadBlock {
                id: self.id,
                block,
                tables,
                bytes,
                body,
            });
            read.truncate(BLOCKS_KEPT - 1);
            read.insert(0, Rc::clone(&new));
            new
        })
    }
}

/// A block as a thread read it: its tables decoded, its bytes (none when the history holds
/// them in memory), and where its matches' bytes start.
struct ReadBlock {
    id: u64,
    block: usize,
    tables: packed_match::Tables,
    bytes: Vec<u8>,
    body: usize,
}

/// One block of matches packed: where each lies in it, their events and heads (and the texts
/// these share), and the block.
struct Packed {
    places: Vec<Place>,
    events: Vec<Events>,
    heads: Vec<HeldHead>,
    head_texts: HeadTable,
    block: Block,
}

/// Packs one block of matches (written to `scratch` when it can be).
fn pack<'m>(
    matches: impl ExactSizeIterator<Item = &'m mut Match>,
    scratch: Option<&Scratch>,
) -> Packed {
    let mut writer = BlockWriter::default();
    let mut places = Vec::with_capacity(matches.len());
    let mut events = Vec::with_capacity(matches.len());
    let mut heads = Vec::with_capacity(matches.len());
    let mut head_texts = HeadTable::default();
    for m in matches {
        // Made before the events are taken: a match's final scores may count its events.
        heads.push(HeldHead::of(m, &mut head_texts));
        events.push(std::mem::take(&mut m.events));
        let at = writer.push(m);
        places.push(Place {
            block: 0,
            at,
            number: m.number,
        });
        // Packed: its lists are let go now, not when every match is packed (at 64,000 matches
        // the players' lists were 12 MB of the reading's peak, beside the history made).
        m.players = Vec::new();
        m.weapons = Default::default();
        m.awards = Default::default();
        m.rounds = Default::default();
        m.spots = Default::default();
    }
    let bytes = writer.finish();
    let block = match scratch.and_then(|s| s.put(&bytes)) {
        Some(start) => Block::Written(start, bytes.len() as u32),
        None => Block::Held(bytes.into_boxed_slice()),
    };
    Packed {
        places,
        events,
        heads,
        head_texts,
        block,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Event, EventKind, NO_PLAYER, Team};

    fn matches(n: u32) -> Vec<Match> {
        (1..=n)
            .map(|number| {
                let mut m = crate::testdata::bare_match(
                    "ctf",
                    &[("a", Team::Red), ("b", Team::Blue), ("c", Team::Red)],
                );
                m.number = number;
                m.id = format!("{number:016x}").into();
                m.map = format!("map{}", number % 7).into();
                m.events.push(Event {
                    time: number,
                    line: u64::from(number),
                    kind: EventKind::Frag,
                    actor: 0,
                    target: 1,
                    detail: 0,
                });
                m.events.push(Event {
                    time: number + 1,
                    line: u64::from(number) + 1,
                    kind: EventKind::Suicide,
                    actor: 2,
                    target: NO_PLAYER,
                    detail: 0,
                });
                m
            })
            .collect()
    }

    /// Every match reads back equal to the one packed, in order, at random and on the thread
    /// pool, from the scratch file and from memory alike; its head gives its fields.
    #[test]
    fn matches_read_back_as_they_were() {
        let dir = tempfile::tempdir().unwrap();
        let n = BLOCK_MATCHES as u32 * 3 + 17;
        let want = matches(n);
        for store in [Some(dir.path().to_path_buf()), None] {
            let history = History::new(want.clone(), store.clone());
            assert_eq!(history.len(), want.len());
            assert_eq!(
                history
                    .blocks
                    .iter()
                    .all(|b| matches!(b, Block::Written(..))),
                store.is_some()
            );
            let list = history.list();
            for (m, w) in list.iter().zip(&want) {
                assert_eq!(&*m, w);
            }
            for i in [want.len() - 9, 3, want.len() / 2, 3, 0, want.len() - 1] {
                assert_eq!(&*list.at(i), &want[i]);
            }
            for (i, w) in want.iter().enumerate() {
                let mut whos = Vec::new();
                list.each_who(i, |p| whos.push((p.plain.to_string(), p.name.to_string())));
                let players = w.players.iter();
                let want: Vec<_> = players
                    .map(|p| (p.plain.to_string(), p.name.to_string()))
                    .collect();
                assert_eq!(whos, want);
            }
            for (head, w) in list.heads().zip(&want) {
                let of = MatchHead::of(w);
                assert_eq!((head.id, head.number, head.map), (of.id, of.number, of.map));
                assert_eq!(head.final_team_scores(), of.final_team_scores());
            }
            let numbers: Vec<u32> = list.par_iter().map(|m| m.number).collect();
            assert_eq!(numbers, (1..=n).collect::<Vec<_>>());
        }
        let empty = History::new(Vec::new(), Some(dir.path().to_path_buf()));
        assert!(empty.is_empty() && empty.list().first().is_none());
    }

    /// A folder that cannot be written keeps the descriptions in memory.
    #[test]
    fn a_folder_that_cannot_be_written_keeps_them_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let history = History::new(matches(10), Some(dir.path().join("missing")));
        assert!(matches!(history.blocks[..], [Block::Held(_)]));
        assert_eq!(history.at(9).number, 10);
    }

    /// Histories read in turn on one thread each give their own matches (the thread's caches
    /// tell them apart), however each was made.
    #[test]
    fn histories_read_in_turn_give_their_own_matches() {
        let a = History::new(matches(100), None);
        let mut other = matches(100);
        for m in &mut other {
            m.map = "elsewhere".into();
        }
        let b = History::staged(vec![History::stage_log(&mut other, None)], None);
        // Packed, the matches it was made from hold their lists no longer.
        assert!(
            other
                .iter()
                .all(|m| m.players.is_empty() && m.events.is_empty())
        );
        let c = History::from_batches([matches(3), matches(2)].into_iter(), None);
        for i in 0..100 {
            assert_eq!(a.at(i).map, format!("map{}", (i + 1) % 7));
            assert_eq!(b.at(i).map, "elsewhere");
            assert_eq!(b.at(i).players.len(), 3);
            assert_eq!(c.at(i % 5).number, [1, 2, 3, 1, 2][i % 5]);
        }
        assert_eq!(b.to_vec().len(), 100);
    }
}
