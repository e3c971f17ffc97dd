//! [`HashedPairs`]: values looked up by a text that is never held, only its 64-bit hash: the
//! state's page keys (page path, key) and match numbers (match id, number), read from the
//! state's index at the start of a build and looked up while the pages are made. Not a set of
//! the texts themselves (see [`crate::output::paths::PathKeys`], which holds site paths by two
//! hashes, the first of them this one).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};

/// Values by the hash of their text, sorted by hash: 16 bytes a pair. A list of
/// `(String, value)` pairs held each text in an allocation of its own beside its slot (about
/// 60 bytes a page path or a match id, held through the whole reading of the logs), and a map
/// of them as much again once the pages began (issue 41).
///
/// Two texts with one hash would share a value (the later pair's): with 64-bit hashes, about
/// one chance in 10^10 for a history of 100,000 matches. A page is kept only when its key
/// matches too, and a number only names an undated match.
#[derive(Clone, PartialEq, Eq)]
pub struct HashedPairs<V> {
    /// (hash of the text, value), by hash; one pair per hash.
    pairs: Vec<(u64, V)>,
}

impl<V> Default for HashedPairs<V> {
    fn default() -> Self {
        HashedPairs { pairs: Vec::new() }
    }
}

impl<V: Copy> HashedPairs<V> {
    /// The pairs `pairs`, the later value kept of a text given twice (as a map filled in
    /// order keeps it).
    pub fn from_pairs<'t>(pairs: impl IntoIterator<Item = (&'t str, V)>) -> HashedPairs<V> {
        HashedPairs::from_hashed(pairs.into_iter().map(|(t, v)| (text_hash(t), v)).collect())
    }

    /// The pairs of hashes `pairs` (in the order they were given), the later value of a hash
    /// kept.
    fn from_hashed(mut pairs: Vec<(u64, V)>) -> HashedPairs<V> {
        // Stable: of equal hashes the last given stays last, and its value is the one kept.
        pairs.sort_by_key(|&(hash, _)| hash);
        pairs.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 = later.1;
            }
            same
        });
        pairs.shrink_to_fit();
        HashedPairs { pairs }
    }

    /// The value of `text`, if it has one.
    pub fn get(&self, text: &str) -> Option<V> {
        self.of_hash(text_hash(text))
    }

    /// The value of the text whose hash is `hash`, if it has one.
    fn of_hash(&self, hash: u64) -> Option<V> {
        let at = self.pairs.binary_search_by_key(&hash, |&(h, _)| h).ok()?;
        Some(self.pairs[at].1)
    }

    /// The pairs whose text's hash `keep` keeps.
    pub fn only_hashes(&self, keep: impl Fn(u64) -> bool) -> HashedPairs<V> {
        let pairs = self.pairs.iter().filter(|&&(h, _)| keep(h));
        HashedPairs {
            pairs: pairs.copied().collect(),
        }
    }

    /// Every value, in no particular order.
    pub fn values(&self) -> impl Iterator<Item = V> + '_ {
        self.pairs.iter().map(|&(_, v)| v)
    }

    /// How many texts have a value.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// No text has a value.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

impl<V: fmt::Debug> fmt::Debug for HashedPairs<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HashedPairs({} pairs)", self.pairs.len())
    }
}

/// The hash a text is held by (XXH64: stable, so a test can name one; never stored).
fn text_hash(text: &str) -> u64 {
    let mut h = crate::hash::StreamHasher::new();
    h.raw(text.as_bytes());
    h.finish()
}

/// Read from a list of `(text, value)` pairs (as `Vec<(String, V)>` is), hashing each text as
/// it is read: no text is copied.
impl<'de, V: Copy + Deserialize<'de>> Deserialize<'de> for HashedPairs<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Pairs<V>(PhantomData<V>);
        impl<'de, V: Copy + Deserialize<'de>> Visitor<'de> for Pairs<V> {
            type Value = HashedPairs<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of (text, value) pairs")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                // The count a file claims is not trusted further than a bounded start.
                let mut pairs = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
                while let Some((Hashed(hash), value)) = seq.next_element::<(Hashed, V)>()? {
                    pairs.push((hash, value));
                }
                Ok(HashedPairs::from_hashed(pairs))
            }
        }
        deserializer.deserialize_seq(Pairs(PhantomData))
    }
}

/// A text read as its [`text_hash`].
struct Hashed(u64);

impl<'de> Deserialize<'de> for Hashed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = Hashed;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a text")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Hashed, E> {
                Ok(Hashed(text_hash(text)))
            }
        }
        deserializer.deserialize_str(Text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each text finds its value, the later one of a text given twice; a text not given finds
    /// none.
    #[test]
    fn texts_find_their_values_the_later_of_two() {
        let pairs = HashedPairs::from_pairs([("c", 4), ("a", 9), ("b", 2), ("a", 7)]);
        assert_eq!(
            ["a", "b", "c", "d", ""].map(|t| pairs.get(t)),
            [Some(7), Some(2), Some(4), None, None]
        );
        assert_eq!(pairs.len(), 3);
        let mut values: Vec<u32> = pairs.values().collect();
        values.sort();
        assert_eq!(values, [2, 4, 7]);
        // The paths of a site, held by keys whose first hash is the one a text is held by.
        let present: crate::output::PathKeys = ["b", "d", "a"].into_iter().collect();
        let only = pairs.only_hashes(|h| present.has_first(h));
        assert_eq!(
            ["a", "b", "c", "d"].map(|t| only.get(t)),
            [Some(7), Some(2), None, None]
        );
        assert!(HashedPairs::<u32>::default().get("a").is_none());
    }

    /// Read from the bytes a list of `(String, value)` pairs is written as, in both of the
    /// state's encodings, equal to the pairs made from that list.
    #[test]
    fn read_from_a_list_of_pairs_as_written() {
        let list: Vec<(String, u64)> = (0..1000)
            .map(|i| (format!("matches/{i:016x}.html"), i * 7))
            .chain([
                ("index.html".to_string(), u64::MAX),
                ("index.html".to_string(), 1),
            ])
            .collect();
        let made = HashedPairs::from_pairs(list.iter().map(|(t, v)| (t.as_str(), *v)));
        let msgpack = rmp_serde::to_vec_named(&list).unwrap();
        let read: HashedPairs<u64> = rmp_serde::from_slice(&msgpack).unwrap();
        assert!(read == made);
        let postcard_bytes = postcard::to_allocvec(&list).unwrap();
        let read: HashedPairs<u64> = postcard::from_bytes(&postcard_bytes).unwrap();
        assert!(read == made);
        assert_eq!(read.get("index.html"), Some(1));
        assert_eq!(read.get("matches/00000000000003e7.html"), Some(999 * 7));
        assert_eq!(read.len(), 1001);
        // A list cut short is an error, not a shorter list.
        let cut = &msgpack[..msgpack.len() / 2];
        assert!(rmp_serde::from_slice::<HashedPairs<u64>>(cut).is_err());
    }
}
