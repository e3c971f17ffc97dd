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

/// `matches.html` and, when there are more than `page_size` matches, the archive pages.
/// `rows` are every match's row, newest first; `salt` is the hash of what all archive pages
/// share (templates, site fields).
pub fn pages<'a>(
    templates: &Templates,
    common: &(dyn Fn(&'static str, &str) -> Common<'a> + Sync),
    rows: &[MatchRow],
    cache: &PageCache,
    salt: u64,
    page_size: usize,
    sink: Option<&PageSink>,
) -> Result<Vec<OutputFile>> {
    let total = rows.len();
    let blocks = if total > page_size {
        total.div_ceil(page_size)
    } else {
        0
    };
    // Block k (1-based) holds matches (k-1)*PAGE .. k*PAGE in history order; in `rows`
    // (newest first) that is a slice counted from the end.
    let block_rows = |k: usize| {
        let first = (k - 1) * page_size;
        let last = (k * page_size).min(total);
        &rows[total - last..total - first]
    };
    let block_url = |k: usize| format!("matches/page-{k}.html");
    let archive: Vec<ListPageLink> = (1..=blocks)
        .rev()
        .map(|k| {
            let block = block_rows(k);
            ListPageLink {
                url: block_url(k),
                label: format!(
                    "{}–{}",
                    (k - 1) * page_size + 1,
                    (k - 1) * page_size + block.len()
                ),
                first: block.last().map(|r| r.when.clone()).unwrap_or_default(),
                last: block.first().map(|r| r.when.clone()).unwrap_or_default(),
            }
        })
        .collect();
    let newest = MatchList {
        heading: "Matches".into(),
        rows: &rows[..total.min(page_size)],
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
            let view = MatchList {
                heading: format!("Matches {}", link.label),
                rows: block_rows(k),
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
            if cache.keys.get(&url) == Some(&key) {
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

    /// Rows of matches 1..=n, newest first.
    fn rows(n: usize) -> Vec<MatchRow> {
        (1..=n).rev().map(row).collect()
    }

    fn text(f: &OutputFile) -> &str {
        std::str::from_utf8(&f.bytes).unwrap()
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
            &rows(5),
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
        let list = text(&first[0]);
        // Links to match n's page from the list (at the root) or an archive page (one folder in).
        let links = |page: &str, n: usize| page.contains(&format!("\"{}\"", row(n).url));
        let links_in = |page: &str, n: usize| page.contains(&format!("\"../{}\"", row(n).url));
        assert!(links(list, 5) && links(list, 4) && !links(list, 3));
        for k in 1..=3 {
            assert!(list.contains(&format!("href=\"matches/page-{k}.html\"")));
        }
        let middle = text(&first[2]);
        assert!(middle.contains("Matches 3–4"));
        assert!(!links_in(middle, 5) && links_in(middle, 4));
        assert!(links_in(middle, 3) && !links_in(middle, 2));
        assert!(middle.contains("href=\"page-3.html\"") && middle.contains("href=\"page-1.html\""));
        assert!(!text(&first[1]).contains("Older matches"));

        let cache = PageCache {
            keys: first
                .iter()
                .filter_map(|f| Some((f.path.clone(), f.key?)))
                .collect(),
        };
        let second = pages(&templates, &common, &rows(6), &cache, 7, 2, None).unwrap();
        let reused: Vec<&str> = second
            .iter()
            .filter(|f| f.reuse)
            .map(|f| f.path.as_str())
            .collect();
        assert_eq!(reused, ["matches/page-1.html", "matches/page-2.html"]);
        assert!(links_in(text(&second[3]), 6));
        // One page or less: no archive.
        let small = pages(
            &templates,
            &common,
            &rows(2),
            &PageCache::default(),
            7,
            2,
            None,
        )
        .unwrap();
        assert_eq!(small.len(), 1);
    }
}
