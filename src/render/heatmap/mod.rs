//! Heatmaps: where kills and deaths happen, from the positions the logs carry
//! ([`crate::model::Match::spots`]). Gathers every positioned kill once ([`Heat::new`]), bins it
//! on each map's [`grid::Grid`], and makes the views the map, player and match pages show and
//! the files they show: a density panel per switch (every kill, each side, each weapon class),
//! a player's own kills and deaths per map, a match's kills as lines, the admin's overview
//! images, and `data/heatmaps.json`. Draws through [`super::charts`]; renders no page.

pub mod grid;

use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;
use serde::Serialize;

use super::charts::{self, KillLine, Panel, Ramp};
use super::renderer::Renderer;
use super::{OutputFile, SiteInput};
use crate::model::weapons::weapon_class;
use crate::model::{EventKind, Team};
use grid::{Grid, Overview};

/// Most switches a map's heatmap offers (every kill, two sides, weapon classes): the page's
/// stylesheet shows one panel per checked switch for this many.
pub const MAX_VARIANTS: usize = 12;

/// The map of a match whose log names none ([`crate::parse::new_match`]).
const UNKNOWN_MAP: &str = "(unknown)";

/// Fewest positioned kills and deaths of a player on a map for their page to map it.
pub const MIN_PLAYER_SPOTS: usize = 10;

/// One positioned kill.
#[derive(Debug, Clone, Copy)]
pub struct Spot {
    /// The match (site order).
    pub game: u32,
    /// Killer and victim identities.
    pub killer: u32,
    pub victim: u32,
    pub sides: [Team; 2],
    pub class: &'static str,
    pub at: [i32; 3],
    pub to: [i32; 3],
}

/// A map's positioned kills, its grid and its overview.
pub struct MapHeat {
    /// Index in the site's map counts.
    pub map: usize,
    /// The map's game (of its first positioned match): names its sides.
    pub game: String,
    pub grid: Grid,
    pub overview: Option<Overview>,
    pub spots: Vec<Spot>,
    /// Kills with a position outside the overview image (not drawn; none without an image).
    pub outside: usize,
    /// Its page's path without `.html` (`maps/<slug>`): its files are `<stem>-heat.svg` (every
    /// panel, one per view) and `<stem>-overview.<ext>`.
    pub stem: String,
}

/// Every positioned kill of the site, by map, and what the pages need to find them.
#[derive(Default)]
pub struct Heat {
    pub maps: Vec<MapHeat>,
    /// Index in `maps` of each map of the site's counts that has positions.
    by_map: HashMap<usize, usize>,
    /// Each match's kills: its map's index in `maps` and their range in its `spots`.
    by_game: HashMap<u32, (usize, std::ops::Range<usize>)>,
    /// Each identity's kills and deaths: per index in `maps`, the indices in its `spots`.
    by_player: HashMap<u32, BTreeMap<usize, Vec<u32>>>,
    /// Why an overview the admin gave could not be used (for the terminal).
    pub problems: Vec<String>,
}

/// A page's path without `.html`.
fn stem_of(page_url: &str) -> String {
    page_url
        .strip_suffix(".html")
        .unwrap_or(page_url)
        .to_string()
}

impl Heat {
    /// Gathers the positioned kills of `input`'s matches (none for logs without positions:
    /// then nothing else is done), with each map's overview from the site folder.
    pub fn new(input: &SiteInput, map_urls: &HashMap<String, String>) -> Heat {
        // A map the log does not name may be several levels: their positions do not share one
        // picture, so they are drawn nowhere.
        let map_index: HashMap<&str, usize> = (input.stats.maps.iter().enumerate())
            .filter(|(_, m)| m.name != UNKNOWN_MAP)
            .map(|(i, m)| (m.name.as_str(), i))
            .collect();
        // Only the matches with positions are decoded.
        let per_match: Vec<(usize, Vec<Spot>)> = (0..input.matches.len())
            .into_par_iter()
            .filter(|&i| input.matches.head(i).has_spots)
            .map(|i| (i, input.matches.at(i)))
            .filter_map(|(i, m)| {
                let map = *map_index.get(m.map.as_str())?;
                let by_line: HashMap<u64, &crate::model::KillSpots> =
                    m.spots.iter().map(|s| (s.line, s)).collect();
                let ids = &input.roster.match_players.at(i);
                let spots = (m.events.read().iter())
                    .filter(|e| matches!(e.kind, EventKind::Frag | EventKind::TeamKill))
                    .filter_map(|e| {
                        let s = by_line.get(&e.line)?;
                        Some(Spot {
                            game: i as u32,
                            killer: *ids.get(e.actor as usize)?,
                            victim: *ids.get(e.target as usize)?,
                            sides: s.sides,
                            class: weapon_class(&m.game, m.weapons.get(usize::from(e.detail))?),
                            at: s.killer,
                            to: s.victim,
                        })
                    })
                    .collect();
                Some((map, spots))
            })
            .collect();
        let mut grouped: BTreeMap<usize, Vec<Spot>> = BTreeMap::new();
        for (map, spots) in per_match {
            grouped.entry(map).or_default().extend(spots);
        }
        let mut heat = Heat::default();
        for (map, spots) in grouped {
            let name = &input.stats.maps[map].name;
            let Some(url) = map_urls.get(name) else {
                continue;
            };
            let overview = match grid::read_overview(input.site_dir, name) {
                Some(Ok(o)) => Some(o),
                Some(Err(why)) => {
                    heat.problems
                        .push(format!("overview of {name} not used: {why}"));
                    None
                }
                None => None,
            };
            let grid = match &overview {
                Some(o) => Grid::on(o),
                None => match Grid::around(spots.iter().flat_map(|s| [s.at, s.to])) {
                    Some(g) => g,
                    None => continue,
                },
            };
            let outside = (spots.iter())
                .filter(|s| grid.cell_of(s.at).is_none() || grid.cell_of(s.to).is_none())
                .count();
            if outside > 0 {
                heat.problems.push(format!(
                    "{outside} of the {} kills with positions on {name} fall outside its \
                     overview image and are not drawn: check pos_x, pos_y and scale in \
                     maps/{name}.txt",
                    spots.len()
                ));
            }
            let game = spots
                .first()
                .map(|s| input.matches.head(s.game as usize).game.clone())
                .unwrap_or_default();
            let at = heat.maps.len();
            heat.by_map.insert(map, at);
            let mut start = 0;
            while start < spots.len() {
                let game = spots[start].game;
                let end = start + spots[start..].iter().take_while(|s| s.game == game).count();
                heat.by_game.insert(game, (at, start..end));
                start = end;
            }
            for (k, s) in spots.iter().enumerate() {
                for p in [s.killer, s.victim] {
                    let list = heat.by_player.entry(p).or_default().entry(at).or_default();
                    if list.last() != Some(&(k as u32)) {
                        list.push(k as u32);
                    }
                }
            }
            heat.maps.push(MapHeat {
                map,
                game: game.to_string(),
                grid,
                overview,
                spots,
                outside,
                stem: stem_of(url),
            });
        }
        heat
    }

    /// The heat of the site's map `map` (index in the map counts), if it has positions.
    pub fn of_map(&self, map: usize) -> Option<&MapHeat> {
        self.by_map.get(&map).map(|&i| &self.maps[i])
    }

    /// Match `game`'s map and its positioned kills.
    fn of_game(&self, game: usize) -> Option<(&MapHeat, &[Spot])> {
        let (at, range) = self.by_game.get(&(game as u32))?;
        let h = &self.maps[*at];
        Some((h, &h.spots[range.clone()]))
    }

    /// Identity `p`'s maps: each with the kills and deaths of theirs on it.
    fn of_player(&self, p: u32) -> impl Iterator<Item = (&MapHeat, Vec<&Spot>)> {
        (self.by_player.get(&p).into_iter().flatten()).map(|(&at, ks)| {
            (
                &self.maps[at],
                ks.iter()
                    .map(|&k| &self.maps[at].spots[k as usize])
                    .collect(),
            )
        })
    }
}

/// What the sides of game `game` are called.
pub fn side_names(game: &str) -> [&'static str; 2] {
    match game {
        "cs16" | "css" | "csgo" | "cs2" => ["Terrorists", "Counter-Terrorists"],
        "tf2" => ["RED", "BLU"],
        "l4d2" => ["Infected", "Survivors"],
        _ => ["Red", "Blue"],
    }
}

/// One switch of a map's heatmap: which kills it keeps.
#[derive(Debug, Clone, PartialEq)]
enum Filter {
    All,
    Side(Team),
    Class(&'static str),
}

impl Filter {
    /// Whether the switch shows kill `s` among the kills (by the killer) and among the deaths
    /// (of the victim): a side's kills are those its players made, its deaths those its players
    /// died.
    fn keeps(&self, s: &Spot) -> (bool, bool) {
        match self {
            Filter::All => (true, true),
            Filter::Side(t) => (s.sides[0] == *t, s.sides[1] == *t),
            Filter::Class(c) => (s.class == *c, s.class == *c),
        }
    }
}

/// A grid's cells with their counts, sparse, in row then column order.
fn binned(grid: &Grid, points: impl Iterator<Item = [i32; 3]>) -> Vec<(u32, u32, u32)> {
    // At most CELLS x CELLS counters: counted in place, then the non-empty ones listed.
    let cols = grid.cols as usize;
    let mut counts = vec![0u32; cols * grid.rows as usize];
    for p in points {
        if let Some((col, row)) = grid.cell_of(p) {
            counts[row as usize * cols + col as usize] += 1;
        }
    }
    (counts.iter().enumerate())
        .filter(|(_, n)| **n > 0)
        .map(|(i, n)| ((i % cols) as u32, (i / cols) as u32, *n))
        .collect()
}

/// The switches of a map: every kill, each side with kills, then the weapon classes by kills
/// (most first), [`MAX_VARIANTS`] in all.
fn filters(h: &MapHeat) -> Vec<(Filter, String, String)> {
    let names = side_names(&h.game);
    let mut out = vec![(Filter::All, "all".to_string(), "Every kill".to_string())];
    for (t, name, key) in [
        (Team::Red, names[0], "side-red"),
        (Team::Blue, names[1], "side-blue"),
    ] {
        if h.spots.iter().any(|s| s.sides[0] == t) {
            out.push((Filter::Side(t), key.to_string(), name.to_string()));
        }
    }
    let mut classes: BTreeMap<&'static str, u32> = BTreeMap::new();
    for s in &h.spots {
        *classes.entry(s.class).or_default() += 1;
    }
    let mut classes: Vec<(&'static str, u32)> = classes.into_iter().collect();
    classes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    if classes.len() > 1 {
        for (class, _) in classes {
            let key = format!("class-{}", class.to_lowercase().replace(' ', "-"));
            out.push((Filter::Class(class), key, class.to_string()));
        }
    }
    out.truncate(MAX_VARIANTS);
    out
}

/// One switch of a map's heatmap on its page.
#[derive(Debug, Clone, Serialize)]
pub struct HeatVariant {
    pub label: String,
    pub kills: usize,
    pub deaths: usize,
    /// Root-relative URLs of its two panels.
    pub kills_url: String,
    pub deaths_url: String,
}

/// A map's heatmap on its page.
#[derive(Debug, Clone, Serialize)]
pub struct HeatView {
    pub variants: Vec<HeatVariant>,
    /// Root-relative URL of the overview image under the panels ("" without one).
    pub overview: String,
    /// The panels' size in pixels (their aspect ratio).
    pub width: u32,
    pub height: u32,
    /// World units of a cell's side.
    pub cell: u32,
    /// Positioned kills in all.
    pub total: usize,
    /// Of those, the kills with a position outside the overview image, which are not drawn.
    pub outside: usize,
}

/// A player's kills and deaths on one map, on their page.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerHeat {
    pub map: String,
    pub map_url: String,
    pub kills: usize,
    pub deaths: usize,
    /// The two panels, inline (built and escaped in Rust): no file per player.
    pub kills_svg: String,
    pub deaths_svg: String,
    pub overview: String,
    pub width: u32,
    pub height: u32,
}

/// A match's kills drawn as lines, on its page.
#[derive(Debug, Clone, Serialize)]
pub struct MatchKills {
    /// The drawing, inline (built and escaped in Rust): one file less per match.
    pub svg: String,
    pub overview: String,
    pub width: u32,
    pub height: u32,
    pub kills: usize,
    /// The sides' names, red's first.
    pub sides: [&'static str; 2],
}

fn overview_url(h: &MapHeat) -> String {
    match &h.overview {
        Some(o) => format!("{}-overview.{}", h.stem, o.extension),
        None => String::new(),
    }
}

/// The root-relative path of a map's panels (one SVG, a view per panel).
fn sprite_url(h: &MapHeat) -> String {
    format!("{}-heat.svg", h.stem)
}

/// The heatmap of the site's map `map`, for its page.
pub fn map_view(r: &Renderer, map: usize) -> Option<HeatView> {
    let h = r.heat.of_map(map)?;
    let variants = filters(h)
        .into_iter()
        .map(|(f, key, label)| {
            let (kills, deaths) = h.spots.iter().fold((0, 0), |(k, d), s| {
                let (a, b) = f.keeps(s);
                (k + usize::from(a), d + usize::from(b))
            });
            HeatVariant {
                label,
                kills,
                deaths,
                kills_url: format!("{}#kills-{key}", sprite_url(h)),
                deaths_url: format!("{}#deaths-{key}", sprite_url(h)),
            }
        })
        .collect();
    Some(HeatView {
        variants,
        overview: overview_url(h),
        width: h.grid.width,
        height: h.grid.height,
        cell: h.grid.cell.round() as u32,
        total: h.spots.len(),
        outside: h.outside,
    })
}

/// Player `i`'s kills and deaths on each map where they have at least [`MIN_PLAYER_SPOTS`]
/// positioned ones (most first): none for a hidden player, who has no page.
pub fn player_view(r: &Renderer, i: usize) -> Vec<PlayerHeat> {
    if r.links.players[i].is_empty() || r.input.hidden[i] || r.heat.maps.is_empty() {
        return Vec::new();
    }
    let p = i as u32;
    let name = crate::model::names::plain_name(&r.input.roster.players[i].name);
    let mut out: Vec<PlayerHeat> = (r.heat.of_player(p))
        .filter_map(|(h, spots)| {
            let kills: Vec<[i32; 3]> = (spots.iter())
                .filter(|s| s.killer == p)
                .map(|s| s.at)
                .collect();
            let deaths: Vec<[i32; 3]> = (spots.iter())
                .filter(|s| s.victim == p)
                .map(|s| s.to)
                .collect();
            (kills.len() + deaths.len() >= MIN_PLAYER_SPOTS).then(|| {
                let map = &r.input.stats.maps[h.map].name;
                let what = format!("{name} on {map}");
                let (kills_n, deaths_n) = (kills.len(), deaths.len());
                let [kills_svg, deaths_svg] =
                    panels(h, &what, kills.into_iter(), deaths.into_iter());
                PlayerHeat {
                    map: map.clone(),
                    map_url: r.map_url(map).to_string(),
                    kills: kills_n,
                    deaths: deaths_n,
                    kills_svg,
                    deaths_svg,
                    overview: overview_url(h),
                    width: h.grid.width,
                    height: h.grid.height,
                }
            })
        })
        .collect();
    out.sort_by(|a, b| {
        (b.kills + b.deaths)
            .cmp(&(a.kills + a.deaths))
            .then(a.map.cmp(&b.map))
    });
    out
}

/// The kills of match `game` (site order) as lines, if its map has positions and it has some.
pub fn match_view(r: &Renderer, game: usize) -> Option<MatchKills> {
    let m = &r.input.matches.at(game);
    let (h, spots) = r.heat.of_game(game)?;
    let side = |t: Team| match t {
        Team::Red => 0,
        Team::Blue => 1,
        _ => 2,
    };
    let lines: Vec<KillLine> = (spots.iter())
        .map(|s| KillLine {
            from: h.grid.pixel(s.at),
            to: h.grid.pixel(s.to),
            side: side(s.sides[0]),
        })
        .collect();
    let title = format!("{} kills on {}: from killer to victim", lines.len(), m.map);
    let size = (h.grid.width, h.grid.height);
    Some(MatchKills {
        svg: charts::kill_lines_svg(&title, size, &lines, h.overview.is_some()),
        overview: overview_url(h),
        width: h.grid.width,
        height: h.grid.height,
        kills: spots.len(),
        sides: side_names(&m.game),
    })
}

/// What match `game`'s kill map is drawn in besides the match: its map's grid and overview, as
/// fields of the match page's key (a match later on the same map can widen the grid, and an
/// overview the admin adds moves every line). Nothing for a match without positions.
pub fn match_frame(r: &Renderer, game: usize, h: &mut impl crate::hash::Fields) {
    let Some((map, _)) = r.heat.of_game(game) else {
        h.u64(0);
        return;
    };
    let g = &map.grid;
    h.u64(1);
    for v in [g.left, g.top, g.cell, g.pixels] {
        h.u64(v.to_bits());
    }
    for v in [g.cols, g.rows, g.width, g.height] {
        h.u64(u64::from(v));
    }
    h.str(&overview_url(map));
}

/// How many files [`files`] makes at most from `heat`: a map's panels and overview each, and
/// the data file.
pub fn most_files(heat: &Heat) -> usize {
    2 * heat.maps.len() + 1
}

/// Every heatmap file of the site: each map's panels and overview, each player's maps, and
/// `data/heatmaps.json` (a match's kill lines are in its page).
pub fn files(r: &Renderer) -> Vec<OutputFile> {
    let heat = &r.heat;
    if heat.maps.is_empty() {
        return vec![OutputFile::new("data/heatmaps.json", b"[]\n".to_vec())];
    }
    let mut files: Vec<OutputFile> = (heat.maps.par_iter())
        .flat_map_iter(|h| map_files(r, h))
        .collect();
    files.push(data_file(r));
    files
}

/// Kills and deaths binned on `h`'s grid, as two inline panels titled for `what`.
fn panels(
    h: &MapHeat,
    what: &str,
    kills: impl Iterator<Item = [i32; 3]>,
    deaths: impl Iterator<Item = [i32; 3]>,
) -> [String; 2] {
    let size = (h.grid.width, h.grid.height);
    let cell = h.grid.cell * h.grid.pixels;
    let overlay = h.overview.is_some();
    let draw = |points: Vec<(u32, u32, u32)>, ramp, title: String| {
        charts::density_svg(&title, size, cell, &points, ramp, overlay)
    };
    [
        draw(
            binned(&h.grid, kills),
            Ramp::Kills,
            format!("{what}: where the kills were made"),
        ),
        draw(
            binned(&h.grid, deaths),
            Ramp::Deaths,
            format!("{what}: where the deaths were"),
        ),
    ]
}

/// A map's files: every switch's two panels in one SVG (a view each), and its overview.
fn map_files(r: &Renderer, h: &MapHeat) -> Vec<OutputFile> {
    let name = &r.input.stats.maps[h.map].name;
    let mut panels = Vec::new();
    for (f, key, label) in filters(h) {
        let kills = binned(
            &h.grid,
            h.spots.iter().filter(|s| f.keeps(s).0).map(|s| s.at),
        );
        let deaths = binned(
            &h.grid,
            h.spots.iter().filter(|s| f.keeps(s).1).map(|s| s.to),
        );
        let what = format!("{name}, {label}");
        panels.push(Panel {
            id: format!("kills-{key}"),
            title: format!("{what}: where the killers stood"),
            cells: kills,
            ramp: Ramp::Kills,
        });
        panels.push(Panel {
            id: format!("deaths-{key}"),
            title: format!("{what}: where the victims fell"),
            cells: deaths,
            ramp: Ramp::Deaths,
        });
    }
    let size = (h.grid.width, h.grid.height);
    let cell = h.grid.cell * h.grid.pixels;
    let title = format!("Heatmaps of {name}");
    let sprite = charts::density_sprite(&title, size, cell, &panels, h.overview.is_some());
    let mut out = vec![OutputFile::new(sprite_url(h), sprite.into_bytes())];
    if let Some(o) = &h.overview {
        out.push(OutputFile::new(overview_url(h), o.bytes.clone()));
    }
    out
}

/// One map of `data/heatmaps.json`: its grid and its binned kills and deaths, every kill and
/// each side's (cells as `[column, row, count]`, row 0 at the top, `left` and `top` the world
/// position of the grid's corner).
#[derive(Serialize)]
struct MapJson<'a> {
    map: &'a str,
    game: &'a str,
    left: f64,
    top: f64,
    cell: f64,
    columns: u32,
    rows: u32,
    kills: Vec<[u32; 3]>,
    deaths: Vec<[u32; 3]>,
    sides: Vec<SideJson>,
}

#[derive(Serialize)]
struct SideJson {
    side: &'static str,
    kills: Vec<[u32; 3]>,
    deaths: Vec<[u32; 3]>,
}

fn data_file(r: &Renderer) -> OutputFile {
    let cells = |v: Vec<(u32, u32, u32)>| v.into_iter().map(|(c, row, n)| [c, row, n]).collect();
    let maps: Vec<MapJson> = (r.heat.maps.iter())
        .map(|h| {
            let names = side_names(&h.game);
            let sides = [(Team::Red, names[0]), (Team::Blue, names[1])]
                .into_iter()
                .filter(|(t, _)| h.spots.iter().any(|s| s.sides.contains(t)))
                .map(|(t, name)| SideJson {
                    side: name,
                    kills: cells(binned(
                        &h.grid,
                        (h.spots.iter()).filter(|s| s.sides[0] == t).map(|s| s.at),
                    )),
                    deaths: cells(binned(
                        &h.grid,
                        (h.spots.iter()).filter(|s| s.sides[1] == t).map(|s| s.to),
                    )),
                })
                .collect();
            MapJson {
                map: &r.input.stats.maps[h.map].name,
                game: &h.game,
                left: h.grid.left,
                top: h.grid.top,
                cell: h.grid.cell,
                columns: h.grid.cols,
                rows: h.grid.rows,
                kills: cells(binned(&h.grid, h.spots.iter().map(|s| s.at))),
                deaths: cells(binned(&h.grid, h.spots.iter().map(|s| s.to))),
                sides,
            }
        })
        .collect();
    // One map a line: thousands of cells stay readable as rows of numbers.
    let lines: Vec<String> = (maps.iter())
        .map(|m| serde_json::to_string(m).unwrap_or_default())
        .collect();
    let text = if lines.is_empty() {
        "[]\n".to_string()
    } else {
        format!("[\n{}\n]\n", lines.join(",\n"))
    };
    OutputFile::new("data/heatmaps.json", text.into_bytes())
}
