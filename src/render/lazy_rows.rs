//! A player page's head-to-head and match tables (and its victim and nemesis), made only for
//! the pages that are rendered.
//! Every player's page is keyed on each build ([`super::render_completed_pages`]), and on an
//! append almost every key is unchanged; making and encoding these rows (an opponent's coloured
//! name and link, a match's labels, the rating formatted, each field named) was most of the
//! work of keying a crowd's player pages. So the view a page is keyed by leaves both tables
//! empty and holds, in [`PlayerPage::rows_stub`], the hash of everything they are made from:
//! the numbers of each row (victim and nemesis, frags; opponent, frags both ways; match,
//! place, frags, deaths, score, rating after and change, to the bit), every text a row borrows
//! (names, links, match labels: through a digest per player and per match, [`RowTexts`]), and
//! the source of the code that makes and encodes the rows. Equal stubs make equal rows, so
//! an equal key still means an equal page; a page that is rendered gets its rows first
//! ([`fill_player_rows`]), and its stub is cleared (an empty stub is left out of the
//! view, so templates see what they saw before).
//!
//! As in [`super::lazy_curves`], a fragstats that makes the rows differently never keeps a page
//! an older one made: the code's source is part of each stub.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::decimal;
use super::helpers::{PLAYER_MATCH_ROWS, change_class, percent};
use super::player_tables::{self, ROOT};
use super::renderer::Renderer;
use super::views::{
    HEAD_TO_HEAD_ROWS, NamedCount, Opponent, PlayerMatchRow, PlayerPage, TableRows,
};
use crate::hash::StreamHasher;

/// An opponent before it is named: identity, frags made on them, frags suffered from them.
type Met = (u32, u32, u32);

/// One row of a player's match table before its texts: the match (index), the player's place
/// in its lines, their frags, deaths and score there, and their rating after it and the
/// change it brought.
struct Played {
    mi: usize,
    place: usize,
    frags: u32,
    deaths: u32,
    score: Option<i32>,
    after: f64,
    delta: f64,
}

/// The digest of the texts a row borrows, for each player (coloured name, link) and each match
/// a page lists (link, labels, map, map link, game type): made once per build, so a stub reads
/// one number per row where it read the texts, scattered in memory, of every opponent and match
/// again on every page. With them, those matches' lines as a match row reads them, side by
/// side. Only the listed matches: a digest of every match grew with the history (12 bytes a
/// match, issue 41).
#[derive(Default)]
pub(super) struct RowTexts {
    players: Vec<u64>,
    /// Each listed match's digest, in the order of [`MatchLines::listed`].
    matches: Vec<u64>,
    lines: MatchLines,
}

/// What a player's match row reads of the lines (`stats.matches[mi].lines`) of the matches a
/// player page lists (each player's [`PLAYER_MATCH_ROWS`] latest), copied once per build into
/// two flat arrays: finding a player's line in each of their latest matches read the whole
/// line records of each (scattered, several times larger) on every page, which was the most
/// costly part of keying a crowd's player pages. Only those matches: a copy of every match's
/// lines would grow with the history.
#[derive(Default)]
struct MatchLines {
    /// The listed matches (indices into the history), in order.
    listed: Vec<u32>,
    /// Where each listed match's lines start in `players` and `numbers` (one more entry at
    /// the end).
    starts: Vec<u32>,
    /// Each line's identity number, match after match, in each match's order of lines.
    players: Vec<u32>,
    /// Each line's frags, deaths and score, in the same order.
    numbers: Vec<(u32, u32, Option<i32>)>,
}

impl MatchLines {
    /// The lines of the matches `listed` (indices into `matches`, in order), copied in one
    /// pass (no parallel loop: see [`row_texts`]).
    fn new(matches: &[crate::stats::MatchStats], listed: Vec<u32>) -> MatchLines {
        let copied = || listed.iter().filter_map(|&mi| matches.get(mi as usize));
        let count = copied().map(|m| m.lines.len()).sum();
        let mut lines = MatchLines {
            starts: Vec::with_capacity(listed.len() + 1),
            players: Vec::with_capacity(count),
            numbers: Vec::with_capacity(count),
            listed: Vec::new(),
        };
        let at = |lines: &MatchLines| {
            u32::try_from(lines.players.len()).expect("at most 4 billion lines listed")
        };
        for m in copied() {
            lines.starts.push(at(&lines));
            for l in &m.lines {
                lines.players.push(l.player);
                lines.numbers.push((l.frags, l.deaths, l.score));
            }
        }
        lines.starts.push(at(&lines));
        lines.listed = listed;
        lines
    }

    /// Where match `mi` is among the listed matches.
    ///
    /// # Panics
    /// When it is not listed.
    fn slot(&self, mi: usize) -> usize {
        let found = u32::try_from(mi)
            .ok()
            .map(|mi| self.listed.binary_search(&mi));
        match found {
            Some(Ok(k)) => k,
            _ => panic!("match {mi} is not listed on a player page"),
        }
    }

    /// The place (index) of player `id`'s line in match `mi` (0 when they have none there),
    /// and the frags, deaths and score of the line at that place (none when there is none);
    /// `mi` must be a listed match.
    fn find(&self, mi: usize, id: u32) -> (usize, (u32, u32, Option<i32>)) {
        let k = self.slot(mi);
        let (start, end) = (self.starts[k] as usize, self.starts[k + 1] as usize);
        let place = (self.players[start..end].iter())
            .position(|&p| p == id)
            .unwrap_or(0);
        let numbers = self.numbers[start..end].get(place).copied();
        (place, numbers.unwrap_or_default())
    }
}

/// The hash of `texts`, each length-prefixed.
fn digest(texts: &[&str]) -> u64 {
    let mut h = StreamHasher::new();
    for t in texts {
        h.str(t);
    }
    h.finish()
}

/// The hash of the code the rows depend on beyond their inputs: this module, the views'
/// `Serialize` (field names), the helpers that format (`percent`, `change_class`), the
/// renderer's match labels and the rows' markup ([`player_tables`]). Part of each stub.
fn code() -> u64 {
    static CODE: OnceLock<u64> = OnceLock::new();
    *CODE.get_or_init(|| {
        crate::hash::code_hash(&[
            include_str!("lazy_rows.rs"),
            include_str!("views.rs"),
            include_str!("helpers.rs"),
            include_str!("renderer.rs"),
            include_str!("player_tables.rs"),
            include_str!("decimal.rs"),
        ])
    })
}

/// The [`RowTexts`] of this build, made on first use (one pass, on the thread that asks
/// first: a nested parallel loop could wait on a page that waits for it).
fn row_texts<'s>(r: &'s Renderer<'_>) -> &'s RowTexts {
    r.row_texts.get_or_init(|| {
        let lines = MatchLines::new(&r.input.stats.matches, listed_matches(r));
        RowTexts {
            players: (r.names_html.iter().zip(&r.links.players))
                .map(|(name, url)| digest(&[name, url]))
                .collect(),
            matches: (lines.listed.iter())
                .map(|&mi| {
                    let mi = mi as usize;
                    let m = r.input.matches.head(mi);
                    digest(&[
                        &crate::render::match_url(&m.id),
                        &r.when(mi),
                        &r.when_sort(mi),
                        m.map,
                        r.match_map_url(mi),
                        &m.gametype.name,
                    ])
                })
                .collect(),
            lines,
        }
    })
}

/// The matches among some player's [`PLAYER_MATCH_ROWS`] latest (listed on a page), in order:
/// marked in a flag a match first (a list of every player's rows before their copies are
/// removed grows with the players times the rows).
fn listed_matches(r: &Renderer) -> Vec<u32> {
    let mut listed = vec![false; r.input.stats.matches.len()];
    for s in &r.input.stats.players {
        for mi in s.matches.iter().rev().take(PLAYER_MATCH_ROWS) {
            if let Some(l) = listed.get_mut(mi as usize) {
                *l = true;
            }
        }
    }
    (listed.iter().enumerate())
        .filter(|(_, l)| **l)
        .filter_map(|(mi, _)| u32::try_from(mi).ok())
        .collect()
}

/// Player `i`'s [`HEAD_TO_HEAD_ROWS`] opponents met most (frags made plus suffered; ties
/// to the lower identity), in that order, and how many opponents they have in all. Hidden
/// opponents are counted and listed (as "anonymous").
fn opponents_met(r: &Renderer, i: usize) -> (Vec<Met>, usize) {
    let s = &r.input.stats.players[i];
    let mut opponents = met(&s.victims, &s.killers);
    let total = opponents.len();
    let most_met = |a: &Met, b: &Met| (b.1 + b.2).cmp(&(a.1 + a.2)).then(a.0.cmp(&b.0));
    if opponents.len() > HEAD_TO_HEAD_ROWS {
        opponents.select_nth_unstable_by(HEAD_TO_HEAD_ROWS, most_met);
        opponents.truncate(HEAD_TO_HEAD_ROWS);
    }
    opponents.sort_by(most_met);
    (opponents, total)
}

/// Player `i`'s [`PLAYER_MATCH_ROWS`] latest matches, newest first.
fn matches_played(r: &Renderer, i: usize) -> Vec<Played> {
    let id = i as u32;
    let s = &r.input.stats.players[i];
    let lines = &row_texts(r).lines;
    s.matches
        .iter()
        .rev()
        .take(PLAYER_MATCH_ROWS)
        .map(|mi| {
            let (place, (frags, deaths, score)) = lines.find(mi as usize, id);
            let (after, delta) = r.rating_at(i, mi).unwrap_or((0.0, 0.0));
            Played {
                mi: mi as usize,
                place,
                frags,
                deaths,
                score,
                after,
                delta,
            }
        })
        .collect()
}

/// The number of player `i`'s opponents, and the stub of their page's two tables: the
/// hash of everything [`fill_player_rows`] makes them from (see the module doc).
pub(super) fn player_rows_stub(r: &Renderer, i: usize) -> (usize, String) {
    thread_local! {
        // The rows' inputs, in a buffer reused by each page a thread keys, hashed at once:
        // fed a few bytes at a time, the hasher cost more than all the rest.
        static INPUTS: std::cell::RefCell<Vec<u8>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    let (met, total) = opponents_met(r, i);
    let played = matches_played(r, i);
    let texts = row_texts(r);
    let s = &r.input.stats.players[i];
    let hash = INPUTS.with_borrow_mut(|b| {
        b.clear();
        let number = |b: &mut Vec<u8>, v: u64| b.extend_from_slice(&v.to_le_bytes());
        number(b, code());
        for top in [top(&s.victims), top(&s.killers)] {
            match top {
                Some((o, count)) => {
                    number(b, 1);
                    number(b, texts.players[o as usize]);
                    number(b, u64::from(count));
                }
                None => number(b, 0),
            }
        }
        number(b, met.len() as u64);
        for &(o, made, suffered) in &met {
            number(b, texts.players[o as usize]);
            number(b, u64::from(made));
            number(b, u64::from(suffered));
        }
        number(b, played.len() as u64);
        for p in &played {
            number(b, texts.matches[texts.lines.slot(p.mi)]);
            number(b, p.place as u64);
            number(b, u64::from(p.frags));
            number(b, u64::from(p.deaths));
            match p.score {
                Some(score) => number(b, 1 << 32 | u64::from(score as u32)),
                None => number(b, 0),
            }
            number(b, p.after.to_bits());
            number(b, p.delta.to_bits());
        }
        let mut h = StreamHasher::new();
        h.raw(b);
        h.finish()
    });
    (total, crate::hash::tagged_hex("rows:", hash))
}

/// Fills player `i`'s keyed `page` with its head-to-head and match tables, and clears its
/// stub, for rendering.
pub(super) fn fill_player_rows<'p>(r: &'p Renderer, i: usize, page: &mut PlayerPage<'p>) {
    let s = &r.input.stats.players[i];
    let named = |(other, count): (u32, u32)| {
        let (name_html, url) = r.player_ref(other);
        NamedCount {
            name_html,
            url,
            count,
        }
    };
    page.victim = top(&s.victims).map(named);
    page.nemesis = top(&s.killers).map(named);
    let (met, _) = opponents_met(r, i);
    let opponents: Vec<Opponent> = met
        .into_iter()
        .map(|(o, made, suffered)| {
            let o = o as usize;
            Opponent {
                name_html: &r.names_html[o],
                url: &r.links.players[o],
                made,
                suffered,
                share: percent(made, made + suffered),
            }
        })
        .collect();
    let match_rows: Vec<PlayerMatchRow> = matches_played(r, i)
        .into_iter()
        .map(|p| {
            let m = r.input.matches.head(p.mi);
            PlayerMatchRow {
                rating: decimal::fixed(p.after, 1),
                change: decimal::signed(p.delta, 1),
                change_class: change_class(p.delta),
                url: crate::render::match_url(&m.id),
                when: r.when(p.mi).to_string(),
                when_sort: r.when_sort(p.mi).to_string(),
                map: m.map.clone(),
                map_url: r.match_map_url(p.mi),
                gametype: m.gametype.name.clone(),
                place: p.place + 1,
                frags: p.frags,
                deaths: p.deaths,
                score: p.score.map(|s| s.to_string()).unwrap_or_else(|| "-".into()),
            }
        })
        .collect();
    if r.own_player_template {
        page.opponents = TableRows::Full(opponents);
        page.match_rows = TableRows::Full(match_rows);
    } else {
        // The built-in template prints the markup and only counts the rows.
        page.opponents_html = Some(player_tables::opponents_html(&opponents, ROOT));
        page.match_rows_html = Some(player_tables::matches_html(&match_rows, ROOT));
        page.opponents = TableRows::Counted(opponents.len());
        page.match_rows = TableRows::Counted(match_rows.len());
    }
    page.rows_stub.clear();
}

/// The player met most in `counts` (frags made on them, or suffered from them) and the count;
/// ties to the lower identity number (byte order of the name).
fn top(counts: &BTreeMap<u32, u32>) -> Option<(u32, u32)> {
    counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(&o, &count)| (o, count))
}

/// Every opponent of a player, in identity order, from the frags they made on each (`victims`)
/// and suffered from each (`killers`): the two maps walked side by side.
fn met(victims: &BTreeMap<u32, u32>, killers: &BTreeMap<u32, u32>) -> Vec<Met> {
    let mut opponents: Vec<Met> = Vec::with_capacity(victims.len().max(killers.len()));
    let mut victims = victims.iter().peekable();
    let mut killers = killers.iter().peekable();
    loop {
        let met = match (victims.peek(), killers.peek()) {
            (Some(&(&v, &made)), Some(&(&k, &suffered))) => match v.cmp(&k) {
                std::cmp::Ordering::Less => {
                    victims.next();
                    (v, made, 0)
                }
                std::cmp::Ordering::Greater => {
                    killers.next();
                    (k, 0, suffered)
                }
                std::cmp::Ordering::Equal => {
                    victims.next();
                    killers.next();
                    (v, made, suffered)
                }
            },
            (Some(&(&v, &made)), None) => {
                victims.next();
                (v, made, 0)
            }
            (None, Some(&(&k, &suffered))) => {
                killers.next();
                (k, 0, suffered)
            }
            (None, None) => break,
        };
        opponents.push(met);
    }
    opponents
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flat copy finds each player's place and numbers as a scan of the match's own lines
    /// does; a player without a line gets place 0 and the first line's numbers, and a match
    /// without lines none.
    #[test]
    fn match_lines_find_what_the_lines_hold() {
        let line = |player, frags, deaths, score| crate::stats::MatchLine {
            player,
            frags,
            deaths,
            score,
            ..Default::default()
        };
        let matches = vec![
            crate::stats::MatchStats {
                lines: vec![line(7, 3, 1, Some(-2)), line(2, 1, 4, None)].into(),
            },
            crate::stats::MatchStats::default(),
            crate::stats::MatchStats {
                lines: vec![line(2, 9, 0, Some(30)), line(5, 0, 9, Some(0))].into(),
            },
        ];
        let lines = MatchLines::new(&matches, vec![0, 1, 2]);
        for (mi, m) in matches.iter().enumerate() {
            for id in [2, 5, 7, 8] {
                let place = m.lines.iter().position(|l| l.player == id).unwrap_or(0);
                let numbers = m.lines.get(place).map(|l| (l.frags, l.deaths, l.score));
                assert_eq!(
                    lines.find(mi, id),
                    (place, numbers.unwrap_or_default()),
                    "match {mi}, player {id}"
                );
            }
        }
        assert_eq!(lines.find(2, 5), (1, (0, 9, Some(0))));
        assert_eq!(lines.find(0, 8), (0, (3, 1, Some(-2))));
        // A match no page lists is not copied; the others are found as before.
        let lines = MatchLines::new(&matches, vec![1, 2]);
        assert_eq!(lines.players.len(), 2);
        assert_eq!(lines.find(2, 5), (1, (0, 9, Some(0))));
        assert_eq!(lines.find(2, 2), (0, (9, 0, Some(30))));
    }

    /// The side-by-side walk finds what looking each victim up among the killers, then adding
    /// the killers never fragged, finds: every opponent once, with both counts.
    #[test]
    fn met_lists_every_opponent_once_with_both_counts() {
        let maps = |pairs: &[(u32, u32)]| pairs.iter().copied().collect::<BTreeMap<u32, u32>>();
        let cases = [
            (maps(&[]), maps(&[])),
            (maps(&[(3, 1)]), maps(&[])),
            (maps(&[]), maps(&[(3, 2)])),
            (
                maps(&[(1, 4), (5, 1), (9, 2)]),
                maps(&[(0, 1), (5, 3), (7, 1), (9, 9), (12, 2)]),
            ),
            (maps(&[(2, 1), (4, 1)]), maps(&[(2, 5), (4, 6)])),
        ];
        for (victims, killers) in cases {
            let mut expected: Vec<Met> = Vec::new();
            for (&o, &made) in &victims {
                expected.push((o, made, killers.get(&o).copied().unwrap_or(0)));
            }
            for (&o, &suffered) in &killers {
                if !victims.contains_key(&o) {
                    expected.push((o, 0, suffered));
                }
            }
            expected.sort();
            assert_eq!(met(&victims, &killers), expected, "{victims:?} {killers:?}");
        }
    }
}
