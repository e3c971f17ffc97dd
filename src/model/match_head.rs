//! [`MatchHead`]: what pages list, key and count a match by (its id, where it was read, map,
//! server, game type, start, length, how it ended), without its players or events. A
//! [`super::History`] holds each match's head decoded beside its packed description ([`HeldHead`],
//! 88 bytes, the texts it shares with other heads as numbers into the history's tables, against
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
    pub id: &'a str,
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
            id: &m.id,
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
/// the texts it shares with many other matches, once in the history's [`HeadTable`]. 88 bytes
/// (with its texts held, 128: 2.6 MB more at 64,000 matches, issue 41).
pub(super) struct HeldHead {
    id: ShortId,
    content: u64,
    line: u64,
    file_index: u32,
    /// Its [`HeadTexts`], by their number in the history's [`HeadTable`].
    texts: u32,
    /// Its server, by its number in the history's [`HeadTable`] (apart from the other texts:
    /// a server may name itself anew each match, as the synthetic benchmarks' do).
    server: u32,
    start: Option<NaiveDateTime>,
    duration_seconds: u32,
    final_team_scores: Option<[i32; 2]>,
    partial: bool,
    open: bool,
    has_spots: bool,
    two_sides: bool,
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
        Renumbering {
            texts: self.texts.numbers_of(&local.texts),
            servers: self.servers.numbers_of(&local.servers),
        }
    }

    /// Lets go of the lookups of texts (once every head is in: they only find numbers).
    pub(super) fn seal(&mut self) {
        self.texts.seal();
        self.servers.seal();
    }
}

/// What a head's numbers of texts become in another table ([`HeadTable::renumbering`]).
pub(super) struct Renumbering {
    texts: Vec<u32>,
    servers: Vec<u32>,
}

impl HeldHead {
    /// Its numbers of texts as the table `renumbering` was made for gives them.
    pub(super) fn renumber(&mut self, renumbering: &Renumbering) {
        self.texts = renumbering.texts[self.texts as usize];
        self.server = renumbering.servers[self.server as usize];
    }

    /// See [`Match::id`].
    pub(super) fn id(&self) -> &str {
        self.id.as_str()
    }

    /// Gives it the id `id` (a copy's, told apart).
    pub(super) fn rename(&mut self, id: &str) {
        self.id = ShortId::new(id);
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
                id: ShortId::Held([0; ID_LEN]),
                content: 0,
                line: 0,
                file_index: 0,
                texts: 0,
                server: 0,
                start: None,
                duration_seconds: 0,
                final_team_scores: None,
                partial: false,
                open: false,
                has_spots: false,
                two_sides: false,
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
        HeldHead {
            id: ShortId::new(&m.id),
            content: m.content,
            line: m.line,
            file_index: m.file_index,
            texts,
            server,
            start: m.start,
            duration_seconds: m.duration_seconds,
            final_team_scores: m.final_team_scores(),
            partial: m.partial,
            open: m.open,
            has_spots: !m.spots.is_empty(),
            two_sides: two_sides(m),
        }
    }

    /// The head, as match number `number`, its texts from `table` (the one it was made with,
    /// or the one that absorbed it).
    pub(super) fn head<'a>(&'a self, number: u32, table: &'a HeadTable) -> MatchHead<'a> {
        let texts = &table.texts.values[self.texts as usize];
        MatchHead {
            id: self.id.as_str(),
            content: self.content,
            number,
            source: &texts.source,
            file_index: self.file_index,
            line: self.line,
            map: &texts.map,
            game: &texts.game,
            gametype: &texts.gametype,
            server: &table.servers.values[self.server as usize],
            start: self.start,
            duration_seconds: self.duration_seconds,
            exit_reason: texts.exit_reason.as_ref(),
            partial: self.partial,
            open: self.open,
            scores: Scores::Held(self.final_team_scores),
            has_spots: self.has_spots,
            two_sides: self.two_sides,
        }
    }
}

/// A match id held in place when it has the parsers' 16 characters (a hash in hex), not on
/// the heap: a small allocation per match beside the heads.
enum ShortId {
    Held([u8; ID_LEN]),
    Long(Box<str>),
}

/// The length of the ids the parsers make.
const ID_LEN: usize = 16;

impl ShortId {
    fn new(id: &str) -> ShortId {
        match <[u8; ID_LEN]>::try_from(id.as_bytes()) {
            Ok(bytes) => ShortId::Held(bytes),
            Err(_) => ShortId::Long(id.into()),
        }
    }

    fn as_str(&self) -> &str {
        match self {
            // The bytes of a whole `str`, copied as they were.
            ShortId::Held(bytes) => std::str::from_utf8(bytes).unwrap_or_default(),
            ShortId::Long(id) => id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Team;

    /// A held head gives the fields of the match it was made of, whatever the id's length.
    #[test]
    fn a_held_head_reads_back_as_the_match() {
        let mut m = crate::testdata::bare_match("ctf", &[("a", Team::Red), ("b", Team::Blue)]);
        m.team_scores = Some([3, 1]);
        m.start =
            chrono::NaiveDate::from_ymd_opt(2026, 11, 29).and_then(|d| d.and_hms_opt(17, 30, 5));
        m.exit_reason = Some("Capturelimit hit.".into());
        let mut table = HeadTable::default();
        for id in ["0123456789abcdef", "short", "é123456789abcde", ""] {
            m.id = id.into();
            let held = HeldHead::of(&m, &mut table);
            let (a, b) = (held.head(7, &table), MatchHead::of(&m));
            assert_eq!(a.id, id);
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
            assert!(!a.partial && !a.has_spots && a.two_sides);
            assert_eq!(a.two_sides, b.two_sides);
        }
        assert_eq!(table.texts.values.len(), 1, "the same texts are held once");
        assert!(size_of::<HeldHead>() <= 88, "{}", size_of::<HeldHead>());
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
}
