//! The clan pages (`clans/<slug>.html`) and the rows of the clans list (`clans.html`).

use crate::render::helpers::*;
use crate::render::renderer::Renderer;
use crate::render::views::*;

impl Renderer<'_> {
    pub(in crate::render) fn clan_rows(&self) -> Vec<ClanRow> {
        let clans = &self.input.clans.clans;
        let g = &self.input.ratings.dynamic.clans;
        let mut order: Vec<usize> = (0..clans.len()).collect();
        order.sort_by(|&a, &b| g[b].total_cmp(&g[a]).then(a.cmp(&b)));
        order
            .into_iter()
            .map(|c| ClanRow {
                name: clans[c].name.clone(),
                url: self.links.clans[c].clone(),
                rating: format!("{:.1}", g[c]),
                members: clans[c].members.len(),
                declared: clans[c].declared,
            })
            .collect()
    }

    pub(in crate::render) fn clan_page(&self, c: usize) -> ClanPage {
        let clan = &self.input.clans.clans[c];
        let g = &self.input.ratings.dynamic.players;
        let mut members = clan.members.clone();
        members.sort_by(|a, b| g[*b as usize].total_cmp(&g[*a as usize]).then(a.cmp(b)));
        let of_player = &self.input.clans.of_player;
        let mut versus: Vec<(u32, u32)> = vec![(0, 0); self.input.clans.clans.len()];
        let mut played: std::collections::BTreeSet<u32> = std::collections::BTreeSet::new();
        for &m in &clan.members {
            let s = &self.input.stats.players[m as usize];
            played.extend(s.matches.iter().copied());
            for (v, n) in &s.victims {
                if let Some(oc) = of_player[*v as usize].filter(|oc| *oc as usize != c) {
                    versus[oc as usize].0 += n;
                }
            }
            for (k, n) in &s.killers {
                if let Some(oc) = of_player[*k as usize].filter(|oc| *oc as usize != c) {
                    versus[oc as usize].1 += n;
                }
            }
        }
        let versus = versus
            .iter()
            .enumerate()
            .filter(|(_, (a, b))| a + b > 0)
            .map(|(oc, (made, suffered))| ClanVersus {
                name: self.input.clans.clans[oc].name.clone(),
                url: self.links.clans[oc].clone(),
                made: *made,
                suffered: *suffered,
                share: percent(*made, made + suffered),
            })
            .collect();
        ClanPage {
            name: clan.name.clone(),
            rating: format!("{:.1}", self.input.ratings.dynamic.clans[c]),
            declared: clan.declared,
            members: members
                .iter()
                .map(|m| self.player_row(*m as usize))
                .collect(),
            curve_svg: self.curve(self.input.roster.players.len() + c, &clan.name),
            versus,
            match_rows: played
                .iter()
                .rev()
                .take(MAP_MATCH_ROWS)
                .map(|&mi| self.match_row(mi as usize))
                .collect(),
        }
    }
}
