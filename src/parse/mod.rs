//! Log formats: sniffing which format a file is in, a bounded line reader, and one parser module per
//! format behind the [`LogFormat`] trait. Parsers stream: they hold one line and the match being
//! built, never the whole file.

pub mod builder;
pub mod cod;
pub mod et;
pub mod hl;
pub mod lines;
pub mod q3;
mod read_loop;
#[cfg(test)]
mod sniff_tests;
#[cfg(test)]
mod testing;

use std::io::BufRead;

use serde::{Deserialize, Serialize};

use crate::diagnostics::FileReport;
use crate::model::Match;

/// Bump when the parsers' output changes for the same input: the state's stored matches and the
/// ratings checkpoint made from them become invalid.
pub const PARSER_VERSION: u32 = 9;

/// A point where parsing a file can resume later: a line boundary with no match open, with the
/// parser's state there. Incremental builds store it and parse only what follows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Byte offset of the first line after the point.
    pub offset: u64,
    /// Number of lines before the point.
    pub line: u64,
    /// Matches emitted before the point.
    pub matches: usize,
    /// The file's report as it was at the point.
    pub report: FileReport,
    /// The format's own parser state (what it remembers across matches), serialised.
    pub state: Vec<u8>,
}

/// Where the bytes being parsed come from.
#[derive(Debug, Clone)]
pub struct Source {
    /// Path relative to its log root, `/`-separated.
    pub path: String,
    /// Index of the file in crawl order.
    pub file_index: u32,
}

/// One log format: recognises its files and turns them into matches.
pub trait LogFormat: Sync {
    /// Short name shown in diagnostics, e.g. `quake3`.
    fn name(&self) -> &'static str;
    /// True when the head of a file (its first bytes) looks like this format.
    fn sniff(&self, head: &[u8]) -> bool;
    /// Parses a file to its end, calling `emit` for every match in file order and reporting every
    /// line it could not use into `report`. With `resume`, `input` is positioned at the
    /// checkpoint's offset and `report` holds the checkpoint's report. Returns the last
    /// checkpoint reached, if any.
    fn parse(
        &self,
        input: &mut dyn BufRead,
        source: &Source,
        report: &mut FileReport,
        emit: &mut dyn FnMut(Match),
        resume: Option<&Checkpoint>,
    ) -> std::io::Result<Option<Checkpoint>>;

    /// True when [`Self::resumes_after`] can find places to cut a file: a large file of this
    /// format is then parsed in pieces in parallel (see `read::parallel`). False by default.
    fn splittable(&self) -> bool {
        false
    }

    /// True when, whatever came before, the parser is at a checkpoint with an empty state right
    /// after the complete line `line` (without its line ending): parsing may restart there from
    /// `Checkpoint { state: vec![], .. }` and give exactly what reading on would. False by default.
    fn resumes_after(&self, _line: &[u8]) -> bool {
        false
    }
}

/// Name shared by weapons (and awards) beyond what a match keeps apart.
pub const OTHER: &str = "(other)";
/// Most distinct weapon names one match keeps; further ones count as [`OTHER`].
pub const MAX_WEAPONS: usize = 1000;

/// A match as a parser starts it at `line` of `source`: no players, events or names yet, map
/// and game type unknown.
pub fn new_match(source: &Source, line: u64, game: &str) -> Match {
    Match {
        id: Box::default(),
        content: 0,
        open: false,
        number: 0,
        source: source.path.clone().into(),
        file_index: source.file_index,
        line,
        map: "(unknown)".into(),
        game: game.into(),
        gametype: crate::model::GameType::new("unknown", "Unknown", false, false),
        server: String::new().into(),
        start: None,
        duration_seconds: 0,
        exit_reason: None,
        team_scores: None,
        partial: false,
        players: Vec::new(),
        events: crate::model::Events::default(),
        weapons: Default::default(),
        awards: Default::default(),
        rounds: Default::default(),
        spots: Default::default(),
    }
}

/// The weapon indexes of the match being built ([`crate::model::Event::detail`]).
#[derive(Debug, Default)]
pub struct WeaponIndex(std::collections::HashMap<String, u16, ahash::RandomState>);

impl WeaponIndex {
    /// The index of weapon `name` in `weapons` (the match's list), added when new. A hostile
    /// log could name more weapons than an index holds: beyond [`MAX_WEAPONS`] they share
    /// [`OTHER`].
    pub fn of(&mut self, weapons: &mut crate::model::WeaponList, name: &str) -> u16 {
        if let Some(&i) = self.0.get(name) {
            return i;
        }
        let name = if weapons.len() >= MAX_WEAPONS {
            OTHER
        } else {
            name
        };
        if let Some(&i) = self.0.get(name) {
            return i;
        }
        let i = weapons.len() as u16;
        weapons.push(name);
        self.0.insert(name.to_string(), i);
        i
    }
}

/// Every format fragstats can parse, in sniffing order.
pub fn formats() -> &'static [&'static dyn LogFormat] {
    // Call of Duty and Enemy Territory game logs have the Quake 3 frame and InitGame lines: they
    // are sniffed first.
    &[
        &cod::CallOfDuty,
        &et::EnemyTerritory,
        &q3::Quake3,
        &hl::HalfLife,
    ]
}

/// What sniffing a file's head found.
pub enum Detected {
    Parser(&'static dyn LogFormat),
    /// A recognised format with no parser yet (the reason says which).
    Unsupported(&'static str),
    /// Not a log this program knows; the reason says why.
    Unknown(&'static str),
}

/// The logs fragstats reads, as the empty site's hint and `build` name them.
pub const FORMATS: &[&str] = &[
    "Quake 3 / ioquake3, OpenArena and Urban Terror 4.x games.log",
    "Half-Life logs (Counter-Strike 1.6 to CS2, Team Fortress 2, Left 4 Dead 2)",
    "Call of Duty games_mp.log",
    "Wolfenstein: Enemy Territory etconsole.log and game logs",
];

/// How many bytes of a file sniffing looks at.
pub const SNIFF_BYTES: usize = 64 * 1024;

/// Decides the format of a file from its first bytes (at most [`SNIFF_BYTES`]).
pub fn detect(head: &[u8]) -> Detected {
    if head.is_empty() {
        return Detected::Unknown("empty file");
    }
    if head.contains(&0) {
        return Detected::Unknown("binary file (contains NUL bytes)");
    }
    if let Some(f) = formats().iter().find(|f| f.sniff(head)) {
        return Detected::Parser(*f);
    }
    Detected::Unknown("unknown format: not a log format fragstats reads")
}
