//! The map pages (`maps/<slug>.html`) and the rows of the maps list (`maps.html`).

use crate::render::helpers::*;
use crate::render::pages::match_page;
use crate::render::renderer::Renderer;
use crate::render::views::*;

pub(in crate::render) fn map_row(r: &Renderer, i: usize) -> MapRow {
    let m = &r.input.stats.maps[i];
    MapRow {
        name: m.name.clone(),
        url: r.map_url(&m.name).to_string(),
        matches: m.matches.len(),
        frags: m.frags,
        frags_per_minute: if m.seconds == 0 {
            "-".into()
        } else {
            format!("{:.1}", f64::from(m.frags) * 60.0 / m.seconds as f64)
        },
        players: m.players.len(),
    }
}

pub(in crate::render) fn map_rows(r: &Renderer) -> Vec<MapRow> {
    (0..r.input.stats.maps.len())
        .map(|i| map_row(r, i))
        .collect()
}

pub(in crate::render) fn map_page<'s>(r: &'s Renderer<'_>, i: usize) -> MapPage<'s> {
    let m = &r.input.stats.maps[i];
    let row = &map_row(r, i);
    let (mut red_wins, mut blue_wins, mut draws) = (0, 0, 0);
    for mi in m.matches.iter() {
        if let Some([red, blue]) = r.input.matches.head(mi as usize).final_team_scores() {
            match red.cmp(&blue) {
                std::cmp::Ordering::Greater => red_wins += 1,
                std::cmp::Ordering::Less => blue_wins += 1,
                std::cmp::Ordering::Equal => draws += 1,
            }
        }
    }
    // Labels are made once per raw weapon name, not per frag.
    let mut weapon_frags: std::collections::BTreeMap<String, u32> = Default::default();
    for (raw, n) in &m.weapons {
        *weapon_frags.entry(weapon_label(raw)).or_default() += n;
    }
    let mut weapons: Vec<LabelCount> = weapon_frags
        .into_iter()
        .map(|(name, count)| LabelCount {
            name: name.into(),
            count,
            percent: percent(count, m.frags),
            url: "",
        })
        .collect();
    weapons.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
    let mut top: Vec<(&u32, &u32)> = m.frags_by_player.iter().collect();
    top.retain(|(p, _)| !r.input.hidden[**p as usize]);
    top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    MapPage {
        name: m.name.clone(),
        matches: row.matches,
        frags: row.frags,
        frags_per_minute: row.frags_per_minute.clone(),
        players: row.players,
        top: top
            .into_iter()
            .take(10)
            .map(|(p, c)| {
                let (name_html, url) = r.player_ref(*p);
                NamedCount {
                    name_html,
                    url,
                    count: *c,
                }
            })
            .collect(),
        match_rows: m
            .matches
            .iter()
            .rev()
            .take(MAP_MATCH_ROWS)
            .map(|mi| match_page::match_row(r, mi as usize))
            .collect(),
        weapons,
        red_wins,
        blue_wins,
        draws,
        red_percent: percent(red_wins, red_wins + blue_wins),
        heat: crate::render::heatmap::map_view(r, i),
    }
}
