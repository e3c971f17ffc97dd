//! The ladders page (`ladders.html`) and its data (`data/ladders.json`): the site's headline
//! ladder over all matches, then one ladder per game type and, when the logs hold several
//! games, one per game, each rated on its own matches only ([`crate::rating::ladders`]). Hidden
//! players are in none of them.

use anyhow::Result;
use serde::Serialize;

use crate::rating::ladders::{Ladder, LadderKind};
use crate::render::data::json_file;
use crate::render::renderer::Renderer;
use crate::render::templates::Templates;
use crate::render::views::{Common, PlayerRow};
use crate::render::{Keyed, OutputFile, html};

/// Rows of the all-matches ladder shown on the page (the whole of it is `players.html`).
const ALL_ROWS: usize = 25;

/// Rows of each game type's or game's ladder shown on the page (the whole of it is in
/// `data/ladders.json`): a public server's ladder has thousands of players.
const BOARD_ROWS: usize = 100;

/// The page's fields.
#[derive(Serialize)]
struct LaddersPage {
    /// The all-matches ladder's first ranked players, and how many are ranked.
    all: Vec<PlayerRow>,
    all_ranked: usize,
    /// Game type ladders, then game ladders.
    boards: Vec<Board>,
    /// There are game ladders (several games in the logs).
    games: bool,
    /// Frags made plus suffered needed to be ranked.
    provisional_incidents: u32,
    inactive_after_days: Option<u32>,
}

/// One ladder on the page.
#[derive(Serialize)]
struct Board {
    /// In-page anchor (`type-ctf`, `game-urt`).
    anchor: String,
    /// `game_type` or `game`.
    kind: LadderKind,
    name: String,
    /// The first game ladder (the game type ladders come before).
    first_game: bool,
    matches: usize,
    /// Players listed, and how many of them are ranked.
    players: usize,
    ranked: usize,
    rows: Vec<BoardRow>,
    /// Players listed beyond the rows shown.
    more: usize,
}

#[derive(Serialize)]
struct BoardRow {
    rank: Option<u32>,
    name_html: String,
    url: String,
    /// Headline rating on this ladder, rounded.
    rating: String,
    provisional: bool,
    inactive: bool,
    matches: u32,
    frags: u32,
    wins: u32,
    draws: u32,
    losses: u32,
}

/// One ladder of `data/ladders.json`.
#[derive(Serialize)]
struct LadderJson<'a> {
    /// `game_type` or `game`.
    kind: LadderKind,
    /// Game type code (`ffa`, `ctf`, ...) or game code (`quake3`, `urt`, ...).
    key: &'a str,
    name: &'a str,
    /// Matches rated.
    matches: usize,
    /// Best first (ranked, then provisional, then inactive).
    players: Vec<LadderPlayerJson<'a>>,
}

#[derive(Serialize)]
struct LadderPlayerJson<'a> {
    plain_name: &'a str,
    /// The headline rating from this ladder's matches only.
    headline_rating: f64,
    /// 1-based place among the ranked players; null when provisional or inactive.
    rank: Option<u32>,
    provisional: bool,
    active: bool,
    matches: u32,
    frags: u32,
    wins: u32,
    draws: u32,
    losses: u32,
}

/// The in-page anchor of each ladder on `ladders.html` (`type-ctf`, `game-urt`): made from the
/// log's codes through the slug rules, so never raw log text.
pub(in crate::render) fn anchors(ladders: &[Ladder]) -> Vec<String> {
    let slugs =
        crate::render::paths::unique_slugs(ladders.iter().map(|l| l.group.key.as_str()), "other");
    ladders
        .iter()
        .zip(slugs)
        .map(|(l, slug)| match l.group.kind {
            LadderKind::GameType => format!("type-{slug}"),
            LadderKind::Game => format!("game-{slug}"),
        })
        .collect()
}

/// `ladders.html` (with `common` for the page) and `data/ladders.json`.
pub(in crate::render) fn files(
    r: &Renderer,
    templates: &Templates,
    common: Common,
) -> Result<[OutputFile; 2]> {
    let input = r.input;
    let ladders = input.ladders;
    let boards: Vec<Board> = ladders
        .iter()
        .zip(anchors(ladders))
        .enumerate()
        .map(|(n, (l, anchor))| Board {
            anchor,
            kind: l.group.kind,
            name: l.group.name.clone(),
            first_game: l.group.kind == LadderKind::Game
                && (n == 0 || ladders[n - 1].group.kind != LadderKind::Game),
            matches: l.group.matches.len(),
            players: l.entries.len(),
            ranked: l.entries.iter().filter(|e| e.rank.is_some()).count(),
            rows: l
                .entries
                .iter()
                .take(BOARD_ROWS)
                .map(|e| {
                    let (name_html, url) = r.player_ref(e.player);
                    BoardRow {
                        rank: e.rank,
                        name_html,
                        url,
                        rating: format!("{:.0}", e.rating),
                        provisional: e.provisional,
                        inactive: !e.active,
                        matches: e.matches,
                        frags: e.frags,
                        wins: e.record[0],
                        draws: e.record[1],
                        losses: e.record[2],
                    }
                })
                .collect(),
            more: l.entries.len().saturating_sub(BOARD_ROWS),
        })
        .collect();
    let ranked: Vec<usize> = r
        .ladder
        .iter()
        .copied()
        .take_while(|&i| input.standing.active[i] && !input.ratings.headline.provisional[i])
        .collect();
    let page = LaddersPage {
        all: ranked
            .iter()
            .take(ALL_ROWS)
            .map(|&i| r.player_row(i))
            .collect(),
        all_ranked: ranked.len(),
        games: ladders.iter().any(|l| l.group.kind == LadderKind::Game),
        boards,
        provisional_incidents: input.config.rating.headline.provisional_incidents,
        inactive_after_days: input.config.ladder.inactive_after_days,
    };
    let name = common.current.clone();
    let page = html(
        &name,
        templates.render("ladders.html", &common, &Keyed("l", page))?,
    );
    let json: Vec<LadderJson> = ladders
        .iter()
        .map(|l| LadderJson {
            kind: l.group.kind,
            key: &l.group.key,
            name: &l.group.name,
            matches: l.group.matches.len(),
            players: l
                .entries
                .iter()
                .map(|e| LadderPlayerJson {
                    plain_name: &input.roster.players[e.player as usize].key,
                    headline_rating: e.rating,
                    rank: e.rank,
                    provisional: e.provisional,
                    active: e.active,
                    matches: e.matches,
                    frags: e.frags,
                    wins: e.record[0],
                    draws: e.record[1],
                    losses: e.record[2],
                })
                .collect(),
        })
        .collect();
    Ok([page, json_file("data/ladders.json", &json)?])
}
