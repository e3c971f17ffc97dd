//! [`MatchHead`]: what pages list, key and count a match by (its id, where it was read, map,
//! server, game type, start, length, how it ended), without its players or events. A
//! [`super::History`] holds each match's head decoded beside its packed description ([`HeldHead`],
//! 64 bytes, the texts it shares with other heads as numbers into the history's tables, against
//! about 440 for a decoded description), so that the steps which read only these fields of every
//! match (the lists' rows, every page's key, the servers' pages) decode no match: an append to a
//! long history keys every page again (issue 41). Not a match: [`super::Match`] is the whole of
//! one.

use std::collections::HashMap;

use chrono::NaiveDateTime;

use super::{GameType, Match, Team, Text};

/// A match's listed fields, borrowed from the match or from its history's heads.
#[derive(Clone, Copy)]
pub struct MatchHead<'a> {
    /// See [`Match::id`].
    pub id: HeadId<'a>,
    /// See [`Match::content`].
    pub content: u64,
    /// See [`Match::number`].
    pub number: u32,
    /// See [`Match::source`].
    pub source: &'a Text,
    /// See [`Match::file_index`].
    pub file_index: u32,
    /// See [`Match::line`].
    pub line: u64,
    /// See [`Match::map`].
    pub map: &'a Text,
    /// See [`Match::game`].
    pub game: &'a Text,
    /// See [`Match::gametype`].
    pub gametype: &'a GameType,
    /// See [`Match::server`].
    pub server: &'a Text,
    /// See [`Match::start`].
    pub start: Option<NaiveDateTime>,
    /// See [`Match::duration_seconds`].
    pub duration_seconds: u32,
    /// See [`Match::exit_reason`].
    pub exit_reason: Option<&'a Text>,
    /// See [`Match::partial`].
    pub partial: bool,
    /// See [`Match::open`].
    pub open: bool,
    /// See [`MatchHead::final_team_scores`].
    scores: Scores<'a>,
    /// The match has kill positions ([`Match::spots`] is not empty).
    pub has_spots: bool,
    /// Some player of the match ended it on red and some on blue.
    pub two_sides: bool,
}

/// A head's final team scores: held, or worked out from the match when asked for (a step that
/// reads the heads of matches in memory may not need them, and a capture the flag match that
/// logged none counts them from its events).
#[derive(Clone, Copy)]
enum Scores<'a> {
    Held(Option<[i32; 2]>),
    Of(&'a Match),
}

impl<'a> MatchHead<'a> {
    /// The head of `m`.
    pub fn of(m: &'a Match) -> MatchHead<'a> {
        MatchHead {
            id: HeadId::Text(&m.id),
            content: m.content,
            number: m.number,
            source: &m.source,
            file_index: m.file_index,
            line: m.line,
            map: &m.map,
            game: &m.game,
            gametype: &m.gametype,
            server: &m.server,
            start: m.start,
            duration_seconds: m.duration_seconds,
            exit_reason: m.exit_reason.as_ref(),
            partial: m.partial,
            open: m.open,
            scores: Scores::Of(m),
            has_spots: !m.spots.is_empty(),
            two_sides: two_sides(m),
        }
    }

    /// See [`Match::final_team_scores`] (worked out once for a history's matches).
    pub fn final_team_scores(&self) -> Option<[i32; 2]> {
        match self.scores {
            Scores::Held(scores) => scores,
            Scores::Of(m) => m.final_team_scores(),
        }
    }
}

/// Whether some player of `m` ended it on red and some on blue.
fn two_sides(m: &Match) -> bool {
    let on = |team| m.players.iter().any(|p| p.team == team);
    on(Team::Red) && on(Team::Blue)
}

/// A match's head as a history holds it: its number is kept apart, in the history's places, and
/// the texts it shares with many other matches, once in the history's [`HeadTable`], as is an id
/// the parsers did not make. 64 bytes (with its id and start held as a match holds them, 88:
/// 1.5 MB more at 64,000 matches, issue 41); packed, about 30 ([`HeldHead::pack`]).
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(super) struct HeldHead {
    /// The id's 16 hex digits as a number, or with [`LONG_ID`] the id's number in the
    /// [`HeadTable`].
    id: u64,
    content: u64,
    line: u64,
    /// The start, or any time without [`STARTED`].
    start: NaiveDateTime,
    file_index: u32,
    /// Its [`HeadTexts`], by their number in the history's [`HeadTable`].
    texts: u32,
    /// Its server, by its number in the history's [`HeadTable`] (apart from the other texts:
    /// a server may name itself anew each match, as the synthetic benchmarks' do).
    server: u32,
    duration_seconds: u32,
    /// The final team scores, or any without [`SCORED`].
    scores: [i32; 2],
    /// [`PARTIAL`], [`OPEN`], [`HAS_SPOTS`], [`TWO_SIDES`], [`LONG_ID`], [`STARTED`] and
    /// [`SCORED`].
    flags: u8,
}

/// [`HeldHead::flags`]: see [`Match::partial`].
const PARTIAL: u8 = 1;
/// [`HeldHead::flags`]: see [`Match::open`].
const OPEN: u8 = 1 << 1;
/// [`HeldHead::flags`]: see [`MatchHead::has_spots`].
const HAS_SPOTS: u8 = 1 << 2;
/// [`HeldHead::flags`]: see [`MatchHead::two_sides`].
const TWO_SIDES: u8 = 1 << 3;
/// [`HeldHead::flags`]: the id is not 16 hex digits, and is held in the [`HeadTable`].
const LONG_ID: u8 = 1 << 4;
/// [`HeldHead::flags`]: the match has a start.
const STARTED: u8 = 1 << 5;
/// [`HeldHead::flags`]: the match has final team scores.
const SCORED: u8 = 1 << 6;

/// The length of the ids the parsers make: a 64-bit hash in lowercase hex.
const ID_LEN: usize = 16;

/// A match's id as its head gives it: the parsers' 16 hex digits held in place (a history
/// holds them as a number), or a text borrowed from the match or the history. Compared,
/// hashed and ordered as its text.
#[derive(Clone, Copy)]
pub enum HeadId<'a> {
    Hex([u8; ID_LEN]),
    Text(&'a str),
}

impl<'a> HeadId<'a> {
    /// The id of 16 lowercase hex digits that the number `n` is written as.
    fn of_number(n: u64) -> HeadId<'a> {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut bytes = [0u8; ID_LEN];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = DIGITS[(n >> (60 - 4 * i) & 0xf) as usize];
        }
        HeadId::Hex(bytes)
    }

    /// The number whose 16 lowercase hex digits `id` is, if it is that.
    fn number_of(id: &str) -> Option<u64> {
        let hex = id.len() == ID_LEN && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        hex.then(|| u64::from_str_radix(id, 16).ok()).flatten()
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        match self {
            // Hex digits only (see `of_number`).
            HeadId::Hex(bytes) => std::str::from_utf8(bytes).unwrap_or_default(),
            HeadId::Text(id) => id,
        }
    }
}

impl std::ops::Deref for HeadId<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for HeadId<'_> {
    fn eq(&self, other: &HeadId<'_>) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for HeadId<'_> {}

impl PartialOrd for HeadId<'_> {
    fn partial_cmp(&self, other: &HeadId<'_>) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for HeadId<'_> {
    fn cmp(&self, other: &HeadId<'_>) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for HeadId<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl std::fmt::Display for HeadId<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for HeadId<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl serde::Serialize for HeadId<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// Found in a set of ids by its text (hashed and compared as its text).
impl std::borrow::Borrow<str> for HeadId<'_> {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq<str> for HeadId<'_> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for HeadId<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// What a match's head shares with many other matches: where it was read, its map, game and
/// game type, and how it ended: a log's matches share their source and play a few maps, so a
/// history holds far fewer distinct ones than matches.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct HeadTexts {
    source: Text,
    map: Text,
    game: Text,
    gametype: GameType,
    exit_reason: Option<Text>,
}

impl std::hash::Hash for HeadTexts {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (&self.source, &self.map, &self.game, &self.exit_reason).hash(state);
        let t = &self.gametype;
        (&t.code, &t.name, t.team_based, t.duel).hash(state);
    }
}

/// The distinct [`HeadTexts`] and servers of a history's heads, each numbered in the order
/// they were met.
#[derive(Default)]
pub(super) struct HeadTable {
    texts: Numbered<HeadTexts>,
    servers: Numbered<Text>,
    /// The ids of its heads that are not the parsers' 16 hex digits (a copy's, renamed).
    long_ids: Vec<Text>,
}

/// Distinct values, numbered in the order they were met.
struct Numbered<T> {
    values: Vec<T>,
    numbers: HashMap<T, u32, ahash::RandomState>,
}

impl<T> Default for Numbered<T> {
    fn default() -> Numbered<T> {
        Numbered {
            values: Vec::new(),
            numbers: HashMap::default(),
        }
    }
}

impl<T: Clone + Eq + std::hash::Hash> Numbered<T> {
    /// The number of `value`, a new one when no equal value has one yet.
    fn number(&mut self, value: T) -> u32 {
        if let Some(&n) = self.numbers.get(&value) {
            return n;
        }
        let n = u32::try_from(self.values.len()).expect("fewer distinct heads than matches");
        self.values.push(value.clone());
        self.numbers.insert(value, n);
        n
    }

    /// This table's numbers of the values of `local`, in its order.
    fn numbers_of(&mut self, local: &Numbered<T>) -> Vec<u32> {
        (local.values.iter())
            .map(|v| self.number(v.clone()))
            .collect()
    }

    /// Lets go of the lookup (it only finds numbers).
    fn seal(&mut self) {
        self.numbers = HashMap::default();
        self.values.shrink_to_fit();
    }
}

impl HeadTable {
    /// Moves the heads `heads`, whose texts are numbered in `local`, into this table: their
    /// numbers become this table's.
    pub(super) fn absorb(&mut self, local: &HeadTable, heads: &mut [HeldHead]) {
        let renumbering = self.renumbering(local);
        for head in heads {
            head.renumber(&renumbering);
        }
    }

    /// This table's numbers of the texts of `local`, to move heads numbered in `local` into
    /// it one at a time ([`HeldHead::renumber`]).
    pub(super) fn renumbering(&mut self, local: &HeadTable) -> Renumbering {
        let long_ids = self.long_ids.len() as u64;
        self.long_ids.extend(local.long_ids.iter().cloned());
        Renumbering {
            texts: self.texts.numbers_of(&local.texts),
            servers: self.servers.numbers_of(&local.servers),
            long_ids,
        }
    }

    /// The number that a head of id `id` holds, and whether it is a long id's number here
    /// (then held here from now on).
    fn id_number(&mut self, id: &str) -> (u64, bool) {
        match HeadId::number_of(id) {
            Some(n) => (n, false),
            None => {
                self.long_ids.push(id.into());
                (self.long_ids.len() as u64 - 1, true)
            }
        }
    }

    /// Lets go of the lookups of texts (once every head is in: they only find numbers).
    pub(super) fn seal(&mut self) {
        self.texts.seal();
        self.servers.seal();
        self.long_ids.shrink_to_fit();
    }
}

/// The line, start (in seconds) and place among the sources a packed head's own are written as
/// differences from ([`HeldHead::pack`]): those of the first head of its block.
#[derive(Default)]
pub(super) struct PackBase {
    line: u64,
    secs: i64,
    file_index: u32,
}

impl PackBase {
    /// The base of `head`'s values (a start of 0 when it has none).
    pub(super) fn of(head: &HeldHead) -> PackBase {
        PackBase {
            line: head.line,
            secs: if head.flags & STARTED != 0 {
                head.start.and_utc().timestamp()
            } else {
                0
            },
            file_index: head.file_index,
        }
    }
}

/// Appends `v` as a LEB128 variable-length integer.
fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The LEB128 integer at the start of `bytes`, which move past it; None when it is cut off or
/// too long for 64 bits.
fn read_varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        v |= u64::from(b & 0x7f).checked_shl(7 * i as u32)?;
        if b & 0x80 == 0 {
            *bytes = &bytes[i + 1..];
            return Some(v);
        }
    }
    None
}

/// The first `N` bytes of `bytes`, which move past them.
fn take_bytes<const N: usize>(bytes: &mut &[u8]) -> Option<[u8; N]> {
    let (head, rest) = bytes.split_first_chunk::<N>()?;
    *bytes = rest;
    Some(*head)
}

/// A signed number as an unsigned one, small for small differences either way.
fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// The signed number [`zigzag`] made `v` of.
fn unzigzag(v: u64) -> i64 {
    (v >> 1) as i64 ^ -((v & 1) as i64)
}

/// What a head's numbers of texts become in another table ([`HeadTable::renumbering`]).
pub(super) struct Renumbering {
    texts: Vec<u32>,
    servers: Vec<u32>,
    /// Where the other table's long ids begin in this one's.
    long_ids: u64,
}

impl HeldHead {
    /// Its numbers of texts as the table `renumbering` was made for gives them.
    pub(super) fn renumber(&mut self, renumbering: &Renumbering) {
        self.texts = renumbering.texts[self.texts as usize];
        self.server = renumbering.servers[self.server as usize];
        if self.flags & LONG_ID != 0 {
            self.id += renumbering.long_ids;
        }
    }

    /// See [`Match::id`] (its text from `table`, the one it was made with, or the one that
    /// absorbed it).
    pub(super) fn id<'a>(&self, table: &'a HeadTable) -> HeadId<'a> {
        match self.flags & LONG_ID {
            0 => HeadId::of_number(self.id),
            _ => HeadId::Text(
                table
                    .long_ids
                    .get(self.id as usize)
                    .map_or("", |t| t.as_str()),
            ),
        }
    }

    /// Gives it the id `id` (a copy's, told apart), held in `table` when it is long.
    pub(super) fn rename(&mut self, id: &str, table: &mut HeadTable) {
        let (number, long) = table.id_number(id);
        self.id = number;
        self.flags = (self.flags & !LONG_ID) | if long { LONG_ID } else { 0 };
    }

    /// See [`Match::file_index`].
    pub(super) fn file_index(&self) -> u32 {
        self.file_index
    }

    /// Gives it the place `file_index` among the sources (the site's order of them).
    pub(super) fn set_file_index(&mut self, file_index: u32) {
        self.file_index = file_index;
    }

    /// The head, moved out, leaving one of no match in its place.
    pub(super) fn take(&mut self) -> HeldHead {
        std::mem::replace(
            self,
            HeldHead {
                id: 0,
                content: 0,
                line: 0,
                start: NaiveDateTime::default(),
                file_index: 0,
                texts: 0,
                server: 0,
                duration_seconds: 0,
                scores: [0; 2],
                flags: 0,
            },
        )
    }

    /// The head of `m`, held, its texts numbered in `table`.
    pub(super) fn of(m: &Match, table: &mut HeadTable) -> HeldHead {
        let texts = table.texts.number(HeadTexts {
            source: m.source.clone(),
            map: m.map.clone(),
            game: m.game.clone(),
            gametype: m.gametype.clone(),
            exit_reason: m.exit_reason.clone(),
        });
        let server = table.servers.number(m.server.clone());
        let (id, long) = table.id_number(&m.id);
        let scores = m.final_team_scores();
        let flag = |on: bool, flag: u8| if on { flag } else { 0 };
        HeldHead {
            id,
            content: m.content,
            line: m.line,
            start: m.start.unwrap_or_default(),
            file_index: m.file_index,
            texts,
            server,
            duration_seconds: m.duration_seconds,
            scores: scores.unwrap_or_default(),
            flags: flag(m.partial, PARTIAL)
                | flag(m.open, OPEN)
                | flag(!m.spots.is_empty(), HAS_SPOTS)
                | flag(two_sides(m), TWO_SIDES)
                | flag(long, LONG_ID)
                | flag(m.start.is_some(), STARTED)
                | flag(scores.is_some(), SCORED),
        }
    }

    /// Appends its bytes to `out`, its line, start and place among the sources as differences
    /// from `base`'s: about 30 bytes, where it is held in 64 (see [`HeldHead::unpack`]).
    pub(super) fn pack(&self, base: &PackBase, out: &mut Vec<u8>) {
        out.push(self.flags);
        if self.flags & LONG_ID != 0 {
            varint(out, self.id);
        } else {
            out.extend_from_slice(&self.id.to_le_bytes());
        }
        out.extend_from_slice(&self.content.to_le_bytes());
        varint(out, zigzag(self.line.wrapping_sub(base.line) as i64));
        if self.flags & STARTED != 0 {
            let at = self.start.and_utc();
            varint(out, zigzag(at.timestamp().wrapping_sub(base.secs)));
            varint(out, u64::from(at.timestamp_subsec_nanos()));
        }
        let file_index = i64::from(self.file_index) - i64::from(base.file_index);
        varint(out, zigzag(file_index));
        varint(out, u64::from(self.texts));
        varint(out, u64::from(self.server));
        varint(out, u64::from(self.duration_seconds));
        if self.flags & SCORED != 0 {
            for score in self.scores {
                varint(out, zigzag(i64::from(score)));
            }
        }
    }

    /// The head [`HeldHead::pack`] wrote at the start of `bytes` with the same `base`, and
    /// `bytes` moved past it; None when they hold no head.
    pub(super) fn unpack(base: &PackBase, bytes: &mut &[u8]) -> Option<HeldHead> {
        let (&flags, rest) = bytes.split_first()?;
        *bytes = rest;
        let id = if flags & LONG_ID != 0 {
            read_varint(bytes)?
        } else {
            u64::from_le_bytes(take_bytes(bytes)?)
        };
        let content = u64::from_le_bytes(take_bytes(bytes)?);
        let line = base.line.wrapping_add(unzigzag(read_varint(bytes)?) as u64);
        let mut start = NaiveDateTime::default();
        if flags & STARTED != 0 {
            let secs = base.secs.wrapping_add(unzigzag(read_varint(bytes)?));
            let nanos = u32::try_from(read_varint(bytes)?).ok()?;
            start = chrono::DateTime::from_timestamp(secs, nanos)?.naive_utc();
        }
        let file_index = i64::from(base.file_index) + unzigzag(read_varint(bytes)?);
        let file_index = u32::try_from(file_index).ok()?;
        let number = |bytes: &mut &[u8]| u32::try_from(read_varint(bytes)?).ok();
        let texts = number(bytes)?;
        let server = number(bytes)?;
        let duration_seconds = number(bytes)?;
        let mut scores = [0; 2];
        if flags & SCORED != 0 {
            for score in &mut scores {
                *score = i32::try_from(unzigzag(read_varint(bytes)?)).ok()?;
            }
        }
        Some(HeldHead {
            id,
            content,
            line,
            start,
            file_index,
            texts,
            server,
            duration_seconds,
            scores,
            flags,
        })
    }

    /// The head, as match number `number`, its texts from `table` (the one it was made with,
    /// or the one that absorbed it).
    pub(super) fn head<'a>(&self, number: u32, table: &'a HeadTable) -> MatchHead<'a> {
        let texts = &table.texts.values[self.texts as usize];
        let on = |flag: u8| self.flags & flag != 0;
        MatchHead {
            id: self.id(table),
            content: self.content,
            number,
            source: &texts.source,
            file_index: self.file_index,
            line: self.line,
            map: &texts.map,
            game: &texts.game,
            gametype: &texts.gametype,
            server: &table.servers.values[self.server as usize],
            start: on(STARTED).then_some(self.start),
            duration_seconds: self.duration_seconds,
            exit_reason: texts.exit_reason.as_ref(),
            partial: on(PARTIAL),
            open: on(OPEN),
            scores: Scores::Held(on(SCORED).then_some(self.scores)),
            has_spots: on(HAS_SPOTS),
            two_sides: on(TWO_SIDES),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Team;

    /// A held head gives the fields of the match it was made of, whatever its id (16 hex
    /// digits held as a number, any other text in the table), start and scores.
    #[test]
    fn a_held_head_reads_back_as_the_match() {
        let mut m = crate::testdata::bare_match("ctf", &[("a", Team::Red), ("b", Team::Blue)]);
        m.team_scores = Some([3, 1]);
        m.start =
            chrono::NaiveDate::from_ymd_opt(2026, 11, 29).and_then(|d| d.and_hms_opt(17, 30, 5));
        m.exit_reason = Some("Capturelimit hit.".into());
        let mut table = HeadTable::default();
        let leap = chrono::NaiveDate::from_ymd_opt(1998, 12, 31)
            .and_then(|d| d.and_hms_nano_opt(23, 59, 59, 1_500_000_000));
        let ids = [
            "0123456789abcdef",
            "ffffffffffffffff",
            "0000000000000000",
            "short",
            "é123456789abcde",
            "0123456789ABCDEF",
            "+123456789abcdef",
            "0123456789abcdef-2",
            "",
        ];
        for (k, id) in ids.into_iter().enumerate() {
            m.id = id.into();
            if k % 3 == 1 {
                m.start = [None, leap][k % 2];
            }
            let held = HeldHead::of(&m, &mut table);
            let (a, b) = (held.head(7, &table), MatchHead::of(&m));
            assert_eq!(a.id, id);
            assert_eq!((a.id, a.id.to_string()), (b.id, id.to_string()));
            assert_eq!(matches!(a.id, HeadId::Hex(_)), k < 3, "{id}");
            assert_eq!(a.number, 7);
            assert_eq!((a.content, a.line, a.start), (b.content, b.line, b.start));
            assert_eq!(
                (a.map, a.server, a.source, a.game),
                (b.map, b.server, b.source, b.game)
            );
            assert_eq!(a.gametype.code, "ctf");
            assert_eq!(a.exit_reason.map(|t| t.as_str()), Some("Capturelimit hit."));
            assert_eq!(a.final_team_scores(), Some([3, 1]));
            assert_eq!(b.final_team_scores(), Some([3, 1]));
            assert!(!a.partial && !a.has_spots && a.two_sides && !a.open);
            assert_eq!(a.two_sides, b.two_sides);
        }
        assert_eq!(table.texts.values.len(), 1, "the same texts are held once");
        assert_eq!(
            table.long_ids.len(),
            6,
            "only the ids not of 16 hex digits are held"
        );
        m.team_scores = None;
        (m.partial, m.open) = (true, true);
        let held = HeldHead::of(&m, &mut table);
        let a = held.head(1, &table);
        assert_eq!(a.final_team_scores(), MatchHead::of(&m).final_team_scores());
        assert!(a.partial && a.open);
        assert!(size_of::<HeldHead>() <= 64, "{}", size_of::<HeldHead>());
    }

    /// Heads packed one after the other read back as they were: any id, line, start (none,
    /// a leap second, before 1970, far ahead), place among the sources, duration and scores,
    /// each field at its extremes and jumping either way; bytes cut short read as no head.
    #[test]
    fn packed_heads_read_back_as_they_were() {
        let date = |y, mo, d, h, mi, s, n| {
            chrono::NaiveDate::from_ymd_opt(y, mo, d)
                .and_then(|d| d.and_hms_nano_opt(h, mi, s, n))
                .unwrap()
        };
        let starts = [
            Some(date(2026, 11, 29, 17, 30, 5, 0)),
            None,
            Some(date(1998, 12, 31, 23, 59, 59, 1_500_000_000)),
            Some(date(1969, 7, 20, 20, 17, 40, 123_456_789)),
            Some(date(2026, 11, 29, 17, 30, 4, 0)),
            Some(date(9999, 12, 31, 23, 59, 59, 999_999_999)),
        ];
        let mut heads: Vec<HeldHead> = (0..40u64)
            .map(|k| {
                let start = starts[k as usize % starts.len()];
                let scores = match k % 4 {
                    0 => None,
                    1 => Some([i32::MIN, i32::MAX]),
                    2 => Some([-1, 0]),
                    _ => Some([3, 70_000]),
                };
                let long = k % 5 == 2;
                let mut flags = (k as u8 * 7) & (PARTIAL | OPEN | HAS_SPOTS | TWO_SIDES);
                for (on, flag) in [
                    (long, LONG_ID),
                    (start.is_some(), STARTED),
                    (scores.is_some(), SCORED),
                ] {
                    if on {
                        flags |= flag;
                    }
                }
                HeldHead {
                    id: if long {
                        k
                    } else {
                        k.wrapping_mul(0x9e37_79b9_7f4a_7c15)
                    },
                    content: u64::MAX - k,
                    line: [0, u64::MAX, 12_345, 12_000, 1 << 40][k as usize % 5],
                    start: start.unwrap_or_default(),
                    file_index: [0, u32::MAX, 7, 3][k as usize % 4],
                    texts: (k as u32 * 1_000_003) % 70_000,
                    server: [0, u32::MAX][k as usize % 2],
                    duration_seconds: [u32::MAX, 0, 600][k as usize % 3],
                    scores: scores.unwrap_or_default(),
                    flags,
                }
            })
            .collect();
        for base in [
            PackBase::default(),
            PackBase::of(&heads[0]),
            PackBase::of(&heads[5]),
        ] {
            let mut bytes = Vec::new();
            for head in &heads {
                head.pack(&base, &mut bytes);
            }
            let mut read = &bytes[..];
            for head in &heads {
                assert_eq!(HeldHead::unpack(&base, &mut read).as_ref(), Some(head));
            }
            assert!(read.is_empty());
            let mut first = Vec::new();
            heads[0].pack(&base, &mut first);
            let mut cut = &bytes[..first.len() + 3];
            assert_eq!(HeldHead::unpack(&base, &mut cut).as_ref(), Some(&heads[0]));
            assert_eq!(HeldHead::unpack(&base, &mut cut), None);
            let mut cut = &bytes[..first.len() - 1];
            assert_eq!(HeldHead::unpack(&base, &mut cut), None);
        }
        // A typical head (a start hours after its block's first, a line 40,000 on, no long
        // id) packs in about half of its 64 held bytes.
        let base = PackBase::of(&heads[0]);
        let mut h = heads[4].take();
        h.line = heads[0].line + 40_000;
        h.file_index = heads[0].file_index;
        h.start = heads[0].start + chrono::Duration::seconds(50_000);
        h.flags |= STARTED;
        let mut bytes = Vec::new();
        h.pack(&base, &mut bytes);
        assert!(bytes.len() <= 32, "{} bytes", bytes.len());
    }

    /// Heads of tables made apart (the blocks packed on the thread pool) give their own texts
    /// once absorbed into one table, which holds equal texts once, however they were made.
    #[test]
    fn absorbed_heads_keep_their_texts() {
        let mut m = crate::testdata::bare_match("ffa", &[("a", Team::Free)]);
        let (mut first, mut second) = (HeadTable::default(), HeadTable::default());
        m.map = Text::unshared("q3dm17");
        let mut a = vec![HeldHead::of(&m, &mut first)];
        m.map = Text::unshared("q3dm6");
        a.push(HeldHead::of(&m, &mut first));
        m.exit_reason = Some(Text::unshared("Timelimit hit."));
        let mut b = vec![HeldHead::of(&m, &mut second)];
        m.exit_reason = None;
        m.map = Text::unshared("q3dm17");
        b.push(HeldHead::of(&m, &mut second));
        let mut all = HeadTable::default();
        all.absorb(&first, &mut a);
        all.absorb(&second, &mut b);
        all.seal();
        let read: Vec<(&str, Option<&str>)> = (a.iter().chain(&b))
            .map(|h| h.head(1, &all))
            .map(|h| (h.map.as_str(), h.exit_reason.map(Text::as_str)))
            .collect();
        assert_eq!(
            read,
            [
                ("q3dm17", None),
                ("q3dm6", None),
                ("q3dm6", Some("Timelimit hit.")),
                ("q3dm17", None)
            ]
        );
        assert_eq!((all.texts.values.len(), all.servers.values.len()), (3, 1));
    }

    /// A long id keeps its text when its head moves into another table, and when renamed.
    #[test]
    fn long_ids_move_with_their_heads() {
        let mut m = crate::testdata::bare_match("ffa", &[("a", Team::Free)]);
        let (mut first, mut second) = (HeadTable::default(), HeadTable::default());
        m.id = "first".into();
        let mut a = vec![HeldHead::of(&m, &mut first)];
        m.id = "second".into();
        let mut b = vec![HeldHead::of(&m, &mut second)];
        m.id = "00000000000000ff".into();
        b.push(HeldHead::of(&m, &mut second));
        let mut all = HeadTable::default();
        all.absorb(&first, &mut a);
        all.absorb(&second, &mut b);
        let ids: Vec<String> = (a.iter().chain(&b))
            .map(|h| h.head(1, &all).id.to_string())
            .collect();
        assert_eq!(ids, ["first", "second", "00000000000000ff"]);
        b[1].rename("00000000000000ff-2", &mut all);
        b[0].rename("0a0000000000000b", &mut all);
        assert_eq!(b[1].head(1, &all).id, "00000000000000ff-2");
        assert_eq!(b[0].head(1, &all).id, "0a0000000000000b");
    }
}
