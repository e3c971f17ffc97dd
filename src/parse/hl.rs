//! Half-Life log standard (HL1 and Source: Counter-Strike 1.6, CS:S, CS:GO, CS2, Team Fortress 2,
//! Left 4 Dead 2):
//!
//! ```text
//! L 02/12/2014 - 11:10:02: "Erik<164><BOT><TERRORIST>" [-1032 314 128] killed "Joe<3><BOT><CT>" [-888 497 192] with "sg556" (headshot)
//! ```
//!
//! Every line is a frame (`L MM/DD/YYYY - HH:MM:SS: `, or CS2's HTTP `MM/DD/YYYY - HH:MM:SS.mmm - `,
//! after an optional UDP header or BOM) and an event. A match is one map: from `Loading map` /
//! `Started map` / `Match_Start` (or the first line of play in a file that has none of them) to
//! the next map, the end of its log file, or the first play after `Game_Over`. Players are their
//! Steam account where the log gives a real one, else their name (bots, LAN and fake ids); the
//! uid in the block is a connection number and names nobody. Steam ids are kept only hashed
//! ([`MatchPlayer::uid`]). This module does not rate, count or render anything.

mod syntax;

use std::collections::{BTreeSet, HashMap};
use std::hash::BuildHasherDefault;
use std::io::BufRead;

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};

use super::lines::complete_lines;
use super::read_loop::{LineParser, read_lines};
use super::{Checkpoint, LogFormat, Source};
use crate::diagnostics::FileReport;
use crate::hash::Hasher;
use crate::model::names::plain_name;
use crate::model::{
    Event, EventKind, FlagAction, GameType, KillSpots, Match, MatchPlayer, NO_PLAYER, PlayerFields,
    Round, Team, Text,
};
use syntax::{
    Block, FrameError, FrameKind, StampBytes, frame, object_ends, parse_stamp, player_at,
    properties, property, quoted, quoted_to_end, skip_position, verb_follows,
};

/// Most rounds one match keeps (a hostile log could log rounds without end).
const MAX_ROUNDS: usize = 10_000;
/// Kill lines in the opening that fixes a match's stable id ([`Match::id`]).
const ID_KILLS: u32 = 4;
/// Seconds a new map may wait for its first player before the wait stops being pre-game time.
const IDLE_START: i64 = 300;

/// The Half-Life log standard parser.
pub struct HalfLife;

impl LogFormat for HalfLife {
    fn name(&self) -> &'static str {
        "halflife"
    }

    fn sniff(&self, head: &[u8]) -> bool {
        let mut framed = 0;
        let mut other = 0;
        for line in complete_lines(head).take(200) {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match frame(line) {
                Ok(_) => framed += 1,
                Err(_) => other += 1,
            }
        }
        framed >= 1 && framed >= other * 2
    }

    fn parse(
        &self,
        input: &mut dyn BufRead,
        source: &Source,
        report: &mut FileReport,
        emit: &mut dyn FnMut(Match),
        resume: Option<&Checkpoint>,
    ) -> std::io::Result<Option<Checkpoint>> {
        let mut parser = Parser {
            source,
            carry: Carry::default(),
            current: None,
            emitted: 0,
            stamp: ([0; 25], None),
            kill_line: false,
            emptied: false,
        };
        read_lines(&mut parser, input, report, emit, resume)
    }
}

/// What the parser remembers across matches (stored in checkpoints).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Carry {
    /// Last folder of `Log file started (game "...")`, lower case.
    game_dir: String,
    /// `(version "...")` of the same line.
    version: String,
    /// Lines came in CS2's HTTP frame, or CS2's `MatchStatus:` lines were seen.
    cs2: bool,
    /// The map being played, when a line named it.
    map: Option<String>,
    /// `Server name is` / the `hostname` cvar.
    server: String,
    /// Keys of the players on the server now (seen in a line, not yet disconnected), within
    /// the log file.
    present: BTreeSet<u64>,
    /// The server was seen to empty (its last player left) and no log file started since:
    /// `present` is then everyone on it, and an empty `present` is an empty server.
    presence_known: bool,
}

/// How a log names a player.
#[derive(Debug, Clone, PartialEq)]
enum Ident {
    /// A person or bot: the key within the match, the hashed account id, whether a bot.
    Player {
        key: u64,
        uid: Option<u64>,
        bot: bool,
    },
    /// A non-player character (Left 4 Dead common infected: empty id).
    Npc,
    /// The server console.
    Console,
}

/// Steam account number of a Steam id (`STEAM_X:Y:Z` or `[U:1:N]`).
fn steam_account(id: &str) -> Option<u64> {
    if let Some(rest) = id.strip_prefix("STEAM_") {
        let mut parts = rest.split(':');
        let _universe: u64 = parts.next()?.parse().ok()?;
        let y: u64 = parts.next()?.parse().ok()?;
        let z: u64 = parts.next()?.parse().ok()?;
        if parts.next().is_some() || y > 1 {
            return None;
        }
        return z.checked_mul(2)?.checked_add(y);
    }
    let inner = id.strip_prefix("[U:")?.strip_suffix(']')?;
    let (_, n) = inner.split_once(':')?;
    n.parse().ok()
}

/// Steam accounts that servers hand out to many players at once (Podbot's `STEAM_0:0:12345`,
/// kick lines' `STEAM_0:0:0`), or that no real account has: they name nobody.
fn fake_account(account: u64) -> bool {
    account < 1000 || account == 24_690
}

/// A hash that has taken in `field` (the start of a player key or uid), computed once.
fn prefixed(field: &'static str) -> Hasher {
    let mut h = Hasher::new();
    h.str(field);
    h
}

static NAME_KEY: std::sync::LazyLock<Hasher> = std::sync::LazyLock::new(|| prefixed("name"));
static STEAM_UID: std::sync::LazyLock<Hasher> = std::sync::LazyLock::new(|| prefixed("steam"));

/// The key of a player known by name: a hash of the plain name (the raw name when it has nothing
/// to strip, to spare an allocation per line).
fn name_key(name: &str) -> u64 {
    let mut h = NAME_KEY.clone();
    if name.contains('^') || name.trim() != name {
        h.str(&plain_name(name));
    } else {
        h.str(name);
    }
    h.finish()
}

/// Who a player block names.
fn ident(b: &Block) -> Ident {
    let id = b.authid;
    if id == "Console" {
        return Ident::Console;
    }
    if id.is_empty() {
        return Ident::Npc;
    }
    let by_name = |bot: bool| Ident::Player {
        key: name_key(b.name),
        uid: None,
        bot,
    };
    if let Some(account) = steam_account(id) {
        if fake_account(account) {
            return by_name(true);
        }
        let mut h = STEAM_UID.clone();
        h.u64(account);
        let uid = h.finish();
        return Ident::Player {
            key: uid,
            uid: Some(uid),
            bot: false,
        };
    }
    // Bots, and the ids of servers that could not or did not ask Steam: shared by many.
    const SHARED: &[&str] = &[
        "BOT",
        "<none>",
        "STEAM_ID_LAN",
        "STEAM_ID_PENDING",
        "VALVE_ID_LAN",
        "VALVE_ID_PENDING",
        "HLTV",
    ];
    by_name(SHARED.iter().any(|s| id.eq_ignore_ascii_case(s)))
}

/// The side a team name stands for; None when it says nothing (`<>`, `Unassigned`).
fn side(team: &str) -> Option<Team> {
    let is = |names: &[&str]| names.iter().any(|n| team.eq_ignore_ascii_case(n));
    if is(&["TERRORIST", "Red", "T", "Infected", "Axis"]) {
        Some(Team::Red)
    } else if is(&["CT", "Blue", "Survivor", "Allies"]) {
        Some(Team::Blue)
    } else if is(&["Spectator", "Spectators"]) {
        Some(Team::Spectator)
    } else {
        None
    }
}

/// Counter-Strike round results a team triggers (`CTs_Win`, `SFUI_Notice_Target_Bombed`, ...).
fn is_round_win(trigger: &str) -> bool {
    let t = trigger.strip_prefix("SFUI_Notice_").unwrap_or(trigger);
    matches!(
        t,
        "Terrorists_Win"
            | "CTs_Win"
            | "Target_Bombed"
            | "Bomb_Defused"
            | "Target_Saved"
            | "All_Hostages_Rescued"
            | "Hostages_Not_Rescued"
            | "VIP_Escaped"
            | "VIP_Assassinated"
            | "VIP_Not_Escaped"
            | "Terrorists_Escaped"
            | "CTs_PreventEscape"
            | "Escaping_Terrorists_Neutralized"
            | "Terrorists_Not_Escaped"
            | "Terrorists_Surrender"
            | "CTs_Surrender"
    )
}

/// Player keys are FNV hashes already: the map uses them as they are.
#[derive(Default)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// What kind of team was seen in a match's blocks, to guess the game when the log never says.
#[derive(Debug, Clone, Copy, Default)]
struct Hints {
    cs_teams: bool,
    tf_teams: bool,
    l4d_teams: bool,
    positions: bool,
}

/// A match being read.
struct Builder {
    m: Match,
    /// Fingerprint of the match's lines: its content.
    hash: Hasher,
    /// The stable id, once the opening's [`ID_KILLS`] kills were hashed.
    id: Option<u64>,
    kills_hashed: u32,
    start: NaiveDateTime,
    last: NaiveDateTime,
    /// `Game_Over` / `Game Over:` was logged: the next play starts another match.
    game_over: bool,
    /// `Log file closed` ended it.
    closed: bool,
    /// Kills, objectives or rounds were logged (a `Match_Start` after them starts another match).
    played: bool,
    by_key: HashMap<u64, u32, BuildHasherDefault<KeyHasher>>,
    /// Per match player: on the server now.
    present: Vec<bool>,
    weapons: super::WeaponIndex,
    /// Who planted the bomb in the current round.
    planter: Option<u32>,
    hints: Hints,
}

impl Builder {
    fn new(source: &Source, line: u64, at: NaiveDateTime, map: Option<&str>) -> Self {
        Builder {
            m: Match {
                map: map.unwrap_or("(unknown)").into(),
                start: Some(at),
                ..super::new_match(source, line, "hl")
            },
            hash: Hasher::new(),
            id: None,
            kills_hashed: 0,
            start: at,
            last: at,
            game_over: false,
            closed: false,
            played: false,
            by_key: HashMap::default(),
            present: Vec::new(),
            weapons: Default::default(),
            planter: None,
            hints: Hints::default(),
        }
    }

    fn hash_line(&mut self, line: &[u8], kill: bool) {
        self.hash.raw(line);
        self.hash.raw(b"\n");
        if self.id.is_none() && kill {
            self.kills_hashed += 1;
            if self.kills_hashed == ID_KILLS {
                self.id = Some(self.hash.finish());
            }
        }
    }

    /// Seconds since the match started (0 when the clock went back).
    fn rel(&self, at: NaiveDateTime) -> u32 {
        let s = (at - self.start).num_seconds();
        u32::try_from(s.max(0)).unwrap_or(u32::MAX)
    }

    fn push(&mut self, at: NaiveDateTime, line: u64, kind: EventKind, actor: u32, target: u32) {
        self.push_detail(at, line, kind, actor, target, 0);
    }

    fn push_detail(
        &mut self,
        at: NaiveDateTime,
        line: u64,
        kind: EventKind,
        actor: u32,
        target: u32,
        detail: u16,
    ) {
        let event = Event {
            time: self.rel(at),
            line,
            kind,
            actor,
            target,
            detail,
        };
        self.m.events.push(event);
    }

    fn note_team(&mut self, team: &str) {
        let is = |a: &str, b: &str| team.eq_ignore_ascii_case(a) || team.eq_ignore_ascii_case(b);
        if is("CT", "TERRORIST") {
            self.hints.cs_teams = true;
        } else if is("Red", "Blue") {
            self.hints.tf_teams = true;
        } else if is("Survivor", "Infected") {
            self.hints.l4d_teams = true;
        }
    }

    /// The match player a block names, created when `create` (or when their team is a side);
    /// their name and team are brought up to date. None for non-players.
    fn player(&mut self, b: &Block, at: NaiveDateTime, line: u64, create: bool) -> Option<u32> {
        self.player_as(b, ident(b), at, line, create)
    }

    /// [`Builder::player`] with the block's identity already worked out.
    fn player_as(
        &mut self,
        b: &Block,
        who: Ident,
        at: NaiveDateTime,
        line: u64,
        create: bool,
    ) -> Option<u32> {
        let Ident::Player { key, uid, bot } = who else {
            return None;
        };
        let team = b.team.and_then(|t| {
            self.note_team(t);
            side(t)
        });
        let i = match self.by_key.get(&key) {
            Some(&i) => {
                let p = &mut self.m.players[i as usize];
                if p.name != b.name {
                    p.name = b.name.into();
                    p.plain = plain_name(b.name).into();
                }
                p.bot |= bot;
                if uid.is_some() {
                    p.uid = uid;
                }
                i
            }
            None => {
                if !create && !team.is_some_and(Team::is_side) {
                    return None;
                }
                let i = self.m.players.len() as u32;
                let joined = self.rel(at);
                self.m.players.push(MatchPlayer::from(PlayerFields {
                    plain: plain_name(b.name).into(),
                    name: b.name.into(),
                    score: None,
                    team: Team::Free,
                    joined,
                    left: None,
                    active: false,
                    bot_skill: None,
                    uid,
                    bot,
                }));
                self.by_key.insert(key, i);
                self.present.push(false);
                i
            }
        };
        let p = &self.m.players[i as usize];
        let team = team.unwrap_or(p.team);
        if p.team != team || !self.present[i as usize] {
            self.join(i, team, at, line);
        }
        Some(i)
    }

    /// Player `i` is on `team` from now on (a team change, or a return after leaving).
    fn join(&mut self, i: u32, team: Team, at: NaiveDateTime, line: u64) {
        let p = &mut self.m.players[i as usize];
        p.team = team;
        p.set_left(None);
        self.present[i as usize] = true;
        self.push(at, line, EventKind::TeamChange(team), i, NO_PLAYER);
    }

    fn leave(&mut self, i: u32, at: NaiveDateTime, line: u64) {
        if !std::mem::replace(&mut self.present[i as usize], false) {
            return;
        }
        let rel = self.rel(at);
        self.m.players[i as usize].set_left(Some(rel));
        self.last = self.last.max(at);
        self.push(at, line, EventKind::Leave, i, NO_PLAYER);
    }

    /// The index of weapon `name` in the match's weapon list.
    fn weapon(&mut self, name: &str) -> u16 {
        self.weapons.of(&mut self.m.weapons, name)
    }

    fn flag(&mut self, i: u32, action: FlagAction, flag_team: Team, at: NaiveDateTime, line: u64) {
        self.m.players[i as usize].active = true;
        self.played = true;
        self.push(at, line, EventKind::Flag(action, flag_team), i, NO_PLAYER);
    }

    fn round(&mut self, winner: Team, how: &str, at: NaiveDateTime) {
        self.played = true;
        self.planter = None;
        if self.m.rounds.len() < MAX_ROUNDS {
            let end = self.rel(at);
            self.m.rounds.push(Round {
                end,
                winner,
                how: how.chars().take(64).collect::<String>().into(),
            });
        }
    }

    fn team_score(&mut self, team: Team, score: i32) {
        let mut s = self.m.team_scores.unwrap_or([0, 0]);
        match team {
            Team::Red => s[0] = score,
            Team::Blue => s[1] = score,
            _ => return,
        }
        self.m.team_scores = Some(s);
    }
}

fn gt(code: &str, name: &str, team_based: bool) -> GameType {
    GameType::new(code, name, team_based, false)
}

/// The game code ([`crate::model::game_name`]) of a match.
fn game_code(carry: &Carry, hints: Hints) -> &'static str {
    let cs = |positions: bool| {
        if carry.cs2 {
            "cs2"
        } else if positions {
            "csgo"
        } else {
            "cs16"
        }
    };
    match carry.game_dir.as_str() {
        "cstrike" if carry.version.contains('/') => "cs16",
        "cstrike" => "css",
        "csgo" => {
            if carry.cs2 {
                "cs2"
            } else {
                "csgo"
            }
        }
        "tf" => "tf2",
        d if d.starts_with("left4dead2") => "l4d2",
        "" if hints.cs_teams => cs(hints.positions),
        "" if hints.tf_teams => "tf2",
        "" if hints.l4d_teams => "l4d2",
        _ => "hl",
    }
}

/// The game type of a match from its game and map.
fn game_type(game: &str, map: &str, hints: Hints) -> GameType {
    let prefix = map.split('_').next().unwrap_or("");
    match game {
        "cs16" | "css" | "csgo" | "cs2" => match prefix {
            "de" => gt("bomb", "Bomb Defusal", true),
            "cs" => gt("hostage", "Hostage Rescue", true),
            "as" => gt("vip", "Assassination", true),
            _ => gt("rounds", "Team Rounds", true),
        },
        "tf2" => match prefix {
            "ctf" => gt("ctf", "Capture the Flag", true),
            "cp" => gt("cp", "Control Points", true),
            "koth" => gt("koth", "King of the Hill", true),
            "pl" => gt("payload", "Payload", true),
            "plr" => gt("plr", "Payload Race", true),
            "arena" => gt("arena", "Arena", true),
            _ => gt("tf", "Team Game", true),
        },
        "l4d2" => gt("coop", "Co-op Campaign", false),
        _ => gt(
            "unknown",
            "Unknown",
            hints.cs_teams || hints.tf_teams || hints.l4d_teams,
        ),
    }
}

struct Parser<'s> {
    source: &'s Source,
    carry: Carry,
    current: Option<Builder>,
    emitted: usize,
    /// The last stamp read and its time (lines often share one).
    stamp: (StampBytes, Option<NaiveDateTime>),
    /// The line being read is a kill (it counts toward the match id's opening).
    kill_line: bool,
    /// The line being read emptied the server: the match ends after it.
    emptied: bool,
}

const CUT_OFF: &str = "cut-off line (the frame stops early: the file was cut inside it)";
const NO_FRAME: &str =
    "line without a Half-Life frame (`L MM/DD/YYYY - hh:mm:ss: `): continued text or garbage";
const BAD_STAMP: &str = "impossible date or time in the frame";
const NPC: &str =
    "death, suicide or assist of a non-player character (empty id: Left 4 Dead infected)";
const MALFORMED: &str = "malformed line (player block or quoted field missing)";
const UNKNOWN: &str = "line of no known kind (server, engine or plugin text)";

impl Parser<'_> {
    fn time_of(&mut self, stamp: &StampBytes) -> Option<NaiveDateTime> {
        if self.stamp.0 != *stamp {
            self.stamp = (*stamp, parse_stamp(stamp));
        }
        self.stamp.1
    }

    /// Reads one line; true when it ended a match (or a log file).
    fn line(
        &mut self,
        bytes: &[u8],
        number: u64,
        report: &mut FileReport,
        emit: &mut dyn FnMut(Match),
    ) -> bool {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return false;
        }
        let framed = match frame(bytes) {
            Ok(f) => f,
            Err(FrameError::CutOff) => {
                report.skip_line(CUT_OFF, number, &String::from_utf8_lossy(bytes));
                return false;
            }
            Err(FrameError::Missing) => {
                report.skip_line(NO_FRAME, number, &String::from_utf8_lossy(bytes));
                return false;
            }
        };
        let Some(at) = self.time_of(&framed.stamp) else {
            report.skip_line(BAD_STAMP, number, &String::from_utf8_lossy(bytes));
            return false;
        };
        if framed.kind == FrameKind::Http {
            self.carry.cs2 = true;
        }
        // Valid UTF-8 is the rule; an old server's Latin-1 or Windows-1251 name (`«`) is decoded
        // as such, so two names never decode to the same text.
        let event = super::builder::decode(framed.event);
        let line = At {
            at,
            number,
            stamp: &framed.stamp,
        };
        let ev = event.trim_end();
        let ended = self.event(ev, &line, report, emit);
        // The line belongs to the match open after it (one it opened, or the one it went on).
        let kill = std::mem::take(&mut self.kill_line);
        if let Some(b) = self.current.as_mut() {
            b.hash_line(line.stamp, false);
            b.hash_line(ev.as_bytes(), kill);
        }
        // The last player's leave is the emptied match's last line.
        if std::mem::take(&mut self.emptied) && self.current.is_some() {
            self.close(Some("ended: the server emptied"), false, report, emit);
            return true;
        }
        ended
    }

    /// No player is on the server (as far as the log has shown since its last emptying).
    fn server_empty(&self) -> bool {
        self.carry.presence_known && self.carry.present.is_empty()
    }

    /// A player named in a line is on the server. The first player on an empty server starts a
    /// match when none is open; a map that waited longer than [`IDLE_START`] for its first
    /// player starts with them (the idle server was not pre-game).
    fn arrive(&mut self, who: &Ident, line: &At) {
        let Ident::Player { key, .. } = *who else {
            return;
        };
        let was_empty = self.server_empty();
        if !self.carry.present.insert(key) {
            return;
        }
        match self.current.as_mut() {
            None if was_empty => self.open(line, false),
            Some(b)
                if b.m.players.is_empty()
                    && b.m.events.is_empty()
                    && (line.at - b.start).num_seconds() > IDLE_START =>
            {
                b.start = line.at;
                b.last = line.at;
                b.m.start = Some(line.at);
            }
            _ => {}
        }
    }

    /// A player left the server; when it was the last one, the open match ends after this line
    /// (nothing more belongs to it) and the server is known to be empty.
    fn depart(&mut self, who: &Ident) {
        let Ident::Player { key, .. } = *who else {
            return;
        };
        if self.carry.present.remove(&key) && self.carry.present.is_empty() {
            self.carry.presence_known = true;
            self.emptied = true;
        }
    }

    /// The open match, or a new one for a line of play when none is open. Play after
    /// `Game_Over` (TF2's humiliation, CS's last kills) still belongs to the match that ended.
    fn playing(&mut self, line: &At, report: &mut FileReport) -> &mut Builder {
        if self.current.is_none() {
            report.note(
                "match starts before the file (no map, Match_Start or Round_Start line first)",
                line.number,
                "",
            );
            self.open(line, true);
        }
        let b = self.current.as_mut().expect("opened above");
        b.last = b.last.max(line.at);
        b
    }

    fn open(&mut self, line: &At, partial: bool) {
        let mut b = Builder::new(self.source, line.number, line.at, self.carry.map.as_deref());
        b.m.partial = partial;
        self.current = Some(b);
    }

    /// Handles one event; true when it ended a match or a log file.
    fn event(
        &mut self,
        ev: &str,
        line: &At,
        report: &mut FileReport,
        emit: &mut dyn FnMut(Match),
    ) -> bool {
        // Left 4 Dead 2 prefixes the kill and incap lines.
        let body = ev
            .strip_prefix("(DEATH)")
            .or_else(|| ev.strip_prefix("(INCAP)"))
            .unwrap_or(ev);
        if body.starts_with('"') {
            self.player_line(body, line, report);
            return false;
        }
        if let Some(rest) = ev.strip_prefix("Log file started") {
            let closed = self.current.is_some();
            self.close(Some("closed by the next log file"), false, report, emit);
            if let Some(game) = property(rest, "game") {
                let dir = game.trim_end_matches(['/', '\\']);
                let dir = dir.rsplit(['/', '\\']).next().unwrap_or(dir);
                self.carry.game_dir = dir.to_ascii_lowercase();
            }
            self.carry.version = property(rest, "version").unwrap_or("").to_string();
            self.carry.map = None;
            // A new file: who is on the server is unknown until they show.
            self.carry.present.clear();
            self.carry.presence_known = false;
            return closed;
        }
        if ev.starts_with("Log file closed") {
            if let Some(b) = self.current.as_mut() {
                b.closed = true;
            }
            self.close(None, false, report, emit);
            return true;
        }
        if let Some(rest) = ev.strip_prefix("Loading map ") {
            let map = quoted(rest).map(|(m, _)| m.to_string());
            self.close(Some("closed by the next map"), false, report, emit);
            self.carry.map = map;
            self.open(line, false);
            return false;
        }
        if let Some(rest) = ev.strip_prefix("Started map ") {
            let map = quoted(rest).map(|(m, _)| m.to_string());
            let same = self
                .current
                .as_ref()
                .is_some_and(|b| !b.played && Some(b.m.map.as_str()) == map.as_deref());
            if !same {
                self.close(Some("closed by the next map"), false, report, emit);
                self.carry.map = map;
                self.open(line, false);
            }
            return false;
        }
        if let Some(rest) = ev.strip_prefix("World triggered ") {
            self.world(rest, line, report, emit);
            return false;
        }
        if let Some(rest) = ev.strip_prefix("Team ") {
            self.team_line(rest, line, report);
            return false;
        }
        if let Some(rest) = ev.strip_prefix("Game Over:") {
            if let Some(b) = self.current.as_mut() {
                b.game_over = true;
                b.m.exit_reason = Some(format!("Game Over:{rest}").into());
            }
            return false;
        }
        if ev.starts_with("MatchStatus:") {
            self.carry.cs2 = true;
            return false;
        }
        if let Some(rest) = ev.strip_prefix("Server name is ") {
            self.carry.server = quoted(rest).map(|(s, _)| s).unwrap_or(rest).to_string();
            return false;
        }
        if let Some(rest) = ev
            .strip_prefix("server_cvar: \"hostname\" ")
            .or_else(|| ev.strip_prefix("Server cvar \"hostname\" = "))
        {
            self.carry.server = quoted(rest).map(|(s, _)| s).unwrap_or(rest).to_string();
            return false;
        }
        if is_ignored(ev) {
            return false;
        }
        report.skip_line(UNKNOWN, line.number, ev);
        false
    }

    /// `World triggered "..."`: rounds, game over, match start.
    fn world(
        &mut self,
        rest: &str,
        line: &At,
        report: &mut FileReport,
        emit: &mut dyn FnMut(Match),
    ) {
        let Some((what, tail)) = quoted(rest) else {
            report.skip_line(MALFORMED, line.number, rest);
            return;
        };
        // An empty server goes on logging rounds and results on its own: they are no match's.
        if self.server_empty() && what != "Match_Start" {
            return;
        }
        match what {
            "Round_Start" => {
                // The first round after `Game_Over` starts the next match on the same map.
                if self.current.as_ref().is_some_and(|b| b.game_over) {
                    self.close(None, false, report, emit);
                }
                if self.current.is_none() {
                    self.open(line, false);
                }
            }
            "Round_Win" | "Round_Stalemate" => {
                let winner = property(tail, "winner")
                    .and_then(side)
                    .unwrap_or(Team::Free);
                let b = self.playing(line, report);
                b.round(winner, what, line.at);
            }
            "Game_Over" => {
                if let Some(b) = self.current.as_mut()
                    && !b.game_over
                {
                    b.game_over = true;
                    b.last = b.last.max(line.at);
                    let reason = tail
                        .trim()
                        .strip_prefix("reason ")
                        .and_then(|r| quoted(r).map(|(q, _)| q));
                    b.m.exit_reason = Some(reason.unwrap_or("Game_Over").into());
                }
            }
            "Match_Start" => {
                let map = tail
                    .trim()
                    .strip_prefix("on ")
                    .and_then(|m| quoted(m).map(|(q, _)| q.to_string()));
                if map.is_some() {
                    self.carry.map = map;
                }
                let played = self.current.as_ref().is_some_and(|b| b.played);
                if played {
                    self.close(Some("restarted by Match_Start"), false, report, emit);
                }
                let empty = self.server_empty();
                match self.current.as_mut() {
                    // Warm-up without play: the match starts now.
                    Some(b) => {
                        if let Some(m) = &self.carry.map {
                            b.m.map = Text::from(m);
                        }
                    }
                    None if !empty => {
                        self.open(line, false);
                    }
                    None => {}
                }
            }
            _ => {}
        }
    }

    /// `Team "CT" triggered "CTs_Win" (CT "1") (T "0")`, `Team "Red" triggered "pointcaptured"
    /// ...`, `Team "CT" scored "7" with "6" players`, `Team "Red" current score "3" with ...`.
    fn team_line(&mut self, rest: &str, line: &At, report: &mut FileReport) {
        let Some((name, tail)) = quoted(rest) else {
            report.skip_line(MALFORMED, line.number, rest);
            return;
        };
        let team = side(name);
        if let Some(t) = tail.strip_prefix(" triggered ") {
            let Some((what, props)) = quoted(t) else {
                report.skip_line(MALFORMED, line.number, rest);
                return;
            };
            if is_round_win(what) {
                if self.server_empty() {
                    return;
                }
                let b = self.playing(line, report);
                b.note_team(name);
                if let (Some(ct), Some(t)) = (property(props, "CT"), property(props, "T"))
                    && let (Ok(ct), Ok(t)) = (ct.trim().parse::<i32>(), t.trim().parse::<i32>())
                {
                    b.m.team_scores = Some([t, ct]);
                }
                let bombed = what.ends_with("Target_Bombed");
                if bombed && let Some(p) = b.planter {
                    b.flag(p, FlagAction::BombExplode, Team::Blue, line.at, line.number);
                }
                b.round(team.unwrap_or(Team::Free), what, line.at);
            } else if what == "pointcaptured" {
                self.point_captured(team, props, line, report);
            }
            return;
        }
        for word in [" scored ", " current score ", " final score "] {
            if let Some(t) = tail.strip_prefix(word) {
                let (score, t) = quoted(t).unwrap_or(("", t));
                // `with "0" players`: a score of an empty team is no result.
                let players = t
                    .trim_start()
                    .strip_prefix("with ")
                    .and_then(quoted)
                    .and_then(|(n, _)| n.trim().parse::<u32>().ok());
                if self.server_empty() || players == Some(0) {
                    return;
                }
                if let (Some(team), Ok(score), Some(b)) =
                    (team, score.trim().parse::<i32>(), self.current.as_mut())
                {
                    b.note_team(name);
                    b.team_score(team, score);
                    b.last = b.last.max(line.at);
                }
                return;
            }
        }
        if !is_ignored(tail) {
            report.skip_line(UNKNOWN, line.number, rest);
        }
    }

    /// TF2 `Team "Red" triggered "pointcaptured" (cp "0") (cpname "#x") (numcappers "2")
    /// (player1 "A<..>") (position1 "...") (player2 "B<..>") ...`: each capper took the point.
    fn point_captured(
        &mut self,
        team: Option<Team>,
        props: &str,
        line: &At,
        report: &mut FileReport,
    ) {
        let cappers: Vec<String> = properties(props)
            .filter(|(k, _)| k.starts_with("player"))
            .filter_map(|(_, v)| v.map(str::to_string))
            .collect();
        let b = self.playing(line, report);
        let flag_team = team.and_then(Team::opponent).unwrap_or(Team::Free);
        for c in cappers {
            let Some(block) = syntax::block(&c, 4) else {
                continue;
            };
            if let Some(i) = b.player(&block, line.at, line.number, true) {
                b.flag(i, FlagAction::PointCapture, flag_team, line.at, line.number);
            }
        }
    }

    /// A line that starts with a player block.
    fn player_line(&mut self, body: &str, line: &At, report: &mut FileReport) {
        let Some((actor, rest)) =
            player_at(body, 4, verb_follows).or_else(|| player_at(body, 3, verb_follows))
        else {
            // `"trigger_hurt" killed "V<..>" with ...`: an entity named without a player block.
            if let Some((entity, rest)) = quoted(body)
                && let Some(victim) = rest.strip_prefix(" killed ")
            {
                let killer = Block {
                    name: entity,
                    uid: "",
                    authid: "",
                    team: None,
                };
                self.kill(&killer, None, victim, line, report);
                return;
            }
            report.skip_line(MALFORMED, line.number, body);
            return;
        };
        let positioned = rest.starts_with(" [");
        let actor_spot = syntax::position(rest);
        let verb = skip_position(rest).trim_start();
        if positioned && let Some(b) = self.current.as_mut() {
            b.hints.positions = true;
        }
        if actor.authid == "Console" {
            return;
        }
        let who = ident(&actor);
        if !verb.starts_with("disconnected") {
            self.arrive(&who, line);
        }
        if let Some(victim) = verb.strip_prefix("killed ") {
            self.kill(&actor, actor_spot, victim, line, report);
        } else if let Some(w) = verb.strip_prefix("committed suicide with ") {
            if ident(&actor) == Ident::Npc {
                report.skip_line(NPC, line.number, body);
                return;
            }
            let weapon = quoted(w).map(|(w, _)| w).unwrap_or("world");
            let b = self.playing(line, report);
            if let Some(i) = b.player(&actor, line.at, line.number, true) {
                b.m.players[i as usize].active = true;
                b.played = true;
                let w = b.weapon(weapon);
                b.push_detail(line.at, line.number, EventKind::Suicide, i, NO_PLAYER, w);
            }
        } else if let Some(t) = verb.strip_prefix("triggered ") {
            self.trigger(&actor, t, line, report);
        } else if let Some(v) = verb.strip_prefix("assisted killing ") {
            self.assist(&actor, v, line, report);
        } else if let Some(n) = verb.strip_prefix("changed name to ") {
            let Some(new) = quoted_to_end(n) else {
                report.skip_line(MALFORMED, line.number, body);
                return;
            };
            self.rename(&actor, new, line);
        } else if verb.starts_with("disconnected") {
            if let Some(b) = self.current.as_mut()
                && let Some(i) = b.player(&actor, line.at, line.number, false)
            {
                b.leave(i, line.at, line.number);
            }
            self.depart(&who);
        } else if let Some(t) = verb.strip_prefix("joined team ") {
            let team = quoted(t).map(|(t, _)| t).unwrap_or("");
            self.sighting(
                Block {
                    team: Some(team),
                    ..actor
                },
                line,
            );
        } else if let Some(t) = verb.strip_prefix("switched from team ") {
            // `switched from team <CT> to <TERRORIST>`
            let to = t
                .rsplit_once(" to <")
                .map(|(_, to)| to.trim_end_matches('>'))
                .unwrap_or("");
            self.sighting(
                Block {
                    team: Some(to),
                    ..actor
                },
                line,
            );
        } else {
            // Chat, purchases, connects, damage, roles...: they only say who is here, on which team.
            self.sighting(actor, line);
        }
    }

    /// A player was seen (team known from the block): kept up to date in the open match.
    fn sighting(&mut self, actor: Block, line: &At) {
        if let Some(b) = self.current.as_mut() {
            b.player(&actor, line.at, line.number, false);
        }
    }

    /// `changed name to "New"`: the same player under a new name. A player known by name (no
    /// Steam id) keeps their match entry under both names.
    fn rename(&mut self, actor: &Block, new: &str, line: &At) {
        // A player known by name is present under the new name only.
        let renamed = Block {
            name: new,
            ..*actor
        };
        if let (Ident::Player { key: old, .. }, Ident::Player { key, .. }) =
            (ident(actor), ident(&renamed))
            && old != key
        {
            self.carry.present.remove(&old);
            self.carry.present.insert(key);
        }
        let Some(b) = self.current.as_mut() else {
            return;
        };
        let Some(i) = b.player(actor, line.at, line.number, false) else {
            return;
        };
        if let Ident::Player { key, .. } = ident(&renamed) {
            b.by_key.entry(key).or_insert(i);
        }
        let p = &mut b.m.players[i as usize];
        p.name = new.into();
        p.plain = plain_name(new).into();
    }

    /// `"A<..>" [pos] killed "V<..>" [pos] with "weapon" (headshot) ...`, the killer's position
    /// (if the line gives one) read already.
    fn kill(
        &mut self,
        actor: &Block,
        actor_spot: Option<[i32; 3]>,
        rest: &str,
        line: &At,
        report: &mut FileReport,
    ) {
        self.kill_line = true;
        let Some((victim, after)) = player_at(rest, 4, object_ends) else {
            report.skip_line(MALFORMED, line.number, rest);
            return;
        };
        let victim_spot = syntax::position(after);
        let after = skip_position(after);
        let named = after.strip_prefix(" with ").and_then(quoted);
        let (weapon, tail) = named.unwrap_or(("world", after));
        let (ka, va) = (ident(actor), ident(&victim));
        if !matches!(va, Ident::Player { .. }) {
            report.skip_line(NPC, line.number, rest);
            return;
        }
        self.arrive(&va, line);
        if ka == Ident::Npc {
            // RANKING.md: a player killed by a non-player (the horde, a `trigger_hurt`) dies by
            // suicide, as by the world.
            let weapon = match named {
                Some((w, _)) if !w.is_empty() => w,
                _ => actor.name,
            };
            let b = self.playing(line, report);
            b.played = true;
            if let Some(v) = b.player_as(&victim, va, line.at, line.number, true) {
                b.m.players[v as usize].active = true;
                let w = b.weapon(weapon);
                b.push_detail(line.at, line.number, EventKind::Suicide, v, NO_PLAYER, w);
            }
            return;
        }

        let headshot = tail.contains("headshot")
            && properties(tail).any(|(k, v)| match v {
                None => k == "headshot",
                Some(v) => k == "customkill" && v.starts_with("headshot"),
            });
        let b = self.playing(line, report);
        b.played = true;
        let (Some(k), Some(v)) = (
            b.player_as(actor, ka, line.at, line.number, true),
            b.player_as(&victim, va, line.at, line.number, true),
        ) else {
            return;
        };
        b.m.players[k as usize].active = true;
        b.m.players[v as usize].active = true;
        let w = b.weapon(weapon);
        if k == v {
            b.push_detail(line.at, line.number, EventKind::Suicide, v, NO_PLAYER, w);
            return;
        }
        let kt = actor.team.and_then(side);
        let vt = victim.team.and_then(side);
        let kind = if kt.is_some_and(Team::is_side) && kt == vt {
            EventKind::TeamKill
        } else {
            EventKind::Frag
        };
        b.push_detail(line.at, line.number, kind, k, v, w);
        // TF2 gives the positions as properties after the weapon.
        let spots = match (actor_spot, victim_spot) {
            (Some(killer), Some(victim)) => Some((killer, victim)),
            _ if tail.contains("_position") => {
                let find = |key: &str| {
                    properties(tail)
                        .find(|(k, _)| *k == key)
                        .and_then(|(_, v)| v.and_then(syntax::coordinates))
                };
                find("attacker_position").zip(find("victim_position"))
            }
            _ => None,
        };
        if let Some((killer, victim)) = spots {
            b.m.spots.push(KillSpots {
                line: line.number,
                killer,
                victim,
                sides: [kt.unwrap_or(Team::Free), vt.unwrap_or(Team::Free)],
            });
        }
        if headshot {
            b.push_detail(line.at, line.number, EventKind::Headshot, k, v, w);
        }
    }

    /// CS:GO `"A<..>" assisted killing "V<..>"`, TF2 `triggered "kill assist" against "V<..>"`.
    fn assist(&mut self, actor: &Block, rest: &str, line: &At, report: &mut FileReport) {
        let Some((victim, _)) = player_at(rest, 4, object_ends) else {
            report.skip_line(MALFORMED, line.number, rest);
            return;
        };
        let (aa, va) = (ident(actor), ident(&victim));
        if !matches!(aa, Ident::Player { .. }) || !matches!(va, Ident::Player { .. }) {
            report.skip_line(NPC, line.number, rest);
            return;
        }
        self.arrive(&va, line);
        let b = self.playing(line, report);
        if let (Some(a), Some(v)) = (
            b.player_as(actor, aa, line.at, line.number, true),
            b.player_as(&victim, va, line.at, line.number, true),
        ) && a != v
        {
            b.m.players[a as usize].active = true;
            b.push(line.at, line.number, EventKind::Assist, a, v);
        }
    }

    /// `"P<..>" triggered "what" ...`: objectives and assists; the rest only sight the player.
    fn trigger(&mut self, actor: &Block, rest: &str, line: &At, report: &mut FileReport) {
        let Some((what, tail)) = quoted(rest) else {
            report.skip_line(MALFORMED, line.number, rest);
            return;
        };
        let own = actor.team.and_then(side);
        let enemy = own.and_then(Team::opponent).unwrap_or(Team::Free);
        let action = match what {
            "kill assist" => {
                if let Some(v) = tail.trim_start().strip_prefix("against ") {
                    self.assist(actor, v, line, report);
                }
                return;
            }
            "Planted_The_Bomb" => Some((FlagAction::BombPlant, Team::Blue)),
            "Defused_The_Bomb" => Some((FlagAction::BombDefuse, Team::Red)),
            "flagevent" => match property(tail, "event") {
                Some("captured") => Some((FlagAction::Capture, enemy)),
                Some("picked up") => Some((FlagAction::Pickup, enemy)),
                Some("dropped") => Some((FlagAction::Drop, enemy)),
                Some("defended") => Some((FlagAction::CarrierKill, own.unwrap_or(Team::Free))),
                _ => None,
            },
            _ => None,
        };
        let Some((action, flag_team)) = action else {
            self.sighting(*actor, line);
            return;
        };
        let b = self.playing(line, report);
        if let Some(i) = b.player(actor, line.at, line.number, true) {
            b.flag(i, action, flag_team, line.at, line.number);
            if action == FlagAction::BombPlant {
                b.planter = Some(i);
            }
        }
    }

    /// Finishes the current match, if any, and emits it when someone played in it. `why` says
    /// what cut it short; `eof` is the end of the file.
    fn close(
        &mut self,
        why: Option<&str>,
        eof: bool,
        report: &mut FileReport,
        emit: &mut dyn FnMut(Match),
    ) {
        let Some(mut b) = self.current.take() else {
            return;
        };
        let hints = b.hints;
        let game = game_code(&self.carry, hints);
        b.m.game = game.into();
        b.m.gametype = game_type(game, &b.m.map, hints);
        b.m.server = Text::from(&self.carry.server);
        b.m.duration_seconds = b.rel(b.last);
        b.m.content = b.hash.finish();
        b.m.id = format!("{:016x}", b.id.unwrap_or(b.m.content)).into();
        b.m.open = eof && !b.game_over && !b.closed;
        if !b.m.players.iter().any(|p| p.active) {
            report.note("match with no players dropped", b.m.line, &b.m.map);
            return;
        }
        if let Some(why) = why.filter(|_| !b.game_over) {
            report.note(&format!("match {why}"), b.m.line, &b.m.map);
        }
        self.emitted += 1;
        emit(b.m);
    }
}

/// Where the line being read stands: its time, number and stamp.
struct At<'a> {
    at: NaiveDateTime,
    number: u64,
    stamp: &'a StampBytes,
}

/// Server, engine and plugin lines that carry nothing the model uses.
fn is_ignored(ev: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "Server cvar",
        "server_cvar",
        "Server say",
        "rcon from",
        "Rcon:",
        "Bad Rcon",
        "[META]",
        "Kick:",
        "Molotov projectile",
        "Starting Freeze period",
        "Tournament mode started",
        "[TFTrue]",
        "Podbot mm",
        "Log file",
        "Banid:",
        "Bad Rcon",
        "triggered ",
        "formed alliance",
    ];
    PREFIXES.iter().any(|p| ev.starts_with(p))
}

impl LineParser for Parser<'_> {
    fn resume(&mut self, c: &Checkpoint) {
        self.emitted = c.matches;
        self.carry = postcard::from_bytes(&c.state).unwrap_or_default();
    }

    /// After a line that ended a match (or a log file), nothing is open.
    fn feed(
        &mut self,
        bytes: &[u8],
        number: u64,
        report: &mut FileReport,
        emit: &mut dyn FnMut(Match),
    ) -> bool {
        self.line(bytes, number, report, emit)
    }

    fn is_open(&self) -> bool {
        self.current.is_some()
    }

    fn emitted(&self) -> usize {
        self.emitted
    }

    fn state(&self) -> Vec<u8> {
        postcard::to_allocvec(&self.carry).unwrap_or_default()
    }

    fn finish(&mut self, report: &mut FileReport, emit: &mut dyn FnMut(Match)) {
        self.close(None, true, report, emit);
    }
}

#[cfg(test)]
mod tests;
