//! Turns counted data into the files of the site: HTML pages (Tera), static assets and the
//! machine-readable JSON under `data/`. A pure function from data to a list of files; writing them
//! is the output module's job.

pub mod charts;
pub mod colour;
pub mod content;
pub mod data;
pub mod feed;
pub mod markdown;
mod match_list;
pub mod paths;
mod player_list;
pub mod templates;
pub mod views;

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;

use crate::config::Config;
use crate::model::clans::Clans;
use crate::model::identity::Roster;
use crate::model::{EventKind, Match, Team};
use crate::rating::Ratings;
use crate::stats::{MatchStats, Stats};
use colour::name_html;
use paths::unique_slugs;
use templates::{BUILTIN_STATIC, Templates};
use views::*;

/// Everything the site is made from.
pub struct SiteInput<'a> {
    pub config: &'a Config,
    /// Matches in site order (chronological by RANKING.md's rule).
    pub matches: &'a [Match],
    pub roster: &'a Roster,
    pub stats: &'a Stats,
    pub clans: &'a Clans,
    pub ratings: &'a Ratings,
    /// What was read and skipped, published as `data/diagnostics.json`.
    pub diagnostics: &'a crate::diagnostics::Diagnostics,
    /// Keys of the pages already in the output.
    pub cache: &'a PageCache,
    /// Folder of site.toml: its `templates/` and `static/` override the built-ins.
    pub site_dir: &'a Path,
    /// Where the pages of players, maps, clans and matches go as they are rendered (else they
    /// are returned with their bytes).
    pub sink: Option<&'a PageSink<'a>>,
}

/// One file of the output, path relative to the output folder (`/`-separated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    pub path: String,
    /// The file's bytes; empty when `reuse` is set.
    pub bytes: Vec<u8>,
    /// The file at this path in the current output is already right: keep it.
    pub reuse: bool,
    /// What the page was made from (see [`PageCache`]), remembered for the next build.
    pub key: Option<u64>,
    /// `Some(written)` when a [`PageSink`] already put the file into the staging folder (its
    /// bytes are then dropped); `written`: its bytes were new there.
    pub staged: Option<bool>,
}

/// Takes each page as soon as it is rendered (the build writes it into the staging folder) and
/// returns what to keep of it, so a site of many thousands of pages is never all in memory.
pub type PageSink<'a> = dyn Fn(OutputFile) -> Result<OutputFile> + Sync + 'a;

/// Pages of the current output and the key of what each was made from. A page whose key is
/// unchanged is not rendered again: its file is kept. Only pages whose key covers every input
/// of their view use it (match pages, the archive pages of the match list).
#[derive(Debug, Clone, Default)]
pub struct PageCache {
    pub keys: HashMap<String, u64>,
}

/// Relative URLs of every page, by identity, map name and match position.
pub struct Links {
    pub players: Vec<String>,
    pub clans: Vec<String>,
    pub maps: HashMap<String, String>,
    pub matches: Vec<String>,
}

impl Links {
    /// Assigns stable, unique, safe page paths.
    pub fn new(input: &SiteInput) -> Links {
        let players = unique_slugs(
            input.roster.players.iter().map(|p| p.key.as_str()),
            "player",
        )
        .into_iter()
        .map(|s| format!("players/{s}.html"))
        .collect();
        let map_names: Vec<&str> = input.stats.maps.iter().map(|m| m.name.as_str()).collect();
        let maps = map_names
            .iter()
            .zip(unique_slugs(map_names.iter().copied(), "map"))
            .map(|(name, slug)| (name.to_string(), format!("maps/{slug}.html")))
            .collect();
        let matches = input
            .matches
            .iter()
            .map(|m| format!("matches/{}.html", m.id))
            .collect();
        let clans = unique_slugs(input.clans.clans.iter().map(|c| c.name.as_str()), "clan")
            .into_iter()
            .map(|s| format!("clans/{s}.html"))
            .collect();
        Links {
            players,
            clans,
            maps,
            matches,
        }
    }
}

/// Renders every page, asset and data file of the site.
pub fn render_site(input: &SiteInput) -> Result<Vec<OutputFile>> {
    let timer = crate::progress::Timer::new();
    let templates = Templates::load(Some(&input.site_dir.join("templates")))?;
    let links = Links::new(input);
    let content_pages = content::pages(&input.site_dir.join(&input.config.content))?;
    let site = SiteView {
        title: input.config.title.clone(),
        description: input.config.description.clone(),
        version: env!("CARGO_PKG_VERSION"),
        colors_css: colors_css(&input.config.colors),
        feed: input.config.base_url.is_some() && input.matches.iter().any(|m| m.start.is_some()),
    };
    let mut nav = vec![
        nav_item("Overview", "index.html"),
        nav_item("Players", "players.html"),
        nav_item("Matches", "matches.html"),
        nav_item("Maps", "maps.html"),
        nav_item("Clans", "clans.html"),
        nav_item("Rankings explained", "ranking.html"),
        nav_item("Prediction", "evaluation.html"),
    ];
    nav.extend(content_pages.iter().map(|p| nav_item(&p.title, &p.url)));
    nav.extend(input.config.nav.iter().map(|l| NavItem {
        label: l.label.clone(),
        url: l.url.clone(),
        external: true,
    }));
    let page = |root: &'static str, current: &str| Common {
        site: &site,
        nav: &nav,
        root,
        current: current.to_string(),
    };
    let r = Renderer::new(input, &links);

    timer.lap("templates and links");
    let mut files = Vec::new();
    let player_rows = r.player_rows();
    let match_rows: Vec<MatchRow> = (0..input.matches.len())
        .rev()
        .map(|i| r.match_row(i))
        .collect();
    let map_rows = r.map_rows();
    timer.lap("rows");

    let mut top_maps = map_rows.clone();
    top_maps.sort_by(|a, b| b.matches.cmp(&a.matches).then(a.name.cmp(&b.name)));
    top_maps.truncate(10);
    let static_rows = r.static_rows(&input.ratings.static_.core, |i| {
        input.ratings.static_.value[i]
    });
    let established = player_rows.iter().take_while(|p| !p.provisional).count();
    let provisional = &player_rows[established..];
    let becker_top: Vec<PlayerRow> = becker_ladder(input)
        .into_iter()
        .take(10)
        .map(|i| r.player_row(i))
        .collect();
    let index = IndexPage {
        updated: updated_line(input.matches),
        totals: r.totals(),
        top_players: &player_rows[..established.min(25)],
        provisional: &provisional[..provisional.len().min(10)],
        provisional_count: provisional.len(),
        provisional_incidents: input.config.rating.headline.provisional_incidents,
        becker_top,
        recent_matches: &match_rows[..match_rows.len().min(10)],
        top_maps,
        static_core: &static_rows[..static_rows.len().min(25)],
        static_core_size: static_rows.len(),
        awards: r.awards(),
    };
    files.push(html(
        "index.html",
        templates.render("index.html", &page("", "index.html"), &index)?,
    ));
    let top = |name: &'static str| page("", name);
    files.extend(player_list::pages(
        &templates,
        &page,
        &player_rows,
        player_list::PAGE_SIZE,
    )?);
    // What every page under a folder shares (templates, site fields, navigation), hashed once;
    // each page's own URL (the only common field that differs) goes into its key.
    let salt = {
        let mut h = crate::hash::Hasher::new();
        h.u64(templates.fingerprint());
        h.bytes(&serde_json::to_vec(&page("../", "")).unwrap_or_default());
        h.finish()
    };
    files.extend(match_list::pages(
        &templates,
        &page,
        &match_rows,
        input.cache,
        salt,
        match_list::PAGE_SIZE,
        input.sink,
    )?);
    files.push(top_page(
        &templates,
        top("maps.html"),
        &Keyed("maps", &map_rows),
    )?);
    files.push(top_page(
        &templates,
        top("clans.html"),
        &Keyed("clans", r.clan_rows()),
    )?);
    files.push(top_page(
        &templates,
        top("ranking.html"),
        &Keyed("ranking", r.ranking_page(static_rows)),
    )?);

    let evaluation = Keyed(
        "page",
        views::TextPage {
            title: "How well each rating predicts".into(),
            html: markdown::to_html(&crate::evaluate::explain::evaluation_markdown(
                &input.ratings.headline.evaluation,
            )),
        },
    );
    files.push(html(
        "evaluation.html",
        templates.render("page.html", &page("", "evaluation.html"), &evaluation)?,
    ));
    timer.lap("index and lists");
    let player_urls = |i: usize| links.players[i].clone();
    files.extend(render_pages(
        &templates,
        &page,
        input.roster.players.len(),
        "player.html",
        &player_urls,
        &|i| Keyed("p", r.player_page(i)),
        input.sink,
    )?);
    timer.lap("player pages");
    let map_urls = |i: usize| links.maps[&input.stats.maps[i].name].clone();
    files.extend(render_pages(
        &templates,
        &page,
        input.stats.maps.len(),
        "map.html",
        &map_urls,
        &|i| Keyed("map", r.map_page(i)),
        input.sink,
    )?);
    let clan_urls = |i: usize| links.clans[i].clone();
    files.extend(render_pages(
        &templates,
        &page,
        input.clans.clans.len(),
        "clan.html",
        &clan_urls,
        &|i| Keyed("clan", r.clan_page(i)),
        input.sink,
    )?);
    let match_pages: Vec<OutputFile> = (0..input.matches.len())
        .into_par_iter()
        .map(|i| {
            let url = links.matches[i].clone();
            let common = page("../", &url);
            let key = r.match_key(i, salt);
            if input.cache.keys.get(&url) == Some(&key) {
                return Ok(kept(url, key));
            }
            let body = templates.render("match.html", &common, &Keyed("m", r.match_page(i)))?;
            let mut file = html(&url, body);
            file.key = Some(key);
            sunk(input.sink, file)
        })
        .collect::<Result<_>>()?;
    files.extend(match_pages);

    timer.lap("map, clan and match pages");
    for p in &content_pages {
        let view = Keyed(
            "page",
            views::TextPage {
                title: p.title.clone(),
                html: p.html.clone(),
            },
        );
        files.push(html(
            &p.url,
            templates.render("page.html", &page("../", &p.url), &view)?,
        ));
    }
    if let Some(xml) = feed::atom(
        &input.config.title,
        input.config.base_url.as_deref(),
        input.matches,
        &links.matches,
    ) {
        files.push(html("feed.xml", xml));
    }
    files.extend(data::data_files(input, &links)?);
    files.extend(static_files(input.site_dir)?);
    Ok(files)
}

/// A view under one name in the template context (`p`, `map`, `m`, ...): serialises as
/// `{ name: view }`.
struct Keyed<T: Serialize>(&'static str, T);

impl<T: Serialize> Serialize for Keyed<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry(self.0, &self.1)?;
        map.end()
    }
}

/// The index page's own fields.
#[derive(Serialize)]
struct IndexPage<'a> {
    /// "Newest match: ...", on the index only (on every page it would change every page).
    updated: String,
    totals: Totals,
    top_players: &'a [PlayerRow],
    /// The first provisional players, and how many there are.
    provisional: &'a [PlayerRow],
    provisional_count: usize,
    provisional_incidents: u32,
    /// Becker's dynamic ladder, top 10.
    becker_top: Vec<PlayerRow>,
    recent_matches: &'a [MatchRow],
    top_maps: Vec<MapRow>,
    static_core: &'a [StaticRow],
    static_core_size: usize,
    awards: Vec<AwardView>,
}

/// Renders a page at the site root whose template has the page's own name.
fn top_page(templates: &Templates, common: Common, view: &impl Serialize) -> Result<OutputFile> {
    let name = common.current.clone();
    Ok(html(&name, templates.render(&name, &common, view)?))
}

/// Renders `count` pages of one template in parallel (one per player, map, match ...).
fn render_pages<'a, V: Serialize>(
    templates: &Templates,
    common: &(dyn Fn(&'static str, &str) -> Common<'a> + Sync),
    count: usize,
    template: &str,
    url: &(dyn Fn(usize) -> String + Sync),
    view: &(dyn Fn(usize) -> V + Sync),
    sink: Option<&PageSink>,
) -> Result<Vec<OutputFile>> {
    (0..count)
        .into_par_iter()
        .map(|i| {
            let url = url(i);
            let body = templates.render(template, &common("../", &url), &view(i))?;
            sunk(sink, html(&url, body))
        })
        .collect()
}

/// `file` given to `sink`, if there is one.
fn sunk(sink: Option<&PageSink>, file: OutputFile) -> Result<OutputFile> {
    match sink {
        Some(sink) => sink(file),
        None => Ok(file),
    }
}

fn nav_item(label: &str, url: &str) -> NavItem {
    NavItem {
        label: label.to_string(),
        url: url.to_string(),
        external: false,
    }
}

/// CSS overriding the theme colours from `[colors]` (validated as hex colours when loaded).
fn colors_css(c: &crate::config::Colors) -> String {
    fn valid(v: &Option<String>) -> Option<&str> {
        v.as_deref().filter(|v| crate::config::is_hex_colour(v))
    }
    let mut light = String::new();
    let mut dark = String::new();
    if let Some(v) = valid(&c.accent) {
        light.push_str(&format!("--accent:{v};"));
    }
    if let Some(v) = valid(&c.link) {
        light.push_str(&format!("--link:{v};"));
    }
    if let Some(v) = valid(&c.accent_dark) {
        dark.push_str(&format!("--accent:{v};"));
    }
    if let Some(v) = valid(&c.link_dark) {
        dark.push_str(&format!("--link:{v};"));
    }
    let mut css = String::new();
    if !light.is_empty() {
        css.push_str(&format!(":root{{{light}}}"));
    }
    if !dark.is_empty() {
        css.push_str(&format!(
            "@media (prefers-color-scheme: dark){{:root{{{dark}}}}}"
        ));
    }
    css
}

/// A page whose key shows the published file is still right: it is kept as it is.
fn kept(path: String, key: u64) -> OutputFile {
    OutputFile {
        path,
        bytes: Vec::new(),
        reuse: true,
        key: Some(key),
        staged: None,
    }
}

fn html(path: &str, body: String) -> OutputFile {
    OutputFile {
        path: path.to_string(),
        bytes: body.into_bytes(),
        reuse: false,
        key: None,
        staged: None,
    }
}

/// Built-in assets, then the site's own `static/` folder copied over them.
fn static_files(site_dir: &Path) -> Result<Vec<OutputFile>> {
    let mut files: std::collections::BTreeMap<String, Vec<u8>> = BUILTIN_STATIC
        .iter()
        .map(|(p, b)| (format!("static/{p}"), b.to_vec()))
        .collect();
    let dir = site_dir.join("static");
    if dir.is_dir() {
        for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
            let entry = entry?;
            if !entry.file_type().is_file() {
                continue;
            }
            let rel = entry.path().strip_prefix(&dir).unwrap_or(entry.path());
            let rel = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            files.insert(format!("static/{rel}"), std::fs::read(entry.path())?);
        }
    }
    Ok(files
        .into_iter()
        .map(|(path, bytes)| OutputFile {
            path,
            bytes,
            reuse: false,
            key: None,
            staged: None,
        })
        .collect())
}

/// "Newest match: 2026-11-22 01:54" — the time of the data, never of the build.
fn updated_line(matches: &[Match]) -> String {
    match matches.iter().filter_map(|m| m.start).max() {
        Some(t) => format!("Newest match: {}", t.format("%Y-%m-%d %H:%M")),
        None => format!("{} matches (the logs carry no dates)", matches.len()),
    }
}

/// A player page lists this many of the player's latest matches.
const PLAYER_MATCH_ROWS: usize = 100;
/// A map or clan page lists this many latest matches.
const MAP_MATCH_ROWS: usize = 200;
/// Curves are thinned to at most this many points (the last of each stretch is kept).
const CURVE_POINTS: usize = 600;

/// A static value g as a percentage, (g + 1) * 50, one decimal. A player's g can leave [-1, 1]
/// (outside the core above all, where few pairs tie it down): a share is shown within 0-100%.
fn static_percent(g: f64) -> String {
    format!("{:.1}", ((g + 1.0) * 50.0).clamp(0.0, 100.0))
}

/// Identity numbers by headline rating, best first, provisional players after everyone else
/// (ties: more frags, then identity order).
fn ladder(input: &SiteInput) -> Vec<usize> {
    let h = &input.ratings.headline;
    let value = |i: usize| h.value.get(i).copied().unwrap_or(0.0);
    let stats = &input.stats.players;
    let mut order: Vec<usize> = (0..stats.len()).collect();
    order.sort_by(|&a, &b| {
        h.provisional[a]
            .cmp(&h.provisional[b])
            .then(value(b).total_cmp(&value(a)))
            .then(stats[b].kills.cmp(&stats[a].kills))
            .then(a.cmp(&b))
    });
    order
}

/// Identity numbers by Becker's dynamic rating, best first (ties: more frags, then identity).
fn becker_ladder(input: &SiteInput) -> Vec<usize> {
    let g = &input.ratings.dynamic.players;
    let stats = &input.stats.players;
    let mut order: Vec<usize> = (0..g.len()).collect();
    order.sort_by(|&a, &b| {
        g[b].total_cmp(&g[a])
            .then(stats[b].kills.cmp(&stats[a].kills))
            .then(a.cmp(&b))
    });
    order
}

/// `m:ss` or `h:mm:ss`.
pub fn clock(seconds: u32) -> String {
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// Weapon display name: `MOD_ROCKET_SPLASH` -> `Rocket splash`.
pub fn weapon_label(raw: &str) -> String {
    let s = raw
        .strip_prefix("UT_MOD_")
        .or_else(|| raw.strip_prefix("MOD_"))
        .unwrap_or(raw);
    let lower = s.replace('_', " ").to_lowercase();
    let mut chars = lower.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => raw.to_string(),
    }
}

/// A name shortened for a chart legend.
fn plain_label(name: &str) -> String {
    let mut s: String = name.chars().filter(|c| !c.is_control()).take(20).collect();
    if name.chars().count() > 20 {
        s.push('…');
    }
    s
}

/// `up`, `down` or `flat` for a rating change (a tenth of a point counts as no change).
fn change_class(delta: f64) -> &'static str {
    if delta > 0.05 {
        "up"
    } else if delta < -0.05 {
        "down"
    } else {
        "flat"
    }
}

fn ratio(a: u32, b: u32) -> String {
    if b == 0 {
        format!("{a}.00")
    } else {
        format!("{:.2}", f64::from(a) / f64::from(b))
    }
}

fn percent(part: u32, whole: u32) -> u32 {
    if whole == 0 {
        0
    } else {
        ((f64::from(part) * 100.0 / f64::from(whole)).round()) as u32
    }
}

struct Renderer<'a> {
    input: &'a SiteInput<'a>,
    links: &'a Links,
    /// Identity numbers by dynamic rating, best first.
    ladder: Vec<usize>,
    /// 1-based ladder position of each identity.
    rank: Vec<usize>,
    /// Rank of each identity on Becker's ladder (1-based).
    becker_rank: Vec<usize>,
    /// Every match has a date: curves use dates on the x axis, else match numbers.
    dated: bool,
    /// The matches' numbers ([`Match::number`]) rise in site order: curves use them (as the
    /// labels do), else positions.
    numbered: bool,
    /// Each identity's coloured name as safe HTML, built once.
    names_html: Vec<String>,
}

impl<'a> Renderer<'a> {
    fn new(input: &'a SiteInput<'a>, links: &'a Links) -> Self {
        let ladder = ladder(input);
        let mut rank = vec![0; ladder.len()];
        for (pos, &i) in ladder.iter().enumerate() {
            rank[i] = pos + 1;
        }
        let mut becker_rank = vec![0; ladder.len()];
        for (pos, i) in becker_ladder(input).into_iter().enumerate() {
            becker_rank[i] = pos + 1;
        }
        Renderer {
            input,
            links,
            ladder,
            rank,
            becker_rank,
            dated: !input.matches.is_empty() && input.matches.iter().all(|m| m.start.is_some()),
            numbered: input.matches.first().is_some_and(|m| m.number > 0)
                && input.matches.windows(2).all(|w| w[0].number < w[1].number),
            names_html: input
                .roster
                .players
                .par_iter()
                .map(|p| name_html(&p.name))
                .collect(),
        }
    }

    /// Rating of identity (or clan, numbered after the players) `id` after match `mi`, and the
    /// change that match brought.
    fn rating_at(&self, id: usize, mi: u32) -> Option<(f64, f64)> {
        let h = &self.input.ratings.dynamic.history[id];
        let pos = h.binary_search_by_key(&mi, |e| e.0).ok()?;
        let before = match pos {
            0 => self.input.config.rating.dynamic.initial,
            _ => h[pos - 1].1,
        };
        Some((h[pos].1, h[pos].1 - before))
    }

    /// `up`, `down` or `flat`: the rating change over the last five matches.
    fn trend(&self, id: usize) -> &'static str {
        let h = &self.input.ratings.dynamic.history[id];
        let Some(last) = h.last() else {
            return "flat";
        };
        let before = if h.len() > 5 {
            h[h.len() - 6].1
        } else {
            self.input.config.rating.dynamic.initial
        };
        change_class(last.1 - before)
    }

    /// The x coordinate of a match on curves: its start time, or its number.
    fn x_of(&self, mi: u32) -> f64 {
        match (self.dated, self.input.matches[mi as usize].start) {
            (true, Some(t)) => t.and_utc().timestamp() as f64,
            _ if self.numbered => f64::from(self.input.matches[mi as usize].number),
            _ => f64::from(mi + 1),
        }
    }

    /// A rating curve for identity or clan number `id`.
    fn curve(&self, id: usize, what: &str) -> String {
        let history = &self.input.ratings.dynamic.history[id];
        let step = history.len().div_ceil(CURVE_POINTS).max(1);
        let points: Vec<(f64, f64)> = history
            .iter()
            .enumerate()
            .filter(|(n, _)| (n + 1) % step == 0 || n + 1 == history.len())
            .map(|(_, (mi, g))| (self.x_of(*mi), *g))
            .collect();
        if points.is_empty() {
            return String::new();
        }
        let span = points.last().map_or(0.0, |p| p.0) - points[0].0;
        let dated = self.dated;
        let format = move |x: f64| {
            if !dated {
                return format!("#{x:.0}");
            }
            match chrono::DateTime::from_timestamp(x as i64, 0) {
                Some(t) if span < 3_600.0 => t.format("%H:%M:%S").to_string(),
                Some(t) if span < 2.0 * 86_400.0 => t.format("%H:%M").to_string(),
                Some(t) if span < 200.0 * 86_400.0 => t.format("%b %d").to_string(),
                Some(t) => t.format("%Y-%m").to_string(),
                None => String::new(),
            }
        };
        let dots = points.len() <= 60;
        charts::line_chart(&charts::LineChart {
            title: &format!("Rating of {what} over time"),
            x_label: if dated { "match start" } else { "match number" },
            y_label: "rating",
            series: vec![charts::Series {
                label: what.to_string(),
                points,
            }],
            x_format: &format,
            dots,
        })
    }

    fn when(&self, i: usize) -> String {
        match self.input.matches[i].start {
            Some(t) => t.format("%Y-%m-%d %H:%M").to_string(),
            None => match self.input.matches[i].number {
                0 => format!("Match {}", i + 1),
                n => format!("Match {n}"),
            },
        }
    }

    /// The start in a form that sorts (`data-sort`), to the second; empty when undated.
    fn when_sort(&self, i: usize) -> String {
        self.input.matches[i]
            .start
            .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
            .unwrap_or_default()
    }

    fn map_url(&self, map: &str) -> String {
        self.links.maps.get(map).cloned().unwrap_or_default()
    }

    fn player_ref(&self, id: u32) -> (String, String) {
        (
            self.names_html[id as usize].clone(),
            self.links.players[id as usize].clone(),
        )
    }

    fn player_row(&self, i: usize) -> PlayerRow {
        let s = &self.input.stats.players[i];
        let (name_html, url) = self.player_ref(i as u32);
        let (clan, clan_url) = self.clan_of(i);
        PlayerRow {
            name_html,
            plain: self.input.roster.players[i].key.clone(),
            url,
            rating: format!("{:.1}", self.input.ratings.dynamic.players[i]),
            headline: format!(
                "{:.0}",
                self.input
                    .ratings
                    .headline
                    .value
                    .get(i)
                    .copied()
                    .unwrap_or(0.0)
            ),
            provisional: self.input.ratings.headline.provisional[i],
            clan,
            clan_url,
            kills: s.kills,
            deaths: s.deaths,
            kd: ratio(s.kills, s.deaths),
            suicides: s.suicides,
            team_kills: s.team_kills,
            captures: s.captures,
            matches: s.matches.len(),
            trend: self.trend(i),
        }
    }

    fn player_rows(&self) -> Vec<PlayerRow> {
        self.ladder.iter().map(|&i| self.player_row(i)).collect()
    }

    fn clan_of(&self, player: usize) -> (String, String) {
        match self.input.clans.of_player[player] {
            Some(c) => (
                self.input.clans.clans[c as usize].name.clone(),
                self.links.clans[c as usize].clone(),
            ),
            None => (String::new(), String::new()),
        }
    }

    fn static_rows(&self, ids: &[u32], value: impl Fn(usize) -> Option<f64>) -> Vec<StaticRow> {
        ids.iter()
            .filter_map(|&id| {
                let i = id as usize;
                let v = value(i)?;
                let (name_html, url) = self.player_ref(id);
                Some(StaticRow {
                    name_html,
                    url,
                    value: format!("{v:+.3}"),
                    percent: static_percent(v),
                    incidents: self.input.ratings.static_.incidents[i],
                })
            })
            .collect()
    }

    fn clan_rows(&self) -> Vec<ClanRow> {
        let clans = &self.input.clans.clans;
        let g = &self.input.ratings.dynamic.clans;
        let mut order: Vec<usize> = (0..clans.len()).collect();
        order.sort_by(|&a, &b| g[b].total_cmp(&g[a]).then(a.cmp(&b)));
        order
            .into_iter()
            .map(|c| ClanRow {
                name: clans[c].name.clone(),
                url: self.links.clans[c].clone(),
                rating: format!("{:.1}", g[c]),
                members: clans[c].members.len(),
                declared: clans[c].declared,
            })
            .collect()
    }

    fn clan_page(&self, c: usize) -> ClanPage {
        let clan = &self.input.clans.clans[c];
        let g = &self.input.ratings.dynamic.players;
        let mut members = clan.members.clone();
        members.sort_by(|a, b| g[*b as usize].total_cmp(&g[*a as usize]).then(a.cmp(b)));
        let of_player = &self.input.clans.of_player;
        let mut versus: Vec<(u32, u32)> = vec![(0, 0); self.input.clans.clans.len()];
        let mut played: std::collections::BTreeSet<u32> = std::collections::BTreeSet::new();
        for &m in &clan.members {
            let s = &self.input.stats.players[m as usize];
            played.extend(s.matches.iter().copied());
            for (v, n) in &s.victims {
                if let Some(oc) = of_player[*v as usize].filter(|oc| *oc as usize != c) {
                    versus[oc as usize].0 += n;
                }
            }
            for (k, n) in &s.killers {
                if let Some(oc) = of_player[*k as usize].filter(|oc| *oc as usize != c) {
                    versus[oc as usize].1 += n;
                }
            }
        }
        let versus = versus
            .iter()
            .enumerate()
            .filter(|(_, (a, b))| a + b > 0)
            .map(|(oc, (made, suffered))| ClanVersus {
                name: self.input.clans.clans[oc].name.clone(),
                url: self.links.clans[oc].clone(),
                made: *made,
                suffered: *suffered,
                share: percent(*made, made + suffered),
            })
            .collect();
        ClanPage {
            name: clan.name.clone(),
            rating: format!("{:.1}", self.input.ratings.dynamic.clans[c]),
            declared: clan.declared,
            members: members
                .iter()
                .map(|m| self.player_row(*m as usize))
                .collect(),
            curve_svg: self.curve(self.input.roster.players.len() + c, &clan.name),
            versus,
            match_rows: played
                .iter()
                .rev()
                .take(MAP_MATCH_ROWS)
                .map(|&mi| self.match_row(mi as usize))
                .collect(),
        }
    }

    /// A key of everything a match page is made from: the match's id and content, the log and
    /// line it was read from, its URL,
    /// place and date, its map's page, each of its players' name, page and rating change, and
    /// `salt` (templates and the fields all pages share). Same key, same page.
    fn match_key(&self, i: usize, salt: u64) -> u64 {
        let m = &self.input.matches[i];
        let mut h = crate::hash::Hasher::new();
        h.u64(salt);
        h.str(&self.links.matches[i]);
        h.str(&m.id);
        h.u64(m.content);
        h.str(&m.source);
        h.u64(m.line);
        h.str(&self.when(i));
        h.str(&self.map_url(&m.map));
        for &id in &self.input.roster.match_players[i] {
            let id = id as usize;
            h.str(&self.names_html[id]);
            h.str(&self.links.players[id]);
            h.str(&self.input.roster.players[id].key);
            let (after, delta) = self.rating_at(id, i as u32).unwrap_or((0.0, 0.0));
            h.u64(after.to_bits());
            h.u64(delta.to_bits());
        }
        h.finish()
    }

    /// Cumulative frags over match time of the match's five best fraggers.
    fn timeline(&self, i: usize) -> String {
        let m = &self.input.matches[i];
        let ms = &self.input.stats.matches[i];
        let ids = &self.input.roster.match_players[i];
        let mut best: Vec<&crate::stats::MatchLine> =
            ms.lines.iter().filter(|l| l.frags > 0).collect();
        best.sort_by(|a, b| b.frags.cmp(&a.frags).then(a.player.cmp(&b.player)));
        best.truncate(5);
        let end = f64::from(m.duration_seconds) / 60.0;
        let series = best
            .iter()
            .map(|l| {
                let mut count = 0.0;
                let mut points = vec![(0.0, 0.0)];
                for e in m.events.iter().filter(|e| e.kind == EventKind::Frag) {
                    if ids[e.actor as usize] == l.player {
                        count += 1.0;
                        points.push((f64::from(e.time) / 60.0, count));
                    }
                }
                points.push((end.max(points.last().map_or(0.0, |p| p.0)), count));
                charts::Series {
                    label: plain_label(&self.input.roster.players[l.player as usize].key),
                    points,
                }
            })
            .collect();
        charts::line_chart(&charts::LineChart {
            title: "Frags over the match",
            x_label: "minutes",
            y_label: "frags",
            series,
            x_format: &|x| format!("{x:.0}"),
            dots: false,
        })
    }

    fn awards(&self) -> Vec<AwardView> {
        crate::stats::awards::awards(self.input.stats)
            .into_iter()
            .map(|a| AwardView {
                title: a.title.to_string(),
                entries: a
                    .places
                    .iter()
                    .map(|p| {
                        let (name_html, url) = self.player_ref(p.player);
                        let (detail, detail_url) = match p.match_index {
                            Some(mi) => (
                                format!(
                                    "{} · {}",
                                    self.input.matches[mi as usize].map,
                                    self.when(mi as usize)
                                ),
                                self.links.matches[mi as usize].clone(),
                            ),
                            None => (String::new(), String::new()),
                        };
                        AwardEntry {
                            name_html,
                            url,
                            value: format!("{:.*}", a.decimals, p.value),
                            detail,
                            detail_url,
                        }
                    })
                    .collect(),
            })
            .collect()
    }

    fn ranking_page(&self, core: Vec<StaticRow>) -> RankingPage {
        let st = &self.input.ratings.static_;
        let mut outside: Vec<u32> = (0..st.outside.len() as u32)
            .filter(|i| st.outside[*i as usize].is_some())
            .collect();
        outside.sort_by(|a, b| {
            st.outside[*b as usize]
                .unwrap_or(0.0)
                .total_cmp(&st.outside[*a as usize].unwrap_or(0.0))
                .then(a.cmp(b))
        });
        let headline = crate::evaluate::explain::headline_markdown(
            &self.input.ratings.headline.evaluation,
            &self.input.config.rating,
        );
        let explain = crate::rating::explain::markdown(
            &self.input.config.rating,
            &self.input.ratings.dynamic,
            st,
            self.input.roster.players.len(),
            &headline,
        );
        // A public server has tens of thousands outside the core: the page lists the highest
        // (players.json has every value), so that it stays small enough to open.
        let outside_total = outside.len();
        outside.truncate(views::OUTSIDE_SHOWN);
        RankingPage {
            explain_html: markdown::to_html(&explain),
            core,
            outside: self.static_rows(&outside, |i| st.outside[i]),
            outside_total,
        }
    }

    fn match_row(&self, i: usize) -> MatchRow {
        let m = &self.input.matches[i];
        let ms = &self.input.stats.matches[i];
        MatchRow {
            url: self.links.matches[i].clone(),
            when: self.when(i),
            when_sort: self.when_sort(i),
            map: m.map.clone(),
            map_url: self.map_url(&m.map),
            gametype: m.gametype.name.clone(),
            players: ms.lines.len(),
            frags: ms.frags,
            duration: clock(m.duration_seconds),
            seconds: m.duration_seconds,
        }
    }

    fn map_row(&self, i: usize) -> MapRow {
        let m = &self.input.stats.maps[i];
        MapRow {
            name: m.name.clone(),
            url: self.map_url(&m.name),
            matches: m.matches.len(),
            frags: m.frags,
            frags_per_minute: if m.seconds == 0 {
                "-".into()
            } else {
                format!("{:.1}", f64::from(m.frags) * 60.0 / m.seconds as f64)
            },
            players: m.players.len(),
        }
    }

    fn map_rows(&self) -> Vec<MapRow> {
        (0..self.input.stats.maps.len())
            .map(|i| self.map_row(i))
            .collect()
    }

    fn totals(&self) -> Totals {
        let dates: Vec<_> = self.input.matches.iter().filter_map(|m| m.start).collect();
        let span = match (dates.iter().min(), dates.iter().max()) {
            (Some(a), Some(b)) => Some(format!(
                "{} to {}",
                a.format("%Y-%m-%d"),
                b.format("%Y-%m-%d")
            )),
            _ => None,
        };
        Totals {
            players: self.input.roster.players.len(),
            matches: self.input.matches.len(),
            maps: self.input.stats.maps.len(),
            frags: self
                .input
                .stats
                .matches
                .iter()
                .map(|m| u64::from(m.frags))
                .sum(),
            span,
        }
    }

    fn player_page(&self, i: usize) -> PlayerPage {
        let id = i as u32;
        let identity = &self.input.roster.players[i];
        let s = &self.input.stats.players[i];
        let named = |(other, count): (&u32, &u32)| {
            let (name_html, url) = self.player_ref(*other);
            NamedCount {
                name_html,
                url,
                count: *count,
            }
        };
        // Most frags; ties to the lower identity number (byte order of the name).
        let top = |m: &std::collections::BTreeMap<u32, u32>| {
            m.iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                .map(named)
        };
        let total_frags: u32 = s.weapons.values().sum();
        let mut weapons: Vec<LabelCount> = s
            .weapons
            .iter()
            .map(|(w, c)| LabelCount {
                name: weapon_label(w),
                count: *c,
                percent: percent(*c, total_frags),
                url: String::new(),
            })
            .collect();
        weapons.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
        let mut maps: Vec<LabelCount> = s
            .maps
            .iter()
            .map(|(m, c)| LabelCount {
                name: m.clone(),
                count: *c,
                percent: percent(*c, s.matches.len() as u32),
                url: self.map_url(m),
            })
            .collect();
        maps.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
        let awards = s
            .awards
            .iter()
            .map(|(a, c)| LabelCount {
                name: a.clone(),
                count: *c,
                percent: 0,
                url: String::new(),
            })
            .collect();
        let mut opponents: Vec<(u32, u32, u32)> = Vec::new();
        for (&o, &made) in &s.victims {
            opponents.push((o, made, s.killers.get(&o).copied().unwrap_or(0)));
        }
        for (&o, &suffered) in &s.killers {
            if !s.victims.contains_key(&o) {
                opponents.push((o, 0, suffered));
            }
        }
        opponents.sort_by(|a, b| (b.1 + b.2).cmp(&(a.1 + a.2)).then(a.0.cmp(&b.0)));
        let opponents = opponents
            .into_iter()
            .map(|(o, made, suffered)| {
                let (name_html, url) = self.player_ref(o);
                Opponent {
                    name_html,
                    url,
                    made,
                    suffered,
                    share: percent(made, made + suffered),
                }
            })
            .collect();
        let match_rows = s
            .matches
            .iter()
            .rev()
            .take(PLAYER_MATCH_ROWS)
            .map(|&mi| {
                let mi = mi as usize;
                let m = &self.input.matches[mi];
                let ms = &self.input.stats.matches[mi];
                let place = ms.lines.iter().position(|l| l.player == id).unwrap_or(0);
                let line = &ms.lines[place];
                let (after, delta) = self.rating_at(i, mi as u32).unwrap_or((0.0, 0.0));
                PlayerMatchRow {
                    rating: format!("{after:.1}"),
                    change: format!("{delta:+.1}"),
                    change_class: change_class(delta),
                    url: self.links.matches[mi].clone(),
                    when: self.when(mi),
                    when_sort: self.when_sort(mi),
                    map: m.map.clone(),
                    map_url: self.map_url(&m.map),
                    gametype: m.gametype.name.clone(),
                    place: place + 1,
                    frags: line.frags,
                    deaths: line.deaths,
                    score: line
                        .score
                        .map(|s| s.to_string())
                        .unwrap_or_else(|| "-".into()),
                }
            })
            .collect();
        let st = &self.input.ratings.static_;
        let headline = &self.input.ratings.headline;
        let provisional = headline.provisional[i];
        let (clan, clan_url) = self.clan_of(i);
        PlayerPage {
            name_html: name_html(&identity.name),
            plain: identity.key.clone(),
            headline: format!("{:.0}", headline.value.get(i).copied().unwrap_or(0.0)),
            headline_system: headline
                .evaluation
                .report(&headline.evaluation.headline)
                .map_or_else(
                    || headline.evaluation.headline.clone(),
                    |r| r.system.clone(),
                ),
            rank: (!provisional).then_some(self.rank[i]),
            provisional_missing: provisional.then(|| {
                u64::from(self.input.config.rating.headline.provisional_incidents)
                    .saturating_sub(st.incidents[i])
            }),
            rating: format!("{:.1}", self.input.ratings.dynamic.players[i]),
            becker_rank: self.becker_rank[i],
            static_percent: st.value[i].map(static_percent),
            static_outside_percent: st.outside[i].map(static_percent),
            incidents: st.incidents[i],
            clan,
            clan_url,
            aliases: identity.names_seen.iter().map(|n| name_html(n)).collect(),
            kills: s.kills,
            deaths: s.deaths,
            kd: ratio(s.kills, s.deaths),
            suicides: s.suicides,
            team_kills: s.team_kills,
            captures: s.captures,
            matches: s.matches.len(),
            victim: top(&s.victims),
            nemesis: top(&s.killers),
            weapons,
            maps,
            awards,
            opponents,
            match_rows,
            curve_svg: self.curve(i, &identity.key),
        }
    }

    fn map_page(&self, i: usize) -> MapPage {
        let m = &self.input.stats.maps[i];
        let row = &self.map_row(i);
        let (mut red_wins, mut blue_wins, mut draws) = (0, 0, 0);
        for &mi in &m.matches {
            let game = &self.input.matches[mi as usize];
            if let Some([red, blue]) = game.team_scores.filter(|_| game.gametype.team_based) {
                match red.cmp(&blue) {
                    std::cmp::Ordering::Greater => red_wins += 1,
                    std::cmp::Ordering::Less => blue_wins += 1,
                    std::cmp::Ordering::Equal => draws += 1,
                }
            }
        }
        // Labels are made once per raw weapon name, not per frag.
        let mut weapon_frags: std::collections::BTreeMap<String, u32> = Default::default();
        for (raw, n) in &m.weapons {
            *weapon_frags.entry(weapon_label(raw)).or_default() += n;
        }
        let mut weapons: Vec<LabelCount> = weapon_frags
            .into_iter()
            .map(|(name, count)| LabelCount {
                name,
                count,
                percent: percent(count, m.frags),
                url: String::new(),
            })
            .collect();
        weapons.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
        let mut top: Vec<(&u32, &u32)> = m.frags_by_player.iter().collect();
        top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        MapPage {
            name: m.name.clone(),
            matches: row.matches,
            frags: row.frags,
            frags_per_minute: row.frags_per_minute.clone(),
            players: row.players,
            top: top
                .into_iter()
                .take(10)
                .map(|(p, c)| {
                    let (name_html, url) = self.player_ref(*p);
                    NamedCount {
                        name_html,
                        url,
                        count: *c,
                    }
                })
                .collect(),
            match_rows: m
                .matches
                .iter()
                .rev()
                .take(MAP_MATCH_ROWS)
                .map(|&mi| self.match_row(mi as usize))
                .collect(),
            weapons,
            red_wins,
            blue_wins,
            draws,
            red_percent: percent(red_wins, red_wins + blue_wins),
        }
    }

    fn match_page(&self, i: usize) -> MatchPage {
        let m = &self.input.matches[i];
        let ms: &MatchStats = &self.input.stats.matches[i];
        let ids = &self.input.roster.match_players[i];
        let line_view = |place: usize, l: &crate::stats::MatchLine| {
            let (name_html, url) = self.player_ref(l.player);
            let delta = self
                .rating_at(l.player as usize, i as u32)
                .map_or(0.0, |(_, d)| d);
            ScoreLine {
                place,
                name_html,
                url,
                score: l.score.map(|s| s.to_string()).unwrap_or_else(|| "-".into()),
                frags: l.frags,
                deaths: l.deaths,
                suicides: l.suicides,
                team_kills: l.team_kills,
                captures: l.captures,
                best_spree: l.best_spree,
                change: format!("{delta:+.1}"),
                change_class: change_class(delta),
            }
        };
        let sides = if m.gametype.team_based {
            [Team::Red, Team::Blue, Team::Free, Team::Spectator]
                .iter()
                .filter_map(|t| {
                    let lines: Vec<ScoreLine> = ms
                        .lines
                        .iter()
                        .filter(|l| l.team == Some(*t))
                        .enumerate()
                        .map(|(n, l)| line_view(n + 1, l))
                        .collect();
                    (!lines.is_empty()).then(|| Side {
                        team: t.label().to_string(),
                        label: match t {
                            Team::Red => "Red team".into(),
                            Team::Blue => "Blue team".into(),
                            _ => "Without a team at the end".into(),
                        },
                        lines,
                    })
                })
                .collect()
        } else {
            vec![Side {
                team: "free".into(),
                label: String::new(),
                lines: ms
                    .lines
                    .iter()
                    .enumerate()
                    .map(|(n, l)| line_view(n + 1, l))
                    .collect(),
            }]
        };
        let kills = m
            .events
            .iter()
            .filter_map(|e| {
                let kind = match e.kind {
                    EventKind::Frag => "frag",
                    EventKind::Suicide => "suicide",
                    EventKind::TeamKill => "teamkill",
                    _ => return None,
                };
                let killer = self.player_ref(ids[e.actor as usize]).0;
                let victim = if kind == "suicide" {
                    "<em>suicide</em>".to_string()
                } else {
                    self.player_ref(ids[e.target as usize]).0
                };
                Some(KillRow {
                    time: clock(e.time),
                    seconds: e.time,
                    kind,
                    killer,
                    victim,
                    weapon: weapon_label(&m.weapons[usize::from(e.detail)]),
                })
            })
            .collect();
        MatchPage {
            map: m.map.clone(),
            map_url: self.map_url(&m.map),
            gametype: m.gametype.name.clone(),
            when: self.when(i),
            duration: clock(m.duration_seconds),
            exit_reason: m.exit_reason.clone(),
            server_html: if m.server.is_empty() {
                String::new()
            } else {
                name_html(&m.server)
            },
            source: m.source.chars().filter(|c| !c.is_control()).collect(),
            line: m.line,
            partial: m.partial,
            team_scores: m.team_scores,
            sides,
            kill_lines: ms.kill_lines,
            kills,
            timeline_svg: self.timeline(i),
        }
    }
}
