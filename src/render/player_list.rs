//! The player list: `players.html` shows the ladder's first [`PAGE_SIZE`] rows and, on a site
//! with more players (a public server sees tens of thousands), links the pages
//! `player-list/page-<k>.html` that hold the rest in blocks of the same size, in ladder order.
//! Every page stays small enough for a browser to open. Not here: the rows themselves
//! ([`super::views::PlayerRow`]) and the player pages.

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;

use super::paged_list::{PageLink, page_links, page_url};
use super::templates::Templates;
use super::views::{Common, PlayerRow};
use super::{Keyed, OutputFile, html};

/// Players per page of the player list.
pub const PAGE_SIZE: usize = 1000;

/// `players.html` and, when there are more than `page_size` rows, the further pages. `rows`
/// are in ladder order.
pub fn pages<'a>(
    templates: &Templates,
    common: &(dyn Fn(&'static str, &str) -> Common<'a> + Sync),
    rows: &[PlayerRow],
    page_size: usize,
) -> Result<Vec<OutputFile>> {
    let page_size = page_size.max(1);
    let total = rows.len();
    let count = total.div_ceil(page_size).max(1);
    let links = page_links("players.html", "player-list", total, page_size);
    (1..=count)
        .into_par_iter()
        .map(|k| {
            let first = (k - 1) * page_size;
            let view = PlayerList {
                heading: if k == 1 {
                    "Players".into()
                } else {
                    format!("Players {}", links[k - 1].label)
                },
                rows: &rows[first..(first + page_size).min(total)],
                offset: first,
                total,
                pages: &links,
                page: k,
            };
            // Every page of the list marks "Players" in the navigation.
            let root = if k == 1 { "" } else { "../" };
            let path = page_url("players.html", "player-list", k);
            let body = templates.render(
                "players.html",
                &common(root, "players.html"),
                &Keyed("list", view),
            )?;
            Ok(html(&path, body))
        })
        .collect()
}

/// A page of the player list.
#[derive(Serialize)]
struct PlayerList<'a> {
    /// "Players", or "Players 1001–2000" on a further page.
    heading: String,
    rows: &'a [PlayerRow],
    /// Rows before this page (its first row's place in the ladder is `offset + 1`).
    offset: usize,
    /// Players in all.
    total: usize,
    /// Every page of the list, empty when one holds everyone.
    pages: &'a [PageLink],
    /// This page's number, from 1.
    page: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::views::SiteView;

    fn row(n: usize) -> PlayerRow {
        PlayerRow {
            name_html: format!("Player{n}"),
            plain: format!("Player{n}"),
            url: format!("players/player{n}.html"),
            rating: "0.0".into(),
            headline: "1500".into(),
            provisional: false,
            clan: String::new(),
            clan_url: String::new(),
            kills: 1,
            deaths: 1,
            kd: "1.00".into(),
            suicides: 0,
            team_kills: 0,
            captures: 0,
            matches: 1,
            trend: "flat",
            division: String::new(),
            inactive: false,
        }
    }

    /// Five players in pages of two: `players.html` holds places 1–2 and links the two other
    /// pages, which hold places 3–4 and 5 (numbered on from the page before) and link back; one
    /// page of everyone has no pager.
    #[test]
    fn long_lists_are_paged_in_ladder_order() {
        let templates = Templates::load(None).unwrap();
        let site = SiteView::for_tests();
        let common = |root: &'static str, current: &str| Common::for_tests(&site, root, current);
        let rows: Vec<PlayerRow> = (1..=5).map(row).collect();
        let files = pages(&templates, &common, &rows, 2).unwrap();
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "players.html",
                "player-list/page-2.html",
                "player-list/page-3.html"
            ]
        );
        let text: Vec<&str> = files
            .iter()
            .map(|f| std::str::from_utf8(&f.bytes).unwrap())
            .collect();
        assert!(text[0].contains("\"players/player2.html\""));
        assert!(!text[0].contains("player3.html"));
        assert!(text[0].contains("\"player-list/page-3.html\""));
        assert!(text[1].contains("\"../players/player4.html\""));
        assert!(text[1].contains("<td class=\"num\">4</td>"));
        assert!(text[1].contains("\"../players.html\""));
        assert!(text[2].contains("<td class=\"num\">5</td>"));
        let one = pages(&templates, &common, &rows, 10).unwrap();
        assert_eq!(one.len(), 1);
        assert!(!one[0].bytes.windows(5).any(|w| w == b"pager"));
    }
}
