//! A match's counts ([`MatchCounts`]) and lines ([`MatchLine`]) packed as bytes: a line of
//! small numbers takes about 10 bytes packed against 40 as a value (at 64,000 matches of 8
//! players, 20 MB against 5), and the counts a few bytes where held beside them they took 16
//! (1 MB at 64,000 matches, issue 41); held in memory until a block of matches is counted, then
//! in the counts' file ([`super::shelf`]). Each line is unpacked as it is read, by hand
//! ([`unpack`]). Saved and read back (the checkpoint) as the list of lines, in the same bytes as
//! before (the counts apart, see [`super::MatchStats`]). Not the counting itself (see
//! [`super`]).

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::shelf::Written;
use super::{MatchCounts, MatchLine};
use crate::model::Team;

/// A match's counts and lines in their order, packed (the counts' four numbers, then postcard's
/// bytes of the lines: their number, then each line's fields, all as variable-length
/// integers): in memory, or once a block of matches is counted, in the counts' file
/// ([`super::shelf`]).
#[derive(Clone)]
pub struct Lines(Packed);

/// Where a [`Lines`]' bytes are: 16 bytes, the held ones behind one more pointer (beside a
/// written range's 16 bytes, a slice's two words took 24: 0.5 MB at 64,000 matches, issue 41).
#[derive(Clone)]
enum Packed {
    Held(Box<Box<[u8]>>),
    Written(Written),
}

impl Default for Lines {
    /// No lines (and no bytes).
    fn default() -> Lines {
        Lines(Packed::Held(Box::default()))
    }
}

/// The bytes of a [`Lines`] from its start: borrowed, or in a block read back.
enum Bytes<'a> {
    Held(&'a [u8]),
    Block(Arc<[u8]>, usize),
}

impl Bytes<'_> {
    fn slice(&self) -> &[u8] {
        match self {
            Bytes::Held(bytes) => bytes,
            Bytes::Block(block, from) => block.get(*from..).unwrap_or_default(),
        }
    }
}

impl Lines {
    /// `lines`, packed, with no counts.
    pub fn pack(lines: &[MatchLine]) -> Lines {
        Lines::with_counts(MatchCounts::default(), lines)
    }

    /// `counts` and `lines`, packed.
    pub fn with_counts(counts: MatchCounts, lines: &[MatchLine]) -> Lines {
        let MatchCounts {
            frags,
            suicides,
            team_kills,
            kill_lines,
        } = counts;
        // Postcard writes the four numbers as variable-length integers, then the lines as it
        // always did. Encoding into memory fails only for types serde cannot write, not these.
        let bytes = postcard::to_allocvec(&((frags, suicides, team_kills, kill_lines), lines));
        Lines(Packed::Held(Box::new(bytes.unwrap_or_default().into())))
    }

    /// The counts packed with the lines.
    pub fn counts(&self) -> MatchCounts {
        counts(&mut self.bytes().slice())
    }

    /// The packed bytes, when they are held in memory (not yet written out).
    pub(super) fn held(&self) -> Option<&[u8]> {
        match &self.0 {
            Packed::Held(bytes) => Some(bytes),
            Packed::Written(_) => None,
        }
    }

    /// The same lines, as written out.
    pub(super) fn written(written: Written) -> Lines {
        Lines(Packed::Written(written))
    }

    /// How many lines there are.
    pub fn len(&self) -> usize {
        let bytes = self.bytes();
        let mut lines = bytes.slice();
        counts(&mut lines);
        varint(&mut lines).map_or(0, |n| n as usize)
    }

    /// No lines.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The lines in order, each unpacked as it comes.
    pub fn iter(&self) -> Iter<'_> {
        let bytes = self.bytes();
        let all = bytes.slice();
        let mut rest = all;
        counts(&mut rest);
        let (left, at) = match varint(&mut rest) {
            Some(n) => (n as usize, all.len() - rest.len()),
            None => (0, all.len()),
        };
        Iter { bytes, at, left }
    }

    /// Line `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<MatchLine> {
        self.iter().nth(i)
    }

    /// The two lines of a match of exactly two lines (a duel's).
    pub fn pair(&self) -> Option<[MatchLine; 2]> {
        let mut lines = self.iter();
        match (lines.next(), lines.next(), lines.next()) {
            (Some(a), Some(b), None) => Some([a, b]),
            _ => None,
        }
    }

    /// The lines unpacked into a list.
    pub fn to_vec(&self) -> Vec<MatchLine> {
        self.iter().collect()
    }

    fn bytes(&self) -> Bytes<'_> {
        match &self.0 {
            Packed::Held(bytes) => Bytes::Held(bytes),
            Packed::Written(written) => {
                let (block, from) = written.read();
                Bytes::Block(block, from)
            }
        }
    }
}

impl PartialEq for Lines {
    fn eq(&self, other: &Lines) -> bool {
        self.counts() == other.counts() && self.len() == other.len() && self.iter().eq(other.iter())
    }
}

/// The counts at the start of `bytes`, which are moved past them (none when they do not hold
/// them: no bytes, for no lines).
fn counts(bytes: &mut &[u8]) -> MatchCounts {
    let mut next = || varint(bytes);
    match (next(), next(), next(), next()) {
        (Some(frags), Some(suicides), Some(team_kills), Some(kill_lines)) => MatchCounts {
            frags,
            suicides,
            team_kills,
            kill_lines,
        },
        _ => MatchCounts::default(),
    }
}

/// The next line of `bytes` as postcard packs a [`MatchLine`] (its fields in order, integers as
/// variable-length integers, signed ones zigzagged, an absent value as 0 and a present one as 1
/// then the value, a team as its variant's number), read by hand rather than through serde:
/// every page and count that reads the lines of the whole history unpacks them. (On the crowd's
/// append the two ways measured alike, within the machine's noise: 0.86-0.98 s against
/// 0.89-0.93 s; the unpacking's own cost was not measured apart.)
fn unpack(bytes: &mut &[u8]) -> Option<MatchLine> {
    let mut next = || varint(bytes);
    let (player, frags, deaths) = (next()?, next()?, next()?);
    let (suicides, team_kills, captures) = (next()?, next()?, next()?);
    let score = match next()? {
        0 => None,
        1 => Some(next().map(|z| (z >> 1) as i32 ^ -((z & 1) as i32))?),
        _ => return None,
    };
    let best_spree = next()?;
    let team = match next()? {
        0 => None,
        1 => Some(match next()? {
            0 => Team::Free,
            1 => Team::Red,
            2 => Team::Blue,
            3 => Team::Spectator,
            _ => return None,
        }),
        _ => return None,
    };
    Some(MatchLine {
        player,
        frags,
        deaths,
        suicides,
        team_kills,
        captures,
        score,
        best_spree,
        team,
    })
}

/// A `u32` as postcard packs it: seven bits a byte, lowest first, the top bit set on all but
/// the last byte (at most five).
fn varint(bytes: &mut &[u8]) -> Option<u32> {
    let mut value = 0u64;
    for shift in [0, 7, 14, 21, 28] {
        let (&byte, rest) = bytes.split_first()?;
        *bytes = rest;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return u32::try_from(value).ok();
        }
    }
    None
}

impl From<Vec<MatchLine>> for Lines {
    fn from(lines: Vec<MatchLine>) -> Lines {
        Lines::pack(&lines)
    }
}

/// The lines of a [`Lines`], unpacked one by one.
pub struct Iter<'a> {
    bytes: Bytes<'a>,
    /// Where the next line starts in `bytes`.
    at: usize,
    left: usize,
}

impl Iterator for Iter<'_> {
    type Item = MatchLine;

    fn next(&mut self) -> Option<MatchLine> {
        if self.left == 0 {
            return None;
        }
        let rest = self.bytes.slice().get(self.at..)?;
        let mut after = rest;
        // Packed by `Lines::pack`, so they unpack; if they did not, the lines would end there.
        let line = unpack(&mut after)?;
        self.at += rest.len() - after.len();
        self.left -= 1;
        Some(line)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left))
    }
}

impl<'a> IntoIterator for &'a Lines {
    type Item = MatchLine;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl std::fmt::Debug for Lines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Lines {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for line in self {
            seq.serialize_element(&line)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Lines {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Lines, D::Error> {
        Vec::<MatchLine>::deserialize(deserializer).map(Lines::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(player: u32, frags: u32, score: Option<i32>, team: Option<Team>) -> MatchLine {
        MatchLine {
            player,
            frags,
            deaths: frags / 2,
            suicides: 1,
            team_kills: u32::MAX,
            captures: 70_000,
            score,
            best_spree: 3,
            team,
        }
    }

    /// A match's counts and lines take 16 bytes (held for every match of the history).
    #[test]
    fn a_match_counts_in_16_bytes() {
        assert_eq!(size_of::<Lines>(), 16);
        assert_eq!(size_of::<super::super::MatchStats>(), 16);
    }

    /// Counts packed with lines read back as they were, the largest numbers among them, and
    /// apart from the lines; lines packed alone, or no bytes at all, count nothing.
    #[test]
    fn packed_counts_are_the_counts() {
        let lines = [
            line(3, 4, Some(1), None),
            line(9, 0, None, Some(Team::Blue)),
        ];
        for counts in [
            MatchCounts::default(),
            MatchCounts {
                frags: 4,
                suicides: 1,
                team_kills: 127,
                kill_lines: 132,
            },
            MatchCounts {
                frags: u32::MAX,
                suicides: 128,
                team_kills: 1 << 21,
                kill_lines: u32::MAX - 1,
            },
        ] {
            for n in 0..=lines.len() {
                let packed = Lines::with_counts(counts, &lines[..n]);
                assert_eq!(packed.counts(), counts);
                assert_eq!(packed.to_vec(), &lines[..n]);
                let saved = postcard::to_allocvec(&packed).unwrap();
                assert_eq!(saved, postcard::to_allocvec(&lines[..n]).unwrap());
            }
        }
        assert_eq!(Lines::pack(&lines).counts(), MatchCounts::default());
        assert_eq!(Lines::default().counts(), MatchCounts::default());
        assert_eq!(
            (Lines::default().len(), Lines::default().to_vec()),
            (0, vec![])
        );
        let other = MatchCounts {
            frags: 1,
            ..MatchCounts::default()
        };
        assert_ne!(Lines::pack(&lines), Lines::with_counts(other, &lines));
    }

    /// Packed lines read back as they were, in order, from none to many, with the largest
    /// numbers, negative and missing scores; saved, they are the bytes of the list of lines.
    #[test]
    fn packed_lines_are_the_lines() {
        let lines = [
            line(0, 0, None, None),
            line(u32::MAX, 12, Some(-3), Some(Team::Red)),
            line(7, 300, Some(i32::MIN), Some(Team::Spectator)),
            line(2, 1, Some(i32::MAX), Some(Team::Free)),
        ];
        for n in 0..=lines.len() {
            let packed = Lines::pack(&lines[..n]);
            assert_eq!(packed.len(), n);
            assert_eq!(packed.is_empty(), n == 0);
            assert_eq!(packed.to_vec(), &lines[..n]);
            assert_eq!(packed.get(n.saturating_sub(1)), lines[..n].last().cloned());
            assert_eq!(packed.get(n), None);
            assert_eq!(packed.pair().is_some(), n == 2);
            let saved = postcard::to_allocvec(&packed).unwrap();
            assert_eq!(saved, postcard::to_allocvec(&lines[..n]).unwrap());
            let read: Lines = postcard::from_bytes(&saved).unwrap();
            assert_eq!(read, packed);
            let json = serde_json::to_string(&packed).unwrap();
            assert_eq!(json, serde_json::to_string(&lines[..n]).unwrap());
        }
        // Numbers of every length, each team and score sign: unpacked by hand as packed.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let bits = (seed >> 33) as u32;
            bits >> (bits % 32)
        };
        let teams = [
            None,
            Some(Team::Free),
            Some(Team::Red),
            Some(Team::Blue),
            Some(Team::Spectator),
        ];
        let many: Vec<MatchLine> = (0..2_000)
            .map(|n| MatchLine {
                player: next(),
                frags: next(),
                deaths: next(),
                suicides: next(),
                team_kills: next(),
                captures: next(),
                score: (n % 3 > 0).then(|| next() as i32 * if n % 2 == 0 { 1 } else { -1 }),
                best_spree: next(),
                team: teams[n % teams.len()],
            })
            .collect();
        let packed = Lines::pack(&many);
        assert_eq!(packed.to_vec(), many);
        // After the counts' four bytes (of zeros), the postcard bytes of the lines.
        let held = packed.held().unwrap();
        assert_eq!(held[..4], [0; 4]);
        assert_eq!(
            postcard::from_bytes::<Vec<MatchLine>>(&held[4..]).unwrap(),
            many
        );

        // A few bytes a line of small numbers.
        let small: Vec<MatchLine> = (0..8)
            .map(|player| MatchLine {
                player,
                frags: 20,
                score: Some(20),
                ..Default::default()
            })
            .collect();
        let small = Lines::pack(&small);
        let bytes = small.held().unwrap().len();
        assert!(bytes < 8 * 20 + 4, "{bytes} bytes");
    }
}
