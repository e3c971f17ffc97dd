//! Parser tests on real lines from `../shared/data` (quoted) and the quirks SOURCES.md lists.

use super::*;
use crate::model::EventKind as K;
use std::io::Write as _;

fn parse_bytes(bytes: &[u8]) -> (Vec<Match>, FileReport) {
    crate::parse::testing::parse_with(&Quake3, "test.log", bytes)
}

fn parse(text: &str) -> (Vec<Match>, FileReport) {
    parse_bytes(text.as_bytes())
}

fn player<'a>(m: &'a Match, plain: &str) -> (u32, &'a MatchPlayer) {
    let i = m.players.iter().position(|p| p.plain == plain).unwrap();
    (i as u32, &m.players[i])
}

fn kinds(m: &Match) -> Vec<K> {
    m.events
        .read()
        .iter()
        .map(|e| e.kind)
        .filter(|k| matches!(k, K::Frag | K::Suicide | K::TeamKill))
        .collect()
}

const OA_FFA: &str = r"  0:00 ------------------------------------------------------------
  0:00 InitGame: \com_protocol\71\fraglimit\25\timelimit\10\g_gametype\0\mapname\oa_dm1\sv_hostname\Bot Arena\gamename\baseoa\g_timestamp\2026-11-22 01:54:56
  0:00 Info: ServerInfo length: 790 of 1024
  0:00 ClientUserinfoChanged: 0 n\The Dude\t\0\model\sergei\hmodel\sergei\c1\4\c2\5\hc\70\w\0\l\0\skill\ 2.00\tt\0\tl\0\id\
  0:00 ClientConnect: 0
  0:00 Playerstore: Failed to restore player. Invalid guid: 
  0:00 ClientBegin: 0
  0:00 ClientUserinfoChanged: 3 n\=XiX=Grunt\t\0\model\grunt\skill\ 3.00\id\
  0:00 ClientConnect: 3
  0:00 ClientBegin: 3
  0:00 ClientUserinfoChanged: 6 n\^1Red^7Devil\t\0\model\major\skill\ 4.00\id\
  0:33 Kill: 0 3 6: The Dude killed =XiX=Grunt by MOD_ROCKET
  0:40 Kill: 1022 3 16: <world> killed =XiX=Grunt by MOD_LAVA
  1:29 Kill: 6 6 9: ^1Red^7Devil killed ^1Red^7Devil by MOD_PLASMA_SPLASH
  1:35 Kill: 0 6 16: The Dude killed ^1Red^7Devil by MOD_LAVA
  0:21 Award: 0 0: The Dude gained the GAUNTLET award!
  2:57 Exit: Fraglimit hit.
  2:57 score: 25  ping: 0  client: 0 The Dude
  2:57 score: -1  ping: 0  client: 3 =XiX=Grunt
  3:13 ShutdownGame:
  3:13 ------------------------------------------------------------
";

#[test]
fn openarena_ffa_match() {
    let (ms, report) = parse(OA_FFA);
    assert_eq!(ms.len(), 1);
    let m = &ms[0];
    assert_eq!(m.map, "oa_dm1");
    assert_eq!(m.gametype.code, "ffa");
    assert_eq!(m.server, "Bot Arena");
    assert_eq!(
        m.start.unwrap().to_string(),
        "2026-11-22 01:54:56",
        "g_timestamp is the start"
    );
    assert_eq!(m.duration_seconds, 177, "Exit at 2:57");
    assert_eq!(m.exit_reason.as_deref(), Some("Fraglimit hit."));
    assert_eq!(m.line, 2);
    assert_eq!(
        kinds(m),
        [K::Frag, K::Suicide, K::Suicide, K::Frag],
        "world and self kills are suicides; an environment MOD with a killer is a frag"
    );
    let (dude, p) = player(m, "The Dude");
    assert_eq!(p.score(), Some(25));
    assert_eq!(p.bot_skill, Some(2.0));
    let (grunt, g) = player(m, "=XiX=Grunt");
    assert_eq!(g.score(), Some(-1));
    let first = *m.events.read().iter().find(|e| e.kind == K::Frag).unwrap();
    assert_eq!((first.actor, first.target), (dude, grunt));
    assert_eq!(m.weapons[usize::from(first.detail)], "MOD_ROCKET");
    assert_eq!(first.time, 33);
    let (_, devil) = player(m, "RedDevil");
    assert_eq!(
        devil.name, "^1Red^7Devil",
        "display name keeps colour codes"
    );
    assert!(
        m.events
            .read()
            .iter()
            .any(|e| e.kind == K::Award && e.actor == dude)
    );
    assert_eq!(report.lines, 21);
    assert!(
        report.skipped_lines.is_empty(),
        "{:?}",
        report.skipped_lines
    );
    assert_eq!(report.matches, 1);
}

#[test]
fn names_containing_killed_and_by_are_read_by_slot() {
    let log = r"  0:00 InitGame: \mapname\q3dm17\g_gametype\0
  0:01 ClientUserinfoChanged: 1 n\a killed b by MOD_X\t\0
  0:01 ClientUserinfoChanged: 2 n\Dono da Bola\t\0
  0:02 Kill: 1 2 10: a killed b by MOD_X killed Dono da Bola by MOD_RAILGUN
  0:03 ShutdownGame:
";
    let (ms, _) = parse(log);
    let m = &ms[0];
    let (k, _) = player(m, "a killed b by MOD_X");
    let (v, _) = player(m, "Dono da Bola");
    let e = *m.events.read().iter().find(|e| e.kind == K::Frag).unwrap();
    assert_eq!((e.actor, e.target), (k, v));
    assert_eq!(m.weapons[usize::from(e.detail)], "MOD_RAILGUN");
}

#[test]
fn team_kills_need_the_same_side() {
    let log = r"  0:00 InitGame: \mapname\oa_dm5\g_gametype\3\gamename\baseoa
  0:00 ClientUserinfoChanged: 0 n\A\t\1
  0:00 ClientUserinfoChanged: 1 n\B\t\1
  0:00 ClientUserinfoChanged: 2 n\C\t\2
  0:05 Kill: 0 1 6: A killed B by MOD_ROCKET
  0:06 Kill: 0 2 6: A killed C by MOD_ROCKET
  0:07 ClientUserinfoChanged: 2 n\C\t\1
  0:08 Kill: 0 2 6: A killed C by MOD_ROCKET
  0:10 Exit: Timelimit hit.
  0:10 red:14  blue:50
  0:11 ShutdownGame:
";
    let (ms, _) = parse(log);
    let m = &ms[0];
    assert!(m.gametype.team_based);
    assert_eq!(kinds(m), [K::TeamKill, K::Frag, K::TeamKill]);
    assert_eq!(m.team_scores, Some([14, 50]));
    assert_eq!(player(m, "C").1.team, Team::Red);
}

#[test]
fn q3_challenge_quirks() {
    // Corrupt line 97, a game without ShutdownGame, `= 0` game type, 981:27 timers, line 4337.
    let log = r"  0:00 InitGame: \sv_hostname\Code Miner Server\g_gametype\0\mapname\q3dm17\gamename\baseq3
 25:05 ClientUserinfoChanged: 2 n\Isgalamido\t\0\model\xian/default
 25:06 ClientUserinfoChanged: 3 n\Oootsimo\t\0
 25:07 Kill: 3 2 7:O ootsimo killed Isgalamido by MOD_ROCKET_SPLASH
 26  0:00 ------------------------------------------------------------
  0:00 InitGame: \sv_hostname\Code Miner Server\g_gametype\= 0\mapname\q3dm17
981:27 ClientUserinfoChanged: 2 n\Isgalamido\t\0
981:30 Kill: 1022 2 22: <world> killed Isgalamido by MOD_TRIGGER_HURT
982:27 Exit: Timelimit hit.
";
    let (ms, report) = parse(log);
    assert_eq!(ms.len(), 2);
    assert_eq!(
        ms[0].duration_seconds,
        25 * 60 + 7,
        "closed by the next InitGame"
    );
    assert_eq!(kinds(&ms[0]), [K::Frag]);
    assert_eq!(ms[1].gametype.code, "ffa", "`= 0` reads as 0 like C atoi");
    // Level time was not reset: the match starts at 0:00 by its InitGame stamp, lines come at 981:27.
    assert_eq!(ms[1].events.read().last().unwrap().time, 981 * 60 + 30);
    assert_eq!(ms[1].duration_seconds, 982 * 60 + 27);
    assert_eq!(
        report.skipped_lines["corrupt line (no level-time stamp)"].count,
        1
    );
    assert_eq!(
        report.skipped_lines["corrupt line (no level-time stamp)"].examples[0].line,
        5
    );
    assert!(
        report
            .notes
            .contains_key("match closed by the next InitGame (no ShutdownGame)")
    );
}

#[test]
fn file_starting_mid_game() {
    // urt41-agea-tdm.log starts like this: no InitGame, slots named before the file began.
    let log = r"  1:03 ClientConnect: 4
  1:03 ClientUserinfo: 4 \ip\192.168.10.96:27960\name\Pizzuto
  1:03 ClientUserinfoChanged: 4 n\Pizzuto\t\3\r\2\tl\0\f0\\f1\\f2\\a0\128\a1\128\a2\128
  1:21 Kill: 2 1 20: Pl4StiK0 killed Agea by UT_MOD_G36
  1:33 ClientUserinfoChanged: 4 n\Pizzuto\t\1\r\2
  1:33 Kill: 4 4 10: Pizzuto killed Pizzuto by MOD_CHANGE_TEAM
  2:33 ShutdownGame:
  0:00 ShutdownGame:
";
    let (ms, report) = parse(log);
    assert_eq!(ms.len(), 1);
    assert!(ms[0].partial);
    assert_eq!(ms[0].map, "(unknown)");
    assert_eq!(kinds(&ms[0]), [K::Suicide]);
    assert_eq!(
        report.skipped_lines[&format!("Kill line {UNKNOWN_SLOT}")].count,
        1,
        "a kill by unnamed slots is reported, not guessed from the text"
    );
    assert!(
        report
            .notes
            .contains_key("ShutdownGame without InitGame (file starts mid-game)")
    );
    // The guid/ip line is never stored.
    assert!(!format!("{ms:?}").contains("192.168"));
}

#[test]
fn crlf_and_invalid_utf8_are_kept() {
    let log = b"  0:00 InitGame: \\mapname\\m1\\g_gametype\\0\r\n  0:01 ClientUserinfoChanged: 0 n\\Bob\xabX\\t\\0\r\n  0:01 ClientUserinfoChanged: 1 n\\Al\\t\\0\r\n  0:02 Kill: 0 1 3: x killed y by MOD_MACHINEGUN\r\n  0:03 ShutdownGame:";
    let (ms, report) = parse_bytes(log);
    assert_eq!(ms.len(), 1);
    let m = &ms[0];
    assert_eq!(m.map, "m1", "CR is not part of the value");
    assert_eq!(m.players[0].plain, "Bob\u{FFFD}X");
    assert_eq!(m.weapons, ["MOD_MACHINEGUN"]);
    assert_eq!(kinds(m), [K::Frag]);
    assert!(report.skipped_lines.is_empty());
}

#[test]
fn ctf_events_openarena_and_urban_terror() {
    let oa = r"  0:00 InitGame: \mapname\ctf_gate1\g_gametype\4\gamename\baseoa
  0:00 ClientUserinfoChanged: 7 n\{TDK}Liz\t\2
  0:00 ClientUserinfoChanged: 3 n\[OA]Sarge\t\1
  0:39 CTF: 7 1 0: {TDK}Liz got the RED flag!
  0:55 CTF: 7 1 1: {TDK}Liz captured the RED flag!
  0:52 CTF: 3 2 2: [OA]Sarge returned the BLUE flag!
  0:49 CTF: 7 1 3: {TDK}Liz fragged RED's flag carrier!
  3:04 Exit: Capturelimit hit.
  3:13 ShutdownGame:
";
    let (ms, _) = parse(oa);
    let m = &ms[0];
    assert_eq!(m.gametype.code, "ctf");
    let flags: Vec<_> = m
        .events
        .read()
        .iter()
        .filter_map(|e| match e.kind {
            K::Flag(a, t) => Some((m.players[e.actor as usize].plain.as_str(), a, t)),
            _ => None,
        })
        .collect();
    assert_eq!(
        flags,
        [
            ("{TDK}Liz", FlagAction::Pickup, Team::Red),
            ("{TDK}Liz", FlagAction::Capture, Team::Red),
            ("[OA]Sarge", FlagAction::Return, Team::Blue),
            ("{TDK}Liz", FlagAction::CarrierKill, Team::Red),
        ]
    );
    let urt = r"  0:00 InitGame: \g_gametype\7\mapname\ut4_abbey\gamename\q3urt43
  0:00 ClientUserinfoChanged: 0 n\[ACE]\t\1\r\2
  1:35 Flag: 0 2: team_CTF_blueflag
  1:56 Flag: 0 0: team_CTF_redflag
  1:58 Flag Return: RED
  2:00 ShutdownGame:
";
    let (ms, report) = parse(urt);
    let m = &ms[0];
    assert_eq!(m.gametype.code, "ctf", "Urban Terror mode 7 is CTF");
    assert!(matches!(
        m.events.read()[1].kind,
        K::Flag(FlagAction::Capture, Team::Blue)
    ));
    assert!(matches!(
        m.events.read()[2].kind,
        K::Flag(FlagAction::Drop, Team::Red)
    ));
    assert!(
        report.skipped_lines.is_empty(),
        "{:?}",
        report.skipped_lines
    );
}

#[test]
fn rename_mid_game_is_a_new_identity() {
    let log = r"  0:00 InitGame: \mapname\q3dm17\g_gametype\0
  0:01 ClientUserinfoChanged: 2 n\Dono da Bola\t\0
  0:01 ClientUserinfoChanged: 3 n\Zeh\t\0
  0:02 Kill: 2 3 10: Dono da Bola killed Zeh by MOD_RAILGUN
  0:03 ClientUserinfoChanged: 2 n\Mocinha\t\0
  0:04 Kill: 2 3 10: Mocinha killed Zeh by MOD_RAILGUN
  0:05 ShutdownGame:
";
    let (ms, _) = parse(log);
    let m = &ms[0];
    let (dono, _) = player(m, "Dono da Bola");
    let (moc, _) = player(m, "Mocinha");
    let frags: Vec<u32> = m
        .events
        .read()
        .iter()
        .filter(|e| e.kind == K::Frag)
        .map(|e| e.actor)
        .collect();
    assert_eq!(frags, [dono, moc]);
}

#[test]
fn bad_numbers_and_slots_are_reported() {
    let log = r"  0:00 InitGame: \mapname\q3dm17\g_gametype\0
  0:01 ClientUserinfoChanged: 2 n\A\t\0
  0:01 ClientUserinfoChanged: 99999 n\Huge\t\0
  0:02 Kill: 2 x 10: A killed ? by MOD_RAILGUN
  0:02 Kill: 2 5000000 10: A killed ? by MOD_RAILGUN
  0:02 Kill: 2 2 10: A killed A by MOD_RAILGUN
  0:03 Weird: stuff
  0:05 ShutdownGame:
";
    let (ms, report) = parse(log);
    assert_eq!(ms.len(), 1);
    assert_eq!(
        report.skipped_lines["client slot number out of range"].count,
        2
    );
    assert_eq!(report.skipped_lines[&format!("{MALFORMED}: Kill")].count, 1);
    assert_eq!(report.skipped_lines["unknown line kind"].count, 1);
}

#[test]
fn empty_matches_are_dropped() {
    let log = r"  0:00 InitGame: \mapname\q3dm17\g_gametype\0
  0:00 ClientConnect: 2
 22:00 Exit: Timelimit hit.
 22:00 red:0  blue:0
 22:01 ShutdownGame:
";
    let (ms, report) = parse(log);
    assert!(ms.is_empty());
    assert_eq!(report.notes["match with no players dropped"].count, 1);
}

#[test]
fn same_content_same_id() {
    let (a, _) = parse(OA_FFA);
    let (b, _) = parse(&format!("  0:00 ShutdownGame:\n{OA_FFA}"));
    assert_eq!(a[0].id, b[0].id);
    let (c, _) = parse(&OA_FFA.replace("0:33 Kill", "0:34 Kill"));
    assert_ne!(a[0].id, c[0].id);
}

#[test]
fn sniffing() {
    assert!(Quake3.sniff(OA_FFA.as_bytes()));
    assert!(!Quake3.sniff(b"L 09/29/2010 - 19:36:00: Log file started\n"));
    assert!(!Quake3.sniff(b"# README\n\nSome 12:30 text: here\n"));
    assert!(!Quake3.sniff(b""));
}

/// Per player of a match: (plain name, frags, deaths).
type Lines = Vec<(String, u32, u32)>;

/// A comparable summary of parsed matches: id, map, and per-player lines.
fn summary(ms: &[Match]) -> Vec<(String, String, Lines)> {
    let mut out: Vec<_> = ms
        .iter()
        .map(|m| {
            let mut per: Vec<(String, u32, u32)> = m
                .players
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let i = i as u32;
                    let frags = m
                        .events
                        .read()
                        .iter()
                        .filter(|e| e.kind == K::Frag && e.actor == i)
                        .count() as u32;
                    let deaths = m
                        .events
                        .read()
                        .iter()
                        .filter(|e| {
                            (e.kind == K::Frag || e.kind == K::TeamKill) && e.target == i
                                || e.kind == K::Suicide && e.actor == i
                        })
                        .count() as u32;
                    (p.plain.to_string(), frags, deaths)
                })
                .collect();
            per.sort();
            (m.id.to_string(), m.map.to_string(), per)
        })
        .collect();
    out.sort();
    out
}

/// A bot log's bytes (`tests/fixtures/openarena/<rel>`).
fn bot_log(rel: &str) -> Vec<u8> {
    std::fs::read(crate::testdata::openarena(rel)).unwrap()
}

/// A public log's bytes; None (the test skipped, said on stderr) without `../shared`.
fn real_log(rel: &str) -> Option<Vec<u8>> {
    let path = crate::testdata::shared(&format!("data/public/{rel}"))?;
    Some(std::fs::read(path).unwrap())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Any bytes: no panic, and every event points inside its match.
    #[test]
    fn any_bytes_parse_without_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..4000)) {
        let (ms, report) = parse_bytes(&bytes);
        for m in &ms {
            for e in m.events.read().iter() {
                proptest::prop_assert!((e.actor as usize) < m.players.len());
            }
        }
        proptest::prop_assert!(report.lines <= bytes.len() as u64 + 1);
    }

    /// Real lines shuffled, cut and repeated: still no panic.
    #[test]
    fn mangled_real_lines_parse_without_panic(
        picks in proptest::collection::vec((0usize..3982, 0usize..200, proptest::bool::ANY), 0..300)
    ) {
        let log = bot_log("ctf/games-2.log");
        let lines: Vec<&[u8]> = log.split(|b| *b == b'\n').collect();
        let mut input = Vec::new();
        for (i, cut, whole) in picks {
            let line = lines[i % lines.len()];
            input.extend_from_slice(if whole { line } else { &line[..cut.min(line.len())] });
            input.push(b'\n');
        }
        let _ = parse_bytes(&input);
    }

    /// Splitting a log into two files between matches gives the same matches and counts.
    #[test]
    fn split_between_matches_changes_nothing(pick in 0usize..1000) {
        let log = bot_log("tdm/games.log");
        let text = String::from_utf8_lossy(&log);
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let cuts: Vec<usize> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.contains("ShutdownGame:"))
            .map(|(i, _)| i + 1)
            .collect();
        let cut = cuts[pick % cuts.len()];
        let first: String = lines[..cut].concat();
        let second: String = lines[cut..].concat();
        let (whole, _) = parse(&text);
        let (mut a, _) = parse(&first);
        let (b, _) = parse(&second);
        a.extend(b);
        proptest::prop_assert_eq!(summary(&whole), summary(&a));
    }
}

#[test]
fn many_weapon_and_award_names_stay_bounded() {
    let mut log = String::from(
        "  0:00 InitGame: \\mapname\\m\\g_gametype\\0\n  0:00 ClientUserinfoChanged: 0 n\\A\\t\\0\n  0:00 ClientUserinfoChanged: 1 n\\B\\t\\0\n",
    );
    for i in 0..1500 {
        log.push_str(&format!("  0:01 Kill: 0 1 99: A killed B by MOD_X{i}\n  0:01 Award: 0 {i}: A gained the X award!\n"));
    }
    let (ms, _) = parse(&log);
    let m = &ms[0];
    assert_eq!(m.weapons.len(), crate::parse::MAX_WEAPONS + 1);
    assert!(m.awards.len() <= 101);
    for e in m.events.read().iter() {
        if e.kind == K::Frag {
            assert!(usize::from(e.detail) < m.weapons.len());
        }
        if e.kind == K::Award {
            assert!(usize::from(e.detail) < m.awards.len());
        }
    }
}

#[test]
fn concatenated_logs_never_carry_slots_across_shutdown() {
    // An OpenArena log followed by an Urban Terror log that starts mid-game (no InitGame before
    // its line 293): the Urban Terror lines before its InitGame belong to no match. Before the
    // fix they were read with the OpenArena bots' slots (bots with team kills in a UrT match).
    let oa = bot_log("tdm/games.log");
    let Some(urt) = real_log("urt/urt41-agea-tdm.log") else {
        return;
    };
    let (alone, _) = parse_bytes(&oa);
    let mut both = oa.clone();
    both.extend_from_slice(&urt);
    let (ms, report) = parse_bytes(&both);
    let bots: std::collections::HashSet<&str> = alone
        .iter()
        .flat_map(|m| m.players.iter().map(|p| p.plain.as_str()))
        .collect();
    for m in &ms[alone.len()..] {
        assert!(
            m.players.iter().all(|p| !bots.contains(p.plain.as_str())),
            "a bot in the Urban Terror match at line {}",
            m.line
        );
        assert!(!m.partial, "no match is made of lines outside a match");
    }
    for (a, b) in alone.iter().zip(&ms) {
        assert_eq!(a.id, b.id, "the OpenArena matches are unchanged");
    }
    let outside = report
        .skipped_lines
        .iter()
        .find(|(why, _)| why.starts_with("line outside a match"))
        .map(|(_, t)| t.count)
        .unwrap_or(0);
    // Lines 1..=290 of the UrT log precede its first InitGame (kills, userinfo, flags, ...).
    assert!(outside > 100, "{outside} lines reported outside a match");
}

#[test]
fn rejoin_same_side_and_slot_reuse_presence() {
    // A leaves (disconnect) and rejoins red: a new TeamChange. Slot 1 of B is reused by C after
    // an InitGame with no ShutdownGame, while B reconnected into slot 2 first: B stays.
    let log = r"  0:00 InitGame: \g_gametype\4\mapname\ctf1
  0:01 ClientUserinfoChanged: 0 n\A\t\1
  0:01 ClientUserinfoChanged: 1 n\B\t\2
  0:05 Kill: 0 1 3: A killed B by MOD_X
  0:10 ClientDisconnect: 0
  0:20 ClientUserinfoChanged: 0 n\A\t\1
  0:25 Kill: 0 1 3: A killed B by MOD_X
  0:30 InitGame: \g_gametype\4\mapname\ctf2
  0:31 ClientUserinfoChanged: 2 n\B\t\2
  0:32 ClientUserinfoChanged: 1 n\C\t\1
  0:33 Kill: 1 2 3: C killed B by MOD_X
  0:40 ShutdownGame:
";
    let (ms, _) = parse(log);
    assert_eq!(ms.len(), 2);
    let (a, _) = player(&ms[0], "A");
    let a_events: Vec<K> = ms[0]
        .events
        .read()
        .iter()
        .filter(|e| e.actor == a && matches!(e.kind, K::TeamChange(_) | K::Leave))
        .map(|e| e.kind)
        .collect();
    assert_eq!(
        a_events,
        [K::TeamChange(Team::Red), K::Leave, K::TeamChange(Team::Red)]
    );
    let (b, _) = player(&ms[1], "B");
    assert!(
        !ms[1]
            .events
            .read()
            .iter()
            .any(|e| e.actor == b && e.kind == K::Leave),
        "B is still held by slot 2"
    );
}

#[test]
fn client_ids_are_hashed_per_slot_and_never_kept() {
    // Urban Terror: cl_guid in ClientUserinfo, before the userinfo change; an auth name wins.
    let log = r#"  0:00 InitGame: \g_gametype\0\mapname\ut4_abbey\gamename\q3urt43
  0:01 ClientUserinfo: 0 \name\[ACE]Boss\cl_guid\02A0A0F7A8441FA39BF16126DF26B3BB
  0:01 ClientUserinfoChanged: 0 n\[ACE]Boss\t\0
  0:01 ClientUserinfo: 1 \name\[ACE]Boss\cl_guid\0000000000000000
  0:01 ClientUserinfoChanged: 1 n\Other\t\0
  0:02 AccountValidated: 1 - bossauth - 0 - ""
  0:03 Kill: 0 1 3: [ACE]Boss killed Other by UT_MOD_X
  0:04 ShutdownGame:
"#;
    let (ms, _) = parse(log);
    let (_, boss) = player(&ms[0], "[ACE]Boss");
    let (_, other) = player(&ms[0], "Other");
    assert_eq!(boss.uid, uid_of("guid", "02a0a0f7a8441fa39bf16126df26b3bb"));
    assert_eq!(
        other.uid,
        uid_of("auth", "bossauth"),
        "auth name, not the zero guid"
    );
    let stored = postcard::to_allocvec(&ms[0]).unwrap();
    assert!(
        !stored
            .windows(8)
            .any(|w| w == b"02A0A0F7" || w == b"bossauth"),
        "the ids themselves are never kept"
    );
    // OpenArena: `id` in the userinfo change; bots have an empty one.
    let Some(oa) = real_log("openarena/oa-brensen-munerator.log") else {
        return;
    };
    let (ms, _) = parse_bytes(&oa);
    assert!(ms.iter().flat_map(|m| &m.players).any(|p| p.uid.is_some()));
}

/// `split_stamp` as it was written on `str` (char searches and `parse`), before the byte-level
/// version: the reference the fast one must agree with.
fn split_stamp_reference(line: &str) -> Option<(u32, &str)> {
    let t = line.trim_start_matches(' ');
    let colon = t.find(':')?;
    let (min, rest) = (&t[..colon], &t[colon + 1..]);
    if min.is_empty() || min.len() > 7 || !min.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let sec = rest.get(..2)?;
    if !sec.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let rest = &rest[2..];
    let rest = match rest.strip_prefix(' ') {
        Some(r) => r,
        None if rest.is_empty() => rest,
        None => return None,
    };
    let minutes: u32 = min.parse().ok()?;
    let seconds: u32 = sec.parse().ok()?;
    Some((minutes.checked_mul(60)?.checked_add(seconds)?, rest))
}

#[test]
fn split_stamp_edge_cases_match_the_reference() {
    for line in [
        "  0:00 InitGame: x",
        "9999999:59 Kill: 1 2 3: a killed b by X",
        "12345678:00 Kill:",
        ":00 Kill",
        "1:0",
        "1:00",
        "1:00x",
        "1:0é Kill",
        "1:é0 Kill",
        "é1:00 Kill",
        "  12:34  Item: 2",
        "",
        "   ",
        "1:99 ",
    ] {
        assert_eq!(split_stamp(line), split_stamp_reference(line), "{line:?}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

    /// The byte-level `split_stamp` agrees with the reference on stamp-like text, multi-byte
    /// characters included.
    #[test]
    fn split_stamp_matches_the_reference(line in "[ 0-9:é\\-a]{0,14}") {
        proptest::prop_assert_eq!(split_stamp(&line), split_stamp_reference(&line));
    }
}

#[test]
fn lines_that_are_not_utf8_are_decoded_as_a_lossy_decode_would() {
    for bytes in [
        &b"plain"[..],
        b"n\xabme",
        b"\xff",
        b"caf\xc3\xa9",
        b"cut \xc3",
    ] {
        assert_eq!(decode_lossy(bytes), String::from_utf8_lossy(bytes));
    }
}

#[test]
fn item_lines_read_without_decoding_hash_as_decoded_ones() {
    // The same match with its Item lines in ASCII (the fast path) and, in a copy, one Item line
    // with a byte that is not UTF-8 and one `Item` without a colon (both read as text): the
    // fingerprints differ only through those lines, and the events are the same.
    let log = |item: &[u8]| {
        let mut bytes = b"  0:00 InitGame: \\mapname\\q3dm6\\g_gametype\\0\n\
  0:00 ClientUserinfoChanged: 0 n\\A\\t\\0\n\
  0:00 ClientUserinfoChanged: 1 n\\B\\t\\0\n"
            .to_vec();
        bytes.extend_from_slice(item);
        bytes.extend_from_slice(
            b"  0:02 Kill: 0 1 10: A killed B by MOD_RAILGUN\n  0:03 ShutdownGame:\n",
        );
        parse_bytes(&bytes)
    };
    let (ascii, report) = log(b"  0:01 Item: 0 weapon_railgun\n");
    let (same, _) = log(b"  0:01 Item: 0 weapon_railgun\n");
    let (other, other_report) = log(b"  0:01 Item: 0 weapon_\xffrailgun\n  0:01 Item\n");
    assert_eq!(ascii[0].content, same[0].content);
    assert_ne!(ascii[0].content, other[0].content);
    assert_eq!(kinds(&ascii[0]), kinds(&other[0]));
    assert_eq!(report.skipped_lines, other_report.skipped_lines);
    // The hash is that of the decoded text: the bad byte hashes as U+FFFD.
    let (decoded, _) = log("  0:01 Item: 0 weapon_\u{FFFD}railgun\n  0:01 Item\n".as_bytes());
    assert_eq!(other[0].content, decoded[0].content);
}

/// A log of `n` matches, the g-th with g % 7 kills (fewer than the id's four in some), and the
/// fingerprints each must have ([`write_match`]).
fn matches_and_fingerprints(n: u32) -> (Vec<u8>, Vec<(u64, String)>) {
    let mut log = Vec::new();
    let mut expected = Vec::new();
    for g in 0..n {
        let payload = format!("\\mapname\\q3dm{g}\\g_gametype\\0");
        let mut lines = vec![
            "  0:00 ClientUserinfoChanged: 0 n\\A\\t\\0".to_string(),
            format!("  0:00 ClientUserinfoChanged: 1 n\\B{g}\\t\\0"),
        ];
        for k in 0..g % 7 {
            lines.push(format!("  0:0{k} Item: 0 weapon_railgun"));
            lines.push(format!(
                "  0:0{k} Kill: 0 1 10: A killed B{g} by MOD_RAILGUN"
            ));
        }
        lines.push("  0:09 ShutdownGame:".to_string());
        expected.push(write_match(&mut log, &payload, &lines));
    }
    (log, expected)
}

/// Writes a match (`InitGame` with `payload`, then `lines`) to `log`; returns the fingerprints
/// it must have: its content (the hash of `InitGame`, the payload and every later line, each
/// with a newline) and its id (the hash up to its fourth kill line, else the content).
fn write_match(log: &mut Vec<u8>, payload: &str, lines: &[String]) -> (u64, String) {
    let mut hash = Hasher::new();
    hash.raw(format!("InitGame\n{payload}\n").as_bytes());
    let (mut id, mut kills) = (None, 0);
    for line in lines {
        hash.raw(line.as_bytes());
        hash.raw(b"\n");
        kills += u32::from(line.contains("Kill:"));
        if kills == 4 && id.is_none() {
            id = Some(hash.finish());
        }
    }
    let content = hash.finish();
    writeln!(log, "  0:00 InitGame: {payload}").unwrap();
    for line in lines {
        writeln!(log, "{line}").unwrap();
    }
    (content, format!("{:016x}", id.unwrap_or(content)))
}

#[test]
fn fingerprints_hashed_together_are_those_of_each_match_alone() {
    // More matches than are hashed at a time, and not a multiple of it.
    let n = 3 * FINISHED as u32 + 3;
    let (log, expected) = matches_and_fingerprints(n);
    let (matches, _) = parse_bytes(&log);
    // The match with no kill has no players who played: dropped.
    let kept: Vec<_> = expected
        .into_iter()
        .enumerate()
        .filter(|(g, _)| g % 7 != 0)
        .map(|(_, e)| e)
        .collect();
    let got: Vec<_> = matches
        .iter()
        .map(|m| (m.content, m.id.to_string()))
        .collect();
    assert_eq!(got, kept);
}

/// Reads `bytes`, then fails.
struct FailsAfter<'a>(&'a [u8]);

impl std::io::Read for FailsAfter<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.0.is_empty() {
            return Err(std::io::Error::other("disk on fire"));
        }
        let n = buf.len().min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn matches_finished_before_a_read_error_are_all_given() {
    let (log, _) = matches_and_fingerprints(2 * FINISHED as u32 + 5);
    let (whole, _) = parse_bytes(&log);
    // The error comes inside the last match: every match before it was finished.
    let cut = log.len() - 30;
    let mut input = std::io::BufReader::with_capacity(100, FailsAfter(&log[..cut]));
    let source = Source {
        path: "test.log".into(),
        file_index: 0,
    };
    let mut report = FileReport::new("test.log");
    let mut got = Vec::new();
    let result = Quake3.parse(&mut input, &source, &mut report, &mut |m| got.push(m), None);
    assert_eq!(result.unwrap_err().to_string(), "disk on fire");
    assert_eq!(got.len(), whole.len() - 1);
    assert!(got.len() > FINISHED, "some were hashed together");
    assert!(got.iter().zip(&whole).all(|(a, b)| a == b));
}

#[test]
fn stamps_have_1_to_7_digit_minutes_then_the_first_colon() {
    // What the stamp reader did when it searched the whole line for its first colon.
    let searched = |line: &[u8]| -> Option<(u32, usize)> {
        let spaces = line.iter().take_while(|b| **b == b' ').count();
        let bytes = &line[spaces..];
        let colon = bytes.iter().position(|b| *b == b':')?;
        let min = &bytes[..colon];
        if min.is_empty() || min.len() > 7 || !min.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let s = bytes.get(colon + 1..colon + 3)?;
        if !s.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let rest = match bytes.get(colon + 3) {
            Some(b' ') => colon + 4,
            None => colon + 3,
            Some(_) => return None,
        };
        let minutes = std::str::from_utf8(min).ok()?.parse::<u32>().ok()?;
        let seconds = u32::from((s[0] - b'0') * 10 + (s[1] - b'0'));
        Some((minutes * 60 + seconds, spaces + rest))
    };
    let lines: [&[u8]; 16] = [
        b"  0:05 Item: 6 item_armor_combat",
        b"1234567:59 Kill:",
        b"12345678:00 Kill:",
        b"  12:34",
        b"12:3",
        b"12:345",
        b":00 x",
        b"   ",
        b"",
        b"1a:00 x",
        b"1:00:00 x",
        b"7 1:00 x",
        b"00000001:00 x",
        b"0000000:00\xff",
        b"\xff0:00 x",
        b"  9:99 say: a:b",
    ];
    for line in lines {
        assert_eq!(stamp(line), searched(line), "{}", line.escape_ascii());
    }
    assert_eq!(stamp(b"1234567:59 Kill:"), Some((1234567 * 60 + 59, 11)));
}

/// A log of two long matches (far more lines than a match has, as when a server writes no
/// `ShutdownGame` for days): in the first the id's four kills come early, in the second they
/// are spread over the match. With the fingerprints each must have ([`write_match`]).
fn long_matches(lines: u32) -> (Vec<u8>, Vec<(u64, String)>) {
    let mut log = Vec::new();
    let mut expected = Vec::new();
    for g in 0..2u32 {
        let payload = format!("\\mapname\\q3dm{g}\\g_gametype\\0");
        let mut body = vec![
            "  0:00 ClientUserinfoChanged: 0 n\\A\\t\\0".to_string(),
            "  0:00 ClientUserinfoChanged: 1 n\\B\\t\\0".to_string(),
        ];
        let every = if g == 0 { 3 } else { lines / 5 };
        for i in 0..lines {
            body.push(format!("  1:00 Item: 0 item_armor_combat_{i}"));
            if i % every == 0 && i / every < 5 {
                body.push("  1:00 Kill: 0 1 10: A killed B by MOD_RAILGUN".to_string());
            }
        }
        body.push("  9:00 ShutdownGame:".to_string());
        expected.push(write_match(&mut log, &payload, &body));
    }
    (log, expected)
}

/// A match's lines are kept for its fingerprints only up to a bound (one endless match of a
/// 2 GB log must not need 2 GB of memory), and its fingerprints are still those of all its
/// lines, whether the id's opening ends before the first bound or after it.
#[test]
fn a_long_match_keeps_little_of_its_text_and_the_same_fingerprints() {
    let (log, expected) = long_matches(150_000);
    assert!(log.len() > 8 << 20, "{} bytes", log.len());
    let source = Source {
        path: "test.log".into(),
        file_index: 0,
    };
    let mut report = FileReport::new("test.log");
    let mut parser = Parser::new(&source);
    let mut got = Vec::new();
    let mut largest = 0;
    for (n, line) in log.split(|b| *b == b'\n').enumerate() {
        let stamped = stamp(line);
        if !parser.item(line, stamped) {
            let text = decode_lossy(line);
            parser.line(&text, stamped, n as u64 + 1, &mut report, &mut |m| {
                got.push(m)
            });
        }
        let kept = parser.current.as_ref().map_or(0, |b| b.text.capacity());
        largest = largest.max(kept);
    }
    parser.close(None, &mut report, &mut |m| got.push(m));
    parser.flush(&mut |m| got.push(m));
    assert!(
        largest <= 2 << 20,
        "a match kept {largest} bytes of its lines"
    );
    let fingerprints: Vec<_> = got.iter().map(|m| (m.content, m.id.to_string())).collect();
    assert_eq!(fingerprints, expected);
    let (whole, _) = parse_bytes(&log);
    assert_eq!(whole, got);
}
