//! Glicko-2, TrueSkill and Weng-Lin (OpenSkill) from the `skillratings` crate, fed with frags as
//! one-on-one games and with team results. The crate's arithmetic is checked against
//! `../shared/reference/` in the tests below.

use skillratings::glicko2::{
    Glicko2Config, Glicko2Rating, expected_score as glicko2_expected, glicko2_rating_period,
};
use skillratings::trueskill::TrueSkillConfig;
use skillratings::weng_lin::{WengLin, WengLinConfig};
use skillratings::{Outcomes, Rating, RatingSystem, TeamRatingSystem};

use crate::rating::system::{
    FragRater, MatchStart, TeamGame, saved_fields, split_sides, store_sides,
};

/// Glicko-2's scale: rating points per unit of μ.
const GLICKO2_SCALE: f64 = 173.7178;

/// Glicko-2: the frags of a rating period (a match, or a day) are games between killer and
/// victim, rated together at the end of the period; a team result is a game of each member
/// against the opposing side's mean rating and deviation. Players who sat a period out have
/// their deviation widened (Glickman's step 6), lazily: n idle periods widen φ² by n·σ² at once
/// when the rating is next read, so a period costs only its own players.
pub struct Glicko2Rater {
    /// Ratings as of each player's last rated period.
    ratings: Vec<Glicko2Rating>,
    rated: Vec<bool>,
    /// Periods closed so far, and the count when each player was last rated.
    closed: u64,
    rated_at: Vec<u64>,
    /// Games of the current period per player: opponent's rating at the period start, result.
    games: Vec<Vec<(Glicko2Rating, Outcomes)>>,
    in_period: Vec<u32>,
    config: Glicko2Config,
    by_day: bool,
    period_day: Option<i64>,
}

impl Glicko2Rater {
    /// Everyone unrated (1500, RD 350, volatility 0.06); periods are matches, or days when
    /// `by_day`.
    pub fn new(players: usize, tau: f64, by_day: bool) -> Glicko2Rater {
        Glicko2Rater {
            ratings: vec![Glicko2Rating::new(); players],
            rated: vec![false; players],
            closed: 0,
            rated_at: vec![0; players],
            games: vec![Vec::new(); players],
            in_period: Vec::new(),
            config: Glicko2Config {
                tau,
                convergence_tolerance: 1e-6,
            },
            by_day,
            period_day: None,
        }
    }

    fn game(&mut self, player: u32, opponent: Glicko2Rating, outcome: Outcomes) {
        let games = &mut self.games[player as usize];
        if games.is_empty() {
            self.in_period.push(player);
        }
        games.push((opponent, outcome));
    }

    /// Player `i`'s rating now: widened by every period closed since it was last rated
    /// (step 6 of each: φ' = sqrt(φ² + σ²), RD at most 350).
    fn current(&self, i: usize) -> Glicko2Rating {
        let r = self.ratings[i];
        let idle = self.closed - self.rated_at[i];
        if !self.rated[i] || idle == 0 {
            return r;
        }
        let phi = r.deviation / GLICKO2_SCALE;
        let widened = (phi * phi + idle as f64 * r.volatility * r.volatility).sqrt();
        Glicko2Rating {
            deviation: (widened * GLICKO2_SCALE).min(350.0),
            ..r
        }
    }

    fn close_period(&mut self) {
        if self.in_period.is_empty() {
            return;
        }
        // Every update uses the opponents' ratings from the start of the period (stored with
        // the games), so the order of players does not matter.
        let players = std::mem::take(&mut self.in_period);
        for &p in &players {
            let p = p as usize;
            self.ratings[p] = glicko2_rating_period(&self.current(p), &self.games[p], &self.config);
            self.games[p].clear();
        }
        self.closed += 1;
        for p in players {
            self.rated[p as usize] = true;
            self.rated_at[p as usize] = self.closed;
        }
    }
}

impl FragRater for Glicko2Rater {
    fn name(&self) -> &'static str {
        if self.by_day {
            "Glicko-2 (daily periods)"
        } else {
            "Glicko-2 (match periods)"
        }
    }
    fn id(&self) -> &'static str {
        "glicko2"
    }
    fn predict(&self, killer: u32, victim: u32) -> f64 {
        glicko2_expected(
            &self.current(killer as usize),
            &self.current(victim as usize),
        )
        .0
    }
    fn frag(&mut self, killer: u32, victim: u32) {
        let (k, v) = (self.current(killer as usize), self.current(victim as usize));
        self.game(killer, v, Outcomes::WIN);
        self.game(victim, k, Outcomes::LOSS);
    }
    fn start_match(&mut self, start: MatchStart) {
        if self.by_day && (start.day.is_none() || start.day != self.period_day) {
            self.close_period();
        }
        self.period_day = start.day;
    }
    fn end_match(&mut self) {
        if !self.by_day {
            self.close_period();
        }
    }
    fn team_result(&mut self, game: &TeamGame) {
        let side = |red: bool| -> Glicko2Rating {
            let members: Vec<Glicko2Rating> = game
                .members
                .iter()
                .filter(|m| m.red == red)
                .map(|m| self.current(m.player as usize))
                .collect();
            let n = members.len().max(1) as f64;
            Glicko2Rating {
                rating: members.iter().map(|r| r.rating).sum::<f64>() / n,
                deviation: (members.iter().map(|r| r.deviation.powi(2)).sum::<f64>() / n).sqrt(),
                volatility: 0.06,
            }
        };
        let (red, blue) = (side(true), side(false));
        for m in &game.members {
            let won = m.red == game.red_won;
            let opponent = if m.red { blue } else { red };
            let outcome = if won { Outcomes::WIN } else { Outcomes::LOSS };
            self.game(m.player, opponent, outcome);
        }
    }
    fn ratings(&mut self) -> Vec<f64> {
        self.close_period();
        self.ratings.iter().map(|r| r.rating).collect()
    }
    fn online(&self, player: u32) -> Option<f64> {
        // The rating as of the last closed period (a daily period's games count once it closes).
        self.ratings.get(player as usize).map(|r| r.rating)
    }
    fn grow(&mut self, players: usize) {
        self.ratings.resize(players, Glicko2Rating::new());
        self.rated.resize(players, false);
        self.rated_at.resize(players, 0);
        self.games.resize(players, Vec::new());
    }
    saved_fields!(
        ratings, rated, closed, rated_at, games, in_period, period_day
    );
}

/// TrueSkill or Weng-Lin (any system of the crate that rates both one-on-one games and two
/// teams): every frag a one-on-one win, every team result a two-team game.
pub struct BayesianRater<S: RatingSystem> {
    system: S,
    ratings: Vec<S::RATING>,
    name: &'static str,
    id: &'static str,
}

/// TrueSkill: everyone at μ 25, σ 25/3; β 25/6, τ 25/300, no draws (a frag cannot be drawn).
/// The crate's arithmetic, its one-on-one games through [`crate::rating::systems::trueskill::Duels`].
pub fn trueskill_rater(players: usize) -> BayesianRater<crate::rating::systems::trueskill::Duels> {
    BayesianRater::new(
        <crate::rating::systems::trueskill::Duels as RatingSystem>::new(TrueSkillConfig {
            draw_probability: 0.0,
            ..TrueSkillConfig::new()
        }),
        players,
        "TrueSkill",
        "trueskill",
    )
}

/// Weng-Lin (OpenSkill's Bradley-Terry model): everyone at μ 25, σ 25/3; β 25/6.
pub fn weng_lin_rater(players: usize) -> BayesianRater<WengLin> {
    BayesianRater::new(
        <WengLin as RatingSystem>::new(WengLinConfig::new()),
        players,
        "Weng-Lin (OpenSkill)",
        "weng-lin",
    )
}

impl<S: RatingSystem> BayesianRater<S> {
    /// Everyone at the system's default rating.
    pub fn new(system: S, players: usize, name: &'static str, id: &'static str) -> Self {
        BayesianRater {
            system,
            ratings: vec![S::RATING::new(None, None); players],
            name,
            id,
        }
    }
}

impl<S> FragRater for BayesianRater<S>
where
    S: RatingSystem + TeamRatingSystem<RATING = <S as RatingSystem>::RATING> + Send,
    <S as RatingSystem>::RATING: Send + serde::Serialize + serde::de::DeserializeOwned,
{
    fn name(&self) -> &'static str {
        self.name
    }
    fn id(&self) -> &'static str {
        self.id
    }
    fn predict(&self, killer: u32, victim: u32) -> f64 {
        RatingSystem::expected_score(
            &self.system,
            &self.ratings[killer as usize],
            &self.ratings[victim as usize],
        )
        .0
    }
    fn frag(&mut self, killer: u32, victim: u32) {
        let (k, v) = (killer as usize, victim as usize);
        let (a, b) = RatingSystem::rate(
            &self.system,
            &self.ratings[k],
            &self.ratings[v],
            &Outcomes::WIN,
        );
        self.ratings[k] = a;
        self.ratings[v] = b;
    }
    fn predict_team(&self, game: &TeamGame) -> f64 {
        let (red, blue) = split_sides(&self.ratings, game);
        if red.is_empty() || blue.is_empty() {
            return 0.5;
        }
        TeamRatingSystem::expected_score(&self.system, &red, &blue).0
    }
    fn team_result(&mut self, game: &TeamGame) {
        let (red, blue) = split_sides(&self.ratings, game);
        let outcome = if game.red_won {
            Outcomes::WIN
        } else {
            Outcomes::LOSS
        };
        let (red, blue) = TeamRatingSystem::rate(&self.system, &red, &blue, &outcome);
        store_sides(&mut self.ratings, game, red, blue);
    }
    fn ratings(&mut self) -> Vec<f64> {
        self.ratings.iter().map(|r| r.rating()).collect()
    }
    fn online(&self, player: u32) -> Option<f64> {
        self.ratings.get(player as usize).map(|r| r.rating())
    }
    fn grow(&mut self, players: usize) {
        self.ratings
            .resize(players, <S as RatingSystem>::RATING::new(None, None));
    }
    saved_fields!(ratings);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use skillratings::trueskill::{TrueSkillRating, trueskill, trueskill_two_teams};
    use skillratings::weng_lin::{WengLinRating, weng_lin};

    fn reference(file: &str) -> Value {
        let path = format!(
            "{}/tests/fixtures/reference/{file}",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn f(v: &Value) -> f64 {
        v.as_f64().unwrap()
    }

    fn close(got: f64, want: f64, tol: f64, what: &str) {
        assert!((got - want).abs() <= tol, "{what}: {got} vs {want}");
    }

    fn glicko(v: &Value) -> Glicko2Rating {
        Glicko2Rating {
            rating: f(&v["rating"]),
            deviation: f(&v["rd"]),
            volatility: f(&v["vol"]),
        }
    }

    fn glicko_games(games: &Value) -> Vec<(Glicko2Rating, Outcomes)> {
        games
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                let opponent = Glicko2Rating {
                    rating: f(&g["opp_rating"]),
                    deviation: f(&g["opp_rd"]),
                    volatility: 0.06,
                };
                let outcome = match f(&g["score"]) {
                    1.0 => Outcomes::WIN,
                    0.0 => Outcomes::LOSS,
                    _ => Outcomes::DRAW,
                };
                (opponent, outcome)
            })
            .collect()
    }

    fn check_glicko(got: &Glicko2Rating, want: &Value, what: &str) {
        // Tolerances from the reference README: about 1e-6 for rating and RD, 1e-9 for vol.
        close(got.rating, f(&want["rating"]), 1e-6, what);
        close(got.deviation, f(&want["rd"]), 1e-6, what);
        close(got.volatility, f(&want["vol"]), 1e-9, what);
    }

    /// Every Glicko-2 case of glicko2.json: the paper example, the single periods (both
    /// volatility branches, no games) and the four-period sequence.
    #[test]
    fn glicko2_matches_reference() {
        let json = reference("glicko2.json");
        let mut checked = 0;
        for case in json["cases"].as_array().unwrap() {
            if case["params"]["system"] != "glicko2" {
                continue;
            }
            let name = case["name"].as_str().unwrap();
            let config = Glicko2Config {
                tau: f(&case["params"]["tau"]),
                convergence_tolerance: f(&case["params"]["convergence_epsilon"]),
            };
            let mut player = glicko(&case["input"]["player"]);
            if let Some(periods) = case["input"]["periods"].as_array() {
                for (i, period) in periods.iter().enumerate() {
                    player = glicko2_rating_period(&player, &glicko_games(period), &config);
                    check_glicko(
                        &player,
                        &case["expected"]["after_each_period"][i],
                        &format!("{name} period {i}"),
                    );
                }
            } else {
                let games = glicko_games(&case["input"]["games"]);
                player = glicko2_rating_period(&player, &games, &config);
                check_glicko(&player, &case["expected"], name);
            }
            checked += 1;
        }
        assert_eq!(checked, 8);
    }

    fn ts(v: &Value) -> TrueSkillRating {
        TrueSkillRating {
            rating: f(&v["mu"]),
            uncertainty: f(&v["sigma"]),
        }
    }

    fn team(v: &Value) -> Vec<TrueSkillRating> {
        v.as_array().unwrap().iter().map(ts).collect()
    }

    fn outcome(ranks: &[i64]) -> Outcomes {
        match ranks[0].cmp(&ranks[1]) {
            std::cmp::Ordering::Less => Outcomes::WIN,
            std::cmp::Ordering::Greater => Outcomes::LOSS,
            std::cmp::Ordering::Equal => Outcomes::DRAW,
        }
    }

    /// The two-team TrueSkill cases of trueskill.json without partial-play weights (1v1 win,
    /// draw and upset, 2v2, 1v2, 3v5, no-draw environment, β 8 τ 0) and the 3-game sequence,
    /// against the package's default backend (the same erfc approximation) to 1e-9, and
    /// against the exact scipy backend to 1e-5 as the README advises.
    #[test]
    fn trueskill_matches_reference() {
        let json = reference("trueskill.json");
        let mut checked = 0;
        for case in json["cases"].as_array().unwrap() {
            let name = case["name"].as_str().unwrap();
            let p = &case["params"];
            let config = TrueSkillConfig {
                draw_probability: f(&p["draw_probability"]),
                beta: f(&p["beta"]),
                dynamics_factor: f(&p["tau"]),
            };
            let input = &case["input"];
            if let Some(results) = input["results_for_a"].as_array() {
                let (mut a, mut b) = (ts(&input["start"]["a"]), ts(&input["start"]["b"]));
                for (i, r) in results.iter().enumerate() {
                    let o = match r.as_str().unwrap() {
                        "win" => Outcomes::WIN,
                        "loss" => Outcomes::LOSS,
                        _ => Outcomes::DRAW,
                    };
                    (a, b) = trueskill(&a, &b, &o, &config);
                    let want = &case["expected"]["after_each_game"][i];
                    close(a.rating, f(&want["a"]["mu"]), 1e-5, name);
                    close(a.uncertainty, f(&want["a"]["sigma"]), 1e-5, name);
                    close(b.rating, f(&want["b"]["mu"]), 1e-5, name);
                    close(b.uncertainty, f(&want["b"]["sigma"]), 1e-5, name);
                }
                checked += 1;
                continue;
            }
            let Some(teams) = input["teams"].as_array() else {
                continue;
            };
            if teams.len() != 2 || !input["weights"].is_null() {
                continue;
            }
            let ranks: Vec<i64> = input["ranks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_i64().unwrap())
                .collect();
            let (one, two) = (team(&teams[0]), team(&teams[1]));
            let got = if one.len() == 1 && two.len() == 1 {
                let (a, b) = trueskill(&one[0], &two[0], &outcome(&ranks), &config);
                (vec![a], vec![b])
            } else {
                trueskill_two_teams(&one, &two, &outcome(&ranks), &config)
            };
            for (backend, tol) in [("teams_default_backend", 1e-9), ("teams", 1e-5)] {
                let want = &case["expected"][backend];
                for (side, got) in [&got.0, &got.1].into_iter().enumerate() {
                    for (i, r) in got.iter().enumerate() {
                        let w = &want[side][i];
                        close(r.rating, f(&w["mu"]), tol, name);
                        close(r.uncertainty, f(&w["sigma"]), tol, name);
                    }
                }
            }
            checked += 1;
        }
        assert_eq!(checked, 10);
    }

    /// The pure Weng-Lin cases of openskill.json (τ 0, 1v1: Plackett-Luce and Bradley-Terry
    /// full give the same update) to 1e-9.
    #[test]
    fn weng_lin_matches_reference() {
        let json = reference("openskill.json");
        let mut checked = 0;
        for case in json["cases"].as_array().unwrap() {
            let name = case["name"].as_str().unwrap();
            if !name.ends_with("_tau0") {
                continue;
            }
            let config = WengLinConfig {
                beta: f(&case["params"]["beta"]),
                ..WengLinConfig::new()
            };
            let teams = case["input"]["teams"].as_array().unwrap();
            let wl = |v: &Value| WengLinRating {
                rating: f(&v[0]["mu"]),
                uncertainty: f(&v[0]["sigma"]),
            };
            let (a, b) = (wl(&teams[0]), wl(&teams[1]));
            let ranks: Vec<i64> = case["input"]["ranks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_i64().unwrap())
                .collect();
            // Not compared: openskill's predict_win uses a normal CDF, skillratings' expected
            // score the logistic of the Bradley-Terry model the update itself assumes.
            let (a, b) = weng_lin(&a, &b, &outcome(&ranks), &config);
            let want = &case["expected"]["teams"];
            close(a.rating, f(&want[0][0]["mu"]), 1e-9, name);
            close(a.uncertainty, f(&want[0][0]["sigma"]), 1e-9, name);
            close(b.rating, f(&want[1][0]["mu"]), 1e-9, name);
            close(b.uncertainty, f(&want[1][0]["sigma"]), 1e-9, name);
            checked += 1;
        }
        assert_eq!(checked, 2);
    }

    /// Lazy RD widening equals the crate's step 6 applied once per idle period (1e-9), up to
    /// the 350 cap.
    #[test]
    fn glicko2_idle_periods_widen_like_step_6() {
        use skillratings::glicko2::decay_deviation;
        let mut g = Glicko2Rater::new(4, 0.5, false);
        g.frag(0, 1);
        g.end_match();
        let mut eager = g.current(0);
        for idle in 1..=400 {
            g.frag(2, 3);
            g.end_match();
            eager = decay_deviation(&eager);
            let lazy = g.current(0);
            close(
                lazy.deviation,
                eager.deviation,
                1e-9,
                &format!("{idle} idle periods"),
            );
            assert_eq!(lazy.rating, eager.rating);
        }
        assert_eq!(g.current(0).deviation, 350.0, "capped");
    }

    /// The raters feed the crate as documented: a frag is a 1v1 win.
    #[test]
    fn raters_learn_a_frag() {
        let mut g = Glicko2Rater::new(2, 0.5, false);
        assert_eq!(g.predict(0, 1), 0.5);
        g.frag(0, 1);
        assert_eq!(
            g.predict(0, 1),
            0.5,
            "Glicko-2 rates at the end of the period"
        );
        g.end_match();
        let r = g.ratings();
        // glicko2.json: two unrated players, one win -> 1662.3108939063.
        close(r[0], 1662.3108939063, 1e-6, "glicko2 winner");
        let mut t = trueskill_rater(2);
        t.frag(0, 1);
        // trueskill.json ts_1v1_win_no_draws_env: 29.2054731068 (default backend).
        close(t.ratings()[0], 29.2054731068, 1e-8, "trueskill winner");
        let mut w = weng_lin_rater(2);
        w.frag(1, 0);
        assert!(w.predict(1, 0) > 0.5);
    }
}
