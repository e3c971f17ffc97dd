//! The state and archive layout of format 5 (postcard, before matches named their game),
//! frozen: never change these types. A state or archive of this format is read through them,
//! so upgrading fragstats loses no match (the state is then used as a stale one: its logs are
//! read again, what it held of logs that are gone or changed is archived).

use chrono::NaiveDateTime;
use serde::Deserialize;

use super::{Archive, Archived, FileState, Fingerprint};
use std::collections::BTreeMap;

use crate::diagnostics::{Example, FileReport, Tally};
use crate::model::{Events, GameType, Match, MatchPlayer, PlayerFields, Team};
use crate::parse::Checkpoint;

/// The format number of this layout.
pub const FORMAT: u32 = 5;

/// The archive in the body of a format 5 archive file.
pub fn archive(body: &[u8]) -> Option<Archive> {
    postcard::from_bytes::<frozen::Archive>(body)
        .ok()
        .map(Into::into)
}

/// The per-log state in the body of a format 5 per-log file.
pub fn file_state(body: &[u8]) -> Option<FileState> {
    postcard::from_bytes::<frozen::FileState>(body)
        .ok()
        .map(Into::into)
}

/// The index of a format 5 state file (header included), which had this layout.
#[derive(Deserialize)]
pub struct Index {
    /// Read to keep the layout; the header was already taken from the file's start.
    #[allow(dead_code)]
    pub header: super::Header,
    pub files: Vec<String>,
    pub pages: Vec<(String, u64)>,
    pub labels: Vec<(String, u32)>,
}

mod frozen {
    use super::*;

    #[derive(Deserialize)]
    pub struct Archive {
        pub matches: Vec<Archived>,
        pub next_batch: u64,
    }

    #[derive(Deserialize)]
    pub struct Archived {
        pub origin: String,
        pub batch: u64,
        pub m: Match,
    }

    #[derive(Deserialize)]
    pub struct Match {
        pub id: String,
        pub content: u64,
        pub open: bool,
        pub source: String,
        pub file_index: usize,
        pub line: u64,
        pub map: String,
        pub gametype: GameType,
        pub server: String,
        pub start: Option<NaiveDateTime>,
        pub duration_seconds: u32,
        pub exit_reason: Option<String>,
        pub team_scores: Option<[i32; 2]>,
        pub partial: bool,
        pub players: Vec<MatchPlayer>,
        pub events: Events,
        pub weapons: Vec<String>,
        pub awards: Vec<String>,
    }

    #[derive(Deserialize)]
    pub struct FileState {
        pub path: String,
        pub size: u64,
        pub mtime_ns: u128,
        pub head: Fingerprint,
        pub before_checkpoint: Option<Fingerprint>,
        pub report: Report,
        pub checkpoint: Option<Checkpoint>,
        pub settled: Vec<Match>,
        pub tail: Vec<Match>,
    }

    #[derive(Deserialize)]
    pub struct Checkpoint {
        pub offset: u64,
        pub line: u64,
        pub matches: usize,
        pub report: Report,
        pub state: Vec<u8>,
    }

    #[derive(Deserialize)]
    pub struct Report {
        pub path: String,
        pub format: Option<String>,
        pub bytes: u64,
        pub lines: u64,
        pub matches: usize,
        pub file_skipped: Option<String>,
        pub skipped_lines: BTreeMap<String, Tally>,
        pub notes: BTreeMap<String, Tally>,
        pub via_link: bool,
    }

    #[derive(Deserialize)]
    pub struct Tally {
        pub count: u64,
        pub examples: Vec<Example>,
    }

    #[derive(Deserialize)]
    pub struct Example {
        pub line: u64,
        pub text: String,
    }

    #[derive(Deserialize)]
    pub struct MatchPlayer {
        pub plain: String,
        pub name: String,
        pub score: Option<i32>,
        pub team: Team,
        pub joined: u32,
        pub left: Option<u32>,
        pub active: bool,
        pub bot_skill: Option<f32>,
        pub uid: Option<u64>,
    }
}

impl From<frozen::Archive> for Archive {
    fn from(a: frozen::Archive) -> Archive {
        Archive {
            matches: a.matches.into_iter().map(Into::into).collect(),
            next_batch: a.next_batch,
            // Written again in this layout on the next save.
            changed: true,
        }
    }
}

impl From<frozen::FileState> for FileState {
    fn from(f: frozen::FileState) -> FileState {
        FileState {
            path: f.path,
            size: f.size,
            mtime_ns: f.mtime_ns,
            head: f.head,
            before_checkpoint: f.before_checkpoint,
            report: f.report.into(),
            checkpoint: f.checkpoint.map(Into::into),
            settled: f.settled.into_iter().map(Into::into).collect(),
            tail: f.tail.into_iter().map(Into::into).collect(),
            segments: Vec::new(),
            changed: false,
            sealed: None,
            early: Vec::new(),
        }
    }
}

impl From<frozen::Checkpoint> for Checkpoint {
    fn from(c: frozen::Checkpoint) -> Checkpoint {
        Checkpoint {
            offset: c.offset,
            line: c.line,
            matches: c.matches,
            report: c.report.into(),
            state: c.state,
        }
    }
}

impl From<frozen::Report> for FileReport {
    fn from(r: frozen::Report) -> FileReport {
        let tallies = |t: BTreeMap<String, frozen::Tally>| {
            t.into_iter()
                .map(|(reason, t)| {
                    let examples = t
                        .examples
                        .into_iter()
                        .map(|e| Example {
                            line: e.line,
                            text: e.text,
                        })
                        .collect();
                    (
                        reason,
                        Tally {
                            count: t.count,
                            examples,
                        },
                    )
                })
                .collect()
        };
        FileReport {
            path: r.path,
            format: r.format,
            bytes: r.bytes,
            lines: r.lines,
            matches: r.matches,
            file_skipped: r.file_skipped,
            skipped_lines: tallies(r.skipped_lines),
            notes: tallies(r.notes),
            via_link: r.via_link,
        }
    }
}

impl From<frozen::Archived> for Archived {
    fn from(a: frozen::Archived) -> Archived {
        Archived {
            origin: a.origin,
            batch: a.batch,
            m: a.m.into(),
        }
    }
}

impl From<frozen::Match> for Match {
    fn from(m: frozen::Match) -> Match {
        // Format 5 was written by the Quake 3 family parser only.
        let game = game_of_match(&m.gametype, &m.weapons);
        Match {
            id: m.id.into(),
            content: m.content,
            open: m.open,
            number: 0,
            source: m.source.into(),
            file_index: u32::try_from(m.file_index).unwrap_or(u32::MAX),
            line: m.line,
            map: m.map.into(),
            game: game.into(),
            gametype: m.gametype,
            server: m.server.into(),
            start: m.start,
            duration_seconds: m.duration_seconds,
            exit_reason: m.exit_reason.map(Into::into),
            team_scores: m.team_scores,
            partial: m.partial,
            players: m.players.into_iter().map(Into::into).collect(),
            events: m.events,
            weapons: m.weapons.iter().collect(),
            awards: m.awards.into_iter().map(Into::into).collect(),
            rounds: Default::default(),
            spots: Default::default(),
        }
    }
}

impl From<frozen::MatchPlayer> for MatchPlayer {
    fn from(p: frozen::MatchPlayer) -> MatchPlayer {
        MatchPlayer::from(PlayerFields {
            plain: p.plain.into(),
            name: p.name.into(),
            score: p.score,
            team: p.team,
            joined: p.joined,
            left: p.left,
            active: p.active,
            bot: p.bot_skill.is_some(),
            bot_skill: p.bot_skill,
            uid: p.uid,
        })
        .shared()
    }
}

/// The game code of a match parsed before matches named their game: Urban Terror where its
/// weapons or game type say so, else Quake 3.
fn game_of_match(gametype: &GameType, weapons: &[String]) -> &'static str {
    let urt_mode = matches!(
        gametype.code.as_str(),
        "ts" | "ftl" | "cah" | "bomb" | "jump" | "freeze" | "gungame"
    );
    if urt_mode || weapons.iter().any(|w| w.starts_with("UT_MOD_")) {
        "urt"
    } else {
        "quake3"
    }
}
