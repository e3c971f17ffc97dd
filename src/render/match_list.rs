//! The match list: `matches.html` shows the newest matches and links the archive pages
//! `matches/page-<k>.html`, which hold the matches in blocks counted from the first match. A new
//! match changes the newest block only, and unchanged blocks are not rendered again (their key
//! is the hash of their rows), so a site of many thousands of matches stays quick to update and
//! every list page stays small enough to open.

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;

use super::templates::Templates;
use super::views::{Common, MatchRow};
use super::{Keyed, OutputFile, PageCache, PageSink, html, kept, sunk};

/// Matches per page of the match list.
pub const PAGE_SIZE: usize = 1000;

/// `matches.html` and, when there are more than `page_size` matches, the archive pages, of
/// `total` matches whose rows `row` makes (match `i` in history order, from 0). A page's rows
/// are made when the page is, and let go with it: the list never holds every match's row.
/// `salt` is the hash of what all archive pages share (templates, site fields).
#[allow(clippy::too_many_arguments)]
pub fn pages<'a>(
    templates: &Templates,
    common: &(dyn Fn(&'static str, &str) -> Common<'a> + Sync),
    total: usize,
    row: &(dyn Fn(usize) -> MatchRow + Sync),
    cache: &PageCache,
    salt: u64,
    page_size: usize,
    sink: Option<&dyn PageSink>,
) -> Result<Vec<OutputFile>> {
    let blocks = if total > page_size {
        total.div_ceil(page_size)
    } else {
        0
    };
    // Block k (1-based) holds matches (k-1)*PAGE .. k*PAGE in history order, shown newest
    // first.
    let block_matches = |k: usize| (k - 1) * page_size..(k * page_size).min(total);
    let block_rows = |k: usize| -> Vec<MatchRow> { block_matches(k).rev().map(row).collect() };
    let block_url = |k: usize| format!("matches/page-{k}.html");
    let archive: Vec<ListPageLink> = (1..=blocks)
        .rev()
        .map(|k| {
            let block = block_matches(k);
            ListPageLink {
                url: block_url(k),
                label: format!("{}–{}", block.start + 1, block.end),
                first: row(block.start).when,
                last: row(block.end - 1).when,
            }
        })
        .collect();
    let newest_rows: Vec<MatchRow> = (total.saturating_sub(page_size)..total)
        .rev()
        .map(row)
        .collect();
    let newest = MatchList {
        heading: "Matches".into(),
        rows: &newest_rows,
        archive: &archive,
        total,
        newer: None,
        older: None,
    };
    let mut files = vec![html(
        "matches.html",
        templates.render(
            "matches.html",
            &common("", "matches.html"),
            &Keyed("list", newest),
        )?,
    )];
    let pages: Vec<OutputFile> = (1..=blocks)
        .into_par_iter()
        .map(|k| {
            let url = block_url(k);
            let link = &archive[blocks - k];
            let rows = block_rows(k);
            let view = MatchList {
                heading: format!("Matches {}", link.label),
                rows: &rows,
                archive: &[],
                total,
                newer: (k < blocks).then(|| format!("page-{}.html", k + 1)),
                older: (k > 1).then(|| format!("page-{}.html", k - 1)),
            };
            let key = {
                let mut h = crate::hash::Hasher::new();
                h.u64(salt);
                h.str(&url);
                serde_json::to_writer(
                    &mut h,
                    &(&view.heading, view.rows, &view.newer, &view.older),
                )?;
                h.finish()
            };
            if cache.keys.get(&url) == Some(key) {
                return Ok(kept(url, key));
            }
            // The navigation marks "Matches" on every page of the list.
            let body = templates.render(
                "matches.html",
                &common("../", "matches.html"),
                &Keyed("list", view),
            )?;
            let mut file = html(&url, body);
            file.key = Some(key);
            sunk(sink, file)
        })
        .collect::<Result<_>>()?;
    files.extend(pages);
    Ok(files)
}

/// A page of the match list.
#[derive(Serialize)]
struct MatchList<'a> {
    heading: String,
    /// Newest first.
    rows: &'a [MatchRow],
    /// On `matches.html`: every archive page, newest first.
    archive: &'a [ListPageLink],
    /// Matches in all.
    total: usize,
    /// On an archive page: the pages of the next newer and next older block.
    newer: Option<String>,
    older: Option<String>,
}

/// A link to an archive page of the match list.
#[derive(Serialize)]
struct ListPageLink {
    url: String,
    /// Match numbers, `1001–2000`.
    label: String,
    /// When its first and last match were played.
    first: String,
    last: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::views::SiteView;

    fn row(n: usize) -> MatchRow {
        MatchRow {
            url: format!("matches/{n:016x}.html"),
            when: format!("Match {n}"),
            when_sort: String::new(),
            map: "q3dm6".into(),
            map_url: "maps/q3dm6.html".into(),
            gametype: "Free For All".into(),
            players: 4,
            frags: 20,
            duration: "10:00".into(),
            seconds: 600,
            server: "Main".into(),
        }
    }

    /// The row of match `i` (from 0) in history order: match number `i + 1`.
    fn nth(i: usize) -> MatchRow {
        row(i + 1)
    }

    fn text(f: &OutputFile) -> String {
        String::from_utf8(f.to_vec()).unwrap()
    }

    /// Five matches in pages of two: `matches.html` shows the newest two and links three
    /// archive pages, which link each other; a sixth match changes the newest block only, so the
    /// older pages are reused.
    #[test]
    fn archive_pages_hold_blocks_from_the_first_match() {
        let templates = Templates::load(None).unwrap();
        let site = SiteView::for_tests();
        let common = |root: &'static str, current: &str| Common::for_tests(&site, root, current);
        let first = pages(
            &templates,
            &common,
            5,
            &nth,
            &PageCache::default(),
            7,
            2,
            None,
        )
        .unwrap();
        let paths: Vec<&str> = first.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "matches.html",
                "matches/page-1.html",
                "matches/page-2.html",
                "matches/page-3.html"
            ]
        );
        let list = &text(&first[0]);
        // Links to match n's page from the list (at the root) or an archive page (one folder in).
        let links = |page: &str, n: usize| page.contains(&format!("\"{}\"", row(n).url));
        let links_in = |page: &str, n: usize| page.contains(&format!("\"../{}\"", row(n).url));
        assert!(links(list, 5) && links(list, 4) && !links(list, 3));
        for k in 1..=3 {
            assert!(list.contains(&format!("href=\"matches/page-{k}.html\"")));
        }
        let middle = &text(&first[2]);
        assert!(middle.contains("Matches 3–4"));
        assert!(!links_in(middle, 5) && links_in(middle, 4));
        assert!(links_in(middle, 3) && !links_in(middle, 2));
        assert!(middle.contains("href=\"page-3.html\"") && middle.contains("href=\"page-1.html\""));
        assert!(!text(&first[1]).contains("Older matches"));

        let cache = PageCache {
            keys: crate::hashed_pairs::HashedPairs::from_pairs(
                first.iter().filter_map(|f| Some((f.path.as_str(), f.key?))),
            ),
        };
        let second = pages(&templates, &common, 6, &nth, &cache, 7, 2, None).unwrap();
        let reused: Vec<&str> = second
            .iter()
            .filter(|f| f.reuse)
            .map(|f| f.path.as_str())
            .collect();
        assert_eq!(reused, ["matches/page-1.html", "matches/page-2.html"]);
        assert!(links_in(&text(&second[3]), 6));
        // One page or less: no archive.
        let small = pages(
            &templates,
            &common,
            2,
            &nth,
            &PageCache::default(),
            7,
            2,
            None,
        )
        .unwrap();
        assert_eq!(small.len(), 1);
    }
}
