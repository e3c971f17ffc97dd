//! The index page's own parts: its view, the totals and the awards.

use crate::render::renderer::Renderer;
use crate::render::views::*;
use serde::Serialize;

/// The index page's own fields.
#[derive(Serialize)]
pub(in crate::render) struct IndexPage<'a> {
    /// "Newest match: ...", on the index only (on every page it would change every page).
    pub(in crate::render) updated: String,
    pub(in crate::render) totals: Totals,
    pub(in crate::render) top_players: &'a [PlayerRow<'a>],
    /// One ladder per game in place of `top_players` when the logs hold several games.
    pub(in crate::render) game_boards: &'a [super::ladders::Board],
    /// The first provisional players, and how many there are.
    pub(in crate::render) provisional: &'a [PlayerRow<'a>],
    pub(in crate::render) provisional_count: usize,
    pub(in crate::render) provisional_incidents: u32,
    /// Becker's dynamic ladder, top 10.
    pub(in crate::render) becker_top: Vec<PlayerRow<'a>>,
    pub(in crate::render) recent_matches: &'a [MatchRow],
    pub(in crate::render) top_maps: Vec<MapRow>,
    pub(in crate::render) static_core: &'a [StaticRow],
    pub(in crate::render) static_core_size: usize,
    pub(in crate::render) awards: Vec<AwardView>,
    /// The current season's ladder beside the all-time one (None without seasons).
    pub(in crate::render) season: Option<super::season::CurrentSeason>,
    /// Where the logs go and which are read, on a site without matches (None otherwise).
    pub(in crate::render) no_matches: Option<NoMatches>,
}

/// The hint of a site without matches: the formats read. The page names no log folder (the
/// build's output does): a folder's path is the admin's, not the public's, and the same site
/// built with other `PATH` arguments must give the same page.
#[derive(Serialize)]
pub(in crate::render) struct NoMatches {
    pub(in crate::render) formats: &'static [&'static str],
}

impl NoMatches {
    /// The hint, when the site has no match.
    pub(in crate::render) fn of(input: &crate::render::SiteInput) -> Option<NoMatches> {
        input.matches.is_empty().then_some(NoMatches {
            formats: crate::parse::FORMATS,
        })
    }
}

pub(in crate::render) fn totals(r: &Renderer) -> Totals {
    let dates: Vec<_> = r.input.matches.heads().filter_map(|m| m.start).collect();
    let span = match (dates.iter().min(), dates.iter().max()) {
        (Some(a), Some(b)) => Some(format!(
            "{} to {}",
            a.format("%Y-%m-%d"),
            b.format("%Y-%m-%d")
        )),
        _ => None,
    };
    Totals {
        players: r.input.roster.players.len(),
        matches: r.input.matches.len(),
        maps: r.input.stats.maps.len(),
        frags: r
            .input
            .stats
            .matches
            .iter()
            .map(|m| u64::from(m.counts().frags))
            .sum(),
        span,
    }
}

pub(in crate::render) fn awards(r: &Renderer) -> Vec<AwardView> {
    crate::stats::awards::awards(r.input.stats)
        .into_iter()
        .map(|a| AwardView {
            title: a.title.to_string(),
            entries: a
                .places
                .iter()
                .filter(|p| !r.input.hidden[p.player as usize])
                .map(|p| {
                    let (name_html, url) = r.player_ref(p.player);
                    let (detail, detail_url) = match p.match_index {
                        Some(mi) => (
                            format!(
                                "{} · {}",
                                r.input.matches.head(mi as usize).map,
                                r.when(mi as usize)
                            ),
                            crate::render::match_url(&r.input.matches.head(mi as usize).id),
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
        .filter(|a| !a.entries.is_empty())
        .collect()
}
