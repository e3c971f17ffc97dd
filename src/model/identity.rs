//! Who is who across matches: a player is their plain name (colour codes removed, trimmed), unless
//! an alias rule from `site.toml` maps that name to another. Assigns every identity a dense number.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::Match;
use super::names::plain_name;

/// Key used for players whose name is empty once colour codes are removed.
pub const UNNAMED: &str = "(unnamed)";

/// Alias rules: plain name -> plain canonical name.
#[derive(Debug, Clone, Default)]
pub struct Aliases {
    map: HashMap<String, String>,
}

impl Aliases {
    /// Builds the rules from `[aliases]`: canonical name -> extra names. Colour codes in either side
    /// are ignored, as they are for identity.
    pub fn new(config: &BTreeMap<String, Vec<String>>) -> Self {
        let mut map = HashMap::new();
        for (canonical, extras) in config {
            let canonical = plain_name(canonical);
            for extra in extras {
                map.insert(plain_name(extra), canonical.clone());
            }
        }
        Aliases { map }
    }

    /// The identity key of a plain name.
    pub fn key<'a>(&'a self, plain: &'a str) -> &'a str {
        let key = self.map.get(plain).map(String::as_str).unwrap_or(plain);
        if key.is_empty() { UNNAMED } else { key }
    }
}

/// One player identity across all matches.
#[derive(Debug, Clone, PartialEq)]
pub struct Identity {
    /// The identity key (plain name after aliases).
    pub key: String,
    /// The latest name used, colour codes kept.
    pub name: String,
    /// Every name (with colour codes) seen for this identity, sorted.
    pub names_seen: Vec<String>,
}

/// All identities, numbered in byte order of their key, plus each match's player -> identity map.
#[derive(Debug, Clone, Default)]
pub struct Roster {
    pub players: Vec<Identity>,
    /// For each match (same order as given), the identity number of each of its players.
    pub match_players: Vec<Vec<u32>>,
}

impl Roster {
    /// Resolves identities for `matches`, which must be in chronological order (the latest name
    /// used wins as the display name).
    pub fn build(matches: &[Match], aliases: &Aliases) -> Roster {
        let mut latest: BTreeMap<&str, &str> = BTreeMap::new();
        let mut seen: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for m in matches {
            for p in &m.players {
                let key = aliases.key(&p.plain);
                latest.insert(key, &p.name);
                seen.entry(key).or_default().insert(&p.name);
            }
        }
        let index: HashMap<&str, u32> = latest
            .keys()
            .enumerate()
            .map(|(i, k)| (*k, i as u32))
            .collect();
        let match_players = matches
            .iter()
            .map(|m| {
                m.players
                    .iter()
                    .map(|p| index[aliases.key(&p.plain)])
                    .collect()
            })
            .collect();
        let players = latest
            .iter()
            .map(|(key, name)| Identity {
                key: key.to_string(),
                name: name.to_string(),
                names_seen: seen[key].iter().map(|s| s.to_string()).collect(),
            })
            .collect();
        Roster {
            players,
            match_players,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_map_plain_names() {
        let mut cfg = BTreeMap::new();
        cfg.insert(
            "^1Main".to_string(),
            vec!["Alt".to_string(), "^2Other".into()],
        );
        let a = Aliases::new(&cfg);
        assert_eq!(a.key("Alt"), "Main");
        assert_eq!(a.key("Other"), "Main");
        assert_eq!(a.key("Main"), "Main");
        assert_eq!(a.key("Nobody"), "Nobody");
        assert_eq!(a.key(""), UNNAMED);
    }
}
