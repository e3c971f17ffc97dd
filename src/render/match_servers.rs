//! [`MatchServers`]: each match's server name on the site, held as its place among the distinct
//! names (4 bytes a match), and each server's matches gathered into one list. Not where a
//! match's server name comes from (`pages::server`: a `[[servers]]` entry or its
//! `sv_hostname`).

use std::collections::HashMap;

/// Each match's server name, as a number into the distinct names in byte order. (A shared
/// name a match, 8 bytes, and a list of positions per server of 8 bytes a match, grown by
/// doubling, were 1 MB of the pages' end at 64,000 matches, issue 41.)
pub struct MatchServers {
    /// The distinct names, in byte order.
    names: Vec<String>,
    /// Each match's name, as its place in `names`.
    of_match: Vec<u32>,
}

/// Every server's matches, in history order, as one list: server `s` (its place among the
/// names) has `positions[starts[s]..starts[s + 1]]`.
pub struct ServerMatches {
    starts: Vec<u32>,
    positions: Vec<u32>,
}

impl MatchServers {
    /// The servers of matches named, in history order, by `names` (one per match; a name
    /// repeated is held once).
    pub fn new<N: AsRef<str>>(names: impl Iterator<Item = N>) -> MatchServers {
        let mut numbers: HashMap<String, u32> = HashMap::new();
        let mut of_match: Vec<u32> = Vec::with_capacity(names.size_hint().0);
        for name in names {
            let name = name.as_ref();
            let n = match numbers.get(name) {
                Some(&n) => n,
                None => {
                    let n = u32::try_from(numbers.len()).expect("fewer servers than 2^32");
                    numbers.insert(name.to_string(), n);
                    n
                }
            };
            of_match.push(n);
        }
        // Numbered again in byte order of name.
        let mut found: Vec<(String, u32)> = numbers.into_iter().collect();
        found.sort_unstable();
        let mut renumber = vec![0u32; found.len()];
        for (place, &(_, n)) in found.iter().enumerate() {
            renumber[n as usize] = place as u32;
        }
        for n in &mut of_match {
            *n = renumber[*n as usize];
        }
        of_match.shrink_to_fit();
        MatchServers {
            names: found.into_iter().map(|(name, _)| name).collect(),
            of_match,
        }
    }

    /// The server name of match `i`.
    pub fn name(&self, i: usize) -> &str {
        &self.names[self.of_match[i] as usize]
    }

    /// How many matches it names a server of.
    pub fn len(&self) -> usize {
        self.of_match.len()
    }

    /// The distinct names, in byte order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Each server's matches (a count per server, then a place per match).
    pub fn by_server(&self) -> ServerMatches {
        let mut starts = vec![0u32; self.names.len() + 1];
        for &n in &self.of_match {
            starts[n as usize + 1] += 1;
        }
        for s in 1..starts.len() {
            starts[s] += starts[s - 1];
        }
        let mut next = starts.clone();
        let mut positions = vec![0u32; self.of_match.len()];
        for (i, &n) in self.of_match.iter().enumerate() {
            positions[next[n as usize] as usize] = i as u32;
            next[n as usize] += 1;
        }
        ServerMatches { starts, positions }
    }
}

impl ServerMatches {
    /// The positions of server `s`'s matches, in history order.
    pub fn of(&self, s: usize) -> &[u32] {
        &self.positions[self.starts[s] as usize..self.starts[s + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names numbered in byte order whatever order they come in; each server's matches in
    /// history order.
    #[test]
    fn names_in_byte_order_and_matches_by_server() {
        let servers = MatchServers::new(["b", "a", "b", "c", "a", "b"].into_iter());
        assert_eq!(servers.names(), ["a", "b", "c"]);
        assert_eq!(servers.len(), 6);
        let names: Vec<&str> = (0..6).map(|i| servers.name(i)).collect();
        assert_eq!(names, ["b", "a", "b", "c", "a", "b"]);
        let by = servers.by_server();
        assert_eq!(by.of(0), [1, 4]);
        assert_eq!(by.of(1), [0, 2, 5]);
        assert_eq!(by.of(2), [3]);
        let none = MatchServers::new(std::iter::empty::<&str>());
        assert!(none.names().is_empty() && none.by_server().positions.is_empty());
    }
}
