//! The rows of a player page's head-to-head and match tables, written here when the built-in
//! `player.html` prints them: up to [`super::views::HEAD_TO_HEAD_ROWS`] opponents and
//! [`super::helpers::PLAYER_MATCH_ROWS`] matches, each of a dozen values, were most of the
//! time Tera took to render a page (every value made into a Tera value, looked up by its path
//! and escaped one at a time). The markup is the built-in template's loops', byte for byte
//! (values escaped as Tera's autoescape does); a test renders the loops of the template itself
//! against it. A site with its own `player.html` gets the rows in full instead. Not here:
//! which rows a page lists ([`super::lazy_rows`]).

use std::fmt::Write as _;

use super::colour::escape_into;
use super::views::{Opponent, PlayerMatchRow};

/// Where a player page is, relative to the site root (`players/<slug>.html`).
pub(super) const ROOT: &str = "../";

/// The markup the built-in `player.html`'s loop over `p.opponents` writes for `rows`.
pub(super) fn opponents_html(rows: &[Opponent], root: &str) -> String {
    let mut out = String::with_capacity(rows.len() * 200);
    for o in rows {
        out.push_str("<tr><td>");
        if o.url.is_empty() {
            out.push_str(o.name_html);
        } else {
            let _ = write!(out, "<a href=\"{root}{}\">{}</a>", o.url, o.name_html);
        }
        let _ = write!(
            out,
            "</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}%</td></tr>\n  ",
            o.made, o.suffered, o.share
        );
    }
    out
}

/// The markup the built-in `player.html`'s loop over `p.match_rows` writes for `rows`.
pub(super) fn matches_html(rows: &[PlayerMatchRow], root: &str) -> String {
    let mut out = String::with_capacity(rows.len() * 400);
    for m in rows {
        out.push_str("<tr><td");
        if !m.when_sort.is_empty() {
            out.push_str(" data-sort=\"");
            escape_into(&mut out, &m.when_sort);
            out.push('"');
        }
        let _ = write!(out, "><a href=\"{root}{}\">", m.url);
        escape_into(&mut out, &m.when);
        let _ = write!(out, "</a></td><td><a href=\"{root}{}\">", m.map_url);
        escape_into(&mut out, &m.map);
        out.push_str("</a></td><td>");
        escape_into(&mut out, &m.gametype);
        let _ = write!(
            out,
            "</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">",
            m.place, m.frags, m.deaths
        );
        escape_into(&mut out, &m.score);
        out.push_str("</td><td class=\"num\">");
        escape_into(&mut out, &m.rating);
        out.push_str("</td><td class=\"num ");
        escape_into(&mut out, m.change_class);
        out.push_str("\">");
        escape_into(&mut out, &m.change);
        out.push_str("</td></tr>\n  ");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::colour::name_html;
    use crate::render::templates::BUILTIN_TEMPLATES;

    /// The loop of the built-in `player.html` that starts with `head` (`{% for ... %}` up to
    /// its `{% endfor %}`), as a template of its own.
    fn builtin_loop(head: &str) -> String {
        let (_, player) = BUILTIN_TEMPLATES
            .iter()
            .find(|(name, _)| *name == "player.html")
            .unwrap();
        let start = player.find(head).unwrap();
        let end = start + player[start..].find("{% endfor %}").unwrap();
        format!("{}{{% endfor %}}", &player[start..end])
    }

    /// Renders `template` with `root` and `p.<field>` = `rows`, escaping as the site does.
    fn render_loop<T: serde::Serialize>(
        template: &str,
        field: &str,
        rows: &[T],
        root: &str,
    ) -> String {
        let mut tera = tera::Tera::default();
        tera.set_escape_fn(crate::render::colour::escape);
        tera.add_raw_template("loop.html", template).unwrap();
        let mut ctx = tera::Context::new();
        ctx.insert("root", root);
        ctx.insert("p", &serde_json::json!({ field: rows }));
        tera.render("loop.html", &ctx).unwrap()
    }

    /// Names, links and labels that need escaping: markup, quotes, ampersands, colour codes,
    /// control characters.
    const HOSTILE: [&str; 6] = [
        "<script>alert(1)</script>",
        "\"quoted\" & 'single'",
        "^1Red^7<b>&amp;",
        "bell\u{7}esc\u{1b}[0m",
        "",
        "plain",
    ];

    #[test]
    fn opponents_html_equals_the_builtin_loop() {
        let names: Vec<String> = HOSTILE.iter().map(|n| name_html(n)).collect();
        let rows: Vec<Opponent> = names
            .iter()
            .zip(HOSTILE.iter().cycle().skip(2))
            .enumerate()
            .map(|(k, (name_html, url))| Opponent {
                name_html,
                url: if k % 3 == 0 { "" } else { url },
                made: k as u32 * 7,
                suffered: 3,
                share: (k * 17 % 101) as u32,
            })
            .collect();
        let template = builtin_loop("{% for o in p.opponents %}");
        for root in ["../", ""] {
            for n in [0, 1, rows.len()] {
                assert_eq!(
                    opponents_html(&rows[..n], root),
                    render_loop(&template, "opponents", &rows[..n], root),
                    "{root} {n}"
                );
            }
        }
    }

    #[test]
    fn matches_html_equals_the_builtin_loop() {
        let text = |k: usize| HOSTILE[k % HOSTILE.len()];
        let rows: Vec<PlayerMatchRow> = (0..12)
            .map(|k| PlayerMatchRow {
                url: text(k + 1).into(),
                when: text(k + 2).to_string(),
                when_sort: text(k + 3).to_string(),
                map: text(k + 4).into(),
                map_url: text(k + 5),
                gametype: text(k).into(),
                place: k + 1,
                frags: k as u32 * 3,
                deaths: 7,
                score: if k % 4 == 0 {
                    "-".into()
                } else {
                    format!("{}", k as i32 - 5)
                },
                rating: format!("{:.1}", 1000.0 - k as f64 * 13.37),
                change: format!("{:+.1}", k as f64 - 6.04),
                change_class: ["up", "down", "flat"][k % 3],
            })
            .collect();
        let template = builtin_loop("{% for m in p.match_rows %}");
        for root in ["../", ""] {
            for n in [0, 1, rows.len()] {
                assert_eq!(
                    matches_html(&rows[..n], root),
                    render_loop(&template, "match_rows", &rows[..n], root),
                    "{root} {n}"
                );
            }
        }
    }
}
