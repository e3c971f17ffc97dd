//! The sample site in a real browser (headless Chromium): pages render at desktop and phone widths,
//! the sort and search scripts run without console errors, and the search finds players.
//! Skipped (with a message) when Chromium is not installed; `.ci/run` installs it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            let out = Command::new("which").arg(name).output().ok()?;
            out.status
                .success()
                .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
        })
}

/// Runs headless Chromium on `url` with extra arguments; returns (stdout, stderr).
fn run(browser: &Path, profile: &Path, url: &str, args: &[&str]) -> (String, String) {
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .output()
        .expect("run chromium");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn pages_render_and_scripts_run_in_chromium() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: chromium is not installed");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Built from an empty folder, as an admin's own site is: only what the binary holds.
    let o = Command::new(env!("CARGO_BIN_EXE_fragstats"))
        .args(["build", "--out", out.to_str().unwrap()])
        .arg(repo.join("sample-logs"))
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let first = |dir: &str| {
        let mut files: Vec<PathBuf> = std::fs::read_dir(out.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        files[0]
            .strip_prefix(&out)
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    let pages = [
        "index.html".to_string(),
        first("players"),
        first("clans"),
        first("maps"),
        first("matches"),
        "ranking.html".to_string(),
    ];
    let profile = tmp.path().join("profile");
    for page in &pages {
        let url = format!("file://{}", out.join(page).display());
        let (dom, log) = run(&browser, &profile, &url, &["--dump-dom"]);
        assert!(
            dom.contains("data-js=\"ready\""),
            "scripts did not finish on {page}: {log}"
        );
        assert!(
            dom.contains("data-sortable=\"ready\""),
            "tables not sortable on {page}"
        );
        for bad in ["Uncaught", "ERR_FILE_NOT_FOUND", "Failed to load resource"] {
            assert!(!log.contains(bad), "{bad} on {page}: {log}");
        }
        for width in [1280, 390] {
            let shot = tmp
                .path()
                .join(format!("{}-{width}.png", page.replace('/', "_")));
            run(
                &browser,
                &profile,
                &url,
                &[
                    &format!("--screenshot={}", shot.display()),
                    &format!("--window-size={width},900"),
                ],
            );
            let png = std::fs::read(&shot).unwrap_or_default();
            assert!(
                png.starts_with(b"\x89PNG") && png.len() > 5000,
                "no screenshot of {page} at {width}px"
            );
        }
    }
    // The search box finds players from the .js index, from file://.
    let url = format!("file://{}?q=xi", out.join("index.html").display());
    let (dom, _) = run(&browser, &profile, &url, &["--dump-dom"]);
    let results = dom.split("id=\"search-results\"").nth(1).unwrap_or("");
    assert!(
        results.contains(">=XiX=Grunt</a>"),
        "search results: {results}"
    );
}
