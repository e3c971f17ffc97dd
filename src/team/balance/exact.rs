//! The exact search for lobbies too big to try every split (25 to [`MEET_UP_TO`] players):
//! meet in the middle over the real objective, with the exhaustive search's order of the results.
//!
//! The players are cut into a low half A (holding player 0) and a high half B. Every red subset
//! of B is listed once with its sums of skill means and variances, bucketed by (size, signature
//! of the rules that cross the cut) and sorted by (sum of means, sum of variances, mask). Then
//! every red subset of A that keeps the rules inside A looks, for each allowed red team size, in
//! its bucket for the B subsets around the sum that makes the logit zero, walking outwards until
//! a proven bound says no farther subset can enter the kept list (see [`MeetInTheMiddle::run`]).
//!
//! The order of the results is exactly [`crate::team::balance::exhaustive`]'s: each red set's key is its
//! |logit| rounded to [`crate::team::balance::TIE`], splits are ordered by (key, mask of player 0's side) and
//! each partition keeps its best side. Identical players make many splits tie: the subset sums
//! are added in an order where equal skills are adjacent, so equal multisets give bitwise equal
//! sums, and within a run of equal sums only the first `keep` masks (in partition order) can
//! enter the list, so the rest of the run is skipped. It does not take a time weight or map
//! term: the balancer's players all weigh 1 and the map is unknown, as in the exhaustive search.

use std::collections::HashMap;

use crate::team::balance::soft::{SoftMasks, p_distance};
use crate::team::balance::{Best, Candidate, Rules, Side, Split, TIE, split_of};
use crate::team::model::TeamParams;

/// Largest lobby searched exactly by meeting in the middle (2^20 subsets per half).
pub const MEET_UP_TO: usize = 40;

/// Rules crossing the cut at most (each is one bit of a signature).
const MAX_CROSSING: usize = 64;

/// One red subset of a half.
#[derive(Debug, Clone, Copy)]
struct Part {
    /// Sum of the members' skill means (added in sorted order: canonical).
    mean: f64,
    /// Sum of their variances (same order).
    variance: f64,
    /// The members as a mask over the whole lobby.
    mask: u64,
}

/// Sums and masks of every subset of `members` (lobby indices), subset `m` using bit `j` for
/// the `j`-th member in order of (mean, variance, index), so that equal skills are adjacent and
/// equal multisets get bitwise equal sums.
fn subsets(lobby: &[Candidate], members: &[usize]) -> Vec<Part> {
    let mut order = members.to_vec();
    order.sort_by(|&a, &b| {
        let (x, y) = (&lobby[a].skill, &lobby[b].skill);
        x.mean
            .total_cmp(&y.mean)
            .then(x.variance.total_cmp(&y.variance))
            .then(a.cmp(&b))
    });
    let mut parts = vec![
        Part {
            mean: 0.0,
            variance: 0.0,
            mask: 0,
        };
        1 << order.len()
    ];
    for m in 1..parts.len() {
        // Highest bit last: the sums are built in sorted order.
        let top = 63 - (m as u64).leading_zeros() as usize;
        let rest = parts[m & !(1 << top)];
        let c = &lobby[order[top]].skill;
        parts[m] = Part {
            mean: rest.mean + c.mean,
            variance: rest.variance + c.variance,
            mask: rest.mask | 1u64 << order[top],
        };
    }
    parts
}

/// B's red subsets of one size and signature, sorted, with each entry's run of equal sums:
/// the first index of the run and one past its last.
struct Bucket {
    parts: Vec<Part>,
    start: Vec<usize>,
    end: Vec<usize>,
}

/// The search's fixed quantities.
struct MeetInTheMiddle<'a> {
    lobby: &'a [Candidate],
    params: &'a TeamParams,
    n: usize,
    total_mean: f64,
    total_variance: f64,
    scale: f64,
    spread: f64,
    size_more: f64,
    /// Every split ties on the skill terms (no skill scale).
    flat: bool,
    /// The soft clan rule: with it, the key is |p − 50%| plus the penalty, which depends on
    /// the clan members a subset holds (runs are split by them).
    soft: SoftMasks,
}

impl<'a> MeetInTheMiddle<'a> {
    fn new(lobby: &'a [Candidate], params: &'a TeamParams, rules: &Rules) -> MeetInTheMiddle<'a> {
        let n = lobby.len();
        let scale = params.coef[0].max(0.0);
        let (low_size, high_size) = (n / 2, n.div_ceil(2));
        let total_variance: f64 = lobby.iter().map(|c| c.skill.variance).sum();
        MeetInTheMiddle {
            lobby,
            params,
            n,
            total_mean: lobby.iter().map(|c| c.skill.mean).sum(),
            total_variance,
            scale,
            spread: std::f64::consts::PI / 8.0 * scale * scale,
            size_more: (high_size as f64 / low_size.max(1) as f64).ln(),
            flat: scale <= 0.0,
            soft: rules.soft.masks(),
        }
    }

    /// Size term of a red team of `rn` against `bn`, as the exhaustive search takes it.
    fn size(&self, rn: usize, bn: usize) -> f64 {
        if rn > bn {
            self.size_more
        } else if rn < bn {
            -self.size_more
        } else {
            0.0
        }
    }

    /// The logit before attenuation, u, of a red team of `rn` with sum of means `rm`.
    fn u(&self, rn: usize, rm: f64) -> f64 {
        let bn = self.n - rn;
        let skill = rm / rn as f64 - (self.total_mean - rm) / bn as f64;
        self.scale * skill + self.params.coef[1] * self.size(rn, bn) + self.params.coef[2]
    }

    /// |logit| of a red team, computed as [`crate::team::balance::exhaustive`] computes it.
    fn cost(&self, rn: usize, rm: f64, rv: f64) -> f64 {
        let bn = self.n - rn;
        let (rnf, bnf) = (rn as f64, bn as f64);
        let skill = rm / rnf - (self.total_mean - rm) / bnf;
        let v = rv / (rnf * rnf) + (self.total_variance - rv) / (bnf * bnf);
        let k = 1.0 / (1.0 + self.spread * v).sqrt();
        let logit = k
            * (self.scale * skill + self.params.coef[1] * self.size(rn, bn) + self.params.coef[2]);
        logit.abs()
    }

    /// The smallest attenuation k any red team of `rn` can have.
    ///
    /// Proof of the bound the walk stops on: the variance of the skill difference is
    /// V = V_r/rn² + (V_tot − V_r)/bn², linear in the red sum of variances V_r ∈ [0, V_tot]
    /// (variances are never negative), so V ≤ V_tot / min(rn, bn)², and k = 1/sqrt(1 + s·V)
    /// (s ≥ 0) decreases in V, so k ≥ this value. Each red set's |logit| is k·|u| ≥ k_min·|u|, and
    /// its key (|logit| rounded to TIE) ≥ k_min·|u| − TIE/2. The kept list only takes a key at
    /// most its last one, θ; so once k_min·|u| > θ + TIE, the red set cannot enter; and since u
    /// is increasing in the red sum of means (scale > 0), every red set farther from u = 0 in
    /// the same bucket cannot either (`bound_holds` in the tests checks it on random lobbies).
    fn k_min(&self, rn: usize) -> f64 {
        let small = rn.min(self.n - rn) as f64;
        1.0 / (1.0 + self.spread * self.total_variance / (small * small)).sqrt()
    }
}

/// The rules as seen from the two halves.
struct Cut {
    red: u64,
    blue: u64,
    /// Together (false) or apart (true) pairs inside one half.
    inside: Vec<(u64, bool)>,
    /// (player in A, player in B, apart) pairs crossing the cut.
    crossing: Vec<(usize, usize, bool)>,
}

impl Cut {
    fn new(rules: &Rules, low: u64) -> Cut {
        let mut cut = Cut {
            red: 0,
            blue: 0,
            inside: Vec::new(),
            crossing: Vec::new(),
        };
        for &(i, side) in &rules.lock {
            match side {
                Side::Red => cut.red |= 1 << i,
                Side::Blue => cut.blue |= 1 << i,
            }
        }
        let pairs = rules.together.iter().map(|&p| (p, false));
        for ((a, b), apart) in pairs.chain(rules.apart.iter().map(|&p| (p, true))) {
            let (a_low, b_low) = (low >> a & 1 == 1, low >> b & 1 == 1);
            if a_low == b_low {
                cut.inside.push((1 << a | 1 << b, apart));
            } else if a_low {
                cut.crossing.push((a, b, apart));
            } else {
                cut.crossing.push((b, a, apart));
            }
        }
        cut
    }

    /// `red` (the red members of one half, `half` its mask) keeps the rules inside the half.
    fn allows(&self, red: u64, half: u64) -> bool {
        red & self.red & half == self.red & half
            && red & self.blue & half == 0
            && self.inside.iter().all(|&(pair, apart)| {
                let on = (red & pair).count_ones();
                pair & half != pair
                    || if apart {
                        on == 1
                    } else {
                        on == 0 || on == pair.count_ones()
                    }
            })
    }

    /// The signature of the crossing rules of a half's red set (equal for both halves exactly
    /// when the crossing rules hold).
    fn signature(&self, red: u64, low_half: bool) -> u64 {
        let mut sig = 0u64;
        for (j, &(a, b, apart)) in self.crossing.iter().enumerate() {
            let bit = if low_half {
                red >> a & 1 == 1
            } else {
                (red >> b & 1 == 1) != apart
            };
            sig |= (bit as u64) << j;
        }
        sig
    }
}

/// The best `keep` splits, in the exhaustive search's order, or None when this search does not
/// apply (more than [`MEET_UP_TO`] players, more than 64 rules across the cut, or a skill that
/// is not a finite number or a negative variance: the data file holds none, JSON has no
/// infinity).
pub fn meet_in_the_middle(
    lobby: &[Candidate],
    params: &TeamParams,
    rules: &Rules,
    keep: usize,
) -> Option<Vec<Split>> {
    let n = lobby.len();
    if !(2..=MEET_UP_TO).contains(&n)
        || lobby.iter().any(|c| {
            !c.skill.mean.is_finite() || !c.skill.variance.is_finite() || c.skill.variance < 0.0
        })
    {
        return None;
    }
    let low_len = n / 2;
    let low: u64 = (1 << low_len) - 1;
    let all: u64 = if n == 64 { u64::MAX } else { (1 << n) - 1 };
    let cut = Cut::new(rules, low);
    if cut.crossing.len() > MAX_CROSSING {
        return None;
    }
    let search = MeetInTheMiddle::new(lobby, params, rules);
    Some(search.run(&cut, low, all, keep))
}

/// (u, k_min) of a red team of `rn` players with sum of means `rm`: what the walk's bound
/// uses (for the test of the bound).
#[cfg(test)]
pub(super) fn bound_terms(
    lobby: &[Candidate],
    params: &TeamParams,
    rn: usize,
    rm: f64,
) -> (f64, f64) {
    let search = MeetInTheMiddle::new(lobby, params, &Rules::default());
    (search.u(rn, rm), search.k_min(rn))
}

impl MeetInTheMiddle<'_> {
    /// The walk. For a red set R = a ∪ b (a in A, b in B) of size rn, with scale > 0, u is
    /// increasing in the sum of means, so in a bucket sorted by sum of means the entries whose
    /// u is nearest 0 are around the sum that solves u = 0, and |u| grows walking away from it
    /// on either side; [`MeetInTheMiddle::k_min`] gives the bound to stop on. With `flat`, every
    /// red set of a size has the same key: each bucket is one run.
    fn run(&self, cut: &Cut, low: u64, all: u64, keep: usize) -> Vec<Split> {
        let n = self.n;
        let high = all & !low;
        let low_members: Vec<usize> = (0..n).filter(|&i| low >> i & 1 == 1).collect();
        let high_members: Vec<usize> = (0..n).filter(|&i| high >> i & 1 == 1).collect();
        // Buckets of B's red subsets: (size, signature) -> sorted parts.
        let mut buckets: HashMap<(u32, u64), Vec<Part>> = HashMap::new();
        for part in subsets(self.lobby, &high_members) {
            if cut.allows(part.mask, high) {
                let key = (part.mask.count_ones(), cut.signature(part.mask, false));
                buckets.entry(key).or_default().push(part);
            }
        }
        let flat = self.flat;
        // With the soft clan rule, the penalty depends on which clan members a subset holds:
        // runs are of equal sums *and* equal clan members, so that a run's keys are all equal.
        let clan = self.soft.members();
        let order = |x: &Part, y: &Part| {
            if flat {
                return (x.mask & clan, x.mask).cmp(&(y.mask & clan, y.mask));
            }
            x.mean
                .total_cmp(&y.mean)
                .then(x.variance.total_cmp(&y.variance))
                .then((x.mask & clan).cmp(&(y.mask & clan)))
                .then(x.mask.cmp(&y.mask))
        };
        let same = |x: &Part, y: &Part| {
            x.mask & clan == y.mask & clan
                && (flat
                    || (x.mean.to_bits() == y.mean.to_bits()
                        && x.variance.to_bits() == y.variance.to_bits()))
        };
        let buckets: HashMap<(u32, u64), Bucket> = buckets
            .into_iter()
            .map(|(key, mut parts)| {
                parts.sort_unstable_by(order);
                // For each entry, the first index of its run and one past its last.
                let mut start = vec![0; parts.len()];
                let mut end = vec![parts.len(); parts.len()];
                for i in 1..parts.len() {
                    start[i] = if same(&parts[i - 1], &parts[i]) {
                        start[i - 1]
                    } else {
                        i
                    };
                }
                for i in (0..parts.len().saturating_sub(1)).rev() {
                    end[i] = if same(&parts[i], &parts[i + 1]) {
                        end[i + 1]
                    } else {
                        i + 1
                    };
                }
                (key, Bucket { parts, start, end })
            })
            .collect();
        let mut best = Best {
            keep,
            found: Vec::new(),
        };
        let sizes: Vec<usize> = if n.is_multiple_of(2) {
            vec![n / 2]
        } else {
            vec![n / 2, n / 2 + 1]
        };
        let k_min: Vec<f64> = sizes.iter().map(|&rn| self.k_min(rn)).collect();
        // A's red subsets by (size, signature), each group by sum of means: walking a group
        // from the highest sum down, the target in B rises, so one pointer per group and team
        // size finds every start (no binary search: it missed the cache at 40 players).
        let mut groups: HashMap<(u32, u64), Vec<Part>> = HashMap::new();
        for a in subsets(self.lobby, &low_members) {
            if cut.allows(a.mask, low) {
                let key = (a.mask.count_ones(), cut.signature(a.mask, true));
                groups.entry(key).or_default().push(a);
            }
        }
        for ((count, sig), mut group) in groups {
            group.sort_unstable_by(|x, y| x.mean.total_cmp(&y.mean).then(x.mask.cmp(&y.mask)));
            for (&rn, &k_min) in sizes.iter().zip(&k_min) {
                let Some(need) = rn.checked_sub(count as usize) else {
                    continue;
                };
                let Some(Bucket { parts, start, end }) = buckets.get(&(need as u32, sig)) else {
                    continue;
                };
                // The sum of the red means that makes u zero.
                let (rnf, bnf) = (rn as f64, (n - rn) as f64);
                let zero = (self.scale * self.total_mean / bnf
                    - self.params.coef[1] * self.size(rn, n - rn)
                    - self.params.coef[2])
                    / (self.scale * (1.0 / rnf + 1.0 / bnf));
                let mut split = 0;
                for a in group.iter().rev() {
                    // Player 0 is red: the partition (player 0's side) is the red set, whose B
                    // part grows with b's mask; otherwise it is the blue set, whose B part
                    // shrinks.
                    let zero_red = a.mask & 1 == 1;
                    let offer_run = |from: usize, to: usize, best: &mut Best| {
                        // Within a run every key is equal: only the `keep` smallest partitions
                        // can enter.
                        let run = &parts[from..to];
                        let mut offer = |b: &Part| {
                            let red = a.mask | b.mask;
                            let cost = self.cost(rn, a.mean + b.mean, a.variance + b.variance);
                            let partition = if zero_red { red } else { all & !red };
                            best.offer(self.soft.key(cost, red), partition, red);
                        };
                        if zero_red {
                            run.iter().take(keep).for_each(&mut offer);
                        } else {
                            run.iter().rev().take(keep).for_each(&mut offer);
                        }
                    };
                    if flat {
                        let mut i = 0;
                        while i < parts.len() {
                            offer_run(i, end[i], &mut best);
                            i = end[i];
                        }
                        continue;
                    }
                    let target = zero - a.mean;
                    while split < parts.len() && parts[split].mean < target {
                        split += 1;
                    }
                    let beyond = |p: &Part, best: &Best| {
                        let theta = if best.found.len() == keep {
                            best.found.last().map_or(f64::INFINITY, |f| f.0)
                        } else {
                            f64::INFINITY
                        };
                        let least = k_min * self.u(rn, a.mean + p.mean).abs();
                        // The penalty is never negative and |p − 50%| grows with |logit|.
                        if self.soft.active {
                            p_distance(least) > theta + TIE
                        } else {
                            least > theta + TIE
                        }
                    };
                    let mut i = split;
                    while i < parts.len() && !beyond(&parts[i], &best) {
                        offer_run(i, end[i], &mut best);
                        i = end[i];
                    }
                    let mut j = split;
                    while j > 0 && !beyond(&parts[j - 1], &best) {
                        offer_run(start[j - 1], j, &mut best);
                        j = start[j - 1];
                    }
                }
            }
        }
        best.found
            .iter()
            .map(|&(_, _, red)| split_of(self.lobby, self.params, red))
            .collect()
    }
}
