//! [`Events`]: a match's events. Freshly parsed, they are held in memory; read back from the
//! incremental state, they stay in the state's files and are decoded again each time something
//! reads them ([`Events::read`]), so that a build holds the events of the matches it is working
//! on, not of its whole history (issue 41: a year of a server network is hundreds of millions of
//! events, about 90 bytes each once decoded, where the state stores about 9).
//!
//! Decoded from a state file's bytes inside [`stored_in`], packed events are not copied: they
//! are a range of that file, read with a positioned read through a window of the file kept per
//! thread (matches are read in the order the file holds them, so one read serves hundreds).

use std::borrow::Cow;
use std::cell::RefCell;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Event;

/// A match's events in order: in memory, or packed (the postcard bytes the state stores),
/// in memory or in a state file.
pub struct Events {
    inner: Inner,
}

enum Inner {
    /// In memory (boxed: a match holds its events in two words, as many as a range of a
    /// state file takes, where holding them in place took four).
    Held(Box<Held>),
    /// A range of a state file, read and decoded on each read.
    Stored(Stored),
}

/// Events held in memory.
#[derive(Clone)]
enum Held {
    Decoded(Vec<Event>),
    /// Postcard bytes of its own (an archive's or a per-log file's matches), decoded on each
    /// read, and how many events they hold.
    Own(Box<[u8]>, u32),
}

impl Inner {
    /// Events held decoded.
    fn decoded(events: Vec<Event>) -> Inner {
        Inner::Held(Box::new(Held::Decoded(events)))
    }

    /// `count` events held packed in `bytes`.
    fn own(bytes: Box<[u8]>, count: u32) -> Inner {
        Inner::Held(Box::new(Held::Own(bytes, count)))
    }
}

/// Where packed events lie in a state file: 16 bytes (with their count beside them, 24: 0.5 MB
/// at 64,000 matches, issue 41; the count is the bytes' first number, read when asked for).
#[derive(Clone)]
struct Stored {
    file: Arc<StoredFile>,
    /// Where they start (the low [`AT_BITS`] bits) and their length (the bits above).
    place: u64,
}

/// The bits of [`Stored::place`] that say where the events start: 1 TB of a state file.
const AT_BITS: u32 = 40;

impl Stored {
    /// The events of `len` bytes at `at` of `file`; None when `at` or `len` does not fit (a
    /// file of a terabyte, or a match's events of 16 MB: they are held in memory).
    fn new(file: &Arc<StoredFile>, at: u64, len: usize) -> Option<Stored> {
        let fits = at < 1 << AT_BITS && len < 1 << (64 - AT_BITS);
        fits.then(|| Stored {
            file: Arc::clone(file),
            place: at | (len as u64) << AT_BITS,
        })
    }

    fn at(&self) -> u64 {
        self.place & ((1 << AT_BITS) - 1)
    }

    fn len(&self) -> usize {
        (self.place >> AT_BITS) as usize
    }

    /// Calls `f` with the events' bytes.
    fn with_bytes<T>(&self, f: impl FnOnce(&[u8]) -> T) -> T {
        self.file.with_bytes(self.at(), self.len(), f)
    }
}

/// A state file that packed events are read from, open for as long as a match refers to it (a
/// file replaced or removed meanwhile is still read as it was when opened).
pub struct StoredFile {
    file: File,
    path: PathBuf,
    /// Tells this file apart from any other in the per-thread window (an address may be reused).
    id: u64,
}

impl StoredFile {
    /// Opens the state file at `path` for reading.
    pub fn open(path: &Path) -> std::io::Result<Arc<StoredFile>> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Ok(Arc::new(StoredFile {
            file: File::open(path)?,
            path: path.to_path_buf(),
            id: NEXT.fetch_add(1, Ordering::Relaxed),
        }))
    }

    /// Calls `f` with the `len` bytes at `at`, read through this thread's window.
    fn with_bytes<T>(&self, at: u64, len: usize, f: impl FnOnce(&[u8]) -> T) -> T {
        /// Bytes read at once: a segment's next few dozen matches (a window of 1 MB, kept by
        /// every thread that reads events, took 2.1 MB beside the pages of 64,000 matches,
        /// issue 41; a match read alone, as a player's scattered matches are, reads less).
        const WINDOW: usize = 1 << 18;
        thread_local! {
            /// The last bytes read: file id, offset, bytes.
            static LAST: RefCell<(u64, u64, Vec<u8>)> = const { RefCell::new((u64::MAX, 0, Vec::new())) };
        }
        LAST.with_borrow_mut(|(id, start, buf)| {
            let inside =
                *id == self.id && at >= *start && (at - *start) as usize + len <= buf.len();
            if !inside {
                buf.clear();
                buf.resize(WINDOW.max(len), 0);
                let read = read_at_most(&self.file, buf, at).unwrap_or_else(|e| {
                    panic!(
                        "cannot read the events of a match from {}: {e} (the state folder \
                         changed or failed during the build; build again)",
                        self.path.display()
                    )
                });
                assert!(
                    read >= len,
                    "{} is shorter than when it was opened (the state folder changed during \
                     the build; build again)",
                    self.path.display()
                );
                buf.truncate(read);
                (*id, *start) = (self.id, at);
            }
            let from = (at - *start) as usize;
            f(&buf[from..from + len])
        })
    }
}

/// Reads from `at` into `buf` until it is full or the file ends; returns the bytes read.
fn read_at_most(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], at + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

thread_local! {
    /// Inside [`placed`]: the bytes written so far and where each match's packed events went.
    static PLACED: RefCell<Option<(u64, Vec<Placed>)>> = const { RefCell::new(None) };
}

/// Where one match's packed events were written ([`placed`]): offset, length, events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    at: u64,
    len: u32,
    count: u32,
}

/// A writer that tells [`placed`] how many bytes were written through it, counted from where
/// it starts in the file being made (after what was written there before it).
pub struct PlacingWriter<W> {
    inner: W,
    written: u64,
}

impl<W: std::io::Write> PlacingWriter<W> {
    /// A writer into `inner`, whose first byte goes to offset `start` of the file.
    pub fn new(inner: W, start: u64) -> PlacingWriter<W> {
        PlacingWriter {
            inner,
            written: start,
        }
    }
}

impl<W: std::io::Write> std::io::Write for PlacingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        let len = self.written;
        PLACED.with_borrow_mut(|placed| {
            if let Some((written, _)) = placed {
                *written = len;
            }
        });
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Runs `encode`, which writes through a [`PlacingWriter`] on this thread, and gives where the
/// packed events of each match it encoded went, in order: the matches' events can then be
/// read from the file those bytes become ([`Events::store`]) without decoding the file again.
pub fn placed<T>(encode: impl FnOnce() -> T) -> (T, Vec<Placed>) {
    let outer = PLACED.replace(Some((0, Vec::new())));
    let result = encode();
    let (_, placed) = PLACED.replace(outer).unwrap_or_default();
    (result, placed)
}

/// Notes that `len` bytes of packed events holding `count` events were just written.
fn note_placed(len: usize, count: usize) {
    PLACED.with_borrow_mut(|placed| {
        if let Some((written, list)) = placed
            && let (Ok(len), Ok(count)) = (u32::try_from(len), u32::try_from(count))
        {
            list.push(Placed {
                at: *written - u64::from(len),
                len,
                count,
            });
        }
    });
}

thread_local! {
    /// The state file being decoded inside [`stored_in`] on this thread, and its bytes.
    static SOURCE: RefCell<Option<(Arc<StoredFile>, usize, usize)>> = const { RefCell::new(None) };
}

/// Runs `decode` on `bytes`, the whole content of `file`: the packed events it deserializes
/// from them (borrowed, as `rmp_serde::from_slice` gives them) refer to their range of the
/// file instead of copying them. Decoding runs on the calling thread only (it must not hand
/// work to other threads).
pub fn stored_in<T>(file: &Arc<StoredFile>, bytes: &[u8], decode: impl FnOnce(&[u8]) -> T) -> T {
    /// Restores the file an outer call was decoding, also when `decode` panics.
    struct Restore(Option<(Arc<StoredFile>, usize, usize)>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SOURCE.set(self.0.take());
        }
    }
    let source = (Arc::clone(file), bytes.as_ptr() as usize, bytes.len());
    let _restore = Restore(SOURCE.replace(Some(source)));
    decode(bytes)
}

/// How many events postcard bytes hold (their length prefix); None if they hold none.
fn count_of(bytes: &[u8]) -> Option<u32> {
    postcard::take_from_bytes::<u32>(bytes).ok().map(|(n, _)| n)
}

/// `v` as packed events: a range of the file [`stored_in`] decodes when it lies inside its
/// bytes, else a copy.
fn packed_from(v: &[u8]) -> Inner {
    let stored = SOURCE.with_borrow(|source| {
        let (file, base, len) = source.as_ref()?;
        let start = (v.as_ptr() as usize).wrapping_sub(*base);
        let fits = start <= *len && v.len() <= len - start;
        fits.then(|| Stored::new(file, start as u64, v.len()))?
    });
    match stored {
        Some(stored) => Inner::Stored(stored),
        None => Inner::own(v.into(), count_of(v).unwrap_or(0)),
    }
}

/// Decodes packed events. They come from a state file whose checksum was verified, so they
/// decode; if they did not (a fragstats bug), the match would show no events rather than stop
/// the build.
fn decode(bytes: &[u8]) -> Vec<Event> {
    read_postcard(bytes)
        .or_else(|| postcard::from_bytes(bytes).ok())
        .unwrap_or_else(|| {
            debug_assert!(false, "packed events do not decode");
            Vec::new()
        })
}

/// The events postcard encoded (`Vec<Event>` as its derives write it), read without serde:
/// every build reads every match's events several times (counts, ladders, the replay, pages),
/// and this reader makes no visitor call per field. None where the bytes are not such events
/// (cut short, bytes left over, a kind or side no derive numbers); a number written longer than
/// postcard writes it is read, not refused.
fn read_postcard(bytes: &[u8]) -> Option<Vec<Event>> {
    use super::{EventKind, Team};
    let mut r = Leb128 { bytes, at: 0 };
    let count = usize::try_from(r.number()?).ok()?;
    // Each event takes 6 bytes at least: no length the bytes cannot hold is believed.
    let mut events = Vec::with_capacity(count.min(bytes.len() / 6));
    let team = |i: u64| -> Option<Team> {
        Some(match i {
            0 => Team::Free,
            1 => Team::Red,
            2 => Team::Blue,
            3 => Team::Spectator,
            _ => return None,
        })
    };
    for _ in 0..count {
        let time = u32::try_from(r.number()?).ok()?;
        let line = r.number()?;
        let kind = match r.number()? {
            0 => EventKind::Frag,
            1 => EventKind::Suicide,
            2 => EventKind::TeamKill,
            3 => {
                let action = *FLAG_ACTIONS.get(usize::try_from(r.number()?).ok()?)?;
                EventKind::Flag(action, team(r.number()?)?)
            }
            4 => EventKind::Award,
            5 => EventKind::TeamChange(team(r.number()?)?),
            6 => EventKind::Leave,
            7 => EventKind::Assist,
            8 => EventKind::Headshot,
            _ => return None,
        };
        let actor = u32::try_from(r.number()?).ok()?;
        let target = u32::try_from(r.number()?).ok()?;
        let detail = u16::try_from(r.number()?).ok()?;
        events.push(Event {
            time,
            line,
            kind,
            actor,
            target,
            detail,
        });
    }
    (r.at == bytes.len()).then_some(events)
}

/// Every flag action, in the order its derive numbers them.
const FLAG_ACTIONS: [super::FlagAction; 9] = {
    use super::FlagAction as F;
    [
        F::Pickup,
        F::Capture,
        F::Return,
        F::Drop,
        F::CarrierKill,
        F::BombPlant,
        F::BombDefuse,
        F::BombExplode,
        F::PointCapture,
    ]
};

/// Postcard's numbers (LEB128) read in turn.
struct Leb128<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Leb128<'_> {
    /// The next number, None past the end or beyond 64 bits.
    fn number(&mut self) -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            n |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return (shift < 63 || b <= 1).then_some(n);
            }
        }
        None
    }
}

impl Events {
    /// The events as `placed` says they were written into `file` (their bytes there are the
    /// events these hold): read from the file from now on.
    pub fn store(&mut self, file: &Arc<StoredFile>, placed: Placed) {
        debug_assert_eq!(self.len(), placed.count as usize);
        // Events too long to be placed stay where they are.
        if let Some(stored) = Stored::new(file, placed.at, placed.len as usize) {
            self.inner = Inner::Stored(stored);
        }
    }

    /// Packs events held decoded into the bytes a state file holds them as, kept in memory
    /// (read as packed events are). A log's matches wait, parsed, until the whole log is read
    /// and its segments written: decoded, their events were 12 KB a match of the 30-player
    /// logs of `benches/memory.sh`, packed 5 KB (issue 41: a 460 MB log peaked at 230 MB).
    pub fn pack(&mut self) {
        if let Inner::Held(held) = &mut self.inner
            && let Held::Decoded(events) = &**held
            && let Ok(count) = u32::try_from(events.len())
            && let Ok(bytes) = postcard::to_allocvec(events)
        {
            **held = Held::Own(bytes.into_boxed_slice(), count);
        }
    }

    /// The events: borrowed when they are in memory, else read and decoded now (and not
    /// kept: hold the result while it is needed, read again later).
    pub fn read(&self) -> Cow<'_, [Event]> {
        match &self.inner {
            Inner::Held(held) => match &**held {
                Held::Decoded(events) => Cow::Borrowed(events),
                Held::Own(bytes, _) => Cow::Owned(decode(bytes)),
            },
            Inner::Stored(s) => Cow::Owned(s.with_bytes(decode)),
        }
    }

    /// How many events there are (known without decoding them: of those in a state file,
    /// their bytes' first number is read).
    pub fn len(&self) -> usize {
        match &self.inner {
            Inner::Held(held) => match &**held {
                Held::Decoded(events) => events.len(),
                Held::Own(_, count) => *count as usize,
            },
            Inner::Stored(s) => s.with_bytes(count_of).unwrap_or(0) as usize,
        }
    }

    /// No events.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Still packed (read back from the state, not changed since).
    pub fn is_packed(&self) -> bool {
        !matches!(&self.inner, Inner::Held(held) if matches!(**held, Held::Decoded(_)))
    }

    /// Kept in a state file, not in memory.
    pub fn is_stored(&self) -> bool {
        matches!(self.inner, Inner::Stored(_))
    }

    /// The state file they are kept in and their place in it (where they start and their
    /// length, in one number), when they are kept in a state file.
    pub(super) fn stored_place(&self) -> Option<(&Arc<StoredFile>, u64)> {
        match &self.inner {
            Inner::Stored(s) => Some((&s.file, s.place)),
            Inner::Held(_) => None,
        }
    }

    /// The events at `place` of `file`, as [`Events::stored_place`] gave them.
    pub(super) fn at_stored_place(file: &Arc<StoredFile>, place: u64) -> Events {
        Events {
            inner: Inner::Stored(Stored {
                file: Arc::clone(file),
                place,
            }),
        }
    }

    /// The events to change, decoded and held in memory from now on.
    fn make_mut(&mut self) -> &mut Vec<Event> {
        if self.is_packed() {
            self.inner = Inner::decoded(self.read().into_owned());
        }
        match &mut self.inner {
            Inner::Held(held) => match &mut **held {
                Held::Decoded(events) => events,
                Held::Own(..) => unreachable!("decoded just now"),
            },
            Inner::Stored(_) => unreachable!("decoded just now"),
        }
    }

    /// Appends an event (decoding packed ones first).
    pub fn push(&mut self, event: Event) {
        self.make_mut().push(event);
    }
}

impl Default for Events {
    fn default() -> Events {
        Events::from(Vec::new())
    }
}

impl From<Vec<Event>> for Events {
    fn from(events: Vec<Event>) -> Events {
        Events {
            inner: Inner::decoded(events),
        }
    }
}

impl Clone for Events {
    fn clone(&self) -> Events {
        let inner = match &self.inner {
            Inner::Held(held) => Inner::Held(held.clone()),
            Inner::Stored(s) => Inner::Stored(s.clone()),
        };
        Events { inner }
    }
}

impl PartialEq for Events {
    fn eq(&self, other: &Events) -> bool {
        self.len() == other.len() && self.read() == other.read()
    }
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.read().fmt(f)
    }
}

/// Stored as one byte string (the postcard encoding of the events), so that reading a state
/// copies (or refers to) the bytes instead of decoding every event.
impl Serialize for Events {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.inner {
            Inner::Held(held) => match &**held {
                Held::Decoded(events) => {
                    let bytes = postcard::to_allocvec(events).map_err(serde::ser::Error::custom)?;
                    let done = serializer.serialize_bytes(&bytes)?;
                    note_placed(bytes.len(), events.len());
                    Ok(done)
                }
                Held::Own(bytes, count) => {
                    let done = serializer.serialize_bytes(bytes)?;
                    note_placed(bytes.len(), *count as usize);
                    Ok(done)
                }
            },
            Inner::Stored(s) => {
                let (done, count) =
                    s.with_bytes(|b| (serializer.serialize_bytes(b), count_of(b).unwrap_or(0)));
                let done = done?;
                note_placed(s.len(), count as usize);
                Ok(done)
            }
        }
    }
}

impl<'de> Deserialize<'de> for Events {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Events, D::Error> {
        struct Bytes;
        impl<'de> serde::de::Visitor<'de> for Bytes {
            type Value = Inner;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the packed events of a match")
            }
            fn visit_borrowed_bytes<E>(self, v: &'de [u8]) -> Result<Inner, E> {
                Ok(packed_from(v))
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Inner, E> {
                Ok(Inner::own(v.into(), count_of(v).unwrap_or(0)))
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Inner, E> {
                let count = count_of(&v).unwrap_or(0);
                Ok(Inner::own(v.into(), count))
            }
        }
        Ok(Events {
            inner: deserializer.deserialize_bytes(Bytes)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A range of a state file keeps its place and length in one word, up to 1 TB and 16 MB;
    /// past either it is not made (the events stay in memory).
    #[test]
    fn a_stored_range_holds_its_place_and_length_up_to_their_limits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state");
        std::fs::write(&path, b"x").unwrap();
        let file = StoredFile::open(&path).unwrap();
        let (most_at, most_len) = ((1u64 << AT_BITS) - 1, (1usize << (64 - AT_BITS)) - 1);
        for (at, len) in [(0, 0), (5, 7), (most_at, most_len), (1 << 33, 1 << 20)] {
            let stored = Stored::new(&file, at, len).unwrap();
            assert_eq!((stored.at(), stored.len()), (at, len));
        }
        assert!(Stored::new(&file, most_at + 1, 1).is_none());
        assert!(Stored::new(&file, 0, most_len + 1).is_none());
        assert_eq!(std::mem::size_of::<Stored>(), 16);
    }
    use crate::model::EventKind;

    fn event(line: u64) -> Event {
        Event {
            time: 3,
            line,
            kind: EventKind::Frag,
            actor: 0,
            target: 1,
            detail: 2,
        }
    }

    /// The reader without serde reads what postcard writes, every kind of event and every
    /// length of number, and refuses what postcard would (cut, trailing, unknown variants).
    #[test]
    fn events_read_without_serde_as_postcard_reads_them() {
        use crate::model::Team;
        let teams = [Team::Free, Team::Red, Team::Blue, Team::Spectator];
        let flags = FLAG_ACTIONS;
        let mut kinds = vec![
            EventKind::Frag,
            EventKind::Suicide,
            EventKind::TeamKill,
            EventKind::Award,
            EventKind::Leave,
            EventKind::Assist,
            EventKind::Headshot,
        ];
        kinds.extend(teams.iter().map(|&t| EventKind::TeamChange(t)));
        for &f in &flags {
            kinds.extend(teams.iter().map(|&t| EventKind::Flag(f, t)));
        }
        let numbers = [
            0u64,
            1,
            127,
            128,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ];
        let events: Vec<Event> = (0..kinds.len() * numbers.len())
            .map(|i| {
                let n = |k: usize| numbers[(i + k) % numbers.len()];
                Event {
                    time: n(1) as u32,
                    line: n(2),
                    kind: kinds[i % kinds.len()],
                    actor: n(3) as u32,
                    target: if i % 3 == 0 {
                        crate::model::NO_PLAYER
                    } else {
                        n(4) as u32
                    },
                    detail: n(5) as u16,
                }
            })
            .collect();
        let bytes = postcard::to_allocvec(&events).unwrap();
        assert_eq!(read_postcard(&bytes), Some(events.clone()));
        assert_eq!(
            read_postcard(&postcard::to_allocvec(&Vec::<Event>::new()).unwrap()),
            Some(vec![])
        );
        for cut in [1, 2, 5, bytes.len() / 2, bytes.len() - 1] {
            assert_eq!(read_postcard(&bytes[..cut]), None, "cut at {cut}");
        }
        let mut trailing = bytes.clone();
        trailing.push(0);
        assert_eq!(read_postcard(&trailing), None);
        // An unknown kind (variant 9).
        let one = postcard::to_allocvec(&vec![events[0]]).unwrap();
        let mut unknown = one.clone();
        let kind_at = 1 + 1 + postcard::to_allocvec(&events[0].line).unwrap().len();
        unknown[kind_at] = 9;
        assert_eq!(read_postcard(&unknown), None);
        assert!(postcard::from_bytes::<Vec<Event>>(&unknown).is_err());
    }

    /// Events survive the trip through bytes, stay packed when read, and a packed copy
    /// written again gives the same bytes; changed, they are decoded for good.
    #[test]
    fn packed_until_changed() {
        let events = Events::from(vec![event(1), event(2)]);
        let bytes = postcard::to_allocvec(&events).unwrap();
        let mut back: Events = postcard::from_bytes(&bytes).unwrap();
        assert!(back.is_packed() && !back.is_stored());
        assert_eq!(postcard::to_allocvec(&back).unwrap(), bytes);
        assert_eq!(back.len(), 2);
        assert_eq!(back.read().len(), 2);
        assert!(back.is_packed(), "reading keeps nothing decoded");
        assert_eq!(back, events);
        back.push(event(3));
        assert!(!back.is_packed());
        let again: Events = postcard::from_bytes(&postcard::to_allocvec(&back).unwrap()).unwrap();
        assert_eq!(again.len(), 3);
        assert_eq!(Events::default().len(), 0);
    }

    /// Packed in memory, events read and write as they did decoded, in fewer bytes held.
    #[test]
    fn packed_in_memory_read_and_write_as_decoded() {
        let decoded = Events::from((0..500).map(event).collect::<Vec<_>>());
        let mut packed = decoded.clone();
        packed.pack();
        assert!(packed.is_packed() && !packed.is_stored());
        assert_eq!((packed.len(), &packed), (500, &decoded));
        assert_eq!(
            postcard::to_allocvec(&packed).unwrap(),
            postcard::to_allocvec(&decoded).unwrap()
        );
        let Inner::Held(held) = &packed.inner else {
            panic!("not in memory")
        };
        let Held::Own(bytes, _) = &**held else {
            panic!("not packed in memory")
        };
        assert!(bytes.len() < 500 * std::mem::size_of::<Event>() / 2);
        let mut none = Events::default();
        none.pack();
        assert_eq!((none.len(), none.read().len()), (0, 0));
    }

    /// Inside `stored_in`, packed events are ranges of the file (outside, copies); both read
    /// and write back as the events they hold, also when many files are read in turn through
    /// the per-thread window, and when the file was replaced after it was opened.
    #[test]
    fn events_decoded_inside_stored_in_are_read_from_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let many: Vec<Vec<Events>> = (0..3u64)
            .map(|f| {
                (0..2000u64)
                    .map(|m| {
                        Events::from(
                            (0..(m % 200))
                                .map(|i| event(f * 1000 + m + i))
                                .collect::<Vec<_>>(),
                        )
                    })
                    .collect()
            })
            .collect();
        let mut loaded = Vec::new();
        for (i, all) in many.iter().enumerate() {
            let bytes = rmp_serde::to_vec(all).unwrap();
            let path = dir.path().join(format!("f{i}"));
            std::fs::write(&path, &bytes).unwrap();
            let file = StoredFile::open(&path).unwrap();
            let stored: Vec<Events> =
                stored_in(&file, &bytes, |b| rmp_serde::from_slice(b).unwrap());
            assert!(
                SOURCE.with_borrow(Option::is_none),
                "restored after decoding"
            );
            assert!(stored.iter().all(Events::is_stored));
            let copied: Vec<Events> = rmp_serde::from_slice(&bytes).unwrap();
            assert!(copied.iter().all(|e| e.is_packed() && !e.is_stored()));
            assert_eq!(&copied, all);
            assert_eq!(rmp_serde::to_vec(&stored).unwrap(), bytes);
            // Replaced (as a state file is, by a rename) while open: still read as it was.
            std::fs::write(dir.path().join("other"), b"x").unwrap();
            std::fs::rename(dir.path().join("other"), &path).unwrap();
            loaded.push(stored);
        }
        // Read across the files in turn, and backwards: the window follows.
        for m in (0..2000).rev() {
            for (f, all) in many.iter().enumerate() {
                assert_eq!(loaded[f][m].read(), all[m].read(), "file {f} match {m}");
                assert_eq!(loaded[f][m].len(), all[m].len());
            }
        }
    }
}
