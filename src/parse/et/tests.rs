//! Parser tests on real lines from `../shared/data/public/et` (quoted) and the quirks SOURCES.md
//! lists for it.

use super::*;
use crate::model::EventKind as K;

fn parse_bytes(bytes: &[u8]) -> (Vec<Match>, FileReport) {
    crate::parse::testing::parse_with(&EnemyTerritory, "etconsole.log", bytes)
}

/// The public ET log's bytes; None (the test skipped, said on stderr) without `../shared`.
fn real_log() -> Option<Vec<u8>> {
    let path = crate::testdata::shared("data/public/et/etl-bobot-etconsole.log")?;
    Some(std::fs::read(path).unwrap())
}

use crate::parse::testing::{k, kills};

/// Lines quoted from etl-bobot-etconsole.log (170-210, 454-459, 568, 630-634, 793-795, the
/// end), shortened where the line is long.
const ET_LINES: &[u8] = b"------------------------------------------------------------
InitGame: \\g_maxlivesRespawnPenalty\\0\\voteFlags\\4352\\g_gametype\\2\\mapname\\oasis\\protocol\\84\\timelimit\\0\\version\\ET 2.60b win-x86 May  8 2006
Hitch warning: 16045 msec frame time
Client 0 connecting with 50 challenge ping
ClientConnect: 0
Userinfo: \\cg_etVersion\\Enemy Territory, ET 2.60b\\g_password\\none\\cl_guid\\6491090CB8791D0E4434CFA54FAA6F47\\name\\Rukus\\rate\\25000\\ip\\192.168.1.20:27960
ClientUserinfoChanged: 0 n\\Rukus\\t\\3\\c\\0\\r\\0\\m\\0000000\\s\\0000000\\dn\\\\dr\\0\\w\\0\\lw\\0\\sw\\0\\mu\\0\\ref\\0
Userinfo: \\cg_etVersion\\Enemy Territory, ET 2.60b\\g_password\\none\\cl_guid\\6491090CB8791D0E4434CFA54FAA6F47\\name\\Rukus\\rate\\25000\\ip\\192.168.1.20:27960
ClientUserinfoChanged: 0 n\\Rukus\\t\\2\\c\\0\\r\\0\\m\\0000000\\s\\0000000\\dn\\\\dr\\0\\w\\8\\lw\\8\\sw\\7\\mu\\0\\ref\\0
ClientBegin: 0
1 : Rukus (N\xb0 0) is invulnerable. 
ClientConnect: 1
Userinfo: \\name\\Eva\\ip\\localhost\\team\\axis\\rate\\25000\\snaps\\20\\skill\\3
ClientUserinfoChanged: 1 n\\Eva\\t\\3\\skill\\3\\c\\0\\r\\0\\m\\0000000\\s\\0000000\\dn\\\\dr\\0\\w\\0\\lw\\0\\sw\\0\\mu\\0
ClientUserinfoChanged: 1 n\\Eva\\t\\0\\skill\\3\\c\\6\\r\\0\\m\\0000000\\s\\0000000\\dn\\\\dr\\0\\w\\54\\lw\\54\\sw\\48\\mu\\0
Kill: 1 1 64: Eva killed Eva by MOD_SWITCHTEAM
ClientUserinfoChanged: 1 n\\Eva\\t\\1\\skill\\3\\c\\6\\r\\0\\m\\0000000\\s\\0000000\\dn\\\\dr\\0\\w\\54\\lw\\54\\sw\\48\\mu\\0
ClientUserinfoChanged: 7 n\\^$Siegfried\\t\\1\\skill\\4\\c\\1
ClientUserinfoChanged: 12 n\\^4Eurypylos\\t\\2\\skill\\4\\c\\1
0 : Rukus (N\xb0 0) is not invulnerable. Kill: 7 0 74: ^$Siegfried killed Rukus by MOD_MP34
say: ^4Eurypylos: ^7fais chier maintenant! Rukus
^4Eurypylos^7: ^7fais chier maintenant! Rukus
Kill: 0 12 10: Rukus killed ^4Eurypylos by MOD_THOMPSON
Kill: 0 1 10: Rukus killed Eva by MOD_THOMPSON
Kill: 1 1 44: Eva killed Eva by MOD_M7
Kill: 1022 7 34: <world> killed ^$Siegfried by MOD_FALLING
say: Eva: Kill: 1 0 74: Eva killed Rukus by MOD_MP34
Eva^7: Kill: 1 0 74: Eva killed Rukus by MOD_MP34
Kill: 1 0 74: Eva killed Somebody by MOD_MP34
----- Server Shutdown -----
Sending heartbeat to etmaster.idsoftware.com
==== ShutdownGame ====
ShutdownGame:
------------------------------------------------------------
";

#[test]
fn console_log_quirks() {
    let (ms, report) = parse_bytes(ET_LINES);
    assert_eq!(ms.len(), 1);
    let m = &ms[0];
    assert_eq!(
        (m.game.as_str(), m.map.as_str(), m.gametype.code.as_str()),
        ("et", "oasis", "obj")
    );
    // No timestamps: no duration; no Exit and no score: no result.
    assert_eq!(m.duration_seconds, 0);
    assert!(m.events.read().iter().all(|e| e.time == 0));
    assert!(m.exit_reason.is_none() && m.team_scores.is_none());
    assert!(!m.open, "the server shutdown logged a ShutdownGame");
    assert_eq!(
        kills(m),
        [
            // Glued to the end of a mod message.
            k(K::Frag, "^$Siegfried", "Rukus", "MOD_MP34"),
            // Allies (blue) on allies: a team kill.
            k(K::TeamKill, "Rukus", "Eurypylos", "MOD_THOMPSON"),
            k(K::Frag, "Rukus", "Eva", "MOD_THOMPSON"),
            k(K::Suicide, "Eva", "", "MOD_M7"),
            k(K::Suicide, "^$Siegfried", "", "MOD_FALLING"),
        ]
    );
    // The team switch counts as nothing, and is reported.
    let r = "team-switch self-kill (MOD_SWITCHTEAM: not a suicide the player chose)";
    assert_eq!(report.skipped_lines[r].count, 1);
    // Chat quoting a kill line is not a kill; a kill whose names are not its slots' is reported.
    assert_eq!(report.skipped_lines[MISMATCH].count, 1);
    assert_eq!(
        report.skipped_lines[MISMATCH].examples[0].text,
        "Kill: 1 0 74: Eva killed Somebody by MOD_MP34"
    );
    // Bots by their skill; the human's cl_guid is hashed, never kept, and the ip never read.
    let rukus = m.players.iter().find(|p| p.plain == "Rukus").unwrap();
    assert!(!rukus.bot && rukus.uid.is_some());
    assert_eq!(rukus.team, Team::Blue);
    let eva = m.players.iter().find(|p| p.plain == "Eva").unwrap();
    assert!(eva.bot && eva.bot_skill == Some(3.0) && eva.team == Team::Red);
    let all = format!("{ms:?}{report:?}");
    assert!(
        !all.contains("6491090C") && !all.contains("192.168"),
        "{all}"
    );
    // Engine output is counted under one reason.
    assert!(report.skipped_lines["engine or mod console output (not a game line)"].count >= 2);
}

#[test]
fn real_console_log() {
    let Some(log) = real_log() else {
        return;
    };
    let (ms, report) = parse_bytes(&log);
    // SOURCES.md: two InitGame; the first ends after a map restart with no players.
    assert_eq!(ms.len(), 1);
    assert_eq!(report.notes["match with no players dropped"].count, 1);
    let m = &ms[0];
    assert_eq!(m.line, 117);
    // 87 Kill lines, 18 of them team switches: 69 kills, every one read.
    let r = "team-switch self-kill (MOD_SWITCHTEAM: not a suicide the player chose)";
    assert_eq!(report.skipped_lines[r].count, 18);
    assert_eq!(kills(m).len(), 69);
    assert!(!report.skipped_lines.contains_key(MISMATCH));
    assert!(!report.skipped_lines.contains_key(UNKNOWN_SLOT));
    // One human, the rest are Bobot bots.
    assert_eq!(m.players.iter().filter(|p| !p.bot).count(), 1);
    assert_eq!(m.players.len(), 19);
    // Colour codes with letters (`^Z`, `^D`) come off the plain name.
    assert!(m.players.iter().any(|p| p.plain == "[RW]Crazy_Dave"));
}

#[test]
fn resuming_at_a_checkpoint_gives_the_same_matches() {
    let Some(bytes) = real_log() else {
        return;
    };
    let (whole, _) = parse_bytes(&bytes);
    let source = Source {
        path: "etconsole.log".into(),
        file_index: 0,
    };
    // The first game's ShutdownGame (line 108) is a checkpoint; resume there.
    let cut = bytes
        .split_inclusive(|b| *b == b'\n')
        .take(110)
        .map(<[u8]>::len)
        .sum::<usize>();
    let mut report = FileReport::new("etconsole.log");
    let mut input = &bytes[..cut];
    let cp = EnemyTerritory
        .parse(&mut input, &source, &mut report, &mut |_| {}, None)
        .unwrap()
        .unwrap();
    assert_eq!(cp.line, 108);
    let mut report = cp.report.clone();
    let mut rest = Vec::new();
    let mut input = &bytes[cp.offset as usize..];
    EnemyTerritory
        .parse(
            &mut input,
            &source,
            &mut report,
            &mut |m| rest.push(m),
            Some(&cp),
        )
        .unwrap();
    assert_eq!(rest, whole);
}

#[test]
fn sniffing() {
    let Some(log) = real_log() else {
        return;
    };
    let head = &log[..log.len().min(super::super::SNIFF_BYTES)];
    assert!(EnemyTerritory.sniff(head));
    assert!(matches!(
        super::super::detect(head),
        super::super::Detected::Parser(p) if p.name() == "enemyterritory"
    ));
    assert!(!EnemyTerritory.sniff(b"  0:00 InitGame: \\version\\ioq3 1.36\\mapname\\q3dm17\n"));
}

/// The kinds `G_LogPrintf` writes to an ET game log, as they appear in the console log.
const GAME_KINDS: &[&[u8]] = &[
    b"InitGame:",
    b"ShutdownGame:",
    b"ClientConnect:",
    b"Userinfo:",
    b"ClientUserinfoChanged:",
    b"ClientBegin:",
    b"ClientDisconnect:",
    b"Kill:",
    b"Item:",
    b"say:",
    b"sayteam:",
    b"Voice:",
    b"Medic_Revive:",
    b"Health_Pack:",
    b"Ammo_Pack:",
    b"WeaponStats:",
    b"broadcast:",
];

/// The real console log as its server's `g_log` would have written it: only the game lines (a
/// glued `Kill:` on its own line), each after a level-time stamp, 1.5 s apart from level time
/// 61:00 (ET's level time does not restart with a map). `ms`: ET: Legacy's `%8i` milliseconds,
/// else Quake 3's `%3i:%i%i`.
fn as_game_log(console: &[u8], ms: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut time = 3_660_000u64;
    for line in console.split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let game = if GAME_KINDS.iter().any(|k| line.starts_with(k)) {
            line
        } else if let Some(at) = line.windows(6).position(|w| w == b"Kill: ") {
            &line[at..]
        } else {
            continue;
        };
        let stamp = if ms {
            format!("{time:8} ")
        } else {
            let s = time / 1000;
            format!("{:3}:{}{} ", s / 60, s % 60 / 10, s % 10)
        };
        out.extend_from_slice(stamp.as_bytes());
        out.extend_from_slice(game);
        out.push(b'\n');
        time += 1500;
    }
    out
}

#[test]
fn game_log_stamps_of_both_forms() {
    let Some(console) = real_log() else {
        return;
    };
    let (want, _) = parse_bytes(&console);
    for ms in [false, true] {
        let log = as_game_log(&console, ms);
        // Sniffed as ET, not as Quake 3 (whose frame it has).
        let head = &log[..log.len().min(super::super::SNIFF_BYTES)];
        assert!(matches!(
            super::super::detect(head),
            super::super::Detected::Parser(p) if p.name() == "enemyterritory"
        ));
        let (ms_, report) = parse_bytes(&log);
        assert_eq!(ms_.len(), 1, "ms {ms}");
        let (m, w) = (&ms_[0], &want[0]);
        // The same kills and players as from the console log.
        assert_eq!(kills(m), kills(w), "ms {ms}");
        assert_eq!(m.players.len(), w.players.len());
        assert_eq!(m.game, "et");
        let r = "team-switch self-kill (MOD_SWITCHTEAM: not a suicide the player chose)";
        assert_eq!(report.skipped_lines[r].count, 18);
        assert!(!report.skipped_lines.contains_key(MISMATCH));
        // Times count from the InitGame; the stamps are 1.5 s apart, so the last line (the
        // ShutdownGame) is 1.5 s times the game lines after the InitGame.
        let lines: Vec<&[u8]> = log.split(|b| *b == b'\n').collect();
        let init = lines
            .iter()
            .rposition(|l| l.windows(9).any(|w| w == b"InitGame:"))
            .unwrap();
        let t = |i: usize| (3_660_000 + 1500 * i as u64) / 1000;
        let last = lines.len() - 2;
        assert_eq!(u64::from(m.duration_seconds), t(last) - t(init));
        assert!(m.events.read().windows(2).all(|e| e[0].time <= e[1].time));
        let first_kill = *m.events.read().iter().find(|e| e.kind == K::Frag).unwrap();
        let kill_line = first_kill.line as usize - 1;
        assert_eq!(
            u64::from(first_kill.time),
            t(kill_line) - t(init),
            "ms {ms}"
        );
    }
}

/// A game log written by `G_LogPrintf`: stamps, an `Exit:`, a mod's longer `ClientDisconnect:`.
#[test]
fn game_log_lines() {
    let log = b"1001:00 InitGame: \\g_gametype\\2\\gamename\\etpub\\mapname\\supply\\version\\ET 2.60d linux-i386 May 8 2006
1001:01 ClientConnect: 0
1001:01 ClientUserinfoChanged: 0 n\\^1Ax\\t\\1\\c\\0
1001:02 ClientConnect: 1
1001:02 ClientUserinfoChanged: 1 n\\Al\\t\\2\\c\\3
1001:02 ClientUserinfoChanged: 2 n\\Bo\\t\\2\\c\\1
1001:30 Kill: 0 1 9: ^1Ax killed Al by MOD_MP40
1001:40 Medic_Revive: 2 1
1002:05 Kill: 1 2 8: Al killed Bo by MOD_THOMPSON
1002:10 Kill: 1022 0 33: <world> killed ^1Ax by MOD_FALLING
1002:30 ClientDisconnect: 2 [ABCDEF0123456789ABCDEF0123456789] (10.0.0.1:27960) \"Bo\"
1003:00 Exit: Wolf EndRound.
1003:00 WeaponStats: 0 1 0 0 0
1003:10 ShutdownGame:
";
    let (ms, report) = parse_bytes(log);
    assert_eq!(ms.len(), 1, "{report:?}");
    let m = &ms[0];
    assert_eq!(
        (m.map.as_str(), m.gametype.code.as_str()),
        ("supply", "obj")
    );
    assert_eq!(m.duration_seconds, 130);
    assert_eq!(m.exit_reason.as_deref(), Some("Wolf EndRound."));
    assert!(m.team_scores.is_none(), "ET logs no result");
    assert_eq!(
        kills(m),
        [
            k(K::Frag, "Ax", "Al", "MOD_MP40"),
            k(K::TeamKill, "Al", "Bo", "MOD_THOMPSON"),
            k(K::Suicide, "Ax", "", "MOD_FALLING"),
        ]
    );
    let times: Vec<u32> = m
        .events
        .read()
        .iter()
        .filter(|e| matches!(e.kind, K::Frag | K::TeamKill | K::Suicide))
        .map(|e| e.time)
        .collect();
    assert_eq!(times, [30, 65, 70]);
    let bo = m.players.iter().find(|p| p.plain == "Bo").unwrap();
    assert_eq!(bo.left(), Some(90));
    assert!(report.skipped_lines.is_empty(), "{report:?}");
}

/// Found by the fuzzer: a stamped line with nothing after the stamp moves the level time,
/// and the next unstamped line's event must still fall inside the match's duration.
#[test]
fn an_empty_stamped_line_keeps_events_inside_the_match() {
    let log = b"ClientUserinfoChanged:7 n\\Mal\\\nKill:1022 7 2:<world> killed Mal by M\n1:01 \nClientUserinfoChanged:7 n\\\n";
    let (matches, _) = parse_bytes(log);
    assert!(!matches.is_empty());
    for m in &matches {
        for e in m.events.read().iter() {
            assert!(
                e.time <= m.duration_seconds,
                "{e:?} after {}",
                m.duration_seconds
            );
        }
    }
}

#[test]
fn stamps() {
    assert_eq!(strip_stamp("  3:07 Kill: 1"), Some((187, "Kill: 1")));
    assert_eq!(strip_stamp("1001:00 Exit: x"), Some((60060, "Exit: x")));
    assert_eq!(
        strip_stamp(" 9509300 sayteam: x"),
        Some((9509, "sayteam: x"))
    );
    assert_eq!(strip_stamp("13656500 Kill: 1"), Some((13656, "Kill: 1")));
    // Console output that starts with a number is not stamped.
    assert_eq!(strip_stamp("1 cpmKill: 10 4 70: x"), None);
    assert_eq!(
        strip_stamp("1 : Rukus (N 0) is invulnerable. Kill: 0 6 10: x"),
        None
    );
    assert_eq!(strip_stamp(" 9509300 legacy announce: x"), None);
    assert_eq!(strip_stamp("Kill: 0 6 10: x"), None);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Any bytes: no panic, and every event points inside its match.
    #[test]
    fn any_bytes_parse_without_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..4000)) {
        let (ms, _) = parse_bytes(&bytes);
        for m in &ms {
            for e in m.events.read().iter() {
                proptest::prop_assert!((e.actor as usize) < m.players.len());
            }
        }
    }

    /// Real lines shuffled, cut and repeated: no panic, events inside their match.
    #[test]
    fn mangled_real_lines_parse_without_panic(
        picks in proptest::collection::vec((0usize..915, 0usize..200, proptest::bool::ANY), 0..300)
    ) {
        let Some(log) = real_log() else {
            return Ok(());
        };
        let lines: Vec<&[u8]> = log.split(|b| *b == b'\n').collect();
        let mut input = Vec::new();
        for (i, cut, whole) in picks {
            let line = lines[i % lines.len()];
            input.extend_from_slice(if whole { line } else { &line[..cut.min(line.len())] });
            input.push(b'\n');
        }
        let (ms, _) = parse_bytes(&input);
        for m in &ms {
            for e in m.events.read().iter() {
                proptest::prop_assert!((e.actor as usize) < m.players.len());
                proptest::prop_assert!(e.target == crate::model::NO_PLAYER || (e.target as usize) < m.players.len());
            }
        }
    }
}
