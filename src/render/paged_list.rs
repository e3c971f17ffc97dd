//! Long top-level lists (`servers.html`, `clans.html`) split into pages: the first page keeps
//! the list's own URL and shows the first [`PAGE_SIZE`] rows; the further pages are
//! `<folder>/page-<k>.html`, and every page links all of them. A public server's logs can name
//! tens of thousands of servers (a hostname per match) or clans; a page of them all would be
//! megabytes. The template sees its rows under their usual name and the pager as `pager`. The
//! player list ([`super::player_list`], in ladder order with its own heading) renders its own
//! pages but takes its URLs and links from here. Not here: the match list
//! ([`super::match_list`], blocks counted from the first match).

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;

use super::templates::Templates;
use super::views::Common;
use super::{OutputFile, html};

/// Rows per page.
pub const PAGE_SIZE: usize = 1000;

/// Where a page stands among the pages of its list.
#[derive(Serialize)]
pub struct Pager {
    /// Every page of the list; empty when one page holds everything.
    pub pages: Vec<PageLink>,
    /// This page's number, from 1.
    pub page: usize,
    /// Rows before this page.
    pub offset: usize,
    /// Rows in all.
    pub total: usize,
}

/// A link to one page of a list.
#[derive(Serialize, Clone)]
pub struct PageLink {
    /// Relative to the site root.
    pub url: String,
    /// Row numbers, `1001–2000`.
    pub label: String,
}

/// The URL of page `k` (from 1) of a list whose first page is `first` and whose further pages
/// are in `folder`.
pub fn page_url(first: &str, folder: &str, k: usize) -> String {
    if k == 1 {
        first.to_string()
    } else {
        format!("{folder}/page-{k}.html")
    }
}

/// Links to every page of a list of `total` rows in pages of `page_size` (at least 1), labelled
/// by their row numbers; empty when one page holds everything.
pub fn page_links(first: &str, folder: &str, total: usize, page_size: usize) -> Vec<PageLink> {
    let page_size = page_size.max(1);
    let count = total.div_ceil(page_size).max(1);
    if count == 1 {
        return Vec::new();
    }
    (1..=count)
        .map(|k| PageLink {
            url: page_url(first, folder, k),
            label: format!("{}–{}", (k - 1) * page_size + 1, (k * page_size).min(total)),
        })
        .collect()
}

/// One page's context: the rows under `key`, and the pager.
struct Paged<'a, T: Serialize> {
    key: &'static str,
    rows: &'a [T],
    pager: &'a Pager,
}

impl<T: Serialize> Serialize for Paged<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry(self.key, self.rows)?;
        map.serialize_entry("pager", self.pager)?;
        map.end()
    }
}

/// The pages of the list `rows` (in their shown order) rendered with `template`: the first at
/// `first` (a root page, named as its template, e.g. `servers.html`), the others in `folder`.
pub fn pages<'a, T: Serialize + Sync>(
    templates: &Templates,
    common: &(dyn Fn(&'static str, &str) -> Common<'a> + Sync),
    first: &'static str,
    folder: &str,
    key: &'static str,
    rows: &[T],
    page_size: usize,
) -> Result<Vec<OutputFile>> {
    let page_size = page_size.max(1);
    let total = rows.len();
    let count = total.div_ceil(page_size).max(1);
    let url = |k: usize| page_url(first, folder, k);
    let links = page_links(first, folder, total, page_size);
    (1..=count)
        .into_par_iter()
        .map(|k| {
            let offset = (k - 1) * page_size;
            let pager = Pager {
                pages: links.clone(),
                page: k,
                offset,
                total,
            };
            let view = Paged {
                key,
                rows: &rows[offset.min(total)..(offset + page_size).min(total)],
                pager: &pager,
            };
            // Every page of the list marks the list in the navigation.
            let root = if k == 1 { "" } else { "../" };
            let body = templates.render(first, &common(root, first), &view)?;
            Ok(html(&url(k), body))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::views::{ServerRow, SiteView};

    fn row(n: usize) -> ServerRow {
        ServerRow {
            name: format!("server{n}"),
            url: format!("servers/server{n}.html"),
            matches: 1,
            players: 2,
            frags: 3,
            maps: 1,
            first: String::new(),
            last: String::new(),
        }
    }

    /// Five servers in pages of two: `servers.html` holds the first two and links the others,
    /// which link back from one folder down; one page of everything has no pager.
    #[test]
    fn long_lists_are_split_into_linked_pages() {
        let templates = Templates::load(None).unwrap();
        let site = SiteView::for_tests();
        let common = |root: &'static str, current: &str| Common::for_tests(&site, root, current);
        let rows: Vec<ServerRow> = (1..=5).map(row).collect();
        let files = pages(
            &templates,
            &common,
            "servers.html",
            "server-list",
            "servers",
            &rows,
            2,
        )
        .unwrap();
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "servers.html",
                "server-list/page-2.html",
                "server-list/page-3.html"
            ]
        );
        let text: Vec<String> = files
            .iter()
            .map(|f| String::from_utf8(f.to_vec()).unwrap())
            .collect();
        assert!(text[0].contains("\"servers/server2.html\""));
        assert!(!text[0].contains("server3.html"));
        assert!(text[0].contains("\"server-list/page-3.html\""));
        assert!(text[1].contains("\"../servers/server4.html\""));
        assert!(!text[1].contains("server5.html"));
        assert!(text[1].contains("\"../servers.html\""));
        assert!(text[2].contains("\"../servers/server5.html\""));
        let one = pages(
            &templates,
            &common,
            "servers.html",
            "server-list",
            "servers",
            &rows,
            10,
        )
        .unwrap();
        assert_eq!(one.len(), 1);
        assert!(!one[0].to_vec().windows(5).any(|w| w == b"pager"));
    }
}
