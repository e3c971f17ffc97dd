//! Independent, deliberately naive counts of the kill lines of Call of Duty and Enemy Territory
//! logs, by RANKING.md "What counts", to check the parsers against: per plain name, kills,
//! deaths, suicides and team kills.

use std::collections::HashMap;

/// Kills, deaths, suicides, team kills.
pub type Tally = [u32; 4];

/// A name without colour codes, trimmed (the site's rule).
pub use fragstats::model::names::plain_name as plain;

/// A line as text: UTF-8, else word by word Windows-1251 or Latin-1 (the rule the parsers
/// document; only the kill counting here is independent of them).
fn text(line: &[u8]) -> String {
    fragstats::parse::builder::decode(line).into_owned()
}

fn lines(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|b| *b == b'\n')
        .map(|l| text(l.strip_suffix(b"\r").unwrap_or(l)))
        .collect()
}

/// A Call of Duty `games_mp.log`: `K;` lines, victim first. Within a game a client is its GUID,
/// or slot and name where the GUID is empty or zeros. A GUID is one player across games (issue
/// 38), counted under the last name it had in the first game it played; the others under the
/// last name they had in each game. Slot -1 or the victim's own slot: suicide. Same allies/axis
/// side outside `dm`: team kill.
pub fn cod_counts(bytes: &[u8]) -> HashMap<String, Tally> {
    let mut out: HashMap<String, Tally> = HashMap::new();
    // Per game: tallies per client key, and the latest name per key.
    let mut game: HashMap<String, Tally> = HashMap::new();
    let mut names: HashMap<String, String> = HashMap::new();
    // Per GUID, the name it is counted under.
    let mut accounts: HashMap<String, String> = HashMap::new();
    let mut dm = false;
    let mut flush = |game: &mut HashMap<String, Tally>, names: &HashMap<String, String>| {
        let mut keys: Vec<String> = game.keys().cloned().collect();
        keys.sort();
        for key in keys {
            let t = game.remove(&key).unwrap_or_default();
            let name = plain(&names[&key]);
            let name = if key.contains('/') {
                name
            } else {
                accounts.entry(key).or_insert(name).clone()
            };
            let e = out.entry(name).or_default();
            for i in 0..4 {
                e[i] += t[i];
            }
        }
    };
    for line in lines(bytes) {
        let rest = line.trim_start();
        let Some((_, rest)) = rest.split_once(' ') else {
            continue;
        };
        if rest.starts_with("InitGame") {
            flush(&mut game, &names);
            names.clear();
            dm = rest.contains("\\g_gametype\\dm\\") || rest.ends_with("\\g_gametype\\dm");
            continue;
        }
        let f: Vec<&str> = rest.split(';').collect();
        if f[0] != "K" || f.len() != 13 {
            continue;
        }
        let key = |guid: &str, slot: &str, name: &str| {
            if guid.chars().all(|c| c == '0') {
                format!("{slot}/{}", plain(name))
            } else {
                guid.to_lowercase()
            }
        };
        let v = key(f[1], f[2], f[4]);
        names.insert(v.clone(), f[4].to_string());
        if f[6] == "-1" || f[6] == f[2] || (f[8].is_empty() && f[5].chars().all(|c| c == '0')) {
            let t = game.entry(v).or_default();
            t[1] += 1;
            t[2] += 1;
            continue;
        }
        let a = key(f[5], f[6], f[8]);
        names.insert(a.clone(), f[8].to_string());
        game.entry(v).or_default()[1] += 1;
        let same = !dm && (f[3] == "allies" || f[3] == "axis") && f[3] == f[7];
        game.entry(a).or_default()[if same { 3 } else { 0 }] += 1;
    }
    flush(&mut game, &names);
    out
}

/// An Enemy Territory console log: `Kill: A V M: … by MOD_X` anywhere in a line; a slot's name
/// and team come from its latest `ClientUserinfoChanged` (`n\`, `t\`: 1 axis, 2 allies).
/// `MOD_SWITCHTEAM` counts as nothing; killer = victim or 1022 (world): suicide.
/// A game log (`g_log`) line's level-time stamp (`  3:07 ` or ET: Legacy's ` 9509300 `) is
/// dropped first.
pub fn et_counts(bytes: &[u8]) -> HashMap<String, Tally> {
    let mut out: HashMap<String, Tally> = HashMap::new();
    let mut slots: HashMap<i64, (String, String)> = HashMap::new();
    for line in lines(bytes) {
        let stamp = line.trim_start().split(' ').next().unwrap_or("");
        let line = if !stamp.is_empty() && stamp.chars().all(|c| c.is_ascii_digit() || c == ':') {
            line.trim_start()[stamp.len()..].trim_start().to_string()
        } else {
            line
        };
        if let Some(p) = line.strip_prefix("ClientUserinfoChanged: ") {
            let (slot, info) = p.split_once(' ').unwrap();
            let parts: Vec<&str> = info.split('\\').collect();
            let (mut name, mut team) = (String::new(), String::new());
            for kv in parts.chunks(2) {
                match kv {
                    ["n", v] => name = plain(v),
                    ["t", v] => team = v.to_string(),
                    _ => {}
                }
            }
            slots.insert(slot.parse().unwrap(), (name, team));
        } else if let Some(p) = line.strip_prefix("ClientDisconnect: ") {
            slots.remove(&p.trim().parse::<i64>().unwrap());
        } else if let Some(i) = line.find("Kill: ") {
            let p = &line[i + 6..];
            if p.trim_end().ends_with("by MOD_SWITCHTEAM") {
                continue;
            }
            let nums: Vec<i64> = p
                .split(':')
                .next()
                .unwrap()
                .split_whitespace()
                .map(|n| n.parse().unwrap())
                .collect();
            let (k, v) = (nums[0], nums[1]);
            let Some((vname, vteam)) = slots.get(&v).cloned() else {
                continue;
            };
            if k == v || k == 1022 {
                let t = out.entry(vname).or_default();
                t[1] += 1;
                t[2] += 1;
                continue;
            }
            let Some((kname, kteam)) = slots.get(&k).cloned() else {
                continue;
            };
            out.entry(vname).or_default()[1] += 1;
            let same = (kteam == "1" || kteam == "2") && kteam == vteam;
            out.entry(kname).or_default()[if same { 3 } else { 0 }] += 1;
        }
    }
    out
}

/// An ET console log as its server's game log (`g_log`) would have written it: only the game
/// lines (a `Kill:` glued to another message on its own line), each after a Quake 3 style
/// level-time stamp (`%3i:%i%i`), two seconds apart from level time 100:00.
pub fn et_as_game_log(console: &[u8]) -> Vec<u8> {
    const GAME: [&str; 17] = [
        "InitGame:",
        "ShutdownGame:",
        "ClientConnect:",
        "Userinfo:",
        "ClientUserinfoChanged:",
        "ClientBegin:",
        "ClientDisconnect:",
        "Kill:",
        "Item:",
        "say:",
        "sayteam:",
        "Voice:",
        "Medic_Revive:",
        "Health_Pack:",
        "Ammo_Pack:",
        "WeaponStats:",
        "broadcast:",
    ];
    let mut out = Vec::new();
    let mut seconds = 6000;
    for line in console.split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let game = if GAME.iter().any(|k| line.starts_with(k.as_bytes())) {
            line
        } else if let Some(at) = line.windows(6).position(|w| w == b"Kill: ") {
            &line[at..]
        } else {
            continue;
        };
        let stamp = format!("{:3}:{}{} ", seconds / 60, seconds % 60 / 10, seconds % 10);
        out.extend_from_slice(stamp.as_bytes());
        out.extend_from_slice(game);
        out.push(b'\n');
        seconds += 2;
    }
    out
}

/// A Half-Life log player block's text (between its quotes): name, Steam id and team (lower
/// case). The block ends
/// in `<uid><authid><team>`, or in Left 4 Dead 2's eight groups (`<uid><authid><team><character>
/// <state><health><setpos ...><Area N>`); names may hold `<`, so the groups are taken from the
/// right.
fn hl_block(block: &str) -> Option<(String, String, String)> {
    let groups = if block.contains("><setpos") { 8 } else { 3 };
    let mut rest = block;
    let mut taken = Vec::new();
    for _ in 0..groups {
        let body = rest.strip_suffix('>')?;
        let open = body.rfind('<')?;
        taken.push(&body[open + 1..]);
        rest = &body[..open];
    }
    let (authid, team) = (taken[groups - 2], taken[groups - 3]);
    Some((
        rest.to_string(),
        authid.to_string(),
        team.to_ascii_lowercase(),
    ))
}

/// Who a Half-Life block names, by issue 38: a real Steam account (`STEAM_X:Y:Z` and `[U:1:N]`
/// alike, not the shared ids below 1000 nor Podbot's 12345), else the plain name; None for a
/// non-player (an empty id: Left 4 Dead's infected, entities) or the console.
fn hl_who(name: &str, authid: &str) -> Option<(String, String)> {
    if authid.is_empty() || authid == "Console" {
        return None;
    }
    let account = if let Some(r) = authid.strip_prefix("STEAM_") {
        let p: Vec<u64> = r.split(':').filter_map(|x| x.parse().ok()).collect();
        (p.len() == 3 && p[1] <= 1).then(|| p[2] * 2 + p[1])
    } else {
        authid
            .strip_prefix("[U:1:")
            .and_then(|r| r.strip_suffix(']'))
            .and_then(|n| n.parse().ok())
    };
    let key = match account {
        Some(a) if a >= 1000 && a != 24_690 => format!("#{a}"),
        _ => plain(name),
    };
    Some((key, plain(name)))
}

/// A Half-Life log: per player (a Steam account, else a plain name), kills, deaths, suicides and
/// team kills from its `killed` and `committed suicide` lines, by RANKING.md "What counts": a
/// kill of oneself is a suicide, a kill by a non-player (Left 4 Dead's horde, a trigger) the
/// victim's suicide, a kill of a non-player nothing; a kill of a player of the same side (the
/// block's team, both named and the same) a team kill. Also every name each player used.
pub fn hl_counts(bytes: &[u8]) -> HashMap<String, (Tally, std::collections::BTreeSet<String>)> {
    let mut out: HashMap<String, (Tally, std::collections::BTreeSet<String>)> = HashMap::new();
    for line in lines(bytes) {
        // The event after the frame: `L 02/12/2014 - 11:10:02: ` or CS2's `... 11:10:02.123 - `.
        let ev = if let Some(at) = line.find(": (DEATH)\"") {
            &line[at + 10..]
        } else if let Some(at) = line.find(": \"") {
            &line[at + 3..]
        } else if let Some(at) = line.find(" - \"") {
            &line[at + 4..]
        } else {
            continue;
        };
        let skip_pos = |s: &str| -> usize {
            // `"... [x y z] killed` (CS:GO) or `" killed` (others)
            s.find("\" killed \"")
                .or_else(|| s.find("] killed \""))
                .unwrap_or(usize::MAX)
        };
        let mut note = |who: &(String, String), i: usize| {
            let e = out.entry(who.0.clone()).or_default();
            if i < 4 {
                e.0[i] += 1;
            }
            e.1.insert(who.1.clone());
        };
        if let Some(k) = Some(skip_pos(ev)).filter(|&k| k != usize::MAX) {
            let killer_part = ev[..k].trim_end_matches(|c| c != '>');
            let victim_text = &ev[k..];
            let victim_text = &victim_text[victim_text.find("killed \"").unwrap() + 8..];
            let Some(end) = victim_text
                .rfind("\" with \"")
                .or_else(|| victim_text.rfind("\" ["))
            else {
                continue;
            };
            let victim_block = &victim_text[..end];
            let (Some((kn, ka, kt)), Some((vn, va, vt))) =
                (hl_block(killer_part), hl_block(victim_block))
            else {
                continue;
            };
            let (killer, victim) = (hl_who(&kn, &ka), hl_who(&vn, &va));
            let Some(victim) = victim else { continue };
            match killer {
                None => {
                    note(&victim, 1);
                    note(&victim, 2);
                }
                Some(killer) if killer.0 == victim.0 => {
                    note(&victim, 1);
                    note(&victim, 2);
                }
                Some(killer) => {
                    let sides = [
                        "red",
                        "blue",
                        "ct",
                        "terrorist",
                        "survivor",
                        "infected",
                        "t",
                    ];
                    let same = kt == vt && sides.contains(&kt.as_str());
                    note(&victim, 1);
                    note(&killer, if same { 3 } else { 0 });
                }
            }
        } else if let Some(s) = ev.find(" committed suicide with \"")
            && let Some((n, a, _)) = hl_block(ev[..s].trim_end_matches(|c| c != '>'))
            && let Some(who) = hl_who(&n, &a)
        {
            note(&who, 1);
            note(&who, 2);
        }
    }
    out
}
