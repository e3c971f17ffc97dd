//! A player page's weapon, map and award lists, made only for the pages that are rendered.
//! As [`super::lazy_rows`] does for the head-to-head and match tables: the view a page is keyed
//! by leaves the three lists empty and holds, in [`PlayerPage::labels_stub`], the hash of
//! everything they are made from (each weapon's label and frags, each map's name, matches and
//! link, each award's name and count, the matches the map shares are of, and the source of the
//! code that makes them). Equal stubs make equal lists, so an equal key still means an equal
//! page; a page that is rendered gets its lists first ([`fill_player_labels`]), and
//! its stub is cleared (an empty stub is left out of the view, so templates see what they saw
//! before). On a public server's append the 63,000 keyed views encoded to 76 MB (about 1.2 KB
//! each, counted once with a throwaway counter, not by a benchmark); the lists, each entry
//! with its four named fields, were roughly half of each view by their fields.

use std::sync::OnceLock;

use super::helpers::percent;
use super::renderer::Renderer;
use super::views::{LabelCount, PlayerPage};
use crate::hash::StreamHasher;

/// The hash of the code the lists depend on beyond their inputs: this module, the player page
/// that fills them in, the views' `Serialize` (field names), the helpers that format
/// (`percent`) and the renderer's weapon labels and map links. Part of each stub.
fn code() -> u64 {
    static CODE: OnceLock<u64> = OnceLock::new();
    *CODE.get_or_init(|| {
        crate::hash::code_hash(&[
            include_str!("lazy_labels.rs"),
            include_str!("pages/player.rs"),
            include_str!("views.rs"),
            include_str!("helpers.rs"),
            include_str!("renderer.rs"),
        ])
    })
}

/// The stub of player `i`'s weapon, map and award lists: the hash of everything
/// [`fill_player_labels`] makes them from (see the module doc).
pub(super) fn player_labels_stub(r: &Renderer, i: usize) -> String {
    thread_local! {
        // The lists' inputs, in a buffer reused by each page a thread keys, hashed at once
        // (as `lazy_rows` does).
        static INPUTS: std::cell::RefCell<Vec<u8>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    let s = &r.input.stats.players[i];
    let names = &r.input.stats.names;
    let hash = INPUTS.with_borrow_mut(|b| {
        b.clear();
        let number = |b: &mut Vec<u8>, v: u64| b.extend_from_slice(&v.to_le_bytes());
        let text = |b: &mut Vec<u8>, t: &str| {
            number(b, t.len() as u64);
            b.extend_from_slice(t.as_bytes());
        };
        number(b, code());
        number(b, s.matches.len() as u64);
        number(b, s.weapons.values().count() as u64);
        for (w, &c) in s.weapons.iter(names) {
            text(b, &r.weapon(w));
            number(b, u64::from(c));
        }
        number(b, s.maps.values().count() as u64);
        for (m, &c) in s.maps.iter(names) {
            text(b, m);
            text(b, r.map_url(m));
            number(b, u64::from(c));
        }
        number(b, s.awards.values().count() as u64);
        for (a, &c) in s.awards.iter(names) {
            text(b, a);
            number(b, u64::from(c));
        }
        let mut h = StreamHasher::new();
        h.raw(b);
        h.finish()
    });
    crate::hash::tagged_hex("labels:", hash)
}

/// Fills player `i`'s keyed `page` with its weapon (most frags first), map (most matches
/// first) and award lists, and clears its stub, for rendering.
pub(super) fn fill_player_labels<'p>(r: &'p Renderer, i: usize, page: &mut PlayerPage<'p>) {
    let s = &r.input.stats.players[i];
    let names = &r.input.stats.names;
    let total_frags: u32 = s.weapons.values().sum();
    let mut weapons: Vec<LabelCount> = s
        .weapons
        .iter(names)
        .map(|(w, c)| LabelCount {
            name: r.weapon(w),
            count: *c,
            percent: percent(*c, total_frags),
            url: "",
        })
        .collect();
    weapons.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
    let mut maps: Vec<LabelCount> = s
        .maps
        .iter(names)
        .map(|(m, c)| LabelCount {
            name: m.as_str().into(),
            count: *c,
            percent: percent(*c, s.matches.len() as u32),
            url: r.map_url(m),
        })
        .collect();
    maps.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
    let awards = s
        .awards
        .iter(names)
        .map(|(a, c)| LabelCount {
            name: a.as_str().into(),
            count: *c,
            percent: 0,
            url: "",
        })
        .collect();
    page.weapons = weapons;
    page.maps = maps;
    page.awards = awards;
    page.labels_stub.clear();
}
