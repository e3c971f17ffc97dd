//! `fragstats watch` and `fragstats serve` as a user runs them: the real binary in a site folder,
//! changed the way editors, `sed -i`, logrotate and uploads change files. Each test waits at most
//! 15 s for each change to show in the published site, and kills its process even when it fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The matches of a real log, each cut after its `ShutdownGame:` line (the lines before the
/// first match go with it).
fn matches_of(rel: &str) -> Vec<Vec<u8>> {
    let log = common::shared_log(rel);
    let mut out = Vec::new();
    let mut current = Vec::new();
    for line in log.split_inclusive(|&b| b == b'\n') {
        current.extend_from_slice(line);
        if line.windows(13).any(|w| w == b"ShutdownGame:") {
            out.push(std::mem::take(&mut current));
        }
    }
    out
}

/// `matches` from `from` up to `to`, as one log.
fn log_of(matches: &[Vec<u8>], from: usize, to: usize) -> Vec<u8> {
    matches[from..to].concat()
}

/// A running `fragstats` in a site folder, killed when dropped (also when a test fails).
struct Running {
    child: std::process::Child,
    dir: PathBuf,
}

impl Running {
    /// Starts `fragstats ARGS` in `dir`, its stderr going to `dir/stderr.txt` (a file the watch
    /// must not take for a change).
    fn start(dir: &Path, args: &[&str]) -> Running {
        let err = std::fs::File::create(dir.join("stderr.txt")).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_fragstats"))
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(err)
            .spawn()
            .unwrap();
        Running {
            child,
            dir: dir.to_path_buf(),
        }
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.join("stderr.txt")).unwrap_or_default()
    }

    /// Waits up to 15 s for `check`; fails with `what` and the process's output otherwise.
    fn wait_for(&self, what: &str, check: impl Fn() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if check() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!(
            "not seen within 15 s: {what}\nfragstats said:\n{}",
            self.stderr()
        );
    }

    /// Waits until `public/index.html` contains `text`.
    fn wait_for_page(&self, text: &str) {
        let page = self.dir.join("public/index.html");
        self.wait_for(&format!("{text:?} in public/index.html"), || {
            std::fs::read_to_string(&page).is_ok_and(|p| p.contains(text))
        });
    }

    /// Waits until `public/data/matches.json` lists `n` matches.
    fn wait_for_matches(&self, n: usize) {
        let json = self.dir.join("public/data/matches.json");
        self.wait_for(&format!("{n} matches in matches.json"), || {
            matches_listed(&json) == Some(n)
        });
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn matches_listed(json: &Path) -> Option<usize> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(json).ok()?).ok()?;
    Some(v.as_array()?.len())
}

/// A site folder with `site.toml` and `logs/live/games.log` holding `matches`.
fn site_with(config: &str, matches: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("site.toml"), config).unwrap();
    std::fs::create_dir_all(dir.path().join("logs/live")).unwrap();
    std::fs::write(dir.path().join("logs/live/games.log"), matches).unwrap();
    dir
}

#[test]
fn site_toml_replaced_by_rename_or_sed_is_seen() {
    let matches = matches_of("openarena/ffa/games-1.log");
    let dir = site_with(
        "title = \"Alpha\"\nlogs = [\"logs/live/games.log\"]\n",
        &log_of(&matches, 0, 2),
    );
    let site = dir.path();
    let watch = Running::start(site, &["watch"]);
    watch.wait_for_page("<title>Alpha</title>");

    // An editor's save: write a temporary file, rename it over site.toml (a new inode).
    let replace = |title: &str| {
        let text = format!("title = \"{title}\"\nlogs = [\"logs/live/games.log\"]\n");
        std::fs::write(site.join(".site.toml.swp"), text).unwrap();
        std::fs::rename(site.join(".site.toml.swp"), site.join("site.toml")).unwrap();
    };
    replace("Beta");
    watch.wait_for_page("<title>Beta</title>");

    // `sed -i` does the same with its own temporary file.
    let sed = Command::new("sed")
        .args(["-i", "s/Beta/Gamma/", "site.toml"])
        .current_dir(site)
        .status()
        .unwrap();
    assert!(sed.success());
    watch.wait_for_page("<title>Gamma</title>");

    // And again, once the file seen at the start is long gone; then a write in place.
    replace("Delta");
    watch.wait_for_page("<title>Delta</title>");
    std::fs::write(
        site.join("site.toml"),
        "title = \"Epsilon\"\nlogs = [\"logs/live/games.log\"]\n",
    )
    .unwrap();
    watch.wait_for_page("<title>Epsilon</title>");
}

#[test]
fn rotated_and_late_logs_are_read() {
    let matches = matches_of("openarena/ffa/games-1.log");
    assert!(matches.len() >= 10, "{} matches in the log", matches.len());
    // An empty site folder: neither log path exists yet.
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path();
    std::fs::write(
        site.join("site.toml"),
        "logs = [\"logs/live/games.log\", \"logs/more\"]\n",
    )
    .unwrap();
    let watch = Running::start(site, &["watch"]);
    watch.wait_for("the first build failing", || {
        watch.stderr().contains("watching for changes")
    });

    // The log paths appear, folders and all.
    std::fs::create_dir_all(site.join("logs/more")).unwrap();
    std::fs::create_dir_all(site.join("logs/live")).unwrap();
    std::fs::write(site.join("logs/live/games.log"), log_of(&matches, 0, 3)).unwrap();
    watch.wait_for_matches(3);

    // logrotate: games.log becomes games.log.1 and a new games.log starts.
    let live = site.join("logs/live");
    std::fs::rename(live.join("games.log"), live.join("games.log.1")).unwrap();
    std::fs::write(live.join("games.log"), log_of(&matches, 3, 6)).unwrap();
    watch.wait_for_matches(6);
    // The new file keeps being watched: it grows.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(live.join("games.log"))
        .unwrap();
    std::io::Write::write_all(&mut f, &matches[6]).unwrap();
    drop(f);
    watch.wait_for_matches(7);

    // A new file in a log folder that was created after the start.
    std::fs::write(site.join("logs/more/other.log"), log_of(&matches, 7, 8)).unwrap();
    watch.wait_for_matches(8);

    // A link in a log folder to a log elsewhere: inotify sees the link, not the writes to its
    // target, which only the poll finds.
    std::fs::create_dir(site.join("elsewhere")).unwrap();
    std::fs::write(site.join("elsewhere/server.log"), &matches[8]).unwrap();
    std::os::unix::fs::symlink("../../elsewhere/server.log", site.join("logs/more/s.log")).unwrap();
    watch.wait_for_matches(9);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(site.join("elsewhere/server.log"))
        .unwrap();
    std::io::Write::write_all(&mut f, &matches[9]).unwrap();
    drop(f);
    watch.wait_for_matches(10);
}

#[test]
fn theme_folders_created_after_the_start_are_used() {
    let matches = matches_of("openarena/ffa/games-1.log");
    let dir = site_with(
        "logs = [\"logs/live/games.log\"]\n",
        &log_of(&matches, 0, 1),
    );
    let site = dir.path();
    let watch = Running::start(site, &["watch"]);
    watch.wait_for_page("</html>");

    std::fs::create_dir(site.join("templates")).unwrap();
    std::fs::write(
        site.join("templates/index.html"),
        "{% extends \"base.html\" %}{% block content %}<p>our own front page</p>{% endblock content %}",
    )
    .unwrap();
    watch.wait_for_page("<p>our own front page</p>");

    std::fs::create_dir(site.join("static")).unwrap();
    std::fs::write(site.join("static/extra.css"), "/* ours */\n").unwrap();
    let css = site.join("public/static/extra.css");
    watch.wait_for("static/extra.css published", || {
        std::fs::read_to_string(&css).is_ok_and(|c| c.contains("/* ours */"))
    });

    std::fs::create_dir(site.join("content")).unwrap();
    std::fs::write(
        site.join("content/rules.md"),
        "# House rules\n\nNo camping.\n",
    )
    .unwrap();
    let page = site.join("public/pages/rules.html");
    watch.wait_for("pages/rules.html published", || {
        std::fs::read_to_string(&page).is_ok_and(|p| p.contains("No camping."))
    });
}

/// `GET path` on `addr`, the whole response or None.
fn http_get(addr: &str, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").ok()?;
    let mut response = String::new();
    s.read_to_string(&mut response).ok()?;
    response.starts_with("HTTP/1.").then_some(response)
}

#[test]
fn serve_listens_on_the_bind_address_and_prints_the_url() {
    let matches = matches_of("openarena/ffa/games-1.log");
    let dir = site_with(
        "title = \"Served\"\nlogs = [\"logs/live/games.log\"]\n",
        &log_of(&matches, 0, 1),
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let serve = Running::start(
        dir.path(),
        &["serve", "--bind", "127.0.0.1", "--port", &port.to_string()],
    );
    let addr = format!("127.0.0.1:{port}");
    serve.wait_for("the index page served", || {
        http_get(&addr, "/").is_some_and(|r| r.contains("<title>Served</title>"))
    });
    let said = serve.stderr();
    assert!(
        said.contains(&format!("http://127.0.0.1:{port}/")),
        "{said}"
    );
    assert!(!said.contains("other machines"), "{said}");
}
