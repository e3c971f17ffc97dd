//! The `build` pipeline: config -> crawl -> parse (parallel per file) -> order and de-duplicate
//! matches -> identities -> counts -> pages -> atomic write. Each step is a plain function of the
//! previous step's data.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::config::Config;
use crate::crawl::{LogFile, crawl};
use crate::diagnostics::{Diagnostics, FileReport};
use crate::model::Match;
use crate::model::clans::Clans;
use crate::model::identity::{Aliases, Roster};
use crate::parse::{Detected, SNIFF_BYTES, Source, detect};
use crate::rating::Ratings;
use crate::render::{SiteInput, render_site};
use crate::stats::Stats;

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
}

/// What a build produced.
#[derive(Debug)]
pub struct Built {
    pub out: PathBuf,
    pub diagnostics: Diagnostics,
    pub players: usize,
    pub matches: usize,
    pub files: usize,
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

/// Runs the whole build and writes the site.
pub fn build(req: &BuildRequest) -> Result<Built> {
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

    let (matches, diagnostics) = read_logs(&roots)?;
    let site = render(&matches, &diagnostics, &config, &site_dir)?;
    let files = site.files;
    crate::output::write_site(&out, &files)?;
    Ok(Built {
        out,
        diagnostics,
        players: site.players,
        matches: matches.len(),
        files: files.len(),
    })
}

/// The files of a site rendered from matches (in site order), and how many players it has.
pub struct RenderedSite {
    pub files: Vec<crate::render::OutputFile>,
    pub players: usize,
}

/// Everything after parsing: identities, counts, clans, ratings and pages, in memory.
pub fn render(
    matches: &[Match],
    diagnostics: &Diagnostics,
    config: &Config,
    site_dir: &Path,
) -> Result<RenderedSite> {
    let roster = Roster::build(matches, &Aliases::new(&config.aliases));
    let stats = Stats::compute(matches, &roster);
    let clans = Clans::assign(&roster, &config.clans, config.detect_clans);
    let ratings = Ratings::compute(matches, &roster, &clans, &stats, &config.rating);
    let files = render_site(&SiteInput {
        config,
        matches,
        roster: &roster,
        stats: &stats,
        clans: &clans,
        ratings: &ratings,
        diagnostics,
        site_dir,
    })?;
    Ok(RenderedSite {
        files,
        players: roster.players.len(),
    })
}

/// Crawls, sniffs and parses every log under `roots`; returns the matches in site order
/// (duplicates removed) and the diagnostics of every file.
pub fn read_logs(roots: &[PathBuf]) -> Result<(Vec<Match>, Diagnostics)> {
    let mut crawl_skips = Vec::new();
    let files = crawl(roots, &mut crawl_skips)?;
    let parsed: Vec<(FileReport, Vec<Match>)> = files
        .par_iter()
        .enumerate()
        .map(|(i, f)| parse_file(i, f))
        .collect();
    let mut reports = Vec::with_capacity(parsed.len() + crawl_skips.len());
    let mut matches = Vec::new();
    for (report, m) in parsed {
        reports.push(report);
        matches.extend(m);
    }
    let matches = order_and_dedupe(matches, &mut reports);
    reports.extend(crawl_skips);
    Ok((matches, Diagnostics { files: reports }))
}

/// Reads one file: sniffs its head, then streams it through its format's parser.
fn parse_file(index: usize, file: &LogFile) -> (FileReport, Vec<Match>) {
    let mut report = FileReport::new(&file.rel);
    let mut matches = Vec::new();
    let result = (|| -> Result<()> {
        let mut f = File::open(&file.path)
            .with_context(|| format!("cannot open {}", file.path.display()))?;
        report.bytes = f.metadata().map(|m| m.len()).unwrap_or(0);
        let mut head = Vec::with_capacity(SNIFF_BYTES.min(report.bytes as usize));
        (&mut f).take(SNIFF_BYTES as u64).read_to_end(&mut head)?;
        let parser = match detect(&head) {
            Detected::Parser(p) => p,
            Detected::Unsupported(why) | Detected::Unknown(why) => {
                report.file_skipped = Some(why.to_string());
                return Ok(());
            }
        };
        report.format = Some(parser.name().to_string());
        f.seek(SeekFrom::Start(0))?;
        let mut input = BufReader::with_capacity(256 * 1024, f);
        let source = Source {
            path: file.rel.clone(),
            file_index: index,
        };
        parser.parse(&mut input, &source, &mut report, &mut |m| matches.push(m))?;
        Ok(())
    })();
    if let Err(e) = result {
        let why = format!("read error: {e:#}");
        if report.format.is_some() {
            report.note(&why, report.lines, "");
        } else {
            report.file_skipped = Some(why);
        }
    }
    (report, matches)
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
