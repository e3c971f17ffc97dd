//! The servers list (`servers.html`) and each server's page (`servers/<slug>.html`): matches,
//! maps, top players and activity per server. A match's server is the `[[servers]]` entry whose
//! `logs` hold its log, else its `sv_hostname` with colour codes removed.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Component, Path};

use rayon::prelude::*;

use crate::config::Config;
use crate::model::names::plain_name;
use crate::render::helpers::*;
use crate::render::match_servers::ServerMatches;
use crate::render::pages::match_page;
use crate::render::renderer::Renderer;
use crate::render::views::*;

/// A server's page lists this many latest matches.
const SERVER_MATCH_ROWS: usize = 200;

/// The name of the `[[servers]]` entry whose `logs` hold the log at `source`, if one does: the
/// name of the server of its matches on the site (else [`logged_server`]).
pub(in crate::render) fn configured_server<'c>(
    config: &'c Config,
    site_dir: &Path,
    source: &str,
) -> Option<&'c str> {
    (config.servers.iter())
        .find(|server| (server.logs.iter()).any(|path| holds(config, site_dir, path, source)))
        .map(|server| server.name.as_str())
}

/// The site's name of a server its log names `server` (its `sv_hostname`): without colour
/// codes, "unknown server" when empty.
pub(in crate::render) fn logged_server(server: &str) -> String {
    match plain_name(server) {
        s if s.is_empty() => "unknown server".to_string(),
        s => s,
    }
}

/// Whether the log file or folder `path` (relative to site.toml) holds the log at `source`
/// (relative to one of the config's log roots).
fn holds(config: &Config, site_dir: &Path, path: &Path, source: &str) -> bool {
    let target = normal(&site_dir.join(path));
    config.logs.iter().any(|root| {
        let root = normal(&site_dir.join(root));
        let Ok(rel) = target.strip_prefix(&root) else {
            return false;
        };
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let src: Vec<&str> = source.split('/').collect();
        // A root that is a file: its matches' source is the file name.
        if rel.is_empty() {
            return true;
        }
        src.len() >= rel.len() && src.iter().zip(&rel).all(|(a, b)| *a == b)
    })
}

/// `path` with `.` and `..` resolved lexically (no file system access).
fn normal(path: &Path) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn server_row(r: &Renderer, name: &str, matches: &[u32]) -> ServerRow {
    // Distinct players in a set: as large as the players the server met, not as its history
    // (a public server's history may also name one server per match: no table per server
    // sized by the roster).
    let mut met: HashSet<u32, ahash::RandomState> = HashSet::default();
    let mut maps = BTreeSet::new();
    let mut frags = 0u64;
    let (mut first, mut last) = (None, None);
    for i in matches.iter().map(|&i| i as usize) {
        met.extend(r.input.roster.match_players.at(i).iter().copied());
        maps.insert(r.match_map_name(i));
        frags += u64::from(r.input.stats.matches[i].counts().frags);
        if let Some(start) = r.input.matches.head(i).start {
            first = first.min(Some(start)).or(Some(start));
            last = last.max(Some(start));
        }
    }
    let day = |t: Option<chrono::NaiveDateTime>| {
        t.map(|t| t.format("%Y-%m-%d").to_string())
            .unwrap_or_default()
    };
    ServerRow {
        name: name.to_string(),
        url: r.links.servers.get(name).cloned().unwrap_or_default(),
        matches: matches.len(),
        players: met.len(),
        frags,
        maps: maps.len(),
        first: day(first),
        last: day(last),
    }
}

/// The row of each server, in byte order of name, from its matches `servers`.
pub(in crate::render) fn server_rows(r: &Renderer, servers: &ServerMatches) -> Vec<ServerRow> {
    let names = r.links.match_servers.names();
    (0..names.len())
        .into_par_iter()
        .map(|s| server_row(r, &names[s], servers.of(s)))
        .collect()
}

/// The rows of `servers.html`: `rows` (from [`server_rows`]), most matches first.
pub(in crate::render) fn server_list(rows: &[ServerRow]) -> Vec<ServerRow> {
    let mut rows = rows.to_vec();
    rows.sort_by(|a, b| b.matches.cmp(&a.matches).then(a.name.cmp(&b.name)));
    rows
}

/// The page of the server whose row is `row` and whose matches are at `matches`: made when
/// it is rendered (a public server's history may name a server per match, and each page
/// lists up to [`SERVER_MATCH_ROWS`] matches).
pub(in crate::render) fn server_page<'s>(
    r: &'s Renderer<'_>,
    row: &ServerRow,
    matches: &[u32],
) -> ServerPage<'s> {
    // Frags per identity, summed in a table of the players met (see `server_row`).
    let mut frags: HashMap<u32, u32, ahash::RandomState> = HashMap::default();
    let mut months: BTreeMap<(i32, u32), (u32, chrono::NaiveDateTime)> = BTreeMap::new();
    for i in matches.iter().map(|&i| i as usize) {
        let m = r.input.matches.head(i);
        let lines = &r.input.stats.matches[i].lines;
        for l in lines {
            let n = frags.entry(l.player).or_default();
            *n = n.saturating_add(l.frags);
        }
        if let Some(t) = m.start {
            use chrono::Datelike;
            months.entry((t.year(), t.month())).or_insert((0, t)).0 += 1;
        }
    }
    // Labelled and ordered by the label, as the months were before (one format
    // per month rather than per match).
    let mut months: Vec<(String, u32)> = months
        .into_values()
        .map(|(count, t)| (t.format("%Y-%m").to_string(), count))
        .collect();
    months.sort();
    let maps = r.map_shares(matches.iter().map(|&i| i as usize));
    let mut top: Vec<(u32, u32)> = frags
        .into_iter()
        .filter(|(p, n)| *n > 0 && !r.input.hidden[*p as usize])
        .collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let top = top
        .into_iter()
        .take(10)
        .map(|(p, count)| {
            let (name_html, url) = r.player_ref(p);
            NamedCount {
                name_html,
                url,
                count,
            }
        })
        .collect();
    let most = months.iter().map(|m| m.1).max().unwrap_or(0);
    let activity = months
        .into_iter()
        .map(|(name, count)| LabelCount {
            name: name.into(),
            count,
            percent: percent(count, most),
            url: "",
        })
        .collect();
    let match_rows = matches
        .iter()
        .rev()
        .take(SERVER_MATCH_ROWS)
        .map(|&i| match_page::match_row(r, i as usize))
        .collect();
    ServerPage {
        row: row.clone(),
        maps,
        top,
        activity,
        match_rows,
    }
}
