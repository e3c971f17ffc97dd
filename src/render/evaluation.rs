//! The body of `evaluation.html`: the comparison of every rating system (Markdown from
//! [`crate::rating::evaluation::explain`]) and the reliability diagram of the team predictions between
//! its words and its tables. Numbers only: no player names.

use super::charts::{self, ReliabilitySeries};
use super::markdown;
use crate::rating::evaluation::Evaluation;
use crate::rating::evaluation::explain::{
    calibration_markdown, calibration_rival, evaluation_markdown,
};

/// The page body as HTML.
pub fn evaluation_html(e: &Evaluation) -> String {
    let mut html = markdown::to_html(&evaluation_markdown(e));
    let (intro, tables) = calibration_markdown(e);
    if intro.is_empty() {
        return html;
    }
    let series = |r: &crate::rating::evaluation::SystemReport| ReliabilitySeries {
        label: r.system.clone(),
        bins: r
            .team_reliability
            .bins
            .iter()
            .map(|b| (b.predicted, b.observed, b.matches))
            .collect(),
    };
    let mut shown: Vec<ReliabilitySeries> =
        e.report(&e.team_model).map(series).into_iter().collect();
    shown.extend(calibration_rival(e).map(series));
    html.push_str(&markdown::to_html(&intro));
    let svg = charts::reliability_chart(
        "Reliability of the team predictions: predicted P(red wins) against red's observed win rate",
        "predicted P(red wins)",
        "red won",
        &shown,
    );
    html.push_str("<figure class=\"reliability\">");
    html.push_str(&svg);
    html.push_str("</figure>\n");
    html.push_str(&markdown::to_html(&tables));
    html
}
