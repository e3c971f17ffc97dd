//! Parser tests on real lines from `../shared/data/public/hl-*` (quoted) and the quirks SOURCES.md
//! lists.

use super::*;
use crate::model::EventKind as K;

fn parse_bytes(bytes: &[u8]) -> (Vec<Match>, FileReport) {
    crate::parse::testing::parse_with(&HalfLife, "test.log", bytes)
}

fn parse(text: &str) -> (Vec<Match>, FileReport) {
    parse_bytes(text.as_bytes())
}

#[test]
fn csgo_kill_with_positions() {
    let (m, _) = parse(
        "L 02/12/2014 - 11:09:36: Log file started (file \"logs/x.log\") (game \"/home/user/csgo/csgo\") (version \"5568\")\n\
         L 02/12/2014 - 11:10:02: \"Erik<164><BOT><TERRORIST>\" [-1032 314 128] killed \"Joe<3><BOT><CT>\" [-888 497 192] with \"sg556\" (headshot)\n",
    );
    assert_eq!(m.len(), 1);
    let kinds: Vec<K> = m[0].events.read().iter().map(|e| e.kind).collect();
    assert!(kinds.contains(&K::Frag));
    assert!(kinds.contains(&K::Headshot));
    assert_eq!(m[0].game, "csgo");
    assert_eq!(
        m[0].spots,
        [KillSpots {
            line: 2,
            killer: [-1032, 314, 128],
            victim: [-888, 497, 192],
            sides: [Team::Red, Team::Blue],
        }]
    );
}

/// TF2 gives the positions as properties (a line of `full_kothviaduct.log`); a kill with one
/// position only, or one that is not a number, keeps none; a world death none.
#[test]
fn tf2_kill_positions_from_properties() {
    let (m, _) = parse(
        "L 02/07/2011 - 18:25:57: Loading map \"koth_viaduct\"\n\
         L 02/07/2011 - 18:26:39: \"GrieVe<4><STEAM_0:1:16208935><Red>\" killed \"Barncow<3><STEAM_0:1:16481274><Blue>\" with \"sniperrifle\" (customkill \"headshot\") (attacker_position \"-1152 1070 384\") (victim_position \"-2194 -415 256\")\n\
         L 02/07/2011 - 18:26:40: \"GrieVe<4><STEAM_0:1:16208935><Red>\" killed \"Barncow<3><STEAM_0:1:16481274><Blue>\" with \"sniperrifle\" (attacker_position \"-1152 1070 384\")\n\
         L 02/07/2011 - 18:26:41: \"GrieVe<4><STEAM_0:1:16208935><Red>\" killed \"Barncow<3><STEAM_0:1:16481274><Blue>\" with \"sniperrifle\" (attacker_position \"x 1 2\") (victim_position \"1 2 3\")\n\
         L 02/07/2011 - 18:26:42: \"Barncow<3><STEAM_0:1:16481274><Blue>\" committed suicide with \"world\" (attacker_position \"1 2 3\")\n",
    );
    assert_eq!(m[0].map, "koth_viaduct");
    assert_eq!(
        m[0].spots,
        [KillSpots {
            line: 2,
            killer: [-1152, 1070, 384],
            victim: [-2194, -415, 256],
            sides: [Team::Red, Team::Blue],
        }]
    );
    assert_eq!(syntax::coordinates("1.5 -2.5 3"), Some([2, -3, 3]));
    assert_eq!(syntax::coordinates("1 2"), None);
    assert_eq!(syntax::coordinates("1 2 3 4"), None);
    assert_eq!(syntax::coordinates("1e300 0 0"), None);
    assert_eq!(syntax::position(" [1 2 3] killed"), Some([1, 2, 3]));
    assert_eq!(syntax::position(" killed"), None);
}

/// Every public Half-Life log (none, the test said skipped, without `../shared/data/public`).
fn public_logs() -> Vec<std::path::PathBuf> {
    let Some(root) = crate::testdata::shared("data/public") else {
        return Vec::new();
    };
    let mut files = Vec::new();
    for dir in ["hl-cs16", "hl-cs2", "hl-csgo", "hl-other", "hl-tf2"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        files.extend(entries.flatten().map(|e| e.path()));
    }
    files.sort();
    files
}

#[test]
fn summary_of_public_logs() {
    for path in public_logs() {
        let bytes = std::fs::read(&path).unwrap();
        let (matches, report) = parse_bytes(&bytes);
        eprintln!(
            "{}: {} matches, rounds {:?}, maps {:?}, games {:?}",
            path.file_name().unwrap().to_string_lossy(),
            matches.len(),
            matches.iter().map(|m| m.rounds.len()).collect::<Vec<_>>(),
            matches.iter().map(|m| m.map.as_str()).collect::<Vec<_>>(),
            matches
                .iter()
                .map(|m| (
                    m.game.as_str(),
                    m.gametype.code.as_str(),
                    m.partial,
                    m.open,
                    m.team_scores,
                    m.players.iter().filter(|p| p.active).count()
                ))
                .collect::<Vec<_>>(),
        );
        for (reason, t) in &report.skipped_lines {
            eprintln!("   skip {} x{}: {:?}", reason, t.count, t.examples.first());
        }
        for (reason, t) in &report.notes {
            eprintln!("   note {} x{}", reason, t.count);
        }
    }
}

/// Per player key: kills, deaths, suicides, team kills.
type Counts = std::collections::BTreeMap<String, [u32; 4]>;

/// A naive reading of a player block's text `Name<uid><authid><team>`: the last three `<`
/// pieces (Left 4 Dead's nine-field blocks, whose names hold no `<`: the first pieces). Gives
/// the name, authid and team.
fn naive_block(text: &str) -> (String, String, String) {
    let text = text.trim().trim_start_matches("(DEATH)").trim_matches('"');
    let field = |s: &str| s.trim_end_matches('>').to_string();
    if text.contains("<setpos") {
        let parts: Vec<&str> = text.split('<').collect();
        return (parts[0].to_string(), field(parts[2]), field(parts[3]));
    }
    let parts: Vec<&str> = text.rsplitn(4, '<').collect();
    (parts[3].to_string(), field(parts[1]), field(parts[0]))
}

/// The key a naive reader gives a player: the Steam account of a real id, else the name.
fn naive_key(name: &str, authid: &str) -> String {
    let account = if let Some(r) = authid.strip_prefix("STEAM_") {
        let p: Vec<u64> = r.split(':').filter_map(|x| x.parse().ok()).collect();
        (p.len() == 3).then(|| p[2] * 2 + p[1])
    } else {
        authid
            .strip_prefix("[U:1:")
            .map(|r| r.trim_end_matches(']').parse::<u64>().unwrap())
    };
    match account {
        Some(a) if a >= 1000 && a != 24_690 => format!("steam:{a}"),
        _ => format!("name:{name}"),
    }
}

/// `text` without a trailing ` [x y z]`.
fn strip_pos(text: &str) -> &str {
    match text.rsplit_once(" [") {
        Some((head, _)) if text.ends_with(']') => head,
        _ => text,
    }
}

/// Kills, deaths, suicides and team kills per player, counted straight from the kill and suicide
/// lines of a file, with none of the parser's code.
fn naive_counts(bytes: &[u8]) -> Counts {
    let mut out = Counts::new();
    let text = String::from_utf8_lossy(bytes);
    for raw in text.lines() {
        // The event after `L MM/DD/YYYY - HH:MM:SS: ` or `MM/DD/YYYY - HH:MM:SS.mmm - `.
        let Some(i) = raw
            .find(": \"")
            .or_else(|| raw.find(" - \""))
            .or_else(|| raw.find(": (DEATH)\""))
        else {
            continue;
        };
        let ev = &raw[i + 2..];
        if let Some((left, right)) = ev.split_once(" killed \"") {
            let (an, aa, at) = naive_block(strip_pos(left));
            let right = right.rsplit_once(" with \"").unwrap().0;
            let right = strip_pos(right);
            let (vn, va, vt) = naive_block(right);
            if va.is_empty() {
                continue; // common infected killed
            }
            if aa.is_empty() {
                // Killed by the horde: the victim's suicide.
                out.entry(naive_key(&vn, &va)).or_default()[2] += 1;
                continue;
            }
            let (ak, vk) = (naive_key(&an, &aa), naive_key(&vn, &va));
            if ak == vk {
                out.entry(ak).or_default()[2] += 1;
            } else if !at.is_empty() && at == vt && at != "Unassigned" && at != "Spectator" {
                out.entry(ak).or_default()[3] += 1;
                out.entry(vk).or_default()[1] += 1;
            } else {
                out.entry(ak).or_default()[0] += 1;
                out.entry(vk).or_default()[1] += 1;
            }
        } else if let Some((left, _)) = ev.split_once(" committed suicide with \"") {
            let (n, a, _) = naive_block(strip_pos(left));
            if !a.is_empty() {
                out.entry(naive_key(&n, &a)).or_default()[2] += 1;
            }
        }
    }
    out.retain(|_, c| c.iter().any(|n| *n > 0));
    out
}

/// The same counts from the parser's matches, keyed as [`naive_key`] does (hashed Steam ids are
/// matched through their accounts).
fn parsed_counts(matches: &[Match], accounts: &[String]) -> Counts {
    let by_hash: HashMap<u64, &String> = accounts
        .iter()
        .map(|k| {
            let a: u64 = k["steam:".len()..].parse().unwrap();
            let mut h = Hasher::new();
            h.str("steam");
            h.u64(a);
            (h.finish(), k)
        })
        .collect();
    let mut out = Counts::new();
    for m in matches {
        let key = |i: u32| {
            let p = &m.players[i as usize];
            match p.uid {
                Some(u) => by_hash
                    .get(&u)
                    .map(|k| k.to_string())
                    .unwrap_or(format!("uid:{u}")),
                None => format!("name:{}", p.name),
            }
        };
        for e in m.events.read().iter() {
            match e.kind {
                K::Frag => {
                    out.entry(key(e.actor)).or_default()[0] += 1;
                    out.entry(key(e.target)).or_default()[1] += 1;
                }
                K::TeamKill => {
                    out.entry(key(e.actor)).or_default()[3] += 1;
                    out.entry(key(e.target)).or_default()[1] += 1;
                }
                K::Suicide => out.entry(key(e.actor)).or_default()[2] += 1,
                _ => {}
            }
        }
    }
    out
}

/// Issue 16's proof: for every public Half-Life log, every player's kills, deaths, suicides and
/// team kills equal a naive count of the file's kill lines.
#[test]
fn every_public_log_counts_like_a_naive_reader() {
    for path in public_logs() {
        let bytes = std::fs::read(&path).unwrap();
        let naive = naive_counts(&bytes);
        let (matches, _) = parse_bytes(&bytes);
        let accounts: Vec<String> = naive
            .keys()
            .filter(|k| k.starts_with("steam:"))
            .cloned()
            .collect();
        let parsed = parsed_counts(&matches, &accounts);
        assert_eq!(parsed, naive, "{}", path.display());
    }
}

/// A public log by name (None, the test skipped and said so, when `../shared` is absent).
fn public(name: &str) -> Option<(Vec<Match>, FileReport)> {
    let path = public_logs()
        .into_iter()
        .find(|p| p.file_name().is_some_and(|f| f == name))?;
    Some(parse_bytes(&std::fs::read(path).unwrap()))
}

fn player<'a>(m: &'a Match, name: &str) -> &'a MatchPlayer {
    m.players.iter().find(|p| p.name == name).unwrap()
}

fn count(m: &Match, kind: K) -> usize {
    m.events.read().iter().filter(|e| e.kind == kind).count()
}

fn skipped(r: &FileReport, reason: &str) -> u64 {
    r.skipped_lines.get(reason).map_or(0, |t| t.count)
}

/// granary begins with a UTF-8 BOM before its first `L`: that line (which names the game) is read.
#[test]
fn quirk_bom_before_first_line() {
    let Some((m, r)) = public("full_1123dwidgranary.log") else {
        return;
    };
    assert_eq!(m[0].game, "tf2");
    assert_eq!(skipped(&r, NO_FRAME), 0);
}

/// crazychar: CRLF endings, byte 0xAB in names (not UTF-8), last line without a newline.
#[test]
fn quirk_crlf_latin1_and_no_final_newline() {
    let Some((m, r)) = public("full_crazychar.log") else {
        return;
    };
    assert_eq!(r.lines, 535);
    assert_eq!(r.skipped_line_count(), 0, "{:?}", r.skipped_lines);
    // Read as Latin-1, as the other parsers read a line that is not UTF-8: `«`, not U+FFFD.
    assert!(m[0].players.iter().any(|p| p.name.starts_with("« ")));
    assert!(m[0].players.iter().all(|p| !p.name.contains('\u{FFFD}')));
    // The doubled quotes of `say ""-- PUSH CONFIG LOADED --""` are chat: no player `Console`.
    assert!(m[0].players.iter().all(|p| p.name != "Console"));
}

/// mini_truncated_corrupt: the last line stops mid-stamp; the match is left open.
#[test]
fn quirk_cut_off_last_line() {
    let Some((m, r)) = public("mini_truncated_corrupt.log") else {
        return;
    };
    assert_eq!(skipped(&r, CUT_OFF), 1);
    assert_eq!(r.skipped_lines[CUT_OFF].examples[0].line, 45);
    assert!(m[0].open);
}

/// `World triggered "Game_Over" reason "Reached Win Limit"`: a property without parentheses.
#[test]
fn quirk_game_over_reason_without_parentheses() {
    let Some((m, _)) = public("full_crazychar.log") else {
        return;
    };
    assert_eq!(m[0].exit_reason.as_deref(), Some("Reached Win Limit"));
}

/// CS:GO: positions between block and verb, a three-field block in `switched from team`, bots
/// `<BOT>`, no map line.
#[test]
fn quirk_csgo_positions_three_field_blocks_bots() {
    let Some((m, r)) = public("csgo-bots-20140212-1109.log") else {
        return;
    };
    assert_eq!(m.len(), 1);
    assert_eq!(count(&m[0], K::Frag), 229);
    assert_eq!(count(&m[0], K::Headshot), 96);
    assert_eq!(count(&m[0], K::Assist), 51);
    assert_eq!(m[0].map, "(unknown)");
    assert_eq!(m[0].rounds.len(), 30);
    assert_eq!(m[0].team_scores, Some([16, 14]));
    let erik = player(&m[0], "Erik");
    assert!(erik.bot && erik.uid.is_none());
    // The half-time swap is logged only as `"Erik<164><BOT>" switched from team <TERRORIST> to
    // <CT>` (a three-field block): Erik's change to CT (blue) comes from that line.
    let i = m[0].players.iter().position(|p| p.name == "Erik").unwrap() as u32;
    let change = m[0]
        .events
        .read()
        .iter()
        .find(|e| e.actor == i && e.kind == K::TeamChange(Team::Blue))
        .copied()
        .unwrap();
    let path = public_logs()
        .into_iter()
        .find(|p| p.ends_with("csgo-bots-20140212-1109.log"))
        .unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let line = text.lines().nth(change.line as usize - 1).unwrap();
    assert!(
        line.contains("\"Erik<164><BOT>\" switched from team <TERRORIST> to <CT>"),
        "{line}"
    );
    assert_eq!(skipped(&r, MALFORMED), 0);
}

/// The 4096-byte CS:GO file: joins and purchases, no kills: no match, nothing skipped.
#[test]
fn quirk_truncated_4k_file() {
    let Some((m, r)) = public("csgo-bots-20140213-1912-truncated4k.log") else {
        return;
    };
    assert!(m.is_empty());
    assert_eq!(r.skipped_line_count(), 0);
}

/// CS 1.6: five logs in one file (one without `Log file closed`, the last without a newline),
/// bots whose ids change (`<BOT>`, `<STEAM_ID_LAN>`, all sharing `<STEAM_0:0:12345>`), a human
/// who reconnects with a new uid.
#[test]
fn quirk_cs16_concatenated_logs_and_bot_ids() {
    let Some((m, r)) = public("cs16-podbot-lan-2013-L0000000.log") else {
        return;
    };
    assert_eq!(m.len(), 5);
    assert!(
        m.iter()
            .all(|m| m.map == "de_dust2" && m.game == "cs16" && !m.open)
    );
    let rounds: Vec<usize> = m.iter().map(|m| m.rounds.len()).collect();
    assert_eq!(rounds.iter().sum::<usize>(), 29 + 20 + 22 + 8 + 1);
    // The last log's bots all share STEAM_0:0:12345 and stay apart.
    let last = &m[4];
    assert!(last.active_players().count() >= 9);
    assert!(last.players.iter().all(|p| p.bot && p.uid.is_none()));
    // Blah<8> and Blah<15> are one player with one Steam account.
    let blah: Vec<&MatchPlayer> = m
        .iter()
        .flat_map(|m| &m.players)
        .filter(|p| p.name == "Blah")
        .collect();
    assert!(!blah.is_empty());
    assert!(
        blah.iter()
            .all(|p| p.uid == blah[0].uid && p.uid.is_some() && !p.bot)
    );
    assert_eq!(
        m.iter()
            .filter(|m| m.players.iter().filter(|p| p.name == "Blah").count() > 1)
            .count(),
        0
    );
    // The plugin and `Bad Rcon` lines are known; nothing is malformed.
    assert_eq!(
        skipped(&r, MALFORMED) + skipped(&r, UNKNOWN),
        0,
        "{:?}",
        r.skipped_lines
    );
    assert_eq!(
        r.notes
            .get("match closed by the next log file")
            .map(|t| t.count),
        Some(1)
    );
    // Planted 44 times, 22 exploded, 8 defused.
    let flags = |a: FlagAction| {
        m.iter()
            .map(|m| {
                m.events
                    .read()
                    .iter()
                    .filter(|e| matches!(e.kind, K::Flag(x, _) if x == a))
                    .count()
            })
            .sum::<usize>()
    };
    assert_eq!(flags(FlagAction::BombPlant), 44);
    assert_eq!(flags(FlagAction::BombExplode), 22);
    assert_eq!(flags(FlagAction::BombDefuse), 8);
}

/// CS2 HTTP frame, `<<none>>` ids, a bomb death logged twice, rounds with winners, warm-up after.
#[test]
fn quirk_cs2_http_frame_and_bomb_death() {
    let Some((m, r)) = public("cs2-dathost-http-20240109.log") else {
        return;
    };
    assert_eq!(m.len(), 1);
    let m = &m[0];
    assert_eq!((m.game.as_str(), m.map.as_str()), ("cs2", "de_dust2"));
    assert_eq!(m.rounds.len(), 15);
    // CT (blue) won the first ten rounds; after the half-time swap, T (red) won the rest.
    assert_eq!(
        m.rounds.iter().filter(|r| r.winner == Team::Blue).count(),
        10
    );
    assert_eq!(m.rounds[0].how, "SFUI_Notice_CTs_Win");
    assert_eq!(m.team_scores, Some([13, 2]));
    assert!(m.exit_reason.as_deref().unwrap().contains("score 2:13"));
    // `was killed by the bomb.` then `committed suicide with "world"`: one suicide.
    let bw = m
        .players
        .iter()
        .position(|p| p.name == "Blackwolf")
        .unwrap() as u32;
    assert_eq!(
        m.events
            .read()
            .iter()
            .filter(|e| e.kind == K::Suicide && e.actor == bw)
            .count(),
        1
    );
    assert!(m.players.iter().all(|p| p.name != "Maximus" || p.bot));
    assert_eq!(skipped(&r, MALFORMED), 0);
}

/// ctf_doublecross: `Game_Over` twice with a `Round_Win` after the first: one match; flag events.
#[test]
fn quirk_tf2_double_game_over_and_flags() {
    let Some((m, _)) = public("full_ctfdoublecross.log") else {
        return;
    };
    assert_eq!(m.len(), 1);
    let caps = m[0]
        .events
        .read()
        .iter()
        .filter(|e| matches!(e.kind, K::Flag(FlagAction::Capture, _)))
        .count();
    assert_eq!(caps, 9);
    assert_eq!(m[0].rounds.len(), 1);
    assert_eq!(m[0].rounds[0].winner, Team::Blue);
}

/// log_2788889: no map line, `Log file closed.` with a full stop, `[U:1:N]` ids, a `due to
/// mp_windifference` tail, text lines without a frame (`Blue Team: BLU`).
#[test]
fn quirk_tf2_logs_tf_era() {
    let Some((m, r)) = public("log_2788889.log") else {
        return;
    };
    assert_eq!(m.len(), 1);
    assert!(!m[0].open && m[0].map == "(unknown)");
    assert!(
        m[0].players
            .iter()
            .filter(|p| p.active)
            .all(|p| p.uid.is_some())
    );
    assert_eq!(skipped(&r, NO_FRAME), 2);
    assert_eq!(
        skipped(&r, UNKNOWN) + skipped(&r, MALFORMED),
        0,
        "{:?}",
        r.skipped_lines
    );
}

/// bball: a finished match 10 s into the file, then a second whole match.
#[test]
fn quirk_tf2_two_matches_in_one_file() {
    let Some((m, _)) = public("log_bball.log") else {
        return;
    };
    assert_eq!(m.len(), 2);
    assert_eq!(m[0].team_scores, Some([25, 13]));
    assert!(m[1].duration_seconds > 600);
}

/// koth_viaduct: players who rename keep their identity (one entry per Steam account).
#[test]
fn quirk_tf2_renames_keep_identity() {
    let Some((m, _)) = public("full_kothviaduct.log") else {
        return;
    };
    let mut uids: Vec<u64> = m[0].players.iter().filter_map(|p| p.uid).collect();
    let n = uids.len();
    uids.sort();
    uids.dedup();
    assert_eq!(uids.len(), n);
}

/// Left 4 Dead 2: nine-field blocks with `(DEATH)`, common infected (empty id) not players, a
/// TAB-indented continuation line reported.
#[test]
fn quirk_l4d2_nine_field_blocks() {
    let Some((m, r)) = public("l4d2-L127_000_001_001_27018_201305091731_001.log") else {
        return;
    };
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].game, "l4d2");
    assert_eq!(skipped(&r, NPC), 796);
    assert!(m[0].players.iter().all(|p| p.name != "infected"));
    let ws = player(&m[0], "wintersong");
    assert!(!ws.bot && ws.uid.is_some());
    let unknown = &r.skipped_lines[UNKNOWN];
    assert!(unknown.examples.iter().any(|e| e.text.starts_with('\t')) || unknown.count > 0);
}

/// Steam ids never reach a report: examples are redacted.
#[test]
fn steam_ids_are_redacted_in_diagnostics() {
    let (_, r) = parse("L 08/05/2013 - 20:50:00: \"Blah<8><STEAM_0:0:67410624><CT>\" killed\n");
    let text = format!("{:?}", r);
    assert!(!text.contains("67410624"), "{text}");
}

/// Resuming from the last checkpoint (after a `Log file closed` or a match end) gives the same
/// matches as reading the whole file, for every public log.
#[test]
fn resuming_from_a_checkpoint_gives_the_same_matches() {
    let source = Source {
        path: "test.log".into(),
        file_index: 0,
    };
    for path in public_logs() {
        let bytes = std::fs::read(&path).unwrap();
        let mut report = FileReport::new("test.log");
        let mut whole = Vec::new();
        let mut input = &bytes[..];
        let checkpoint = HalfLife
            .parse(
                &mut input,
                &source,
                &mut report,
                &mut |m| whole.push(m),
                None,
            )
            .unwrap();
        let Some(c) = checkpoint else { continue };
        let mut resumed_report = c.report.clone();
        let mut rest = Vec::new();
        let mut input = &bytes[c.offset as usize..];
        HalfLife
            .parse(
                &mut input,
                &source,
                &mut resumed_report,
                &mut |m| rest.push(m),
                Some(&c),
            )
            .unwrap();
        assert_eq!(rest[..], whole[c.matches..], "{}", path.display());
        assert_eq!(resumed_report, report, "{}", path.display());
    }
}

/// The frame and an attacker block of common infected, both from line 141 of the Left 4 Dead 2
/// log, and the human's block from its line 1289 (`was incapped by`), marked dead. The file has
/// no survivor killed by the horde; a real server writes the kill as the infected's kills of
/// each other are written (line 141), with the survivor as the object.
const L4D2_INFECTED: &str = "L 05/09/2013 - 17:33:20: (DEATH)\"infected<80><><Infected><infected><ALIVE><6><setpos_exact 5808.03 -1898.41 24.03; setang 0.00 224.10 0.00><Area 82076>\"";
const L4D2_WINTERSONG: &str = "\"wintersong<2><STEAM_1:1:40994333><Survivor><Coach><DEAD><0+0><setpos_exact 4515.68 -2739.46 62.03; setang 9.64 -3.64 0.00><Area 321642>\"";

/// Issue 38: a survivor killed by the horde dies by suicide (RANKING.md, "What counts"), with
/// the weapon named; the infected's kills of each other stay skipped.
#[test]
fn l4d2_horde_death_is_the_victims_suicide() {
    let text = format!(
        "{L4D2_INFECTED} killed {L4D2_WINTERSONG} with \"infected\"\n\
         L 05/09/2013 - 17:33:20: (DEATH)\"infected<80><><Infected><infected><ALIVE><6><setpos_exact 5808.03 -1898.41 24.03; setang 0.00 224.10 0.00><Area 82076>\" killed \"infected<398><><Infected><infected><DEAD><-2><setpos_exact 5788.74 -1917.06 12.03; setang 0.00 44.15 0.00><Area 81940>\" with \"infected\"\n"
    );
    let (m, r) = parse(&text);
    assert_eq!(m.len(), 1);
    let ws = player(&m[0], "wintersong");
    assert!(ws.active && ws.uid.is_some());
    let deaths: Vec<Event> = m[0]
        .events
        .read()
        .iter()
        .filter(|e| e.kind == K::Suicide)
        .copied()
        .collect();
    assert_eq!(deaths.len(), 1);
    assert_eq!(m[0].weapons[deaths[0].detail as usize], "infected");
    assert_eq!(deaths[0].line, 1);
    assert_eq!(count(&m[0], K::Frag), 0);
    assert!(m[0].players.iter().all(|p| p.name != "infected"));
    assert_eq!(skipped(&r, NPC), 1);
    assert_eq!(r.skipped_lines[NPC].examples[0].line, 2);
}

/// A killer with no weapon (the witch's `with ""`, as in the log's line 1836) or no player block
/// at all (`"trigger_hurt" killed`): the weapon is the killer's name.
#[test]
fn death_by_an_entity_is_named_after_it() {
    let witch = "L 05/09/2013 - 17:55:53: (DEATH)\"witch<180><><Infected><witch><ALIVE><68><setpos_exact 868.51 -1557.75 280.03; setang 0.00 198.79 0.00><Area 190843>\"";
    let text = format!(
        "{witch} killed {L4D2_WINTERSONG} with \"\"\n\
         L 05/09/2013 - 17:56:10: \"trigger_hurt\" killed \"Rochelle<130><BOT><Survivor><Producer><DEAD><0+0><setpos_exact 632.25 -4097.97 342.97; setang 32.78 37.83 0.00><Area 6423>\"\n\
         L 08/05/2013 - 20:51:30: \"worldspawn<0><><>\" killed \"Blah<8><STEAM_0:0:67410624><CT>\" with \"world\"\n"
    );
    let (m, r) = parse(&text);
    assert_eq!(r.skipped_line_count(), 0, "{:?}", r.skipped_lines);
    let weapons: Vec<&str> = m
        .iter()
        .flat_map(|m| {
            m.events
                .read()
                .iter()
                .filter(|e| e.kind == K::Suicide)
                .map(|e| m.weapons[e.detail as usize].as_str())
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(weapons, ["witch", "trigger_hurt", "world"]);
    assert!(m.iter().all(|m| m.players.iter().all(|p| p.active)));
}

/// Issue 38: the CS 1.6 log `L0805066` has no `Log file closed` and the next file starts eight
/// days later: the match ends with its last line of play, not with the next file's first line.
/// Per match: start, length (the played span), rounds.
#[test]
fn cs16_log_without_close_ends_with_its_play() {
    let Some((m, _)) = public("cs16-podbot-lan-2013-L0000000.log") else {
        return;
    };
    let got: Vec<(String, u32, usize)> = m
        .iter()
        .map(|m| {
            (
                m.start.unwrap().to_string(),
                m.duration_seconds,
                m.rounds.len(),
            )
        })
        .collect();
    // To the last kill or round, not to `Log file closed` (10 s later in each closed file).
    let want = [
        ("2013-08-05 20:50:00", 2130, 24),
        ("2013-08-05 21:25:41", 2127, 19),
        // L0805066: its last kill is at 22:25:50 (line 1432); it was 722,489 s (200 hours).
        ("2013-08-05 22:01:19", 1471, 12),
        ("2013-08-14 06:42:48", 1229, 13),
        ("2013-08-14 08:26:01", 1229, 12),
    ];
    let want: Vec<(String, u32, usize)> = want
        .iter()
        .map(|(s, d, r)| (s.to_string(), *d, *r))
        .collect();
    assert_eq!(got, want);
    assert!(m.iter().all(|m| m.duration_seconds < 6 * 3600 && !m.open));
}

/// The opening of a TF2 match (`full_kothviaduct.log`-style lines) with two players.
const TF2_OPEN: &str = "L 02/07/2011 - 18:26:21: Log file started (file \"logs/L0207000.log\") (game \"/home/tf2/orangebox/tf\") (version \"4426\")\n\
L 02/07/2011 - 18:26:21: Loading map \"koth_viaduct\"\n\
L 02/07/2011 - 18:26:40: \"Ant<2><STEAM_0:1:16481274><>\" connected, address \"0.0.0.0:27005\"\n\
L 02/07/2011 - 18:26:41: \"Bee<3><STEAM_0:0:11692450><>\" connected, address \"0.0.0.0:27005\"\n\
L 02/07/2011 - 18:26:45: \"Ant<2><STEAM_0:1:16481274><Unassigned>\" joined team \"Red\"\n\
L 02/07/2011 - 18:26:46: \"Bee<3><STEAM_0:0:11692450><Unassigned>\" joined team \"Blue\"\n";

/// Four rounds, each a kill and a win, 3:3 at the end (`current score` lines after each).
fn tf2_four_rounds() -> String {
    let mut t = String::from(TF2_OPEN);
    let scores = [(1, 0), (2, 1), (3, 2), (3, 3)];
    for (r, (red, blue)) in scores.iter().enumerate() {
        let min = 30 + r * 5;
        let (k, v, winner) = if r % 2 == 0 {
            (
                "Ant<2><STEAM_0:1:16481274><Red>",
                "Bee<3><STEAM_0:0:11692450><Blue>",
                "Red",
            )
        } else {
            (
                "Bee<3><STEAM_0:0:11692450><Blue>",
                "Ant<2><STEAM_0:1:16481274><Red>",
                "Blue",
            )
        };
        t += &format!(
            "L 02/07/2011 - 18:{min}:00: \"{k}\" killed \"{v}\" with \"scattergun\" (attacker_position \"1 2 3\") (victim_position \"4 5 6\")\n\
             L 02/07/2011 - 18:{min}:30: World triggered \"Round_Win\" (winner \"{winner}\")\n\
             L 02/07/2011 - 18:{min}:30: Team \"Red\" current score \"{red}\" with \"1\" players\n\
             L 02/07/2011 - 18:{min}:30: Team \"Blue\" current score \"{blue}\" with \"1\" players\n"
        );
    }
    t
}

/// Issue 38: a TF2 server that empties after a match of 4 rounds (3:3) and then logs a
/// `Round_Win` and 0:0 scores `with "0" players` every few minutes for a week: the match keeps
/// its 4 rounds, its 3:3, and lasts to the last player's leave.
#[test]
fn tf2_server_idling_for_a_week_after_its_match() {
    let mut t = tf2_four_rounds();
    t += "L 02/07/2011 - 18:46:00: \"Bee<3><STEAM_0:0:11692450><Blue>\" disconnected (reason \"Disconnect by user.\")\n\
          L 02/07/2011 - 18:47:10: \"Ant<2><STEAM_0:1:16481274><Red>\" disconnected (reason \"Disconnect by user.\")\n";
    let start = chrono::NaiveDate::from_ymd_opt(2011, 2, 7)
        .unwrap()
        .and_hms_opt(18, 50, 0)
        .unwrap();
    for i in 0..7 * 24 * 12 {
        let at = (start + chrono::Duration::minutes(5 * i)).format("%m/%d/%Y - %H:%M:%S");
        t += &format!(
            "L {at}: World triggered \"Round_Win\" (winner \"Red\")\n\
             L {at}: Team \"Red\" current score \"0\" with \"0\" players\n\
             L {at}: Team \"Blue\" current score \"0\" with \"0\" players\n"
        );
    }
    let (m, r) = parse(&t);
    assert_eq!(m.len(), 1);
    let m = &m[0];
    assert_eq!(m.rounds.len(), 4);
    assert_eq!(m.team_scores, Some([3, 3]));
    // From the map's start (18:26:21) to the last leave (18:47:10).
    assert_eq!(m.start.unwrap().to_string(), "2011-02-07 18:26:21");
    assert_eq!(m.duration_seconds, 20 * 60 + 49);
    assert!(!m.open);
    assert_eq!(
        r.notes
            .get("match ended: the server emptied")
            .map(|t| t.count),
        Some(1)
    );
    // Someone comes back a week later and plays: a new match, from their arrival.
    let mut back = t.clone();
    back += "L 02/14/2011 - 20:00:00: \"Ant<4><STEAM_0:1:16481274><>\" connected, address \"0.0.0.0:27005\"\n\
             L 02/14/2011 - 20:00:05: \"Ant<4><STEAM_0:1:16481274><Unassigned>\" joined team \"Red\"\n\
             L 02/14/2011 - 20:03:00: \"Ant<4><STEAM_0:1:16481274><Red>\" committed suicide with \"world\"\n";
    let (m2, _) = parse(&back);
    assert_eq!(m2.len(), 2);
    assert_eq!(m2[0], *m, "the emptied match does not change");
    assert_eq!(m2[1].start.unwrap().to_string(), "2011-02-14 20:00:00");
    assert_eq!(m2[1].duration_seconds, 180);
    assert!(m2[1].rounds.is_empty() && m2[1].team_scores.is_none());
    assert!(m2[1].open && !m2[1].partial);
}

/// A player who leaves and comes back while others stay (CS 1.6 `Blah<8>` -> `Blah<15>`, same
/// Steam id) does not end the match.
#[test]
fn a_reconnect_while_others_play_keeps_the_match() {
    let mut t = tf2_four_rounds();
    let four = t.len();
    t.insert_str(
        four,
        "L 02/07/2011 - 18:50:00: \"Bee<3><STEAM_0:0:11692450><Blue>\" disconnected (reason \"timed out\")\n\
         L 02/07/2011 - 18:50:20: \"Bee<9><STEAM_0:0:11692450><>\" connected, address \"0.0.0.0:27005\"\n\
         L 02/07/2011 - 18:50:30: \"Bee<9><STEAM_0:0:11692450><Unassigned>\" joined team \"Blue\"\n\
         L 02/07/2011 - 18:52:00: \"Bee<9><STEAM_0:0:11692450><Blue>\" killed \"Ant<2><STEAM_0:1:16481274><Red>\" with \"scattergun\"\n",
    );
    let (m, _) = parse(&t);
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].rounds.len(), 4);
    assert_eq!(count(&m[0], K::Frag), 5);
    assert_eq!(m[0].players.len(), 2);
}

/// Issue 38: a CS log cut inside a match (no `Log file closed`, no next map): the match ends
/// with the file's last line of play and stays open (the file may go on).
#[test]
fn cs_log_cut_mid_match_ends_at_the_end_of_file() {
    let Some(path) = public_logs()
        .into_iter()
        .find(|p| p.ends_with("cs16-podbot-lan-2013-L0000000.log"))
    else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    // The first log file up to its line 400 (20:50:00 ... inside its 14th round).
    let cut: String = text.lines().take(400).map(|l| format!("{l}\n")).collect();
    let last = text.lines().nth(399).unwrap();
    let (m, _) = parse(&cut);
    assert_eq!(m.len(), 1);
    assert!(m[0].open);
    let (whole, _) = public("cs16-podbot-lan-2013-L0000000.log").unwrap();
    assert_eq!(m[0].id, whole[0].id, "same opening, same id");
    assert!(m[0].rounds.len() < whole[0].rounds.len());
    let played = *m[0].events.read().last().unwrap();
    assert!(played.line <= 400, "{last}");
    assert_eq!(
        m[0].duration_seconds,
        played.time.max(m[0].rounds.last().unwrap().end)
    );
}
