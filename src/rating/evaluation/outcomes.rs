//! [`Outcomes`]: the outcomes of a replay's batch, packed into bytes (a tag, then LEB128
//! numbers): a whole history's batch holds one outcome per frag, and a frag between two of a
//! clan's 30 players takes 3 bytes here where the [`Outcome`] enum takes 12 (issue 41: memory
//! bounded by players, not history). Read back in order, from any outcome's offset.

use super::Outcome;

/// Outcomes in order, packed.
#[derive(Debug, Default)]
pub struct Outcomes {
    bytes: Vec<u8>,
}

const START: u8 = 0;
const FRAG: u8 = 1;
const PENALTY: u8 = 2;
const ROUND_END: u8 = 3;
const END: u8 = 4;

impl Outcomes {
    /// Appends `o`.
    pub fn push(&mut self, o: Outcome) {
        let (tag, a, b) = match o {
            Outcome::StartMatch { index } => (START, index, None),
            Outcome::Frag { killer, victim } => (FRAG, killer, Some(victim)),
            Outcome::Penalty { player } => (PENALTY, player, None),
            Outcome::RoundEnd { index, round } => (ROUND_END, index, Some(round)),
            Outcome::EndMatch { index } => (END, index, None),
        };
        self.bytes.push(tag);
        put(&mut self.bytes, a);
        if let Some(b) = b {
            put(&mut self.bytes, b);
        }
    }

    /// The outcomes' bytes, as [`Outcomes::from_bytes`] takes them back.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The outcomes whose bytes are `bytes` (an [`Outcomes::as_bytes`]).
    pub fn from_bytes(bytes: Vec<u8>) -> Outcomes {
        Outcomes { bytes }
    }

    /// Gives back the room reserved for more outcomes (up to as much again as they take).
    pub fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
    }

    /// The offset just past the last outcome (the end of a range over all of them).
    pub fn end(&self) -> usize {
        self.bytes.len()
    }

    /// The outcomes from offset `range.start` (an outcome's) to `range.end`, each with its
    /// offset.
    pub fn iter(&self, range: std::ops::Range<usize>) -> Iter<'_> {
        Iter {
            bytes: &self.bytes[..range.end],
            at: range.start,
        }
    }

    /// The outcome at offset `at` (an outcome's).
    #[cfg(test)]
    pub fn at(&self, at: usize) -> Outcome {
        self.iter(at..self.end())
            .next()
            .expect("an outcome at that offset")
            .1
    }
}

/// Appends `n` as LEB128.
fn put(bytes: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        bytes.push((n as u8) | 0x80);
        n >>= 7;
    }
    bytes.push(n as u8);
}

/// Outcomes read in order, each with its offset.
pub struct Iter<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Iter<'_> {
    /// The LEB128 number at the cursor (the bytes were written by [`put`]).
    fn number(&mut self) -> u32 {
        let mut n = 0u32;
        let mut shift = 0;
        loop {
            let b = self.bytes[self.at];
            self.at += 1;
            n |= u32::from(b & 0x7f) << shift;
            if b < 0x80 {
                return n;
            }
            shift += 7;
        }
    }
}

impl Iterator for Iter<'_> {
    type Item = (usize, Outcome);

    fn next(&mut self) -> Option<(usize, Outcome)> {
        let start = self.at;
        let tag = *self.bytes.get(start)?;
        self.at += 1;
        let a = self.number();
        let o = match tag {
            START => Outcome::StartMatch { index: a },
            FRAG => Outcome::Frag {
                killer: a,
                victim: self.number(),
            },
            PENALTY => Outcome::Penalty { player: a },
            ROUND_END => Outcome::RoundEnd {
                index: a,
                round: self.number(),
            },
            _ => Outcome::EndMatch { index: a },
        };
        Some((start, o))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of outcome, with numbers of every LEB128 length, reads back as written,
    /// from the start and from any outcome's offset.
    #[test]
    fn outcomes_read_back_as_written() {
        let numbers = [0, 1, 127, 128, 300, 16_383, 16_384, 2_000_000, u32::MAX];
        let mut all = Vec::new();
        for (i, &a) in numbers.iter().enumerate() {
            let b = numbers[(i * 5 + 3) % numbers.len()];
            all.extend([
                Outcome::StartMatch { index: a },
                Outcome::Frag {
                    killer: a,
                    victim: b,
                },
                Outcome::Penalty { player: b },
                Outcome::RoundEnd { index: a, round: b },
                Outcome::EndMatch { index: b },
            ]);
        }
        let mut packed = Outcomes::default();
        for &o in &all {
            packed.push(o);
        }
        let read: Vec<(usize, Outcome)> = packed.iter(0..packed.end()).collect();
        assert_eq!(
            read.iter().map(|r| r.1).collect::<Vec<_>>(),
            all,
            "every outcome, in order"
        );
        for (k, &(at, o)) in read.iter().enumerate() {
            assert_eq!(packed.at(at), o);
            let rest: Vec<Outcome> = packed.iter(at..packed.end()).map(|r| r.1).collect();
            assert_eq!(rest, all[k..]);
        }
        // A frag between two of a clan's players takes 3 bytes.
        let mut one = Outcomes::default();
        one.push(Outcome::Frag {
            killer: 3,
            victim: 29,
        });
        assert_eq!(one.end(), 3);
    }
}
