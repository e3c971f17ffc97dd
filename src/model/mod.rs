//! The game-neutral event model every log parser produces: matches, the players in them and what
//! happened (frags, suicides, team kills, flag events, awards, team changes). It knows nothing of
//! log syntax, ratings or HTML.

pub mod clans;
pub mod events;
pub mod events_list;
pub mod game_type;
pub mod history;
pub mod identity;
pub mod match_head;
pub mod match_ids;
pub mod match_list;
pub mod match_player;
pub mod moderation;
pub mod name_filter;
pub mod names;
pub mod packed_match;
pub mod rare_list;
pub mod text;
pub mod weapon_list;
pub mod weapons;

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

pub use events::Events;
pub use history::{History, Pick, StagedLog};
pub use match_head::{HeadId, MatchHead};
pub use match_list::{MatchList, MatchRef};
pub use match_player::{MatchPlayer, PlayerFields, Who, WhoRef};
pub use rare_list::RareList;
pub use text::Text;
pub use weapon_list::WeaponList;

/// A side in a match. `Free` is "no team" (free-for-all); `Spectator` is not playing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub enum Team {
    Free,
    Red,
    Blue,
    Spectator,
}

impl Team {
    /// True for red and blue, the two sides that can team-kill and capture.
    pub fn is_side(self) -> bool {
        matches!(self, Team::Red | Team::Blue)
    }

    /// True when the player takes part in play (not a spectator).
    pub fn is_playing(self) -> bool {
        self != Team::Spectator
    }

    /// The opposing side, for red and blue.
    pub fn opponent(self) -> Option<Team> {
        match self {
            Team::Red => Some(Team::Blue),
            Team::Blue => Some(Team::Red),
            _ => None,
        }
    }

    /// Lower-case English name used in pages and JSON.
    pub fn label(self) -> &'static str {
        match self {
            Team::Free => "free",
            Team::Red => "red",
            Team::Blue => "blue",
            Team::Spectator => "spectator",
        }
    }
}

pub use game_type::{GameType, GameTypeInfo};

/// What a flag event was. Captures score; the others are configurable extras.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FlagAction {
    Pickup,
    Capture,
    Return,
    Drop,
    CarrierKill,
    /// Counter-Strike: planted the bomb.
    BombPlant,
    /// Counter-Strike: defused the bomb.
    BombDefuse,
    /// Counter-Strike: the bomb this player planted exploded.
    BombExplode,
    /// Team Fortress 2: took part in capturing a control point.
    PointCapture,
}

/// One thing that happened in a match. Player numbers index [`Match::players`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum EventKind {
    /// `actor` killed `target`, who was not a team mate.
    Frag,
    /// `actor` killed themself (own weapon, world, environment).
    Suicide,
    /// `actor` killed team mate `target`.
    TeamKill,
    /// `actor` did something with a flag of side `flag_team`.
    Flag(FlagAction, Team),
    /// `actor` received the award `detail` (index into [`Match::awards`]).
    Award,
    /// `actor` is now on `team` (first assignment included).
    TeamChange(Team),
    /// `actor` left the server.
    Leave,
    /// `actor` helped kill `target` (Half-Life `kill assist`, CS:GO `assisted killing`).
    Assist,
    /// The frag or team kill just before was a headshot by `actor` on `target` (same weapon).
    Headshot,
}

/// Marker for "no second player" in [`Event::target`].
pub const NO_PLAYER: u32 = u32::MAX;

/// A timed event inside a match.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Seconds since the match started.
    pub time: u32,
    /// 1-based line number in the source file (for diagnostics and ordering).
    pub line: u64,
    pub kind: EventKind,
    /// The player acting (killer, suicider, capturer).
    pub actor: u32,
    /// The victim of a frag or team kill, else [`NO_PLAYER`].
    pub target: u32,
    /// Weapon index into [`Match::weapons`] for kills, award index for awards, else 0.
    pub detail: u16,
}

/// One match (one map played from InitGame to its end), in game-neutral form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Match {
    /// Stable id (hex) for the life of the match: a fingerprint of its opening lines up to its
    /// fourth kill (all its lines when it has fewer), so a match still being played keeps its
    /// id, and its page its URL, when the rest of it arrives.
    pub id: Box<str>,
    /// Fingerprint of all its lines: the same match uploaded twice has the same content.
    pub content: u64,
    /// The file ended inside this match (no ShutdownGame or next InitGame yet): it may go on.
    pub open: bool,
    /// Number in the order matches were first read (1-based), kept for the match's life: the
    /// label of an undated match ("Match N"). Assigned by each build from the state; 0 = none.
    #[serde(skip)]
    pub number: u32,
    /// Log file path relative to its log root, with `/` separators.
    pub source: Text,
    /// Index of the source file in crawl order (for stable ordering).
    pub file_index: u32,
    /// 1-based line where the match starts in the source file.
    pub line: u64,
    pub map: Text,
    /// Which game the log was written by: a code from [`game_name`] (`quake3`, `openarena`,
    /// `urt`, ...).
    #[serde(default)]
    pub game: Text,
    pub gametype: GameType,
    /// Server name as written (colour codes kept).
    pub server: Text,
    /// Absolute start time (server local time), when the log has one.
    pub start: Option<NaiveDateTime>,
    pub duration_seconds: u32,
    /// Why the match ended (`Fraglimit hit.`), if logged.
    pub exit_reason: Option<Text>,
    /// Final red and blue scores, in team games that logged them.
    pub team_scores: Option<[i32; 2]>,
    /// The file began in the middle of this match (its start is missing).
    pub partial: bool,
    /// Everyone the log shows in the match, in the order they first appeared (the numbers the
    /// events give players). A `Vec`, trimmed once the match is settled: a list without room
    /// to grow is 8 bytes less, but moving it at each player added left freed lists among the
    /// kept ones and raised the resident peak (`benches/RESULTS.md`, tenth stop).
    pub players: Vec<MatchPlayer>,
    /// What happened, in order (decoded on first use when read back from the state).
    pub events: Events,
    /// Weapon (means of death) names, indexed by [`Event::detail`] of kill events.
    pub weapons: WeaponList,
    /// Award names, indexed by [`Event::detail`] of award events.
    pub awards: RareList<Text>,
    /// The rounds played, in order, with their winners (round-based games: Counter-Strike, Team
    /// Fortress 2); empty when the log has none.
    #[serde(default)]
    pub rounds: RareList<Round>,
    /// Where the killer stood and the victim fell, for the kills whose log line says so
    /// (Counter-Strike: Global Offensive and CS2 after each player, Team Fortress 2 in
    /// `attacker_position` and `victim_position`), in line order; empty when the log has none.
    #[serde(default)]
    pub spots: RareList<KillSpots>,
}

/// The positions of one kill, in the game's world units, as the log wrote them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KillSpots {
    /// The line of the kill (its frag or team kill event's [`Event::line`]): a key that stays
    /// when events are taken out of a match (an excluded player's).
    pub line: u64,
    /// Where the killer stood: x, y, z.
    pub killer: [i32; 3],
    /// Where the victim fell: x, y, z.
    pub victim: [i32; 3],
    /// The killer's side and the victim's when the kill happened (sides swap at half time).
    pub sides: [Team; 2],
}

/// One round of a round-based match and who won it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// Seconds since the match started when the round ended.
    pub end: u32,
    /// The winning side (`Free` for a draw or stalemate).
    pub winner: Team,
    /// How the log says it was won (`Target_Bombed`, `CTs_Win`, ...), as written.
    pub how: Text,
}

/// The display name of a game code ([`Match::game`]); unknown codes show as themselves.
pub fn game_name(code: &str) -> &str {
    match code {
        "quake3" => "Quake III Arena",
        "openarena" => "OpenArena",
        "urt" => "Urban Terror",
        "cs16" => "Counter-Strike 1.6",
        "csgo" => "Counter-Strike: Global Offensive",
        "cs2" => "Counter-Strike 2",
        "tf2" => "Team Fortress 2",
        "l4d2" => "Left 4 Dead 2",
        "css" => "Counter-Strike: Source",
        "hl" => "Half-Life engine game",
        "cod2" => "Call of Duty 2",
        "cod4" => "Call of Duty 4",
        "iw4x" => "Call of Duty: Modern Warfare 2 (IW4x)",
        "codwaw" => "Call of Duty: World at War",
        "et" => "Wolfenstein: Enemy Territory",
        "" => "unknown game",
        other => other,
    }
}

/// True when the logs of game `code` name a player's authenticated account (Half-Life engine
/// games' Steam ids, Call of Duty and Enemy Territory GUIDs): the account is the player. The
/// Quake 3 family's client ids are the player's own to choose, so its logs do not.
pub fn logs_accounts(code: &str) -> bool {
    !matches!(code, "quake3" | "openarena" | "urt" | "")
}

impl Match {
    /// Readies a parsed match to be kept for the whole build, as a match read back from the
    /// state is: its lists without the room they grew into, its players' [`Who`]s shared, its
    /// events packed ([`Events::pack`]: its log's matches wait until the whole log is read).
    pub fn settle(&mut self) {
        self.events.pack();
        self.players.shrink_to_fit();
        self.players.iter_mut().for_each(MatchPlayer::share);
        self.awards.shrink_to_fit();
        self.rounds.shrink_to_fit();
        self.spots.shrink_to_fit();
    }

    /// Players that took part in play.
    pub fn active_players(&self) -> impl Iterator<Item = (usize, &MatchPlayer)> {
        self.players.iter().enumerate().filter(|(_, p)| p.active)
    }

    /// A team match's final score, red then blue: as logged, else, for a capture-the-flag match
    /// that ended before any score line (a map change), the captures each side made, each
    /// scored for the capturer's team at that moment (the flag a capture line names is the
    /// enemy's in some games and the capturer's own in others). None for other matches.
    pub fn final_team_scores(&self) -> Option<[i32; 2]> {
        if !self.gametype.team_based {
            return None;
        }
        if self.team_scores.is_some() || self.gametype.code != "ctf" {
            return self.team_scores;
        }
        let mut score = [0i32; 2];
        // Each player's team as the events go; before their first change, their last team.
        let mut team: Vec<Team> = self.players.iter().map(|p| p.team).collect();
        let mut changed = vec![false; team.len()];
        for (p, t) in self.events.read().iter().filter_map(|e| match e.kind {
            EventKind::TeamChange(t) => Some((e.actor as usize, t)),
            _ => None,
        }) {
            if let Some(c) = changed.get_mut(p).filter(|c| !**c) {
                *c = true;
                team[p] = t;
            }
        }
        for e in self.events.read().iter() {
            let p = e.actor as usize;
            match e.kind {
                EventKind::TeamChange(t) if p < team.len() => team[p] = t,
                EventKind::Flag(FlagAction::Capture, _) => match team.get(p) {
                    Some(Team::Red) => score[0] = score[0].saturating_add(1),
                    Some(Team::Blue) => score[1] = score[1].saturating_add(1),
                    _ => {}
                },
                _ => {}
            }
        }
        Some(score)
    }

    /// Number of frags (kills that were neither suicides nor team kills).
    pub fn frag_count(&self) -> usize {
        self.events
            .read()
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Frag))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A match's description stays in memory for the whole build, one per match of the
    /// history (issue 41): its lists that most matches leave empty are a pointer each, its
    /// game type is shared, its weapons' list and its id have no room to grow, and its events
    /// are two words (a history holds them for every match).
    #[test]
    fn a_match_takes_at_most_208_bytes_in_memory() {
        assert!(std::mem::size_of::<Match>() <= 208);
        assert_eq!(std::mem::size_of::<RareList<Round>>(), 8);
        assert_eq!(std::mem::size_of::<Events>(), 16);
    }

    fn event(time: u32, kind: EventKind, actor: u32) -> Event {
        Event {
            time,
            line: u64::from(time),
            kind,
            actor,
            target: NO_PLAYER,
            detail: 0,
        }
    }

    /// A CTF match that ended on a map change (no score line) scores its captures, each for the
    /// capturer's team when they captured, whichever flag the line names.
    #[test]
    fn final_team_scores_count_captures_by_the_capturers_team_then() {
        let mut m = crate::testdata::bare_match("ctf", &[("a", Team::Red), ("b", Team::Blue)]);
        let capture = |flag| EventKind::Flag(FlagAction::Capture, flag);
        m.events = vec![
            event(1, EventKind::TeamChange(Team::Blue), 0),
            event(2, capture(Team::Red), 0),
            event(3, EventKind::TeamChange(Team::Red), 0),
            event(4, capture(Team::Blue), 0),
            event(5, capture(Team::Blue), 1),
            event(6, EventKind::Flag(FlagAction::Pickup, Team::Red), 1),
        ]
        .into();
        assert_eq!(m.final_team_scores(), Some([1, 2]));
        // A logged score is the score.
        m.team_scores = Some([5, 0]);
        assert_eq!(m.final_team_scores(), Some([5, 0]));
        // Other team games without a score line have none; non-team games never.
        m.team_scores = None;
        m.gametype = GameType::new("tdm", "tdm", true, false);
        assert_eq!(m.final_team_scores(), None);
        m.gametype = GameType::new("tdm", "tdm", false, false);
        m.team_scores = Some([1, 1]);
        assert_eq!(m.final_team_scores(), None);
    }
}
