//! Counts by name (a player's frags by weapon, matches by map, awards) kept as numbers into one
//! table of the names ([`Names`]), not as a `BTreeMap<String, u32>` per player: a crowd's
//! 63,000 players name the same dozen weapons and maps, and each map of strings was a tree node
//! and a string per entry to allocate, fill and read back from the ratings checkpoint on every
//! build. The lists still go in byte order of name, as those maps did.

use serde::{Deserialize, Serialize};

/// The names that [`NameCounts`] count, each held once, numbered in the order first counted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Names {
    names: Vec<String>,
    /// Every number, in byte order of its name (to find a name's number).
    by_name: Vec<u32>,
}

impl Names {
    /// The number of `name`, given a new one when it is not held yet.
    pub fn id(&mut self, name: &str) -> u32 {
        let names = &self.names;
        match (self.by_name).binary_search_by(|&i| names[i as usize].as_str().cmp(name)) {
            Ok(at) => self.by_name[at],
            Err(at) => {
                let id = self.names.len() as u32;
                self.names.push(name.to_string());
                self.by_name.insert(at, id);
                id
            }
        }
    }

    /// The name numbered `id` (one this table gave).
    pub fn name(&self, id: u32) -> &String {
        &self.names[id as usize]
    }

    /// Whether the table is one this module made (read back from a file, it is checked before
    /// use): `by_name` holds every number once, in byte order of distinct names.
    pub fn sound(&self) -> bool {
        self.by_name.len() == self.names.len()
            && self
                .by_name
                .iter()
                .all(|&i| (i as usize) < self.names.len())
            && (self.by_name.windows(2))
                .all(|w| self.names[w[0] as usize] < self.names[w[1] as usize])
    }

    /// Number of names held.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no name is held.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// Counts by name: (number in the [`Names`] of the same counts, count) in byte order of name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NameCounts(Vec<(u32, u32)>);

impl NameCounts {
    /// Adds `n` to the count of the name numbered `id` in `names`.
    pub fn add(&mut self, id: u32, n: u32, names: &Names) {
        // Most adds find their name among a few (a player's dozen weapons): looked for by
        // number, no string compared; a new name goes in its place by name.
        if let Some((_, count)) = self.0.iter_mut().find(|(i, _)| *i == id) {
            *count += n;
            return;
        }
        let name = names.name(id);
        let at = (self.0).partition_point(|&(i, _)| names.name(i) < name);
        self.0.insert(at, (id, n));
    }

    /// The names (of `names`, which numbered them) and their counts, in byte order of name.
    pub fn iter<'a>(&'a self, names: &'a Names) -> impl Iterator<Item = (&'a String, &'a u32)> {
        self.0.iter().map(|(id, n)| (names.name(*id), n))
    }

    /// The counts, in byte order of name.
    pub fn values(&self) -> impl Iterator<Item = &u32> {
        self.0.iter().map(|(_, n)| n)
    }

    /// Whether every number is one of a table of `len` names (read back from a file, the counts
    /// are checked before use).
    pub fn within(&self, len: usize) -> bool {
        self.0.iter().all(|&(id, _)| (id as usize) < len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_go_in_byte_order_of_name_whatever_the_numbers() {
        let mut names = Names::default();
        let mut counts = NameCounts::default();
        for (name, n) in [("RL", 2), ("MG", 1), ("RL", 3), ("BFG", 4), ("MG", 1)] {
            let id = names.id(name);
            counts.add(id, n, &names);
        }
        assert_eq!(
            counts.iter(&names).collect::<Vec<_>>(),
            [
                (&"BFG".to_string(), &4),
                (&"MG".to_string(), &2),
                (&"RL".to_string(), &5)
            ]
        );
        assert_eq!(counts.values().sum::<u32>(), 11);
        assert_eq!((names.id("RL"), names.id("MG"), names.id("BFG")), (0, 1, 2));
        assert!(names.sound() && counts.within(names.len()) && !counts.within(2));
        let bytes = postcard::to_allocvec(&(&names, &counts)).unwrap();
        assert_eq!(
            postcard::from_bytes::<(Names, NameCounts)>(&bytes).unwrap(),
            (names.clone(), counts)
        );
        let mut swapped = names;
        swapped.by_name.swap(0, 1);
        assert!(!swapped.sound());
    }
}
