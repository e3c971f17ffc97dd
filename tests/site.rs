//! End-to-end tests: run the real `fragstats` binary on the real logs in `../shared/data` and check
//! the files it writes.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use common::{fragstats, games, shared, stderr, walk};

/// The logs the foundation issue names: all OpenArena bot logs and the public logs.
fn q3_family_logs() -> Vec<PathBuf> {
    let d = shared();
    // The Quake 3 folders of `public` (the others hold Half-Life, CoD and ET logs).
    let p = d.join("public");
    vec![
        d.join("openarena"),
        p.join("q3"),
        p.join("urt"),
        p.join("openarena"),
    ]
}

/// In OUT's parent (the test's own empty folder), never the repository: its `site.toml`,
/// `templates/` and state folder (`.fragstats/`) would change what is built and keep an archive
/// between test runs.
fn build_real(out: &Path) -> Output {
    build_site(
        out,
        &q3_family_logs(),
        out.parent().expect("OUT in a folder"),
    )
}

/// `fragstats build --out OUT PATH...` in `cwd`.
fn build_site(out: &Path, paths: &[PathBuf], cwd: &Path) -> Output {
    let mut args: Vec<String> = vec!["build".into(), "--out".into(), out.display().to_string()];
    args.extend(paths.iter().map(|p| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    fragstats(&args, cwd)
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn plain(name: &str) -> String {
    let b = name.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'^' && b.get(i + 1).is_some_and(|c| c.is_ascii_alphanumeric()) {
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).trim().to_string()
}

#[derive(Default, Debug, PartialEq)]
struct Counts {
    kills: u32,
    deaths: u32,
    suicides: u32,
    team_kills: u32,
}

/// An independent, deliberately naive count of the Kill lines by RANKING.md "What counts":
/// slot -> (name, team) from the latest userinfo line; world (1022) or self = suicide; same red/blue
/// team = team kill; everything else a frag.
fn independent_counts(roots: &[PathBuf]) -> HashMap<String, Counts> {
    let mut counts: HashMap<String, Counts> = HashMap::new();
    let mut files = Vec::new();
    for r in roots {
        // The folders also hold READMEs that quote log lines.
        files.extend(
            walk(r)
                .into_iter()
                .filter(|f| f.extension().is_some_and(|e| e == "log")),
        );
    }
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        if let Some(naive) = naive_other_game(&f, &bytes) {
            for (name, [kills, deaths, suicides, team_kills]) in naive {
                let c = counts.entry(name).or_default();
                c.kills += kills;
                c.deaths += deaths;
                c.suicides += suicides;
                c.team_kills += team_kills;
            }
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        if !text.contains("InitGame:") && !text.contains(" Kill: ") {
            continue;
        }
        let mut slots: HashMap<i64, (String, String)> = HashMap::new();
        for line in text.lines() {
            let Some((_, rest)) = line.trim_start().split_once(' ') else {
                continue;
            };
            if !line.trim_start().split(' ').next().unwrap().contains(':') {
                continue;
            }
            if let Some(p) = rest.strip_prefix("ClientUserinfoChanged: ") {
                let (slot, info) = p.split_once(' ').unwrap();
                let parts: Vec<&str> = info.split('\\').collect();
                let mut name = String::new();
                let mut team = "0".to_string();
                for kv in parts.chunks(2) {
                    match kv {
                        ["n", v] => name = plain(v),
                        ["t", v] => team = v.to_string(),
                        _ => {}
                    }
                }
                slots.insert(slot.parse().unwrap(), (name, team));
            } else if let Some(p) = rest.strip_prefix("ClientDisconnect: ") {
                slots.remove(&p.trim().parse::<i64>().unwrap());
            } else if let Some(p) = rest.strip_prefix("Kill: ") {
                let nums: Vec<i64> = p
                    .split(':')
                    .next()
                    .unwrap()
                    .split_whitespace()
                    .map(|n| n.parse().unwrap())
                    .collect();
                let (k, v) = (nums[0], nums[1]);
                let Some((vname, vteam)) = slots.get(&v).cloned() else {
                    continue;
                };
                if k == 1022 || k == v {
                    let c = counts.entry(vname).or_default();
                    c.suicides += 1;
                    c.deaths += 1;
                    continue;
                }
                let Some((kname, kteam)) = slots.get(&k).cloned() else {
                    continue;
                };
                counts.entry(vname.clone()).or_default().deaths += 1;
                if kname == vname {
                    counts.entry(vname).or_default().suicides += 1;
                } else if (kteam == "1" || kteam == "2") && kteam == vteam {
                    counts.entry(kname).or_default().team_kills += 1;
                } else {
                    counts.entry(kname).or_default().kills += 1;
                }
            }
        }
    }
    counts
}

/// The output folder of a site of the one log `f`, built in `<tmp>/site<n>`: a site of its own
/// (config, state and archive), so no other build's matches mix in.
fn site_of_one_log(tmp: &Path, n: usize, f: &Path) -> PathBuf {
    let dir = tmp.join(format!("site{n}"));
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("site.toml"), "").unwrap();
    let out = dir.join("public");
    let o = build_site(&out, &[f.to_path_buf()], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    out
}

/// The naive count of a Call of Duty or Enemy Territory log (by its folder in `public`).
fn naive_other_game(f: &Path, bytes: &[u8]) -> Option<HashMap<String, games::Tally>> {
    let folder = f.parent()?.file_name()?.to_str()?;
    match folder {
        "cod" => Some(games::cod_counts(bytes)),
        "et" => Some(games::et_counts(bytes)),
        _ => None,
    }
}

/// Issue 16: for every Call of Duty and Enemy Territory log, a site built from that file alone
/// has, for every player, the kills, deaths, suicides and team kills of the naive count.
#[test]
fn cod_and_et_logs_have_exact_counts_per_file() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut files: Vec<PathBuf> = ["cod", "et"]
        .iter()
        .flat_map(|d| walk(&shared().join("public").join(d)))
        .collect();
    files.sort();
    assert_eq!(files.len(), 5);
    for (n, f) in files.iter().enumerate() {
        let out = site_of_one_log(tmp.path(), n, f);
        let bytes = std::fs::read(f).unwrap();
        let want = naive_other_game(f, &bytes).unwrap();
        let players = json(&out.join("data/players.json"));
        let players = players.as_array().unwrap();
        let mut seen = 0;
        for p in players {
            let name = p["plain_name"].as_str().unwrap();
            let got = [
                p["kills"].as_u64().unwrap() as u32,
                p["deaths"].as_u64().unwrap() as u32,
                p["suicides"].as_u64().unwrap() as u32,
                p["team_kills"].as_u64().unwrap() as u32,
            ];
            let expected = want.get(name).copied().unwrap_or_default();
            assert_eq!(got, expected, "{}: {name}", f.display());
            seen += usize::from(want.contains_key(name));
        }
        assert_eq!(
            seen,
            want.len(),
            "{}: every counted player has a page",
            f.display()
        );
        if f.to_string_lossy().contains("/et/") {
            // No times in an ET console log: its match page draws no frag curve.
            let matches = json(&out.join("data/matches.json"));
            let page = std::fs::read_to_string(out.join(matches[0]["url"].as_str().unwrap()));
            assert!(!page.unwrap().contains("Frags over the match"));
        }
        // No GUID of the log anywhere in the site.
        let text = String::from_utf8_lossy(&bytes).to_ascii_lowercase();
        let guids: Vec<&str> = text
            .split(|c: char| !c.is_ascii_hexdigit())
            .filter(|t| t.len() >= 16 && !t.bytes().all(|b| b == b'0'))
            .collect();
        for page in walk(&out) {
            let page_text =
                String::from_utf8_lossy(&std::fs::read(&page).unwrap()).to_ascii_lowercase();
            for g in &guids {
                assert!(!page_text.contains(g), "GUID in {}", page.display());
            }
        }
    }
}

/// Issue 38: for every Half-Life log (TF2, CS 1.6, CS:GO, CS2, Left 4 Dead 2), a site built
/// from that file alone has, for every player of the naive count (a Steam account, else a name),
/// exactly one player page whose names include one of that player's, with its kills, deaths,
/// suicides and team kills: a renamed account is one player, a horde's kill a suicide.
#[test]
fn half_life_logs_have_exact_counts_per_account() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut files: Vec<PathBuf> = ["hl-tf2", "hl-cs16", "hl-csgo", "hl-cs2", "hl-other"]
        .iter()
        .flat_map(|d| walk(&shared().join("public").join(d)))
        .collect();
    files.sort();
    assert!(files.len() >= 13, "{files:?}");
    for (n, f) in files.iter().enumerate() {
        let out = site_of_one_log(tmp.path(), n, f);
        let want = games::hl_counts(&std::fs::read(f).unwrap());
        let players = json(&out.join("data/players.json"));
        let players = players.as_array().unwrap();
        let names_of = |p: &serde_json::Value| -> Vec<String> {
            let names = p["names"].as_array().unwrap().iter();
            names.map(|n| plain(n.as_str().unwrap())).collect()
        };
        let tally = |p: &serde_json::Value| -> games::Tally {
            ["kills", "deaths", "suicides", "team_kills"].map(|k| p[k].as_u64().unwrap() as u32)
        };
        for (key, (counts, names)) in &want {
            let pages: Vec<&serde_json::Value> = players
                .iter()
                .filter(|p| names_of(p).iter().any(|n| names.contains(n)))
                .collect();
            assert_eq!(pages.len(), 1, "{}: {key} {names:?}", f.display());
            assert_eq!(tally(pages[0]), *counts, "{}: {key} {names:?}", f.display());
        }
        let counted: u32 = want.values().map(|(t, _)| t[0] + t[1]).sum();
        let got: u32 = players.iter().map(|p| tally(p)[0] + tally(p)[1]).sum();
        assert_eq!(got, counted, "{}: kills and deaths in all", f.display());
    }
}

/// Issue 16: an ET game log (`g_log`, level-time stamps, the Quake 3 frame) is read as ET, not
/// as Quake 3: game `et`, ET weapon labels, the naive count's kills, and times.
#[test]
fn et_game_log_is_read_as_et_with_exact_counts() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let console = std::fs::read(shared().join("public/et/etl-bobot-etconsole.log")).unwrap();
    let log = games::et_as_game_log(&console);
    let logs = tmp.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    std::fs::write(logs.join("etserver.log"), &log).unwrap();
    std::fs::write(tmp.path().join("site.toml"), "").unwrap();
    let out = tmp.path().join("public");
    let o = build_site(&out, std::slice::from_ref(&logs), tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let want = games::et_counts(&log);
    // The same count as the console log's.
    assert_eq!(want, games::et_counts(&console));
    let players = json(&out.join("data/players.json"));
    let players = players.as_array().unwrap();
    let mut seen = 0;
    for p in players {
        let name = p["plain_name"].as_str().unwrap();
        let got = [
            p["kills"].as_u64().unwrap() as u32,
            p["deaths"].as_u64().unwrap() as u32,
            p["suicides"].as_u64().unwrap() as u32,
            p["team_kills"].as_u64().unwrap() as u32,
        ];
        // Players who only joined a side have no kill line.
        assert_eq!(got, want.get(name).copied().unwrap_or_default(), "{name}");
        seen += usize::from(want.contains_key(name));
    }
    assert_eq!(seen, want.len(), "every counted player has a page");
    let matches = json(&out.join("data/matches.json"));
    let matches = matches.as_array().unwrap();
    assert_eq!(matches.len(), 1);
    let m = &matches[0];
    assert_eq!(m["game"], "et", "{m}");
    // Stamped: the match lasts from its InitGame to its ShutdownGame.
    assert!(m["duration_seconds"].as_u64().unwrap() > 600, "{m}");
    let page = std::fs::read_to_string(out.join(m["url"].as_str().unwrap())).unwrap();
    assert!(page.contains("Thompson") && page.contains("StG 44"));
    assert!(!page.contains("MOD_THOMPSON"));
}

#[test]
fn builds_site_from_real_logs_with_exact_counts() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let o = build_real(&out);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("corrupt line (no level-time stamp)"), "{err}");
    assert!(
        err.contains("qgames-challenge.log:97:  26  0:00 ---"),
        "{err}"
    );

    let players = json(&out.join("data/players.json"));
    let players = players.as_array().unwrap();
    let expected = independent_counts(&q3_family_logs());
    let with_kill_lines = expected.len();
    assert!(
        players.len() >= with_kill_lines,
        "{} < {}",
        players.len(),
        with_kill_lines
    );
    for p in players {
        let name = p["plain_name"].as_str().unwrap();
        let got = Counts {
            kills: p["kills"].as_u64().unwrap() as u32,
            deaths: p["deaths"].as_u64().unwrap() as u32,
            suicides: p["suicides"].as_u64().unwrap() as u32,
            team_kills: p["team_kills"].as_u64().unwrap() as u32,
        };
        let want = expected
            .get(name)
            .map_or(Counts::default(), |c| Counts { ..*c });
        assert_eq!(got, want, "counts of {name}");
        let url = p["url"].as_str().unwrap();
        assert!(
            url.starts_with("players/") && url.ends_with(".html"),
            "{url}"
        );
        assert!(out.join(url).is_file(), "page of {name} at {url}");
        // The page's weapon list adds up to the kills, most frags first, and its map list to
        // the matches (both are made only for the pages rendered: no stand-in shows).
        let page = std::fs::read_to_string(out.join(url)).unwrap();
        let numbers = |heading: &str| -> Vec<u64> {
            let section = &page[page
                .find(heading)
                .unwrap_or_else(|| panic!("{name}: {heading}"))..];
            let section = &section[..section.find("</section>").unwrap()];
            (section.split(r#"<td class="num">"#).skip(1))
                .map(|cell| cell[..cell.find('<').unwrap()].parse().unwrap())
                .collect()
        };
        let weapons = numbers("<h2>Weapons</h2>");
        assert_eq!(
            weapons.iter().sum::<u64>(),
            u64::from(got.kills),
            "weapons of {name}"
        );
        assert!(
            weapons.is_sorted_by(|a, b| a >= b),
            "weapons of {name}: {weapons:?}"
        );
        let maps = numbers("<h2>Maps</h2>");
        assert_eq!(
            maps.iter().sum::<u64>(),
            p["matches"].as_u64().unwrap(),
            "maps of {name}"
        );
        assert!(
            !page.contains("labels:") && !page.contains("rows:"),
            "{name}"
        );
    }
    // Every OpenArena bot has a page.
    for bot in [
        "[OA]Sarge",
        "The Dude",
        "RedDevil",
        "Jenna<3",
        "xXSkullXx",
        "|RB|Headcrash",
    ] {
        assert!(players.iter().any(|p| p["plain_name"] == bot), "{bot}");
    }

    let matches = json(&out.join("data/matches.json"));
    let matches = matches.as_array().unwrap();
    // 71 complete bot matches, plus the public Q3-family games that had players.
    let completed_bot_matches = matches
        .iter()
        .filter(|m| {
            let source = m["source"].as_str().unwrap();
            ["ffa/", "ctf/", "tdm/", "duel/"]
                .iter()
                .any(|d| source.starts_with(d))
                && !m["exit_reason"].is_null()
        })
        .count();
    assert_eq!(completed_bot_matches, 71, "README: 71 complete matches");
    for m in matches {
        let url = m["url"].as_str().unwrap();
        assert!(out.join(url).is_file(), "{url}");
        for key in [
            "id",
            "map",
            "gametype",
            "duration_seconds",
            "players",
            "kills",
            "source",
        ] {
            assert!(!m[key].is_null(), "{key} in {m}");
        }
        assert!(m["start"].is_null() || m["start"].as_str().unwrap().len() == 19);
        // Issue 15 contract: a probability for team matches, null for the others.
        let p = &m["predicted_red_win"];
        match m["gametype"].as_str().unwrap() {
            "ffa" | "duel" => assert!(p.is_null(), "{m}"),
            _ => assert!(
                p.is_null() || (0.0..=1.0).contains(&p.as_f64().unwrap()),
                "{m}"
            ),
        }
    }
    let predicted = |source: &str| {
        matches
            .iter()
            .filter(|m| m["source"].as_str().unwrap().starts_with(source))
            .all(|m| m["predicted_red_win"].is_number())
    };
    assert!(
        predicted("tdm/") && predicted("ctf/"),
        "every bot team match"
    );
    let oa = matches
        .iter()
        .find(|m| m["source"] == "ffa/games-1.log")
        .unwrap();
    assert_eq!(oa["map"], "oa_dm1");
    assert_eq!(oa["start"], "2026-11-22T01:54:56");
    assert_eq!(oa["gametype"], "ffa");

    for page in [
        "index.html",
        "players.html",
        "matches.html",
        "maps.html",
        "static/style.css",
    ] {
        assert!(out.join(page).is_file(), "{page}");
    }
    // No guid or IP address anywhere in the output.
    for f in walk(&out) {
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        assert!(!text.contains("192.168."), "IP address in {}", f.display());
        assert!(
            !text.contains("http://") && !text.contains("https://") && !text.contains("//cdn"),
            "reference to another host in {}",
            f.display()
        );
    }
}

#[test]
fn output_is_deterministic() {
    if !common::has_shared_data() {
        return;
    }
    // Two folders, so that the second build has no state of the first to start from.
    let (tmp_a, tmp_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b) = (tmp_a.path().join("site"), tmp_b.path().join("site"));
    assert!(build_real(&a).status.success());
    assert!(build_real(&b).status.success());
    let files_a = walk(&a);
    assert_eq!(files_a.len(), walk(&b).len());
    for f in files_a {
        let rel = f.strip_prefix(&a).unwrap();
        assert_eq!(
            std::fs::read(&f).unwrap(),
            std::fs::read(b.join(rel)).unwrap(),
            "{}",
            rel.display()
        );
    }
}

#[test]
fn empty_config_builds_the_logs_folder() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("site.toml"), "").unwrap();
    let logs = tmp.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    std::fs::copy(common::openarena("tdm/games.log"), logs.join("games.log")).unwrap();
    let o = fragstats(&["build"], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(tmp.path().join("public/index.html").is_file());
    assert!(String::from_utf8_lossy(&o.stdout).contains("index.html"));
}

#[test]
fn bad_config_and_missing_paths_fail_with_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("site.toml"), "title = \"x\"\nlogz = []\n").unwrap();
    let o = fragstats(&["build"], tmp.path());
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("site.toml:2:1: unknown field `logz`"), "{err}");

    std::fs::write(tmp.path().join("site.toml"), "").unwrap();
    let o = fragstats(&["build", "no/such/dir"], tmp.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("log path no/such/dir does not exist"),
        "{}",
        stderr(&o)
    );

    let o = fragstats(&["build", "--config", "missing.toml"], tmp.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot read config file missing.toml"),
        "{}",
        stderr(&o)
    );
}

/// The help of `fragstats` and of each of its commands, as `docs/commands.md` holds it.
fn commands_doc(tmp: &Path) -> String {
    let mut doc = String::from(
        "# Command reference\n\nWhat `fragstats --help` and `fragstats <command> --help` print \
         (checked by the tests: `FRAGSTATS_BLESS=1 cargo test --release --test site help` \
         rewrites this file from the binary).\n",
    );
    let top = fragstats(&["--help"], tmp);
    let mut commands = Vec::new();
    let text = String::from_utf8(top.stdout).unwrap();
    let mut listing = false;
    for line in text.lines() {
        if line == "Commands:" {
            listing = true;
        } else if listing && line.starts_with("  ") {
            let name = line.split_whitespace().next().unwrap().to_string();
            if name != "help" {
                commands.push(name);
            }
        } else {
            listing = false;
        }
    }
    doc.push_str(&format!("\n## fragstats\n\n```text\n{}```\n", text));
    for c in &commands {
        let o = fragstats(&[c, "--help"], tmp);
        assert!(o.status.success(), "{c} --help");
        let text = String::from_utf8(o.stdout).unwrap();
        doc.push_str(&format!("\n## fragstats {c}\n\n```text\n{text}```\n"));
    }
    doc
}

/// Issue 39: the docs give every command's help as the binary prints it.
#[test]
fn help_of_every_command_is_in_the_docs() {
    let tmp = tempfile::tempdir().unwrap();
    let want = commands_doc(tmp.path());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/commands.md");
    if std::env::var_os("FRAGSTATS_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let got = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        got == want,
        "docs/commands.md differs from the binary's help: rewrite it with \
         `FRAGSTATS_BLESS=1 cargo test --release --test site help`"
    );
    assert!(want.contains("## fragstats balance") && want.contains("## fragstats build"));
}

#[test]
fn help_explains_every_option() {
    let o = fragstats(&["build", "--help"], Path::new("."));
    let help = String::from_utf8_lossy(&o.stdout);
    for opt in ["--config", "--out", "[PATH]..."] {
        assert!(help.contains(opt), "{help}");
    }
    let o = fragstats(&["--help"], Path::new("."));
    assert!(String::from_utf8_lossy(&o.stdout).contains("build"));
}

#[test]
fn config_paths_are_relative_to_the_config_file() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("mysite");
    std::fs::create_dir_all(site.join("logs")).unwrap();
    std::fs::copy(
        common::openarena("duel/games-oa_minia.log"),
        site.join("logs/a.log"),
    )
    .unwrap();
    std::fs::write(
        site.join("site.toml"),
        "logs = [\"logs\"]\noutput = \"out\"\n",
    )
    .unwrap();
    let o = fragstats(&["build", "--config", "mysite/site.toml"], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let matches = json(&site.join("out/data/matches.json"));
    assert_eq!(
        matches.as_array().unwrap().len(),
        3,
        "3 duels with an Exit; restarts are empty"
    );
    assert_eq!(matches[0]["source"], "a.log");
}

#[test]
fn ratings_in_players_and_clans_json() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    // Its own state folder: the repository's holds the archived matches of every log other
    // tests built (clans from the public logs would join).
    let o = build_site(&out, &[common::openarena("")], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let players = json(&out.join("data/players.json"));
    let players = players.as_array().unwrap();
    let mut core = 0;
    for p in players {
        let rating = p["rating"].as_f64().unwrap();
        assert!(rating >= 0.0, "{p}");
        let in_core = p["in_core"].as_bool().unwrap();
        let incidents = p["incidents"].as_u64().unwrap();
        assert!(incidents >= p["kills"].as_u64().unwrap());
        match p["static_rating"].as_f64() {
            Some(v) => {
                assert!(in_core && (-1.0..=1.0).contains(&v), "{p}");
                assert!(p["static_rating_outside"].is_null());
                assert!(incidents >= 20, "core members have at least min_incidents");
                core += 1;
            }
            None => {
                assert!(!in_core);
                assert_eq!(p["static_rating_outside"].is_null(), incidents == 0, "{p}");
            }
        }
    }
    assert!(core >= 2);
    // The strongest bot (skill 5, xXSkullXx) tops the static core ranking on these logs.
    let best = players
        .iter()
        .filter(|p| p["in_core"] == true)
        .max_by(|a, b| {
            a["static_rating"]
                .as_f64()
                .partial_cmp(&b["static_rating"].as_f64())
                .unwrap()
        })
        .unwrap();
    assert_eq!(best["plain_name"], "xXSkullXx");

    let clans = json(&out.join("data/clans.json"));
    let clans = clans.as_array().unwrap();
    let names: Vec<&str> = clans.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["=XiX=", "[OA]", "{TDK}"],
        "|RB| has one member only"
    );
    for c in clans {
        assert!(out.join(c["url"].as_str().unwrap()).is_file());
        assert_eq!(c["members"].as_array().unwrap().len(), 2);
        assert!(c["rating"].as_f64().unwrap() >= 0.0);
    }
    let ranking = std::fs::read_to_string(out.join("ranking.html")).unwrap();
    assert!(
        ranking.contains(&format!(
            "<strong>{core}</strong> of {} players",
            players.len()
        )),
        "core size shown"
    );
    assert!(ranking.contains("not decay"));
}

#[test]
fn rating_config_keys_are_used() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("site.toml"),
        format!(
            "logs = [{:?}]\n[rating.dynamic]\nk = 0.0\ninitial = 100.0\n[rating.static]\nmin_incidents = 100000\n",
            common::openarena("tdm").display().to_string()
        ),
    )
    .unwrap();
    let o = fragstats(&["build"], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let players = json(&tmp.path().join("public/data/players.json"));
    for p in players.as_array().unwrap() {
        assert_eq!(
            p["rating"].as_f64(),
            Some(100.0),
            "K = 0 keeps the initial rating"
        );
        assert_eq!(p["in_core"], false, "nobody has 100000 incidents");
    }

    std::fs::write(tmp.path().join("site.toml"), "[rating.dynamic]\nkay = 1\n").unwrap();
    let o = fragstats(&["build"], tmp.path());
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("unknown field `kay`") && err.contains("`k`"),
        "{err}"
    );
}

/// Player, map and server names that try to break out of the page.
#[test]
fn hostile_names_never_become_live_markup_or_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let long = "L".repeat(5000);
    let names = [
        "<script>alert(1)</script>",
        "\"><img src=x onerror=alert(2)>",
        "../../../../etc/passwd",
        "..",
        "^1<marquee>^2</marquee>'\"&",
        "\u{202e}evil\u{202c}gnp.exe",
        "tab\tbell\u{7}esc\u{1b}[31m",
        long.as_str(),
        "{{ site.title }}{% raw %}",
        "</textarea><iframe src=//evil.example>",
    ];
    let mut log = String::from(
        "  0:00 InitGame: \\sv_hostname\\<iframe src=//x>^1Srv\\g_gametype\\0\\mapname\\<svg onload=alert(3)>../x\\g_timestamp\\2026-01-02 03:04:05\n",
    );
    for (i, n) in names.iter().enumerate() {
        log.push_str(&format!("  0:01 ClientUserinfoChanged: {i} n\\{n}\\t\\0\n"));
    }
    for i in 0..names.len() {
        let j = (i + 1) % names.len();
        log.push_str(&format!(
            "  0:02 Kill: {i} {j} 10: x killed y by MOD_RAILGUN</script>\n"
        ));
    }
    log.push_str("  0:03 say: <script>alert(4)</script>\n  0:04 Exit: <marquee>Fraglimit</marquee>\n  0:05 ShutdownGame:\n");
    std::fs::write(logs.join("evil.log"), log).unwrap();
    let out = tmp.path().join("site");
    let o = build_site(&out, std::slice::from_ref(&logs), tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));

    // Nothing was written outside the output folder.
    let mut top: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    top.sort();
    assert_eq!(
        top,
        [".fragstats", "logs", "site"],
        "only the state, the logs and the site"
    );

    let players = json(&out.join("data/players.json"));
    assert_eq!(players.as_array().unwrap().len(), names.len());
    for p in players.as_array().unwrap() {
        let url = p["url"].as_str().unwrap();
        let slug = url
            .strip_prefix("players/")
            .unwrap()
            .strip_suffix(".html")
            .unwrap();
        assert!(!slug.is_empty() && slug.len() <= 60, "{slug}");
        assert!(
            slug.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
            "{slug}"
        );
        assert!(out.join(url).is_file());
    }
    let names_in_json: Vec<&str> = players
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(
        names_in_json.contains(&"<script>alert(1)</script>"),
        "JSON keeps the real name"
    );

    for f in walk(&out) {
        let rel = f.strip_prefix(&out).unwrap().to_string_lossy().into_owned();
        assert!(
            rel.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./".contains(&b)),
            "unsafe file name {rel:?}"
        );
        if !rel.ends_with(".html") {
            continue;
        }
        let page = std::fs::read_to_string(&f).unwrap();
        let lower = page.to_lowercase();
        for live in [
            "<img",
            "<iframe",
            "<svg onload",
            "<marquee",
            "<script>alert",
            "javascript:",
        ] {
            assert!(!lower.contains(live), "live {live:?} in {rel}");
        }
        // The only scripts and text areas are the theme's own: two scripts
        // everywhere, and the balancer's script, data and paste box on its page.
        let (scripts, textareas) = if rel == "balance.html" {
            (4, 1)
        } else {
            (2, 0)
        };
        assert_eq!(lower.matches("<script").count(), scripts, "{rel}");
        assert_eq!(lower.matches("<textarea").count(), textareas, "{rel}");
        assert!(
            !page.contains('\u{7}') && !page.contains('\u{1b}'),
            "control characters in {rel}"
        );
    }
    let list = std::fs::read_to_string(out.join("players.html")).unwrap();
    assert!(
        list.contains("{{ site.title }}{% raw %}"),
        "names are data, never template code"
    );
    let mut indexes = vec![out.join("data/search-index.js"), out.join("data/search.js")];
    indexes.extend(
        std::fs::read_dir(out.join("data/search"))
            .unwrap()
            .map(|e| e.unwrap().path()),
    );
    for index in indexes {
        let search = std::fs::read_to_string(&index).unwrap();
        assert!(
            !search.contains('<'),
            "{} cannot open or close a tag",
            index.display()
        );
    }
}

/// Every `href`/`src` in every page points at a file of the site (relative links only).
#[test]
fn every_internal_link_and_asset_resolves() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let o = build_real(&out);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut checked = 0;
    for page in walk(&out)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
    {
        let text = std::fs::read_to_string(&page).unwrap();
        for attr in ["href=\"", "src=\""] {
            for piece in text.split(attr).skip(1) {
                let target = piece.split('"').next().unwrap();
                assert!(
                    !target.contains("://") && !target.starts_with("//"),
                    "{target} in {}",
                    page.display()
                );
                let path = target.split(['#', '?']).next().unwrap();
                if path.is_empty() {
                    continue;
                }
                let resolved = page.parent().unwrap().join(path);
                assert!(
                    resolved.is_file(),
                    "{target} in {} does not resolve",
                    page.display()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked} links checked");
}

#[test]
fn site_templates_and_static_override_the_theme() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path();
    std::fs::create_dir_all(site.join("templates")).unwrap();
    std::fs::create_dir_all(site.join("static")).unwrap();
    std::fs::create_dir_all(site.join("content")).unwrap();
    std::fs::write(
        site.join("templates/index.html"),
        "{% extends \"builtin/index.html\" %}{% block content %}<p id=\"custom\">Welcome {{ site.title }}</p>{{ super() }}{% endblock content %}",
    )
    .unwrap();
    std::fs::write(site.join("static/extra.css"), "body{}").unwrap();
    std::fs::write(
        site.join("content/rules.md"),
        "# Server rules\n\nNo camping.\n",
    )
    .unwrap();
    std::fs::write(
        site.join("site.toml"),
        format!(
            "title = \"My <clan>\"\nbase_url = \"https://stats.example.org/sub/\"\nlogs = [{:?}]\n[[nav]]\nlabel = \"Forum\"\nurl = \"https://forum.example/\"\n[colors]\naccent = \"#123abc\"\n",
            common::openarena("tdm").display().to_string()
        ),
    )
    .unwrap();
    let o = fragstats(&["build"], site);
    assert!(o.status.success(), "{}", stderr(&o));
    let index = std::fs::read_to_string(site.join("public/index.html")).unwrap();
    assert!(
        index.contains("<p id=\"custom\">Welcome My &lt;clan&gt;</p>"),
        "user template extends the built-in"
    );
    assert!(
        index.contains("Ladder"),
        "built-in content kept through super()"
    );
    assert!(
        index.contains("href=\"pages/server-rules.html\"")
            || index.contains("href=\"pages/rules.html\""),
        "content page in nav"
    );
    assert!(
        index.contains("href=\"https://forum.example/\""),
        "[[nav]] link"
    );
    assert!(index.contains("--accent:#123abc"));
    assert!(site.join("public/static/extra.css").is_file());
    let feed = std::fs::read_to_string(site.join("public/feed.xml")).unwrap();
    assert!(feed.contains("<title>My &lt;clan&gt;</title>"), "{feed}");
    assert!(
        feed.contains("<link href=\"https://stats.example.org/sub/matches/"),
        "{feed}"
    );
    assert!(index.contains("href=\"feed.xml\""));
    assert!(site.join("public/static/style.css").is_file());
    let rules = std::fs::read_to_string(site.join("public/pages/rules.html")).unwrap();
    assert!(rules.contains("<h1>Server rules</h1>") && rules.contains("No camping."));

    // A broken template is an error that names the template.
    std::fs::write(
        site.join("templates/player.html"),
        "{% extends \"base.html\" %}\n{% block content %}\n{% if %}\n{% endblock content %}",
    )
    .unwrap();
    let o = fragstats(&["build"], site);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("player.html") && err.contains("3:"), "{err}");
}

/// Binary files, huge lines, symlinks and quirky files are reported per file and reason, in the
/// summary and in data/diagnostics.json; `--strict` turns any skip into exit status 3.
#[test]
fn diagnostics_and_strict_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let mut bin = vec![0u8, 159, 146, 150];
    bin.extend(std::iter::repeat_n(7u8, 200_000));
    std::fs::write(logs.join("core.dump"), &bin).unwrap();
    let mut log = std::fs::read(common::openarena("tdm/games.log")).unwrap();
    log.extend_from_slice(b"  9:99 say: ");
    log.extend(std::iter::repeat_n(b'x', 100_000));
    log.extend_from_slice(b"\n 26  0:00 ---\n");
    std::fs::write(logs.join("games.log"), &log).unwrap();
    // A symlinked folder is followed and listed as such; a link loop is reported once.
    #[cfg(unix)]
    {
        let elsewhere = tmp.path().join("server");
        std::fs::create_dir(&elsewhere).unwrap();
        std::fs::copy(
            common::openarena("duel/games-oa_minia.log"),
            elsewhere.join("duel.log"),
        )
        .unwrap();
        std::os::unix::fs::symlink(&elsewhere, logs.join("server-link")).unwrap();
        std::os::unix::fs::symlink(&logs, logs.join("loop")).unwrap();
    }

    let out = tmp.path().join("site");
    let o = build_site(&out, std::slice::from_ref(&logs), tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("core.dump: skipped: binary file"), "{err}");
    assert!(
        err.contains("games.log: quake3, 3349 lines, 5 matches, 2 lines skipped"),
        "{err}"
    );
    assert!(err.contains("1 x line longer than 64 KiB"), "{err}");
    #[cfg(unix)]
    {
        assert!(
            err.contains("server-link/duel.log: quake3,")
                && err.contains("(through a symbolic link)"),
            "{err}"
        );
        assert!(err.contains("loop: skipped: symbolic link loop"), "{err}");
    }

    let diag = json(&out.join("data/diagnostics.json"));
    let files = diag["files"].as_array().unwrap();
    let games = files.iter().find(|f| f["path"] == "games.log").unwrap();
    assert_eq!(games["matches"], 5);
    assert_eq!(
        games["skipped_lines"]["corrupt line (no level-time stamp)"]["count"],
        1
    );
    assert_eq!(
        games["skipped_lines"]["corrupt line (no level-time stamp)"]["examples"][0]["line"],
        3349
    );

    let o = fragstats(
        &[
            "build",
            "--strict",
            "--out",
            out.to_str().unwrap(),
            logs.to_str().unwrap(),
        ],
        tmp.path(),
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        out.join("index.html").is_file(),
        "the site is still written"
    );
    let clean = tmp.path().join("clean");
    std::fs::create_dir(&clean).unwrap();
    std::fs::copy(common::openarena("tdm/games.log"), clean.join("games.log")).unwrap();
    let o = fragstats(
        &[
            "build",
            "--strict",
            "--out",
            out.to_str().unwrap(),
            clean.to_str().unwrap(),
        ],
        tmp.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Contract of issue 7: `headline_rating` and `provisional` in players.json, `rating` stays
/// Becker's; a 2:0 newcomer is provisional and listed after every established player; the
/// evaluation is published; `[rating.headline]` selects the system and the threshold.
/// The newcomer's log is OpenArena's, as the bots': one game, one ladder (issue 38).
#[test]
fn headline_rating_and_provisional_players() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(
        logs.join("newcomer.log"),
        "  0:00 InitGame: \\g_gametype\\0\\gamename\\baseoa\\mapname\\q3dm17\\sv_hostname\\test\n\
           0:00 ClientUserinfoChanged: 0 n\\Rookie\\t\\0\n\
           0:00 ClientUserinfoChanged: 1 n\\xXSkullXx\\t\\0\n\
           0:10 Kill: 0 1 10: Rookie killed xXSkullXx by MOD_RAILGUN\n\
           0:20 Kill: 0 1 10: Rookie killed xXSkullXx by MOD_RAILGUN\n\
           0:30 Exit: Fraglimit hit.\n\
           0:30 ShutdownGame:\n",
    )
    .unwrap();
    let build = |config: &str| {
        std::fs::write(tmp.path().join("site.toml"), config).unwrap();
        let o = fragstats(
            &[
                "build",
                "--full",
                common::openarena("").to_str().unwrap(),
                logs.to_str().unwrap(),
            ],
            tmp.path(),
        );
        assert!(o.status.success(), "{}", stderr(&o));
        json(&tmp.path().join("public/data/players.json"))
    };
    let players = build("");
    let players = players.as_array().unwrap();
    let by_name = |name: &str| {
        players
            .iter()
            .find(|p| p["plain_name"] == name)
            .unwrap_or_else(|| panic!("{name} in players.json"))
    };
    for p in players {
        assert!(p["headline_rating"].as_f64().unwrap().is_finite(), "{p}");
        let evidence = p["kills"].as_u64().unwrap() + p["deaths"].as_u64().unwrap();
        assert_eq!(p["provisional"].as_bool().unwrap(), evidence < 30, "{p}");
        assert!(p["rating"].as_f64().unwrap() >= 0.0, "Becker's floor: {p}");
    }
    // One game: everyone who played played it.
    for p in players.iter().filter(|p| p["matches"] != 0) {
        assert_eq!(p["games"], serde_json::json!(["openarena"]), "{p}");
    }
    let rookie = by_name("Rookie");
    assert_eq!(rookie["provisional"], true);
    let skull = by_name("xXSkullXx");
    assert_eq!(skull["provisional"], false);

    let site = tmp.path().join("public");
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    let provisional_heading = index.find("Provisional").expect("provisional list");
    assert!(index.find(">Rookie<").unwrap() > provisional_heading);
    assert!(index.find(">xXSkullXx<").unwrap() < provisional_heading);
    let list = std::fs::read_to_string(site.join("players.html")).unwrap();
    for p in players.iter().filter(|p| p["provisional"] == false) {
        let name = format!(">{}<", p["plain_name"].as_str().unwrap());
        if let Some(at) = list.find(&name) {
            assert!(at < list.find(">Rookie<").unwrap(), "{name} before Rookie");
        }
    }

    let evaluation = json(&site.join("data/evaluation.json"));
    assert_eq!(evaluation["headline"], "whole-history");
    let systems = evaluation["systems"].as_array().unwrap();
    assert_eq!(systems.len(), 13);
    // Issue 15 contract: the team model is one of the systems, with its team scores.
    let team_model = evaluation["team_model"].as_str().unwrap();
    let team = systems.iter().find(|s| s["id"] == team_model).unwrap();
    for key in ["log_loss", "brier", "accuracy", "outcomes"] {
        assert!(team["team_results"][key].is_number(), "{key}: {team}");
    }
    let headline = systems.iter().find(|s| s["id"] == "whole-history").unwrap();
    assert!(headline["vs_headline"].is_null());
    assert!(headline["spearman_bot_skill"].as_f64().unwrap() >= 0.95);
    for s in systems.iter().filter(|s| s["id"] != "whole-history") {
        assert!(s["vs_headline"]["std_err"].as_f64().unwrap() >= 0.0, "{s}");
    }
    // Issue 15: the team predictions' reliability, per bin and as the calibration error; the
    // bins' counts add up to the team results and the ECE is their weighted mean gap.
    let reliability = &team["team_reliability"];
    let bins = reliability["bins"].as_array().unwrap();
    let outcomes = team["team_results"]["outcomes"].as_u64().unwrap();
    assert!(outcomes > 0 && !bins.is_empty(), "{reliability}");
    let counts: u64 = bins.iter().map(|b| b["matches"].as_u64().unwrap()).sum();
    assert_eq!(counts, outcomes);
    assert_eq!(reliability["matches"].as_u64(), Some(outcomes));
    let gaps: f64 = bins
        .iter()
        .map(|b| {
            let (p, o) = (
                b["predicted"].as_f64().unwrap(),
                b["observed"].as_f64().unwrap(),
            );
            assert!(
                b["from"].as_f64().unwrap() <= p && p <= b["to"].as_f64().unwrap(),
                "{b}"
            );
            // A calibrated bin's standard error: at most √(p̄(1 − p̄)/n) (Σ p(1 − p) ≤ n·p̄(1 − p̄)).
            let (se, n) = (b["se"].as_f64().unwrap(), b["matches"].as_f64().unwrap());
            assert!(se >= 0.0 && se <= (p * (1.0 - p) / n).sqrt() + 1e-12, "{b}");
            b["matches"].as_f64().unwrap() * (p - o).abs()
        })
        .sum();
    let ece = reliability["ece"].as_f64().unwrap();
    assert!((ece - gaps / outcomes as f64).abs() < 1e-9, "{ece}");
    let ranking = std::fs::read_to_string(site.join("ranking.html")).unwrap();
    assert!(ranking.contains("The headline rating: Bradley-Terry whole history"));
    let page = std::fs::read_to_string(site.join("evaluation.html")).unwrap();
    let diagram = page
        .find("<figure class=\"reliability\"><svg")
        .expect("reliability diagram");
    assert!(page[diagram..].contains("stroke-dasharray"), "the diagonal");
    let stated = format!(
        "Expected calibration error (ECE): {:.1} points",
        ece * 100.0
    );
    assert!(page.contains(&stated), "{stated}");
    assert!(
        page.contains("chance alone (±2 SE)"),
        "the bins' chance column"
    );
    // The expected margin's errors, against the naive predictions, in the JSON and the page.
    let margin = &team["team_margin"];
    assert!(margin["matches"].as_u64().unwrap() > 0, "{margin}");
    for key in ["mae", "mae_even", "mae_game_mean"] {
        assert!(margin[key].as_f64().unwrap() >= 0.0, "{key}: {margin}");
    }
    assert!(page.contains("<strong>Expected score margin</strong>"));
    for b in bins {
        let count = format!(">{}</text>", b["matches"]);
        assert!(
            page[diagram..].contains(&count),
            "count {count} on the diagram"
        );
    }

    // Another headline system and threshold, by site.toml.
    let players = build(
        "[rating]\nevaluation = false\n[rating.headline]\nsystem = \"becker\"\nprovisional_incidents = 0\n",
    );
    for p in players.as_array().unwrap() {
        assert_eq!(p["headline_rating"], p["rating"], "{p}");
        assert_eq!(p["provisional"], false);
    }
    let evaluation = json(&site.join("data/evaluation.json"));
    // The headline, and the team model that match pages and the balancer need.
    let ids: Vec<&str> = evaluation["systems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["becker", "team-model"]);

    std::fs::write(
        tmp.path().join("site.toml"),
        "[rating.headline]\nsystem = \"elo\"\n",
    )
    .unwrap();
    let o = fragstats(&["build"], tmp.path());
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("whole-history") && err.contains("glicko2"),
        "{err}"
    );
}

/// Every predicted team match also has the fairest split's P(red wins) (JSON and match page),
/// and `balance.html` reports stomps and lopsided line-ups by the rules it states, counted
/// here again from `data/matches.json`.
#[test]
fn balance_report_counts_stomps_and_lopsided_line_ups() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let logs = [common::openarena(""), shared().join("public/urt")];
    let o = build_site(&out, &logs, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let matches = json(&out.join("data/matches.json"));
    let (mut n, mut stomps, mut lopsided, mut fair_lopsided) = (0u32, 0u32, 0u32, 0u32);
    let pct = |a: u32, b: u32| (f64::from(a) * 100.0 / f64::from(b)).round() as u32;
    for m in matches.as_array().unwrap() {
        let (predicted, fairest) = (&m["predicted_red_win"], &m["fairest_red_win"]);
        assert_eq!(predicted.is_null(), fairest.is_null(), "{m}");
        let (Some(p), Some(f)) = (predicted.as_f64(), fairest.as_f64()) else {
            continue;
        };
        assert!((0.0..=1.0).contains(&f), "{m}");
        let page = std::fs::read_to_string(out.join(m["url"].as_str().unwrap())).unwrap();
        let shown = format!(
            "the fairest split of the same players would have given <b>{:.0}%</b>",
            f * 100.0
        );
        assert!(page.contains(&shown), "{shown} on {}", m["url"]);
        assert!(
            page.contains("expected score margin (red − blue) <b>"),
            "the expected margin on {}",
            m["url"]
        );
        let Some(scores) = m["team_scores"].as_object() else {
            continue;
        };
        let (red, blue) = (
            scores["red"].as_i64().unwrap(),
            scores["blue"].as_i64().unwrap(),
        );
        let (high, low) = (red.max(blue), red.min(blue));
        n += 1;
        stomps += u32::from(high - low >= 3 && high >= 2 * low.max(0));
        let lop = |p: f64| p >= 2.0 / 3.0 || p <= 1.0 / 3.0;
        lopsided += u32::from(lop(p));
        fair_lopsided += u32::from(lop(f));
    }
    assert!(n >= 20, "team matches with scores: {n}");
    assert!(fair_lopsided <= lopsided, "{fair_lopsided} > {lopsided}");
    let page = std::fs::read_to_string(out.join("balance.html")).unwrap();
    let row = format!(
        "<td>All</td><td class=\"num\">{n}</td><td class=\"num\">{}%</td><td class=\"num\">{}%</td><td class=\"num\">{}%</td>",
        pct(stomps, n),
        pct(lopsided, n),
        pct(fair_lopsided, n)
    );
    assert!(page.contains(&row), "{row} not in balance.html");
}

/// A clan page leads with its members' mean headline rating, then names Becker's clan ladder
/// with the clan's place on it, and draws the mean headline curve beside Becker's.
#[test]
fn clan_page_shows_the_members_mean_headline_rating_first() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let o = build_site(&out, &[common::openarena("")], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let players = json(&out.join("data/players.json"));
    let clans = json(&out.join("data/clans.json"));
    let clans = clans.as_array().unwrap();
    assert!(clans.len() >= 2, "the bot logs have clans");
    let mut becker: Vec<f64> = clans
        .iter()
        .map(|c| c["rating"].as_f64().unwrap())
        .collect();
    becker.sort_by(|a, b| b.total_cmp(a));
    for clan in clans {
        let members = clan["members"].as_array().unwrap();
        let mean = members
            .iter()
            .map(|m| {
                let p = players
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|p| p["plain_name"] == *m);
                p.unwrap()["headline_rating"].as_f64().unwrap()
            })
            .sum::<f64>()
            / members.len() as f64;
        let page = std::fs::read_to_string(out.join(clan["url"].as_str().unwrap())).unwrap();
        let headline = page
            .find(&format!("<b>{mean:.0}</b> mean rating of its members"))
            .unwrap_or_else(|| panic!("mean {mean:.0} not on {}", clan["url"]));
        let rank = 1 + becker
            .iter()
            .position(|&g| g == clan["rating"].as_f64().unwrap())
            .unwrap();
        let ladder = page
            .find(&format!("Becker clan ladder (#{rank})"))
            .unwrap_or_else(|| panic!("Becker's clan rank {rank} on {}", clan["url"]));
        assert!(headline < ladder, "the headline comes first");
        let curves = page.matches("<svg").count();
        assert_eq!(curves, 2, "headline and Becker curves on {}", clan["url"]);
    }
}

/// The player page leads with the headline rating and its rank (none while provisional), then
/// names Becker's ladder with its own rank; a static share never leaves 0-100%; each rating
/// curve's card holds its drawing.
#[test]
fn player_page_shows_the_headline_rating_first() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let logs = [shared().join("public/urt"), shared().join("public/q3")];
    let o = build_site(&out, &logs, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let players = json(&out.join("data/players.json"));
    let players = players.as_array().unwrap();
    let mut seen = [false, false];
    for p in players {
        let page = std::fs::read_to_string(out.join(p["url"].as_str().unwrap())).unwrap();
        let headline = format!(
            "<b>{:.0}</b> rating",
            p["headline_rating"].as_f64().unwrap()
        );
        let at = page
            .find(&headline)
            .unwrap_or_else(|| panic!("{headline} not on the page"));
        let becker = page
            .find("Becker ladder (#")
            .expect("Becker's ladder is named");
        assert!(at < becker, "the headline comes first");
        let provisional = p["provisional"].as_bool().unwrap();
        let ranked = page[at..becker].contains("(#");
        assert_eq!(ranked, !provisional, "{}", p["plain_name"]);
        seen[usize::from(provisional)] = true;
        // Each curve card holds its drawing: the keyed view's stand-ins never reach a page.
        let svgs = page.matches("<svg").count();
        assert!(svgs >= 1, "{}", p["plain_name"]);
        assert_eq!(
            svgs,
            page.matches("chart-card").count(),
            "{}",
            p["plain_name"]
        );
        assert!(!page.contains("curve:"), "{}", p["plain_name"]);
        for pct in page.split("<b>").filter_map(|s| s.split("%</b>").next()) {
            if let Ok(v) = pct.parse::<f64>() {
                assert!((0.0..=100.0).contains(&v), "{v}% on {}", p["plain_name"]);
            }
        }
    }
    assert_eq!(
        seen,
        [true, true],
        "ranked and provisional players both checked"
    );
}

/// With `base_url` set, logs whose matches carry no date (Quake 3's) get no feed and a warning
/// that says why; dated logs (OpenArena's) get `feed.xml` and no warning.
#[test]
fn base_url_without_dated_matches_warns_and_writes_no_feed() {
    if !common::has_shared_data() {
        return;
    }
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs");
    for (logs, dated) in [(shared().join("public/q3"), false), (sample, true)] {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(
            tmp.path().join("site.toml"),
            "base_url = \"https://stats.example.org/\"\n",
        )
        .unwrap();
        let out = tmp.path().join("site");
        let o = build_site(&out, &[logs], tmp.path());
        assert!(o.status.success(), "{}", stderr(&o));
        let warned = stderr(&o).contains("feed.xml not written");
        assert_eq!(warned, !dated, "{}", stderr(&o));
        assert_eq!(out.join("feed.xml").is_file(), dated);
    }
}

/// With `identity = "guid"`, the OpenArena and Urban Terror logs' client ids tell players
/// apart, and no id (nor any IP address of the logs) appears anywhere in the output.
#[test]
fn guid_identity_publishes_no_id() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("site.toml"),
        "identity = \"guid\"\nbase_url = \"https://stats.example.org/\"\n",
    )
    .unwrap();
    let out = tmp.path().join("site");
    let logs = [
        shared().join("public/openarena"),
        shared().join("public/urt"),
    ];
    let o = build_site(&out, &logs, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let mut ids = std::collections::BTreeSet::new();
    for log in [
        "public/openarena/oa-brensen-munerator.log",
        "public/urt/urt43-lan-rodov.log",
    ] {
        let text =
            String::from_utf8_lossy(&std::fs::read(shared().join(log)).unwrap()).into_owned();
        for key in ["\\cl_guid\\", "\\id\\", "\\ip\\"] {
            for part in text.split(key).skip(1) {
                let id: String = part
                    .chars()
                    .take_while(|c| *c != '\\' && *c != '\n')
                    .collect();
                if id.len() >= 8 && id != "localhost" {
                    ids.insert(id);
                }
            }
        }
    }
    assert!(ids.len() > 5, "{ids:?}");
    for entry in walkdir::WalkDir::new(&out)
        .into_iter()
        .filter_map(Result::ok)
    {
        if !entry.file_type().is_file() {
            continue;
        }
        let bytes = std::fs::read(entry.path()).unwrap();
        let text = String::from_utf8_lossy(&bytes).to_ascii_uppercase();
        for id in &ids {
            assert!(
                !text.contains(&id.to_ascii_uppercase()),
                "{id} published in {}",
                entry.path().display()
            );
        }
    }
}

/// Issue 15 contract: `fragstats balance --config FILE --json NAME...` on a site built in a temp
/// dir prints one JSON object with the teams, p, exactness, alternatives, the ABBA split and
/// the unknown names; `--from` adds the swaps; errors are one line with exit 1, and the missing
/// build is named.
#[test]
fn balance_cli_contract() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("site.toml");
    let logs = common::openarena("");
    std::fs::write(&config, format!("logs = [{:?}]\n", logs.to_string_lossy())).unwrap();
    let cfg = config.to_str().unwrap();
    let o = fragstats(
        &["balance", "--config", cfg, "--json", "Sarge", "Grunt"],
        tmp.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("run `fragstats build` first"),
        "{}",
        stderr(&o)
    );
    let o = fragstats(&["build", "--config", cfg], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));

    let names = [
        "Sarge",
        "^1Red^7Devil",
        "tanisha",
        "Kyonshi",
        "Angelyss",
        "Ayumi",
        "Gargoyle",
        "Penguin",
        "Newbie Zq",
    ];
    let mut args = vec!["balance", "--config", cfg, "--json"];
    args.extend(names);
    let o = fragstats(&args, tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let side = |v: &serde_json::Value, k: &str| -> Vec<String> {
        v[k].as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect()
    };
    let (red, blue) = (side(&v, "red"), side(&v, "blue"));
    assert_eq!(red.len() + blue.len(), 9);
    assert!(red.len().abs_diff(blue.len()) <= 1);
    assert!(
        red.iter().chain(&blue).any(|n| n == "[OA]Sarge"),
        "plain names: {v}"
    );
    assert!(red.iter().chain(&blue).any(|n| n == "RedDevil"));
    let p = v["p_red_wins"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&p));
    assert_eq!(v["exact"], true);
    assert_eq!(v["unknown"], serde_json::json!(["Newbie Zq"]));
    assert!(v["expected_margin"].is_number(), "{v}");
    for s in v["alternatives"]
        .as_array()
        .unwrap()
        .iter()
        .chain([&v["abba"]])
    {
        assert!(
            s["red"].is_array() && s["blue"].is_array() && s["p_red_wins"].is_number(),
            "{s}"
        );
        assert!((s["p_red_wins"].as_f64().unwrap() - 0.5).abs() >= (p - 0.5).abs() - 1e-12);
    }
    // The random split: the same players, sizes differing by at most one, reproducible, the
    // same for the names in another order, changed by --seed; no --from, no current teams.
    let random = &v["random"];
    let (rr, rb) = (side(random, "red"), side(random, "blue"));
    assert!(rr.len().abs_diff(rb.len()) <= 1, "{random}");
    let (mut all, mut want) = (
        [rr.clone(), rb].concat(),
        [red.clone(), blue.clone()].concat(),
    );
    all.sort();
    want.sort();
    assert_eq!(all, want);
    assert!(random["p_red_wins"].is_number() && random["expected_margin"].is_number());
    assert_eq!(random["rules_kept"], true);
    assert!(v.get("current").is_none(), "{v}");
    let mut args = vec!["balance", "--config", cfg, "--json"];
    args.extend(names.iter().rev());
    let again: serde_json::Value =
        serde_json::from_slice(&fragstats(&args, tmp.path()).stdout).unwrap();
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert_eq!(sorted(side(&again["random"], "red")), sorted(rr.clone()));
    assert_eq!(again["random"]["seed"], random["seed"]);
    let reds: std::collections::BTreeSet<Vec<String>> = (1..6)
        .map(|seed| {
            let seed = seed.to_string();
            let mut args = vec!["balance", "--config", cfg, "--json", "--seed", &seed];
            args.extend(names);
            let o = fragstats(&args, tmp.path());
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(v["random"]["seed"], seed.parse::<u32>().unwrap());
            sorted(side(&v["random"], "red"))
        })
        .collect();
    assert!(reds.len() >= 3, "--seed barely changes the split: {reds:?}");
    let mut args = vec!["balance", "--config", cfg, "--explain"];
    args.extend(names);
    let o = fragstats(&args, tmp.path());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("random (seed ") && text.contains("random split: P(red wins) = "),
        "{text}"
    );

    let o = fragstats(
        &[
            "balance",
            "--config",
            cfg,
            "--json",
            "--max-swaps",
            "1",
            "--from",
            "red: Sarge, RedDevil, Angelyss; blue: Tanisha, Ayumi, Penguin",
        ],
        tmp.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let swaps = v["swaps"].as_array().unwrap();
    assert!(swaps.len() <= 1, "{v}");
    // The current teams as given, with their p and margin.
    assert_eq!(
        side(&v["current"], "red"),
        ["[OA]Sarge", "RedDevil", "Angelyss"],
        "{v}"
    );
    assert!(v["current"]["p_red_wins"].is_number() && v["current"]["expected_margin"].is_number());
    assert_eq!(side(&v["random"], "red").len(), 3, "{v}");
    for s in swaps {
        assert!(s["to_blue"].is_string() && s["to_red"].is_string() && s["p_red_wins"].is_number());
    }

    for (bad, says) in [
        (vec!["Sarge"], "at least two players"),
        (
            vec!["Sarge", "Grunt", "--lock", "Sarge=green"],
            "unknown side",
        ),
        (
            vec!["Sarge", "Grunt", "--together", "Sarge,Grunt"],
            "must play together",
        ),
        (vec!["Sarge", "ar"], "ambiguous"),
    ] {
        let mut args = vec!["balance", "--config", cfg, "--json"];
        args.extend(bad.iter().copied());
        let o = fragstats(&args, tmp.path());
        assert_eq!(o.status.code(), Some(1), "{bad:?}");
        let err = stderr(&o);
        assert!(
            err.contains(says) && err.lines().count() == 1,
            "{bad:?}: {err}"
        );
        assert!(o.stdout.is_empty());
    }
}

/// Issue 15, swap mode: never more swaps than asked, each reported p is the model's p of the
/// teams after the swaps so far (computed independently by a call that locks every player), and
/// each swap list ends fairer than the start by the minimum gain. With clans: the `clans`,
/// `warnings` and `last_match` keys beside the contract's, and hard conflicts still named.
#[test]
fn balance_swaps_report_the_models_p_and_clan_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("site.toml");
    let logs = common::openarena("");
    std::fs::write(&config, format!("logs = [{:?}]\n", logs.to_string_lossy())).unwrap();
    let cfg = config.to_str().unwrap();
    let o = fragstats(&["build", "--config", cfg], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let json = |args: &[&str]| -> serde_json::Value {
        let mut all = vec!["balance", "--config", cfg, "--json"];
        all.extend(args);
        let o = fragstats(&all, tmp.path());
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let p_of = |red: &[String], blue: &[String]| -> f64 {
        let locks: Vec<String> = red
            .iter()
            .map(|n| format!("{n}=red"))
            .chain(blue.iter().map(|n| format!("{n}=blue")))
            .collect();
        let mut args: Vec<&str> = Vec::new();
        for l in &locks {
            args.extend(["--lock", l.as_str()]);
        }
        let v = json(&args);
        v["p_red_wins"].as_f64().unwrap()
    };
    let names = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect()
    };
    // The strongest bots against the weakest: far from even.
    let from =
        "red: [OA]Sarge, Angelyss, {TDK}Liz, =XiX=Witch; blue: Ayumi, Beret, Gargoyle, =XiX=Grunt";
    let start = json(&["--from", from, "--max-swaps", "0"]);
    let p0 = start["current"]["p_red_wins"].as_f64().unwrap();
    assert!((p0 - 0.5).abs() > 0.1, "{start}");
    assert_eq!(start["swaps"], serde_json::json!([]));
    let mut last_cost = (p0 - 0.5).abs();
    for max in 1..=3usize {
        let m = max.to_string();
        let v = json(&["--from", from, "--max-swaps", &m]);
        let swaps = v["swaps"].as_array().unwrap();
        assert!(!swaps.is_empty() && swaps.len() <= max, "{v}");
        let mut red = names(&v["current"]["red"]);
        let mut blue = names(&v["current"]["blue"]);
        for s in swaps {
            let (out, back) = (
                s["to_blue"].as_str().unwrap().to_string(),
                s["to_red"].as_str().unwrap().to_string(),
            );
            assert!(red.contains(&out) && blue.contains(&back), "{v}");
            red.retain(|n| *n != out);
            blue.retain(|n| *n != back);
            red.push(back);
            blue.push(out);
            let want = p_of(&red, &blue);
            let got = s["p_red_wins"].as_f64().unwrap();
            assert!(
                (got - want).abs() < 1e-12,
                "{max}: swap p {got}, model {want}"
            );
        }
        let end = swaps.last().unwrap()["p_red_wins"].as_f64().unwrap();
        assert!((end - 0.5).abs() + 0.01 <= (p0 - 0.5).abs() + 1e-12);
        assert!(
            (end - 0.5).abs() <= last_cost + 1e-12,
            "more swaps, no worse"
        );
        last_cost = (end - 0.5).abs();
    }

    // Clans: together keeps the pairs, the keys are there, the contract's keys unchanged.
    let lobby = [
        "=XiX=Grunt",
        "=XiX=Witch",
        "[OA]Morgan",
        "[OA]Sarge",
        "{TDK}Kyonshi",
        "{TDK}Liz",
        "Angelyss",
        "Ayumi",
    ];
    let mut args = vec!["--clans", "together", "--avoid-last"];
    args.extend(lobby);
    let v = json(&args);
    for key in [
        "red",
        "blue",
        "p_red_wins",
        "exact",
        "alternatives",
        "abba",
        "unknown",
        "warnings",
        "clans",
        "last_match",
    ] {
        assert!(v.get(key).is_some(), "{key}: {v}");
    }
    assert_eq!(v["clans"]["mode"], "together");
    assert_eq!(v["clans"]["groups"].as_array().unwrap().len(), 3, "{v}");
    let red = names(&v["red"]);
    for pair in lobby[..6].chunks(2) {
        assert_eq!(
            red.contains(&pair[0].to_string()),
            red.contains(&pair[1].to_string()),
            "{v}"
        );
    }
    assert!(v["last_match"]["red"].is_array(), "{v}");
    let mut args = vec!["--clans", "spread"];
    args.extend(lobby);
    let v = json(&args);
    // Spread is a soft rule (2 points a mate by default): each clan's count of mates out of
    // place is reported as defined (a pair on one side has one).
    let red = names(&v["red"]);
    for (pair, group) in lobby[..6]
        .chunks(2)
        .zip(v["clans"]["groups"].as_array().unwrap())
    {
        let same = red.contains(&pair[0].to_string()) == red.contains(&pair[1].to_string());
        assert_eq!(group["out_of_place"], u32::from(same), "{v}");
    }
    // Hard conflicts are still named with clans on.
    let mut args = vec![
        "balance",
        "--config",
        cfg,
        "--json",
        "--clans",
        "together",
        "--together",
        "Ayumi,Angelyss",
        "--apart",
        "Ayumi,Angelyss",
    ];
    args.extend(lobby);
    let o = fragstats(&args, tmp.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("Ayumi and Angelyss must play apart but are kept together"),
        "{}",
        stderr(&o)
    );
    // A bad [balance] value names the key.
    std::fs::write(
        &config,
        format!(
            "logs = [{:?}]\n[balance]\nparty_guard = 0.4\n",
            logs.to_string_lossy()
        ),
    )
    .unwrap();
    let o = fragstats(&["balance", "--config", cfg, "Sarge", "Ayumi"], tmp.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("balance.party_guard"), "{}", stderr(&o));
}

/// The built-in `match.html` prints the kill list from `kills_html` and each scoreboard side
/// from `rows_html`, made in Rust for speed; a site's own template still gets the `kills` rows
/// and each side's `lines`. Both must give the same page, byte for byte: a site whose
/// `match.html` is the built-in one with the old Tera loops over `kills` and `side.lines` is
/// compared with the built-in theme on real logs of every format (weapons, suicides, team kills,
/// names with colour codes and markup). The built-in theme's pages also have their kill list
/// and timeline spliced in after Tera rendered the rest (`render::holes`); the own template's
/// are rendered whole by Tera, so this compares the two ways of rendering too.
#[test]
fn kill_and_score_rows_html_equal_the_template_loops() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = shared();
    let logs = [d.join("openarena"), d.join("public")];
    let builtin = common::build_in(tmp.path(), "builtin", &logs, "");
    let own = tmp.path().join("own");
    std::fs::create_dir_all(own.join("templates")).unwrap();
    let template =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/match.html"))
            .unwrap();
    // The built-in template with its Rust-made rows (`fast`) replaced by the Tera loop.
    let with_loop = |template: &str, fast: &str, looped: &str| {
        assert!(
            template.contains(fast),
            "the built-in match.html prints {fast}"
        );
        template.replace(fast, looped)
    };
    let looped = with_loop(
        &template,
        "{{ m.kills_html | safe }}",
        "{% for k in m.kills %}<tr class=\"{{ k.kind }}\"><td class=\"num\" data-sort=\"{{ k.seconds }}\">{{ k.time }}</td><td>{{ k.killer | safe }}</td><td>{{ k.victim | safe }}</td><td>{{ k.weapon }}</td></tr>\n    {% endfor %}",
    );
    let looped = with_loop(
        &looped,
        "{{ side.rows_html | safe }}",
        "{% for l in side.lines %}<tr><td class=\"num\">{{ l.place }}</td><td>{% if l.url %}<a href=\"{{ root | safe }}{{ l.url | safe }}\">{{ l.name_html | safe }}</a>{% else %}{{ l.name_html | safe }}{% endif %}</td><td class=\"num\">{{ l.score }}</td><td class=\"num\">{{ l.frags }}</td><td class=\"num\">{{ l.deaths }}</td><td class=\"num\">{{ l.suicides }}</td><td class=\"num\">{{ l.team_kills }}</td><td class=\"num\">{{ l.captures }}</td><td class=\"num\">{{ l.best_spree }}</td><td class=\"num {{ l.change_class }}\">{{ l.change }}</td></tr>\n  {% endfor %}",
    );
    std::fs::write(own.join("templates/match.html"), looped).unwrap();
    let own = common::build_in(tmp.path(), "own", &logs, "");
    let mut compared = 0;
    for entry in std::fs::read_dir(builtin.join("matches")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        let a = std::fs::read_to_string(&path).unwrap();
        let b = std::fs::read_to_string(own.join("matches").join(name)).unwrap();
        assert!(a == b, "{} differs", path.display());
        compared += usize::from(a.contains("<tr class=\"frag\">"));
    }
    assert!(compared > 100, "{compared} match pages with kills compared");
}

/// What a page loads when opened: its own bytes plus every script and stylesheet it names
/// (each once), in bytes; the files are resolved from the page's folder.
fn loaded_bytes(page: &Path) -> u64 {
    let text = std::fs::read_to_string(page).unwrap();
    let dir = page.parent().unwrap();
    let mut assets: Vec<&str> = Vec::new();
    for (tag, attr) in [("<script", "src=\""), ("<link", "href=\"")] {
        for (at, _) in text.match_indices(tag) {
            let head = &text[at..];
            let head = &head[..head.find('>').unwrap_or(head.len())];
            if tag == "<link" && !head.contains("stylesheet") {
                continue;
            }
            if let Some(start) = head.find(attr) {
                let rest = &head[start + attr.len()..];
                assets.push(&rest[..rest.find('"').unwrap()]);
            }
        }
    }
    assets.sort_unstable();
    assets.dedup();
    let own = text.len() as u64;
    own + assets
        .iter()
        .map(|a| {
            std::fs::metadata(dir.join(a))
                .unwrap_or_else(|e| panic!("{} loads {a}: {e}", page.display()))
                .len()
        })
        .sum::<u64>()
}

/// Issue 18: on a crowd (about 10,000 names, a server per match, a regular who meets nearly
/// everyone) no page with the scripts and stylesheets it loads outgrows a browser (1 MB here,
/// where the unpaged lists were megabytes), and a search loads one small shard, not the roster.
/// The balancer is the one exception: it resolves any name against every player's skill.
#[test]
fn no_page_of_a_crowd_site_loads_more_than_a_megabyte() {
    const PAGE_BUDGET: u64 = 1 << 20;
    const SEARCH_BUDGET: u64 = 256 << 10;
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("crowd.log");
    std::fs::write(&log, common::crowd::crowd_log(2500, 20_000, 40, 18)).unwrap();
    let out = common::build_in(tmp.path(), "crowd", &[log], "");
    let players = common::json_array(&out, "data/players.json").len();
    assert!(players > 7000, "only {players} players");
    // The whole index would be over the search budget: the crowd is big enough to matter.
    let whole = std::fs::metadata(out.join("data/search-index.js"))
        .unwrap()
        .len();
    assert!(
        whole > SEARCH_BUDGET,
        "the whole index is only {whole} bytes"
    );

    let mut pages = 0;
    let mut largest = (0, String::new());
    for entry in walkdir::WalkDir::new(&out) {
        let entry = entry.unwrap();
        if entry.path().extension().is_none_or(|e| e != "html") {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(&out)
            .unwrap()
            .display()
            .to_string();
        let bytes = loaded_bytes(entry.path());
        pages += 1;
        if rel == "balance.html" {
            continue;
        }
        assert!(bytes <= PAGE_BUDGET, "{rel} loads {bytes} bytes");
        if bytes > largest.0 {
            largest = (bytes, rel);
        }
    }
    assert!(pages > players, "{pages} pages");
    eprintln!(
        "largest page with its assets: {} ({} bytes)",
        largest.1, largest.0
    );

    let meta = std::fs::metadata(out.join("data/search.js")).unwrap().len();
    let shards: Vec<u64> = std::fs::read_dir(out.join("data/search"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .collect();
    assert!(shards.len() > 1, "the index is not sharded");
    let shard = shards.iter().max().unwrap();
    assert!(
        meta + shard <= SEARCH_BUDGET,
        "a search loads {meta} + {shard} bytes"
    );

    // The long lists are paged, not cut: the regular's head to head says how many there are,
    // and every server is on a page of the server list.
    let regular = std::fs::read_to_string(out.join("players/player0.html")).unwrap();
    assert!(
        regular.contains("met most of"),
        "no note of the opponents left out"
    );
    let listed: usize = std::iter::once(out.join("servers.html"))
        .chain(
            std::fs::read_dir(out.join("server-list"))
                .unwrap()
                .map(|e| e.unwrap().path()),
        )
        .map(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .matches("<a href=\"../servers/")
                .count()
        })
        .sum::<usize>()
        + std::fs::read_to_string(out.join("servers.html"))
            .unwrap()
            .matches("<a href=\"servers/")
            .count();
    assert_eq!(listed, 2500, "servers listed on the server list pages");
}

/// `%XX` sequences of a URL query value back to text (as `decodeURIComponent`).
fn uri_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// Issue 15: a team match page links `balance.html` with that match's players (hidden ones and
/// spectators left out; hostile names URI-encoded, the attribute escaped) and `from=` their
/// sides, by the names `data/balance.js` knows them by.
#[test]
fn team_match_page_links_its_players_to_the_balancer() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let names = [
        ("Red,One;+&#=%\u{fc} \u{540d}", 1),
        ("^1Blue\"<b>x'&amp;", 2),
        ("Hidden Guy", 1),
        ("Plain", 2),
        ("Watcher", 3),
        ("Third", 1),
    ];
    let mut log = String::from(
        "  0:00 InitGame: \\g_gametype\\3\\mapname\\q3dm6\\sv_hostname\\test\\g_timestamp\\2026-01-02 03:04:05\n",
    );
    for (i, (n, t)) in names.iter().enumerate() {
        log.push_str(&format!(
            "  0:00 ClientUserinfoChanged: {i} n\\{n}\\t\\{t}\n"
        ));
    }
    for k in 0..12 {
        let (a, b) = [(0, 1), (1, 2), (3, 5), (2, 3)][k % 4];
        log.push_str(&format!(
            "  0:{:02} Kill: {a} {b} 10: x killed y by MOD_RAILGUN\n",
            k + 1
        ));
    }
    log.push_str("  0:30 Exit: Timelimit hit.\n  0:31 ShutdownGame:\n");
    std::fs::write(logs.join("tdm.log"), log).unwrap();
    std::fs::write(
        tmp.path().join("site.toml"),
        "[moderation]\nhide = [\"Hidden Guy\"]\n",
    )
    .unwrap();
    let out = tmp.path().join("site");
    let o = build_site(&out, std::slice::from_ref(&logs), tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let matches = json(&out.join("data/matches.json"));
    let m = &matches.as_array().unwrap()[0];
    assert!(m["predicted_red_win"].is_number(), "{m}");
    let page = std::fs::read_to_string(out.join(m["url"].as_str().unwrap())).unwrap();
    let at = page
        .find("class=\"balance-link\" href=\"")
        .expect("a balance link on the team match page");
    let rest = &page[at + "class=\"balance-link\" href=\"".len()..];
    let href = &rest[..rest.find('"').unwrap()];
    assert!(
        !href.contains(['<', '>', '"', ' ']),
        "the link is encoded: {href}"
    );
    // The attribute as the browser reads it (Tera escapes & and ').
    let href = href
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    let query = href.strip_prefix("../balance.html?").expect(&href);
    let (players, from) = query.split_once("&from=").expect(query);
    let players: Vec<String> = players
        .strip_prefix("players=")
        .unwrap()
        .split(',')
        .map(uri_decode)
        .collect();
    let mut from: Vec<(String, String)> = from
        .split(',')
        .map(|item| {
            let (name, side) = item.rsplit_once(':').unwrap();
            (uri_decode(name), side.to_string())
        })
        .collect();
    let mut expected = vec![
        (
            "Red,One;+&#=%\u{fc} \u{540d}".to_string(),
            "red".to_string(),
        ),
        ("Blue\"<b>x'&amp;".to_string(), "blue".to_string()),
        ("Plain".to_string(), "blue".to_string()),
        ("Third".to_string(), "red".to_string()),
    ];
    let mut listed = players.clone();
    listed.sort();
    let mut want: Vec<String> = expected.iter().map(|(n, _)| n.clone()).collect();
    want.sort();
    assert_eq!(
        listed, want,
        "players of the match, no hidden one, no spectator"
    );
    from.sort();
    expected.sort();
    assert_eq!(from, expected);
    // Every name is one data/balance.js knows (so the page resolves it to that player).
    let data = common::balance_data(&std::fs::read_to_string(out.join("data/balance.js")).unwrap());
    for name in &players {
        assert!(
            data.players.iter().any(|p| p.name == *name),
            "{name:?} in data/balance.js"
        );
    }
    assert!(!page.contains("Hidden Guy"), "a hidden player is not named");
}

/// Issue 15: `--no-avoid-last` turns off what `[balance] avoid_last = true` turns on; the last of
/// `--avoid-last` and `--no-avoid-last` wins.
#[test]
fn balance_no_avoid_last_overrides_the_config() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("site.toml");
    let logs = common::openarena("");
    std::fs::write(
        &config,
        format!(
            "logs = [{:?}]\n[balance]\navoid_last = true\n",
            logs.to_string_lossy()
        ),
    )
    .unwrap();
    let cfg = config.to_str().unwrap();
    let o = fragstats(&["build", "--config", cfg], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let names = ["Tony", "Ayumi", "Beret", "Gargoyle", "Grism", "Merman"];
    let last_match = |flags: &[&str]| -> serde_json::Value {
        let mut args = vec!["balance", "--config", cfg, "--json"];
        args.extend(flags);
        args.extend(names);
        let o = fragstats(&args, tmp.path());
        assert!(o.status.success(), "{flags:?}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["last_match"].clone()
    };
    assert!(last_match(&[]).is_object(), "the config turns it on");
    assert!(last_match(&["--no-avoid-last"]).is_null());
    assert!(last_match(&["--avoid-last", "--no-avoid-last"]).is_null());
    assert!(last_match(&["--no-avoid-last", "--avoid-last"]).is_object());
    let mut args = vec!["balance", "--config", cfg, "--no-avoid-last"];
    args.extend(names);
    let o = fragstats(&args, tmp.path());
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("last match's teams"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// Issue 18 review: a site's own `player.html` written before the ladder and season ranks moved
/// to rank shards prints `l.rank` and `s.rank` as they are; above `rank_shards_above` it must
/// show the same ranks as below it, not every player unranked.
#[test]
fn own_player_template_keeps_ladder_and_season_ranks_with_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = [
        common::openarena("ffa/games-1.log"),
        common::openarena("tdm"),
    ];
    const OWN: &str = "{% extends \"base.html\" %}{% block content %}\
        {% for l in p.ladders %}<i>{{ l.name }}:{{ l.rank }}</i>{% endfor %}\
        {% for s in p.seasons %}<s>{{ s.name }}:{{ s.rank }}/{{ s.ranked }}</s>{% endfor %}\
        {% endblock content %}";
    let ranks = |name: &str, shards: usize| {
        std::fs::create_dir_all(tmp.path().join(name).join("templates")).unwrap();
        std::fs::write(tmp.path().join(name).join("templates/player.html"), OWN).unwrap();
        let config =
            format!("[ladder]\nrank_shards_above = {shards}\n[seasons]\nevery = \"month\"\n");
        let out = common::build_in(tmp.path(), name, &logs, &config);
        let mut found = Vec::new();
        for page in walk(&out.join("players")) {
            let html = std::fs::read_to_string(&page).unwrap();
            let marks: Vec<&str> = ["<i>", "<s>"]
                .iter()
                .flat_map(|tag| html.split(tag).skip(1))
                .filter_map(|m| m.split('<').next())
                .collect();
            found.push(format!(
                "{}: {}",
                page.file_name().unwrap().to_string_lossy(),
                marks.join(" ")
            ));
        }
        found
    };
    let pages = ranks("pages", 1_000_000);
    let shards = ranks("shards", 1);
    assert!(
        pages.iter().any(|p| p.contains(":1 ") || p.ends_with(":1")),
        "some player is first on a ladder: {pages:?}"
    );
    assert_eq!(shards, pages);
}

/// A site whose own `player.html` is the built-in one gets the rows of the head-to-head and
/// match tables in full (its loops print them), where the built-in template prints the markup
/// written in Rust: both make the same pages, byte for byte, and the rows are there.
#[test]
fn own_player_template_loops_over_the_rows_rust_writes_for_the_builtin() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = [common::openarena("ffa/games-1.log")];
    let builtin = common::build_in(tmp.path(), "builtin", &logs, "");
    let own_dir = tmp.path().join("own");
    std::fs::create_dir_all(own_dir.join("templates")).unwrap();
    std::fs::write(
        own_dir.join("templates/player.html"),
        include_str!("../templates/player.html"),
    )
    .unwrap();
    let own = common::build_in(tmp.path(), "own", &logs, "");
    let pages = walk(&builtin.join("players"));
    assert!(!pages.is_empty());
    let mut rows = 0;
    for page in pages {
        let name = page.file_name().unwrap();
        let mine = std::fs::read_to_string(&page).unwrap();
        let theirs = std::fs::read_to_string(own.join("players").join(name)).unwrap();
        assert_eq!(mine, theirs, "{}", name.to_string_lossy());
        rows += mine.matches("<td class=\"num\">").count();
    }
    assert!(
        rows > 100,
        "the pages list opponents and matches: {rows} cells"
    );
}

/// Issue 39: a site built from an empty `logs/` says where the logs go and which are read, on
/// stdout and on its index.
#[test]
fn issue_39_empty_logs_say_where_logs_go() {
    let tmp = tempfile::tempdir().unwrap();
    let o = fragstats(&["init"], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let o = fragstats(&["build"], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains("no matches yet: put your game servers' log files in logs"),
        "{said}"
    );
    for format in ["games.log", "Half-Life", "games_mp.log", "Enemy Territory"] {
        assert!(said.contains(format), "{format} in {said}");
    }
    let index = std::fs::read_to_string(tmp.path().join("public/index.html")).unwrap();
    assert!(index.contains("<h2>No matches yet</h2>"), "{index}");
    assert!(index.contains("<code>logs/</code> beside it"), "{index}");
    assert!(index.contains("Call of Duty games_mp.log"), "{index}");

    // A site with matches has no such hint.
    let out = tmp.path().join("full");
    let o = build_site(&out, &[common::openarena("tdm")], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("no matches yet"));
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(!index.contains("No matches yet"));
}

/// Issue 39: the site ships a favicon, and every page asks for it relatively (so it loads from
/// `file://` and from the pages one folder down).
#[test]
fn issue_39_favicon_is_shipped_and_linked_relatively() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let o = build_site(&out, &[common::openarena("tdm")], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let icon = std::fs::read(out.join("static/favicon.ico")).unwrap();
    assert_eq!(&icon[..4], &[0, 0, 1, 0], "an ICO header");
    let mut pages = 0;
    for path in walk(&out) {
        if path.extension().is_none_or(|e| e != "html") {
            continue;
        }
        let rel = path.strip_prefix(&out).unwrap();
        let up = "../".repeat(rel.components().count() - 1);
        let page = std::fs::read_to_string(&path).unwrap();
        let link = format!("<link rel=\"icon\" href=\"{up}static/favicon.ico\"");
        assert!(page.contains(&link), "{link} in {}", rel.display());
        pages += 1;
    }
    assert!(pages > 10, "{pages} pages");
}

/// The `content` of `<meta property|name="key" content="...">` in `page`.
fn meta<'a>(page: &'a str, key: &str) -> Option<&'a str> {
    let start = page.find(&format!("=\"{key}\" content=\""))? + key.len() + 13;
    let len = page[start..].find('"')?;
    Some(&page[start..start + len])
}

/// Issue 39: a link to the index, a player or a match page previews with its title and what it
/// shows (Open Graph and the description), every value escaped; `og:url` only with `base_url`.
#[test]
fn issue_39_link_previews_escape_hostile_names() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let hostile = "\"Q'<b>x";
    let mut log = String::from(
        "  0:00 InitGame: \\sv_hostname\\Srv\\g_gametype\\4\\mapname\\q3ctf<1>\\g_timestamp\\2026-01-02 03:04:05\n",
    );
    log.push_str(&format!(
        "  0:01 ClientUserinfoChanged: 0 n\\{hostile}\\t\\1\\id\\0123456789ABCDEF0123456789ABCDEF\n"
    ));
    log.push_str("  0:01 ClientUserinfoChanged: 1 n\\Other\\t\\2\n");
    for k in 0..30 {
        let (a, b) = if k % 3 == 0 { (1, 0) } else { (0, 1) };
        log.push_str(&format!(
            "  0:{:02} Kill: {a} {b} 10: x killed y by MOD_RAILGUN\n",
            k + 2
        ));
    }
    log.push_str("  0:40 Exit: Capturelimit hit.\n  0:40 red:3  blue:1\n  0:41 ShutdownGame:\n");
    std::fs::write(logs.join("games.log"), log).unwrap();
    let config = "title = \"Site <&> \\\"t\\\"\"\nbase_url = \"https://stats.example.org\"\nlogs = [\"logs\"]\n";
    std::fs::write(tmp.path().join("site.toml"), config).unwrap();
    let o = fragstats(&["build"], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = tmp.path().join("public");
    let players = json(&out.join("data/players.json"));
    let url = players
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["plain_name"] == hostile)
        .unwrap_or_else(|| panic!("{hostile} in {players}"))["url"]
        .as_str()
        .unwrap()
        .to_string();
    let matches = json(&out.join("data/matches.json"));
    let match_url = matches[0]["url"].as_str().unwrap().to_string();
    let read = |rel: &str| std::fs::read_to_string(out.join(rel)).unwrap();
    let (index, player, game) = (read("index.html"), read(&url), read(&match_url));
    let title = "Site &lt;&amp;&gt; &quot;t&quot;";
    let name = "&quot;Q&#39;&lt;b&gt;x";
    for (page, kind, og_title, words, at) in [
        (
            &index,
            "website",
            title.to_string(),
            vec!["2 players, 1 matches"],
            "index.html",
        ),
        (
            &player,
            "profile",
            format!("{name} · {title}"),
            vec![name, ": rating "],
            url.as_str(),
        ),
        (
            &game,
            "article",
            format!("q3ctf&lt;1&gt;, 2026-01-02 03:04 · {title}"),
            vec!["red 3 : 1 blue", "2026-01-02 03:04"],
            match_url.as_str(),
        ),
    ] {
        let head = &page[..page.find("</head>").unwrap()];
        assert_eq!(meta(head, "og:type"), Some(kind), "{head}");
        assert_eq!(meta(head, "og:title"), Some(og_title.as_str()), "{head}");
        let description = meta(head, "og:description").unwrap();
        assert_eq!(meta(head, "description"), Some(description), "{head}");
        for w in words {
            assert!(description.contains(w), "{w} in {description}");
        }
        assert_eq!(
            meta(head, "og:url"),
            Some(format!("https://stats.example.org/{at}").as_str())
        );
        // Nothing raw: no tag but the page's own, no account id.
        assert!(!head.contains("<b>") && !head.contains("<1>"), "{head}");
        assert!(!page.contains("0123456789ABCDEF"), "{head}");
    }
    let rank = meta(&player, "og:description").unwrap();
    assert!(
        rank.contains("#1 on the ladder") || rank.contains("provisional"),
        "{rank}"
    );

    // Without base_url there is no og:url.
    std::fs::write(tmp.path().join("site.toml"), "logs = [\"logs\"]\n").unwrap();
    let o = fragstats(&["build"], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!read("index.html").contains("og:url"));
    assert!(read("index.html").contains("property=\"og:title\""));
}

/// Issue 39: a short history's chart labels each match number once (plotters' rounded
/// positions gave `#202 #202 #202`).
#[test]
fn issue_39_chart_ticks_do_not_repeat() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    // Undated logs: the curves are drawn over match numbers.
    let o = build_site(&out, &[shared().join("public/q3")], tmp.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let mut checked = 0;
    for path in walk(&out.join("players")) {
        let page = std::fs::read_to_string(&path).unwrap();
        for svg in page.split("<svg class=\"chart\"").skip(1) {
            let svg = &svg[..svg.find("</svg>").unwrap()];
            let labels: Vec<&str> = svg
                .split("text-anchor=\"middle\">")
                .chain(svg.split("text-anchor=\"end\">"))
                .skip(1)
                .filter_map(|s| s.split("</text>").next())
                .filter(|l| l.starts_with('#'))
                .collect();
            let mut unique = labels.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(
                unique.len(),
                labels.len(),
                "{labels:?} in {}",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 5, "{checked} charts");
}

/// A site's own `match.html` that fails to render a match page fails the build with Tera's
/// error, and leaves the site published before as it was (the match pages are made in
/// parallel, each into the list of the site's files: a failed one must not slip through).
#[test]
fn a_match_page_that_fails_to_render_fails_the_build_and_keeps_the_site() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = [Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-logs")];
    let out = common::build_in(tmp.path(), "site", &logs, "");
    let before = common::tree(&out);
    let dir = tmp.path().join("site");
    std::fs::create_dir_all(dir.join("templates")).unwrap();
    std::fs::write(
        dir.join("templates/match.html"),
        "{% extends \"base.html\" %}{% block content %}{{ m.no_such_field.at_all }}{% endblock %}",
    )
    .unwrap();
    let o = common::fragstats(&["build", "--full"], &dir);
    assert!(!o.status.success(), "the build failed");
    let err = common::stderr(&o);
    assert!(err.contains("match.html"), "{err}");
    assert_eq!(
        common::tree(&out),
        before,
        "the site published before is kept"
    );
}
