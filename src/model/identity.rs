//! Who is who across matches: a player is their plain name (colour codes removed, trimmed), unless
//! an alias rule from `site.toml` maps that name to another; with `identity = "guid"`, a player
//! whose log gives an account or client id ([`super::MatchPlayer::uid`]) is that id, keyed by
//! the first name it used. Assigns every identity a dense number.

use std::collections::{BTreeMap, HashMap};

use super::Match;
use super::names::plain_name;

/// A hash map for the identities' own lookups (none is ever iterated in a way that shows).
type FastMap<K, V> = HashMap<K, V, ahash::RandomState>;

/// Key used for players whose name is empty once colour codes are removed.
pub const UNNAMED: &str = "(unnamed)";

/// Alias rules: plain name -> plain canonical name.
#[derive(Debug, Clone, Default)]
pub struct Aliases {
    map: HashMap<String, String>,
    /// Players with an id are told apart by it (`identity = "guid"`).
    by_uid: bool,
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
        Aliases { map, by_uid: false }
    }

    /// The rules of a site: its `[aliases]` and its `identity`.
    pub fn for_config(config: &crate::config::Config) -> Self {
        Aliases {
            by_uid: config.identity == crate::config::IdentityMode::Guid,
            ..Aliases::new(&config.aliases)
        }
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
        let keys = Keys::assign(matches, aliases);
        // One hash lookup per match player gives its identity's slot (in order of first
        // appearance); the slots are renumbered in byte order of their keys at the end.
        // Hashed with ahash: 160,000 lookups on a public server's site, where the standard
        // hasher's cost showed among the build's steps.
        let mut slot_of: FastMap<&str, u32> = FastMap::default();
        // Per slot: the key, the latest name, and the names seen (with repeats, until the end).
        let mut slots: Vec<(&str, &str, Vec<&str>)> = Vec::new();
        let match_slots: Vec<Vec<u32>> = matches
            .iter()
            .map(|m| {
                m.players
                    .iter()
                    .map(|p| {
                        let key = keys.of(p, aliases);
                        let slot = *slot_of.entry(key).or_insert_with(|| {
                            slots.push((key, "", Vec::new()));
                            (slots.len() - 1) as u32
                        });
                        let (_, latest, seen) = &mut slots[slot as usize];
                        *latest = &p.name;
                        if seen.last() != Some(&p.name.as_str()) {
                            seen.push(&p.name);
                        }
                        slot
                    })
                    .collect()
            })
            .collect();
        drop(slot_of);
        let mut order: Vec<u32> = (0..slots.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| slots[a as usize].0.cmp(slots[b as usize].0));
        let mut number = vec![0u32; slots.len()];
        for (n, &slot) in order.iter().enumerate() {
            number[slot as usize] = n as u32;
        }
        let match_players = match_slots
            .into_iter()
            .map(|mut ids| {
                for id in &mut ids {
                    *id = number[*id as usize];
                }
                ids
            })
            .collect();
        let mut players: Vec<Identity> = order
            .iter()
            .map(|&slot| {
                let (key, name, seen) = &mut slots[slot as usize];
                seen.sort_unstable();
                seen.dedup();
                Identity {
                    key: key.to_string(),
                    name: name.to_string(),
                    names_seen: seen.iter().map(|s| s.to_string()).collect(),
                }
            })
            .collect();
        tell_apart(&mut players);
        Roster {
            players,
            match_players,
        }
    }
}

/// Two identities whose latest names read the same (two ids that used one name, under
/// `identity = "guid"`) are shown apart: the second and later, in key order, get ` (2)`, ` (3)`.
fn tell_apart(players: &mut [Identity]) {
    let mut by_name: FastMap<String, Vec<usize>> = FastMap::default();
    for (i, p) in players.iter().enumerate() {
        by_name.entry(plain_name(&p.name)).or_default().push(i);
    }
    for same in by_name.values().filter(|v| v.len() > 1) {
        for (n, &i) in same.iter().enumerate().skip(1) {
            players[i].name = format!("{} ({})", players[i].name, n + 1);
        }
    }
}

/// Keys of the players with an id, under `identity = "guid"`: the (aliased) first name each id
/// used, in match order, with ` (2)`, ` (3)`, ... when an earlier id took it. A player without an
/// id who uses a name an id took is that id's player; otherwise the name is the key.
struct Keys {
    by_uid: HashMap<u64, String>,
    /// Key names taken by ids, and the id that took each first.
    taken: HashMap<String, u64>,
}

impl Keys {
    fn assign(matches: &[Match], aliases: &Aliases) -> Keys {
        let mut keys = Keys {
            by_uid: HashMap::new(),
            taken: HashMap::new(),
        };
        if !aliases.by_uid {
            return keys;
        }
        for p in matches.iter().flat_map(|m| &m.players) {
            let Some(uid) = p.uid else { continue };
            if keys.by_uid.contains_key(&uid) {
                continue;
            }
            let base = aliases.key(&p.plain).to_string();
            let mut key = base.clone();
            let mut n = 1;
            while keys.taken.contains_key(&key) {
                n += 1;
                key = format!("{base} ({n})");
            }
            keys.taken.insert(key.clone(), uid);
            keys.by_uid.insert(uid, key);
        }
        keys
    }

    /// The identity key of a match player.
    fn of<'a>(&'a self, p: &'a super::MatchPlayer, aliases: &'a Aliases) -> &'a str {
        if let Some(key) = p.uid.and_then(|u| self.by_uid.get(&u)) {
            return key;
        }
        let name = aliases.key(&p.plain);
        match self.taken.get(name) {
            Some(uid) => &self.by_uid[uid],
            None => name,
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

#[cfg(test)]
mod uid_tests {
    use super::*;
    use crate::model::{Match, Team};

    fn game(players: &[(&str, Option<u64>)]) -> Match {
        let names: Vec<(&str, Team)> = players.iter().map(|(n, _)| (*n, Team::Free)).collect();
        let mut m = crate::testdata::bare_match("ffa", &names);
        for (p, (_, uid)) in m.players.iter_mut().zip(players) {
            p.uid = *uid;
        }
        m
    }

    #[test]
    fn guid_identity_tells_a_name_thief_apart() {
        let matches = [
            game(&[("[ACE]Boss", Some(1)), ("bot", None)]),
            // Someone else joins as [ACE]Boss; the real one renamed himself.
            game(&[("[ACE]Boss", Some(2)), ("TheBoss", Some(1))]),
            // A log without ids: the name goes to the id that took it first.
            game(&[("[ACE]Boss", None)]),
        ];
        let cfg = crate::config::Config {
            identity: crate::config::IdentityMode::Guid,
            ..Default::default()
        };
        let r = Roster::build(&matches, &Aliases::for_config(&cfg));
        let keys: Vec<&str> = r.players.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["[ACE]Boss", "[ACE]Boss (2)", "bot"]);
        // Two players shown with one name are told apart on the pages too.
        assert_eq!(r.players[1].name, "[ACE]Boss (2)");
        // Id 1 was last seen (by name, in the log without ids) as [ACE]Boss; before, as TheBoss.
        assert_eq!(r.players[0].name, "[ACE]Boss");
        assert!(r.players[0].names_seen.contains(&"TheBoss".to_string()));
        assert_eq!(r.match_players[1], [1, 0]);
        assert_eq!(r.match_players[2], [0]);
        // By name (the default), the thief inherits the stats.
        let r = Roster::build(&matches, &Aliases::default());
        assert_eq!(r.match_players[1][0], r.match_players[0][0]);
    }
}
