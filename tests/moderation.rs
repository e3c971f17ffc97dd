//! `[moderation]` as the published site keeps it (issue 39): a hidden or excluded name is in no
//! byte of the output or the export, and an entry that matches nobody is said, not ignored.

mod common;

use std::path::{Path, PathBuf};

use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_schema::DataType;
use common::{fragstats, shared, stderr, walk};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

/// Hidden names that the logs' skipped lines quote (Urban Terror's `Agea`, CoD's `Vandal`, CS2's
/// `Blackwolf`) or that the logs spell with colour codes (`^2Merm^7an`, `^5Angel^7yss`).
const HIDE: [&str; 6] = [
    "Agea",
    "Merman",
    "^5Angel^7yss",
    "[7Cie]Chaudard",
    "Vandal",
    "Blackwolf",
];
/// Excluded names, as quoted (`Pl4StiK0`, `Ibragim`, ET's `^1Cyborg`, CoD's `iClan|Louis92`) or
/// coloured (`^4SERIAL^1Killer`).
const EXCLUDE: [&str; 6] = [
    "Pl4StiK0",
    "Ibragim",
    "Gargoyle",
    "^1Cyborg",
    "SERIALKiller",
    "iClan|Louis92",
];
/// Every spelling of those names that the logs have: searched for byte by byte.
const SPELLINGS: [&str; 17] = [
    "Agea",
    "Merman",
    "^2Merm^7an",
    "Angelyss",
    "^5Angel^7yss",
    "[7Cie]Chaudard",
    "[7^4C^7i^1e^7]Chaudard",
    "Vandal",
    "Blackwolf",
    "Pl4StiK0",
    "Ibragim",
    "Gargoyle",
    "Cyborg",
    "^1Cyborg",
    "SERIALKiller",
    "^4SERIAL^1Killer",
    "iClan|Louis92",
];

/// Every folder of public logs but Urban Terror's (the test reads those from its own copy, to
/// append to one), and the OpenArena bot logs.
fn public_logs_but_urt() -> Vec<PathBuf> {
    let public = shared().join("public");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&public)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.ends_with("urt"))
        .collect();
    dirs.sort();
    dirs.push(shared().join("openarena"));
    dirs
}

/// The spellings found in any file under `dir` (Parquet tables also read back, their strings
/// searched too, as compression could hide a name from a byte search).
fn leaks(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for file in walk(dir) {
        let mut bytes = std::fs::read(&file).unwrap();
        if file.extension().is_some_and(|x| x == "parquet") {
            bytes.extend(parquet_strings(&file).into_bytes());
        }
        for name in SPELLINGS {
            if bytes.windows(name.len()).any(|w| w == name.as_bytes()) {
                found.push(format!("{name} in {}", file.display()));
            }
        }
    }
    found
}

/// Every string value of a Parquet file, one a line.
fn parquet_strings(file: &Path) -> String {
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(file).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let mut out = String::new();
    for batch in reader {
        for col in batch.unwrap().columns() {
            let strings = match col.data_type() {
                DataType::Utf8 => col.as_string::<i32>().clone(),
                DataType::List(_) => col.as_list::<i32>().values().as_string::<i32>().clone(),
                _ => continue,
            };
            for i in (0..strings.len()).filter(|&i| strings.is_valid(i)) {
                out.push_str(strings.value(i));
                out.push('\n');
            }
        }
    }
    out
}

fn quoted(names: &[&str]) -> String {
    let list: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    list.join(", ")
}

fn run_ok(args: &[&str], cwd: &Path) -> String {
    let o = fragstats(args, cwd);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stderr(&o)
}

/// Issue 39: for every hidden and excluded name of a site built from all the public logs and the
/// OpenArena ones, no file of the site (HTML, JSON, JS, SVG, the feed) and no Parquet table of
/// its export holds any spelling of it, neither after a full build nor after an incremental one
/// that read an appended log; and the same site without `[moderation]` does name every one.
#[test]
fn issue_39_hidden_and_excluded_names_are_published_nowhere() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let logs = dir.join("logs");
    std::fs::create_dir(&logs).unwrap();
    let urt = shared().join("public/urt");
    std::fs::copy(urt.join("urt43-lan-rodov.log"), logs.join("urt43.log")).unwrap();
    // The Urban Terror log whose skipped lines quote `Agea` and `Pl4StiK0` arrives in two
    // parts: the first half of its lines, then the rest appended.
    let agea = std::fs::read(urt.join("urt41-agea-tdm.log")).unwrap();
    let half = agea.len() / 2;
    let cut = half + agea[half..].iter().position(|&b| b == b'\n').unwrap() + 1;
    std::fs::write(logs.join("urt41.log"), &agea[..cut]).unwrap();

    let mut roots: Vec<String> = public_logs_but_urt()
        .iter()
        .map(|p| format!("{:?}", p.display().to_string()))
        .collect();
    roots.push("\"logs\"".into());
    // Every kind of page: a feed (the OpenArena logs are dated), seasons, divisions, clans.
    let site = format!(
        "logs = [{}]\nbase_url = \"https://stats.example.org/\"\n\
         [seasons]\nevery = \"month\"\n[[divisions]]\nname = \"Gold\"\ntop_percent = 20\n",
        roots.join(", ")
    );
    std::fs::write(dir.join("plain.toml"), &site).unwrap();
    std::fs::write(
        dir.join("site.toml"),
        format!(
            "{site}[moderation]\nhide = [{}]\nexclude = [{}]\n",
            quoted(&HIDE),
            quoted(&EXCLUDE)
        ),
    )
    .unwrap();

    // Without `[moderation]` every name is published: the search below looks for real names.
    let unmoderated = dir.join("unmoderated");
    run_ok(
        &[
            "build",
            "--config",
            "plain.toml",
            "--out",
            unmoderated.to_str().unwrap(),
        ],
        dir,
    );
    let mut everywhere = Vec::new();
    for file in walk(&unmoderated) {
        everywhere.extend(std::fs::read(file).unwrap());
    }
    for name in SPELLINGS {
        assert!(
            everywhere.windows(name.len()).any(|w| w == name.as_bytes()),
            "{name} is not in the site without moderation: the test looks for nothing"
        );
    }
    let diagnostics = std::fs::read_to_string(unmoderated.join("data/diagnostics.json")).unwrap();
    for quoted_line in [
        "Pl4StiK0 killed Agea",
        ";Ibragim",
        "^1Cyborg killed ^1Cyborg",
    ] {
        assert!(diagnostics.contains(quoted_line), "{quoted_line}");
    }

    let said = run_ok(&["build"], dir);
    assert!(!said.contains("warning: hide"), "{said}");
    assert!(!said.contains("warning: exclude"), "{said}");
    let public = dir.join("public");
    assert_eq!(leaks(&public), Vec::<String>::new(), "after a full build");
    let diagnostics = std::fs::read_to_string(public.join("data/diagnostics.json")).unwrap();
    for kept in [
        "[hidden] killed [hidden] by UT_MOD_G36",
        "W;;[guid];[hidden]",
        "^1[hidden] killed ^1[hidden] by MOD_SWITCHTEAM",
    ] {
        assert!(diagnostics.contains(kept), "{kept} in {diagnostics}");
    }

    // The rest of the log appended: read from where the last build stopped.
    std::fs::write(logs.join("urt41.log"), &agea).unwrap();
    let said = run_ok(&["build"], dir);
    assert!(said.contains("1 read from their checkpoint"), "{said}");
    assert_eq!(
        leaks(&public),
        Vec::<String>::new(),
        "after an incremental build"
    );

    let export = dir.join("export");
    run_ok(&["export", "--out", export.to_str().unwrap()], dir);
    assert!(walk(&export).iter().any(|f| f.ends_with("part-0.parquet")));
    assert_eq!(leaks(&export), Vec::<String>::new(), "in the export");
}

/// A site of the Quake 3 log with entries that match nobody: one a typo of a player's name.
fn typo_site(dir: &Path) {
    std::fs::write(
        dir.join("site.toml"),
        format!(
            "logs = [{:?}]\nbots = \"exclude\"\n[moderation]\nhide = [\"Isgalamidoo\"]\n\
             exclude = [\"Zzqq\"]\n",
            shared().join("public/q3").display().to_string()
        ),
    )
    .unwrap();
}

/// Issue 39: a `hide`, `exclude` or `bots` setting that matches no player is a warning on the
/// terminal, naming the nearest player when one is close; the config's text is not published.
#[test]
fn issue_39_entries_matching_nobody_are_warned_about() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    typo_site(tmp.path());
    let said = run_ok(&["build"], tmp.path());
    for warning in [
        "warning: hide: no player `Isgalamidoo`; did you mean `Isgalamido`?\n",
        "warning: exclude: no player `Zzqq`\n",
        "warning: bots = \"exclude\": no player of the logs is a bot\n",
    ] {
        assert!(said.contains(warning), "{warning} in {said}");
    }
    for file in walk(&tmp.path().join("public")) {
        let bytes = std::fs::read(&file).unwrap();
        for entry in ["Isgalamidoo", "Zzqq"] {
            assert!(
                !bytes.windows(entry.len()).any(|w| w == entry.as_bytes()),
                "{entry} in {}",
                file.display()
            );
        }
    }
}

/// Issue 39: under `--strict` such an entry fails the build (status 1) and nothing is
/// published; the site before it stays as it was.
#[test]
fn issue_39_strict_refuses_entries_matching_nobody() {
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    typo_site(tmp.path());
    let o = fragstats(&["build", "--strict"], tmp.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "error: --strict: the site was not published: hide: no player `Isgalamidoo`; did \
             you mean `Isgalamido`?; exclude: no player `Zzqq`; bots = \"exclude\": no player \
             of the logs is a bot"
        ),
        "{}",
        stderr(&o)
    );
    assert!(!tmp.path().join("public").exists());

    // The entries fixed: --strict builds (status 3 only for the log's own skipped lines).
    let fixed = std::fs::read_to_string(tmp.path().join("site.toml"))
        .unwrap()
        .replace("bots = \"exclude\"\n", "")
        .replace("Isgalamidoo", "Isgalamido")
        .replace("Zzqq", "Mal");
    std::fs::write(tmp.path().join("site.toml"), &fixed).unwrap();
    let o = fragstats(&["build", "--strict"], tmp.path());
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(!stderr(&o).contains(": no player `"), "{}", stderr(&o));
    let index = tmp.path().join("public/index.html");
    let before = std::fs::read(&index).unwrap();

    // A typo again: the published site is left as it was.
    std::fs::write(
        tmp.path().join("site.toml"),
        fixed.replace("Isgalamido", "Isgalamidoo"),
    )
    .unwrap();
    let o = fragstats(&["build", "--strict"], tmp.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(std::fs::read(&index).unwrap(), before);
}
