//! Rank shards: on a site of many players (a public-server crowd), one new match moves the
//! headline rank and the Becker rank of nearly every player (the whole-history refit reorders
//! near ties; a newcomer pushes everyone below down a place), and so do the ranks on the
//! match's game type ladder and in its season, and the count of that season's ranked players.
//! Were those numbers in each player page, every page would change and be written again on each
//! append. Above [`SHARD_ABOVE`] players (`[ladder] rank_shards_above`) the pages leave them out
//! and load them from `data/ranks/NN.js`, one small script per shard of about [`SHARD_SIZE`]
//! players (a `<script>` tag, so it works from `file://` where `fetch` of local files is
//! refused); without JavaScript the page links to the ranking, the ladder or the season instead.

use std::collections::BTreeMap;

use anyhow::Result;
use rayon::prelude::*;

use super::OutputFile;
use super::SiteInput;
use super::data::script_file;
use super::renderer::Renderer;
use super::views::PlayerPage;
use crate::render::pages::player;
use crate::render::pages::season;

/// Players with a page above which ranks go to shards (unless `[ladder] rank_shards_above`
/// says otherwise).
pub const SHARD_ABOVE: usize = 5_000;

/// About this many players per shard.
pub const SHARD_SIZE: usize = 1_000;

/// Number of shards for the site (0: the ranks stay in the pages). A power of two, so a page's
/// shard changes only when the crowd doubles.
pub(super) fn shard_count(input: &SiteInput) -> usize {
    let pages = input.hidden.iter().filter(|&&h| !h).count();
    let above = input.config.ladder.rank_shards_above.unwrap_or(SHARD_ABOVE);
    if pages <= above {
        0
    } else {
        pages.div_ceil(SHARD_SIZE).next_power_of_two()
    }
}

/// The shard of the player whose page is `players/{id}.html`: a stable hash of `id`.
fn shard_of(id: &str, shards: usize) -> usize {
    let mut h = crate::hash::Hasher::new();
    h.str(id);
    (h.finish() % shards.max(1) as u64) as usize
}

/// The shard script's path from the site root.
pub(super) fn shard_path(shard: usize) -> String {
    format!("data/ranks/{shard:02}.js")
}

/// The page id of a player page URL (`players/{id}.html`).
fn page_id(url: &str) -> &str {
    url.trim_start_matches("players/").trim_end_matches(".html")
}

/// With shards: takes player `i`'s ranks (headline, Becker, on each ladder, in each season
/// with its count of ranked players) out of `page` and names the shard that holds them.
pub(super) fn shard_ranks<'p>(r: &'p Renderer, i: usize, page: &mut PlayerPage<'p>) {
    if r.rank_shards == 0 {
        return;
    }
    let id = page_id(&r.links.players[i]);
    page.ranked = page.rank.is_some();
    page.rank = None;
    page.becker_rank = 0;
    // A site's own `player.html` may predate these ranks' move to shards and print them
    // as they are (it would show every player unranked): keep them, at the cost of more
    // pages written again on an append.
    if !r.own_player_template {
        for place in &mut page.ladders {
            place.rank = None;
        }
        for season in &mut page.seasons {
            season.rank = None;
            season.ranked = 0;
        }
    }
    page.rank_shard = Some(&r.shard_paths[shard_of(id, r.rank_shards)]);
    page.rank_id = id;
}

/// A player's ranks in a shard: `[headline rank or null, Becker rank]`, followed, when the page
/// lists ladders or seasons, by `[rank or null, ...]` in the page's order of ladders and
/// `[[rank or null, ranked players], ...]` in its order of seasons.
#[derive(Clone, serde::Serialize)]
#[serde(untagged)]
enum Ranks {
    Headline(Option<usize>, usize),
    All(
        Option<usize>,
        usize,
        Vec<Option<u32>>,
        Vec<(Option<usize>, usize)>,
    ),
}

/// The shard scripts (none when the ranks are in the pages): each calls
/// `fragstatsRanks({"id": ranks, ...})` (see [`Ranks`]).
pub(super) fn files(r: &Renderer) -> Result<Vec<OutputFile>> {
    let mut shards: Vec<BTreeMap<&str, Ranks>> = vec![BTreeMap::new(); r.rank_shards];
    for (i, url) in r.links.players.iter().enumerate() {
        if url.is_empty() || r.rank_shards == 0 {
            continue;
        }
        let id = page_id(url);
        // As on the page without shards (`player_page`).
        let ranked = !r.input.ratings.headline.provisional[i] && r.input.standing.active[i];
        let (headline, becker) = (ranked.then_some(r.rank[i]), r.becker_rank[i]);
        let ladders: Vec<Option<u32>> =
            player::ladder_places(r, i).iter().map(|l| l.rank).collect();
        let seasons: Vec<(Option<usize>, usize)> = (season::player_seasons(r, i).iter())
            .map(|s| (s.rank, s.ranked))
            .collect();
        let ranks = if ladders.is_empty() && seasons.is_empty() {
            Ranks::Headline(headline, becker)
        } else {
            Ranks::All(headline, becker, ladders, seasons)
        };
        shards[shard_of(id, r.rank_shards)].insert(id, ranks);
    }
    // A crowd has 64 shards of a thousand players each: written in parallel.
    shards
        .par_iter()
        .enumerate()
        // A JSON value is a JavaScript expression; `<` is escaped so no text closes a script
        // element.
        .map(|(s, ranks)| script_file(&shard_path(s), "fragstatsRanks(", ranks, ");\n"))
        .collect()
}
