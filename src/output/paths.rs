//! Site-relative paths held by their keys, never as text: [`PathKey`], and [`KeyTable`], values
//! found by the key of their path. What a build holds of the files of a published site (100,000
//! on a public server's site): which the staging folder mirrors ([`PathKeys`]); and the site's
//! paths as one text ([`PathList`]) while it is published. Not the paths' text keys themselves
//! (see [`super::safe_relative`]), nor the stamps' (see [`super::stamps`]), which are
//! [`short_key`]s.

/// A site-relative path's key: two 64-bit hashes of it (XXH64, seeds 0 and 1), so two paths of
/// a site share one with odds of about one in 2^128 a pair. The first is the hash that
/// [`crate::hashed_pairs::HashedPairs`] holds a text by.
pub type PathKey = (u64, u64);

/// The key of the site-relative path `rel` (as [`super::safe_relative`] makes it).
pub fn key(rel: &str) -> PathKey {
    (
        twox_hash::XxHash64::oneshot(0, rel.as_bytes()),
        twox_hash::XxHash64::oneshot(1, rel.as_bytes()),
    )
}

/// The first hash of the key of the site-relative path `rel` alone: a key for values that are
/// checked against the file they describe before use (a stamp holds the file's inode), so that
/// two paths sharing it (odds of about one in 2^64 a pair) cost only a file read back.
pub fn short_key(rel: &str) -> u64 {
    twox_hash::XxHash64::oneshot(0, rel.as_bytes())
}

/// A path's key as a [`KeyTable`] holds it: the first hash whole and the low 32 bits of the
/// second, 12 bytes (where the two hashes took 16: the mirror of the 65,000 files of 64,000
/// matches held 1.1 MB, now 0.8, heaptrack, issue 41), so two paths of a site share one with odds of about one
/// in 2^96 a pair. Ordered as the first hash, then the rest.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct HeldKey([u32; 3]);

impl HeldKey {
    fn of(key: &PathKey) -> HeldKey {
        HeldKey([(key.0 >> 32) as u32, key.0 as u32, key.1 as u32])
    }

    /// The first hash of the key.
    fn first(self) -> u64 {
        u64::from(self.0[0]) << 32 | u64::from(self.0[1])
    }
}

/// Values by the key of their path, looked up, never added to: a list of exactly their number
/// (a map's table, a power of two, was up to twice as large), sorted by key, with where each
/// group of keys of equal top bits starts, so a lookup reads a few entries.
pub struct KeyTable<V> {
    /// The entries, sorted by key, one per key.
    entries: Vec<(HeldKey, V)>,
    /// Where each group starts in `entries`, and their number at the end.
    starts: Vec<u32>,
    /// The number of top bits of a key that name its group: two to four entries a group.
    bits: u32,
}

impl<V> Default for KeyTable<V> {
    fn default() -> KeyTable<V> {
        KeyTable::new(Vec::new())
    }
}

impl<V> KeyTable<V> {
    /// The table of `entries`; of entries with one key, the first is kept.
    pub fn new(entries: Vec<(PathKey, V)>) -> KeyTable<V> {
        let mut entries = held(entries);
        entries.sort_by_key(|(key, _)| *key);
        KeyTable::of_sorted(entries)
    }

    /// The table of `entries` whose keys differ but where two texts' hashes meet (a site's
    /// paths): of entries with one key, any one is kept. Sorted in place, where the stable
    /// sort of [`KeyTable::new`] takes as much room again for a while (0.8 MB for the
    /// mirror of a site of 65,000 files, issue 41). The keys given are held beside the
    /// table's while it is made (1 MB more at 65,000 files: the mirror's is made while the
    /// logs are read, whose peak is below the pages').
    pub fn new_any(entries: Vec<(PathKey, V)>) -> KeyTable<V> {
        let mut entries = held(entries);
        entries.sort_unstable_by_key(|(key, _)| *key);
        KeyTable::of_sorted(entries)
    }

    /// The table of `entries`, sorted by key; of entries with one key, the first is kept.
    fn of_sorted(mut entries: Vec<(HeldKey, V)>) -> KeyTable<V> {
        entries.dedup_by(|later, kept| later.0 == kept.0);
        entries.shrink_to_fit();
        // Two to four entries a group: at one or less a group's `starts` entry took half as
        // much as a key again (0.5 MB of a build's peak for a table of 65,000 files at 64,000
        // matches, issue 41); a lookup reads a few keys side by side.
        let bits = (usize::BITS - entries.len().leading_zeros())
            .saturating_sub(2)
            .clamp(1, 24);
        // Each group's number of entries, then where each starts.
        let mut starts = vec![0u32; (1 << bits) + 1];
        for (key, _) in &entries {
            starts[group(key.first(), bits) + 1] += 1;
        }
        for g in 1..starts.len() {
            starts[g] += starts[g - 1];
        }
        KeyTable {
            entries,
            starts,
            bits,
        }
    }

    /// How many keys it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// It holds no key.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value of `key`, if it holds one.
    pub fn get(&self, key: &PathKey) -> Option<&V> {
        let key = HeldKey::of(key);
        (self.group_of(key.first()).iter())
            .find(|(k, _)| *k == key)
            .map(|(_, value)| value)
    }

    /// Where `key` is among the keys it holds (from 0 to [`KeyTable::len`]), if it holds it.
    pub fn position(&self, key: &PathKey) -> Option<usize> {
        let key = HeldKey::of(key);
        let g = group(key.first(), self.bits);
        let from = *self.starts.get(g)? as usize;
        let at = (self.group_of(key.first()).iter()).position(|(k, _)| *k == key)?;
        Some(from + at)
    }

    /// Whether some key's first hash is `first` (a path's hash as
    /// [`crate::hashed_pairs::HashedPairs`] holds it).
    pub fn has_first(&self, first: u64) -> bool {
        self.group_of(first).iter().any(|(k, _)| k.first() == first)
    }

    /// The entries whose key's first hash has the top bits of `first`.
    fn group_of(&self, first: u64) -> &[(HeldKey, V)] {
        let g = group(first, self.bits);
        let (Some(&from), Some(&to)) = (self.starts.get(g), self.starts.get(g + 1)) else {
            return &[];
        };
        self.entries
            .get(from as usize..to as usize)
            .unwrap_or_default()
    }
}

/// `entries` with their keys as a table holds them.
fn held<V>(entries: Vec<(PathKey, V)>) -> Vec<(HeldKey, V)> {
    (entries.into_iter())
        .map(|(key, value)| (HeldKey::of(&key), value))
        .collect()
}

/// The group of a key whose first hash is `first`: its top `bits` bits.
fn group(first: u64, bits: u32) -> usize {
    (first >> (64 - bits)) as usize
}

/// A set of site-relative paths, by their keys: about 13 bytes a path, where their text in one
/// string took about 45 (2.9 MB of a build's peak at 64,000 matches, issue 41). Its paths are
/// not listed: who needs them walks the folder.
pub type PathKeys = KeyTable<()>;

impl PathKeys {
    /// Whether it holds the path `rel`.
    pub fn contains(&self, rel: &str) -> bool {
        self.get(&key(rel)).is_some()
    }

    /// Where the path `rel` is among the paths it holds (see [`KeyTable::position`]).
    pub fn position_of(&self, rel: &str) -> Option<usize> {
        self.position(&key(rel))
    }
}

impl<S: AsRef<str>> FromIterator<S> for PathKeys {
    fn from_iter<I: IntoIterator<Item = S>>(paths: I) -> PathKeys {
        KeyTable::new_any(paths.into_iter().map(|p| (key(p.as_ref()), ())).collect())
    }
}

/// Site-relative paths in one text, one after another, with where each ends: about 36 bytes a
/// path, where a `String` each took about 56, and publishing 65,000 pages held the list of
/// them beside the pages' (resident memory rose from 44 MB to 51 while an empty site of 64,000
/// matches was published with these lists, a set of the paths and a copy of each written one;
/// 43 to 46 without them: issue 41).
#[derive(Default)]
pub struct PathList {
    text: String,
    ends: Vec<usize>,
}

impl PathList {
    /// An empty list with room for `paths` paths.
    pub fn with_capacity(paths: usize) -> PathList {
        PathList {
            text: String::new(),
            ends: Vec::with_capacity(paths),
        }
    }

    /// Adds `path` at the end.
    pub fn push(&mut self, path: &str) {
        self.text.push_str(path);
        self.ends.push(self.text.len());
    }

    /// The `i`-th path.
    ///
    /// # Panics
    /// When there is no `i`-th path.
    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }

    /// How many paths it holds.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// The paths in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Gives back the room it grew into beyond its paths.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

impl<'a> FromIterator<&'a str> for PathList {
    fn from_iter<I: IntoIterator<Item = &'a str>>(paths: I) -> PathList {
        let mut list = PathList::default();
        for path in paths {
            list.push(path);
        }
        list
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Every path is found by its key once, and no other path is: for none, one and many
    /// paths, given twice, several sharing a group, prefixes of one another and the empty
    /// path among them.
    #[test]
    fn holds_each_path_once_and_finds_every_one_it_holds_and_no_other() {
        for count in [0usize, 1, 2, 3, 1000, 5000] {
            let paths: Vec<String> = (0..count)
                .map(|n| match n % 3 {
                    0 => format!("matches/{n:x}.html"),
                    1 => format!("players/p{n}.html"),
                    _ => "matches/".repeat(n % 4),
                })
                .collect();
            let set: PathKeys = paths.iter().chain(&paths).collect();
            let distinct: HashSet<&str> = paths.iter().map(String::as_str).collect();
            assert_eq!(set.len(), distinct.len(), "{count}");
            assert!(distinct.iter().all(|p| set.contains(p)), "{count}");
            let mut positions: Vec<usize> =
                distinct.iter().filter_map(|p| set.position_of(p)).collect();
            positions.sort_unstable();
            assert_eq!(positions, (0..set.len()).collect::<Vec<_>>(), "{count}");
            assert_eq!(set.position_of("matches/1.htm"), None);
            assert!(!set.contains("matches/1.htm") && !set.contains("players/p4.html/"));
            assert_eq!(set.get(&(u64::MAX, 0)), None);
            for p in &distinct {
                assert!(set.has_first(key(p).0));
            }
            assert!(!set.has_first(key("a").0));
        }
    }

    /// A list gives back each path pushed, in order, empty ones and repeats among them.
    #[test]
    fn a_path_list_gives_back_its_paths_in_order() {
        let paths = [
            "index.html",
            "",
            "matches/a b.html",
            "index.html",
            "é/ü.html",
        ];
        let mut list = PathList::with_capacity(2);
        assert!(list.len() == 0 && list.iter().next().is_none());
        for p in paths {
            list.push(p);
        }
        list.shrink_to_fit();
        assert_eq!(list.len(), paths.len());
        assert_eq!(list.iter().collect::<Vec<_>>(), paths);
        assert_eq!(
            (list.get(0), list.get(2), list.get(4)),
            (paths[0], paths[2], paths[4])
        );
    }

    /// Values are found by their keys; of one key given twice, the first value stays.
    #[test]
    fn values_are_found_by_their_keys() {
        let table = KeyTable::new(vec![(key("a"), 1), (key("b"), 2), (key("a"), 3)]);
        assert_eq!(
            (table.get(&key("a")), table.get(&key("b"))),
            (Some(&1), Some(&2))
        );
        assert_eq!((table.len(), table.get(&key("c"))), (2, None));
        assert_eq!(short_key("a"), key("a").0);
        // Held in 12 bytes a path: a key differing in the second hash's low bits is another.
        assert_eq!(std::mem::size_of::<(HeldKey, ())>(), 12);
        let (first, second) = key("a");
        assert_eq!(table.get(&(first, second ^ 1)), None);
        assert_eq!(table.get(&(first ^ 1, second)), None);
        let empty = PathKeys::default();
        assert!(empty.is_empty() && !empty.contains("") && !empty.contains("index.html"));
    }
}
