//! The clan pages (`clans/<slug>.html`) and the rows of the clans list (`clans.html`).

use crate::rating::curve_point::CurvePoint;
use crate::render::helpers::*;
use crate::render::pages::match_page;
use crate::render::pages::player;
use crate::render::renderer::Renderer;
use crate::render::views::*;

pub(in crate::render) fn clan_rows(r: &Renderer) -> Vec<ClanRow> {
    let clans = &r.input.clans.clans;
    let g = &r.input.ratings.dynamic.clans;
    // Becker's clan ladder order, ranked once in the renderer.
    let mut order: Vec<usize> = (0..clans.len()).collect();
    order.sort_by_key(|&c| r.clan_rank[c]);
    order
        .into_iter()
        .map(|c| ClanRow {
            name: clans[c].name.clone(),
            url: r.links.clans[c].clone(),
            rating: format!("{:.1}", g[c]),
            members: clans[c].members.len(),
            declared: clans[c].declared,
        })
        .collect()
}

pub(in crate::render) fn clan_page<'s>(r: &'s Renderer<'_>, c: usize) -> ClanPage<'s> {
    let clan = &r.input.clans.clans[c];
    let headline = &r.input.ratings.headline;
    let mut members: Vec<u32> = clan
        .members
        .iter()
        .copied()
        .filter(|&m| !r.input.hidden[m as usize])
        .collect();
    // As the ladder: ranked members first, then by the headline rating.
    members.sort_by(|&a, &b| {
        let (a, b) = (a as usize, b as usize);
        headline.provisional[a]
            .cmp(&headline.provisional[b])
            .then(headline.value[b].total_cmp(&headline.value[a]))
            .then(a.cmp(&b))
    });
    let mean_headline = (!members.is_empty()).then(|| {
        members
            .iter()
            .map(|&m| headline.value[m as usize])
            .sum::<f64>()
            / members.len() as f64
    });
    let of_player = &r.input.clans.of_player;
    let mut versus: Vec<(u32, u32)> = vec![(0, 0); r.input.clans.clans.len()];
    let mut played: std::collections::BTreeSet<u32> = std::collections::BTreeSet::new();
    for &m in &clan.members {
        let s = &r.input.stats.players[m as usize];
        played.extend(s.matches.iter());
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
            name: r.input.clans.clans[oc].name.clone(),
            url: r.links.clans[oc].clone(),
            made: *made,
            suffered: *suffered,
            share: percent(*made, made + suffered),
        })
        .collect();
    ClanPage {
        name: clan.name.clone(),
        headline: mean_headline.map(|v| format!("{v:.0}")),
        headline_system: r.headline_system_name().to_string(),
        headline_curve_svg: r.curve_of(
            &(mean_curve(|m| headline.curve(m), &members).into_iter())
                .map(|(n, mean)| CurvePoint::new(n, mean))
                .collect::<Vec<_>>(),
            &clan.name,
            &format!(
                "Mean headline rating of {}'s members after each match",
                clan.name
            ),
        ),
        headline_refitted: r.headline_refitted(),
        rating: format!("{:.1}", r.input.ratings.dynamic.clans[c]),
        becker_rank: r.clan_rank[c],
        declared: clan.declared,
        members: members
            .iter()
            .map(|m| player::player_row(r, *m as usize))
            .collect(),
        curve_svg: r.curve(r.input.roster.players.len() + c, &clan.name),
        versus,
        match_rows: played
            .iter()
            .rev()
            .take(MAP_MATCH_ROWS)
            .map(|&mi| match_page::match_row(r, mi as usize))
            .collect(),
    }
}

/// The mean headline rating of `members` after each match any of them played: each member
/// counts from their first match on, with their latest point (so the final refit of the last
/// points ends the curve at the mean of the published ratings). Empty when the headline has
/// no curves (Becker's ladder, drawn apart).
fn mean_curve<I: Iterator<Item = (u32, f64)>>(
    curve: impl Fn(usize) -> I,
    members: &[u32],
) -> Vec<(u32, f64)> {
    let mut points: Vec<(u32, usize, f64)> = members
        .iter()
        .enumerate()
        .flat_map(|(k, &m)| curve(m as usize).map(move |(n, r)| (n, k, r)))
        .collect();
    // Stable: a member's final point stays after their online point of the same match.
    points.sort_by_key(|&(n, _, _)| n);
    let mut latest: Vec<Option<f64>> = vec![None; members.len()];
    let (mut sum, mut count) = (0.0, 0usize);
    let mut curve: Vec<(u32, f64)> = Vec::new();
    for (n, k, r) in points {
        match latest[k].replace(r) {
            Some(old) => sum += r - old,
            None => {
                sum += r;
                count += 1;
            }
        }
        let mean = sum / count as f64;
        match curve.last_mut() {
            Some(last) if last.0 == n => last.1 = mean,
            _ => curve.push((n, mean)),
        }
    }
    curve
}

#[cfg(test)]
mod tests {
    use super::mean_curve;

    /// Hand-worked: A plays matches 1 and 3 (refitted to 1530 at 3), B plays match 2 and is
    /// refitted to 1490 at it; members join the mean from their first match.
    #[test]
    fn mean_curve_follows_each_member_from_their_first_match() {
        let curves = vec![
            vec![(1, 1510.0), (3, 1520.0), (3, 1530.0)],
            vec![(2, 1480.0), (2, 1490.0)],
            vec![(2, 9999.0)],
        ];
        let of = |curves: &[Vec<(u32, f64)>], m: usize| curves[m].clone().into_iter();
        let curve = mean_curve(|m| of(&curves, m), &[0, 1]);
        assert_eq!(curve, vec![(1, 1510.0), (2, 1500.0), (3, 1510.0)]);
        assert!(mean_curve(|m| of(&[Vec::new(), Vec::new()], m), &[0, 1]).is_empty());
    }
}
