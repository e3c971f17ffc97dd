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

/// [`WholeHistory::converge`] stops when no player's Newton step (gradient over curvature of
/// its log posterior, in θ units) is above this in any fit: 1e-9 θ is 4e-7 Elo points.
pub const TOLERANCE: f64 = 1e-9;

/// The last Newton step aims at this fraction of [`TOLERANCE`]: from a largest step s, the CG
/// solves to a relative accuracy of at least `TOLERANCE_AIM * TOLERANCE / s`, and the next
/// largest step comes out at about that accuracy times s. When all five fits of the 20,000-game
/// crowd were solved (before [`NEGLIGIBLE_WEIGHT`]), this took 93 CG iterations instead of 150
/// for the same 25 Newton steps (the next steps land near 1e-11 θ instead of 1e-16).
const TOLERANCE_AIM: f64 = 0.1;

/// [`WholeHistory::converge`] leaves a fit whose weight is below this as the online replay left
/// it, unsolved. A fit's share of every averaged θ is its weight times its θ, so solving it would
/// move an average by less than this weight times how far the solve moves the fit: under
/// 1e-28 θ for a move of 100 θ, far below [`TOLERANCE`]. The weights of fits that predict worse
/// shrink geometrically with every frag: on the 20,000-game crowd four of the five fits end
/// near 3e-280, so the final solve costs one fit's, not five (`cargo bench --bench
/// whole_history -- 20000` prints the weights: final solve 0.30 → 0.06 s cpu, 93 → 9 CG
/// iterations).
pub const NEGLIGIBLE_WEIGHT: f64 = 1e-30;

/// No fit's weight falls below this, so a fit far behind can still catch up if it starts
/// predicting better. Not lower: at the smallest normal number (2.2e-308), where it was, every
/// product of a weight at the floor with a chance or a θ is subnormal, which this machine's
/// processor computes about ten times slower: `cargo bench --bench whole_history -- 20000`
/// replayed the crowd at 659 ns per frag with that floor, 343 ns with this one.
/// At 1e-280 such products stay normal for any chance or θ above 1e-27, and the weight is still
/// negligible ([`NEGLIGIBLE_WEIGHT`]).
const WEIGHT_FLOOR: f64 = 1e-280;
const _: () = assert!(WEIGHT_FLOOR < NEGLIGIBLE_WEIGHT);

/// At most this many Newton steps per fit in [`WholeHistory::converge`] (a warm start needs a
/// handful; the bound only matters without a prior, where a player who only won has no finite
/// optimum).
const MAX_NEWTON_STEPS: usize = 100;

/// Newton steps moving no θ by more than this are taken whole, without a line search (a
/// logistic posterior is close to its quadratic model over such a step).
const NEWTON_REGION: f64 = 0.05;

/// At most this many conjugate-gradient iterations per Newton step.
const MAX_CG_ITERATIONS: usize = 1000;

/// A player with at most this many opponents is refitted at the end of every match they play.
const ALWAYS_REFIT_UP_TO: usize = 64;

/// Above [`ALWAYS_REFIT_UP_TO`] opponents, a player is refitted at a match end once their frags
/// made plus suffered since the last refit reach their number of opponents divided by this. A
/// refit reads every opponent, so this bounds its cost by a constant per frag: without it a
/// regular of a public server, met by tens of thousands, makes every match cost as much as the
/// whole crowd. In between, the quick Newton step of each frag moves them.
const REFIT_SHARE: usize = 2;

/// The fit, updated frag by frag and match by match.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct WholeHistory {
    /// Per player: (opponent, frags made, frags suffered) in lazy-decay units, in order of first
    /// meeting (a fixed order keeps every sum, and so the site, the same from run to run).
    met: PairRecords,
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
    /// Per player: frags made plus suffered since their last refit.
    fresh: Vec<u32>,
    /// Where each pair is in `met`: (player << 32 | opponent) -> position. Derived from `met`,
    /// so not saved; after a restore, a player's row is indexed when a frag first reaches it.
    #[serde(skip)]
    index: PairIndex,
    /// Per fit, the last [`WholeHistory::predict`]: the θ difference and σ of it. The frag that
    /// follows a prediction reuses σ when its difference is the same to the bit (so the result
    /// is exactly the one computed afresh, at half the `exp` calls of a scored replay).
    #[serde(skip)]
    predicted: std::cell::RefCell<Vec<(f64, f64)>>,
    /// Per fit, what the last [`WholeHistory::converge`] reached (None: left unsolved, its
    /// weight being below [`NEGLIGIBLE_WEIGHT`]), when every fit it solved reached [`TOLERANCE`]
    /// and nothing was learnt since (else empty): converging again would take no step and find
    /// the same curvatures, so it is skipped (the evaluator's final ratings and the team model's
    /// snapshot converge the same fit one after the other).
    #[serde(skip)]
    settled: Vec<Option<Convergence>>,
}

/// The pair records of a [`WholeHistory`] fit (its `met`): per player, (opponent, frags made,
/// frags suffered). Every fit with the same decay that learns the same frags and match ends
/// holds the same records, whatever its priors: a checkpoint saves them once, with one fit, and
/// the others are saved without them ([`WholeHistory::save_pairs_elsewhere`]) and take a copy
/// on restoring ([`WholeHistory::take_pairs_from`]). On a public server's site the records are
/// 17 of the 18 MB a fit saves.
#[derive(Debug, Clone, Default)]
struct PairRecords {
    rows: Vec<Vec<(u32, f64, f64)>>,
    /// Saved as no rows at all: another fit saves the same records.
    saved_elsewhere: bool,
}

impl std::ops::Deref for PairRecords {
    type Target = Vec<Vec<(u32, f64, f64)>>;
    fn deref(&self) -> &Self::Target {
        &self.rows
    }
}

impl std::ops::DerefMut for PairRecords {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.rows
    }
}

/// Encoded as the rows, or as none (the encoding of an empty list) when saved elsewhere.
impl serde::Serialize for PairRecords {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let none: &[Vec<(u32, f64, f64)>] = &[];
        let rows = if self.saved_elsewhere {
            none
        } else {
            &self.rows
        };
        rows.serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for PairRecords {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(PairRecords {
            rows: Vec::deserialize(deserializer)?,
            saved_elsewhere: false,
        })
    }
}

/// Position of each (player, opponent) record in [`WholeHistory::met`], for the players whose
/// row is indexed. A restored fit indexes only the rows its new frags reach: an append of one
/// match to a public server's history reads a few players' rows instead of hashing every
/// pair met (close to a million).
#[derive(Debug, Clone, Default)]
struct PairIndex {
    /// Per player, whether every record of their row is in `at` (missing: not yet).
    indexed: Vec<bool>,
    at: std::collections::HashMap<u64, u32, PairHash>,
}

/// A multiplicative hash for the pair keys (they are not attacker-chosen beyond player counts,
/// and SipHash would cost more than the rest of a frag's update).
#[derive(Debug, Clone, Copy, Default)]
struct PairHash;

impl std::hash::BuildHasher for PairHash {
    type Hasher = PairHasher;
    fn build_hasher(&self) -> PairHasher {
        PairHasher(0)
    }
}

/// The hasher of [`PairHash`].
#[derive(Debug, Clone, Copy)]
struct PairHasher(u64);

impl std::hash::Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        // Fibonacci hashing, folded so the high bits (which hashbrown uses for its tags) and the
        // low bits (its bucket) both depend on every input bit.
        let h = (self.0 ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 29);
    }
}

/// The final state of a settled [`WholeHistory`]'s fits ([`WholeHistory::settled`]).
#[derive(Debug, Clone)]
pub struct SettledFits {
    priors: Vec<f64>,
    decay: f64,
    now: f64,
    theta: Vec<Vec<f64>>,
    curvature: Vec<Vec<f64>>,
    /// Per fit, what its solve reached (None: left unsolved, see [`NEGLIGIBLE_WEIGHT`]).
    reached: Vec<Option<Convergence>>,
}

/// What [`WholeHistory::converge`] reached.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Convergence {
    /// Largest Newton step (gradient over curvature, θ units) of any player in any fit at the end.
    pub largest_step: f64,
    /// Newton steps taken, summed over the fits.
    pub newton_steps: usize,
    /// Conjugate-gradient iterations, summed over the fits.
    pub cg_iterations: usize,
}

impl Convergence {
    /// Whether every fit reached [`TOLERANCE`].
    pub fn converged(&self) -> bool {
        self.largest_step <= TOLERANCE
    }
}

impl std::fmt::Display for Convergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "largest Newton step {:.1e} θ (tolerance {TOLERANCE:.0e}) after {} Newton steps, {} CG iterations",
            self.largest_step, self.newton_steps, self.cg_iterations
        )
    }
}

/// One player's Newton step in one fit: the gradient and curvature of their log posterior,
/// the prior's part plus one term per opponent.
#[derive(Debug, Clone, Copy, Default)]
struct Newton {
    grad: f64,
    hess: f64,
}

impl Newton {
    /// The prior's part (precision `prior`) at θ = `theta`.
    fn prior(prior: f64, theta: f64) -> Newton {
        Newton {
            grad: -prior * theta,
            hess: prior,
        }
    }

    /// Adds the frags `won` and `lost` against one opponent, `p` the chance to win each.
    fn add(&mut self, won: f64, lost: f64, p: f64) {
        self.grad += won - (won + lost) * p;
        self.hess += (won + lost) * p * (1.0 - p);
    }

    /// The step, bounded to ±1; None without curvature (without a prior, a player who only
    /// won has no finite optimum: keep steps bounded).
    fn step(self) -> Option<f64> {
        if self.hess <= 1e-300 {
            None
        } else {
            Some((self.grad / self.hess).clamp(-1.0, 1.0))
        }
    }
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
            met: PairRecords {
                rows: vec![Vec::new(); players],
                saved_elsewhere: false,
            },
            theta: vec![vec![0.0; players]; priors.len()],
            curvature: priors.iter().map(|&p| vec![p.max(1e-9); players]).collect(),
            weights: vec![1.0 / priors.len() as f64; priors.len()],
            now: 1.0,
            decay: decay.clamp(1e-6, 1.0),
            priors: priors.to_vec(),
            touched: Vec::new(),
            fresh: vec![0; players],
            index: PairIndex::default(),
            predicted: Default::default(),
            settled: Vec::new(),
        }
    }

    /// Whether `other` is the same model: the same priors and decay, so that the same frags and
    /// match ends make it learn the same state to the bit.
    pub fn same_model(&self, other: &WholeHistory) -> bool {
        self.decay.to_bits() == other.decay.to_bits()
            && self.priors.len() == other.priors.len()
            && self
                .priors
                .iter()
                .zip(&other.priors)
                .all(|(a, b)| a.to_bits() == b.to_bits())
    }

    /// Whether [`FragRater::save`](crate::rating::system::FragRater::save) leaves the pair
    /// records out, as another fit of the same decay, learning the same frags, saves them.
    pub fn save_pairs_elsewhere(&mut self, elsewhere: bool) {
        self.met.saved_elsewhere = elsewhere;
    }

    /// Whether the fit has players but no pair records at all (not even a row per player): it
    /// was restored from a state saved without them ([`WholeHistory::save_pairs_elsewhere`]),
    /// and has not taken them yet.
    pub fn lacks_pairs(&self) -> bool {
        self.met.is_empty() && !self.fresh.is_empty()
    }

    /// Restored from a state saved without its pair records
    /// ([`WholeHistory::save_pairs_elsewhere`]), takes a copy of those of `other`, the fit that
    /// saved them (the same decay, restored from the same checkpoint). Returns whether it did:
    /// a fit that has its records, or none to take, is left as it is.
    pub fn take_pairs_from(&mut self, other: &WholeHistory) -> bool {
        if !self.lacks_pairs()
            || self.fresh.len() != other.met.len()
            || self.decay.to_bits() != other.decay.to_bits()
        {
            return false;
        }
        self.met.rows.clone_from(&other.met.rows);
        true
    }

    /// The same model with nothing learnt and no player.
    pub fn emptied(&self) -> WholeHistory {
        WholeHistory::with_priors(0, self.decay, &self.priors)
    }

    /// Makes room for identities up to `players`. A newcomer's curvature is the prior's as it
    /// weighs now (the prior grows with the lazy decay like the frags do).
    pub fn grow(&mut self, players: usize) {
        if players > self.met.len() {
            self.settled.clear();
        }
        let now = self.now;
        self.met.resize(players, Vec::new());
        self.fresh.resize(players, 0);
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
        let mut predicted = self.predicted.borrow_mut();
        predicted.clear();
        self.weights
            .iter()
            .zip(&self.theta)
            .map(|(w, t)| {
                let d = t[k] - t[v];
                let p = sigmoid(d);
                predicted.push((d, p));
                w * p
            })
            .sum()
    }

    /// Learns one frag: weighs every fit by its prediction of it (Bayes' rule), adds it, and
    /// moves both players' θ by a quick Newton step so predictions stay current within the match.
    pub fn frag(&mut self, killer: u32, victim: u32) {
        self.settled.clear();
        let (k, v) = (killer as usize, victim as usize);
        let now = self.now;
        self.pair(k, victim).1 += now;
        self.pair(v, killer).2 += now;
        self.touched.extend([killer, victim]);
        self.fresh[k] = self.fresh[k].saturating_add(1);
        self.fresh[v] = self.fresh[v].saturating_add(1);
        let predicted = self.predicted.get_mut();
        for fit in 0..self.priors.len() {
            let theta = &mut self.theta[fit];
            let d = theta[k] - theta[v];
            let p = match predicted.get(fit) {
                Some(&(same, p)) if same.to_bits() == d.to_bits() => p,
                _ => sigmoid(d),
            };
            self.weights[fit] *= p.max(1e-300);
            // Between refits, a quick Newton step on the new frag alone: the rest of each
            // player's gradient is about zero at the last fit, and the curvature is the one of
            // that fit plus this frag's. O(1) per fit; the match end refits properly.
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
        predicted.clear();
        let total: f64 = self.weights.iter().sum();
        for w in &mut self.weights {
            // Never exactly 0: a fit far behind can still catch up if it starts predicting better.
            *w = (*w / total).max(WEIGHT_FLOOR);
        }
    }

    /// Ends a match: refits the players of the match (those due, see [`REFIT_SHARE`]), then ages
    /// every frag so far by one match.
    pub fn end_match(&mut self) {
        self.settled.clear();
        let mut touched = std::mem::take(&mut self.touched);
        touched.sort_unstable();
        touched.dedup();
        touched.retain(|&p| {
            let (opponents, fresh) = (self.met[p as usize].len(), self.fresh[p as usize] as usize);
            opponents <= ALWAYS_REFIT_UP_TO || fresh * REFIT_SHARE >= opponents
        });
        // The fits are independent: each sees its own steps in the same order as a sweep of
        // one fit after another would take them, but the opponents are read once for all.
        for _ in 0..3 {
            for &p in &touched {
                self.step_every_fit(p as usize);
            }
        }
        for &p in &touched {
            self.fresh[p as usize] = 0;
        }
        touched.clear();
        self.touched = touched;
        self.now /= self.decay;
        if self.now > RESCALE_ABOVE {
            let scale = 1.0 / self.now;
            for m in self.met.iter_mut() {
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
        if !self.index.indexed.get(player).copied().unwrap_or(false) {
            // Every record of the row goes in before any is looked up, and records are only
            // added through this function afterwards, so the row stays whole in the index.
            if self.index.indexed.len() <= player {
                self.index.indexed.resize(player + 1, false);
            }
            for (at, e) in met.iter().enumerate() {
                self.index
                    .at
                    .insert((player as u64) << 32 | u64::from(e.0), at as u32);
            }
            self.index.indexed[player] = true;
        }
        let at = *self
            .index
            .at
            .entry((player as u64) << 32 | u64::from(opponent))
            .or_insert_with(|| {
                met.push((opponent, 0.0, 0.0));
                (met.len() - 1) as u32
            });
        &mut met[at as usize]
    }

    /// One bounded Newton step on player `i`'s θ in fit `fit`, the others fixed. Returns the
    /// size of the step.
    fn step(&mut self, fit: usize, i: usize) -> f64 {
        self.settled.clear();
        let theta = &self.theta[fit];
        let mut newton = Newton::prior(self.priors[fit] * self.now, theta[i]);
        for &(j, won, lost) in &self.met[i] {
            newton.add(won, lost, sigmoid(theta[i] - theta[j as usize]));
        }
        let Some(step) = newton.step() else {
            return 0.0;
        };
        self.theta[fit][i] += step;
        self.curvature[fit][i] = newton.hess;
        step.abs()
    }

    /// [`WholeHistory::step`] on player `i` in every fit, in one pass over their opponents
    /// (each fit's sums are taken in the same order, so the steps are exactly those of `step`).
    fn step_every_fit(&mut self, i: usize) {
        const MOST: usize = 8;
        let fits = self.priors.len();
        if fits > MOST {
            for fit in 0..fits {
                self.step(fit, i);
            }
            return;
        }
        let mut own = [0.0; MOST];
        let mut newton = [Newton::default(); MOST];
        for fit in 0..fits {
            own[fit] = self.theta[fit][i];
            newton[fit] = Newton::prior(self.priors[fit] * self.now, own[fit]);
        }
        for &(j, won, lost) in &self.met[i] {
            for fit in 0..fits {
                newton[fit].add(won, lost, sigmoid(own[fit] - self.theta[fit][j as usize]));
            }
        }
        for (fit, n) in newton.iter().enumerate().take(fits) {
            if let Some(step) = n.step() {
                self.theta[fit][i] += step;
                self.curvature[fit][i] = n.hess;
            }
        }
    }

    /// Solves every fit whose weight is not negligible ([`NEGLIGIBLE_WEIGHT`]) to its maximum a
    /// posteriori over all players, to [`TOLERANCE`] (for the final ratings). Warm-started from
    /// the online fit, each fit takes Newton steps over the whole sparse frag graph, each solved
    /// by a Jacobi-preconditioned conjugate gradient: the cost is a few passes over the met
    /// pairs, linear in them, whatever the number of players. The report covers the fits solved.
    pub fn converge(&mut self) -> Convergence {
        use rayon::prelude::*;
        if !self.settled.is_empty() {
            // Each fit would find its largest step at most TOLERANCE and stop at once.
            return Convergence {
                newton_steps: 0,
                cg_iterations: 0,
                ..combined(&self.settled)
            };
        }
        let graph = Graph::new(&self.met);
        let now = self.now;
        let results: Vec<Option<Convergence>> = self
            .theta
            .par_iter_mut()
            .zip(self.curvature.par_iter_mut())
            .zip(self.priors.par_iter().zip(self.weights.par_iter()))
            .map(|((theta, curvature), (&prior, &weight))| {
                (weight >= NEGLIGIBLE_WEIGHT).then(|| graph.solve(prior * now, theta, curvature))
            })
            .collect();
        let report = combined(&results);
        if report.converged() {
            self.settled = results;
        }
        report
    }

    /// The final state of every fit, once each solved has settled at [`TOLERANCE`] (else
    /// `None`): what a model that is one of the fits solved, learnt alone, takes instead of
    /// converging itself ([`WholeHistory::converge_from`]). A copy of θ and curvatures only, not of the frags.
    pub fn settled(&self) -> Option<SettledFits> {
        (!self.settled.is_empty()).then(|| SettledFits {
            priors: self.priors.clone(),
            decay: self.decay,
            now: self.now,
            theta: self.theta.clone(),
            curvature: self.curvature.clone(),
            reached: self.settled.clone(),
        })
    }

    /// Takes its final state from `whole` instead of converging itself, when this model is one
    /// fit of `whole`'s alone (one prior, `whole`'s fit `k`, the same decay) and both learnt the
    /// same frags and match ends. Each fit learns apart from the others (only their weights
    /// mix them), so this one's θ and curvatures were `whole`'s fit `k`'s to the bit, and its
    /// own [`WholeHistory::converge`] would take the same steps. Not from a fit `whole` left
    /// unsolved: alone, its weight is 1. Returns whether it did.
    pub fn converge_from(&mut self, whole: &SettledFits) -> bool {
        let [prior] = self.priors[..] else {
            return false;
        };
        let Some(k) = whole
            .priors
            .iter()
            .position(|p| p.to_bits() == prior.to_bits())
        else {
            return false;
        };
        let Some(reached) = whole.reached[k] else {
            return false;
        };
        if whole.decay.to_bits() != self.decay.to_bits()
            || whole.now.to_bits() != self.now.to_bits()
            || whole.theta[k].len() != self.met.len()
        {
            return false;
        }
        self.theta[0].clone_from(&whole.theta[k]);
        self.curvature[0].clone_from(&whole.curvature[k]);
        self.settled = vec![Some(reached)];
        true
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

    /// Player `i`'s averaged θ on the Elo-like scale as the fit stands (no convergence step),
    /// 1500 for a player not yet seen.
    pub fn rating(&self, i: usize) -> f64 {
        let t: f64 = self
            .weights
            .iter()
            .zip(&self.theta)
            .map(|(w, t)| w * t.get(i).copied().unwrap_or(0.0))
            .sum();
        1500.0 + t * ELO_SCALE
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

/// The reports of the fits solved as one: the largest step of any, the steps of all.
fn combined(reports: &[Option<Convergence>]) -> Convergence {
    reports.iter().flatten().fold(
        Convergence {
            largest_step: 0.0,
            newton_steps: 0,
            cg_iterations: 0,
        },
        |a, r| Convergence {
            largest_step: a.largest_step.max(r.largest_step),
            newton_steps: a.newton_steps + r.newton_steps,
            cg_iterations: a.cg_iterations + r.cg_iterations,
        },
    )
}

/// The met pairs, each once, for the final solve: row `i` is `start[i]..start[i + 1]` of
/// `opponent` (the opponents `j >= i` that `i` met, in order of first meeting), `won` (frags
/// `i` made against `j`) and `lost` (frags `j` made against `i`). The record of `j` against
/// `i` in [`WholeHistory::met`] holds the same two sums swapped (every frag adds to both, and
/// the rescale scales both), so a pair read once serves both players: one `exp` and one
/// weight per pair instead of two.
struct Graph {
    start: Vec<usize>,
    opponent: Vec<u32>,
    won: Vec<f64>,
    lost: Vec<f64>,
}

/// What a pass of [`Graph::derivatives`] makes, in buffers a solve reuses.
struct Derivatives {
    /// Scratch: each player's gradient and curvature as the pass adds to them.
    sums: Vec<[f64; 2]>,
    /// The gradient of the log posterior, per player.
    grad: Vec<f64>,
    /// The curvature of each player's own term (the Hessian's diagonal, negated).
    diagonal: Vec<f64>,
    /// Each pair's weight (its term of the Hessian, negated), per pair.
    weight: Vec<f64>,
}

/// The records of player `i`'s row against opponents `j >= i`.
fn upper(i: usize, row: &[(u32, f64, f64)]) -> impl Iterator<Item = &(u32, f64, f64)> {
    row.iter().filter(move |e| e.0 as usize >= i)
}

impl Graph {
    fn new(met: &[Vec<(u32, f64, f64)>]) -> Graph {
        let pairs = met
            .iter()
            .enumerate()
            .map(|(i, row)| upper(i, row).count())
            .sum();
        let mut g = Graph {
            start: Vec::with_capacity(met.len() + 1),
            opponent: Vec::with_capacity(pairs),
            won: Vec::with_capacity(pairs),
            lost: Vec::with_capacity(pairs),
        };
        g.start.push(0);
        for (i, row) in met.iter().enumerate() {
            for &(j, won, lost) in upper(i, row) {
                g.opponent.push(j);
                g.won.push(won);
                g.lost.push(lost);
            }
            g.start.push(g.opponent.len());
        }
        g
    }

    fn row(&self, i: usize) -> std::ops::Range<usize> {
        self.start[i]..self.start[i + 1]
    }

    /// The log posterior's derivatives at `theta` into `into` (see [`Derivatives`]); returns the
    /// largest coordinate Newton step |grad / diagonal|.
    ///
    /// One pass in row order: a pair adds to its own row's sums and to its opponent's (a later
    /// row, so each row is whole once reached). The order of every sum is fixed by the graph,
    /// so the bits are the same whatever the thread count (the fits run side by side).
    fn derivatives(&self, prior: f64, theta: &[f64], into: &mut Derivatives) -> f64 {
        let Derivatives {
            sums,
            grad,
            diagonal,
            weight,
        } = into;
        for (s, &t) in sums.iter_mut().zip(theta) {
            *s = [-prior * t, prior];
        }
        let mut largest: f64 = 0.0;
        for i in 0..theta.len() {
            let ti = theta[i];
            let [mut g, mut h] = sums[i];
            for e in self.row(i) {
                let j = self.opponent[e] as usize;
                // p: the chance that i frags j; 1 - p that j frags i.
                let p = sigmoid(ti - theta[j]);
                let q = 1.0 - p;
                let (won, lost) = (self.won[e], self.lost[e]);
                let n = won + lost;
                let w = n * (p * q);
                weight[e] = w;
                g += won - n * p;
                h += w;
                if j != i {
                    let s = &mut sums[j];
                    s[0] += lost - n * q;
                    s[1] += w;
                }
            }
            grad[i] = g;
            diagonal[i] = h;
            if h > 1e-300 {
                largest = largest.max((g / h).abs());
            }
        }
        largest
    }

    /// y = (D - W) x: the negated Hessian times `x`, each pair read once for both its players.
    fn multiply(&self, diagonal: &[f64], weight: &[f64], x: &[f64], y: &mut [f64]) {
        for ((y, &d), &x) in y.iter_mut().zip(diagonal).zip(x) {
            *y = d * x;
        }
        for i in 0..x.len() {
            let xi = x[i];
            let mut s = y[i];
            for e in self.row(i) {
                let j = self.opponent[e] as usize;
                let w = weight[e];
                s -= w * x[j];
                if j != i {
                    y[j] -= w * xi;
                }
            }
            y[i] = s;
        }
    }

    /// Newton's method from `theta` to the maximum of the log posterior with prior precision
    /// `prior`; leaves each player's final curvature in `curvature`.
    fn solve(&self, prior: f64, theta: &mut [f64], curvature: &mut [f64]) -> Convergence {
        let n = theta.len();
        let mut pass = Derivatives {
            sums: vec![[0.0; 2]; n],
            grad: vec![0.0; n],
            diagonal: vec![0.0; n],
            weight: vec![0.0; self.opponent.len()],
        };
        let mut direction = vec![0.0; n];
        let mut trial = vec![0.0; n];
        let mut cg = Cg::new(n);
        let mut report = Convergence {
            largest_step: f64::INFINITY,
            newton_steps: 0,
            cg_iterations: 0,
        };
        // Whether `pass` and the largest step are those of `theta` as it is (the
        // line search leaves them so for the point it accepts): they are not computed again.
        let mut derived = false;
        for _ in 0..MAX_NEWTON_STEPS {
            if !derived {
                report.largest_step = self.derivatives(prior, theta, &mut pass);
                derived = true;
            }
            if report.largest_step <= TOLERANCE {
                break;
            }
            // Inexact Newton: solve more accurately as the optimum nears (superlinear steps),
            // but no more accurately than the step that ends the solve needs (see
            // [`TOLERANCE_AIM`]): the last step before the tolerance then costs a few CG
            // iterations instead of tens.
            let step = report.largest_step;
            let accuracy = step.max(TOLERANCE_AIM * TOLERANCE / step).min(0.1);
            report.cg_iterations += cg.solve(
                self,
                &pass.diagonal,
                &pass.weight,
                &pass.grad,
                accuracy,
                &mut direction,
            );
            report.newton_steps += 1;
            // Bounded steps (as the coordinate steps are) and a line search until the posterior
            // grows: Newton's step is exact near the optimum, the line search only guards the start.
            let longest = direction.iter().fold(0.0f64, |m, d| m.max(d.abs()));
            if longest <= NEWTON_REGION {
                // Close enough for Newton's full step: no line search.
                for (t, &d) in theta.iter_mut().zip(&direction) {
                    *t += d;
                }
                derived = false;
                continue;
            }
            // The log posterior is concave, so along the step it rises as long as its slope
            // there is not negative: a trial point where the slope is still >= 0 is above
            // `theta`. Its derivatives are the next Newton step's, so a trial accepted costs
            // one pass over the pairs and no value of the posterior is ever computed.
            let mut scale = if longest > 1.0 { 1.0 / longest } else { 1.0 };
            let mut moved = false;
            let rise: f64 = pass.grad.iter().zip(&direction).map(|(g, d)| g * d).sum();
            for _ in 0..30 {
                for ((t, &x), &d) in trial.iter_mut().zip(theta.iter()).zip(&direction) {
                    *t = x + scale * d;
                }
                let largest = self.derivatives(prior, &trial, &mut pass);
                let slope: f64 = pass.grad.iter().zip(&direction).map(|(g, d)| g * d).sum();
                if slope >= 0.0 {
                    theta.copy_from_slice(&trial);
                    report.largest_step = largest;
                    moved = true;
                    break;
                }
                // The slope's root along the step by the secant, a little short of it.
                scale *= (0.98 * rise / (rise - slope)).clamp(1e-3, 0.9);
            }
            if !moved {
                // No ascent left at this precision: the derivatives are those of a trial.
                derived = false;
                break;
            }
        }
        if !derived {
            report.largest_step = self.derivatives(prior, theta, &mut pass);
        }
        curvature.copy_from_slice(&pass.diagonal);
        report
    }
}

/// Buffers of a Jacobi-preconditioned conjugate gradient.
struct Cg {
    residual: Vec<f64>,
    preconditioned: Vec<f64>,
    search: Vec<f64>,
    product: Vec<f64>,
}

impl Cg {
    fn new(n: usize) -> Cg {
        Cg {
            residual: vec![0.0; n],
            preconditioned: vec![0.0; n],
            search: vec![0.0; n],
            product: vec![0.0; n],
        }
    }

    /// Solves (D - W) x = b into `x` from 0, until the preconditioned residual is `accuracy`
    /// times that of `b`; returns the iterations. Players without curvature (no prior, no
    /// frags) stay at 0.
    fn solve(
        &mut self,
        graph: &Graph,
        diagonal: &[f64],
        weight: &[f64],
        b: &[f64],
        accuracy: f64,
        x: &mut [f64],
    ) -> usize {
        let inverse = |d: f64| if d > 1e-300 { 1.0 / d } else { 0.0 };
        x.fill(0.0);
        self.residual.copy_from_slice(b);
        for ((z, &r), &d) in self.preconditioned.iter_mut().zip(b).zip(diagonal) {
            *z = inverse(d) * r;
        }
        self.search.copy_from_slice(&self.preconditioned);
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        let mut rz = dot(&self.residual, &self.preconditioned);
        let target = rz * accuracy * accuracy;
        for iteration in 0..MAX_CG_ITERATIONS {
            if rz <= target || rz <= 0.0 {
                return iteration;
            }
            graph.multiply(diagonal, weight, &self.search, &mut self.product);
            let curvature = dot(&self.search, &self.product);
            if curvature <= 0.0 {
                return iteration;
            }
            let alpha = rz / curvature;
            let updates = x
                .iter_mut()
                .zip(&mut self.residual)
                .zip(&mut self.preconditioned)
                .zip(self.search.iter().zip(&self.product).zip(diagonal));
            for (((xi, r), z), ((&s, &q), &d)) in updates {
                *xi += alpha * s;
                *r -= alpha * q;
                *z = inverse(d) * *r;
            }
            let next = dot(&self.residual, &self.preconditioned);
            let beta = next / rz;
            rz = next;
            for (s, &z) in self.search.iter_mut().zip(&self.preconditioned) {
                *s = z + beta * *s;
            }
        }
        MAX_CG_ITERATIONS
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::EventKind;

    /// The solver [`WholeHistory::converge`] replaced: Gauss-Seidel sweeps of one-player Newton
    /// steps until no step is above 1e-12 (tighter than its old 1e-9, so it is the reference).
    fn converge_by_sweeps(wh: &mut WholeHistory) {
        for fit in 0..wh.priors.len() {
            for _ in 0..100_000 {
                let mut largest: f64 = 0.0;
                for i in 0..wh.met.len() {
                    if !wh.met[i].is_empty() {
                        largest = largest.max(wh.step(fit, i));
                    }
                }
                if largest < 1e-12 {
                    break;
                }
            }
        }
    }

    /// Replays `matches` (frags only, numbered by the roster) into a fresh fit.
    fn replay(decay: f64, matches: &[Vec<(u32, u32)>], players: usize) -> WholeHistory {
        let mut wh = WholeHistory::new(players, decay);
        for m in matches {
            for &(k, v) in m {
                wh.frag(k, v);
            }
            wh.end_match();
        }
        wh
    }

    /// The frags of each match of `../shared/data/<set>`, and the number of players.
    fn real_frags(set: &str) -> (Vec<Vec<(u32, u32)>>, usize) {
        let (matches, roster) = crate::testdata::history(set);
        let frags = matches
            .iter()
            .zip(&roster.match_players)
            .map(|(m, ids)| {
                m.events
                    .read()
                    .iter()
                    .filter(|e| e.kind == EventKind::Frag)
                    .map(|e| (ids[e.actor as usize], ids[e.target as usize]))
                    .collect()
            })
            .collect();
        (frags, roster.players.len())
    }

    /// The fits [`WholeHistory::converge`] solves: those of weight at least
    /// [`NEGLIGIBLE_WEIGHT`].
    fn solved(wh: &WholeHistory) -> Vec<usize> {
        (0..wh.priors.len())
            .filter(|&fit| wh.weights[fit] >= NEGLIGIBLE_WEIGHT)
            .collect()
    }

    /// Asserts that `newton` (converged from `online`) and the old sweeps reach the same
    /// optimum: every θ of every fit solved within 1e-7 (4e-5 Elo points), and so the averaged
    /// θ too; the fits left unsolved are exactly as the online replay left them.
    fn same_solved_optimum(online: &WholeHistory, newton: &WholeHistory, what: &str) {
        let mut sweeps = online.clone();
        converge_by_sweeps(&mut sweeps);
        let solved = solved(online);
        assert!(!solved.is_empty(), "{what}: some fit is solved");
        let mut worst: f64 = 0.0;
        for fit in 0..online.priors.len() {
            if solved.contains(&fit) {
                for (a, b) in newton.theta[fit].iter().zip(&sweeps.theta[fit]) {
                    worst = worst.max((a - b).abs());
                }
            } else {
                assert_eq!(newton.theta[fit], online.theta[fit], "{what}: fit {fit}");
                assert_eq!(newton.curvature[fit], online.curvature[fit], "{what}");
            }
        }
        for (a, b) in newton.theta().iter().zip(&sweeps.theta()) {
            worst = worst.max((a - b).abs());
        }
        assert!(worst < 1e-7, "{what}: θ differ by {worst}");
    }

    /// Asserts that the Newton solve from `wh` converges, to the optimum of the old sweeps.
    fn same_optimum(wh: WholeHistory, what: &str) {
        let mut newton = wh.clone();
        let report = newton.converge();
        assert!(report.converged(), "{what}: {report}");
        same_solved_optimum(&wh, &newton, &format!("{what} ({report})"));
    }

    /// On the real OpenArena logs, with the default decay and without decay.
    #[test]
    fn newton_reaches_the_optimum_of_the_sweeps_on_real_logs() {
        let (frags, players) = real_frags("openarena");
        assert!(frags.iter().map(Vec::len).sum::<usize>() > 1000);
        for decay in [0.99, 1.0] {
            same_optimum(replay(decay, &frags, players), &format!("decay {decay}"));
        }
    }

    /// From far off the optimum (every θ at ±4, so the first Newton steps of every fit are
    /// longer than [`NEWTON_REGION`] and search along the line), the solve reaches the same
    /// optimum as the sweeps from the online fit, in a few Newton steps per fit.
    #[test]
    fn a_solve_from_far_off_searches_its_way_to_the_optimum() {
        let (frags, players) = real_frags("openarena");
        let online = replay(0.99, &frags, players);
        let mut start = online.clone();
        for theta in &mut start.theta {
            for (i, t) in theta.iter_mut().enumerate() {
                *t = if i % 2 == 0 { 4.0 } else { -4.0 };
            }
        }
        let mut far = start.clone();
        let report = far.converge();
        assert!(report.converged(), "{report}");
        assert!(report.newton_steps <= 20 * PRIORS.len(), "{report}");
        let mut sweeps = online;
        converge_by_sweeps(&mut sweeps);
        for fit in solved(&start) {
            for (a, b) in far.theta[fit].iter().zip(&sweeps.theta[fit]) {
                assert!((a - b).abs() < 1e-7, "{a} against {b} ({report})");
            }
        }
    }

    /// A public-server crowd: a regular who meets more players than are refitted every match
    /// (so the refits are spaced) and a crowd met once or twice. The online fit still predicts
    /// the regular's frags, and the final solve reaches the optimum.
    #[test]
    fn a_crowd_around_a_regular_reaches_the_optimum() {
        let mut matches = Vec::new();
        let mut next = 1u32;
        let mut seed = 7u64;
        let mut random = |n: u32| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % u64::from(n)) as u32
        };
        for _ in 0..400 {
            // The regular (0), a returning player (1..=20) and two newcomers.
            let players = [0, 1 + random(20), 21 + next, 22 + next];
            next += 2;
            let mut m = Vec::new();
            for _ in 0..12 {
                let (a, b) = (random(4) as usize, random(4) as usize);
                if a != b {
                    // The regular wins two frags in three.
                    let (k, v) = if players[b] == 0 && random(3) > 0 {
                        (b, a)
                    } else {
                        (a, b)
                    };
                    m.push((players[k], players[v]));
                }
            }
            matches.push(m);
        }
        let players = (22 + next) as usize;
        let wh = replay(0.995, &matches, players);
        assert!(wh.met[0].len() > ALWAYS_REFIT_UP_TO, "{}", wh.met[0].len());
        assert!(wh.theta()[0] > 0.0);
        same_optimum(wh, "crowd");
    }

    /// The final solve reads each pair once, from the row of its lower-numbered player, and a
    /// frag of a player against themself (one record, read by no other row) once too: with
    /// such records and players met in every order of numbering, it reaches the optimum of the
    /// sweeps, which read every record of every row.
    #[test]
    fn pairs_read_once_and_self_frags_reach_the_optimum() {
        let matches = vec![
            vec![(3, 0), (0, 3), (3, 1), (2, 2), (1, 0)],
            vec![(4, 2), (2, 4), (4, 4), (0, 4), (2, 3)],
            vec![(1, 4), (3, 3), (4, 1), (0, 2)],
        ];
        let wh = replay(0.9, &matches, 6);
        assert!(
            wh.met[2]
                .iter()
                .any(|&(j, won, lost)| j == 2 && won == lost)
        );
        let mut solved = wh.clone();
        assert!(solved.converge().converged());
        same_optimum(wh, "self frags");
        // Each player's curvature counts every record of their row once, their own included.
        for (fit, &prior) in PRIORS.iter().enumerate() {
            let t = &solved.theta[fit];
            for (i, row) in solved.met.iter().enumerate() {
                let mut want = prior * solved.now;
                for &(j, won, lost) in row {
                    let p = sigmoid(t[i] - t[j as usize]);
                    want += (won + lost) * p * (1.0 - p);
                }
                let got = solved.curvature[fit][i];
                assert!(
                    (got - want).abs() <= 1e-12 * want,
                    "fit {fit} player {i}: {got} {want}"
                );
            }
        }
    }

    /// θ and curvatures of every fit, to the bit.
    fn bits(wh: &WholeHistory) -> Vec<u64> {
        wh.theta
            .iter()
            .chain(&wh.curvature)
            .flatten()
            .map(|x| x.to_bits())
            .collect()
    }

    /// Converging a settled fit again changes no bit (so [`WholeHistory::converge`] skips it),
    /// and a fit learnt alone with one of the priors, which learns exactly what that fit of
    /// the averaged model learns, takes its final state from it with the same bits as its own
    /// refit, when that fit was solved; from a fit left unsolved (its weight negligible in the
    /// average, but 1 alone) it solves itself. On the real OpenArena logs, with and without
    /// decay.
    #[test]
    fn a_settled_fit_and_a_fit_learnt_alone_converge_to_the_same_bits() {
        let (frags, players) = real_frags("openarena");
        for decay in [0.99, 1.0] {
            let mut whole = replay(decay, &frags, players);
            let solved = solved(&whole);
            assert!(
                !solved.is_empty() && solved.len() < PRIORS.len(),
                "decay {decay}: some fits solved, some not"
            );
            assert!(whole.settled().is_none(), "not from an unconverged fit");
            let online = whole.clone();
            assert!(whole.converge().converged());
            let fits = whole.settled().expect("settled once converged");
            let mut again = whole.clone();
            again.settled.clear();
            let report = again.converge();
            assert_eq!((report.newton_steps, report.cg_iterations), (0, 0));
            assert_eq!(bits(&again), bits(&whole), "decay {decay}: converged again");
            for (k, &prior) in PRIORS.iter().enumerate() {
                let mut alone = WholeHistory::with_priors(players, decay, &[prior]);
                for m in &frags {
                    for &(k, v) in m {
                        alone.frag(k, v);
                    }
                    alone.end_match();
                }
                assert_eq!(
                    alone.theta[0], online.theta[k],
                    "decay {decay}: learnt alike"
                );
                let mut own = alone.clone();
                let report = own.converge();
                assert!(report.converged() && report.newton_steps > 0, "{report}");
                let taken = alone.converge_from(&fits);
                assert_eq!(taken, solved.contains(&k), "decay {decay}: prior {prior}");
                if !taken {
                    continue;
                }
                assert_eq!(bits(&alone), bits(&own), "decay {decay}: prior {prior}");
                let ratings = |wh: &WholeHistory| -> Vec<u64> {
                    wh.ratings().iter().map(|r| r.to_bits()).collect()
                };
                assert_eq!(ratings(&alone), ratings(&own));
                // Another model (decay or priors) is not a part of it.
                let other = WholeHistory::with_priors(players, 0.5, &[prior]);
                assert!(!other.clone().converge_from(&fits));
            }
            assert!(!WholeHistory::new(players, decay).converge_from(&fits));
        }
    }

    /// Where one player beats another in 9 frags of 10, over 3,000 matches, the fits with the
    /// strongest priors (which hold the two close) fall to [`WEIGHT_FLOOR`], and their products
    /// with θ and with chances, which every average takes, are normal numbers (subnormal ones
    /// cost ten times as much), while such a weight is still negligible.
    #[test]
    fn weights_at_the_floor_keep_their_products_normal() {
        let one: Vec<(u32, u32)> = (0..10)
            .map(|f| if f == 0 { (1, 0) } else { (0, 1) })
            .collect();
        let wh = replay(0.99, &vec![one; 3000], 2);
        assert!(wh.weights.iter().all(|&w| w >= WEIGHT_FLOOR));
        assert!(wh.weights.contains(&WEIGHT_FLOOR), "{:?}", wh.weights);
        let normal = |x: f64| x == 0.0 || x.is_normal();
        for (w, theta) in wh.weights.iter().zip(&wh.theta) {
            assert!(theta.iter().all(|t| normal(w * t)), "weight {w}");
            assert!(normal(w * 1e-27), "weight {w}");
        }
    }

    /// The fits left unsolved move the averaged θ by nothing measurable: on the real OpenArena
    /// logs, the averaged θ after [`WholeHistory::converge`] is within 1e-20 θ of the average
    /// of every fit solved, unsolved ones included.
    #[test]
    fn fits_of_negligible_weight_leave_the_average_unmoved() {
        let (frags, players) = real_frags("openarena");
        let mut wh = replay(0.99, &frags, players);
        let mut every = wh.clone();
        let graph = Graph::new(&every.met);
        let now = every.now;
        for fit in 0..every.priors.len() {
            let prior = every.priors[fit] * now;
            let report = graph.solve(prior, &mut every.theta[fit], &mut every.curvature[fit]);
            assert!(report.converged(), "{report}");
        }
        assert!(wh.converge().converged());
        assert!(solved(&wh).len() < PRIORS.len());
        let mut worst: f64 = 0.0;
        for (a, b) in wh.theta().iter().zip(&every.theta()) {
            worst = worst.max((a - b).abs());
        }
        assert!(worst <= 1e-20, "averages differ by {worst}");
        for i in 0..players {
            let (a, b) = (wh.posterior(i), every.posterior(i));
            assert!(
                (a.1 - b.1).abs() <= 1e-20 * b.1.max(1.0),
                "{a:?} against {b:?}"
            );
        }
    }

    /// A fit saved and restored before the last two matches of the real OpenArena logs (its
    /// pair index is not saved: it indexes a row when a frag first reaches it) learns them to
    /// the same records, θ and curvatures, to the bit, as the fit that learnt them without a
    /// break, indexing only the rows of their players.
    #[test]
    fn a_restored_fit_learns_the_same_bits_as_an_unbroken_one() {
        let (frags, players) = real_frags("openarena");
        let half = frags.len() - 2;
        let whole = replay(0.99, &frags, players);
        let first = replay(0.99, &frags[..half], players);
        let bytes = postcard::to_stdvec(&first).unwrap();
        let mut restored: WholeHistory = postcard::from_bytes(&bytes).unwrap();
        assert!(restored.index.indexed.is_empty() && restored.index.at.is_empty());
        for m in &frags[half..] {
            for &(k, v) in m {
                restored.frag(k, v);
            }
            restored.end_match();
        }
        assert!(
            restored.index.at.len() < whole.index.at.len(),
            "only rows reached"
        );
        assert_eq!(restored.met.len(), whole.met.len());
        for (a, b) in restored.met.iter().zip(whole.met.iter()) {
            let record = |r: &(u32, f64, f64)| (r.0, r.1.to_bits(), r.2.to_bits());
            assert_eq!(
                a.iter().map(record).collect::<Vec<_>>(),
                b.iter().map(record).collect::<Vec<_>>()
            );
        }
        assert_eq!(bits(&restored), bits(&whole));
    }

    /// A fit with one prior and the averaged fit learn the same pair records from the real
    /// OpenArena logs; saved without them, the one-prior fit's encoding is that of a fit with
    /// no rows, and restored, it takes the averaged fit's and equals the fit saved whole, to
    /// the bit. A fit of another decay, or one that has its records, takes none.
    #[test]
    fn a_fit_saved_without_its_pair_records_takes_them_back() {
        let (frags, players) = real_frags("openarena");
        let mut single = WholeHistory::with_priors(players, 0.99, &[3.0]);
        let averaged = replay(0.99, &frags, players);
        for m in &frags {
            for &(k, v) in m {
                single.frag(k, v);
            }
            single.end_match();
        }
        let whole = postcard::to_stdvec(&single).unwrap();
        single.save_pairs_elsewhere(true);
        let without = postcard::to_stdvec(&single).unwrap();
        assert!(
            without.len() * 4 < whole.len(),
            "{} of {}",
            without.len(),
            whole.len()
        );
        let mut no_rows = single.clone();
        no_rows.met.rows.clear();
        no_rows.save_pairs_elsewhere(false);
        assert_eq!(without, postcard::to_stdvec(&no_rows).unwrap());

        let mut restored: WholeHistory = postcard::from_bytes(&without).unwrap();
        let mut other_decay: WholeHistory = postcard::from_bytes(&without).unwrap();
        assert!(!other_decay.take_pairs_from(&replay(0.98, &frags, players)));
        assert!(other_decay.met.is_empty());
        assert!(restored.take_pairs_from(&averaged));
        assert_eq!(postcard::to_stdvec(&restored).unwrap(), whole);
        assert!(!restored.take_pairs_from(&averaged), "it has them now");
    }

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
