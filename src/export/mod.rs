//! `fragstats export`: the parsed history as Apache Parquet tables that DuckDB, Polars,
//! DataFusion or Spark read directly. It reads the logs exactly as `fragstats build` does (the
//! config, aliases and identity, the state folder's stored matches and archive of record, the
//! same order and de-duplication) and counts and rates them with the same folds (resumed from
//! the last build's checkpoint when it still applies), so every number equals the site's. It
//! writes nothing in the state folder: only a build moves matches into the archive.
//!
//! Layout under the output folder (Hive-style partitions, one folder per month of the
//! matches' start, `month=undated` for logs without dates):
//!
//! ```text
//! matches/month=2026-03/part-0.parquet        one row per match
//! match_players/month=2026-03/part-0.parquet  one row per player per match
//! frags/month=2026-03/part-0.parquet          one row per frag, suicide and team kill
//! players/part-0.parquet                      one row per player
//! ```
//!
//! It does not know Parquet itself: [`tables`] turns the history into Arrow record batches and
//! writes them with the `parquet` crate, [`publish`] swaps the finished folder in.

mod publish;
mod tables;

use std::path::PathBuf;

use anyhow::Result;

use crate::build::{BuildRequest, Plan, load_previous};
use crate::diagnostics::Diagnostics;
use crate::fold::{self, Folds, Replayed};
use crate::model::clans::Clans;
use crate::model::identity::{Aliases, Roster};
use crate::progress::Timer;
use crate::rating::Ratings;
use crate::read::read_logs_incremental;

pub use publish::MARKER;
pub use tables::{ROWS_PER_FILE, UNDATED};

/// What `fragstats export` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct ExportRequest {
    /// Config file; None means `./site.toml` if it exists, else the defaults.
    pub config: Option<PathBuf>,
    /// The export folder (replaced as a whole).
    pub out: PathBuf,
    /// Log paths replacing the config's.
    pub paths: Vec<PathBuf>,
}

/// What an export wrote.
#[derive(Debug)]
pub struct Exported {
    pub out: PathBuf,
    pub diagnostics: Diagnostics,
    /// Things the user should know that did not stop the export.
    pub warnings: Vec<String>,
    pub matches: usize,
    pub players: usize,
    /// Rows of the `frags` table (frags, suicides and team kills).
    pub frags: usize,
    /// Parquet files written.
    pub files: usize,
    /// How counting and rating started (from the last build's checkpoint or from the first
    /// match).
    pub replayed: Replayed,
}

/// Reads and rates the history as a build would and writes it as Parquet tables into
/// `req.out`, which is replaced in one step when everything is written.
pub fn export(req: &ExportRequest) -> Result<Exported> {
    let plan = Plan::new(&BuildRequest {
        config: req.config.clone(),
        paths: req.paths.clone(),
        ..Default::default()
    })?;
    let timer = Timer::new();
    let mut warnings = Vec::new();
    // Refused before the logs are read: a wrong --out should not cost a minute of parsing.
    publish::check_replaceable(&req.out)?;
    // The logs the last build did not store are read into a scratch folder beside the export,
    // their events left there, as a build leaves them in its state: memory is held by the
    // matches' descriptions, not their events.
    let scratch = publish::Scratch::beside(&req.out)?;
    let mut previous = load_previous(&plan.state_dir, false, &mut warnings)?;
    previous.store = Some(scratch.path().to_path_buf());
    let read = read_logs_incremental(&plan.roots, previous)?;
    timer.lap("read logs");
    // Their descriptions too, as a build packs them (see `History`).
    let history = &read.matches;
    let config = &plan.config;
    let aliases = Aliases::for_config(config);
    let moderation = crate::model::moderation::Moderation::new(config, &aliases);
    // As in a build: excluded players (bans, bots under `bots = "exclude"`) leave every match
    // before anything is counted; hidden ones are named nowhere.
    let moderated = moderation.apply(history.list(), &aliases, Some(scratch.path().to_path_buf()));
    let matches = moderated.as_ref().unwrap_or(history).list();
    let roster = Roster::build(matches, &aliases);
    let clans = Clans::assign(&roster, &config.clans, config.detect_clans);
    // Read with the state folder's lock held, as a build does: a build renewing the
    // checkpoint meanwhile writes over the file that was the checkpoint before (its spare).
    let resume = {
        let _lock = plan.state_dir.is_dir().then(|| {
            crate::state::lock(&plan.state_dir, || {
                eprintln!("waiting for a fragstats build of this site to finish");
            })
        });
        crate::state::load_checkpoint(&plan.state_dir, &config.rating)
    };
    // An export needs the headline system's ratings, not the evaluation of every other system
    // (the costliest fold, and one that does not change them): without a build's checkpoint
    // to resume (made under the site's configuration, evaluation included), only the headline
    // system is replayed. The tests check that both ways give the same tables.
    let mut rating = config.rating.clone();
    if resume.is_none() {
        rating.evaluation = false;
    }
    let Folds {
        stats,
        dynamic,
        static_,
        evaluation,
        replayed,
        ..
    } = fold::fold(matches, &roster, &clans, &rating, resume);
    let ratings = Ratings::compute(dynamic, evaluation, static_, &rating);
    timer.lap("counts and ratings");
    let bots = roster.bots.clone();
    let hidden = moderation.hidden(&roster, &bots, &aliases);
    let tables = tables::History {
        matches,
        roster: &roster,
        clans: &clans,
        stats: &stats,
        ratings: &ratings,
        hidden: &hidden,
    };
    let written = publish::publish(&req.out, |dir| tables::write_tables(&tables, dir))?;
    timer.lap("write parquet");
    Ok(Exported {
        out: req.out.clone(),
        diagnostics: read.diagnostics,
        warnings,
        matches: matches.len(),
        players: roster.players.len(),
        frags: written.frags,
        files: written.files,
        replayed,
    })
}
