//! The evaluation in plain words, as Markdown: the headline section of `ranking.html` and the
//! whole of `evaluation.html`, with this site's own numbers. No player names appear.

use std::fmt::Write as _;

use crate::config::RatingConfig;
use crate::rating::evaluation::{Evaluation, HELD_OUT_SHARE, Paired, SystemReport};

const BASELINES: [&str; 3] = ["constant", "win-rate", "kd"];
const PEERS: [&str; 3] = ["becker", "vsp-xp", "xlrstats"];

fn paired(p: Option<Paired>) -> String {
    match p {
        Some(p) => format!("{:+.4} ± {:.4}", p.mean, p.std_err),
        None => "—".into(),
    }
}

/// The best (lowest frag log-loss) of the systems with keys `ids`.
fn best_of<'a>(e: &'a Evaluation, ids: &[&str]) -> Option<&'a SystemReport> {
    e.systems
        .iter()
        .filter(|r| ids.contains(&r.id.as_str()) && r.all.outcomes > 0)
        .min_by(|a, b| a.all.log_loss.total_cmp(&b.all.log_loss))
}

/// The "headline rating" section of `ranking.html`.
pub fn headline_markdown(e: &Evaluation, cfg: &RatingConfig) -> String {
    let mut md = String::new();
    let Some(h) = e.report(&e.headline) else {
        return md;
    };
    let _ = writeln!(md, "## The headline rating: {}\n", h.system);
    if e.headline == "whole-history" {
        let _ = writeln!(
            md,
            "The **Rating** column of the ladder estimates, from every frag so far, how likely each \
             player is to win a fight against each other: `P(A frags B) = 1 / (1 + 10^((B − A) / 400))`, \
             so 1500 is an average player and 400 points more means 10:1 odds. It is a Bradley-Terry \
             fit over the whole history, where a frag {decay} and a player with few frags is pulled \
             towards 1500 until the frags show otherwise; how hard it pulls is learnt from these \
             logs. Unlike an Elo ladder, the order of the frags within a match does not matter, \
             and neither does who happened to meet a beginner first: every frag is weighed \
             against everything known at the end.\n",
            decay = if cfg.whole_history.decay < 1.0 {
                format!(
                    "counts {:.0}% less with every match played after it (so the rating follows \
                     form)",
                    (1.0 - cfg.whole_history.decay) * 100.0
                )
            } else {
                "counts the same however old it is".to_string()
            }
        );
    } else {
        let _ = writeln!(
            md,
            "The **Rating** column of the ladder is {} (chosen in `site.toml`, \
             `[rating.headline] system`).\n",
            h.system
        );
    }
    let _ = writeln!(
        md,
        "Players with fewer than **{}** frags made and suffered are **provisional**: they are listed \
         after everyone else, without a position, so a newcomer who won 2:0 never tops the ladder.\n",
        cfg.headline.provisional_incidents
    );
    if e.systems.len() < 2 || e.frags == 0 {
        return md;
    }
    let _ = writeln!(
        md,
        "**Why this one.** Every rating system was replayed over these logs, predicting each frag \
         *before* learning from it ([the full comparison](evaluation.html), with the standard \
         error of every difference). Lower log-loss is better; a coin flip scores 0.6931."
    );
    let _ = writeln!(md);
    let _ = writeln!(
        md,
        "| | frag log-loss | last {:.0}% of frags |",
        HELD_OUT_SHARE * 100.0
    );
    let _ = writeln!(md, "|---|---:|---:|");
    let mut shown = vec![h];
    shown.extend(best_of(e, &PEERS));
    shown.extend(best_of(e, &BASELINES));
    shown.extend(e.report("becker"));
    // The best peer may be Becker itself: list every system once.
    let mut seen = Vec::new();
    shown.retain(|r| {
        let new = !seen.contains(&r.id);
        seen.push(r.id.clone());
        new
    });
    for r in shown {
        let _ = writeln!(
            md,
            "| {}{} | {:.4} | {:.4} |",
            r.system,
            if r.id == e.headline {
                " (headline)"
            } else {
                ""
            },
            r.all.log_loss,
            r.held_out.log_loss
        );
    }
    let _ = writeln!(md);
    if let Some(s) = h.spearman_bot_skill {
        let _ = writeln!(
            md,
            "These logs include bots with a configured skill level. The headline rating orders the \
             {} bots with at least 50 frags made and suffered with a rank correlation of **{s:.3}** \
             to their true skill{}.\n",
            h.bots,
            match e.report("becker").and_then(|b| b.spearman_bot_skill) {
                Some(b) => format!(" (Becker's ladder: {b:.3})"),
                None => String::new(),
            }
        );
    }
    md
}

/// The whole of `evaluation.html`.
pub fn evaluation_markdown(e: &Evaluation) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# How well each rating predicts\n");
    let _ = writeln!(
        md,
        "Every rating system below was replayed over this site's {frags} frags and {teams} team \
         matches with a winner, in the order they happened. Before each frag, each system gave the \
         probability that the killer would win that fight; before each team match, that red would \
         win. Only then did it learn the result. A system that has learnt something real predicts \
         the future better than a coin flip.\n",
        frags = e.frags,
        teams = e.team_results
    );
    let _ = writeln!(
        md,
        "- **Log-loss**: the average of `−ln p` for what happened. Lower is better; always saying \
         50% scores 0.6931.\n\
         - **Held out**: the same over the matches that reach into the last {held:.0}% of \
         the frags — the future, predicted from the past.\n\
         - **Brier**: the average of `(1 − p)²`. Lower is better; 0.25 for a coin flip.\n\
         - **Accuracy**: how often the side given more than 50% won.\n\
         - **vs headline**: the system's log-loss minus the headline's, frag by frag, with the \
         standard error of that mean. A difference within about two standard errors is not \
         evidence either way.\n\
         - **Bot skill**: where the logs have bots with a configured skill, the rank correlation \
         (Spearman) of the final ratings with it, over bots with at least 50 frags made and \
         suffered. 1 is a perfect order.\n",
        held = HELD_OUT_SHARE * 100.0
    );
    if e.systems.len() < 2 {
        let _ = writeln!(
            md,
            "The comparison is turned off for this site (`[rating] evaluation = false` in \
             `site.toml`); only the headline system ran.\n"
        );
    }
    let _ = writeln!(
        md,
        "| system | log-loss | held out | Brier | accuracy | vs headline | held out vs headline | team log-loss | bot skill |"
    );
    let _ = writeln!(md, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in &e.systems {
        let _ = writeln!(
            md,
            "| {name}{mark} | {ll:.4} | {ho:.4} | {br:.4} | {acc:.1}% | {vs} | {vsh} | {teams} | {sp} |",
            name = r.system,
            mark = if r.id == e.headline {
                " **(headline)**"
            } else {
                ""
            },
            ll = r.all.log_loss,
            ho = r.held_out.log_loss,
            br = r.all.brier,
            acc = r.all.accuracy * 100.0,
            vs = paired(r.vs_headline),
            vsh = paired(r.vs_headline_held_out),
            teams = if r.team_results.outcomes > 0 {
                format!("{:.4}", r.team_results.log_loss)
            } else {
                "—".into()
            },
            sp = r
                .spearman_bot_skill
                .map(|s| format!("{s:.3}"))
                .unwrap_or_else(|| "—".into()),
        );
    }
    let _ = writeln!(md);
    let _ = writeln!(md, "## Frag log-loss by game type\n");
    let codes: Vec<&String> = e
        .systems
        .first()
        .map(|r| r.by_gametype.keys().collect())
        .unwrap_or_default();
    if !codes.is_empty() {
        let _ = write!(md, "| system |");
        for c in &codes {
            let n = e.systems[0].by_gametype[*c].outcomes;
            let _ = write!(md, " {c} ({n}) |");
        }
        let _ = writeln!(md);
        let _ = writeln!(md, "|---|{}", "---:|".repeat(codes.len()));
        for r in &e.systems {
            let _ = write!(md, "| {} |", r.system);
            for c in &codes {
                let _ = write!(
                    md,
                    " {} |",
                    r.by_gametype
                        .get(*c)
                        .map(|s| format!("{:.4}", s.log_loss))
                        .unwrap_or_else(|| "—".into())
                );
            }
            let _ = writeln!(md);
        }
        let _ = writeln!(md);
    }
    let _ = writeln!(
        md,
        "## The systems\n\n\
         - **Baselines**: always 50%; win rate `(k+1)/(k+d+2)` and kills per death `(k+1)/(d+1)` so \
         far, compared as `a / (a + b)`.\n\
         - **Becker dynamic**: this site's Elo ladder (frags 1:0, suicides and team kills cost K/2, \
         floor at 0).\n\
         - **VSP-XP** and **XLRstats**: the formulas of those stats tools (VSP: `1/(1+e^((victim − \
         killer)/400))`, one point at stake; XLRstats: base 10, steepness 600, K 16 then 4 after 50 \
         encounters).\n\
         - **Glicko-2**, **TrueSkill**, **Weng-Lin**: the established systems (from the \
         `skillratings` crate), a frag being a one-on-one game; Glicko-2 rates a whole period (a \
         match or a day) at once; team results are fed as team games.\n\
         - **NS2 team model**: learns only from who won team matches, with time on the team \
         weighted towards the start, a side bias per player and the map's red/blue record.\n\
         - **Bradley-Terry, fixed prior** and **whole history**: maximum a posteriori fits over \
         all frags so far, older frags weighted down per match; the whole-history fit averages \
         five prior widths by how well each predicted so far.\n\
         - **fragstats team model** (used for team predictions and the balancer): the \
         whole-history skills of each side, weighted by time on the side, plus a team-size term, \
         the red side's bias and the map's red/blue record; each player's uncertainty pulls the \
         prediction towards 50%, a newcomer gets the mean this site's newcomers showed, and the \
         scale is learnt from this site's own team results as they come. It predicts frags as the \
         whole-history fit does.\n"
    );
    let _ = writeln!(
        md,
        "Machine-readable: [data/evaluation.json](data/evaluation.json). Run it yourself: \
         `fragstats evaluate [--json] [PATH ...]`."
    );
    md
}

/// A bin holding at least this many team results is held to the calibration goal (issue 15).
pub const CALIBRATION_MIN_RESULTS: u64 = 30;

/// The other system drawn beside the team model on the reliability diagram: the one with the
/// lowest team log-loss that says more than a coin (None when no other predicts team results).
pub fn calibration_rival(e: &Evaluation) -> Option<&SystemReport> {
    e.systems
        .iter()
        .filter(|r| r.id != e.team_model && r.id != "constant" && r.team_results.outcomes > 0)
        .min_by(|a, b| a.team_results.log_loss.total_cmp(&b.team_results.log_loss))
}

/// The calibration section of `evaluation.html` around its reliability diagram: the words
/// before the diagram and the tables after it (empty strings without team results).
pub fn calibration_markdown(e: &Evaluation) -> (String, String) {
    let Some(model) = e.report(&e.team_model) else {
        return Default::default();
    };
    let r = &model.team_reliability;
    if r.matches == 0 {
        return Default::default();
    }
    let mut intro = String::new();
    let _ = writeln!(intro, "## Are the team predictions calibrated?\n");
    let _ = writeln!(
        intro,
        "When the {name} says red wins with 70%, red should win about 7 times in 10. Its {n} \
         team-result predictions, each made before the result, are binned by the predicted \
         P(red wins), 10 points per bin: a dot is a bin, at its mean prediction (across) and \
         the share of its results red won (up), sized by and labelled with its number of \
         results. On the dashed diagonal the predictions are calibrated.{rival}\n",
        name = model.system,
        n = r.matches,
        rival = match calibration_rival(e) {
            Some(o) => format!(
                " The second line is {}, the other system with the lowest team log-loss.",
                o.system
            ),
            None => String::new(),
        }
    );
    let _ = writeln!(
        intro,
        "**Expected calibration error (ECE): {:.1} points** (the mean gap between the predicted \
         and the observed win rate, weighted by the results in each bin; 0 is perfect).{}\n",
        r.ece * 100.0,
        match r.worst_gap(CALIBRATION_MIN_RESULTS) {
            Some(g) => format!(
                " The largest gap in a bin of {CALIBRATION_MIN_RESULTS} or more results: \
                 {:.1} points.",
                g * 100.0
            ),
            None => format!(
                " No bin holds {CALIBRATION_MIN_RESULTS} results yet: with fewer, a bin's gap \
                 is mostly chance."
            ),
        }
    );
    let mut tables = String::new();
    let _ = writeln!(
        tables,
        "| predicted P(red wins) | results | mean prediction | red won | gap | chance alone (±2 SE) |"
    );
    let _ = writeln!(tables, "|---|---:|---:|---:|---:|---:|");
    for b in &r.bins {
        let _ = writeln!(
            tables,
            "| {:.0}–{:.0}% | {} | {:.1}% | {:.1}% | {:+.1} | ±{:.1} |",
            b.from * 100.0,
            b.to * 100.0,
            b.matches,
            b.predicted * 100.0,
            b.observed * 100.0,
            (b.observed - b.predicted) * 100.0,
            2.0 * b.se * 100.0
        );
    }
    let _ = writeln!(
        tables,
        "\nThe last column is how far a bin's share would stray by chance alone (two standard \
         errors) if the predictions were exactly calibrated: a gap within it says nothing \
         against the model. The normal approximation behind it needs enough results, so \
         only bins of {CALIBRATION_MIN_RESULTS} or more are counted:{}",
        match r
            .bins
            .iter()
            .filter(|b| {
                b.matches >= CALIBRATION_MIN_RESULTS
                    && (b.observed - b.predicted).abs() > 2.0 * b.se
            })
            .count()
        {
            0 => " none strays farther.".to_string(),
            1 => " one strays farther.".to_string(),
            k => format!(" {k} stray farther."),
        }
    );
    let _ = writeln!(tables);
    let _ = writeln!(
        tables,
        "Every system's team predictions, calibrated or not:\n"
    );
    let _ = writeln!(
        tables,
        "| system | team results | team log-loss | ECE (points) | largest gap, bins of {CALIBRATION_MIN_RESULTS}+ |"
    );
    let _ = writeln!(tables, "|---|---:|---:|---:|---:|");
    for s in e.systems.iter().filter(|s| s.team_results.outcomes > 0) {
        let rel = &s.team_reliability;
        let _ = writeln!(
            tables,
            "| {}{} | {} | {:.4} | {:.1} | {} |",
            s.system,
            if s.id == e.team_model {
                " **(team model)**"
            } else {
                ""
            },
            s.team_results.outcomes,
            s.team_results.log_loss,
            rel.ece * 100.0,
            rel.worst_gap(CALIBRATION_MIN_RESULTS)
                .map(|g| format!("{:.1}", g * 100.0))
                .unwrap_or_else(|| "—".into())
        );
    }
    let _ = writeln!(tables);
    if let Some(m) = model.team_margin.as_ref().filter(|m| m.matches > 0) {
        let _ = writeln!(
            tables,
            "**Expected score margin** (red's team score minus blue's, predicted before each of \
             {} team matches with a final score): mean absolute error {:.2}, against {:.2} for \
             the naive \"even\" prediction (0) and {:.2} for the game type's mean margin so far.\n",
            m.matches, m.mae, m.mae_even, m.mae_game_mean
        );
    }
    (intro, tables)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rating::evaluation::Score;

    fn report(id: &str, name: &str, log_loss: f64) -> SystemReport {
        let score = Score {
            outcomes: 100,
            log_loss,
            brier: 0.2,
            accuracy: 0.6,
        };
        SystemReport {
            id: id.into(),
            system: name.into(),
            all: score.clone(),
            held_out: score,
            by_gametype: Default::default(),
            team_results: Score::default(),
            team_reliability: Default::default(),
            team_margin: None,
            spearman_bot_skill: None,
            bots: 0,
            vs_headline: None,
            vs_headline_held_out: None,
        }
    }

    /// When Becker's ladder is also the best peer formula it is listed once.
    #[test]
    fn headline_table_lists_each_system_once() {
        let e = Evaluation {
            headline: "whole-history".into(),
            held_out_share: HELD_OUT_SHARE,
            frags: 100,
            held_out_frags: 30,
            team_results: 0,
            systems: vec![
                report("kd", "baseline: K/D", 0.66),
                report("becker", "Becker dynamic", 0.64),
                report("vsp-xp", "VSP-XP", 0.68),
                report("xlrstats", "XLRstats", 0.67),
                report("whole-history", "Bradley-Terry whole history", 0.60),
            ],
            team_model: "team-model".into(),
            headline_ratings: Vec::new(),
            predicted_red_win: Default::default(),
            fairest_red_win: Default::default(),
            expected_margin: Default::default(),
            headline_curves: Default::default(),
            team: Default::default(),
        };
        let md = headline_markdown(&e, &RatingConfig::default());
        assert_eq!(md.matches("| Becker dynamic |").count(), 1, "{md}");
        assert_eq!(md.matches("| baseline: K/D |").count(), 1, "{md}");
    }
}
