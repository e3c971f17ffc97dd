//! The rating systems the evaluator compares, each behind [`FragRater`]: baselines (constant 0.5,
//! win rate, K/D), Becker's dynamic ladder, the peers' formulas (VSP-XP, XLRstats) and a
//! whole-history Bradley-Terry fit with a prior and time decay, refitted after every match (so it
//! predicts each match only from the matches before it).

use std::collections::HashMap;

use crate::rating::dynamic::expected;

/// A rating system that predicts and learns frag by frag.
pub trait FragRater {
    /// Name in reports.
    fn name(&self) -> &'static str;
    /// Probability that `killer` beats `victim` in a frag, from what was learnt so far.
    fn predict(&self, killer: u32, victim: u32) -> f64;
    /// Learns that `killer` fragged `victim`.
    fn frag(&mut self, killer: u32, victim: u32);
    /// Learns that `player` killed themself or a team mate.
    fn penalty(&mut self, _player: u32) {}
    /// A match ended (systems that learn per match do it here).
    fn end_match(&mut self) {}
    /// Final rating per identity (higher is better).
    fn ratings(&self) -> Vec<f64>;
}

/// Every system, for `players` identities.
pub fn all(players: usize) -> Vec<Box<dyn FragRater>> {
    vec![
        Box::new(Constant),
        Box::new(Counts::win_rate(players)),
        Box::new(Counts::kill_death(players)),
        Box::new(Becker::new(players, 40.0)),
        Box::new(Vsp::new(players)),
        Box::new(Xlr::new(players)),
        // Prior precision 3 and 2% decay per match: the best of a small grid (precision 0.3, 1,
        // 3, 10; decay 1, 0.999, 0.995, 0.98) on the logs in ../shared/data.
        Box::new(BradleyTerry::new(players, 3.0, 0.98)),
    ]
}

/// Always 0.5.
pub struct Constant;

impl FragRater for Constant {
    fn name(&self) -> &'static str {
        "baseline: constant 0.5"
    }
    fn predict(&self, _: u32, _: u32) -> f64 {
        0.5
    }
    fn frag(&mut self, _: u32, _: u32) {}
    fn ratings(&self) -> Vec<f64> {
        Vec::new()
    }
}

/// Baselines from kills and deaths so far (Laplace-smoothed).
pub struct Counts {
    kills: Vec<f64>,
    deaths: Vec<f64>,
    kd: bool,
}

impl Counts {
    /// Win rate w = (k+1)/(k+d+2); p = w_killer / (w_killer + w_victim). (The log5 combination
    /// of win rates would equal the K/D baseline exactly.)
    pub fn win_rate(players: usize) -> Counts {
        Counts {
            kills: vec![0.0; players],
            deaths: vec![0.0; players],
            kd: false,
        }
    }

    /// K/D r = (k+1)/(d+1); p = r_killer / (r_killer + r_victim).
    pub fn kill_death(players: usize) -> Counts {
        Counts {
            kd: true,
            ..Counts::win_rate(players)
        }
    }

    fn strength(&self, i: u32) -> f64 {
        let (k, d) = (self.kills[i as usize], self.deaths[i as usize]);
        if self.kd {
            (k + 1.0) / (d + 1.0)
        } else {
            (k + 1.0) / (k + d + 2.0)
        }
    }
}

impl FragRater for Counts {
    fn name(&self) -> &'static str {
        if self.kd {
            "baseline: K/D"
        } else {
            "baseline: win rate"
        }
    }
    fn predict(&self, killer: u32, victim: u32) -> f64 {
        let (a, b) = (self.strength(killer), self.strength(victim));
        a / (a + b)
    }
    fn frag(&mut self, killer: u32, victim: u32) {
        self.kills[killer as usize] += 1.0;
        self.deaths[victim as usize] += 1.0;
    }
    fn ratings(&self) -> Vec<f64> {
        (0..self.kills.len() as u32)
            .map(|i| self.strength(i))
            .collect()
    }
}

/// Becker's dynamic ladder as the site computes it (frags 1:0, suicides and team kills -K/2,
/// floor at 0, from 0), without the flag and clan rules, which predict no frag.
pub struct Becker {
    g: Vec<f64>,
    k: f64,
}

impl Becker {
    /// From 0 with the given K.
    pub fn new(players: usize, k: f64) -> Becker {
        Becker {
            g: vec![0.0; players],
            k,
        }
    }
}

impl FragRater for Becker {
    fn name(&self) -> &'static str {
        "Becker dynamic (K 40)"
    }
    fn predict(&self, killer: u32, victim: u32) -> f64 {
        expected(self.g[killer as usize], self.g[victim as usize])
    }
    fn frag(&mut self, killer: u32, victim: u32) {
        let (k, v) = (killer as usize, victim as usize);
        let e = expected(self.g[k], self.g[v]);
        self.g[k] = (self.g[k] + self.k * (1.0 - e)).max(0.0);
        self.g[v] = (self.g[v] - self.k * (1.0 - e)).max(0.0);
    }
    fn penalty(&mut self, player: u32) {
        let p = player as usize;
        self.g[p] = (self.g[p] - self.k / 2.0).max(0.0);
    }
    fn ratings(&self) -> Vec<f64> {
        self.g.clone()
    }
}

/// VSP's XP formula: p = 1/(1+e^((S_victim - S_killer)/400)); the killer gains w(1-p) and the
/// victim loses the same, w = 1, from 1000.
pub struct Vsp {
    s: Vec<f64>,
}

impl Vsp {
    /// Everyone at 1000.
    pub fn new(players: usize) -> Vsp {
        Vsp {
            s: vec![1000.0; players],
        }
    }
}

impl FragRater for Vsp {
    fn name(&self) -> &'static str {
        "VSP-XP"
    }
    fn predict(&self, killer: u32, victim: u32) -> f64 {
        1.0 / (1.0 + ((self.s[victim as usize] - self.s[killer as usize]) / 400.0).exp())
    }
    fn frag(&mut self, killer: u32, victim: u32) {
        let gain = 1.0 - self.predict(killer, victim);
        self.s[killer as usize] += gain;
        self.s[victim as usize] -= gain;
    }
    fn ratings(&self) -> Vec<f64> {
        self.s.clone()
    }
}

/// XLRstats: p = 1/(1+10^((S_victim - S_killer)/600)); each side moves by its own K (16, then 4
/// after 50 encounters) times (1-p), from 1000.
pub struct Xlr {
    s: Vec<f64>,
    encounters: Vec<u32>,
}

impl Xlr {
    /// Everyone at 1000.
    pub fn new(players: usize) -> Xlr {
        Xlr {
            s: vec![1000.0; players],
            encounters: vec![0; players],
        }
    }

    fn k(&self, i: usize) -> f64 {
        if self.encounters[i] < 50 { 16.0 } else { 4.0 }
    }
}

impl FragRater for Xlr {
    fn name(&self) -> &'static str {
        "XLRstats"
    }
    fn predict(&self, killer: u32, victim: u32) -> f64 {
        1.0 / (1.0 + 10f64.powf((self.s[victim as usize] - self.s[killer as usize]) / 600.0))
    }
    fn frag(&mut self, killer: u32, victim: u32) {
        let (k, v) = (killer as usize, victim as usize);
        let gain = 1.0 - self.predict(killer, victim);
        self.s[k] += self.k(k) * gain;
        self.s[v] -= self.k(v) * gain;
        self.encounters[k] += 1;
        self.encounters[v] += 1;
    }
    fn ratings(&self) -> Vec<f64> {
        self.s.clone()
    }
}

/// Bradley-Terry by maximum a posteriori over all frags so far: P(i beats j) = σ(θi - θj), a
/// Gaussian prior of precision `prior` on every θ (so players with few frags stay near 0), and
/// every frag's weight multiplied by `decay` after each match (older frags count less, so the
/// rating stays dynamic). Refitted after every match by a few sweeps of per-player Newton steps,
/// warm-started, and nudged by one Newton step for the two players of every frag in between; the
/// frag graph is sparse (only pairs that met).
pub struct BradleyTerry {
    theta: Vec<f64>,
    /// Per player: opponent -> (frags made, frags suffered), decayed.
    met: Vec<HashMap<u32, (f64, f64)>>,
    prior: f64,
    decay: f64,
}

impl BradleyTerry {
    /// A fit with the given prior precision and per-match decay factor.
    pub fn new(players: usize, prior: f64, decay: f64) -> BradleyTerry {
        BradleyTerry {
            theta: vec![0.0; players],
            met: vec![HashMap::new(); players],
            prior,
            decay,
        }
    }

    fn refit(&mut self, sweeps: usize) {
        for _ in 0..sweeps {
            for i in 0..self.theta.len() {
                self.step(i);
            }
        }
    }

    /// One Newton step on player `i`'s θ with the others fixed.
    fn step(&mut self, i: usize) {
        if self.met[i].is_empty() {
            return;
        }
        let mut grad = -self.prior * self.theta[i];
        let mut hess = self.prior;
        for (&j, &(won, lost)) in &self.met[i] {
            let p = sigmoid(self.theta[i] - self.theta[j as usize]);
            grad += won - (won + lost) * p;
            hess += (won + lost) * p * (1.0 - p);
        }
        // Without a prior a player who only won has no finite optimum yet: keep steps bounded.
        if hess > 1e-12 {
            self.theta[i] += (grad / hess).clamp(-1.0, 1.0);
        }
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl FragRater for BradleyTerry {
    fn name(&self) -> &'static str {
        "Bradley-Terry MAP (decay)"
    }
    fn predict(&self, killer: u32, victim: u32) -> f64 {
        sigmoid(self.theta[killer as usize] - self.theta[victim as usize])
    }
    fn frag(&mut self, killer: u32, victim: u32) {
        self.met[killer as usize].entry(victim).or_default().0 += 1.0;
        self.met[victim as usize].entry(killer).or_default().1 += 1.0;
        // Between refits, one Newton step for the two players involved keeps predictions current.
        self.step(killer as usize);
        self.step(victim as usize);
    }
    fn end_match(&mut self) {
        self.refit(3);
        if self.decay < 1.0 {
            for m in &mut self.met {
                for (won, lost) in m.values_mut() {
                    *won *= self.decay;
                    *lost *= self.decay;
                }
            }
        }
    }
    fn ratings(&self) -> Vec<f64> {
        // On the Elo scale: 400 / ln 10 points per unit of θ.
        self.theta
            .iter()
            .map(|t| t * 400.0 / std::f64::consts::LN_10)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bradley_terry_without_prior_matches_the_reference_mle() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/reference/bradley_terry.json"
        );
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        for case in json["cases"].as_array().unwrap() {
            if !case["name"].as_str().unwrap().ends_with("_mle") {
                continue;
            }
            let wins = case["input"]["wins"].as_array().unwrap();
            let mut bt = BradleyTerry::new(wins.len(), 0.0, 1.0);
            for (i, row) in wins.iter().enumerate() {
                for (j, w) in row.as_array().unwrap().iter().enumerate() {
                    for _ in 0..w.as_u64().unwrap() {
                        bt.frag(i as u32, j as u32);
                    }
                }
            }
            bt.refit(500);
            let mean = bt.theta.iter().sum::<f64>() / bt.theta.len() as f64;
            for (i, want) in case["expected"]["theta"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
            {
                let got = bt.theta[i] - mean;
                assert!(
                    (got - want.as_f64().unwrap()).abs() < 1e-6,
                    "{}: {got} vs {want}",
                    case["name"]
                );
            }
        }
    }

    #[test]
    fn peers_follow_their_formulas() {
        let mut x = Xlr::new(2);
        assert!((x.predict(0, 1) - 0.5).abs() < 1e-12);
        x.frag(0, 1);
        assert_eq!(x.s, [1008.0, 992.0]);
        let mut v = Vsp::new(2);
        v.frag(0, 1);
        assert_eq!(v.s, [1000.5, 999.5]);
        let mut b = Becker::new(2, 40.0);
        b.frag(0, 1);
        assert_eq!(b.g, [20.0, 0.0]);
        let w = Counts::win_rate(2);
        assert!((w.predict(0, 1) - 0.5).abs() < 1e-12);
    }
}
