//! Seasons (issue 17) on the real dated logs in `../shared/data`: the split by date with
//! inclusive bounds, each season's ladder equal to a build on only that season's logs, the
//! carried share of the previous season, and hidden players absent from every season.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::shared;
use serde_json::Value;

/// Dated logs of several games and years, and one undated Quake 3 log.
fn logs() -> Vec<PathBuf> {
    [
        "openarena",
        "public/openarena",
        "public/hl-tf2",
        "public/hl-cs16",
        "public/hl-csgo",
        "public/hl-cs2",
        "public/hl-other",
        "public/q3",
    ]
    .iter()
    .map(|p| shared().join(p))
    .collect()
}

fn build(tmp: &Path, name: &str, logs: &[PathBuf], config: &str) -> PathBuf {
    common::build_in(tmp, name, logs, config)
}

fn json(out: &Path, file: &str) -> Vec<Value> {
    common::json_array(out, file)
}

/// Each season's object in `data/seasons.json`, by name.
fn seasons(out: &Path) -> BTreeMap<String, Value> {
    json(out, "data/seasons.json")
        .into_iter()
        .map(|s| (s["name"].as_str().unwrap().to_string(), s))
        .collect()
}

/// (headline_rating, provisional) by plain name, of `data/players.json` or a season's players.
fn ratings(players: &[Value]) -> BTreeMap<String, (f64, bool)> {
    players
        .iter()
        .map(|p| {
            (
                p["plain_name"].as_str().unwrap().to_string(),
                (
                    p["headline_rating"].as_f64().unwrap(),
                    p["provisional"].as_bool().unwrap(),
                ),
            )
        })
        .collect()
}

/// The day (`YYYY-MM-DD`) of each match of `data/matches.json`; None when undated.
fn days(out: &Path) -> Vec<Option<String>> {
    json(out, "data/matches.json")
        .iter()
        .map(|m| m["start"].as_str().map(|s| s[..10].to_string()))
        .collect()
}

const LISTED: &str = "[[seasons.list]]\nname = \"Podbots day one\"\nstart = \"2013-08-05\"\nend = \"2013-08-05\"\n\
    [[seasons.list]]\nname = \"Podbots later\"\nstart = \"2013-08-06\"\nend = \"2013-08-14\"\n\
    [[seasons.list]]\nname = \"TF2 winter cup\"\nstart = \"2011-01-24\"\nend = \"2011-01-31\"\n\
    [[seasons.list]]\nname = \"Between the rounds\"\nstart = \"2011-01-25\"\nend = \"2011-01-30\"\n\
    [[seasons.list]]\nname = \"Bot night\"\nstart = \"2026-11-22\"\nend = \"2026-11-22\"\n";

#[test]
fn seasons_split_exactly_by_date_with_inclusive_bounds() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = build(tmp.path(), "listed", &logs(), LISTED);
    let days = days(&out);
    let undated = days.iter().filter(|d| d.is_none()).count();
    assert!(undated > 0, "the Quake 3 log has no dates");
    let got = seasons(&out);
    assert_eq!(got.len(), 5);
    for s in got.values() {
        let (start, end) = (s["start"].as_str().unwrap(), s["end"].as_str().unwrap());
        let expected = days
            .iter()
            .flatten()
            .filter(|d| start <= d.as_str() && d.as_str() <= end)
            .count();
        assert_eq!(s["matches"].as_u64().unwrap() as usize, expected, "{s}");
    }
    // Both ends count: the first and last day of a season hold matches.
    let count = |name: &str| got[name]["matches"].as_u64().unwrap();
    assert_eq!(count("Podbots day one"), 3);
    assert_eq!(count("Podbots later"), 2, "the end day (2013-08-14) is in");
    assert_eq!(
        count("TF2 winter cup"),
        3,
        "both 2011-01-24 and 2011-01-31 are in"
    );
    assert_eq!(count("Between the rounds"), 0);
    assert_eq!(count("Bot night"), 75);
    assert!(
        got["Between the rounds"]["players"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    // Oldest first in the JSON; ranks count the ranked players only, from 1.
    let starts: Vec<String> = json(&out, "data/seasons.json")
        .iter()
        .map(|s| s["start"].as_str().unwrap().to_string())
        .collect();
    assert!(starts.windows(2).all(|w| w[0] <= w[1]), "{starts:?}");
    for s in got.values() {
        let ranks: Vec<Value> = s["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["rank"].clone())
            .collect();
        let ranked = ranks.iter().take_while(|r| !r.is_null()).count();
        assert!(ranks[ranked..].iter().all(Value::is_null), "{s}");
        for (i, r) in ranks[..ranked].iter().enumerate() {
            assert_eq!(r.as_u64(), Some(i as u64 + 1), "{s}");
        }
        for p in s["players"].as_array().unwrap() {
            assert_eq!(p["rank"].is_null(), p["provisional"].as_bool().unwrap());
        }
    }

    // The pages: the list, a page per season with a safe slug, the undated matches named.
    let list = std::fs::read_to_string(out.join("seasons.html")).unwrap();
    assert!(
        list.contains(&format!("{undated} matches carry no date")),
        "seasons.html does not say which matches are in no season"
    );
    let page = std::fs::read_to_string(out.join("seasons/bot-night.html")).unwrap();
    assert!(page.contains("Season ladder") && page.contains("Most active"));
    assert!(page.contains("no date and belong to no season"));
    assert!(page.contains("class=\"podium\""));
    // The current season is the latest that has begun; the index shows it beside the ladder.
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        index.contains("href=\"seasons/bot-night.html\""),
        "no current season on the index"
    );
    assert!(
        index.contains("href=\"seasons.html\">Seasons</a>"),
        "no nav link"
    );
    // A player page lists the player's placement in each season.
    let leader = got["Bot night"]["players"][0]["plain_name"]
        .as_str()
        .unwrap()
        .to_string();
    let players = json(&out, "data/players.json");
    let url = players
        .iter()
        .find(|p| p["plain_name"] == leader.as_str())
        .unwrap()["url"]
        .as_str()
        .unwrap()
        .to_string();
    let player = std::fs::read_to_string(out.join(url)).unwrap();
    assert!(
        player.contains("<h2>Seasons</h2>"),
        "{leader}'s page has no seasons"
    );
    assert!(
        player
            .contains("href=\"../seasons/bot-night.html\">Bot night</a></td><td class=\"num\">1 ")
    );

    // Calendar seasons: one per month that holds a dated match, the undated in none.
    let monthly = build(
        tmp.path(),
        "monthly",
        &logs(),
        "[seasons]\nevery = \"month\"\n",
    );
    let mut months: BTreeMap<String, u64> = BTreeMap::new();
    for d in self::days(&monthly).into_iter().flatten() {
        *months.entry(d[..7].to_string()).or_default() += 1;
    }
    let got: BTreeMap<String, u64> = json(&monthly, "data/seasons.json")
        .iter()
        .map(|s| {
            assert!(s["start"].as_str().unwrap().ends_with("-01"), "{s}");
            (
                s["start"].as_str().unwrap()[..7].to_string(),
                s["matches"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, months);
    assert!(monthly.join("seasons/november-2026.html").is_file());

    // Without seasons: no page, no link, an empty seasons.json.
    let plain = build(tmp.path(), "plain", &[common::openarena("tdm")], "");
    assert!(!plain.join("seasons.html").exists());
    assert!(json(&plain, "data/seasons.json").is_empty());
    let index = std::fs::read_to_string(plain.join("index.html")).unwrap();
    assert!(!index.contains("seasons.html"));
}

#[test]
fn a_season_ladder_equals_a_build_on_only_that_seasons_logs() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = build(tmp.path(), "all", &logs(), LISTED);
    let got = seasons(&out);
    for (season, only) in [
        ("Bot night", vec![common::openarena("")]),
        (
            "TF2 winter cup",
            vec![
                shared().join("public/hl-tf2/full_ctfdoublecross.log"),
                shared().join("public/hl-tf2/full_badlands_2halves.log"),
            ],
        ),
    ] {
        let alone = build(tmp.path(), season, &only, "");
        // An account is keyed by the first name it used in the logs of the build (issue 38):
        // each player of the build on the season's logs alone goes by the key of the site's
        // player who was seen under one of its names.
        let site = json(&out, "data/players.json");
        let names = |p: &Value| -> Vec<String> {
            let names = p["names"].as_array().unwrap().iter();
            names.map(|n| n.as_str().unwrap().to_string()).collect()
        };
        let mut alone_players = json(&alone, "data/players.json");
        for p in &mut alone_players {
            let own = names(p);
            let same = site
                .iter()
                .find(|s| names(s).iter().any(|n| own.contains(n)))
                .unwrap_or_else(|| panic!("{season}: {own:?} on the site"));
            p["plain_name"] = same["plain_name"].clone();
        }
        let expected = ratings(&alone_players);
        let season_players = got[season]["players"].as_array().unwrap();
        assert!(season_players.len() > 1, "{season}");
        assert_eq!(ratings(season_players), expected, "{season}");
    }
}

/// The OpenArena logs of `../shared/data` (all played on 2026-11-22) copied to `dir`, those of
/// free-for-all and duel servers moved a month back (only their `g_timestamp` dates change):
/// the same bots then play in two seasons.
fn two_months(dir: &Path) {
    let root = common::openarena("");
    for kind in ["ffa", "duel", "ctf", "tdm"] {
        std::fs::create_dir_all(dir.join(kind)).unwrap();
        for e in std::fs::read_dir(root.join(kind)).unwrap() {
            let p = e.unwrap().path();
            let bytes = std::fs::read(&p).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            let text = match kind {
                "ffa" | "duel" => {
                    text.replace("g_timestamp\\2026-11-22", "g_timestamp\\2026-10-22")
                }
                _ => text.into_owned(),
            };
            std::fs::write(dir.join(kind).join(p.file_name().unwrap()), text).unwrap();
        }
    }
}

#[test]
fn carry_starts_a_season_from_a_share_of_the_previous_one() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = [tmp.path().join("logs")];
    two_months(&logs[0]);
    let monthly = "[seasons]\nevery = \"month\"\n";
    let fresh = seasons(&build(tmp.path(), "fresh", &logs, monthly));
    let carried = seasons(&build(
        tmp.path(),
        "carried",
        &logs,
        &format!("{monthly}carry = 0.5\n"),
    ));
    let (one, two) = ("October 2026", "November 2026");
    assert!(fresh[one]["matches"].as_u64().unwrap() > 10);
    let first = ratings(fresh[one]["players"].as_array().unwrap());
    assert_eq!(first, ratings(carried[one]["players"].as_array().unwrap()));
    let mean = first.values().map(|r| r.0).sum::<f64>() / first.len() as f64;
    let before = ratings(fresh[two]["players"].as_array().unwrap());
    let after = ratings(carried[two]["players"].as_array().unwrap());
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    let mut moved = 0;
    for (name, (rating, provisional)) in &before {
        let expected = match first.get(name) {
            Some((previous, _)) => rating + 0.5 * (previous - mean),
            None => *rating,
        };
        let (got, still) = after[name];
        assert!((got - expected).abs() < 1e-9, "{name}: {got} vs {expected}");
        assert_eq!(
            still, *provisional,
            "{name}: provisional by this season's frags"
        );
        moved += usize::from((got - rating).abs() > 1e-6);
    }
    assert!(
        moved > 5,
        "only {moved} players of {two} carried a rating from {one}"
    );
    // The ladder order follows the carried ratings.
    let order: Vec<f64> = carried[two]["players"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !p["rank"].is_null())
        .map(|p| p["headline_rating"].as_f64().unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] >= w[1]), "{order:?}");
}

#[test]
fn a_hidden_player_is_in_no_season() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = [common::openarena("")];
    let config = "[seasons]\nevery = \"year\"\n";
    let shown = seasons(&build(tmp.path(), "shown", &logs, config));
    let players = shown["2026"]["players"].as_array().unwrap();
    let hidden = players[1]["plain_name"].as_str().unwrap().to_string();
    let out = build(
        tmp.path(),
        "hidden",
        &logs,
        &format!("[moderation]\nhide = [{hidden:?}]\n{config}"),
    );
    let needle = hidden.to_lowercase().into_bytes();
    let mut stack = vec![out.clone()];
    let mut files = 0;
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files += 1;
                let bytes = std::fs::read(&p).unwrap().to_ascii_lowercase();
                assert!(
                    !bytes.windows(needle.len()).any(|w| w == needle.as_slice()),
                    "{hidden} named in {}",
                    p.display()
                );
            }
        }
    }
    assert!(files > 50);
    // The others keep their season ratings (hiding changes no number) and close the gap.
    let season = &seasons(&out)["2026"];
    let mut expected = ratings(players);
    expected.remove(&hidden);
    assert_eq!(ratings(season["players"].as_array().unwrap()), expected);
    assert_eq!(season["players"][1]["rank"], 2);
}
