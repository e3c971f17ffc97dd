//! The four tables of an export as Arrow record batches, written as Parquet files (snappy
//! compression, dictionary-encoded strings). The one place that knows the `arrow` and
//! `parquet` crates.
//!
//! Ids are the site's: `match_id` is the match's id (as in `data/matches.json` and its page's
//! URL), `player` is the identity key (`plain_name` in `data/players.json`: the plain name
//! after alias rules, or the first name of an id under `identity = "guid"`). The counts of
//! `match_players` are the site's per-match lines, so they add up to `data/players.json`.

use crate::model::MatchList;
use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int32Builder, Int64Builder, ListBuilder, StringBuilder,
    TimestampMillisecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use rayon::prelude::*;

use crate::model::EventKind;
use crate::model::clans::Clans;
use crate::model::identity::Roster;
use crate::rating::Ratings;
use crate::stats::Stats;

/// Most rows of `frags` in one file: a month with more is split into `part-0`, `part-1`, ...
/// at match boundaries (the same matches in the same part of every table), which also bounds
/// the memory of one file's columns and lets the parts be written in parallel.
pub const ROWS_PER_FILE: usize = 1 << 20;

/// The month partition of matches whose log gives no date (Quake 3 and Urban Terror logs).
pub const UNDATED: &str = "undated";

/// Everything the tables are made from: the history as the site counts and rates it.
pub struct History<'a> {
    /// In site order.
    pub matches: MatchList<'a>,
    pub roster: &'a Roster,
    pub clans: &'a Clans,
    pub stats: &'a Stats,
    pub ratings: &'a Ratings,
    /// For each identity: never named (opted out, or a hidden bot). Such a player has no row
    /// in `players` or `match_players` (as in `data/players.json`), and is a null `killer` or
    /// `victim` in `frags`.
    pub hidden: &'a [bool],
}

impl History<'_> {
    fn is_hidden(&self, player: u32) -> bool {
        self.hidden.get(player as usize).copied().unwrap_or(false)
    }
}

/// What was written.
#[derive(Debug, Clone, Copy, Default)]
pub struct Written {
    pub files: usize,
    /// Rows of `frags`.
    pub frags: usize,
}

/// The matches of one file of each partitioned table.
struct Part {
    /// `month=2026-03` or `month=undated`.
    partition: String,
    index: usize,
    matches: Vec<usize>,
}

/// Writes the four tables under `dir`.
pub fn write_tables(h: &History, dir: &Path) -> Result<Written> {
    // Events still packed (matches read back from the state) are decoded here, in parallel,
    // once: the parts are cut by their number.
    let sizes: Vec<usize> = h.matches.par_iter().map(|m| m.events.len()).collect();
    let parts = parts(h.matches, &sizes);
    for table in ["matches", "match_players", "frags"] {
        for p in &parts {
            let folder = dir.join(table).join(&p.partition);
            std::fs::create_dir_all(&folder)
                .with_context(|| format!("cannot create {}", folder.display()))?;
        }
        // An empty history still gets its (empty) tables, so queries find every column.
        if parts.is_empty() {
            let empty = Part {
                partition: format!("month={UNDATED}"),
                index: 0,
                matches: Vec::new(),
            };
            let folder = dir.join(table).join(&empty.partition);
            std::fs::create_dir_all(&folder)
                .with_context(|| format!("cannot create {}", folder.display()))?;
            write_part(h, dir, &empty, table)?;
        }
    }
    let players_dir = dir.join("players");
    std::fs::create_dir_all(&players_dir)
        .with_context(|| format!("cannot create {}", players_dir.display()))?;
    let (frags, players) = rayon::join(
        || -> Result<usize> {
            parts
                .par_iter()
                .map(|p| {
                    write_part(h, dir, p, "matches")?;
                    write_part(h, dir, p, "match_players")?;
                    write_part(h, dir, p, "frags")
                })
                .sum()
        },
        || write_file(&players_dir.join("part-0.parquet"), players_batch(h)?),
    );
    let frags = frags?;
    players?;
    let tables = if parts.is_empty() { 3 } else { 3 * parts.len() };
    Ok(Written {
        files: tables + 1,
        frags,
    })
}

/// Splits the matches by month (in site order within a month) and each month into parts of
/// at most [`ROWS_PER_FILE`] events (a match is never split; a bigger match is a part alone).
fn parts(matches: MatchList, sizes: &[usize]) -> Vec<Part> {
    let mut by_month: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, m) in matches.iter().enumerate() {
        let month = match m.start {
            Some(t) => t.format("%Y-%m").to_string(),
            None => UNDATED.to_string(),
        };
        by_month.entry(month).or_default().push(i);
    }
    let mut parts = Vec::new();
    for (month, indices) in by_month {
        let partition = format!("month={month}");
        let mut part = Part {
            partition: partition.clone(),
            index: 0,
            matches: Vec::new(),
        };
        let mut rows = 0;
        for i in indices {
            if !part.matches.is_empty() && rows + sizes[i] > ROWS_PER_FILE {
                let next = Part {
                    partition: partition.clone(),
                    index: part.index + 1,
                    matches: Vec::new(),
                };
                parts.push(std::mem::replace(&mut part, next));
                rows = 0;
            }
            part.matches.push(i);
            rows += sizes[i];
        }
        parts.push(part);
    }
    parts
}

/// Writes one part of one partitioned table; returns its rows.
fn write_part(h: &History, dir: &Path, part: &Part, table: &str) -> Result<usize> {
    let batch = match table {
        "matches" => matches_batch(h, &part.matches)?,
        "match_players" => match_players_batch(h, &part.matches)?,
        _ => frags_batch(h, &part.matches)?,
    };
    let rows = batch.num_rows();
    let path = dir
        .join(table)
        .join(&part.partition)
        .join(format!("part-{}.parquet", part.index));
    write_file(&path, batch)?;
    Ok(rows)
}

/// Writes `batch` as one Parquet file.
fn write_file(path: &Path, batch: RecordBatch) -> Result<()> {
    let write = || -> Result<()> {
        let file = File::create(path)?;
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_created_by(format!("fragstats {}", env!("CARGO_PKG_VERSION")))
            .build();
        let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props))?;
        writer.write(&batch)?;
        // Flushes the footer and the file's buffer, reporting an error a drop would swallow.
        writer.into_inner()?;
        Ok(())
    };
    write().with_context(|| format!("cannot write {}", path.display()))
}

/// A column: name, values, nullable.
type Column = (&'static str, ArrayRef, bool);

/// A record batch of `columns`, their nullability stated (not guessed from the data), so every
/// file of a table has the same schema.
fn batch(columns: Vec<Column>) -> Result<RecordBatch> {
    Ok(RecordBatch::try_from_iter_with_nullable(columns)?)
}

fn column(name: &'static str, array: impl arrow_array::Array + 'static, nullable: bool) -> Column {
    (name, Arc::new(array), nullable)
}

/// Counts and seconds as Parquet INT32 (signed: every engine reads it); larger values, which
/// no real log reaches, are clamped.
fn int(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// One row per match.
fn matches_batch(h: &History, part: &[usize]) -> Result<RecordBatch> {
    let n = part.len();
    let mut id = StringBuilder::with_capacity(n, n * 16);
    let mut number = Int32Builder::with_capacity(n);
    let mut started = TimestampMillisecondBuilder::with_capacity(n);
    let mut map = StringBuilder::new();
    let mut game = StringBuilder::new();
    let mut gametype = StringBuilder::new();
    let mut gametype_name = StringBuilder::new();
    let mut server = StringBuilder::new();
    let mut seconds = Int32Builder::with_capacity(n);
    let mut exit_reason = StringBuilder::new();
    let mut red = Int32Builder::with_capacity(n);
    let mut blue = Int32Builder::with_capacity(n);
    let mut partial = BooleanBuilder::with_capacity(n);
    let mut players = Int32Builder::with_capacity(n);
    let mut frags = Int32Builder::with_capacity(n);
    let mut suicides = Int32Builder::with_capacity(n);
    let mut team_kills = Int32Builder::with_capacity(n);
    let mut source = StringBuilder::new();
    let mut line = Int64Builder::with_capacity(n);
    for &mi in part {
        let (m, s) = (&h.matches.at(mi), &h.stats.matches[mi]);
        id.append_value(&m.id);
        number.append_value(int(m.number));
        // Server local time, as the log writes it: a timestamp without a time zone. In
        // milliseconds: Parquet has no timestamp of seconds, and engines that read only the
        // Parquet schema (DuckDB, Spark) would see seconds as a plain integer.
        started.append_option(m.start.map(|t| t.and_utc().timestamp_millis()));
        map.append_value(&m.map);
        game.append_value(&m.game);
        gametype.append_value(&m.gametype.code);
        gametype_name.append_value(&m.gametype.name);
        server.append_value(&m.server);
        seconds.append_value(int(m.duration_seconds));
        exit_reason.append_option(m.exit_reason.as_deref());
        red.append_option(m.team_scores.map(|t| t[0]));
        blue.append_option(m.team_scores.map(|t| t[1]));
        partial.append_value(m.partial);
        players.append_value(i32::try_from(s.lines.len()).unwrap_or(i32::MAX));
        let counts = s.counts();
        frags.append_value(int(counts.frags));
        suicides.append_value(int(counts.suicides));
        team_kills.append_value(int(counts.team_kills));
        source.append_value(&m.source);
        line.append_value(i64::try_from(m.line).unwrap_or(i64::MAX));
    }
    batch(vec![
        column("match_id", id.finish(), false),
        column("number", number.finish(), false),
        column("started", started.finish(), true),
        column("map", map.finish(), false),
        column("game", game.finish(), false),
        column("gametype", gametype.finish(), false),
        column("gametype_name", gametype_name.finish(), false),
        column("server", server.finish(), false),
        column("duration_seconds", seconds.finish(), false),
        column("exit_reason", exit_reason.finish(), true),
        column("red_score", red.finish(), true),
        column("blue_score", blue.finish(), true),
        column("partial", partial.finish(), false),
        column("players", players.finish(), false),
        column("frags", frags.finish(), false),
        column("suicides", suicides.finish(), false),
        column("team_kills", team_kills.finish(), false),
        column("source", source.finish(), false),
        column("line", line.finish(), false),
    ])
}

/// One row per player per match: the site's match lines (players who took part in play).
fn match_players_batch(h: &History, part: &[usize]) -> Result<RecordBatch> {
    let n: usize = part.iter().map(|&mi| h.stats.matches[mi].lines.len()).sum();
    let mut id = StringBuilder::with_capacity(n, n * 16);
    let mut player = StringBuilder::new();
    let mut frags = Int32Builder::with_capacity(n);
    let mut deaths = Int32Builder::with_capacity(n);
    let mut suicides = Int32Builder::with_capacity(n);
    let mut team_kills = Int32Builder::with_capacity(n);
    let mut captures = Int32Builder::with_capacity(n);
    let mut score = Int32Builder::with_capacity(n);
    let mut team = StringBuilder::new();
    let mut seconds = Int32Builder::with_capacity(n);
    let mut best_spree = Int32Builder::with_capacity(n);
    let mut bot = BooleanBuilder::with_capacity(n);
    for &mi in part {
        let (m, s, ids) = (
            &h.matches.at(mi),
            &h.stats.matches[mi],
            &h.roster.match_players.at(mi),
        );
        for l in s.lines.iter().filter(|l| !h.is_hidden(l.player)) {
            id.append_value(&m.id);
            player.append_value(&h.roster.players[l.player as usize].key);
            frags.append_value(int(l.frags));
            deaths.append_value(int(l.deaths));
            suicides.append_value(int(l.suicides));
            team_kills.append_value(int(l.team_kills));
            captures.append_value(int(l.captures));
            best_spree.append_value(int(l.best_spree));
            score.append_option(l.score);
            team.append_option(l.team.map(|t| t.label()));
            // Time in the match of every slot of this identity (a rejoin is a new slot).
            let slots = m
                .active_players()
                .filter(|(i, _)| ids.get(*i) == Some(&l.player));
            let mut played = 0u32;
            let mut is_bot = false;
            for (_, p) in slots {
                let left = p
                    .left()
                    .unwrap_or(m.duration_seconds)
                    .min(m.duration_seconds);
                played = played.saturating_add(left.saturating_sub(p.joined));
                is_bot |= p.bot;
            }
            seconds.append_value(int(played.min(m.duration_seconds)));
            bot.append_value(is_bot);
        }
    }
    batch(vec![
        column("match_id", id.finish(), false),
        column("player", player.finish(), false),
        column("frags", frags.finish(), false),
        column("deaths", deaths.finish(), false),
        column("suicides", suicides.finish(), false),
        column("team_kills", team_kills.finish(), false),
        column("captures", captures.finish(), false),
        column("score", score.finish(), true),
        column("team", team.finish(), true),
        column("seconds", seconds.finish(), false),
        column("best_spree", best_spree.finish(), false),
        column("bot", bot.finish(), false),
    ])
}

/// One row per kill line: frags, suicides (no victim) and team kills, in match order.
fn frags_batch(h: &History, part: &[usize]) -> Result<RecordBatch> {
    let n: usize = part.iter().map(|&mi| h.matches.at(mi).events.len()).sum();
    let mut id = StringBuilder::with_capacity(n, n * 16);
    let mut time = Int32Builder::with_capacity(n);
    let mut killer = StringBuilder::with_capacity(n, n * 12);
    let mut victim = StringBuilder::with_capacity(n, n * 12);
    let mut weapon = StringBuilder::with_capacity(n, n * 12);
    let mut kind = StringBuilder::with_capacity(n, n * 5);
    // Where the killer stood and the victim fell, x y z each, where the log gives them.
    let mut spots: [Int32Builder; 6] = std::array::from_fn(|_| Int32Builder::with_capacity(n));
    let keys = &h.roster.players;
    for &mi in part {
        let (m, ids) = (&h.matches.at(mi), &h.roster.match_players.at(mi));
        let by_line: std::collections::HashMap<u64, &crate::model::KillSpots> =
            m.spots.iter().map(|s| (s.line, s)).collect();
        // The key of match player `i` (None when hidden); None for no such player.
        let key = |i: u32| -> Option<Option<&str>> {
            let p = *ids.get(i as usize)?;
            let key = keys.get(p as usize)?.key.as_str();
            Some((!h.is_hidden(p)).then_some(key))
        };
        for e in m.events.read().iter() {
            let what = match e.kind {
                EventKind::Frag => "frag",
                EventKind::Suicide => "suicide",
                EventKind::TeamKill => "team_kill",
                _ => continue,
            };
            // A parser always names the actor of a kill line; an event that does not (a bug)
            // is left out rather than exported with a wrong name.
            let Some(actor) = key(e.actor) else { continue };
            id.append_value(&m.id);
            time.append_value(int(e.time));
            killer.append_option(actor);
            victim.append_option(if e.kind == EventKind::Suicide {
                None
            } else {
                key(e.target).flatten()
            });
            weapon.append_value(
                m.weapons
                    .get(usize::from(e.detail))
                    .map_or("", |w| w.as_str()),
            );
            kind.append_value(what);
            let at = (e.kind != EventKind::Suicide)
                .then(|| by_line.get(&e.line))
                .flatten();
            for (k, b) in spots.iter_mut().enumerate() {
                b.append_option(at.map(|s| if k < 3 { s.killer[k] } else { s.victim[k - 3] }));
            }
        }
    }
    let [mut kx, mut ky, mut kz, mut vx, mut vy, mut vz] = spots;
    batch(vec![
        column("match_id", id.finish(), false),
        column("time", time.finish(), false),
        column("killer", killer.finish(), true),
        column("victim", victim.finish(), true),
        column("weapon", weapon.finish(), false),
        column("kind", kind.finish(), false),
        column("killer_x", kx.finish(), true),
        column("killer_y", ky.finish(), true),
        column("killer_z", kz.finish(), true),
        column("victim_x", vx.finish(), true),
        column("victim_y", vy.finish(), true),
        column("victim_z", vz.finish(), true),
    ])
}

/// One row per player: names, ratings and totals, as in `data/players.json`.
fn players_batch(h: &History) -> Result<RecordBatch> {
    let n = h.roster.players.len();
    let r = h.ratings;
    let mut player = StringBuilder::new();
    let mut plain_name = StringBuilder::new();
    let mut name = StringBuilder::new();
    let mut names = ListBuilder::new(StringBuilder::new());
    let mut headline = Float64Builder::with_capacity(n);
    let mut provisional = BooleanBuilder::with_capacity(n);
    let mut rating = Float64Builder::with_capacity(n);
    let mut static_rating = Float64Builder::with_capacity(n);
    let mut kills = Int32Builder::with_capacity(n);
    let mut deaths = Int32Builder::with_capacity(n);
    let mut suicides = Int32Builder::with_capacity(n);
    let mut team_kills = Int32Builder::with_capacity(n);
    let mut captures = Int32Builder::with_capacity(n);
    let mut flag_returns = Int32Builder::with_capacity(n);
    let mut matches = Int32Builder::with_capacity(n);
    let mut incidents = Int64Builder::with_capacity(n);
    let mut clan = StringBuilder::new();
    for (i, (p, s)) in h.roster.players.iter().zip(&h.stats.players).enumerate() {
        if h.is_hidden(i as u32) {
            continue;
        }
        player.append_value(&p.key);
        plain_name.append_value(&p.key);
        name.append_value(&p.name);
        names.append_value(p.names_seen.iter().map(Some));
        headline.append_value(r.headline.value.get(i).copied().unwrap_or(0.0));
        provisional.append_value(r.headline.provisional.get(i).copied().unwrap_or(true));
        rating.append_value(r.dynamic.players.get(i).copied().unwrap_or(0.0));
        static_rating.append_option(r.static_.value.get(i).copied().flatten());
        kills.append_value(int(s.kills));
        deaths.append_value(int(s.deaths));
        suicides.append_value(int(s.suicides));
        team_kills.append_value(int(s.team_kills));
        captures.append_value(int(s.captures));
        flag_returns.append_value(int(s.flag_returns));
        matches.append_value(i32::try_from(s.matches.len()).unwrap_or(i32::MAX));
        incidents.append_value(
            i64::try_from(r.static_.incidents.get(i).copied().unwrap_or(0)).unwrap_or(i64::MAX),
        );
        clan.append_option(h.clans.of_player[i].map(|c| h.clans.clans[c as usize].name.as_str()));
    }
    batch(vec![
        column("player", player.finish(), false),
        column("plain_name", plain_name.finish(), false),
        column("name", name.finish(), false),
        column("names", names.finish(), false),
        column("headline_rating", headline.finish(), false),
        column("provisional", provisional.finish(), false),
        column("rating", rating.finish(), false),
        column("static_rating", static_rating.finish(), true),
        column("kills", kills.finish(), false),
        column("deaths", deaths.finish(), false),
        column("suicides", suicides.finish(), false),
        column("team_kills", team_kills.finish(), false),
        column("captures", captures.finish(), false),
        column("flag_returns", flag_returns.finish(), false),
        column("matches", matches.finish(), false),
        column("incidents", incidents.finish(), false),
        column("clan", clan.finish(), true),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Match, Team};
    use arrow_array::Array;
    use arrow_array::cast::AsArray;
    use arrow_schema::DataType;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    /// Every batch of every Parquet file under `dir`, by table folder.
    fn read_all(dir: &Path) -> Vec<(String, RecordBatch)> {
        let mut out = Vec::new();
        for table in ["matches", "match_players", "frags", "players"] {
            for f in walkdir::WalkDir::new(dir.join(table)) {
                let f = f.unwrap();
                if !f.file_type().is_file() {
                    continue;
                }
                let file = File::open(f.path()).unwrap();
                let reader = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
                for b in reader.build().unwrap() {
                    out.push((table.to_string(), b.unwrap()));
                }
            }
        }
        out
    }

    /// Every string value in `batch` (lists of strings included).
    fn all_strings(batch: &RecordBatch) -> Vec<String> {
        let mut out = Vec::new();
        for col in batch.columns() {
            let strings = match col.data_type() {
                DataType::Utf8 => col.as_string::<i32>().clone(),
                DataType::List(_) => col.as_list::<i32>().values().as_string::<i32>().clone(),
                _ => continue,
            };
            out.extend(strings.iter().flatten().map(str::to_string));
        }
        out
    }

    /// A hidden player (opted out) is named nowhere in the export: no row in players or
    /// match_players, a null killer or victim in frags, not in any string of any file, nor in
    /// the files' bytes (statistics, dictionaries); everyone else's counts stay whole.
    #[test]
    fn hidden_players_are_named_nowhere() {
        let (matches, roster) = crate::testdata::history("openarena");
        let cfg = crate::config::Config::default();
        let clans = Clans::assign(&roster, &cfg.clans, cfg.detect_clans);
        let folds = crate::fold::fold(
            crate::model::MatchList::from(&matches),
            &roster,
            &clans,
            &cfg.rating,
            None,
        );
        let ratings = Ratings::compute(folds.dynamic, folds.evaluation, folds.static_, &cfg.rating);
        let gone = roster
            .players
            .iter()
            .position(|p| p.key == "Grism")
            .unwrap();
        let mut hidden = vec![false; roster.players.len()];
        hidden[gone] = true;
        let h = History {
            matches: crate::model::MatchList::from(&matches),
            roster: &roster,
            clans: &clans,
            stats: &folds.stats,
            ratings: &ratings,
            hidden: &hidden,
        };
        let tmp = tempfile::tempdir().unwrap();
        write_tables(&h, tmp.path()).unwrap();
        let batches = read_all(tmp.path());
        for (table, b) in &batches {
            assert!(
                all_strings(b).iter().all(|s| !s.contains("Grism")),
                "{table} names the hidden player"
            );
        }
        for f in walkdir::WalkDir::new(tmp.path()) {
            let f = f.unwrap();
            if f.file_type().is_file() {
                let bytes = std::fs::read(f.path()).unwrap();
                assert!(
                    !bytes.windows(5).any(|w| w == b"Grism"),
                    "{}",
                    f.path().display()
                );
            }
        }
        let sum = |table: &str, col: &str| -> i64 {
            batches
                .iter()
                .filter(|(t, _)| t == table)
                .flat_map(|(_, b)| {
                    let a = b.column_by_name(col).unwrap();
                    let a = a.as_primitive::<arrow_array::types::Int32Type>();
                    a.values().iter().map(|&v| i64::from(v)).collect::<Vec<_>>()
                })
                .sum()
        };
        let visible = |f: fn(&crate::stats::PlayerStats) -> u32| -> i64 {
            let shown = folds.stats.players.iter().enumerate();
            shown
                .filter(|(i, _)| *i != gone)
                .map(|(_, p)| i64::from(f(p)))
                .sum()
        };
        assert_eq!(sum("match_players", "frags"), visible(|p| p.kills));
        assert_eq!(sum("match_players", "deaths"), visible(|p| p.deaths));
        assert_eq!(sum("players", "kills"), visible(|p| p.kills));
        // Grism's frags are still frags (of an unnamed killer), as the others' counts need.
        let unnamed = batches
            .iter()
            .filter(|(t, _)| t == "frags")
            .map(|(_, b)| b.column_by_name("killer").unwrap().null_count())
            .sum::<usize>();
        assert_eq!(
            unnamed,
            (folds.stats.players[gone].kills
                + folds.stats.players[gone].suicides
                + folds.stats.players[gone].team_kills) as usize
        );
    }

    fn game(start: Option<&str>) -> Match {
        let mut m = crate::testdata::bare_match("ffa", &[("a", Team::Free)]);
        m.start =
            start.map(|s| chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap());
        m
    }

    /// Months in order, site order within a month, undated apart; a month is cut at match
    /// boundaries when its events pass ROWS_PER_FILE, and an oversized match is a part alone.
    #[test]
    fn parts_by_month_and_size() {
        let matches = [
            game(Some("2026-03-31 23:59:59")),
            game(None),
            game(Some("2026-02-01 00:00:00")),
            game(Some("2026-03-01 00:00:00")),
            game(Some("2026-03-02 00:00:00")),
            game(Some("2026-03-03 00:00:00")),
        ];
        let sizes = [
            ROWS_PER_FILE / 2,
            5,
            7,
            ROWS_PER_FILE / 2,
            1,
            ROWS_PER_FILE * 3,
        ];
        let got: Vec<(String, usize, Vec<usize>)> =
            parts(crate::model::MatchList::from(&matches), &sizes)
                .into_iter()
                .map(|p| (p.partition, p.index, p.matches))
                .collect();
        let want = [
            ("month=2026-02", 0, vec![2]),
            ("month=2026-03", 0, vec![0, 3]),
            ("month=2026-03", 1, vec![4]),
            ("month=2026-03", 2, vec![5]),
            ("month=undated", 0, vec![1]),
        ];
        let want: Vec<(String, usize, Vec<usize>)> = want
            .into_iter()
            .map(|(p, i, m)| (p.to_string(), i, m))
            .collect();
        assert_eq!(got, want);
    }
}
