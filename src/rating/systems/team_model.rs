//! The team model as a rating system: learns the parameters of [`crate::team::model`] from a
//! site's own team results, in the order they were played, and predicts each before learning
//! from it.
//!
//! `β` (scale, size, residual red bias) are learnt from this site's own team results,
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

use serde::{Deserialize, Serialize};

use crate::rating::system::{FragRater, TeamGame, TeamMember, saved_fields};
use crate::rating::systems::whole_history::WholeHistory;
use crate::team::balance::{Candidate, Rules};
use crate::team::model::*;

/// Key of the team model among the systems.
pub const TEAM_MODEL_ID: &str = "team-model";

/// `g = FRAG_SCALE·√N`: from Φ(x) ≈ σ(1.7·x) and a frag edge Δ being worth Δ·√N/2 standard
/// deviations of the frag count.
const FRAG_SCALE: f64 = 0.85;

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

/// Prior variance of each coefficient (independent): the scale's derivation is good to a
/// factor of about 1.5; the side term's coefficient is fixed (its terms are learnt instead).
const PRIOR_VARIANCE: [f64; COEFFICIENTS] = [0.25, 0.25, 0.04, 0.25];

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
            return Some(crate::team::balance::abba(&lobby, &params).p_red);
        }
        crate::team::balance::balance(&lobby, &params, &Rules::default(), 0)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rating::evaluation::reliability::reliability;

    /// Player `player` on red or blue for the whole result.
    fn member(player: u32, red: bool) -> TeamMember {
        TeamMember {
            player,
            red,
            weight: 1.0,
        }
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
        let evaluation = crate::rating::evaluation::evaluate_all(
            crate::model::MatchList::from(&matches),
            &roster,
            &cfg,
            true,
        );
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
        let bins = reliability(
            &evaluation.predicted_red_win.dense(matches.len()),
            &outcomes,
        );
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
        let expected =
            crate::team::balance::balance(&lobby, &params, &Rules::default(), 0).unwrap();
        assert_eq!(fairest, expected.best.p_red);
        let as_played = crate::team::balance::p_red(&lobby, &params, &[0, 1], &[2, 3]);
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
}
