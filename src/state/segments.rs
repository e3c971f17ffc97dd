//! The settled matches of a log, stored apart from its per-log file in segment files under
//! `files/`, so that a log that grew writes only what it settled since (issue 18: appending one
//! match to a public server's 80 MB history re-encoded and flushed all of it).
//!
//! A segment holds a run of settled matches (sealed like every state file: header, CRC-32,
//! body) and is named `<log hash>-<hash of its bytes>.seg`, so a name never stands for other
//! bytes and an existing segment is never rewritten. The per-log file lists its segments in
//! order with how many matches each holds; loading checks each segment's checksum, header and
//! count, and a log whose segment is missing or damaged is read again from its start.
//!
//! Segments store the fields of the matches by position (see [`super::seal_compact`]); those
//! of earlier versions, by name, load as well, and are written again by position the next
//! time their log grows (once: they decode slower on every build, see [`Segment::named`]).
//!
//! New matches go into a new segment; small trailing segments are merged with it while they are
//! no more than twice its size (a binary counter: a log appended to one match at a time keeps
//! about log2([`SEGMENT_MATCHES`]) small segments, and each match is re-encoded that many times
//! at most). A full read writes segments of [`SEGMENT_MATCHES`] matches, which load on the
//! thread pool side by side.

use anyhow::{Context, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{FileState, Fingerprint, Header, seal, seal_compact, seal_compact_file, unseal_as};
use crate::diagnostics::FileReport;
use crate::model::Match;
use crate::model::events::{Placed, StoredFile, placed, stored_in};
use crate::parse::Checkpoint;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Settled matches per full segment: about 8 MB on a public server's log (4 KB a match), so
/// its 20,000 matches load as ten segments in parallel.
pub const SEGMENT_MATCHES: usize = 2048;

/// One segment file of a log's settled matches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    /// File name inside `files/`.
    pub name: String,
    /// How many matches it holds.
    pub matches: u64,
    /// Loaded from a segment that stores its matches' fields by name (written before they were
    /// stored by position): it loads, but decodes slower on every build, so the next sealing of
    /// its log writes all of the log's segments again by position. Not saved.
    #[serde(skip)]
    pub named: bool,
}

/// The encoded files of one log's state, made when it was read: saved later, unchanged.
#[derive(Debug, Clone, PartialEq)]
pub struct Sealed {
    /// The per-log file.
    pub main: Vec<u8>,
    /// The segments made by this build and not yet written: file name and bytes.
    pub segments: Vec<(String, Vec<u8>)>,
    /// Segments of this build already in place under their names ([`seal_stored`]), not yet
    /// flushed to disk: [`super::prepare`] flushes them before any per-log file names them.
    pub early: Vec<String>,
}

/// The per-log file's content: a [`FileState`] by another name, borrowing its parts, so that
/// the settled matches stored in segments are not encoded again (the field names are
/// [`FileState`]'s, which reads it back).
#[derive(Serialize)]
struct PerLog<'a> {
    path: &'a str,
    size: u64,
    mtime_ns: u128,
    head: Fingerprint,
    before_checkpoint: Option<Fingerprint>,
    report: &'a FileReport,
    checkpoint: &'a Option<Checkpoint>,
    /// The settled matches after the last segment (none when sealed by [`seal_file`]).
    settled: &'a [Match],
    tail: &'a [Match],
    segments: &'a [Segment],
}

impl<'a> PerLog<'a> {
    fn of(f: &'a FileState, settled: &'a [Match], segments: &'a [Segment]) -> PerLog<'a> {
        PerLog {
            path: &f.path,
            size: f.size,
            mtime_ns: f.mtime_ns,
            head: f.head,
            before_checkpoint: f.before_checkpoint,
            report: &f.report,
            checkpoint: &f.checkpoint,
            settled,
            tail: &f.tail,
            segments,
        }
    }
}

/// Seals `f`: its settled matches not yet in its segments go into new segments of at most
/// `per_segment` matches (merged with the small segments before them, see the module doc),
/// `f.segments` is updated to list them all, and the per-log file is encoded last.
pub fn seal_file(f: &mut FileState, per_segment: usize) -> Result<Sealed> {
    seal_into(f, per_segment, None)
}

/// Like [`seal_file`], each new segment written into `files_dir` as soon as it is encoded
/// (through a temporary file renamed into place, not flushed: see [`Sealed::early`]) and its
/// bytes let go, the events of the matches it holds left in that file, read from there from
/// now on (see [`crate::model::Events::store`]). A log's segments are not all held in memory at
/// once beside its matches (issue 41: one log of 460 MB peaked at 192-199 MB with them, 158-172
/// MB without). A segment that cannot be written keeps its bytes, and its matches their events.
pub fn seal_stored(f: &mut FileState, per_segment: usize, files_dir: &Path) -> Result<Sealed> {
    seal_into(f, per_segment, Some(files_dir))
}

/// [`seal_file`], or [`seal_stored`] into `files_dir`.
fn seal_into(f: &mut FileState, per_segment: usize, files_dir: Option<&Path>) -> Result<Sealed> {
    let stored: usize = f.segments.iter().map(|s| s.matches as usize).sum();
    if stored > f.settled.len() || f.segments.iter().any(|s| s.named) {
        // Segments of other matches (never carried over so), or of the slower layout with
        // field names (see `Segment::named`; rewritten once): store everything again.
        f.segments.clear();
    }
    let mut start: usize = f.segments.iter().map(|s| s.matches as usize).sum();
    while let Some(last) = f.segments.last() {
        let (pending, n) = (f.settled.len() - start, last.matches as usize);
        if pending == 0 || n >= per_segment || n > 2 * pending {
            break;
        }
        start -= n;
        f.segments.pop();
    }
    let key = log_key(&f.path);
    // Side by side: a big log's read ends with several segments.
    let new: Vec<(Segment, Option<Vec<u8>>)> = f.settled[start..]
        .par_chunks_mut(per_segment.max(1))
        .map(|chunk| -> Result<(Segment, Option<Vec<u8>>)> {
            if let Some(dir) = files_dir
                && let Ok(segment) = write(dir, key, chunk)
            {
                return Ok((segment, None));
            }
            let (segment, bytes, _) = encode(key, chunk)?;
            Ok((segment, Some(bytes)))
        })
        .collect::<Result<_>>()?;
    let mut sealed = Sealed {
        main: Vec::new(),
        segments: Vec::new(),
        // Those written while the log was read first ([`Early`]).
        early: std::mem::take(&mut f.early),
    };
    for (segment, kept) in new {
        match kept {
            Some(bytes) => sealed.segments.push((segment.name.clone(), bytes)),
            None => sealed.early.push(segment.name.clone()),
        }
        f.segments.push(segment);
    }
    sealed.main = seal(&PerLog::of(f, &[], &f.segments))?;
    Ok(sealed)
}

/// The segment of `matches` of the log `key` names: its name, bytes, and where each match's
/// events lie in them.
fn encode(key: u64, matches: &[Match]) -> Result<(Segment, Vec<u8>, Vec<Placed>)> {
    let (bytes, placed) = placed(|| seal_compact(&matches));
    let bytes = bytes?;
    anyhow::ensure!(
        placed.len() == matches.len(),
        "the events of a match were not placed"
    );
    let hash = super::sealed_file::content_hash(&bytes).context("a segment is not sealed")?;
    let segment = Segment {
        name: segment_name(key, hash),
        matches: matches.len() as u64,
        named: false,
    };
    Ok((segment, bytes, placed))
}

/// The file name of the log `key`'s segment whose bytes have the content hash `hash`.
fn segment_name(key: u64, hash: u64) -> String {
    format!("{key:016x}-{hash:016x}.seg")
}

/// Writes the segment of `matches` of the log `key` into `files_dir` as it is encoded (the
/// same bytes and name as [`encode`]'s, never held whole: issue 41), through a temporary file
/// renamed into place and not flushed, and leaves the events of `matches` in that file.
fn write(files_dir: &Path, key: u64, matches: &mut [Match]) -> Result<Segment> {
    /// Numbers the temporary names of segments written side by side.
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let provisional = segment_name(key, NEXT.fetch_add(1, Ordering::Relaxed));
    let (name, placed) = placed(|| {
        let value: &[Match] = matches;
        seal_compact_file(files_dir, &provisional, &value, |hash| {
            segment_name(key, hash)
        })
    });
    let name = name?;
    anyhow::ensure!(
        placed.len() == matches.len(),
        "the events of a match were not placed"
    );
    let path = files_dir.join(&name);
    let file =
        StoredFile::open(&path).with_context(|| format!("cannot read {} back", path.display()))?;
    for (m, &at) in matches.iter_mut().zip(&placed) {
        m.events.store(&file, at);
    }
    Ok(Segment {
        name,
        matches: matches.len() as u64,
        named: false,
    })
}

/// The full segments of a log written while it is still being read, each as soon as its
/// matches are settled (issue 41: a log that is never rotated held every match's events until
/// its end; one log of 460 MB peaked at 158-172 MB, 67-69 MB with these). They are the
/// segments [`seal_file`] would write first, in the same bytes: made only where every segment
/// the log had is full, so the new ones start where a seal's would.
pub struct Early<'a> {
    files_dir: &'a Path,
    key: u64,
    per_segment: usize,
    /// How many of the matches given ([`Early::settled`]) are in the segments written.
    done: usize,
    /// The segments written, in order.
    written: Vec<Segment>,
    /// A segment could not be written: the rest are left to the seal.
    failed: bool,
}

impl<'a> Early<'a> {
    /// Segments of `per_segment` matches of the log of `f`, whose `settled` matches read before
    /// are all in its segments, to write into `files_dir`; None when they are not, or the
    /// log's last segment is not full (a seal merges it with the new matches).
    pub fn new(
        files_dir: &'a Path,
        f: &FileState,
        settled: usize,
        per_segment: usize,
    ) -> Option<Early<'a>> {
        let stored: usize = f.segments.iter().map(|s| s.matches as usize).sum();
        let full = f
            .segments
            .iter()
            .all(|s| s.matches as usize == per_segment && !s.named);
        (full && stored == settled && per_segment > 0).then(|| Early {
            files_dir,
            key: log_key(&f.path),
            per_segment,
            done: 0,
            written: Vec::new(),
            failed: false,
        })
    }

    /// The first `settled` of `matches` (the matches read so far after the log's settled ones,
    /// in order) are settled: each full segment's worth not written yet is written now, its
    /// matches' events left in its file.
    pub fn settled(&mut self, matches: &mut [Match], settled: usize) {
        let settled = settled.min(matches.len());
        while !self.failed && settled - self.done >= self.per_segment {
            let chunk = &mut matches[self.done..self.done + self.per_segment];
            match write(self.files_dir, self.key, chunk) {
                Ok(segment) => {
                    self.written.push(segment);
                    self.done += self.per_segment;
                }
                Err(_) => self.failed = true,
            }
        }
    }

    /// Adds the segments written to `f`'s, to be flushed when the state is saved.
    pub fn finish(self, f: &mut FileState) {
        f.early.extend(self.written.iter().map(|s| s.name.clone()));
        f.segments.extend(self.written);
    }
}

/// Seals `f` with every settled match inside the per-log file and no segment (a state saved
/// without [`FileState::seal`]; its loader reads that layout too).
pub fn seal_inline(f: &FileState) -> Result<Sealed> {
    Ok(Sealed {
        main: seal(&PerLog::of(f, &f.settled, &[]))?,
        segments: Vec::new(),
        early: Vec::new(),
    })
}

/// The hash of a log's path that its per-log file and segments are named by.
fn log_key(path: &str) -> u64 {
    let mut h = crate::hash::Hasher::new();
    h.str(path);
    h.finish()
}

/// A segment name as [`seal_file`] makes them (a name read from the state is never a path).
pub(super) fn is_segment_name(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".seg") else {
        return false;
    };
    let hex = |s: &str| s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit());
    matches!(stem.split_once('-'), Some((a, b)) if hex(a) && hex(b))
}

/// `file` as loaded from its per-log file in `files_dir`, with the matches of its segments put
/// first in `settled`: None when a segment is missing, damaged, of another header or holds
/// another number of matches than listed (the log is then read again).
pub fn load_settled(files_dir: &Path, mut file: FileState, header: &Header) -> Option<FileState> {
    if file.segments.is_empty() {
        return Some(file);
    }
    let key = format!("{:016x}-", log_key(&file.path));
    let parts: Vec<(Vec<Match>, bool)> = file
        .segments
        .par_iter()
        .map(|s| {
            if !is_segment_name(&s.name) || !s.name.starts_with(&key) {
                return None;
            }
            // Mapped while the matches are decoded, not read into fresh memory (see
            // `FileBytes`); their packed events stay in the file, read from it when needed
            // (see `stored_in`), and the mapping goes once the matches are decoded.
            let path = files_dir.join(&s.name);
            let file = StoredFile::open(&path).ok()?;
            let bytes = crate::mapped::FileBytes::read(&path).ok()?;
            let matches: Vec<Match> = stored_in(&file, &bytes, |b| unseal_as(b, header))?;
            (matches.len() as u64 == s.matches).then(|| (matches, stores_names(&bytes)))
        })
        .collect::<Option<_>>()?;
    for (segment, (_, named)) in file.segments.iter_mut().zip(&parts) {
        segment.named = *named;
    }
    let mut settled = Vec::with_capacity(parts.iter().map(|(p, _)| p.len()).sum::<usize>());
    for (part, _) in parts {
        settled.extend(part);
    }
    settled.append(&mut file.settled);
    file.settled = settled;
    Some(file)
}

/// Whether the sealed bytes of a segment (already checked and decoded) store the fields of
/// its first match by name: a MessagePack array of matches whose first element is a map, not
/// an array (the positional layout).
fn stores_names(bytes: &[u8]) -> bool {
    let Some((_, _, body)) = super::sealed_parts(bytes) else {
        return false;
    };
    let first = match body.first() {
        Some(0x90..=0x9f) => 1,
        Some(0xdc) => 3,
        Some(0xdd) => 5,
        _ => return false,
    };
    matches!(body.get(first), Some(0x80..=0x8f | 0xde | 0xdf))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{FILES_DIR, Loaded, State, load, load_file, save};
    use std::path::PathBuf;

    /// The matches of a real log (the OpenArena bot FFA logs), `n` of them (repeated as needed).
    fn matches(n: usize) -> Vec<Match> {
        let log = format!(
            "{}/tests/fixtures/openarena/ffa",
            env!("CARGO_MANIFEST_DIR")
        );
        let read =
            crate::read::read_logs_incremental(&[PathBuf::from(log)], Default::default()).unwrap();
        assert!(!read.matches.is_empty());
        read.matches
            .to_vec()
            .iter()
            .cycle()
            .take(n)
            .cloned()
            .collect()
    }

    /// A changed log's state holding `settled` (sealed by `seal_file` with `per_segment`).
    fn state_of(mut f: FileState, settled: &[Match], per_segment: usize) -> (State, Sealed) {
        f.settled = settled.to_vec();
        f.changed = true;
        let sealed = seal_file(&mut f, per_segment).unwrap();
        f.sealed = Some(sealed.clone());
        (State::new(vec![f]), sealed)
    }

    fn empty_file(path: &str) -> FileState {
        FileState::unread(path.into(), "log")
    }

    fn loaded(dir: &Path) -> FileState {
        match load(dir) {
            Loaded::State(mut s) => s.files.pop().expect("the log's state"),
            _ => panic!("state not loaded"),
        }
    }

    fn same(a: &[Match], b: &[Match]) -> bool {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| x.id == y.id && x.content == y.content && x.events == y.events)
    }

    fn segment_files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir.join(FILES_DIR))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".seg"))
            .collect();
        names.sort();
        names
    }

    /// Segments written while a log is read are those a seal at its end writes, byte for byte:
    /// the seal then writes only the rest, and the state saved loads every match. A log whose
    /// last segment is not full writes none early (the seal merges it).
    #[test]
    fn segments_written_while_reading_are_the_sealed_ones() {
        let all = matches(23);
        let sealed_dir = tempfile::tempdir().unwrap();
        let (whole, _) = state_of(empty_file("logs/a.log"), &all, 4);
        save(sealed_dir.path(), &whole).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let files = dir.path().join(FILES_DIR);
        std::fs::create_dir_all(&files).unwrap();
        let mut f = empty_file("logs/a.log");
        let mut read = all.clone();
        let mut early = Early::new(&files, &f, 0, 4).expect("no segment yet");
        // Told as a reader tells it: settled counts growing, a window at a time.
        for n in [0, 3, 9, 9, 17, 21] {
            early.settled(&mut read[..n.clamp(9, 23)], n);
        }
        assert_eq!(
            early.written.len(),
            5,
            "every full segment of the 21 settled"
        );
        early.finish(&mut f);
        assert_eq!(f.early.len(), 5);
        assert!(read[..20].iter().all(|m| m.events.is_stored()));
        assert!(!read[20].events.is_stored());
        f.settled = read;
        f.changed = true;
        let sealed = seal_stored(&mut f, 4, &files).unwrap();
        assert_eq!(
            sealed.early.len(),
            6,
            "the 5 written early, then the last of 3"
        );
        assert_eq!(f.segments, whole.files[0].segments);
        f.sealed = Some(sealed);
        save(dir.path(), &State::new(vec![f])).unwrap();
        assert_eq!(segment_files(dir.path()), segment_files(sealed_dir.path()));
        for name in segment_files(dir.path()) {
            let read = |d: &Path| std::fs::read(d.join(FILES_DIR).join(&name)).unwrap();
            assert_eq!(read(dir.path()), read(sealed_dir.path()), "{name}");
        }
        assert!(same(&loaded(dir.path()).settled, &all));
        // A last segment of 3: nothing is written before the seal.
        let mut partial = loaded(dir.path());
        let settled = partial.settled.len();
        partial.settled.clear();
        assert!(Early::new(&files, &partial, settled, 4).is_none());
    }

    /// A log appended to one match at a time writes small segments (each match is encoded a
    /// few times in all), keeps every full segment as it was, and holds few segments; every
    /// state loads with its matches in order.
    #[test]
    fn appends_write_only_the_new_matches() {
        let dir = tempfile::tempdir().unwrap();
        let all = matches(40);
        let (state, sealed) = state_of(empty_file("logs/a.log"), &all[..21], 4);
        assert_eq!(
            sealed.segments.len(),
            6,
            "5 full segments and 1 of one match"
        );
        save(dir.path(), &state).unwrap();
        let full: Vec<String> = state.files[0].segments[..5]
            .iter()
            .map(|s| s.name.clone())
            .collect();
        assert_eq!(segment_files(dir.path()).len(), 6);
        let mut file = loaded(dir.path());
        assert!(same(&file.settled, &all[..21]));
        let mut encoded = 0;
        for n in 22..=all.len() {
            let (state, sealed) = state_of(file, &all[..n], 4);
            let written: usize = sealed
                .segments
                .iter()
                .map(|(name, _)| {
                    let s = state.files[0].segments.iter().find(|s| &s.name == name);
                    s.unwrap().matches as usize
                })
                .sum();
            encoded += written;
            assert!(state.files[0].segments.len() <= n / 4 + 3, "{n}");
            save(dir.path(), &state).unwrap();
            let on_disk = segment_files(dir.path());
            assert_eq!(on_disk.len(), state.files[0].segments.len(), "{n}");
            for name in &full {
                assert!(on_disk.contains(name), "{n}: full segment {name} kept");
            }
            file = loaded(dir.path());
            assert!(same(&file.settled, &all[..n]), "{n}");
        }
        // Each appended match is encoded again a few times at most (log2 of 4, plus its own).
        assert!(encoded <= (all.len() - 21) * 3, "{encoded} matches encoded");
    }

    /// A build stopped after writing its new segment, before its per-log file replaced the old
    /// one, leaves the old state readable; a segment missing or torn makes the log be read
    /// again (no state for it), never a state with matches lost.
    #[test]
    fn torn_appends_are_refused_or_leave_the_old_state() {
        let dir = tempfile::tempdir().unwrap();
        let all = matches(12);
        let (state, _) = state_of(empty_file("logs/a.log"), &all[..9], 4);
        save(dir.path(), &state).unwrap();
        // The new segment written, the per-log file not yet replaced.
        let (_, sealed) = state_of(loaded(dir.path()), &all, 4);
        let files = dir.path().join(FILES_DIR);
        for (name, bytes) in &sealed.segments {
            std::fs::write(files.join(name), bytes).unwrap();
        }
        assert!(same(&loaded(dir.path()).settled, &all[..9]));
        // The per-log file of the append written, and one of its segments missing, or torn.
        let main = crate::state::file_path(dir.path(), "logs/a.log");
        std::fs::write(&main, &sealed.main).unwrap();
        assert!(same(&loaded(dir.path()).settled, &all));
        let (name, bytes) = sealed.segments.last().unwrap();
        std::fs::write(files.join(name), &bytes[..bytes.len() - 1]).unwrap();
        assert!(
            load_file(dir.path(), "logs/a.log").is_none(),
            "torn segment"
        );
        std::fs::remove_file(files.join(name)).unwrap();
        assert!(
            load_file(dir.path(), "logs/a.log").is_none(),
            "missing segment"
        );
        // A count that does not match, or a name that is a path, is refused too.
        std::fs::write(files.join(name), bytes).unwrap();
        let mut f = load_file(dir.path(), "logs/a.log").unwrap();
        assert!(same(&f.settled, &all));
        f.settled.clear();
        f.segments[0].matches += 1;
        std::fs::write(&main, seal(&PerLog::of(&f, &[], &f.segments)).unwrap()).unwrap();
        assert!(load_file(dir.path(), "logs/a.log").is_none(), "wrong count");
        f.segments[0].matches -= 1;
        f.segments[0].name = format!("../{}", f.segments[0].name);
        std::fs::write(&main, seal(&PerLog::of(&f, &[], &f.segments)).unwrap()).unwrap();
        assert!(load_file(dir.path(), "logs/a.log").is_none(), "a path");
    }

    /// Segments stored by position are smaller than the same matches stored by name (the
    /// layout of earlier versions), and segments of either layout load to the same matches.
    #[test]
    fn segments_by_name_or_by_position_load() {
        let dir = tempfile::tempdir().unwrap();
        let all = matches(9);
        let (state, sealed) = state_of(empty_file("logs/a.log"), &all, 4);
        save(dir.path(), &state).unwrap();
        assert!(same(&loaded(dir.path()).settled, &all));
        let files = dir.path().join(FILES_DIR);
        let mut at = 0;
        for (segment, (name, compact)) in state.files[0].segments.iter().zip(&sealed.segments) {
            let n = segment.matches as usize;
            let named = seal(&&all[at..at + n]).unwrap();
            assert!(named.len() > compact.len(), "{name}");
            assert_ne!(&named, compact);
            std::fs::write(files.join(name), named).unwrap();
            at += n;
        }
        assert_eq!(at, all.len());
        assert!(same(&loaded(dir.path()).settled, &all));
    }

    /// A state saved without sealing (every settled match inside the per-log file) loads.
    #[test]
    fn inline_per_log_files_load() {
        let dir = tempfile::tempdir().unwrap();
        let all = matches(5);
        let mut f = empty_file("logs/a.log");
        f.settled = all.clone();
        save(dir.path(), &State::new(vec![f])).unwrap();
        assert!(segment_files(dir.path()).is_empty());
        assert!(same(&loaded(dir.path()).settled, &all));
    }

    /// The state of a fixture in `tests/fixtures`, its one log's file as loaded.
    fn fixture(name: &str) -> FileState {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name);
        match load(&dir) {
            Loaded::State(mut s) | Loaded::Stale(mut s, _) => {
                assert!(s.unreadable.is_empty(), "{name}: {:?}", s.unreadable);
                s.files.pop().expect("the fixture's log")
            }
            _ => panic!("{name} not loaded"),
        }
    }

    /// Segments that store the fields of matches by name (state-v7) load, and the next sealing
    /// of their log writes them all again by position, holding the same matches; positional
    /// segments (state-v7-positional) are kept as they are.
    #[test]
    fn segments_with_field_names_are_rewritten_by_position() {
        let mut named = fixture("state-v7");
        assert!(!named.segments.is_empty() && named.segments.iter().all(|s| s.named));
        let matches = named.settled.clone();
        let old: Vec<String> = named.segments.iter().map(|s| s.name.clone()).collect();
        let sealed = seal_file(&mut named, SEGMENT_MATCHES).unwrap();
        assert!(
            !sealed.segments.is_empty(),
            "the segments are written again"
        );
        let mut rewritten = Vec::new();
        for (name, bytes) in &sealed.segments {
            assert!(
                !old.contains(name) && !stores_names(bytes),
                "{name} by position"
            );
            let part: Vec<Match> = unseal_as(bytes, &Header::current()).unwrap();
            rewritten.extend(part);
        }
        assert!(same(&rewritten, &matches), "the same matches, in order");
        assert!(named.segments.iter().all(|s| !s.named));

        let mut positional = fixture("state-v7-positional");
        assert!(!positional.segments.is_empty());
        assert!(positional.segments.iter().all(|s| !s.named));
        let kept = positional.segments.clone();
        let sealed = seal_file(&mut positional, SEGMENT_MATCHES).unwrap();
        assert!(sealed.segments.is_empty(), "nothing to write again");
        assert_eq!(positional.segments, kept);
    }
}
