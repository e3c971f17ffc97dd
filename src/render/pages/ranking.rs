//! The rankings page (`ranking.html`): the static ranking's rows and the explanation.

use crate::render::helpers::*;
use crate::render::markdown;
use crate::render::renderer::Renderer;
use crate::render::views::*;

impl Renderer<'_> {
    pub(in crate::render) fn static_rows(
        &self,
        ids: &[u32],
        value: impl Fn(usize) -> Option<f64>,
    ) -> Vec<StaticRow> {
        ids.iter()
            .filter_map(|&id| {
                let i = id as usize;
                let v = value(i)?;
                let (name_html, url) = self.player_ref(id);
                Some(StaticRow {
                    name_html,
                    url,
                    value: format!("{v:+.3}"),
                    percent: static_percent(v),
                    incidents: self.input.ratings.static_.incidents[i],
                })
            })
            .collect()
    }

    pub(in crate::render) fn ranking_page(&self, core: Vec<StaticRow>) -> RankingPage {
        let st = &self.input.ratings.static_;
        let mut outside: Vec<u32> = (0..st.outside.len() as u32)
            .filter(|i| st.outside[*i as usize].is_some())
            .collect();
        outside.sort_by(|a, b| {
            st.outside[*b as usize]
                .unwrap_or(0.0)
                .total_cmp(&st.outside[*a as usize].unwrap_or(0.0))
                .then(a.cmp(b))
        });
        let headline = crate::evaluate::explain::headline_markdown(
            &self.input.ratings.headline.evaluation,
            &self.input.config.rating,
        );
        let explain = crate::rating::explain::markdown(
            &self.input.config.rating,
            &self.input.ratings.dynamic,
            st,
            self.input.roster.players.len(),
            &headline,
        );
        RankingPage {
            explain_html: markdown::to_html(&explain),
            core,
            outside: self.static_rows(&outside, |i| st.outside[i]),
        }
    }
}
