//! [`PathSet`]: a set of site-relative paths held as one text, for the files of a published
//! site (100,000 on a public server's site). Not the paths' keys themselves (see
//! [`super::safe_relative`]).

/// A set of output paths (as [`super::safe_relative`] keys them): their bytes one after
/// another in one text, found through a table of their places. A set of strings held a string
/// and a slot of 24 bytes per path, grown by doubling: 5.2 MB for the 65,000 pages of a site
/// of 64,000 matches (issue 41), this about 3 MB, in three allocations rather than a
/// small one per path kept beside the reading of the logs.
#[derive(Default)]
pub struct PathSet {
    /// Every path's bytes, in the order they were added.
    text: String,
    /// Where each path ends in `text` (it starts where the one before ends).
    ends: Vec<usize>,
    /// An open-addressed table (a power of two of slots, at most half full, probed one slot
    /// after another): each slot holds a path's number plus one, or 0 when empty.
    slots: Vec<u32>,
    /// The hash of a path, the same for the set's life.
    hasher: ahash::RandomState,
}

impl PathSet {
    /// How many paths the set holds.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// The set holds no path.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Whether the set holds `path`.
    pub fn contains(&self, path: &str) -> bool {
        self.find(path).is_ok()
    }

    /// Adds `path`; false when it was there already. A set of `u32::MAX - 1` paths takes no
    /// more (a site has hundreds of thousands of files at most).
    pub fn insert(&mut self, path: &str) -> bool {
        if self.find(path).is_ok() {
            return false;
        }
        let Ok(number) = u32::try_from(self.ends.len() + 1) else {
            return false;
        };
        if number == u32::MAX {
            return false;
        }
        if (self.ends.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        self.text.push_str(path);
        self.ends.push(self.text.len());
        // The table has room (grown above), so the probe meets an empty slot.
        if let Err(slot) = self.find(path) {
            self.slots[slot] = number;
        }
        true
    }

    /// Frees the room the set grew into beyond its paths (kept for the whole build once
    /// complete: the text's doubling held up to 4 MB for 2 MB of paths).
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    /// Every path, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.ends.len()).map(|i| self.path(i))
    }

    /// Path number `i`.
    fn path(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }

    /// The slot holding `path`, else the empty slot where it would go.
    fn find(&self, path: &str) -> Result<usize, usize> {
        if self.slots.is_empty() {
            return Err(0);
        }
        let mask = self.slots.len() - 1;
        let mut slot = self.hasher.hash_one(path) as usize & mask;
        loop {
            match self.slots[slot] {
                0 => return Err(slot),
                n if self.path(n as usize - 1) == path => return Ok(slot),
                _ => slot = (slot + 1) & mask,
            }
        }
    }

    /// Doubles the table (at least 16 slots) and places every path again.
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(16);
        self.slots = vec![0; size];
        for i in 0..self.ends.len() {
            if let Err(slot) = self.find(self.path(i)) {
                // At most `u32::MAX - 1` paths (see `insert`).
                self.slots[slot] = (i + 1) as u32;
            }
        }
    }
}

impl<S: AsRef<str>> FromIterator<S> for PathSet {
    fn from_iter<I: IntoIterator<Item = S>>(paths: I) -> PathSet {
        let mut set = PathSet::default();
        for path in paths {
            set.insert(path.as_ref());
        }
        set.shrink_to_fit();
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn holds_each_path_once_and_finds_every_one_it_holds_and_no_other() {
        let paths: Vec<String> = (0..5000)
            .map(|n| match n % 3 {
                0 => format!("matches/{n:x}.html"),
                1 => format!("players/p{n}.html"),
                // Paths that are prefixes of others, and the empty path.
                _ => "matches/".repeat(n % 4),
            })
            .collect();
        let set: PathSet = paths.iter().collect();
        let distinct: HashSet<&str> = paths.iter().map(String::as_str).collect();
        assert_eq!(set.len(), distinct.len());
        assert!(distinct.iter().all(|p| set.contains(p)));
        let listed: HashSet<&str> = set.iter().collect();
        assert_eq!(listed, distinct);
        assert!(!set.contains("matches/1.htm"));
        assert!(!set.contains("players/p4.html/"));
        let mut shrunk = set;
        shrunk.shrink_to_fit();
        assert!(distinct.iter().all(|p| shrunk.contains(p)) && !shrunk.contains("a"));
        let mut again = PathSet::default();
        assert!(again.insert("a/b.html"));
        assert!(!again.insert("a/b.html"));
        assert!(again.insert("a/b.htm"));
        assert_eq!(again.iter().collect::<Vec<_>>(), ["a/b.html", "a/b.htm"]);
    }

    #[test]
    fn an_empty_set_holds_nothing() {
        let set = PathSet::default();
        assert!(set.is_empty() && !set.contains("") && !set.contains("index.html"));
        assert_eq!(set.iter().count(), 0);
    }
}
