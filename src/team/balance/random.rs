//! The random split shown beside the proposal (issue 15: "what a random split gives"):
//! reproducible, seeded from the lobby's names unless a seed is given, with team sizes differing
//! by at most one, keeping the hard rules when a few draws find such a split. `static/balance.js`
//! ports [`seed_of`], [`Mulberry32`] and [`random_split`], so page and command line show the same
//! random teams.

use crate::team::balance::{Candidate, Rules, Side, Split, groups, p_red};
use crate::team::model::TeamParams;

/// Draws tried for a split that keeps the `together` and `apart` rules before giving up on them.
pub const DRAWS: usize = 1000;

/// The Mulberry32 generator: 32-bit state, 32-bit outputs, all in wrapping u32 arithmetic (so
/// JavaScript's `Math.imul` reproduces it exactly).
#[derive(Debug, Clone)]
pub struct Mulberry32(pub u32);

impl Mulberry32 {
    /// The next 32 bits.
    pub fn next_u32(&mut self) -> u32 {
        self.0 = self.0.wrapping_add(0x6D2B_79F5);
        let mut t = self.0;
        t = (t ^ (t >> 15)).wrapping_mul(t | 1);
        t ^= t.wrapping_add((t ^ (t >> 7)).wrapping_mul(t | 61));
        t ^ (t >> 14)
    }

    /// A number in `0..bound` (`bound` at least 1), by the multiply-shift method.
    pub fn below(&mut self, bound: usize) -> usize {
        ((u64::from(self.next_u32()) * bound as u64) >> 32) as usize
    }
}

/// The default seed of a lobby: FNV-1a (32 bits) over the names sorted by their UTF-8 bytes,
/// each followed by a zero byte. The order the names were given in does not matter.
pub fn seed_of(lobby: &[Candidate]) -> u32 {
    let mut names: Vec<&str> = lobby.iter().map(|c| c.name.as_str()).collect();
    names.sort_unstable();
    let mut hash: u32 = 0x811C_9DC5;
    for name in names {
        for &byte in name.as_bytes().iter().chain([&0u8]) {
            hash ^= u32::from(byte);
            hash = hash.wrapping_mul(0x0100_0193);
        }
    }
    hash
}

/// A random split and whether it keeps every hard rule.
#[derive(Debug, Clone, PartialEq)]
pub struct RandomSplit {
    pub split: Split,
    pub seed: u32,
    /// False when no draw kept the `together` and `apart` rules (the locks always hold).
    pub rules_kept: bool,
}

/// A random split of `lobby`: the players sorted by name, locked ones placed on their side, the
/// others shuffled (Fisher–Yates) and dealt to fill red up to its size (for an odd lobby, which
/// side gets the extra player is drawn first). Drawn again, up to [`DRAWS`] times, until the
/// `together` and `apart` rules hold; `rules` must have passed [`crate::team::balance::conflicts`].
pub fn random_split(
    lobby: &[Candidate],
    params: &TeamParams,
    rules: &Rules,
    seed: u32,
) -> RandomSplit {
    let n = lobby.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| lobby[a].name.cmp(&lobby[b].name).then(a.cmp(&b)));
    let side_of = |i: usize| rules.lock.iter().find(|(l, _)| *l == i).map(|&(_, s)| s);
    let locked_red: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| side_of(i) == Some(Side::Red))
        .collect();
    let locked_blue = order
        .iter()
        .filter(|&&i| side_of(i) == Some(Side::Blue))
        .count();
    let free: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| side_of(i).is_none())
        .collect();
    let group = groups(n, &rules.together);
    let keeps = |red: &[bool]| {
        (0..n).all(|i| red[i] == red[group[i]])
            && rules.apart.iter().all(|&(a, b)| red[a] != red[b])
    };
    let mut rng = Mulberry32(seed);
    let mut first: Option<Vec<bool>> = None;
    for _ in 0..DRAWS {
        let mut red_size = n / 2;
        if n % 2 == 1 && rng.next_u32() & 1 == 1 {
            red_size += 1;
        }
        // The locks may force which side is the bigger one (conflicts() keeps both fitting).
        if red_size < locked_red.len() || n - red_size < locked_blue {
            red_size = n - red_size;
        }
        let mut shuffled = free.clone();
        for i in (1..shuffled.len()).rev() {
            let j = rng.below(i + 1);
            shuffled.swap(i, j);
        }
        let mut red = vec![false; n];
        for &i in locked_red
            .iter()
            .chain(&shuffled[..red_size.saturating_sub(locked_red.len()).min(free.len())])
        {
            red[i] = true;
        }
        if keeps(&red) {
            return RandomSplit {
                split: split_from(lobby, params, &red),
                seed,
                rules_kept: true,
            };
        }
        first.get_or_insert(red);
    }
    let red = first.unwrap_or_else(|| vec![false; n]);
    RandomSplit {
        split: split_from(lobby, params, &red),
        seed,
        rules_kept: false,
    }
}

/// The split of a red/blue assignment, with P(red wins).
fn split_from(lobby: &[Candidate], params: &TeamParams, red: &[bool]) -> Split {
    let (r, b): (Vec<usize>, Vec<usize>) = (0..lobby.len()).partition(|&i| red[i]);
    let p_red = p_red(lobby, params, &r, &b);
    Split {
        red: r,
        blue: b,
        p_red,
    }
}
