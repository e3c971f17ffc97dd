//! Parser tests on real lines from `../shared/data/public/cod` (quoted) and the quirks SOURCES.md
//! lists for each file.

use super::*;
use crate::model::EventKind as K;
use crate::model::MatchPlayer;

fn parse_bytes(bytes: &[u8]) -> (Vec<Match>, FileReport) {
    crate::parse::testing::parse_with(&CallOfDuty, "games_mp.log", bytes)
}

/// A public log's bytes; None (the test skipped, said on stderr) without `../shared`.
fn real_log(name: &str) -> Option<Vec<u8>> {
    let path = crate::testdata::shared(&format!("data/public/cod/{name}"))?;
    Some(std::fs::read(path).unwrap())
}

fn player<'a>(m: &'a Match, plain: &str) -> Vec<(u32, &'a MatchPlayer)> {
    m.players
        .iter()
        .enumerate()
        .filter(|(_, p)| p.plain == plain)
        .map(|(i, p)| (i as u32, p))
        .collect()
}

use crate::parse::testing::{k, kills};

/// cod2-lan-2020: the first game, quoted (CRLF kept). Every GUID is `0`, two clients join with
/// the same name, slot 0 kills as `Vandal` with no rename event, a world kill has an empty team.
const COD2_OPENING: &[u8] = b"  0:00 ------------------------------------------------------------\r
  0:00 InitGame: \\g_antilag\\1\\g_gametype\\dm\\gamename\\Call of Duty 2\\mapname\\mp_pavlov\\protocol\\118\\scr_friendlyfire\\1\\shortversion\\1.3\\sv_hostname\\CoD2\\sv_maxclients\\20\r
  0:00 J;0;0;Sergy(UKR)\r
  0:36 J;0;1;Sergy(UKR)\r
  1:04 J;0;2;Petro\r
  1:45 K;0;1;;Sergy(UKR);0;0;;Sergy(UKR);mosin_nagant_sniper_mp;135;MOD_RIFLE_BULLET;torso_lower\r
  2:58 K;0;0;;Sergy(UKR);0;2;;Petro;mosin_nagant_sniper_mp;135;MOD_RIFLE_BULLET;torso_lower\r
  3:08 D;0;1;allies;Sergy(UKR);0;0;allies;Sergy(UKR);PPS42_mp;32;MOD_PISTOL_BULLET;left_leg_lower\r
  4:14 K;0;0;;Vandal;0;2;;Petro;mosin_nagant_sniper_mp;135;MOD_RIFLE_BULLET;torso_upper\r
  5:05 K;0;0;;Vandal;0;1;;Sergy(UKR);springfield_mp;270;MOD_HEAD_SHOT;head\r
  5:37 K;0;1;;Sergy(UKR);;-1;;;none;2000;MOD_EXPLOSIVE;none\r
  5:40 Weapon;0;0;Vandal;frag_grenade_german_mp\r
 24:44 K;0;5;;who_is_on_DUTY;0;5;;who_is_on_DUTY;none;100000;MOD_SUICIDE;none\r
 28:02 say;0;2;Ibragim;\x15\xe4\xe5 \xe2\xf1\xb3\r
 29:00 K;0;2;;\xd7\xe5\xeb\xf1\xe8;0;1;;Sergy(UKR);PPS42_mp;35;MOD_PISTOL_BULLET;torso_lower\r
 30:00 W;;0;Vandal\r
 30:10 ExitLevel: executed\r
 30:10 ShutdownGame:\r
 30:10 ------------------------------------------------------------\r
";

#[test]
fn cod2_lan_victim_first_slot_and_name_identity() {
    let (ms, report) = parse_bytes(COD2_OPENING);
    assert_eq!(ms.len(), 1);
    let m = &ms[0];
    assert_eq!(
        (m.game.as_str(), m.map.as_str(), m.gametype.code.as_str()),
        ("cod2", "mp_pavlov", "dm")
    );
    assert_eq!(m.server, "CoD2");
    assert_eq!(m.duration_seconds, 30 * 60 + 10);
    assert!(!m.open && !m.partial);
    assert_eq!(
        kills(m),
        [
            // Victim first: slot 0 killed slot 1, both called Sergy(UKR): two players, a frag.
            k(
                K::Frag,
                "Sergy(UKR)",
                "Sergy(UKR)",
                "mosin_nagant_sniper_mp"
            ),
            k(K::Frag, "Petro", "Sergy(UKR)", "mosin_nagant_sniper_mp"),
            // Slot 0 is Vandal now, with no rename line.
            k(K::Frag, "Petro", "Vandal", "mosin_nagant_sniper_mp"),
            k(K::Frag, "Sergy(UKR)", "Vandal", "springfield_mp"),
            // The world (slot -1, empty team): a suicide, named by its means of death.
            k(K::Suicide, "Sergy(UKR)", "", "MOD_EXPLOSIVE"),
            k(K::Suicide, "who_is_on_DUTY", "", "MOD_SUICIDE"),
            // A Windows-1251 name decodes to Cyrillic.
            k(K::Frag, "Sergy(UKR)", "Челси", "PPS42_mp"),
        ]
    );
    let sergy = player(m, "Sergy(UKR)");
    assert_eq!(sergy.len(), 2, "two slots share the name: two players");
    assert!(
        sergy.iter().all(|(_, p)| p.uid.is_none()),
        "GUID 0 is nobody"
    );
    // Slot 0's first name left the slot when it became Vandal.
    assert_eq!(sergy[0].1.left(), Some(4 * 60 + 14));
    assert_eq!(player(m, "Vandal").len(), 1);
    // The free-for-all winner line is counted, not silently dropped; chat is not a diagnostic.
    let w =
        &report.skipped_lines["winner/loser line outside a team game (no result the model keeps)"];
    assert_eq!(w.count, 1);
    assert_eq!(w.examples[0].text, "W;;[guid];Vandal");
    assert_eq!(report.skipped_lines.len(), 1, "{:?}", report.skipped_lines);
}

#[test]
fn cod2_team_kills_and_team_result() {
    // cod2-lan-2020 lines 2560-2561 and 3142-3149 (an hq game: axis won).
    let log = "  0:00 InitGame: \\g_gametype\\hq\\gamename\\Call of Duty 2\\mapname\\mp_romed
 45:07 K;0;6;allies;Max;0;6;allies;Max;none;100000;MOD_SUICIDE;none
 45:08 K;0;7;allies;Kamikadze;0;5;allies;Roma;m1garand_mp;90;MOD_RIFLE_BULLET;right_leg_upper
 70:17 K;0;5;allies;Roma;0;7;axis;Kamikadze;springfield_mp;135;MOD_RIFLE_BULLET;right_leg_upper
 70:24 K;0;3;allies;castusia;0;3;allies;castusia;panzerschreck_mp;394;MOD_PROJECTILE_SPLASH;none
 70:29 W;axis;0;Vandal;0;Petro;0;Max;0;Kamikadze
 70:29 L;allies;0;Roma;0;castusia;0;Roma;0;who_is_on_DUTY
 70:39 ShutdownGame:
";
    let (ms, report) = parse_bytes(log.as_bytes());
    let m = &ms[0];
    assert!(m.gametype.team_based);
    assert_eq!(
        kills(m),
        [
            k(K::Suicide, "Max", "", "MOD_SUICIDE"),
            k(K::TeamKill, "Roma", "Kamikadze", "m1garand_mp"),
            k(K::Frag, "Kamikadze", "Roma", "springfield_mp"),
            k(K::Suicide, "castusia", "", "panzerschreck_mp"),
        ]
    );
    // Kamikadze changed side between the two kills (allies, then axis): axis is red.
    let (_, kami) = player(m, "Kamikadze")[0];
    assert_eq!(kami.team, Team::Red);
    assert_eq!(m.team_scores, Some([1, 0]), "axis (red) won");
    assert!(
        report.skipped_lines.is_empty(),
        "{:?}",
        report.skipped_lines
    );
}

#[test]
fn cod4_lan_empty_and_zero_guids_grenade_suicide_dm_teams() {
    // cod4-lan-bozo lines 3-9 and 1488: the host's GUID is empty, the others all zeros; in dm
    // the K lines have no team while D lines do; an own grenade is attacker slot -1 with the
    // victim's own name.
    let zero = "00000000000000000000000000000000";
    let log = format!(
        "  0:00 InitGame: \\g_gametype\\dm\\gamename\\Call of Duty 4\\mapname\\mp_convoy\\shortversion\\1.3\\sv_hostname\\Bozo
  0:03 J;;0;Phantom
  2:21 J;{zero};1;Mimius
  2:29 J;{zero};2;JMLX
  3:50 J;{zero};3;Jsp
  5:08 D;{zero};2;axis;JMLX;;0;allies;Phantom;m16_gl_mp;14;MOD_RIFLE_BULLET;left_arm_upper
  5:09 K;{zero};2;;JMLX;;0;;Phantom;m16_gl_mp;56;MOD_RIFLE_BULLET;torso_upper
 44:51 K;{zero};3;;Jsp;{zero};-1;;Jsp;frag_grenade_mp;139;MOD_GRENADE_SPLASH;none
 44:52 D;{zero};2;axis;JMLX;;-1;world;;cobra_20mm_mp;10;MOD_PISTOL_BULLET;right_leg_upper
 45:00 ShutdownGame:
"
    );
    let (ms, report) = parse_bytes(log.as_bytes());
    let m = &ms[0];
    assert_eq!(m.game, "cod4");
    assert_eq!(
        kills(m),
        [
            k(K::Frag, "Phantom", "JMLX", "m16_gl_mp"),
            k(K::Suicide, "Jsp", "", "frag_grenade_mp"),
        ]
    );
    assert!(
        m.players
            .iter()
            .all(|p| p.uid.is_none() && p.team == Team::Free)
    );
    // Joined but never in a kill: on the server, not active.
    assert!(!player(m, "Mimius")[0].1.active);
    assert!(report.skipped_lines.is_empty());
}

#[test]
fn cod4_lan_level_time_never_resets() {
    let Some(log) = real_log("cod4-lan-bozo-games_mp.log") else {
        return;
    };
    let (ms, report) = parse_bytes(&log);
    // SOURCES.md: 10 dm games, 1377 K lines; the clock runs to 208:38 across them.
    assert_eq!(ms.len(), 10);
    assert!(
        ms.iter()
            .all(|m| m.gametype.code == "dm" && m.game == "cod4")
    );
    let kill_events: usize = ms.iter().map(|m| kills(m).len()).sum();
    assert_eq!(kill_events, 1377);
    // Times are relative to each game's InitGame: no game is longer than its 30-minute limit.
    for m in &ms {
        assert!(m.duration_seconds <= 31 * 60, "{}", m.duration_seconds);
        assert!(m.events.read().iter().all(|e| e.time <= m.duration_seconds));
    }
    assert_eq!(ms[9].line, 6415);
    // Every map start repeats the J lines of those connected: still the same four players.
    assert!(
        ms.iter().all(|m| m.players.len() == 4),
        "{:?}",
        ms.iter().map(|m| m.players.len()).collect::<Vec<_>>()
    );
    assert!(
        report.skipped_lines.is_empty(),
        "{:?}",
        report.skipped_lines
    );
}

#[test]
fn cod4_public_server_late_start_missing_shutdown_time_jump_and_guids() {
    let Some(bytes) = real_log("cod4-iclan-svr-games_mp.log") else {
        return;
    };
    let (ms, report) = parse_bytes(&bytes);
    // 194 InitGame, but only two games had kills (66 K lines); empty rotations are dropped.
    assert_eq!(ms.len(), 2);
    assert_eq!(report.notes["match with no players dropped"].count, 192);
    assert_eq!(ms.iter().map(|m| kills(m).len()).sum::<usize>(), 66);
    // The file starts at level time 2061:29: times are relative to the InitGame at 2061:3x.
    assert!(ms[0].events.read().iter().all(|e| e.time < 3600));
    let dm = &ms[1];
    assert_eq!(dm.gametype.code, "dm");
    // CoD4 1.7 fills team fields in dm: no team kills there.
    assert!(kills(dm).iter().all(|k| k.0 != K::TeamKill));
    // Names with `|`, identified by a hashed GUID that is never kept.
    let (_, louis) = player(dm, "iClan|Louis92")[0];
    assert!(louis.uid.is_some());
    let text = format!("{ms:?}{report:?}").to_ascii_lowercase();
    for line in String::from_utf8_lossy(&bytes).lines() {
        if let Some(rest) = line.split_once(" J;").map(|(_, r)| r) {
            let guid = rest.split(';').next().unwrap().to_ascii_lowercase();
            assert!(!text.contains(&guid), "GUID {guid} kept");
        }
    }
    // `W;;<guid>;name` and `L;;;<guid>;name;<guid>;name` of a dm game: counted, GUIDs hidden.
    let wl =
        &report.skipped_lines["winner/loser line outside a team game (no result the model keeps)"];
    assert_eq!(
        wl.examples[1].text,
        "L;;;[guid];iClan|gamoul;[guid];iClan|fre2x3"
    );
}

#[test]
fn cod4_game_without_shutdown_and_time_jumping_back() {
    // cod4-iclan lines 802-808: the game opened at 5744:58 has no ShutdownGame, the next one
    // starts with the level time back at 3673:58.
    let guid = "0123456789abcdef0123456789abcdef";
    let log = format!(
        "5744:58 InitGame: \\_Mod\\SVR\\_ModVer\\3.13\\fs_game\\mods/svr\\g_gametype\\sab\\gamename\\Call of Duty 4\\mapname\\mp_crash
5745:10 K;{guid};1;axis;A;{guid}f;2;allies;B;usp_mp;40;MOD_PISTOL_BULLET;torso_upper
3673:58 ------------------------------------------------------------
3673:58 InitGame: \\_Mod\\SVR\\g_gametype\\war\\gamename\\Call of Duty 4\\mapname\\mp_strike
3674:10 K;{guid};1;axis;A;{guid}f;2;allies;B;usp_mp;40;MOD_PISTOL_BULLET;torso_upper
3704:03 ExitLevel: executed
3704:03 ShutdownGame:
"
    );
    let (ms, report) = parse_bytes(log.as_bytes());
    assert_eq!(ms.len(), 2);
    assert_eq!(
        (ms[0].map.as_str(), ms[0].duration_seconds),
        ("mp_crash", 12)
    );
    assert!(!ms[0].open, "closed by the next InitGame");
    assert!(
        report
            .notes
            .contains_key("match closed by the next InitGame (no ShutdownGame)")
    );
    assert_eq!(
        (ms[1].map.as_str(), ms[1].duration_seconds),
        ("mp_strike", 30 * 60 + 5)
    );
    assert_eq!(ms[1].exit_reason.as_deref(), Some("Map ended"));
}

#[test]
fn mw2_bare_initgame_latin1_guids_world_kills() {
    let Some(bytes) = real_log("iw4x-mw2-hidenseek-games_mp.log") else {
        return;
    };
    let (ms, report) = parse_bytes(&bytes);
    // 52 InitGame, 49 bare; 40 games with kills (60 K lines), 12 empty ones dropped.
    assert_eq!(ms.len(), 40);
    assert_eq!(report.notes["match with no players dropped"].count, 12);
    assert_eq!(ms.iter().map(|m| kills(m).len()).sum::<usize>(), 60);
    // Bare InitGame: map and game type unknown; the game is the one the server named before.
    assert!(ms.iter().all(|m| m.game == "iw4x"));
    assert!(
        ms.iter()
            .all(|m| m.map == "(unknown)" && m.gametype.code == "unknown")
    );
    // `K;…;Zeromix;;-1;world;;none;9000;MOD_TRIGGER_HURT;none`: world kills are suicides.
    assert_eq!(
        kills(&ms[0]),
        [k(K::Suicide, "Zeromix", "", "MOD_TRIGGER_HURT")]
    );
    // One player with two GUIDs: two uids under one name; a name ending in a space is trimmed;
    // colour codes are kept in the name, not the plain name.
    let uids: std::collections::BTreeSet<_> = ms
        .iter()
        .flat_map(|m| player(m, "Zeromix"))
        .filter_map(|(_, p)| p.uid)
        .collect();
    // (Its first GUID, `0110000100022859`, joins only games with no kill.)
    assert_eq!(uids.len(), 1);
    let log = "  0:00 InitGame
  0:17 J;0110000100022859;0;Zeromix
  0:37 J;1c8b1c9983994aaa;0;Zeromix
  1:46 K;1c8b1c9983994aaa;0;allies;Zeromix;;-1;world;;none;9000;MOD_TRIGGER_HURT;none
  1:54 ShutdownGame:
";
    let (two, _) = parse_bytes(log.as_bytes());
    let zeromix = player(&two[0], "Zeromix");
    assert_eq!(
        zeromix.len(),
        2,
        "two GUIDs, two players (one name on the site)"
    );
    assert_ne!(zeromix[0].1.uid, zeromix[1].1.uid);
    assert_eq!(
        zeromix[0].1.left(),
        Some(37),
        "the slot now holds the other GUID"
    );
    assert!(ms.iter().any(|m| {
        player(m, "sandman")
            .iter()
            .any(|(_, p)| p.name == "sandman ")
    }));
    assert!(ms.iter().any(|m| {
        player(m, "NEx HenKer")
            .iter()
            .any(|(_, p)| p.name == "^ONEx HenKer")
    }));
    // MOD_MELEE knife kills are frags with the weapon held.
    assert!(
        ms.iter()
            .flat_map(kills)
            .any(|k| k.0 == K::Frag && k.3 == "deserteagle_tactical_mp")
    );
    // The free-text mod line is counted.
    assert_eq!(report.skipped_lines["unknown line kind"].count, 48);
    assert_eq!(
        report.skipped_lines["unknown line kind"].examples[0].text,
        "Vote Mod: Loaded Successfully."
    );
}

#[test]
fn cod2_whole_file() {
    let Some(log) = real_log("cod2-lan-2020-truncated1484k.log") else {
        return;
    };
    let (ms, report) = parse_bytes(&log);
    // SOURCES.md: 160 games (54 of them with no kill), 6884 K lines; the last game is complete.
    assert_eq!(
        ms.len() + report.notes["match with no players dropped"].count as usize,
        160
    );
    assert_eq!(ms.iter().map(|m| kills(m).len()).sum::<usize>(), 6884);
    assert!(ms.iter().all(|m| m.game == "cod2" && !m.open));
    assert_eq!(report.skipped_lines.len(), 1, "{:?}", report.skipped_lines);
}

#[test]
fn file_starting_mid_game_and_lines_after_shutdown() {
    let log = "  1:00 K;0;1;;B;0;0;;A;mp44_mp;50;MOD_RIFLE_BULLET;head
  2:00 ShutdownGame:
  2:01 K;0;1;;B;0;0;;A;mp44_mp;50;MOD_RIFLE_BULLET;head
";
    let (ms, report) = parse_bytes(log.as_bytes());
    assert_eq!(ms.len(), 1);
    assert!(ms[0].partial);
    assert_eq!(kills(&ms[0]), [k(K::Frag, "A", "B", "mp44_mp")]);
    assert_eq!(
        report.skipped_lines.values().map(|t| t.count).sum::<u64>(),
        1
    );
}

#[test]
fn malformed_lines_are_reported_with_guids_hidden() {
    let log = "  0:00 InitGame: \\g_gametype\\dm\\gamename\\Call of Duty 2
  0:01 K;316512;1;;B;0;0;;A;mp44_mp
  0:02 K;316512;x;;B;0;0;;A;mp44_mp;50;MOD_RIFLE_BULLET;head
  0:03 K;316512;5000;;B;0;0;;A;mp44_mp;50;MOD_RIFLE_BULLET;head
  0:04 J;316512;1
  0:05 SRKC;316512;1;B
garbage without a stamp
";
    let (ms, report) = parse_bytes(log.as_bytes());
    assert!(ms.is_empty());
    let all = format!("{report:?}");
    assert!(!all.contains("316512"), "{all}");
    assert_eq!(report.skipped_lines[&format!("{MALFORMED}: K")].count, 2);
    assert_eq!(report.skipped_lines[&format!("{MALFORMED}: J")].count, 1);
    assert_eq!(report.skipped_lines[SLOT_RANGE].count, 1);
    assert_eq!(report.skipped_lines["unknown line kind"].count, 1);
    assert_eq!(
        report.skipped_lines["corrupt line (no level-time stamp)"].count,
        1
    );
}

#[test]
fn sniffing() {
    for f in [
        "cod2-lan-2020-truncated1484k.log",
        "cod4-iclan-svr-games_mp.log",
        "cod4-lan-bozo-games_mp.log",
        "iw4x-mw2-hidenseek-games_mp.log",
    ] {
        let Some(head) = real_log(f) else {
            return;
        };
        let head = &head[..head.len().min(super::super::SNIFF_BYTES)];
        assert!(CallOfDuty.sniff(head), "{f}");
        assert!(
            matches!(super::super::detect(head), super::super::Detected::Parser(p) if p.name() == "callofduty"),
            "{f}"
        );
    }
    let q3 = "  0:00 InitGame: \\g_gametype\\0\\gamename\\baseq3\\mapname\\q3dm17\n  0:01 Kill: 1022 2 22: <world> killed A by MOD_TRIGGER_HURT\n";
    assert!(!CallOfDuty.sniff(q3.as_bytes()));
}

#[test]
fn resuming_at_a_checkpoint_gives_the_same_matches() {
    let Some(bytes) = real_log("iw4x-mw2-hidenseek-games_mp.log") else {
        return;
    };
    let (whole, _) = parse_bytes(&bytes);
    let source = Source {
        path: "games_mp.log".into(),
        file_index: 0,
    };
    // Parse the first half, take its checkpoint, resume from it with the whole file.
    let half = &bytes[..bytes.len() / 2];
    let mut report = FileReport::new("games_mp.log");
    let mut first = Vec::new();
    let mut input = half;
    let cp = CallOfDuty
        .parse(
            &mut input,
            &source,
            &mut report,
            &mut |m| first.push(m),
            None,
        )
        .unwrap()
        .unwrap();
    first.retain(|m| !m.open);
    assert_eq!(cp.state, b"iw4x");
    let mut report = cp.report.clone();
    let mut rest = Vec::new();
    let mut input = &bytes[cp.offset as usize..];
    CallOfDuty
        .parse(
            &mut input,
            &source,
            &mut report,
            &mut |m| rest.push(m),
            Some(&cp),
        )
        .unwrap();
    first.extend(rest);
    assert_eq!(first.len(), whole.len());
    for (a, b) in first.iter().zip(&whole) {
        assert_eq!((&a.id, &a.game, &a.players), (&b.id, &b.game, &b.players));
    }
}

#[test]
fn game_types_are_words() {
    // cod4-iclan's modes, CoD2's hq and ctf.
    for (raw, code, team) in [
        ("war", "tdm", true),
        ("sd", "sd", true),
        ("sab", "sab", true),
        ("dom", "dom", true),
        ("koth", "koth", true),
        ("dm", "dm", false),
        ("hq", "hq", true),
        ("ctf", "ctf", true),
    ] {
        let g = game_type(Some(raw));
        assert_eq!((g.code.as_str(), g.team_based), (code, team), "{raw}");
    }
    assert_eq!(game_type(None).code, "unknown");
    assert_eq!(game_type(Some("<b>x</b>")).code, "bxb");
    assert_eq!(game_of("Call of Duty 2"), "cod2");
    assert_eq!(game_of("Call of Duty 4"), "cod4");
    assert_eq!(game_of("IW4"), "iw4x");
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
        picks in proptest::collection::vec((0usize..20295, 0usize..200, proptest::bool::ANY), 0..300)
    ) {
        let Some(log) = real_log("cod2-lan-2020-truncated1484k.log") else {
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
