//! Becker's static rating (RANKING.md section 2): least squares on the frag matrix.
//!
//! The matrix is sparse (only pairs that met are stored, never n x n). The ranking is computed on a
//! *core* where every pair met at least `min_pair_frags` times, found by greedy peeling; inside it
//! the least-squares solution is closed-form. Outside the core, the exact least-squares solution on
//! the whole met-pair graph is found by conjugate gradient on the graph Laplacian (mean zero per
//! connected component), to be shown as less reliable.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::ops::Bound;

use crate::config::StaticConfig;

/// Frags between one pair of players `i < j`, both ways.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    pub i: u32,
    pub j: u32,
    /// Frags of i against j.
    pub a_ij: u32,
    /// Frags of j against i.
    pub a_ji: u32,
}

impl Pair {
    /// m_ij = a_ij + a_ji.
    pub fn met(&self) -> u64 {
        u64::from(self.a_ij) + u64::from(self.a_ji)
    }

    /// r_ij = (a_ij - a_ji) / m_ij, in [-1, 1] (0 when they never met).
    pub fn r(&self) -> f64 {
        let m = self.met();
        if m == 0 {
            0.0
        } else {
            (f64::from(self.a_ij) - f64::from(self.a_ji)) / m as f64
        }
    }
}

/// The sparse frag matrix: only pairs that met.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FragMatrix {
    pub n: usize,
    /// Sorted by (i, j), i < j, each with m_ij > 0.
    pub pairs: Vec<Pair>,
}

impl FragMatrix {
    /// Builds the matrix for `n` players from (killer, victim, frags) counts; self-kills are
    /// ignored (suicides are not part of the fit).
    pub fn from_counts(n: usize, counts: impl IntoIterator<Item = (u32, u32, u32)>) -> FragMatrix {
        // One entry per count under its pair's key, sorted and merged: the same sums as adding
        // into a map (integer sums in any order), without hashing millions of keys.
        let mut pairs: Vec<Pair> = counts
            .into_iter()
            .filter(|&(k, v, c)| k != v && c != 0)
            .map(|(k, v, c)| {
                if k < v {
                    Pair {
                        i: k,
                        j: v,
                        a_ij: c,
                        a_ji: 0,
                    }
                } else {
                    Pair {
                        i: v,
                        j: k,
                        a_ij: 0,
                        a_ji: c,
                    }
                }
            })
            .collect();
        pairs.sort_unstable_by_key(|p| (p.i, p.j));
        pairs.dedup_by(|later, kept| {
            let same = (later.i, later.j) == (kept.i, kept.j);
            if same {
                kept.a_ij += later.a_ij;
                kept.a_ji += later.a_ji;
            }
            same
        });
        FragMatrix { n, pairs }
    }

    /// The matrix of [`FragMatrix::from_counts`] of the same counts, from each player's frags
    /// against each opponent (`rows[k]`: victim -> frags, as [`crate::stats::PlayerStats`] keeps
    /// them), in linear time without a sort: a counting pass files each frag of a killer above
    /// its victim under the victim's row, in killer order; each row is then the merge of two
    /// sorted runs, its own victims above it and its killers above it.
    pub fn from_rows<'a, R>(rows: R) -> FragMatrix
    where
        R: ExactSizeIterator<Item = &'a BTreeMap<u32, u32>> + Clone,
    {
        let n = rows.len();
        let below =
            |k: usize, row: &'a BTreeMap<u32, u32>| row.range(..k as u32).filter(|&(_, &c)| c != 0);
        let mut offsets = vec![0usize; n + 1];
        let mut entries = 0;
        for (k, row) in rows.clone().enumerate() {
            entries += row.len();
            for (&v, _) in below(k, row) {
                offsets[v as usize + 1] += 1;
            }
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        // killers[offsets[i]..offsets[i + 1]]: (killer above i, frags of it against i).
        let mut fill = offsets.clone();
        let mut killers = vec![(0u32, 0u32); offsets[n]];
        for (k, row) in rows.clone().enumerate() {
            for (&v, &c) in below(k, row) {
                killers[fill[v as usize]] = (k as u32, c);
                fill[v as usize] += 1;
            }
        }
        drop(fill);
        let mut pairs = Vec::with_capacity(entries);
        for (i, row) in rows.enumerate() {
            let me = i as u32;
            let mut victims = row
                .range((Bound::Excluded(me), Bound::Unbounded))
                .filter(|&(_, &c)| c != 0)
                .map(|(&j, &c)| (j, c))
                .peekable();
            let mut killers = killers[offsets[i]..offsets[i + 1]]
                .iter()
                .copied()
                .peekable();
            loop {
                let pair = match (victims.peek(), killers.peek()) {
                    (None, None) => break,
                    (Some(&(j, a_ij)), Some(&(k, a_ji))) if j == k => {
                        victims.next();
                        killers.next();
                        Pair {
                            i: me,
                            j,
                            a_ij,
                            a_ji,
                        }
                    }
                    (Some(&(j, a_ij)), Some(&(k, _))) if j < k => {
                        victims.next();
                        Pair {
                            i: me,
                            j,
                            a_ij,
                            a_ji: 0,
                        }
                    }
                    (Some(&(j, a_ij)), None) => {
                        victims.next();
                        Pair {
                            i: me,
                            j,
                            a_ij,
                            a_ji: 0,
                        }
                    }
                    (_, Some(&(k, a_ji))) => {
                        killers.next();
                        Pair {
                            i: me,
                            j: k,
                            a_ij: 0,
                            a_ji,
                        }
                    }
                };
                pairs.push(pair);
            }
        }
        FragMatrix { n, pairs }
    }

    /// Each player's incidents: frags made plus suffered against all opponents.
    pub fn incidents(&self) -> Vec<u64> {
        let mut inc = vec![0u64; self.n];
        for p in &self.pairs {
            inc[p.i as usize] += p.met();
            inc[p.j as usize] += p.met();
        }
        inc
    }
}

/// The static ranking of every player.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticRanking {
    /// Core members, best first (ties by identity number).
    pub core: Vec<u32>,
    /// Core value g_i in [-1, 1] per player; None outside the core.
    pub value: Vec<Option<f64>>,
    /// Exact least-squares value on the met-pair graph for players outside the core who met
    /// anyone; None in the core or when unmet.
    pub outside: Vec<Option<f64>>,
    pub incidents: Vec<u64>,
    /// Thresholds used.
    pub min_pair_frags: u32,
    pub min_incidents: u32,
}

/// Computes the core, the core values and the values outside the core.
pub fn rank(matrix: &FragMatrix, cfg: &StaticConfig) -> StaticRanking {
    let incidents = matrix.incidents();
    // The core and the least squares are independent: each runs on a core of its own.
    let (core, exact) = rayon::join(|| core(matrix, &incidents, cfg), || least_squares(matrix));
    let mut in_core = vec![false; matrix.n];
    for &c in &core {
        in_core[c as usize] = true;
    }
    let mut value: Vec<Option<f64>> = vec![None; matrix.n];
    if !core.is_empty() {
        let mut sums = vec![0.0; matrix.n];
        for p in &matrix.pairs {
            if in_core[p.i as usize] && in_core[p.j as usize] {
                let r = p.r();
                sums[p.i as usize] += r;
                sums[p.j as usize] -= r;
            }
        }
        let size = core.len() as f64;
        for &c in &core {
            value[c as usize] = Some(sums[c as usize] / size);
        }
    }
    let outside = exact
        .into_iter()
        .enumerate()
        .map(|(i, v)| if in_core[i] { None } else { v })
        .collect();
    let mut core = core;
    core.sort_by(|a, b| {
        value[*b as usize]
            .partial_cmp(&value[*a as usize])
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(b))
    });
    StaticRanking {
        core,
        value,
        outside,
        incidents,
        min_pair_frags: cfg.min_pair_frags,
        min_incidents: cfg.min_incidents,
    }
}

/// Players with one partner count by their place in the tie order, the first on top.
type Bucket = BinaryHeap<Reverse<u32>>;

/// Greedy peeling: from all players with at least `min_incidents` incidents, repeatedly remove the
/// one with the fewest qualifying partners in the set (ties: fewer incidents, then the larger
/// identity number, i.e. the larger key in byte order) until every pair in the set qualifies.
/// Returns the core in ascending identity order; empty when fewer than 2 remain.
pub fn core(matrix: &FragMatrix, incidents: &[u64], cfg: &StaticConfig) -> Vec<u32> {
    let n = matrix.n;
    let candidate: Vec<bool> = incidents
        .iter()
        .map(|&i| i >= u64::from(cfg.min_incidents))
        .collect();
    // A pair qualifies when it met at least min_pair_frags times (and at all).
    let need = u64::from(cfg.min_pair_frags.max(1));
    let qualifying =
        |p: &Pair| p.met() >= need && candidate[p.i as usize] && candidate[p.j as usize];
    let adjacency = Csr::new(
        n,
        matrix
            .pairs
            .iter()
            .filter(|p| qualifying(p))
            .map(|p| (p.i, p.j)),
    );
    let mut in_set = candidate.clone();
    let mut size = candidate.iter().filter(|c| **c).count();
    let mut partners: Vec<usize> = (0..n).map(|i| adjacency.neighbours(i).len()).collect();
    // Bucket queue by partner count; inside a bucket a min-heap on each player's place in the
    // tie order (fewer incidents, then the larger id), one u32 instead of an (incidents, id)
    // pair. A decrement pushes the player into the next lower bucket; the entry left behind is
    // stale and skipped when popped (its partner count no longer matches the bucket).
    let mut by_place: Vec<u32> = (0..n as u32).collect();
    by_place.sort_unstable_by_key(|&i| (incidents[i as usize], Reverse(i)));
    let mut place = vec![0u32; n];
    for (at, &i) in by_place.iter().enumerate() {
        place[i as usize] = at as u32;
    }
    let max_partners = partners.iter().copied().max().unwrap_or(0);
    let mut buckets: Vec<Bucket> = vec![BinaryHeap::new(); max_partners + 1];
    for i in (0..n).filter(|&i| in_set[i]) {
        buckets[partners[i]].push(Reverse(place[i]));
    }
    let mut lowest = 0;
    while size >= 2 {
        while lowest <= max_partners && buckets[lowest].is_empty() {
            lowest += 1;
        }
        let Some(Reverse(at)) = buckets.get_mut(lowest).and_then(BinaryHeap::pop) else {
            break;
        };
        let i = by_place[at as usize] as usize;
        if !in_set[i] || partners[i] != lowest {
            continue;
        }
        if lowest + 1 >= size {
            // The weakest member qualifies with everyone else: so does every member.
            break;
        }
        in_set[i] = false;
        size -= 1;
        for &j in adjacency.neighbours(i) {
            let j = j as usize;
            if in_set[j] {
                partners[j] -= 1;
                buckets[partners[j]].push(Reverse(place[j]));
                lowest = lowest.min(partners[j]);
            }
        }
    }
    if size < 2 {
        return Vec::new();
    }
    (0..n as u32).filter(|&i| in_set[i as usize]).collect()
}

/// Exact least squares over all met pairs: minimises sum (g_i - g_j - r_ij)^2 with mean zero per
/// connected component, by conjugate gradient on L g = b (L the graph Laplacian, b_i = sum_j r_ij).
/// None for players who met nobody.
pub fn least_squares(matrix: &FragMatrix) -> Vec<Option<f64>> {
    let n = matrix.n;
    let graph = Csr::new(n, matrix.pairs.iter().map(|p| (p.i, p.j)));
    let mut b = vec![0.0; n];
    for p in &matrix.pairs {
        let r = p.r();
        b[p.i as usize] += r;
        b[p.j as usize] -= r;
    }
    // Each entry of the product is summed alone, in a fixed order, so pieces of players run side
    // by side give the same bits. On a public server's append the headline's fit, beside this,
    // is done first: the rest of the products would be a stretch of one busy core.
    let laplacian = |x: &[f64], out: &mut [f64]| {
        use rayon::prelude::*;
        out.par_chunks_mut(LAPLACIAN_PIECE)
            .enumerate()
            .for_each(|(piece, out)| {
                for (k, o) in out.iter_mut().enumerate() {
                    let i = piece * LAPLACIAN_PIECE + k;
                    let nb = graph.neighbours(i);
                    let mut s = nb.len() as f64 * x[i];
                    for &j in nb {
                        s -= x[j as usize];
                    }
                    *o = s;
                }
            });
    };
    // Conjugate gradient preconditioned by the Laplacian's diagonal (each player's number of
    // opponents): a crowd's degrees range from 1 to tens of thousands, which plain CG pays for
    // in iterations. Stops on the same test as before, the plain residual.
    let inverse_degree: Vec<f64> = (0..n)
        .map(|i| match graph.neighbours(i).len() {
            0 => 0.0,
            d => 1.0 / d as f64,
        })
        .collect();
    let precondition = |r: &[f64], z: &mut [f64]| {
        for ((z, r), d) in z.iter_mut().zip(r).zip(&inverse_degree) {
            *z = r * d;
        }
    };
    let mut x = vec![0.0; n];
    let mut r = b.clone();
    let mut z = vec![0.0; n];
    precondition(&r, &mut z);
    let mut p = z.clone();
    let mut ap = vec![0.0; n];
    let norm_b = dot(&b, &b).sqrt();
    let mut rz = dot(&r, &z);
    if norm_b > 0.0 {
        for _ in 0..n.max(10) * 2 {
            if dot(&r, &r).sqrt() <= 1e-12 * norm_b {
                break;
            }
            laplacian(&p, &mut ap);
            let pap = dot(&p, &ap);
            if pap <= 0.0 || rz <= 0.0 {
                break;
            }
            let alpha = rz / pap;
            for i in 0..n {
                x[i] += alpha * p[i];
                r[i] -= alpha * ap[i];
            }
            precondition(&r, &mut z);
            let rz_new = dot(&r, &z);
            let beta = rz_new / rz;
            for i in 0..n {
                p[i] = z[i] + beta * p[i];
            }
            rz = rz_new;
        }
    }
    // Mean zero per connected component (CG from 0 keeps it up to rounding; make it exact).
    let component = graph.components();
    // Components are numbered from 0 in order of their first member.
    let components = component
        .iter()
        .flatten()
        .max()
        .map_or(0, |&c| c as usize + 1);
    let mut sum = vec![(0.0, 0usize); components];
    for i in 0..n {
        if let Some(c) = component[i] {
            let e = &mut sum[c as usize];
            e.0 += x[i];
            e.1 += 1;
        }
    }
    (0..n)
        .map(|i| {
            component[i].map(|c| {
                let (s, count) = sum[c as usize];
                x[i] - s / count as f64
            })
        })
        .collect()
}

/// Players per piece of [`least_squares`]' Laplacian product.
const LAPLACIAN_PIECE: usize = 8192;

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Undirected graph in compressed sparse rows.
struct Csr {
    offsets: Vec<usize>,
    targets: Vec<u32>,
}

impl Csr {
    fn new(n: usize, edges: impl Iterator<Item = (u32, u32)> + Clone) -> Csr {
        let mut degree = vec![0usize; n + 1];
        for (i, j) in edges.clone() {
            degree[i as usize + 1] += 1;
            degree[j as usize + 1] += 1;
        }
        for i in 0..n {
            degree[i + 1] += degree[i];
        }
        let offsets = degree;
        let mut fill = offsets.clone();
        let mut targets = vec![0u32; offsets[n]];
        for (i, j) in edges {
            targets[fill[i as usize]] = j;
            fill[i as usize] += 1;
            targets[fill[j as usize]] = i;
            fill[j as usize] += 1;
        }
        Csr { offsets, targets }
    }

    fn neighbours(&self, i: usize) -> &[u32] {
        &self.targets[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Component number per vertex with at least one edge; None for isolated vertices.
    fn components(&self) -> Vec<Option<u32>> {
        let n = self.offsets.len() - 1;
        let mut comp = vec![None; n];
        let mut next = 0u32;
        let mut stack = Vec::new();
        for s in 0..n {
            if comp[s].is_some() || self.neighbours(s).is_empty() {
                continue;
            }
            comp[s] = Some(next);
            stack.push(s);
            while let Some(v) = stack.pop() {
                for &w in self.neighbours(v) {
                    if comp[w as usize].is_none() {
                        comp[w as usize] = Some(next);
                        stack.push(w as usize);
                    }
                }
            }
            next += 1;
        }
        comp
    }
}

#[cfg(test)]
mod tests;
