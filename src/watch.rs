//! `fragstats watch` and `fragstats serve`: rebuild when the logs, `site.toml`, `templates/`,
//! `static/` or `content/` change (notify; changes are collected until things are quiet for a
//! moment), printing one line per rebuild; `serve` also
//! serves the output on 127.0.0.1 for a local preview (tiny_http). Opening the files directly keeps
//! working: the server is only a convenience.

use std::path::{Component, Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use notify::{EventKind, RecursiveMode, Watcher};

use crate::build::{BuildRequest, Plan, build};

/// Quiet time after the last change before rebuilding.
const DEBOUNCE: Duration = Duration::from_millis(700);

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
            format!(
                "built in {:.2} s: {} players, {} matches; {} files written, {} unchanged; logs: {} unchanged, {} resumed, {} read whole; {} lines skipped{}",
                started.elapsed().as_secs_f64(),
                b.players,
                b.matches,
                b.written,
                b.files - b.written,
                b.counts.unchanged,
                b.counts.resumed,
                b.counts.whole,
                skipped,
                b.warnings
                    .iter()
                    .map(|w| format!("; warning: {w}"))
                    .collect::<String>()
            )
        }
        Err(e) => format!("build failed: {e:#}"),
    }
}

/// Builds, then rebuilds after every change, forever.
pub fn watch(req: &BuildRequest) -> Result<()> {
    let plan = Plan::new(req)?;
    eprintln!("{}", build_line(req));
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(tx).context("cannot watch files")?;
    let mut watched = Vec::new();
    for root in &plan.roots {
        watched.push((root.clone(), RecursiveMode::Recursive));
    }
    for dir in ["templates", "static", "content"] {
        watched.push((plan.site_dir.join(dir), RecursiveMode::Recursive));
    }
    if let Some(c) = &plan.config_file {
        watched.push((c.clone(), RecursiveMode::NonRecursive));
    }
    for (path, mode) in &watched {
        if path.exists() {
            watcher
                .watch(path, *mode)
                .with_context(|| format!("cannot watch {}", path.display()))?;
        }
    }
    eprintln!("watching for changes (Ctrl-C to stop)");
    let ignore = [absolute(&plan.out), absolute(&plan.state_dir)];
    // A change worth a rebuild: content changed (reading a file, as the build does, is not one),
    // outside what the build itself writes.
    let relevant = |event: &notify::Event| {
        !matches!(event.kind, EventKind::Access(_))
            && event
                .paths
                .iter()
                .any(|p| !ignore.iter().any(|i| absolute(p).starts_with(i)))
    };
    while let Ok(event) = rx.recv() {
        if !event.as_ref().is_ok_and(relevant) {
            continue;
        }
        // Wait until uploads are quiet for a moment, then build once.
        while rx.recv_timeout(DEBOUNCE).is_ok() {}
        eprintln!("{}", build_line(req));
    }
    Ok(())
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Serves the output folder on 127.0.0.1:`port` and rebuilds on changes.
pub fn serve(req: &BuildRequest, port: u16) -> Result<()> {
    let plan = Plan::new(req)?;
    let server = tiny_http::Server::http(("127.0.0.1", port))
        .map_err(|e| anyhow::anyhow!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let out = plan.out.clone();
    std::thread::spawn(move || {
        for request in server.incoming_requests() {
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
    eprintln!("serving {} on http://127.0.0.1:{port}/", plan.out.display());
    watch(req)
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
