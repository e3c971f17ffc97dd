//! The ladders page (`ladders.html`) and its data (`data/ladders.json`): the site's headline
//! ladder over all matches, then one ladder per game type and, when the logs hold several
//! games, one per game, each rated on its own matches only ([`crate::standings::ladders`]). Hidden
//! players are in none of them.

use anyhow::Result;
use serde::Serialize;

use crate::render::pages::player;
use crate::render::renderer::Renderer;
use crate::render::templates::Templates;
use crate::render::views::{Common, PlayerRow};
use crate::render::{Keyed, OutputFile, html};
use crate::standings::ladders::{Ladder, LadderKind};

/// Rows of the all-matches ladder shown on the page (the whole of it is `players.html`).
const ALL_ROWS: usize = 25;

/// Rows of each game type's or game's ladder shown on the page (the whole of it is in
/// `data/ladders.json`): a public server's ladder has thousands of players.
const BOARD_ROWS: usize = 100;

/// The page's fields.
#[derive(Serialize)]
struct LaddersPage<'a> {
    /// The all-matches ladder's first ranked players, and how many are ranked.
    all: Vec<PlayerRow<'a>>,
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
pub(in crate::render) struct Board {
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

/// One player's row on a [`Board`].
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

/// The board of ladder `l` (anchored at `anchor` on `ladders.html`) with its first `rows` rows.
fn board(r: &Renderer, l: &Ladder, anchor: String, first_game: bool, rows: usize) -> Board {
    Board {
        anchor,
        kind: l.group.kind,
        name: l.group.name.clone(),
        first_game,
        matches: l.group.matches.len(),
        players: l.entries.len(),
        ranked: l.entries.iter().filter(|e| e.rank.is_some()).count(),
        rows: l
            .entries
            .iter()
            .take(rows)
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
        more: l.entries.len().saturating_sub(rows),
    }
}

/// The ladder of each game, the site's biggest game first, each with its first `rows` rows:
/// what the index and the player list show in place of the one ladder of every match when the
/// logs hold several games (their players never met: their ratings are not comparable). Empty
/// on a site of one game, or where `[ladder] combined` asks for the one ladder.
pub(in crate::render) fn game_boards(r: &Renderer, rows: usize) -> Vec<Board> {
    let ladders = r.input.ladders;
    if r.input.config.ladder.combined {
        return Vec::new();
    }
    ladders
        .iter()
        .zip(anchors(ladders))
        .filter(|(l, _)| l.group.kind == LadderKind::Game)
        .map(|(l, anchor)| board(r, l, anchor, false, rows))
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
        .map(|(n, (l, anchor))| {
            let first_game = l.group.kind == LadderKind::Game
                && (n == 0 || ladders[n - 1].group.kind != LadderKind::Game);
            board(r, l, anchor, first_game, BOARD_ROWS)
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
            .map(|&i| player::player_row(r, i))
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
    let json = OutputFile::from_parts("data/ladders.json", json_parts(&json)?);
    Ok([page, json])
}

/// `data/ladders.json` written by hand as its parts (thousands of players per ladder, remade on
/// every append): exactly what `serde_json::to_vec_pretty` then `\n` makes of `ladders`, keys
/// and indents as literals and each value through `serde_json` (a test holds the two together);
/// each ladder's players in the parallel chunks of [`crate::render::pretty_json::par_items`], kept apart, never joined.
fn json_parts(ladders: &[LadderJson]) -> Result<Vec<Vec<u8>>> {
    use crate::render::pretty_json::{field, newline, par_items};
    if ladders.is_empty() {
        return Ok(vec![b"[]\n".to_vec()]);
    }
    let mut parts = Vec::new();
    // The bytes since the last chunk of players.
    let mut head = Vec::with_capacity(256);
    for (n, l) in ladders.iter().enumerate() {
        head.push(if n == 0 { b'[' } else { b',' });
        newline(&mut head, 1);
        field(&mut head, "{\n    \"kind\": ", &l.kind)?;
        field(&mut head, ",\n    \"key\": ", l.key)?;
        field(&mut head, ",\n    \"name\": ", l.name)?;
        field(&mut head, ",\n    \"matches\": ", &l.matches)?;
        head.extend_from_slice(b",\n    \"players\": ");
        if l.players.is_empty() {
            head.extend_from_slice(b"[]");
        } else {
            head.push(b'[');
            parts.push(std::mem::take(&mut head));
            parts.extend(par_items(l.players.len(), 3, |out, i| {
                let p = &l.players[i];
                field(out, "{\n        \"plain_name\": ", p.plain_name)?;
                field(out, ",\n        \"headline_rating\": ", &p.headline_rating)?;
                field(out, ",\n        \"rank\": ", &p.rank)?;
                field(out, ",\n        \"provisional\": ", &p.provisional)?;
                field(out, ",\n        \"active\": ", &p.active)?;
                field(out, ",\n        \"matches\": ", &p.matches)?;
                field(out, ",\n        \"frags\": ", &p.frags)?;
                field(out, ",\n        \"wins\": ", &p.wins)?;
                field(out, ",\n        \"draws\": ", &p.draws)?;
                field(out, ",\n        \"losses\": ", &p.losses)?;
                newline(out, 3);
                out.push(b'}');
                Ok(())
            })?);
            newline(&mut head, 2);
            head.push(b']');
        }
        newline(&mut head, 1);
        head.push(b'}');
    }
    head.extend_from_slice(b"\n]\n");
    parts.push(head);
    Ok(parts)
}

#[cfg(test)]
mod json_tests {
    use super::*;

    fn player(n: u32) -> LadderPlayerJson<'static> {
        LadderPlayerJson {
            plain_name: "a\"b\\<c>\u{1}é",
            headline_rating: if n == 0 {
                f64::NAN
            } else {
                1500.0 + f64::from(n) / 3.0
            },
            rank: (n > 0).then_some(n),
            provisional: n == 0,
            active: n != 2,
            matches: n,
            frags: u32::MAX,
            wins: 1,
            draws: 2,
            losses: 3,
        }
    }

    /// The hand-written bytes are serde_json's pretty bytes: no ladder, a ladder without
    /// players, ladders of one and several players with nulls and odd floats, and one of
    /// players in several parallel chunks.
    #[test]
    fn json_parts_are_serde_jsons() {
        let ladder = |kind, players: Vec<LadderPlayerJson<'static>>| LadderJson {
            kind,
            key: "ctf",
            name: "Capture \"the\" Flag",
            matches: players.len() * 7,
            players,
        };
        let lists: [Vec<LadderJson>; 4] = [
            Vec::new(),
            vec![ladder(LadderKind::GameType, Vec::new())],
            vec![
                ladder(LadderKind::GameType, vec![player(0)]),
                ladder(LadderKind::Game, vec![player(1), player(2), player(3)]),
            ],
            // Players in several chunks, between ladders without any.
            vec![
                ladder(LadderKind::GameType, Vec::new()),
                ladder(LadderKind::GameType, (0..5000).map(player).collect()),
                ladder(LadderKind::Game, Vec::new()),
            ],
        ];
        for ladders in &lists {
            let mut want = serde_json::to_vec_pretty(ladders).unwrap();
            want.push(b'\n');
            let got = json_parts(ladders).unwrap().concat();
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want)
            );
        }
    }
}
