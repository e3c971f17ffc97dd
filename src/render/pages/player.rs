//! The player pages (`players/<slug>.html`) and the rows of the players list (`players.html`).

use crate::render::colour::name_html;
use crate::render::helpers::*;
use crate::render::lazy_curves;
use crate::render::lazy_labels;
use crate::render::lazy_rows;
use crate::render::pages::season;
use crate::render::rank_shards;
use crate::render::renderer::Renderer;
use crate::render::views::*;
use rayon::prelude::*;

/// Player `i`'s row in the player tables, its names and links borrowed.
pub(in crate::render) fn player_row<'s>(r: &'s Renderer<'_>, i: usize) -> PlayerRow<'s> {
    let s = &r.input.stats.players[i];
    let (clan, clan_url) = r.clan_of(i);
    PlayerRow {
        name_html: &r.names_html[i],
        plain: &r.input.roster.players[i].key,
        url: &r.links.players[i],
        rating: &r.rating_texts[i].rating,
        headline: &r.rating_texts[i].headline,
        provisional: r.input.ratings.headline.provisional[i],
        clan,
        clan_url,
        kills: s.kills,
        deaths: s.deaths,
        kd: ratio(s.kills, s.deaths),
        suicides: s.suicides,
        team_kills: s.team_kills,
        captures: s.captures,
        matches: s.matches.len(),
        trend: r.trend(i),
        inactive: !r.input.standing.active[i],
        division: r.division_name(i),
    }
}

/// The rows of the ladder's players, in its order (made in parallel: a public server's
/// ladder has tens of thousands).
pub(in crate::render) fn player_rows<'s>(r: &'s Renderer<'_>) -> Vec<PlayerRow<'s>> {
    r.ladder.par_iter().map(|&i| player_row(r, i)).collect()
}

pub(in crate::render) fn player_page<'s>(r: &'s Renderer<'_>, i: usize) -> PlayerPage<'s> {
    let identity = &r.input.roster.players[i];
    let s = &r.input.stats.players[i];
    // Stub: the victim, the nemesis, the head-to-head and match tables are made only if
    // the page is rendered (`fill_player_rows`).
    let (opponents_total, rows_stub) = lazy_rows::player_rows_stub(r, i);
    // Stub: the weapon, map and award lists are made only if the page is rendered
    // (`fill_player_labels`).
    let labels_stub = lazy_labels::player_labels_stub(r, i);
    let st = &r.input.ratings.static_;
    let headline = &r.input.ratings.headline;
    let provisional = headline.provisional[i];
    let (clan, clan_url) = r.clan_of(i);
    let [wins, draws, losses] = r.input.standing.record[i];
    // Stubs: the SVGs are drawn only if the page is rendered (`draw_player_curves`).
    let [curve_svg, headline_curve_svg] = lazy_curves::player_curve_stubs(r, i);
    let mut page = PlayerPage {
        // As `name_html` makes it, once for all pages (hidden players have no page).
        name_html: if r.input.hidden[i] {
            name_html(&identity.name).into()
        } else {
            r.names_html[i].as_str().into()
        },
        plain: &identity.key,
        headline: &r.rating_texts[i].headline,
        headline_system: r.headline_system_name(),
        rank: (!provisional && r.input.standing.active[i]).then_some(r.rank[i]),
        division: r.division_name(i),
        last_seen: r.input.standing.last_seen[i]
            .map(iso_date)
            .unwrap_or_default(),
        inactive: !r.input.standing.active[i],
        provisional_missing: provisional.then(|| {
            u64::from(r.input.config.rating.headline.provisional_incidents)
                .saturating_sub(st.incidents[i])
        }),
        rating: &r.rating_texts[i].rating,
        becker_rank: r.becker_rank[i],
        rank_shard: None,
        rank_id: "",
        ranked: false,
        static_percent: st.value[i].map(static_percent),
        static_outside_percent: st.outside[i].map(static_percent),
        incidents: st.incidents[i],
        clan,
        clan_url,
        aliases: (identity.names_seen.iter())
            .map(|n| match r.input.hidden[i] {
                // `names_html` holds the name's HTML, as `name_html` makes it.
                false if *n == identity.name => r.names_html[i].as_str().into(),
                _ => name_html(n).into(),
            })
            .collect(),
        kills: s.kills,
        deaths: s.deaths,
        kd: ratio(s.kills, s.deaths),
        suicides: s.suicides,
        team_kills: s.team_kills,
        captures: s.captures,
        headshots: s.headshots,
        assists: s.assists,
        objectives: s.objectives,
        matches: s.matches.len(),
        wins,
        draws,
        losses,
        results: wins + draws + losses,
        ladders: ladder_places(r, i),
        victim: None,
        nemesis: None,
        weapons: Vec::new(),
        maps: Vec::new(),
        awards: Vec::new(),
        labels_stub,
        opponents: TableRows::default(),
        opponents_total,
        match_rows: TableRows::default(),
        opponents_html: None,
        match_rows_html: None,
        rows_stub,
        seasons: season::player_seasons(r, i),
        curve_svg,
        headline_curve_svg,
        headline_refitted: r.headline_refitted(),
        heat: crate::render::heatmap::player_view(r, i),
    };
    rank_shards::shard_ranks(r, i, &mut page);
    page
}

/// Player `i`'s keyed `page` made whole for rendering: its curves drawn and its tables
/// filled in place of their stubs.
pub(in crate::render) fn complete_player_page<'p>(
    r: &'p Renderer,
    i: usize,
    page: PlayerPage<'p>,
) -> PlayerPage<'p> {
    let mut page = lazy_curves::draw_player_curves(r, i, page);
    lazy_rows::fill_player_rows(r, i, &mut page);
    lazy_labels::fill_player_labels(r, i, &mut page);
    page
}

/// Player `i`'s place on each game type and game ladder they are on, when there are
/// several game types (none otherwise).
pub(in crate::render) fn ladder_places(r: &Renderer, i: usize) -> Vec<LadderPlace> {
    let id = i as u32;
    let ladders = r.input.ladders;
    let several = ladders
        .iter()
        .filter(|l| l.group.kind == crate::standings::ladders::LadderKind::GameType)
        .count()
        > 1;
    if !several {
        return Vec::new();
    }
    ladders
        .iter()
        .zip(super::ladders::anchors(ladders))
        .filter_map(|(l, anchor)| {
            let e = &l.entries[*l.position.get(&id)? as usize];
            Some(LadderPlace {
                name: l.group.name.clone(),
                url: format!("ladders.html#{anchor}"),
                rank: e.rank,
                rating: crate::render::decimal::fixed(e.rating, 0),
                matches: e.matches,
            })
        })
        .collect()
}
