//! The `build` pipeline: config -> crawl -> parse (parallel per file) -> order and de-duplicate
//! matches -> identities -> counts -> pages -> atomic write. Each step is a plain function of the
//! previous step's data.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::config::Config;
use crate::diagnostics::Diagnostics;
use crate::fold::{self, CheckpointRule, Replayed};
use crate::joined::Joined;
use crate::leftovers::Leftovers;
use crate::model::{History, Match, MatchList};
use crate::progress::{Timer, timed};
use crate::read::{LogsRead, Previous, ReadCounts, read_logs_incremental};
use crate::render::{PageCache, PageKeys, PageSink, SiteInput, StagedMatchPages, render_site};
use crate::state::{self, Archive, Loaded, LoadedArchive};
use rayon::prelude::*;

pub mod analyse;

/// What `fragstats build` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct BuildRequest {
    /// Config file; None means `./site.toml` if it exists, else the defaults.
    pub config: Option<PathBuf>,
    /// Output folder overriding the config's.
    pub out: Option<PathBuf>,
    /// Log paths replacing the config's.
    pub paths: Vec<PathBuf>,
    /// Any skipped file or line makes the build fail (after writing the site); a `[moderation]`
    /// entry that matches no player makes it fail before the site is published.
    pub strict: bool,
    /// Ignore the incremental state and read every log from the start.
    pub full: bool,
    /// What becomes of the matches, counts and pages once the site is written: `Leave` when
    /// the process ends right after the build (`fragstats build`).
    pub leftovers: Leftovers,
    /// When the build writes a new checkpoint of the counts and ratings rather than keep the
    /// one it resumed (the default is [`CheckpointRule::default`]'s; tests use short tails).
    pub checkpoint: CheckpointRule,
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
    /// Matches in the archive (kept from logs that no longer hold them).
    pub archived: usize,
    /// The log files and folders read (the config's `logs`, or the paths given).
    pub roots: Vec<PathBuf>,
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
    // Held until the build returns: another build of this site waits (see state::lock).
    let lock = state::lock(&state_dir, || {
        eprintln!("waiting for another fragstats build of this site to finish");
    });
    let timer = Timer::new();
    // Hard-links the current site into a staging folder while the new one is computed.
    let staging = crate::output::Staging::prepare_in(&out, Some(&state_dir));
    // The checkpoint (about 56 MB on a public server's site) is decoded while the state is
    // loaded and the logs are read: it needs neither.
    // The rating systems' saved states are restored on the same thread once it is decoded.
    let checkpoint = (!req.full).then(|| {
        let dir = state_dir.clone();
        let rating = config.rating.clone();
        // Joined on drop, before the lock: the file is mapped while it is read.
        Joined::spawn(move || crate::sys::helper(|| state::load_checkpoint(&dir, &rating)))
    });
    let mut warnings = Vec::new();
    let mut previous = load_previous(&state_dir, req.full, &mut warnings)?;
    // Only a build holding the lock writes into the state folder before the site is made.
    previous.store = lock.held().then(|| state_dir.clone());
    timer.lap("load state");
    let previous_pages = match (&mut previous.state, previous.reuse) {
        (Some(p), true) => std::mem::take(&mut p.pages),
        _ => Default::default(),
    };
    let LogsRead {
        matches,
        diagnostics,
        state: new_state,
        counts,
        archived,
        archive,
    } = read_logs_incremental(&roots, previous)?;
    timer.lap("read logs");
    // The reading's freed memory (every log's parsed matches, now packed) goes back to the
    // system before the identities, ratings and pages grow: at 64,000 games the build's peak
    // was the reading's leftovers plus what came next.
    crate::sys::give_back_freed_memory();
    staging.load_stamps();
    // Pages the previous build made that are still in the output, with what they were made
    // from: as the staging folder's mirroring listed them (done by now, beside loading the
    // state), else by a walk of the output (100,000 files on a public server's site). Made on
    // a thread of its own and joined when the pages are rendered: waiting for the listing
    // here held up the identities and ratings, which need no page (see `render`).
    let page_cache = || {
        timed("page cache", || {
            let walked;
            let present = if previous_pages.is_empty() {
                None
            } else if let Some(files) = staging.mirrored_files() {
                Some(files)
            } else {
                walked = crate::output::files_in(&out);
                Some(&walked)
            };
            let keys = present.map_or_else(PageKeys::default, |p| {
                previous_pages.only_hashes(|h| p.has_first(h))
            });
            PageCache { keys }
        })
    };
    // Joined inside `render` once the identities and clans are made (they need no checkpoint).
    let resume = checkpoint.map_or(Resume::None, Resume::Decoding);
    // The changed logs' state files are written and flushed to disk while the site renders;
    // they replace the old ones only where the state is saved, after the site.
    let (site, prepared) = std::thread::scope(|s| {
        let prepared = s.spawn(|| crate::sys::helper(|| state::prepare(&state_dir, &new_state)));
        let cache = s.spawn(|| crate::sys::helper(page_cache));
        let cache = || {
            cache
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        };
        let request = RenderRequest {
            matches: matches.list(),
            diagnostics: &diagnostics,
            config: &config,
            site_dir: &site_dir,
            resume,
            rule: req.checkpoint,
            // Written over its spare, beside the pages, only with the lock held.
            state_dir: lock.held().then_some(state_dir.as_path()),
            sink: Some(&staging),
            leftovers: req.leftovers,
        };
        let site = render(request, cache);
        let prepared = prepared
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (site, prepared)
    });
    let mut site = site?;
    // A `hide` or `exclude` entry that matched nobody may be a typo that publishes the very
    // player it meant to remove: under --strict the new site is not published.
    if req.strict && !site.unmatched.is_empty() {
        anyhow::bail!(
            "--strict: the site was not published: {}",
            site.unmatched.join("; ")
        );
    }
    warnings.append(&mut site.unmatched);
    // Written (not flushed) while the site is rendered (else here, without the lock), and put
    // in the old one's place once the site is published: it is checked against the matches
    // before use, so one newer than the state (a crash in between) is still right, and one that
    // fits no state is refused. A build that kept the checkpoint it resumed has none to write:
    // the old file stays, and resumes the next build too.
    let checkpoint = site.checkpoint.take().map(|made| match made {
        NewCheckpoint::Saving(saving) => saving,
        NewCheckpoint::Encoded(bytes) => {
            state::CheckpointSave::from_bytes(&state_dir, &bytes, lock.held())
        }
    });
    let files = std::mem::take(&mut site.files);
    let match_pages = MatchPagePaths {
        pages: std::mem::take(&mut site.match_pages),
        matches: matches.list(),
    };
    timer.lap("rate and render");
    // The pages' freed memory goes back to the system before publishing makes its lists of the
    // site's files.
    crate::sys::give_back_freed_memory();
    // The state's index (the page keys just made) is written and flushed beside publishing;
    // it replaces the old index only once the site is published, below.
    let (published, index) = std::thread::scope(|s| {
        let index = s.spawn(|| {
            state::stage_index(
                &state_dir,
                &new_state,
                &MadeKeys(&files, &match_pages),
                &Numbers(matches.list()),
            )
        });
        let published = staging.publish_with(&files, &match_pages);
        let index = index
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (published, index)
    });
    let published = published?;
    let written = published.written;
    timer.lap("write site");
    // The archive is saved first: a crash before the state is saved leaves matches both in the
    // archive and in the old state, which the next build counts once.
    state::save_archive(&state_dir, &archive)
        .context("cannot save the archive of matches no log holds any more")?;
    if config.base_url.is_some() && !matches.list().par_heads().any(|h| h.start.is_some()) {
        warnings.push(
            "feed.xml not written: base_url is set, but no log gives its matches a date \
             (Atom entries need one; Quake 3 and Urban Terror logs carry none, OpenArena's do)"
                .into(),
        );
    }
    // The state is saved after the site: a crash in between leaves an older state, which only
    // makes the next build read more.
    let saved = prepared.and_then(|p| state::save_prepared(&state_dir, &new_state, p, index?));
    if let Err(e) = saved {
        warnings.push(format!("{e:#}: the next build will read every log again"));
    }
    if let Some(Err(e)) = checkpoint.map(state::CheckpointSave::commit) {
        warnings.push(format!("{e:#}: the next build will rate every match again"));
    }
    published.finish()?;
    timer.lap("save state, remove the old site");
    let built = Built {
        out,
        diagnostics,
        players: site.players,
        matches: matches.len(),
        files: files.len() + match_pages.pages.len(),
        written,
        warnings,
        counts,
        replayed: site.replayed,
        archived,
        roots,
    };
    // The matches, pages and state are freed, or left to the system when the process ends
    // now (see [`Leftovers`]).
    req.leftovers
        .discard((match_pages.pages, matches, files, new_state, archive));
    Ok(built)
}

/// The page keys of the files a build made (those with a key), read from their records.
struct MadeKeys<'a>(&'a [crate::output::OutputFile], &'a MatchPagePaths<'a>);

impl state::Pairs<u64> for MadeKeys<'_> {
    fn each(&self, each: &mut dyn FnMut(&str, u64)) {
        for f in self.0 {
            if let Some(key) = f.key {
                each(&f.path, key);
            }
        }
        let MatchPagePaths { pages, matches } = self.1;
        for (m, &key) in matches.heads().zip(&pages.keys) {
            each(&crate::render::match_url(&m.id), key);
        }
    }
}

/// The match pages the build staged as it made them, with the matches their paths are made
/// from.
struct MatchPagePaths<'a> {
    pages: StagedMatchPages,
    matches: MatchList<'a>,
}

impl crate::output::StagedApart for MatchPagePaths<'_> {
    fn count(&self) -> usize {
        self.pages.len()
    }

    fn path(&self, i: usize) -> String {
        crate::render::match_url(&self.matches.head(i).id)
    }

    fn staged(&self, i: usize) -> Option<bool> {
        self.pages.staged[i]
    }
}

/// The numbers of the history's matches (id, number), in order, read from the matches: the
/// state remembers them for the next build ([`crate::read`] gave them).
struct Numbers<'a>(MatchList<'a>);

impl state::Pairs<u32> for Numbers<'_> {
    fn each(&self, each: &mut dyn FnMut(&str, u32)) {
        for m in self.0.heads() {
            each(&m.id, m.number);
        }
    }
}

/// What the previous build left in `state_dir`, as every command that reads the history uses
/// it: the state (reused unless `full`; a stale one only feeds the archive) and the archive of
/// record. What the user should know goes to `warnings`.
pub fn load_previous(state_dir: &Path, full: bool, warnings: &mut Vec<String>) -> Result<Previous> {
    // The previous state is loaded even for --full: what it holds of logs that are gone or
    // changed goes into the archive. Its matches are then read again log by log as each log
    // is read, not held all at once.
    let loaded = if full {
        state::load_without_matches(state_dir)
    } else {
        state::load(state_dir)
    };
    let matches_in = full.then(|| state_dir.to_path_buf());
    let (state, reuse) = match loaded {
        Loaded::None => (None, false),
        Loaded::State(s) => (Some(s), !full),
        Loaded::Stale(s, why) => {
            warnings.push(format!("{why}: reading every log again"));
            (Some(s), false)
        }
        Loaded::Discarded(why) => {
            warnings.push(format!("{why}: reading every log again"));
            (None, false)
        }
    };
    if let Some(s) = &state {
        warnings.extend(
            s.unreadable
                .iter()
                .map(|log| unreadable_warning(state_dir, log)),
        );
    }
    let archive = match state::load_archive(state_dir)? {
        LoadedArchive::Archive(a) => a,
        LoadedArchive::SetAside(path) => {
            warnings.push(format!(
                "the archive of matches no log holds any more cannot be read by this fragstats; \
                 it was kept as {} and is not used",
                path.display()
            ));
            Archive::default()
        }
    };
    Ok(Previous {
        state,
        reuse,
        archive,
        store: None,
        matches_in,
    })
}

/// The warning for a log whose saved state could not be read: its matches are read again from
/// the log, and those the log no longer holds are lost, which the admin must hear about.
fn unreadable_warning(state_dir: &Path, log: &str) -> String {
    let files = state_dir.join(state::FILES_DIR);
    let what = format!(
        "the saved state of {log} cannot be read (its file under {} is missing or damaged)",
        files.display()
    );
    if Path::new(log).exists() {
        format!(
            "{what}: the log is read again from its start; matches it no longer holds (if it \
             was rotated or truncated) are lost unless that folder is restored from a backup"
        )
    } else {
        format!(
            "{what}, and the log is gone: the matches read from it are lost unless that folder \
             is restored from a backup"
        )
    }
}

/// The checkpoint a build may resume, as [`render`] takes it: none, decoded, or still being
/// decoded and restored on a thread (about 0.2 s for a public server's 56 MB), which `render`
/// joins only once the identities and clans are made, so that they are made meanwhile.
pub enum Resume {
    /// Count and rate from the first match.
    None,
    /// A decoded checkpoint (or none, if it could not be read), restored when joined.
    Decoded(Option<Box<fold::Checkpoint<'static>>>),
    /// A checkpoint being read, decoded and restored ([`fold::Checkpoint::restore`]) on a
    /// thread ([`state::load_checkpoint`]: joined before the state folder's lock is let go).
    Decoding(Joined<Option<fold::Restored>>),
}

impl Resume {
    /// The checkpoint, once decoded and restored for `cfg` (a panic while decoding goes on
    /// here).
    fn wait(self, cfg: &crate::config::RatingConfig) -> Option<fold::Restored> {
        match self {
            Resume::None => None,
            Resume::Decoded(checkpoint) => checkpoint.map(|c| c.restore(cfg)),
            Resume::Decoding(decoding) => decoding.join(),
        }
    }
}

/// The files of a site rendered from matches (in site order), how many players it has, and the
/// checkpoint of the counts and ratings for the next build (None when the build keeps the one
/// it resumed, see [`CheckpointRule`]).
pub struct RenderedSite {
    /// Every file of the site but `match_pages`.
    pub files: Vec<crate::render::OutputFile>,
    /// The match pages given to the request's sink as they were made (none without a sink).
    pub match_pages: StagedMatchPages,
    pub players: usize,
    pub checkpoint: Option<NewCheckpoint>,
    pub replayed: Replayed,
    /// `[moderation]` and `bots` settings that matched no player (see
    /// [`crate::model::moderation::Moderation::unmatched`]): for the terminal only, they quote the config.
    pub unmatched: Vec<String>,
}

/// The checkpoint [`render`] made for the next build.
pub enum NewCheckpoint {
    /// Written into the state folder (encoded straight over its spare), to be committed.
    Saving(state::CheckpointSave),
    /// The bytes of its file, for a caller that gave no state folder.
    Encoded(Vec<u8>),
}

/// What [`render`] makes a site of, and where its results go.
pub struct RenderRequest<'a> {
    /// The matches, in site order.
    pub matches: MatchList<'a>,
    /// What was read and skipped, published as `data/diagnostics.json`.
    pub diagnostics: &'a Diagnostics,
    pub config: &'a Config,
    /// Folder of site.toml (its `templates/` and `static/` override the built-ins).
    pub site_dir: &'a Path,
    /// The checkpoint to resume counting and rating from, if any.
    pub resume: Resume,
    /// Whether the end of this build is worth a new checkpoint.
    pub rule: CheckpointRule,
    /// The state folder the new checkpoint is encoded into, over its spare (the caller holds
    /// its lock); None: the checkpoint's bytes are returned.
    pub state_dir: Option<&'a Path>,
    /// Where pages go as they are rendered (else they are returned with their bytes).
    pub sink: Option<&'a dyn PageSink>,
    /// What becomes of what the pages were made from.
    pub leftovers: Leftovers,
}

/// Everything after parsing, in memory, in its stages: who is who ([`analyse::identify`]),
/// what the matches say of them ([`analyse::analyse`]: counting and rating resume from the
/// request's checkpoint when that covers a start of the matches, see [`crate::fold`]), then the
/// pages, while the other rating systems finish and the new checkpoint (if the rule asks for
/// one) is encoded beside them, to be put in place by the caller
/// ([`state::CheckpointSave::commit`]). `cache` gives the pages the output holds and their keys
/// when the pages are rendered (it may still be in the making until then).
pub fn render(req: RenderRequest, cache: impl FnOnce() -> PageCache) -> Result<RenderedSite> {
    let RenderRequest {
        matches,
        diagnostics,
        config,
        site_dir,
        resume,
        rule,
        state_dir,
        sink,
        leftovers,
    } = req;
    let timer = Timer::new();
    let mut people = analyse::identify(matches, diagnostics, config, state_dir);
    timer.lap("identities and clans");
    let resume = resume.wait(&config.rating);
    timer.lap("load checkpoint");
    let analysis = analyse::analyse(config, &people, resume, rule, state_dir, &timer);
    let analyse::Analysis {
        mut stats,
        ratings,
        standing,
        ladders,
        seasons,
        replayed,
        followers,
        continuation,
        tallies,
    } = analysis;
    let matches = people.matches.list();
    // The other rating systems finish replaying, and the checkpoint (if the build makes one)
    // is encoded, beside the pages that do not need them.
    let mut checkpoint = None;
    let compare = || {
        let saves = continuation.is_some();
        let comparison = timed("the other systems' evaluation", || followers.finish(saves));
        let evaluation = comparison.of_all(&ratings.headline.evaluation);
        if let Some(mut continuation) = continuation {
            continuation.compared(comparison);
            let folded = continuation.checkpoint(
                &stats,
                matches.len(),
                &people.roster,
                &people.clans,
                &config.rating,
                tallies,
            );
            // Written while the pages are made, not after them: on a public server's site the
            // file (72 MB then) took 0.15-0.2 s to write, and the build waited for it at its end.
            checkpoint = Some(match state_dir {
                Some(dir) => Ok(NewCheckpoint::Saving(state::CheckpointSave::write(
                    dir, &folded, true,
                ))),
                None => state::encode_checkpoint(&folded).map(NewCheckpoint::Encoded),
            });
        }
        evaluation
    };
    let cache = cache();
    timer.lap("page cache (joined)");
    let files = render_site(
        &SiteInput {
            config,
            matches,
            roster: &people.roster,
            stats: &stats,
            clans: &people.clans,
            ratings: &ratings,
            bots: &people.bots,
            hidden: &people.hidden,
            standing: &standing,
            ladders: &ladders,
            seasons: &seasons,
            diagnostics: &people.diagnostics,
            cache: &cache,
            site_dir,
            sink,
            leftovers,
        },
        compare,
    );
    let (files, match_pages) = files?;
    let checkpoint = checkpoint.transpose()?;
    let players = people.roster.players.len();
    let unmatched = std::mem::take(&mut people.unmatched);
    // Every match's counts and identities are freed whatever the leftovers: two lists, no
    // time, which publishing held to its end (issue 41: 5 MB of its peak at 64,000 matches).
    stats.matches = Vec::new();
    people.roster.match_players = Default::default();
    // About 70 ms of freeing on a public server's site (see [`Leftovers`]).
    leftovers.discard((ratings, standing, ladders, seasons));
    leftovers.discard((stats, people, cache));
    Ok(RenderedSite {
        files,
        match_pages,
        players,
        checkpoint,
        replayed,
        unmatched,
    })
}

/// Crawls, sniffs and parses every log under `roots`; returns the matches in site order
/// (duplicates removed), packed in memory, and the diagnostics of every file.
pub fn read_history(roots: &[PathBuf]) -> Result<(History, Diagnostics)> {
    let read = read_logs_incremental(roots, Previous::default())?;
    Ok((read.matches, read.diagnostics))
}

/// [`read_history`] with the matches decoded into a list (for the tests and benchmarks that
/// change them).
pub fn read_logs(roots: &[PathBuf]) -> Result<(Vec<Match>, Diagnostics)> {
    let (history, diagnostics) = read_history(roots)?;
    Ok((history.to_vec(), diagnostics))
}
