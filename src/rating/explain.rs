//! The plain-words explanation of both rankings for `ranking.html`, as Markdown, with the numbers
//! this site was built with (K, weights, core size, thresholds, decay). No player names: those are
//! rendered by the template, escaped.

use std::fmt::Write as _;

use super::systems::dynamic::{DecayStatus, DynamicRatings};
use super::systems::static_rank::StaticRanking;
use crate::config::{DuelMode, RatingConfig};

/// Markdown text explaining the dynamic and static rankings.
pub fn markdown(
    cfg: &RatingConfig,
    dynamic: &DynamicRatings,
    st: &StaticRanking,
    players: usize,
    headline: &str,
) -> String {
    let d = &cfg.dynamic;
    let mut md = String::new();
    let _ = writeln!(md, "# How the rankings work\n");
    let _ = writeln!(
        md,
        "The ladder is ordered by a *headline* rating, chosen by how well it predicts. Beside \
         it, this site keeps the two rankings of Becker's 2002 design for AEstats: a *dynamic* Elo \
         rating that moves after every frag, and a *static* ranking computed from who fragged whom \
         how often.\n"
    );
    md.push_str(headline);
    let _ = writeln!(md, "## Becker's Elo ladder: dynamic rating\n");
    let _ = writeln!(
        md,
        "Everyone starts at **{initial}**. Every frag is treated as a duel the killer won 1:0. Before \
         it, each player has an *expected score* `E = 1 / (1 + 10^((opponent − own) / 400))`: two \
         equal players expect 0.5 each, a player 400 points above expects about 0.91. After the frag \
         the killer gains `K × (1 − E)` and the victim loses as much, with **K = {k}**. Beating a \
         stronger player earns more than beating a weaker one, and points move from one player to \
         the other.\n",
        initial = d.initial,
        k = d.k
    );
    let _ = writeln!(
        md,
        "- A **suicide** (own weapon, falling, lava, the world) costs `K/2` = {half} points: it counts as \
         losing 0:1 to an imaginary player of your own strength.\n\
         - A **team kill** costs the killer the same; the team mate who died loses nothing.\n\
         - A **flag capture** counts as a {capture}:0 win against a virtual opponent rated at the average \
         of the other team's players present at that moment. With nobody on the other team, it \
         changes nothing.\n\
         - Other flag events count with their own weights: return {ret}, taking the flag {pick}, \
         killing the flag carrier {carrier} (0 means ignored).\n\
         - Ratings never go below 0; that floor is the only place where points enter the ladder.\n\
         - **Duels** (tournament matches) are rated {duel}.\n",
        half = d.k / 2.0,
        capture = d.capture,
        ret = d.flag_return,
        pick = d.flag_pickup,
        carrier = d.flag_carrier_kill,
        duel = match d.duel {
            DuelMode::Frag => "frag by frag, like every other game",
            DuelMode::Match => {
                "once per match: the score is frags minus suicides (negative scores are lifted, \
                 `6:-2` counts as `8:0`), and the share of the score is the result"
            }
        }
    );
    let decay = match dynamic.decay {
        DecayStatus::Off => {
            "Ratings do **not decay**: inactive players keep their rating.".to_string()
        }
        DecayStatus::NoDates => format!(
            "Decay of {} points every {} days is configured, but the logs carry no dates, so it was \
             **not applied**.",
            d.decay_points, d.decay_every_days
        ),
        DecayStatus::Applied { periods } => format!(
            "Every {} days of log time every rated player loses {} points (never below 0). Decay \
             **was applied** {periods} time(s) over the span of these logs.",
            d.decay_every_days, d.decay_points
        ),
    };
    let _ = writeln!(md, "{decay}\n");
    let _ = writeln!(
        md,
        "**Clans** are rated as virtual players with the same rules: a frag between members of two \
         clans is a frag between the clans, and a member's suicide, team kill or kill of a clan mate \
         is a suicide of the clan.\n"
    );
    let _ = writeln!(
        md,
        "## The static ranking: least squares on the frag matrix\n"
    );
    let _ = writeln!(
        md,
        "For every two players who met, `r = (frags of A on B − frags of B on A) / (all frags between \
         them)` is a number from −1 (B always won) to +1 (A always won). The static ranking looks for \
         values `g` such that `g(A) − g(B)` is as close as possible to `r` for every pair. It does not \
         depend on the order of the matches.\n"
    );
    let _ = writeln!(
        md,
        "A pair that met once would count as much as a pair that met a hundred times, so the ranking \
         uses a **core**: players with at least **{inc}** incidents (frags made plus suffered), \
         narrowed down until every two of them met at least **{pair}** times. Inside the core the \
         answer is exact: a player's value is the sum of their `r` against every other core member, \
         divided by the core size. It is shown as a percentage, `(g + 1) / 2`: 50% is an even record \
         against the core.\n",
        inc = st.min_incidents,
        pair = st.min_pair_frags
    );
    let _ = writeln!(
        md,
        "This site's core has **{core}** of {players} players.{empty}\n",
        core = st.core.len(),
        empty = if st.core.is_empty() {
            " No group of two or more players met often enough yet."
        } else {
            ""
        }
    );
    let _ = writeln!(
        md,
        "Players outside the core get the exact least-squares value over all pairs that met at all. \
         It is **less reliable** (few frags can decide it) and is listed separately below."
    );
    md
}
