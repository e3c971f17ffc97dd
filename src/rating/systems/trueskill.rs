//! TrueSkill's one-on-one game, as the `skillratings` crate computes it (its `trueskill`
//! function, version 0.29), with what does not change from game to game worked out once: the
//! crate works out the draw margin (an inverse error function: a logarithm, two exponentials and
//! two more error functions) for every game, and the normal density and distribution of the
//! same point twice. The evaluation rates every frag as such a game, so this is most of
//! TrueSkill's cost. The same operations on the same values in the same order: the ratings are
//! the crate's to the bit (checked against it in the tests below). Team games and predictions
//! are the crate's own.

use std::f64::consts::{FRAC_1_SQRT_2, FRAC_2_SQRT_PI, PI, SQRT_2};

use skillratings::trueskill::{TrueSkill, TrueSkillConfig, TrueSkillRating};
use skillratings::{Outcomes, RatingSystem, TeamRatingSystem};

/// TrueSkill whose one-on-one games are rated by [`Duels::rate`] (the crate's arithmetic with
/// the draw margin worked out once), everything else by the crate.
pub struct Duels {
    system: TrueSkill,
    config: TrueSkillConfig,
    /// The crate's `draw_margin(draw_probability, beta, 2)`.
    draw_margin: f64,
}

impl RatingSystem for Duels {
    type RATING = TrueSkillRating;
    type CONFIG = TrueSkillConfig;

    fn new(config: TrueSkillConfig) -> Duels {
        let draw_margin =
            inverse_cdf(f64::midpoint(config.draw_probability, 1.0)) * 2.0f64.sqrt() * config.beta;
        Duels {
            system: <TrueSkill as RatingSystem>::new(config),
            config,
            draw_margin,
        }
    }

    /// The crate's `trueskill(one, two, outcome, config)`.
    fn rate(
        &self,
        one: &TrueSkillRating,
        two: &TrueSkillRating,
        outcome: &Outcomes,
    ) -> (TrueSkillRating, TrueSkillRating) {
        let config = &self.config;
        let (rank_one, rank_two, winner, loser) = match outcome {
            Outcomes::WIN => (1.0, -1.0, one, two),
            Outcomes::LOSS => (-1.0, 1.0, two, one),
            // Never a frag: the crate's own, draw margin and all.
            Outcomes::DRAW => return RatingSystem::rate(&self.system, one, two, outcome),
        };
        let c = 2.0f64
            .mul_add(
                config.beta.powi(2),
                one.uncertainty
                    .mul_add(one.uncertainty, config.dynamics_factor.powi(2))
                    + two
                        .uncertainty
                        .mul_add(two.uncertainty, config.dynamics_factor.powi(2)),
            )
            .sqrt();
        let (v, w) = v_w_non_draw(winner.rating - loser.rating, self.draw_margin, c);
        let rating = |r: &TrueSkillRating, rank: f64| {
            let mean_multiplier = r
                .uncertainty
                .mul_add(r.uncertainty, config.dynamics_factor.powi(2))
                / c;
            (rank * mean_multiplier).mul_add(v, r.rating)
        };
        let uncertainty = |r: &TrueSkillRating| {
            let variance = r
                .uncertainty
                .mul_add(r.uncertainty, config.dynamics_factor.powi(2));
            let dev_multiplier = variance / c.powi(2);
            (variance * w.mul_add(-dev_multiplier, 1.0)).sqrt()
        };
        (
            TrueSkillRating {
                rating: rating(one, rank_one),
                uncertainty: uncertainty(one),
            },
            TrueSkillRating {
                rating: rating(two, rank_two),
                uncertainty: uncertainty(two),
            },
        )
    }

    fn expected_score(&self, one: &TrueSkillRating, two: &TrueSkillRating) -> (f64, f64) {
        RatingSystem::expected_score(&self.system, one, two)
    }
}

impl TeamRatingSystem for Duels {
    type RATING = TrueSkillRating;
    type CONFIG = TrueSkillConfig;

    fn new(config: TrueSkillConfig) -> Duels {
        <Duels as RatingSystem>::new(config)
    }

    fn rate(
        &self,
        one: &[TrueSkillRating],
        two: &[TrueSkillRating],
        outcome: &Outcomes,
    ) -> (Vec<TrueSkillRating>, Vec<TrueSkillRating>) {
        TeamRatingSystem::rate(&self.system, one, two, outcome)
    }

    fn expected_score(&self, one: &[TrueSkillRating], two: &[TrueSkillRating]) -> (f64, f64) {
        TeamRatingSystem::expected_score(&self.system, one, two)
    }
}

/// The crate's `v_non_draw` and `w_non_draw` of the same arguments (`w_non_draw` works `v`
/// out again, from the same values, as the first).
fn v_w_non_draw(difference: f64, draw_margin: f64, c: f64) -> (f64, f64) {
    let diff_c = difference / c;
    let draw_c = draw_margin / c;
    let norm = cdf(diff_c - draw_c);
    if norm < 2.222_758_749e-162 {
        let w = if diff_c < 0.0 { 1.0 } else { 0.0 };
        return (-diff_c + draw_c, w);
    }
    let v = pdf(diff_c - draw_c) / norm;
    (v, v * (v + (diff_c) - (draw_c)))
}

/// The crate's complementary error function (a Chebyshev fit, Numerical Recipes' `erfcc`).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = (1.0 + z / 2.0).recip();
    let r = t * t
        .mul_add(
            t.mul_add(
                t.mul_add(
                    t.mul_add(
                        t.mul_add(
                            t.mul_add(
                                t.mul_add(
                                    t.mul_add(t.mul_add(0.170_872_77, -0.822_152_23), 1.488_515_87),
                                    -1.135_203_98,
                                ),
                                0.278_868_07,
                            ),
                            -0.186_288_06,
                        ),
                        0.096_784_18,
                    ),
                    0.374_091_96,
                ),
                1.000_023_68,
            ),
            (-z).mul_add(z, -1.265_512_23),
        )
        .exp();
    if x < 0.0 { 2.0 - r } else { r }
}

/// The crate's inverse of [`erfc`].
#[allow(clippy::excessive_precision)]
fn inverse_erfc(y: f64) -> f64 {
    if y >= 2.0 {
        return -100.0;
    } else if y <= 0.0 {
        return 100.0;
    }
    let zero_point = y < 1.0;
    let y = if zero_point { y } else { 2.0 - y };
    let t = (-2.0 * (y / 2.0).ln()).sqrt();
    let mut x = -FRAC_1_SQRT_2
        * (t.mul_add(0.27061, 2.30753) / t.mul_add(t.mul_add(0.04481, 0.99229), 1.0) - t);
    for _ in 0..2 {
        let err = erfc(x) - y;
        x += err / FRAC_2_SQRT_PI.mul_add((-(x.powi(2))).exp(), -x * err);
    }
    if zero_point { x } else { -x }
}

/// The crate's standard normal distribution function (its `cdf(x, 0.0, 1.0)`).
fn cdf(x: f64) -> f64 {
    0.5 * erfc(-(x - 0.0) / (1.0 * SQRT_2))
}

/// The crate's inverse of the standard normal distribution (its `inverse_cdf(x, 0.0, 1.0)`).
fn inverse_cdf(x: f64) -> f64 {
    (1.0 * SQRT_2).mul_add(-inverse_erfc(2.0 * x), 0.0)
}

/// The crate's standard normal density (its `pdf(x, 0.0, 1.0)`).
fn pdf(x: f64) -> f64 {
    let sigma: f64 = 1.0;
    ((2.0 * PI).sqrt() * sigma.abs()).recip() * (-(((x - 0.0) / sigma.abs()).powi(2) / 2.0)).exp()
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillratings::trueskill::trueskill;

    /// Every one-on-one game is the crate's to the bit: wins and losses between ratings near
    /// and far apart, certain and uncertain, with and without a draw probability (far apart
    /// the distribution underflows and the crate's limits apply).
    #[test]
    fn duels_are_the_crates_to_the_bit() {
        let mut ratings = Vec::new();
        for rating in [-400.0, -30.0, 0.0, 1.5, 25.0, 27.123456789, 60.0, 900.0] {
            for uncertainty in [0.01, 0.8333, 2.5, 25.0 / 3.0, 40.0] {
                ratings.push(TrueSkillRating {
                    rating,
                    uncertainty,
                });
            }
        }
        for draw_probability in [0.0, 0.1, 0.35] {
            let config = TrueSkillConfig {
                draw_probability,
                ..TrueSkillConfig::new()
            };
            let duels = <Duels as RatingSystem>::new(config);
            for a in &ratings {
                for b in &ratings {
                    for outcome in [Outcomes::WIN, Outcomes::LOSS, Outcomes::DRAW] {
                        let ours = RatingSystem::rate(&duels, a, b, &outcome);
                        let crate_ = trueskill(a, b, &outcome, &config);
                        let bits = |r: (TrueSkillRating, TrueSkillRating)| {
                            [r.0.rating, r.0.uncertainty, r.1.rating, r.1.uncertainty]
                                .map(f64::to_bits)
                        };
                        assert_eq!(bits(ours), bits(crate_), "{a:?} {b:?} {outcome:?}");
                    }
                }
            }
        }
    }
}
