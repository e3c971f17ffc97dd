//! Heatmaps built by the real binary from real Team Fortress 2 and CS:GO logs, each given the
//! `Loading map` line a server writes at the start of a log (these files, uploaded or cut from a
//! session, lost theirs; a map the log does not name is drawn nowhere): every kill with both
//! positions is in its map's density exactly once (counted by a naive reader of the lines), a
//! known kill lands in the cell worked out by hand from an overview's calibration, the overview
//! is copied and the panels take its size, each match's kills are drawn as lines, and a hidden
//! player's kills still count on the map while no file maps them.

mod common;

use std::path::{Path, PathBuf};

use arrow_array::Array as _;
use serde_json::Value;

/// `log` with a `Loading map "<map>"` line after its first line (its `Log file started`), as a
/// server writes it, into `dir`.
fn with_map_line(log: &Path, map: &str, dir: &Path) -> PathBuf {
    let text = String::from_utf8_lossy(&std::fs::read(log).unwrap()).into_owned();
    let (first, rest) = text.split_once('\n').unwrap();
    let stamp = &first[..first.find(": ").unwrap() + 2];
    let out = dir.join(format!("{map}.log"));
    std::fs::write(
        &out,
        format!("{first}\n{stamp}Loading map \"{map}\"\n{rest}"),
    )
    .unwrap();
    out
}

/// The header of a PNG image of `width` x `height` pixels: all an overview's size is read from.
fn png_header(width: u32, height: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend(width.to_be_bytes());
    png.extend(height.to_be_bytes());
    png.extend([8, 6, 0, 0, 0]);
    png
}

/// Under `dir`: `logs/` holding koth_viaduct's log (with its map line), and a site folder
/// `site/` (with an empty `maps/`) whose site.toml reads them. Returns the two folders.
fn viaduct_site(dir: &Path) -> (PathBuf, PathBuf) {
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let log = common::shared().join("public/hl-tf2/full_kothviaduct.log");
    with_map_line(&log, "koth_viaduct", &logs);
    let site = dir.join("site");
    std::fs::create_dir_all(site.join("maps")).unwrap();
    let toml = format!("logs = [{:?}]\n", logs.display().to_string());
    std::fs::write(site.join("site.toml"), toml).unwrap();
    (logs, site)
}

/// Kill lines whose killer and victim are both players and which give both positions: TF2's
/// `(attacker_position "x y z") (victim_position "x y z")` and CS:GO's `[x y z]` after each
/// player block. A naive reader: no parser of the project's.
fn positioned_kills(log: &Path) -> usize {
    let text = String::from_utf8_lossy(&std::fs::read(log).unwrap()).into_owned();
    let player = |s: &str| s.ends_with('>') && s.matches('<').count() >= 3;
    text.lines()
        .filter(|l| {
            let Some((left, right)) = l.split_once("\" killed \"").or_else(|| {
                l.split_once("] killed \"")
                    .filter(|(a, _)| a.contains("\" ["))
            }) else {
                return false;
            };
            let killer = left.rsplit_once(": \"").map_or("", |(_, k)| k);
            let killer = killer.split("\" [").next().unwrap_or(killer);
            let victim = right.split('"').next().unwrap_or("");
            let tf2 = l.contains("(attacker_position \"") && l.contains("(victim_position \"");
            let cs = l.contains("\" [") && right.contains("\" [");
            player(killer) && player(victim) && killer != victim && (tf2 || cs)
        })
        .count()
}

fn cells_total(cells: &Value) -> u64 {
    cells
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c[2].as_u64().unwrap())
        .sum()
}

#[test]
fn every_positioned_kill_is_binned_once_and_a_known_one_lands_in_its_cell() {
    if !common::has_shared_data() {
        return;
    }
    let public = common::shared().join("public");
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let tf2 = with_map_line(
        &public.join("hl-tf2/full_kothviaduct.log"),
        "koth_viaduct",
        &logs,
    );
    // The bots' CS:GO log names no map: this name is the test's.
    let cs = with_map_line(
        &public.join("hl-csgo/csgo-bots-20140212-1109.log"),
        "de_testbots",
        &logs,
    );
    let expected = [
        ("koth_viaduct", positioned_kills(&tf2)),
        ("de_testbots", positioned_kills(&cs)),
    ];
    assert!(expected.iter().all(|(_, n)| *n > 200), "{expected:?}");

    // An overview of koth_viaduct: 1024 x 1024 pixels at 6 units each, its corner at
    // (-3000, 4000): the whole level.
    let site = tmp.path().join("site");
    std::fs::create_dir_all(site.join("maps")).unwrap();
    let png = png_header(1024, 1024);
    std::fs::write(site.join("maps/koth_viaduct.png"), &png).unwrap();
    std::fs::write(
        site.join("maps/koth_viaduct.txt"),
        "\"koth_viaduct\"\n{\n\t\"pos_x\"\t\"-3000\"\n\t\"pos_y\"\t\"4000\"\n\t\"scale\"\t\"6\"\n}\n",
    )
    .unwrap();
    let out = common::build_in(tmp.path(), "site", std::slice::from_ref(&logs), "");

    let maps = common::json_array(&out, "data/heatmaps.json");
    assert_eq!(maps.len(), 2, "{maps:?}");
    for (name, n) in expected {
        let m = maps.iter().find(|m| m["map"] == name).unwrap();
        assert_eq!(cells_total(&m["kills"]), n as u64, "{name}: kills");
        assert_eq!(cells_total(&m["deaths"]), n as u64, "{name}: deaths");
        let by_side: u64 = (m["sides"].as_array().unwrap().iter())
            .map(|s| cells_total(&s["kills"]))
            .sum();
        assert_eq!(by_side, n as u64, "{name}: each kill is one side's");
        let page =
            std::fs::read_to_string(out.join(format!("maps/{}.html", name.replace('_', "-"))))
                .unwrap();
        assert!(
            page.contains(&format!("{n} kills with positions")),
            "{name}"
        );
    }

    // The overview's grid: 48 cells of 6 * 1024 / 48 = 128 units, from (-3000, 4000) down.
    let viaduct = maps.iter().find(|m| m["map"] == "koth_viaduct").unwrap();
    assert_eq!(
        (viaduct["left"].as_f64(), viaduct["top"].as_f64()),
        (Some(-3000.0), Some(4000.0))
    );
    assert_eq!(viaduct["cell"].as_f64(), Some(128.0));
    assert_eq!(
        (viaduct["columns"].as_u64(), viaduct["rows"].as_u64()),
        (Some(48), Some(48))
    );
    // The log's first kill: GrieVe at (-1152, 1070) kills Barncow at (-2194, -415). By hand:
    // column (−1152 + 3000) / 128 = 14.4, row (4000 − 1070) / 128 = 22.9; the victim's
    // column (−2194 + 3000) / 128 = 6.3, row (4000 + 415) / 128 = 34.5.
    let has = |cells: &Value, col: u64, row: u64| {
        cells
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c[0] == col && c[1] == row)
    };
    let red = (viaduct["sides"].as_array().unwrap().iter())
        .find(|s| s["side"] == "RED")
        .unwrap();
    assert!(has(&red["kills"], 14, 22), "{}", red["kills"]);
    let blue = (viaduct["sides"].as_array().unwrap().iter())
        .find(|s| s["side"] == "BLU")
        .unwrap();
    assert!(has(&blue["deaths"], 6, 34), "{}", blue["deaths"]);
    assert_eq!(
        std::fs::read(out.join("maps/koth-viaduct-overview.png")).unwrap(),
        png,
        "the overview is published as given"
    );
    let panel = std::fs::read_to_string(out.join("maps/koth-viaduct-heat.svg")).unwrap();
    assert!(
        panel.contains("<view id=\"kills-all\" viewBox=\"0 0 1024 1024\"/>"),
        "{}",
        &panel[..200]
    );
    let page = std::fs::read_to_string(out.join("maps/koth-viaduct.html")).unwrap();
    assert!(page.contains("maps/koth-viaduct-overview.png"));
    assert!(page.contains("maps/koth-viaduct-heat.svg#kills-side-red"));

    // Each match's kills as lines in its page, one dot where each victim fell.
    let matches = common::json_array(&out, "data/matches.json");
    let mut drawn = 0;
    for m in &matches {
        let page = std::fs::read_to_string(out.join(m["url"].as_str().unwrap())).unwrap();
        if let Some(at) = page.find("Kills on the map") {
            let svg = &page[at..page[at..].find("</svg>").unwrap() + at];
            drawn += svg.matches("<circle").count();
        }
    }
    assert_eq!(drawn, expected.iter().map(|(_, n)| n).sum::<usize>());

    // The Parquet export's frags carry both positions where the log gave them.
    let export = tmp.path().join("export");
    let o = common::fragstats(
        &[
            "export",
            "--format",
            "parquet",
            "--out",
            export.to_str().unwrap(),
        ],
        &tmp.path().join("site"),
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    let (mut with, mut first) = (0, None);
    for file in common::walk(&export.join("frags")) {
        use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
        let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&file).unwrap());
        for batch in reader.unwrap().build().unwrap() {
            let batch = batch.unwrap();
            let col = |name: &str| {
                let c = batch.column_by_name(name).unwrap();
                c.as_any()
                    .downcast_ref::<arrow_array::Int32Array>()
                    .unwrap()
                    .clone()
            };
            let [kx, ky, vx, vy] = ["killer_x", "killer_y", "victim_x", "victim_y"].map(col);
            for i in 0..batch.num_rows() {
                if kx.is_valid(i) {
                    with += 1;
                    assert!(vx.is_valid(i) && ky.is_valid(i) && vy.is_valid(i));
                    first.get_or_insert((kx.value(i), ky.value(i), vx.value(i), vy.value(i)));
                }
            }
        }
    }
    assert_eq!(with, expected.iter().map(|(_, n)| n).sum::<usize>());
    assert!(first.is_some());

    // A hidden player's kills count on the map; no page maps them.
    let hidden = common::build_in(
        tmp.path(),
        "hidden",
        &[logs],
        "[moderation]\nhide = [\"GRIEVEROCKS GrieVe\"]\n",
    );
    let again = common::json_array(&hidden, "data/heatmaps.json");
    for (a, b) in maps.iter().zip(&again) {
        assert_eq!(cells_total(&a["kills"]), cells_total(&b["kills"]));
    }
    let named: Vec<PathBuf> = common::walk(&hidden)
        .into_iter()
        .filter(|p| p.to_string_lossy().to_lowercase().contains("grieve"))
        .collect();
    assert!(named.is_empty(), "{named:?}");
    for file in common::walk(&hidden) {
        let path = file.to_string_lossy();
        if path.ends_with(".svg") || path.ends_with("heatmaps.json") || path.contains("/matches/") {
            let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).into_owned();
            assert!(!text.contains("GrieVe"), "{path}");
        }
    }
    // Player pages draw their own kills and deaths inline: one fewer with GrieVe hidden.
    let players_heat = |out: &Path| {
        common::walk(&out.join("players"))
            .into_iter()
            .filter(|p| {
                let page = std::fs::read_to_string(p).unwrap_or_default();
                page.contains("kills and dies</h2>")
            })
            .count()
    };
    assert_eq!(players_heat(&hidden) + 1, players_heat(&out));
    assert!(players_heat(&hidden) > 0);
    let own = std::fs::read_to_string(out.join("players/grieverocks-grieve.html")).unwrap();
    assert!(own.contains("GRIEVEROCKS GrieVe on koth_viaduct: where the kills were made"));
}

/// Logs without positions (the OpenArena bots) have no heatmap and an empty `data/heatmaps.json`.
#[test]
fn logs_without_positions_have_no_heatmap() {
    let tmp = tempfile::tempdir().unwrap();
    let out = common::build_in(tmp.path(), "oa", &[common::openarena("duel")], "");
    assert!(common::json_array(&out, "data/heatmaps.json").is_empty());
    let heat: Vec<PathBuf> = (common::walk(&out).into_iter())
        .filter(|p| p.to_string_lossy().contains("-heat"))
        .collect();
    assert!(heat.is_empty(), "{heat:?}");
}

/// An incremental build equals a full one when heatmaps change under pages that did not: a
/// second match on the same map widens its grid, then the admin adds an overview; the match
/// pages already written must be drawn in the new frame, as a full build draws them.
#[test]
fn incremental_builds_redraw_kill_maps_when_the_map_frame_changes() {
    if !common::has_shared_data() {
        return;
    }
    let public = common::shared().join("public");
    let tmp = tempfile::tempdir().unwrap();
    let (logs, site) = viaduct_site(tmp.path());
    let build = |dir: &Path, extra: &[&str]| {
        let mut args = vec!["build"];
        args.extend_from_slice(extra);
        let o = common::fragstats(&args, dir);
        assert!(o.status.success(), "{}", common::stderr(&o));
    };
    build(&site, &[]);
    // Another match on the map, whose kills reach beyond the first one's: the grid widens.
    let second = with_map_line(
        &public.join("hl-tf2/full_1123dwidgranary.log"),
        "koth_viaduct",
        tmp.path(),
    );
    std::fs::rename(&second, logs.join("second.log")).unwrap();
    build(&site, &[]);
    // Then an overview.
    std::fs::create_dir_all(site.join("maps")).unwrap();
    let png = png_header(1024, 1024);
    std::fs::write(site.join("maps/koth_viaduct.png"), &png).unwrap();
    std::fs::write(
        site.join("maps/koth_viaduct.txt"),
        "\"pos_x\" \"-3000\"\n\"pos_y\" \"4000\"\n\"scale\" \"6\"\n",
    )
    .unwrap();
    build(&site, &[]);
    // The same folder built from nothing.
    let full = tmp.path().join("full");
    std::fs::create_dir_all(&full).unwrap();
    std::fs::copy(site.join("site.toml"), full.join("site.toml")).unwrap();
    std::fs::create_dir_all(full.join("maps")).unwrap();
    for name in ["koth_viaduct.png", "koth_viaduct.txt"] {
        std::fs::copy(site.join("maps").join(name), full.join("maps").join(name)).unwrap();
    }
    build(&full, &["--full"]);
    let (a, b) = (
        common::tree(&site.join("public")),
        common::tree(&full.join("public")),
    );
    // A match's number is the order it was first read in, which differs between reading the
    // logs one build at a time and all at once: everything else is the same.
    let unnumbered = |bytes: Option<&Vec<u8>>| {
        let text = String::from_utf8_lossy(bytes.map_or(&[][..], |b| b.as_slice())).into_owned();
        text.lines()
            .filter(|l| !l.trim_start().starts_with("\"number\":"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let differ: Vec<&String> = (a.keys().chain(b.keys()))
        .filter(|k| unnumbered(a.get(*k)) != unnumbered(b.get(*k)))
        .collect();
    assert!(
        differ.is_empty(),
        "incremental and full builds differ: {differ:?}"
    );
    let overview = a.keys().any(|k| k.ends_with("koth-viaduct-overview.png"));
    assert!(overview, "the overview is published");
}

/// An overview that leaves kills outside its image says so, on the terminal and on the page;
/// one too tall, too large or calibrated wrong is refused with its reason, and the map is drawn
/// without it.
#[test]
fn overviews_that_do_not_fit_are_named() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (_, site) = viaduct_site(tmp.path());
    let png = png_header;
    let build = |txt: &str, image: Vec<u8>| -> (String, String) {
        std::fs::write(site.join("maps/koth_viaduct.txt"), txt).unwrap();
        std::fs::write(site.join("maps/koth_viaduct.png"), image).unwrap();
        let o = common::fragstats(&["build", "--full"], &site);
        assert!(o.status.success(), "{}", common::stderr(&o));
        let page = std::fs::read_to_string(site.join("public/maps/koth-viaduct.html")).unwrap();
        (common::stderr(&o), page)
    };
    // The image covers x from -1500: the kills west of it are not drawn.
    let (err, page) = build(
        "\"pos_x\" \"-1500\"\n\"pos_y\" \"4000\"\n\"scale\" \"6\"\n",
        png(1024, 1024),
    );
    assert!(err.contains("fall outside its overview image"), "{err}");
    assert!(page.contains("kills fell outside the overview image and are not drawn"));
    for (txt, image, why) in [
        (
            "\"pos_x\" \"-3000\"\n\"pos_y\" \"4000\"\n\"scale\" \"6\"\n",
            png(1, 16384),
            "at most 4 times",
        ),
        (
            "\"pos_x\" \"-3000\"\n\"pos_y\" \"4000\"\n\"scale\" \"6\"\n",
            png(20000, 20000),
            "at most 16384",
        ),
        (
            "\"pos_x\" \"-3000\"\n\"pos_y\" \"4000\"\n\"scale\" \"0\"\n",
            png(1024, 1024),
            "above 0",
        ),
        (
            "\"pos_x\" \"-3000\"\n\"pos_y\" \"4000\"\n",
            png(1024, 1024),
            "no \"scale\"",
        ),
    ] {
        let (err, page) = build(txt, image);
        assert!(
            err.contains("overview of koth_viaduct not used") && err.contains(why),
            "{err}"
        );
        assert!(!page.contains("koth-viaduct-overview.png"), "{why}");
        let maps = common::json_array(&site.join("public"), "data/heatmaps.json");
        assert!(maps[0]["rows"].as_u64().unwrap() <= 48, "{why}");
    }
}
