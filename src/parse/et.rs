//! Wolfenstein: Enemy Territory and ET: Legacy logs: the console log (`logfile 1`,
//! `etconsole.log`) and the game log (`g_log`, e.g. `etserver.log`):
//!
//! ```text
//! Kill: 13 4 72: ^4SERIAL^1Killer killed Germanimal by MOD_BAR
//!   3:07 Kill: 13 4 72: ^4SERIAL^1Killer killed Germanimal by MOD_BAR
//! ```
//!
//! The game's Quake 3 style lines (`InitGame:`, `ClientUserinfoChanged:`, `Kill:`,
//! `ClientDisconnect:`, `Exit:`, `ShutdownGame:`). In the console log they are mixed with engine
//! and mod output and have **no timestamps**: every event of a match is at time 0 and a match has
//! no duration. The game log has only game lines, each after a level-time stamp: `M:SS` as in
//! Quake 3 (`%3i:%i%i`, minutes unbounded since ET's level time does not restart with a map) or
//! ET: Legacy's milliseconds (`%8i`); times count from the match's `InitGame`. A `Kill:` can be
//! glued to the end of another message's line (a mod print with no newline), so it is looked for
//! anywhere in a line; its names must then match the slots' names, so chat that quotes a kill line
//! cannot forge one. A match runs from `InitGame` to `ShutdownGame` (a server shutdown mid-game
//! logs one too); `Exit:` (`Wolf EndRound.`, `Timelimit hit.`) gives its exit reason, and no line
//! says which side won. `MOD_SWITCHTEAM` self-kills are logged when a player changes team: they
//! count as nothing (not a suicide the player chose).
//!
//! Players are client slots named by their latest `ClientUserinfoChanged` (`n\` name, `t\` team:
//! 1 axis = red, 2 allies = blue, 3 spectator; `skill\` marks a bot). The `cl_guid` of the
//! `Userinfo:` line before it is hashed into [`crate::model::MatchPlayer::uid`] and never kept;
//! the ip in that line is never read.

use std::io::BufRead;

use super::builder::{Kill, MatchBuilder, decode};
use super::lines::complete_lines;
use super::q3::{info_pairs, split_stamp, uid_of};
use super::read_loop::{LineParser, read_lines};
use super::{Checkpoint, LogFormat, Source};
use crate::diagnostics::FileReport;
use crate::model::names::plain_name;
use crate::model::{GameType, Match, Team};

/// Slot numbers the game uses for the world as a killer.
const WORLD_SLOTS: [i64; 2] = [1022, 1023];
/// Client slots above this are not real clients.
const MAX_SLOT: i64 = 1023;

/// The Enemy Territory console and game log parser.
pub struct EnemyTerritory;

/// `gamename` of ET's game code and its common mods, in an `InitGame` line.
const ET_MODS: [&str; 10] = [
    "etmain",
    "legacy",
    "etpro",
    "etpub",
    "noquarter",
    "jaymod",
    "nitmod",
    "silent",
    "etjump",
    "tcetest",
];

/// Means of death no Quake 3 family game logs: a kill by one marks an ET log.
const ET_ONLY_MODS: [&str; 12] = [
    "MOD_MP40",
    "MOD_THOMPSON",
    "MOD_STEN",
    "MOD_STG44",
    "MOD_MP34",
    "MOD_BAR",
    "MOD_FG42",
    "MOD_PANZERFAUST",
    "MOD_FLAMETHROWER",
    "MOD_LUGER",
    "MOD_COLT",
    "MOD_SWITCHTEAM",
];

/// Splits a game log line's level-time stamp off: `  3:07 Kill: ...` (Quake 3's `M:SS`) or
/// `  187000 Kill: ...` (ET: Legacy's milliseconds, padded to 8 columns) to (seconds,
/// `Kill: ...`). The milliseconds form counts only when it fills its 8 columns and is followed
/// by a `Kind:` word, so console output that starts with a number (`1 cpmKill: ...`,
/// `1 : Rukus (N° 0) is invulnerable.`) is not read as stamped.
fn strip_stamp(line: &str) -> Option<(u32, &str)> {
    if let Some(split) = split_stamp(line) {
        return Some(split);
    }
    let t = line.trim_start_matches(' ');
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 10 || line.len() - t.len() + digits < 8 {
        return None;
    }
    let rest = t[digits..].strip_prefix(' ')?;
    let kind = rest.split_once(':')?.0;
    if kind.is_empty() || !kind.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let ms: u64 = t[..digits].parse().ok()?;
    Some((u32::try_from(ms / 1000).ok()?, rest))
}

impl LogFormat for EnemyTerritory {
    fn name(&self) -> &'static str {
        "enemyterritory"
    }

    fn sniff(&self, head: &[u8]) -> bool {
        // The engine's banner, an InitGame of an ET version or mod, or a kill by a means of death
        // only ET has; and game lines, with or without a level-time stamp. Sniffed before Quake 3,
        // whose game logs have the same frame.
        let mut et = false;
        let mut game_lines = 0;
        for line in complete_lines(head).take(2000) {
            let text = decode(line);
            let text = strip_stamp(&text).map_or(&*text, |(_, rest)| rest);
            if let Some(info) = text.strip_prefix("InitGame: ") {
                et |= info_pairs(info).any(|(k, v)| match k.to_ascii_lowercase().as_str() {
                    "version" => {
                        v.starts_with("ET ") || v.starts_with("ET:") || v.contains("ET Legacy")
                    }
                    "gamename" => ET_MODS.contains(&v.to_ascii_lowercase().as_str()),
                    _ => false,
                });
            }
            if let Some(kill) = text.strip_prefix("Kill: ") {
                et |= kill
                    .rsplit_once(" by ")
                    .is_some_and(|(_, m)| ET_ONLY_MODS.contains(&m.trim_end()));
            }
            et |= text.starts_with("ET: Legacy") || text.starts_with("ET 2.");
            game_lines += usize::from(
                [
                    "ClientUserinfoChanged: ",
                    "Kill: ",
                    "InitGame: ",
                    "ClientConnect: ",
                ]
                .iter()
                .any(|p| text.starts_with(p)),
            );
        }
        et && game_lines > 0
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
            current: None,
            emitted: 0,
            slots: Vec::new(),
            pending_uid: None,
            last_chat: String::new(),
            now: 0,
        };
        read_lines(&mut parser, input, report, emit, resume)
    }
}

/// What the latest userinfo line said about a client slot.
#[derive(Clone)]
struct Slot {
    slot: i64,
    name: String,
    team: Team,
    skill: Option<f32>,
    uid: Option<u64>,
}

impl Slot {
    /// The key of the slot's match player: its GUID where it has one, else slot and name (two
    /// slots sharing a name are two players).
    fn key(&self) -> String {
        match self.uid {
            Some(uid) => format!("g{uid:016x}"),
            None => format!("s{}\\{}", self.slot, plain_name(&self.name)),
        }
    }
}

fn team_from_number(t: &str) -> Team {
    match t.trim() {
        "1" => Team::Red,
        "2" => Team::Blue,
        "3" => Team::Spectator,
        _ => Team::Free,
    }
}

/// Game type from `g_gametype`: 2 objective, 3 stopwatch, 4 campaign, 5 last man standing,
/// 6 map voting (ET: Legacy).
fn game_type(raw: Option<&str>) -> GameType {
    let gt =
        |code: &str, name: &str, team_based: bool| GameType::new(code, name, team_based, false);
    match raw.map(str::trim) {
        Some("2") => gt("obj", "Objective", true),
        Some("3") => gt("sw", "Stopwatch", true),
        Some("4") => gt("campaign", "Campaign", true),
        Some("5") => gt("lms", "Last Man Standing", true),
        Some("6") => gt("mapvote", "Map Voting", true),
        Some(n) if !n.is_empty() && n.len() <= 4 && n.bytes().all(|b| b.is_ascii_digit()) => {
            gt(&format!("mode{n}"), &format!("Mode {n}"), true)
        }
        _ => gt("unknown", "Unknown", false),
    }
}

/// Game lines that carry nothing the model uses.
fn is_ignored(kind: &str) -> bool {
    matches!(
        kind,
        "ClientConnect"
            | "ClientBegin"
            | "Item"
            | "say"
            | "sayteam"
            | "saybuddy"
            | "tell"
            | "Voice"
            | "Medic_Revive"
            | "Health_Pack"
            | "Ammo_Pack"
            | "WeaponStats"
            | "broadcast"
            | "Dynamite_Plant"
            | "Dynamite_Diffuse"
            | "Repair"
            | "Objective_Destroyed"
            | "red"
            | "score"
            | "Callvote"
            | "Vote"
    )
}

const UNKNOWN_SLOT: &str =
    "Kill line names a client slot with no player (no ClientUserinfoChanged before it)";
const MISMATCH: &str = "Kill line whose names are not its slots' names (chat, or a cut-off line)";
const MALFORMED: &str = "malformed line (fields missing or not numbers)";

struct Parser<'s> {
    source: &'s Source,
    current: Option<MatchBuilder>,
    emitted: usize,
    slots: Vec<Slot>,
    /// The hashed `cl_guid` of the last `Userinfo:` line, for the next userinfo change.
    pending_uid: Option<u64>,
    /// The text of the last `say:` line: the console echoes it on the next line.
    last_chat: String,
    /// Level time (seconds) of the latest stamped line; 0 in a console log.
    now: u32,
}

impl Parser<'_> {
    /// Reads one line; true when it was a `ShutdownGame`.
    fn line(
        &mut self,
        text: &str,
        number: u64,
        report: &mut FileReport,
        emit: &mut dyn FnMut(Match),
    ) -> bool {
        let line = text.trim_end();
        let (stamped, t) = match strip_stamp(line) {
            Some((time, rest)) => {
                self.now = time;
                (true, rest)
            }
            None => (false, line),
        };
        if t.is_empty() || t.starts_with("---") || t.starts_with("====") {
            return false;
        }
        let kind = t
            .split_once(':')
            .map(|(k, _)| k)
            .filter(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
        if let Some(b) = self.current.as_mut() {
            b.hash_line(line.as_bytes(), kind == Some("Kill"));
            // The next InitGame's time is not this match's.
            if stamped && kind != Some("InitGame") {
                b.saw_time(self.now);
            }
        }
        let payload = |k: &str| t[k.len() + 1..].trim_start();
        match kind {
            Some("InitGame") => {
                self.close(
                    Some("closed by the next InitGame (no ShutdownGame)"),
                    report,
                    emit,
                );
                self.init_game(payload("InitGame"), number);
            }
            Some("ShutdownGame") => {
                if let Some(b) = self.current.as_mut() {
                    b.shutdown = true;
                }
                self.close(None, report, emit);
                // Clients reconnect on the next map: no slot crosses a ShutdownGame (so a
                // checkpoint here needs no state).
                self.slots.clear();
                self.pending_uid = None;
                return true;
            }
            Some("ClientUserinfoChanged") => {
                if !self.userinfo(payload("ClientUserinfoChanged"), number) {
                    report.skip_line(&format!("{MALFORMED}: ClientUserinfoChanged"), number, t);
                }
            }
            Some("Userinfo") => {
                self.pending_uid = info_pairs(payload("Userinfo"))
                    .find(|(k, _)| k.eq_ignore_ascii_case("cl_guid"))
                    .and_then(|(_, v)| uid_of("guid", v));
            }
            Some("ClientDisconnect") => self.disconnect(payload("ClientDisconnect"), number),
            Some("Exit") => {
                // `Exit: Wolf EndRound.`: the reason only; ET logs no winner.
                if let Some(b) = self.current.as_mut() {
                    b.m.exit_reason = Some(payload("Exit").trim().into());
                }
            }
            Some("Kill") => self.kill(payload("Kill"), t, number, report),
            Some(k) if matches!(k, "say" | "sayteam" | "saybuddy") => {
                // `say: Eva: text`; the echo `Eva^7: text` follows.
                self.last_chat = payload(k)
                    .split_once(": ")
                    .map_or("", |(_, msg)| msg)
                    .to_string();
            }
            Some(k) if is_ignored(k) => {}
            _ => {
                // A kill glued to the end of another message, unless the line is chat's echo.
                let echo = !self.last_chat.is_empty() && t.ends_with(self.last_chat.as_str());
                match t.find("Kill: ").filter(|_| !echo) {
                    Some(at) => {
                        self.kill(t[at + 6..].trim_start(), t, number, report);
                    }
                    None if kind.is_some() => report.skip_line("unknown line kind", number, t),
                    None => report.skip_line(
                        "engine or mod console output (not a game line)",
                        number,
                        t,
                    ),
                }
            }
        }
        if !matches!(kind, Some("say" | "sayteam" | "saybuddy")) {
            self.last_chat.clear();
        }
        false
    }

    fn init_game(&mut self, payload: &str, number: u64) {
        let mut b = MatchBuilder::new(self.source, number, self.now, "et");
        b.hash_line(b"InitGame", false);
        b.hash_line(payload.as_bytes(), false);
        let mut gametype = None;
        for (k, v) in info_pairs(payload) {
            match k.to_ascii_lowercase().as_str() {
                "mapname" => b.m.map = v.into(),
                "g_gametype" => gametype = Some(v),
                "sv_hostname" => b.m.server = v.into(),
                _ => {}
            }
        }
        b.m.gametype = game_type(gametype);
        self.current = Some(b);
    }

    /// The current match, or a partial one when the file starts mid-game.
    fn builder(&mut self, number: u64, report: &mut FileReport) -> &mut MatchBuilder {
        let (source, now) = (self.source, self.now);
        self.current.get_or_insert_with(|| {
            report.note(
                "match starts before the file (no InitGame; map unknown)",
                number,
                "",
            );
            let mut b = MatchBuilder::new(source, number, now, "et");
            b.m.partial = true;
            b
        })
    }

    /// `ClientUserinfoChanged: 1 n\Eva\t\1\skill\3\c\6\...`
    fn userinfo(&mut self, payload: &str, number: u64) -> bool {
        let Some((slot, info)) = payload.split_once(' ') else {
            return false;
        };
        let Ok(slot) = slot.parse::<i64>() else {
            return false;
        };
        if !(0..=MAX_SLOT).contains(&slot) {
            return false;
        }
        let (mut name, mut team, mut skill) = (None, Team::Free, None);
        for (k, v) in info_pairs(info) {
            match k {
                "n" => name = Some(v),
                "t" => team = team_from_number(v),
                "skill" => skill = v.trim().parse::<f32>().ok().filter(|s| s.is_finite()),
                _ => {}
            }
        }
        let Some(name) = name else {
            return false;
        };
        let old = self.slots.iter().position(|s| s.slot == slot);
        let uid = self
            .pending_uid
            .take()
            .or_else(|| old.and_then(|i| self.slots[i].uid));
        let new = Slot {
            slot,
            name: name.to_string(),
            team,
            skill,
            uid,
        };
        let key = new.key();
        let old_key = old.map(|i| self.slots.swap_remove(i).key());
        self.slots.push(new);
        if let Some(b) = self.current.as_mut() {
            // Players enter the match when they first play on a side or in a kill.
            if b.find(&key).is_some() || team.is_playing() {
                let i = enter(b, &self.slots[self.slots.len() - 1], (self.now, number));
                b.set_team(i, team, self.now, number);
            }
            if let Some(old_key) = old_key.filter(|k| *k != key) {
                release(b, &self.slots, &old_key, (self.now, number));
            }
        }
        true
    }

    /// `ClientDisconnect: 1` (mods add the GUID, ip and name after the slot).
    fn disconnect(&mut self, payload: &str, number: u64) {
        let Some(Ok(slot)) = payload
            .split_ascii_whitespace()
            .next()
            .map(str::parse::<i64>)
        else {
            return;
        };
        if let Some(i) = self.slots.iter().position(|s| s.slot == slot) {
            let key = self.slots.swap_remove(i).key();
            if let Some(b) = self.current.as_mut() {
                release(b, &self.slots, &key, (self.now, number));
            }
        }
    }

    /// `Kill: 0 6 10: Rukus killed ^1Odin by MOD_THOMPSON` (the payload after `Kill:`).
    fn kill(&mut self, payload: &str, shown: &str, number: u64, report: &mut FileReport) {
        let parsed = payload.split_once(':').and_then(|(nums, text)| {
            let mut it = nums.split_ascii_whitespace().map(|n| n.parse::<i64>());
            match (it.next(), it.next(), it.next(), it.next()) {
                (Some(Ok(k)), Some(Ok(v)), Some(Ok(_)), None) => Some((k, v, text.trim())),
                _ => None,
            }
        });
        let Some((killer, victim, text)) = parsed else {
            report.skip_line(&format!("{MALFORMED}: Kill"), number, shown);
            return;
        };
        let Some((names, weapon)) = text.rsplit_once(" by ") else {
            report.skip_line(&format!("{MALFORMED}: Kill"), number, shown);
            return;
        };
        let weapon = weapon.trim();
        let world = WORLD_SLOTS.contains(&killer);
        let slot = |s: i64| self.slots.iter().find(|x| x.slot == s);
        let (Some(v), Some(k)) = (
            slot(victim),
            if world { slot(victim) } else { slot(killer) },
        ) else {
            report.skip_line(UNKNOWN_SLOT, number, shown);
            return;
        };
        let kname = if world { "<world>" } else { k.name.as_str() };
        if names != format!("{kname} killed {}", v.name) {
            report.skip_line(MISMATCH, number, shown);
            return;
        }
        if weapon == "MOD_SWITCHTEAM" {
            report.skip_line(
                "team-switch self-kill (MOD_SWITCHTEAM: not a suicide the player chose)",
                number,
                shown,
            );
            return;
        }
        let (vteam, kteam) = (v.team, k.team);
        let (vi, ki) = {
            let (v, k, at) = (v.clone(), k.clone(), (self.now, number));
            let b = self.builder(number, report);
            let vi = enter(b, &v, at);
            let ki = (!world && killer != victim).then(|| enter(b, &k, at));
            (vi, ki)
        };
        let Some(b) = self.current.as_mut() else {
            return;
        };
        let kind = if kteam.is_side() && kteam == vteam {
            Kill::TeamKill
        } else {
            Kill::Frag
        };
        b.kill((self.now, number), ki, vi, kind, weapon);
    }

    /// Finishes the current match and emits it when someone played in it.
    fn close(&mut self, why: Option<&str>, report: &mut FileReport, emit: &mut dyn FnMut(Match)) {
        let Some(b) = self.current.take() else {
            return;
        };
        if let Some(m) = b.finish(why, report) {
            self.emitted += 1;
            emit(m);
        }
    }
}

/// The match player of a slot (created on its side on first sight at level time and line `at`),
/// with its bot mark and uid.
fn enter(b: &mut MatchBuilder, slot: &Slot, (time, number): (u32, u64)) -> u32 {
    let i = b.player(&slot.key(), &slot.name, slot.team, time, number);
    let p = &mut b.m.players[i as usize];
    if slot.skill.is_some() {
        p.bot = true;
        p.bot_skill = slot.skill;
    }
    if slot.uid.is_some() {
        p.uid = slot.uid;
    }
    i
}

/// The slot that held `key` dropped it: its player leaves unless another slot still holds them.
fn release(b: &mut MatchBuilder, slots: &[Slot], key: &str, (time, number): (u32, u64)) {
    if slots.iter().any(|s| s.key() == key) {
        return;
    }
    if let Some(i) = b.find(key) {
        b.leave(i, time, number);
    }
}
impl LineParser for Parser<'_> {
    fn resume(&mut self, c: &Checkpoint) {
        self.emitted = c.matches;
    }

    /// After a `ShutdownGame` no match is open and no slot is held.
    fn feed(
        &mut self,
        bytes: &[u8],
        number: u64,
        report: &mut FileReport,
        emit: &mut dyn FnMut(Match),
    ) -> bool {
        self.line(&decode(bytes), number, report, emit)
    }

    fn is_open(&self) -> bool {
        self.current.is_some()
    }

    fn emitted(&self) -> usize {
        self.emitted
    }

    fn finish(&mut self, report: &mut FileReport, emit: &mut dyn FnMut(Match)) {
        self.close(None, report, emit);
    }
}

#[cfg(test)]
mod tests;
