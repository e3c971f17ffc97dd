//! Opt-outs, bans and bots (`[moderation]`, `bots` in site.toml), applied to plain data before
//! anything is counted: an excluded player (banned, or a bot under `bots = "exclude"`) is taken
//! out of each match with every event they made or suffered, exactly as if their lines were not in
//! the log; a hidden player (opted out, or a bot under `bots = "hide"`) stays in every count and
//! rating, and only the pages leave their name out. Names are matched like aliases: colour codes
//! removed, then `[aliases]` applied. It also says which names a site must never publish, and
//! which entries matched nobody (a typo would publish the very player it meant to remove). It
//! does not render anything.

use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;

use rayon::prelude::*;

use super::identity::{Aliases, Roster, account_of};
use super::name_filter::NameFilter;
use super::names::plain_name;
use super::{History, Match, MatchList, NO_PLAYER};
use crate::config::{BotsMode, Config};

/// Whom [`Moderation::apply`] took out of the matches.
#[derive(Debug, Clone, Default)]
pub struct Excluded {
    /// Every name they played under, colour codes kept, and its plain form.
    names: BTreeSet<String>,
    /// Their identity keys (the `exclude` entries that matched someone).
    keys: HashSet<String>,
    /// Whether a bot was among them (`bots = "exclude"` matched someone).
    bots: bool,
}

/// The moderation rules of a site, resolved to identity keys.
#[derive(Debug, Clone, Default)]
pub struct Moderation {
    hide: HashSet<String>,
    exclude: HashSet<String>,
    bots: BotsMode,
}

impl Moderation {
    /// The rules of `config`, names resolved through `aliases`.
    pub fn new(config: &Config, aliases: &Aliases) -> Self {
        let keys = |names: &[String]| {
            names
                .iter()
                .map(|n| aliases.key(&plain_name(n)).to_string())
                .collect::<HashSet<_>>()
        };
        Moderation {
            hide: keys(&config.moderation.hide),
            exclude: keys(&config.moderation.exclude),
            bots: config.bots,
        }
    }

    /// A player of a match whose frags are dropped, by their name in it.
    fn excludes_by_name(&self, p: &super::MatchPlayer, aliases: &Aliases) -> bool {
        (p.bot && self.bots == BotsMode::Exclude) || self.exclude.contains(aliases.key(&p.plain))
    }

    /// The accounts ([`account_of`]) that played under an excluded name in any of `matches`:
    /// banned under every name they use.
    fn banned_accounts(&self, matches: MatchList, aliases: &Aliases) -> HashSet<u64> {
        let mut banned = HashSet::new();
        if self.exclude.is_empty() {
            return banned;
        }
        for m in matches {
            let excluded = m
                .players
                .iter()
                .filter(|p| self.excludes_by_name(p, aliases));
            banned.extend(excluded.filter_map(|p| account_of(&m.game, p, aliases)));
        }
        banned
    }

    /// A player of match `m` whose frags are dropped: by name, or as one of the `banned`
    /// accounts.
    fn excludes(
        &self,
        m: &Match,
        p: &super::MatchPlayer,
        aliases: &Aliases,
        banned: &HashSet<u64>,
    ) -> bool {
        self.excludes_by_name(p, aliases)
            || (!banned.is_empty()
                && account_of(&m.game, p, aliases).is_some_and(|a| banned.contains(&a)))
    }

    /// `matches` without their excluded players: each such player is removed from the match with
    /// every event they made or suffered, and the match's `content` fingerprint changes with
    /// them (so incremental builds and page keys see the difference); a match left without an
    /// active player is dropped, as a parser drops one. Borrowed when nothing is excluded.
    pub fn apply(
        &self,
        matches: MatchList,
        aliases: &Aliases,
        dir: Option<PathBuf>,
    ) -> Option<History> {
        // Nobody to exclude: no match is read.
        if self.exclude.is_empty() && self.bots != BotsMode::Exclude {
            return None;
        }
        let banned = self.banned_accounts(matches, aliases);
        let touched = |m: &Match| (m.players.iter()).any(|p| self.excludes(m, p, aliases, &banned));
        if !matches.par_iter().any(|m| touched(&m)) {
            return None;
        }
        // A batch at a time on the thread pool, packed as it is made.
        let batch = History::batch();
        let batches = (0..matches.len().div_ceil(batch)).map(|b| {
            let part = matches.slice(b * batch..((b + 1) * batch).min(matches.len()));
            part.par_iter()
                .filter_map(|m| {
                    if !touched(&m) {
                        return Some(m.into_owned());
                    }
                    let m = self.without_excluded(&m, aliases, &banned);
                    // As the parsers do: a match in which nobody (left) played is no match.
                    m.players.iter().any(|p| p.active).then_some(m)
                })
                .collect()
        });
        Some(History::from_batches(batches, dir))
    }

    /// Whom [`Moderation::apply`] takes out of `matches` (a pass over every match player: worth
    /// it only when `apply` took someone out; else [`Excluded::default`] says the same).
    pub fn excluded(&self, matches: MatchList, aliases: &Aliases) -> Excluded {
        let mut out = Excluded::default();
        let banned = self.banned_accounts(matches, aliases);
        for m in matches {
            for p in &m.players {
                if self.excludes(&m, p, aliases, &banned) {
                    if !out.names.contains(p.name.as_str()) {
                        out.names.insert(p.name.to_string());
                        out.names.insert(p.plain.to_string());
                    }
                    if !out.keys.contains(aliases.key(&p.plain)) {
                        out.keys.insert(aliases.key(&p.plain).to_string());
                    }
                    out.bots |= p.bot;
                }
            }
        }
        out
    }

    /// Every name the site must not publish: each `hide` and `exclude` entry and its `[aliases]`,
    /// every name a hidden identity of `roster` was seen under, and every name of the players
    /// `excluded` took out.
    pub fn unpublished(
        &self,
        config: &Config,
        roster: &Roster,
        hidden: &[bool],
        excluded: &Excluded,
    ) -> NameFilter {
        let m = &config.moderation;
        let entries = m.hide.iter().chain(&m.exclude).map(String::as_str);
        let aliased = config.aliases.iter().filter(|(canonical, _)| {
            let key = plain_name(canonical);
            self.hide.contains(&key) || self.exclude.contains(&key)
        });
        let aliased = aliased.flat_map(|(canonical, extras)| {
            std::iter::once(canonical.as_str()).chain(extras.iter().map(String::as_str))
        });
        let seen = (roster.players.iter().zip(hidden))
            .filter(|(_, hidden)| **hidden)
            .flat_map(|(p, _)| std::iter::once(&p.key).chain(&p.names_seen))
            .map(String::as_str);
        NameFilter::new(
            entries
                .chain(aliased)
                .chain(seen)
                .chain(excluded.names.iter().map(String::as_str)),
        )
    }

    /// One warning per `hide` or `exclude` entry that matched no player, naming the nearest
    /// player's name when one is close (a typo), and for a `bots` setting that met no bot.
    /// They quote the site's own config: for the terminal, never for a page.
    pub fn unmatched(
        &self,
        config: &Config,
        aliases: &Aliases,
        roster: &Roster,
        bots: &[bool],
        excluded: &Excluded,
    ) -> Vec<String> {
        // Every name an identity was seen under counts: an account's page keeps its first name
        // as key, while the admin reads its latest (made only when a key matched nothing).
        let seen = std::cell::OnceCell::new();
        let seen_as = |key: &str| {
            let seen: &HashSet<String> = seen.get_or_init(|| {
                (roster.players.iter())
                    .flat_map(|p| &p.names_seen)
                    .map(|n| aliases.key(&plain_name(n)).to_string())
                    .collect()
            });
            seen.contains(key)
        };
        let in_roster = |key: &str| {
            roster
                .players
                .binary_search_by(|p| p.key.as_str().cmp(key))
                .is_ok()
        };
        let mut out = Vec::new();
        let m = &config.moderation;
        for (list, entries) in [("hide", &m.hide), ("exclude", &m.exclude)] {
            for entry in entries {
                let plain = plain_name(entry);
                let key = aliases.key(&plain);
                let found = excluded.keys.contains(key)
                    || (list == "hide" && (in_roster(key) || seen_as(key)));
                if found {
                    continue;
                }
                let nearest = nearest(&plain, roster.players.iter().map(|p| p.key.as_str()));
                out.push(match nearest {
                    Some(near) => format!("{list}: no player `{entry}`; did you mean `{near}`?"),
                    None => format!("{list}: no player `{entry}`"),
                });
            }
        }
        let met_bot = match config.bots {
            BotsMode::Show => true,
            BotsMode::Hide => bots.iter().any(|&b| b),
            BotsMode::Exclude => excluded.bots,
        };
        if !met_bot {
            let mode = if config.bots == BotsMode::Hide {
                "hide"
            } else {
                "exclude"
            };
            out.push(format!("bots = \"{mode}\": no player of the logs is a bot"));
        }
        out
    }

    fn without_excluded(&self, m: &Match, aliases: &Aliases, banned: &HashSet<u64>) -> Match {
        // New number of each player, None for the excluded.
        let mut renumber = Vec::with_capacity(m.players.len());
        let mut players = Vec::with_capacity(m.players.len());
        let mut h = crate::hash::Hasher::new();
        h.u64(m.content);
        for p in &m.players {
            if self.excludes(m, p, aliases, banned) {
                renumber.push(None);
                h.str(&p.plain);
            } else {
                renumber.push(Some(players.len() as u32));
                players.push(p.clone());
            }
        }
        let new = |n: u32| -> Option<u32> {
            if n == NO_PLAYER {
                Some(NO_PLAYER)
            } else {
                renumber.get(n as usize).copied().flatten()
            }
        };
        let events: Vec<super::Event> = m
            .events
            .read()
            .iter()
            .filter_map(|e| {
                let mut e = *e;
                e.actor = new(e.actor)?;
                e.target = new(e.target)?;
                Some(e)
            })
            .collect();
        Match {
            content: h.finish(),
            players,
            events: events.into(),
            ..m.clone()
        }
    }

    /// For each identity of `roster`: never named on the site (opted out under any name it was
    /// seen with, as an account keeps one page whatever its names, or a bot under
    /// `bots = "hide"`).
    pub fn hidden(&self, roster: &Roster, bots: &[bool], aliases: &Aliases) -> Vec<bool> {
        let named = |key: &str| self.hide.contains(key) || self.exclude.contains(key);
        roster
            .players
            .iter()
            .zip(bots)
            .map(|(p, &bot)| {
                named(&p.key)
                    || (bot && self.bots != BotsMode::Show)
                    || (!self.hide.is_empty() || !self.exclude.is_empty())
                        && (p.names_seen.iter()).any(|n| named(aliases.key(&plain_name(n))))
            })
            .collect()
    }
}

/// The name of `names` nearest to `name` by edit distance (a letter added, removed, changed or
/// two swapped), if one is close enough to be a typo of it: one edit in a name of up to four
/// letters, two up to ten, three beyond. The first of equally near ones.
fn nearest<'a>(name: &str, names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let name: Vec<char> = name.chars().collect();
    let most = match name.len() {
        0..=4 => 1,
        5..=10 => 2,
        _ => 3,
    };
    let mut best: Option<(usize, &str)> = None;
    for other in names {
        let limit = best.map_or(most, |(d, _)| d - 1);
        let chars: Vec<char> = other.chars().collect();
        if chars.len().abs_diff(name.len()) > limit {
            continue;
        }
        let d = edit_distance(&name, &chars);
        if d <= limit && d > 0 {
            best = Some((d, other));
            if d == 1 {
                break;
            }
        }
    }
    best.map(|(_, n)| n)
}

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
/// neighbours, each one edit.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for (i, row) in d.chunks_mut(width).enumerate() {
        row[0] = i;
    }
    for (j, cell) in d.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = v;
        }
    }
    d[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Event, EventKind, Team};

    fn config(toml: &str) -> Config {
        Config::parse(toml, "site.toml").unwrap()
    }

    #[test]
    fn excluded_player_leaves_with_every_event_they_took_part_in() {
        let mut m = crate::testdata::bare_match(
            "ffa",
            &[
                ("Alice", Team::Free),
                ("Bob", Team::Free),
                ("Carol", Team::Free),
            ],
        );
        let frag = |actor, target| Event {
            time: 1,
            line: 1,
            kind: EventKind::Frag,
            actor,
            target,
            detail: 0,
        };
        m.events = vec![frag(0, 1), frag(1, 2), frag(2, 0), frag(0, 2)].into();
        let cfg = config("[moderation]\nexclude = [\"B^2ob\"]\n");
        let aliases = Aliases::for_config(&cfg);
        let out = Moderation::new(&cfg, &aliases)
            .apply(std::slice::from_ref(&m).into(), &aliases, None)
            .unwrap();
        let out = out.list().at(0);
        let names: Vec<&str> = out.players.iter().map(|p| p.plain.as_str()).collect();
        assert_eq!(names, ["Alice", "Carol"]);
        let pairs: Vec<(u32, u32)> = out
            .events
            .read()
            .iter()
            .map(|e| (e.actor, e.target))
            .collect();
        assert_eq!(pairs, [(1, 0), (0, 1)]);
        assert_ne!(out.content, m.content);
    }

    #[test]
    fn nothing_excluded_borrows() {
        let m = crate::testdata::bare_match("ffa", &[("Alice", Team::Free), ("Bob", Team::Free)]);
        let cfg = config("[moderation]\nhide = [\"Bob\"]\n");
        let aliases = Aliases::for_config(&cfg);
        let out =
            Moderation::new(&cfg, &aliases).apply(std::slice::from_ref(&m).into(), &aliases, None);
        assert!(out.is_none());
    }

    /// The moderation of `toml` applied to `matches` as a build applies it: the warnings for
    /// entries that matched nobody, and the filter of names never to publish.
    fn moderated(toml: &str, matches: &[Match]) -> (Vec<String>, NameFilter) {
        let cfg = config(toml);
        let aliases = Aliases::for_config(&cfg);
        let moderation = Moderation::new(&cfg, &aliases);
        let applied = moderation.apply(matches.into(), &aliases, None);
        let applied = applied.as_ref().map_or(matches.into(), History::list);
        let excluded = moderation.excluded(matches.into(), &aliases);
        let roster = Roster::build(applied, &aliases);
        let bots = roster.bots.clone();
        let hidden = moderation.hidden(&roster, &bots, &aliases);
        (
            moderation.unmatched(&cfg, &aliases, &roster, &bots, &excluded),
            moderation.unpublished(&cfg, &roster, &hidden, &excluded),
        )
    }

    /// Issue 38: an account is one player whatever its names, so an opt-out under any of them
    /// covers it: excluded under its first name, it leaves the match it played renamed too;
    /// hidden under its latest name (the one its page shows), its page is hidden.
    #[test]
    fn an_account_is_moderated_under_any_of_its_names() {
        let tf2 = |names: &[(&str, Option<u64>)]| {
            let teams: Vec<(&str, Team)> = names.iter().map(|(n, _)| (*n, Team::Free)).collect();
            let mut m = crate::testdata::bare_match("ffa", &teams);
            m.game = "tf2".into();
            for (p, (_, uid)) in m.players.iter_mut().zip(names) {
                p.uid = *uid;
                p.active = true;
            }
            m
        };
        let matches = [
            tf2(&[("neet", Some(7)), ("x", Some(8))]),
            tf2(&[("GAUNTSUCKS neet", Some(7)), ("x", Some(8))]),
        ];
        let cfg = config("[moderation]\nexclude = [\"neet\"]\n");
        let aliases = Aliases::for_config(&cfg);
        let applied = Moderation::new(&cfg, &aliases).apply((&matches).into(), &aliases, None);
        assert!(
            (applied.unwrap().list().iter())
                .all(|m| m.players.len() == 1 && m.players[0].name == "x")
        );
        let (warnings, filter) = moderated("[moderation]\nexclude = [\"neet\"]\n", &matches);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(filter.text("GAUNTSUCKS neet killed x"), "[hidden] killed x");

        let cfg = config("[moderation]\nhide = [\"GAUNTSUCKS neet\"]\n");
        let aliases = Aliases::for_config(&cfg);
        let roster = Roster::build(&matches, &aliases);
        let bots = roster.bots.clone();
        let hidden = Moderation::new(&cfg, &aliases).hidden(&roster, &bots, &aliases);
        let neet = roster.players.iter().position(|p| p.key == "neet").unwrap();
        assert_eq!(roster.players[neet].name, "GAUNTSUCKS neet");
        assert!(hidden[neet] && hidden.iter().filter(|h| **h).count() == 1);
        let (warnings, _) = moderated("[moderation]\nhide = [\"GAUNTSUCKS neet\"]\n", &matches);
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn entries_that_match_nobody_are_named_with_the_nearest_player() {
        let mut m = crate::testdata::bare_match(
            "ffa",
            &[
                ("Isgalamido", Team::Free),
                ("Gargoyle", Team::Free),
                ("Bob", Team::Free),
            ],
        );
        m.players[1].name = "^1Garg^7oyle".into();
        let (warnings, _) = moderated(
            "bots = \"hide\"\n[moderation]\nhide = [\"Isgalamidoo\", \"B^1ob\", \"Zed\"]\n\
             exclude = [\"Gargoyle\", \"Bbo\"]\n",
            std::slice::from_ref(&m),
        );
        assert_eq!(
            warnings,
            [
                "hide: no player `Isgalamidoo`; did you mean `Isgalamido`?",
                "hide: no player `Zed`",
                "exclude: no player `Bbo`; did you mean `Bob`?",
                "bots = \"hide\": no player of the logs is a bot",
            ]
        );
        let (warnings, _) = moderated(
            "[moderation]\nhide = [\"Bob\"]\nexclude = [\"^3Gargoyle\"]\n",
            std::slice::from_ref(&m),
        );
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn unpublished_names_are_every_name_of_the_hidden_and_excluded() {
        let m = crate::testdata::bare_match(
            "ffa",
            &[
                ("Alice", Team::Free),
                ("Bob", Team::Free),
                ("Carol", Team::Free),
            ],
        );
        let mut later = m.clone();
        later.players[0].name = "^1Al^7ice".into();
        later.players[2].name = "^2Carol".into();
        let (_, filter) = moderated(
            "[aliases]\nBob = [\"Bobby\"]\n[moderation]\nhide = [\"^4Ali^7ce\", \"Bob\"]\n\
             exclude = [\"Carol\"]\n",
            &[m, later],
        );
        assert_eq!(
            filter.text("^1Al^7ice, Alice, Bobby, Bob and ^2Carol met Dave"),
            "^1[hidden], [hidden], [hidden], [hidden] and ^2[hidden] met Dave"
        );
    }

    #[test]
    fn nearest_name_only_when_it_is_close() {
        let names = ["Isgalamido", "Agea", "Pl4StiK0"];
        let near = |n: &str| nearest(n, names.iter().copied());
        assert_eq!(near("Isgalamidoo"), Some("Isgalamido"));
        assert_eq!(near("Agae"), Some("Agea"), "a swap is one edit");
        assert_eq!(near("Pl4stik0"), Some("Pl4StiK0"));
        assert_eq!(near("Agxyz"), None);
        assert_eq!(near("Zed"), None);
    }
}
