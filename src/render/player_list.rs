//! The player list: `players.html` shows the ladder's first [`PAGE_SIZE`] rows and, on a site
//! with more players (a public server sees tens of thousands), links the pages
//! `player-list/page-<k>.html` that hold the rest in blocks of the same size, in ladder order.
//! Every page stays small enough for a browser to open. With the built-in templates the rows'
//! markup is written here ([`rows_html`]), as `partials/player_table.html`'s loop writes it:
//! the list's 60,000 rows through Tera were most of the time to render it on each build of a
//! public server's site. That markup, most of a page's bytes, is a part of the page's file of
//! its own, kept out of Tera by a mark ([`super::holes`]). Not here: the rows themselves
//! ([`super::views::PlayerRow`]) and the player pages.

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;

use super::colour::escape_into;
use super::helpers::push_number;
use super::holes;
use super::paged_list::{PageLink, page_links, page_url};
use super::pages::ladders::Board;
use super::templates::Templates;
use super::views::{Common, PlayerRow};
use super::{Keyed, OutputFile, html};

/// Where the rows' markup goes while Tera renders the rest of a page ([`holes`]).
const ROWS_MARK: &str = "\0fragstats:rows_html\0";

/// Players per page of the player list.
pub const PAGE_SIZE: usize = 1000;

/// `players.html` and, when there are more than `page_size` rows, the further pages. `rows`
/// are in ladder order. `games` are the ladders of each game on a site of several
/// ([`super::pages::ladders::game_boards`]): the first page shows them, and no page numbers
/// the rows of every game as one ladder.
pub fn pages<'a>(
    templates: &Templates,
    common: &(dyn Fn(&'static str, &str) -> Common<'a> + Sync),
    rows: &[PlayerRow],
    games: &[Board],
    page_size: usize,
) -> Result<Vec<OutputFile>> {
    let ranked = games.is_empty();
    let page_size = page_size.max(1);
    let total = rows.len();
    let count = total.div_ceil(page_size).max(1);
    let links = page_links("players.html", "player-list", total, page_size);
    // A site's own list page or table may print the rows otherwise.
    let native = !templates.overridden("players.html") && !templates.overridden(TABLE);
    (1..=count)
        .into_par_iter()
        .map(|k| {
            let first = (k - 1) * page_size;
            // Every page of the list marks "Players" in the navigation.
            let root = if k == 1 { "" } else { "../" };
            let rows = &rows[first..(first + page_size).min(total)];
            let mut view = PlayerList {
                heading: if k == 1 {
                    "Players".into()
                } else {
                    format!("Players {}", links[k - 1].label)
                },
                rows: Rows {
                    rows,
                    counted: native,
                },
                rows_html: native.then(|| rows_html(rows, root, first, ranked)),
                offset: first,
                ranked,
                games: if k == 1 { games } else { &[] },
                total,
                pages: &links,
                page: k,
            };
            let path = page_url("players.html", "player-list", k);
            let common = common(root, "players.html");
            // The rows' markup, most of the page's bytes, is kept out of Tera and is a part of
            // the file of its own ([`holes`]).
            let hole = (view.rows_html.as_mut()).and_then(|rows| holes::punch(rows, ROWS_MARK));
            let body = templates.render("players.html", &common, &Keyed("list", &view))?;
            let Some(hole) = hole else {
                return Ok(html(&path, body));
            };
            if let Some(parts) = holes::fill_parts(&body, vec![hole]) {
                return Ok(OutputFile::from_parts(path, parts));
            }
            // A mark met elsewhere in the page: rendered whole after all.
            view.rows_html = Some(rows_html(rows, root, first, ranked));
            let body = templates.render("players.html", &common, &Keyed("list", &view))?;
            Ok(html(&path, body))
        })
        .collect()
}

/// A page of the player list.
#[derive(Serialize)]
struct PlayerList<'a> {
    /// "Players", or "Players 1001–2000" on a further page.
    heading: String,
    rows: Rows<'a>,
    /// The rows' markup ([`rows_html`]), when the built-in templates print it.
    #[serde(skip_serializing_if = "Option::is_none")]
    rows_html: Option<String>,
    /// Rows before this page (its first row's place in the ladder is `offset + 1`).
    offset: usize,
    /// The rows are one ladder, numbered (false on a site of several games).
    ranked: bool,
    /// Each game's ladder, on the first page of a site of several games.
    games: &'a [Board],
    /// Players in all.
    total: usize,
    /// Every page of the list, empty when one holds everyone.
    pages: &'a [PageLink],
    /// This page's number, from 1.
    page: usize,
}

/// A page's rows in the template context. Where [`rows_html`] writes them (`counted`), the
/// built-in templates only count them (`list.rows | length`), so each row is a `null` there:
/// the thousand rows of each page of a public server's list made into Tera values for a count
/// were about half the cost of the list.
struct Rows<'a> {
    rows: &'a [PlayerRow<'a>],
    counted: bool,
}

impl Serialize for Rows<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        if self.counted {
            super::views::serialize_nulls(s, self.rows.len())
        } else {
            self.rows.serialize(s)
        }
    }
}

/// The player table partial, whose loop [`rows_html`] writes.
const TABLE: &str = "partials/player_table.html";

/// The markup `partials/player_table.html`'s loop writes for `rows` on a page at `root`, the
/// first row numbered `offset + 1` (none numbered unless `ranked`): byte for byte (values
/// escaped as Tera's autoescape does).
/// Written piece by piece, numbers by [`push_number`]: through `write!`, the formatting
/// machinery was about three quarters of the time to write a crowd's 63,000 rows, on each build.
fn rows_html(rows: &[PlayerRow], root: &str, offset: usize, ranked: bool) -> String {
    let mut out = String::with_capacity(rows.len() * 480);
    for (n, p) in rows.iter().enumerate() {
        let unranked = p.provisional || p.inactive;
        out.push_str(if unranked {
            "<tr class=\"provisional\"><td class=\"num\">&ndash;"
        } else {
            "<tr><td class=\"num\">"
        });
        if !unranked && ranked {
            push_count(&mut out, offset + n + 1);
        }
        out.push_str("</td><td>");
        if p.url.is_empty() {
            out.push_str(p.name_html);
        } else {
            push_link(&mut out, root, p.url, |out| out.push_str(p.name_html));
        }
        if !p.division.is_empty() {
            out.push_str(" <span class=\"tag division\" title=\"division\">");
            escape_into(&mut out, p.division);
            out.push_str("</span>");
        }
        if p.inactive {
            out.push_str(" <span class=\"tag\" title=\"not seen recently: not ranked until the next match\">inactive</span>");
        } else if p.provisional {
            out.push_str(" <span class=\"tag\" title=\"too few frags made and suffered for a reliable rating\">provisional</span>");
        }
        let trend = match p.trend {
            "up" => "&#9650;",
            "down" => "&#9660;",
            _ => "&#8226;",
        };
        out.push_str("</td><td class=\"num\"><b>");
        escape_into(&mut out, p.headline);
        out.push_str("</b></td><td class=\"num\">");
        escape_into(&mut out, p.rating);
        out.push_str(" <span class=\"trend ");
        escape_into(&mut out, p.trend);
        out.push_str("\" title=\"trend over the last 5 matches\">");
        out.push_str(trend);
        out.push_str("</span></td><td>");
        if !p.clan_url.is_empty() {
            push_link(&mut out, root, p.clan_url, |out| escape_into(out, p.clan));
        }
        out.push_str("</td><td class=\"num\">");
        push_number(&mut out, p.kills);
        out.push_str("</td><td class=\"num\">");
        push_number(&mut out, p.deaths);
        out.push_str("</td><td class=\"num\">");
        escape_into(&mut out, &p.kd);
        out.push_str("</td><td class=\"num\">");
        push_number(&mut out, p.suicides);
        out.push_str("</td><td class=\"num\">");
        push_number(&mut out, p.team_kills);
        out.push_str("</td><td class=\"num\">");
        push_number(&mut out, p.captures);
        out.push_str("</td><td class=\"num\">");
        push_count(&mut out, p.matches);
        out.push_str("</td></tr>\n");
    }
    out
}

/// `<a href="{root}{url}">` onto `out` (`url` as it is), then what `inner` writes, then `</a>`.
fn push_link(out: &mut String, root: &str, url: &str, inner: impl FnOnce(&mut String)) {
    out.push_str("<a href=\"");
    out.push_str(root);
    out.push_str(url);
    out.push_str("\">");
    inner(out);
    out.push_str("</a>");
}

/// `n` in decimal onto `out`, as `{n}` writes it.
fn push_count(out: &mut String, n: usize) {
    match u32::try_from(n) {
        Ok(n) => push_number(out, n),
        Err(_) => out.push_str(&n.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::views::SiteView;

    /// Player `n`'s row (its few texts leaked: a row borrows them, and a test makes few).
    fn row(n: usize) -> PlayerRow<'static> {
        PlayerRow {
            name_html: format!("Player{n}").leak(),
            plain: format!("Player{n}").leak(),
            url: format!("players/player{n}.html").leak(),
            rating: "0.0",
            headline: "1500",
            provisional: false,
            clan: "",
            clan_url: "",
            kills: 1,
            deaths: 1,
            kd: "1.00".into(),
            suicides: 0,
            team_kills: 0,
            captures: 0,
            matches: 1,
            trend: "flat",
            division: "",
            inactive: false,
        }
    }

    /// Five players in pages of two: `players.html` holds places 1–2 and links the two other
    /// pages, which hold places 3–4 and 5 (numbered on from the page before, the last counting
    /// its one row) and link back; one page of everyone has no pager.
    #[test]
    fn long_lists_are_paged_in_ladder_order() {
        let templates = Templates::load(None).unwrap();
        let site = SiteView::for_tests();
        let common = |root: &'static str, current: &str| Common::for_tests(&site, root, current);
        let rows: Vec<PlayerRow> = (1..=5).map(row).collect();
        let files = pages(&templates, &common, &rows, &[], 2).unwrap();
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "players.html",
                "player-list/page-2.html",
                "player-list/page-3.html"
            ]
        );
        let text: Vec<String> = files
            .iter()
            .map(|f| String::from_utf8(f.to_vec()).unwrap())
            .collect();
        assert!(text[0].contains("\"players/player2.html\""));
        assert!(!text[0].contains("player3.html"));
        assert!(text[0].contains("\"player-list/page-3.html\""));
        assert!(text[2].contains("5 players, 1 per page"), "{}", text[2]);
        assert!(text[1].contains("\"../players/player4.html\""));
        assert!(text[1].contains("<td class=\"num\">4</td>"));
        assert!(text[1].contains("\"../players.html\""));
        assert!(text[2].contains("<td class=\"num\">5</td>"));
        let one = pages(&templates, &common, &rows, &[], 10).unwrap();
        assert_eq!(one.len(), 1);
        assert!(!one[0].to_vec().windows(5).any(|w| w == b"pager"));
    }

    /// The rows written in Rust are the bytes the partial's loop writes through Tera (a site
    /// whose own `partials/player_table.html` is the built-in one takes the loop): numbering on
    /// from the page before, unranked rows, missing links, divisions and clans with markup and
    /// control characters, every trend, at the root and one folder down.
    #[test]
    fn rows_written_in_rust_equal_the_template_loop() {
        let site = SiteView::for_tests();
        let common = |root: &'static str, current: &str| Common::for_tests(&site, root, current);
        let rows: Vec<PlayerRow> = (1..=7)
            .map(|n| {
                let mut r = row(n);
                r.provisional = n == 3;
                r.inactive = n == 4 || n == 3;
                r.trend = ["up", "down", "flat"][n % 3];
                if n % 2 == 0 {
                    r.division = "Gold <&> \"1\" 'x' \u{7}";
                    r.clan = "Clan & <Co>\u{1b}";
                    r.clan_url = "clans/c.html";
                    r.kd = "1<2".into();
                }
                if n == 5 {
                    r.url = "";
                    r.name_html = "<bdi class=\"qname\">a&amp;b</bdi>";
                }
                r
            })
            .collect();
        let builtin = Templates::load(None).unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("partials")).unwrap();
        let source = crate::render::templates::BUILTIN_TEMPLATES
            .iter()
            .find(|(n, _)| *n == TABLE)
            .unwrap()
            .1;
        std::fs::write(dir.path().join(TABLE), source).unwrap();
        let looped = Templates::load(Some(dir.path())).unwrap();
        let native = pages(&builtin, &common, &rows, &[], 3).unwrap();
        let through_tera = pages(&looped, &common, &rows, &[], 3).unwrap();
        assert_eq!(native.len(), 3);
        for (a, b) in native.iter().zip(&through_tera) {
            assert_eq!(
                String::from_utf8(a.to_vec()).unwrap(),
                String::from_utf8(b.to_vec()).unwrap(),
                "{}",
                a.path
            );
            // The rows' markup is a part of its own, spliced in without a copy.
            assert_eq!(a.part_count(), 3, "{}", a.path);
        }
        let text = String::from_utf8(native[1].to_vec()).unwrap();
        assert!(text.contains("<td class=\"num\">5</td><td><bdi"), "{text}");
    }

    /// A site's own `base.html` that prints the rows' markup again meets the mark twice: the
    /// page is rendered whole instead, the markup in both places.
    #[test]
    fn rows_printed_twice_are_rendered_whole() {
        let site = SiteView::for_tests();
        let common = |root: &'static str, current: &str| Common::for_tests(&site, root, current);
        let rows: Vec<PlayerRow> = (1..=2).map(row).collect();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("base.html"),
            "{% block content %}{% endblock content %}<footer>{{ list.rows_html | safe }}</footer>",
        )
        .unwrap();
        let templates = Templates::load(Some(dir.path())).unwrap();
        let files = pages(&templates, &common, &rows, &[], 10).unwrap();
        let text = String::from_utf8(files[0].to_vec()).unwrap();
        let row = rows_html(&rows[..1], "", 0, true);
        assert_eq!(text.matches(row.as_str()).count(), 2, "{text}");
        assert!(!text.contains('\0'), "{text}");
    }
}
