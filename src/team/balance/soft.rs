//! The balancer's soft rules and guards (issue 15): clan mates kept together or spread (a
//! penalty in probability points for each mate out of place, part of the objective every search
//! minimises), the overpowered-party guard (a group kept together may not make one side a sure
//! winner), and avoiding the last match's teams. [`propose`] wraps [`crate::team::balance::balance`] with them;
//! the hard rules stay [`crate::team::balance::Rules`]' `lock`, `together` and `apart`.
//!
//! Definitions (README, `[balance]`):
//! - A clan of k mates present, r of them red, has `min(r, k − r)` mates out of place when kept
//!   together, and `|2r − k| / 2` (rounded down) when spread: the fewest mates to move to keep
//!   the rule. The objective is |P(red wins) − 50%| + `clan_penalty` points per mate out of
//!   place, over every clan.
//! - The guard: when the proposal's P(red wins) is beyond `party_guard` (or below 1 − it), the
//!   clans it keeps whole lose their soft rule if the search without it comes closer to 50%; a
//!   hard `--together` group is never broken, but is named in a warning when the fairest split
//!   without that rule is within the guard.
//! - The last match: the most recent team match (of the build's list) in which two or more
//!   lobby players played on each side; a split repeats it when those players stand as they did
//!   (either colour). With the option, the fairest split that does not repeat it is proposed
//!   when it is at most `avoid_last_within` points less fair, among the [`AVOID_KEEP`] fairest.

use crate::config::ClanMode;
use crate::team::balance::{Candidate, Proposal, Rules, Split, balance, groups};
use crate::team::model::TeamParams;

/// Splits looked at, fairest first, for one that avoids the last match's teams.
pub const AVOID_KEEP: usize = 32;

/// One clan's members in the lobby (two or more), by index.
#[derive(Debug, Clone, PartialEq)]
pub struct ClanGroup {
    pub name: String,
    pub members: Vec<usize>,
}

/// The soft clan rule: broken ones cost points.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Soft {
    pub mode: ClanMode,
    /// Clans with two or more members present.
    pub clans: Vec<ClanGroup>,
    /// Cost of one mate out of place, as a probability (0.02 = 2 points).
    pub unit: f64,
}

/// Mates out of place in a clan of `size` with `red` on red.
pub fn misplaced(mode: ClanMode, red: u32, size: u32) -> u32 {
    match mode {
        ClanMode::Off => 0,
        ClanMode::Together => red.min(size - red),
        ClanMode::Spread => (2 * red).abs_diff(size) / 2,
    }
}

impl Soft {
    /// The rule can cost anything.
    pub fn active(&self) -> bool {
        self.mode != ClanMode::Off && self.unit > 0.0 && !self.clans.is_empty()
    }

    /// Mates out of place over every clan, with `on_red` telling each player's side.
    pub fn out_of_place(&self, on_red: impl Fn(usize) -> bool) -> u32 {
        self.clans
            .iter()
            .map(|c| {
                let red = c.members.iter().filter(|&&i| on_red(i)).count() as u32;
                misplaced(self.mode, red, c.members.len() as u32)
            })
            .sum()
    }

    /// The penalty of a split (0 when the rule is off).
    pub fn penalty(&self, split: &Split) -> f64 {
        self.penalty_by(|i| split.red.contains(&i))
    }

    /// The penalty with `on_red` telling each player's side (0 when the rule is off).
    pub fn penalty_by(&self, on_red: impl Fn(usize) -> bool) -> f64 {
        if !self.active() {
            return 0.0;
        }
        self.unit * f64::from(self.out_of_place(on_red))
    }

    /// The rule over a lobby of at most 64 players, as bit masks.
    pub(super) fn masks(&self) -> SoftMasks {
        SoftMasks {
            active: self.active(),
            mode: self.mode,
            unit: self.unit,
            clans: self
                .clans
                .iter()
                .map(|c| {
                    (
                        c.members.iter().fold(0u64, |m, &i| m | 1 << i),
                        c.members.len() as u32,
                    )
                })
                .collect(),
        }
    }
}

/// [`Soft`] as masks, for the searches' inner loops.
pub(super) struct SoftMasks {
    pub active: bool,
    mode: ClanMode,
    unit: f64,
    clans: Vec<(u64, u32)>,
}

impl SoftMasks {
    /// The penalty of the red set `red` (the same number [`Soft::penalty`] gives).
    pub fn penalty(&self, red: u64) -> f64 {
        let count: u32 = self
            .clans
            .iter()
            .map(|&(mask, size)| misplaced(self.mode, (red & mask).count_ones(), size))
            .sum();
        self.unit * f64::from(count)
    }

    /// Every clan member, as a mask (0 without the rule: then it plays no part).
    pub fn members(&self) -> u64 {
        if self.active {
            self.clans.iter().fold(0, |m, &(mask, _)| m | mask)
        } else {
            0
        }
    }

    /// The search key of a red set with |logit| `logit_abs`: |logit| itself without soft rules
    /// (the order is the same as |p − 50%|'s), else |p − 50%| plus the penalty.
    pub fn key(&self, logit_abs: f64, red: u64) -> f64 {
        if self.active {
            p_distance(logit_abs) + self.penalty(red)
        } else {
            logit_abs
        }
    }
}

/// |p − 50%| of a logit's absolute value (`static/balance.js` computes it the same way).
pub(super) fn p_distance(logit_abs: f64) -> f64 {
    1.0 / (1.0 + (-logit_abs).exp()) - 0.5
}

/// The last match's teams, restricted to the lobby (two or more on each side).
#[derive(Debug, Clone, PartialEq)]
pub struct LastTeams {
    pub red: Vec<usize>,
    pub blue: Vec<usize>,
}

impl LastTeams {
    /// The last match of `recent` (most recent first; each `[red, blue]` as ids) that had two
    /// or more lobby players on each side; `lobby_ids[i]` is lobby player i's id (None for a
    /// newcomer).
    pub fn find(recent: &[[Vec<u32>; 2]], lobby_ids: &[Option<u32>]) -> Option<LastTeams> {
        let side = |ids: &[u32]| -> Vec<usize> {
            (0..lobby_ids.len())
                .filter(|&i| lobby_ids[i].is_some_and(|id| ids.contains(&id)))
                .collect()
        };
        recent.iter().find_map(|[red, blue]| {
            let (r, b) = (side(red), side(blue));
            (r.len() >= 2 && b.len() >= 2).then_some(LastTeams { red: r, blue: b })
        })
    }

    /// `split` puts these players as they stood (either colour).
    pub fn repeated_by(&self, split: &Split) -> bool {
        let on_red = |i: &usize| split.red.contains(i);
        let first = on_red(&self.red[0]);
        self.red.iter().all(|i| on_red(i) == first) && self.blue.iter().all(|i| on_red(i) != first)
    }
}

/// The options of [`propose`] beyond the rules.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Alternatives to list.
    pub alternatives: usize,
    /// `[balance] party_guard` (1 turns it off).
    pub party_guard: f64,
    /// The last match's teams to avoid, with the tolerance in probability (0.03 = 3 points).
    pub avoid: Option<(LastTeams, f64)>,
}

/// What [`propose`] did about the last match.
#[derive(Debug, Clone, PartialEq)]
pub struct AvoidLast {
    pub last: LastTeams,
    /// The proposal does not repeat it.
    pub avoided: bool,
    /// Why, in words.
    pub why: String,
}

/// The proposal with the soft rules and guards applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub proposal: Proposal,
    /// The soft rule finally in force (the guard may have dropped clans).
    pub soft: Soft,
    /// Guards that fired, in words.
    pub warnings: Vec<String>,
    pub avoid: Option<AvoidLast>,
}

/// P(red wins) beyond the guard either way.
fn beyond(p: f64, guard: f64) -> bool {
    guard < 1.0 && (p > guard || p < 1.0 - guard)
}

/// The objective of a split under `soft`.
pub fn objective(split: &Split, soft: &Soft) -> f64 {
    (split.p_red - 0.5).abs() + soft.penalty(split)
}

/// A probability in percent with one decimal (as `static/balance.js` writes it).
fn pct(p: f64) -> String {
    format!("{:.1}%", p * 100.0)
}

/// The fairest split under the hard and soft rules, with the party guard and the last match.
pub fn propose(
    lobby: &[Candidate],
    params: &TeamParams,
    rules: &Rules,
    options: &Options,
) -> Result<Outcome, String> {
    let keep = if options.avoid.is_some() {
        options.alternatives.max(AVOID_KEEP - 1)
    } else {
        options.alternatives
    };
    let mut rules = rules.clone();
    let mut proposal = balance(lobby, params, &rules, keep)?;
    let mut warnings = Vec::new();
    let guard = options.party_guard;
    let name = |i: usize| lobby[i].name.as_str();
    // The guard on the soft clan rule: drop it for the clans kept whole while p is beyond.
    while rules.soft.mode == ClanMode::Together
        && rules.soft.active()
        && beyond(proposal.best.p_red, guard)
    {
        let best = &proposal.best;
        let (whole, kept): (Vec<ClanGroup>, Vec<ClanGroup>) =
            rules.soft.clans.iter().cloned().partition(|c| {
                let first = best.red.contains(&c.members[0]);
                c.members.iter().all(|i| best.red.contains(i) == first)
            });
        if whole.is_empty() {
            break;
        }
        let mut without = rules.clone();
        without.soft.clans = kept;
        let other = balance(lobby, params, &without, keep)?;
        if (other.best.p_red - 0.5).abs() >= (best.p_red - 0.5).abs() {
            break;
        }
        let names: Vec<&str> = whole.iter().map(|c| c.name.as_str()).collect();
        warnings.push(format!(
            "clan {} kept together would make one side a sure winner (P(red wins) = {}, beyond the party guard of {}): their clan rule is dropped ({} without it)",
            names.join(", "),
            pct(best.p_red),
            pct(guard),
            pct(other.best.p_red)
        ));
        rules = without;
        proposal = other;
    }
    // The guard on hard groups: never broken, but named.
    if beyond(proposal.best.p_red, guard) && !rules.together.is_empty() {
        let group = groups(lobby.len(), &rules.together);
        let mut roots: Vec<usize> = rules.together.iter().map(|&(a, _)| group[a]).collect();
        roots.sort_unstable();
        roots.dedup();
        for root in roots {
            let mut without = rules.clone();
            without
                .together
                .retain(|&(a, b)| group[a] != root && group[b] != root);
            let Ok(other) = balance(lobby, params, &without, 0) else {
                continue;
            };
            if !beyond(other.best.p_red, guard) {
                let members: Vec<&str> = (0..lobby.len())
                    .filter(|&i| group[i] == root)
                    .map(name)
                    .collect();
                warnings.push(format!(
                    "keeping {} together makes one side a sure winner: P(red wins) = {} (the party guard is {}); without that rule the fairest split gives {}",
                    members.join(", "),
                    pct(proposal.best.p_red),
                    pct(guard),
                    pct(other.best.p_red)
                ));
            }
        }
    }
    let mut avoid = None;
    if let Some((last, within)) = &options.avoid {
        let all: Vec<Split> = std::iter::once(proposal.best.clone())
            .chain(proposal.alternatives.iter().cloned())
            .collect();
        let best_cost = objective(&all[0], &rules.soft);
        let (avoided, why, chosen) = if !last.repeated_by(&all[0]) {
            (
                true,
                "the fairest split does not repeat them".to_string(),
                0,
            )
        } else {
            match all.iter().position(|s| !last.repeated_by(s)) {
                Some(k) if objective(&all[k], &rules.soft) <= best_cost + within + 1e-12 => (
                    true,
                    format!(
                        "the fairest split repeats them: the fairest that does not is proposed (P(red wins) = {} instead of {})",
                        pct(all[k].p_red),
                        pct(all[0].p_red)
                    ),
                    k,
                ),
                Some(k) => (
                    false,
                    format!(
                        "the fairest split repeats them, and the fairest that does not is more than {:.1} points less fair (P(red wins) = {}): kept",
                        within * 100.0,
                        pct(all[k].p_red)
                    ),
                    0,
                ),
                None => {
                    let last_cost = all.last().map_or(best_cost, |s| objective(s, &rules.soft));
                    let why = if all.len() <= keep && proposal.exact {
                        "every split the rules allow repeats them: kept the fairest".to_string()
                    } else if last_cost > best_cost + within + 1e-12 {
                        format!(
                            "no split within {:.1} points of the fairest avoids them: kept the fairest",
                            within * 100.0
                        )
                    } else {
                        format!(
                            "the {} fairest splits all repeat them: kept the fairest",
                            all.len()
                        )
                    };
                    (false, why, 0)
                }
            }
        };
        let mut rest = all;
        let best = rest.remove(chosen);
        rest.truncate(options.alternatives);
        proposal.best = best;
        proposal.alternatives = rest;
        avoid = Some(AvoidLast {
            last: last.clone(),
            avoided,
            why,
        });
    } else {
        proposal.alternatives.truncate(options.alternatives);
    }
    Ok(Outcome {
        proposal,
        soft: rules.soft,
        warnings,
        avoid,
    })
}
