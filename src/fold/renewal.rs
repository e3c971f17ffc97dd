//! When a build writes a new [`super::Checkpoint`] of its folds, and when it keeps the one it
//! resumed. A checkpoint after match N resumes every later build whose first N matches agree
//! with it (the chain, the fingerprint and the identities are checked on every resume), and a
//! resumed build replays its tail past N with the same deterministic folds as a build from the
//! first match: so keeping an older checkpoint changes no bit of any site, only how long the
//! replayed tail is. It does not decide whether a checkpoint may be resumed: that is
//! [`super::Checkpoint`]'s.

use super::Replayed;

/// How long a replayed tail earns a new checkpoint.
///
/// A build that resumed its checkpoint writes a new one once the tail it replayed past it is at
/// least `max(min_tail, isqrt(matches) / sqrt_divisor)` matches long; a build that did not
/// resume one (none saved, `--full`, or refused) always writes one. The default, at least 64
/// and `isqrt(matches) / 2`, comes from a public-server crowd (63,000 players, 20,000 matches,
/// 2 cores): a new checkpoint costs about 0.3 s of processor time (the systems' saved states
/// 0.08 s, the encoding and checksum 0.13 s, the write 0.06 s) and grows with the history,
/// while each match of the tail costs every build about 0.35 ms of replay. A checkpoint every
/// T matches costs a build about `0.35 ms * T / 2 + 0.3 s / T` on average, least near T = 41
/// there and nearly flat around it (0.016 s at 64); as the checkpoint's cost grows with the
/// matches, the best T grows with their square root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckpointRule {
    /// The shortest tail that earns a new checkpoint (default 64).
    pub min_tail: usize,
    /// The tail that earns one is also at least the square root of the matches divided by
    /// this (default 2; `usize::MAX` leaves only `min_tail`).
    pub sqrt_divisor: usize,
}

impl CheckpointRule {
    /// A new checkpoint after every build: what a caller that always keeps the folds' end uses.
    pub const EVERY_BUILD: CheckpointRule = CheckpointRule {
        min_tail: 0,
        sqrt_divisor: usize::MAX,
    };

    /// Whether a build of `matches` (after moderation) whose folds started as `replayed` says
    /// writes a new checkpoint.
    pub fn renews(&self, replayed: &Replayed, matches: usize) -> bool {
        match replayed {
            Replayed::Resumed(from) => {
                let tail = matches.saturating_sub(*from);
                tail >= self
                    .min_tail
                    .max(matches.isqrt() / self.sqrt_divisor.max(1))
            }
            Replayed::Whole | Replayed::Refused(_) => true,
        }
    }
}

impl Default for CheckpointRule {
    fn default() -> CheckpointRule {
        CheckpointRule {
            min_tail: 64,
            sqrt_divisor: 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_tail_keeps_the_checkpoint_and_a_long_one_renews_it() {
        let rule = CheckpointRule::default();
        let resumed = |from| Replayed::Resumed(from);
        assert!(!rule.renews(&resumed(1000), 1000), "nothing new");
        assert!(!rule.renews(&resumed(1000), 1063));
        assert!(rule.renews(&resumed(1000), 1064));
        // 20,000 matches: isqrt 141, half of it 70.
        assert!(!rule.renews(&resumed(19_931), 20_000));
        assert!(rule.renews(&resumed(19_930), 20_000));
        assert!(rule.renews(&Replayed::Whole, 20_000));
        assert!(rule.renews(&Replayed::Refused("changed".into()), 20_000));
        let every = CheckpointRule::EVERY_BUILD;
        assert!(every.renews(&resumed(20_000), 20_000));
        let three = CheckpointRule {
            min_tail: 3,
            sqrt_divisor: usize::MAX,
        };
        assert!(!three.renews(&resumed(20_000), 20_002));
        assert!(three.renews(&resumed(20_000), 20_003));
    }
}
