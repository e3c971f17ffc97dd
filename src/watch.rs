//! `fragstats watch` and `fragstats serve`: rebuild when the logs, `site.toml`, `templates/`,
//! `static/`, `maps/` or the content folder change, printing one line per rebuild; `serve` also serves the
//! output over HTTP (tiny_http) on 127.0.0.1, or on `--bind ADDR` for a preview from other
//! devices. Opening the files directly keeps working: the server is only a convenience.
//!
//! Paths are watched, not files: an editor's save-by-rename, `sed -i`, a rotated log's new file,
//! or a log path or folder that appears after the start are all seen. Each watched path's nearest
//! existing folder is watched (notify; log and theme folders recursively) and events are kept
//! when they touch a watched path or a folder above one. The watches are set up again after
//! every change, as the config may name other paths and folders may have come or gone. inotify
//! misses some changes (a file behind a symbolic link, a full event queue), so every few seconds
//! the watched paths are also stamped (size, time, inode) and compared. Changes are collected
//! until things are quiet for a moment (at most a few seconds when a log is written without
//! pause), then the site is built once. Does not decide what to read: the build does.

use std::net::{IpAddr, SocketAddr};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use anyhow::Result;
use notify::event::ModifyKind;
use notify::{EventKind, RecursiveMode, Watcher};

use crate::build::{BuildRequest, Plan, build};
use crate::crawl::{Stamp, stamps};

/// Quiet time after the last change before rebuilding.
const DEBOUNCE: Duration = Duration::from_millis(700);
/// Longest wait for quiet: a log written without pause still rebuilds this often.
const MAX_DELAY: Duration = Duration::from_secs(10);
/// How often the watched paths are stamped, for what inotify misses.
const POLL: Duration = Duration::from_secs(2);

/// One line saying how a build went.
pub fn build_line(req: &BuildRequest) -> String {
    let started = Instant::now();
    match build(req) {
        Ok(b) => {
            let skipped: u64 = b
                .diagnostics
                .files
                .iter()
                .map(|f| f.skipped_line_count())
                .sum();
            let files_skipped = b
                .diagnostics
                .files
                .iter()
                .filter(|f| f.file_skipped.is_some())
                .count();
            format!(
                "built in {:.2} s: {} players, {} matches; {} files written, {} unchanged; logs: {} unchanged, {} resumed, {} read whole; {} lines skipped{}{}{}",
                started.elapsed().as_secs_f64(),
                b.players,
                b.matches,
                b.written,
                b.files - b.written,
                b.counts.unchanged,
                b.counts.resumed,
                b.counts.whole,
                skipped,
                if files_skipped > 0 {
                    format!(", {files_skipped} files skipped (run `fragstats build` for the list)")
                } else {
                    String::new()
                },
                if b.archived > 0 {
                    format!(
                        "; archive: {} matches kept from logs that no longer hold them",
                        b.archived
                    )
                } else {
                    String::new()
                },
                b.warnings
                    .iter()
                    .map(|w| format!("; warning: {w}"))
                    .collect::<String>()
            )
        }
        Err(e) => format!("build failed: {e:#}"),
    }
}

/// The paths a build depends on and the paths it writes, absolute, from one reading of the
/// config.
#[derive(Debug, Clone, PartialEq)]
struct Targets {
    /// A change at, under or above one of these asks for a rebuild: site.toml, the log roots,
    /// `templates/`, `static/`, `maps/` (the heatmaps' overviews), the content folder.
    paths: Vec<PathBuf>,
    /// The same paths with links resolved, where different: notify names a folder reached by
    /// two paths by either, and a linked log's writes happen where the link points.
    real: Vec<PathBuf>,
    /// The output folder (both ways): the build writes it and the staging folders beside it.
    out: Vec<PathBuf>,
    /// The state folder (both ways), which the build writes.
    state: Vec<PathBuf>,
}

impl Targets {
    fn new(req: &BuildRequest, plan: &Plan) -> Targets {
        // The config file is watched even before it exists: `site.toml` is read when it appears.
        let config = req
            .config
            .clone()
            .unwrap_or_else(|| PathBuf::from("site.toml"));
        let mut paths = vec![absolute(&config)];
        paths.extend(plan.roots.iter().map(|r| absolute(r)));
        for dir in [
            Path::new("templates"),
            Path::new("static"),
            Path::new("maps"),
            &plan.config.content,
        ] {
            paths.push(absolute(&plan.site_dir.join(dir)));
        }
        paths.sort();
        paths.dedup();
        let both = |p: &Path| {
            let p = absolute(p);
            let real = real(&p).filter(|r| *r != p);
            std::iter::once(p).chain(real).collect()
        };
        let mut real: Vec<PathBuf> = paths
            .iter()
            .filter_map(|p| real(p).filter(|r| r != p))
            .collect();
        real.sort();
        real.dedup();
        Targets {
            paths,
            real,
            out: both(&plan.out),
            state: both(&plan.state_dir),
        }
    }

    /// The watched paths, as given and with links resolved.
    fn all(&self) -> impl Iterator<Item = &PathBuf> {
        self.paths.iter().chain(&self.real)
    }

    /// What the build writes (the output, its staging folders `.NAME.*` beside it, the state):
    /// never a reason to rebuild.
    fn written_by_build(&self, path: &Path) -> bool {
        if self
            .out
            .iter()
            .chain(&self.state)
            .any(|w| path.starts_with(w))
        {
            return true;
        }
        self.out.iter().any(|out| {
            let (Some(name), Some(parent)) = (out.file_name(), out.parent()) else {
                return false;
            };
            let staging = format!(".{}.", name.to_string_lossy());
            path.parent() == Some(parent)
                && path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(&staging))
        })
    }

    /// A change of `kind` at `path` that may change the site: anything at or under a watched
    /// path, or a folder above one appearing, going or renamed; never what the build writes.
    fn concerns(&self, kind: &EventKind, path: &Path) -> bool {
        let path = absolute(path);
        // Only these say that a folder above came or went (its times and links change as
        // the build writes beside the output).
        let moved = matches!(
            kind,
            EventKind::Create(_) | EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_))
        );
        !self.written_by_build(&path)
            && self
                .all()
                .any(|t| path.starts_with(t) || (moved && t.starts_with(&path)))
    }

    /// An event worth a rebuild: anything but a read, on a path that concerns the site. An
    /// error or an event without paths (a full queue to rescan) counts: a build too many is
    /// cheap, a change missed is not.
    fn wants(&self, event: &notify::Result<notify::Event>) -> bool {
        match event {
            Ok(e) if matches!(e.kind, EventKind::Access(_)) => false,
            Ok(e) if e.paths.is_empty() => true,
            Ok(e) => e.paths.iter().any(|p| self.concerns(&e.kind, p)),
            Err(_) => true,
        }
    }

    /// The folders to watch: each watched path that is a folder, recursively, and the nearest
    /// existing folder at or above each watched path, alone (to see the path come and go).
    /// Each with the folder's identity, to tell when a folder was replaced.
    fn watches(&self) -> Vec<Watch> {
        use std::os::unix::fs::MetadataExt;
        let mut out = Vec::new();
        for t in self.all() {
            if let Ok(m) = std::fs::metadata(t)
                && m.is_dir()
            {
                out.push(Watch {
                    path: t.clone(),
                    recursive: true,
                    id: (m.dev(), m.ino()),
                });
            }
            let above = t.ancestors().skip(1).find_map(|a| {
                let m = std::fs::metadata(a).ok()?;
                m.is_dir().then(|| (a.to_path_buf(), (m.dev(), m.ino())))
            });
            if let Some((path, id)) = above {
                out.push(Watch {
                    path,
                    recursive: false,
                    id,
                });
            }
        }
        // Single folders first: notify keeps one record per folder, and a recursive watch set
        // last keeps the folders inside a watched tree watched as they are created.
        // A folder reached by two paths is one inotify watch: watch it once.
        out.sort_by(|a, b| (a.recursive, &a.path).cmp(&(b.recursive, &b.path)));
        let mut seen = std::collections::HashSet::new();
        out.retain(|w| seen.insert((w.recursive, w.id)));
        out
    }

    /// Stamps of everything at or under the watched paths (for the poll).
    fn stamps(&self) -> Vec<(PathBuf, Stamp)> {
        let mut all: Vec<(PathBuf, Stamp)> = self
            .paths
            .iter()
            .flat_map(|t| stamps(t, |p| self.written_by_build(p)))
            .collect();
        all.sort();
        all.dedup();
        all
    }
}

/// One folder watched with notify.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Watch {
    path: PathBuf,
    recursive: bool,
    /// Device and inode of the folder when watched.
    id: (u64, u64),
}

/// The notify watcher and the folders it watches.
struct Armed {
    tx: mpsc::Sender<notify::Result<notify::Event>>,
    watcher: Option<notify::RecommendedWatcher>,
    watches: Vec<Watch>,
}

impl Armed {
    /// Watches what `targets` asks for, unless the same folders are watched already.
    fn arm(&mut self, targets: &Targets) {
        let wanted = targets.watches();
        if self.watcher.is_some() && wanted == self.watches {
            return;
        }
        // A fresh watcher rather than changes to the old one: notify drops every watch under a
        // folder when a recursive watch on it is removed, and a replaced folder's old watch
        // is dead anyway. Events in between are caught by the poll and by the build after this.
        self.watcher = None;
        let mut watcher = match notify::recommended_watcher(self.tx.clone()) {
            Ok(w) => w,
            Err(e) => {
                eprintln!(
                    "warning: cannot watch files ({e}); checking every {} s instead",
                    POLL.as_secs()
                );
                self.watches = wanted;
                return;
            }
        };
        for w in &wanted {
            let mode = if w.recursive {
                RecursiveMode::Recursive
            } else {
                RecursiveMode::NonRecursive
            };
            if let Err(e) = watcher.watch(&w.path, mode) {
                eprintln!(
                    "warning: cannot watch {} ({e}); checking it every {} s instead",
                    w.path.display(),
                    POLL.as_secs()
                );
            }
        }
        self.watcher = Some(watcher);
        self.watches = wanted;
    }
}

/// Builds, then rebuilds after every change, forever.
pub fn watch(req: &BuildRequest) -> Result<()> {
    run(req, None)
}

/// `watch`, keeping `served` (the folder the server reads) on the config's output folder.
fn run(req: &BuildRequest, served: Option<&Mutex<PathBuf>>) -> Result<()> {
    let mut targets = Targets::new(req, &Plan::new(req)?);
    let (tx, rx) = mpsc::channel();
    let mut armed = Armed {
        tx,
        watcher: None,
        watches: Vec::new(),
    };
    armed.arm(&targets);
    // Stamped before the build: a change during the build is a change after it.
    let mut seen = targets.stamps();
    eprintln!("{}", build_line(req));
    eprintln!("watching for changes (Ctrl-C to stop)");
    loop {
        wait_for_change(&rx, &targets, &seen);
        settle(&rx, &targets);
        // The config may have changed what to watch; a config that does not load keeps the
        // last good paths (the build says what is wrong with it).
        if let Ok(plan) = Plan::new(req) {
            if let Some(served) = served {
                *served.lock().unwrap_or_else(|e| e.into_inner()) = plan.out.clone();
            }
            targets = Targets::new(req, &plan);
        }
        armed.arm(&targets);
        seen = targets.stamps();
        eprintln!("{}", build_line(req));
    }
}

/// Returns at the first event that concerns the site, or when the stamps differ from `seen`.
fn wait_for_change(
    rx: &mpsc::Receiver<notify::Result<notify::Event>>,
    targets: &Targets,
    seen: &[(PathBuf, Stamp)],
) {
    let mut next_poll = Instant::now() + POLL;
    loop {
        let left = next_poll.saturating_duration_since(Instant::now());
        if let Ok(event) = rx.recv_timeout(left)
            && targets.wants(&event)
        {
            return;
        }
        if Instant::now() >= next_poll {
            if targets.stamps() != seen {
                return;
            }
            next_poll = Instant::now() + POLL;
        }
    }
}

/// Waits until no change came for `DEBOUNCE`, or `MAX_DELAY` passed.
fn settle(rx: &mpsc::Receiver<notify::Result<notify::Event>>, targets: &Targets) {
    let start = Instant::now();
    let mut last = start;
    loop {
        let until = (last + DEBOUNCE).min(start + MAX_DELAY);
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        if let Ok(event) = rx.recv_timeout(left)
            && targets.wants(&event)
        {
            last = Instant::now();
        }
    }
}

/// `p` with links resolved in its nearest existing part (the rest may not exist yet).
fn real(p: &Path) -> Option<PathBuf> {
    p.ancestors().find_map(|a| {
        let rest = p.strip_prefix(a).ok()?;
        let real = std::fs::canonicalize(a).ok()?;
        Some(if rest.as_os_str().is_empty() {
            real
        } else {
            real.join(rest)
        })
    })
}

fn absolute(p: &Path) -> PathBuf {
    let p = if p.as_os_str().is_empty() {
        Path::new(".")
    } else {
        p
    };
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Serves the output folder on `bind`:`port` and rebuilds on changes.
pub fn serve(req: &BuildRequest, bind: IpAddr, port: u16) -> Result<()> {
    let plan = Plan::new(req)?;
    let wanted = SocketAddr::new(bind, port);
    let server = tiny_http::Server::http(wanted)
        .map_err(|e| anyhow::anyhow!("cannot listen on {wanted}: {e}"))?;
    let bound = server.server_addr().to_ip().unwrap_or(wanted);
    let served = Arc::new(Mutex::new(plan.out.clone()));
    let root = Arc::clone(&served);
    std::thread::spawn(move || {
        for request in server.incoming_requests() {
            let out = root.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let response = match resolve(&out, request.url()) {
                Some(path) => match std::fs::read(&path) {
                    Ok(bytes) => {
                        tiny_http::Response::from_data(bytes).with_header(content_type(&path))
                    }
                    Err(_) => not_found(),
                },
                None => not_found(),
            };
            let _ = request.respond(response);
        }
    });
    let lan = bound
        .ip()
        .is_unspecified()
        .then(|| lan_address(bound.ip()))
        .flatten();
    eprintln!(
        "serving {} on {}",
        plan.out.display(),
        urls(bound, lan).join(" and ")
    );
    if !bound.ip().is_loopback() {
        eprintln!("note: other machines that can reach this address can read the site");
    }
    run(req, Some(&served))
}

/// The URLs to open for a server listening on `bound`: for all addresses (0.0.0.0, ::), this
/// machine's and, when known, its address on the network (`lan`).
fn urls(bound: SocketAddr, lan: Option<IpAddr>) -> Vec<String> {
    let port = bound.port();
    let mut out = Vec::new();
    if bound.ip().is_unspecified() {
        let here: IpAddr = match bound.ip() {
            IpAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
            IpAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
        };
        out.push(format!("http://{}/", SocketAddr::new(here, port)));
        if let Some(lan) = lan {
            out.push(format!("http://{}/", SocketAddr::new(lan, port)));
        }
    } else {
        out.push(format!("http://{bound}/"));
    }
    out
}

/// This machine's address on the route to the outside, of the family of `any`: a UDP socket
/// "connected" to a documentation address (RFC 5737, RFC 3849) learns it without sending
/// anything. None without such a route.
fn lan_address(any: IpAddr) -> Option<IpAddr> {
    let probe: SocketAddr = match any {
        IpAddr::V4(_) => "192.0.2.1:9".parse().ok()?,
        IpAddr::V6(_) => "[2001:db8::1]:9".parse().ok()?,
    };
    let socket = std::net::UdpSocket::bind(SocketAddr::new(any, 0)).ok()?;
    socket.connect(probe).ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_unspecified() && !ip.is_loopback()).then_some(ip)
}

fn not_found() -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    tiny_http::Response::from_data(b"not found".to_vec()).with_status_code(404)
}

/// The file for a request path inside `root`: percent-decoded, query dropped, `index.html` for
/// folders; None for anything that would leave `root`.
pub fn resolve(root: &Path, url: &str) -> Option<PathBuf> {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode(path)?;
    let mut out = root.to_path_buf();
    for c in Path::new(decoded.trim_start_matches('/')).components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if out.is_dir() {
        out.push("index.html");
    }
    out.is_file().then_some(out)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok().filter(|s| !s.contains('\0'))
}

fn content_type(path: &Path) -> tiny_http::Header {
    let kind = match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    };
    tiny_http::Header::from_bytes("Content-Type", kind).unwrap_or_else(|_| {
        tiny_http::Header::from_bytes("Content-Type", "application/octet-stream")
            .expect("static header is valid")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(site: &Path) -> Targets {
        Targets {
            paths: vec![
                site.join("site.toml"),
                site.join("logs/live/games.log"),
                site.join("templates"),
            ],
            real: Vec::new(),
            out: vec![site.join("public")],
            state: vec![site.join(".fragstats")],
        }
    }

    #[test]
    fn changes_count_at_under_or_above_watched_paths_but_not_the_builds_own() {
        let site = Path::new("/srv/site");
        let t = targets(site);
        let write = EventKind::Modify(ModifyKind::Data(notify::event::DataChange::Any));
        let create = EventKind::Create(notify::event::CreateKind::Folder);
        let yes = [
            (&write, "site.toml"),
            (&write, "logs/live/games.log"),
            (&write, "templates/partials/x.html"),
            // logs/ created after the start, on the way to logs/live/games.log
            (&create, "logs"),
        ];
        for (kind, rel) in yes {
            assert!(t.concerns(kind, &site.join(rel)), "{rel}");
        }
        let no = [
            (&write, "site.toml.swp"),
            (&write, "logs/live/games.log.1"),
            (&write, "logs/live/other.log"),
            (&write, "stderr.txt"),
            // a folder above only counts when it comes or goes
            (&write, "logs"),
            (&create, "public/index.html"),
            (&create, ".public.staging-12"),
            (&create, ".public.next"),
            (&create, ".fragstats/state.bin"),
        ];
        for (kind, rel) in no {
            assert!(!t.concerns(kind, &site.join(rel)), "{rel}");
        }
        let read = notify::Event::new(EventKind::Access(notify::event::AccessKind::Any))
            .add_path(site.join("logs/live/games.log"));
        assert!(!t.wants(&Ok(read)));
    }

    #[test]
    fn a_site_reached_through_a_link_is_watched_both_ways() {
        let dir = tempfile::tempdir().unwrap();
        let real_site = std::fs::canonicalize(dir.path()).unwrap().join("real");
        std::fs::create_dir_all(real_site.join("logs")).unwrap();
        std::fs::write(real_site.join("site.toml"), "logs = [\"logs\"]\n").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real_site, &link).unwrap();
        let req = BuildRequest {
            config: Some(link.join("site.toml")),
            ..Default::default()
        };
        let t = Targets::new(&req, &Plan::new(&req).unwrap());
        let write = EventKind::Modify(ModifyKind::Data(notify::event::DataChange::Any));
        for site in [&link, &real_site] {
            assert!(t.concerns(&write, &site.join("site.toml")));
            assert!(t.concerns(&write, &site.join("logs/a.log")));
            // An overview's image or calibration (the heatmaps).
            assert!(t.concerns(&write, &site.join("maps/de_dust2.txt")));
            assert!(!t.concerns(&write, &site.join("public/index.html")));
            assert!(!t.concerns(&write, &site.join(".public.next")));
        }
        // One watch per folder, however it is reached.
        let w = t.watches();
        let ids: std::collections::HashSet<_> = w.iter().map(|w| (w.recursive, w.id)).collect();
        assert_eq!(ids.len(), w.len(), "{w:?}");
    }

    #[test]
    fn watches_the_nearest_existing_folders() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path();
        std::fs::create_dir_all(site.join("templates")).unwrap();
        let w: Vec<(PathBuf, bool)> = targets(site)
            .watches()
            .into_iter()
            .map(|w| (w.path, w.recursive))
            .collect();
        // logs/ does not exist: the site folder is watched for it to appear.
        assert_eq!(
            w,
            vec![(site.to_path_buf(), false), (site.join("templates"), true)]
        );
    }

    #[test]
    fn stamps_change_when_a_file_is_replaced_or_appears() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path();
        let t = targets(site);
        let before = t.stamps();
        std::fs::write(site.join("site.toml"), "title = \"a\"\n").unwrap();
        let written = t.stamps();
        assert_ne!(before, written);
        std::fs::write(site.join("new"), "title = \"b\"\n").unwrap();
        std::fs::rename(site.join("new"), site.join("site.toml")).unwrap();
        assert_ne!(written, t.stamps(), "same size, same second, new inode");
        // Logs read from the site folder itself (`logs = ["."]`): what the build writes there
        // is still no change.
        let t = Targets {
            paths: vec![site.to_path_buf()],
            ..t
        };
        let after = t.stamps();
        std::fs::create_dir_all(site.join("public")).unwrap();
        std::fs::write(site.join("public/index.html"), "x").unwrap();
        std::fs::create_dir_all(site.join(".public.next")).unwrap();
        std::fs::create_dir_all(site.join(".fragstats")).unwrap();
        assert_eq!(after, t.stamps(), "the output is not watched");
    }

    #[test]
    fn urls_for_the_bound_address() {
        let at = |s: &str| s.parse::<SocketAddr>().unwrap();
        assert_eq!(urls(at("127.0.0.1:8000"), None), ["http://127.0.0.1:8000/"]);
        assert_eq!(urls(at("[::1]:8000"), None), ["http://[::1]:8000/"]);
        assert_eq!(urls(at("192.168.1.5:80"), None), ["http://192.168.1.5:80/"]);
        let lan = Some("192.168.1.5".parse().unwrap());
        assert_eq!(
            urls(at("0.0.0.0:8000"), lan),
            ["http://127.0.0.1:8000/", "http://192.168.1.5:8000/"]
        );
        assert_eq!(urls(at("[::]:8000"), None), ["http://[::1]:8000/"]);
    }

    #[test]
    fn requests_cannot_leave_the_site() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("players")).unwrap();
        std::fs::write(dir.path().join("index.html"), "x").unwrap();
        std::fs::write(dir.path().join("players/a b.html"), "x").unwrap();
        assert_eq!(
            resolve(dir.path(), "/"),
            Some(dir.path().join("index.html"))
        );
        assert_eq!(
            resolve(dir.path(), "/players/a%20b.html?q=1"),
            Some(dir.path().join("players/a b.html"))
        );
        assert_eq!(resolve(dir.path(), "/../etc/passwd"), None);
        assert_eq!(resolve(dir.path(), "/%2e%2e/etc/passwd"), None);
        assert_eq!(resolve(dir.path(), "/missing.html"), None);
        assert_eq!(resolve(dir.path(), "/%zz"), None);
    }
}
