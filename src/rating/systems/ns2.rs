//! The NS2 team model (RANKING.md section 3): red wins with p = σ(Σ T_i t_i s_i / Σ t_i + F),
//! learnt from team results by AdaGrad plus a constant rate, with a per-side offset per player
//! and F the logit of red's smoothed win rate on the map so far. It learns nothing from frags;
//! it predicts a frag as σ(s_killer − s_victim).

use std::collections::BTreeMap;

use crate::rating::system::{FragRater, TeamGame};

/// Constant learning rate `c`.
const CONSTANT_RATE: f64 = 0.05;
/// AdaGrad rate `a`.
const ADAGRAD_RATE: f64 = 1.0;
/// AdaGrad ε: the first game's step is about `a / sqrt(ε + d²)`.
const EPSILON: f64 = 1.0;

/// Skills, side offsets, AdaGrad sums and red's record per map.
pub struct Ns2 {
    skill: Vec<f64>,
    offset: Vec<f64>,
    adagrad: Vec<f64>,
    /// Map -> (red wins, games).
    maps: BTreeMap<String, (f64, f64)>,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl Ns2 {
    /// Everyone at skill 0.
    pub fn new(players: usize) -> Ns2 {
        Ns2 {
            skill: vec![0.0; players],
            offset: vec![0.0; players],
            adagrad: vec![0.0; players],
            maps: BTreeMap::new(),
        }
    }

    /// F: logit of red's win rate on the map, Laplace-smoothed (0 for an unknown map).
    fn map_bias(&self, map: &str) -> f64 {
        let (wins, games) = self.maps.get(map).copied().unwrap_or((0.0, 0.0));
        let rate = (wins + 1.0) / (games + 2.0);
        (rate / (1.0 - rate)).ln()
    }

    fn total_weight(game: &TeamGame) -> f64 {
        game.members.iter().map(|m| m.weight).sum()
    }
}

impl FragRater for Ns2 {
    fn name(&self) -> &'static str {
        "NS2 team model"
    }
    fn id(&self) -> &'static str {
        "ns2"
    }
    fn predict(&self, killer: u32, victim: u32) -> f64 {
        sigmoid(self.skill[killer as usize] - self.skill[victim as usize])
    }
    fn frag(&mut self, _: u32, _: u32) {}
    fn predict_team(&self, game: &TeamGame) -> f64 {
        let total = Ns2::total_weight(game);
        if total <= 0.0 {
            return 0.5;
        }
        let sum: f64 = game
            .members
            .iter()
            .map(|m| {
                let i = m.player as usize;
                let side = if m.red { 1.0 } else { -1.0 };
                // Skill on red = s + o, on blue = s - o.
                side * m.weight * (self.skill[i] + side * self.offset[i])
            })
            .sum();
        sigmoid(sum / total + self.map_bias(&game.map))
    }
    fn team_result(&mut self, game: &TeamGame) {
        let p = self.predict_team(game);
        let total = Ns2::total_weight(game);
        let g = if game.red_won { 1.0 } else { 0.0 };
        if total > 0.0 {
            for m in &game.members {
                let i = m.player as usize;
                let side = if m.red { 1.0 } else { -1.0 };
                let d = side * (g - p) * m.weight / total;
                self.adagrad[i] += d * d;
                self.skill[i] +=
                    (CONSTANT_RATE + ADAGRAD_RATE / (self.adagrad[i] + EPSILON).sqrt()) * d;
                self.offset[i] += CONSTANT_RATE * (g - p) * m.weight / total;
            }
        }
        let record = self.maps.entry(game.map.clone()).or_default();
        record.0 += g;
        record.1 += 1.0;
    }
    fn ratings(&mut self) -> Vec<f64> {
        self.skill.clone()
    }
    fn online(&self, player: u32) -> Option<f64> {
        self.skill.get(player as usize).copied()
    }
    fn grow(&mut self, players: usize) {
        self.skill.resize(players, 0.0);
        self.offset.resize(players, 0.0);
        self.adagrad.resize(players, 0.0);
    }
    crate::rating::system::saved_fields!(skill, offset, adagrad, maps);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rating::system::TeamMember;

    fn game(red_won: bool) -> TeamGame {
        TeamGame {
            members: vec![
                TeamMember {
                    player: 0,
                    red: true,
                    weight: 1.0,
                },
                TeamMember {
                    player: 1,
                    red: false,
                    weight: 0.5,
                },
            ],
            red_won,
            map: "q3dm17".into(),
            game: "quake3".into(),
            gametype: "tdm".into(),
            margin: None,
            score_total: None,
            decided_by: None,
        }
    }

    /// Hand-worked first game: p = 0.5, Σt = 1.5; d_0 = +0.5·1/1.5 = 1/3, d_1 = −0.5·0.5/1.5 =
    /// −1/6; h = d²; s += (c + a/sqrt(d² + ε)) d; o_i += c·0.5·t_i/1.5 for both.
    #[test]
    fn first_game_hand_worked() {
        let mut ns2 = Ns2::new(2);
        assert_eq!(ns2.predict_team(&game(true)), 0.5);
        ns2.team_result(&game(true));
        let d0 = 1.0 / 3.0;
        let d1 = -1.0 / 6.0;
        let s0 = (CONSTANT_RATE + ADAGRAD_RATE / (d0 * d0 + EPSILON).sqrt()) * d0;
        let s1 = (CONSTANT_RATE + ADAGRAD_RATE / (d1 * d1 + EPSILON).sqrt()) * d1;
        assert!((ns2.skill[0] - s0).abs() < 1e-12);
        assert!((ns2.skill[1] - s1).abs() < 1e-12);
        assert!((ns2.offset[0] - CONSTANT_RATE * 0.5 / 1.5).abs() < 1e-12);
        assert!((ns2.offset[1] - CONSTANT_RATE * 0.25 / 1.5).abs() < 1e-12);
        // Red won the only game on the map: F = logit(2/3) = ln 2.
        assert!((ns2.map_bias("q3dm17") - 2f64.ln()).abs() < 1e-12);
        assert!(ns2.predict_team(&game(true)) > 0.5);
    }
}
