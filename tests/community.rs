//! End-to-end tests of a community's site (issue 17) on the real OpenArena logs in
//! `../shared/data`: opt-outs, bans and bots.

mod common;

use std::collections::HashSet;
use std::path::Path;

use common::{fragstats, stderr, walk};

/// Copies every `.log` under `../shared/data/openarena` to `dir`, each line passed through
/// `keep` (a log's lines in order, with the log's relative path), keeping the folder layout.
fn copy_logs(dir: &Path, mut edit: impl FnMut(&str) -> Option<String>) {
    let root = common::openarena("");
    for entry in walk(&root) {
        if entry.extension().is_none_or(|e| e != "log") {
            continue;
        }
        let rel = entry.strip_prefix(&root).unwrap();
        let target = dir.join(rel);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        let text = String::from_utf8_lossy(&std::fs::read(&entry).unwrap()).into_owned();
        let mut out = String::new();
        for line in text.lines() {
            if let Some(l) = edit(line) {
                out.push_str(&l);
                out.push('\n');
            }
        }
        std::fs::write(target, out).unwrap();
    }
}

/// Colour codes removed, as fragstats names players.
use fragstats::model::names::plain_name as plain;

/// A line filter deleting, in Quake 3 log syntax, every line of the players whose plain name is
/// in `names`: their userinfo, connect, begin, disconnect, item, award, flag, score lines, and
/// every kill they made or suffered. A slot is theirs from the userinfo line naming them until
/// the slot names someone else or the next game starts.
fn deleting(names: &HashSet<String>) -> impl FnMut(&str) -> Option<String> + '_ {
    let mut slots: HashSet<String> = HashSet::new();
    move |line: &str| {
        let body = line.trim_start();
        let body = body.split_once(' ').map_or("", |(_, rest)| rest);
        let (kind, payload) = body.split_once(':').unwrap_or((body, ""));
        let payload = payload.trim_start();
        let first = payload.split([' ', ':']).next().unwrap_or("");
        match kind {
            "InitGame" => slots.clear(),
            "ClientUserinfoChanged" => {
                let name = payload
                    .split_once("n\\")
                    .map(|(_, r)| r.split('\\').next().unwrap_or(""))
                    .unwrap_or("");
                if names.contains(&plain(name)) {
                    slots.insert(first.to_string());
                } else {
                    slots.remove(first);
                }
            }
            "Kill" => {
                let mut ids = payload.split([' ', ':']);
                let (a, b) = (ids.next().unwrap_or(""), ids.next().unwrap_or(""));
                if slots.contains(a) || slots.contains(b) {
                    return None;
                }
            }
            "score" => {
                let client = payload
                    .split_once("client: ")
                    .map_or("", |(_, r)| r.split(' ').next().unwrap_or(""));
                if slots.contains(client) {
                    return None;
                }
            }
            _ => {}
        }
        let slot_line = matches!(
            kind,
            "ClientUserinfoChanged"
                | "ClientConnect"
                | "ClientBegin"
                | "ClientDisconnect"
                | "Item"
                | "Award"
                | "CTF"
                | "PlayerScore"
        );
        if slot_line && slots.contains(first) {
            return None;
        }
        Some(line.to_string())
    }
}

/// Builds `logs` with `config` (TOML lines) into `out`, from a site folder of its own (each build
/// has its own state and archive); returns the players of `data/players.json`.
fn build(tmp: &Path, logs: &Path, out: &Path, config: &str) -> Vec<serde_json::Value> {
    let dir = tmp.join(format!(
        "{}-site",
        out.file_name().unwrap().to_string_lossy()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let toml = format!("logs = [{:?}]\n{config}", logs.display().to_string());
    std::fs::write(dir.join("site.toml"), toml).unwrap();
    let o = fragstats(
        &["build", "--full", "--out", &out.display().to_string()],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let players: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("data/players.json")).unwrap()).unwrap();
    players.as_array().unwrap().clone()
}

/// Every file under `dir` whose bytes contain one of `needles` (ASCII case ignored).
fn files_naming(dir: &Path, needles: &[&str]) -> Vec<String> {
    let needles: Vec<Vec<u8>> = needles.iter().map(|n| n.to_lowercase().into()).collect();
    walk(dir)
        .into_iter()
        .filter(|f| {
            let bytes = std::fs::read(f).unwrap().to_ascii_lowercase();
            needles
                .iter()
                .any(|n| bytes.windows(n.len()).any(|w| w == n.as_slice()))
        })
        .map(|f| f.display().to_string())
        .collect()
}

/// Asserts two players.json lists are equal, naming the first player who differs.
fn assert_same(a: &[serde_json::Value], b: &[serde_json::Value]) {
    let (a, b) = (by_name(a), by_name(b));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, p) in &a {
        assert_eq!(p, &b[k], "{k} differs");
    }
}

fn by_name(players: &[serde_json::Value]) -> std::collections::BTreeMap<String, serde_json::Value> {
    players
        .iter()
        .map(|p| (p["plain_name"].as_str().unwrap().to_string(), p.clone()))
        .collect()
}

#[test]
fn hidden_and_excluded_players_leave_no_trace_and_exclude_equals_deleting_their_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    copy_logs(&logs, |l| Some(l.to_string()));
    let shown = build(tmp.path(), &logs, &tmp.path().join("shown"), "");
    let out = tmp.path().join("moderated");
    let moderated = build(
        tmp.path(),
        &logs,
        &out,
        "[moderation]\nhide = [\"Gri^3sm\"]\nexclude = [\"^1Red^7Devil\"]\n",
    );
    // No byte of the output names them: plain, as coloured HTML, or as a page's slug.
    let leaks = files_naming(
        &out,
        &["grism", "reddevil", "Red</span><span class=\"q7\">Devil"],
    );
    assert!(leaks.is_empty(), "named in {leaks:?}");
    assert!(!out.join("players/grism.html").exists());
    let page = std::fs::read_to_string(out.join("matches.html")).unwrap();
    assert!(!page.is_empty());
    let anonymous = walk(&out.join("matches")).into_iter().any(|f| {
        std::fs::read_to_string(f)
            .unwrap()
            .contains(">anonymous</em>")
    });
    assert!(anonymous, "match pages show the hidden player as anonymous");
    assert_eq!(moderated.len() + 2, shown.len());

    // Excluding equals deleting the player's lines from the logs (hiding changes no number).
    let cut = tmp.path().join("cut");
    let names: HashSet<String> = ["RedDevil".to_string()].into();
    copy_logs(&cut, deleting(&names));
    let deleted = build(
        tmp.path(),
        &cut,
        &tmp.path().join("deleted"),
        "[moderation]\nhide = [\"Grism\"]\n",
    );
    assert_same(&moderated, &deleted);
    // And it changed the ratings: RedDevil's victims and killers are rated without those frags.
    let before = by_name(&shown);
    let after = by_name(&moderated);
    assert!(
        after
            .iter()
            .any(|(k, p)| p["headline_rating"] != before[k]["headline_rating"])
    );
}

#[test]
fn bots_show_hide_exclude() {
    let tmp = tempfile::tempdir().unwrap();
    // The OpenArena logs are bots only: two of them become humans (no `skill` in userinfo). They
    // play no duels: a duel with its bot deleted from the log is a lone player's match, and the
    // reader counts such identical leftovers once (duplicate content), which would make the
    // deleted-lines reference differ from exclusion for a reason that is not exclusion's.
    let humans = ["Tanisha", "Tony"];
    let humanise = |l: &str| {
        if l.contains("ClientUserinfoChanged")
            && humans.iter().any(|h| l.contains(&format!("n\\{h}\\")))
        {
            l.replace("\\skill\\", "\\skilless\\")
        } else {
            l.to_string()
        }
    };
    let logs = tmp.path().join("logs");
    copy_logs(&logs, |l| Some(humanise(l)));
    let shown = build(tmp.path(), &logs, &tmp.path().join("shown"), "");
    let bots: HashSet<String> = shown
        .iter()
        .filter(|p| p["bot"].as_bool().unwrap())
        .map(|p| p["plain_name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(bots.len() + humans.len(), shown.len(), "{bots:?}");
    assert!(humans.iter().all(|h| !bots.contains(*h)));

    // Hidden: only humans listed, with the very numbers they had with bots shown.
    let out = tmp.path().join("hidden");
    let hidden = build(tmp.path(), &logs, &out, "bots = \"hide\"\n");
    let listed = by_name(&hidden);
    assert_eq!(listed.keys().collect::<Vec<_>>(), humans);
    let all = by_name(&shown);
    for (k, p) in &listed {
        assert_eq!(p, &all[k]);
    }
    assert!(bots.contains("xXSkullXx") && bots.contains("Angelyss"));
    let leaks = files_naming(&out, &["xXSkullXx", "Angel</span><span class=\"q7\">yss"]);
    assert!(leaks.is_empty(), "named in {leaks:?}");

    // Excluded: exactly as if the bots' lines were not in the logs.
    let excluded = build(
        tmp.path(),
        &logs,
        &tmp.path().join("excluded"),
        "bots = \"exclude\"\n",
    );
    let cut = tmp.path().join("cut");
    let mut delete = deleting(&bots);
    copy_logs(&cut, |l| delete(&humanise(l)));
    let deleted = build(tmp.path(), &cut, &tmp.path().join("deleted"), "");
    assert_same(&excluded, &deleted);
    assert_ne!(by_name(&excluded)["Tony"], all["Tony"]);
}

/// The plain names of the players in the logs under `../shared/data/openarena/<sub>`.
fn names_in(sub: &str) -> HashSet<String> {
    let mut names = HashSet::new();
    for f in walk(&common::openarena("").join(sub)) {
        let text = String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned();
        for l in text.lines().filter(|l| l.contains("ClientUserinfoChanged")) {
            if let Some((_, r)) = l.split_once("n\\") {
                names.insert(plain(r.split('\\').next().unwrap_or("")));
            }
        }
    }
    names
}

#[test]
fn inactive_players_and_divisions() {
    let tmp = tempfile::tempdir().unwrap();
    // Every log but the team deathmatch one is moved two months back in log time.
    let logs = tmp.path().join("logs");
    let root = common::openarena("");
    copy_logs(&logs, |l| Some(l.to_string()));
    for f in walk(&logs) {
        if f.starts_with(logs.join("tdm")) {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        std::fs::write(
            &f,
            text.replace("g_timestamp\\2026-11-22", "g_timestamp\\2026-09-22"),
        )
        .unwrap();
    }
    assert!(root.join("tdm").is_dir());
    let config = "[ladder]\ninactive_after_days = 30\n\
        [[divisions]]\nname = \"Gold\"\ntop_percent = 25\n\
        [[divisions]]\nname = \"Silver\"\nmin_rating = 1500\n\
        [[divisions]]\nname = \"Bronze\"\n";
    let out = tmp.path().join("site");
    let players = build(tmp.path(), &logs, &out, config);
    let recent = names_in("tdm");
    assert!(!recent.is_empty() && recent.len() < players.len());
    for p in &players {
        let name = p["plain_name"].as_str().unwrap();
        let active = recent.contains(name);
        assert_eq!(p["active"], active, "{name}");
        let seen = if active { "2026-11-22" } else { "2026-09-22" };
        assert_eq!(p["last_seen"], seen, "{name}");
    }
    // Ranked: active and not provisional, by headline rating.
    let mut ranked: Vec<&serde_json::Value> = players
        .iter()
        .filter(|p| p["active"] == true && p["provisional"] == false)
        .collect();
    ranked.sort_by(|a, b| {
        b["headline_rating"]
            .as_f64()
            .unwrap()
            .total_cmp(&a["headline_rating"].as_f64().unwrap())
    });
    let gold = (ranked.len() * 25).div_ceil(100);
    for (pos, p) in ranked.iter().enumerate() {
        let rating = p["headline_rating"].as_f64().unwrap();
        let want = if pos < gold {
            "Gold"
        } else if rating >= 1500.0 {
            "Silver"
        } else {
            "Bronze"
        };
        assert_eq!(p["division"], want, "{}", p["plain_name"]);
    }
    assert!(ranked.iter().any(|p| p["division"] == "Silver"));
    for p in players.iter().filter(|p| p["active"] == false) {
        assert!(p["division"].is_null());
    }
    // The ladder lists the inactive apart, unranked, and shows the badges.
    let page = std::fs::read_to_string(out.join("players.html")).unwrap();
    assert!(page.contains(">inactive</span>"));
    assert!(page.contains("class=\"tag division\" title=\"division\">Gold</span>"));
    let bad = "[[divisions]]\nname = \"X\"\ntop_percent = 10\nmin_rating = 1700\n";
    std::fs::write(tmp.path().join("bad.toml"), bad).unwrap();
    let o = fragstats(&["build", "--config", "bad.toml"], tmp.path());
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("sets both `top_percent` and `min_rating`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn servers_split_the_matches_and_add_up_to_the_totals() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    copy_logs(&logs, |l| Some(l.to_string()));
    let config = format!(
        "[[servers]]\nname = \"EU CTF\"\nlogs = [{:?}]\n",
        logs.join("ctf").display().to_string()
    );
    let out = tmp.path().join("site");
    build(tmp.path(), &logs, &out, &config);
    let matches: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("data/matches.json")).unwrap()).unwrap();
    let matches = matches.as_array().unwrap();
    let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
    for m in matches {
        let server = m["server"].as_str().unwrap();
        let ctf = m["source"].as_str().unwrap().starts_with("ctf/");
        assert_eq!(server, if ctf { "EU CTF" } else { "Bot Arena" }, "{m}");
        *counts.entry(server).or_default() += 1;
    }
    assert_eq!(counts.len(), 2);
    assert_eq!(counts.values().sum::<usize>(), matches.len());
    // servers.html lists each server with its count; each has its page with its matches.
    let list = std::fs::read_to_string(out.join("servers.html")).unwrap();
    for (name, n) in &counts {
        assert!(
            list.contains(&format!(">{name}</a></td><td class=\"num\">{n}</td>")),
            "{name} {n}"
        );
    }
    let page = std::fs::read_to_string(out.join("servers/eu-ctf.html")).unwrap();
    assert!(page.contains(&format!("<b>{}</b> matches", counts["EU CTF"])));
    assert!(out.join("servers/bot-arena.html").is_file());
    let list = std::fs::read_to_string(out.join("matches.html")).unwrap();
    assert!(list.contains("data-server=\"EU CTF\""));
}

#[test]
fn duel_records_pair_each_win_with_a_loss() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let players = build(tmp.path(), &common::openarena("duel"), &out, "");
    let matches: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("data/matches.json")).unwrap()).unwrap();
    let duels = matches
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["players"] == 2)
        .count();
    let sum = |k: &str| players.iter().map(|p| p[k].as_u64().unwrap()).sum::<u64>();
    assert!(duels > 0);
    assert_eq!(sum("wins"), sum("losses"));
    assert_eq!(sum("wins") + sum("draws") + sum("losses"), 2 * duels as u64);
}

#[test]
fn team_scores_are_named_and_match_pages_name_winner_and_best_player() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    build(tmp.path(), &common::openarena("ctf"), &out, "");
    let matches: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("data/matches.json")).unwrap()).unwrap();
    for m in matches.as_array().unwrap() {
        let s = &m["team_scores"];
        assert!(s["red"].is_i64() && s["blue"].is_i64(), "{m}");
        let (red, blue) = (s["red"].as_i64().unwrap(), s["blue"].as_i64().unwrap());
        let page = std::fs::read_to_string(out.join(m["url"].as_str().unwrap())).unwrap();
        let winner = match red.cmp(&blue) {
            std::cmp::Ordering::Greater => "Red team",
            std::cmp::Ordering::Less => "Blue team",
            std::cmp::Ordering::Equal => "Draw",
        };
        assert!(
            page.contains(&format!("<dt>Winner</dt><dd>{winner}</dd>")),
            "{m}"
        );
        assert!(page.contains("<dt>Best player</dt>"), "{m}");
    }
}
