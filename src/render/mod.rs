//! Turns counted data into the files of the site: HTML pages (Tera), static assets and the
//! machine-readable JSON under `data/`. [`views`] are the templates' data (a leaf), each page
//! kind in `pages/` makes its own views and files, and [`render_site`] assembles the site. It
//! reads nothing but its input and the site folder's theme overrides; the files are returned,
//! or handed to the input's [`PageSink`] as they are made, and publishing them is the output
//! module's job.

pub mod charts;
pub mod colour;
pub mod content;
pub mod data;
mod decimal;
mod evaluation;
pub mod feed;
mod heatmap;
mod helpers;
mod holes;
mod lazy_curves;
mod lazy_labels;
mod lazy_rows;
pub mod markdown;
mod match_list;
mod match_servers;
mod matches_json;
mod paged_list;
mod pages;
pub mod paths;
mod player_list;
mod player_tables;
mod players_json;
mod pretty_json;
pub mod rank_shards;
mod renderer;
pub mod rounds;
pub mod search;
pub mod templates;
pub mod views;

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;

use crate::config::Config;
use crate::model::MatchList;
use crate::model::clans::Clans;
use crate::model::identity::Roster;
use crate::rating::Ratings;
use crate::rating::evaluation::Evaluation;
use crate::render::pages::balance_report;
use crate::render::pages::clan;
use crate::render::pages::index;
use crate::render::pages::map;
use crate::render::pages::match_page;
use crate::render::pages::player;
use crate::render::pages::ranking;
use crate::render::pages::season;
use crate::render::pages::server;
use crate::stats::Stats;
pub use helpers::{clock, weapon_label};
use helpers::{colors_css, nav_item, static_files, updated_line};
use pages::index::IndexPage;
use paths::unique_slugs;
use renderer::Renderer;
use templates::Templates;
use views::*;

/// Everything the site is made from.
pub struct SiteInput<'a> {
    pub config: &'a Config,
    /// Matches in site order (chronological by RANKING.md's rule).
    pub matches: MatchList<'a>,
    pub roster: &'a Roster,
    pub stats: &'a Stats,
    pub clans: &'a Clans,
    pub ratings: &'a Ratings,
    /// For each identity: a bot (`bot` in `data/players.json`).
    pub bots: &'a [bool],
    /// For each identity: never named on the site (`[moderation] hide`, hidden bots); such a
    /// player has no page, is in no list, and shows as "anonymous" where others' pages meet them.
    pub hidden: &'a [bool],
    /// Last seen, activity, ladder order and divisions.
    pub standing: &'a crate::standings::standing::Standing,
    /// The ladders per game type and per game (`ladders.html`, `data/ladders.json`).
    pub ladders: &'a [crate::standings::ladders::Ladder],
    /// Each season's ladder (`[seasons]`; empty when none is configured).
    pub seasons: &'a crate::standings::season::Seasons,
    /// What was read and skipped, published as `data/diagnostics.json`.
    pub diagnostics: &'a crate::diagnostics::Diagnostics,
    /// Keys of the pages already in the output.
    pub cache: &'a PageCache,
    /// Folder of site.toml: its `templates/` and `static/` override the built-ins.
    pub site_dir: &'a Path,
    /// Where the pages of players, maps, clans and matches go as they are rendered (else they
    /// are returned with their bytes).
    pub sink: Option<&'a dyn PageSink>,
    /// What becomes of the rows, links and views made for the pages once they are rendered.
    pub leftovers: crate::leftovers::Leftovers,
}

pub use crate::output::{MakeParts, OutputFile};

/// Takes each page as soon as it is rendered (the build writes it into the staging folder) and
/// returns what to keep of it, so a site of many thousands of pages is never all in memory.
pub trait PageSink: Sync {
    /// Takes one page made whole.
    fn page(&self, file: OutputFile) -> Result<OutputFile>;

    /// Takes the file at `path` as `make` makes its parts, each as it comes: a data file that
    /// grows with the history is never whole in memory.
    fn parts(&self, path: &str, make: &mut MakeParts) -> Result<OutputFile>;
}

impl PageSink for crate::output::Staging {
    fn page(&self, file: OutputFile) -> Result<OutputFile> {
        self.stage(file)
    }

    fn parts(&self, path: &str, make: &mut MakeParts) -> Result<OutputFile> {
        self.stage_parts(path, make)
    }
}

/// Pages of the current output and the key of what each was made from. A page whose key is
/// unchanged is not rendered again: its file is kept. Only pages whose key covers every input
/// of their view use it (match pages, the archive pages of the match list, and the pages of
/// players, maps, clans, servers and seasons, keyed by their whole template context).
#[derive(Debug, Clone, Default)]
pub struct PageCache {
    pub keys: PageKeys,
}

/// Page keys by page path (see [`PageCache`]): a public server's site has 100,000 pages.
pub type PageKeys = crate::hashed_pairs::HashedPairs<u64>;

/// Relative URLs of every page, by identity, map name and match position.
pub struct Links {
    pub players: Vec<String>,
    pub clans: Vec<String>,
    pub maps: HashMap<String, String>,
    /// Each match's server name (see [`pages::server`]).
    pub match_servers: match_servers::MatchServers,
    /// Server page URLs, by server name.
    pub servers: HashMap<String, String>,
    /// Season page URLs, in the order of `SiteInput::seasons`.
    pub seasons: Vec<String>,
}

impl Links {
    /// Assigns stable, unique, safe page paths.
    pub fn new(input: &SiteInput) -> Links {
        let (players, match_servers) =
            rayon::join(|| Links::players(input), || Links::match_servers(input));
        let map_names: Vec<&str> = input.stats.maps.iter().map(|m| m.name.as_str()).collect();
        let maps = map_names
            .iter()
            .zip(unique_slugs(map_names.iter().copied(), "map"))
            .map(|(name, slug)| (name.to_string(), format!("maps/{slug}.html")))
            .collect();
        let clans = unique_slugs(input.clans.clans.iter().map(|c| c.name.as_str()), "clan")
            .into_iter()
            .map(|s| format!("clans/{s}.html"))
            .collect();
        let names = match_servers.names();
        let servers = names
            .iter()
            .zip(unique_slugs(names.iter().map(String::as_str), "server"))
            .map(|(name, slug)| (name.to_string(), format!("servers/{slug}.html")))
            .collect();
        Links {
            players,
            clans,
            maps,
            match_servers,
            servers,
            seasons: pages::season::season_urls(input.seasons),
        }
    }

    /// Each player's page path, "" for a hidden player (no page: references to them are not
    /// links). Made in parallel: a public server's site has tens of thousands.
    fn players(input: &SiteInput) -> Vec<String> {
        let slugs = unique_slugs(
            input.roster.players.iter().map(|p| p.key.as_str()),
            "player",
        );
        slugs
            .into_par_iter()
            .zip(input.hidden)
            .map(|(s, &hidden)| {
                if hidden {
                    String::new()
                } else {
                    format!("players/{s}.html")
                }
            })
            .collect()
    }

    /// Each match's server name (see [`pages::server`]).
    fn match_servers(input: &SiteInput) -> match_servers::MatchServers {
        use crate::model::text::Text;
        use pages::server::{configured_server, logged_server};
        // A name made once per log (a `[[servers]]` entry's) or per `sv_hostname`, a server's
        // matches being many and its names few. A name made for each match first (a list of
        // them beside this one) was 3 MB at the start of the pages at 64,000 matches (issue 41).
        let mut configured: HashMap<&str, Option<Text>> = HashMap::new();
        let mut logged: HashMap<&str, Text> = HashMap::new();
        let names = (input.matches.heads()).map(|m| {
            let source = m.source.as_str();
            configured
                .entry(source)
                .or_insert_with(|| {
                    configured_server(input.config, input.site_dir, source).map(Text::from)
                })
                .clone()
                .unwrap_or_else(|| {
                    (logged.entry(m.server.as_str()))
                        .or_insert_with_key(|server| logged_server(server).into())
                        .clone()
                })
        });
        match_servers::MatchServers::new(names)
    }
}

/// The page of match `m`, from the site's root: made when asked for, not kept per match (a
/// list of them was 4.7 MB at 64,000 matches, issue 41).
pub fn match_url(id: &str) -> String {
    format!("matches/{id}.html")
}

/// Renders every page, asset and data file of the site. The comparison of rating systems
/// (`evaluation.html`, `data/evaluation.json`, the ranking page, which explains the headline by
/// it) is what `compare` returns: it runs beside the other pages, which read only the
/// headline's and the team model's part of the evaluation (in `input.ratings`).
pub fn render_site(
    input: &SiteInput,
    compare: impl FnOnce() -> Evaluation + Send,
) -> Result<(Vec<OutputFile>, StagedMatchPages)> {
    let timer = crate::progress::Timer::new();
    let (templates, links) = rayon::join(
        || Templates::load(Some(&input.site_dir.join("templates"))),
        || Links::new(input),
    );
    let templates = templates?;
    let content_pages = content::pages(&input.site_dir.join(&input.config.content))?;
    let site = SiteView {
        title: input.config.title.clone(),
        description: input.config.description.clone(),
        version: env!("CARGO_PKG_VERSION"),
        colors_css: colors_css(&input.config.colors),
        feed: input.config.base_url.is_some() && input.matches.heads().any(|m| m.start.is_some()),
        base_url: input
            .config
            .base_url
            .as_deref()
            .map(|u| format!("{}/", u.trim_end_matches('/')))
            .unwrap_or_default(),
    };
    let mut nav = vec![
        nav_item("Overview", "index.html"),
        nav_item("Players", "players.html"),
        nav_item("Ladders", "ladders.html"),
        nav_item("Matches", "matches.html"),
        nav_item("Maps", "maps.html"),
        nav_item("Clans", "clans.html"),
        nav_item("Servers", "servers.html"),
        nav_item("Rankings explained", "ranking.html"),
        nav_item("Prediction", "evaluation.html"),
        nav_item("Balance", "balance.html"),
    ];
    if input.config.seasons.configured() {
        let at = nav
            .iter()
            .position(|n| n.url == "servers.html")
            .map_or(nav.len(), |p| p + 1);
        nav.insert(at, nav_item("Seasons", "seasons.html"));
    }
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
    let mut r = Renderer::new(input, &links);
    r.own_player_template = templates.overridden("player.html");
    timer.lap("templates and links");
    // Room in the list of files for those added after the pages (growing a list of a record
    // per page doubles it: 6 MB more at 64,000 matches).
    let after = COMPARISON_FILES + heatmap::most_files(&r.heat);
    let (files, evaluation) = rayon::join(
        || pages(input, &templates, &links, &content_pages, &page, &r, after),
        compare,
    );
    let (mut files, match_pages) = files?;
    files.extend(comparison_files(&templates, &page, &r, &evaluation)?);
    for problem in &r.heat.problems {
        eprintln!("warning: {problem}");
    }
    files.extend(heatmap::files(&r));
    // Each match's map place is freed whatever the leftovers (one list, no time), not held
    // through publishing (issue 41). Tens of thousands of links and rows on a public server's
    // site: about 10 ms of freeing.
    r.let_go_of_match_maps();
    input.leftovers.discard(r);
    input.leftovers.discard((links, templates, evaluation));
    Ok((files, match_pages))
}

/// The pages and data files that show the comparison of rating systems, from `evaluation`
/// (every system's): `ranking.html`, `evaluation.html` and `data/evaluation.json`.
fn comparison_files<'a>(
    templates: &Templates,
    page: &(dyn Fn(&'static str, &str) -> Common<'a> + Sync),
    r: &Renderer,
    evaluation: &Evaluation,
) -> Result<[OutputFile; COMPARISON_FILES]> {
    let static_rows = ranking::static_rows(r, &r.input.ratings.static_.core, |i| {
        r.input.ratings.static_.value[i]
    });
    let ranking = top_page(
        templates,
        page("", "ranking.html"),
        &Keyed("ranking", ranking::ranking_page(r, static_rows, evaluation)),
    )?;
    let view = Keyed(
        "page",
        views::TextPage {
            title: "How well each rating predicts".into(),
            html: evaluation::evaluation_html(evaluation),
        },
    );
    let page_html = html(
        "evaluation.html",
        templates.render("page.html", &page("", "evaluation.html"), &view)?,
    );
    Ok([
        ranking,
        page_html,
        data::json_file("data/evaluation.json", evaluation)?,
    ])
}

/// How many files [`comparison_files`] makes.
const COMPARISON_FILES: usize = 3;

/// Every page, asset and data file of the site but the comparison of rating systems
/// ([`comparison_files`]) and the heat maps, with room for `after` files more.
fn pages<'a>(
    input: &SiteInput,
    templates: &Templates,
    links: &Links,
    content_pages: &[content::ContentPage],
    page: &(dyn Fn(&'static str, &str) -> Common<'a> + Sync),
    r: &Renderer,
    after: usize,
) -> Result<(Vec<OutputFile>, StagedMatchPages)> {
    let timer = crate::progress::Timer::new();
    let mut files = Vec::new();
    // A row per player (tens of thousands on a public server's site) and per map, for every
    // list. A match's row is made where a list shows it (the match list's pages, each in
    // turn), never all at once: there is one per match of the history.
    let player_rows = player::player_rows(r);
    let map_rows = map::map_rows(r);
    timer.lap("rows");

    // What every page under a folder shares (templates, site fields, navigation), hashed once;
    // each page's own URL (the only common field that differs) goes into its key.
    let salt = {
        let mut h = crate::hash::Hasher::new();
        h.u64(templates.fingerprint());
        h.bytes(&serde_json::to_vec(&page("../", "")).unwrap_or_default());
        h.finish()
    };
    // The index and the lists, made beside the pages below and staged as soon as they are
    // made (the player list's pages, 27 MB, and ladders.json, 18 MB, on a public server's site).
    let rows = ListRows {
        players: &player_rows,
        matches: input.matches.len(),
        maps: &map_rows,
    };
    let lists = || index_and_lists(input, templates, links, page, r, &rows, salt);
    // The map, clan and match pages, made beside the player pages too (the end of each is a
    // stretch where one core works and the other waits).
    let other_pages = || -> Result<(Vec<OutputFile>, StagedMatchPages)> {
        // Made at their number: a record per page, grown by doubling it held up to as many
        // again, and collected apart, as many once more. A sink's match pages are not in it
        // ([`StagedMatchPages`]).
        let count = input.stats.maps.len()
            + input.clans.clans.len()
            + if input.sink.is_some() {
                0
            } else {
                input.matches.len()
            };
        let mut files = Vec::with_capacity(count);
        let map_urls = |i: usize| links.maps[&input.stats.maps[i].name].clone();
        files.extend(render_pages(
            templates,
            &page,
            input.stats.maps.len(),
            "map.html",
            &map_urls,
            &|i| Keyed("map", map::map_page(r, i)),
            input.cache,
            input.sink,
        )?);
        let clan_urls = |i: usize| links.clans[i].clone();
        files.extend(render_pages(
            templates,
            &page,
            input.clans.clans.len(),
            "clan.html",
            &clan_urls,
            &|i| Keyed("clan", clan::clan_page(r, i)),
            input.cache,
            input.sink,
        )?);
        let own_template = templates.overridden("match.html");
        let keys = match_page::match_keys(r, salt);
        // Match page `i`, given to the sink when there is one (a page to keep is linked when
        // publishing, which waits for the mirrored site: the pages do not).
        let match_page = |i: usize| -> Result<OutputFile> {
            let url = match_url(&input.matches.head(i).id);
            let common = page("../", &url);
            let key = keys[i];
            if input.cache.keys.get(&url) == Some(key) {
                return Ok(kept(url, key));
            }
            let mut view = match_page::match_page(r, i, own_template);
            let body = if templates.builtin() {
                // The kill list and the timeline are most of a page's bytes: spliced in after
                // Tera rendered the rest ([`holes`]).
                let holes: Vec<holes::Hole> = [
                    holes::punch(&mut view.kills_html, KILLS_MARK),
                    holes::punch(&mut view.timeline_svg, TIMELINE_MARK),
                ]
                .into_iter()
                .flatten()
                .collect();
                let punched = templates.render("match.html", &common, &Keyed("m", view))?;
                match holes::fill(&punched, &holes) {
                    Some(body) => body,
                    // A mark met elsewhere in the page: rendered whole after all.
                    None => {
                        let view = match_page::match_page(r, i, own_template);
                        templates.render("match.html", &common, &Keyed("m", view))?
                    }
                }
            } else {
                templates.render("match.html", &common, &Keyed("m", view))?
            };
            let mut file = html(&url, body);
            file.key = Some(key);
            sunk(input.sink, file)
        };
        let pages = (0..input.matches.len())
            .into_par_iter()
            .with_max_len(PAGES_PER_JOB);
        if input.sink.is_some() {
            let staged = pages
                .map(|i| match_page(i).map(|f| f.staged))
                .collect::<Result<Vec<Option<bool>>>>()?;
            return Ok((files, StagedMatchPages { keys, staged }));
        }
        let failed = std::sync::Mutex::new(None);
        let match_pages = pages.map(|i| {
            match_page(i).unwrap_or_else(|e| {
                failed.lock().expect("no page panicked").get_or_insert(e);
                OutputFile::new("", Vec::new())
            })
        });
        // Written straight into the room reserved above.
        files.par_extend(match_pages);
        match failed.into_inner().expect("no page panicked") {
            Some(e) => Err(e),
            None => Ok((files, StagedMatchPages::default())),
        }
    };
    let player_urls = |i: usize| links.players[i].clone();
    // The rank shards (one sequential pass over every player, then a file per shard) and the
    // data files are made beside the player pages, and the data files are staged as soon as
    // each is made: after the pages, writing and hashing players.json (45 MB on a public
    // server's site) and its siblings was a stretch of one busy core at the end of the build.
    use crate::progress::timed;
    let ((player_pages, (shards, others)), (data, made)) = rayon::join(
        || {
            rayon::join(
                || {
                    timed("player pages", || {
                        render_completed_pages(
                            templates,
                            &page,
                            input.roster.players.len(),
                            "player.html",
                            &player_urls,
                            &|i| Keyed("p", player::player_page(r, i)),
                            &|i, Keyed(name, page)| {
                                Keyed(name, player::complete_player_page(r, i, page))
                            },
                            input.cache,
                            input.sink,
                        )
                    })
                },
                || {
                    rayon::join(
                        || timed("rank shards", || rank_shards::files(r)),
                        || timed("map, clan and match pages", other_pages),
                    )
                },
            )
        },
        || {
            rayon::join(
                || timed("data files", || data::data_files(input, links, input.sink)),
                || timed("index and lists", lists),
            )
        },
    );
    let (made, player_pages, shards, data, (others, match_pages)) =
        (made?, player_pages?, shards?, data?, others?);
    let statics = static_files(input.site_dir)?;
    // A record per page, made at its number (grown by doubling, it held up to as many again).
    let parts = [&made, &player_pages, &shards, &data, &others, &statics];
    let count = parts.iter().map(|p| p.len()).sum::<usize>() + content_pages.len() + 1 + after;
    files.reserve_exact(count);
    files.extend(made);
    files.extend(player_pages);
    files.extend(shards);
    files.extend(data);
    files.extend(others);
    timer.lap("index, lists and pages");
    for p in content_pages {
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
    ) {
        files.push(html("feed.xml", xml));
    }
    files.extend(statics);
    input.leftovers.discard((player_rows, map_rows));
    Ok((files, match_pages))
}

/// The match pages a build gave its sink ([`PageSink`]) as it made them, and those it keeps as
/// published, in the order of the matches: a page's path follows from its match's id
/// ([`match_url`]), so each is held as its key and what became of it. A file's record and path
/// took 88 bytes a match (issue 41: 5.6 MB of the pages' peak at 64,000 matches), this 9.
#[derive(Debug, Default)]
pub struct StagedMatchPages {
    /// Each page's key ([`PageCache`]).
    pub keys: Vec<u64>,
    /// Each page's bytes were new in the staging folder (`Some(true)`) or not (`Some(false)`);
    /// None: the published page is kept (linked when publishing).
    pub staged: Vec<Option<bool>>,
}

impl StagedMatchPages {
    /// How many pages there are.
    pub fn len(&self) -> usize {
        self.staged.len()
    }

    /// There is none (a build without a sink, or without a match).
    pub fn is_empty(&self) -> bool {
        self.staged.is_empty()
    }
}

/// The rows every list of the site shows, made once for all of them, and the number of
/// matches (whose rows each list makes as it shows them: [`match_page::match_row`]).
struct ListRows<'r> {
    players: &'r [PlayerRow<'r>],
    matches: usize,
    maps: &'r [views::MapRow],
}

/// The index and the lists (players, matches, maps, clans, servers, ladders, seasons) and the
/// balance report, each staged as soon as it is made ([`sunk`]). `salt` is what the match list's
/// pages share in their keys.
fn index_and_lists<'a>(
    input: &SiteInput,
    templates: &Templates,
    links: &Links,
    page: &(dyn Fn(&'static str, &str) -> Common<'a> + Sync),
    r: &Renderer,
    rows: &ListRows,
    salt: u64,
) -> Result<Vec<OutputFile>> {
    let mut files = Vec::new();
    let mut top_maps = rows.maps.to_vec();
    top_maps.sort_by(|a, b| b.matches.cmp(&a.matches).then(a.name.cmp(&b.name)));
    top_maps.truncate(10);
    let static_rows = ranking::static_rows(r, &input.ratings.static_.core, |i| {
        input.ratings.static_.value[i]
    });
    let established = rows
        .players
        .iter()
        .take_while(|p| !p.provisional && !p.inactive)
        .count();
    // The index shows the first ten of the provisional players and counts them all.
    let provisional = || rows.players[established..].iter().filter(|p| !p.inactive);
    let provisional_top: Vec<PlayerRow> = provisional().take(10).cloned().collect();
    // The first ten of Becker's ladder, by the ranks the renderer gave it.
    let mut becker_ids = [None; 10];
    for (i, &rank) in r.becker_rank.iter().enumerate() {
        if let Some(at) = becker_ids.get_mut(rank.wrapping_sub(1)) {
            *at = Some(i);
        }
    }
    let becker_top: Vec<PlayerRow> = becker_ids
        .into_iter()
        .flatten()
        .map(|i| player::player_row(r, i))
        .collect();
    let game_boards = pages::ladders::game_boards(r, 10);
    let index = IndexPage {
        updated: updated_line(input.matches),
        totals: index::totals(r),
        top_players: &rows.players[..established.min(25)],
        game_boards: &game_boards,
        provisional: &provisional_top,
        provisional_count: provisional().count(),
        provisional_incidents: input.config.rating.headline.provisional_incidents,
        becker_top,
        recent_matches: &(0..rows.matches)
            .rev()
            .take(10)
            .map(|i| match_page::match_row(r, i))
            .collect::<Vec<_>>(),
        top_maps,
        static_core: &static_rows[..static_rows.len().min(25)],
        static_core_size: static_rows.len(),
        awards: index::awards(r),
        season: season::current_season(r),
        no_matches: pages::index::NoMatches::of(input),
    };
    files.push(html(
        "index.html",
        templates.render("index.html", &page("", "index.html"), &index)?,
    ));
    let top = |name: &'static str| page("", name);
    files.extend(player_list::pages(
        templates,
        &page,
        rows.players,
        &game_boards,
        player_list::PAGE_SIZE,
    )?);
    files.extend(match_list::pages(
        templates,
        &page,
        rows.matches,
        &|i| match_page::match_row(r, i),
        input.cache,
        salt,
        match_list::PAGE_SIZE,
        input.sink,
    )?);
    files.push(top_page(
        templates,
        top("maps.html"),
        &Keyed("maps", rows.maps),
    )?);
    files.extend(paged_list::pages(
        templates,
        &page,
        "clans.html",
        "clan-list",
        "clans",
        &clan::clan_rows(r),
        paged_list::PAGE_SIZE,
    )?);
    let servers = links.match_servers.by_server();
    let server_rows = server::server_rows(r, &servers);
    files.extend(paged_list::pages(
        templates,
        &page,
        "servers.html",
        "server-list",
        "servers",
        &server::server_list(&server_rows),
        paged_list::PAGE_SIZE,
    )?);
    files.extend(render_pages(
        templates,
        &page,
        server_rows.len(),
        "server.html",
        &|i| server_rows[i].url.clone(),
        &|i| {
            Keyed(
                "server",
                server::server_page(r, &server_rows[i], servers.of(i)),
            )
        },
        input.cache,
        input.sink,
    )?);
    files.extend(pages::ladders::files(r, templates, top("ladders.html"))?);
    if input.config.seasons.configured() {
        files.push(top_page(
            templates,
            top("seasons.html"),
            &Keyed("seasons", season::seasons_page(r)),
        )?);
        files.extend(render_pages(
            templates,
            &page,
            input.seasons.list.len(),
            "season.html",
            &|s| links.seasons[s].clone(),
            &|s| Keyed("season", season::season_page(r, s)),
            input.cache,
            input.sink,
        )?);
    }
    // The team balancer: all in the browser, from data/balance.js; the report from the build.
    files.push(top_page(
        templates,
        top("balance.html"),
        &Keyed("balance", balance_report::balance_report(r)),
    )?);

    input.leftovers.discard(index);
    input.leftovers.discard((static_rows, servers, server_rows));
    files
        .into_iter()
        .map(|file| sunk(input.sink, file))
        .collect()
}

/// The most pages one job of a parallel loop over pages keys or renders. Rayon splits a loop
/// into a few runs per thread and a thread works through a run alone: keying a public
/// server's 64,000 player pages ended with one core busy for about 40 ms and the other idle.
/// Runs this short (about a millisecond of keying) are shared out to the end.
const PAGES_PER_JOB: usize = 256;

/// Where a match page's kill list goes while Tera renders the rest ([`holes`]).
const KILLS_MARK: &str = "\0fragstats:kills_html\0";

/// Where a match page's frag timeline goes while Tera renders the rest ([`holes`]).
const TIMELINE_MARK: &str = "\0fragstats:timeline_svg\0";

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

/// Renders a page at the site root whose template has the page's own name.
fn top_page(templates: &Templates, common: Common, view: &impl Serialize) -> Result<OutputFile> {
    let name = common.current.clone();
    Ok(html(&name, templates.render(&name, &common, view)?))
}

/// Renders `count` pages of one template in parallel (one per player, map, clan ...). Each
/// page's key is the hash of everything its template is given ([`view_key`]): a page whose key
/// the `cache` holds for its URL is kept as it is, unrendered and unread.
#[allow(clippy::too_many_arguments)]
fn render_pages<'a, V: Serialize>(
    templates: &Templates,
    common: &(dyn Fn(&'static str, &str) -> Common<'a> + Sync),
    count: usize,
    template: &str,
    url: &(dyn Fn(usize) -> String + Sync),
    view: &(dyn Fn(usize) -> V + Sync),
    cache: &PageCache,
    sink: Option<&dyn PageSink>,
) -> Result<Vec<OutputFile>> {
    render_completed_pages(
        templates,
        common,
        count,
        template,
        url,
        view,
        &|_, v| v,
        cache,
        sink,
    )
}

/// [`render_pages`] from keyed views that `complete` turns into the views rendered: the keyed
/// view may hold a stand-in for a costly part that is a function of what the stand-in holds
/// (see [`lazy_curves`]), so the part is made only for pages that are rendered.
#[allow(clippy::too_many_arguments)]
fn render_completed_pages<'a, V: Serialize>(
    templates: &Templates,
    common: &(dyn Fn(&'static str, &str) -> Common<'a> + Sync),
    count: usize,
    template: &str,
    url: &(dyn Fn(usize) -> String + Sync),
    view: &(dyn Fn(usize) -> V + Sync),
    complete: &(dyn Fn(usize, V) -> V + Sync),
    cache: &PageCache,
    sink: Option<&dyn PageSink>,
) -> Result<Vec<OutputFile>> {
    let shared = shared_key(templates, template, &common("../", ""));
    (0..count)
        .into_par_iter()
        // In runs of at most [`PAGES_PER_JOB`] pages, so the last runs are shared out too.
        .with_max_len(PAGES_PER_JOB)
        .filter_map(|i| {
            let url = url(i);
            // Pages of hidden players are not made (their URL is empty).
            if url.is_empty() {
                return None;
            }
            let view = view(i);
            let key = shared.and_then(|shared| view_key(shared, &url, &view));
            if let Some(key) = key
                && cache.keys.get(&url) == Some(key)
            {
                return Some(Ok(kept(url, key)));
            }
            let body = templates.render(template, &common("../", &url), &complete(i, view));
            Some(body.and_then(|body| {
                let mut file = html(&url, body);
                file.key = key;
                sunk(sink, file)
            }))
        })
        .collect()
}

/// What every page of template `name` under one folder shares in its key: the hash of every
/// template's source, of the name and of `common` made for the folder with an empty `current`
/// (the page's own URL, the only field of [`Common`] that differs between the pages, goes into
/// each page's [`view_key`]). Hashed once per template rather than once per page. None when
/// `common` cannot be serialised (rendering then reports why).
fn shared_key(templates: &Templates, name: &str, common: &Common) -> Option<u64> {
    let mut h = crate::hash::StreamHasher::new();
    h.u64(templates.fingerprint());
    h.str(name);
    serde_json::to_writer(&mut h, common).ok()?;
    Some(h.finish())
}

/// The key of the page at `url` rendered from `view` (with the [`Common`] that
/// [`shared_key`]'s `shared` was made from, its `current` set to `url`): the hash of the shared
/// part, the URL and the whole view, serialised through the same `Serialize` the template's
/// context is made with. Equal keys mean equal pages (rendering is a function of exactly
/// these). None when the view cannot be serialised (rendering then reports why).
///
/// The view is serialised as MessagePack with field names, not as JSON: it is self-describing
/// (strings length-prefixed, numbers in their own bits, maps and fields named), so equal bytes
/// mean an equal serde value and so an equal JSON context, and it writes strings as they are
/// where JSON scans each byte for escapes and prints each number in decimal (which was about
/// half the cost of keying a crowd's player pages).
fn view_key(shared: u64, url: &str, view: &impl Serialize) -> Option<u64> {
    thread_local! {
        // The view's encoding, in a buffer reused by each page a thread keys: a serializer
        // writes a few bytes at a time, which costs more through a hasher than into a vector.
        static ENCODED: std::cell::RefCell<Vec<u8>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    ENCODED.with_borrow_mut(|encoded| {
        encoded.clear();
        rmp_serde::encode::write_named(&mut *encoded, view).ok()?;
        let mut h = crate::hash::StreamHasher::new();
        h.u64(shared);
        h.str(url);
        h.raw(encoded);
        Some(h.finish())
    })
}

/// `file` given to `sink`, if there is one.
pub(crate) fn sunk(sink: Option<&dyn PageSink>, file: OutputFile) -> Result<OutputFile> {
    match sink {
        Some(sink) => sink.page(file),
        None => Ok(file),
    }
}

/// The file at `path` whose parts `make` makes, given to `sink` as they come if there is one,
/// else returned with its parts.
pub(crate) fn sunk_parts(
    sink: Option<&dyn PageSink>,
    path: &str,
    make: &mut MakeParts,
) -> Result<OutputFile> {
    if let Some(sink) = sink {
        return sink.parts(path, make);
    }
    let mut parts = Vec::new();
    make(&mut |part| {
        parts.push(part);
        Ok(())
    })?;
    Ok(OutputFile::from_parts(path, parts))
}

/// A page whose key shows the published file is still right: it is kept as it is.
fn kept(path: String, key: u64) -> OutputFile {
    OutputFile::without_bytes(path, Some(key), true, None)
}

fn html(path: &str, body: String) -> OutputFile {
    OutputFile::new(path, body.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Two<'a> {
        a: &'a str,
        b: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        c: Option<f64>,
    }

    /// A page key tells apart views that JSON would print differently: text moved between
    /// fields, a field left out, a number's last bit; and it is the same for equal views.
    #[test]
    fn view_keys_tell_views_apart() {
        let key = |a, b, c| view_key(1, "players/x.html", &Two { a, b, c }).unwrap();
        let base = key("ab", "c", None);
        assert_eq!(base, key("ab", "c", None));
        assert_ne!(base, key("a", "bc", None));
        assert_ne!(base, key("ab", "c", Some(0.0)));
        assert_ne!(
            key("ab", "c", Some(0.1)),
            key("ab", "c", Some(0.1 + 1e-17 + 2e-17))
        );
        assert_ne!(
            base,
            view_key(
                2,
                "players/x.html",
                &Two {
                    a: "ab",
                    b: "c",
                    c: None
                }
            )
            .unwrap()
        );
        assert_ne!(
            base,
            view_key(
                1,
                "players/y.html",
                &Two {
                    a: "ab",
                    b: "c",
                    c: None
                }
            )
            .unwrap()
        );
    }
}
