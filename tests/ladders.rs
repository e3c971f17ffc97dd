//! Ladders per game type and per game (issue 17, "Game types, games and records"), end to end on
//! the real logs in `../shared/data`: each ladder equals the headline ladder of a build on only
//! its matches; records add up; a CTF match that ended on a map change is scored by its
//! captures; hidden players are on no ladder; incremental builds give the full build's bytes.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use common::{fragstats, shared, stderr, tree, walk};
use serde_json::Value;

fn build(tmp: &Path, name: &str, logs: &[PathBuf], config: &str) -> PathBuf {
    common::build_in(tmp, name, logs, config)
}

fn json(out: &Path, file: &str) -> Vec<Value> {
    common::json_array(out, file)
}

/// The ladder of `kind` and `key` in `data/ladders.json`.
fn ladder<'a>(ladders: &'a [Value], kind: &str, key: &str) -> &'a Value {
    ladders
        .iter()
        .find(|l| l["kind"] == kind && l["key"] == key)
        .unwrap_or_else(|| panic!("no {kind} ladder {key}"))
}

/// Asserts that `ladder` is the headline ladder of the build whose `data/players.json` is
/// `players`: the same players (those who played), the same ratings, provisional flags and
/// ranks, in the same order.
fn assert_ladder_is_build(ladder: &Value, players: &[Value], what: &str) {
    let played: Vec<&Value> = players.iter().filter(|p| p["matches"] != 0).collect();
    let entries = ladder["players"].as_array().unwrap();
    assert!(!entries.is_empty(), "{what}");
    let by_name: HashMap<&str, &Value> = played
        .iter()
        .map(|p| (p["plain_name"].as_str().unwrap(), *p))
        .collect();
    assert_eq!(entries.len(), played.len(), "{what}: players");
    for e in entries {
        let name = e["plain_name"].as_str().unwrap();
        let p = by_name
            .get(name)
            .unwrap_or_else(|| panic!("{what}: {name} is not in the build"));
        let (a, b) = (
            e["headline_rating"].as_f64().unwrap(),
            p["headline_rating"].as_f64().unwrap(),
        );
        assert!(
            (a - b).abs() <= 1e-9 * b.abs().max(1.0),
            "{what}: {name} {a} {b}"
        );
        assert_eq!(e["provisional"], p["provisional"], "{what}: {name}");
        assert_eq!(e["active"], p["active"], "{what}: {name}");
        assert_eq!(e["matches"], p["matches"], "{what}: {name}");
        assert_eq!(e["frags"], p["kills"], "{what}: {name}");
        for k in ["wins", "draws", "losses"] {
            assert_eq!(e[k], p[k], "{what}: {name} {k}");
        }
    }
    // Ranks: the build's ranked players (active, not provisional) by rating (ties: more frags,
    // then name), 1, 2, 3, ...
    let mut ranked: Vec<&Value> = played
        .iter()
        .copied()
        .filter(|p| p["active"] == true && p["provisional"] == false)
        .collect();
    ranked.sort_by(|a, b| {
        let f = |p: &Value, k: &str| p[k].as_f64().unwrap();
        f(b, "headline_rating")
            .total_cmp(&f(a, "headline_rating"))
            .then(f(b, "kills").total_cmp(&f(a, "kills")))
            .then(a["plain_name"].as_str().cmp(&b["plain_name"].as_str()))
    });
    let rank: HashMap<&str, usize> = ranked
        .iter()
        .enumerate()
        .map(|(i, p)| (p["plain_name"].as_str().unwrap(), i + 1))
        .collect();
    for (pos, e) in entries.iter().enumerate() {
        let name = e["plain_name"].as_str().unwrap();
        match rank.get(name) {
            Some(&r) => {
                assert_eq!(e["rank"], r, "{what}: {name}");
                assert_eq!(
                    pos + 1,
                    r,
                    "{what}: ranked players come first, in rank order"
                );
            }
            None => assert!(e["rank"].is_null(), "{what}: {name}"),
        }
    }
}

/// The OpenArena logs are one folder per game type: each game type ladder of a build of all of
/// them is the headline ladder of a build of that folder alone; the records per game type add
/// up to each player's record.
#[test]
fn game_type_ladders_equal_builds_on_only_that_types_matches() {
    let tmp = tempfile::tempdir().unwrap();
    let root = common::openarena("");
    let out = build(tmp.path(), "all", std::slice::from_ref(&root), "");
    let ladders = json(&out, "data/ladders.json");
    let matches = json(&out, "data/matches.json");
    let kinds: Vec<(&str, &str)> = ladders
        .iter()
        .map(|l| (l["kind"].as_str().unwrap(), l["key"].as_str().unwrap()))
        .collect();
    // One game: no game ladders; the game types by number of matches.
    assert_eq!(
        kinds,
        [
            ("game_type", "ffa"),
            ("game_type", "duel"),
            ("game_type", "ctf"),
            ("game_type", "tdm")
        ]
    );
    for key in ["ffa", "duel", "ctf", "tdm"] {
        // The folder holds exactly the matches of that type.
        let of_type: Vec<&Value> = matches.iter().filter(|m| m["gametype"] == key).collect();
        assert!(of_type.iter().all(|m| {
            m["source"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{key}/"))
        }));
        let l = ladder(&ladders, "game_type", key);
        assert_eq!(l["matches"], of_type.len());
        let alone = build(tmp.path(), key, &[root.join(key)], "");
        assert_ladder_is_build(l, &json(&alone, "data/players.json"), key);
    }
    // Every judged match is of one type: the records per type add up to the player's record.
    let players = json(&out, "data/players.json");
    let mut sums: BTreeMap<String, [u64; 3]> = BTreeMap::new();
    for l in &ladders {
        for e in l["players"].as_array().unwrap() {
            let s = sums
                .entry(e["plain_name"].as_str().unwrap().into())
                .or_default();
            for (n, k) in ["wins", "draws", "losses"].iter().enumerate() {
                s[n] += e[k].as_u64().unwrap();
            }
        }
    }
    let mut judged = 0;
    for p in &players {
        let name = p["plain_name"].as_str().unwrap();
        let got = sums.get(name).copied().unwrap_or_default();
        let want = ["wins", "draws", "losses"].map(|k| p[k].as_u64().unwrap());
        assert_eq!(got, want, "{name}");
        judged += want.iter().sum::<u64>();
    }
    assert!(judged > 0);
    // The duel ladder: each win is someone's loss; every duel judges two players.
    let duel = ladder(&ladders, "game_type", "duel")["players"]
        .as_array()
        .unwrap();
    let sum = |k: &str| duel.iter().map(|e| e[k].as_u64().unwrap()).sum::<u64>();
    let duels = matches
        .iter()
        .filter(|m| m["gametype"] == "duel" && m["players"] == 2);
    assert_eq!(sum("wins"), sum("losses"));
    assert_eq!(
        sum("wins") + sum("draws") + sum("losses"),
        2 * duels.count() as u64
    );

    // The page lists every ladder, and the players' pages their places.
    let page = std::fs::read_to_string(out.join("ladders.html")).unwrap();
    for (id, name) in [
        ("type-ffa", "Free For All"),
        ("type-duel", "Tournament (duel)"),
        ("type-ctf", "Capture the Flag"),
        ("type-tdm", "Team Deathmatch"),
    ] {
        assert!(page.contains(&format!("<a href=\"#{id}\">{name} ")), "{id}");
        assert!(page.contains(&format!("id=\"{id}\"")), "{id}");
    }
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("href=\"ladders.html\""), "in the navigation");
    let top = &ladder(&ladders, "game_type", "duel")["players"][0];
    let url = players
        .iter()
        .find(|p| p["plain_name"] == top["plain_name"])
        .unwrap()["url"]
        .as_str()
        .unwrap();
    let player = std::fs::read_to_string(out.join(url)).unwrap();
    assert!(player.contains("<a href=\"../ladders.html#type-duel\">Tournament (duel)</a> #1"));
    assert!(player.contains("won-drawn-lost"));
}

/// Several games: each game's ladder is a build of that game's logs alone, and so is a game
/// type only one of them plays.
#[test]
fn game_ladders_equal_builds_on_only_that_games_logs() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (duel, urt) = (
        common::openarena("duel"),
        shared().join("public/urt/urt43-lan-rodov.log"),
    );
    let out = build(tmp.path(), "both", &[duel.clone(), urt.clone()], "");
    let ladders = json(&out, "data/ladders.json");
    let matches = json(&out, "data/matches.json");
    let games: Vec<&str> = ladders
        .iter()
        .filter(|l| l["kind"] == "game")
        .map(|l| l["key"].as_str().unwrap())
        .collect();
    assert_eq!(games.len(), 2, "{games:?}");
    let game_of = |source: &str| -> &str {
        matches
            .iter()
            .find(|m| m["source"].as_str().unwrap().contains(source))
            .unwrap()["game"]
            .as_str()
            .unwrap()
    };
    let (oa, ut) = (game_of("games-oa"), game_of("urt43"));
    assert_eq!(ut, "urt");
    let duel_alone = json(&build(tmp.path(), "duel", &[duel], ""), "data/players.json");
    let urt_alone = json(&build(tmp.path(), "urt", &[urt], ""), "data/players.json");
    assert_ladder_is_build(ladder(&ladders, "game", oa), &duel_alone, oa);
    assert_ladder_is_build(ladder(&ladders, "game", ut), &urt_alone, ut);
    // Urban Terror plays no duels here: the duel ladder is the OpenArena logs' ladder.
    assert!(
        matches
            .iter()
            .all(|m| (m["gametype"] == "duel") == (m["game"] == oa))
    );
    assert_ladder_is_build(ladder(&ladders, "game_type", "duel"), &duel_alone, "duel");
    let page = std::fs::read_to_string(out.join("ladders.html")).unwrap();
    assert!(page.contains("id=\"game-urt\"") && page.contains(">Urban Terror "));
}

/// Issue 38: a site of several games shows a ladder per game on the index and the player list
/// (the biggest game first), numbers no one on a ladder of every game, and tells each player's
/// games in `data/players.json`; `[ladder] combined = true` gives back the one ladder.
#[test]
fn several_games_show_a_ladder_per_game_unless_combined() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let logs = [
        common::openarena("duel"),
        shared().join("public/urt/urt43-lan-rodov.log"),
        shared().join("public/hl-tf2"),
    ];
    let out = build(tmp.path(), "games", &logs, "");
    let ladders = json(&out, "data/ladders.json");
    let mut games: Vec<(u64, &str)> = ladders
        .iter()
        .filter(|l| l["kind"] == "game")
        .map(|l| (l["matches"].as_u64().unwrap(), l["key"].as_str().unwrap()))
        .collect();
    assert_eq!(games.len(), 3, "{games:?}");
    games.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    let list = std::fs::read_to_string(out.join("players.html")).unwrap();
    for page in [&index, &list] {
        let at: Vec<usize> = games
            .iter()
            .map(|(_, g)| page.find(&format!("<section class=\"card wide\" id=\"game-{g}\"")))
            .map(|at| at.expect("a section per game"))
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "biggest game first");
    }
    assert!(!index.contains("<h2>Ladder</h2>"));
    // The list of every player numbers no one: ranks are per game.
    let table = &list[list.find("id=\"all\"").unwrap()..];
    assert!(!table.contains("<tr><td class=\"num\">1</td>"), "{table}");
    let players = json(&out, "data/players.json");
    let tf2 = players
        .iter()
        .find(|p| p["name"] == "HEALMEBARNCOW neet")
        .expect("the account's latest name");
    assert_eq!(tf2["games"], serde_json::json!(["tf2"]));
    assert!(players.iter().all(|p| p["games"].is_array()));

    let out = build(tmp.path(), "combined", &logs, "[ladder]\ncombined = true\n");
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("<h2>Ladder</h2>") && !index.contains("id=\"game-tf2\""));
    let list = std::fs::read_to_string(out.join("players.html")).unwrap();
    assert!(list.contains("<tr><td class=\"num\">1</td>"));
}

/// Urban Terror CTF matches cut off by a map change have no score line: their score is the
/// captures each side made (counted here from the log's own `Flag: <slot> 2:` lines and the
/// capturer's team in its userinfo), the match page shows it and names the winner and the best
/// player by the stated rule, and the records count the match.
#[test]
fn ctf_matches_ended_by_a_map_change_are_scored_by_their_captures() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let log = shared().join("public/urt/urt43-lan-rodov.log");
    let out = build(tmp.path(), "urt", std::slice::from_ref(&log), "");
    let matches = json(&out, "data/matches.json");
    let text = String::from_utf8_lossy(&std::fs::read(&log).unwrap()).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    // Per match start line: (red, blue) captures, and whether a score line or Exit was logged.
    let mut games: BTreeMap<usize, ([i64; 2], bool)> = BTreeMap::new();
    let mut current = None;
    let mut team: HashMap<&str, &str> = HashMap::new();
    for (n, l) in lines.iter().enumerate() {
        let body = l.trim_start().split_once(' ').map_or("", |(_, b)| b);
        if body.starts_with("InitGame:") {
            current = Some(n + 1);
            team.clear();
            games.insert(n + 1, ([0, 0], false));
        } else if let Some(rest) = body.strip_prefix("ClientUserinfoChanged: ") {
            let (slot, info) = rest.split_once(' ').unwrap();
            let t = info
                .split("\\t\\")
                .nth(1)
                .map_or("", |r| r.split('\\').next().unwrap());
            team.insert(slot, t);
        } else if let Some(rest) = body.strip_prefix("Flag: ") {
            let mut f = rest.split([' ', ':']);
            let (slot, action) = (f.next().unwrap(), f.next().unwrap());
            if action == "2" {
                let g = games.get_mut(&current.unwrap()).unwrap();
                match team.get(slot) {
                    Some(&"1") => g.0[0] += 1,
                    Some(&"2") => g.0[1] += 1,
                    other => panic!("capture by slot {slot} of team {other:?}"),
                }
            }
        } else if body.starts_with("Exit:") || body.starts_with("red:") {
            games.get_mut(&current.unwrap()).unwrap().1 = true;
        }
    }
    let mut checked = 0;
    for m in matches.iter().filter(|m| m["gametype"] == "ctf") {
        let line = m["line"].as_u64().unwrap() as usize;
        let Some(&([red, blue], ended)) = games.get(&line) else {
            continue;
        };
        if ended || m["exit_reason"] != Value::Null {
            continue;
        }
        let s = &m["team_scores"];
        assert_eq!(
            (s["red"].as_i64(), s["blue"].as_i64()),
            (Some(red), Some(blue)),
            "{m}"
        );
        let page = std::fs::read_to_string(out.join(m["url"].as_str().unwrap())).unwrap();
        assert!(page.contains(&format!(
            "<span class=\"red\">Red {red}</span> : <span class=\"blue\">{blue} Blue</span>"
        )));
        let winner = match red.cmp(&blue) {
            std::cmp::Ordering::Greater => "Red team",
            std::cmp::Ordering::Less => "Blue team",
            std::cmp::Ordering::Equal => "Draw",
        };
        assert!(
            page.contains(&format!("<dt>Winner</dt><dd>{winner}</dd>")),
            "{m}"
        );
        if red + blue > 0 {
            assert!(page.contains("<dt>Best player</dt>"));
            assert!(page.contains("(most frags, then fewest deaths)"));
        }
        checked += 1;
    }
    assert!(checked >= 5, "{checked} CTF matches ended by a map change");
    // Every judged team match gives each of its red and blue players a result: the CTF
    // ladder's records count these matches too.
    let ladders = json(&out, "data/ladders.json");
    let ctf = ladder(&ladders, "game_type", "ctf")["players"]
        .as_array()
        .unwrap();
    let results: u64 = ctf
        .iter()
        .map(|e| {
            ["wins", "draws", "losses"]
                .map(|k| e[k].as_u64().unwrap())
                .iter()
                .sum::<u64>()
        })
        .sum();
    let players = json(&out, "data/players.json");
    let all: u64 = players
        .iter()
        .map(|p| {
            ["wins", "draws", "losses"]
                .map(|k| p[k].as_u64().unwrap())
                .iter()
                .sum::<u64>()
        })
        .sum();
    assert!(results > 0 && results <= all);
}

/// Asserts no file under `out` names any of `needles` (ASCII case ignored).
fn assert_unnamed(out: &Path, needles: &[&str]) {
    for f in walk(out) {
        let bytes = std::fs::read(&f).unwrap().to_ascii_lowercase();
        for needle in needles {
            let needle = needle.to_ascii_lowercase();
            assert!(
                !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
                "{needle} in {}",
                f.display()
            );
        }
    }
}

/// Each ladder's players and ratings, by ladder key.
fn ratings(ladders: &[Value]) -> BTreeMap<String, BTreeMap<String, f64>> {
    ladders
        .iter()
        .map(|l| {
            let players = l["players"].as_array().unwrap().iter().map(|e| {
                let name = e["plain_name"].as_str().unwrap().to_string();
                (name, e["headline_rating"].as_f64().unwrap())
            });
            (l["key"].as_str().unwrap().to_string(), players.collect())
        })
        .collect()
}

/// Hidden players are on no ladder, named in no byte of the output, and change nobody's
/// ladder rating; excluded players are on no ladder either.
#[test]
fn hidden_players_are_on_no_ladder() {
    let tmp = tempfile::tempdir().unwrap();
    let root = common::openarena("");
    let shown = ratings(&json(
        &build(tmp.path(), "shown", std::slice::from_ref(&root), ""),
        "data/ladders.json",
    ));
    let out = build(
        tmp.path(),
        "hidden",
        std::slice::from_ref(&root),
        "[moderation]\nhide = [\"Gri^3sm\", \"Angelyss\"]\n",
    );
    assert_unnamed(&out, &["grism", "angelyss", "Angel</span>"]);
    let hidden = ratings(&json(&out, "data/ladders.json"));
    assert_eq!(
        shown.keys().collect::<Vec<_>>(),
        hidden.keys().collect::<Vec<_>>()
    );
    let mut left_out = 0;
    for (key, before) in &shown {
        let after = &hidden[key];
        for (name, rating) in before {
            match after.get(name) {
                Some(r) => assert_eq!(r, rating, "{key}: {name}"),
                None => {
                    assert!(name == "Grism" || name == "Angelyss", "{key}: {name}");
                    left_out += 1;
                }
            }
        }
        assert!(after.keys().all(|n| before.contains_key(n)));
    }
    assert!(left_out >= 2, "the hidden players play: {left_out}");
    let out = build(
        tmp.path(),
        "excluded",
        &[root],
        "[moderation]\nexclude = [\"^1Red^7Devil\"]\n",
    );
    assert_unnamed(&out, &["reddevil", "Red</span><span class=\"q7\">Devil"]);
    assert!(shown["duel"].contains_key("RedDevil"));
}

/// Logs arriving one after another, the last one cut mid-match and completed later: each
/// incremental build (which may resume the site's own ratings from its checkpoint, and rates
/// the ladders again) gives the bytes of a full build, ladders included.
#[test]
fn incremental_builds_give_the_full_builds_ladders() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("inc");
    let logs = site.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::create_dir_all(site.join("full")).unwrap();
    let config = "[ladder]\ninactive_after_days = 10\n[moderation]\nhide = [\"Grism\"]\n";
    std::fs::write(
        site.join("site.toml"),
        format!("logs = [\"logs\"]\n{config}"),
    )
    .unwrap();
    std::fs::write(
        site.join("full/site.toml"),
        format!("logs = [\"../logs\"]\nstate = \".state\"\n{config}"),
    )
    .unwrap();
    let ctf = std::fs::read(common::openarena("ctf/games-1.log")).unwrap();
    let steps: [(&str, Vec<u8>); 4] = [
        (
            "ffa.log",
            std::fs::read(common::openarena("ffa/games-1.log")).unwrap(),
        ),
        (
            "urt.log",
            std::fs::read(shared().join("public/urt/urt43-lan-rodov.log")).unwrap(),
        ),
        ("ctf.log", ctf[..ctf.len() / 2].to_vec()),
        ("ctf.log", ctf.clone()),
    ];
    for (n, (name, bytes)) in steps.iter().enumerate() {
        std::fs::write(logs.join(name), bytes).unwrap();
        let inc = fragstats(&["build"], &site);
        assert!(inc.status.success(), "{}", stderr(&inc));
        let full = fragstats(&["build", "--full", "--config", "full/site.toml"], &site);
        assert!(full.status.success(), "{}", stderr(&full));
        let (a, b) = (tree(&site.join("public")), tree(&site.join("full/public")));
        assert_eq!(
            a.keys().collect::<Vec<_>>(),
            b.keys().collect::<Vec<_>>(),
            "step {n}"
        );
        for (file, bytes) in &a {
            assert!(
                bytes == &b[file],
                "step {n}: {file} differs from a full build"
            );
        }
        assert!(a.contains_key("ladders.html") && a.contains_key("data/ladders.json"));
    }
}

/// Whatever system the headline is (Becker's ladder is rated apart from the evaluation replay),
/// a game type ladder is the headline ladder of a build of only that type's matches.
#[test]
fn other_headline_systems_give_the_same_ladders() {
    let tmp = tempfile::tempdir().unwrap();
    let root = common::openarena("");
    for system in ["becker", "glicko2"] {
        let config = format!("[rating.headline]\nsystem = \"{system}\"\n");
        let all = build(
            tmp.path(),
            &format!("{system}-all"),
            std::slice::from_ref(&root),
            &config,
        );
        let ladders = json(&all, "data/ladders.json");
        for key in ["duel", "ctf"] {
            let alone = build(
                tmp.path(),
                &format!("{system}-{key}"),
                &[root.join(key)],
                &config,
            );
            assert_ladder_is_build(
                ladder(&ladders, "game_type", key),
                &json(&alone, "data/players.json"),
                &format!("{system} {key}"),
            );
        }
    }
}
