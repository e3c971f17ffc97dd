//! The site in a real browser: headless Chromium driven through chromedriver's WebDriver HTTP API
//! (a tiny HTTP/1.1 client below, no extra dependency). Checks that clicking a header sorts numbers,
//! dates and durations both ways, that the search finds a player by the name their page shows,
//! that no page logs a console error or asks another host for anything, and that no page is wider
//! than a 390 px phone, and that on a crowd a search loads one small shard of the index. Skipped
//! (a `SKIPPED:` line on stderr; a failure under `FRAGSTATS_REQUIRE_ALL=1`, as `.ci/run` sets)
//! when Chromium or chromedriver is not installed. `FRAGSTATS_SHOTS=DIR` keeps the screenshots
//! it takes.
//!
//! Every step waits on a condition, never on the browser's own idea of a finished load: after
//! a navigation, until the document shown is a new one whose `readyState` is `complete` (its
//! scripts ran: `data-js`, the balance result, the rank shards are set while it loads); an
//! element, until it is there (the session's implicit wait). Chromium's navigation command may
//! return before the new document has even started (seen with Debian's current build, and
//! under load), so reading the page at once read the old one or a half-parsed new one. The
//! browser sessions of the tests in this file take turns (one Chromium at a time on a small
//! machine), and every limit is generous ([`PATIENCE`]): a slow machine only waits longer.
//! `FRAGSTATS_PAGE_LOAD=none` asks chromedriver not to wait for loads at all, which checks that
//! the tests do not rely on it.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod common;

use common::balance::{Case, cli_splits, same_split, split_of, uri_component};

/// The W3C key of an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// How long any one condition may take (a page to load, an element to appear, a search to
/// answer, chromedriver to start): minutes, so that a loaded 2-core machine is only slower.
const PATIENCE: Duration = Duration::from_secs(180);

/// Held by the one browser session running: the tests of this file take turns with Chromium.
static BROWSER: Mutex<()> = Mutex::new(());

/// chromedriver's path when Chromium and chromedriver are both installed; None otherwise (the
/// test says it did not run, or fails under `FRAGSTATS_REQUIRE_ALL`).
fn chromedriver() -> Option<PathBuf> {
    let browser = which(&["chromium", "chromium-browser", "google-chrome"]);
    let driver = which(&["chromedriver"]);
    if browser.is_none() || driver.is_none() {
        common::skipped("chromium and chromedriver (apt-get install chromium chromium-driver)");
        return None;
    }
    driver
}

/// The first of `names` found on the PATH.
fn which(names: &[&str]) -> Option<PathBuf> {
    names.iter().find_map(|name| {
        let out = Command::new("which").arg(name).output().ok()?;
        out.status
            .success()
            .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
    })
}

/// A chromedriver process with one browser session; both end on drop.
struct Driver {
    child: Child,
    port: u16,
    session: String,
    /// Released after the session and chromedriver ended (fields drop after `drop`).
    _turn: MutexGuard<'static, ()>,
}

impl Driver {
    fn start(chromedriver: &Path) -> Driver {
        // A test that failed with the browser held leaves the lock poisoned: the next may go.
        let turn = BROWSER.lock().unwrap_or_else(|e| e.into_inner());
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let mut driver = Driver {
            child,
            port,
            session: String::new(),
            _turn: turn,
        };
        let deadline = Instant::now() + PATIENCE;
        while request(port, "GET", "/status", None).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        // The load strategy and the limits are asked for, not left to the driver's defaults.
        let strategy = std::env::var("FRAGSTATS_PAGE_LOAD").unwrap_or_else(|_| "normal".into());
        let ms = PATIENCE.as_millis() as u64;
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "pageLoadStrategy": strategy,
            "timeouts": {"implicit": ms, "pageLoad": ms, "script": ms},
            "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {"args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-quic", "--hide-scrollbars",
            ]},
        }}});
        let created = driver.call("POST", "/session", Some(&caps));
        driver.session = created["sessionId"].as_str().unwrap().to_string();
        driver
    }

    /// One WebDriver command; returns its `value`, panics on an error answer.
    fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        self.try_call(method, path, body)
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"))
    }

    /// One WebDriver command; its `value`, or the error it answered.
    fn try_call(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
        let (status, answer) = request(self.port, method, path, body)?;
        let mut answer: Value =
            serde_json::from_str(&answer).map_err(|e| format!("{e}: {answer}"))?;
        if status >= 400 {
            return Err(format!("{status} {answer}"));
        }
        Ok(answer["value"].take())
    }

    /// Runs `script` until it returns true; panics after [`PATIENCE`] saying what was awaited.
    /// An error answer (a script run while the document is being replaced) counts as not yet.
    fn wait_for(&self, what: &str, script: &str) {
        let path = format!("/session/{}/execute/sync", self.session);
        let body = json!({"script": script, "args": []});
        let started = Instant::now();
        loop {
            let last = match self.try_call("POST", &path, Some(&body)) {
                Ok(Value::Bool(true)) => return,
                Ok(other) => other.to_string(),
                Err(e) => e,
            };
            assert!(
                started.elapsed() < PATIENCE,
                "{what}: not after {PATIENCE:?} (last answer: {last})"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn session(&self, method: &str, path: &str, body: Value) -> Value {
        let body = (method == "POST").then_some(body);
        let path = format!("/session/{}{path}", self.session);
        self.call(method, &path, body.as_ref())
    }

    /// Opens `url` and waits until it is shown and loaded: a new document (the old one is
    /// marked first, so that opening the address shown, a reload, is told apart) whose
    /// `readyState` is `complete`, so its scripts ran.
    fn open(&self, url: &str) {
        self.js("window.fragstatsLeft = true;", json!([]));
        self.session("POST", "/url", json!({ "url": url }));
        self.wait_for(
            &format!("loading {url}"),
            "return window.fragstatsLeft !== true && document.readyState === 'complete';",
        );
    }

    fn size(&self, width: u32, height: u32) {
        self.session(
            "POST",
            "/window/rect",
            json!({"width": width, "height": height}),
        );
    }

    fn js(&self, script: &str, args: Value) -> Value {
        self.session(
            "POST",
            "/execute/sync",
            json!({"script": script, "args": args}),
        )
    }

    fn find(&self, xpath: &str) -> Value {
        self.session(
            "POST",
            "/element",
            json!({"using": "xpath", "value": xpath}),
        )
    }

    fn click(&self, element: &Value) {
        let id = element[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("not an element: {element}"));
        let path = format!("/element/{id}/click");
        self.session("POST", &path, json!({}));
    }

    fn type_into(&self, element: &Value, text: &str) {
        let id = element[ELEMENT].as_str().unwrap();
        self.session("POST", &format!("/element/{id}/clear"), json!({}));
        self.session(
            "POST",
            &format!("/element/{id}/value"),
            json!({ "text": text }),
        );
    }

    /// Types `text` into the search box and waits until the list shows its results (the page
    /// may first load a shard of the index); returns them as (name shown, href).
    fn search(&self, text: &str) -> Vec<(String, String)> {
        let input = self.find("//input[@id='search-input']");
        self.type_into(&input, text);
        let started = Instant::now();
        loop {
            let done = self.js(
                "var q = document.getElementById('search-input').value\
                   .replace(/\\^[0-9A-Za-z]/g, '').trim().toLowerCase();\
                 return document.getElementById('search-results').getAttribute('data-query') === q;",
                json!([]),
            );
            if done == json!(true) {
                break;
            }
            assert!(started.elapsed() < PATIENCE, "no results for {text:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
        let hits = self.js(
            "return Array.prototype.map.call(document.querySelectorAll('#search-results a'),\
               function (a) { return [a.firstChild.textContent, a.getAttribute('href')]; });",
            json!([]),
        );
        serde_json::from_value(hits).unwrap()
    }

    /// Console messages of level SEVERE since the last call (errors, failed loads).
    fn errors(&self) -> Vec<String> {
        let log = self.session("POST", "/se/log", json!({"type": "browser"}));
        log.as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["level"] == "SEVERE")
            .map(|e| e["message"].to_string())
            .collect()
    }

    /// A PNG of the whole page at `width` (the window grows to the page's height).
    fn screenshot(&self, width: u32) -> Vec<u8> {
        self.size(width, 844);
        let height = self
            .js("return document.documentElement.scrollHeight;", json!([]))
            .as_u64()
            .unwrap_or(844)
            .clamp(844, 8000) as u32;
        self.size(width, height);
        let png = base64(
            self.session("GET", "/screenshot", json!({}))
                .as_str()
                .unwrap(),
        );
        self.size(width, 844);
        png
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let path = format!("/session/{}", self.session);
            let _ = request(self.port, "DELETE", &path, None);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 exchange with chromedriver (it answers with Content-Length and closes).
/// One `read`, retried when a signal interrupts it (EINTR: seen under load, when another test
/// thread's child process ends), as `read_exact` would.
fn read_some(stream: &mut TcpStream, buf: &mut [u8]) -> Result<usize, String> {
    loop {
        match stream.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other.map_err(|e| e.to_string()),
        }
    }
}

fn request(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<(u16, String), String> {
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(PATIENCE * 2))
        .map_err(|e| e.to_string())?;
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body.as_bytes()))
        .map_err(|e| e.to_string())?;
    // chromedriver says `Connection: close` but keeps the socket open: read by Content-Length.
    let mut answer = Vec::new();
    let mut buf = [0u8; 8192];
    let (head_len, body_len) = loop {
        let n = read_some(&mut stream, &mut buf)?;
        if n == 0 {
            return Err("connection closed before the header ended".into());
        }
        answer.extend_from_slice(&buf[..n]);
        if let Some(end) = answer.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase();
            assert!(
                !head.contains("transfer-encoding:") || head.contains("identity"),
                "chunked answers are not read: {head}"
            );
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .ok_or("no Content-Length")?;
            break (end + 4, length);
        }
    };
    while answer.len() < head_len + body_len {
        let n = read_some(&mut stream, &mut buf)?;
        if n == 0 {
            return Err("connection closed before the body ended".into());
        }
        answer.extend_from_slice(&buf[..n]);
    }
    let head = String::from_utf8_lossy(&answer[..head_len]);
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or("no HTTP status")?;
    let body = String::from_utf8_lossy(&answer[head_len..head_len + body_len]);
    Ok((status, body.to_string()))
}

fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> = text.bytes().filter(|c| *c != b'=').map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, d)| n | u32::from(*d) << (18 - 6 * i));
        out.extend(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// `m:ss` or `h:mm:ss` in seconds.
fn seconds(clock: &str) -> u32 {
    clock.split(':').fold(0, |t, part| {
        t * 60 + part.parse::<u32>().unwrap_or_else(|_| panic!("{clock}"))
    })
}

/// How a "When" cell sorts: a date (`YYYY-MM-DD HH:MM`, in text order), else `Match N` by N.
fn when_key(text: &str) -> (u8, String, u64) {
    match text.strip_prefix("Match ") {
        Some(n) => (
            1,
            String::new(),
            n.parse().unwrap_or_else(|_| panic!("{text}")),
        ),
        None => {
            let b = text.as_bytes();
            assert!(
                b.len() == 16 && b[4] == b'-' && b[7] == b'-' && b[10] == b' ' && b[13] == b':',
                "not a date: {text}"
            );
            (0, text.to_string(), 0)
        }
    }
}

/// Clicks the header `column` of the first table holding it, twice; checks the column is sorted
/// ascending, then descending, by `key`; empty cells ("", "-", "–", "—") last both ways.
/// Returns the cells in descending order.
fn check_sort<K: Ord + std::fmt::Debug>(
    driver: &Driver,
    page: &str,
    column: &str,
    key: impl Fn(&str) -> K,
) -> Vec<String> {
    let mut cells = Vec::new();
    let th = format!("(//table[contains(@class,'data')]//th[normalize-space()='{column}'])[1]");
    let header = driver.find(&th);
    for ascending in [true, false] {
        driver.click(&header);
        let shown = driver.js(
            "var th = arguments[0], table = th.closest('table');\
             return Array.prototype.map.call(table.tBodies[0].rows, function (r) {\
               return r.cells[th.cellIndex].textContent.trim(); });",
            json!([header]),
        );
        cells = serde_json::from_value(shown).unwrap();
        assert!(cells.len() > 2, "{page} {column}: {cells:?}");
        let empty = |c: &String| c.is_empty() || c == "-" || c == "\u{2013}" || c == "\u{2014}";
        let filled = cells.iter().take_while(|c| !empty(c)).count();
        assert!(
            cells[filled..].iter().all(empty),
            "{page} {column}: empty cells not last: {cells:?}"
        );
        let keys: Vec<K> = cells[..filled].iter().map(|c| key(c)).collect();
        let sorted = keys.windows(2).all(|w| {
            if ascending {
                w[0] <= w[1]
            } else {
                w[0] >= w[1]
            }
        });
        assert!(
            sorted,
            "{page} {column} not sorted (ascending: {ascending}): {cells:?}"
        );
        let first = keys.first().zip(keys.last());
        assert!(
            first.is_some_and(|(a, b)| a != b),
            "{page} {column}: every value alike, nothing checked: {cells:?}"
        );
    }
    cells
}

fn first_file(dir: &Path) -> Option<String> {
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().into_owned()))
        .filter(|name| name.ends_with(".html") && !name.starts_with("page-"))
        .collect();
    files.sort();
    files.into_iter().next()
}

#[test]
fn pages_sort_search_and_fit_a_phone_in_chromium() {
    let Some(chromedriver) = chromedriver() else {
        return;
    };
    let started = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    // Built from a folder holding only site.toml, as an admin's own site is: the theme is what
    // the binary holds. An alias makes the name a page shows differ from the player's key.
    std::fs::write(
        tmp.path().join("site.toml"),
        "title = \"Browser test\"\n[aliases]\n\"Boss\" = [\"RedDevil\"]\n\
         [seasons]\nevery = \"month\"\n",
    )
    .unwrap();
    if !common::has_shared_data() {
        return;
    }
    let urt = common::shared().join("public/urt");
    let mut build = Command::new(env!("CARGO_BIN_EXE_fragstats"));
    build
        .args(["build", "--out", out.to_str().unwrap()])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/sample-logs"))
        .arg(urt);
    let o = build.current_dir(tmp.path()).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let url = |page: &str| format!("file://{}", out.join(page).display());

    let driver = Driver::start(&chromedriver);
    driver.size(1280, 844);

    // Sorting: numbers (and "–" for provisional players last both ways), dates, durations.
    driver.open(&url("players.html"));
    check_sort(&driver, "players.html", "Frags", |c| {
        c.parse::<u64>().unwrap()
    });
    check_sort(&driver, "players.html", "#", |c| c.parse::<u64>().unwrap());
    driver.open(&url("matches.html"));
    let when = check_sort(&driver, "matches.html", "When", when_key);
    check_sort(&driver, "matches.html", "Length", seconds);
    check_sort(&driver, "matches.html", "Players", |c| {
        c.parse::<u64>().unwrap()
    });
    // Natural order of text with numbers, "Match 4" before "Match 13", is checked by when_key
    // on the undated matches.
    let undated = when.iter().filter(|c| c.starts_with("Match ")).count();
    assert!(
        undated > 1,
        "no undated matches to sort naturally: {when:?}"
    );
    assert!(driver.errors().is_empty(), "{:?}", driver.errors());

    // Search: by the name the page shows (the latest name, colour codes removed), with colour
    // codes and any case typed, and by the key.
    driver.open(&url("index.html"));
    let boss = ("RedDevil".to_string(), "players/boss.html".to_string());
    for typed in ["reddevil", "^1RED^7dev", "Boss", "devil"] {
        let found = driver.search(typed);
        assert!(found.contains(&boss), "{typed:?} found {found:?}");
    }
    let found = driver.search("xi");
    assert!(
        found.iter().any(|(name, _)| name == "=XiX=Grunt"),
        "{found:?}"
    );
    driver.open(&url("players/boss.html"));
    let h1 = driver.js(
        "return document.querySelector('h1').textContent;",
        json!([]),
    );
    assert!(h1.as_str().unwrap().contains("RedDevil"), "{h1}");

    // Every kind of page: scripts ran, no console error, nothing from another host, and no page
    // wider than a phone.
    let mut pages: Vec<String> = [
        "index.html",
        "players.html",
        "ladders.html",
        "players/boss.html",
        "matches.html",
        "maps.html",
        "ranking.html",
        "evaluation.html",
        "clans.html",
        "seasons.html",
    ]
    .map(String::from)
    .to_vec();
    for dir in ["matches", "maps", "clans", "seasons"] {
        if let Some(file) = first_file(&out.join(dir)) {
            pages.push(format!("{dir}/{file}"));
        }
    }
    assert!(
        pages.iter().any(|p| p.starts_with("clans/")),
        "no clan page"
    );
    assert!(
        pages.iter().any(|p| p.starts_with("seasons/")),
        "no season page"
    );
    driver.size(390, 844);
    for page in &pages {
        driver.open(&url(page));
        let state = driver.js(
            "return {\
               js: document.body.getAttribute('data-js'),\
               tables: document.querySelectorAll('table.data').length,\
               sortable: document.querySelectorAll('table.data[data-sortable=ready]').length,\
               width: document.documentElement.scrollWidth,\
               inner: window.innerWidth,\
               urls: [location.href].concat(performance.getEntriesByType('resource')\
                 .map(function (e) { return e.name; })) };",
            json!([]),
        );
        assert_eq!(state["js"], "ready", "scripts did not finish on {page}");
        assert_eq!(state["tables"], state["sortable"], "{page}: {state}");
        assert_eq!(state["inner"], 390, "{page}: the window is not phone wide");
        let width = state["width"].as_u64().unwrap();
        assert!(width <= 390, "{page} is {width} px wide on a 390 px phone");
        for asked in state["urls"].as_array().unwrap() {
            let asked = asked.as_str().unwrap();
            assert!(asked.starts_with("file://"), "{page} asked for {asked}");
        }
        let errors = driver.errors();
        assert!(errors.is_empty(), "{page}: {errors:?}");
    }

    // Screenshots at desktop and phone width (kept in FRAGSTATS_SHOTS to look at).
    let shots = std::env::var_os("FRAGSTATS_SHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| tmp.path().join("shots"));
    std::fs::create_dir_all(&shots).unwrap();
    for page in [
        "index.html",
        "evaluation.html",
        "ladders.html",
        "seasons.html",
        "seasons/november-2026.html",
        "players/boss.html",
    ] {
        driver.open(&url(page));
        for width in [1280, 390] {
            let png = driver.screenshot(width);
            assert!(
                png.starts_with(b"\x89PNG") && png.len() > 5000,
                "no screenshot of {page} at {width} px"
            );
            let name = format!(
                "{}-{width}.png",
                page.trim_end_matches(".html").replace('/', "-")
            );
            std::fs::write(shots.join(name), png).unwrap();
        }
    }
    eprintln!("browser test took {:.1?}", started.elapsed());
}

/// The page shows the CLI's warnings and its last-match decision.
fn same_notes(what: &str, shown: &Value, cli: &Value) {
    let warnings: Vec<String> = cli["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| format!("Warning: {}", w.as_str().unwrap()))
        .collect();
    assert_eq!(shown["warnings"], json!(warnings), "{what}");
    match &cli["last_match"] {
        Value::Null => assert_eq!(shown["last"], Value::Null, "{what}"),
        last => {
            let why = last["why"].as_str().unwrap();
            let text = shown["last"].as_str().unwrap_or_default();
            assert!(text.contains(why), "{what}: page {text:?}, cli {why:?}");
        }
    }
}

/// The bot logs' site for the balance page tests, built with `config` (site.toml) into
/// `<tmp>/site`: the temporary folder, the site and chromedriver; None (the test said it is
/// skipped) when Chromium or chromedriver is missing.
fn balance_site(config: &str) -> Option<(tempfile::TempDir, PathBuf, PathBuf)> {
    let chromedriver = chromedriver()?;
    let openarena = common::openarena("");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    std::fs::write(tmp.path().join("site.toml"), config).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_fragstats"))
        .current_dir(tmp.path())
        .args(["build", "--out", out.to_str().unwrap()])
        .arg(&openarena)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    Some((tmp, out, chromedriver))
}

#[test]
fn balance_page_proposes_the_teams_the_cli_does() {
    // Clans play no part by default; a high clan penalty makes the party guard fire below.
    let Some((tmp, out, chromedriver)) =
        balance_site("title = \"Balance test\"\n[balance]\nclan_penalty = 45.0\n")
    else {
        return;
    };
    let fragstats = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_fragstats"));
        c.current_dir(tmp.path());
        c
    };
    // The bot logs' few team scores teach no margin (a slope of 0); give the shared data file a
    // margin slope so that the page's expected margin is compared with the CLI's for real.
    let script = std::fs::read_to_string(out.join("data/balance.js")).unwrap();
    assert!(
        script.contains(",\"margin\":"),
        "no margin in data/balance.js"
    );
    let script = script.replacen(",\"margin\":0.0,", ",\"margin\":12.5,", 1);
    std::fs::write(out.join("data/balance.js"), &script).unwrap();
    let data = common::balance_data(&script);
    assert!(data.params.margin > 0.0);
    // The page computes the saturating team strength itself, from the same bound.
    assert!(data.params.bound > 0.0);
    let known: Vec<String> = data.players.iter().map(|p| p.name.clone()).collect();
    assert!(known.len() >= 12, "too few players: {known:?}");
    let fresh = |k: usize| -> Vec<String> {
        let mut names = vec!["<img src=x onerror=alert(1)>".to_string()];
        names.extend((0..k).map(|i| format!("Qzvxw{i}jkq")));
        names
    };
    let mut lobbies: Vec<Vec<String>> = vec![
        known[..6].to_vec(),
        known[3..12].to_vec(),
        // Colour codes and any case, as a player would type them.
        vec![
            format!("^1{}", known[0].to_uppercase()),
            known[1].clone(),
            known[2].clone(),
            known[5].clone(),
        ],
    ];
    let mut full = known.clone();
    full.extend(fresh(24usize.saturating_sub(known.len() + 1)));
    full.truncate(24);
    lobbies.push(full);
    // Beyond 24 players: meeting in the middle (exact, with many tied newcomers), then the
    // local search.
    for size in [30usize, 40, 44] {
        let mut big = known.clone();
        big.extend(fresh(size.saturating_sub(known.len() + 1)));
        big.truncate(size);
        lobbies.push(big);
    }

    let driver = Driver::start(&chromedriver);
    driver.size(1280, 844);
    let page = |names: &[String]| {
        let query: Vec<String> = names.iter().map(|n| uri_component(n)).collect();
        format!(
            "file://{}?players={}",
            out.join("balance.html").display(),
            query.join(",")
        )
    };
    let read = "var pick = function (box) {\
        var side = function (s) { return Array.prototype.map.call(box.querySelectorAll('.balance-' + s + ' li .balance-name'),\
          function (li) { return li.textContent; }); };\
        return { red: side('red'), blue: side('blue'), p_red_wins: parseFloat(box.getAttribute('data-p')),\
          margin: parseFloat(box.getAttribute('data-margin')) }; };\
      var boxes = document.querySelectorAll('#balance-result .balance-split');\
      return { state: document.getElementById('balance-result').getAttribute('data-state'),\
        error: document.getElementById('balance-error').textContent,\
        splits: Array.prototype.map.call(boxes, pick),\
        warnings: Array.prototype.map.call(document.querySelectorAll('.balance-warning'), function (li) { return li.textContent; }),\
        last: (function () { var li = document.querySelector('.balance-avoided, .balance-kept'); return li ? li.textContent : null; })(),\
        injected: document.querySelectorAll('main img').length };";
    // The CLI with `flags` and the page with `url` (its own form of the same options) give the
    // same splits, p, margin, warnings and last-match decision; returns the CLI's JSON.
    let check = |names: &[String], flags: &[&str], url: &str| -> Value {
        let o = fragstats()
            .args(["balance", "--out", out.to_str().unwrap(), "--json"])
            .args(flags)
            .args(names)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let cli: Value = serde_json::from_slice(&o.stdout).unwrap();
        driver.open(&format!("{}{url}", page(names)));
        let shown = driver.js(read, json!([]));
        assert_eq!(shown["state"], "ready", "{names:?} {flags:?}: {shown}");
        assert_eq!(shown["error"], "", "{names:?}");
        assert_eq!(shown["injected"], 0, "a name became markup");
        let what = format!("{names:?} {flags:?}");
        let splits = shown["splits"].as_array().unwrap();
        let expected = cli_splits(&cli);
        assert_eq!(splits.len(), expected.len(), "{what}: {shown}");
        for (page_split, cli_split) in splits.iter().zip(&expected) {
            same_split(&what, page_split, cli_split);
        }
        // The expected margin of the proposed teams, as the CLI computes it.
        let (page_margin, cli_margin) = (&splits[0]["margin"], &cli["expected_margin"]);
        assert!(
            (page_margin.as_f64().unwrap() - cli_margin.as_f64().unwrap()).abs() < 1e-9,
            "{names:?}: page {page_margin}, cli {cli_margin}"
        );
        same_notes(&what, &shown, &cli);
        // The lobby and the options are in the URL: reloading the page's own address gives
        // the same teams.
        let here = driver.js("return location.href;", json!([]));
        driver.open(here.as_str().unwrap());
        assert_eq!(driver.js(read, json!([]))["splits"], shown["splits"]);
        let errors = driver.errors();
        assert!(errors.is_empty(), "{errors:?}");
        cli
    };
    for names in &lobbies {
        check(names, &[], "");
    }
    // Clans (the bot logs have three: =XiX=, [OA], {TDK}) together and spread, and the last
    // match avoided, on lobbies searched every way (every split, meeting in the middle with
    // and without tied newcomers, the local search).
    let in_clans: Vec<String> = (data.players.iter())
        .filter(|p| p.clan.is_some())
        .map(|p| p.name.clone())
        .collect();
    assert!(in_clans.len() >= 6, "{in_clans:?}");
    let mut clan_lobbies = vec![known[..10.min(known.len())].to_vec(), known.clone()];
    for size in [30usize, 44] {
        let mut big = known.clone();
        big.extend(fresh(size.saturating_sub(known.len() + 1)));
        big.truncate(size);
        clan_lobbies.push(big);
    }
    // The players of the build's three most recent recorded team matches: a lobby of one
    // match's players is the likeliest to find its fairest split repeating a recent match.
    for lineup in data.recent.iter().rev().take(3) {
        let ids = lineup.iter().flatten().map(|&i| i as usize);
        clan_lobbies.push(ids.map(|i| known[i].clone()).collect());
    }
    let mut avoided = 0;
    for names in &clan_lobbies {
        for (flags, url) in [
            (&["--clans", "together"][..], "&clans=together"),
            (
                &["--clans", "spread", "--avoid-last"][..],
                "&clans=spread&avoid=1",
            ),
            (&["--avoid-last"][..], "&avoid=1"),
            (
                &["--clans", "together", "--avoid-last"][..],
                "&clans=together&avoid=1",
            ),
        ] {
            let cli = check(names, flags, url);
            if cli["last_match"]["avoided"] == true
                && cli["last_match"]["why"]
                    .as_str()
                    .unwrap()
                    .contains("is proposed")
            {
                avoided += 1;
            }
        }
    }
    eprintln!("the last match's teams were avoided in {avoided} lobbies");
    assert!(
        avoided >= 1,
        "no lobby took the fairest split that avoids the last match"
    );
    // The party guard on real skills: a clan of a strong and a weak bot with the two weakest.
    let guard: Vec<String> = ["=XiX=Witch", "=XiX=Grunt", "Ayumi", "Beret"]
        .iter()
        .map(|n| n.to_string())
        .collect();
    let cli = check(&guard, &["--clans", "together"], "&clans=together");
    let warning = cli["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.starts_with("clan =XiX= kept together would make one side a sure winner"),
        "{cli}"
    );

    // `?seed=N` on the page is `--seed N`.
    let o = fragstats()
        .args([
            "balance",
            "--out",
            out.to_str().unwrap(),
            "--json",
            "--seed",
            "77",
        ])
        .args(&lobbies[1])
        .output()
        .unwrap();
    let cli: Value = serde_json::from_slice(&o.stdout).unwrap();
    driver.open(&format!("{}&seed=77", page(&lobbies[1])));
    let shown = driver.js(read, json!([]));
    let last = shown["splits"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(split_of(&last), split_of(&cli["random"]), "{shown}");
    assert_eq!(cli["random"]["seed"], 77);

    // Driving the inputs: paste a list, then add one more by the search box.
    driver.open(&format!("file://{}", out.join("balance.html").display()));
    let paste = driver.find("//textarea[@id='balance-paste']");
    driver.type_into(&paste, &known[..3].join("\n"));
    driver.click(&driver.find("//button[@type='submit']"));
    let search = driver.find("//input[@id='balance-search']");
    driver.type_into(&search, &known[3]);
    driver.click(&driver.find("//ul[@id='balance-hits']//button"));
    let state = driver.js(
        "return [document.getElementById('balance-result').getAttribute('data-state'),\
           document.querySelectorAll('#balance-lobby li').length, location.search];",
        json!([]),
    );
    assert_eq!(state[0], "ready", "{state}");
    assert_eq!(state[1], 4, "{state}");
    assert!(
        state[2].as_str().unwrap().starts_with("?players="),
        "{state}"
    );

    let shots = std::env::var_os("FRAGSTATS_SHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| tmp.path().join("shots"));
    std::fs::create_dir_all(&shots).unwrap();
    driver.open(&format!(
        "{}&clans=together&avoid=1",
        page(&clan_lobbies[0])
    ));
    for width in [1280, 390] {
        driver.size(width, 844);
        let wide = driver.js("return document.documentElement.scrollWidth;", json!([]));
        assert!(
            wide.as_u64().unwrap() <= width as u64,
            "balance.html is {wide} px wide at {width}"
        );
        let png = driver.screenshot(width);
        assert!(png.starts_with(b"\x89PNG") && png.len() > 5000);
        std::fs::write(shots.join(format!("balance-{width}.png")), png).unwrap();
    }
}

/// Issue 15: `balance.html`'s hard rules (lock, together, apart), its conflicts, its swap mode
/// (`from=`), hostile names in its URL and `avoid=0` give exactly what `fragstats balance` gives
/// for the same input (`--lock`, `--together`, `--apart`, `--from`, `--max-swaps`,
/// `--no-avoid-last`), on the bot logs, through every search (every split, meeting in the middle
/// with rules across its cut, the local search); the rules are made by clicking too.
#[test]
fn balance_page_rules_and_swaps_agree_with_the_cli() {
    // avoid_last on in the config: the page's default and the CLI's; `avoid=0` and
    // `--no-avoid-last` turn it off.
    let Some((tmp, out, chromedriver)) =
        balance_site("title = \"Rules test\"\n[balance]\navoid_last = true\n")
    else {
        return;
    };
    let data = common::balance_data(&std::fs::read_to_string(out.join("data/balance.js")).unwrap());
    let known: Vec<String> = data.players.iter().map(|p| p.name.clone()).collect();
    assert!(known.len() >= 16, "too few players: {known:?}");
    let with_fresh = |size: usize| -> Vec<String> {
        let mut names = known.clone();
        names.extend((0..size).map(|i| format!("Qzvxw{i}jkq")));
        names.truncate(size);
        names
    };

    let driver = Driver::start(&chromedriver);
    driver.size(1280, 844);
    let url = |case: &Case, extra: &str| {
        format!(
            "file://{}{}{extra}",
            out.join("balance.html").display(),
            case.query()
        )
    };
    let read = "var pick = function (box) {\
        var side = function (s) { return Array.prototype.map.call(box.querySelectorAll('.balance-' + s + ' li .balance-name'),\
          function (li) { return li.textContent; }); };\
        return { red: side('red'), blue: side('blue'), p_red_wins: parseFloat(box.getAttribute('data-p')) }; };\
      var swaps = document.getElementById('balance-swaps'), current = document.getElementById('balance-current');\
      var conflict = document.querySelector('.balance-conflict');\
      return { state: document.getElementById('balance-result').getAttribute('data-state'),\
        error: document.getElementById('balance-error').textContent,\
        link_note: document.getElementById('balance-link-note').textContent,\
        conflict: conflict ? conflict.getAttribute('data-conflict') : null,\
        splits: Array.prototype.map.call(document.querySelectorAll('#balance-result > .balance-split'), pick),\
        current: current ? pick(current) : null,\
        swaps: swaps ? Array.prototype.map.call(swaps.querySelectorAll('.balance-swap-list li'), function (li) {\
          return { to_blue: li.getAttribute('data-to-blue'), to_red: li.getAttribute('data-to-red'),\
            p_red_wins: parseFloat(li.getAttribute('data-p')) }; }) : null,\
        no_swap: !!document.querySelector('.balance-no-swap'),\
        warnings: Array.prototype.map.call(document.querySelectorAll('.balance-warning'), function (li) { return li.textContent; }),\
        last: (function () { var li = document.querySelector('.balance-avoided, .balance-kept'); return li ? li.textContent : null; })(),\
        injected: document.querySelectorAll('main img').length };";
    // The CLI's JSON (or its one-line error) for a case, with more flags.
    let cli = |case: &Case, more: &[&str]| common::balance::command(tmp.path(), &out, case, more);
    // The page shows what the CLI gives; returns the CLI's answer.
    let check = |case: &Case, more: &[&str], extra: &str| -> Result<Value, String> {
        let what = format!("{} {more:?}", case.query());
        let answer = cli(case, more);
        driver.open(&url(case, extra));

        let shown = driver.js(read, json!([]));
        if case.names.len() >= 40 {
            // The search runs as the page loads, before DOMContentLoaded.
            let ms = driver.js(
                "var n = performance.getEntriesByType('navigation')[0];\
                 return n.domContentLoadedEventEnd - n.responseEnd;",
                json!([]),
            );
            eprintln!(
                "{} players, {} locks, {} together, {} apart: page loaded and searched in {:.0} ms",
                case.names.len(),
                case.lock.len(),
                case.together.len(),
                case.apart.len(),
                ms.as_f64().unwrap_or(f64::NAN)
            );
        }
        assert_eq!(shown["injected"], 0, "a name became markup: {what}");
        assert_eq!(shown["error"], "", "{what}: {shown}");
        if extra.is_empty() {
            assert_eq!(
                shown["link_note"], "",
                "a readable link is read whole: {what}"
            );
        }
        match &answer {
            Err(e) => {
                assert_eq!(
                    shown["state"], "conflict",
                    "{what}: cli {e:?}, page {shown}"
                );
                assert_eq!(shown["conflict"], e.as_str(), "{what}");
            }
            Ok(cli) => {
                assert_eq!(shown["state"], "ready", "{what}: {shown}");
                let splits = shown["splits"].as_array().unwrap();
                let expected = cli_splits(cli);
                assert_eq!(splits.len(), expected.len(), "{what}: {shown}");
                for (p, c) in splits.iter().zip(&expected) {
                    same_split(&what, p, c);
                }
                same_notes(&what, &shown, cli);
                if let Some(swaps) = cli["swaps"].as_array() {
                    same_split(&what, &shown["current"], &cli["current"]);
                    let listed = shown["swaps"].as_array().unwrap();
                    assert_eq!(listed.len(), swaps.len(), "{what}: {shown}");
                    for (p, c) in listed.iter().zip(swaps) {
                        assert_eq!(
                            (&p["to_blue"], &p["to_red"]),
                            (&c["to_blue"], &c["to_red"]),
                            "{what}"
                        );
                        let (pp, cp) = (
                            p["p_red_wins"].as_f64().unwrap(),
                            c["p_red_wins"].as_f64().unwrap(),
                        );
                        assert!((pp - cp).abs() < 1e-9, "{what}: page {pp}, cli {cp}");
                    }
                    assert_eq!(shown["no_swap"], swaps.is_empty(), "{what}");
                } else {
                    assert_eq!(shown["swaps"], Value::Null, "{what}");
                }
            }
        }
        // The lobby, the rules and the options live in the URL: the page's own address gives
        // the same answer.
        let here = driver.js("return location.href;", json!([]));
        driver.open(here.as_str().unwrap());
        let again = driver.js(read, json!([]));
        for key in [
            "state", "conflict", "splits", "current", "swaps", "warnings",
        ] {
            assert_eq!(
                again[key], shown[key],
                "{what}: {key} after a reload of {here}"
            );
        }
        let errors = driver.errors();
        assert!(errors.is_empty(), "{what}: {errors:?}");
        answer
    };
    let k = |i: usize| known[i].clone();
    let mut lobbies = vec![known[..10].to_vec(), known[..16].to_vec(), known.clone()];
    lobbies.push(with_fresh(30));
    lobbies.push(with_fresh(40));
    lobbies.push(with_fresh(44));
    let mut kept = 0;
    for names in &lobbies {
        let n = names.len();
        let last = |j: usize| names[n - 1 - j].clone();
        let mut cases = Vec::new();
        let mut c = Case::of(names);
        c.lock = vec![(k(0), "red"), (k(1), "red")];
        cases.push(c);
        let mut c = Case::of(names);
        c.together = vec![vec![k(2), k(3), k(4)]];
        c.apart = vec![[k(0), k(5)]];
        cases.push(c);
        let mut c = Case::of(names);
        c.lock = vec![(k(0), "blue")];
        c.together = vec![vec![k(0), k(6)], vec![k(7), k(8)]];
        c.apart = vec![[k(1), k(2)]];
        cases.push(c);
        // Rules across the cut of the meet-in-the-middle search (low half: the first n/2).
        let mut c = Case::of(names);
        c.together = vec![vec![k(3), last(1)], vec![k(4), last(3)]];
        c.apart = vec![[k(1), last(2)]];
        c.lock = vec![(last(0), "red"), (k(2), "blue")];
        cases.push(c);
        for case in &cases {
            check(case, &[], "").unwrap();
            kept += 1;
        }
    }
    // A link written by hand whose rules name players `players=` does not: the command adds
    // them to the lobby (after the names), and so does the page, which lists them.
    let mut c = Case::of(&known[..7]);
    c.lock = vec![(k(9), "blue")];
    c.together = vec![vec![k(0), k(8)]];
    check(&c, &[], "").unwrap();
    let listed = driver.js(
        "return document.querySelectorAll('#balance-lobby > li').length;",
        json!([]),
    );
    assert_eq!(
        listed, 9,
        "the players the rules name are in the lobby list"
    );
    // Parts of a link that cannot be read are left out, as the command would refuse them, and
    // the page names each one instead of dropping it without a word; the rest still balances.
    let c = Case::of(&known[..8]);
    let unreadable = [
        "lock=Bot%20A:green",
        "apart=a+b+c",
        "together=a",
        "swaps=x",
        "clans=maybe",
        "seed=99999999999",
    ];
    let extra = format!("&{}", unreadable.join("&"));
    check(&c, &[], &extra).unwrap();
    // (check ends on the link as the page rewrote it, with the unreadable parts left out.)
    driver.open(&url(&c, &extra));
    let note = driver.js(
        "return document.getElementById('balance-link-note').textContent;",
        json!([]),
    );
    let note = note.as_str().unwrap();
    for part in [
        "lock=Bot A:green",
        "apart=a+b+c",
        "together=a",
        "swaps=x",
        "clans=maybe",
        "seed=99999999999",
    ] {
        assert!(note.contains(part), "{part} is not named in {note:?}");
    }
    // Conflicts, named in the CLI's words.
    let l10 = known[..10].to_vec();
    let mut conflicts = Vec::new();
    let mut c = Case::of(&l10);
    c.lock = vec![(k(0), "red"), (k(1), "blue")];
    c.together = vec![vec![k(0), k(1)]];
    conflicts.push(c);
    let mut c = Case::of(&l10);
    c.together = vec![vec![k(0), k(1)]];
    c.apart = vec![[k(1), k(0)]];
    conflicts.push(c);
    let mut c = Case::of(&l10);
    c.lock = vec![(k(3), "red"), (k(3), "blue")];
    conflicts.push(c);
    let mut c = Case::of(&l10);
    c.together = vec![known[..6].to_vec()];
    conflicts.push(c);
    let mut c = Case::of(&l10);
    c.lock = vec![(k(0), "blue"), (k(1), "blue")];
    c.apart = vec![[k(0), k(1)]];
    conflicts.push(c);
    let mut c = Case::of(&l10);
    c.lock = (0..4).map(|i| (k(i), "red")).collect();
    c.together = vec![vec![k(3), k(4), k(5)]];
    conflicts.push(c);
    for case in &conflicts {
        let err = check(case, &[], "").expect_err("a conflict");
        assert!(err.contains("must play") || err.contains("locked"), "{err}");
    }
    // Hostile names (each a newcomer) in every part of the URL.
    let evil = "Zz,;+&#=%\u{fc} \u{540d}:red".to_string();
    let evil2 = "Qq;+&#=% \u{e9}:x".to_string();
    let img = "<img src=x onerror=alert(1)>".to_string();
    let mut names = known[..6].to_vec();
    names.extend([evil.clone(), evil2.clone(), img.clone()]);
    let mut c = Case::of(&names);
    c.lock = vec![(evil.clone(), "blue")];
    c.together = vec![vec![evil2.clone(), k(0)]];
    c.apart = vec![[k(1), img.clone()]];
    check(&c, &[], "").unwrap();
    // The guard on a hard together group: named, never broken.
    let guard: Vec<String> = ["=XiX=Witch", "=XiX=Grunt", "Ayumi", "Beret"]
        .iter()
        .map(|n| n.to_string())
        .collect();
    let mut c = Case::of(&guard);
    c.together = vec![guard[..2].to_vec()];
    let answer = check(&c, &[], "").unwrap();
    let warning = answer["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.starts_with("keeping =XiX=Witch, =XiX=Grunt together makes one side a sure winner"),
        "{answer}"
    );
    // avoid_last is on in the config; --no-avoid-last and avoid=0 turn it off.
    let plain = Case::of(&known[..12]);
    let on = check(&plain, &[], "").unwrap();
    assert!(!on["last_match"].is_null(), "{on}");
    let off = check(&plain, &["--no-avoid-last"], "&avoid=0").unwrap();
    assert!(off["last_match"].is_null(), "{off}");

    // Swap mode: the teams as they are, the fewest swaps, each with the cumulative p.
    let l8 = known[..8].to_vec();
    let mut swap_cases = Vec::new();
    for (names, max) in [
        (l8.clone(), None),
        (l8.clone(), Some(3)),
        (known[..16].to_vec(), Some(1)),
    ] {
        let mut c = Case::of(&names);
        let half = names.len() / 2;
        // The strongest players on one side (data/balance.js lists them by skill? not needed:
        // any line-up will do), in the order the page writes `from=`.
        c.from = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), if i < half { "red" } else { "blue" }))
            .collect();
        c.max_swaps = max;
        swap_cases.push(c);
    }
    let mut c = swap_cases[0].clone();
    c.lock = vec![(k(0), "red")];
    c.together = vec![vec![k(5), k(6)]];
    swap_cases.push(c);
    let mut moved = 0;
    for case in &swap_cases {
        let answer = check(case, &[], "").unwrap();
        moved += answer["swaps"].as_array().unwrap().len();
    }
    assert!(moved >= 2, "no case proposed a swap");
    // Teams already the fairest: no swap.
    let best = cli(&Case::of(&l8), &[]).unwrap();
    let mut c = Case::of(&l8);
    for side in ["red", "blue"] {
        for n in best[side].as_array().unwrap() {
            c.from.push((n.as_str().unwrap().to_string(), side));
        }
    }
    let answer = check(&c, &[], "").unwrap();
    assert_eq!(answer["swaps"], json!([]), "{answer}");
    eprintln!(
        "{kept} rule cases, {} conflicts, {} swap cases agree",
        conflicts.len(),
        swap_cases.len() + 1
    );

    // "The players of match X": a team match page's link opens the page on the swaps from the
    // teams as they played, as `--from` gives them.
    let mut linked = 0;
    let mut pages: Vec<PathBuf> = std::fs::read_dir(out.join("matches"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    pages.sort();
    for page in pages {
        let html = std::fs::read_to_string(&page).unwrap();
        let Some(at) = html.find("class=\"balance-link\" href=\"../balance.html?players=") else {
            continue;
        };
        let rest = &html[at + "class=\"balance-link\" href=\"../balance.html?players=".len()..];
        let query = rest[..rest.find('"').unwrap()].replace("&amp;", "&");
        let (names, from) = query.split_once("&from=").unwrap();
        let decode = |t: &str| -> String {
            let v = driver.js("return decodeURIComponent(arguments[0]);", json!([t]));
            v.as_str().unwrap().to_string()
        };
        let mut c = Case::of(&names.split(',').map(decode).collect::<Vec<_>>());
        c.from = from
            .split(',')
            .map(|item| {
                let (n, side) = item.rsplit_once(':').unwrap();
                (decode(n), if side == "red" { "red" } else { "blue" })
            })
            .collect();
        assert_eq!(
            c.query(),
            format!("?players={query}"),
            "the link is the page's own URL form"
        );
        let answer = check(&c, &[], "").unwrap();
        assert!(answer["swaps"].is_array(), "{answer}");
        linked += 1;
        if linked == 3 {
            break;
        }
    }
    assert_eq!(linked, 3, "team match pages link their players");

    // The rules made by clicking: tick two players, keep them together, lock a third.
    driver.open(&url(&Case::of(&l8), ""));
    for i in [0, 1] {
        let xpath = format!(
            "(//ul[@id='balance-lobby']//input[@type='checkbox'])[{}]",
            i + 1
        );
        driver.click(&driver.find(&xpath));
    }
    driver.click(&driver.find("//button[@id='balance-together']"));
    driver.js(
        "var s = document.querySelectorAll('#balance-lobby select')[4];\
         s.value = 'blue'; s.dispatchEvent(new Event('change'));",
        json!([]),
    );
    let mut c = Case::of(&l8);
    c.together = vec![vec![k(0), k(1)]];
    c.lock = vec![(k(2), "blue")];
    let search = driver.js("return location.search;", json!([]));
    assert_eq!(
        search.as_str().unwrap(),
        c.query(),
        "the page wrote the rules into its URL"
    );
    let rules = driver.js(
        "return Array.prototype.map.call(document.querySelectorAll('#balance-rules li'), function (li) { return li.firstChild.textContent; });",
        json!([]),
    );
    assert_eq!(rules, json!([format!("{}, {} play together", k(0), k(1))]));
    check(&c, &[], "").unwrap();

    // Desktop and phone: the page with rules and swaps fits.
    let shots = std::env::var_os("FRAGSTATS_SHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| tmp.path().join("shots"));
    std::fs::create_dir_all(&shots).unwrap();
    let mut c = swap_cases[3].clone();
    c.names.push(evil.clone());
    c.from.push((evil, "blue"));
    c.apart = vec![[k(1), k(2)]];
    driver.open(&url(&c, ""));
    for width in [1280, 390] {
        driver.size(width, 844);
        let wide = driver.js("return document.documentElement.scrollWidth;", json!([]));
        assert!(
            wide.as_u64().unwrap() <= width as u64,
            "balance.html with rules is {wide} px wide at {width}"
        );
        let png = driver.screenshot(width);
        assert!(png.starts_with(b"\x89PNG") && png.len() > 5000);
        std::fs::write(shots.join(format!("balance-rules-{width}.png")), png).unwrap();
    }
}

/// Issue 18: on a crowd of thousands of names the search box loads `data/search.js` and one
/// shard, finds a player by their full name, lists a fragment of every name ("pl" of every
/// `Player<k>`) from a capped shard, and asks for a second letter. Its player pages (over
/// `rank_shards_above`) show the headline and Becker ranks `data/players.json` gives, loaded
/// from `data/ranks/`.
#[test]
fn crowd_search_loads_one_small_shard_in_chromium() {
    let Some(chromedriver) = chromedriver() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("crowd.log");
    std::fs::write(&log, common::crowd::crowd_log(800, 20_000, 20, 7)).unwrap();
    let out = common::build_in(
        tmp.path(),
        "crowd",
        &[log],
        "[ladder]\nrank_shards_above = 1000\n",
    );
    let players = common::json_array(&out, "data/players.json");
    assert!(players.len() > 2500, "only {} players", players.len());
    // A player of the crowd who played once: far down every list.
    let last = players.iter().rev().find(|p| p["matches"] == 1).unwrap();
    let name = last["plain_name"].as_str().unwrap().to_string();
    let href = last["url"].as_str().unwrap().to_string();

    let driver = Driver::start(&chromedriver);
    driver.open(&format!("file://{}", out.join("index.html").display()));
    let found = driver.search(&name.to_uppercase());
    assert!(found.contains(&(name.clone(), href)), "{name}: {found:?}");
    let loaded = driver.js(
        "return Array.prototype.map.call(document.querySelectorAll('script[src]'),\
           function (e) { return e.src; })\
           .filter(function (n) { return n.indexOf('/data/search') >= 0; });",
        json!([]),
    );
    // The scripts the page holds (file:// loads are not in the resource timing list): the
    // shard table, and a shard for each keystroke that could not use one loaded before ("pl",
    // then one holding every name with a rarer pair).
    let loaded: Vec<String> = serde_json::from_value(loaded).unwrap();
    assert!(
        loaded.iter().any(|s| s.ends_with("/data/search.js")),
        "{loaded:?}"
    );
    assert!(loaded.len() <= 4, "{loaded:?}");
    let whole = std::fs::metadata(out.join("data/search-index.js"))
        .unwrap()
        .len();
    let sizes: Vec<u64> = loaded
        .iter()
        .map(|s| {
            std::fs::metadata(s.strip_prefix("file://").unwrap())
                .unwrap()
                .len()
        })
        .collect();
    assert!(
        sizes.iter().all(|&s| s < 128 << 10),
        "{loaded:?}: {sizes:?}"
    );
    // The shard the full name was found in (the script added last).
    let used = sizes[loaded.len() - 2];
    assert!(used * 4 < whole, "{loaded:?}: {sizes:?} of {whole} bytes");

    // In every name: a full list from the capped shard, best-rated first.
    let common_fragment = driver.search("pl");
    assert_eq!(common_fragment.len(), 12, "{common_fragment:?}");
    let one = driver.search("p");
    assert!(one.is_empty(), "{one:?}");
    let notes = driver.js(
        "return document.getElementById('search-results').textContent;",
        json!([]),
    );
    assert!(
        notes.as_str().unwrap().contains("one more letter"),
        "{notes}"
    );
    assert!(driver.errors().is_empty(), "{:?}", driver.errors());
    check_shard_ranks(&driver, &out, &players);
}

/// The places a player may hold on a list by `value` (higher first) among `on`: from one
/// more than the count of better values to the count of values at least as good (ties).
fn places(
    players: &[Value],
    on: impl Fn(&Value) -> bool,
    value: &str,
    p: &Value,
) -> (usize, usize) {
    let v = p[value].as_f64().unwrap();
    let listed = players
        .iter()
        .filter(|q| on(q))
        .map(|q| q[value].as_f64().unwrap());
    let better = listed.clone().filter(|&w| w > v).count();
    (better + 1, listed.filter(|&w| w >= v).count())
}

/// Player pages of a site over `rank_shards_above` show, once their shard script ran, the
/// ranks `data/players.json` gives: the headline rank among the ranked (neither provisional
/// nor inactive) and the Becker rank among all.
fn check_shard_ranks(driver: &Driver, out: &Path, players: &[Value]) {
    let ranked = |q: &Value| q["provisional"] == false && q["active"] == true;
    let mut best: Vec<&Value> = players.iter().filter(|q| ranked(q)).collect();
    best.sort_by(|a, b| {
        b["headline_rating"]
            .as_f64()
            .unwrap()
            .total_cmp(&a["headline_rating"].as_f64().unwrap())
    });
    assert!(best.len() > 10, "only {} ranked", best.len());
    let unranked = players.iter().find(|q| !ranked(q)).unwrap();
    for p in [
        best[0],
        best[best.len() / 2],
        best[best.len() - 1],
        unranked,
    ] {
        let url = p["url"].as_str().unwrap();
        let html = std::fs::read_to_string(out.join(url)).unwrap();
        assert!(html.contains("data/ranks/"), "{url}: no rank shard");
        driver.open(&format!("file://{}", out.join(url).display()));
        let shown = driver.js(
            "return Array.prototype.map.call(document.querySelectorAll('[data-rank]'),\
               function (e) { return e.dataset.rank + ' ' + e.textContent; });",
            json!([]),
        );
        let shown: Vec<String> = serde_json::from_value(shown).unwrap();
        let rank = |kind: &str| -> Option<usize> {
            let text = shown
                .iter()
                .find_map(|s| s.strip_prefix(&format!("{kind} ")))?;
            Some(
                text.strip_prefix('#')
                    .unwrap_or_else(|| panic!("{url}: {shown:?}"))
                    .parse()
                    .unwrap(),
            )
        };
        let (lo, hi) = places(players, |_| true, "rating", p);
        let becker = rank("becker").unwrap_or_else(|| panic!("{url}: {shown:?}"));
        assert!(
            (lo..=hi).contains(&becker),
            "{url}: Becker #{becker}, not {lo}..={hi}"
        );
        if ranked(p) {
            let (lo, hi) = places(players, ranked, "headline_rating", p);
            let headline = rank("headline").unwrap_or_else(|| panic!("{url}: {shown:?}"));
            assert!(
                (lo..=hi).contains(&headline),
                "{url}: #{headline}, not {lo}..={hi}"
            );
        } else {
            assert_eq!(rank("headline"), None, "{url}: {shown:?}");
        }
    }
    assert!(driver.errors().is_empty(), "{:?}", driver.errors());
}

/// Issue 18: on a crowd over `rank_shards_above` with two game type ladders and monthly
/// seasons, a player page's ranks on each ladder and in each season (with the season's count
/// of ranked players) load from `data/ranks/` and are those of `data/ladders.json` and
/// `data/seasons.json`, at desktop and phone width.
#[test]
fn crowd_ladder_and_season_ranks_load_from_shards_in_chromium() {
    let Some(chromedriver) = chromedriver() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("crowd.log");
    let text = common::crowd::crowd_log(400, 5_000, 20, 7);
    std::fs::write(&log, common::crowd::with_ladders_and_dates(&text, 7)).unwrap();
    let out = common::build_in(
        tmp.path(),
        "crowd",
        &[log],
        "[ladder]\nrank_shards_above = 500\n[seasons]\nevery = \"month\"\n",
    );
    let players = common::json_array(&out, "data/players.json");
    assert!(players.len() > 500, "only {} players", players.len());
    let ladders = common::json_array(&out, "data/ladders.json");
    let seasons = common::json_array(&out, "data/seasons.json");
    assert_eq!(ladders.len(), 2, "free for all and duel");
    assert!(seasons.len() >= 3, "{} seasons", seasons.len());
    // The text the page should show for `key` on a ladder or in a season (None: not on it).
    let on = |list: &[Value], name: &str, key: &str| -> Option<(Value, usize)> {
        let board = list.iter().find(|l| l["name"] == name)?;
        let all = board["players"].as_array().unwrap();
        let ranked = all.iter().filter(|p| !p["rank"].is_null()).count();
        let p = all.iter().find(|p| p["plain_name"] == key)?;
        Some((p["rank"].clone(), ranked))
    };
    // The regular on every ladder and in every season, a player unranked on a ladder, and a
    // player provisional in a season.
    let mut keys = vec!["Player0".to_string()];
    let unranked = ladders.iter().find_map(|l| {
        let p = l["players"]
            .as_array()?
            .iter()
            .find(|p| p["rank"].is_null())?;
        Some(p["plain_name"].as_str()?.to_string())
    });
    keys.extend(unranked);
    let provisional = seasons.iter().find_map(|s| {
        let p = s["players"]
            .as_array()?
            .iter()
            .find(|p| p["rank"].is_null())?;
        Some(p["plain_name"].as_str()?.to_string())
    });
    keys.extend(provisional);
    assert_eq!(keys.len(), 3, "{keys:?}");

    let driver = Driver::start(&chromedriver);
    let shots = std::env::var_os("FRAGSTATS_SHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| tmp.path().join("shots"));
    std::fs::create_dir_all(&shots).unwrap();
    let (mut ladder_ranks, mut season_ranks) = (0, 0);
    for key in &keys {
        let p = players
            .iter()
            .find(|p| p["plain_name"] == key.as_str())
            .unwrap();
        let url = p["url"].as_str().unwrap();
        let html = std::fs::read_to_string(out.join(url)).unwrap();
        assert!(
            html.contains("data-rank=\"ladder\""),
            "{url}: no ladder rank to load"
        );
        assert!(
            html.contains("data-rank=\"season\""),
            "{url}: no season rank to load"
        );
        for width in [1280, 390] {
            driver.size(width, 844);
            driver.open(&format!("file://{}", out.join(url).display()));
            // [kind, the ladder's or season's name, the text shown]
            let shown = driver.js(
                "return Array.prototype.map.call(\
                   document.querySelectorAll('[data-rank=ladder], [data-rank=season]'),\
                   function (e) {\
                     var name = e.dataset.rank == 'ladder' ? e.previousElementSibling\
                       : e.closest('tr').querySelector('a');\
                     return [e.dataset.rank, name.textContent, e.textContent];\
                   });",
                json!([]),
            );
            let shown: Vec<[String; 3]> = serde_json::from_value(shown).unwrap();
            for [kind, name, text] in &shown {
                let list = if kind == "ladder" { &ladders } else { &seasons };
                let (rank, ranked) =
                    on(list, name, key).unwrap_or_else(|| panic!("{url}: {name} {shown:?}"));
                let expected = match (kind.as_str(), rank.as_u64()) {
                    ("ladder", Some(r)) => format!("#{r}"),
                    ("ladder", None) => "unranked".into(),
                    (_, Some(r)) => format!("{r} of {ranked}"),
                    (_, None) => "provisional".into(),
                };
                assert_eq!(text, &expected, "{url} at {width} px: {kind} {name}");
                *if kind == "ladder" {
                    &mut ladder_ranks
                } else {
                    &mut season_ranks
                } += 1;
            }
            let wide = driver.js("return document.documentElement.scrollWidth;", json!([]));
            assert!(
                wide.as_u64().unwrap() <= width as u64,
                "{url} is {wide} px wide at {width}"
            );
            let png = driver.screenshot(width);
            assert!(png.starts_with(b"\x89PNG") && png.len() > 5000);
            std::fs::write(shots.join(format!("{key}-{width}.png")), png).unwrap();
        }
    }
    assert!(
        ladder_ranks >= 8 && season_ranks >= 8,
        "{ladder_ranks} {season_ranks}"
    );
    assert!(driver.errors().is_empty(), "{:?}", driver.errors());
}

/// Issue 42: a map page's heatmap switch works with no script (radio buttons and the
/// stylesheet): one pair of panels shows at a time, a click on a side shows that side's, and the
/// panels are the map's one SVG file shown by its views; the phone width stacks them.
#[test]
fn heatmap_switch_shows_one_side_at_a_time_in_chromium() {
    let Some(chromedriver) = chromedriver() else {
        return;
    };
    if !common::has_shared_data() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    // A real server's log starts with its map; this upload lost that line.
    let log = std::fs::read(common::shared().join("public/hl-tf2/full_kothviaduct.log")).unwrap();
    let text = String::from_utf8_lossy(&log);
    let (first, rest) = text.split_once('\n').unwrap();
    std::fs::write(
        logs.join("koth.log"),
        format!("{first}\nL 02/07/2011 - 18:25:57: Loading map \"koth_viaduct\"\n{rest}"),
    )
    .unwrap();
    let out = common::build_in(tmp.path(), "site", &[logs], "");
    let driver = Driver::start(&chromedriver);
    driver.size(1280, 900);
    driver.open(&format!(
        "file://{}",
        out.join("maps/koth-viaduct.html").display()
    ));
    let shown = "return Array.prototype.map.call(document.querySelectorAll('.heat-panels'), \
        function (p) { var s = getComputedStyle(p).display; if (s === 'none') return null; \
        return Array.prototype.map.call(p.querySelectorAll('img.heat-layer'), function (i) { \
        return [i.getAttribute('src'), i.naturalWidth, i.getBoundingClientRect().width]; }); });";
    let wait_images = "return Array.prototype.every.call(document.querySelectorAll('.heat-panels'), \
        function (p) { return getComputedStyle(p).display === 'none' || \
        Array.prototype.every.call(p.querySelectorAll('img'), function (i) { return i.complete && i.naturalWidth > 0; }); });";
    driver.wait_for("the shown panels' images", wait_images);
    let first = driver.js(shown, json!([]));
    let visible: Vec<&Value> = first
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| !v.is_null())
        .collect();
    assert_eq!(visible.len(), 1, "one pair of panels at a time: {first}");
    let pair = visible[0].as_array().unwrap();
    assert!(
        pair[0][0]
            .as_str()
            .unwrap()
            .ends_with("koth-viaduct-heat.svg#kills-all"),
        "{first}"
    );
    assert!(
        pair[1][0]
            .as_str()
            .unwrap()
            .ends_with("koth-viaduct-heat.svg#deaths-all"),
        "{first}"
    );
    assert!(
        pair.iter().all(|p| p[1].as_u64().unwrap() > 0),
        "the views load: {first}"
    );
    // Side by side on a desktop.
    assert!(pair[0][2].as_f64().unwrap() > 100.0, "{first}");
    let red = driver.find("//label[starts-with(normalize-space(.), 'RED')]");
    driver.click(&red);
    driver.wait_for("the RED panels' images", wait_images);
    let after = driver.js(shown, json!([]));
    let visible: Vec<&Value> = after
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| !v.is_null())
        .collect();
    assert_eq!(visible.len(), 1, "{after}");
    assert!(
        visible[0][0][0]
            .as_str()
            .unwrap()
            .ends_with("#kills-side-red"),
        "{after}"
    );
    assert!(
        visible[0][1][0]
            .as_str()
            .unwrap()
            .ends_with("#deaths-side-red"),
        "{after}"
    );
    let errors = driver.errors();
    assert!(errors.is_empty(), "{errors:?}");
    let shots = std::env::var_os("FRAGSTATS_SHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| tmp.path().join("shots"));
    std::fs::create_dir_all(&shots).unwrap();
    for width in [1280, 390] {
        let png = driver.screenshot(width);
        assert!(png.starts_with(b"\x89PNG") && png.len() > 5000);
        std::fs::write(shots.join(format!("heatmap-red-{width}.png")), png).unwrap();
    }
}
