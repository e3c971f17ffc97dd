//! The team-outcome model used for team predictions and the balancer: red wins with
//!
//! ```text
//! p = σ( (β_s·g·(m_red − m_blue) + β_n·ln(W_red / W_blue) + β_0 + β_F·F) / sqrt(1 + π/8·(β_s·g)²·V) )
//! ```
//!
//! where `m` is a side's mean strength `u(θ)`, θ the headline skill (the whole-history fit,
//! natural-log frag odds), each player weighted by their time on that side (NS2's `t_i`), `W`
//! the side's total weight
//! (the team-size term), `V` the variance of the skill difference from every player's
//! uncertainty (the probit approximation of averaging the logistic over it, so an unknown
//! line-up gives 0.5). A player with no frags yet gets the prior of this site's real newcomers:
//! the mean θ newcomers ended their first match with, and the fit's prior variance.
//!
//! - The strength `u(θ) = θ / √(1 + (θ/2)²)` ([`strength`], [`STRENGTH_BOUND`]) saturates: it
//!   is θ near the site's mean player (the fit centres θ on 0) and stays within ±2, like
//!   `2·tanh(θ/2) = 4·σ(θ) − 2`, the frag share against the mean player in θ's units, so one
//!   hopeless player (θ far below everyone, whose frags against anyone are already near none)
//!   does not dominate a side's mean. It is a sum over members, so the balancer's meet in the
//!   middle stays exact. (How it compares with the plain mean and the pairwise form on real
//!   OpenArena games: `benches/RESULTS.md`.)
//!
//! - `g` turns a frag edge into a result edge. A result is won by the side that makes more of
//!   its `N` scoring events (a match: the team scores, frags in team deathmatch, captures in
//!   capture the flag; a round: its frags); if red makes each with probability σ(Δ) ≈ ½ + Δ/4,
//!   red makes more with probability ≈ Φ(Δ·√N / 2) ≈ σ(1.7·Δ·√N / 2): so `g = 0.85·√N`, `√N`
//!   the mean over this game's earlier results (this site's, before any of the game's: 1).
//! - `F = b_game + b_map` is the side term, red's edge for being red (red wins 64% of
//!   Counter-Strike 1.6 rounds and 29% of TF2 rounds: one site-wide term cannot fit), `β_F = 1`.
//!   `b_game` is a coefficient per game with prior N(0, [`GAME_SIDE_VARIANCE`](crate::rating::systems::team_model::GAME_SIDE_VARIANCE)) (sides of
//!   asymmetric games win 25% to 75%: logit ±1.1 at two standard deviations), `b_map` one per
//!   map of the game with prior N(0, [`MAP_SIDE_VARIANCE`](crate::rating::systems::team_model::MAP_SIDE_VARIANCE)) (a map's side differs from its game's
//!   by about ±0.3 in logit), so a map is shrunk toward its game. Each is learnt with the others
//!   fixed (mean field), by the same Laplace step: unlike a raw win rate, a side term learnt
//!   jointly with the skills does not take a strong team's streak within one match for a side
//!   effect.
//!
//! The parameters are learnt from a site's results by [`crate::rating::systems::team_model`];
//! this module only predicts with them, for the replay and the balancer alike.

use std::f64::consts::PI;

use serde::{Deserialize, Serialize};

/// Number of coefficients: skill difference, team size, red side, side term (game and map).
pub const COEFFICIENTS: usize = 4;

/// Prior mean of the coefficients: the frag-count scale `g` and the side term `F` as derived
/// (1), no size or residual side effect (0).
pub const PRIOR_MEAN: [f64; COEFFICIENTS] = [1.0, 0.0, 0.0, 1.0];

/// Half-range of a player's team strength: `u(θ) = θ / √(1 + (θ/B)²)` with `B` this (see the
/// module doc): like `2·tanh(θ/2) = 4·σ(θ) − 2`, the frag share against the site's mean player
/// in θ's units, it has slope 1 at θ = 0 and stays within ±2.
pub const STRENGTH_BOUND: f64 = 2.0;

/// What a prediction needs of one player.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Skill {
    /// θ (natural-log frag odds; 0 = a newcomer in the fit's prior).
    pub mean: f64,
    /// Variance of θ (may be infinite: knows nothing).
    pub variance: f64,
}

/// The learnt parameters of the model for one game and map: everything a prediction needs
/// besides the players' skills (shared with the balancer through `data/balance.js`, for the
/// site's most played game with the game's side term).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TeamParams {
    /// Skill difference (β_s·g), team size (log ratio of weights), red side (β_0, plus β_F·F
    /// for the balancer), side term (β_F).
    pub coef: [f64; COEFFICIENTS],
    /// Skill of a player never seen.
    pub newcomer: Skill,
    /// Expected score margin per unit of 2p − 1 (0: no margin learnt).
    #[serde(default)]
    pub margin: f64,
    /// The half-range `B` of a player's team strength (see [`strength`]; 0: the strength is θ
    /// itself, the mean form of earlier versions).
    #[serde(default)]
    pub bound: f64,
    /// What the balancer's margin was learnt from (its game, game type, scores and slope), so
    /// the balancer can say why there is none; None outside [`TeamModel::params`](crate::rating::systems::team_model::TeamModel::params).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_basis: Option<MarginBasis>,
}

/// The results behind the balancer's expected score margin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarginBasis {
    /// The game's display name (the site's game with the most team results).
    pub game: String,
    /// Its game type with the most final scores (its code, as in the logs: `ctf`, `tdm`).
    pub gametype: String,
    /// Team matches of the game with a final score whose margin share was learnt.
    pub matches: u64,
    /// The least-squares slope of their margin shares on 2p − 1 before it is kept at 0 or
    /// above (negative: the favourites won by less than the others, or lost).
    pub slope: f64,
}

/// A player's team strength: the mean becomes `u(θ) = θ / √(1 + (θ/B)²)` (θ itself when
/// `bound` B is 0), a saturating transform, so that a hopeless player cannot get more hopeless
/// (nor a star more decisive) than a frag share of 0 (or 1) against the site's mean player
/// allows. The variance stays θ's: `u' ≤ 1` makes it an upper bound of the strength's, and it
/// keeps the attenuation independent of θ, so more skill never lowers p. Only `+ × ÷ √`, which
/// IEEE 754 rounds exactly, so the page (`static/balance.js`) computes the same bits.
pub fn strength(skill: Skill, bound: f64) -> Skill {
    if bound <= 0.0 || !skill.mean.is_finite() {
        return skill;
    }
    let x = skill.mean / bound;
    // Beyond 1e100 bounds, x² would overflow: u is ±B to the last bit there.
    let mean = if x.abs() > 1e100 {
        bound.copysign(x)
    } else {
        skill.mean / (1.0 + x * x).sqrt()
    };
    Skill {
        mean,
        variance: skill.variance,
    }
}

pub(crate) fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// A side's weighted mean skill, the variance of that mean, and its total weight.
fn side_summary(members: impl Iterator<Item = (Skill, f64)>) -> (f64, f64, f64) {
    let (mut weight, mut sum) = (0.0, 0.0);
    let mut weighted = Vec::new();
    for (s, w) in members {
        weight += w;
        sum += w * s.mean;
        weighted.push((s.variance, w));
    }
    if weight <= 0.0 {
        return (0.0, 0.0, 0.0);
    }
    let variance = weighted
        .iter()
        .map(|(v, w)| (w / weight) * (w / weight) * v)
        .sum();
    (sum / weight, variance, weight)
}

/// The model's features of a line-up: strength difference, its variance, size term.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Features {
    /// Red's mean strength minus blue's.
    pub skill: f64,
    /// Variance of `skill`.
    pub variance: f64,
    /// ln(W_red / W_blue).
    pub size: f64,
    /// Log odds of red's wins on the map so far (0 when unknown).
    pub map: f64,
}

impl Features {
    /// The features of red and blue players given as (strength, time weight): each player's
    /// [`strength`], not their θ.
    pub fn of(
        red: impl Iterator<Item = (Skill, f64)>,
        blue: impl Iterator<Item = (Skill, f64)>,
        map: f64,
    ) -> Features {
        let (mr, vr, wr) = side_summary(red);
        let (mb, vb, wb) = side_summary(blue);
        let size = if wr > 0.0 && wb > 0.0 {
            (wr / wb).ln()
        } else {
            0.0
        };
        Features {
            skill: mr - mb,
            variance: vr + vb,
            size,
            map,
        }
    }
}

impl TeamParams {
    /// Why there is no expected score margin (`margin` is 0), from what it was learnt from: the
    /// words of the balance page (`static/balance.js`, `marginWhy`).
    pub fn margin_why(&self) -> String {
        let Some(b) = &self.margin_basis else {
            return "not learnt (the ratings do not say what from)".to_string();
        };
        let what = if b.gametype.is_empty() {
            b.game.clone()
        } else {
            format!("{} ({})", b.game, b.gametype)
        };
        if b.matches == 0 {
            format!(
                "none: it is learnt from the final scores of {what} team matches (the game with \
                 the most team results here), and none has a final score yet"
            )
        } else if b.slope <= 0.0 || b.slope.is_nan() {
            format!(
                "none: in the {} {} team match{} with a final score, the favourite did not win \
                 by more than the underdog (the margin's slope on the prediction is {:.2})",
                b.matches,
                b.game,
                if b.matches == 1 { "" } else { "es" },
                b.slope
            )
        } else {
            format!("none: the {what} matches' final scores add up to 0")
        }
    }

    /// The prior: before any team result.
    pub fn prior(newcomer: Skill) -> TeamParams {
        TeamParams {
            coef: PRIOR_MEAN,
            newcomer,
            margin: 0.0,
            bound: STRENGTH_BOUND,
            margin_basis: None,
        }
    }

    /// A player's team strength under these parameters (see [`strength`]).
    pub fn strength(&self, skill: Skill) -> Skill {
        strength(skill, self.bound)
    }

    /// The skill scale used (never negative: more skill never lowers p).
    fn scale(&self) -> f64 {
        self.coef[0].max(0.0)
    }

    /// The attenuation of the logit by the uncertainty of the skill difference (1 when certain,
    /// 0 when nothing is known).
    pub(crate) fn attenuation(&self, variance: f64) -> f64 {
        let b = self.scale();
        let spread = PI / 8.0 * b * b * variance;
        if spread.is_finite() {
            1.0 / (1.0 + spread).sqrt()
        } else {
            0.0
        }
    }

    /// The feature vector after the attenuation, as the coefficients multiply it.
    pub(crate) fn inputs(&self, f: &Features) -> [f64; COEFFICIENTS] {
        let k = self.attenuation(f.variance);
        [k * f.skill, k * f.size, k, k * f.map]
    }

    /// The logit of "red wins".
    pub fn logit(&self, f: &Features) -> f64 {
        let x = self.inputs(f);
        let coef = [self.scale(), self.coef[1], self.coef[2], self.coef[3]];
        coef.iter().zip(&x).map(|(b, x)| b * x).sum()
    }

    /// P(red wins).
    pub fn p_red(&self, f: &Features) -> f64 {
        sigmoid(self.logit(f))
    }

    /// Red's expected score minus blue's when red wins with probability `p_red`.
    pub fn expected_margin(&self, p_red: f64) -> f64 {
        self.margin * (2.0 * p_red - 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CLI's `--explain` gives the balance page's reason for a margin of 0.
    #[test]
    fn margin_why_names_the_game_the_matches_and_the_slope() {
        let mut p = TeamParams::prior(Skill {
            mean: 0.0,
            variance: 1.0,
        });
        assert!(p.margin_why().contains("do not say"));
        p.margin_basis = Some(MarginBasis {
            game: "OpenArena".into(),
            gametype: "ctf".into(),
            matches: 14,
            slope: -0.043,
        });
        assert_eq!(
            p.margin_why(),
            "none: in the 14 OpenArena team matches with a final score, the favourite did not \
             win by more than the underdog (the margin's slope on the prediction is -0.04)"
        );
        p.margin_basis.as_mut().unwrap().matches = 0;
        assert!(p.margin_why().contains("OpenArena (ctf) team matches"));
    }

    fn params() -> TeamParams {
        TeamParams {
            coef: [3.0, 0.5, 0.0, 0.0],
            newcomer: Skill {
                mean: -0.2,
                variance: 0.3,
            },
            margin: 0.0,
            bound: 0.0,
            margin_basis: None,
        }
    }

    fn s(mean: f64, variance: f64) -> Skill {
        Skill { mean, variance }
    }

    fn p(params: &TeamParams, red: &[(Skill, f64)], blue: &[(Skill, f64)]) -> f64 {
        params.p_red(&Features::of(
            red.iter().copied(),
            blue.iter().copied(),
            0.0,
        ))
    }

    /// A small deterministic generator for the property tests.
    fn lcg(seed: &mut u64) -> f64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*seed >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Random coefficients (the skill coefficient up to `scale`; size, red side and side term
    /// within ±0.5) and a map's side feature within ±1.
    fn random_terms(seed: &mut u64, scale: f64) -> ([f64; 4], f64) {
        let coef = [
            lcg(seed) * scale,
            lcg(seed) - 0.5,
            lcg(seed) - 0.5,
            lcg(seed) - 0.5,
        ];
        (coef, lcg(seed) * 2.0 - 1.0)
    }

    fn lineup(seed: &mut u64, n: usize) -> Vec<(Skill, f64)> {
        (0..n)
            .map(|_| (s(lcg(seed) * 4.0 - 2.0, lcg(seed)), 0.2 + lcg(seed) * 0.8))
            .collect()
    }

    /// Without side and map bias, swapping the teams gives 1 − p; the order of the players
    /// does not matter; more skill never lowers p; infinite uncertainty gives 0.5.
    #[test]
    fn properties_on_random_lineups() {
        let mut seed = 7;
        let params = params();
        for round in 0..500 {
            let n_red = 1 + round % 6;
            let red = lineup(&mut seed, n_red);
            let blue = lineup(&mut seed, 1 + (round / 6) % 6);
            let forward = p(&params, &red, &blue);
            let swapped = p(&params, &blue, &red);
            assert!(
                (forward + swapped - 1.0).abs() < 1e-12,
                "{forward} {swapped}"
            );
            let mut shuffled = red.clone();
            shuffled.reverse();
            shuffled.rotate_left(round % n_red);
            assert!((p(&params, &shuffled, &blue) - forward).abs() < 1e-12);
            let mut better = red.clone();
            let who = round % n_red;
            better[who].0.mean += lcg(&mut seed) * 2.0;
            assert!(p(&params, &better, &blue) >= forward);
            let mut unknown = red.clone();
            unknown[who].0.variance = f64::INFINITY;
            assert_eq!(p(&params, &unknown, &blue), 0.5);
        }
    }

    /// With side bias and map terms as learnt: the order of the players does not matter, more
    /// skill on red never lowers p and on blue never raises it, one player of infinite
    /// uncertainty gives exactly 0.5 (the terms are attenuated with the skills), and swapping
    /// the teams with the signs of both terms flipped gives 1 − p.
    #[test]
    fn properties_with_side_and_map_terms() {
        let mut seed = 11;
        for round in 0..500 {
            let mut params = params();
            let map;
            (params.coef, map) = random_terms(&mut seed, 4.0);
            let (red, blue) = (
                lineup(&mut seed, 1 + round % 5),
                lineup(&mut seed, 1 + round % 4),
            );
            let p_map = |params: &TeamParams, red: &[(Skill, f64)], blue: &[(Skill, f64)], map| {
                params.p_red(&Features::of(
                    red.iter().copied(),
                    blue.iter().copied(),
                    map,
                ))
            };
            let forward = p_map(&params, &red, &blue, map);
            let mut mirrored = params.clone();
            mirrored.coef[2] = -mirrored.coef[2];
            let swapped = p_map(&mirrored, &blue, &red, -map);
            assert!(
                (forward + swapped - 1.0).abs() < 1e-12,
                "{forward} {swapped}"
            );
            let mut shuffled = blue.clone();
            shuffled.rotate_right(round % blue.len());
            shuffled.reverse();
            assert!((p_map(&params, &red, &shuffled, map) - forward).abs() < 1e-12);
            let mut stronger_blue = blue.clone();
            stronger_blue[round % blue.len()].0.mean += lcg(&mut seed);
            assert!(p_map(&params, &red, &stronger_blue, map) <= forward);
            let mut unknown = blue.clone();
            unknown[0].0.variance = f64::INFINITY;
            assert_eq!(p_map(&params, &red, &unknown, map), 0.5);
        }
    }

    /// P(red wins) with every player's skill θ through the parameters' team strength, as the
    /// model and the balancer take it.
    fn p_strength(
        params: &TeamParams,
        red: &[(Skill, f64)],
        blue: &[(Skill, f64)],
        map: f64,
    ) -> f64 {
        let side = |t: &[(Skill, f64)]| {
            t.iter()
                .map(|&(skill, w)| (params.strength(skill), w))
                .collect::<Vec<_>>()
        };
        params.p_red(&Features::of(
            side(red).into_iter(),
            side(blue).into_iter(),
            map,
        ))
    }

    /// Hand-worked: u(θ) = θ/√(1 + (θ/2)²): u(0) = 0, u(2) = 2/√2, u(−2√3) = −2√3/2, odd,
    /// increasing, within ±2; bound 0 is θ itself; the variance is θ's.
    #[test]
    fn strength_hand_worked() {
        let u = |t: f64| strength(s(t, 0.3), STRENGTH_BOUND);
        assert_eq!(u(0.0).mean, 0.0);
        assert!((u(2.0).mean - 2f64.sqrt()).abs() < 1e-15);
        assert!((u(-2.0 * 3f64.sqrt()).mean + 3f64.sqrt()).abs() < 1e-15);
        assert_eq!(u(2.0).variance, 0.3);
        assert_eq!(strength(s(-7.5, 0.2), 0.0), s(-7.5, 0.2));
        let mut last = -STRENGTH_BOUND;
        for i in -400..=400 {
            let t = f64::from(i) * 0.05;
            let x = u(t).mean;
            assert!(x > last && x < STRENGTH_BOUND, "{t}: {x}");
            assert_eq!(u(-t).mean, -x);
            last = x;
        }
        assert_eq!(u(1e300).mean, STRENGTH_BOUND);
        assert_eq!(u(-f64::MAX).mean, -STRENGTH_BOUND);
        let unknown = strength(s(-1.0, f64::INFINITY), STRENGTH_BOUND);
        assert_eq!(unknown.variance, f64::INFINITY);
    }

    /// A hopeless player: red's third player at θ −8 instead of blue's at −4 (the others at 0)
    /// costs red little, where the mean θ made red a clear underdog.
    #[test]
    fn one_hopeless_player_does_not_decide() {
        let mut params = params();
        let team = |t: f64| [(s(0.0, 0.0), 1.0), (s(0.0, 0.0), 1.0), (s(t, 0.0), 1.0)];
        let mean_form = p_strength(&params, &team(-8.0), &team(-4.0), 0.0);
        params.bound = STRENGTH_BOUND;
        let saturating = p_strength(&params, &team(-8.0), &team(-4.0), 0.0);
        // Mean form: logit 3·(−8/3 + 4/3) = −4; strength: 3·(u(−8) − u(−4))/3 = −8/√17 + 4/√5.
        assert!((mean_form - sigmoid(-4.0)).abs() < 1e-12);
        let want = sigmoid(-8.0 / 17f64.sqrt() + 4.0 / 5f64.sqrt());
        assert!((saturating - want).abs() < 1e-12, "{saturating} {want}");
        assert!(saturating > 0.45);
    }

    /// The four properties with the saturating strength, skills far beyond its bounds and
    /// side and map terms as learnt: swapping the teams (and the terms' signs) gives 1 − p,
    /// the order of the players does not matter, more skill on red never lowers p and on blue
    /// never raises it, and one player of infinite uncertainty gives exactly 0.5.
    #[test]
    fn properties_of_the_saturating_strength() {
        let mut seed = 23;
        let wide = |seed: &mut u64, n: usize| -> Vec<(Skill, f64)> {
            (0..n)
                .map(|_| {
                    let theta = (lcg(seed) - 0.5) * 16.0;
                    (s(theta, lcg(seed)), 0.2 + lcg(seed) * 0.8)
                })
                .collect()
        };
        for round in 0..1000 {
            let mut params = params();
            params.bound = STRENGTH_BOUND;
            let map;
            (params.coef, map) = random_terms(&mut seed, 6.0);
            let (red, blue) = (
                wide(&mut seed, 1 + round % 6),
                wide(&mut seed, 1 + (round / 6) % 5),
            );
            let forward = p_strength(&params, &red, &blue, map);
            let mut mirrored = params.clone();
            mirrored.coef[2] = -mirrored.coef[2];
            let swapped = p_strength(&mirrored, &blue, &red, -map);
            assert!(
                (forward + swapped - 1.0).abs() < 1e-12,
                "{forward} {swapped}"
            );
            let mut shuffled = red.clone();
            shuffled.reverse();
            shuffled.rotate_left(round % red.len());
            assert!((p_strength(&params, &shuffled, &blue, map) - forward).abs() < 1e-12);
            let who = round % red.len();
            let mut better = red.clone();
            better[who].0.mean += lcg(&mut seed) * 3.0;
            assert!(p_strength(&params, &better, &blue, map) >= forward);
            let mut stronger_blue = blue.clone();
            stronger_blue[round % blue.len()].0.mean += lcg(&mut seed) * 3.0;
            assert!(p_strength(&params, &red, &stronger_blue, map) <= forward);
            let mut unknown = red.clone();
            unknown[who].0.variance = f64::INFINITY;
            assert_eq!(p_strength(&params, &unknown, &blue, map), 0.5);
        }
    }

    /// With a side bias, swapping the teams is the same as flipping the bias's sign.
    #[test]
    fn side_bias_is_the_only_asymmetry() {
        let mut biased = params();
        biased.coef[2] = 0.4;
        let mut flipped = biased.clone();
        flipped.coef[2] = -0.4;
        let red = [(s(0.5, 0.1), 1.0), (s(-0.1, 0.2), 0.7)];
        let blue = [(s(0.2, 0.1), 1.0)];
        let a = p(&biased, &red, &blue);
        assert!((a + p(&flipped, &blue, &red) - 1.0).abs() < 1e-12);
        assert!(a > p(&params(), &red, &blue));
    }

    /// Hand-worked: red (θ 1, weight 1; θ 0, weight 1) against blue (θ 0, weight 1), certain
    /// skills: m_red − m_blue = 0.5, ln(2/1) size term; logit = 3·0.5 + 0.5·ln 2.
    #[test]
    fn hand_worked_prediction() {
        let red = [(s(1.0, 0.0), 1.0), (s(0.0, 0.0), 1.0)];
        let blue = [(s(0.0, 0.0), 1.0)];
        let want = sigmoid(1.5 + 0.5 * 2f64.ln());
        assert!((p(&params(), &red, &blue) - want).abs() < 1e-12);
        // Variance 0.25 + 0.25 on each side's mean (weights 1/2): V = 0.5·... hand: red mean
        // variance = (1/2)²·0.4 + (1/2)²·0.4 = 0.2, blue 0.4; V = 0.6.
        let red = [(s(1.0, 0.4), 1.0), (s(0.0, 0.4), 1.0)];
        let blue = [(s(0.0, 0.4), 1.0)];
        let k = 1.0 / (1.0 + PI / 8.0 * 9.0 * 0.6f64).sqrt();
        let want = sigmoid(k * (1.5 + 0.5 * 2f64.ln()));
        assert!((p(&params(), &red, &blue) - want).abs() < 1e-12);
    }

    /// The expected margin: c·(2p − 1), so 0 at 50%, the sign of the favourite, and swapping
    /// the teams (no side term) negates it.
    #[test]
    fn expected_margin_hand_worked() {
        let mut params = params();
        params.margin = 12.0;
        assert_eq!(params.expected_margin(0.5), 0.0);
        assert!((params.expected_margin(0.75) - 6.0).abs() < 1e-12);
        let red = [(s(0.5, 0.1), 1.0), (s(-0.1, 0.2), 0.7)];
        let blue = [(s(0.2, 0.1), 1.0)];
        let forward = params.expected_margin(p(&params, &red, &blue));
        let swapped = params.expected_margin(p(&params, &blue, &red));
        assert!(forward > 0.0 && (forward + swapped).abs() < 1e-12);
    }
}
