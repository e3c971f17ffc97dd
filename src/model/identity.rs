//! Who is who across matches: a player is their plain name (colour codes removed, trimmed), unless
//! an alias rule from `site.toml` maps that name to another, or their log names an account. A
//! player whose log gives an authenticated account (a Steam id, a Call of Duty or Enemy Territory
//! GUID: [`super::logs_accounts`]) is that account, whatever `identity` says; with
//! `identity = "guid"`, so is a Quake 3-family player with a client id. Either id
//! ([`super::MatchPlayer::uid`]) is keyed by the first name it used. Bots are their name. Assigns
//! every identity a dense number.

use std::collections::{BTreeMap, HashMap};

use super::names::plain_name;
use super::{MatchList, Text, Who, WhoRef};

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
    pub match_players: super::match_ids::MatchIds,
    /// For each identity: a bot (every appearance of it is marked as one). Found as the
    /// players are resolved, not in a pass of its own (each pass over a packed history decodes
    /// every match).
    pub bots: Vec<bool>,
}

impl Roster {
    /// Resolves identities for `matches`, which must be in chronological order (the latest name
    /// used wins as the display name).
    pub fn build<'m>(matches: impl Into<MatchList<'m>>, aliases: &Aliases) -> Roster {
        use rayon::prelude::*;
        let matches: MatchList = matches.into();
        let keys = Keys::assign(matches, aliases);
        // The matches are cut into one run per thread, each resolved on its own (one hash
        // lookup per match player, which on a public server's site was a stretch of one busy
        // core); the runs' identities are then merged in match order, so the latest name is the
        // one of the last run that saw the identity. The identities are renumbered in byte
        // order of their keys at the end, so the order of the slots does not show.
        let run = matches
            .len()
            .div_ceil(rayon::current_num_threads().max(1))
            .max(1);
        let runs: Vec<Slots> = matches
            .par_chunks(run)
            .map(|chunk| Slots::of(chunk, &keys, aliases))
            .collect();
        let mut runs = runs.into_iter();
        let mut merged = runs.next().unwrap_or_default();
        for later in runs {
            merged.absorb(later);
        }
        Roster::numbered(merged)
    }

    /// The identities of `resolved`, numbered in byte order of their keys.
    fn numbered(resolved: Slots) -> Roster {
        use rayon::prelude::*;
        let Slots {
            mut slots,
            seen_as,
            match_slots,
            ..
        } = resolved;
        let mut order: Vec<u32> = (0..slots.len() as u32).collect();
        order.par_sort_unstable_by(|&a, &b| slots[a as usize].0.cmp(&slots[b as usize].0));
        let mut number = vec![0u32; slots.len()];
        for (n, &slot) in order.iter().enumerate() {
            number[slot as usize] = n as u32;
        }
        let mut match_players = super::match_ids::MatchIds::default();
        for ids in &match_slots {
            match_players.push(ids.iter().map(|&id| number[id as usize]));
        }
        drop(match_slots);
        match_players.shrink_to_fit();
        slots.par_iter_mut().for_each(|(_, _, seen)| {
            seen.sort_unstable();
            seen.dedup();
        });
        let mut players: Vec<Identity> = order
            .par_iter()
            .map(|&slot| {
                let (key, name, seen) = &slots[slot as usize];
                Identity {
                    key: key.to_string(),
                    name: name.to_string(),
                    names_seen: seen.iter().map(|s| s.to_string()).collect(),
                }
            })
            .collect();
        tell_apart(&mut players);
        let bots = (order.iter())
            .map(|&slot| seen_as[slot as usize] == (true, false))
            .collect();
        Roster {
            players,
            match_players,
            bots,
        }
    }
}

/// Identities resolved over a run of matches, before they are numbered: per slot the key, the
/// latest name and the names seen (with repeats, until the end), and each match player's slot.
#[derive(Default)]
struct Slots {
    slot_of: FastMap<Text, u32>,
    slots: Vec<(Text, Text, Vec<Text>)>,
    /// Per slot: seen as a bot, seen as a human.
    seen_as: Vec<(bool, bool)>,
    match_slots: Vec<Vec<u32>>,
}

impl Slots {
    /// The slot of `key`, a new one (in order of first appearance) when it has none yet.
    fn slot(&mut self, key: &str) -> u32 {
        if let Some(&slot) = self.slot_of.get(key) {
            return slot;
        }
        self.add(Text::unshared(key))
    }

    /// A new slot for `key` (which has none).
    fn add(&mut self, key: Text) -> u32 {
        self.slots.push((key.clone(), Text::default(), Vec::new()));
        self.seen_as.push((false, false));
        let slot = (self.slots.len() - 1) as u32;
        self.slot_of.insert(key, slot);
        slot
    }

    /// The identities of `matches` (in chronological order).
    fn of(matches: MatchList, keys: &Keys, aliases: &Aliases) -> Slots {
        let mut run = Slots::default();
        // Each match's players' identity fields alone are read, borrowed (a packed history
        // decodes nothing else): a text is made only for a new key or a new name, of its own
        // (not kept in the thread's table of texts beyond the roster).
        run.match_slots = (0..matches.len())
            .map(|i| {
                let game = matches.head(i).game;
                let mut slots = Vec::new();
                matches.each_who(i, |p| {
                    let slot = run.slot(keys.of(game, &p, aliases));
                    let seen_as = &mut run.seen_as[slot as usize];
                    match p.bot {
                        true => seen_as.0 = true,
                        false => seen_as.1 = true,
                    }
                    // The latest name is always the last one seen (a run records a name
                    // again only when it changes).
                    let (_, latest, seen) = &mut run.slots[slot as usize];
                    if seen.last().map(Text::as_str) != Some(p.name) {
                        *latest = Text::unshared(p.name);
                        seen.push(latest.clone());
                    }
                    slots.push(slot);
                });
                slots
            })
            .collect();
        run
    }

    /// Adds the identities of the run of matches right after this one.
    fn absorb(&mut self, later: Slots) {
        let mut moved = Vec::with_capacity(later.slots.len());
        for ((key, latest, seen), (bot, human)) in later.slots.into_iter().zip(later.seen_as) {
            let slot = match self.slot_of.get(&key) {
                Some(&slot) => slot,
                None => self.add(key),
            };
            let seen_as = &mut self.seen_as[slot as usize];
            *seen_as = (seen_as.0 || bot, seen_as.1 || human);
            let (_, mine, names) = &mut self.slots[slot as usize];
            *mine = latest;
            let repeat = names.last().is_some() && names.last() == seen.first();
            names.extend(seen.into_iter().skip(usize::from(repeat)));
            moved.push(slot);
        }
        self.match_slots
            .extend(later.match_slots.into_iter().map(|mut ids| {
                for id in &mut ids {
                    *id = moved[*id as usize];
                }
                ids
            }));
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

/// The id a player `p` of a match of `game` is known by, if any: an account the log
/// authenticates (never a bot's), or under `identity = "guid"` any id the log gives.
pub fn account_of(game: &str, p: &Who, aliases: &Aliases) -> Option<u64> {
    account_of_fields(game, &p.view(), aliases)
}

/// [`account_of`], from a player's borrowed identity fields.
fn account_of_fields(game: &str, p: &WhoRef, aliases: &Aliases) -> Option<u64> {
    p.uid
        .filter(|_| aliases.by_uid || (!p.bot && super::logs_accounts(game)))
}

/// Keys of the players with an id ([`account_of`]): the (aliased) first name each id used, in
/// match order, with ` (2)`, ` (3)`, ... when an earlier id took it. A player without an id who
/// uses a name an id took is that id's player; otherwise the name is the key.
struct Keys {
    by_uid: HashMap<u64, Text>,
    /// Key names taken by ids, and the id that took each first.
    taken: HashMap<String, u64>,
}

impl Keys {
    fn assign(matches: MatchList, aliases: &Aliases) -> Keys {
        let mut keys = Keys {
            by_uid: HashMap::new(),
            taken: HashMap::new(),
        };
        // A match of a game whose logs carry no accounts gives none (see [`account_of`]):
        // told by its head, it is not decoded.
        for i in 0..matches.len() {
            let game = matches.head(i).game;
            if !aliases.by_uid && !super::logs_accounts(game) {
                continue;
            }
            matches.each_who(i, |p| {
                let Some(uid) = account_of_fields(game, &p, aliases) else {
                    return;
                };
                if keys.by_uid.contains_key(&uid) {
                    return;
                }
                let base = aliases.key(p.plain).to_string();
                let mut key = base.clone();
                let mut n = 1;
                while keys.taken.contains_key(&key) {
                    n += 1;
                    key = format!("{base} ({n})");
                }
                keys.taken.insert(key.clone(), uid);
                keys.by_uid.insert(uid, Text::new(&key));
            });
        }
        keys
    }

    /// The identity key of a player `p` of a match of `game`.
    fn of<'a>(&'a self, game: &str, p: &WhoRef<'a>, aliases: &'a Aliases) -> &'a str {
        if let Some(key) = account_of_fields(game, p, aliases).and_then(|u| self.by_uid.get(&u)) {
            return key;
        }
        let name = aliases.key(p.plain);
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

    /// Matches resolved in runs and merged give exactly the roster of one run over them all:
    /// every cut into two or three runs, with renames, a name taken by another id, names
    /// repeated across a cut and identities met only in later runs; a bot is one seen only as
    /// a bot, in whichever runs.
    #[test]
    fn runs_merged_equal_one_run() {
        let mut matches = [
            game(&[("A", Some(1)), ("B", Some(2))]),
            game(&[("A2", Some(1)), ("B", Some(2)), ("C", None)]),
            game(&[("A2", Some(1)), ("A", Some(3))]),
            game(&[("B", Some(2)), ("C", None), ("A2", Some(1))]),
            game(&[("A", Some(1)), ("D", None)]),
            game(&[("A", Some(1)), ("B3", Some(2)), ("D", None)]),
            game(&[("E", None)]),
        ];
        // C is a bot once and a human later; E only a bot.
        matches[1].players[2].bot = true;
        matches[6].players[0].bot = true;
        let cfg = crate::config::Config {
            identity: crate::config::IdentityMode::Guid,
            ..Default::default()
        };
        let aliases = Aliases::for_config(&cfg);
        let keys = Keys::assign((&matches).into(), &aliases);
        let of = |ms: &[Match]| Slots::of(ms.into(), &keys, &aliases);
        let one = Roster::numbered(of(&matches));
        assert_eq!(one.players.len(), 6);
        assert!(one.players[0].names_seen.len() == 2, "{:?}", one.players);
        let bots: Vec<&str> = (one.players.iter().zip(&one.bots))
            .filter(|(_, bot)| **bot)
            .map(|(p, _)| p.key.as_str())
            .collect();
        assert_eq!(bots, ["E"]);
        let same = |r: Roster, cut: &str| {
            assert_eq!(r.players, one.players, "{cut}");
            assert_eq!(r.match_players, one.match_players, "{cut}");
            assert_eq!(r.bots, one.bots, "{cut}");
        };
        same(Roster::build(&matches, &aliases), "built");
        for a in 0..=matches.len() {
            for b in a..=matches.len() {
                let mut merged = of(&matches[..a]);
                merged.absorb(of(&matches[a..b]));
                merged.absorb(of(&matches[b..]));
                same(Roster::numbered(merged), &format!("cut at {a} and {b}"));
            }
        }
    }

    /// Issue 38: where the log names an account (TF2's Steam id), the account is the player
    /// under the default `identity = "name"`: a rename chain is one player, shown by the latest
    /// name, the old ones kept; a bot and a Quake 3 client id stay their name.
    #[test]
    fn an_account_is_one_player_whatever_its_names() {
        let in_game = |code: &str, mut m: Match| {
            m.game = code.into();
            m
        };
        let mut bot = game(&[("b", Some(9)), ("b2", Some(9))]);
        bot.players[0].bot = true;
        bot.players[1].bot = true;
        let matches = [
            in_game("tf2", game(&[("neet", Some(1)), ("x", Some(2))])),
            in_game("tf2", game(&[("GAUNTSUCKS neet", Some(1))])),
            in_game("tf2", game(&[("HEALMEBARNCOW neet", Some(1))])),
            in_game("tf2", game(&[("brown magic", Some(1)), ("x", None)])),
            in_game("tf2", bot),
            // A Quake 3 client id is chosen by the player: the name decides.
            in_game("quake3", game(&[("q", Some(5))])),
            in_game("quake3", game(&[("q2", Some(5))])),
        ];
        let r = Roster::build(&matches, &Aliases::default());
        let keys: Vec<&str> = r.players.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["b", "b2", "neet", "q", "q2", "x"]);
        let neet = &r.players[2];
        assert_eq!(neet.name, "brown magic");
        assert_eq!(neet.names_seen.len(), 4, "{:?}", neet.names_seen);
        for m in 0..4 {
            assert_eq!(r.match_players.at(m)[0], 2, "match {m}");
        }
        // A player without an account who uses a name an account took is that account's.
        assert_eq!(r.match_players.at(3)[1], 5);
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
        assert_eq!(r.match_players.at(1), [1, 0]);
        assert_eq!(r.match_players.at(2), [0]);
        // By name (the default), the thief inherits the stats.
        let r = Roster::build(&matches, &Aliases::default());
        assert_eq!(r.match_players.at(1)[0], r.match_players.at(0)[0]);
    }
}
