//! The `build` pipeline: config -> crawl -> parse (parallel per file) -> order and de-duplicate
//! matches -> identities -> counts -> pages -> atomic write. Each step is a plain function of the
//! previous step's data.

use std::fs::File;
use std::io::{BufReader, Read as _, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::config::Config;
use crate::crawl::{LogFile, crawl};
use crate::diagnostics::{Diagnostics, FileReport};
use crate::history::{self, Folds, Replayed};
use crate::model::Match;
use crate::model::clans::Clans;
use crate::model::identity::{Aliases, Roster};
use crate::parse::{Checkpoint, Detected, SNIFF_BYTES, Source, detect};
use crate::progress::{Progress, Timer};
use crate::rating::Ratings;
use crate::render::{PageCache, PageSink, SiteInput, render_site};
use crate::state::{self, FileState, Fingerprint, Loaded, State};

/// What `fragstats build` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct BuildRequest {
    /// Config file; None means `./site.toml` if it exists, else the defaults.
    pub config: Option<PathBuf>,
    /// Output folder overriding the config's.
    pub out: Option<PathBuf>,
    /// Log paths replacing the config's.
    pub paths: Vec<PathBuf>,
    /// Any skipped file or line makes the build fail (after writing the site).
    pub strict: bool,
    /// Ignore the incremental state and read every log from the start.
    pub full: bool,
}

/// What a build produced.
#[derive(Debug)]
pub struct Built {
    pub out: PathBuf,
    pub diagnostics: Diagnostics,
    pub players: usize,
    pub matches: usize,
    pub files: usize,
    /// Files whose content changed (written); the others kept their bytes and times.
    pub written: usize,
    /// Things the user should know that did not stop the build.
    pub warnings: Vec<String>,
    /// How the log files were read (incremental state at work).
    pub counts: ReadCounts,
    /// How counting and rating started (from a checkpoint or from the first match).
    pub replayed: Replayed,
}

impl Built {
    /// One line on how the matches were counted and rated.
    pub fn replayed_line(&self) -> String {
        match &self.replayed {
            Replayed::Whole => format!("replayed all {} matches", self.matches),
            Replayed::Resumed(from) => format!(
                "resumed after match {from}, replayed {} new",
                self.matches.saturating_sub(*from)
            ),
            Replayed::Refused(why) => {
                format!("replayed all {} matches ({why})", self.matches)
            }
        }
    }
}

/// The config and the folder its relative paths start from.
pub fn load_config(path: Option<&Path>) -> Result<(Config, PathBuf)> {
    match path {
        Some(p) => {
            let config = Config::load(p)?;
            let dir = p.parent().map(Path::to_path_buf).unwrap_or_default();
            Ok((config, dir))
        }
        None => {
            let p = Path::new("site.toml");
            if p.exists() {
                Ok((Config::load(p)?, PathBuf::new()))
            } else {
                Ok((Config::default(), PathBuf::new()))
            }
        }
    }
}

/// Where a build reads and writes, resolved from the request and the config.
#[derive(Debug, Clone)]
pub struct Plan {
    pub config: Config,
    /// Folder of site.toml (relative paths in it start here).
    pub site_dir: PathBuf,
    /// The config file, if one exists.
    pub config_file: Option<PathBuf>,
    pub roots: Vec<PathBuf>,
    pub out: PathBuf,
    pub state_dir: PathBuf,
}

impl Plan {
    /// Loads the config and resolves every path of the build.
    pub fn new(req: &BuildRequest) -> Result<Plan> {
        let (config, site_dir) = load_config(req.config.as_deref())?;
        let roots: Vec<PathBuf> = if req.paths.is_empty() {
            config.logs.iter().map(|p| site_dir.join(p)).collect()
        } else {
            req.paths.clone()
        };
        let out = req
            .out
            .clone()
            .unwrap_or_else(|| site_dir.join(&config.output));
        let state_dir = site_dir.join(&config.state);
        let config_file = req.config.clone().or_else(|| {
            Path::new("site.toml")
                .exists()
                .then(|| PathBuf::from("site.toml"))
        });
        Ok(Plan {
            config,
            site_dir,
            config_file,
            roots,
            out,
            state_dir,
        })
    }
}

/// Runs the whole build and writes the site.
pub fn build(req: &BuildRequest) -> Result<Built> {
    let Plan {
        config,
        site_dir,
        roots,
        out,
        state_dir,
        ..
    } = Plan::new(req)?;
    let timer = Timer::new();
    // Hard-links the current site into a staging folder while the new one is computed.
    let staging = crate::output::Staging::prepare(&out);
    let mut warnings = Vec::new();
    let mut previous = if req.full {
        None
    } else {
        match state::load(&state_dir) {
            Loaded::None => None,
            Loaded::State(s) => Some(s),
            Loaded::Discarded(why) => {
                warnings.push(format!("{why}: reading every log again"));
                None
            }
        }
    };
    timer.lap("load state");
    let previous_pages = previous
        .as_mut()
        .map(|p| std::mem::take(&mut p.pages))
        .unwrap_or_default();
    let LogsRead {
        matches,
        diagnostics,
        state: new_state,
        counts,
    } = read_logs_incremental(&roots, previous)?;
    timer.lap("read logs");
    // Pages the previous build made that are still in the output, with what they were made from.
    let cache = PageCache {
        keys: previous_pages
            .into_par_iter()
            .filter(|(path, _)| out.join(path).is_file())
            .collect(),
    };
    timer.lap("page cache");
    let resume = if req.full {
        None
    } else {
        state::load_checkpoint(&state_dir)
    };
    timer.lap("load checkpoint");
    let stage = |file| staging.stage(file);
    let mut site = render(
        &matches,
        &diagnostics,
        &config,
        &site_dir,
        &cache,
        resume,
        Some(&stage),
    )?;
    let files = std::mem::take(&mut site.files);
    let mut new_state = new_state;
    new_state.pages = files
        .iter()
        .filter_map(|f| f.key.map(|k| (f.path.clone(), k)))
        .collect();
    timer.lap("rate and render");
    let published = staging.publish(&files)?;
    let written = published.written;
    timer.lap("write site");
    // The state is saved after the site: a crash in between leaves an older state, which only
    // makes the next build read more.
    if let Err(e) = state::save(&state_dir, &new_state) {
        warnings.push(format!("{e:#}: the next build will read every log again"));
    }
    // A checkpoint older than the state (a crash in between) is still right: the next build
    // checks which matches it covers.
    if let Err(e) = state::save_checkpoint(&state_dir, &site.checkpoint) {
        warnings.push(format!("{e:#}: the next build will rate every match again"));
    }
    published.finish()?;
    timer.lap("save state, remove the old site");
    Ok(Built {
        out,
        diagnostics,
        players: site.players,
        matches: matches.len(),
        files: files.len(),
        written,
        warnings,
        counts,
        replayed: site.replayed,
    })
}

/// The files of a site rendered from matches (in site order), how many players it has, and the
/// checkpoint of the counts and ratings for the next build (the bytes of its file).
pub struct RenderedSite {
    pub files: Vec<crate::render::OutputFile>,
    pub players: usize,
    pub checkpoint: Vec<u8>,
    pub replayed: Replayed,
}

/// Everything after parsing: identities, counts, clans, ratings and pages, in memory. Counting
/// and rating resume from `resume` when that covers a start of `matches` (see [`history`]).
pub fn render(
    matches: &[Match],
    diagnostics: &Diagnostics,
    config: &Config,
    site_dir: &Path,
    cache: &PageCache,
    resume: Option<history::Checkpoint<'static>>,
    sink: Option<&PageSink>,
) -> Result<RenderedSite> {
    let timer = Timer::new();
    let roster = Roster::build(matches, &Aliases::new(&config.aliases));
    let clans = Clans::assign(&roster, &config.clans, config.detect_clans);
    timer.lap("identities and clans");
    let Folds {
        stats,
        dynamic,
        evaluation,
        continuation,
        replayed,
    } = history::fold(matches, &roster, &clans, &config.rating, resume);
    let ratings = Ratings::compute(dynamic, evaluation, &stats, &config.rating);
    let checkpoint =
        continuation.checkpoint(&stats, matches.len(), &roster, &clans, &config.rating);
    timer.lap("counts and ratings");
    let (files, checkpoint) = rayon::join(
        || {
            render_site(&SiteInput {
                config,
                matches,
                roster: &roster,
                stats: &stats,
                clans: &clans,
                ratings: &ratings,
                diagnostics,
                cache,
                site_dir,
                sink,
            })
        },
        || state::encode_checkpoint(&checkpoint),
    );
    let (files, checkpoint) = (files?, checkpoint?);
    Ok(RenderedSite {
        files,
        players: roster.players.len(),
        checkpoint,
        replayed,
    })
}

/// Crawls, sniffs and parses every log under `roots`; returns the matches in site order
/// (duplicates removed) and the diagnostics of every file.
pub fn read_logs(roots: &[PathBuf]) -> Result<(Vec<Match>, Diagnostics)> {
    let read = read_logs_incremental(roots, None)?;
    Ok((read.matches, read.diagnostics))
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
    /// In site order, duplicates removed.
    pub matches: Vec<Match>,
    pub diagnostics: Diagnostics,
    /// What to remember for the next build.
    pub state: State,
    pub counts: ReadCounts,
}

/// How one file was read, and how many bytes.
enum ReadKind {
    Unchanged,
    Resumed(u64),
    Whole(u64),
}

/// Like [`read_logs`], reusing what `previous` remembers of each file: unchanged files are not
/// read, grown files are read from their checkpoint, changed or new files from the start. Also
/// returns the state to remember for next time.
pub fn read_logs_incremental(roots: &[PathBuf], previous: Option<State>) -> Result<LogsRead> {
    let mut crawl_skips = Vec::new();
    let files = crawl(roots, &mut crawl_skips)?;
    // What the previous build remembers of each file found now (the others are gone).
    let mut remembered: std::collections::HashMap<String, FileState> = previous
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
    let read: Vec<(FileState, ReadKind, Vec<Match>)> = files
        .par_iter()
        .zip(prevs)
        .enumerate()
        .map(|(i, (f, prev))| {
            let (mut state, kind) = read_file(i, f, prev);
            progress.add(state.size);
            let matches = if state.changed {
                state.seal()?
            } else {
                let mut matches = std::mem::take(&mut state.settled);
                matches.append(&mut state.tail);
                matches
            };
            Ok((state, kind, matches))
        })
        .collect::<Result<_>>()?;
    progress.finish();
    let mut counts = ReadCounts::default();
    for (_, kind, _) in &read {
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
    let mut reports = Vec::with_capacity(read.len() + crawl_skips.len());
    let mut matches = Vec::new();
    for (i, ((state, _, file_matches), file)) in read.into_iter().zip(&files).enumerate() {
        let mut report = state.report.clone();
        report.path.clone_from(&file.rel);
        reports.push(report);
        matches.extend(file_matches.into_iter().map(|mut m| {
            m.file_index = i;
            m.source.clone_from(&file.rel);
            m
        }));
        states.push(state);
    }
    let matches = order_and_dedupe(matches, &mut reports);
    reports.extend(crawl_skips);
    states.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(LogsRead {
        matches,
        diagnostics: Diagnostics { files: reports },
        state: State::new(states),
        counts,
    })
}

/// Modification time in nanoseconds since the epoch (0 when the platform does not say).
fn mtime_ns(meta: &std::fs::Metadata) -> u128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

/// Reads one file, reusing `prev` where the file did not change before its checkpoint.
fn read_file(index: usize, file: &LogFile, prev: Option<FileState>) -> (FileState, ReadKind) {
    let mut kind = ReadKind::Whole(0);
    let mut state = FileState {
        path: file.path.to_string_lossy().into_owned(),
        size: 0,
        mtime_ns: 0,
        head: Fingerprint {
            start: 0,
            len: 0,
            hash: 0,
        },
        before_checkpoint: None,
        report: FileReport::new(&file.rel),
        checkpoint: None,
        settled: Vec::new(),
        tail: Vec::new(),
        changed: true,
        sealed: None,
    };
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
        let same_head = |p: &FileState| {
            if p.head.len == state.head.len {
                p.head == state.head
            } else {
                p.head.matches(&mut f)
            }
        };
        if let Some(p) = prev.filter(same_head) {
            if p.size == state.size && p.mtime_ns == state.mtime_ns && p.head == state.head {
                // Unchanged: nothing to read.
                let path = std::mem::take(&mut state.path);
                state = p;
                state.path = path;
                state.changed = false;
                kind = ReadKind::Unchanged;
                return Ok(());
            }
            let grown = state.size > p.size && p.report.format.is_some();
            if let Some(cp) = p.checkpoint.clone().filter(|_| grown)
                && p.before_checkpoint.is_some_and(|fp| fp.matches(&mut f))
            {
                kind = ReadKind::Resumed(state.size - cp.offset);
                return resume(index, file, f, p, &cp, &mut state);
            }
        }
        kind = ReadKind::Whole(state.size);
        parse_whole(index, file, f, &mut state)
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
    (state, kind)
}

/// Parses a file from its start.
fn parse_whole(index: usize, file: &LogFile, mut f: File, state: &mut FileState) -> Result<()> {
    let mut head = Vec::with_capacity(SNIFF_BYTES.min(state.size as usize));
    f.seek(SeekFrom::Start(0))?;
    (&mut f).take(SNIFF_BYTES as u64).read_to_end(&mut head)?;
    let parser = match detect(&head) {
        Detected::Parser(p) => p,
        Detected::Unsupported(why) | Detected::Unknown(why) => {
            state.report.file_skipped = Some(why.to_string());
            return Ok(());
        }
    };
    state.report.format = Some(parser.name().to_string());
    f.seek(SeekFrom::Start(0))?;
    run_parser(parser, index, file, f, state, None, Vec::new())
}

/// Parses a grown file from its stored checkpoint.
fn resume(
    index: usize,
    file: &LogFile,
    mut f: File,
    prev: FileState,
    cp: &Checkpoint,
    state: &mut FileState,
) -> Result<()> {
    let format = prev.report.format.clone().unwrap_or_default();
    let Some(parser) = crate::parse::formats().iter().find(|p| p.name() == format) else {
        return parse_whole(index, file, f, state);
    };
    f.seek(SeekFrom::Start(cp.offset))?;
    let bytes = state.report.bytes;
    state.report = cp.report.clone();
    state.report.bytes = bytes;
    state.report.path.clone_from(&file.rel);
    run_parser(*parser, index, file, f, state, Some(cp), prev.settled)
}

/// Streams `f` (positioned at the start or at `resume`'s offset) through `parser` and stores the
/// matches in `state`: `settled` (already final) plus what this run settles, and the tail.
fn run_parser(
    parser: &dyn crate::parse::LogFormat,
    index: usize,
    file: &LogFile,
    f: File,
    state: &mut FileState,
    resume: Option<&Checkpoint>,
    settled: Vec<Match>,
) -> Result<()> {
    let mut input = BufReader::with_capacity(256 * 1024, f);
    let source = Source {
        path: file.rel.clone(),
        file_index: index,
    };
    let mut matches = Vec::new();
    let reached = parser.parse(
        &mut input,
        &source,
        &mut state.report,
        &mut |m| matches.push(m),
        resume,
    )?;
    // No new checkpoint: the old one still holds.
    let checkpoint = reached.or_else(|| resume.cloned());
    let before = resume.map_or(0, |c| c.matches);
    settle(
        state,
        settled,
        matches,
        checkpoint,
        before,
        input.into_inner(),
    )
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

/// Sorts matches as RANKING.md says (by start time when every match has one, else by file and
/// line) and keeps the first of matches with the same content id, noting the others.
pub fn order_and_dedupe(mut matches: Vec<Match>, reports: &mut [FileReport]) -> Vec<Match> {
    let all_dated = matches.iter().all(|m| m.start.is_some());
    if all_dated {
        matches.sort_by_key(|m| (m.start, m.file_index, m.line));
    } else {
        matches.sort_by_key(|m| (m.file_index, m.line));
    }
    let mut seen: std::collections::HashMap<String, (String, u64)> =
        std::collections::HashMap::new();
    matches.retain(|m| match seen.get(&m.id) {
        Some((src, line)) => {
            if let Some(r) = reports.get_mut(m.file_index) {
                r.note(
                    "duplicate match (same content seen earlier) counted once",
                    m.line,
                    &format!("same as {src}:{line}"),
                );
            }
            false
        }
        None => {
            seen.insert(m.id.clone(), (m.source.clone(), m.line));
            true
        }
    });
    matches
}
