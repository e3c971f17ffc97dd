//! Team balancing (issue 15): split the players present into red and blue so that the team
//! model's P(red wins) is as close to 50% as the rules allow. Pure: takes the players' skills,
//! the model's parameters and the rules, returns the proposal; the data file of the site
//! ([`data`]) and the command line ([`crate::balance`]) are the edges.
//!
//! Search: every split up to [`EXACT_UP_TO`] players (team sizes differ by at most one; each
//! partition is tried with either side red, as the locks allow; from 13 players an exact
//! meet-in-the-middle search gives the same list faster) and up to [`exact::MEET_UP_TO`] by
//! meeting in the middle ([`exact`]); beyond, a deterministic
//! local search (best single swap or move until none helps, from the snake split and from shifted
//! starts), which says it is not exact. Hard rules (`lock`, `together`, `apart`) are checked
//! first, and a conflict among them is named.

pub mod data;
pub mod exact;
pub mod random;
pub mod soft;

use std::collections::BTreeMap;

use crate::team::model::{Features, Skill, TeamParams};
pub use soft::Soft;

/// Largest lobby searched exactly by trying every split (or by [`exact::meet_in_the_middle`],
/// which gives the same list, from 13 players on).
pub const EXACT_UP_TO: usize = 24;

/// Largest lobby always searched by trying every split.
const SMALL: usize = 12;

/// Largest lobby accepted at all (the local search is quadratic per step).
pub const MAX_PLAYERS: usize = 256;

/// Differences of the objective below this count as ties (so the same teams come out whatever
/// the order of floating-point sums, here and in the page's script).
const TIE: f64 = 1e-9;

/// One player of the lobby.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Name shown and written out (the identity's plain name, or the name given for a newcomer).
    pub name: String,
    /// The player's team strength, [`TeamParams::strength`] of their skill (what the search
    /// adds up; its variance is the skill's).
    pub skill: Skill,
}

/// A side of a hard rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Red,
    Blue,
}

/// Hard rules, by index into the lobby, and the soft clan rule (part of the objective).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rules {
    pub lock: Vec<(usize, Side)>,
    pub together: Vec<(usize, usize)>,
    pub apart: Vec<(usize, usize)>,
    /// Clan mates together or spread: each mate out of place costs points.
    pub soft: Soft,
}

impl Rules {
    /// Whether player `i` is locked to a side (and so never moves).
    pub fn locked(&self, i: usize) -> bool {
        self.lock.iter().any(|&(l, _)| l == i)
    }
}

/// Teams as indices into the lobby, with P(red wins).
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    pub red: Vec<usize>,
    pub blue: Vec<usize>,
    pub p_red: f64,
}

/// The balancer's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    pub best: Split,
    /// The next best different partitions, best first.
    pub alternatives: Vec<Split>,
    /// Every split allowed by the rules was tried.
    pub exact: bool,
    /// Snake by skill (ABBA): the naive split.
    pub abba: Split,
}

/// P(red wins) of a split.
pub fn p_red(lobby: &[Candidate], params: &TeamParams, red: &[usize], blue: &[usize]) -> f64 {
    let side = |ids: &[usize]| -> Vec<(Skill, f64)> {
        ids.iter().map(|&i| (lobby[i].skill, 1.0)).collect()
    };
    params.p_red(&Features::of(
        side(red).into_iter(),
        side(blue).into_iter(),
        0.0,
    ))
}

/// Union-find over the lobby, for the `together` groups.
fn groups(n: usize, together: &[(usize, usize)]) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for &(a, b) in together {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    (0..n).map(|i| find(&mut parent, i)).collect()
}

/// Checks the hard rules against each other and the team sizes; the first conflict found, in
/// words, naming the players.
pub fn conflicts(lobby: &[Candidate], rules: &Rules) -> Result<(), String> {
    let n = lobby.len();
    let name = |i: usize| lobby[i].name.as_str();
    let group = groups(n, &rules.together);
    let mut locked: BTreeMap<usize, (Side, usize)> = BTreeMap::new();
    for &(i, side) in &rules.lock {
        if let Some(&(other_side, j)) = locked.get(&group[i])
            && other_side != side
        {
            return Err(if i == j {
                format!("{} is locked to both red and blue", name(i))
            } else {
                format!(
                    "{} and {} must play together but are locked to different sides",
                    name(j),
                    name(i)
                )
            });
        }
        locked.insert(group[i], (side, i));
    }
    for &(a, b) in &rules.apart {
        if a == b {
            return Err(format!("{} cannot play apart from themself", name(a)));
        }
        if group[a] == group[b] {
            return Err(format!(
                "{} and {} must play apart but are kept together",
                name(a),
                name(b)
            ));
        }
        if let (Some((sa, _)), Some((sb, _))) = (locked.get(&group[a]), locked.get(&group[b]))
            && sa == sb
        {
            return Err(format!(
                "{} and {} must play apart but are locked to the same side",
                name(a),
                name(b)
            ));
        }
    }
    let most = n.div_ceil(2);
    let mut sizes: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, &g) in group.iter().enumerate() {
        sizes.entry(g).or_default().push(i);
    }
    for members in sizes.values() {
        if members.len() > most {
            let names: Vec<&str> = members.iter().map(|&i| name(i)).collect();
            return Err(format!(
                "{} must play together, but a team of {n} players has at most {most}",
                names.join(", ")
            ));
        }
    }
    for side in [Side::Red, Side::Blue] {
        let count: usize = sizes
            .iter()
            .filter(|(g, _)| locked.get(g).is_some_and(|(s, _)| *s == side))
            .map(|(_, m)| m.len())
            .sum();
        if count > most {
            return Err(format!(
                "{count} players are locked to {} (with those kept with them), but a team of {n} players has at most {most}",
                if side == Side::Red { "red" } else { "blue" }
            ));
        }
    }
    Ok(())
}

/// The rules as bit masks over a lobby of at most 64 players.
struct Masks {
    red: u64,
    blue: u64,
    together: Vec<u64>,
    apart: Vec<u64>,
}

impl Masks {
    fn new(rules: &Rules) -> Masks {
        let bit = |i: usize| 1u64 << i;
        let mut m = Masks {
            red: 0,
            blue: 0,
            together: rules
                .together
                .iter()
                .map(|&(a, b)| bit(a) | bit(b))
                .collect(),
            apart: rules.apart.iter().map(|&(a, b)| bit(a) | bit(b)).collect(),
        };
        for &(i, side) in &rules.lock {
            match side {
                Side::Red => m.red |= bit(i),
                Side::Blue => m.blue |= bit(i),
            }
        }
        m
    }

    /// `red` (a set of players) as the red team keeps every rule.
    fn allows(&self, red: u64) -> bool {
        red & self.red == self.red
            && red & self.blue == 0
            && self.together.iter().all(|&g| red & g == 0 || red & g == g)
            && self.apart.iter().all(|&g| (red & g).count_ones() == 1)
    }
}

/// The objective of a split: distance of p from 50%.
fn cost(p: f64) -> f64 {
    (p - 0.5).abs()
}

/// The teams of a red set.
fn split_of(lobby: &[Candidate], params: &TeamParams, red_mask: u64) -> Split {
    let (red, blue): (Vec<usize>, Vec<usize>) =
        (0..lobby.len()).partition(|&i| red_mask >> i & 1 == 1);
    let p_red = p_red(lobby, params, &red, &blue);
    Split { red, blue, p_red }
}

/// The snake split by skill (best, then the next two to the other side, ...): ABBA.
pub fn abba(lobby: &[Candidate], params: &TeamParams) -> Split {
    let mut order: Vec<usize> = (0..lobby.len()).collect();
    order.sort_by(|&a, &b| {
        lobby[b]
            .skill
            .mean
            .total_cmp(&lobby[a].skill.mean)
            .then(a.cmp(&b))
    });
    let (mut red, mut blue) = (Vec::new(), Vec::new());
    for (k, &i) in order.iter().enumerate() {
        // A B B A A B B A ...
        if matches!(k % 4, 0 | 3) {
            red.push(i);
        } else {
            blue.push(i);
        }
    }
    red.sort_unstable();
    blue.sort_unstable();
    let p_red = p_red(lobby, params, &red, &blue);
    Split { red, blue, p_red }
}

/// Best splits kept during a search: (rounded cost, canonical partition mask, red mask).
struct Best {
    keep: usize,
    found: Vec<(f64, u64, u64)>,
}

impl Best {
    fn offer(&mut self, cost: f64, partition: u64, red: u64) {
        let key = (cost / TIE).round() * TIE;
        if self.found.len() == self.keep
            && self
                .found
                .last()
                .is_some_and(|&(c, p, r)| (key, partition, red) >= (c, p, r))
        {
            // (The last entry's own partition may still take a better side: hence the red.)
            return;
        }
        if let Some(at) = self.found.iter().position(|&(_, p, _)| p == partition) {
            if (key, red) >= (self.found[at].0, self.found[at].2) {
                return;
            }
            self.found.remove(at);
        }
        let at = self
            .found
            .partition_point(|&(c, p, _)| (c, p) <= (key, partition));
        self.found.insert(at, (key, partition, red));
        self.found.truncate(self.keep);
    }
}

/// The fairest split of `lobby` under `rules`, and up to `alternatives` next best ones.
pub fn balance(
    lobby: &[Candidate],
    params: &TeamParams,
    rules: &Rules,
    alternatives: usize,
) -> Result<Proposal, String> {
    let n = lobby.len();
    if n < 2 {
        return Err("name at least two players".into());
    }
    if n > MAX_PLAYERS {
        return Err(format!(
            "at most {MAX_PLAYERS} players can be balanced, not {n}"
        ));
    }
    conflicts(lobby, rules)?;
    let keep = alternatives + 1;
    // Meeting in the middle gives the exhaustive search's list (tested) in far less time from
    // 13 players on (2^12 subsets a half against 2^23 splits at 24).
    let meet = || (n > SMALL).then(|| exact::meet_in_the_middle(lobby, params, rules, keep))?;
    let (found, exact) = if let Some(found) = meet() {
        (found, true)
    } else if n <= EXACT_UP_TO {
        (exhaustive(lobby, params, rules, keep), true)
    } else {
        (local_search(lobby, params, rules, keep), false)
    };
    let mut splits = found.into_iter();
    let best = splits
        .next()
        .ok_or("no split keeps every rule (the apart rules cannot all hold with even teams)")?;
    Ok(Proposal {
        best,
        alternatives: splits.collect(),
        exact,
        abba: abba(lobby, params),
    })
}

/// Every split, by Gray code over the players after the first (who starts red; each partition is
/// tried with either side red).
fn exhaustive(lobby: &[Candidate], params: &TeamParams, rules: &Rules, keep: usize) -> Vec<Split> {
    let n = lobby.len();
    let masks = Masks::new(rules);
    let soft = rules.soft.masks();
    let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let (low, high) = (n / 2, n.div_ceil(2));
    let (mut mean, mut variance) = (lobby[0].skill.mean, lobby[0].skill.variance);
    let total_mean: f64 = lobby.iter().map(|c| c.skill.mean).sum();
    let total_variance: f64 = lobby.iter().map(|c| c.skill.variance).sum();
    let mut best = Best {
        keep,
        found: Vec::new(),
    };
    let scale = params.coef[0].max(0.0);
    let spread = std::f64::consts::PI / 8.0 * scale * scale;
    // ln(bigger side / smaller side) for odd lobbies.
    let size_more = (high as f64 / low.max(1) as f64).ln();
    let mut set = 1u64;
    let steps = 1u64 << (n - 1);
    for step in 0..steps {
        if step > 0 {
            // Gray code: flip the player of the lowest set bit of the step.
            let i = step.trailing_zeros() as usize + 1;
            let c = &lobby[i].skill;
            if set >> i & 1 == 1 {
                mean -= c.mean;
                variance -= c.variance;
            } else {
                mean += c.mean;
                variance += c.variance;
            }
            set ^= 1 << i;
        }
        let size = set.count_ones() as usize;
        if size != low && size != high {
            continue;
        }
        let other = n - size;
        for red in [set, all & !set] {
            if !masks.allows(red) {
                continue;
            }
            let (rn, bn, rm, rv) = if red == set {
                (size, other, mean, variance)
            } else {
                (other, size, total_mean - mean, total_variance - variance)
            };
            // The model's logit (TeamParams::logit with map 0), with the constants hoisted.
            let (rn, bn) = (rn as f64, bn as f64);
            let skill = rm / rn - (total_mean - rm) / bn;
            let v = rv / (rn * rn) + (total_variance - rv) / (bn * bn);
            let size = if rn > bn {
                size_more
            } else if rn < bn {
                -size_more
            } else {
                0.0
            };
            let k = 1.0 / (1.0 + spread * v).sqrt();
            let logit = k * (scale * skill + params.coef[1] * size + params.coef[2]);
            best.offer(soft.key(logit.abs(), red), set, red);
        }
    }
    best.found
        .iter()
        .map(|&(_, _, red)| split_of(lobby, params, red))
        .collect()
}

/// Best-improvement local search over swaps (and moves, for odd lobbies) from several
/// deterministic starts; keeps the best distinct partitions met.
fn local_search(
    lobby: &[Candidate],
    params: &TeamParams,
    rules: &Rules,
    keep: usize,
) -> Vec<Split> {
    let n = lobby.len();
    let group = groups(n, &rules.together);
    let allows = |red: &[bool]| -> bool {
        rules.lock.iter().all(|&(i, s)| red[i] == (s == Side::Red))
            && (0..n).all(|i| red[i] == red[group[i]])
            && rules.apart.iter().all(|&(a, b)| red[a] != red[b])
    };
    let eval = |red: &[bool]| -> f64 {
        let (r, b): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| red[i]);
        if r.is_empty() || b.is_empty() {
            return f64::INFINITY;
        }
        cost(p_red(lobby, params, &r, &b)) + rules.soft.penalty_by(|i| red[i])
    };
    let mut found: Vec<(f64, Vec<bool>)> = Vec::new();
    let start = abba(lobby, params);
    for shift in 0..8usize {
        let mut red = vec![false; n];
        for &i in &start.red {
            red[(i + shift * 7) % n] = true;
        }
        // Repair to the rules where a simple fix exists: locks first, then groups follow
        // their root.
        for &(i, s) in &rules.lock {
            red[i] = s == Side::Red;
        }
        for i in 0..n {
            red[i] = red[group[i]];
        }
        let mut current = if allows(&red) {
            eval(&red)
        } else {
            f64::INFINITY
        };
        loop {
            let mut best_move: Option<(f64, usize, Option<usize>)> = None;
            for a in 0..n {
                for b in a + 1..=n {
                    let mut next = red.clone();
                    match b {
                        b if b == n => next[a] = !next[a],
                        b if red[a] != red[b] => {
                            next[a] = !next[a];
                            next[b] = !next[b];
                        }
                        _ => continue,
                    }
                    // Whole groups move together.
                    for i in 0..n {
                        if group[i] == group[a] || (b < n && group[i] == group[b]) {
                            next[i] = if group[i] == group[a] {
                                next[a]
                            } else {
                                next[b]
                            };
                        }
                    }
                    let reds = next.iter().filter(|&&r| r).count();
                    if reds != n / 2 && reds != n.div_ceil(2) || !allows(&next) {
                        continue;
                    }
                    let c = eval(&next);
                    if c + TIE < current && best_move.is_none_or(|(bc, _, _)| c + TIE < bc) {
                        best_move = Some((c, a, (b < n).then_some(b)));
                    }
                }
            }
            let Some((c, a, b)) = best_move else {
                break;
            };
            red[a] = !red[a];
            if let Some(b) = b {
                red[b] = !red[b];
            }
            for i in 0..n {
                if group[i] == group[a] {
                    red[i] = red[a];
                } else if let Some(b) = b
                    && group[i] == group[b]
                {
                    red[i] = red[b];
                }
            }
            current = c;
        }
        if current.is_finite() {
            let mirror: Vec<bool> = red.iter().map(|r| !r).collect();
            if !found.iter().any(|(_, f)| *f == red || *f == mirror) {
                found.push((current, red));
            }
        }
    }
    found.sort_by(|a, b| a.0.total_cmp(&b.0));
    found.truncate(keep);
    found
        .into_iter()
        .map(|(_, red)| {
            let (r, b): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| red[i]);
            let p_red = p_red(lobby, params, &r, &b);
            Split {
                red: r,
                blue: b,
                p_red,
            }
        })
        .collect()
}

/// One exchange of a red and a blue player, and P(red wins) after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Swap {
    /// Index of the red player who goes to blue.
    pub to_blue: usize,
    /// Index of the blue player who goes to red.
    pub to_red: usize,
    pub p_red: f64,
}

/// Swaps smaller than this gain (in |p − 50%|) are not proposed.
pub const MIN_GAIN: f64 = 0.01;

/// Most exchanges [`swaps`] tries in all (every choice of k movable reds against every choice
/// of k movable blues, summed over k): a lobby of 40 with every player movable gets up to 2
/// swaps searched (36,500 exchanges), one of 20 up to 4.
pub const SWAP_EXCHANGES: f64 = 100_000.0;

/// `n` choose `k`, as a float (exact far beyond the counts compared with [`SWAP_EXCHANGES`]).
fn choose(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |c, j| c * (n - j) as f64 / (j + 1) as f64)
}

/// The most swaps [`swaps`] searches with `reds` and `blues` movable players when `max_swaps`
/// are allowed: as many as keep the exchanges tried within [`SWAP_EXCHANGES`], and always 1
/// (reds × blues exchanges) when one is allowed, so the search stays quick however many are
/// asked for.
pub fn swap_limit(reds: usize, blues: usize, max_swaps: usize) -> usize {
    let most = max_swaps.min(reds).min(blues);
    let mut tried = 0.0;
    for k in 1..=most {
        tried += choose(reds, k).round() * choose(blues, k).round();
        if k > 1 && tried > SWAP_EXCHANGES {
            return k - 1;
        }
    }
    most
}

/// From the teams as they are, the fewest swaps (at most `max_swaps`) that bring P(red wins)
/// closest to 50%: every set of up to `max_swaps` exchanges is tried; fewer swaps win unless more
/// gain at least [`MIN_GAIN`] more. Locked players never move; together and apart rules must hold
/// after the swaps. No more than [`swap_limit`] swaps are searched.
pub fn swaps(
    lobby: &[Candidate],
    params: &TeamParams,
    rules: &Rules,
    red: &[usize],
    blue: &[usize],
    max_swaps: usize,
) -> Vec<Swap> {
    let n = lobby.len();
    let group = groups(n, &rules.together);
    let movable = |i: &usize| !rules.locked(*i);
    let reds: Vec<usize> = red.iter().copied().filter(movable).collect();
    let blues: Vec<usize> = blue.iter().copied().filter(movable).collect();
    let valid = |r: &[usize]| {
        let on_red = |i: usize| r.contains(&i);
        (0..n).all(|i| on_red(i) == on_red(group[i]))
            && rules.apart.iter().all(|&(x, y)| on_red(x) != on_red(y))
    };
    let objective = |r: &[usize], b: &[usize]| {
        cost(p_red(lobby, params, r, b)) + rules.soft.penalty_by(|i| r.contains(&i))
    };
    let now = objective(red, blue);
    let mut best: (f64, Vec<(usize, usize)>) = (now, Vec::new());
    // Exchanges as chosen subsets of equal size k from each side.
    for k in 1..=swap_limit(reds.len(), blues.len(), max_swaps) {
        let mut best_k: Option<(f64, Vec<(usize, usize)>)> = None;
        for out in subsets(reds.len(), k) {
            for back in subsets(blues.len(), k) {
                let gone: Vec<usize> = out.iter().map(|&i| reds[i]).collect();
                let come: Vec<usize> = back.iter().map(|&i| blues[i]).collect();
                let r: Vec<usize> = red
                    .iter()
                    .copied()
                    .filter(|i| !gone.contains(i))
                    .chain(come.iter().copied())
                    .collect();
                let b: Vec<usize> = blue
                    .iter()
                    .copied()
                    .filter(|i| !come.contains(i))
                    .chain(gone.iter().copied())
                    .collect();
                if !valid(&r) {
                    continue;
                }
                let c = objective(&r, &b);
                if best_k.as_ref().is_none_or(|(bc, _)| c + TIE < *bc) {
                    best_k = Some((c, gone.into_iter().zip(come).collect()));
                }
            }
        }
        if let Some((c, pairs)) = best_k
            && c + MIN_GAIN <= best.0
        {
            best = (c, pairs);
        }
    }
    // Apply the exchanges one by one, reporting p after each (cumulative), the fairest next
    // first, so that a part of the list is as fair as it can be.
    let (mut r, mut b) = (red.to_vec(), blue.to_vec());
    let mut pairs = best.1;
    let mut out = Vec::new();
    let apply = |r: &mut Vec<usize>, b: &mut Vec<usize>, (gone, come): (usize, usize)| {
        r.retain(|&i| i != gone);
        r.push(come);
        b.retain(|&i| i != come);
        b.push(gone);
    };
    while !pairs.is_empty() {
        let mut pick = (f64::INFINITY, 0);
        for (k, &pair) in pairs.iter().enumerate() {
            let (mut r2, mut b2) = (r.clone(), b.clone());
            apply(&mut r2, &mut b2, pair);
            let c = objective(&r2, &b2);
            if c + TIE < pick.0 {
                pick = (c, k);
            }
        }
        let pair = pairs.remove(pick.1);
        apply(&mut r, &mut b, pair);
        out.push(Swap {
            to_blue: pair.0,
            to_red: pair.1,
            p_red: p_red(lobby, params, &r, &b),
        });
    }
    out
}

/// Every k-subset of 0..n, in lexicographic order.
fn subsets(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut pick: Vec<usize> = (0..k).collect();
    if k > n {
        return out;
    }
    loop {
        out.push(pick.clone());
        let Some(i) = (0..k).rev().find(|&i| pick[i] < n - k + i) else {
            return out;
        };
        pick[i] += 1;
        for j in i + 1..k {
            pick[j] = pick[j - 1] + 1;
        }
    }
}

#[cfg(test)]
mod tests;
