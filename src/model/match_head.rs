//! [`MatchHead`]: what pages list, key and count a match by (its id, where it was read, map,
//! server, game type, start, length, how it ended), without its players or events. A
//! [`super::History`] holds each match's head decoded beside its packed description
//! ([`HeldHead`], 128 bytes by its type's size, against about 440 for a decoded description), so that the steps
//! which read only these fields of every match (the lists' rows, every page's key, the
//! servers' pages) decode no match: an append to a long history keys every page again (issue
//! 41). Not a match: [`super::Match`] is the whole of one.

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

/// A match's head as a history holds it (its number is kept apart, in the history's places).
pub(super) struct HeldHead {
    id: ShortId,
    content: u64,
    line: u64,
    source: Text,
    file_index: u32,
    map: Text,
    game: Text,
    gametype: GameType,
    server: Text,
    start: Option<NaiveDateTime>,
    duration_seconds: u32,
    exit_reason: Option<Text>,
    final_team_scores: Option<[i32; 2]>,
    partial: bool,
    has_spots: bool,
    two_sides: bool,
}

impl HeldHead {
    /// The head of `m`, held.
    pub(super) fn of(m: &Match) -> HeldHead {
        HeldHead {
            id: ShortId::new(&m.id),
            content: m.content,
            line: m.line,
            source: m.source.clone(),
            file_index: m.file_index,
            map: m.map.clone(),
            game: m.game.clone(),
            gametype: m.gametype.clone(),
            server: m.server.clone(),
            start: m.start,
            duration_seconds: m.duration_seconds,
            exit_reason: m.exit_reason.clone(),
            final_team_scores: m.final_team_scores(),
            partial: m.partial,
            has_spots: !m.spots.is_empty(),
            two_sides: two_sides(m),
        }
    }

    /// The head, as match number `number`.
    pub(super) fn head(&self, number: u32) -> MatchHead<'_> {
        MatchHead {
            id: self.id.as_str(),
            content: self.content,
            number,
            source: &self.source,
            file_index: self.file_index,
            line: self.line,
            map: &self.map,
            game: &self.game,
            gametype: &self.gametype,
            server: &self.server,
            start: self.start,
            duration_seconds: self.duration_seconds,
            exit_reason: self.exit_reason.as_ref(),
            partial: self.partial,
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
        for id in ["0123456789abcdef", "short", "é123456789abcde", ""] {
            m.id = id.into();
            let held = HeldHead::of(&m);
            let (a, b) = (held.head(7), MatchHead::of(&m));
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
    }
}
