//! The headline rating: a whole-history Bradley-Terry fit. P(i fragging j) = σ(θi − θj), fitted by
//! maximum a posteriori over every frag so far with a Gaussian prior on each θ, older frags
//! weighted down by a per-match decay (so the rating follows form), and the width of the prior
//! learnt from the data: several fits with different prior precisions run side by side and are
//! averaged by their predictive likelihood so far (Bayesian model averaging over the prior). Where
//! players truly differ, the weak priors win; where results look like coin flips, the strong ones
//! do, and predictions stay near 0.5 instead of chasing noise.
//!
//! The frag graph is sparse: each player keeps only the opponents met. Decay is lazy: instead of
//! shrinking every old weight after each match, new frags and the prior grow by 1/decay per match
//! (rescaled now and then), which is the same objective up to a constant factor.

/// Prior precisions of the averaged fits (units of θ⁻², θ in natural-log odds).
pub const PRIORS: [f64; 5] = [1.0, 3.0, 10.0, 30.0, 100.0];

/// θ to Elo-like points: 400 / ln 10 per unit.
pub const ELO_SCALE: f64 = 400.0 / std::f64::consts::LN_10;

/// Rescale the lazy weights when they grow past this.
const RESCALE_ABOVE: f64 = 1e100;

/// The fit, updated frag by frag and match by match.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct WholeHistory {
    /// Per player: (opponent, frags made, frags suffered) in lazy-decay units, in order of first
    /// meeting (a fixed order keeps every sum, and so the site, the same from run to run).
    met: Vec<Vec<(u32, f64, f64)>>,
    /// θ per player, one vector per prior.
    theta: Vec<Vec<f64>>,
    /// Posterior weight of each fit: its prior weight times its predictive likelihood of every
    /// frag so far, normalised to sum 1.
    weights: Vec<f64>,
    /// Weight of a frag made now (grows by 1/decay per match).
    now: f64,
    decay: f64,
    /// Curvature of each player's log posterior per fit at the last Newton step, plus that of
    /// the frags since (lazy-decay units).
    curvature: Vec<Vec<f64>>,
    /// Prior precision of each fit.
    priors: Vec<f64>,
    /// Players in the current match (refitted at its end).
    touched: Vec<u32>,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl WholeHistory {
    /// An empty fit for `players` identities; `decay` in (0, 1] multiplies the weight of every
    /// earlier frag after each match (1 = no decay).
    pub fn new(players: usize, decay: f64) -> WholeHistory {
        WholeHistory::with_priors(players, decay, &PRIORS)
    }

    /// Like [`WholeHistory::new`] with other prior precisions (one fit each; 0 = no prior).
    pub fn with_priors(players: usize, decay: f64, priors: &[f64]) -> WholeHistory {
        WholeHistory {
            met: vec![Vec::new(); players],
            theta: vec![vec![0.0; players]; priors.len()],
            curvature: priors.iter().map(|&p| vec![p.max(1e-9); players]).collect(),
            weights: vec![1.0 / priors.len() as f64; priors.len()],
            now: 1.0,
            decay: decay.clamp(1e-6, 1.0),
            priors: priors.to_vec(),
            touched: Vec::new(),
        }
    }

    /// Makes room for identities up to `players`. A newcomer's curvature is the prior's as it
    /// weighs now (the prior grows with the lazy decay like the frags do).
    pub fn grow(&mut self, players: usize) {
        let now = self.now;
        self.met.resize(players, Vec::new());
        for theta in &mut self.theta {
            theta.resize(players, 0.0);
        }
        for (curvature, &prior) in self.curvature.iter_mut().zip(&self.priors) {
            curvature.resize(players, prior.max(1e-9) * now);
        }
    }

    /// Posterior weights of the fits (they sum to 1).
    pub fn fit_weights(&self) -> &[f64] {
        &self.weights
    }

    /// Probability that `killer` frags `victim`, averaged over the fits.
    pub fn predict(&self, killer: u32, victim: u32) -> f64 {
        let (k, v) = (killer as usize, victim as usize);
        self.weights
            .iter()
            .zip(&self.theta)
            .map(|(w, t)| w * sigmoid(t[k] - t[v]))
            .sum()
    }

    /// Learns one frag: weighs every fit by its prediction of it (Bayes' rule), adds it, and
    /// moves both players' θ by a quick Newton step so predictions stay current within the match.
    pub fn frag(&mut self, killer: u32, victim: u32) {
        let (k, v) = (killer as usize, victim as usize);
        for (t, w) in self.theta.iter().zip(&mut self.weights) {
            *w *= sigmoid(t[k] - t[v]).max(1e-300);
        }
        let total: f64 = self.weights.iter().sum();
        for w in &mut self.weights {
            // Never exactly 0: a fit far behind can still catch up if it starts predicting better.
            *w = (*w / total).max(f64::MIN_POSITIVE);
        }
        let now = self.now;
        self.pair(k, victim).1 += now;
        self.pair(v, killer).2 += now;
        self.touched.extend([killer, victim]);
        // Between refits, a quick Newton step on the new frag alone: the rest of each player's
        // gradient is about zero at the last fit, and the curvature is the one of that fit plus
        // this frag's. O(1) per fit; the match end refits properly.
        for fit in 0..self.priors.len() {
            let theta = &mut self.theta[fit];
            let p = sigmoid(theta[k] - theta[v]);
            let curvature = now * p * (1.0 - p);
            let hk = &mut self.curvature[fit][k];
            *hk += curvature;
            let step_k = (now * (1.0 - p) / *hk).min(1.0);
            let hv = &mut self.curvature[fit][v];
            *hv += curvature;
            let step_v = (now * (1.0 - p) / *hv).min(1.0);
            theta[k] += step_k;
            theta[v] -= step_v;
        }
    }

    /// Ends a match: refits the players of the match, then ages every frag so far by one match.
    pub fn end_match(&mut self) {
        let mut touched = std::mem::take(&mut self.touched);
        touched.sort_unstable();
        touched.dedup();
        for _ in 0..3 {
            for fit in 0..self.priors.len() {
                for &p in &touched {
                    self.step(fit, p as usize);
                }
            }
        }
        touched.clear();
        self.touched = touched;
        self.now /= self.decay;
        if self.now > RESCALE_ABOVE {
            let scale = 1.0 / self.now;
            for m in &mut self.met {
                for (_, won, lost) in m.iter_mut() {
                    *won *= scale;
                    *lost *= scale;
                }
            }
            for c in self.curvature.iter_mut().flatten() {
                *c *= scale;
            }
            self.now = 1.0;
        }
    }

    /// The record of `player` against `opponent`, added if new.
    fn pair(&mut self, player: usize, opponent: u32) -> &mut (u32, f64, f64) {
        let met = &mut self.met[player];
        let at = match met.iter().position(|e| e.0 == opponent) {
            Some(at) => at,
            None => {
                met.push((opponent, 0.0, 0.0));
                met.len() - 1
            }
        };
        &mut met[at]
    }

    /// One bounded Newton step on player `i`'s θ in fit `fit`, the others fixed. Returns the
    /// size of the step.
    fn step(&mut self, fit: usize, i: usize) -> f64 {
        let theta = &self.theta[fit];
        let prior = self.priors[fit] * self.now;
        let mut grad = -prior * theta[i];
        let mut hess = prior;
        for &(j, won, lost) in &self.met[i] {
            let p = sigmoid(theta[i] - theta[j as usize]);
            grad += won - (won + lost) * p;
            hess += (won + lost) * p * (1.0 - p);
        }
        // Without a prior, a player who only won has no finite optimum: keep steps bounded.
        if hess <= 1e-300 {
            return 0.0;
        }
        let step = (grad / hess).clamp(-1.0, 1.0);
        self.theta[fit][i] += step;
        self.curvature[fit][i] = hess;
        step.abs()
    }

    /// Solves every fit to convergence over all players (for the final ratings).
    pub fn converge(&mut self) {
        for fit in 0..self.priors.len() {
            for _ in 0..1000 {
                let mut largest: f64 = 0.0;
                for i in 0..self.met.len() {
                    if !self.met[i].is_empty() {
                        largest = largest.max(self.step(fit, i));
                    }
                }
                if largest < 1e-9 {
                    break;
                }
            }
        }
    }

    /// θ per player averaged over the fits by their weights.
    pub fn theta(&self) -> Vec<f64> {
        let weights = self.fit_weights();
        (0..self.met.len())
            .map(|i| weights.iter().zip(&self.theta).map(|(w, t)| w * t[i]).sum())
            .collect()
    }

    /// The averaged θ on the Elo-like scale, 1500 for a player with no frags.
    pub fn ratings(&self) -> Vec<f64> {
        self.theta()
            .iter()
            .map(|t| 1500.0 + t * ELO_SCALE)
            .collect()
    }

    /// Player `i`'s θ averaged over the fits and its variance: each fit's posterior variance
    /// (the inverse of its curvature at the last step, in real units) plus the spread of the
    /// fits' θ around their average (model averaging). A player with no frags gets the prior's.
    pub fn posterior(&self, i: usize) -> (f64, f64) {
        let (mut mean, mut second) = (0.0, 0.0);
        for ((w, theta), curvature) in self.weights.iter().zip(&self.theta).zip(&self.curvature) {
            let t = theta.get(i).copied().unwrap_or(0.0);
            // Curvature is in lazy-decay units: divide by `now` for the real precision.
            let precision = curvature.get(i).copied().unwrap_or(0.0) / self.now;
            let variance = if precision > 1e-12 {
                1.0 / precision
            } else {
                1e12
            };
            mean += w * t;
            second += w * (variance + t * t);
        }
        (mean, (second - mean * mean).max(0.0))
    }

    /// The variance of θ for a player never seen: the prior's, averaged over the fits.
    pub fn prior_variance(&self) -> f64 {
        self.weights
            .iter()
            .zip(&self.priors)
            .map(|(w, p)| if *p > 1e-12 { w / p } else { w * 1e12 })
            .sum()
    }

    /// θ of one fit (for tests).
    pub fn fit_theta(&self, fit: usize) -> &[f64] {
        &self.theta[fit]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With no decay, after convergence each fit is the exact MAP: the gradient of the log
    /// posterior is zero for every player (to 1e-7; the solver stops at steps below 1e-9).
    #[test]
    fn converged_fits_are_stationary_points() {
        let frags = [
            (0u32, 1u32),
            (0, 1),
            (1, 0),
            (1, 2),
            (2, 0),
            (0, 2),
            (0, 2),
            (3, 2),
        ];
        let mut wh = WholeHistory::new(4, 1.0);
        for &(k, v) in &frags {
            wh.frag(k, v);
        }
        wh.end_match();
        wh.converge();
        for (fit, &prior) in PRIORS.iter().enumerate() {
            let t = wh.fit_theta(fit);
            for i in 0..4u32 {
                let mut grad = -prior * wh.now * t[i as usize];
                for &(k, v) in &frags {
                    let p = sigmoid(t[k as usize] - t[v as usize]);
                    if k == i {
                        grad += wh.now * (1.0 - p);
                    } else if v == i {
                        // d/dθv of ln σ(θk − θv) = −(1 − p).
                        grad -= wh.now * (1.0 - p);
                    }
                }
                assert!(grad.abs() < 1e-7, "fit {fit} player {i}: {grad}");
            }
        }
    }

    /// Hand-worked: one frag between newcomers. Each fit predicted 0.5, so the fits keep equal
    /// weights; after convergence θ0 = -θ1 = x with prior·x = 1 - σ(2x).
    #[test]
    fn one_frag_hand_worked() {
        let mut wh = WholeHistory::new(2, 1.0);
        assert_eq!(wh.predict(0, 1), 0.5);
        wh.frag(0, 1);
        wh.converge();
        for &w in wh.fit_weights() {
            assert!((w - 0.2).abs() < 1e-12);
        }
        for (fit, &prior) in PRIORS.iter().enumerate() {
            let x = wh.fit_theta(fit)[0];
            assert!((wh.fit_theta(fit)[1] + x).abs() < 1e-8);
            assert!((prior * x - (1.0 - sigmoid(2.0 * x))).abs() < 1e-8);
        }
        assert!(wh.predict(0, 1) > 0.5);
    }

    /// Lazy decay equals explicit decay: a frag one match older counts `decay` times as much.
    #[test]
    fn lazy_decay_weights_old_frags_less() {
        let mut a = WholeHistory::new(2, 0.5);
        a.frag(0, 1);
        a.end_match();
        a.frag(1, 0);
        a.end_match();
        a.converge();
        // Old frag weight 1, new 2 (relative): player 1 ahead.
        assert!(a.theta()[1] > a.theta()[0]);
        let mut b = WholeHistory::new(2, 1.0);
        b.frag(0, 1);
        b.end_match();
        b.frag(1, 0);
        b.end_match();
        b.converge();
        assert!(b.theta()[0].abs() < 1e-9 && b.theta()[1].abs() < 1e-9);
    }

    #[test]
    fn the_better_fit_gains_weight() {
        // Player 0 always wins: weak priors predict that better and gain weight.
        let mut wh = WholeHistory::new(2, 1.0);
        for _ in 0..50 {
            wh.frag(0, 1);
            wh.end_match();
        }
        let w = wh.fit_weights();
        assert!(w[0] > w[PRIORS.len() - 1], "{w:?}");
    }
}
