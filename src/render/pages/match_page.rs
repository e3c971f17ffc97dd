//! The match pages (`matches/<id>.html`), their cache key and frag timeline, and the rows of
//! every match list.

use rayon::prelude::*;

use crate::hash::{Fields, fnv_many};
use crate::model::{EventKind, Team};
use crate::render::charts;
use crate::render::colour::{escape, name_html};
use crate::render::helpers::*;
use crate::render::renderer::{ANONYMOUS, Renderer};
use crate::render::views::*;
use crate::stats::MatchStats;

/// The key of each match page, in order: a hash of everything the page is made from (see
/// [`match_key_fields`]). Same key, same page. The fields of a few hundred matches
/// at a time are laid out in one buffer and hashed side by side ([`fnv_many`]): one
/// FNV-1a hash is a chain of dependent multiplies, a byte at a time, which was most of the
/// cost of keying a public server's 20,000 match pages (each naming a dozen players).
pub(in crate::render) fn match_keys(r: &Renderer, salt: u64) -> Vec<u64> {
    // A chunk's fields take about 1 KB a match (256 matches' took 0.4 MB a thread beside the
    // pages' start, issue 41).
    const CHUNK: usize = 64;
    // Written in place, a chunk at a time: gathered from the chunks, the keys were held
    // twice at the end (1 MB at 64,000 matches, issue 41).
    let mut keys = vec![0u64; r.input.matches.len()];
    keys.par_chunks_mut(CHUNK).enumerate().for_each(|(c, out)| {
        // Each match's fields lie between two consecutive bounds.
        let mut bytes = Vec::new();
        let mut bounds = vec![0];
        for i in c * CHUNK..c * CHUNK + out.len() {
            match_key_fields(r, i, salt, &mut bytes);
            bounds.push(bytes.len());
        }
        let texts: Vec<(&[u8], Option<usize>)> = bounds
            .windows(2)
            .map(|w| (&bytes[w[0]..w[1]], None))
            .collect();
        for (key, (_, hash)) in out.iter_mut().zip(fnv_many(&texts)) {
            *key = hash;
        }
    });
    keys
}

/// What match `i`'s page is made from, as the fields of its key, given to `h`: the match's
/// id and content, the log and line it was read from, its URL, place and date, its map's
/// page, the prediction before it, the frame of its kill map, each of its players' name, page
/// and rating change, and `salt` (templates and the fields all pages share).
fn match_key_fields(r: &Renderer, i: usize, salt: u64, h: &mut impl Fields) {
    let m = r.input.matches.head(i);
    h.u64(salt);
    h.str(&crate::render::match_url(&m.id));
    h.str(&m.id);
    h.u64(m.content);
    h.str(m.source);
    h.u64(m.line);
    h.str(&r.when(i));
    h.str(r.map_url(m.map));
    h.str(r.links.match_servers.name(i));
    h.u64(predicted_red_win(r, i).map_or(u64::MAX, f64::to_bits));
    h.u64(fairest_red_win(r, i).map_or(u64::MAX, f64::to_bits));
    h.u64(expected_margin(r, i).map_or(u64::MAX, f64::to_bits));
    crate::render::heatmap::match_frame(r, i, h);
    for &id in &r.input.roster.match_players.at(i) {
        let id = id as usize;
        h.str(&r.names_html[id]);
        h.str(&r.links.players[id]);
        h.str(&r.input.roster.players[id].key);
        let (after, delta) = r.rating_at(id, i as u32).unwrap_or((0.0, 0.0));
        h.u64(after.to_bits());
        h.u64(delta.to_bits());
    }
}

/// The rows of match `i`'s kill list, exactly as the built-in template's loop over
/// [`MatchPage::kills`] wrote them: one `<tr>` per frag, suicide and team kill, each followed
/// by a newline and the loop's indentation. Every text is escaped (names come as HTML).
pub(in crate::render) fn kills_html(r: &Renderer, i: usize) -> String {
    let m = &r.input.matches.at(i);
    let ids = &r.input.roster.match_players.at(i);
    let weapons: Vec<String> = m
        .weapons
        .iter()
        .map(|w| escape(&crate::model::weapons::weapon_label(&m.game, w)))
        .collect();
    let name = |actor: u32| {
        ids.get(actor as usize)
            .and_then(|&id| r.names_html.get(id as usize))
            .map_or("", String::as_str)
    };
    let mut out = String::with_capacity(m.events.len() * 200);
    for e in m.events.read().iter() {
        let kind = match e.kind {
            EventKind::Frag => "frag",
            EventKind::Suicide => "suicide",
            EventKind::TeamKill => "teamkill",
            _ => continue,
        };
        let victim = if e.kind == EventKind::Suicide {
            "<em>suicide</em>"
        } else {
            name(e.target)
        };
        let weapon = weapons
            .get(usize::from(e.detail))
            .map_or("", String::as_str);
        // Pushed piece by piece, without `write!`'s formatting: a page has hundreds of rows.
        out.push_str("<tr class=\"");
        out.push_str(kind);
        out.push_str("\"><td class=\"num\" data-sort=\"");
        push_sorted_clock(&mut out, e.time);
        out.push_str("</td><td>");
        out.push_str(name(e.actor));
        out.push_str("</td><td>");
        out.push_str(victim);
        out.push_str("</td><td>");
        out.push_str(weapon);
        out.push_str("</td></tr>\n    ");
    }
    out
}

/// The team model's P(red wins) before match `i`, for team matches.
pub(in crate::render) fn predicted_red_win(r: &Renderer, i: usize) -> Option<f64> {
    let predicted = &r.input.ratings.headline.evaluation.predicted_red_win;
    predicted.get(i)
}

/// P(red wins) of the fairest split of match `i`'s players, from the same knowledge.
pub(in crate::render) fn fairest_red_win(r: &Renderer, i: usize) -> Option<f64> {
    let fairest = &r.input.ratings.headline.evaluation.fairest_red_win;
    fairest.get(i)
}

/// Red's expected team score minus blue's before match `i`, by the team model.
pub(in crate::render) fn expected_margin(r: &Renderer, i: usize) -> Option<f64> {
    let margins = &r.input.ratings.headline.evaluation.expected_margin;
    margins.get(i)
}

/// Cumulative frags over match time of the match's five best fraggers.
pub(in crate::render) fn timeline(r: &Renderer, i: usize) -> String {
    let m = &r.input.matches.at(i);
    // A log with no times (Enemy Territory console logs): no curve to draw.
    if m.duration_seconds == 0 {
        return String::new();
    }
    let ms = &r.input.stats.matches[i];
    let ids = &r.input.roster.match_players.at(i);
    let mut best: Vec<crate::stats::MatchLine> = ms.lines.iter().filter(|l| l.frags > 0).collect();
    best.sort_by(|a, b| b.frags.cmp(&a.frags).then(a.player.cmp(&b.player)));
    best.truncate(5);
    let end = f64::from(m.duration_seconds) / 60.0;
    // Each curve's points, from one pass over the events (not one per curve).
    let mut curves: Vec<(f64, Vec<(f64, f64)>)> =
        best.iter().map(|_| (0.0, vec![(0.0, 0.0)])).collect();
    for e in m.events.read().iter().filter(|e| e.kind == EventKind::Frag) {
        let actor = ids[e.actor as usize];
        for (l, (count, points)) in best.iter().zip(&mut curves) {
            if actor == l.player {
                *count += 1.0;
                points.push((f64::from(e.time) / 60.0, *count));
            }
        }
    }
    let series = best
        .iter()
        .zip(curves)
        .map(|(l, (count, mut points))| {
            points.push((end.max(points.last().map_or(0.0, |p| p.0)), count));
            charts::Series {
                label: if r.input.hidden[l.player as usize] {
                    ANONYMOUS.to_string()
                } else {
                    plain_label(&r.input.roster.players[l.player as usize].key)
                },
                points,
            }
        })
        .collect();
    charts::line_chart(&charts::LineChart {
        title: "Frags over the match",
        x_label: "minutes",
        y_label: "frags",
        series,
        x_format: &|x| format!("{x:.0}"),
        x_step: 1.0,
        dots: false,
    })
}

pub(in crate::render) fn match_row(r: &Renderer, i: usize) -> MatchRow {
    let m = r.input.matches.head(i);
    let ms = &r.input.stats.matches[i];
    MatchRow {
        url: crate::render::match_url(&m.id),
        when: r.when(i).to_string(),
        when_sort: r.when_sort(i).to_string(),
        map: m.map.to_string(),
        map_url: r.map_url(m.map).to_string(),
        gametype: m.gametype.name.to_string(),
        players: ms.lines.len(),
        frags: ms.counts().frags,
        duration: clock(m.duration_seconds),
        seconds: m.duration_seconds,
        server: r.links.match_servers.name(i).to_string(),
    }
}

/// `balance.html` with the players of team match `i` who ended it on red or blue and are not
/// hidden (by the names `data/balance.js` knows them by), and `from=` their sides, so the
/// balancer shows the fewest swaps from the teams as they played; None for other matches.
pub(in crate::render) fn balance_url(r: &Renderer, i: usize) -> Option<String> {
    let m = &r.input.matches.at(i);
    if !m.gametype.team_based {
        return None;
    }
    let (mut names, mut sides) = (Vec::new(), Vec::new());
    for l in &r.input.stats.matches[i].lines {
        let side = match l.team {
            Some(Team::Red) => "red",
            Some(Team::Blue) => "blue",
            _ => continue,
        };
        let id = l.player as usize;
        if r.input.hidden[id] {
            continue;
        }
        let name = uri_component(&r.input.roster.players[id].key);
        if names.contains(&name) {
            continue;
        }
        sides.push(format!("{name}:{side}"));
        names.push(name);
    }
    (names.len() >= 2).then(|| {
        format!(
            "balance.html?players={}&from={}",
            names.join(","),
            sides.join(",")
        )
    })
}

/// The page of match `i`; `own_template` (a site's own `match.html`) also fills
/// [`MatchPage::kills`] and each side's [`Side::lines`] (the HTML of their rows, which the
/// built-in template prints, is always filled).
pub(in crate::render) fn match_page(r: &Renderer, i: usize, own_template: bool) -> MatchPage {
    let m = &r.input.matches.at(i);
    let ms: &MatchStats = &r.input.stats.matches[i];
    let ids = &r.input.roster.match_players.at(i);
    let line_view = |place: usize, l: &crate::stats::MatchLine| {
        let (name_html, url) = r.player_ref(l.player);
        let delta = r
            .rating_at(l.player as usize, i as u32)
            .map_or(0.0, |(_, d)| d);
        ScoreLine {
            place,
            name_html,
            url,
            score: l.score.map(|s| s.to_string()).unwrap_or_else(|| "-".into()),
            frags: l.frags,
            deaths: l.deaths,
            suicides: l.suicides,
            team_kills: l.team_kills,
            captures: l.captures,
            best_spree: l.best_spree,
            change: format!("{delta:+.1}"),
            change_class: change_class(delta),
        }
    };
    let sides = if m.gametype.team_based {
        [Team::Red, Team::Blue, Team::Free, Team::Spectator]
            .iter()
            .filter_map(|t| {
                let lines: Vec<ScoreLine> = ms
                    .lines
                    .iter()
                    .filter(|l| l.team == Some(*t))
                    .enumerate()
                    .map(|(n, l)| line_view(n + 1, &l))
                    .collect();
                (!lines.is_empty()).then(|| {
                    let label = match t {
                        Team::Red => "Red team",
                        Team::Blue => "Blue team",
                        _ => "Without a team at the end",
                    };
                    side(t.label(), label, lines, own_template)
                })
            })
            .collect()
    } else {
        let lines = ms
            .lines
            .iter()
            .enumerate()
            .map(|(n, l)| line_view(n + 1, &l))
            .collect();
        vec![side("free", "", lines, own_template)]
    };
    // The built-in template prints `kills_html`; the rows are made only for a site's own
    // template, which may loop over them (Tera was about a third of a match page's cpu in a
    // `perf` profile of the 1,000-match log; its loops over these rows were part of that).
    let kills = if !own_template {
        Vec::new()
    } else {
        m.events
            .read()
            .iter()
            .filter_map(|e| {
                let kind = match e.kind {
                    EventKind::Frag => "frag",
                    EventKind::Suicide => "suicide",
                    EventKind::TeamKill => "teamkill",
                    _ => return None,
                };
                let killer = r.player_ref(ids[e.actor as usize]).0;
                let victim = if kind == "suicide" {
                    "<em>suicide</em>".to_string()
                } else {
                    r.player_ref(ids[e.target as usize]).0
                };
                Some(KillRow {
                    time: clock(e.time),
                    seconds: e.time,
                    kind,
                    killer,
                    victim,
                    weapon: crate::model::weapons::weapon_label(
                        &m.game,
                        &m.weapons[usize::from(e.detail)],
                    )
                    .into_owned(),
                })
            })
            .collect()
    };
    let team_scores = m.final_team_scores();
    let winner_html = match team_scores {
        Some([r, b]) if r > b => "Red team".to_string(),
        Some([r, b]) if r < b => "Blue team".to_string(),
        Some(_) => "Draw".to_string(),
        None if let Some([a, b]) = ms.lines.pair().filter(|_| m.gametype.duel) => {
            let o = match (a.score, b.score) {
                (Some(x), Some(y)) => x.cmp(&y),
                _ => a.frags.cmp(&b.frags),
            };
            match o {
                std::cmp::Ordering::Greater => r.player_ref(a.player).0,
                std::cmp::Ordering::Less => r.player_ref(b.player).0,
                std::cmp::Ordering::Equal => "Draw".to_string(),
            }
        }
        None => String::new(),
    };
    // Lines are in score order: the first of the most frags and fewest deaths wins ties.
    let best = ms
        .lines
        .iter()
        .filter(|l| l.frags > 0)
        .min_by(|a, b| b.frags.cmp(&a.frags).then(a.deaths.cmp(&b.deaths)));
    let (best_html, best_url) = best.map(|l| r.player_ref(l.player)).unwrap_or_default();
    MatchPage {
        kill_map: crate::render::heatmap::match_view(r, i),
        map: m.map.to_string(),
        map_url: r.map_url(&m.map).to_string(),
        gametype: m.gametype.name.to_string(),
        game: crate::model::game_name(&m.game).to_string(),
        rounds: super::super::rounds::round_strip(m),
        when: r.when(i).to_string(),
        duration: clock(m.duration_seconds),
        exit_reason: m.exit_reason.clone().map(String::from),
        server: r.links.match_servers.name(i).to_string(),
        server_url: r
            .links
            .servers
            .get(r.links.match_servers.name(i))
            .cloned()
            .unwrap_or_default(),
        server_html: if m.server.is_empty() {
            String::new()
        } else {
            name_html(&m.server)
        },
        source: m.source.chars().filter(|c| !c.is_control()).collect(),
        line: m.line,
        partial: m.partial,
        team_scores,
        winner_html,
        best_html,
        best_url,
        predicted_red_win: predicted_red_win(r, i).map(|p| format!("{:.0}%", p * 100.0)),
        fairest_red_win: fairest_red_win(r, i).map(|p| format!("{:.0}%", p * 100.0)),
        // A margin of exactly 0 is none learnt then (a slope of 0), not an even match.
        expected_margin: expected_margin(r, i).map(|m| {
            if m == 0.0 {
                "not learnt yet".to_string()
            } else {
                format!("{m:+.1}")
            }
        }),
        balance_url: balance_url(r, i),
        sides,
        kill_lines: ms.counts().kill_lines,
        kills,
        kills_html: kills_html(r, i),
        timeline_svg: timeline(r, i),
    }
}

/// A side of a match scoreboard: its rows as HTML, and as [`ScoreLine`]s for a site's own
/// template (`keep_lines`).
fn side(team: &str, label: &str, lines: Vec<ScoreLine>, keep_lines: bool) -> Side {
    Side {
        team: team.to_string(),
        label: label.to_string(),
        rows_html: score_rows_html(&lines),
        lines: if keep_lines { lines } else { Vec::new() },
    }
}

/// The rows of a scoreboard side, exactly as the built-in template's loop over [`Side::lines`]
/// wrote them: one `<tr>` per player, each followed by a newline and the loop's indentation.
/// Names come as HTML; the other texts are escaped as the template escaped them. Links lead
/// up one folder: match pages are all in `matches/` ([`crate::render::Links`]).
fn score_rows_html(lines: &[ScoreLine]) -> String {
    let mut out = String::with_capacity(lines.len() * 400);
    for l in lines {
        out.push_str("<tr><td class=\"num\">");
        out.push_str(&l.place.to_string());
        out.push_str("</td><td>");
        if l.url.is_empty() {
            out.push_str(&l.name_html);
        } else {
            out.push_str("<a href=\"../");
            out.push_str(&l.url);
            out.push_str("\">");
            out.push_str(&l.name_html);
            out.push_str("</a>");
        }
        out.push_str("</td><td class=\"num\">");
        out.push_str(&escape(&l.score));
        for n in [
            l.frags,
            l.deaths,
            l.suicides,
            l.team_kills,
            l.captures,
            l.best_spree,
        ] {
            out.push_str("</td><td class=\"num\">");
            push_number(&mut out, n);
        }
        out.push_str("</td><td class=\"num ");
        out.push_str(&escape(l.change_class));
        out.push_str("\">");
        out.push_str(&escape(&l.change));
        out.push_str("</td></tr>\n  ");
    }
    out
}

/// `text` as JavaScript's `encodeURIComponent` writes it (UTF-8, every byte but
/// `A-Z a-z 0-9 - _ . ! ~ * ' ( )` as `%XX`), so `balance.html` reads it back unchanged.
fn uri_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
