//! Small helpers shared by the page builders: formatting of numbers, times and names, the
//! ladders' order, navigation items, theme colours and the static assets.

use crate::model::MatchList;
use std::path::Path;

use anyhow::Result;

use super::OutputFile;
use super::SiteInput;
use super::templates::BUILTIN_STATIC;
use super::views::NavItem;

pub(super) fn nav_item(label: &str, url: &str) -> NavItem {
    NavItem {
        label: label.to_string(),
        url: url.to_string(),
        external: false,
    }
}

/// The navigation links of a page at `current` (`root` from the site root), exactly as the
/// built-in `base.html`'s loop over `nav` wrote them: each on every page, so made in Rust, not
/// by Tera's loop. Texts are escaped as the template escaped them; the current page is marked
/// by comparing the escaped URLs, as the template's `==` did.
pub(super) fn nav_html(nav: &[NavItem], root: &str, current: &str) -> String {
    let mut out = String::with_capacity(nav.len() * 64);
    let current = super::colour::escape(current);
    for item in nav {
        let label = super::colour::escape(&item.label);
        if item.external {
            out.push_str("<a href=\"");
            out.push_str(&super::colour::escape(&item.url));
            out.push_str("\">");
        } else {
            out.push_str("<a href=\"");
            out.push_str(root);
            out.push_str(&item.url);
            out.push('"');
            if super::colour::escape(&item.url) == current {
                out.push_str(" aria-current=\"page\"");
            }
            out.push('>');
        }
        out.push_str(&label);
        out.push_str("</a>");
    }
    out
}

/// CSS overriding the theme colours from `[colors]` (validated as hex colours when loaded).
pub(super) fn colors_css(c: &crate::config::Colors) -> String {
    fn valid(v: &Option<String>) -> Option<&str> {
        v.as_deref().filter(|v| crate::config::is_hex_colour(v))
    }
    let mut light = String::new();
    let mut dark = String::new();
    if let Some(v) = valid(&c.accent) {
        light.push_str(&format!("--accent:{v};"));
    }
    if let Some(v) = valid(&c.link) {
        light.push_str(&format!("--link:{v};"));
    }
    if let Some(v) = valid(&c.accent_dark) {
        dark.push_str(&format!("--accent:{v};"));
    }
    if let Some(v) = valid(&c.link_dark) {
        dark.push_str(&format!("--link:{v};"));
    }
    let mut css = String::new();
    if !light.is_empty() {
        css.push_str(&format!(":root{{{light}}}"));
    }
    if !dark.is_empty() {
        css.push_str(&format!(
            "@media (prefers-color-scheme: dark){{:root{{{dark}}}}}"
        ));
    }
    css
}

/// Built-in assets, then the site's own `static/` folder copied over them.
pub(super) fn static_files(site_dir: &Path) -> Result<Vec<OutputFile>> {
    let mut files: std::collections::BTreeMap<String, Vec<u8>> = BUILTIN_STATIC
        .iter()
        .map(|(p, b)| (format!("static/{p}"), b.to_vec()))
        .collect();
    let dir = site_dir.join("static");
    if dir.is_dir() {
        for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
            let entry = entry?;
            if !entry.file_type().is_file() {
                continue;
            }
            let rel = entry.path().strip_prefix(&dir).unwrap_or(entry.path());
            let rel = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            files.insert(format!("static/{rel}"), std::fs::read(entry.path())?);
        }
    }
    Ok(files
        .into_iter()
        .map(|(path, bytes)| OutputFile::new(path, bytes))
        .collect())
}

/// "Newest match: 2026-11-22 01:54" — the time of the data, never of the build.
pub(super) fn updated_line(matches: MatchList) -> String {
    match matches.heads().filter_map(|m| m.start).max() {
        Some(t) => format!("Newest match: {}", t.format("%Y-%m-%d %H:%M")),
        None => format!("{} matches (the logs carry no dates)", matches.len()),
    }
}

/// A player page lists this many of the player's latest matches.
pub(super) const PLAYER_MATCH_ROWS: usize = 100;
/// A map or clan page lists this many latest matches.
pub(super) const MAP_MATCH_ROWS: usize = 200;
/// Curves are thinned to at most this many points (the last of each stretch is kept).
pub(super) const CURVE_POINTS: usize = 600;

/// A static value g as a percentage, (g + 1) * 50, one decimal. A player's g can leave [-1, 1]
/// (outside the core above all, where few pairs tie it down): a share is shown within 0-100%.
pub(super) fn static_percent(g: f64) -> String {
    super::decimal::fixed(((g + 1.0) * 50.0).clamp(0.0, 100.0), 1)
}

/// Identity numbers by Becker's dynamic rating, best first (ties: more frags, then identity).
pub(super) fn becker_ladder(input: &SiteInput) -> Vec<usize> {
    let g = &input.ratings.dynamic.players;
    let stats = &input.stats.players;
    let mut order: Vec<usize> = (0..g.len()).collect();
    order.sort_by(|&a, &b| {
        g[b].total_cmp(&g[a])
            .then(stats[b].kills.cmp(&stats[a].kills))
            .then(a.cmp(&b))
    });
    order
}

/// `m:ss` or `h:mm:ss`.
pub fn clock(seconds: u32) -> String {
    let mut out = String::with_capacity(8);
    push_clock(&mut out, seconds);
    out
}

/// [`clock`] written onto `out` (a match page writes one per kill: no allocation, no
/// formatting machinery).
pub(super) fn push_clock(out: &mut String, seconds: u32) {
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if h > 0 {
        push_number(out, h);
        out.push(':');
        push_two_digits(out, m);
    } else {
        push_number(out, m);
    }
    out.push(':');
    push_two_digits(out, s);
}

/// The times of day a kill list shows most: [`push_sorted_clock`] copies theirs from a table.
const TABLED_SECONDS: u32 = 2 * 3600;

/// `{seconds}">{clock(seconds)}` onto `out`: the sort key and the text of a kill's time cell
/// (`<td class="num" data-sort="N">M:SS`). Match times under two hours come from a table
/// made once, as one copy: formatting both numbers was a good part of a match page's kill
/// list, which writes one per kill.
pub(super) fn push_sorted_clock(out: &mut String, seconds: u32) {
    static TABLE: std::sync::OnceLock<(String, Vec<usize>)> = std::sync::OnceLock::new();
    let (text, ends) = TABLE.get_or_init(|| {
        let mut text = String::new();
        let mut ends = Vec::with_capacity(TABLED_SECONDS as usize + 1);
        ends.push(0);
        for t in 0..TABLED_SECONDS {
            push_number(&mut text, t);
            text.push_str("\">");
            push_clock(&mut text, t);
            ends.push(text.len());
        }
        (text, ends)
    });
    if seconds < TABLED_SECONDS {
        let at = seconds as usize;
        out.push_str(&text[ends[at]..ends[at + 1]]);
    } else {
        push_number(out, seconds);
        out.push_str("\">");
        push_clock(out, seconds);
    }
}

/// `n` in decimal onto `out`, as `{n}` writes it.
pub(super) fn push_number(out: &mut String, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[start..].iter().map(|&d| char::from(d)));
}

/// `n` (under 100) as two digits onto `out`, as `{n:02}` writes it.
fn push_two_digits(out: &mut String, n: u32) {
    out.push(char::from(b'0' + (n / 10 % 10) as u8));
    out.push(char::from(b'0' + (n % 10) as u8));
}

/// Weapon display name over all games (player and map totals): `MOD_ROCKET_SPLASH` -> `Rocket
/// splash`, `ak47` -> `AK-47` ([`crate::model::weapons::weapon_label`]).
pub fn weapon_label(raw: &str) -> String {
    crate::model::weapons::weapon_label("", raw).into_owned()
}

/// A name shortened for a chart legend.
pub(super) fn plain_label(name: &str) -> String {
    let mut s: String = name.chars().filter(|c| !c.is_control()).take(20).collect();
    if name.chars().count() > 20 {
        s.push('…');
    }
    s
}

/// `up`, `down` or `flat` for a rating change (a tenth of a point counts as no change).
pub(super) fn change_class(delta: f64) -> &'static str {
    if delta > 0.05 {
        "up"
    } else if delta < -0.05 {
        "down"
    } else {
        "flat"
    }
}

pub(super) fn ratio(a: u32, b: u32) -> String {
    if b == 0 {
        format!("{a}.00")
    } else {
        super::decimal::fixed(f64::from(a) / f64::from(b), 2)
    }
}

pub(super) fn percent(part: u32, whole: u32) -> u32 {
    if whole == 0 {
        0
    } else {
        ((f64::from(part) * 100.0 / f64::from(whole)).round()) as u32
    }
}

/// `d` as `%Y-%m-%d` writes it, without parsing the format on each call (every player page's
/// view writes its last match's date on each build).
pub(super) fn iso_date(d: chrono::NaiveDate) -> String {
    use chrono::Datelike;
    match d.year() {
        // `%Y` pads to four digits and signs the years outside 0-9999.
        year @ 0..=9999 => format!("{year:04}-{:02}-{:02}", d.month(), d.day()),
        _ => d.format("%Y-%m-%d").to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-written digits are what `format!` writes, hours or not, at every boundary.
    #[test]
    fn clock_and_numbers_as_format_writes_them() {
        for n in [
            0, 1, 9, 10, 59, 60, 61, 599, 600, 3599, 3600, 3661, 35999, 36000, 86399,
        ] {
            let (h, m, s) = (n / 3600, n / 60 % 60, n % 60);
            let expected = if h > 0 {
                format!("{h}:{m:02}:{s:02}")
            } else {
                format!("{m}:{s:02}")
            };
            assert_eq!(clock(n), expected);
        }
        for n in [0, 7, 10, 99, 100, 4_294_967_295] {
            let mut out = String::from("x");
            push_number(&mut out, n);
            assert_eq!(out, format!("x{n}"));
        }
        assert_eq!(clock(u32::MAX), "1193046:28:15");
        for n in [0, 1, 59, 60, 3599, 3600, 7199, 7200, 7201, 36000, u32::MAX] {
            let mut out = String::from("x");
            push_sorted_clock(&mut out, n);
            assert_eq!(out, format!("x{n}\">{}", clock(n)));
        }
    }

    #[test]
    fn iso_date_writes_what_the_format_string_writes() {
        let dates = [
            (2024, 2, 29),
            (1999, 12, 31),
            (1, 1, 1),
            (0, 1, 1),
            (999, 5, 7),
        ]
        .into_iter()
        .chain([(9999, 12, 31), (10000, 1, 1), (-1, 6, 15), (-12345, 3, 3)]);
        for (y, m, d) in dates {
            let date = chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap();
            assert_eq!(iso_date(date), date.format("%Y-%m-%d").to_string(), "{y}");
        }
    }
}
