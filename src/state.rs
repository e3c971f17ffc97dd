//! Incremental state: what each log file held when it was last read, so the next build parses only
//! new bytes. Per file: size, modification time, a fingerprint of its head and of the bytes before
//! the resume point, the resume [`Checkpoint`], the matches before it (settled) and after it (the
//! tail, re-parsed when the file grows).
//!
//! Stored as MessagePack files (serde, named fields) under `files/`: one per log file (named by a
//! hash of the log's path, holding its [`FileState`]), rewritten only when that log changed, and
//! an index `state.bin` listing the logs and the pages of the site. A log's settled matches,
//! which only ever grow, are kept apart in segment files ([`Segment`], format 7 on): a log that
//! grew by one match writes one small segment and its per-log file, not its whole history again.
//! Every file is written through a temporary file and a rename, so a crash leaves old or new
//! files, each complete in itself; a segment is never rewritten under its name (the name holds a
//! hash of its bytes) and is on disk before the per-log file naming it replaces the old one, so
//! a per-log file newer than the index still describes its log truly. A state from another fragstats, parser or state-format
//! version, or one that cannot be read, is ignored (full parse) with a warning: never a wrong
//! site; a per-log file that is missing or damaged only makes that log be read again.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::diagnostics::FileReport;
use crate::fold;
use crate::hashed_pairs::HashedPairs;
use crate::model::Match;
use crate::parse::Checkpoint;
use crate::progress::timed;

mod lock;
mod sealed_file;
mod segments;
mod spare;
mod v5;

pub use lock::{StateLock, lock};
pub use segments::{Early, Sealed, Segment};

pub use crate::parse::PARSER_VERSION;
/// Bump when the layout of [`State`] changes. Segments store a [`Match`](crate::model::Match)'s
/// fields by position: reordering its fields, or adding one anywhere but last, is a layout
/// change too (`states_of_earlier_versions_lose_no_match_on_upgrade` fails without the bump).
const STATE_FORMAT: u32 = 7;
/// The format before segments: the same index and archive, every settled match inside the
/// per-log file. Read as a stale state (its logs are read again, nothing is lost).
const FORMAT_6: u32 = 6;
/// File name of the state's index inside the state folder.
const STATE_FILE: &str = "state.bin";
/// Folder of the per-log files inside the state folder.
pub const FILES_DIR: &str = "files";
/// Bytes hashed for the head and pre-checkpoint fingerprints.
const FINGERPRINT_BYTES: u64 = 4096;

/// Versions a state was written by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub format: u32,
    pub fragstats: String,
    pub parser: u32,
}

impl Header {
    /// The versions of this program.
    pub fn current() -> Header {
        Header {
            format: STATE_FORMAT,
            fragstats: env!("CARGO_PKG_VERSION").to_string(),
            parser: PARSER_VERSION,
        }
    }
}

/// A hash of a byte range of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    pub start: u64,
    pub len: u64,
    pub hash: u64,
}

impl Fingerprint {
    /// Hashes `len` bytes of `file` from `start` (fewer if the file is shorter).
    pub fn of(file: &mut File, start: u64, len: u64) -> std::io::Result<Fingerprint> {
        file.seek(SeekFrom::Start(start))?;
        let mut buf = Vec::with_capacity(len as usize);
        file.take(len).read_to_end(&mut buf)?;
        let mut hash = crate::hash::Hasher::new();
        hash.raw(&buf);
        Ok(Fingerprint {
            start,
            len: buf.len() as u64,
            hash: hash.finish(),
        })
    }

    /// The same range of `file` still has the same bytes.
    pub fn matches(&self, file: &mut File) -> bool {
        Fingerprint::of(file, self.start, self.len).is_ok_and(|now| now == *self)
    }

    /// The head fingerprint of a file.
    pub fn head(file: &mut File) -> std::io::Result<Fingerprint> {
        Fingerprint::of(file, 0, FINGERPRINT_BYTES)
    }

    /// The fingerprint of the bytes just before `offset`.
    pub fn before(file: &mut File, offset: u64) -> std::io::Result<Fingerprint> {
        let start = offset.saturating_sub(FINGERPRINT_BYTES);
        Fingerprint::of(file, start, offset - start)
    }
}

/// What one log file held when it was last read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileState {
    /// Full path as opened.
    pub path: String,
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch (0 when unknown).
    pub mtime_ns: u128,
    pub head: Fingerprint,
    /// Fingerprint of the bytes before the checkpoint.
    pub before_checkpoint: Option<Fingerprint>,
    /// The file's report after reading all of it.
    pub report: FileReport,
    pub checkpoint: Option<Checkpoint>,
    /// Matches before the checkpoint: final.
    pub settled: Vec<Match>,
    /// Matches after it (a match still open at the end is among them, closed at the end).
    pub tail: Vec<Match>,
    /// The segment files holding the first settled matches, in order; `settled` lists them
    /// first when loaded. Written empty by format 6, whose per-log file held every match.
    #[serde(default)]
    pub segments: Vec<Segment>,
    /// Read again by this build (so saved); unchanged logs keep their saved file.
    #[serde(skip)]
    pub changed: bool,
    /// The bytes of its per-log file and new segments, made as soon as it was read
    /// ([`FileState::seal`]), so that its matches need not be kept twice in memory until the
    /// state is saved.
    #[serde(skip)]
    pub sealed: Option<Sealed>,
    /// Segments this build wrote while it read the log ([`segments::Early`]), not yet flushed.
    #[serde(skip)]
    pub early: Vec<String>,
}

impl FileState {
    /// A log about to be read from its start: nothing known of it yet. `path` is where it is,
    /// `rel` how the diagnostics name it.
    pub fn unread(path: String, rel: &str) -> FileState {
        FileState {
            path,
            size: 0,
            mtime_ns: 0,
            head: Fingerprint {
                start: 0,
                len: 0,
                hash: 0,
            },
            before_checkpoint: None,
            report: FileReport::new(rel),
            checkpoint: None,
            settled: Vec::new(),
            tail: Vec::new(),
            segments: Vec::new(),
            changed: true,
            sealed: None,
            early: Vec::new(),
        }
    }

    /// Encodes the per-log file and the segments of the settled matches not yet stored now, and
    /// moves the matches out (settled, then tail): the state saves the encoded bytes later.
    pub fn seal(&mut self) -> Result<Vec<Match>> {
        self.sealed = Some(segments::seal_file(self, segments::SEGMENT_MATCHES)?);
        Ok(self.take_matches())
    }

    /// Like [`FileState::seal`], with the new segments written into `dir`'s `files/` at once
    /// (not flushed: [`prepare`] does, before any per-log file names them) and the matches
    /// they hold read back from them, their events left in the files: a log's events are held
    /// in memory only while it is read (issue 41).
    pub fn seal_stored(&mut self, dir: &Path) -> Result<Vec<Match>> {
        // A state folder that cannot be written keeps the matches in memory (their events
        // packed): saving the state reports it.
        let files_dir = dir.join(FILES_DIR);
        self.sealed = Some(segments::seal_stored(
            self,
            segments::SEGMENT_MATCHES,
            &files_dir,
        )?);
        Ok(self.take_matches())
    }

    /// The segments to write into `files_dir` while this log is read, after the `settled`
    /// matches read before ([`Early`]); None where a seal must merge the last one.
    pub fn early_segments<'a>(&self, files_dir: &'a Path, settled: usize) -> Option<Early<'a>> {
        Early::new(files_dir, self, settled, segments::SEGMENT_MATCHES)
    }

    /// Moves every match out (settled, then tail).
    pub fn take_matches(&mut self) -> Vec<Match> {
        let mut matches = std::mem::take(&mut self.settled);
        matches.append(&mut self.tail);
        matches
    }
}

/// Everything remembered between builds.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub header: Header,
    pub files: Vec<FileState>,
    /// Pages of the site written with this state, and the key of what each was made from, by
    /// path.
    pub pages: HashedPairs<u64>,
    /// The number of each match (by id) in the order they were first read: undated matches are
    /// labelled "Match N" with it, for their whole life. As loaded; a build gives its matches
    /// their numbers ([`crate::model::Match::number`]) and saves those, not a list of its own.
    pub labels: HashedPairs<u32>,
    /// Logs the index names whose per-log file (or one of its segments) could not be read when
    /// the state was loaded: missing, damaged or of another log. Not saved.
    pub unreadable: Vec<String>,
}

impl State {
    /// An empty state of this version.
    pub fn new(files: Vec<FileState>) -> State {
        State {
            header: Header::current(),
            files,
            pages: HashedPairs::default(),
            labels: HashedPairs::default(),
            unreadable: Vec::new(),
        }
    }
}

/// What loading the state found.
pub enum Loaded {
    /// No state yet (first build, or `--full`).
    None,
    State(State),
    /// A state that cannot be used, and why (the build reads everything again).
    Discarded(String),
    /// A state of the same layout written by another fragstats or parser version: its logs are
    /// read again, but what it holds of logs that are gone or changed is still archived.
    Stale(State, String),
}

/// The state file inside `dir`.
pub fn path(dir: &Path) -> PathBuf {
    dir.join(STATE_FILE)
}

/// What `state.bin` holds after its [`Header`]: the logs with a per-log file, and the pages of
/// the site and the matches' numbers (written as lists of `(text, value)` pairs, see
/// [`IndexRef`]), read by the hashes of their texts.
#[derive(Debug, Deserialize)]
struct Index {
    files: Vec<String>,
    pages: HashedPairs<u64>,
    labels: HashedPairs<u32>,
}

/// An [`Index`] of borrowed parts, encoded to the same bytes.
#[derive(Serialize)]
struct IndexRef<'a> {
    files: Vec<&'a str>,
    pages: PairsRef<'a, u64>,
    labels: PairsRef<'a, u32>,
}

/// Pairs of a text and a value, in order, as something that can go through them (twice:
/// counted, then written): the site's page keys (path, key) and the matches' numbers (id,
/// number) of the state's own lists, or of the site's files and the history's matches a build
/// just made (whose paths and ids are not copied into lists of their own: 4 MB each at 64,000
/// matches).
pub trait Pairs<V>: Sync {
    /// Calls `each` on every pair, in order.
    fn each(&self, each: &mut dyn FnMut(&str, V));
}

impl<V: Copy + Sync> Pairs<V> for Vec<(String, V)> {
    fn each(&self, each: &mut dyn FnMut(&str, V)) {
        self.iter().for_each(|(text, value)| each(text, *value));
    }
}

/// No pairs (see [`save`]).
const NO_PAIRS: NoPairs = NoPairs;

/// See [`NO_PAIRS`].
struct NoPairs;

impl<V> Pairs<V> for NoPairs {
    fn each(&self, _: &mut dyn FnMut(&str, V)) {}
}

/// [`Pairs`] encoded as the list of pairs they are.
struct PairsRef<'a, V>(&'a dyn Pairs<V>);

impl<V: Serialize> Serialize for PairsRef<'_, V> {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut count = 0;
        self.0.each(&mut |_, _| count += 1);
        let mut seq = serializer.serialize_seq(Some(count))?;
        let mut failed = None;
        self.0.each(&mut |text, value| {
            if failed.is_none()
                && let Err(e) = seq.serialize_element(&(text, value))
            {
                failed = Some(e);
            }
        });
        match failed {
            Some(e) => Err(e),
            None => seq.end(),
        }
    }
}

/// The per-log file of the log at `path`.
fn file_path(dir: &Path, path: &str) -> PathBuf {
    let mut h = crate::hash::Hasher::new();
    h.str(path);
    dir.join(FILES_DIR).join(format!("{:016x}.bin", h.finish()))
}

/// The bytes of a per-log or checkpoint file: this version's [`Header`], a CRC-32 of `value`'s
/// encoding, then that encoding. The checksum catches damage that still decodes, such as bytes
/// changed inside the packed events of a match ([`crate::model::Events`]), which are decoded
/// only when used.
fn seal(value: &impl Serialize) -> Result<Vec<u8>> {
    seal_as(value, &Header::current())
}

/// Like [`seal`], with the fields of structs stored by position, not by name: for the segments
/// of settled matches (80 MB on a public server's site), which every build loads whole. Without
/// the names they are an eighth smaller and decode faster; [`unseal_as`] reads either layout
/// (segments of earlier versions stored the names), and the field order is fixed by the types,
/// which a state of this version shares.
fn seal_compact(value: &impl Serialize) -> Result<Vec<u8>> {
    seal_with(&Header::current(), |bytes| {
        // Placing: inside `events::placed`, where each match's events go is noted.
        let start = bytes.len() as u64;
        let mut writer = crate::model::events::PlacingWriter::new(bytes, start);
        rmp_serde::encode::write(&mut writer, value).context("cannot encode the state")
    })
}

/// Like [`seal_compact`], straight into a new file in `dir` as it is encoded, not held
/// ([`sealed_file::write_compact`]), renamed to the name `name` makes of the bytes'
/// [`sealed_file::content_hash`] and not flushed; gives that name. Until then the file is
/// `.<provisional>.tmp-<pid>`, removed on failure (and by a later build if left by a crash).
fn seal_compact_file(
    dir: &Path,
    provisional: &str,
    value: &impl Serialize,
    name: impl FnOnce(u64) -> String,
) -> Result<String> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create state folder {}", dir.display()))?;
    let tmp = dir.join(format!(".{provisional}.tmp-{}", std::process::id()));
    let mut staged = Staged {
        tmp: Some(tmp.clone()),
        target: dir.join(provisional),
    };
    let file = File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
    let hash = sealed_file::write_compact(&file, &Header::current(), value)
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    drop(file);
    let name = name(hash);
    staged.target = dir.join(&name);
    staged.commit()?;
    Ok(name)
}

/// Like [`seal`], with `header` in place of this version's.
fn seal_as(value: &impl Serialize, header: &Header) -> Result<Vec<u8>> {
    seal_with(header, |bytes| {
        rmp_serde::encode::write_named(bytes, value).context("cannot encode the state")
    })
}

/// `header`, the CRC-32 of the body, then the body, which `encode` appends to the bytes it is
/// given: it is encoded in place, after the header, not copied there (the checkpoint and a
/// big log's file are around 100 MB).
fn seal_with(header: &Header, encode: impl FnOnce(&mut Vec<u8>) -> Result<()>) -> Result<Vec<u8>> {
    let mut bytes = postcard::to_allocvec(header).context("cannot encode")?;
    let start = bytes.len() + 4;
    bytes.extend([0; 4]);
    encode(&mut bytes)?;
    let sum = crc32fast::hash(&bytes[start..]).to_le_bytes();
    bytes[start - 4..start].copy_from_slice(&sum);
    Ok(bytes)
}

/// The header, the checksum and the body of sealed bytes ([`seal_with`]), the checksum not
/// yet checked against the body.
fn sealed_parts(bytes: &[u8]) -> Option<(Header, &[u8], &[u8])> {
    let (header, rest) = postcard::take_from_bytes::<Header>(bytes).ok()?;
    if rest.len() < 4 {
        return None;
    }
    let (sum, body) = rest.split_at(4);
    Some((header, sum, body))
}

/// The header and body of sealed bytes whose checksum holds.
fn unseal_body(bytes: &[u8]) -> Option<(Header, &[u8])> {
    let (header, sum, body) = sealed_parts(bytes)?;
    (crc32fast::hash(body).to_le_bytes() == sum).then_some((header, body))
}

/// The value in bytes made by [`seal`] with `expected`'s header.
fn unseal_as<T: serde::de::DeserializeOwned>(bytes: &[u8], expected: &Header) -> Option<T> {
    let (header, body) = unseal_body(bytes)?;
    if header != *expected {
        return None;
    }
    rmp_serde::from_slice(body).ok()
}

/// Reads the per-log file of `path`: None when it is missing, damaged, of another version or
/// of another log.
#[cfg(test)]
fn load_file(dir: &Path, path: &str) -> Option<FileState> {
    load_file_as(dir, path, &Header::current())
}

/// Reads the per-log file of `path` written with `header`.
fn load_file_as(dir: &Path, path: &str, header: &Header) -> Option<FileState> {
    let bytes = std::fs::read(file_path(dir, path)).ok()?;
    let file: FileState = if header.format == v5::FORMAT {
        let (found, body) = unseal_body(&bytes)?;
        (found == *header).then(|| v5::file_state(body))??
    } else {
        unseal_as(&bytes, header)?
    };
    if file.path != path {
        return None;
    }
    segments::load_settled(&dir.join(FILES_DIR), file, header)
}

/// Loads the state from `dir`.
pub fn load(dir: &Path) -> Loaded {
    load_as(dir, true)
}

/// Loads the state from `dir` without its matches: each log's are checked as [`load`] does,
/// then let go of; [`load_matches`] reads them again one log at a time. For a build that
/// reads every log again (`--full`), which wants the previous matches only to archive those
/// no log holds any more: held all at once they were as large as the history.
pub fn load_without_matches(dir: &Path) -> Loaded {
    load_as(dir, false)
}

/// The matches the saved state of the log at `path` holds, read again from `dir` as a state
/// with `header` (see [`load_without_matches`]); None when they cannot be read.
pub fn load_matches(dir: &Path, header: &Header, path: &str) -> Option<Vec<Match>> {
    load_file_as(dir, path, header).map(|mut f| f.take_matches())
}

fn load_as(dir: &Path, matches: bool) -> Loaded {
    use rayon::prelude::*;
    let bytes = match std::fs::read(path(dir)) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Loaded::None,
        Err(e) => return Loaded::Discarded(format!("cannot read {}: {e}", path(dir).display())),
    };
    let header: Header = match postcard::take_from_bytes::<Header>(&bytes) {
        Ok((h, _)) => h,
        Err(e) => return Loaded::Discarded(format!("state file is damaged ({e})")),
    };
    let other_version = format!(
        "state was written by fragstats {} (parser {}, format {}); this is {} (parser {}, format {})",
        header.fragstats,
        header.parser,
        header.format,
        env!("CARGO_PKG_VERSION"),
        PARSER_VERSION,
        STATE_FORMAT
    );
    let index = match header.format {
        STATE_FORMAT | FORMAT_6 => {
            let (_, body) = postcard::take_from_bytes::<Header>(&bytes).expect("read above");
            rmp_serde::from_slice::<Index>(body).map_err(|e| e.to_string())
        }
        v5::FORMAT => postcard::from_bytes::<v5::Index>(&bytes)
            .map(|i| Index {
                files: i.files,
                pages: HashedPairs::from_pairs(i.pages.iter().map(|(t, v)| (t.as_str(), *v))),
                labels: HashedPairs::from_pairs(i.labels.iter().map(|(t, v)| (t.as_str(), *v))),
            })
            .map_err(|e| e.to_string()),
        _ => return Loaded::Discarded(other_version),
    };
    let index = match index {
        Ok(index) => index,
        Err(e) => return Loaded::Discarded(format!("state file is damaged ({e})")),
    };
    let loaded: Vec<Result<FileState, &String>> = index
        .files
        .par_iter()
        .map(|p| {
            let mut file = load_file_as(dir, p, &header).ok_or(p)?;
            if !matches {
                drop(file.take_matches());
            }
            Ok(file)
        })
        .collect();
    let (mut files, mut unreadable) = (Vec::new(), Vec::new());
    for file in loaded {
        match file {
            Ok(f) => files.push(f),
            Err(p) => unreadable.push(p.clone()),
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let state = State {
        header: header.clone(),
        files,
        pages: index.pages,
        labels: index.labels,
        unreadable,
    };
    if header == Header::current() {
        Loaded::State(state)
    } else {
        Loaded::Stale(state, other_version)
    }
}

/// Saves the state into `dir`: the per-log file of every changed log, then the index, then
/// removes the per-log files of logs that are gone. Each through a temporary file, flushed to
/// disk, then renamed. The index keeps no page keys nor match numbers (a state holds them by
/// hash only): a build writes those from the pages and matches it made ([`stage_index`]).
pub fn save(dir: &Path, state: &State) -> Result<()> {
    let prepared = prepare(dir, state)?;
    let index = stage_index(dir, state, &NO_PAIRS, &NO_PAIRS)?;
    save_prepared(dir, state, prepared, index)
}

/// The first half of [`save`], which a build runs on a thread of its own while it renders (so
/// one file after the other, off the thread pool): every changed log's file written to a
/// temporary file and flushed to disk (nothing the state holds is replaced yet).
pub fn prepare(dir: &Path, state: &State) -> Result<Prepared> {
    let files_dir = dir.join(FILES_DIR);
    let staged: Vec<Result<Staged>> = state
        .files
        .iter()
        .filter(|f| f.changed)
        .flat_map(|f| {
            let encoded;
            let sealed = match &f.sealed {
                Some(sealed) => sealed,
                None => match segments::seal_inline(f) {
                    Ok(sealed) => {
                        encoded = sealed;
                        &encoded
                    }
                    Err(e) => return vec![Err(e)],
                },
            };
            let target = file_path(dir, &f.path);
            let name = target.file_name().expect("a file name").to_string_lossy();
            // The new segments first: a per-log file never names a segment not yet written
            // and flushed.
            let flushed = sealed.early.iter().map(|name| {
                let path = files_dir.join(name);
                let flushed = File::open(&path).and_then(|f| f.sync_all());
                flushed.with_context(|| format!("cannot flush {}", path.display()))
            });
            let mut staged: Vec<Result<Staged>> =
                flushed.filter_map(Result::err).map(Err).collect();
            staged.extend(
                (sealed.segments.iter())
                    .map(|(segment, bytes)| stage_file(&files_dir, segment, bytes)),
            );
            staged.push(stage_file(&files_dir, &name, &sealed.main));
            staged
        })
        .collect();
    // On an error the files staged so far are dropped, which removes them.
    let files = staged.into_iter().collect::<Result<Vec<_>>>()?;
    Ok(Prepared { files })
}

/// The index of a state (its header, its logs, the site's page keys), written and flushed
/// under a temporary name by [`stage_index`], waiting for [`save_prepared`] (dropped, it is
/// removed and the old state stays as it was).
#[derive(Debug)]
pub struct StagedIndex(Staged);

/// The index of `state` with the site's page keys `pages` and the matches' numbers `numbers`
/// (in place of `state.pages` and `state.labels`) written to a temporary file beside the
/// state's and flushed to disk, replacing nothing yet. A build runs this beside publishing the
/// site (the page keys are known once the pages are made): the index of a public server's site
/// holds 100,000 keys.
pub fn stage_index(
    dir: &Path,
    state: &State,
    pages: &dyn Pairs<u64>,
    numbers: &dyn Pairs<u32>,
) -> Result<StagedIndex> {
    // Borrowed, not copied: a key per page and a label per match.
    let index = IndexRef {
        files: state.files.iter().map(|f| f.path.as_str()).collect(),
        pages: PairsRef(pages),
        labels: PairsRef(numbers),
    };
    let header = postcard::to_allocvec(&state.header).context("cannot encode the state")?;
    // Encoded straight into the file: in memory it was 8 MB at 64,000 matches, copied once.
    stage_written(dir, STATE_FILE, true, &mut |f| {
        f.write_all(&header)?;
        rmp_serde::encode::write_named(f, &index).context("cannot encode the state")
    })
    .map(StagedIndex)
}

/// The second half of [`save`]: the files [`prepare`] wrote replace the old ones, then the
/// `index` [`stage_index`] wrote replaces the old one, and the files of logs that are gone
/// are removed.
pub fn save_prepared(
    dir: &Path,
    state: &State,
    mut prepared: Prepared,
    index: StagedIndex,
) -> Result<()> {
    let files_dir = dir.join(FILES_DIR);
    for staged in std::mem::take(&mut prepared.files) {
        staged.commit()?;
    }
    index.0.commit()?;
    let keep: std::collections::HashSet<PathBuf> = state
        .files
        .iter()
        .flat_map(|f| {
            let segments = f.segments.iter().map(|s| files_dir.join(&s.name));
            std::iter::once(file_path(dir, &f.path)).chain(segments)
        })
        .collect();
    if let Ok(entries) = std::fs::read_dir(&files_dir) {
        for entry in entries.flatten() {
            let p = entry.path();
            // Only files a build makes there: anything else was put there by someone else.
            let ours = entry.file_name().to_str().is_some_and(made_here);
            if ours && !keep.contains(&p) {
                let _ = std::fs::remove_file(p);
            }
        }
    }
    Ok(())
}

/// A name of a file that a build writes under `files/`: a per-log file, a segment, or one
/// of their temporary files (left by a build that was killed).
fn made_here(name: &str) -> bool {
    let name = match name.strip_prefix('.').and_then(|n| n.rsplit_once(".tmp-")) {
        Some((target, pid)) if !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()) => target,
        _ => name,
    };
    let per_log = name
        .strip_suffix(".bin")
        .is_some_and(|h| h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit()));
    per_log || segments::is_segment_name(name)
}

/// Writes `bytes` to `dir/name` through a temporary file, flushed to disk, then renamed, so a
/// crash leaves either the old file or the new one.
fn replace_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    stage_file(dir, name, bytes)?.commit()
}

/// Writes `bytes` to a temporary file beside `dir/name`, flushed to disk: [`Staged::commit`]
/// renames it over `dir/name`; dropped uncommitted, it is removed.
fn stage_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<Staged> {
    stage_file_with(dir, name, bytes, true)
}

/// Like [`stage_file`]; `flush` false leaves the bytes to the system's write-back, for a file
/// whose damage after a crash costs only time (its checksum refuses it).
fn stage_file_with(dir: &Path, name: &str, bytes: &[u8], flush: bool) -> Result<Staged> {
    stage_written(dir, name, flush, &mut |f| Ok(f.write_all(bytes)?))
}

/// Like [`stage_file_with`], the bytes written by `write` (through a buffer).
fn stage_written(
    dir: &Path,
    name: &str,
    flush: bool,
    write: &mut dyn FnMut(&mut dyn Write) -> Result<()>,
) -> Result<Staged> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create state folder {}", dir.display()))?;
    let target = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let staged = Staged {
        tmp: Some(tmp.clone()),
        target,
    };
    let f = File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
    let mut buffered = std::io::BufWriter::with_capacity(1 << 16, f);
    write(&mut buffered)?;
    let f = buffered
        .into_inner()
        .map_err(std::io::IntoInnerError::into_error)?;
    if flush {
        f.sync_all()?;
    }
    Ok(staged)
}

/// A file written and flushed under a temporary name, waiting to replace its target.
#[derive(Debug)]
struct Staged {
    tmp: Option<PathBuf>,
    target: PathBuf,
}

impl Staged {
    /// Renames the file over its target (atomic: a crash leaves the old file or the new one).
    fn commit(mut self) -> Result<()> {
        let tmp = self.tmp.take().expect("a staged file is committed once");
        std::fs::rename(&tmp, &self.target)
            .with_context(|| format!("cannot replace {}", self.target.display()))
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// The changed logs' state files, written and flushed by [`prepare`], waiting for
/// [`save_prepared`] (dropped, they are removed and the old state stays as it was).
#[derive(Debug, Default)]
pub struct Prepared {
    files: Vec<Staged>,
}

/// File name of the archive inside the state folder.
const ARCHIVE_FILE: &str = "archive.bin";

/// Matches whose content no log holds any more (their log was truncated, rotated away,
/// replaced or deleted), kept until the admin forgets them (`fragstats forget`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Archive {
    pub matches: Vec<Archived>,
    /// Number of the next batch.
    pub next_batch: u64,
    /// Differs from the saved archive (only then is it written again).
    #[serde(skip)]
    pub changed: bool,
}

/// One archived match and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Archived {
    /// The log it was read from, as opened (its place in the file order).
    pub origin: String,
    /// What one build archived is a batch; earlier batches are older content.
    pub batch: u64,
    pub m: Match,
}

/// What loading the archive found.
pub enum LoadedArchive {
    Archive(Archive),
    /// An archive this version cannot read: moved aside to the path given, never deleted.
    SetAside(PathBuf),
}

/// Loads the archive from `dir` (empty when there is none). One that cannot be decoded is
/// renamed to `archive.bin.unreadable-<seconds>`, so that the next save does not overwrite it;
/// one that cannot be read at all is an error (an empty archive saved over it would lose it).
pub fn load_archive(dir: &Path) -> Result<LoadedArchive> {
    let path = dir.join(ARCHIVE_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(LoadedArchive::Archive(Archive::default()));
        }
        Err(e) => {
            return Err(e).with_context(|| {
                format!(
                    "cannot read the archive {}: fix its permissions (nothing was built)",
                    path.display()
                )
            });
        }
    };
    let decoded = unseal_body(&bytes).and_then(|(header, body)| {
        if !header.fragstats.is_empty() || header.parser != 0 {
            return None;
        }
        match header.format {
            STATE_FORMAT | FORMAT_6 => rmp_serde::from_slice(body).ok(),
            v5::FORMAT => v5::archive(body),
            _ => None,
        }
    });
    if let Some(a) = decoded {
        return Ok(LoadedArchive::Archive(a));
    }
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let aside = dir.join(format!("{ARCHIVE_FILE}.unreadable-{secs}"));
    std::fs::rename(&path, &aside)
        .with_context(|| format!("cannot set aside the unreadable archive {}", path.display()))?;
    Ok(LoadedArchive::SetAside(aside))
}

/// What saving the archive has to do.
pub enum ArchiveWrite {
    /// The archive did not change.
    Keep,
    /// Write these bytes.
    Write(Vec<u8>),
    /// The archive is empty: no file.
    Remove,
}

/// What saving `archive` has to do, with the file's bytes when it changed. Made before the
/// archived matches move into the build, so they are not kept twice.
pub fn encode_archive(archive: &Archive) -> Result<ArchiveWrite> {
    if !archive.changed {
        return Ok(ArchiveWrite::Keep);
    }
    if archive.matches.is_empty() {
        return Ok(ArchiveWrite::Remove);
    }
    // Only the layout is in the header: archived matches stay as they were parsed, whatever
    // later fragstats or parser versions read the present logs with.
    let header = Header {
        format: STATE_FORMAT,
        fragstats: String::new(),
        parser: 0,
    };
    let bytes = seal_as(archive, &header).context("cannot encode the archive")?;
    Ok(ArchiveWrite::Write(bytes))
}

/// Does what [`encode_archive`] said, atomically.
pub fn save_archive(dir: &Path, write: &ArchiveWrite) -> Result<()> {
    match write {
        ArchiveWrite::Keep => Ok(()),
        ArchiveWrite::Write(bytes) => replace_file(dir, ARCHIVE_FILE, bytes),
        ArchiveWrite::Remove => match std::fs::remove_file(dir.join(ARCHIVE_FILE)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(e).context("cannot update the archive")
            }
            _ => Ok(()),
        },
    }
}

/// File name of the checkpoint of the counts and ratings inside the state folder.
const CHECKPOINT_FILE: &str = "ratings.bin";

/// Loads the checkpoint of the counts and ratings from `dir`, the caller holding the folder's
/// [`lock`] (see [`spare`]): None when there is none or it cannot be read (everything is then
/// counted and rated from the first match; the checkpoint itself says whether it fits the
/// build). Reading and decoding are timed apart (see [`crate::progress::timed`]): the file is
/// about 56 MB on a public server's site.
pub fn load_checkpoint(dir: &Path, cfg: &crate::config::RatingConfig) -> Option<fold::Restored> {
    // Mapped, not read into a buffer: the decoder reads the system's copy of the file, and
    // none of its bytes are copied into fresh memory ([`crate::mapped`]). The rating systems'
    // saved bytes are borrowed from it while their states are restored.
    let bytes = timed("checkpoint read", || {
        crate::mapped::FileBytes::read(&dir.join(CHECKPOINT_FILE))
    })
    .ok()?;
    let checkpoint = timed("checkpoint check and decode", || decode_borrowed(&bytes))?;
    Some(checkpoint.restore(cfg))
}

/// The checkpoint in the bytes of a checkpoint file, if they hold an undamaged one of this
/// fragstats.
pub fn decode_checkpoint(bytes: &[u8]) -> Option<fold::Checkpoint<'static>> {
    decode_borrowed(bytes).map(fold::Checkpoint::into_owned)
}

/// [`decode_checkpoint`], the rating systems' saved bytes borrowed from `bytes`.
fn decode_borrowed(bytes: &[u8]) -> Option<fold::Checkpoint<'_>> {
    // A cache of what the matches give (checked against them before use), so compact postcard:
    // another layout is simply not used.
    let (header, sum, body) = sealed_parts(bytes)?;
    if header != Header::current() {
        return None;
    }
    // The checksum (about 0.02 s over a public server's 56 MB) is computed beside the
    // decoding, on a thread of its own (rayon's are loading the state meanwhile): what damaged
    // bytes decode to is dropped unused. Decoding them is safe: every length read from the
    // input is checked against the bytes left, and no reader reserves more than a bounded
    // share of what a length says before the elements are there.
    std::thread::scope(|s| {
        let sound = s.spawn(|| crc32fast::hash(body).to_le_bytes() == sum);
        let decoded = postcard::from_bytes(body).ok();
        let sound = sound
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        decoded.filter(|_| sound)
    })
}

/// The bytes of the checkpoint file for `checkpoint`.
pub fn encode_checkpoint(checkpoint: &fold::Checkpoint) -> Result<Vec<u8>> {
    timed("checkpoint encode and checksum", || {
        seal_with(&Header::current(), |bytes| {
            *bytes = crate::codec::extend_sized(checkpoint, std::mem::take(bytes))
                .context("cannot encode the checkpoint")?;
            Ok(())
        })
    })
}

/// File name of the checkpoint's spare inside the state folder: the checkpoint before the
/// current one, overwritten by the next ([`spare`]).
const CHECKPOINT_SPARE: &str = "ratings.spare.bin";

/// Writes the next checkpoint file into `dir`, to replace the old one when committed
/// ([`WrittenCheckpoint::commit`]): over the spare by `into_spare` when `in_place` (the caller
/// holds the folder's [`lock`]; see [`spare`]), else (or where the spare cannot be written)
/// the bytes `whole` gives to a temporary file. It is not flushed to disk: it is a cache of what
/// the matches give, so a file a crash damaged fails its checksum and the next build rates every
/// match again, and nothing is lost (flushing its ~56 MB cost a public server's site about
/// 0.1 s per build).
fn write_checkpoint<'a>(
    dir: &Path,
    in_place: bool,
    into_spare: impl FnOnce(&Path) -> Result<()>,
    whole: impl FnOnce() -> Result<std::borrow::Cow<'a, [u8]>>,
) -> Result<WrittenCheckpoint> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create state folder {}", dir.display()))?;
    let spare = dir.join(CHECKPOINT_SPARE);
    if in_place && into_spare(&spare).is_ok() {
        return Ok(WrittenCheckpoint::Spare {
            spare,
            target: dir.join(CHECKPOINT_FILE),
        });
    }
    stage_file_with(dir, CHECKPOINT_FILE, &whole()?, false).map(WrittenCheckpoint::Staged)
}

/// A checkpoint file written beside the current one, waiting to replace it. Dropped
/// uncommitted, the current one stays (a staged file is removed; the spare is overwritten by
/// the next checkpoint anyway).
enum WrittenCheckpoint {
    Spare { spare: PathBuf, target: PathBuf },
    Staged(Staged),
}

impl WrittenCheckpoint {
    /// Puts the file in the place of the current checkpoint.
    fn commit(self) -> Result<()> {
        match self {
            WrittenCheckpoint::Spare { spare, target } => spare::swap_in(&spare, &target)
                .with_context(|| format!("cannot replace {}", target.display())),
            WrittenCheckpoint::Staged(staged) => staged.commit(),
        }
    }
}

/// A checkpoint written beside the rest of a build, which commits it once the site is
/// published: a build that fails keeps the checkpoint it had. Dropped uncommitted, it leaves
/// the current checkpoint.
pub struct CheckpointSave(Result<WrittenCheckpoint>);

impl CheckpointSave {
    /// Writes `bytes` (made by [`encode_checkpoint`]) as the next checkpoint file in `dir`,
    /// over its spare when `in_place` (the caller holds the folder's [`lock`]).
    pub fn from_bytes(dir: &Path, bytes: &[u8], in_place: bool) -> CheckpointSave {
        CheckpointSave(timed("checkpoint write", || {
            write_checkpoint(
                dir,
                in_place,
                |spare| Ok(spare::write(spare, bytes)?),
                || Ok(bytes.into()),
            )
        }))
    }

    /// Writes the checkpoint file of `checkpoint` into `dir`: encoded straight over the spare
    /// when `in_place` (the caller holds the folder's [`lock`]; see [`sealed_file`]), else (or
    /// where the spare cannot be written) encoded in memory and written to a temporary file.
    pub fn write(dir: &Path, checkpoint: &fold::Checkpoint, in_place: bool) -> CheckpointSave {
        CheckpointSave(timed("checkpoint encode and write", || {
            write_checkpoint(
                dir,
                in_place,
                |spare| sealed_file::write(&spare::open(spare)?, &Header::current(), checkpoint),
                || Ok(encode_checkpoint(checkpoint)?.into()),
            )
        }))
    }

    /// Puts the file written in the place of the old checkpoint.
    pub fn commit(self) -> Result<()> {
        self.0?.commit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index is saved from borrowed parts in the bytes an [`Index`] is read from.
    #[test]
    fn a_borrowed_index_encodes_as_the_index() {
        let pages = vec![
            ("index.html".to_string(), 7),
            ("m/a.html".to_string(), u64::MAX),
        ];
        let labels = vec![("ab12".to_string(), 3)];
        let borrowed = IndexRef {
            files: vec!["a.log", "b/c.log"],
            pages: PairsRef(&pages),
            labels: PairsRef(&labels),
        };
        /// The index as lists of its own.
        #[derive(Serialize)]
        struct Owned {
            files: Vec<String>,
            pages: Vec<(String, u64)>,
            labels: Vec<(String, u32)>,
        }
        let owned = Owned {
            files: vec!["a.log".to_string(), "b/c.log".to_string()],
            pages: pages.clone(),
            labels: labels.clone(),
        };
        let bytes = rmp_serde::to_vec_named(&borrowed).unwrap();
        assert_eq!(bytes, rmp_serde::to_vec_named(&owned).unwrap());
        let read: Index = rmp_serde::from_slice(&bytes).unwrap();
        assert_eq!(read.files, owned.files);
        assert_eq!(
            pages
                .iter()
                .map(|(t, _)| read.pages.get(t))
                .collect::<Vec<_>>(),
            [Some(7), Some(u64::MAX)]
        );
        assert_eq!(read.labels.get(&labels[0].0), Some(3));
    }

    /// A checkpoint written and committed replaces the old one; one dropped uncommitted (a
    /// build that failed after writing it) leaves the old one, over its spare or staged.
    #[test]
    fn a_checkpoint_replaces_the_old_one_only_when_committed() {
        let dir = tempfile::tempdir().unwrap();
        let current = || std::fs::read(dir.path().join(CHECKPOINT_FILE)).unwrap();
        CheckpointSave::from_bytes(dir.path(), b"first", true)
            .commit()
            .unwrap();
        assert_eq!(current(), b"first");
        for in_place in [true, false] {
            drop(CheckpointSave::from_bytes(dir.path(), b"dropped", in_place));
            assert_eq!(current(), b"first", "in place {in_place}");
            let names = crate::testdata::names_in(dir.path());
            assert!(names.iter().all(|n| !n.contains(".tmp-")), "{names:?}");
        }
        CheckpointSave::from_bytes(dir.path(), b"second", false)
            .commit()
            .unwrap();
        assert_eq!(current(), b"second");
        CheckpointSave::from_bytes(dir.path(), b"third", true)
            .commit()
            .unwrap();
        assert_eq!(current(), b"third");
    }

    #[test]
    fn sealed_bytes_are_header_checksum_body() {
        let value = vec![("a.log".to_string(), 7u64)];
        let body = rmp_serde::to_vec_named(&value).unwrap();
        let mut expected = postcard::to_allocvec(&Header::current()).unwrap();
        expected.extend(crc32fast::hash(&body).to_le_bytes());
        expected.extend(&body);
        assert_eq!(seal(&value).unwrap(), expected);
        assert_eq!(unseal_body(&expected).unwrap().1, &body[..]);
    }

    #[test]
    fn round_trip_and_damage() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(load(dir.path()), Loaded::None));
        let state = State::new(vec![]);
        save(dir.path(), &state).unwrap();
        match load(dir.path()) {
            Loaded::State(s) => assert_eq!(s, state),
            _ => panic!("state not loaded"),
        }
        std::fs::write(path(dir.path()), b"\x01\x02garbage").unwrap();
        assert!(matches!(load(dir.path()), Loaded::Discarded(_)));
        let mut old = State::new(vec![]);
        old.header.parser = PARSER_VERSION + 1;
        save(dir.path(), &old).unwrap();
        match load(dir.path()) {
            Loaded::Stale(_, why) => assert!(why.contains("parser"), "{why}"),
            _ => panic!("old parser version accepted"),
        }
        old.header.format = STATE_FORMAT + 1;
        save(dir.path(), &old).unwrap();
        assert!(matches!(load(dir.path()), Loaded::Discarded(_)));
    }

    /// The state of a first read of the real OpenArena duel logs (several logs, every one changed).
    fn read_duel_logs() -> State {
        let log = format!(
            "{}/tests/fixtures/openarena/duel",
            env!("CARGO_MANIFEST_DIR")
        );
        crate::read::read_logs_incremental(&[PathBuf::from(log)], Default::default())
            .unwrap()
            .state
    }

    /// What `prepare` writes replaces nothing until `save_prepared`; dropped, it leaves the
    /// saved state as it was and no temporary file behind.
    #[test]
    fn prepared_files_replace_the_state_only_when_saved() {
        let dir = tempfile::tempdir().unwrap();
        let mut state = read_duel_logs();
        assert!(state.files.len() > 1 && state.files.iter().all(|f| f.changed));
        save(dir.path(), &state).unwrap();
        let listing = || {
            let mut names: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path().join(FILES_DIR))
                .unwrap()
                .map(|e| {
                    let e = e.unwrap();
                    (
                        e.file_name().to_string_lossy().into_owned(),
                        std::fs::read(e.path()).unwrap(),
                    )
                })
                .collect();
            names.sort();
            names
        };
        let saved = listing();
        let segments: usize = state.files.iter().map(|f| f.segments.len()).sum();
        assert!(segments > 0, "the settled matches are in segments");
        assert_eq!(saved.len(), state.files.len() + segments);
        // Other bytes for the first log: staged, then dropped.
        let first = &mut state.files[0];
        let mut sealed = first.sealed.clone().unwrap();
        sealed.main.push(0);
        first.sealed = Some(sealed);
        drop(prepare(dir.path(), &state).unwrap());
        assert_eq!(listing(), saved, "a dropped preparation changes nothing");
        let prepared = prepare(dir.path(), &state).unwrap();
        assert_eq!(
            listing().len(),
            saved.len() * 2,
            "staged beside the saved files"
        );
        let index = stage_index(dir.path(), &state, &NO_PAIRS, &NO_PAIRS).unwrap();
        save_prepared(dir.path(), &state, prepared, index).unwrap();
        let now = listing();
        assert_eq!(now.len(), saved.len());
        assert_ne!(now, saved, "the staged bytes replaced the saved ones");
    }

    /// Saving removes the per-log files and segments no log refers to, and the temporary files
    /// of a killed build, but nothing else a build did not make (`files/` may be a link).
    #[test]
    fn saving_removes_only_its_own_unreferenced_files() {
        let dir = tempfile::tempdir().unwrap();
        let read = read_duel_logs();
        save(dir.path(), &read).unwrap();
        let files = dir.path().join(FILES_DIR);
        let stale = [
            "0123456789abcdef.bin",
            "0123456789abcdef-fedcba9876543210.seg",
            ".0123456789abcdef.bin.tmp-4242",
            // A segment being written as it is encoded, before it has its name.
            ".0123456789abcdef-0000000000000003.seg.tmp-4242",
        ];
        let foreign = ["notes.txt", "0123456789abcdef.bin.bak", ".x.tmp-1"];
        for name in stale.iter().chain(&foreign) {
            std::fs::write(files.join(name), b"x").unwrap();
        }
        save(dir.path(), &read).unwrap();
        for name in stale {
            assert!(!files.join(name).exists(), "{name} removed");
        }
        for name in foreign {
            assert!(files.join(name).exists(), "{name} kept");
        }
        let state = match load(dir.path()) {
            Loaded::State(s) => s,
            _ => panic!("state not loaded"),
        };
        assert_eq!(state.files.len(), read.files.len());
    }

    /// A build that reads into its state folder keeps no settled match's events in memory:
    /// they are in the segments it wrote at once, read back equal to what the log says; the
    /// state it saves then loads the same matches. A state folder that cannot be written keeps
    /// them in memory instead.
    #[test]
    fn logs_read_into_the_state_folder_leave_their_events_there() {
        let log = format!(
            "{}/tests/fixtures/openarena/ffa",
            env!("CARGO_MANIFEST_DIR")
        );
        let roots = [PathBuf::from(log)];
        let in_memory = crate::read::read_logs_incremental(&roots, Default::default()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let previous = crate::read::Previous {
            store: Some(dir.path().to_path_buf()),
            ..Default::default()
        };
        let read = crate::read::read_logs_incremental(&roots, previous).unwrap();
        let in_memory = in_memory.matches.to_vec();
        let read_matches = read.matches.to_vec();
        assert_eq!(read_matches.len(), in_memory.len());
        let settled: usize = read.state.files.iter().map(|f| f.segments.len()).sum();
        assert!(settled > 0, "the fixture has settled matches");
        for (a, b) in read_matches.iter().zip(&in_memory) {
            assert_eq!(a, b, "match {}", a.id);
        }
        save(dir.path(), &read.state).unwrap();
        // Only the matches after each log's checkpoint (in its per-log file) are in memory.
        let mut tails = 0;
        for f in &read.state.files {
            let loaded = load_file(dir.path(), &f.path).expect("saved state loads");
            assert!(loaded.settled.iter().all(|m| m.events.is_stored()));
            for m in loaded.settled.iter().chain(&loaded.tail) {
                let read = read_matches.iter().find(|r| r.id == m.id);
                assert_eq!(read.map(|r| &r.events), Some(&m.events), "{}", m.id);
            }
            tails += loaded.tail.len();
        }
        let in_memory_now = (read_matches.iter())
            .filter(|m| !m.events.is_stored())
            .count();
        assert_eq!(in_memory_now, tails);
        // A file where the state folder should be: nothing can be written there.
        let blocked = dir.path().join("blocked");
        std::fs::write(&blocked, b"x").unwrap();
        let previous = crate::read::Previous {
            store: Some(blocked),
            ..Default::default()
        };
        let read = crate::read::read_logs_incremental(&roots, previous).unwrap();
        let read_matches = read.matches.to_vec();
        assert!(read_matches.iter().all(|m| !m.events.is_stored()));
        assert_eq!(read_matches, in_memory);
    }

    /// A per-log file whose packed events were changed, though it still decodes, is refused by
    /// its checksum (the log is then read again).
    #[test]
    fn changed_byte_inside_packed_events_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let log = format!(
            "{}/tests/fixtures/openarena/ffa",
            env!("CARGO_MANIFEST_DIR")
        );
        let read =
            crate::read::read_logs_incremental(&[PathBuf::from(log)], Default::default()).unwrap();
        let mut state = read.state;
        let file = state.files.first_mut().expect("the bot logs have a file");
        assert!(file.changed && file.sealed.is_some());
        let path = file.path.clone();
        save(dir.path(), &state).unwrap();
        let loaded = load_file(dir.path(), &path).expect("an undamaged file loads");
        let stored: Vec<&Match> = loaded.settled.iter().chain(&loaded.tail).collect();
        assert!(stored.iter().all(|m| m.events.is_packed()));
        let read_matches = read.matches.to_vec();
        let read: Vec<&Match> = (read_matches.iter())
            .filter(|m| m.file_index == 0)
            .collect();
        assert_eq!(stored.len(), read.len());
        for (a, b) in stored.iter().zip(&read) {
            assert!(a.id == b.id && a.events == b.events, "match {}", a.id);
        }
        let on_disk = file_path(dir.path(), &path);
        let mut bytes = std::fs::read(&on_disk).unwrap();
        // A byte of the last match: without the checksum, most such changes still decode.
        let at = bytes.len() - 200;
        bytes[at] ^= 0x01;
        std::fs::write(&on_disk, &bytes).unwrap();
        assert!(load_file(dir.path(), &path).is_none());
    }
}
