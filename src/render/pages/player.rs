//! The player pages (`players/<slug>.html`) and the rows of the players list (`players.html`).

use crate::render::colour::name_html;
use crate::render::helpers::*;
use crate::render::renderer::Renderer;
use crate::render::views::*;
use rayon::prelude::*;

impl Renderer<'_> {
    /// Player `i`'s row in the player tables, its names and links borrowed.
    pub(in crate::render) fn player_row(&self, i: usize) -> PlayerRow<'_> {
        let s = &self.input.stats.players[i];
        let (clan, clan_url) = self.clan_of(i);
        PlayerRow {
            name_html: &self.names_html[i],
            plain: &self.input.roster.players[i].key,
            url: &self.links.players[i],
            rating: &self.rating_texts[i].rating,
            headline: &self.rating_texts[i].headline,
            provisional: self.input.ratings.headline.provisional[i],
            clan,
            clan_url,
            kills: s.kills,
            deaths: s.deaths,
            kd: ratio(s.kills, s.deaths),
            suicides: s.suicides,
            team_kills: s.team_kills,
            captures: s.captures,
            matches: s.matches.len(),
            trend: self.trend(i),
            inactive: !self.input.standing.active[i],
            division: self.division_name(i),
        }
    }

    /// The rows of the ladder's players, in its order (made in parallel: a public server's
    /// ladder has tens of thousands).
    pub(in crate::render) fn player_rows(&self) -> Vec<PlayerRow<'_>> {
        self.ladder
            .par_iter()
            .map(|&i| self.player_row(i))
            .collect()
    }

    pub(in crate::render) fn player_page(&self, i: usize) -> PlayerPage<'_> {
        let identity = &self.input.roster.players[i];
        let s = &self.input.stats.players[i];
        // Stub: the victim, the nemesis, the head-to-head and match tables are made only if
        // the page is rendered (`fill_player_rows`).
        let (opponents_total, rows_stub) = self.player_rows_stub(i);
        // Stub: the weapon, map and award lists are made only if the page is rendered
        // (`fill_player_labels`).
        let labels_stub = self.player_labels_stub(i);
        let st = &self.input.ratings.static_;
        let headline = &self.input.ratings.headline;
        let provisional = headline.provisional[i];
        let (clan, clan_url) = self.clan_of(i);
        let [wins, draws, losses] = self.input.standing.record[i];
        // Stubs: the SVGs are drawn only if the page is rendered (`draw_player_curves`).
        let [curve_svg, headline_curve_svg] = self.player_curve_stubs(i);
        let mut page = PlayerPage {
            // As `name_html` makes it, once for all pages (hidden players have no page).
            name_html: if self.input.hidden[i] {
                name_html(&identity.name).into()
            } else {
                self.names_html[i].as_str().into()
            },
            plain: &identity.key,
            headline: &self.rating_texts[i].headline,
            headline_system: self.headline_system_name(),
            rank: (!provisional && self.input.standing.active[i]).then_some(self.rank[i]),
            division: self.division_name(i),
            last_seen: self.input.standing.last_seen[i]
                .map(iso_date)
                .unwrap_or_default(),
            inactive: !self.input.standing.active[i],
            provisional_missing: provisional.then(|| {
                u64::from(self.input.config.rating.headline.provisional_incidents)
                    .saturating_sub(st.incidents[i])
            }),
            rating: &self.rating_texts[i].rating,
            becker_rank: self.becker_rank[i],
            rank_shard: None,
            rank_id: "",
            ranked: false,
            static_percent: st.value[i].map(static_percent),
            static_outside_percent: st.outside[i].map(static_percent),
            incidents: st.incidents[i],
            clan,
            clan_url,
            aliases: (identity.names_seen.iter())
                .map(|n| match self.input.hidden[i] {
                    // `names_html` holds the name's HTML, as `name_html` makes it.
                    false if *n == identity.name => self.names_html[i].as_str().into(),
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
            ladders: self.ladder_places(i),
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
            seasons: self.player_seasons(i),
            curve_svg,
            headline_curve_svg,
            headline_refitted: self.headline_refitted(),
        };
        self.shard_ranks(i, &mut page);
        page
    }

    /// Player `i`'s keyed `page` made whole for rendering: its curves drawn and its tables
    /// filled in place of their stubs.
    pub(in crate::render) fn complete_player_page<'p>(
        &'p self,
        i: usize,
        page: PlayerPage<'p>,
    ) -> PlayerPage<'p> {
        let mut page = self.draw_player_curves(i, page);
        self.fill_player_rows(i, &mut page);
        self.fill_player_labels(i, &mut page);
        page
    }

    /// Player `i`'s place on each game type and game ladder they are on, when there are
    /// several game types (none otherwise).
    pub(in crate::render) fn ladder_places(&self, i: usize) -> Vec<LadderPlace> {
        let id = i as u32;
        let ladders = self.input.ladders;
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
}
