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
/// or slot and name where the GUID is empty or zeros; a GUID player is counted under the last
/// name it had in that game. Slot -1 or the victim's own slot: suicide. Same allies/axis side
/// outside `dm`: team kill.
pub fn cod_counts(bytes: &[u8]) -> HashMap<String, Tally> {
    let mut out: HashMap<String, Tally> = HashMap::new();
    // Per game: tallies per client key, and the latest name per key.
    let mut game: HashMap<String, Tally> = HashMap::new();
    let mut names: HashMap<String, String> = HashMap::new();
    let mut dm = false;
    let mut flush = |game: &mut HashMap<String, Tally>, names: &HashMap<String, String>| {
        for (key, t) in game.drain() {
            let e = out.entry(plain(&names[&key])).or_default();
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
