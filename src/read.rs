//! Reading the logs: crawl, sniff, parse (in parallel, one file per task), reusing what the
//! previous build remembers of each file; then the archive of record: matches whose content no
//! log holds any more (a log truncated, rotated away, replaced or deleted) are kept in the
//! state folder's archive and stay on the site. Last, every match is put in RANKING.md's order
//! and the same match read twice is counted once.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufReader, Read as _, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::compressed;
use crate::crawl::{LogFile, crawl};
use crate::diagnostics::Diagnostics;
use crate::hashed_pairs::HashedPairs;
use crate::model::{History, Match, StagedLog, Text};
use crate::parse::{Checkpoint, Detected, SNIFF_BYTES, Source, detect};
use crate::progress::Progress;
use crate::state::{Archive, ArchiveWrite, FileState, Fingerprint, State};

mod order;
pub mod parallel;
pub use order::history_of_one_log;
#[cfg(test)]
mod testing;
pub mod windows;

/// How long the pieces of a large log parsed in parallel are ([`parallel::PIECE_BYTES`]).
const PIECE_BYTES: u64 = parallel::PIECE_BYTES;
/// How much of a large log that cannot be cut is read at a time ([`windows::WINDOW_BYTES`]).
const WINDOW_BYTES: u64 = windows::WINDOW_BYTES;

/// What the previous build left: its state, whether its files may be reused (not with
/// `--full` or a state of another version: then it only feeds the archive), and the archive.
#[derive(Default)]
pub struct Previous {
    pub state: Option<State>,
    pub reuse: bool,
    pub archive: Archive,
    /// The state folder the changed logs' new segments are written into as soon as each log is
    /// read, their matches' events then left there ([`FileState::seal_stored`]); None: they
    /// stay in memory until the state is saved.
    pub store: Option<PathBuf>,
    /// The state folder the previous state's matches are read again from, one log at a time,
    /// when `state` was loaded without them ([`crate::state::load_without_matches`]); None:
    /// they are in `state`.
    pub matches_in: Option<PathBuf>,
}

/// How the files of a build were read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadCounts {
    /// Not read at all: same size, time and head as last time.
    pub unchanged: usize,
    /// Read from their checkpoint on (they grew).
    pub resumed: usize,
    /// Read from the start (new, changed, rotated, or no usable checkpoint).
    pub whole: usize,
    /// Bytes read by the parsers.
    pub bytes: u64,
}

/// Everything reading the logs produced.
pub struct LogsRead {
    /// In site order, duplicates removed; packed into a scratch file in [`Previous::store`]
    /// (in memory without one).
    pub matches: History,
    pub diagnostics: Diagnostics,
    /// What to remember for the next build.
    pub state: State,
    pub counts: ReadCounts,
    /// Matches in the archive after this build (matches no log holds any more).
    pub archived: usize,
    /// What saving the archive has to do.
    pub archive: ArchiveWrite,
}

/// How one file was read, and how many bytes.
enum ReadKind {
    Unchanged,
    Resumed(u64),
    Whole(u64),
}

/// Reads every log under `roots`, reusing what `previous` remembers of each file (when it may):
/// unchanged files are not read, grown files are read from their checkpoint, changed or new
/// files from the start. What the previous build held and no log holds any more joins the
/// archive, whose matches are part of the history. Returns the matches in site order, the
/// state to remember for next time and the archive.
pub fn read_logs_incremental(roots: &[PathBuf], previous: Previous) -> Result<LogsRead> {
    let mut crawl_skips = Vec::new();
    let files = crawl(roots, &mut crawl_skips)?;
    let Previous {
        state: mut previous,
        reuse,
        archive,
        store,
        matches_in,
    } = previous;
    let header = previous.as_ref().map(|p| p.header.clone());
    // The matches the previous state holds of a log (`prev`'s), wherever they are.
    let previous_matches = |prev: &mut FileState| -> Result<Vec<Match>> {
        match (&matches_in, &header) {
            (Some(dir), Some(header)) => crate::state::load_matches(dir, header, &prev.path)
                .with_context(|| {
                    format!(
                        "cannot read the saved matches of {} again from {} (they were read \
                         when the build began); the site and the state are as they were: \
                         build again",
                        prev.path,
                        dir.display()
                    )
                }),
            _ => Ok(prev.take_matches()),
        }
    };
    let labels =
        (previous.as_mut()).map_or_else(HashedPairs::default, |p| std::mem::take(&mut p.labels));
    // What the previous build remembers of each file found now (the others are gone).
    let mut remembered: HashMap<String, FileState> = previous
        .map(|p| p.files)
        .unwrap_or_default()
        .into_iter()
        .map(|f| (f.path.clone(), f))
        .collect();
    let prevs: Vec<Option<FileState>> = files
        .iter()
        .map(|f| remembered.remove(f.path.to_string_lossy().as_ref()))
        .collect();
    let total: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(&f.path).ok())
        .map(|m| m.len())
        .sum();
    let progress = Progress::bytes(total);
    // Each file's matches move out of its state: a changed log's file is encoded now (saved
    // after the site), an unchanged log's saved file stays as it is, so no match is kept twice.
    // Then they are packed (staged) where the log read them, before the next log is read: every
    // log's matches held decoded until every log was read set a long history's peak (issue
    // 41). The matches of the previous state not carried over are returned apart (for the
    // archive).
    let scratch = History::staging_file(store.clone());
    type FileRead = (FileState, ReadKind, StagedLog, Vec<Match>);
    let read: Vec<FileRead> = files
        .par_iter()
        .zip(prevs)
        .enumerate()
        .map(|(i, (f, prev))| {
            let (prev, mut dropped) = match prev {
                Some(mut p) if !reuse => (None, previous_matches(&mut p)?),
                p => (p, Vec::new()),
            };
            let (mut state, kind, replaced) = read_file(i, f, prev, store.as_deref());
            dropped.extend(replaced);
            progress.add(state.size);
            let mut matches = if state.changed {
                match &store {
                    Some(dir) => state.seal_stored(dir)?,
                    None => state.seal()?,
                }
            } else {
                state.take_matches()
            };
            // A previous match the log still holds is never archived (see
            // `archive::update`): let go of it now rather than once every log is read (a
            // `--full` build held the whole previous history beside the new one).
            if !dropped.is_empty() {
                let here: HashSet<u64> = matches.iter().map(|m| m.content).collect();
                dropped.retain(|m| !here.contains(&m.content));
                // Without the room of those let go, kept until every log is read (a `--full`
                // build held 19 MB of it at 64,000 matches).
                dropped.shrink_to_fit();
            }
            let source = Text::from(&f.rel);
            for m in &mut matches {
                m.file_index = file_number(i);
                m.source = source.clone();
            }
            let staged = History::stage_log(&mut matches, scratch.as_ref());
            Ok((state, kind, staged, dropped))
        })
        .collect::<Result<_>>()?;
    progress.finish();
    let mut counts = ReadCounts::default();
    for (_, kind, _, _) in &read {
        match kind {
            ReadKind::Unchanged => counts.unchanged += 1,
            ReadKind::Resumed(b) => {
                counts.resumed += 1;
                counts.bytes += b;
            }
            ReadKind::Whole(b) => {
                counts.whole += 1;
                counts.bytes += b;
            }
        }
    }
    let mut states = Vec::with_capacity(read.len());
    let mut reports = Vec::with_capacity(read.len() + crawl_skips.len() + 1);
    let mut staged = Vec::with_capacity(read.len());
    let mut dropped: Vec<(String, Match)> = Vec::new();
    for ((state, _, file_staged, file_dropped), file) in read.into_iter().zip(&files) {
        let mut report = state.report.clone();
        report.path.clone_from(&file.rel);
        report.via_link = file.via_link;
        reports.push(report);
        staged.push(file_staged);
        dropped.extend(file_dropped.into_iter().map(|m| (state.path.clone(), m)));
        states.push(state);
    }
    let present = History::staged(staged, scratch);
    // Logs that are gone: everything they held is a candidate for the archive.
    for (path, mut state) in remembered {
        let held = previous_matches(&mut state)?;
        dropped.extend(held.into_iter().map(|m| (path.clone(), m)));
    }
    let logs: Vec<String> = files
        .iter()
        .map(|f| f.path.to_string_lossy().into_owned())
        .collect();
    let archive = crate::archive::update(archive, dropped, &present, &logs);
    let archived = archive.matches.len();
    let (matches, archive) =
        order::place_in_order(&files, present, archive, &mut reports, &labels)?;
    drop(labels);
    reports.extend(crawl_skips);
    states.sort_by(|a, b| a.path.cmp(&b.path));
    let state = State::new(states);
    Ok(LogsRead {
        matches,
        diagnostics: Diagnostics { files: reports },
        state,
        counts,
        archived,
        archive,
    })
}

/// A file's place in the order of the sources as a match keeps it ([`Match::file_index`]): no
/// site has 4 billion logs, and one past that many would only share the last place.
fn file_number(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX)
}

/// Modification time in nanoseconds since the epoch (0 when the platform does not say).
fn mtime_ns(meta: &std::fs::Metadata) -> u128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

/// Reads one file, reusing `prev` where the file did not change before its checkpoint. Also
/// returns the matches of `prev` that the new state does not carry over.
fn read_file(
    index: usize,
    file: &LogFile,
    prev: Option<FileState>,
    store: Option<&Path>,
) -> (FileState, ReadKind, Vec<Match>) {
    let mut replaced = Vec::new();
    let mut kind = ReadKind::Whole(0);
    let mut state = FileState::unread(file.path.to_string_lossy().into_owned(), &file.rel);
    let result = (|| -> Result<()> {
        let mut f = File::open(&file.path)
            .with_context(|| format!("cannot open {}", file.path.display()))?;
        let meta = f.metadata()?;
        state.size = meta.len();
        state.mtime_ns = mtime_ns(&meta);
        state.head = Fingerprint::head(&mut f)?;
        state.report.bytes = state.size;
        // The stored head range must still hold the same bytes (a rotated or rewritten file
        // does not), whatever the file's length now.
        let mut same_head = |p: &FileState| {
            if p.head.len == state.head.len {
                p.head == state.head
            } else {
                p.head.matches(&mut f)
            }
        };
        let prev = match prev {
            Some(mut p) if !same_head(&p) => {
                replaced = p.take_matches();
                None
            }
            p => p,
        };
        if let Some(mut p) = prev {
            if p.size == state.size && p.mtime_ns == state.mtime_ns && p.head == state.head {
                // Unchanged: nothing to read.
                let path = std::mem::take(&mut state.path);
                state = p;
                state.path = path;
                state.changed = false;
                kind = ReadKind::Unchanged;
                return Ok(());
            }
            let format = p.report.format.clone().unwrap_or_default();
            let parser = crate::parse::formats()
                .iter()
                .find(|parser| parser.name() == format);
            let grown = state.size > p.size;
            if let Some(parser) = parser.filter(|_| grown)
                && let Some(cp) = p.checkpoint.clone()
                && p.before_checkpoint.is_some_and(|fp| fp.matches(&mut f))
            {
                kind = ReadKind::Resumed(state.size - cp.offset);
                // The old tail is read again; the settled matches are kept.
                replaced = std::mem::take(&mut p.tail);
                let log = Log { index, file, store };
                return resume(*parser, log, f, p, &cp, &mut state);
            }
            replaced = p.take_matches();
        }
        kind = ReadKind::Whole(state.size);
        parse_whole(Log { index, file, store }, f, &mut state)
    })();
    if let Err(e) = result {
        let why = format!("read error: {e:#}");
        if state.report.format.is_some() {
            let lines = state.report.lines;
            state.report.note(&why, lines, "");
        } else {
            state.report.file_skipped = Some(why);
        }
        state.checkpoint = None;
    }
    (state, kind, replaced)
}

/// Parses a file from its start.
fn parse_whole(log: Log, mut f: File, state: &mut FileState) -> Result<()> {
    let mut head = Vec::with_capacity(SNIFF_BYTES.min(state.size as usize));
    f.seek(SeekFrom::Start(0))?;
    (&mut f).take(SNIFF_BYTES as u64).read_to_end(&mut head)?;
    if compressed::is_gzip(&head) {
        return parse_gzip(log.index, log.file, f, state);
    }
    let parser = match detect(&head) {
        Detected::Parser(p) => p,
        Detected::Unsupported(why) | Detected::Unknown(why) => {
            state.report.file_skipped = Some(why.to_string());
            return Ok(());
        }
    };
    state.report.format = Some(parser.name().to_string());
    f.seek(SeekFrom::Start(0))?;
    run_parser(parser, log, f, state, None, Vec::new())
}

/// Parses a gzip-compressed log whole (it is never resumed: a rotated copy does not grow). A
/// file that inflates past [`compressed::limit`] keeps the matches finished before that point,
/// with a note.
fn parse_gzip(index: usize, file: &LogFile, f: File, state: &mut FileState) -> Result<()> {
    let limit = compressed::limit(state.size);
    let open = || -> Result<_> {
        let mut f = f.try_clone()?;
        f.seek(SeekFrom::Start(0))?;
        Ok(compressed::reader(f, limit))
    };
    let mut head = Vec::new();
    if let Err(e) = open()?.take(SNIFF_BYTES as u64).read_to_end(&mut head) {
        state.report.file_skipped = Some(format!("damaged gzip file: {e}"));
        return Ok(());
    }
    let parser = match detect(&head) {
        Detected::Parser(p) => p,
        Detected::Unsupported(why) | Detected::Unknown(why) => {
            state.report.file_skipped = Some(format!("gzip file: {why}"));
            return Ok(());
        }
    };
    state.report.format = Some(parser.name().to_string());
    let source = Source {
        path: file.rel.clone(),
        file_index: file_number(index),
    };
    let mut matches = Vec::new();
    let read = parser.parse(
        &mut open()?,
        &source,
        &mut state.report,
        &mut |m| matches.push(m),
        None,
    );
    if let Err(e) = read {
        let lines = state.report.lines;
        state
            .report
            .note(&format!("stopped reading: {e}"), lines, "");
        state.report.matches = matches.len();
    }
    state.tail = matches;
    state.settled = Vec::new();
    state.checkpoint = None;
    state.before_checkpoint = None;
    Ok(())
}

/// The log being read.
#[derive(Clone, Copy)]
struct Log<'a> {
    /// Its place in crawl order.
    index: usize,
    file: &'a LogFile,
    /// The state folder its segments are written into as it is read (None: none is).
    store: Option<&'a Path>,
}

/// Parses a grown file from its stored checkpoint.
fn resume(
    parser: &dyn crate::parse::LogFormat,
    log: Log,
    mut f: File,
    prev: FileState,
    cp: &Checkpoint,
    state: &mut FileState,
) -> Result<()> {
    f.seek(SeekFrom::Start(cp.offset))?;
    let bytes = state.report.bytes;
    state.report = cp.report.clone();
    state.report.bytes = bytes;
    state.report.path.clone_from(&log.file.rel);
    // The settled matches stay, and so do the segments that store them.
    state.segments = prev.segments;
    run_parser(parser, log, f, state, Some(cp), prev.settled)
}

/// Streams `f` (positioned at the start or at `resume`'s offset) through `parser` and stores the
/// matches in `state`: `settled` (already final) plus what this run settles, and the tail.
fn run_parser(
    parser: &dyn crate::parse::LogFormat,
    Log { index, file, store }: Log,
    f: File,
    state: &mut FileState,
    resume: Option<&Checkpoint>,
    settled: Vec<Match>,
) -> Result<()> {
    let source = Source {
        path: file.rel.clone(),
        file_index: file_number(index),
    };
    // A large log's settled matches are stored as they come (a log never rotated is not held
    // whole), where the state folder takes them.
    let files_dir = store.map(|dir| dir.join(crate::state::FILES_DIR));
    let mut early = (files_dir.as_deref()).and_then(|d| state.early_segments(d, settled.len()));
    let windowed = early.is_some() && windows::worth_it(state.size, resume, WINDOW_BYTES);
    let mut store_settled = |matches: &mut [Match], n: usize| {
        if let Some(early) = &mut early {
            early.settled(matches, n);
        }
    };
    let (matches, reached, f) = if parallel::worth_it(parser, state.size, resume, PIECE_BYTES) {
        // In pieces on the thread pool (the same result as one call).
        let parsed = parallel::parse(
            parser,
            &file.path,
            state.size,
            &source,
            &mut state.report,
            resume,
            PIECE_BYTES,
            &mut store_settled,
        )?;
        (parsed.matches, parsed.checkpoint, f)
    } else if windowed {
        // A format that cannot be cut: the open file a window at a time (the same result).
        let parsed = windows::parse(
            parser,
            &f,
            state.size,
            &source,
            &mut state.report,
            resume,
            WINDOW_BYTES,
            &mut store_settled,
        )?;
        (parsed.matches, parsed.checkpoint, f)
    } else {
        let mut input = BufReader::with_capacity(256 * 1024, f);
        let mut matches = Vec::new();
        let reached = parser.parse(
            &mut input,
            &source,
            &mut state.report,
            &mut |m| matches.push(m),
            resume,
        )?;
        (matches, reached, input.into_inner())
    };
    if let Some(early) = early {
        early.finish(state);
    }
    // No new checkpoint: the old one still holds.
    let checkpoint = reached.or_else(|| resume.cloned());
    let before = resume.map_or(0, |c| c.matches);
    settle(state, settled, matches, checkpoint, before, f)
}

/// Splits freshly emitted matches at the new checkpoint into settled and tail.
fn settle(
    state: &mut FileState,
    mut settled: Vec<Match>,
    mut emitted: Vec<Match>,
    checkpoint: Option<Checkpoint>,
    emitted_before: usize,
    mut f: File,
) -> Result<()> {
    if let Some(cp) = &checkpoint {
        let cut = cp.matches.saturating_sub(emitted_before).min(emitted.len());
        let tail = emitted.split_off(cut);
        settled.extend(emitted);
        state.tail = tail;
        state.before_checkpoint = Some(Fingerprint::before(&mut f, cp.offset)?);
    } else {
        state.tail = emitted;
    }
    state.settled = settled;
    state.checkpoint = checkpoint;
    Ok(())
}
