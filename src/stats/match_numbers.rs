//! [`MatchNumbers`]: the places (in site order) of the matches a player or a map took part in,
//! held as the differences between each and the one before, in one to five bytes each (issue
//! 41: as a list of 4-byte numbers, the 30 players of 64,000 synthetic games held 2 MB of them
//! for the whole build; a regular's next match is a few places on, a byte). Saved and read (the
//! checkpoint) as the list of numbers it holds, in the same bytes as that list. Not the counting
//! that makes them (see [`super`]).

use std::fmt;

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeSeq, Serializer};

/// Match places in the order they were added (see the module doc).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct MatchNumbers {
    /// Each place less the one before (the first less 0), zigzag-encoded (a place below the one
    /// before is held too, in more bytes) in little-endian groups of 7 bits, the high bit set
    /// on every byte of a number but its last.
    bytes: Vec<u8>,
    len: u32,
    /// The last place added (0 when none is).
    last: u32,
}

impl MatchNumbers {
    /// How many places it holds.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// It holds no place.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds place `mi` after the others.
    pub fn push(&mut self, mi: u32) {
        let step = i64::from(mi) - i64::from(self.last);
        let mut zigzag = ((step << 1) ^ (step >> 63)) as u64;
        loop {
            let low = (zigzag & 0x7f) as u8;
            zigzag >>= 7;
            if zigzag == 0 {
                self.bytes.push(low);
                break;
            }
            self.bytes.push(low | 0x80);
        }
        self.last = mi;
        self.len += 1;
    }

    /// The places, in the order they were added (from either end).
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            bytes: &self.bytes,
            front: 0,
            front_value: 0,
            back: self.bytes.len(),
            back_value: self.last,
            left: self.len as usize,
        }
    }

    /// Frees the room the list grew into.
    pub fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
    }
}

/// The step encoded in `bytes` (one number's bytes, its last without the high bit).
fn step(bytes: &[u8]) -> i64 {
    let zigzag = (bytes.iter().rev()).fold(0u64, |n, &b| (n << 7) | u64::from(b & 0x7f));
    (zigzag >> 1) as i64 ^ -((zigzag & 1) as i64)
}

/// The places of a [`MatchNumbers`] (see [`MatchNumbers::iter`]).
#[derive(Clone)]
pub struct Iter<'a> {
    bytes: &'a [u8],
    /// Where the next place from the front starts, and the place before it.
    front: usize,
    front_value: u32,
    /// Where the bytes of the next place from the back end, and that place.
    back: usize,
    back_value: u32,
    /// Places not yet given from either end.
    left: usize,
}

impl Iterator for Iter<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.left == 0 {
            return None;
        }
        let rest = self.bytes.get(self.front..)?;
        let len = rest.iter().position(|b| b & 0x80 == 0)? + 1;
        self.front_value = (i64::from(self.front_value) + step(&rest[..len])) as u32;
        self.front += len;
        self.left -= 1;
        Some(self.front_value)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<u32> {
        if self.left == 0 {
            return None;
        }
        let before = self.bytes.get(..self.back)?;
        // The place's bytes start after the last byte of the number before it.
        let start = (before.len().checked_sub(1)).map_or(0, |last| {
            before[..last]
                .iter()
                .rposition(|b| b & 0x80 == 0)
                .map_or(0, |p| p + 1)
        });
        let value = self.back_value;
        self.back_value = (i64::from(value) - step(&before[start..])) as u32;
        self.back = start;
        self.left -= 1;
        Some(value)
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl fmt::Debug for MatchNumbers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl FromIterator<u32> for MatchNumbers {
    fn from_iter<I: IntoIterator<Item = u32>>(places: I) -> MatchNumbers {
        let mut numbers = MatchNumbers::default();
        for mi in places {
            numbers.push(mi);
        }
        numbers
    }
}

impl Serialize for MatchNumbers {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for mi in self.iter() {
            seq.serialize_element(&mi)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for MatchNumbers {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<MatchNumbers, D::Error> {
        struct Places;
        impl<'de> Visitor<'de> for Places {
            type Value = MatchNumbers;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of match numbers")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MatchNumbers, A::Error> {
                let mut numbers = MatchNumbers::default();
                while let Some(mi) = seq.next_element::<u32>()? {
                    numbers.push(mi);
                }
                numbers.shrink_to_fit();
                Ok(numbers)
            }
        }
        deserializer.deserialize_seq(Places)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Places read back in order from the front, from the back and from both ends at once,
    /// whatever their steps (none, large, backwards, the ends of the range).
    #[test]
    fn places_read_back_from_either_end() {
        let cases: [&[u32]; 5] = [
            &[],
            &[0],
            &[3, 4, 4, 9, 200, 70_000, 70_001],
            &[u32::MAX, 0, u32::MAX, 5, 1 << 31],
            &[12, 7, 7, 1],
        ];
        for places in cases {
            let numbers: MatchNumbers = places.iter().copied().collect();
            assert_eq!(numbers.len(), places.len());
            assert_eq!(numbers.is_empty(), places.is_empty());
            assert_eq!(numbers.iter().collect::<Vec<_>>(), places);
            let back: Vec<u32> = numbers.iter().rev().collect();
            assert_eq!(back, places.iter().rev().copied().collect::<Vec<_>>());
            let mut both = numbers.iter();
            let (mut front, mut end) = (Vec::new(), Vec::new());
            while let Some(f) = both.next() {
                front.push(f);
                end.extend(both.next_back());
            }
            end.reverse();
            front.extend(end);
            assert_eq!(front, places);
            assert_eq!(numbers.iter().rev().take(2).len(), places.len().min(2));
        }
    }

    /// A regular's places take a byte each.
    #[test]
    fn near_places_take_a_byte() {
        let numbers: MatchNumbers = (0..10_000u32).map(|i| i * 3).collect();
        assert_eq!(numbers.bytes.len(), 10_000);
    }

    /// Saved, the places are the list of numbers, in the same bytes as a list of `u32`s, and
    /// read back the same.
    #[test]
    fn saved_as_the_list_of_numbers() {
        let places = vec![5u32, 9, 9, 1_000_000, 2];
        let numbers: MatchNumbers = places.iter().copied().collect();
        let bytes = rmp_serde::to_vec(&numbers).unwrap();
        assert_eq!(bytes, rmp_serde::to_vec(&places).unwrap());
        assert_eq!(
            rmp_serde::from_slice::<MatchNumbers>(&bytes).unwrap(),
            numbers
        );
        let json = serde_json::to_string(&numbers).unwrap();
        assert_eq!(json, "[5,9,9,1000000,2]");
        let posted = postcard::to_allocvec(&numbers).unwrap();
        assert_eq!(posted, postcard::to_allocvec(&places).unwrap());
        assert_eq!(
            postcard::from_bytes::<MatchNumbers>(&posted).unwrap(),
            numbers
        );
    }
}
