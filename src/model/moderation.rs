//! Opt-outs, bans and bots (`[moderation]`, `bots` in site.toml), applied to plain data before
//! anything is counted: an excluded player (banned, or a bot under `bots = "exclude"`) is taken
//! out of each match with every event they made or suffered, exactly as if their lines were not in
//! the log; a hidden player (opted out, or a bot under `bots = "hide"`) stays in every count and
//! rating, and only the pages leave their name out. Names are matched like aliases: colour codes
//! removed, then `[aliases]` applied. It does not render anything.

use std::borrow::Cow;
use std::collections::HashSet;

use super::identity::{Aliases, Roster};
use super::names::plain_name;
use super::{Match, NO_PLAYER};
use crate::config::{BotsMode, Config};

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

    /// A player of a match whose frags are dropped.
    fn excludes(&self, p: &super::MatchPlayer, aliases: &Aliases) -> bool {
        (p.bot && self.bots == BotsMode::Exclude) || self.exclude.contains(aliases.key(&p.plain))
    }

    /// `matches` without their excluded players: each such player is removed from the match with
    /// every event they made or suffered, and the match's `content` fingerprint changes with
    /// them (so incremental builds and page keys see the difference); a match left without an
    /// active player is dropped, as a parser drops one. Borrowed when nothing is excluded.
    pub fn apply<'a>(&self, matches: &'a [Match], aliases: &Aliases) -> Cow<'a, [Match]> {
        let touched = |m: &Match| m.players.iter().any(|p| self.excludes(p, aliases));
        if !matches.iter().any(touched) {
            return Cow::Borrowed(matches);
        }
        Cow::Owned(
            matches
                .iter()
                .filter_map(|m| {
                    if !touched(m) {
                        return Some(m.clone());
                    }
                    let m = self.without_excluded(m, aliases);
                    // As the parsers do: a match in which nobody (left) played is no match.
                    m.players.iter().any(|p| p.active).then_some(m)
                })
                .collect(),
        )
    }

    fn without_excluded(&self, m: &Match, aliases: &Aliases) -> Match {
        // New number of each player, None for the excluded.
        let mut renumber = Vec::with_capacity(m.players.len());
        let mut players = Vec::with_capacity(m.players.len());
        let mut h = crate::hash::Hasher::new();
        h.u64(m.content);
        for p in &m.players {
            if self.excludes(p, aliases) {
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

    /// For each identity of `roster`: never named on the site (opted out, or a bot under
    /// `bots = "hide"`).
    pub fn hidden(&self, roster: &Roster, bots: &[bool]) -> Vec<bool> {
        roster
            .players
            .iter()
            .zip(bots)
            .map(|(p, &bot)| {
                self.hide.contains(&p.key)
                    || self.exclude.contains(&p.key)
                    || (bot && self.bots != BotsMode::Show)
            })
            .collect()
    }
}

/// For each identity of `roster`: a bot (every appearance of it in `matches` is marked as one).
pub fn bots(matches: &[Match], roster: &Roster) -> Vec<bool> {
    let mut seen = vec![(false, false); roster.players.len()];
    for (m, ids) in matches.iter().zip(&roster.match_players) {
        for (p, &id) in m.players.iter().zip(ids) {
            let s = &mut seen[id as usize];
            if p.bot {
                s.0 = true;
            } else {
                s.1 = true;
            }
        }
    }
    seen.into_iter().map(|(bot, human)| bot && !human).collect()
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
        let out = Moderation::new(&cfg, &aliases).apply(std::slice::from_ref(&m), &aliases);
        let out = &out[0];
        let names: Vec<&str> = out.players.iter().map(|p| p.plain.as_str()).collect();
        assert_eq!(names, ["Alice", "Carol"]);
        let pairs: Vec<(u32, u32)> = out.events.iter().map(|e| (e.actor, e.target)).collect();
        assert_eq!(pairs, [(1, 0), (0, 1)]);
        assert_ne!(out.content, m.content);
    }

    #[test]
    fn nothing_excluded_borrows() {
        let m = crate::testdata::bare_match("ffa", &[("Alice", Team::Free), ("Bob", Team::Free)]);
        let cfg = config("[moderation]\nhide = [\"Bob\"]\n");
        let aliases = Aliases::for_config(&cfg);
        let out = Moderation::new(&cfg, &aliases).apply(std::slice::from_ref(&m), &aliases);
        assert!(matches!(out, Cow::Borrowed(_)));
    }
}
