//! A match's description as the history packs it ([`super::History`]): in postcard bytes, its
//! texts, its players' [`Who`]s and its game type as numbers into the tables of its block of
//! matches, so that decoding a match makes no text, hashes nothing and takes no lock (issue 41:
//! decoded from MessagePack with its texts looked up, a match took about 9 µs, and a build reads
//! each match some twenty times). Not a stored format: the bytes live for one build, in its
//! scratch file. Its events are not in it (the history holds them apart).

use std::cell::OnceCell;
use std::collections::HashMap;
use std::sync::Arc;

#[cfg(test)]
use chrono::NaiveDateTime;
use chrono::{Datelike, NaiveDate, NaiveTime, Timelike};
use serde::{Deserialize, Serialize};

use super::match_player::{Who, WhoRef};
use super::{GameType, KillSpots, Match, MatchPlayer, Round, Team, Text, WeaponList};

/// The tables of a block: what its matches' numbers stand for, each made when a match first
/// needs it (a step that reads one match of a block, as a server's page does, makes its texts
/// only).
pub struct Tables {
    /// Where each text lies in the block's bytes.
    texts: Vec<(u32, u32)>,
    made: Vec<OnceCell<Text>>,
    whos: Vec<PackedWho>,
    whos_made: Vec<OnceCell<Arc<Who>>>,
    types: Vec<PackedType>,
    types_made: Vec<OnceCell<GameType>>,
}

impl Tables {
    /// Text `n` of the block `block`.
    fn text(&self, block: &[u8], n: u32) -> Text {
        let Some(cell) = self.made.get(n as usize) else {
            return Text::default();
        };
        // Not shared with the thread's texts: looking each up cost more than making it.
        cell.get_or_init(|| Text::unshared(self.str(block, n)))
            .clone()
    }

    /// Text `n` of the block `block`, borrowed from its bytes.
    fn str<'b>(&self, block: &'b [u8], n: u32) -> &'b str {
        let Some(&(at, len)) = self.texts.get(n as usize) else {
            return "";
        };
        let bytes = block
            .get(at as usize..at as usize + len as usize)
            .unwrap_or_default();
        std::str::from_utf8(bytes).unwrap_or_default()
    }

    /// Player `n` of the block `block`.
    fn who(&self, block: &[u8], n: u32) -> Arc<Who> {
        let (Some(cell), Some(w)) = (self.whos_made.get(n as usize), self.whos.get(n as usize))
        else {
            return Arc::new(Who::default());
        };
        let who = cell.get_or_init(|| {
            Arc::new(Who {
                plain: self.text(block, w.plain),
                name: self.text(block, w.name),
                bot_skill: w.bot_skill.map(f32::from_bits),
                uid: w.uid,
                bot: w.bot,
            })
        });
        Arc::clone(who)
    }

    /// Game type `n` of the block `block`.
    fn game_type(&self, block: &[u8], n: u32) -> GameType {
        let (Some(cell), Some(t)) = (self.types_made.get(n as usize), self.types.get(n as usize))
        else {
            return GameType::new("unknown", "unknown", false, false);
        };
        cell.get_or_init(|| {
            let (code, name) = (self.text(block, t.code), self.text(block, t.name));
            GameType::new(&code, &name, t.team_based, t.duel)
        })
        .clone()
    }
}

/// A block of packed matches in the making: its tables and its matches' bytes.
#[derive(Default)]
pub struct BlockWriter {
    texts: Vec<Text>,
    text_of: HashMap<Text, u32, ahash::RandomState>,
    whos: Vec<PackedWho>,
    who_of: HashMap<PackedWho, u32, ahash::RandomState>,
    types: Vec<PackedType>,
    body: Vec<u8>,
}

/// The table part of a block, as written.
#[derive(Serialize, Deserialize)]
struct Head<'a> {
    #[serde(borrow)]
    texts: Vec<&'a str>,
    whos: Vec<PackedWho>,
    types: Vec<PackedType>,
}

/// A [`Who`] by the numbers of its texts.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct PackedWho {
    plain: u32,
    name: u32,
    /// The bits of [`Who::bot_skill`] (so that any value, a skill that is not a number
    /// included, reads back the same and is told apart by its bits).
    bot_skill: Option<u32>,
    uid: Option<u64>,
    bot: bool,
}

/// A [`GameType`] by the numbers of its texts.
#[derive(Clone, Copy, PartialEq, Serialize, Deserialize)]
struct PackedType {
    code: u32,
    name: u32,
    team_based: bool,
    duel: bool,
}

/// A [`MatchPlayer`] by the number of its [`Who`].
#[derive(Serialize, Deserialize)]
struct PackedPlayer {
    who: u32,
    score: Option<i32>,
    joined: u32,
    left: Option<u32>,
    team: Team,
    active: bool,
}

/// A match's weapons: numbers of the process's table ([`WeaponList::numbers`]), or texts.
#[derive(Serialize, Deserialize)]
enum PackedWeapons {
    Numbered(Vec<u16>),
    Named(Vec<u32>),
}

/// A [`Match`] by numbers into its block's tables, without its events and its number. Its
/// players come first: [`each_who`] reads them alone.
#[derive(Serialize, Deserialize)]
struct Packed<'a> {
    players: Vec<PackedPlayer>,
    #[serde(borrow)]
    id: &'a str,
    content: u64,
    open: bool,
    source: u32,
    file_index: u32,
    line: u64,
    map: u32,
    game: u32,
    gametype: u32,
    server: u32,
    /// Days from the common era, seconds from midnight, nanoseconds (a leap second's too).
    start: Option<(i32, u32, u32)>,
    duration_seconds: u32,
    exit_reason: Option<u32>,
    team_scores: Option<[i32; 2]>,
    partial: bool,
    weapons: PackedWeapons,
    awards: Vec<u32>,
    /// Each round's end, winner and how (a text).
    rounds: Vec<(u32, Team, u32)>,
    spots: Vec<KillSpots>,
}

impl BlockWriter {
    /// How many bytes the matches packed so far take.
    pub fn len(&self) -> usize {
        self.body.len()
    }

    /// True when no match is packed yet.
    pub fn is_empty(&self) -> bool {
        self.body.is_empty()
    }

    /// Packs `m` (its events and number left out); where its bytes start among the block's
    /// matches' (they end where its fields do: a reader needs no length).
    pub fn push(&mut self, m: &Match) -> u32 {
        let players = m
            .players
            .iter()
            .map(|p| PackedPlayer {
                who: self.who(p),
                score: p.score(),
                joined: p.joined,
                left: p.left(),
                team: p.team,
                active: p.active,
            })
            .collect();
        let weapons = match m.weapons.numbers() {
            Some(numbers) => PackedWeapons::Numbered(numbers.to_vec()),
            None => PackedWeapons::Named(m.weapons.iter().map(|w| self.text(w)).collect()),
        };
        let gametype = self.game_type(&m.gametype);
        let packed = Packed {
            id: &m.id,
            content: m.content,
            open: m.open,
            source: self.text(&m.source),
            file_index: m.file_index,
            line: m.line,
            map: self.text(&m.map),
            game: self.text(&m.game),
            gametype,
            server: self.text(&m.server),
            start: m.start.map(|t| {
                let (date, time) = (t.date(), t.time());
                (
                    date.num_days_from_ce(),
                    time.num_seconds_from_midnight(),
                    time.nanosecond(),
                )
            }),
            duration_seconds: m.duration_seconds,
            exit_reason: m.exit_reason.as_ref().map(|e| self.text(e)),
            team_scores: m.team_scores,
            partial: m.partial,
            players,
            weapons,
            awards: m.awards.iter().map(|a| self.text(a)).collect(),
            rounds: (m.rounds.iter())
                .map(|r| (r.end, r.winner, self.text(&r.how)))
                .collect(),
            spots: m.spots.to_vec(),
        };
        let at = self.body.len();
        let body = std::mem::take(&mut self.body);
        self.body = postcard::to_extend(&packed, body)
            .unwrap_or_else(|e| panic!("a match does not pack: {e} (a fragstats bug)"));
        u32::try_from(at).expect("a block of matches packs in under 4 GB")
    }

    /// The block's bytes: its tables, then its matches (whose offsets count from
    /// [`body_of`]'s start).
    pub fn finish(self) -> Vec<u8> {
        let head = Head {
            texts: self.texts.iter().map(Text::as_str).collect(),
            whos: self.whos,
            types: self.types,
        };
        let head = postcard::to_allocvec(&head)
            .unwrap_or_else(|e| panic!("a block does not pack: {e} (a fragstats bug)"));
        let mut bytes = Vec::with_capacity(4 + head.len() + self.body.len());
        bytes.extend_from_slice(&(head.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&head);
        bytes.extend_from_slice(&self.body);
        bytes
    }

    fn text(&mut self, t: &Text) -> u32 {
        if let Some(&n) = self.text_of.get(t) {
            return n;
        }
        let n = self.texts.len() as u32;
        self.texts.push(t.clone());
        self.text_of.insert(t.clone(), n);
        n
    }

    fn who(&mut self, p: &MatchPlayer) -> u32 {
        let who = PackedWho {
            plain: self.text(&p.plain),
            name: self.text(&p.name),
            bot_skill: p.bot_skill.map(f32::to_bits),
            uid: p.uid,
            bot: p.bot,
        };
        *self.who_of.entry(who).or_insert_with(|| {
            self.whos.push(who);
            (self.whos.len() - 1) as u32
        })
    }

    fn game_type(&mut self, t: &GameType) -> u32 {
        let packed = PackedType {
            code: self.text(&t.code),
            name: self.text(&t.name),
            team_based: t.team_based,
            duel: t.duel,
        };
        match self.types.iter().position(|k| *k == packed) {
            Some(n) => n as u32,
            None => {
                self.types.push(packed);
                (self.types.len() - 1) as u32
            }
        }
    }
}

/// The tables of the block `bytes` ([`BlockWriter::finish`]), and where the bytes of its
/// matches start in it.
pub fn read_block(bytes: &[u8]) -> (Tables, usize) {
    let broken = |e: &dyn std::fmt::Display| -> ! {
        panic!("a block of matches packed by this build does not read: {e} (a fragstats bug)")
    };
    let (len, rest) = bytes
        .split_at_checked(4)
        .unwrap_or_else(|| broken(&"no head"));
    let len = u32::from_le_bytes(len.try_into().unwrap_or_default()) as usize;
    let (head, body) = rest
        .split_at_checked(len)
        .unwrap_or_else(|| broken(&"a short head"));
    let head: Head = postcard::from_bytes(head).unwrap_or_else(|e| broken(&e));
    let base = bytes.as_ptr() as usize;
    let texts: Vec<(u32, u32)> = (head.texts.iter())
        .map(|t| ((t.as_ptr() as usize - base) as u32, t.len() as u32))
        .collect();
    let tables = Tables {
        made: fresh(texts.len()),
        texts,
        whos_made: fresh(head.whos.len()),
        whos: head.whos,
        types_made: fresh(head.types.len()),
        types: head.types,
    };
    (tables, bytes.len() - body.len())
}

/// `n` cells, empty.
fn fresh<T>(n: usize) -> Vec<OnceCell<T>> {
    (0..n).map(|_| OnceCell::new()).collect()
}

/// The match packed at `at` in the block `block` ([`BlockWriter::push`]), its texts from the
/// block's `tables`; its events empty and its number 0.
pub fn decode(tables: &Tables, block: &[u8], at: usize) -> Match {
    // Read up to its last field: the bytes after it are the next matches'.
    let bytes = block.get(at..).unwrap_or_default();
    let p: Packed = postcard::from_bytes(bytes).unwrap_or_else(|e| {
        panic!("a match packed by this build does not read: {e} (a fragstats bug)")
    });
    let text = |n: u32| tables.text(block, n);
    let players = (p.players.into_iter())
        .map(|f| {
            let who = tables.who(block, f.who);
            MatchPlayer::with_who(who, f.score, f.joined, f.left, f.team, f.active)
        })
        .collect();
    let weapons = match p.weapons {
        PackedWeapons::Numbered(numbers) => WeaponList::from_numbers(numbers.into()),
        PackedWeapons::Named(names) => names.into_iter().map(text).collect(),
    };
    Match {
        id: p.id.into(),
        content: p.content,
        open: p.open,
        number: 0,
        source: text(p.source),
        file_index: p.file_index,
        line: p.line,
        map: text(p.map),
        game: text(p.game),
        gametype: tables.game_type(block, p.gametype),
        server: text(p.server),
        start: p.start.and_then(|(days, secs, nanos)| {
            let date = NaiveDate::from_num_days_from_ce_opt(days)?;
            Some(date.and_time(NaiveTime::from_num_seconds_from_midnight_opt(secs, nanos)?))
        }),
        duration_seconds: p.duration_seconds,
        exit_reason: p.exit_reason.map(text),
        team_scores: p.team_scores,
        partial: p.partial,
        players,
        events: Default::default(),
        weapons,
        awards: p.awards.into_iter().map(text).collect(),
        rounds: (p.rounds.into_iter())
            .map(|(end, winner, how)| Round {
                end,
                winner,
                how: text(how),
            })
            .collect(),
        spots: p.spots.into(),
    }
}

/// The first field of a [`Packed`] match (postcard reads it from the start of the match's
/// bytes and leaves the rest).
#[derive(Deserialize)]
struct PackedPlayers {
    players: Vec<PackedPlayer>,
}

/// Gives `each` the identity fields of each player of the match at `at` of `block`, in order, borrowed from the block's bytes: what the roster reads of every match,
/// with nothing else decoded and no text made.
pub fn each_who(tables: &Tables, block: &[u8], at: usize, each: &mut dyn FnMut(WhoRef)) {
    let bytes = block.get(at..).unwrap_or_default();
    let p: PackedPlayers = postcard::from_bytes(bytes).unwrap_or_else(|e| {
        panic!("a match packed by this build does not read: {e} (a fragstats bug)")
    });
    for f in p.players {
        match tables.whos.get(f.who as usize) {
            Some(w) => each(WhoRef {
                plain: tables.str(block, w.plain),
                name: tables.str(block, w.name),
                uid: w.uid,
                bot: w.bot,
            }),
            None => each(Who::default().view()),
        }
    }
}

/// The start of `m` as [`NaiveDateTime`] reads it back (for the tests' cases).
#[cfg(test)]
fn same_start(t: NaiveDateTime) -> bool {
    let mut w = BlockWriter::default();
    let mut m = crate::testdata::bare_match("ffa", &[]);
    m.start = Some(t);
    let at = w.push(&m);
    let bytes = w.finish();
    let (tables, body) = read_block(&bytes);
    decode(&tables, &bytes, body + at as usize).start == Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Event, EventKind, PlayerFields};

    /// Every field of a match reads back as it was, with texts, players and game types shared
    /// by the matches of one block, a weapon list of its own, rare lists, and odd values.
    #[test]
    fn a_match_reads_back_as_it_was() {
        let player = |name: &str, skill: Option<f32>, uid: Option<u64>, left: Option<u32>| {
            MatchPlayer::from(PlayerFields {
                plain: Text::new(name),
                name: Text::new(&format!("^1{name}")),
                score: (name != "b").then_some(-4),
                team: Team::Red,
                joined: 7,
                left,
                active: name != "c",
                bot_skill: skill,
                uid,
                bot: skill.is_some(),
            })
        };
        let mut a = crate::testdata::bare_match("ctf", &[]);
        a.id = "0123456789abcdef".into();
        a.content = u64::MAX;
        a.open = true;
        a.line = 1 << 40;
        a.start = NaiveDate::from_ymd_opt(2024, 2, 29).and_then(|d| d.and_hms_opt(23, 59, 58));
        a.duration_seconds = 901;
        a.exit_reason = Some("Capturelimit hit.".into());
        a.team_scores = Some([-1, 8]);
        a.partial = true;
        a.players = vec![
            player("a", Some(f32::NAN), None, Some(30)),
            player("b", None, Some(u64::MAX), None),
            player("c", Some(4.0), Some(3), None),
        ];
        a.weapons = ["MOD_RAILGUN", "MOD_GAUNTLET"].into_iter().collect();
        a.awards = vec![Text::new("EXCELLENT")].into();
        a.rounds = vec![Round {
            end: 60,
            winner: Team::Blue,
            how: "CTs_Win".into(),
        }]
        .into();
        a.spots = vec![KillSpots {
            line: 9,
            killer: [1, -2, 3],
            victim: [i32::MIN, 0, i32::MAX],
            sides: [Team::Red, Team::Blue],
        }]
        .into();
        a.events.push(Event {
            time: 1,
            line: 2,
            kind: EventKind::Suicide,
            actor: 0,
            target: crate::model::NO_PLAYER,
            detail: 0,
        });
        let mut b = a.clone();
        b.id = "other".into();
        b.start = None;
        b.exit_reason = None;
        b.map = "q3dm17".into();
        b.weapons = ["x".repeat(100).as_str()].into_iter().collect();
        assert!(b.weapons.numbers().is_none(), "a name beyond the table's");
        b.gametype = GameType::new("ffa", "Free For All", false, false);
        b.players.reverse();

        let mut w = BlockWriter::default();
        let places: Vec<u32> = [&a, &b].iter().map(|m| w.push(m)).collect();
        assert!(!w.is_empty() && places[0] == 0 && (places[1] as usize) < w.len());
        let bytes = w.finish();
        let (tables, body) = read_block(&bytes);
        for (m, at) in [&a, &b].into_iter().zip(places) {
            let back = decode(&tables, &bytes, body + at as usize);
            let mut whos = Vec::new();
            each_who(&tables, &bytes, body + at as usize, &mut |w| {
                whos.push((w.plain.to_string(), w.name.to_string(), w.uid, w.bot));
            });
            let want_whos: Vec<_> = (m.players.iter())
                .map(|p| (p.plain.to_string(), p.name.to_string(), p.uid, p.bot))
                .collect();
            assert_eq!(whos, want_whos);
            let want = Match {
                events: Default::default(),
                ..m.clone()
            };
            assert_eq!(format!("{back:?}"), format!("{want:?}"));
            for (p, q) in back.players.iter().zip(&want.players) {
                assert_eq!(p.bot_skill.map(f32::to_bits), q.bot_skill.map(f32::to_bits));
            }
        }
    }

    /// Starts read back to the nanosecond, a leap second and the calendar's ends included.
    #[test]
    fn starts_read_back_exactly() {
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
        for t in [
            day(2024, 1, 2).and_hms_nano_opt(3, 4, 5, 6).unwrap(),
            day(2016, 12, 31)
                .and_hms_nano_opt(23, 59, 59, 1_500_000_000)
                .unwrap(),
            NaiveDateTime::MIN,
            NaiveDateTime::MAX,
            day(1, 1, 1).and_hms_opt(0, 0, 0).unwrap(),
        ] {
            assert!(same_start(t), "{t:?}");
        }
    }
}
