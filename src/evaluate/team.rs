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
//!   `b_game` is a coefficient per game with prior N(0, [`GAME_SIDE_VARIANCE`]) (sides of
//!   asymmetric games win 25% to 75%: logit ±1.1 at two standard deviations), `b_map` one per
//!   map of the game with prior N(0, [`MAP_SIDE_VARIANCE`]) (a map's side differs from its game's
//!   by about ±0.3 in logit), so a map is shrunk toward its game. Each is learnt with the others
//!   fixed (mean field), by the same Laplace step: unlike a raw win rate, a side term learnt
//!   jointly with the skills does not take a strong team's streak within one match for a side
//!   effect.
//! - `β` (scale, size, residual red bias) are learnt from this site's own team results,
//!   prequentially: a Gaussian posterior updated after each result by one Laplace (extended
//!   Kalman) step, from the features taken when that result started (a round is predicted at
//!   its own start, after the frags and results of the match's earlier rounds). Frags are
//!   predicted exactly as the headline fit predicts them. It learns no per-player skill from team
//!   results: with a few dozen results per site those add noise (the NS2 model's scores show it).
//!
//! The expected score margin (red's team score minus blue's, in the game type's own unit: frags
//! in team deathmatch, captures in capture the flag, rounds) is `c·(2p − 1)`, `p` the
//! prediction at the match start, `c = s·T`: `T` the mean final score (red's plus blue's) of
//! the game type's earlier matches, and `s` the game's least-squares slope of the earlier
//! matches' margin shares (margin / their own total) on their `2p − 1`, ridge-shrunk toward 0
//! (the naive "even" prediction) by [`MARGIN_RIDGE`], and never below 0. A share has no unit, so the game's
//! capture-the-flag and deathmatch results teach one slope, and each game type scales it by
//! its own score.

use std::collections::BTreeMap;
use std::f64::consts::PI;

use serde::{Deserialize, Serialize};

use super::systems::{FragRater, TeamGame, TeamMember, saved_fields};
use crate::balance::{Candidate, Rules};
use crate::rating::whole_history::WholeHistory;

/// Key of the team model among the systems.
pub const TEAM_MODEL_ID: &str = "team-model";

/// Number of coefficients: skill difference, team size, red side, side term (game and map).
pub const COEFFICIENTS: usize = 4;

/// Prior mean of the coefficients: the frag-count scale `g` and the side term `F` as derived
/// (1), no size or residual side effect (0).
const PRIOR_MEAN: [f64; COEFFICIENTS] = [1.0, 0.0, 0.0, 1.0];
/// Prior variance of each coefficient (independent): the scale's derivation is good to a
/// factor of about 1.5; the side term's coefficient is fixed (its terms are learnt instead).
const PRIOR_VARIANCE: [f64; COEFFICIENTS] = [0.25, 0.25, 0.04, 0.25];

/// `g = FRAG_SCALE·√N`: from Φ(x) ≈ σ(1.7·x) and a frag edge Δ being worth Δ·√N/2 standard
/// deviations of the frag count.
const FRAG_SCALE: f64 = 0.85;

/// Half-range of a player's team strength: `u(θ) = θ / √(1 + (θ/B)²)` with `B` this (see the
/// module doc): like `2·tanh(θ/2) = 4·σ(θ) − 2`, the frag share against the site's mean player
/// in θ's units, it has slope 1 at θ = 0 and stays within ±2.
pub const STRENGTH_BOUND: f64 = 2.0;

/// Prior variance of a game's side coefficient (see the module doc).
pub const GAME_SIDE_VARIANCE: f64 = 0.3;
/// Prior variance of a map's side coefficient around its game's.
pub const MAP_SIDE_VARIANCE: f64 = 0.1;

/// Ridge of the margin slope, in units of Σ(2p − 1)²: one pseudo-match at p = 0.6 margin 0.
pub const MARGIN_RIDGE: f64 = 0.04;

/// Variance added to each coefficient before each result, as a share of its prior variance.
const DRIFT: f64 = 0.01;

/// Largest line-up whose fairest split the replay searches exhaustively for every team match
/// (2^13 splits); bigger ones get the snake split by skill, which costs no search.
pub const FAIREST_EXACT_UP_TO: usize = 14;

/// A newcomer's prior mean is the mean θ of this many pseudo-newcomers at 0 plus the real ones
/// (shrinks the estimate while there are few).
const NEWCOMER_PSEUDO: f64 = 5.0;

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
    /// the balancer can say why there is none; None outside [`TeamModel::params`].
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

fn sigmoid(x: f64) -> f64 {
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
    fn attenuation(&self, variance: f64) -> f64 {
        let b = self.scale();
        let spread = PI / 8.0 * b * b * variance;
        if spread.is_finite() {
            1.0 / (1.0 + spread).sqrt()
        } else {
            0.0
        }
    }

    /// The feature vector after the attenuation, as the coefficients multiply it.
    fn inputs(&self, f: &Features) -> [f64; COEFFICIENTS] {
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

/// The coefficients' Gaussian posterior.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Posterior {
    mean: [f64; COEFFICIENTS],
    cov: [[f64; COEFFICIENTS]; COEFFICIENTS],
}

impl Posterior {
    fn prior() -> Posterior {
        let mut cov = [[0.0; COEFFICIENTS]; COEFFICIENTS];
        for (i, row) in cov.iter_mut().enumerate() {
            row[i] = PRIOR_VARIANCE[i];
        }
        Posterior {
            mean: PRIOR_MEAN,
            cov,
        }
    }

    /// One Laplace step of Bayesian logistic regression on inputs `x` and outcome `y`, after a
    /// little drift: the coefficients may change as the site's players and skills do (and the
    /// skills the features use sharpen as evidence grows), so old results weigh less.
    fn learn(&mut self, x: &[f64; COEFFICIENTS], y: f64, offset: f64) {
        for (i, row) in self.cov.iter_mut().enumerate() {
            row[i] += DRIFT * PRIOR_VARIANCE[i];
        }
        let z: f64 = offset + self.mean.iter().zip(x).map(|(m, x)| m * x).sum::<f64>();
        let p = sigmoid(z);
        let h = p * (1.0 - p);
        let mut sx = [0.0; COEFFICIENTS];
        for (i, row) in self.cov.iter().enumerate() {
            sx[i] = row.iter().zip(x).map(|(c, x)| c * x).sum();
        }
        let xsx: f64 = sx.iter().zip(x).map(|(a, b)| a * b).sum();
        let denominator = 1.0 + h * xsx;
        for i in 0..COEFFICIENTS {
            for j in 0..COEFFICIENTS {
                self.cov[i][j] -= h * sx[i] * sx[j] / denominator;
            }
        }
        // The new mean moves along the new covariance times the gradient.
        for i in 0..COEFFICIENTS {
            let step: f64 = self.cov[i].iter().zip(x).map(|(c, x)| c * x).sum();
            self.mean[i] += step * (y - p);
        }
    }
}

/// A Gaussian belief about one side coefficient: mean, variance (variance 0: the prior's).
type Belief = (f64, f64);

/// One Laplace step of a coefficient `b` whose input in the logit is `x`, when the logit made
/// red win with probability `p` and red won `y`.
fn learn_belief(b: &mut Belief, prior_variance: f64, x: f64, p: f64, y: f64) {
    if b.1 <= 0.0 {
        b.1 = prior_variance;
    }
    b.1 = 1.0 / (1.0 / b.1 + p * (1.0 - p) * x * x);
    b.0 += b.1 * x * (y - p);
}

/// What the model has learnt of one game's results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct GameRecord {
    /// Results learnt.
    results: f64,
    /// The game's side coefficient.
    side: Belief,
    /// Per map: its side coefficient (around the game's).
    maps: BTreeMap<String, Belief>,
    /// Results counted and the sum of √(frags) over them.
    frags: (f64, f64),
    /// The margin share regression: Σ share·x and Σ x², x = 2p − 1 at the match start.
    share: (f64, f64),
    /// Per game type: its final scores and margins so far.
    margins: BTreeMap<String, MarginRecord>,
}

/// What the model has seen of one game type's final scores.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct MarginRecord {
    /// Matches, and the sum of their scores added up (red's plus blue's).
    totals: (f64, f64),
    /// The sum of their margins (the naive baseline: the mean margin).
    margins: f64,
}

impl MarginRecord {
    /// The mean margin so far (0 before any).
    fn mean_margin(&self) -> f64 {
        if self.totals.0 > 0.0 {
            self.margins / self.totals.0
        } else {
            0.0
        }
    }

    /// The mean final score, red's plus blue's (0 before any).
    fn mean_total(&self) -> f64 {
        if self.totals.0 > 0.0 {
            self.totals.1 / self.totals.0
        } else {
            0.0
        }
    }
}

impl GameRecord {
    /// The side term F of `map` (see the module doc).
    fn side_logit(&self, map: &str) -> f64 {
        self.side.0 + self.maps.get(map).map_or(0.0, |b| b.0)
    }

    /// The margin slope c of `gametype`: the game's share slope times the type's mean score.
    /// Never negative: the favourite is never expected to lose (a few results can make the
    /// least-squares slope negative).
    fn margin_slope(&self, gametype: &str) -> f64 {
        let total = self
            .margins
            .get(gametype)
            .map_or(0.0, MarginRecord::mean_total);
        (self.share.0 / (self.share.1 + MARGIN_RIDGE)).max(0.0) * total
    }

    /// The game type with the most final scores seen (the balancer's).
    fn main_gametype(&self) -> &str {
        self.margins
            .iter()
            .max_by(|a, b| a.1.totals.0.total_cmp(&b.1.totals.0).then(b.0.cmp(a.0)))
            .map_or("", |(code, _)| code.as_str())
    }
}

/// Errors of the expected margin of team matches, against naive predictions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MarginScore {
    /// Team matches with a final score.
    pub matches: u64,
    /// Mean |margin − expected margin| of the model.
    pub mae: f64,
    /// Mean |margin| (the naive prediction: an even match).
    pub mae_even: f64,
    /// Mean |margin − the mean margin of the game type's earlier matches| (the naive side
    /// prediction).
    pub mae_game_mean: f64,
}

/// The team model as an evaluated system.
pub struct TeamModel {
    fit: WholeHistory,
    /// The fit is lent by the evaluator (the headline's, [`FragRater::borrow_fit`]): frags and
    /// match ends are not learnt into it here.
    borrowed: bool,
    /// Frags made plus suffered per player so far.
    incidents: Vec<u64>,
    /// Players with frags in the current match.
    current: Vec<u32>,
    /// θ of newcomers at the end of their first match: count, sum.
    newcomers: (f64, f64),
    posterior: Posterior,
    /// Per game code: its sides, maps, frags per result and margins.
    games: BTreeMap<String, GameRecord>,
    /// Features of the current team result, taken when it started, and its frags so far.
    pending: Option<Features>,
    frags_since_start: u64,
    /// The current match: game, game type, P(red wins) at its start; its final margin and
    /// total score (once known).
    match_start: Option<(String, String, f64)>,
    match_margin: Option<(f64, f64)>,
    /// The margin errors: matches, Σ|model error|, Σ|margin|, Σ|error of the game type's mean|.
    margin_sums: (u64, f64, f64, f64),
}

impl TeamModel {
    /// No player yet; `decay` as the headline fit's.
    pub fn new(players: usize, decay: f64) -> TeamModel {
        TeamModel {
            fit: WholeHistory::new(players, decay),
            borrowed: false,
            incidents: vec![0; players],
            current: Vec::new(),
            newcomers: (0.0, 0.0),
            posterior: Posterior::prior(),
            games: BTreeMap::new(),
            pending: None,
            frags_since_start: 0,
            match_start: None,
            match_margin: None,
            margin_sums: (0, 0.0, 0.0, 0.0),
        }
    }

    /// The prior of a player never seen.
    fn newcomer(&self) -> Skill {
        Skill {
            mean: self.newcomers.1 / (self.newcomers.0 + NEWCOMER_PSEUDO),
            variance: self.fit.prior_variance(),
        }
    }

    /// Player `i`'s skill now (a newcomer's prior when they have no frags yet).
    fn skill(&self, i: u32) -> Skill {
        if self.incidents.get(i as usize).copied().unwrap_or(0) == 0 {
            return self.newcomer();
        }
        let (mean, variance) = self.fit.posterior(i as usize);
        Skill { mean, variance }
    }

    /// Player `i`'s team strength: their skill through [`strength`], with the bound every
    /// [`TeamParams`] this model hands out carries ([`STRENGTH_BOUND`]).
    fn strength(&self, i: u32) -> Skill {
        strength(self.skill(i), STRENGTH_BOUND)
    }

    /// The frag-count scale g of `game` (see the module doc).
    fn frag_scale(&self, game: &str) -> f64 {
        let (n, sum) = match self.games.get(game) {
            Some(g) if g.frags.0 > 0.0 => g.frags,
            _ => self
                .games
                .values()
                .fold((0.0, 0.0), |a, g| (a.0 + g.frags.0, a.1 + g.frags.1)),
        };
        if n > 0.0 { FRAG_SCALE * sum / n } else { 1.0 }
    }

    /// The learnt parameters now for `game` and `gametype` (the side term goes in the features).
    fn params_for(&self, game: &str, gametype: &str) -> TeamParams {
        let b = &self.posterior.mean;
        TeamParams {
            coef: [b[0].max(0.0) * self.frag_scale(game), b[1], b[2], b[3]],
            newcomer: self.newcomer(),
            margin: self
                .games
                .get(game)
                .map_or(0.0, |g| g.margin_slope(gametype)),
            bound: STRENGTH_BOUND,
            margin_basis: None,
        }
    }

    /// The learnt parameters now for the game and game type of `game`.
    fn params_of(&self, game: &TeamGame) -> TeamParams {
        self.params_for(&game.game, &game.gametype)
    }

    /// The game with the most team results so far (the balancer's).
    fn main_game(&self) -> Option<&str> {
        self.games
            .iter()
            .max_by(|a, b| {
                let n = |g: &GameRecord| g.results;
                n(a.1).total_cmp(&n(b.1)).then(b.0.cmp(a.0))
            })
            .map(|(code, _)| code.as_str())
    }

    /// The learnt parameters now, for the balancer: those of the site's most played game (and
    /// its game type with the most margins), with its side term (without a map) in the red
    /// side's coefficient.
    pub fn params(&self) -> TeamParams {
        let Some(game) = self.main_game() else {
            return self.params_for("", "");
        };
        let record = self.games.get(game);
        let gametype = record.map_or("", GameRecord::main_gametype);
        let mut params = self.params_for(game, gametype);
        let side = record.map_or(0.0, |g| g.side_logit(""));
        params.coef[2] += params.coef[3] * side;
        params.margin_basis = Some(MarginBasis {
            game: crate::model::game_name(game).to_string(),
            gametype: gametype.to_string(),
            matches: record.map_or(0, |g| {
                g.margins.values().map(|m| m.totals.0).sum::<f64>() as u64
            }),
            slope: record.map_or(0.0, |g| g.share.0 / (g.share.1 + MARGIN_RIDGE)),
        });
        params
    }

    /// The side term of `game` on `map`.
    fn side_logit(&self, game: &TeamGame) -> f64 {
        self.games
            .get(&game.game)
            .map_or(0.0, |g| g.side_logit(&game.map))
    }

    fn features(&self, game: &TeamGame) -> Features {
        let side = |red: bool| {
            game.members
                .iter()
                .filter(move |m| m.red == red)
                .map(|m: &TeamMember| (self.strength(m.player), m.weight))
        };
        Features::of(side(true), side(false), self.side_logit(game))
    }

    /// Every player's skill (in the replay's numbering) after a final fit, and the parameters.
    pub fn snapshot(&mut self) -> (Vec<Skill>, TeamParams) {
        self.fit.converge();
        let skills = (0..self.incidents.len() as u32)
            .map(|i| self.skill(i))
            .collect();
        (skills, self.params())
    }
}

impl FragRater for TeamModel {
    fn name(&self) -> &'static str {
        "fragstats team model"
    }
    fn id(&self) -> &'static str {
        TEAM_MODEL_ID
    }
    fn predict(&self, killer: u32, victim: u32) -> f64 {
        self.fit.predict(killer, victim)
    }
    fn frag(&mut self, killer: u32, victim: u32) {
        if !self.borrowed {
            self.fit.frag(killer, victim);
        }
        self.frags_since_start += 1;
        for p in [killer, victim] {
            if self.incidents[p as usize] == 0 {
                self.current.push(p);
            }
            self.incidents[p as usize] += 1;
        }
    }
    fn end_match(&mut self) {
        if !self.borrowed {
            self.fit.end_match();
        }
        // The match's newcomers: their θ after their first match enters the newcomer prior.
        let mut current = std::mem::take(&mut self.current);
        current.sort_unstable();
        current.dedup();
        for p in current {
            self.newcomers.0 += 1.0;
            self.newcomers.1 += self.fit.posterior(p as usize).0;
        }
        self.pending = None;
        // The margin: scored against its prediction at the match start, then learnt.
        if let (Some((game, gametype, p)), Some((margin, total))) =
            (self.match_start.take(), self.match_margin)
        {
            let record = self.games.entry(game).or_default();
            let x = 2.0 * p - 1.0;
            let expected = record.margin_slope(&gametype) * x;
            let seen = record.margins.entry(gametype).or_default();
            let naive = seen.mean_margin();
            let sums = &mut self.margin_sums;
            sums.0 += 1;
            sums.1 += (margin - expected).abs();
            sums.2 += margin.abs();
            sums.3 += (margin - naive).abs();
            seen.totals.0 += 1.0;
            seen.totals.1 += total;
            seen.margins += margin;
            if total > 0.0 {
                record.share.0 += margin / total * x;
                record.share.1 += x * x;
            }
        }
        self.match_margin = None;
    }
    fn predict_team(&self, game: &TeamGame) -> f64 {
        self.params_of(game).p_red(&self.features(game))
    }
    fn team_start(&mut self, game: &TeamGame) {
        let features = self.features(game);
        if self.match_start.is_none() {
            let p = self.params_of(game).p_red(&features);
            self.match_start = Some((game.game.clone(), game.gametype.clone(), p));
        }
        self.pending = Some(features);
        self.frags_since_start = 0;
    }
    fn expected_margin(&self, game: &TeamGame) -> Option<f64> {
        let params = self.params_of(game);
        Some(params.expected_margin(params.p_red(&self.features(game))))
    }
    fn margin_score(&self) -> Option<MarginScore> {
        let (n, model, even, mean) = self.margin_sums;
        let d = (n as f64).max(1.0);
        Some(MarginScore {
            matches: n,
            mae: model / d,
            mae_even: even / d,
            mae_game_mean: mean / d,
        })
    }
    fn fairest_team(&self, game: &TeamGame) -> Option<f64> {
        let mut players: Vec<u32> = game.members.iter().map(|m| m.player).collect();
        players.sort_unstable();
        players.dedup();
        let lobby: Vec<Candidate> = players
            .iter()
            .map(|&p| Candidate {
                name: String::new(),
                skill: self.strength(p),
            })
            .collect();
        let params = self.params_of(game);
        if lobby.len() < 2 {
            return None;
        }
        if lobby.len() > FAIREST_EXACT_UP_TO {
            return Some(crate::balance::abba(&lobby, &params).p_red);
        }
        crate::balance::balance(&lobby, &params, &Rules::default(), 0)
            .ok()
            .map(|proposal| proposal.best.p_red)
    }
    fn team_result(&mut self, game: &TeamGame) {
        // Every result is learnt from the features at its start (a round's, or the match's).
        let features = self.pending.take().unwrap_or_else(|| self.features(game));
        let g = self.frag_scale(&game.game);
        let params = self.params_of(game);
        let p = params.p_red(&features);
        let y = if game.red_won { 1.0 } else { 0.0 };
        let mut x = params.inputs(&features);
        x[0] *= g;
        // The side term enters as a fixed offset here; its own coefficients learn below.
        let side = x[3];
        x[3] = 0.0;
        self.posterior.learn(&x, y, side);
        let k = params.attenuation(features.variance);
        let record = self.games.entry(game.game.clone()).or_default();
        learn_belief(&mut record.side, GAME_SIDE_VARIANCE, k, p, y);
        let map = record.maps.entry(game.map.clone()).or_default();
        learn_belief(map, MAP_SIDE_VARIANCE, k, p, y);
        record.results += 1.0;
        record.frags.0 += 1.0;
        let events = game.decided_by.unwrap_or(self.frags_since_start as f64);
        record.frags.1 += events.max(0.0).sqrt();
        self.frags_since_start = 0;
        self.match_margin = game.margin.zip(game.score_total);
    }
    fn ratings(&mut self) -> Vec<f64> {
        self.fit.converge();
        self.fit.ratings()
    }
    fn grow(&mut self, players: usize) {
        self.fit.grow(players);
        self.incidents.resize(players, 0);
    }
    fn team_snapshot(&mut self) -> Option<(Vec<Skill>, TeamParams)> {
        Some(self.snapshot())
    }
    fn whole_history(&mut self) -> Option<&mut WholeHistory> {
        Some(&mut self.fit)
    }
    fn borrow_fit(&mut self, borrowed: bool) {
        if borrowed && !self.borrowed {
            // Its own copy is no longer read: keep an empty fit of the same model in its place.
            self.fit = self.fit.emptied();
        }
        self.borrowed = borrowed;
    }
    saved_fields!(fit, incidents, newcomers, posterior, games, margin_sums);
}

/// Number of bins of a reliability diagram (each 0.1 of predicted probability wide).
pub const BINS: usize = 10;

/// One bin of a reliability diagram.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bin {
    /// Lower edge of the predicted P(red wins) (inclusive).
    pub from: f64,
    /// Upper edge (exclusive, except 1 for the last bin).
    pub to: f64,
    /// Team results predicted in the bin.
    pub matches: u64,
    /// Mean prediction in the bin.
    pub predicted: f64,
    /// Share of the bin's results red won.
    pub observed: f64,
    /// The standard error `observed` would have around `predicted` if the predictions were
    /// calibrated (independent results): √(Σ p(1 − p)) / matches. A gap within about two of
    /// these is what chance alone gives.
    pub se: f64,
}

/// Predictions against outcomes in [`BINS`] bins, and the expected calibration error (the
/// results-weighted mean of |predicted − observed| over the bins).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Reliability {
    /// Bins with at least one result, lowest first.
    pub bins: Vec<Bin>,
    /// Expected calibration error (0 = calibrated; in probability, not points).
    pub ece: f64,
    /// Team results binned.
    pub matches: u64,
}

impl Reliability {
    /// The largest |predicted − observed| over the bins holding at least `min` results (None
    /// when no bin holds that many).
    pub fn worst_gap(&self, min: u64) -> Option<f64> {
        self.bins
            .iter()
            .filter(|b| b.matches >= min)
            .map(|b| (b.predicted - b.observed).abs())
            .max_by(f64::total_cmp)
    }
}

/// Running sums of a reliability diagram: per bin the results, the sum of the predictions and
/// the red wins (saved in the evaluation's checkpoint).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    sums: [(u64, f64, f64); BINS],
    /// Per bin: the sum of the squared predictions (for [`Bin::se`]).
    #[serde(default)]
    squares: [f64; BINS],
}

impl Calibration {
    /// One result: `p` the predicted P(red wins), `red_won` what happened.
    pub fn add(&mut self, p: f64, red_won: bool) {
        if !p.is_finite() {
            return;
        }
        let p = p.clamp(0.0, 1.0);
        let bin = ((p * BINS as f64) as usize).min(BINS - 1);
        let s = &mut self.sums[bin];
        s.0 += 1;
        s.1 += p;
        s.2 += f64::from(u8::from(red_won));
        self.squares[bin] += p * p;
    }

    /// The diagram and its expected calibration error.
    pub fn reliability(&self) -> Reliability {
        let total: u64 = self.sums.iter().map(|s| s.0).sum();
        let mut out = Reliability {
            matches: total,
            ..Reliability::default()
        };
        for (i, (&(n, p, w), &squares)) in self.sums.iter().zip(&self.squares).enumerate() {
            if n == 0 {
                continue;
            }
            let bin = Bin {
                from: i as f64 / BINS as f64,
                to: (i + 1) as f64 / BINS as f64,
                matches: n,
                predicted: p / n as f64,
                observed: w / n as f64,
                se: (p - squares).max(0.0).sqrt() / n as f64,
            };
            out.ece += n as f64 / total as f64 * (bin.predicted - bin.observed).abs();
            out.bins.push(bin);
        }
        out
    }
}

/// The reliability of `predictions` (P(red wins) per match, or None) against `red_won` (per
/// match: Some(red won) for a result with a winner), paired by position.
pub fn reliability(predictions: &[Option<f64>], red_won: &[Option<bool>]) -> Reliability {
    let mut c = Calibration::default();
    for (p, won) in predictions.iter().zip(red_won) {
        if let (Some(p), Some(won)) = (p, won) {
            c.add(*p, *won);
        }
    }
    c.reliability()
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

    /// Player `player` on red or blue for the whole result.
    fn member(player: u32, red: bool) -> TeamMember {
        TeamMember {
            player,
            red,
            weight: 1.0,
        }
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

    /// Learning: a first result moves the skill coefficient towards the evidence, by the
    /// Laplace step worked by hand for one coefficient.
    #[test]
    fn posterior_step_hand_worked() {
        let mut post = Posterior::prior();
        let x = [1.0, 0.0, 0.0, 0.0];
        let p0 = sigmoid(PRIOR_MEAN[0]);
        post.learn(&x, 0.0, 0.0);
        let h = p0 * (1.0 - p0);
        // The prior variance after the drift added before the step.
        let v0 = PRIOR_VARIANCE[0] * (1.0 + DRIFT);
        let var = v0 - h * v0 * v0 / (1.0 + h * v0);
        assert!((post.cov[0][0] - var).abs() < 1e-12);
        assert!((post.mean[0] - (PRIOR_MEAN[0] - var * p0)).abs() < 1e-12);
        // The other coefficients did not see this input.
        assert_eq!(post.mean[1..], PRIOR_MEAN[1..]);
    }

    /// On simulated team deathmatches with known skills (many more results than any real log set
    /// holds), the team model predicts the winners better than every other system and is
    /// calibrated in every bin of 30 or more matches.
    #[test]
    fn simulated_team_matches_are_predicted_best_and_calibrated() {
        let (matches, roster, _) = crate::testdata::simulated_team_matches(1200, 60, 11);
        let cfg = crate::config::RatingConfig::default();
        let evaluation = crate::evaluate::evaluate_all(&matches, &roster, &cfg, true);
        let ours = evaluation
            .report(TEAM_MODEL_ID)
            .unwrap()
            .team_results
            .clone();
        assert!(ours.outcomes > 1000, "{ours:?}");
        for r in &evaluation.systems {
            eprintln!("{:<30} {:.4}", r.system, r.team_results.log_loss);
            if r.id != TEAM_MODEL_ID {
                assert!(
                    ours.log_loss < r.team_results.log_loss,
                    "{} {:?}",
                    r.id,
                    r.team_results
                );
            }
        }
        let outcomes: Vec<Option<bool>> = matches
            .iter()
            .map(|m| m.team_scores.and_then(|[r, b]| (r != b).then_some(r > b)))
            .collect();
        let bins = reliability(&evaluation.predicted_red_win, &outcomes);
        for b in &bins.bins {
            eprintln!("{b:?}");
            // Within 5 points, or within two standard errors where a bin holds too few
            // matches to resolve 5 points (with 54 matches one standard error is 6.8 points).
            let se = (b.predicted * (1.0 - b.predicted) / b.matches as f64).sqrt();
            if b.matches >= 30 {
                assert!(
                    (b.predicted - b.observed).abs() < 0.05f64.max(2.0 * se),
                    "{b:?}"
                );
            }
        }
        assert!(bins.ece < 0.05, "{}", bins.ece);
    }

    /// The fairest split of a stacked line-up (the two strong players together) is the
    /// balancer's answer for the same skills, and closer to 50% than the line-up as played.
    #[test]
    fn fairest_team_is_the_balancers_split_of_the_same_players() {
        let mut model = TeamModel::new(4, 1.0);
        model.grow(4);
        model.start_match(Default::default());
        for _ in 0..20 {
            for (strong, weak) in [(0, 2), (1, 3), (0, 3), (1, 2)] {
                model.frag(strong, weak);
            }
        }
        model.end_match();
        let stacked = TeamGame {
            members: vec![
                member(0, true),
                member(1, true),
                member(2, false),
                member(3, false),
            ],
            red_won: true,
            map: "q3dm1".into(),
            game: "quake3".into(),
            gametype: "tdm".into(),
            margin: None,
            score_total: None,
            decided_by: None,
        };
        let fairest = model.fairest_team(&stacked).unwrap();
        let lobby: Vec<Candidate> = (0..4)
            .map(|p| Candidate {
                name: String::new(),
                skill: model.skill(p),
            })
            .collect();
        let params = model.params();
        let expected = crate::balance::balance(&lobby, &params, &Rules::default(), 0).unwrap();
        assert_eq!(fairest, expected.best.p_red);
        let as_played = crate::balance::p_red(&lobby, &params, &[0, 1], &[2, 3]);
        assert!(as_played > 0.6, "{as_played}");
        assert!(
            (fairest - 0.5).abs() < (as_played - 0.5).abs() / 4.0,
            "{fairest}"
        );
        // One player is no team.
        let alone = TeamGame {
            members: vec![member(0, true)],
            ..stacked
        };
        assert_eq!(model.fairest_team(&alone), None);
    }

    /// The expected margin is in each game type's own unit: the same line-ups win capture the
    /// flag 3–0 and team deathmatch 40–0, so the two slopes differ by that factor (one share
    /// slope, scaled by each type's mean score), and the balancer takes the slope of the game
    /// type with the most final scores.
    #[test]
    fn margin_slope_is_per_game_type() {
        let mut model = TeamModel::new(2, 1.0);
        model.start_match(Default::default());
        for _ in 0..30 {
            model.frag(0, 1);
        }
        model.frag(1, 0);
        model.end_match();
        let game = |gametype: &str, strong_red: bool, margin: f64| TeamGame {
            members: vec![member(0, strong_red), member(1, !strong_red)],
            red_won: (margin > 0.0) == strong_red,
            map: "m".into(),
            game: "openarena".into(),
            gametype: gametype.into(),
            margin: Some(if strong_red { margin } else { -margin }),
            score_total: Some(margin),
            decided_by: Some(margin),
        };
        for i in 0..40 {
            let (gametype, margin) = if i % 4 == 0 {
                ("tdm", 40.0)
            } else {
                ("ctf", 3.0)
            };
            let g = game(gametype, i % 2 == 0, margin);
            model.start_match(Default::default());
            model.team_start(&g);
            model.team_result(&g);
            model.end_match();
        }
        let ctf = model.params_for("openarena", "ctf").margin;
        let tdm = model.params_for("openarena", "tdm").margin;
        assert!(ctf > 0.0 && tdm > 0.0, "{ctf} {tdm}");
        assert!(tdm / ctf > 8.0, "frags and captures pooled: {tdm} / {ctf}");
        assert_eq!(model.params().margin, ctf, "ctf has the most margins");
        assert_eq!(model.params_for("openarena", "ffa").margin, 0.0);
    }

    /// One Laplace step of a side coefficient, by hand: precision 1/0.3 + p(1 − p)·x², mean
    /// moved by the new variance times x·(y − p).
    #[test]
    fn side_belief_step_hand_worked() {
        let mut b: Belief = (0.0, 0.0);
        learn_belief(&mut b, 0.3, 0.8, 0.6, 1.0);
        let var = 1.0 / (1.0 / 0.3 + 0.24 * 0.64);
        assert!((b.1 - var).abs() < 1e-12);
        assert!((b.0 - var * 0.8 * 0.4).abs() < 1e-12);
    }

    /// The side term is per game: red wins 4 results in 5 in one game and 1 in 5 in another,
    /// with line-ups the model knows nothing of; an even line-up is then predicted above 50%
    /// in the first game, below in the second, and the balancer's parameters carry the side
    /// term of the game with the most results. The frag-count scale is 0.85·mean √N of the
    /// game's results.
    #[test]
    fn side_term_and_frag_scale_are_per_game() {
        let mut model = TeamModel::new(2, 1.0);
        let game = |code: &str, red_won: bool| TeamGame {
            members: vec![member(0, true), member(1, false)],
            red_won,
            map: "m".into(),
            game: code.into(),
            gametype: "tdm".into(),
            margin: None,
            score_total: None,
            decided_by: Some(if code == "cs16" { 9.0 } else { 25.0 }),
        };
        for i in 0..60 {
            for code in ["cs16", "tf2"] {
                let red_won = (i % 5 == 0) != (code == "cs16");
                let g = game(code, red_won);
                model.start_match(Default::default());
                model.team_start(&g);
                model.team_result(&g);
                model.end_match();
            }
        }
        model.team_start(&game("cs16", true));
        model.team_result(&game("cs16", true));
        model.end_match();
        let p = |code: &str| model.predict_team(&game(code, true));
        assert!(p("cs16") > 0.65 && p("cs16") < 0.85, "{}", p("cs16"));
        assert!(p("tf2") < 0.35 && p("tf2") > 0.15, "{}", p("tf2"));
        assert!(
            p("et") > 0.35 && p("et") < 0.65,
            "a game never seen: {}",
            p("et")
        );
        assert!((model.frag_scale("cs16") - 0.85 * 3.0).abs() < 1e-12);
        assert!((model.frag_scale("tf2") - 0.85 * 5.0).abs() < 1e-12);
        let params = model.params();
        let side = model.games["cs16"].side_logit("");
        assert!(side > 0.5, "{side}");
        assert!((params.coef[2] - (model.posterior.mean[2] + side)).abs() < 1e-12);
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

    /// Hand-worked: bins, their means and the expected calibration error.
    #[test]
    fn reliability_hand_worked() {
        let predictions = [
            Some(0.05),
            Some(0.15),
            Some(0.12),
            None,
            Some(1.0),
            Some(0.95),
        ];
        let won = [
            Some(false),
            Some(true),
            Some(false),
            Some(true),
            Some(true),
            None,
        ];
        let r = reliability(&predictions, &won);
        assert_eq!(
            r.matches, 4,
            "a match without a prediction or winner is left out"
        );
        let bins: Vec<(f64, u64)> = r.bins.iter().map(|b| (b.from, b.matches)).collect();
        assert_eq!(
            bins,
            [(0.0, 1), (0.1, 2), (0.9, 1)],
            "p = 1 falls in the last bin"
        );
        assert!((r.bins[1].predicted - 0.135).abs() < 1e-12);
        assert_eq!(r.bins[1].observed, 0.5);
        // √(0.15·0.85 + 0.12·0.88) / 2; a bin of certain predictions has none.
        let se = (0.15f64 * 0.85 + 0.12 * 0.88).sqrt() / 2.0;
        assert!((r.bins[1].se - se).abs() < 1e-12, "{}", r.bins[1].se);
        assert_eq!(r.bins[2].se, 0.0);
        // ECE = (1·0.05 + 2·|0.135 − 0.5| + 1·0) / 4.
        assert!(
            (r.ece - (0.05 + 2.0 * 0.365) / 4.0).abs() < 1e-12,
            "{}",
            r.ece
        );
        assert!((r.worst_gap(2).unwrap() - 0.365).abs() < 1e-12);
        assert_eq!(r.worst_gap(3), None);
        let mut c = Calibration::default();
        c.add(f64::NAN, true);
        assert_eq!(c.reliability(), Reliability::default());
    }
}
