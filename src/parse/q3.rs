//! Quake 3 family `games.log` (baseq3/ioquake3, OpenArena, Urban Terror 4.x):
//!
//! ```text
//!  20:54 Kill: 1022 2 22: <world> killed Isgalamido by MOD_TRIGGER_HURT
//! ```
//!
//! Every line is a level-time stamp (`M+:SS`), a kind word and a payload. A match runs from
//! `InitGame` to `ShutdownGame`, the next `InitGame` or the end of the file; lines before the first
//! `InitGame` form a partial match. Players are known by client slot: the latest
//! `ClientUserinfoChanged` for a slot gives its name and team (kept across `InitGame`, cleared by
//! `ClientDisconnect`). Kill lines are read by their slot numbers, never by splitting the names.

use std::borrow::Cow;
use std::cell::Cell;
use std::io::BufRead;

use chrono::NaiveDateTime;

use super::lines::complete_lines;
use super::read_loop::{LineParser, read_lines};
use super::{Checkpoint, LogFormat, Source};
use crate::diagnostics::FileReport;
use crate::hash::{Hasher, fnv_many};
use crate::model::names::plain_name;
use crate::model::{
    Event, EventKind, FlagAction, GameType, Match, MatchPlayer, NO_PLAYER, PlayerFields, Team, Text,
};

/// The parser's maps (slots, client ids, names), looked up several times per line: a fast hash,
/// seeded per process so that names chosen to collide cannot slow the parser down.
type HashMap<K, V> = std::collections::HashMap<K, V, ahash::RandomState>;

/// Slot number the game uses for the world as a killer (`ENTITYNUM_WORLD`); 1023 is `NONE`.
const WORLD_SLOTS: [u32; 2] = [1022, 1023];
/// Client slots above this are not real clients.
const MAX_SLOT: u32 = 1023;

/// The Quake 3 family parser.
pub struct Quake3;

impl LogFormat for Quake3 {
    fn name(&self) -> &'static str {
        "quake3"
    }

    fn sniff(&self, head: &[u8]) -> bool {
        let mut framed = 0;
        let mut other = 0;
        let mut known_kind = false;
        for line in complete_lines(head).take(400) {
            let text = String::from_utf8_lossy(line);
            if text.trim().is_empty() {
                continue;
            }
            match split_stamp(&text) {
                Some((_, rest)) => {
                    framed += 1;
                    let kind = rest.split(':').next().unwrap_or("");
                    known_kind |= rest.starts_with("---")
                        || matches!(
                            kind,
                            "InitGame"
                                | "Kill"
                                | "ClientConnect"
                                | "ClientUserinfoChanged"
                                | "ShutdownGame"
                                | "Exit"
                                | "ClientBegin"
                                | "Item"
                        );
                }
                None => other += 1,
            }
        }
        known_kind && framed >= 1 && framed >= other * 4
    }

    fn parse(
        &self,
        input: &mut dyn BufRead,
        source: &Source,
        report: &mut FileReport,
        emit: &mut dyn FnMut(Match),
        resume: Option<&Checkpoint>,
    ) -> std::io::Result<Option<Checkpoint>> {
        read_lines(&mut Parser::new(source), input, report, emit, resume)
    }

    fn splittable(&self) -> bool {
        true
    }

    /// A `ShutdownGame` line: it closes any match and clears the slots and client ids, which
    /// leaves exactly the state a resume from its checkpoint starts with.
    fn resumes_after(&self, line: &[u8]) -> bool {
        if line.len() + 2 > super::lines::MAX_LINE_BYTES
            || memchr::memmem::find(line, b"ShutdownGame").is_none()
        {
            return false;
        }
        let text = String::from_utf8_lossy(line);
        split_stamp(&text).is_some_and(|(_, rest)| {
            !rest.starts_with("---") && rest.find(':').is_some_and(|i| &rest[..i] == "ShutdownGame")
        })
    }
}

/// A line's text: borrowed when it is UTF-8 (checking is much faster than a lossy decode), else
/// decoded with U+FFFD for the bytes that are not.
fn decode_lossy(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Splits `  12:34 Kind: payload` into (seconds, `Kind: payload`). None when there is no stamp:
/// the minutes are 1 to 7 digits up to the first colon, the seconds exactly 2 digits, then a
/// space or the end of the line.
pub(crate) fn split_stamp(line: &str) -> Option<(u32, &str)> {
    let (time, at) = stamp(line.as_bytes())?;
    // The stamp is ASCII: byte `at` starts a character.
    Some((time, &line[at..]))
}

/// [`split_stamp`] on bytes: the seconds and where the rest begins.
fn stamp(line: &[u8]) -> Option<(u32, usize)> {
    let spaces = line.iter().take_while(|b| **b == b' ').count();
    let bytes = &line[spaces..];
    // The first colon, when only digits (at most 7) come before it: no search past 8 bytes.
    let colon = bytes
        .iter()
        .take(8)
        .take_while(|b| b.is_ascii_digit())
        .count();
    if colon == 0 || colon > 7 || bytes.get(colon) != Some(&b':') {
        return None;
    }
    let min = &bytes[..colon];
    let (tens, ones) = match bytes.get(colon + 1..colon + 3) {
        Some(&[a, b]) if a.is_ascii_digit() && b.is_ascii_digit() => (a - b'0', b - b'0'),
        _ => return None,
    };
    let rest = match bytes.get(colon + 3) {
        Some(b' ') => colon + 4,
        None => colon + 3,
        Some(_) => return None,
    };
    // At most 7 digits: no overflow, even times 60.
    let minutes = min.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
    Some((minutes * 60 + u32::from(tens * 10 + ones), spaces + rest))
}

/// Iterates `key\value` pairs of a Quake info string (leading `\` optional).
pub(crate) fn info_pairs(s: &str) -> impl Iterator<Item = (&str, &str)> {
    let s = s.strip_prefix('\\').unwrap_or(s);
    let mut parts = s.split('\\');
    std::iter::from_fn(move || {
        let key = parts.next()?;
        let value = parts.next().unwrap_or("");
        Some((key, value))
    })
}

/// C `atoi`: optional white space and sign, then digits; anything else ends the number (0 if none).
fn atoi(s: &str) -> i64 {
    let s = s.trim_start();
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut n: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        n = n.saturating_mul(10).saturating_add(i64::from(b - b'0'));
    }
    if neg { -n } else { n }
}

/// Parses leading space-separated integers of `s`, e.g. `"3 6 7"`.
fn ints<const N: usize>(s: &str) -> Option<[i64; N]> {
    let mut out = [0i64; N];
    let mut it = s.split_ascii_whitespace();
    for slot in out.iter_mut() {
        *slot = it.next()?.parse().ok()?;
    }
    Some(out)
}

fn team_from_number(t: &str) -> Team {
    match atoi(t) {
        1 => Team::Red,
        2 => Team::Blue,
        3 => Team::Spectator,
        _ => Team::Free,
    }
}

/// The game code ([`crate::model::game_name`]) of a Quake 3 engine log's `gamename`.
pub fn game_of(gamename: &str) -> &'static str {
    let g = gamename.to_ascii_lowercase();
    if g.starts_with("q3ut") || g.starts_with("q3urt") {
        "urt"
    } else if g == "baseoa" || g.starts_with("openarena") {
        "openarena"
    } else {
        "quake3"
    }
}

/// Game type from `g_gametype` and the mod (`gamename`): Urban Terror numbers its modes differently.
pub fn game_type(raw: Option<&str>, gamename: &str) -> GameType {
    let Some(raw) = raw else {
        return gt("unknown", "Unknown", false, false);
    };
    let n = atoi(raw.trim_start_matches(|c: char| c == '=' || c.is_whitespace()));
    let urt = gamename.starts_with("q3ut") || gamename.starts_with("q3urt");
    if urt {
        match n {
            0 => gt("ffa", "Free For All", false, false),
            1 => gt("lms", "Last Man Standing", false, false),
            3 => gt("tdm", "Team Deathmatch", true, false),
            4 => gt("ts", "Team Survivor", true, false),
            5 => gt("ftl", "Follow the Leader", true, false),
            6 => gt("cah", "Capture and Hold", true, false),
            7 => gt("ctf", "Capture the Flag", true, false),
            8 => gt("bomb", "Bomb", true, false),
            9 => gt("jump", "Jump", false, false),
            10 => gt("freeze", "Freeze Tag", true, false),
            11 => gt("gungame", "Gun Game", false, false),
            _ => gt(&format!("mode{n}"), &format!("Mode {n}"), false, false),
        }
    } else {
        match n {
            0 => gt("ffa", "Free For All", false, false),
            1 => gt("duel", "Tournament (duel)", false, true),
            2 => gt("sp", "Single Player", false, false),
            3 => gt("tdm", "Team Deathmatch", true, false),
            4 => gt("ctf", "Capture the Flag", true, false),
            5 => gt("1fctf", "One Flag CTF", true, false),
            6 => gt("overload", "Overload", true, false),
            7 => gt("harvester", "Harvester", true, false),
            8 => gt("elimination", "Elimination", true, false),
            9 => gt("ctfelim", "CTF Elimination", true, false),
            10 => gt("lms", "Last Man Standing", false, false),
            11 => gt("dd", "Double Domination", true, false),
            12 => gt("dom", "Domination", true, false),
            _ => gt(&format!("mode{n}"), &format!("Mode {n}"), false, false),
        }
    }
}

fn gt(code: &str, name: &str, team_based: bool, duel: bool) -> GameType {
    GameType::new(code, name, team_based, duel)
}

/// What the latest userinfo line said about a client slot.
#[derive(Debug, Clone)]
struct Slot {
    name: String,
    plain: String,
    team: Team,
    skill: Option<f32>,
    /// Hash of the slot's account or client id, if known ([`MatchPlayer::uid`]).
    uid: Option<u64>,
    /// The match player this identity is, in the match of [`Builder::serial`]: found once per
    /// match, not on each of its kill lines.
    player: Cell<Option<(u64, u32)>>,
}

/// What a slot's lines said of its client's ids, hashed ([`uid_of`]).
#[derive(Debug, Clone, Copy, Default)]
struct ClientIds {
    /// Urban Terror's auth name (`AccountValidated`).
    auth: Option<u64>,
    /// `cl_guid` from `ClientUserinfo`.
    guid: Option<u64>,
}

impl ClientIds {
    /// The id that names the player: the auth name where there is one.
    fn best(self) -> Option<u64> {
        self.auth.or(self.guid)
    }
}

/// The hash kept of a client id: `kind` (`auth`, `guid`) and the id, case-insensitive.
pub(crate) fn uid_of(kind: &str, id: &str) -> Option<u64> {
    let id = id.trim();
    // Empty, and all-zero ids (bots, LAN clients without a key), identify nobody.
    if id.is_empty() || id.bytes().all(|b| b == b'0') || id == "--" {
        return None;
    }
    let mut h = Hasher::new();
    h.str(kind);
    h.str(&id.to_ascii_uppercase());
    Some(h.finish())
}

/// A match's lines kept for its fingerprints before they are hashed ([`Builder::spill`]):
/// far more than a match has (tens of kilobytes), so real matches are hashed together at their
/// end, but a log of one endless match needs no memory for its lines.
const SPILL_BYTES: usize = 1 << 20;

/// Kill lines in the opening that fixes a match's stable id ([`Match::id`]).
const ID_KILLS: u32 = 4;

/// A match being read.
struct Builder {
    m: Match,
    /// The match's lines, each ending with a newline, as its fingerprint (its content) hashes
    /// them: hashed when the match is emitted ([`Parser::flush`]).
    text: Vec<u8>,
    /// Length of `text` once the opening's [`ID_KILLS`] kills were in it (the stable id is
    /// the hash of that much).
    id_at: Option<usize>,
    /// The hash of the lines `text` no longer holds, and the stable id when their opening was
    /// in them: `text` is hashed and emptied whenever it reaches [`SPILL_BYTES`].
    spilled: Option<(Hasher, Option<u64>)>,
    kills_hashed: u32,
    /// Tells this match from the others of the same parse (for [`Slot::player`]).
    serial: u64,
    /// Level time of the match start.
    start_time: u32,
    last_time: u32,
    exit_time: Option<u32>,
    shutdown: bool,
    by_plain: HashMap<String, u32>,
    /// Per match player: on the server now (a `Leave` since their last team event clears it).
    present: Vec<bool>,
    weapons: super::WeaponIndex,
    /// The match's events so far (moved into the match when it closes: pushing to a plain
    /// vector skips the checks of [`crate::model::Events`]).
    events: Vec<Event>,
}

impl Builder {
    /// A match starting at `line`, level time `time`; `text` is an empty buffer to reuse,
    /// `serial` a number no other match of the parse has.
    fn new(source: &Source, line: u64, time: u32, text: Vec<u8>, serial: u64) -> Self {
        Builder {
            m: super::new_match(source, line, "quake3"),
            text,
            id_at: None,
            spilled: None,
            kills_hashed: 0,
            serial,
            start_time: time,
            last_time: time,
            exit_time: None,
            shutdown: false,
            by_plain: HashMap::default(),
            present: Vec::new(),
            weapons: Default::default(),
            events: Vec::new(),
        }
    }

    /// Adds a line to the fingerprints; a kill line may complete the stable id's opening.
    fn hash_line(&mut self, line: &[u8], kind: &str) {
        self.text.extend_from_slice(line);
        self.text.push(b'\n');
        if self.id_at.is_none() && kind == "Kill" {
            self.kills_hashed += 1;
            if self.kills_hashed == ID_KILLS {
                self.id_at = Some(self.text.len());
            }
        }
        if self.text.len() >= SPILL_BYTES {
            self.spill();
        }
    }

    /// Hashes `text` on from [`Self::spilled`] (taking the stable id where its opening ends)
    /// and empties it: FNV-1a of the whole is that of its parts one after the other.
    fn spill(&mut self) {
        let (hash, id) = self.spilled.get_or_insert_with(|| (Hasher::new(), None));
        match self.id_at.take() {
            Some(at) => {
                hash.raw(&self.text[..at]);
                *id = Some(hash.finish());
                hash.raw(&self.text[at..]);
            }
            None => hash.raw(&self.text),
        }
        self.text.clear();
    }

    fn rel(&self, time: u32) -> u32 {
        time.saturating_sub(self.start_time)
    }

    /// The match player for a slot's current identity, created on first sight.
    fn player(&mut self, slot: &Slot, time: u32, line: u64) -> u32 {
        let cached = slot.player.get().filter(|c| c.0 == self.serial);
        let known = cached.map(|c| c.1);
        if let Some(i) = known.or_else(|| self.by_plain.get(&slot.plain).copied()) {
            slot.player.set(Some((self.serial, i)));
            let p = &mut self.m.players[i as usize];
            p.name = Text::from(&slot.name);
            if slot.skill.is_some() {
                p.bot_skill = slot.skill;
                p.bot = true;
            }
            if slot.uid.is_some() {
                p.uid = slot.uid;
            }
            return i;
        }
        let i = self.m.players.len() as u32;
        self.m.players.push(MatchPlayer::from(PlayerFields {
            plain: slot.plain.clone().into(),
            name: slot.name.clone().into(),
            score: None,
            team: slot.team,
            joined: self.rel(time),
            left: None,
            active: false,
            bot_skill: slot.skill,
            uid: slot.uid,
            bot: slot.skill.is_some(),
        }));
        self.by_plain.insert(slot.plain.clone(), i);
        slot.player.set(Some((self.serial, i)));
        self.present.push(false);
        self.join(i, slot.team, time, line);
        i
    }

    /// Player `i` is on `team` from now on (a team change, or a rejoin after leaving).
    fn join(&mut self, i: u32, team: Team, time: u32, line: u64) {
        let p = &mut self.m.players[i as usize];
        p.team = team;
        p.set_left(None);
        self.present[i as usize] = true;
        self.push(time, line, EventKind::TeamChange(team), i, NO_PLAYER, 0);
    }

    /// Player `i` leaves the server (their slot dropped them and no other slot holds them).
    fn leave(&mut self, i: u32, time: u32, line: u64) {
        if !std::mem::replace(&mut self.present[i as usize], false) {
            return;
        }
        let rel = self.rel(time);
        self.m.players[i as usize].set_left(Some(rel));
        self.push(time, line, EventKind::Leave, i, NO_PLAYER, 0);
    }

    fn push(
        &mut self,
        time: u32,
        line: u64,
        kind: EventKind,
        actor: u32,
        target: u32,
        detail: u16,
    ) {
        let event = Event {
            time: self.rel(time),
            line,
            kind,
            actor,
            target,
            detail,
        };
        self.events.push(event);
    }

    /// The index of weapon `name` in the match's weapon list.
    fn weapon(&mut self, name: &str) -> u16 {
        self.weapons.of(&mut self.m.weapons, name)
    }

    fn award(&mut self, name: &str) -> u16 {
        match self.m.awards.iter().position(|a| a == name) {
            Some(i) => i as u16,
            None => {
                self.m.awards.push(name.into());
                (self.m.awards.len() - 1) as u16
            }
        }
    }
}

struct Parser<'s> {
    source: &'s Source,
    slots: HashMap<u32, Slot>,
    current: Option<Builder>,
    emitted: usize,
    /// Client ids per slot, applied by the slot's next userinfo change.
    ids: HashMap<u32, ClientIds>,
    /// A `ShutdownGame` closed the last match and no `InitGame` opened another: lines here belong
    /// to no match (a crash, or another log appended) and are reported, not guessed at.
    after_shutdown: bool,
    /// Matches closed and counted but not yet emitted: their fingerprints are hashed
    /// [`FINISHED`] at a time ([`Self::flush`]), which is several times faster than one by one.
    finished: Vec<Builder>,
    /// Emptied text buffers of emitted matches, for the next ones.
    spare: Vec<Vec<u8>>,
    /// Matches begun so far ([`Builder::serial`]).
    matches: u64,
}

/// Closed matches whose fingerprints are hashed together.
const FINISHED: usize = 8;

const OUTSIDE_MATCH: &str =
    "line outside a match (after ShutdownGame, before the next InitGame: a crash or another log)";
const MALFORMED: &str = "malformed line (fields missing or not numbers)";
const UNKNOWN_SLOT: &str =
    "names a client slot with no player (no ClientUserinfoChanged before it)";

impl<'s> Parser<'s> {
    /// A parser of a log of `source`, at its start.
    fn new(source: &'s Source) -> Self {
        Parser {
            source,
            slots: HashMap::default(),
            current: None,
            emitted: 0,
            ids: HashMap::default(),
            after_shutdown: false,
            finished: Vec::new(),
            spare: Vec::new(),
            matches: 0,
        }
    }

    /// The commonest line, `  0:05 Item: 6 item_armor_combat`, in ASCII (whose text is its
    /// bytes, so no decoding is needed): hashed into the open match and otherwise ignored, as
    /// [`Self::line`] does. False, with nothing done, for any other line. `stamped` is its
    /// [`stamp`].
    fn item(&mut self, bytes: &[u8], stamped: Option<(u32, usize)>) -> bool {
        let is_item = stamped.is_some_and(|(_, at)| bytes[at..].starts_with(b"Item:"));
        if !is_item || !bytes.is_ascii() {
            return false;
        }
        if let Some(b) = self.current.as_mut() {
            b.hash_line(bytes, "Item");
        }
        true
    }

    /// Reads one line: `text`, decoded from bytes whose [`stamp`] is `stamped` (the same as
    /// the text's: the stamp is ASCII, which decoding keeps as it is).
    fn line(
        &mut self,
        text: &str,
        stamped: Option<(u32, usize)>,
        number: u64,
        report: &mut FileReport,
        emit: &mut dyn FnMut(Match),
    ) {
        let stamped = stamped.and_then(|(time, at)| Some((time, text.get(at..)?)));
        let Some((time, rest)) = stamped.or_else(|| split_stamp(text)) else {
            // All white space (only the start needs looking at: a line that is not has it
            // there), or a line with no stamp.
            if !text.trim_start().is_empty() {
                report.skip_line("corrupt line (no level-time stamp)", number, text);
            }
            return;
        };
        if rest.starts_with("---") || rest.is_empty() {
            return;
        }
        let (kind, payload) = match memchr::memchr(b':', rest.as_bytes()) {
            Some(i) => (
                &rest[..i],
                rest[i + 1..].strip_prefix(' ').unwrap_or(&rest[i + 1..]),
            ),
            None => (rest, ""),
        };
        if kind == "InitGame" {
            self.close(
                Some("closed by the next InitGame (no ShutdownGame)"),
                report,
                emit,
            );
            self.init_game(payload, time, number);
            self.after_shutdown = false;
            return;
        }
        if let Some(b) = self.current.as_mut() {
            b.hash_line(text.as_bytes(), kind);
        }
        if kind == "ShutdownGame" {
            if self.current.is_none() {
                report.note(
                    "ShutdownGame without InitGame (file starts mid-game)",
                    number,
                    text,
                );
            } else if let Some(b) = self.current.as_mut() {
                b.shutdown = true;
                b.last_time = b.last_time.max(time);
            }
            self.close(None, report, emit);
            // A slot's identity never crosses a ShutdownGame: the next InitGame brings new userinfo.
            self.slots.clear();
            self.ids.clear();
            self.after_shutdown = true;
            return;
        }
        if kind == "ClientUserinfo" || kind == "AccountValidated" {
            self.client_id(kind, payload);
            return;
        }
        // The commonest line of all, ignored.
        if kind == "Item" {
            return;
        }
        // No handled kind is ignored, whatever follows it.
        let Some(handled) = handled(kind) else {
            if !is_ignored(kind, rest) {
                report.skip_line("unknown line kind", number, text);
            }
            return;
        };
        let b = match self.current.as_mut() {
            Some(b) => b,
            None if self.after_shutdown => {
                report.skip_line(OUTSIDE_MATCH, number, text);
                return;
            }
            None => {
                report.note(
                    "match starts before the file (no InitGame; map unknown)",
                    number,
                    text,
                );
                self.matches += 1;
                let buffer = self.spare.pop().unwrap_or_default();
                let mut b = Builder::new(self.source, number, time, buffer, self.matches);
                b.m.partial = true;
                b.hash_line(text.as_bytes(), kind);
                self.current.insert(b)
            }
        };
        if time >= b.start_time {
            b.last_time = b.last_time.max(time);
        }
        let ok = match handled {
            Handled::Exit => {
                b.m.exit_reason = Some(payload.trim().into());
                b.exit_time = Some(time);
                true
            }
            Handled::UserinfoChanged => {
                userinfo(b, &mut self.slots, &self.ids, payload, time, number, report)
            }
            Handled::Connect => true,
            Handled::Begin => client_begin(payload),
            Handled::Disconnect => {
                if let Some([slot]) = ints::<1>(payload) {
                    self.ids.remove(&(slot as u32));
                }
                client_disconnect(b, &mut self.slots, payload, time, number)
            }
            Handled::Kill => kill(b, &self.slots, payload, time, number, report),
            Handled::Score => score(b, &self.slots, payload, time, number, report),
            Handled::Red => team_scores(b, payload),
            Handled::Ctf => ctf(b, &self.slots, payload, time, number, report),
            Handled::Flag => urt_flag(b, &self.slots, payload, time, number, report),
            Handled::Award => award(b, &self.slots, payload, time, number, report),
        };
        if !ok {
            report.skip_line(&format!("{MALFORMED}: {kind}"), number, text);
        }
    }

    /// `ClientUserinfo: 3 \name\x\cl_guid\ABC...` and Urban Terror's
    /// `AccountValidated: 3 - authname - ...`: remembers the slot's id (hashed) for its next
    /// userinfo change, and gives it to the slot's player at once when the slot is known.
    fn client_id(&mut self, kind: &str, payload: &str) {
        let Some((slot, rest)) = payload.trim_start().split_once(' ') else {
            return;
        };
        let Ok(slot) = slot.parse::<u32>() else {
            return;
        };
        if slot > MAX_SLOT {
            return;
        }
        let ids = self.ids.entry(slot).or_default();
        if kind == "AccountValidated" {
            let auth = rest
                .trim_start_matches([' ', '-'])
                .split(" - ")
                .next()
                .unwrap_or("");
            ids.auth = uid_of("auth", auth);
        } else if let Some((_, guid)) =
            info_pairs(rest).find(|(k, _)| k.eq_ignore_ascii_case("cl_guid"))
        {
            ids.guid = uid_of("guid", guid);
        }
        if let Some(s) = self.slots.get_mut(&slot)
            && (s.uid.is_none() || ids.auth.is_some())
        {
            s.uid = ids.best();
        }
    }

    fn init_game(&mut self, payload: &str, time: u32, number: u64) {
        self.matches += 1;
        let text = self.spare.pop().unwrap_or_default();
        let mut b = Builder::new(self.source, number, time, text, self.matches);
        b.hash_line(b"InitGame", "InitGame");
        b.hash_line(payload.as_bytes(), "InitGame");
        let mut gametype = None;
        let mut gamename = "";
        for (k, v) in info_pairs(payload) {
            match k.to_ascii_lowercase().as_str() {
                "mapname" => b.m.map = v.into(),
                "g_gametype" => gametype = Some(v),
                "sv_hostname" => b.m.server = v.into(),
                "gamename" => gamename = v,
                "g_timestamp" => {
                    b.m.start = NaiveDateTime::parse_from_str(v.trim(), "%Y-%m-%d %H:%M:%S").ok()
                }
                _ => {}
            }
        }
        b.m.gametype = game_type(gametype, gamename);
        b.m.game = game_of(gamename).into();
        self.current = Some(b);
    }

    /// Finishes the current match, if any, and emits it when someone played in it.
    fn close(&mut self, why: Option<&str>, report: &mut FileReport, emit: &mut dyn FnMut(Match)) {
        let Some(mut b) = self.current.take() else {
            return;
        };
        let end = b.exit_time.unwrap_or(b.last_time);
        b.m.duration_seconds = end.saturating_sub(b.start_time);
        b.m.events = std::mem::take(&mut b.events).into();
        b.m.open = why.is_none() && !b.shutdown;
        if !b.m.players.iter().any(|p| p.active) {
            report.note("match with no players dropped", b.m.line, &b.m.map);
            b.text.clear();
            self.spare.push(b.text);
            return;
        }
        if let Some(why) = why.filter(|_| !b.shutdown && b.exit_time.is_none()) {
            report.note(&format!("match {why}"), b.m.line, &b.m.map);
        }
        self.emitted += 1;
        self.finished.push(b);
        if self.finished.len() >= FINISHED {
            self.flush(emit);
        }
    }

    /// Hashes the fingerprints of the closed matches (their content and stable id) and emits
    /// them in order.
    fn flush(&mut self, emit: &mut dyn FnMut(Match)) {
        let texts: Vec<(&[u8], Option<usize>)> = self
            .finished
            .iter()
            .map(|b| match b.spilled {
                // Hashed on from its spilled state below.
                Some(_) => (&[][..], None),
                None => (b.text.as_slice(), b.id_at),
            })
            .collect();
        let hashes = fnv_many(&texts);
        for (mut b, (mut id, mut content)) in self.finished.drain(..).zip(hashes) {
            if b.spilled.is_some() {
                b.spill();
                if let Some((hash, spilled_id)) = b.spilled.take() {
                    (id, content) = (spilled_id, hash.finish());
                }
            }
            b.m.content = content;
            b.m.id = format!("{:016x}", id.unwrap_or(content)).into();
            b.text.clear();
            self.spare.push(b.text);
            emit(b.m);
        }
    }
}

/// Line kinds that carry nothing the model uses (chat, items, engine noise).
fn is_ignored(kind: &str, rest: &str) -> bool {
    matches!(
        kind,
        "Item"
            | "say"
            | "sayteam"
            | "tell"
            | "Info"
            | "Playerstore"
            | "PlayerScore"
            | "TeamScore"
            | "Challenge"
            | "ClientSpawn"
            | "ClientUserinfo"
            | "FlagCaptureTime"
            | "Assist"
            | "Hotpotato"
            | "Warmup"
            | "InitAuth"
            | "AccountValidated"
            | "InitRound"
            | "Hit"
            | "Radio"
            | "Callvote"
            | "Vote"
            | "VotePassed"
            | "VoteFailed"
            | "SurvivorWinner"
            | "ClientSavePosition"
            | "ClientLoadPosition"
            | "ClientGoto"
            | "ClientJumpRunStarted"
            | "ClientJumpRunStopped"
            | "ClientJumpRunCanceled"
            | "ClientJumpTimerStarted"
            | "ClientJumpTimerStopped"
            | "setteam"
            | "Restored player with guid"
            | "Flag Return"
    ) || rest.starts_with("Session data initialised")
        || rest.starts_with("Bomb ")
        || rest.starts_with("Pop!")
}

/// The line kinds the parser reads.
#[derive(Clone, Copy)]
enum Handled {
    Exit,
    UserinfoChanged,
    Connect,
    Begin,
    Disconnect,
    Kill,
    Score,
    Red,
    Ctf,
    Flag,
    Award,
}

/// Which handled kind `kind` is, if any (the commonest first).
fn handled(kind: &str) -> Option<Handled> {
    Some(match kind {
        "Kill" => Handled::Kill,
        "ClientUserinfoChanged" => Handled::UserinfoChanged,
        "ClientConnect" => Handled::Connect,
        "ClientBegin" => Handled::Begin,
        "ClientDisconnect" => Handled::Disconnect,
        "score" => Handled::Score,
        "Exit" => Handled::Exit,
        "red" => Handled::Red,
        "CTF" => Handled::Ctf,
        "Flag" => Handled::Flag,
        "Award" => Handled::Award,
        _ => return None,
    })
}

/// `ClientUserinfoChanged: 2 n\Isgalamido\t\0\model\...`
fn userinfo(
    b: &mut Builder,
    slots: &mut HashMap<u32, Slot>,
    ids: &HashMap<u32, ClientIds>,
    payload: &str,
    time: u32,
    line: u64,
    report: &mut FileReport,
) -> bool {
    let Some((slot, info)) = payload.split_once(' ') else {
        return false;
    };
    let Ok(slot) = slot.parse::<u32>() else {
        return false;
    };
    if slot > MAX_SLOT {
        report.skip_line("client slot number out of range", line, payload);
        return true;
    }
    let mut name = None;
    let mut team = Team::Free;
    let mut skill = None;
    let mut oa_id = None;
    for (k, v) in info_pairs(info) {
        match k {
            "n" => name = Some(v),
            "t" => team = team_from_number(v),
            "skill" => skill = v.trim().parse::<f32>().ok().filter(|s| s.is_finite()),
            "id" => oa_id = uid_of("guid", v),
            _ => {}
        }
    }
    let known = ids.get(&slot).copied().unwrap_or_default();
    let Some(name) = name else {
        return false;
    };
    let new = Slot {
        name: name.to_string(),
        plain: plain_name(name),
        team,
        skill,
        uid: known.best().or(oa_id),
        player: Cell::new(None),
    };
    let previous = slots.insert(slot, new.clone());
    let known = b.by_plain.get(&new.plain).copied();
    match known {
        Some(i) => {
            b.player(&new, time, line);
            // A team change, or a rejoin of the same side after leaving (RANKING.md section 1).
            if b.m.players[i as usize].team != team || !b.present[i as usize] {
                b.join(i, team, time, line);
            }
        }
        None if team.is_playing() => {
            b.player(&new, time, line);
        }
        None => {}
    }
    // A rename, or a new player in a slot reused after InitGame: the old name leaves that slot,
    // and leaves the server unless another slot still holds them.
    if let Some(old) = previous.filter(|o| o.plain != new.plain) {
        release(b, slots, &old.plain, time, line);
    }
    true
}

/// The slot that held `plain` dropped them: they leave unless another slot still holds them.
fn release(b: &mut Builder, slots: &HashMap<u32, Slot>, plain: &str, time: u32, line: u64) {
    if slots.values().any(|s| s.plain == plain) {
        return;
    }
    if let Some(&i) = b.by_plain.get(plain) {
        b.leave(i, time, line);
    }
}

/// `ClientBegin: 2` (nothing to do: the userinfo line before it placed the player).
fn client_begin(payload: &str) -> bool {
    ints::<1>(payload).is_some()
}

/// `ClientDisconnect: 2`: the slot is empty; its player leaves unless another slot holds them.
fn client_disconnect(
    b: &mut Builder,
    slots: &mut HashMap<u32, Slot>,
    payload: &str,
    time: u32,
    line: u64,
) -> bool {
    let Some([slot]) = ints::<1>(payload) else {
        return false;
    };
    let Ok(slot) = u32::try_from(slot) else {
        return true;
    };
    if let Some(old) = slots.remove(&slot) {
        release(b, slots, &old.plain, time, line);
    }
    true
}

/// Looks up a slot's current player, creating the match player; None (with a diagnostic) when the
/// slot has no name yet or is out of range.
fn slot_player(
    b: &mut Builder,
    slots: &HashMap<u32, Slot>,
    slot: i64,
    (time, line): (u32, u64),
    (kind, text): (&str, &str),
    report: &mut FileReport,
) -> Option<u32> {
    if !(0..=i64::from(MAX_SLOT)).contains(&slot) {
        report.skip_line("client slot number out of range", line, text);
        return None;
    }
    match slots.get(&(slot as u32)) {
        Some(s) => {
            let i = b.player(s, time, line);
            b.m.players[i as usize].active = true;
            Some(i)
        }
        None => {
            report.skip_line(&format!("{kind} line {UNKNOWN_SLOT}"), line, text);
            None
        }
    }
}

/// `Kill: 3 2 10: Isgalamido killed Dono da Bola by MOD_RAILGUN`
fn kill(
    b: &mut Builder,
    slots: &HashMap<u32, Slot>,
    payload: &str,
    time: u32,
    line: u64,
    report: &mut FileReport,
) -> bool {
    // The colon is a few bytes in: a plain scan finds it sooner than a searcher.
    let Some(colon) = payload.bytes().position(|b| b == b':') else {
        return false;
    };
    let (numbers, text) = (&payload[..colon], &payload[colon + 1..]);
    let Some([killer, victim, mod_number]) = ints::<3>(numbers) else {
        return false;
    };
    // The last ` by ` (a short reverse scan: cheaper than setting up a substring searcher).
    let by = text.as_bytes().windows(4).rposition(|w| w == b" by ");
    let weapon: Cow<str> = match by {
        Some(i) if !text[i + 4..].trim().is_empty() => Cow::Borrowed(text[i + 4..].trim()),
        _ => Cow::Owned(format!("MOD#{mod_number}")),
    };
    let world = WORLD_SLOTS.iter().any(|w| i64::from(*w) == killer);
    // Resolve both slots before creating anyone, so a skipped line adds no player.
    let slot = |n: i64| {
        let n = u32::try_from(n).ok().filter(|n| *n <= MAX_SLOT)?;
        slots.get(&n)
    };
    let victim_slot = slot(victim);
    let killer_slot = if world { None } else { slot(killer) };
    let (Some(vs), true) = (victim_slot, world || killer_slot.is_some()) else {
        let bad = if victim_slot.is_some() {
            killer
        } else {
            victim
        };
        if !(0..=i64::from(MAX_SLOT)).contains(&bad) {
            report.skip_line("client slot number out of range", line, payload);
        } else {
            report.skip_line(&format!("Kill line {UNKNOWN_SLOT}"), line, payload);
        }
        return true;
    };
    let v = b.player(vs, time, line);
    b.m.players[v as usize].active = true;
    let w = b.weapon(&weapon);
    let ks = match killer_slot {
        Some(ks) if killer != victim => ks,
        _ => {
            b.push(time, line, EventKind::Suicide, v, NO_PLAYER, w);
            return true;
        }
    };
    let k = b.player(ks, time, line);
    b.m.players[k as usize].active = true;
    if k == v {
        // Two slots with the same name: one identity, so this counts as a suicide.
        b.push(time, line, EventKind::Suicide, v, NO_PLAYER, w);
        return true;
    }
    let (kt, vt) = (ks.team, vs.team);
    let kind = if kt.is_side() && kt == vt {
        EventKind::TeamKill
    } else {
        EventKind::Frag
    };
    b.push(time, line, kind, k, v, w);
    true
}

/// `score: 20  ping: 8  client: 3 Oootsimo`
fn score(
    b: &mut Builder,
    slots: &HashMap<u32, Slot>,
    payload: &str,
    time: u32,
    line: u64,
    report: &mut FileReport,
) -> bool {
    let mut it = payload.split_ascii_whitespace();
    let Some(points) = it.next().and_then(|s| s.parse::<i32>().ok()) else {
        return false;
    };
    let Some(slot) = payload
        .split_once("client:")
        .and_then(|(_, r)| r.split_ascii_whitespace().next())
        .and_then(|s| s.parse::<i64>().ok())
    else {
        return false;
    };
    if let Some(i) = slot_player(b, slots, slot, (time, line), ("score", payload), report) {
        b.m.players[i as usize].set_score(Some(points));
    }
    true
}

/// `red:8  blue:6` (the kind is `red`, the payload `8  blue:6`).
fn team_scores(b: &mut Builder, payload: &str) -> bool {
    let Some((red, rest)) = payload.split_once("blue:") else {
        return false;
    };
    match (red.trim().parse(), rest.trim().parse()) {
        (Ok(r), Ok(bl)) => {
            b.m.team_scores = Some([r, bl]);
            true
        }
        _ => false,
    }
}

/// OpenArena `CTF: 7 1 1: {TDK}Liz captured the RED flag!` (slot, flag team, action).
fn ctf(
    b: &mut Builder,
    slots: &HashMap<u32, Slot>,
    payload: &str,
    time: u32,
    line: u64,
    report: &mut FileReport,
) -> bool {
    let Some((numbers, _)) = payload.split_once(':') else {
        return false;
    };
    let Some([slot, flag_team, action]) = ints::<3>(numbers) else {
        return false;
    };
    let action = match action {
        0 => FlagAction::Pickup,
        1 => FlagAction::Capture,
        2 => FlagAction::Return,
        3 => FlagAction::CarrierKill,
        _ => return false,
    };
    let team = team_from_number(&flag_team.to_string());
    if let Some(i) = slot_player(b, slots, slot, (time, line), ("CTF", payload), report) {
        b.push(time, line, EventKind::Flag(action, team), i, NO_PLAYER, 0);
    }
    true
}

/// Urban Terror `Flag: 0 2: team_CTF_blueflag` (slot, action: 0 drop, 1 return, 2 capture).
fn urt_flag(
    b: &mut Builder,
    slots: &HashMap<u32, Slot>,
    payload: &str,
    time: u32,
    line: u64,
    report: &mut FileReport,
) -> bool {
    let Some((numbers, flag)) = payload.split_once(':') else {
        return false;
    };
    let Some([slot, action]) = ints::<2>(numbers) else {
        return false;
    };
    let action = match action {
        0 => FlagAction::Drop,
        1 => FlagAction::Return,
        2 => FlagAction::Capture,
        _ => return false,
    };
    let team = if flag.contains("redflag") {
        Team::Red
    } else if flag.contains("blueflag") {
        Team::Blue
    } else {
        Team::Free
    };
    if let Some(i) = slot_player(b, slots, slot, (time, line), ("Flag", payload), report) {
        b.push(time, line, EventKind::Flag(action, team), i, NO_PLAYER, 0);
    }
    true
}

/// OpenArena `Award: 2 1: xXSkullXx gained the EXCELLENT award!`
fn award(
    b: &mut Builder,
    slots: &HashMap<u32, Slot>,
    payload: &str,
    time: u32,
    line: u64,
    report: &mut FileReport,
) -> bool {
    let Some((numbers, _)) = payload.split_once(':') else {
        return false;
    };
    let Some([slot, kind]) = ints::<2>(numbers) else {
        return false;
    };
    let name = match kind {
        0 => "Gauntlet".to_string(),
        1 => "Excellent".to_string(),
        2 => "Impressive".to_string(),
        3 => "Defence".to_string(),
        4 => "Capture".to_string(),
        5 => "Assist".to_string(),
        n if (0..100).contains(&n) => format!("Award {n}"),
        _ => super::OTHER.to_string(),
    };
    if let Some(i) = slot_player(b, slots, slot, (time, line), ("Award", payload), report) {
        let a = b.award(&name);
        b.push(time, line, EventKind::Award, i, NO_PLAYER, a);
    }
    true
}

impl LineParser for Parser<'_> {
    /// Checkpoints are taken right after a ShutdownGame: no slot is held, and lines before the
    /// next InitGame belong to no match. The format keeps no state of its own.
    fn resume(&mut self, c: &Checkpoint) {
        self.emitted = c.matches;
        self.after_shutdown = true;
    }

    /// After a complete `ShutdownGame` line nothing is open.
    fn feed(
        &mut self,
        bytes: &[u8],
        number: u64,
        report: &mut FileReport,
        emit: &mut dyn FnMut(Match),
    ) -> bool {
        let stamped = stamp(bytes);
        if !self.item(bytes, stamped) {
            let text = decode_lossy(bytes);
            self.line(&text, stamped, number, report, emit);
        }
        // Searched only where a checkpoint could follow (no match open). The same as searching
        // the decoded text: a lossy decode keeps every ASCII byte and puts only non-ASCII
        // characters in place of bad bytes.
        self.current.is_none() && SHUTDOWN_GAME.find(bytes).is_some()
    }

    fn is_open(&self) -> bool {
        self.current.is_some()
    }

    fn emitted(&self) -> usize {
        self.emitted
    }

    fn state(&self) -> Vec<u8> {
        debug_assert!(self.slots.is_empty(), "checkpoints follow a ShutdownGame");
        Vec::new()
    }

    fn finish(&mut self, report: &mut FileReport, emit: &mut dyn FnMut(Match)) {
        self.close(None, report, emit);
        self.flush(emit);
    }

    /// The matches finished before the error are still given.
    fn interrupted(&mut self, emit: &mut dyn FnMut(Match)) {
        self.flush(emit);
    }
}

/// The search for a `ShutdownGame:` line.
static SHUTDOWN_GAME: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new("ShutdownGame:"));

#[cfg(test)]
mod tests;
