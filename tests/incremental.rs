//! Incremental builds: random sequences of log uploads (appends in chunks cut mid-line and
//! mid-match, new files, rotations, duplicate uploads, deletions, an old log arriving last) must
//! give exactly the bytes of a full build of the same files; a build killed at any moment must
//! leave a usable site and state, and the next build must be right.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::{Command, Output};

use common::{fragstats, shared_log as shared, tree};

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// A site folder with two configs over the same logs: `site.toml` (incremental, the default
/// state) and `full/site.toml` (its own state folder, always built with --full).
struct Site {
    dir: tempfile::TempDir,
}

impl Site {
    fn new() -> Site {
        Site::with_config("")
    }

    /// A site whose two configs end with `extra` (TOML lines).
    fn with_config(extra: &str) -> Site {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("logs")).unwrap();
        std::fs::create_dir_all(dir.path().join("full")).unwrap();
        std::fs::write(
            dir.path().join("site.toml"),
            format!("logs = [\"logs\"]\n{extra}"),
        )
        .unwrap();
        std::fs::write(
            dir.path().join("full/site.toml"),
            format!("logs = [\"../logs\"]\noutput = \"public\"\nstate = \".state\"\n{extra}"),
        )
        .unwrap();
        Site { dir }
    }

    fn logs(&self) -> PathBuf {
        self.dir.path().join("logs")
    }

    fn build(&self) -> Output {
        fragstats(&["build"], self.dir.path())
    }

    /// Builds incrementally and fully and compares the two sites byte for byte; returns the
    /// incremental build's report of how it read the logs and replayed the ratings.
    fn check(&self, step: &str) -> String {
        let inc = self.build();
        assert!(
            inc.status.success(),
            "{step}: {}",
            String::from_utf8_lossy(&inc.stderr)
        );
        // Beside the site only the next build's staging folder stays: no staging or old site.
        let beside: Vec<String> = std::fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".public."))
            .collect();
        assert!(
            beside.iter().all(|n| n == ".public.next"),
            "{step}: left beside the site: {beside:?}"
        );
        let how = String::from_utf8_lossy(&inc.stderr)
            .lines()
            .filter(|l| l.starts_with("logs: ") || l.starts_with("ratings: "))
            .collect::<Vec<_>>()
            .join("\n");
        self.same_as_full(step);
        how
    }

    /// Builds the same logs with `--full` into a site of its own and compares it with the
    /// incremental site byte for byte.
    fn same_as_full(&self, step: &str) {
        let full = fragstats(
            &["build", "--full", "--config", "full/site.toml"],
            self.dir.path(),
        );
        assert!(
            full.status.success(),
            "{step}: {}",
            String::from_utf8_lossy(&full.stderr)
        );
        let a = tree(&self.dir.path().join("public"));
        let b = tree(&self.dir.path().join("full/public"));
        let names_a: Vec<&String> = a.keys().collect();
        let names_b: Vec<&String> = b.keys().collect();
        assert_eq!(names_a, names_b, "{step}: different files");
        for (name, bytes) in &a {
            assert!(
                bytes == &b[name],
                "{step}: {name} differs from a full build"
            );
        }
    }
}

const SOURCES: [&str; 6] = [
    "openarena/ffa/games-1.log",
    "openarena/ctf/games-2.log",
    "openarena/tdm/games.log",
    "openarena/duel/games-oa_minia.log",
    "public/q3/qgames-challenge.log",
    "public/urt/urt41-agea-tdm.log",
];

/// An upload in progress: the file being written and how much of its source is there.
struct Upload {
    name: String,
    source: Vec<u8>,
    written: usize,
}

/// Runs `steps` random uploads, checking every build; returns how many builds resumed the
/// rating replay and replayed new matches after it.
fn random_uploads(sources: &[&str], seed: u64, steps: usize, config: &str) -> usize {
    let site = Site::with_config(config);
    let mut rng = Rng(seed);
    let mut uploads: Vec<Upload> = Vec::new();
    let mut next_name = 0;
    let mut resumed = 0;
    let mut ratings_resumed = 0;
    for step in 0..steps {
        let action = rng.below(10);
        let label;
        match action {
            // Append a chunk, cut anywhere (mid-line, mid-match).
            0..=4 if !uploads.is_empty() => {
                let u = rng.below(uploads.len());
                let up = &mut uploads[u];
                let chunk = 1 + rng.below(up.source.len() / 3 + 1);
                let end = (up.written + chunk).min(up.source.len());
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(site.logs().join(&up.name))
                    .unwrap();
                std::io::Write::write_all(&mut f, &up.source[up.written..end]).unwrap();
                up.written = end;
                label = format!("append {} bytes to {}", chunk, up.name);
            }
            // Rotation: the file is replaced by the start of another log.
            5 if !uploads.is_empty() => {
                let u = rng.below(uploads.len());
                let source = shared(sources[rng.below(sources.len())]);
                let written = rng.below(source.len());
                std::fs::write(site.logs().join(&uploads[u].name), &source[..written]).unwrap();
                uploads[u].source = source;
                uploads[u].written = written;
                label = format!("rotate {}", uploads[u].name);
            }
            // The same log uploaded twice under another name.
            6 if !uploads.is_empty() => {
                let u = rng.below(uploads.len());
                let name = format!("copy-{next_name}.log");
                next_name += 1;
                std::fs::copy(site.logs().join(&uploads[u].name), site.logs().join(&name)).unwrap();
                label = format!("duplicate {} as {name}", uploads[u].name);
            }
            // A log deleted.
            7 if uploads.len() > 1 => {
                let u = rng.below(uploads.len());
                let up = uploads.remove(u);
                std::fs::remove_file(site.logs().join(&up.name)).unwrap();
                label = format!("delete {}", up.name);
            }
            // A new log; sometimes an old one that sorts first ("a-") arriving last.
            _ => {
                let source = shared(sources[rng.below(sources.len())]);
                let prefix = if rng.below(3) == 0 { "a-old" } else { "server" };
                let name = format!("{prefix}-{next_name}.log");
                next_name += 1;
                let written = if rng.below(2) == 0 {
                    source.len()
                } else {
                    rng.below(source.len())
                };
                std::fs::write(site.logs().join(&name), &source[..written]).unwrap();
                label = format!("new {name} ({written} bytes)");
                uploads.push(Upload {
                    name,
                    source,
                    written,
                });
            }
        }
        let how = site.check(&format!("seed {seed} step {step}: {label}"));
        if !how.contains(" 0 read from their checkpoint") {
            resumed += 1;
        }
        if how.contains("ratings: resumed after match") && !how.contains("replayed 0 new") {
            ratings_resumed += 1;
        }
    }
    assert!(
        resumed > 0,
        "seed {seed}: no build resumed from a checkpoint"
    );

    // Finish every upload: the incremental result must still equal a full build.
    for up in &uploads {
        std::fs::write(site.logs().join(&up.name), &up.source).unwrap();
    }
    let _ = site.check(&format!("seed {seed}: all uploads complete"));
    ratings_resumed
}

/// What a community configures (issue 17), all at once.
const COMMUNITY: &str = "[moderation]\nhide = [\"Grism\"]\nexclude = [\"^1Red^7Devil\"]\n\
    [ladder]\ninactive_after_days = 0\n\
    [[divisions]]\nname = \"Gold\"\ntop_percent = 20\n[[divisions]]\nname = \"Silver\"\n\
    [[servers]]\nname = \"Main\"\nlogs = [\"logs/server-1.log\", \"../logs/server-1.log\"]\n\
    [seasons]\ncarry = 0.5\n[[seasons.list]]\nname = \"Autumn\"\nstart = \"2026-09-01\"\n\
    end = \"2026-11-22\"\n[[seasons.list]]\nname = \"Late 2026\"\nstart = \"2026-11-22\"\n\
    end = \"2026-12-31\"\n";

#[test]
fn random_uploads_with_a_community_config_give_the_full_build_bytes() {
    if !common::has_shared_data() {
        return;
    }
    random_uploads(&SOURCES, 5, 10, COMMUNITY);
}

#[test]
fn random_uploads_give_the_full_build_bytes() {
    if !common::has_shared_data() {
        return;
    }
    let ratings_resumed: usize = [1, 7, 42]
        .iter()
        .map(|&seed| random_uploads(&SOURCES, seed, 14, ""))
        .sum();
    assert!(
        ratings_resumed > 0,
        "no build resumed the rating replay with new matches"
    );
}

/// Issue 16: Call of Duty and Enemy Territory logs growing, rotated and copied (cut anywhere,
/// also before the lines that tell their format apart) build the same site as a full build.
#[test]
fn random_uploads_of_cod_and_et_logs_give_the_full_build_bytes() {
    if !common::has_shared_data() {
        return;
    }
    let sources = [
        "public/cod/iw4x-mw2-hidenseek-games_mp.log",
        "public/cod/cod4-iclan-svr-games_mp.log",
        "public/et/etl-bobot-etconsole.log",
    ];
    for seed in [3, 11] {
        random_uploads(&sources, seed, 10, "");
    }
}

/// Modification times of the player pages of a site.
fn player_page_times(site: &Site) -> BTreeMap<String, std::time::SystemTime> {
    std::fs::read_dir(site.dir.path().join("public/players"))
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, e.metadata().unwrap().modified().unwrap())
        })
        .collect()
}

/// Issue 18: a public-server crowd (thousands of names, most seen once) growing by one match
/// at a time. Each append resumes the rating replay and keeps the pages whose template context
/// did not change; every step must give the bytes of a full build. The crowd is over
/// `rank_shards_above`, so the pages load their ranks from `data/ranks/`: one match no longer
/// rewrites the pages of everyone whose headline or Becker rank moved (about 90% of the pages
/// here without shards; a twin site without shards measures it). The headline is Glicko-2,
/// which moves only the match's players; what still changes on this small crowd is mostly the
/// static (outside core) percentage, a global least-squares fit.
#[test]
fn a_crowd_growing_one_match_at_a_time_gives_the_full_build_bytes() {
    if !common::has_shared_data() {
        return;
    }
    let glicko = "[rating.headline]\nsystem = \"glicko2\"\n";
    grow_a_crowd(glicko, &common::crowd::crowd_log(300, 3_000, 20, 18));
}

/// As above, with two game type ladders (free for all and duel) and monthly seasons: the pages'
/// ranks on each ladder and in each season (and the season's count of ranked players) come
/// from the shards too, so they do not make one match rewrite the pages either.
#[test]
fn a_crowd_with_ladders_and_seasons_keeps_those_ranks_in_shards() {
    if !common::has_shared_data() {
        return;
    }
    let config = "[rating.headline]\nsystem = \"glicko2\"\n[seasons]\nevery = \"month\"\n";
    let log =
        common::crowd::with_ladders_and_dates(&common::crowd::crowd_log(300, 3_000, 20, 18), 7);
    let page = grow_a_crowd(config, &log);
    // A regular's page: places on both ladders and in three seasons, all from the shard.
    assert!(page.contains("data-rank=\"ladder\" data-k=\"1\""), "{page}");
    assert!(page.contains("data-rank=\"season\" data-k=\"2\""), "{page}");
    assert!(!page.contains(">of "), "a season's count in the page");
}

/// Issue 41: past 512 counted matches the counts' lines go to a file without a name in the
/// state folder, those a build resumes from its checkpoint included. A history longer than two
/// such blocks, grown by two uploads of a match each and one of newcomers who renumber every
/// player (each resuming the first build's checkpoint), gives the full build's bytes each time.
#[test]
fn a_history_past_a_block_of_counts_grows_to_the_full_build_bytes() {
    let log = common::crowd::crowd_log(1_100, 400, 12, 29);
    let starts = game_starts(&log);
    assert_eq!(starts.len(), 1_100);
    let site = Site::new();
    let path = site.logs().join("games.log");
    std::fs::write(&path, &log[..starts[1_098]]).unwrap();
    let how = site.check("the first 1,098 matches");
    assert!(how.contains("replayed all 1098 matches"), "{how}");
    for (n, end) in [starts[1_099], log.len()].into_iter().enumerate() {
        std::fs::write(&path, &log[..end]).unwrap();
        let how = site.check(&format!("match {} appended", 1_099 + n));
        let resumed = format!("resumed after match 1098, replayed {} new", n + 1);
        assert!(how.contains(&resumed), "{how}");
    }
    // A newcomer whose name sorts first renumbers every player (and rewrites every line).
    let newcomer = log[starts[1_099]..].replace("Player", "Aaa");
    std::fs::write(&path, format!("{log}{newcomer}")).unwrap();
    let how = site.check("a match of newcomers appended");
    assert!(
        how.contains("resumed after match 1098, replayed 3 new"),
        "{how}"
    );
}

/// Issue 41: a log that is never rotated is written into the state a segment of 2,048 matches
/// at a time while it is read, not held whole to its end. A 10 MB log past one segment, read
/// whole then grown, gives the full build's bytes each time, and the state holds its segments.
#[test]
fn a_log_past_a_segment_is_stored_as_it_is_read_and_grows_to_the_full_build_bytes() {
    let log = common::crowd::crowd_log(2_200, 400, 60, 31);
    let starts = game_starts(&log);
    // Read in pieces side by side (past twice their 4 MiB), so settled a window at a time.
    assert!(starts[2_150] > 9 << 20, "{} bytes", starts[2_150]);
    let site = Site::new();
    let path = site.logs().join("games.log");
    std::fs::write(&path, &log[..starts[2_150]]).unwrap();
    let how = site.check("the first 2,150 matches");
    assert!(how.contains("replayed all 2150 matches"), "{how}");
    let segments = || {
        std::fs::read_dir(site.dir.path().join(".fragstats/files"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "seg")
            })
            .count()
    };
    assert_eq!(segments(), 2, "a full segment and the rest");
    std::fs::write(&path, &log).unwrap();
    let how = site.check("50 matches appended");
    assert!(how.contains("replayed 50 new"), "{how}");
}

/// Builds the first games of `log` with `config` over `rank_shards_above`, then appends its
/// last three games one at a time, checking each step against a full build, and that it
/// rewrites far fewer player pages than a twin site without shards. Returns the last page of
/// `Player0`.
fn grow_a_crowd(config: &str, log: &str) -> String {
    let site = Site::with_config(&format!("{config}[ladder]\nrank_shards_above = 100\n"));
    let twin = Site::with_config(config);
    let starts = game_starts(log);
    let cut = starts[starts.len() - 4];
    let path = site.logs().join("games.log");
    std::fs::write(&path, &log[..cut]).unwrap();
    std::fs::write(twin.logs().join("games.log"), &log[..cut]).unwrap();
    assert!(twin.build().status.success());
    let how = site.check("the first 296 games");
    assert!(how.contains("ratings: replayed all 296 matches"), "{how}");
    let ends = starts[starts.len() - 3..]
        .iter()
        .copied()
        .chain([log.len()]);
    assert!(site.dir.path().join("public/data/ranks/00.js").exists());
    let mut from = cut;
    for (n, end) in ends.enumerate() {
        let before = player_page_times(&site);
        let twin_before = player_page_times(&twin);
        // Rewritten pages get a later modification time than the kept ones.
        std::thread::sleep(std::time::Duration::from_millis(20));
        for logs in [site.logs(), twin.logs()] {
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(logs.join("games.log"))
                .unwrap();
            std::io::Write::write_all(&mut f, &log.as_bytes()[from..end]).unwrap();
        }
        from = end;
        assert!(twin.build().status.success());
        let how = site.check(&format!("game {} appended", 297 + n));
        // A tail this short keeps the first build's checkpoint (see `CheckpointRule`).
        assert!(
            how.contains(&format!(
                "ratings: resumed after match 296, replayed {} new",
                n + 1
            )),
            "{how}"
        );
        let changed = |before: &BTreeMap<_, _>, after: &BTreeMap<String, _>| -> BTreeSet<String> {
            after
                .iter()
                .filter(|(name, t)| before.get(*name) != Some(*t))
                .map(|(name, _)| name.clone())
                .collect()
        };
        let rewritten = changed(&before, &player_page_times(&site));
        let twin_rewritten = changed(&twin_before, &player_page_times(&twin));
        eprintln!(
            "game {}: {} player pages rewritten with rank shards, {} without",
            297 + n,
            rewritten.len(),
            twin_rewritten.len()
        );
        // Only pages whose text besides the ranks changed are rewritten, and the ranks alone
        // moved many more.
        assert!(
            rewritten.is_subset(&twin_rewritten),
            "{:?}",
            rewritten.difference(&twin_rewritten).collect::<Vec<_>>()
        );
        assert!(
            rewritten.len() + 100 < twin_rewritten.len(),
            "game {}: {} player pages rewritten with rank shards, {} without",
            297 + n,
            rewritten.len(),
            twin_rewritten.len()
        );
    }
    std::fs::read_to_string(site.dir.path().join("public/players/player0.html")).unwrap()
}

#[test]
fn unchanged_pages_keep_their_time_and_state_survives_damage() {
    if !common::has_shared_data() {
        return;
    }
    let site = Site::new();
    let log = shared("openarena/tdm/games.log");
    let half = log.len() / 2;
    std::fs::write(site.logs().join("games.log"), &log[..half]).unwrap();
    assert!(site.build().status.success());
    let ranking = site.dir.path().join("public/maps.html");
    let t0 = std::fs::metadata(&ranking).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(30));
    let again = site.build();
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains(" 0 written"),
        "nothing changed, nothing written: {err}"
    );
    assert_eq!(std::fs::metadata(&ranking).unwrap().modified().unwrap(), t0);

    // Pages the admin deleted from the site are made again, though nothing they are made from
    // changed.
    let public = site.dir.path().join("public");
    let player = std::fs::read_dir(public.join("players"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "html"))
        .unwrap();
    let deleted = [player, public.join("maps.html")];
    let bytes: Vec<Vec<u8>> = deleted.iter().map(|p| std::fs::read(p).unwrap()).collect();
    // With the spare staging folder kept between builds, then without it (as after a build
    // that was killed, or an output on another filesystem than the state).
    let spare = site.dir.path().join(".fragstats/public.next");
    assert!(spare.is_dir());
    for without_spare in [false, true] {
        std::fs::remove_file(&deleted[0]).unwrap();
        std::fs::remove_file(&deleted[1]).unwrap();
        if without_spare {
            std::fs::remove_dir_all(&spare).unwrap();
        }
        let again = site.build();
        let err = String::from_utf8_lossy(&again.stderr);
        assert!(again.status.success(), "{err}");
        for (path, was) in deleted.iter().zip(&bytes) {
            let now = std::fs::read(path);
            assert!(
                now.as_ref().ok() == Some(was),
                "{} {without_spare}",
                path.display()
            );
        }
    }

    // A damaged state file: a warning and a full read, never a wrong site.
    std::fs::write(site.dir.path().join(".fragstats/state.bin"), b"\x01garbage").unwrap();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(site.logs().join("games.log"))
        .unwrap();
    std::io::Write::write_all(&mut f, &log[half..]).unwrap();
    let o = site.build();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && err.contains("warning: state file is damaged"),
        "{err}"
    );
    let _ = site.check("after a damaged state");

    // A damaged per-log state file and a damaged rating checkpoint: that log is read again and
    // the ratings replayed from the first match, and the site is still right.
    let (files, segments): (Vec<_>, Vec<_>) =
        std::fs::read_dir(site.dir.path().join(".fragstats/files"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .partition(|p| p.extension().is_some_and(|e| e == "bin"));
    assert_eq!(files.len(), 1, "one per-log file per log");
    assert!(
        segments
            .iter()
            .all(|p| p.extension().is_some_and(|e| e == "seg")),
        "beside it, only the segments of its settled matches: {segments:?}"
    );
    std::fs::write(&files[0], b"\x00\x01damaged").unwrap();
    std::fs::write(site.dir.path().join(".fragstats/ratings.bin"), b"damaged").unwrap();
    let how = site.check("after a damaged per-log file and checkpoint");
    assert!(
        how.contains("1 read whole") && how.contains("ratings: replayed all"),
        "{how}"
    );

    // A new title changes every page, kept ones included.
    for toml in ["site.toml", "full/site.toml"] {
        let path = site.dir.path().join(toml);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("title = \"Renamed\"\n{text}")).unwrap();
    }
    let _ = site.check("after a title change");
    let page = std::fs::read_to_string(site.dir.path().join("public/index.html")).unwrap();
    assert!(page.contains("Renamed"));
}

#[test]
fn killed_builds_leave_a_usable_site_and_state() {
    if !common::has_shared_data() {
        return;
    }
    let site = Site::new();
    let mut rng = Rng(99);
    std::fs::write(
        site.logs().join("a.log"),
        shared("openarena/ffa/games-2.log"),
    )
    .unwrap();
    assert!(site.build().status.success());
    let sources = [
        "openarena/ctf/games-1.log",
        "openarena/ffa/games-3.log",
        "public/urt/urt43-lan-rodov.log",
    ];
    for (round, src) in sources.iter().enumerate() {
        std::fs::write(site.logs().join(format!("b{round}.log")), shared(src)).unwrap();
        for _ in 0..4 {
            let mut child = Command::new(env!("CARGO_BIN_EXE_fragstats"))
                .arg("build")
                .current_dir(site.dir.path())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            std::thread::sleep(std::time::Duration::from_millis(rng.below(120) as u64));
            let _ = child.kill(); // SIGKILL
            let _ = child.wait();
            // Whatever the moment, the published site is complete and readable.
            let public = site.dir.path().join("public");
            assert!(
                public.join("index.html").is_file(),
                "round {round}: no site"
            );
            let players: serde_json::Value =
                serde_json::from_slice(&std::fs::read(public.join("data/players.json")).unwrap())
                    .unwrap();
            assert!(players.as_array().is_some_and(|p| !p.is_empty()));
        }
        let _ = site.check(&format!("after killed builds, round {round}"));
    }
}

/// `GET path` on 127.0.0.1:port, the body or None.
fn http_get(port: u16, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").ok()?;
    let mut response = String::new();
    s.read_to_string(&mut response).ok()?;
    response.starts_with("HTTP/1.").then_some(response)
}

/// Polls until `check` holds for the served index page, for at most 15 s.
fn wait_for(port: u16, check: impl Fn(&str) -> bool) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while std::time::Instant::now() < deadline {
        if http_get(port, "/").is_some_and(|page| check(&page)) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    false
}

#[test]
fn serve_previews_and_rebuilds_on_upload() {
    let site = Site::new();
    let log = shared("openarena/tdm/games.log");
    std::fs::write(site.logs().join("g.log"), &log[..100_000]).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_fragstats"))
        .args(["serve", "--port", &port.to_string()])
        .current_dir(site.dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let first = wait_for(port, |p| p.contains("<b>4</b> matches"));
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(site.logs().join("g.log"))
        .unwrap();
    std::io::Write::write_all(&mut f, &log[100_000..]).unwrap();
    drop(f);
    let second = wait_for(port, |p| p.contains("<b>5</b> matches"));
    let escape = http_get(port, "/../site.toml").unwrap_or_default();
    let _ = child.kill();
    let _ = child.wait();
    assert!(first, "the site was not served");
    assert!(second, "no rebuild after the upload");
    assert!(
        escape.starts_with("HTTP/1.1 404") || escape.starts_with("HTTP/1.0 404"),
        "{escape}"
    );
}

/// With the output inside a web root (`www/stats`), the spare staging folder kept between
/// builds lives in the state folder, never in the web root.
#[cfg(target_os = "linux")]
#[test]
fn spare_folder_stays_out_of_the_web_root() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("logs")).unwrap();
    std::fs::write(
        dir.path().join("logs/games.log"),
        shared("openarena/tdm/games.log"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("site.toml"),
        "logs = [\"logs\"]\noutput = \"www/stats\"\n",
    )
    .unwrap();
    for _ in 0..2 {
        let o = fragstats(&["build"], dir.path());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let in_root: Vec<String> = std::fs::read_dir(dir.path().join("www"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(in_root, ["stats"]);
    assert!(dir.path().join(".fragstats/stats.next").is_dir());
}

/// Issue 18: a page is kept only when nothing it shows changed. Alpha plays the first match
/// only; the appended match, without Alpha, recolours Alpha's opponent's name (same player,
/// `^1Bravo` then `^4Bravo`) and moves the ratings and ranks Alpha's page shows beside it.
/// Alpha's page must be made again, as a full build makes it.
#[test]
fn a_page_changes_when_only_what_it_shows_of_others_changes() {
    let site = Site::new();
    let game = |names: &[&str], kills: &[(usize, usize)]| {
        let mut log =
            String::from("  0:00 InitGame: \\g_gametype\\0\\mapname\\q3dm17\\sv_hostname\\test\n");
        for (i, n) in names.iter().enumerate() {
            log.push_str(&format!("  0:00 ClientUserinfoChanged: {i} n\\{n}\\t\\0\n"));
        }
        for &(k, v) in kills {
            log.push_str(&format!(
                "  0:10 Kill: {k} {v} 10: {} killed {} by MOD_RAILGUN\n",
                names[k], names[v]
            ));
        }
        log.push_str("  0:30 Exit: Fraglimit hit.\n  0:30 ShutdownGame:\n");
        log
    };
    let first = game(&["Alpha", "^1Bravo"], &[(0, 1), (1, 0), (0, 1)]);
    std::fs::write(site.logs().join("games.log"), &first).unwrap();
    site.check("Alpha meets Bravo");
    let alpha_page = || {
        tree(&site.dir.path().join("public"))
            .into_iter()
            .find(|(name, _)| name.starts_with("players/") && name.to_lowercase().contains("alpha"))
            .map(|(_, bytes)| String::from_utf8(bytes).unwrap())
            .expect("Alpha's page")
    };
    let before = alpha_page();
    let second = game(
        &["^4Bravo", "Charlie"],
        &[(0, 1), (0, 1), (0, 1), (1, 0), (0, 1), (0, 1)],
    );
    std::fs::write(site.logs().join("games.log"), format!("{first}{second}")).unwrap();
    site.check("Bravo, renamed, meets Charlie");
    let after = alpha_page();
    assert_ne!(before, after, "Alpha's page shows Bravo's new colour");
}

/// Where each game of a Quake 3 `log` starts (its `InitGame` line), so that the log can be
/// uploaded a game at a time.
fn game_starts(log: &str) -> Vec<usize> {
    log.match_indices("InitGame:")
        .map(|(i, _)| log[..i].rfind('\n').map_or(0, |n| n + 1))
        .collect()
}

/// What a checkpoint file is: its bytes and when they were written.
fn checkpoint_file(site: &Site) -> Option<(Vec<u8>, std::time::SystemTime)> {
    let path = site.dir.path().join(".fragstats/ratings.bin");
    let bytes = std::fs::read(&path).ok()?;
    Some((bytes, std::fs::metadata(&path).unwrap().modified().unwrap()))
}

/// With a rule of a new checkpoint once 3 matches are replayed past the saved one, a chain of
/// one-game appends keeps the checkpoint file untouched while the tail is short, rewrites it
/// once the tail reaches 3, and every build gives the bytes of a full build (the ladders'
/// tallies and seasons included). A removed checkpoint, and an older one put back (a build
/// killed before its checkpoint was written, or a backup), lose nothing either.
#[test]
fn short_tails_keep_the_checkpoint_and_long_ones_renew_it() {
    use fragstats::build::{BuildRequest, build};
    use fragstats::fold::{CheckpointRule, Replayed};

    let config = "[rating.headline]\nsystem = \"glicko2\"\n[seasons]\nevery = \"month\"\n";
    let site = Site::with_config(config);
    let log = common::crowd::with_ladders_and_dates(&common::crowd::crowd_log(40, 200, 20, 5), 7);
    let starts = game_starts(&log);
    let appended = 9;
    let first = starts.len() - appended;
    let path = site.logs().join("games.log");
    std::fs::write(&path, &log[..starts[first]]).unwrap();
    let rule = CheckpointRule {
        min_tail: 3,
        sqrt_divisor: usize::MAX,
    };
    let req = BuildRequest {
        config: Some(site.dir.path().join("site.toml")),
        checkpoint: rule,
        ..Default::default()
    };
    let built = build(&req).unwrap();
    assert_eq!(built.replayed, Replayed::Whole);
    site.same_as_full("the first games");
    let mut saved = (built.matches, checkpoint_file(&site).expect("a checkpoint"));
    let first_checkpoint = saved.1.clone();
    let (mut kept, mut renewed) = (0, 0);
    let ends = starts[first + 1..].iter().copied().chain([log.len()]);
    let mut from = starts[first];
    for (n, end) in ends.enumerate() {
        let step = format!("game {} appended", first + n + 1);
        // A rewritten file gets a later modification time than a kept one.
        std::thread::sleep(std::time::Duration::from_millis(20));
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        std::io::Write::write_all(&mut f, &log.as_bytes()[from..end]).unwrap();
        from = end;
        let built = build(&req).unwrap();
        site.same_as_full(&step);
        assert_eq!(built.replayed, Replayed::Resumed(saved.0), "{step}");
        let now = checkpoint_file(&site).expect("a checkpoint");
        if built.matches - saved.0 >= rule.min_tail {
            assert!(
                now.1 > saved.1.1 && now.0 != saved.1.0,
                "{step}: not rewritten"
            );
            saved = (built.matches, now);
            renewed += 1;
        } else {
            assert!(now == saved.1, "{step}: rewritten with a short tail");
            kept += 1;
        }
    }
    assert!(kept >= 4 && renewed >= 2, "kept {kept}, renewed {renewed}");

    // An older checkpoint put back resumes the next build from its matches, and the tail it
    // replays is long: a new one is written.
    std::fs::write(
        site.dir.path().join(".fragstats/ratings.bin"),
        &first_checkpoint.0,
    )
    .unwrap();
    let built = build(&req).unwrap();
    assert_eq!(built.replayed, Replayed::Resumed(built.matches - appended));
    site.same_as_full("an older checkpoint put back");
    assert!(checkpoint_file(&site).unwrap().0 != first_checkpoint.0);

    // Without a checkpoint everything is replayed, and one is written again.
    std::fs::remove_file(site.dir.path().join(".fragstats/ratings.bin")).unwrap();
    let built = build(&req).unwrap();
    assert_eq!(built.replayed, Replayed::Whole);
    site.same_as_full("the checkpoint removed");
    assert!(checkpoint_file(&site).is_some(), "no checkpoint written");
}

/// A new log whose matches are dated inside the tail a kept checkpoint leaves to replay (after
/// the checkpoint's last match, before the newest) is resumed from that checkpoint, where one
/// renewed on every build no longer fits the new order and is refused: the two sites, taken
/// through the same uploads, are the same bytes (match numbers follow the order matches were
/// first read, so the reference is a twin built on, not a full build).
#[test]
fn matches_dated_into_the_kept_tail_resume_it_and_equal_a_renewed_twin() {
    use fragstats::build::{BuildRequest, build};
    use fragstats::fold::{CheckpointRule, Replayed};

    let config = "[rating.headline]\nsystem = \"glicko2\"\n[seasons]\nevery = \"month\"\n";
    let log = common::crowd::with_ladders_and_dates(&common::crowd::crowd_log(30, 60, 20, 11), 5);
    let starts: Vec<usize> = game_starts(&log).into_iter().chain([log.len()]).collect();
    let games = |which: &[usize]| -> String {
        which
            .iter()
            .map(|&g| &log[starts[g]..starts[g + 1]])
            .collect()
    };
    let kept = Site::with_config(config);
    let twin = Site::with_config(config);
    let build_with = |site: &Site, checkpoint: CheckpointRule| {
        build(&BuildRequest {
            config: Some(site.dir.path().join("site.toml")),
            checkpoint,
            ..Default::default()
        })
        .unwrap()
    };
    let never = CheckpointRule {
        min_tail: usize::MAX,
        sqrt_divisor: usize::MAX,
    };
    let first: Vec<usize> = (0..20).collect();
    let uploads: [(&str, Vec<usize>); 3] = [
        ("a.log", first),
        ("a.log", vec![20, 22, 24, 26]),
        ("b.log", vec![21, 23, 25]),
    ];
    for (step, (file, which)) in uploads.iter().enumerate() {
        for site in [&kept, &twin] {
            let path = site.logs().join(file);
            let mut text = std::fs::read_to_string(&path).unwrap_or_default();
            text.push_str(&games(which));
            std::fs::write(&path, text).unwrap();
        }
        let (k, t) = (
            build_with(&kept, never),
            build_with(&twin, CheckpointRule::EVERY_BUILD),
        );
        if step > 0 {
            assert_eq!(k.replayed, Replayed::Resumed(20), "upload {step}");
        }
        if step == 2 {
            assert!(
                !matches!(t.replayed, Replayed::Resumed(_)),
                "the renewed checkpoint fits no more: {:?}",
                t.replayed
            );
        }
        let (a, b) = (
            tree(&kept.dir.path().join("public")),
            tree(&twin.dir.path().join("public")),
        );
        assert_eq!(
            a.keys().collect::<Vec<_>>(),
            b.keys().collect::<Vec<_>>(),
            "upload {step}"
        );
        for (name, bytes) in &a {
            assert!(bytes == &b[name], "upload {step}: {name} differs");
        }
    }
}

/// A ratings checkpoint of the format before the fixed-prior fit's pair records were saved once
/// (`tests/fixtures/ratings-format-12.bin`, made by that fragstats, c5d78b5, from
/// `sample-logs/tdm.log` with this test's config, which that fragstats resumes) is not read as
/// one of this format: the build replays every match and gives the bytes of a
/// full build, and the checkpoint it writes in its place is resumed by the next build.
#[test]
fn a_checkpoint_of_the_format_before_is_replayed_over_once() {
    let site = Site::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("sample-logs/tdm.log"),
        site.logs().join("tdm.log"),
    )
    .unwrap();
    let state = site.dir.path().join(".fragstats");
    std::fs::create_dir_all(&state).unwrap();
    let old = std::fs::read(root.join("tests/fixtures/ratings-format-12.bin")).unwrap();
    std::fs::write(state.join("ratings.bin"), &old).unwrap();
    let how = site.check("over the old checkpoint");
    assert!(how.contains("ratings: replayed all 5 matches"), "{how}");
    assert_ne!(std::fs::read(state.join("ratings.bin")).unwrap(), old);
    let how = site.check("again");
    assert!(how.contains("ratings: resumed after match 5"), "{how}");
}
