//! What the Call of Duty and Enemy Territory parsers share: a match being built (players keyed by
//! an identity key the parser chooses, weapons, events, the fingerprints that give the match its
//! id), and decoding of log bytes that are not UTF-8. It knows no log syntax.

use std::borrow::Cow;
use std::collections::HashMap;

use super::Source;
use crate::diagnostics::FileReport;
use crate::hash::Hasher;
use crate::model::names::plain_name;
use crate::model::{Event, EventKind, Match, MatchPlayer, NO_PLAYER, PlayerFields, Team};

/// Most players one match keeps apart; further identities share the last one (hostile input).
const MAX_PLAYERS: usize = 4096;
/// Kill lines in the opening that fixes a match's stable id ([`Match::id`]).
const ID_KILLS: u32 = 4;

/// Decodes a log line: UTF-8 where it is valid, else each byte as a character of the one-byte
/// code page it most likely is, word by word: Windows-1251 for a word with more bytes of its
/// Cyrillic letter range (0xC0-0xFF) than ASCII letters (Ukrainian and Russian CoD servers),
/// Latin-1 otherwise (`N°`, `I´m`, `Grüße`). Unlike a lossy decode, two different names never
/// decode to the same text.
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(bytes.len() * 2);
    // Words are runs of letters and high bytes; ASCII punctuation and spaces separate them.
    for word in bytes.split_inclusive(|b| *b < 0x80 && !b.is_ascii_alphabetic()) {
        let high = word.iter().filter(|b| **b >= 0xC0).count();
        let ascii = word.iter().filter(|b| b.is_ascii_alphabetic()).count();
        let cyrillic = high > ascii;
        out.extend(
            word.iter()
                .map(|&b| if cyrillic { cp1251(b) } else { char::from(b) }),
        );
    }
    Cow::Owned(out)
}

/// A Windows-1251 byte: its letters (Russian, Ukrainian, Belarusian), Latin-1 for the rest.
fn cp1251(b: u8) -> char {
    match b {
        0xC0..=0xFF => char::from_u32(0x0410 + u32::from(b - 0xC0)).unwrap_or('\u{FFFD}'),
        0xA8 => 'Ё',
        0xB8 => 'ё',
        0xB2 => 'І',
        0xB3 => 'і',
        0xAF => 'Ї',
        0xBF => 'ї',
        0xAA => 'Є',
        0xBA => 'є',
        0xA5 => 'Ґ',
        0xB4 => 'ґ',
        0xA1 => 'Ў',
        0xA2 => 'ў',
        _ => char::from(b),
    }
}

/// A match being read.
pub struct MatchBuilder {
    /// The match so far.
    pub m: Match,
    hash: Hasher,
    id: Option<u64>,
    kills_hashed: u32,
    /// Level time of the match start.
    pub start_time: u32,
    /// Latest level time seen (never before the start).
    pub last_time: u32,
    /// The log closed the match (`ShutdownGame`).
    pub shutdown: bool,
    keys: HashMap<String, u32>,
    /// Per match player: on the server now.
    present: Vec<bool>,
    weapons: crate::parse::WeaponIndex,
}

impl MatchBuilder {
    /// A match of `game` starting at `line`, level time `time`.
    pub fn new(source: &Source, line: u64, time: u32, game: &str) -> Self {
        MatchBuilder {
            m: crate::parse::new_match(source, line, game),
            hash: Hasher::new(),
            id: None,
            kills_hashed: 0,
            start_time: time,
            last_time: time,
            shutdown: false,
            keys: HashMap::new(),
            present: Vec::new(),
            weapons: Default::default(),
        }
    }

    /// Adds a line to the fingerprints; a kill line may complete the stable id's opening.
    pub fn hash_line(&mut self, line: &[u8], kill: bool) {
        self.hash.raw(line);
        self.hash.raw(b"\n");
        if self.id.is_none() && kill {
            self.kills_hashed += 1;
            if self.kills_hashed == ID_KILLS {
                self.id = Some(self.hash.finish());
            }
        }
    }

    /// Notes the level time of a line (times before the start, after a jump back, are ignored).
    pub fn saw_time(&mut self, time: u32) {
        if time >= self.start_time {
            self.last_time = self.last_time.max(time);
        }
    }

    fn rel(&self, time: u32) -> u32 {
        time.saturating_sub(self.start_time)
    }

    /// The player known by `key`, created (on `team`) on first sight; the name is updated to
    /// `name`. An existing player's team is not changed here (see [`Self::set_team`]).
    pub fn player(&mut self, key: &str, name: &str, team: Team, time: u32, line: u64) -> u32 {
        if let Some(&i) = self.keys.get(key) {
            let p = &mut self.m.players[i as usize];
            if p.name != name {
                p.name = name.into();
                p.plain = plain_name(name).into();
            }
            return i;
        }
        if self.m.players.len() >= MAX_PLAYERS {
            return (self.m.players.len() - 1) as u32;
        }
        let i = self.m.players.len() as u32;
        self.m.players.push(MatchPlayer::from(PlayerFields {
            plain: plain_name(name).into(),
            name: name.into(),
            score: None,
            team,
            joined: self.rel(time),
            left: None,
            active: false,
            bot_skill: None,
            uid: None,
            bot: false,
        }));
        self.keys.insert(key.to_string(), i);
        self.present.push(false);
        self.set_team(i, team, time, line);
        i
    }

    /// The player known by `key`, if any.
    pub fn find(&self, key: &str) -> Option<u32> {
        self.keys.get(key).copied()
    }

    /// Player `i` is on `team` from now on: an event when the team changes or they rejoin.
    pub fn set_team(&mut self, i: u32, team: Team, time: u32, line: u64) {
        let idx = i as usize;
        if self.present[idx] && self.m.players[idx].team == team {
            return;
        }
        let p = &mut self.m.players[idx];
        p.team = team;
        p.set_left(None);
        self.present[idx] = true;
        self.push(time, line, EventKind::TeamChange(team), i, NO_PLAYER, 0);
    }

    /// Player `i` left the server.
    pub fn leave(&mut self, i: u32, time: u32, line: u64) {
        if !std::mem::replace(&mut self.present[i as usize], false) {
            return;
        }
        let rel = self.rel(time);
        self.m.players[i as usize].set_left(Some(rel));
        self.push(time, line, EventKind::Leave, i, NO_PLAYER, 0);
    }

    /// Records an event at level time `time` (the match lasts at least until it).
    pub fn push(
        &mut self,
        time: u32,
        line: u64,
        kind: EventKind,
        actor: u32,
        target: u32,
        detail: u16,
    ) {
        self.saw_time(time);
        let event = Event {
            time: self.rel(time),
            line,
            kind,
            actor,
            target,
            detail,
        };
        self.m.events.push(event);
    }

    /// Records a kill: `killer` None is the world. Marks both players active.
    pub fn kill(
        &mut self,
        (time, line): (u32, u64),
        killer: Option<u32>,
        victim: u32,
        kind: Kill,
        weapon: &str,
    ) {
        let w = self.weapon(weapon);
        self.m.players[victim as usize].active = true;
        match killer {
            Some(k) if k != victim => {
                self.m.players[k as usize].active = true;
                let kind = match kind {
                    Kill::TeamKill => EventKind::TeamKill,
                    Kill::Frag => EventKind::Frag,
                };
                self.push(time, line, kind, k, victim, w);
            }
            _ => self.push(time, line, EventKind::Suicide, victim, NO_PLAYER, w),
        }
    }

    /// The index of weapon `name` in the match's weapon list.
    pub fn weapon(&mut self, name: &str) -> u16 {
        self.weapons.of(&mut self.m.weapons, name)
    }

    /// Finishes the match: None (with a note) when nobody played in it. `why` says what closed
    /// a match that had no `ShutdownGame`; None with no `ShutdownGame` means the file ended
    /// inside it (it may go on).
    pub fn finish(mut self, why: Option<&str>, report: &mut FileReport) -> Option<Match> {
        self.m.duration_seconds = self.last_time.saturating_sub(self.start_time);
        self.m.content = self.hash.finish();
        self.m.id = format!("{:016x}", self.id.unwrap_or(self.m.content)).into();
        self.m.open = why.is_none() && !self.shutdown;
        if !self.m.players.iter().any(|p| p.active) {
            report.note("match with no players dropped", self.m.line, &self.m.map);
            return None;
        }
        if let Some(why) = why.filter(|_| !self.shutdown) {
            report.note(&format!("match {why}"), self.m.line, &self.m.map);
        }
        Some(self.m)
    }
}

/// What a kill between two different players was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kill {
    /// An opponent (or anyone, outside team play).
    Frag,
    /// A player of the killer's own side.
    TeamKill,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_utf8_latin1_and_windows_1251() {
        assert_eq!(decode(b"plain"), "plain");
        assert_eq!(decode("Grüße".as_bytes()), "Grüße");
        // etl-bobot-etconsole.log: `N°` in Latin-1; iw4x: `I´m`.
        assert_eq!(decode(b"Rukus (N\xb0 0)"), "Rukus (N° 0)");
        assert_eq!(decode(b"I\xb4m"), "I´m");
        // cod2-lan-2020: a Cyrillic name in Windows-1251, and chat with `і`.
        assert_eq!(decode(b"\xd7\xe5\xeb\xf1\xe8"), "Челси");
        assert_eq!(decode(b"\xe2\xf1\xb3"), "всі");
        assert_eq!(
            decode(b"say;0;2;Ibragim;\x15\xe4\xe5 \xe2\xf1\xb3"),
            "say;0;2;Ibragim;\u{15}де всі"
        );
        assert_eq!(decode(b"Gr\xfc\xdfe \xd7\xe5\xeb\xf1\xe8"), "Grüße Челси");
    }
}
