//! Judging rating systems (RANKING.md section 4): replay history in order; before each frag,
//! predict "the killer beats the victim" from the current ratings, score the prediction, then
//! update. Reports log-loss, Brier score, accuracy and the number of outcomes per system and game
//! type, and, where the logs carry bot skills, the Spearman correlation of the final ratings with
//! them. Bot skills are an answer key only: no system ever sees them.

pub mod systems;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::identity::Roster;
use crate::model::{EventKind, Match};
use systems::FragRater;

/// One frag in rating order, with identity numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// `killer` fragged `victim`.
    Frag { killer: u32, victim: u32 },
    /// `player` killed themself or a team mate.
    Penalty { player: u32 },
    /// Match `index` ended.
    EndMatch { index: u32 },
}

/// The outcomes of `matches` (in rating order), each match closed by an `EndMatch` whose index
/// gives its game type.
pub fn outcomes(matches: &[Match], roster: &Roster) -> Vec<Outcome> {
    let mut out = Vec::new();
    for (mi, (m, ids)) in matches.iter().zip(&roster.match_players).enumerate() {
        for e in &m.events {
            match e.kind {
                EventKind::Frag => out.push(Outcome::Frag {
                    killer: ids[e.actor as usize],
                    victim: ids[e.target as usize],
                }),
                EventKind::Suicide | EventKind::TeamKill => out.push(Outcome::Penalty {
                    player: ids[e.actor as usize],
                }),
                _ => {}
            }
        }
        out.push(Outcome::EndMatch { index: mi as u32 });
    }
    out
}

/// Prediction scores of one system on one group of outcomes.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Score {
    pub outcomes: u64,
    /// Mean of -ln p(observed).
    pub log_loss: f64,
    /// Mean of (1 - p(observed))^2.
    pub brier: f64,
    /// Share of outcomes where the observed side had p > 0.5 (0.5 counts half).
    pub accuracy: f64,
}

#[derive(Default, Clone)]
struct Sums {
    n: u64,
    log_loss: f64,
    brier: f64,
    correct: f64,
}

impl Sums {
    fn add(&mut self, p: f64) {
        // Predictions of exactly 0 would make the loss infinite: clamp as every evaluator does.
        let p = p.clamp(1e-12, 1.0 - 1e-12);
        self.n += 1;
        self.log_loss -= p.ln();
        self.brier += (1.0 - p) * (1.0 - p);
        self.correct += if p > 0.5 {
            1.0
        } else if p == 0.5 {
            0.5
        } else {
            0.0
        };
    }

    fn score(&self) -> Score {
        let n = self.n.max(1) as f64;
        Score {
            outcomes: self.n,
            log_loss: self.log_loss / n,
            brier: self.brier / n,
            accuracy: self.correct / n,
        }
    }
}

/// The evaluation of one system.
#[derive(Debug, Clone, Serialize)]
pub struct SystemReport {
    pub system: String,
    /// Over all frags.
    pub all: Score,
    /// Per game type code.
    pub by_gametype: BTreeMap<String, Score>,
    /// Spearman rank correlation of the final ratings with the bots' configured skill, over bots
    /// with at least [`MIN_INCIDENTS_FOR_SKILL`] frags made plus suffered; None without bots.
    pub spearman_bot_skill: Option<f64>,
    pub bots: usize,
}

/// Bots with fewer frags made plus suffered are left out of the skill correlation.
pub const MIN_INCIDENTS_FOR_SKILL: u64 = 50;

/// Replays `outcomes` through `system` and scores every frag prediction.
pub fn evaluate(
    system: &mut dyn FragRater,
    outcomes: &[Outcome],
    matches: &[Match],
    answer: &SkillKey,
) -> SystemReport {
    let mut all = Sums::default();
    let mut by_type: BTreeMap<&str, Sums> = BTreeMap::new();
    let mut pending: Vec<f64> = Vec::new();
    for o in outcomes {
        match *o {
            Outcome::Frag { killer, victim } => {
                let p = system.predict(killer, victim);
                all.add(p);
                pending.push(p);
                system.frag(killer, victim);
            }
            Outcome::Penalty { player } => system.penalty(player),
            Outcome::EndMatch { index } => {
                let code = matches[index as usize].gametype.code.as_str();
                let sums = by_type.entry(code).or_default();
                for p in pending.drain(..) {
                    sums.add(p);
                }
                system.end_match();
            }
        }
    }
    let ratings = system.ratings();
    let (spearman_bot_skill, bots) = answer.spearman(&ratings);
    SystemReport {
        system: system.name().to_string(),
        all: all.score(),
        by_gametype: by_type
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.score()))
            .collect(),
        spearman_bot_skill,
        bots,
    }
}

/// The bots' configured skills (from `skill\ N` in their userinfo) and every player's incidents.
#[derive(Debug, Clone, Default)]
pub struct SkillKey {
    /// (identity, skill) for bots with enough incidents.
    pub bots: Vec<(u32, f64)>,
}

impl SkillKey {
    /// Collects the latest skill of every identity seen as a bot with at least
    /// [`MIN_INCIDENTS_FOR_SKILL`] incidents.
    pub fn new(matches: &[Match], roster: &Roster) -> SkillKey {
        let mut skill: BTreeMap<u32, f64> = BTreeMap::new();
        let mut incidents: BTreeMap<u32, u64> = BTreeMap::new();
        for (m, ids) in matches.iter().zip(&roster.match_players) {
            for (i, p) in m.players.iter().enumerate() {
                if let Some(s) = p.bot_skill {
                    skill.insert(ids[i], f64::from(s));
                }
            }
            for e in m.events.iter().filter(|e| e.kind == EventKind::Frag) {
                *incidents.entry(ids[e.actor as usize]).or_default() += 1;
                *incidents.entry(ids[e.target as usize]).or_default() += 1;
            }
        }
        SkillKey {
            bots: skill
                .into_iter()
                .filter(|(id, _)| {
                    incidents.get(id).copied().unwrap_or(0) >= MIN_INCIDENTS_FOR_SKILL
                })
                .collect(),
        }
    }

    /// Spearman correlation of `ratings` with the skills, and the number of bots used.
    pub fn spearman(&self, ratings: &[f64]) -> (Option<f64>, usize) {
        if self.bots.len() < 3 {
            return (None, self.bots.len());
        }
        let skills: Vec<f64> = self.bots.iter().map(|(_, s)| *s).collect();
        let rated: Vec<f64> = self
            .bots
            .iter()
            .map(|(id, _)| ratings.get(*id as usize).copied().unwrap_or(0.0))
            .collect();
        (spearman(&rated, &skills), self.bots.len())
    }
}

/// Ranks with ties averaged (1-based).
fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for k in i..=j {
            ranks[order[k]] = rank;
        }
        i = j + 1;
    }
    ranks
}

/// Spearman's rank correlation (Pearson correlation of the tie-averaged ranks); None when either
/// side is constant.
pub fn spearman(a: &[f64], b: &[f64]) -> Option<f64> {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let mut cov = 0.0;
    let (mut va, mut vb) = (0.0, 0.0);
    for (x, y) in ra.iter().zip(&rb) {
        cov += (x - ma) * (y - mb);
        va += (x - ma) * (x - ma);
        vb += (y - mb) * (y - mb);
    }
    (va > 0.0 && vb > 0.0).then(|| cov / (va * vb).sqrt())
}

/// Evaluates every built-in system on `matches` (in rating order).
pub fn evaluate_all(matches: &[Match], roster: &Roster) -> Vec<SystemReport> {
    let outcomes = outcomes(matches, roster);
    let answer = SkillKey::new(matches, roster);
    let n = roster.players.len();
    systems::all(n)
        .iter_mut()
        .map(|s| evaluate(s.as_mut(), &outcomes, matches, &answer))
        .collect()
}

/// The evaluation as a text table for the terminal.
pub fn table(reports: &[SystemReport]) -> String {
    let mut out = format!(
        "{:<24} {:>9} {:>9} {:>9} {:>9} {:>12}\n",
        "system", "frags", "log-loss", "brier", "accuracy", "spearman"
    );
    for r in reports {
        out.push_str(&format!(
            "{:<24} {:>9} {:>9.4} {:>9.4} {:>9.3} {:>12}\n",
            r.system,
            r.all.outcomes,
            r.all.log_loss,
            r.all.brier,
            r.all.accuracy,
            r.spearman_bot_skill
                .map(|s| format!("{s:.3} ({})", r.bots))
                .unwrap_or_else(|| "-".into())
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_with_ties() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), Some(1.0));
        assert_eq!(spearman(&[3.0, 2.0, 1.0], &[10.0, 20.0, 30.0]), Some(-1.0));
        assert_eq!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
        assert_eq!(ranks(&[5.0, 1.0, 5.0]), [2.5, 1.0, 2.5]);
        // Hand-worked: ranks a = (1, 2.5, 2.5, 4), b = (1, 2, 3, 4): r = 4.5 / sqrt(4.5 * 5).
        let r = spearman(&[1.0, 2.0, 2.0, 4.0], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!((r - 4.5 / (4.5f64 * 5.0).sqrt()).abs() < 1e-12, "{r}");
    }

    /// On the OpenArena bot logs the whole-history fit ranks bots by skill far better than
    /// Becker's ladder and predicts frags better. (Figures for the issue, and a regression check.)
    #[test]
    fn bot_logs_rank_systems() {
        let root = std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/data/openarena"
        ));
        let (matches, _) = crate::build::read_logs(&[root]).unwrap();
        let roster = Roster::build(&matches, &crate::model::identity::Aliases::default());
        let reports = evaluate_all(&matches, &roster);
        let by = |name: &str| reports.iter().find(|r| r.system.starts_with(name)).unwrap();
        let (bt, becker, constant) = (by("Bradley-Terry"), by("Becker"), by("baseline: constant"));
        assert_eq!(bt.bots, 20);
        assert!(
            bt.spearman_bot_skill.unwrap() >= 0.95,
            "{:?}",
            bt.spearman_bot_skill
        );
        assert!(becker.spearman_bot_skill.unwrap() < bt.spearman_bot_skill.unwrap());
        assert!(bt.all.log_loss < becker.all.log_loss);
        assert!((constant.all.log_loss - std::f64::consts::LN_2).abs() < 1e-12);
        assert_eq!(bt.all.outcomes, 5761, "every frag is an outcome");
    }

    #[test]
    fn scores_of_fixed_predictions() {
        let mut s = Sums::default();
        s.add(0.5);
        s.add(0.8);
        let score = s.score();
        assert_eq!(score.outcomes, 2);
        assert!((score.log_loss - (-(0.5f64.ln()) - 0.8f64.ln()) / 2.0).abs() < 1e-12);
        assert!((score.brier - (0.25 + 0.04) / 2.0).abs() < 1e-12);
        assert!((score.accuracy - 0.75).abs() < 1e-12);
    }
}
