//! The interface the replay drives every rating system through ([`FragRater`]: predict a frag,
//! learn from it, and the optional team, refit and save capabilities), the registry of systems by
//! id ([`by_id`], [`SYSTEM_IDS`]), and the small systems that need no file of their own: the
//! baselines (constant 0.5, win rate, K/D) and the peers' formulas (VSP-XP, XLRstats). The
//! others are in [`crate::rating::systems`].

use serde::{Deserialize, Serialize};

use crate::config::{Glicko2Period, RatingConfig};
use crate::rating::systems::dynamic::expected;
use crate::rating::systems::whole_history::{SettledFits, WholeHistory};

use crate::rating::systems::established::{Glicko2Rater, trueskill_rater, weng_lin_rater};
use crate::rating::systems::ns2::Ns2;
use crate::rating::systems::team_model::{TEAM_MODEL_ID, TeamModel};
use crate::team::model::{Skill, TeamParams};

/// One player's part in a team match: side and time weight (NS2 `t_i`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TeamMember {
    pub player: u32,
    pub red: bool,
    /// How much of the match the player played, weighted towards its start (> 0).
    pub weight: f64,
}

/// The ratings of the red and of the blue members of `game`, in member order.
pub fn split_sides<T: Copy>(ratings: &[T], game: &TeamGame) -> (Vec<T>, Vec<T>) {
    let side = |red: bool| {
        game.members
            .iter()
            .filter(|m| m.red == red)
            .map(|m| ratings[m.player as usize])
            .collect()
    };
    (side(true), side(false))
}

/// Stores updated side ratings (as [`split_sides`] ordered them) back per player.
pub fn store_sides<T>(ratings: &mut [T], game: &TeamGame, red: Vec<T>, blue: Vec<T>) {
    let reds = game.members.iter().filter(|m| m.red);
    let blues = game.members.iter().filter(|m| !m.red);
    for (m, r) in reds.zip(red).chain(blues.zip(blue)) {
        ratings[m.player as usize] = r;
    }
}

/// A team match with a winner, as one outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TeamGame {
    pub members: Vec<TeamMember>,
    pub red_won: bool,
    /// Map name (for the NS2 side bias per map).
    pub map: String,
    /// Game code ([`crate::model::Match::game`]: the team model's side term is per game).
    pub game: String,
    /// Game type code ([`crate::model::GameType::code`]: the margin's unit, captures or frags,
    /// depends on it, so the expected margin is learnt per game and game type).
    pub gametype: String,
    /// The match's final margin, red's team score minus blue's (rounds won where the log has
    /// rounds), when known: the same on every result of the match.
    pub margin: Option<f64>,
    /// The match's final scores added up, red's plus blue's (rounds played where the log has
    /// rounds), when known: the scale of the margin.
    pub score_total: Option<f64>,
    /// The scores that decided the result, red's plus blue's (frags in team deathmatch, captures
    /// in capture the flag), when the result is a whole match with a final score; None for a
    /// round (its frags decide it).
    pub decided_by: Option<f64>,
}

/// What a system may know when a match starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MatchStart {
    /// Day number of the match start (consecutive days differ by 1), when the log has dates.
    pub day: Option<i64>,
}

/// A rating system that predicts and learns frag by frag (and team result by team result).
pub trait FragRater: Send {
    /// Name in reports.
    fn name(&self) -> &'static str;
    /// Stable key for `site.toml` and JSON.
    fn id(&self) -> &'static str;
    /// Probability that `killer` beats `victim` in a frag, from what was learnt so far.
    fn predict(&self, killer: u32, victim: u32) -> f64;
    /// Learns that `killer` fragged `victim`.
    fn frag(&mut self, killer: u32, victim: u32);
    /// Learns that `player` killed themself or a team mate.
    fn penalty(&mut self, _player: u32) {}
    /// A match starts.
    fn start_match(&mut self, _start: MatchStart) {}
    /// A match ended (systems that learn per match do it here).
    fn end_match(&mut self) {}
    /// Probability that red wins `game`. By default the time-weighted mean of the frag
    /// predictions over every red-blue pair.
    fn predict_team(&self, game: &TeamGame) -> f64 {
        let (mut sum, mut weight) = (0.0, 0.0);
        for r in game.members.iter().filter(|m| m.red) {
            for b in game.members.iter().filter(|m| !m.red) {
                let w = r.weight * b.weight;
                sum += w * self.predict(r.player, b.player);
                weight += w;
            }
        }
        if weight > 0.0 { sum / weight } else { 0.5 }
    }
    /// P(red wins) of the fairest split of `game`'s players, as the balancer would propose it
    /// from what was learnt so far; None for every system but the team model.
    fn fairest_team(&self, _game: &TeamGame) -> Option<f64> {
        None
    }
    /// A team match starts with this line-up (after [`FragRater::predict_team`]; systems that
    /// learn from what they knew at the start keep it here).
    fn team_start(&mut self, _game: &TeamGame) {}
    /// Learns the result of a team match (called after the match's frags).
    fn team_result(&mut self, _game: &TeamGame) {}
    /// Red's expected team score minus blue's in `game`; None for every system but the team
    /// model.
    fn expected_margin(&self, _game: &TeamGame) -> Option<f64> {
        None
    }
    /// The errors of [`FragRater::expected_margin`] so far; None for every system but the team
    /// model.
    fn margin_score(&self) -> Option<crate::rating::systems::team_model::MarginScore> {
        None
    }
    /// The team model's final skills (in the replay's numbering) and parameters; None for every
    /// other system. Like [`FragRater::ratings`], may refit.
    fn team_snapshot(&mut self) -> Option<(Vec<Skill>, TeamParams)> {
        None
    }
    /// Final rating per identity (higher is better). May change the learnt state (a final
    /// fit): take any checkpoint ([`FragRater::save`]) before.
    fn ratings(&mut self) -> Vec<f64>;
    /// Player `player`'s rating as learnt so far, on the scale of [`FragRater::ratings`],
    /// without a final fit (for the headline's curve after each match); None when the system
    /// cannot tell it without changing its state.
    fn online(&self, _player: u32) -> Option<f64> {
        None
    }
    /// Makes room for identities up to `players` (new ones start unrated).
    fn grow(&mut self, players: usize);
    /// The whole-history fit the system predicts frags with, if it is one (the evaluator lends
    /// the headline's to the team model, [`FragRater::borrow_fit`]).
    fn whole_history(&mut self) -> Option<&mut WholeHistory> {
        None
    }
    /// The whole-history fit the system keeps, whatever its priors (the fixed-prior one too):
    /// for saving the pair records once ([`WholeHistory::save_pairs_elsewhere`]).
    fn any_fit(&mut self) -> Option<&mut WholeHistory> {
        None
    }
    /// With `true`, the system stops learning frags and match ends into its own
    /// [`FragRater::whole_history`]: the evaluator lends it another fit that learns the same
    /// (swapped into its place wherever it is read) and hands it the final copy; `false`
    /// learns its own again.
    fn borrow_fit(&mut self, _borrowed: bool) {}
    /// Before [`FragRater::ratings`]: takes the final state of its fit from `whole`, the team
    /// model's settled final fit, when its own would refit to the same bits
    /// ([`WholeHistory::converge_from`]); returns whether it did.
    fn converge_from(&mut self, _whole: &SettledFits) -> bool {
        false
    }
    /// The learnt state, for a checkpoint. The configuration is not in it: a checkpoint is only
    /// restored under the same configuration.
    fn save(&self) -> Vec<u8>;
    /// Restores a state written by [`FragRater::save`] of the same system.
    fn restore(&mut self, bytes: &[u8]) -> Result<(), postcard::Error>;
}

/// Implements [`FragRater::save`] and [`FragRater::restore`] over the listed fields.
macro_rules! saved_fields {
    ($($field:ident),*) => {
        fn save(&self) -> Vec<u8> {
            $crate::codec::extend_sized(&($(&self.$field,)*), Vec::new())
                .expect("encoding to memory cannot fail")
        }
        fn restore(&mut self, bytes: &[u8]) -> Result<(), postcard::Error> {
            let ($($field,)*) = postcard::from_bytes(bytes)?;
            $(self.$field = $field;)*
            Ok(())
        }
    };
}
pub(crate) use saved_fields;

/// Keys of every system, in report order.
pub const SYSTEM_IDS: [&str; 13] = [
    "constant",
    "win-rate",
    "kd",
    "becker",
    "vsp-xp",
    "xlrstats",
    "glicko2",
    "trueskill",
    "weng-lin",
    "ns2",
    "bradley-terry",
    "whole-history",
    TEAM_MODEL_ID,
];

/// The system with key `id`, if there is one, with no player yet ([`FragRater::grow`] adds
/// them as they appear).
pub fn by_id(id: &str, cfg: &RatingConfig) -> Option<Box<dyn FragRater>> {
    let players = 0;
    let wh = &cfg.whole_history;
    Some(match id {
        "constant" => Box::new(Constant),
        "win-rate" => Box::new(Counts::win_rate(players)),
        "kd" => Box::new(Counts::kill_death(players)),
        "becker" => Box::new(Becker::new(players, cfg.dynamic.k)),
        "vsp-xp" => Box::new(Vsp::new(players)),
        "xlrstats" => Box::new(Xlr::new(players)),
        "glicko2" => Box::new(Glicko2Rater::new(
            players,
            cfg.glicko2.tau,
            cfg.glicko2.period == Glicko2Period::Day,
        )),
        "trueskill" => Box::new(trueskill_rater(players)),
        "weng-lin" => Box::new(weng_lin_rater(players)),
        "ns2" => Box::new(Ns2::new(players)),
        // One fit with a fixed prior (precision 3), for comparison with the averaged one.
        "bradley-terry" => Box::new(WholeHistoryRater {
            fit: WholeHistory::with_priors(players, wh.decay, &[3.0]),
            single: true,
        }),
        "whole-history" => Box::new(WholeHistoryRater {
            fit: WholeHistory::new(players, wh.decay),
            single: false,
        }),
        TEAM_MODEL_ID => Box::new(TeamModel::new(players, wh.decay)),
        _ => return None,
    })
}

/// Always 0.5.
pub struct Constant;

impl FragRater for Constant {
    fn name(&self) -> &'static str {
        "baseline: constant 0.5"
    }
    fn id(&self) -> &'static str {
        "constant"
    }
    fn predict(&self, _: u32, _: u32) -> f64 {
        0.5
    }
    fn frag(&mut self, _: u32, _: u32) {}
    fn ratings(&mut self) -> Vec<f64> {
        Vec::new()
    }
    fn grow(&mut self, _: usize) {}
    fn save(&self) -> Vec<u8> {
        Vec::new()
    }
    fn restore(&mut self, _: &[u8]) -> Result<(), postcard::Error> {
        Ok(())
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
    fn id(&self) -> &'static str {
        if self.kd { "kd" } else { "win-rate" }
    }
    fn predict(&self, killer: u32, victim: u32) -> f64 {
        let (a, b) = (self.strength(killer), self.strength(victim));
        a / (a + b)
    }
    fn frag(&mut self, killer: u32, victim: u32) {
        self.kills[killer as usize] += 1.0;
        self.deaths[victim as usize] += 1.0;
    }
    fn ratings(&mut self) -> Vec<f64> {
        (0..self.kills.len() as u32)
            .map(|i| self.strength(i))
            .collect()
    }
    fn online(&self, player: u32) -> Option<f64> {
        Some(self.strength(player))
    }
    fn grow(&mut self, players: usize) {
        self.kills.resize(players, 0.0);
        self.deaths.resize(players, 0.0);
    }
    saved_fields!(kills, deaths);
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
        "Becker dynamic"
    }
    fn id(&self) -> &'static str {
        "becker"
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
    fn ratings(&mut self) -> Vec<f64> {
        self.g.clone()
    }
    fn online(&self, player: u32) -> Option<f64> {
        self.g.get(player as usize).copied()
    }
    fn grow(&mut self, players: usize) {
        self.g.resize(players, 0.0);
    }
    saved_fields!(g);
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
    fn id(&self) -> &'static str {
        "vsp-xp"
    }
    fn predict(&self, killer: u32, victim: u32) -> f64 {
        1.0 / (1.0 + ((self.s[victim as usize] - self.s[killer as usize]) / 400.0).exp())
    }
    fn frag(&mut self, killer: u32, victim: u32) {
        let gain = 1.0 - self.predict(killer, victim);
        self.s[killer as usize] += gain;
        self.s[victim as usize] -= gain;
    }
    fn ratings(&mut self) -> Vec<f64> {
        self.s.clone()
    }
    fn online(&self, player: u32) -> Option<f64> {
        self.s.get(player as usize).copied()
    }
    fn grow(&mut self, players: usize) {
        self.s.resize(players, 1000.0);
    }
    saved_fields!(s);
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
    fn id(&self) -> &'static str {
        "xlrstats"
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
    fn ratings(&mut self) -> Vec<f64> {
        self.s.clone()
    }
    fn online(&self, player: u32) -> Option<f64> {
        self.s.get(player as usize).copied()
    }
    fn grow(&mut self, players: usize) {
        self.s.resize(players, 1000.0);
        self.encounters.resize(players, 0);
    }
    saved_fields!(s, encounters);
}

/// A whole-history fit ([`WholeHistory`]): the averaged one (the headline candidate) or one
/// with a single fixed prior, for comparison.
pub struct WholeHistoryRater {
    pub fit: WholeHistory,
    /// True for the fixed-prior variant.
    pub single: bool,
}

impl FragRater for WholeHistoryRater {
    fn name(&self) -> &'static str {
        if self.single {
            "Bradley-Terry, fixed prior"
        } else {
            "Bradley-Terry whole history"
        }
    }
    fn id(&self) -> &'static str {
        if self.single {
            "bradley-terry"
        } else {
            "whole-history"
        }
    }
    fn predict(&self, killer: u32, victim: u32) -> f64 {
        self.fit.predict(killer, victim)
    }
    fn frag(&mut self, killer: u32, victim: u32) {
        self.fit.frag(killer, victim);
    }
    fn end_match(&mut self) {
        self.fit.end_match();
    }
    fn ratings(&mut self) -> Vec<f64> {
        self.fit.converge();
        self.fit.ratings()
    }
    fn online(&self, player: u32) -> Option<f64> {
        Some(self.fit.rating(player as usize))
    }
    fn grow(&mut self, players: usize) {
        self.fit.grow(players);
    }
    fn whole_history(&mut self) -> Option<&mut WholeHistory> {
        (!self.single).then_some(&mut self.fit)
    }
    fn any_fit(&mut self) -> Option<&mut WholeHistory> {
        Some(&mut self.fit)
    }
    fn converge_from(&mut self, whole: &SettledFits) -> bool {
        self.fit.converge_from(whole)
    }
    saved_fields!(fit);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::HeadlineSystem;

    /// Every system that `[rating.headline] system` can name has a rater under the same key.
    #[test]
    fn every_headline_key_has_a_system() {
        for id in SYSTEM_IDS {
            let Ok(system) = serde_json::from_value::<HeadlineSystem>(id.into()) else {
                assert!(
                    id == "constant" || id == TEAM_MODEL_ID,
                    "only the constant and the team model cannot be a headline"
                );
                continue;
            };
            assert_eq!(system.id(), id);
        }
        for id in SYSTEM_IDS {
            let rater = by_id(id, &RatingConfig::default()).unwrap();
            assert_eq!(rater.id(), id);
        }
    }

    /// Without a prior and without decay, the whole-history fit is the Bradley-Terry maximum
    /// likelihood estimate: compared with choix's (`bradley_terry.json`) to 1e-6.
    #[test]
    fn whole_history_without_prior_matches_the_reference_mle() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/reference/bradley_terry.json"
        );
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut checked = 0;
        for case in json["cases"].as_array().unwrap() {
            if !case["name"].as_str().unwrap().ends_with("_mle") {
                continue;
            }
            let wins = case["input"]["wins"].as_array().unwrap();
            let mut fit = WholeHistory::with_priors(wins.len(), 1.0, &[0.0]);
            for (i, row) in wins.iter().enumerate() {
                for (j, w) in row.as_array().unwrap().iter().enumerate() {
                    for _ in 0..w.as_u64().unwrap() {
                        fit.frag(i as u32, j as u32);
                    }
                }
            }
            fit.converge();
            let theta = fit.theta();
            let mean = theta.iter().sum::<f64>() / theta.len() as f64;
            for (i, want) in case["expected"]["theta"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
            {
                let got = theta[i] - mean;
                assert!(
                    (got - want.as_f64().unwrap()).abs() < 1e-6,
                    "{}: {got} vs {want}",
                    case["name"]
                );
            }
            checked += 1;
        }
        assert_eq!(checked, 2);
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
