//! A match's lines ([`MatchLine`]) packed as bytes: the counts of every match of the history
//! stay in memory for the whole build, and a line of small numbers takes about 10 bytes packed
//! against 40 as a value (at 64,000 matches of 8 players, 20 MB against 5). Each line is
//! unpacked as it is read. Saved and read back (the checkpoint) as the list of lines, in the
//! same bytes as before. Not the counting itself (see [`super`]).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::MatchLine;

/// A match's lines in their order, packed (postcard: their number, then each line's fields as
/// variable-length integers).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Lines(Box<[u8]>);

impl Lines {
    /// `lines`, packed.
    pub fn pack(lines: &[MatchLine]) -> Lines {
        // Encoding into memory fails only for types serde cannot write, not these.
        Lines(postcard::to_allocvec(lines).unwrap_or_default().into())
    }

    /// How many lines there are.
    pub fn len(&self) -> usize {
        self.split().0
    }

    /// No lines.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The lines in order, each unpacked as it comes.
    pub fn iter(&self) -> Iter<'_> {
        let (left, rest) = self.split();
        Iter { rest, left }
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

    /// The number of lines and the bytes of the lines.
    fn split(&self) -> (usize, &[u8]) {
        match postcard::take_from_bytes::<u32>(&self.0) {
            Ok((n, rest)) => (n as usize, rest),
            Err(_) => (0, &[]),
        }
    }
}

impl From<Vec<MatchLine>> for Lines {
    fn from(lines: Vec<MatchLine>) -> Lines {
        Lines::pack(&lines)
    }
}

/// The lines of a [`Lines`], unpacked one by one.
pub struct Iter<'a> {
    rest: &'a [u8],
    left: usize,
}

impl Iterator for Iter<'_> {
    type Item = MatchLine;

    fn next(&mut self) -> Option<MatchLine> {
        if self.left == 0 {
            return None;
        }
        // Packed by `Lines::pack`, so they unpack; if they did not, the lines would end there.
        let (line, rest) = postcard::take_from_bytes::<MatchLine>(self.rest).ok()?;
        self.rest = rest;
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
    use crate::model::Team;

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
        assert!(small.0.len() < 8 * 20, "{} bytes", small.0.len());
    }
}
