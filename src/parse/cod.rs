//! Call of Duty `games_mp.log` (CoD2, CoD4 / CoD4x, MW2 / IW4x, World at War):
//!
//! ```text
//!   5:22 K;<guid>;2;;JMLX;<guid>;1;;Mimius;m16_gl_mp;55;MOD_HEAD_SHOT;head
//! ```
//!
//! Every line is a level-time stamp (`M+:SS`, minutes growing past 1000 with no reset between
//! maps, and jumping back after a server restart), then a `;`-separated event whose first field
//! is its kind, or a `:` game-flow line as in Quake 3 (`InitGame: \info`, `ShutdownGame:`).
//! `K` (kill) lines put the **victim first**:
//! `K;vguid;vslot;vteam;vname;aguid;aslot;ateam;aname;weapon;damage;MOD;hitloc`.
//! A match runs from `InitGame` (MW2 often writes it bare, with no map) to `ShutdownGame`, the
//! next `InitGame` or the end of the file.
//!
//! Identity within a match: a real GUID (hashed into [`crate::model::MatchPlayer::uid`], never
//! kept) where the line has one; on LAN servers, where the GUID is empty, `0` or all zeros, the
//! client slot plus the name the line gives (names change with no event, and two slots can share
//! a name: they are two players). The world (attacker slot `-1`) and own kills are suicides; a
//! kill between two players of one side in a team game is a team kill. `W`/`L` lines give the
//! winning side of a team game (the only result the log has): it becomes a 1 : 0 team score.
//! Damage (`D`), pickups (`Weapon`), chat and votes carry nothing the model uses.

use std::io::BufRead;

use super::builder::{Kill, MatchBuilder, decode};
use super::lines::complete_lines;
use super::q3::{info_pairs, split_stamp, uid_of};
use super::read_loop::{LineParser, read_lines};
use super::{Checkpoint, LogFormat, Source};
use crate::diagnostics::FileReport;
use crate::model::names::plain_name;
use crate::model::{GameType, Match, Team};

/// Client slots above this are not real clients.
const MAX_SLOT: i64 = 1023;
/// Longest game code kept in a checkpoint (anything longer is not ours).
const MAX_GAME_CODE: usize = 16;

/// The Call of Duty parser.
pub struct CallOfDuty;

impl LogFormat for CallOfDuty {
    fn name(&self) -> &'static str {
        "callofduty"
    }

    fn sniff(&self, head: &[u8]) -> bool {
        let mut framed = 0;
        let mut other = 0;
        let mut cod = false;
        for line in complete_lines(head).take(400) {
            let text = decode(line);
            if text.trim().is_empty() {
                continue;
            }
            match split_stamp(&text) {
                Some((_, rest)) => {
                    framed += 1;
                    cod |= is_cod_line(rest);
                }
                None => other += 1,
            }
        }
        cod && framed >= other * 4
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
            after_shutdown: false,
            game: "cod".to_string(),
            slots: Vec::new(),
        };
        read_lines(&mut parser, input, report, emit, resume)
    }
}

/// True for a line (after its stamp) that only a Call of Duty log writes.
fn is_cod_line(rest: &str) -> bool {
    if let Some((kind, _)) = rest.split_once(';') {
        return matches!(kind, "K" | "D" | "J" | "Q" | "W" | "L" | "Weapon");
    }
    if let Some(info) = rest.strip_prefix("InitGame:") {
        return info_pairs(info.trim_start()).any(|(k, v)| {
            k.eq_ignore_ascii_case("gamename") && game_of(v) != "cod"
                || k.eq_ignore_ascii_case("g_gametype")
                    && v.bytes().any(|b| b.is_ascii_alphabetic())
        });
    }
    false
}

/// The game code ([`crate::model::game_name`]) of an `InitGame`'s `gamename`; `cod` when it is
/// another Call of Duty or none.
pub fn game_of(gamename: &str) -> &'static str {
    let g = gamename.to_ascii_lowercase();
    if g == "call of duty 2" {
        "cod2"
    } else if g == "call of duty 4" || g == "iw3" {
        "cod4"
    } else if g == "iw4" {
        "iw4x"
    } else if g.contains("world at war") || g == "t4" || g == "cod: waw" {
        "codwaw"
    } else {
        "cod"
    }
}

/// Game type from `g_gametype`, a word in Call of Duty.
pub fn game_type(raw: Option<&str>) -> GameType {
    let gt =
        |code: &str, name: &str, team_based: bool| GameType::new(code, name, team_based, false);
    let Some(raw) = raw.map(|r| r.trim().to_ascii_lowercase()) else {
        return gt("unknown", "Unknown", false);
    };
    match raw.as_str() {
        "dm" => gt("dm", "Deathmatch", false),
        "tdm" | "war" => gt("tdm", "Team Deathmatch", true),
        "sd" => gt("sd", "Search and Destroy", true),
        "sab" => gt("sab", "Sabotage", true),
        "dom" => gt("dom", "Domination", true),
        "koth" | "hq" => gt(&raw, "Headquarters", true),
        "ctf" => gt("ctf", "Capture the Flag", true),
        "twar" => gt("twar", "War", true),
        "gun" | "gg" => gt(&raw, "Gun Game", false),
        "oitc" => gt("oitc", "One in the Chamber", false),
        "" => gt("unknown", "Unknown", false),
        other => {
            // A mod's own mode: keep its word, bounded and readable.
            let code: String = other
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                .take(24)
                .collect();
            let name = format!("Mode {code}");
            gt(&code, &name, true)
        }
    }
}

/// Free-for-all modes: team fields in their kill lines (CoD4 1.7 fills them) mean nothing.
fn is_ffa(code: &str) -> bool {
    matches!(code, "dm" | "gun" | "gg" | "oitc")
}

/// A team field: `axis` is red and `allies` blue (as in Enemy Territory's numbering); empty or
/// `world` is none.
fn side(field: &str) -> Option<Team> {
    match field {
        "axis" => Some(Team::Red),
        "allies" => Some(Team::Blue),
        _ => None,
    }
}

/// True when a GUID field names nobody (LAN and listen servers: empty, `0`, all zeros).
fn no_guid(guid: &str) -> bool {
    guid.bytes().all(|b| b == b'0')
}

/// A client as a line names it: the key of its match player, and its uid.
fn client_key(guid: &str, slot: i64, plain: &str) -> (String, Option<u64>) {
    if no_guid(guid) {
        (format!("s{slot}\\{plain}"), None)
    } else {
        (
            format!("g{}", guid.to_ascii_lowercase()),
            uid_of("guid", guid),
        )
    }
}

/// `text` with the GUID fields of a `;` line replaced, for diagnostics (which are published):
/// CoD2 GUIDs are short numbers that the generic redaction would not catch.
fn redacted(kind: &str, fields: &[&str]) -> String {
    let guid_at: Vec<usize> = match kind {
        "K" | "D" => vec![1, 5],
        "J" | "Q" | "V" | "say" | "sayteam" | "tell" | "Weapon" | "A" => vec![1],
        "W" | "L" => {
            let skip = usize::from(fields.len() > 2 && fields.len() % 2 == 1);
            (2 + skip..fields.len()).step_by(2).collect()
        }
        _ => (1..fields.len()).collect(),
    };
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if guid_at.contains(&i) && !f.is_empty() {
                "[guid]"
            } else {
                f
            }
        })
        .collect::<Vec<_>>()
        .join(";")
}

const OUTSIDE_MATCH: &str =
    "line outside a match (after ShutdownGame, before the next InitGame: a crash or another log)";
const MALFORMED: &str = "malformed line (fields missing or not numbers)";
const SLOT_RANGE: &str = "client slot number out of range";

struct Parser<'s> {
    source: &'s Source,
    current: Option<MatchBuilder>,
    emitted: usize,
    after_shutdown: bool,
    /// The game of the last `InitGame` that named one (bare ones keep it: one server, one game).
    game: String,
    /// Per client slot, the key of the player it holds now.
    slots: Vec<(i64, String)>,
}

impl Parser<'_> {
    /// Reads one line; true when it was a `ShutdownGame`.
    fn line(
        &mut self,
        bytes: &[u8],
        number: u64,
        report: &mut FileReport,
        emit: &mut dyn FnMut(Match),
    ) -> bool {
        let text = decode(bytes);
        if text.trim().is_empty() {
            return false;
        }
        let Some((time, rest)) = split_stamp(&text) else {
            report.skip_line("corrupt line (no level-time stamp)", number, &text);
            return false;
        };
        if rest.starts_with("---") || rest.trim().is_empty() {
            return false;
        }
        let semi = rest.split_once(';').filter(|(k, _)| {
            !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        });
        let Some((kind, _)) = semi else {
            return self.flow((&text, rest), time, number, report, emit);
        };
        let fields: Vec<&str> = rest.split(';').collect();
        if let Some(b) = self.current.as_mut() {
            b.hash_line(text.as_bytes(), kind == "K");
        }
        // Hits, pickups, chat, votes, objectives and mod extras: nothing the model uses.
        if !matches!(kind, "K" | "J" | "Q" | "W" | "L") {
            if !matches!(
                kind,
                "D" | "Weapon" | "say" | "sayteam" | "tell" | "V" | "A" | "JT"
            ) {
                report.skip_line("unknown line kind", number, &redacted(kind, &fields));
            }
            return false;
        }
        if !self.open((time, number), (&text, &redacted(kind, &fields)), report) {
            return false;
        }
        let Some(b) = self.current.as_mut() else {
            return false;
        };
        b.saw_time(time);
        let ok = match kind {
            "K" => kill(b, &mut self.slots, &fields, (time, number), report),
            "J" => join(b, &mut self.slots, &fields, (time, number), report),
            "Q" => quit(b, &mut self.slots, &fields, (time, number), report),
            _ => result(b, &fields, report, number),
        };
        if !ok {
            report.skip_line(
                &format!("{MALFORMED}: {kind}"),
                number,
                &redacted(kind, &fields),
            );
        }
        false
    }

    /// Makes sure a player line has a match: the current one, or a partial one when the file
    /// starts mid-game; false (reported) after a `ShutdownGame`.
    fn open(
        &mut self,
        (time, number): (u32, u64),
        (text, shown): (&str, &str),
        report: &mut FileReport,
    ) -> bool {
        if self.current.is_none() {
            if self.after_shutdown {
                report.skip_line(OUTSIDE_MATCH, number, shown);
                return false;
            }
            report.note(
                "match starts before the file (no InitGame; map unknown)",
                number,
                shown,
            );
            let mut b = MatchBuilder::new(self.source, number, time, &self.game);
            b.m.partial = true;
            b.hash_line(text.as_bytes(), false);
            self.current = Some(b);
        }
        true
    }

    /// `InitGame: \info`, bare `InitGame`, `ShutdownGame:`, `ExitLevel: executed` and free text.
    fn flow(
        &mut self,
        (text, rest): (&str, &str),
        time: u32,
        number: u64,
        report: &mut FileReport,
        emit: &mut dyn FnMut(Match),
    ) -> bool {
        let (kind, payload) = match rest.split_once(':') {
            Some((k, p)) => (k, p.trim_start()),
            None => (rest.trim_end(), ""),
        };
        match kind {
            "InitGame" => {
                self.close(
                    Some("closed by the next InitGame (no ShutdownGame)"),
                    report,
                    emit,
                );
                self.init_game(payload, time, number);
                false
            }
            "ShutdownGame" => {
                match self.current.as_mut() {
                    Some(b) => {
                        b.hash_line(text.as_bytes(), false);
                        b.shutdown = true;
                        b.saw_time(time);
                    }
                    None => report.note(
                        "ShutdownGame without InitGame (file starts mid-game)",
                        number,
                        rest,
                    ),
                }
                self.close(None, report, emit);
                self.after_shutdown = true;
                true
            }
            "ExitLevel" => {
                if let Some(b) = self.current.as_mut() {
                    b.hash_line(text.as_bytes(), false);
                    b.saw_time(time);
                    b.m.exit_reason = Some("Map ended".into());
                }
                false
            }
            _ => {
                report.skip_line("unknown line kind", number, rest);
                false
            }
        }
    }

    fn init_game(&mut self, payload: &str, time: u32, number: u64) {
        let mut gametype = None;
        let mut map = None;
        let mut server = None;
        let mut game = None;
        for (k, v) in info_pairs(payload) {
            match k.to_ascii_lowercase().as_str() {
                "mapname" => map = Some(v),
                "g_gametype" => gametype = Some(v),
                "sv_hostname" => server = Some(v),
                "gamename" => game = Some(game_of(v)),
                _ => {}
            }
        }
        if let Some(g) = game.filter(|g| *g != "cod") {
            self.game = g.to_string();
        }
        let mut b = MatchBuilder::new(self.source, number, time, &self.game);
        b.hash_line(b"InitGame", false);
        b.hash_line(payload.as_bytes(), false);
        b.m.gametype = game_type(gametype);
        if let Some(map) = map.filter(|m| !m.is_empty()) {
            b.m.map = map.into();
        }
        if let Some(s) = server {
            b.m.server = s.into();
        }
        self.current = Some(b);
        self.after_shutdown = false;
    }

    /// Finishes the current match and emits it when someone played in it. A slot's player never
    /// crosses a match boundary: every map start repeats the `J` lines.
    fn close(&mut self, why: Option<&str>, report: &mut FileReport, emit: &mut dyn FnMut(Match)) {
        self.slots.clear();
        let Some(b) = self.current.take() else {
            return;
        };
        if let Some(m) = b.finish(why, report) {
            self.emitted += 1;
            emit(m);
        }
    }
}

/// A slot number field, checked against the range of real clients.
fn slot_of(field: &str) -> Result<i64, bool> {
    let slot: i64 = field.trim().parse().map_err(|_| false)?;
    if (0..=MAX_SLOT).contains(&slot) {
        Ok(slot)
    } else {
        Err(true)
    }
}

/// The player of a client `(guid, slot, name)` with its side, created on first sight. A slot now
/// naming someone else (a rename, or a new client) releases the one it held before.
fn client(
    b: &mut MatchBuilder,
    slots: &mut Vec<(i64, String)>,
    (guid, slot, name): (&str, i64, &str),
    team: Option<Team>,
    (time, line): (u32, u64),
) -> u32 {
    let plain = plain_name(name);
    let (key, uid) = client_key(guid, slot, &plain);
    let side = team.unwrap_or(Team::Free);
    let i = b.player(&key, name, side, time, line);
    if uid.is_some() {
        b.m.players[i as usize].uid = uid;
    }
    // A side change, or back on the server after leaving.
    let team = team.unwrap_or(b.m.players[i as usize].team);
    b.set_team(i, team, time, line);
    match slots.iter_mut().find(|(s, _)| *s == slot) {
        Some((_, held)) if *held != key => {
            let old = std::mem::replace(held, key);
            if !slots.iter().any(|(_, k)| *k == old)
                && let Some(o) = b.find(&old)
                && o != i
            {
                b.leave(o, time, line);
            }
        }
        Some(_) => {}
        None => slots.push((slot, key)),
    }
    i
}

/// `K;vguid;vslot;vteam;vname;aguid;aslot;ateam;aname;weapon;damage;MOD;hitloc` (victim first).
fn kill(
    b: &mut MatchBuilder,
    slots: &mut Vec<(i64, String)>,
    f: &[&str],
    at: (u32, u64),
    report: &mut FileReport,
) -> bool {
    if f.len() != 13 {
        return false;
    }
    let (vguid, vteam, vname) = (f[1], f[3], f[4]);
    let (aguid, ateam, aname) = (f[5], f[7], f[8]);
    let vslot = match slot_of(f[2]) {
        Ok(s) => s,
        Err(range) => {
            if range {
                report.skip_line(SLOT_RANGE, at.1, &redacted("K", f));
            }
            return range;
        }
    };
    let aslot: i64 = match f[6].trim().parse() {
        Ok(s) => s,
        Err(_) => return false,
    };
    if !(-1..=MAX_SLOT).contains(&aslot) {
        report.skip_line(SLOT_RANGE, at.1, &redacted("K", f));
        return true;
    }
    // The means of death where the weapon is `none` (falls, triggers, explosions, suicide).
    let weapon = match f[9].trim() {
        "" | "none" => f[11].trim(),
        w => w,
    };
    let weapon = if weapon.is_empty() { "unknown" } else { weapon };
    let ffa = is_ffa(&b.m.gametype.code);
    let team_of = |t: &str| if ffa { None } else { side(t) };
    let v = client(b, slots, (vguid, vslot, vname), team_of(vteam), at);
    // The world, or (CoD4 1.3) an own grenade written as slot -1 with the victim's name.
    let world = aslot < 0 || aname.is_empty() && no_guid(aguid);
    let k = if world || aslot == vslot {
        None
    } else {
        Some(client(b, slots, (aguid, aslot, aname), team_of(ateam), at))
    };
    let same_side = team_of(vteam).is_some() && team_of(vteam) == team_of(ateam);
    let kind = if same_side {
        Kill::TeamKill
    } else {
        Kill::Frag
    };
    b.kill(at, k, v, kind, weapon);
    true
}

/// `J;guid;slot;name`: a client joins (every map start repeats it for those connected).
fn join(
    b: &mut MatchBuilder,
    slots: &mut Vec<(i64, String)>,
    f: &[&str],
    at: (u32, u64),
    report: &mut FileReport,
) -> bool {
    if f.len() != 4 {
        return false;
    }
    match slot_of(f[2]) {
        Ok(slot) => {
            client(b, slots, (f[1], slot, f[3]), None, at);
            true
        }
        Err(range) => {
            if range {
                report.skip_line(SLOT_RANGE, at.1, &redacted("J", f));
            }
            range
        }
    }
}

/// `Q;guid;slot;name`: a client leaves.
fn quit(
    b: &mut MatchBuilder,
    slots: &mut Vec<(i64, String)>,
    f: &[&str],
    (time, line): (u32, u64),
    report: &mut FileReport,
) -> bool {
    if f.len() != 4 {
        return false;
    }
    let slot = match slot_of(f[2]) {
        Ok(s) => s,
        Err(range) => {
            if range {
                report.skip_line(SLOT_RANGE, line, &redacted("Q", f));
            }
            return range;
        }
    };
    let (key, _) = client_key(f[1], slot, &plain_name(f[3]));
    slots.retain(|(s, _)| *s != slot);
    if let Some(i) = b.find(&key)
        && !slots.iter().any(|(_, k)| *k == key)
    {
        b.leave(i, time, line);
    }
    true
}

/// `W;team;guid;name…` and `L;team;guid;name…`: the winning (losing) side of a team game, as a
/// 1 : 0 team score. In free-for-all games the team is empty and the line names the winner only.
fn result(b: &mut MatchBuilder, f: &[&str], report: &mut FileReport, line: u64) -> bool {
    if f.len() < 2 {
        return false;
    }
    let won = f[0] == "W";
    match side(f[1]) {
        Some(team) if b.m.gametype.team_based => {
            let winner = if won {
                team
            } else {
                team.opponent().unwrap_or(team)
            };
            b.m.team_scores = Some(if winner == Team::Red { [1, 0] } else { [0, 1] });
        }
        _ => report.skip_line(
            "winner/loser line outside a team game (no result the model keeps)",
            line,
            &redacted(f[0], f),
        ),
    }
    true
}
impl LineParser for Parser<'_> {
    fn resume(&mut self, c: &Checkpoint) {
        self.emitted = c.matches;
        self.after_shutdown = true;
        // The state is the game code last named by an InitGame (for bare ones that follow).
        if let Ok(game) = std::str::from_utf8(&c.state)
            && !game.is_empty()
            && game.len() <= MAX_GAME_CODE
        {
            self.game = game.to_string();
        }
    }

    /// After a `ShutdownGame` no match is open and no slot is held.
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
        self.game.as_bytes().to_vec()
    }

    fn finish(&mut self, report: &mut FileReport, emit: &mut dyn FnMut(Match)) {
        self.close(None, report, emit);
    }
}

#[cfg(test)]
mod tests;
