//! The seasons list (`seasons.html`), each season's page (`seasons/<slug>.html`: its ladder, top
//! three, most active players, maps and matches), the seasons of a player page, the current
//! season on the index and `data/seasons.json`. The ladders themselves come from
//! [`crate::standings::season`]; nothing here exists when no season is configured.

use serde::Serialize;

use crate::config::Config;
use crate::render::pages::match_page;
use crate::render::paths::unique_slugs;
use crate::render::renderer::Renderer;
use crate::render::views::*;
use crate::standings::season::{Season, SeasonPlayer, Seasons};

/// A season's page lists this many players of its ladder (`data/seasons.json` has them all).
const SEASON_LADDER_ROWS: usize = 500;

/// A season's page lists this many latest matches.
const SEASON_MATCH_ROWS: usize = 200;

/// The index shows this many players of the current season.
const INDEX_SEASON_ROWS: usize = 10;

/// One season in the list of seasons.
#[derive(Debug, Clone, Serialize)]
pub struct SeasonRow {
    pub name: String,
    pub url: String,
    /// First and last day (`YYYY-MM-DD`), both inclusive.
    pub start: String,
    pub end: String,
    pub matches: usize,
    pub players: usize,
    /// The season's first ranked player, if any.
    pub leader: Option<SeasonLadderRow>,
    /// The latest season that has begun.
    pub current: bool,
}

/// One player on a season's ladder.
#[derive(Debug, Clone, Serialize)]
pub struct SeasonLadderRow {
    /// 1-based; None while provisional.
    pub rank: Option<usize>,
    pub name_html: String,
    pub url: String,
    /// The season's headline rating, no decimals.
    pub rating: String,
    pub provisional: bool,
    pub matches: usize,
    pub kills: u32,
}

/// `seasons.html`.
#[derive(Debug, Clone, Serialize)]
pub struct SeasonsPage {
    /// Newest first.
    pub rows: Vec<SeasonRow>,
    /// Matches without a date (in no season).
    pub undated: usize,
    /// How the seasons start: `carry` as a percentage, 0 = from nothing.
    pub carry_percent: String,
    pub provisional_incidents: u32,
}

/// `seasons/<slug>.html`.
#[derive(Debug, Clone, Serialize)]
pub struct SeasonPage<'a> {
    pub row: SeasonRow,
    /// The best three ranked players.
    pub top: Vec<SeasonLadderRow>,
    /// The ladder's first rows, and how many more players the season has.
    pub ladder: Vec<SeasonLadderRow>,
    pub more: usize,
    /// Players with most matches in the season.
    pub active: Vec<NamedCount>,
    /// Matches per map, most played first.
    pub maps: Vec<LabelCount<'a>>,
    /// The latest matches, newest first.
    pub match_rows: Vec<MatchRow>,
    pub undated: usize,
    pub carry_percent: String,
    pub provisional_incidents: u32,
}

/// The current season on the index.
#[derive(Debug, Clone, Serialize)]
pub struct CurrentSeason {
    pub row: SeasonRow,
    pub ladder: Vec<SeasonLadderRow>,
}

/// One object of `data/seasons.json`.
#[derive(Debug, Serialize)]
pub struct SeasonJson<'a> {
    pub name: &'a str,
    /// First and last day (`YYYY-MM-DD`, log time), both inclusive.
    pub start: String,
    pub end: String,
    /// Matches in the season.
    pub matches: usize,
    /// The season's ladder, best first (hidden players left out).
    pub players: Vec<SeasonPlayerJson<'a>>,
}

/// One player of a season in `data/seasons.json`.
#[derive(Debug, Serialize)]
pub struct SeasonPlayerJson<'a> {
    /// Identity key, as in `data/players.json`.
    pub plain_name: &'a str,
    /// The season's headline rating (computed on its matches only, plus the carried share).
    pub headline_rating: f64,
    /// 1-based; null for provisional players.
    pub rank: Option<usize>,
    pub provisional: bool,
}

/// The page path of each season (`seasons/<slug>.html`), in the order of `seasons.list`.
pub(in crate::render) fn season_urls(seasons: &Seasons) -> Vec<String> {
    unique_slugs(seasons.list.iter().map(|s| s.name.as_str()), "season")
        .into_iter()
        .map(|s| format!("seasons/{s}.html"))
        .collect()
}

/// `data/seasons.json`: every season, oldest first (an empty array without seasons).
pub(in crate::render) fn seasons_json<'a>(
    seasons: &'a Seasons,
    roster: &'a crate::model::identity::Roster,
) -> Vec<SeasonJson<'a>> {
    seasons
        .list
        .iter()
        .map(|s| SeasonJson {
            name: &s.name,
            start: s.start.to_string(),
            end: s.end.to_string(),
            matches: s.matches.len(),
            players: s
                .players
                .iter()
                .map(|p| SeasonPlayerJson {
                    plain_name: &roster.players[p.id].key,
                    headline_rating: p.rating,
                    rank: p.rank,
                    provisional: p.provisional,
                })
                .collect(),
        })
        .collect()
}

/// `carry` as the pages say it.
fn carry_percent(config: &Config) -> String {
    format!("{:.0}", config.seasons.carry * 100.0)
}

fn season_ladder_row(r: &Renderer, p: &SeasonPlayer) -> SeasonLadderRow {
    let (name_html, url) = r.player_ref(p.id as u32);
    SeasonLadderRow {
        rank: p.rank,
        name_html,
        url,
        rating: format!("{:.0}", p.rating),
        provisional: p.provisional,
        matches: p.matches,
        kills: p.kills,
    }
}

fn season_row(r: &Renderer, s: usize) -> SeasonRow {
    let seasons = r.input.seasons;
    let season = &seasons.list[s];
    SeasonRow {
        name: season.name.clone(),
        url: r.links.seasons[s].clone(),
        start: season.start.to_string(),
        end: season.end.to_string(),
        matches: season.matches.len(),
        players: season.players.len(),
        leader: season
            .players
            .first()
            .filter(|p| p.rank.is_some())
            .map(|p| season_ladder_row(r, p)),
        current: seasons.current == Some(s),
    }
}

/// `seasons.html`.
pub(in crate::render) fn seasons_page(r: &Renderer) -> SeasonsPage {
    SeasonsPage {
        rows: (0..r.input.seasons.list.len())
            .rev()
            .map(|s| season_row(r, s))
            .collect(),
        undated: r.input.seasons.undated,
        carry_percent: carry_percent(r.input.config),
        provisional_incidents: r.input.config.rating.headline.provisional_incidents,
    }
}

/// The page of season number `s`.
pub(in crate::render) fn season_page<'s>(r: &'s Renderer<'_>, s: usize) -> SeasonPage<'s> {
    let season: &Season = &r.input.seasons.list[s];
    let maps = r.map_shares(season.matches.iter().copied());
    let mut active: Vec<&SeasonPlayer> = season.players.iter().collect();
    active.sort_by(|a, b| {
        b.matches
            .cmp(&a.matches)
            .then(b.kills.cmp(&a.kills))
            .then(a.id.cmp(&b.id))
    });
    let active = active
        .into_iter()
        .take(10)
        .map(|p| {
            let (name_html, url) = r.player_ref(p.id as u32);
            NamedCount {
                name_html,
                url,
                count: p.matches as u32,
            }
        })
        .collect();
    SeasonPage {
        row: season_row(r, s),
        top: season
            .players
            .iter()
            .take_while(|p| p.rank.is_some())
            .take(3)
            .map(|p| season_ladder_row(r, p))
            .collect(),
        ladder: season
            .players
            .iter()
            .take(SEASON_LADDER_ROWS)
            .map(|p| season_ladder_row(r, p))
            .collect(),
        more: season.players.len().saturating_sub(SEASON_LADDER_ROWS),
        active,
        maps,
        match_rows: season
            .matches
            .iter()
            .rev()
            .take(SEASON_MATCH_ROWS)
            .map(|&i| match_page::match_row(r, i))
            .collect(),
        undated: r.input.seasons.undated,
        carry_percent: carry_percent(r.input.config),
        provisional_incidents: r.input.config.rating.headline.provisional_incidents,
    }
}

/// The seasons identity `i` played in, newest first.
pub(in crate::render) fn player_seasons(r: &Renderer, i: usize) -> Vec<PlayerSeasonRow> {
    let seasons = r.input.seasons;
    let Some(placed) = seasons.placements.get(i) else {
        return Vec::new();
    };
    placed
        .iter()
        .rev()
        .map(|&(s, pos)| {
            let season = &seasons.list[s];
            let p = &season.players[pos];
            PlayerSeasonRow {
                name: season.name.clone(),
                url: r.links.seasons[s].clone(),
                rank: p.rank,
                ranked: season.ranked,
                rating: format!("{:.0}", p.rating),
                matches: p.matches,
            }
        })
        .collect()
}

/// The current season and its first players, for the index.
pub(in crate::render) fn current_season(r: &Renderer) -> Option<CurrentSeason> {
    let s = r.input.seasons.current?;
    Some(CurrentSeason {
        row: season_row(r, s),
        ladder: r.input.seasons.list[s]
            .players
            .iter()
            .take(INDEX_SEASON_ROWS)
            .map(|p| season_ladder_row(r, p))
            .collect(),
    })
}
