//! The archive of record, as an admin's server writes, rotates and uploads its `games.log`:
//! appended, cut mid-match, copied and truncated (logrotate `copytruncate`), compressed
//! (`.2.gz`), overwritten by an upload of the newest part, deleted. No finished match ever
//! disappears from the site, the rotated copies replay oldest first, `--full` gives the same
//! site, and `fragstats forget` is the only way out.

mod common;

use std::io::Write;
use std::path::Path;

use common::{fragstats, shared_log, stderr};

/// The real log cut into whole matches: each piece ends after a `ShutdownGame` line.
fn match_pieces(log: &[u8]) -> Vec<Vec<u8>> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut at = 0;
    for line in log.split_inclusive(|&b| b == b'\n') {
        at += line.len();
        if String::from_utf8_lossy(line).contains("ShutdownGame:") {
            pieces.push(log[start..at].to_vec());
            start = at;
        }
    }
    pieces
}

/// The site's `data/matches.json`, in site order.
fn matches_json(site: &Path) -> Vec<serde_json::Value> {
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(site.join("public/data/matches.json")).unwrap())
            .unwrap();
    json.as_array().unwrap().clone()
}

/// (id, source, line, partial) of every match on the site, in site order.
fn site_matches(site: &Path) -> Vec<(String, String, u64, bool)> {
    matches_json(site)
        .iter()
        .map(|m| {
            (
                m["id"].as_str().unwrap().to_string(),
                m["source"].as_str().unwrap().to_string(),
                m["line"].as_u64().unwrap(),
                m["partial"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn build(site: &Path, args: &[&str]) -> String {
    let mut all = vec!["build"];
    all.extend_from_slice(args);
    let o = fragstats(&all, site);
    assert!(o.status.success(), "{}", stderr(&o));
    stderr(&o)
}

#[test]
fn rotated_truncated_overwritten_and_deleted_logs_lose_no_match() {
    if !common::has_shared_data() {
        return;
    }
    // Urban Terror logs carry no dates: order comes from the files alone.
    let pieces = match_pieces(&shared_log("public/urt/urt43-lan-rodov.log"));
    assert!(pieces.len() >= 12);
    let cat = |r: std::ops::Range<usize>| pieces[r].concat();
    // The finished matches in their true order: a build of the log as one file.
    let whole = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(whole.path().join("logs")).unwrap();
    std::fs::write(whole.path().join("logs/games.log"), cat(0..12)).unwrap();
    build(whole.path(), &["logs"]);
    let truth: Vec<String> = site_matches(whole.path())
        .into_iter()
        .map(|m| m.0)
        .collect();

    let dir = tempfile::tempdir().unwrap();
    let site = dir.path();
    let logs = site.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(site.join("site.toml"), "logs = [\"logs\"]\n").unwrap();
    let live = logs.join("games.log");
    let mut seen: std::collections::BTreeSet<String> = Default::default();
    let mut step = |what: &str| {
        let out = build(site, &[]);
        let now = site_matches(site);
        let ids: std::collections::BTreeSet<String> = now.iter().map(|m| m.0.clone()).collect();
        for id in &seen {
            assert!(ids.contains(id), "{what}: match {id} disappeared\n{out}");
        }
        // Only finished matches must stay (an unfinished one is replaced by its whole).
        seen.extend(
            now.iter()
                .filter(|m| truth.contains(&m.0))
                .map(|m| m.0.clone()),
        );
        out
    };
    std::fs::write(&live, cat(0..3)).unwrap();
    step("first upload");
    // The server writes on; the build catches it in the middle of match 5.
    let five = &pieces[5];
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&live)
        .unwrap();
    f.write_all(&cat(3..5)).unwrap();
    f.write_all(&five[..five.len() / 2]).unwrap();
    drop(f);
    step("append, cut mid-match");
    // logrotate copytruncate: the copy holds the first half of match 5, the live log the rest.
    std::fs::copy(&live, logs.join("games.log.1")).unwrap();
    std::fs::write(&live, &five[five.len() / 2..]).unwrap();
    step("copytruncate");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&live)
        .unwrap();
    f.write_all(&cat(6..8)).unwrap();
    drop(f);
    step("append");
    // The next rotation, compressed: .1 -> .2.gz, games.log -> .1, games.log emptied.
    let one = std::fs::read(logs.join("games.log.1")).unwrap();
    std::fs::write(logs.join("games.log.2.gz"), gzip(&one)).unwrap();
    std::fs::copy(&live, logs.join("games.log.1")).unwrap();
    std::fs::write(&live, b"").unwrap();
    step("rotate and compress");
    // An upload overwrites games.log with the newest part only.
    std::fs::write(&live, cat(8..10)).unwrap();
    step("overwrite");
    std::fs::remove_file(logs.join("games.log.2.gz")).unwrap();
    let out = step("delete the oldest copy");
    assert!(out.contains("archive: "), "{out}");
    std::fs::write(&live, cat(10..12)).unwrap();
    step("overwrite again");

    // Every finished match is there, in the order the server played them. Match 5, cut in two
    // by the rotation, is kept as read: its first half under its own id (fixed by its opening,
    // so a link to it stays valid), then the second half, which starts mid-match.
    let now = site_matches(site);
    let ids: Vec<&String> = now.iter().map(|m| &m.0).collect();
    let finished: Vec<&String> = ids
        .iter()
        .copied()
        .filter(|id| truth.contains(id))
        .collect();
    assert_eq!(
        finished,
        truth.iter().collect::<Vec<_>>(),
        "rotated copies replay oldest first"
    );
    let extra: Vec<usize> = (0..now.len())
        .filter(|&i| !truth.contains(&now[i].0))
        .collect();
    assert_eq!(extra.len(), 1, "{now:?}");
    assert!(now[extra[0]].3, "the second half starts mid-match");
    assert!(now[extra[0] - 1].1.starts_with("games.log"), "{now:?}");

    // --full re-reads the logs present and keeps the archive: the same site.
    let before: Vec<u8> = std::fs::read(site.join("public/data/matches.json")).unwrap();
    build(site, &["--full"]);
    assert_eq!(
        std::fs::read(site.join("public/data/matches.json")).unwrap(),
        before
    );

    // forget: the admin removes what came from the deleted copy, on purpose.
    let from_copy = now.iter().filter(|m| m.1 == "games.log.2.gz").count();
    assert!(from_copy >= 4, "{now:?}");
    let o = fragstats(&["forget", "games.log.2.gz"], site);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains(&format!("removed {from_copy} archived matches")),
        "{said}"
    );
    build(site, &[]);
    let left = site_matches(site);
    assert_eq!(left.len(), now.len() - from_copy);
    assert!(left.iter().all(|m| m.1 != "games.log.2.gz"));
    let o = fragstats(&["forget", "--before", "2000-01-01"], site);
    assert!(String::from_utf8_lossy(&o.stdout).contains("nothing removed"));
    // Forgetting everything is said explicitly.
    let o = fragstats(&["forget"], site);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--all"), "{}", stderr(&o));
    let o = fragstats(&["forget", "--all"], site);
    assert!(String::from_utf8_lossy(&o.stdout).contains("0 archived matches left"));
}

/// A `--full` build is the first to see a log deleted and another truncated: the matches they
/// held, which only the previous state knows (read again from it log by log), join the
/// archive; the site is the one a plain build makes, and a plain build after it the same.
#[test]
fn a_full_build_archives_what_logs_lost_since_the_last_build() {
    if !common::has_shared_data() {
        return;
    }
    let pieces = match_pieces(&shared_log("public/urt/urt43-lan-rodov.log"));
    assert!(pieces.len() >= 12);
    let cat = |r: std::ops::Range<usize>| pieces[r].concat();
    let sites: Vec<tempfile::TempDir> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let mut before = Vec::new();
    for (i, dir) in sites.iter().enumerate() {
        let site = dir.path();
        std::fs::create_dir_all(site.join("logs")).unwrap();
        std::fs::write(site.join("site.toml"), "logs = [\"logs\"]\n").unwrap();
        std::fs::write(site.join("logs/a.log"), cat(0..4)).unwrap();
        std::fs::write(site.join("logs/b.log"), cat(4..8)).unwrap();
        std::fs::write(site.join("logs/c.log"), cat(8..10)).unwrap();
        build(site, &[]);
        before = site_matches(site);
        // b.log deleted; a.log cut to its first two matches, then new ones appended.
        std::fs::remove_file(site.join("logs/b.log")).unwrap();
        let mut cut = cat(0..2);
        cut.extend(cat(10..12));
        std::fs::write(site.join("logs/a.log"), cut).unwrap();
        build(site, if i == 0 { &["--full"] } else { &[] });
    }
    let full = site_matches(sites[0].path());
    let plain = site_matches(sites[1].path());
    assert_eq!(full, plain);
    assert_eq!(
        std::fs::read(sites[0].path().join("public/data/matches.json")).unwrap(),
        std::fs::read(sites[1].path().join("public/data/matches.json")).unwrap()
    );
    // Every match read before is still there, b.log's and a.log's cut ones among them.
    let lost: Vec<_> = before
        .iter()
        .filter(|m| !full.iter().any(|f| f.0 == m.0))
        .collect();
    assert!(lost.is_empty(), "{lost:?}");
    assert!(before.iter().any(|m| m.1 == "b.log") && full.len() > before.len());
    build(sites[0].path(), &[]);
    assert_eq!(site_matches(sites[0].path()), full);
}

/// Labels of undated matches ("Match N") stay when an older log arrives later.
#[test]
fn match_numbers_stay_when_an_older_log_arrives() {
    if !common::has_shared_data() {
        return;
    }
    let pieces = match_pieces(&shared_log("public/urt/urt43-lan-rodov.log"));
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path();
    std::fs::create_dir_all(site.join("logs")).unwrap();
    std::fs::write(site.join("site.toml"), "logs = [\"logs\"]\n").unwrap();
    std::fs::write(site.join("logs/b.log"), pieces[6..10].concat()).unwrap();
    build(site, &[]);
    let numbers = |site: &Path| -> Vec<(String, u64)> {
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(site.join("public/data/matches.json")).unwrap())
                .unwrap();
        json.as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["id"].as_str().unwrap().into(),
                    m["number"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let before = numbers(site);
    let n = before.len();
    assert!(n >= 3);
    assert_eq!(
        before.iter().map(|m| m.1).collect::<Vec<_>>(),
        (1..=n as u64).collect::<Vec<_>>()
    );
    // An older log, sorting first: its matches come first, with new numbers.
    std::fs::write(site.join("logs/a.log"), pieces[0..3].concat()).unwrap();
    build(site, &[]);
    let after = numbers(site);
    assert_eq!(&after[after.len() - n..], &before[..]);
    assert!(after.len() > n && after[..after.len() - n].iter().all(|m| m.1 > n as u64));
    // --full keeps them too.
    build(site, &["--full"]);
    assert_eq!(numbers(site), after);
    let page = std::fs::read_to_string(site.join("public/matches.html")).unwrap();
    assert!(
        page.contains(&format!(">Match {}<", n + 1)),
        "labels use the numbers"
    );
}

/// Archives written by earlier versions stay readable: each fixture in `tests/fixtures` is the
/// `archive.bin` a released layout wrote (the sample duel and TDM logs, read and then deleted).
/// A site built from it alone, with no logs, holds those 8 matches as they were read, and the
/// archive saved again in this version's layout still holds them.
#[test]
fn archives_of_earlier_versions_are_read() {
    if !common::has_shared_data() {
        return;
    }
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let expected: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(fixtures.join("archive-v5.expected.json")).unwrap())
            .unwrap();
    assert_eq!(expected.len(), 8);
    for fixture in ["archive-v5.bin", "archive-v6.bin"] {
        let site = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(site.path().join("logs")).unwrap();
        std::fs::create_dir_all(site.path().join(".fragstats")).unwrap();
        std::fs::copy(
            fixtures.join(fixture),
            site.path().join(".fragstats/archive.bin"),
        )
        .unwrap();
        for pass in 0..2 {
            let log = build(site.path(), &["logs"]);
            assert!(
                log.contains("8 matches kept"),
                "{fixture} pass {pass}: {log}"
            );
            let got = matches_json(site.path());
            assert_eq!(got.len(), 8, "{fixture} pass {pass}");
            for want in &expected {
                let m = got
                    .iter()
                    .find(|m| m["id"] == want["id"])
                    .unwrap_or_else(|| panic!("{fixture}: match {} lost", want["id"]));
                for (key, value) in want.as_object().unwrap() {
                    assert_eq!(&m[key], value, "{fixture} match {} {key}", want["id"]);
                }
                assert!(
                    m["game"].as_str().unwrap().starts_with("quake3") || m["game"] == "openarena"
                );
            }
        }
        let aside = std::fs::read_dir(site.path().join(".fragstats"))
            .unwrap()
            .filter_map(|e| e.ok())
            .any(|e| e.file_name().to_string_lossy().contains("unreadable"));
        assert!(!aside, "{fixture} was set aside");
    }
}

/// A state folder written by an earlier version (the sample duel log read into it), met by a
/// build whose log is gone: the matches it held are archived, not dropped, and keep their
/// "Match N" numbers.
#[test]
fn states_of_earlier_versions_lose_no_match_on_upgrade() {
    if !common::has_shared_data() {
        return;
    }
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let expected = [
        ("c95181974de4ac6e", 1, 13),
        ("feea866ee4ce35cd", 2, 19),
        ("53d67c8927932e2b", 3, 13),
    ];
    // state-v7 is this version's layout, its settled matches in a segment file beside the
    // per-log file; state-v7-positional the same, its segment's fields stored by position
    // (c47199a): a field of `Match` moved or inserted before the last breaks it, not state-v7.
    for fixture in ["state-v5", "state-v6", "state-v7", "state-v7-positional"] {
        let site = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(site.path().join("logs")).unwrap();
        let state = site.path().join(".fragstats");
        std::fs::create_dir_all(state.join("files")).unwrap();
        std::fs::copy(
            fixtures.join(fixture).join("state.bin"),
            state.join("state.bin"),
        )
        .unwrap();
        for f in std::fs::read_dir(fixtures.join(fixture).join("files")).unwrap() {
            let f = f.unwrap();
            std::fs::copy(f.path(), state.join("files").join(f.file_name())).unwrap();
        }
        let log = build(site.path(), &["logs"]);
        assert!(log.contains("3 matches kept"), "{fixture}: {log}");
        let got: Vec<(String, u64, u64)> = matches_json(site.path())
            .iter()
            .map(|m| {
                (
                    m["id"].as_str().unwrap().to_string(),
                    m["number"].as_u64().unwrap(),
                    m["kills"].as_u64().unwrap(),
                )
            })
            .collect();
        for (id, number, kills) in expected {
            assert!(
                got.contains(&(id.to_string(), number, kills)),
                "{fixture}: {id} #{number} ({kills} kills) missing from {got:?}"
            );
        }
    }
}

/// A per-log state file lost or damaged (a disk error, a hand edit) cannot be read: the build
/// says so, naming the log, reads a log that is still there again (losing nothing), and tells
/// the admin that the matches of a log that is also gone are lost.
#[test]
fn an_unreadable_log_state_is_reported_never_dropped_silently() {
    if !common::has_shared_data() {
        return;
    }
    let pieces = match_pieces(&shared_log("public/urt/urt43-lan-rodov.log"));
    let site = tempfile::tempdir().unwrap();
    let logs = site.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(logs.join("a.log"), pieces[0..4].concat()).unwrap();
    std::fs::write(logs.join("b.log"), pieces[4..8].concat()).unwrap();
    let first = build(site.path(), &["logs"]);
    assert!(!first.contains("warning"), "{first}");
    let all = site_matches(site.path()).len();
    // Every per-log file and segment is damaged: each log's state becomes unreadable.
    let damage = |site: &Path| {
        for f in std::fs::read_dir(site.join(".fragstats/files")).unwrap() {
            std::fs::write(f.unwrap().path(), b"damaged").unwrap();
        }
    };
    damage(site.path());
    let again = build(site.path(), &["logs"]);
    for log in ["a.log", "b.log"] {
        let line = again
            .lines()
            .find(|l| l.starts_with("warning") && l.contains(log))
            .unwrap_or_else(|| panic!("no warning names {log}: {again}"));
        assert!(line.contains("read again from its start"), "{line}");
    }
    assert_eq!(
        site_matches(site.path()).len(),
        all,
        "the logs were read again"
    );
    // Damaged again, and one log gone: its matches cannot be recovered, and the admin hears it.
    damage(site.path());
    std::fs::remove_file(logs.join("b.log")).unwrap();
    let gone = build(site.path(), &["logs"]);
    let line = gone
        .lines()
        .find(|l| l.starts_with("warning") && l.contains("b.log"))
        .unwrap_or_else(|| panic!("no warning names b.log: {gone}"));
    assert!(
        line.contains("the log is gone") && line.contains("lost"),
        "{line}"
    );
    // A build with nothing wrong warns of nothing.
    let clean = build(site.path(), &["logs"]);
    assert!(!clean.contains("warning"), "{clean}");
}
