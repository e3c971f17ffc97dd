//! The [`Renderer`]: what every page builder shares (the site input, the links, ladder ranks,
//! coloured names, made once) and the small lookups several page kinds use (a player's
//! link, a match's date, a rating curve). It builds no page: each page kind's builders are
//! functions of its own module in `pages/` (and the lazy parts of player pages in `lazy_*`),
//! taking it as `r`.

use crate::config::HeadlineSystem;
use crate::rating::curve_point::CurvePoint;
use rayon::prelude::*;

use super::colour::name_html;
use super::helpers::*;
use super::views::LabelCount;
use super::{Links, SiteInput, charts, decimal};

/// How a hidden player shows where others' pages meet them.
pub(super) const ANONYMOUS_HTML: &str = "<em class=\"anon\">anonymous</em>";

/// How a hidden player is named in plain text (chart legends).
pub(super) const ANONYMOUS: &str = "anonymous";

pub(super) struct Renderer<'a> {
    pub(super) input: &'a SiteInput<'a>,
    pub(super) links: &'a Links,
    /// Identity numbers by dynamic rating, best first.
    pub(super) ladder: Vec<usize>,
    /// 1-based ladder position of each identity.
    pub(super) rank: Vec<usize>,
    /// Rank of each identity on Becker's ladder (1-based).
    pub(super) becker_rank: Vec<usize>,
    /// Place of each clan on Becker's clan ladder (1 = best; ties by clan order), ranked once
    /// for all clan pages.
    pub(super) clan_rank: Vec<usize>,
    /// Every match has a date: curves use dates on the x axis, else match numbers.
    pub(super) dated: bool,
    /// What a match's x coordinate on curves is ([`Self::x_of`]), worked out once.
    curve_x: CurveX,
    /// Each identity's coloured name as safe HTML, built once.
    pub(super) names_html: Vec<String>,
    /// Number of rank shards player pages load their ranks from (0: ranks are in the pages);
    /// see [`super::rank_shards`].
    pub(super) rank_shards: usize,
    /// Each rank shard's path from the site root, made once for the pages that name them.
    pub(super) shard_paths: Vec<String>,
    /// The site has its own `player.html`: with shards, the ladder and season ranks stay in the
    /// pages too, since a template written before they moved to shards prints them directly.
    pub(super) own_player_template: bool,
    /// Each match's map page, as its place in [`Renderer::match_map_urls`] (a text's 16 bytes
    /// a match were 1 MB at 64,000 matches, issue 41). Its date labels are made when asked for
    /// ([`Renderer::when`]).
    match_maps: Vec<u32>,
    /// The map pages matches name ([`Renderer::match_maps`]), "" first (a match without one).
    match_map_urls: Vec<&'a str>,
    /// The maps' names, beside [`Renderer::match_map_urls`].
    match_map_names: Vec<&'a str>,
    /// Each weapon's label (by raw name, from the maps' weapon counts), made once for the
    /// weapon tables of every player page (hashed with ahash: each page looks up each of its
    /// weapons).
    weapon_labels: std::collections::HashMap<&'a str, String, ahash::RandomState>,
    /// See [`super::lazy_rows::RowTexts`].
    pub(super) row_texts: std::sync::OnceLock<super::lazy_rows::RowTexts>,
    /// Each identity's ratings as text, formatted once: the player tables and the player pages
    /// both show them.
    pub(super) rating_texts: Vec<RatingTexts>,
    /// Every positioned kill, by map (empty for logs without positions).
    pub(super) heat: super::heatmap::Heat,
}

/// An identity's ratings as the player tables and pages show them.
pub(super) struct RatingTexts {
    /// Becker's dynamic rating, one decimal.
    pub(super) rating: String,
    /// The headline rating, no decimals (0 without one).
    pub(super) headline: String,
}

/// A match's label as pages show it ([`Renderer::when`], [`Renderer::when_sort`]), made from
/// its head when asked for: held for every match, the labels were 2 MB at 64,000 matches
/// (issue 41), and a page shows a few dozen.
pub(super) struct Label(ShortText);

impl std::ops::Deref for Label {
    type Target = str;
    fn deref(&self) -> &str {
        self.0.as_str()
    }
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

impl serde::Serialize for Label {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self)
    }
}

impl Label {
    /// `t` as `%Y-%m-%d %H:%M`, with `:%S` when `seconds`: written digit by digit for a
    /// four-digit year (a crowd's build labels each match a few times), else by chrono.
    fn start(t: chrono::NaiveDateTime, seconds: bool) -> Label {
        use chrono::{Datelike, Timelike};
        let year = t.year();
        // A leap second is `:60` in chrono's format.
        if !(0..=9999).contains(&year) || t.nanosecond() >= 1_000_000_000 {
            let format = if seconds { SORTABLE } else { "%Y-%m-%d %H:%M" };
            return Label(ShortText::new(&t.format(format).to_string()));
        }
        let mut bytes = [0; SHORT_TEXT];
        let digits = |to: &mut [u8], mut n: u32| {
            for at in to.iter_mut().rev() {
                *at = b'0' + (n % 10) as u8;
                n /= 10;
            }
        };
        digits(&mut bytes[0..4], year as u32);
        bytes[4] = b'-';
        digits(&mut bytes[5..7], t.month());
        bytes[7] = b'-';
        digits(&mut bytes[8..10], t.day());
        bytes[10] = b' ';
        digits(&mut bytes[11..13], t.hour());
        bytes[13] = b':';
        digits(&mut bytes[14..16], t.minute());
        let len = if seconds {
            bytes[16] = b':';
            digits(&mut bytes[17..19], t.second());
            19
        } else {
            16
        };
        Label(ShortText::Held { bytes, len })
    }
}

/// A text held in place when it is short, as a match's labels are (a start to the second is
/// 19 bytes up to the year 9999, 22 to chrono's last; "Match N" at most 16), not on the heap:
/// the history has a label per match, a small allocation each beside the list of labels.
enum ShortText {
    Held { bytes: [u8; SHORT_TEXT], len: u8 },
    Long(Box<str>),
}

/// The most bytes a [`ShortText`] holds in place.
const SHORT_TEXT: usize = 22;

impl ShortText {
    fn new(text: &str) -> ShortText {
        match text.len() <= SHORT_TEXT {
            true => {
                let mut bytes = [0; SHORT_TEXT];
                bytes[..text.len()].copy_from_slice(text.as_bytes());
                ShortText::Held {
                    bytes,
                    len: text.len() as u8,
                }
            }
            false => ShortText::Long(text.into()),
        }
    }

    fn as_str(&self) -> &str {
        match self {
            ShortText::Held { bytes, len } => {
                // Whole characters of a `str`, copied as they were.
                std::str::from_utf8(&bytes[..*len as usize]).unwrap_or_default()
            }
            ShortText::Long(text) => text,
        }
    }
}

impl<'a> Renderer<'a> {
    pub(super) fn new(input: &'a SiteInput<'a>, links: &'a Links) -> Self {
        let ladder = input.standing.ladder.clone();
        let players = input.roster.players.len();
        let mut rank = vec![0; players];
        for (pos, &i) in ladder.iter().enumerate() {
            rank[i] = pos + 1;
        }
        let mut becker_rank = vec![0; players];
        let listed = becker_ladder(input)
            .into_iter()
            .filter(|&i| !input.hidden[i]);
        for (pos, i) in listed.enumerate() {
            becker_rank[i] = pos + 1;
        }
        let clan_g = &input.ratings.dynamic.clans;
        let mut clan_order: Vec<usize> = (0..clan_g.len()).collect();
        clan_order.sort_by(|&a, &b| clan_g[b].total_cmp(&clan_g[a]).then(a.cmp(&b)));
        let mut clan_rank = vec![0; clan_g.len()];
        for (pos, &c) in clan_order.iter().enumerate() {
            clan_rank[c] = pos + 1;
        }
        // Each map page's place in `match_map_urls`, by map name.
        let mut match_map_urls = vec![""];
        let mut match_map_names = vec![""];
        let mut map_place: std::collections::HashMap<&str, u32, ahash::RandomState> =
            Default::default();
        for (name, url) in &links.maps {
            map_place.insert(name.as_str(), match_map_urls.len() as u32);
            match_map_urls.push(url.as_str());
            match_map_names.push(name.as_str());
        }
        let match_maps = input
            .matches
            .par_heads()
            .map(|m| map_place.get(m.map.as_str()).copied().unwrap_or(0))
            .collect();
        let weapon_labels = (input.stats.maps.iter())
            .flat_map(|m| m.weapons.keys())
            .map(|w| (w.as_str(), weapon_label(w)))
            .collect();
        let rank_shards = super::rank_shards::shard_count(input);
        let headline = &input.ratings.headline.value;
        let rating_texts = (input.ratings.dynamic.players.par_iter().enumerate())
            .map(|(i, rating)| RatingTexts {
                rating: decimal::fixed(*rating, 1),
                headline: decimal::fixed(headline.get(i).copied().unwrap_or(0.0), 0),
            })
            .collect();
        let heat = super::heatmap::Heat::new(input, &links.maps);
        Renderer {
            heat,
            row_texts: Default::default(),
            rating_texts,
            match_maps,
            match_map_urls,
            match_map_names,
            weapon_labels,
            rank_shards,
            shard_paths: (0..rank_shards)
                .map(super::rank_shards::shard_path)
                .collect(),
            own_player_template: false,
            input,
            links,
            ladder,
            rank,
            becker_rank,
            clan_rank,
            dated: !input.matches.is_empty() && input.matches.heads().all(|m| m.start.is_some()),
            curve_x: CurveX::of(input.matches),
            names_html: input
                .roster
                .players
                .par_iter()
                .zip(input.hidden)
                .map(|(p, &hidden)| {
                    if hidden {
                        ANONYMOUS_HTML.to_string()
                    } else {
                        name_html(&p.name)
                    }
                })
                .collect(),
        }
    }

    /// Rating of identity (or clan, numbered after the players) `id` after match `mi`, and the
    /// change that match brought.
    pub(super) fn rating_at(&self, id: usize, mi: u32) -> Option<(f64, f64)> {
        let (before, after) = self.input.ratings.dynamic.history.at_match(id, mi)?;
        let before = before.map_or(self.input.config.rating.dynamic.initial, |p| p.pair().1);
        let after = after.pair().1;
        Some((after, after - before))
    }

    /// The name of identity `i`'s division, empty when they have none, borrowed.
    pub(super) fn division_name(&self, i: usize) -> &str {
        self.input.standing.division[i]
            .and_then(|d| self.input.config.divisions.get(d))
            .map_or("", |d| d.name.as_str())
    }

    /// `up`, `down` or `flat`: the rating change over the last five matches.
    pub(super) fn trend(&self, id: usize) -> &'static str {
        let h = &self.input.ratings.dynamic.history;
        let Some(last) = h.last(id) else {
            return "flat";
        };
        let before = if h.len(id) > 5 {
            h.point(id, h.len(id) - 6).pair().1
        } else {
            self.input.config.rating.dynamic.initial
        };
        change_class(last.pair().1 - before)
    }

    /// The x coordinate of match `mi` on curves ([`CurveX`]), read from its head (a list of
    /// them was 0.5 MB at 64,000 matches, issue 41; a curve draws at most [`CURVE_POINTS`]).
    pub(super) fn x_of(&self, mi: u32) -> f64 {
        let position = || f64::from(mi + 1);
        match self.curve_x {
            CurveX::Start => (self.input.matches.head(mi as usize).start)
                .map_or_else(position, |t| t.and_utc().timestamp() as f64),
            CurveX::Number => f64::from(self.input.matches.head(mi as usize).number),
            CurveX::Position => position(),
        }
    }

    /// The maps of `matches` (indices) with their share of them, most played first.
    pub(super) fn map_shares(
        &self,
        matches: impl ExactSizeIterator<Item = usize>,
    ) -> Vec<LabelCount<'a>> {
        let mut counts: std::collections::BTreeMap<std::borrow::Cow<'a, str>, u32> =
            Default::default();
        let total = matches.len() as u32;
        for i in matches {
            *counts.entry(self.match_map_name(i)).or_default() += 1;
        }
        let mut maps: Vec<LabelCount> = counts
            .into_iter()
            .map(|(name, count)| LabelCount {
                url: self.map_url(&name),
                name,
                count,
                percent: percent(count, total),
            })
            .collect();
        maps.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
        maps
    }

    /// The headline system's name as the evaluation reports it.
    pub(super) fn headline_system_name(&self) -> &str {
        let evaluation = &self.input.ratings.headline.evaluation;
        evaluation
            .report(&evaluation.headline)
            .map_or(evaluation.headline.as_str(), |r| r.system.as_str())
    }

    /// The headline system refits the whole history at the end, so the last point of a
    /// headline curve may jump from the one before.
    pub(super) fn headline_refitted(&self) -> bool {
        matches!(
            self.input.config.rating.headline.system,
            HeadlineSystem::WholeHistory | HeadlineSystem::BradleyTerry
        )
    }

    /// A rating curve for identity or clan number `id`.
    pub(super) fn curve(&self, id: usize, what: &str) -> String {
        let history = &self.input.ratings.dynamic.history;
        self.draw_curve(
            self.curve_points_iter_by(history.len(id), |n| history.point(id, n).pair())
                .collect(),
            what,
            &format!("Becker's rating of {what} over time"),
        )
    }

    /// A rating curve from (match index, rating) points, thinned to about [`CURVE_POINTS`]
    /// (the last point is always kept); "" when there are none.
    pub(super) fn curve_of(&self, history: &[CurvePoint], what: &str, title: &str) -> String {
        self.draw_curve(self.curve_points(history), what, title)
    }

    /// The (x, rating) points a curve of `history` draws: thinned to about [`CURVE_POINTS`],
    /// the last one always kept.
    pub(super) fn curve_points(&self, history: &[CurvePoint]) -> Vec<(f64, f64)> {
        self.curve_points_iter(history).collect()
    }

    /// [`Self::curve_points`], not collected.
    pub(super) fn curve_points_iter<'h>(
        &'h self,
        history: &'h [CurvePoint],
    ) -> impl Iterator<Item = (f64, f64)> + 'h {
        self.curve_points_iter_by(history.len(), move |n| history[n].pair())
    }

    /// [`Self::curve_points_iter`] of the `len` points `point` gives by position.
    pub(super) fn curve_points_iter_by<'h>(
        &'h self,
        len: usize,
        point: impl Fn(usize) -> (u32, f64) + 'h,
    ) -> impl Iterator<Item = (f64, f64)> + 'h {
        thinned(len).map(move |n| {
            let (x, y) = point(n);
            (self.x_of(x), y)
        })
    }

    /// The SVG of a curve through `points` (from [`Self::curve_points`]); "" when there are
    /// none. A function of its arguments and [`Renderer::dated`] alone (see
    /// [`super::lazy_curves`]).
    pub(super) fn draw_curve(&self, points: Vec<(f64, f64)>, what: &str, title: &str) -> String {
        if points.is_empty() {
            return String::new();
        }
        let span = points.last().map_or(0.0, |p| p.0) - points[0].0;
        let dated = self.dated;
        let format = move |x: f64| {
            if !dated {
                let mut label = String::from("#");
                decimal::push_fixed(&mut label, x, 0, false);
                return label;
            }
            match chrono::DateTime::from_timestamp(x as i64, 0) {
                Some(t) if span < 3_600.0 => t.format("%H:%M:%S").to_string(),
                Some(t) if span < 2.0 * 86_400.0 => t.format("%H:%M").to_string(),
                Some(t) if span < 200.0 * 86_400.0 => t.format("%b %d").to_string(),
                Some(t) => t.format("%Y-%m").to_string(),
                None => String::new(),
            }
        };
        // Ticks no closer than the labels' unit: match numbers, seconds, minutes, days, months.
        let x_step = match () {
            _ if !dated => 1.0,
            _ if span < 3_600.0 => 1.0,
            _ if span < 2.0 * 86_400.0 => 60.0,
            _ if span < 200.0 * 86_400.0 => 86_400.0,
            _ => 31.0 * 86_400.0,
        };
        let dots = points.len() <= 60;
        charts::line_chart(&charts::LineChart {
            title,
            x_label: if dated { "match start" } else { "match number" },
            y_label: "rating",
            series: vec![charts::Series {
                label: what.to_string(),
                points,
            }],
            x_format: &format,
            x_step,
            dots,
        })
    }

    /// Frees every match's map place: no page is made after it.
    pub(super) fn let_go_of_match_maps(&mut self) {
        self.match_maps = Vec::new();
    }

    /// When match `i` was played, to the minute, or "Match N" when undated.
    pub(super) fn when(&self, i: usize) -> Label {
        let m = self.input.matches.head(i);
        match m.start {
            Some(t) => Label::start(t, false),
            None => Label(ShortText::new(&undated_label(m.number, i))),
        }
    }

    /// The start in a form that sorts (`data-sort`), to the second; empty when undated.
    pub(super) fn when_sort(&self, i: usize) -> Label {
        match self.input.matches.head(i).start {
            Some(t) => Label::start(t, true),
            None => Label(ShortText::new("")),
        }
    }

    /// The page of match `i`'s map ("" when it has none).
    pub(super) fn match_map_url(&self, i: usize) -> &'a str {
        self.match_map_urls[self.match_maps[i] as usize]
    }

    /// The map of match `i`: borrowed where the map has a page, else read from the match.
    pub(super) fn match_map_name(&self, i: usize) -> std::borrow::Cow<'a, str> {
        match self.match_maps[i] {
            0 => self.input.matches.head(i).map.to_string().into(),
            place => self.match_map_names[place as usize].into(),
        }
    }

    /// A weapon's label ([`weapon_label`]), borrowed when made beforehand.
    pub(super) fn weapon(&self, raw: &str) -> std::borrow::Cow<'_, str> {
        match self.weapon_labels.get(raw) {
            Some(label) => label.as_str().into(),
            None => weapon_label(raw).into(),
        }
    }

    /// The page of map `map`, borrowed ("" when it has none).
    pub(super) fn map_url(&self, map: &str) -> &'a str {
        self.links.maps.get(map).map_or("", String::as_str)
    }

    pub(super) fn player_ref(&self, id: u32) -> (String, String) {
        (
            self.names_html[id as usize].clone(),
            self.links.players[id as usize].clone(),
        )
    }

    /// The name and link of `player`'s clan, borrowed ("" for both when they have none).
    pub(super) fn clan_of(&self, player: usize) -> (&str, &str) {
        match self.input.clans.of_player[player] {
            Some(c) => (
                self.input.clans.clans[c as usize].name.as_str(),
                self.links.clans[c as usize].as_str(),
            ),
            None => ("", ""),
        }
    }
}

/// The positions a curve of `len` points keeps: every `step`-th one (`step` makes about
/// [`CURVE_POINTS`] of them) and the last, stepped to rather than filtered out of all `len`.
fn thinned(len: usize) -> impl Iterator<Item = usize> {
    let step = len.div_ceil(CURVE_POINTS).max(1);
    // The steps miss the last point unless `step` divides `len`.
    let last = (!len.is_multiple_of(step)).then(|| len - 1);
    (step - 1..len).step_by(step).chain(last)
}

/// The x coordinate of each match on curves: its start time when every match is dated, else
/// its number when the matches' numbers ([`crate::model::Match::number`]) rise in site order
/// (curves use them, as the labels do), else its position (from 1).
#[derive(Clone, Copy, Debug, PartialEq)]
enum CurveX {
    Start,
    Number,
    Position,
}

impl CurveX {
    /// What the x coordinate of `matches` is, from one pass over their heads.
    fn of(matches: crate::model::MatchList) -> CurveX {
        let (mut dated, mut numbered, mut last) = (!matches.is_empty(), true, 0);
        for m in matches.heads() {
            dated &= m.start.is_some();
            numbered &= m.number > last;
            last = m.number;
        }
        match (dated, numbered && !matches.is_empty()) {
            (true, _) => CurveX::Start,
            (false, true) => CurveX::Number,
            (false, false) => CurveX::Position,
        }
    }
}

/// A dated match's start as [`Renderer::when_sort`] shows it (and [`Renderer::when`] without
/// its seconds).
const SORTABLE: &str = "%Y-%m-%d %H:%M:%S";

/// The label of an undated match numbered `number` (0: none), at `i` in site order.
fn undated_label(number: u32, i: usize) -> String {
    match number {
        0 => format!("Match {}", i + 1),
        n => format!("Match {n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short text reads back as given whatever its length, held in place up to
    /// [`SHORT_TEXT`] bytes (a label is then no larger than the text's own pointer and length).
    #[test]
    fn short_texts_read_back_as_given() {
        let long = "é".repeat(13);
        for text in [
            "",
            "Match 4294967295",
            "+262142-12-31 23:59:59",
            "aé€😀aé€😀",
            &long,
        ] {
            let short = ShortText::new(text);
            assert_eq!(short.as_str(), text);
            let held = matches!(short, ShortText::Held { .. });
            assert_eq!(held, text.len() <= SHORT_TEXT, "{text}");
        }
        assert!(std::mem::size_of::<Label>() <= 24);
    }

    /// A start's labels are chrono's formats of it, to the minute and to the second: years of
    /// four digits (written digit by digit), before the year 0 and beyond 9999, a leap
    /// second; an undated match is "Match N", by its number or else its place.
    #[test]
    fn start_labels_are_chronos_formats() {
        let mut starts: Vec<chrono::NaiveDateTime> = [
            "2026-11-28T21:05:09",
            "0999-01-02T03:04:05",
            "0000-01-01T00:00:00",
            "9999-12-31T23:59:59",
            "-0001-12-31T23:59:59",
            "+10000-01-01T00:00:00",
            "+12345-06-07T08:09:59",
        ]
        .iter()
        .map(|d| d.parse().unwrap())
        .collect();
        let leap = chrono::NaiveTime::from_hms_milli_opt(23, 59, 59, 1_500).unwrap();
        starts.push(
            chrono::NaiveDate::from_ymd_opt(2016, 12, 31)
                .unwrap()
                .and_time(leap),
        );
        for t in starts {
            assert_eq!(
                &*Label::start(t, false),
                t.format("%Y-%m-%d %H:%M").to_string()
            );
            assert_eq!(&*Label::start(t, true), t.format(SORTABLE).to_string());
        }
        assert_eq!(undated_label(0, 41), "Match 42");
        assert_eq!(undated_label(7, 41), "Match 7");
        let label = Label(ShortText::new("Match 7"));
        assert_eq!(serde_json::to_string(&label).unwrap(), "\"Match 7\"");
        assert_eq!(label.to_string(), "Match 7");
    }

    /// Curves put matches at their starts when every one is dated, else at their numbers when
    /// these rise, else at their places.
    #[test]
    fn curve_x_is_the_start_the_number_or_the_place() {
        let mut matches: Vec<crate::model::Match> = (1..=3)
            .map(|n| {
                let mut m = crate::testdata::bare_match("ffa", &[]);
                m.number = n * 2;
                m.start = Some(format!("2026-11-2{n}T10:00:00").parse().unwrap());
                m
            })
            .collect();
        let x = |ms: &Vec<crate::model::Match>| CurveX::of(ms.into());
        assert_eq!(x(&matches), CurveX::Start);
        matches[1].start = None;
        assert_eq!(x(&matches), CurveX::Number);
        matches[2].number = 4;
        assert_eq!(x(&matches), CurveX::Position);
        matches.iter_mut().for_each(|m| m.number = 0);
        assert_eq!(x(&matches), CurveX::Position);
        assert_eq!(x(&Vec::new()), CurveX::Position);
    }

    /// The stepped positions are those the filter it replaced kept: each `n` with
    /// `(n + 1) % step == 0`, and the last.
    #[test]
    fn thinned_keeps_what_the_filter_kept() {
        for len in (0..2_000usize).chain([5_999, 6_000, 6_001, 123_457]) {
            let step = len.div_ceil(CURVE_POINTS).max(1);
            let filtered: Vec<usize> = (0..len)
                .filter(|n| (n + 1) % step == 0 || n + 1 == len)
                .collect();
            assert_eq!(thinned(len).collect::<Vec<_>>(), filtered, "len {len}");
        }
    }
}
