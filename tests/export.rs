//! `fragstats export --format parquet`: run the real binary, read the tables back with the
//! `parquet` crate and hold them against `data/*.json` of a build of the same logs.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, TimestampMillisecondType};
use arrow_array::{Array, RecordBatch};
use common::{fragstats, shared, stderr};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::LogicalType;

/// Every `.parquet` file under `dir`, sorted.
fn parquet_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "parquet") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A table of an export: every row of every file under `out/<table>/`, as batches.
fn table(out: &Path, name: &str) -> Vec<RecordBatch> {
    let files = parquet_files(&out.join(name));
    assert!(!files.is_empty(), "no files for table {name}");
    files
        .iter()
        .flat_map(|f| {
            ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(f).unwrap())
                .unwrap()
                .build()
                .unwrap()
                .map(Result::unwrap)
        })
        .collect()
}

fn strings(batches: &[RecordBatch], col: &str) -> Vec<Option<String>> {
    batches
        .iter()
        .flat_map(|b| {
            let a = b
                .column_by_name(col)
                .unwrap_or_else(|| panic!("column {col}"));
            let a = a.as_string::<i32>();
            (0..a.len())
                .map(|i| a.is_valid(i).then(|| a.value(i).to_string()))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn ints(batches: &[RecordBatch], col: &str) -> Vec<Option<i64>> {
    batches
        .iter()
        .flat_map(|b| {
            let a = b
                .column_by_name(col)
                .unwrap_or_else(|| panic!("column {col}"));
            let a = a.as_primitive::<Int32Type>();
            (0..a.len())
                .map(|i| a.is_valid(i).then(|| i64::from(a.value(i))))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn floats(batches: &[RecordBatch], col: &str) -> Vec<f64> {
    batches
        .iter()
        .flat_map(|b| {
            let a = b
                .column_by_name(col)
                .unwrap_or_else(|| panic!("column {col}"));
            a.as_primitive::<Float64Type>().values().to_vec()
        })
        .collect()
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Runs `fragstats args...` in `cwd` and fails the test with its stderr when it fails.
fn run(args: &[&str], cwd: &Path) -> String {
    let o = fragstats(args, cwd);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stderr(&o)
}

fn export(cwd: &Path, out: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "export",
        "--format",
        "parquet",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run(&args, cwd)
}

fn build(cwd: &Path, site: &Path, extra: &[&str]) -> String {
    let mut args = vec!["build", "--out", site.to_str().unwrap()];
    args.extend_from_slice(extra);
    run(&args, cwd)
}

/// The export holds exactly what `data/*.json` of the site holds: per player, the frags and
/// deaths of `match_players` add up to `kills` and `deaths` (so do the totals, the issue's
/// contract), the players and their ratings are the same, and so are the matches and their ids.
fn assert_export_matches_site(out: &Path, site: &Path, hidden_players: bool) {
    let players_json = json(&site.join("data/players.json"));
    let players_json = players_json.as_array().unwrap();
    let mp = table(out, "match_players");
    let (who, frags, deaths) = (
        strings(&mp, "player"),
        ints(&mp, "frags"),
        ints(&mp, "deaths"),
    );
    let mut per_player: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    for ((p, f), d) in who.iter().zip(&frags).zip(&deaths) {
        let e = per_player.entry(p.clone().unwrap()).or_default();
        e.0 += f.unwrap();
        e.1 += d.unwrap();
    }
    let (mut kills_sum, mut deaths_sum) = (0, 0);
    for p in players_json {
        let key = p["plain_name"].as_str().unwrap();
        let (k, d) = (p["kills"].as_i64().unwrap(), p["deaths"].as_i64().unwrap());
        kills_sum += k;
        deaths_sum += d;
        assert_eq!(
            per_player.get(key).copied().unwrap_or_default(),
            (k, d),
            "frags and deaths of {key}"
        );
    }
    let frag_sum: i64 = frags.iter().flatten().sum();
    let death_sum: i64 = deaths.iter().flatten().sum();
    assert!(frag_sum > 0);
    assert_eq!((frag_sum, death_sum), (kills_sum, deaths_sum));

    // Players: the same ids, names and ratings as players.json.
    let players = table(out, "players");
    let keys = strings(&players, "player");
    let plain = strings(&players, "plain_name");
    let headline = floats(&players, "headline_rating");
    let rating = floats(&players, "rating");
    assert_eq!(keys.len(), players_json.len());
    for (i, p) in players_json.iter().enumerate() {
        assert_eq!(keys[i].as_deref(), p["plain_name"].as_str());
        assert_eq!(plain[i].as_deref(), p["plain_name"].as_str());
        // serde_json parses decimals to within an ulp or so of the written number.
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        let key = &p["plain_name"];
        let want = p["headline_rating"].as_f64().unwrap();
        assert!(close(headline[i], want), "{key}: {} {want}", headline[i]);
        let want = p["rating"].as_f64().unwrap();
        assert!(close(rating[i], want), "{key}: {} {want}", rating[i]);
    }
    let known: BTreeSet<&str> = keys.iter().flatten().map(String::as_str).collect();
    assert!(who.iter().flatten().all(|p| known.contains(p.as_str())));

    // Matches: the ids of matches.json, with their frags; every match's month partition.
    let matches_json = json(&site.join("data/matches.json"));
    let matches_json = matches_json.as_array().unwrap();
    let matches = table(out, "matches");
    let ids: BTreeSet<String> = strings(&matches, "match_id")
        .into_iter()
        .flatten()
        .collect();
    let want: BTreeSet<String> = matches_json
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, want);
    let match_frags: i64 = ints(&matches, "frags").iter().flatten().sum();
    let json_frags: i64 = matches_json
        .iter()
        .map(|m| m["kills"].as_i64().unwrap())
        .sum();
    assert_eq!(match_frags, json_frags);
    // Start times are the server's wall clock, as in matches.json (which gives whole seconds;
    // the export keeps a CS2 log's milliseconds).
    let started: Vec<Option<i64>> = matches
        .iter()
        .flat_map(|b| {
            let a = b.column_by_name("started").unwrap();
            let a = a.as_primitive::<TimestampMillisecondType>();
            (0..a.len())
                .map(|i| {
                    a.is_valid(i)
                        .then(|| a.value(i) - a.value(i).rem_euclid(1000))
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let start_of: BTreeMap<String, Option<i64>> = strings(&matches, "match_id")
        .into_iter()
        .flatten()
        .zip(started)
        .collect();
    for m in matches_json {
        let want = m["start"].as_str().map(|t| {
            chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S")
                .unwrap()
                .and_utc()
                .timestamp_millis()
        });
        assert_eq!(
            start_of[m["id"].as_str().unwrap()],
            want,
            "start of {}",
            m["id"]
        );
        let month = match m["start"].as_str() {
            Some(t) => format!("month={}", &t[..7]),
            None => "month=undated".into(),
        };
        assert!(out.join("matches").join(&month).is_dir(), "{month}");
    }

    // Frags: one row per frag, suicide and team kill, by known players.
    let fr = table(out, "frags");
    let kinds = strings(&fr, "kind");
    let count = |k: &str| kinds.iter().filter(|x| x.as_deref() == Some(k)).count() as i64;
    assert_eq!(count("frag"), json_frags);
    let suicides: i64 = matches_json
        .iter()
        .map(|m| m["suicides"].as_i64().unwrap())
        .sum();
    assert_eq!(count("suicide"), suicides);
    let tks: i64 = matches_json
        .iter()
        .map(|m| m["team_kills"].as_i64().unwrap())
        .sum();
    assert_eq!(count("team_kill"), tks);
    let victims = strings(&fr, "victim");
    // A suicide has no victim; a frag's victim is null only when they are hidden.
    for (k, v) in kinds.iter().zip(&victims) {
        if k.as_deref() == Some("suicide") {
            assert!(v.is_none());
        }
    }
    if !hidden_players {
        assert!(
            kinds
                .iter()
                .zip(&victims)
                .all(|(k, v)| k.as_deref() == Some("suicide") || v.is_some())
        );
    }
    for killer in strings(&fr, "killer").iter().flatten() {
        assert!(known.contains(killer.as_str()), "{killer}");
    }
    let fr_ids: BTreeSet<String> = strings(&fr, "match_id").into_iter().flatten().collect();
    assert!(fr_ids.is_subset(&ids));
}

/// The contract's columns are there, under these names.
fn assert_contract_columns(out: &Path) {
    let want: [(&str, &[&str]); 4] = [
        (
            "match_players",
            &[
                "match_id",
                "player",
                "frags",
                "deaths",
                "suicides",
                "team_kills",
                "captures",
                "score",
                "team",
                "seconds",
            ],
        ),
        (
            "players",
            &["player", "plain_name", "headline_rating", "rating"],
        ),
        (
            "matches",
            &["match_id", "started", "map", "gametype", "server"],
        ),
        (
            "frags",
            &["match_id", "time", "killer", "victim", "weapon", "kind"],
        ),
    ];
    for (name, columns) in want {
        let batches = table(out, name);
        let schema = batches[0].schema();
        for c in columns {
            assert!(schema.field_with_name(c).is_ok(), "{name}.{c}");
        }
    }
    // Engines that read only the Parquet schema (DuckDB, Spark) see a timestamp and strings.
    let file = &parquet_files(&out.join("matches"))[0];
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(file).unwrap());
    let reader = reader.unwrap();
    let logical = |name: &str| {
        let schema = reader.parquet_schema();
        let c = schema.columns().iter().find(|c| c.name() == name).unwrap();
        c.logical_type_ref().cloned()
    };
    assert!(
        matches!(logical("started"), Some(LogicalType::Timestamp(t)) if !t.is_adjusted_to_u_t_c),
        "{:?}",
        logical("started")
    );
    assert_eq!(logical("map"), Some(LogicalType::String));
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}

/// The real logs of `../shared/data` (OpenArena with dates, Quake 3 and Urban Terror without):
/// exported before any build (everything parsed and rated), then after a build (the build's
/// stored matches and checkpoint reused), the same tables, byte for byte, and the same counts
/// as the site's players.json. The export leaves the state folder as it was.
#[test]
fn export_of_real_logs_adds_up_to_players_json() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (cwd, out, site) = (
        tmp.path(),
        tmp.path().join("export"),
        tmp.path().join("site"),
    );
    let logs = [common::openarena(""), shared().join("public")];
    let logs: Vec<&str> = logs.iter().map(|p| p.to_str().unwrap()).collect();
    let err = export(cwd, &out, &logs);
    assert!(
        err.contains("halflife") && err.contains("callofduty") && err.contains("unknown format"),
        "every file is reported: {err}"
    );
    assert!(err.contains("exported "), "{err}");
    let first = snapshot(&out);
    let beside: Vec<String> = std::fs::read_dir(cwd)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        beside,
        ["export"],
        "the scratch folder of the parsed logs is gone"
    );
    assert!(
        out.join("frags/month=undated").is_dir(),
        "Quake 3 logs have no date"
    );
    assert!(
        parquet_files(&out.join("frags")).len() >= 2,
        "the dated OpenArena matches are partitioned by month"
    );

    build(cwd, &site, &logs);
    let state = snapshot(&cwd.join(".fragstats"));
    let err = export(cwd, &out, &logs);
    assert!(
        err.contains("resumed from the last build's checkpoint"),
        "{err}"
    );
    assert_eq!(
        snapshot(&cwd.join(".fragstats")),
        state,
        "export writes no state"
    );
    assert!(
        snapshot(&out) == first,
        "the same export with and without a build's state"
    );
    assert_contract_columns(&out);
    assert_export_matches_site(&out, &site, false);
}

/// The sample logs with a config: its alias rule applies to the export as it does to the site,
/// and matches kept only in the archive of record (their log was deleted) are exported too.
#[test]
fn export_of_sample_logs_follows_config_and_archive() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let logs = dir.join("logs");
    std::fs::create_dir(&logs).unwrap();
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs");
    for f in ["ffa.log", "ctf.log", "tdm.log", "duel-oa_minia.log"] {
        std::fs::copy(samples.join(f), logs.join(f)).unwrap();
    }
    std::fs::write(
        dir.join("site.toml"),
        "logs = [\"logs\"]\n[aliases]\n\"Tony\" = [\"Grism\"]\n",
    )
    .unwrap();
    let (out, site) = (dir.join("export"), dir.join("site"));
    build(dir, &site, &[]);
    // The ffa log goes; its matches stay in the archive of record, on the site and in the export.
    std::fs::remove_file(logs.join("ffa.log")).unwrap();
    build(dir, &site, &[]);
    let err = export(dir, &out, &["--config", "site.toml"]);
    assert!(err.contains("exported 22 matches"), "{err}");
    assert_export_matches_site(&out, &site, false);
    let players = strings(&table(&out, "players"), "player");
    assert!(players.contains(&Some("Tony".into())));
    assert!(!players.contains(&Some("Grism".into())), "aliased away");
    // Time played is within each match.
    let mp = table(&out, "match_players");
    assert!(ints(&mp, "seconds").iter().flatten().all(|s| *s >= 0));
    assert!(ints(&mp, "seconds").iter().flatten().any(|s| *s > 0));
}

/// A folder of other files is never replaced; the message says what to do.
#[test]
fn export_refuses_a_foreign_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("mine");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "keep me").unwrap();
    let o = fragstats(
        &[
            "export",
            "--format",
            "parquet",
            "--out",
            "mine",
            "nothing-here",
        ],
        tmp.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("give --out a new or empty folder"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(out.join("notes.txt")).unwrap(), b"keep me");
}

/// `[moderation]` holds in the export as on the site: a hidden player is named nowhere (no row
/// of their own, a null killer or victim), a banned one is gone with every frag they made or
/// suffered, and the counts still equal the site's.
#[test]
fn export_follows_moderation() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let logs = dir.join("logs");
    std::fs::create_dir(&logs).unwrap();
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs");
    for f in ["ffa.log", "tdm.log"] {
        std::fs::copy(samples.join(f), logs.join(f)).unwrap();
    }
    std::fs::write(
        dir.join("site.toml"),
        "logs = [\"logs\"]\n[moderation]\nhide = [\"Grism\"]\nexclude = [\"RedDevil\"]\n",
    )
    .unwrap();
    let (out, site) = (dir.join("export"), dir.join("site"));
    build(dir, &site, &[]);
    export(dir, &out, &["--config", "site.toml"]);
    assert_export_matches_site(&out, &site, true);
    let frags = table(&out, "frags");
    let named: Vec<Option<String>> = ["killer", "victim"]
        .iter()
        .flat_map(|c| strings(&frags, c))
        .chain(strings(&table(&out, "players"), "player"))
        .chain(strings(&table(&out, "match_players"), "player"))
        .collect();
    assert!(named.iter().flatten().any(|n| n == "Tony"));
    for gone in ["Grism", "RedDevil"] {
        assert!(
            !named.iter().flatten().any(|n| n == gone),
            "{gone} exported"
        );
    }
    assert!(
        named.iter().any(|n| n.is_none()),
        "the hidden player's frags stay, unnamed"
    );
    for file in parquet_files(&out) {
        let bytes = std::fs::read(&file).unwrap();
        for gone in ["Grism", "RedDevil"] {
            assert!(
                !bytes.windows(gone.len()).any(|w| w == gone.as_bytes()),
                "{gone} in {}",
                file.display()
            );
        }
    }
}
