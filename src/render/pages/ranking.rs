//! The rankings page (`ranking.html`): the static ranking's rows and the explanation.

use crate::render::helpers::*;
use crate::render::markdown;
use crate::render::renderer::Renderer;
use crate::render::views::*;

pub(in crate::render) fn static_rows(
    r: &Renderer,
    ids: &[u32],
    value: impl Fn(usize) -> Option<f64>,
) -> Vec<StaticRow> {
    ids.iter()
        .filter_map(|&id| {
            let i = id as usize;
            if r.input.hidden[i] {
                return None;
            }
            let v = value(i)?;
            let (name_html, url) = r.player_ref(id);
            Some(StaticRow {
                name_html,
                url,
                value: format!("{v:+.3}"),
                percent: static_percent(v),
                incidents: r.input.ratings.static_.incidents[i],
            })
        })
        .collect()
}

/// The ranking page, its explanation of the headline from `evaluation` (every system's).
pub(in crate::render) fn ranking_page(
    r: &Renderer,
    core: Vec<StaticRow>,
    evaluation: &crate::rating::evaluation::Evaluation,
) -> RankingPage {
    let st = &r.input.ratings.static_;
    let mut outside: Vec<u32> = (0..st.outside.len() as u32)
        .filter(|i| st.outside[*i as usize].is_some())
        .collect();
    outside.sort_by(|a, b| {
        st.outside[*b as usize]
            .unwrap_or(0.0)
            .total_cmp(&st.outside[*a as usize].unwrap_or(0.0))
            .then(a.cmp(b))
    });
    let headline =
        crate::rating::evaluation::explain::headline_markdown(evaluation, &r.input.config.rating);
    let explain = crate::rating::explain::markdown(
        &r.input.config.rating,
        &r.input.ratings.dynamic,
        st,
        r.input.roster.players.len(),
        &headline,
    );
    // A public server has tens of thousands outside the core: the page lists the highest
    // (players.json has every value), so that it stays small enough to open.
    let outside_total = outside.len();
    outside.truncate(crate::render::views::OUTSIDE_SHOWN);
    RankingPage {
        explain_html: markdown::to_html(&explain),
        core,
        outside: static_rows(r, &outside, |i| st.outside[i]),
        outside_total,
    }
}
