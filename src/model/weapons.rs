//! Readable weapon names: a log's raw weapon (`ak47`, `tf_projectile_rocket`, `MOD_RAILGUN`)
//! to a label for pages (`AK-47`, `Rocket`). One table per game family behind
//! [`weapon_label`]; a name no table knows is shown as written.

use std::borrow::Cow;

/// The label of weapon `raw` as game `game` ([`super::Match::game`]) logs it. With an empty
/// game (totals over several games), every table is tried in turn. Quake 3 family means of death
/// (`MOD_ROCKET_SPLASH`) read as words (`Rocket splash`).
pub fn weapon_label<'a>(game: &str, raw: &'a str) -> Cow<'a, str> {
    let label = match game {
        "cs16" | "css" | "csgo" | "cs2" => counter_strike(raw),
        "tf2" => team_fortress(raw),
        "l4d2" => left4dead(raw),
        "cod" | "cod2" | "cod4" | "iw4x" | "codwaw" => crate::parse::cod::weapon_label(raw),
        "et" => crate::parse::et::weapon_label(raw),
        "" => counter_strike(raw)
            .or_else(|| team_fortress(raw))
            .or_else(|| left4dead(raw))
            // Call of Duty weapons end in `_mp`; its and ET's `MOD_` names would clash with
            // Quake 3's (`MOD_MACHINEGUN`), which read as words below.
            .or_else(|| {
                raw.ends_with("_mp")
                    .then(|| crate::parse::cod::weapon_label(raw))
                    .flatten()
            }),
        _ => None,
    };
    match label {
        Some(l) => Cow::Borrowed(l),
        None if raw.starts_with("MOD_") || raw.starts_with("UT_MOD_") => {
            Cow::Owned(quake_style(raw))
        }
        None => Cow::Borrowed(raw),
    }
}

/// `MOD_ROCKET_SPLASH` -> `Rocket splash`.
fn quake_style(raw: &str) -> String {
    let s = raw
        .strip_prefix("UT_MOD_")
        .or_else(|| raw.strip_prefix("MOD_"))
        .unwrap_or(raw);
    let lower = s.replace('_', " ").to_lowercase();
    let mut chars = lower.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => raw.to_string(),
    }
}

/// Counter-Strike 1.6 to CS2 (bare names; CS:GO and CS2 also `weapon_` prefixed in some lines).
fn counter_strike(raw: &str) -> Option<&'static str> {
    let w = raw.strip_prefix("weapon_").unwrap_or(raw);
    Some(match w {
        "ak47" => "AK-47",
        "m4a1" => "M4A1",
        "m4a1_silencer" | "m4a1_silencer_off" => "M4A1-S",
        "m4a4" => "M4A4",
        "awp" => "AWP",
        "deagle" => "Desert Eagle",
        "usp" | "usp_silencer" | "usp_silencer_off" => "USP-S",
        "glock" | "glock18" => "Glock-18",
        "p228" => "P228",
        "p250" => "P250",
        "fiveseven" => "Five-SeveN",
        "elite" => "Dual Berettas",
        "hkp2000" => "P2000",
        "tec9" => "Tec-9",
        "cz75a" => "CZ75-Auto",
        "revolver" => "R8 Revolver",
        "famas" => "FAMAS",
        "galil" | "galilar" => "Galil AR",
        "aug" => "AUG",
        "sg552" => "SG 552",
        "sg556" => "SG 553",
        "scout" => "Scout",
        "ssg08" => "SSG 08",
        "g3sg1" => "G3SG1",
        "sg550" => "SG 550",
        "scar20" => "SCAR-20",
        "mp5navy" | "mp5sd" => "MP5",
        "mp7" => "MP7",
        "mp9" => "MP9",
        "mac10" => "MAC-10",
        "tmp" => "TMP",
        "ump45" => "UMP-45",
        "p90" => "P90",
        "bizon" => "PP-Bizon",
        "m3" => "M3",
        "nova" => "Nova",
        "xm1014" => "XM1014",
        "mag7" => "MAG-7",
        "sawedoff" => "Sawed-Off",
        "m249" => "M249",
        "negev" => "Negev",
        "taser" => "Zeus x27",
        "hegrenade" | "grenade" => "HE Grenade",
        "flashbang" => "Flashbang",
        "smokegrenade" => "Smoke Grenade",
        "molotov" | "incgrenade" | "inferno" => "Fire",
        "decoy" => "Decoy",
        "c4" => "C4",
        "world" => "World",
        w if w.starts_with("knife") || w.starts_with("bayonet") => "Knife",
        _ => return None,
    })
}

/// Team Fortress 2: kill icons as the log names them.
fn team_fortress(raw: &str) -> Option<&'static str> {
    Some(match raw {
        "tf_projectile_rocket" | "rocketlauncher_directhit" => "Rocket",
        "quake_rl" => "Original",
        "liberty_launcher" => "Liberty Launcher",
        "blackbox" => "Black Box",
        "tf_projectile_pipe" => "Grenade",
        "tf_projectile_pipe_remote" => "Sticky",
        "loch_n_load" => "Loch-n-Load",
        "scattergun" => "Scattergun",
        "force_a_nature" => "Force-A-Nature",
        "soda_popper" => "Soda Popper",
        "shortstop" => "Shortstop",
        "pistol_scout" | "pistol" => "Pistol",
        "bat" => "Bat",
        "sandman" => "Sandman",
        "ball" => "Sandman Ball",
        "shotgun_soldier" | "shotgun_pyro" | "shotgun_hwg" | "shotgun_primary" => "Shotgun",
        "shovel" => "Shovel",
        "flamethrower" => "Flamethrower",
        "backburner" => "Backburner",
        "degreaser" => "Degreaser",
        "flaregun" => "Flare Gun",
        "axtinguisher" => "Axtinguisher",
        "fireaxe" => "Fire Axe",
        "minigun" => "Minigun",
        "natascha" => "Natascha",
        "tomislav" => "Tomislav",
        "fists" => "Fists",
        "gloves" => "Killing Gloves of Boxing",
        "sentrygun" | "obj_sentrygun" | "obj_sentrygun2" | "obj_sentrygun3" => "Sentry Gun",
        "wrench" => "Wrench",
        "frontier_justice" => "Frontier Justice",
        "wrangler_kill" => "Wrangler",
        "sniperrifle" => "Sniper Rifle",
        "tf_projectile_arrow" | "huntsman" => "Huntsman",
        "smg" => "SMG",
        "club" => "Kukri",
        "syringegun_medic" => "Syringe Gun",
        "blutsauger" => "Blutsauger",
        "ubersaw" => "Ubersaw",
        "bonesaw" => "Bonesaw",
        "crusaders_crossbow" => "Crusader's Crossbow",
        "revolver" => "Revolver",
        "ambassador" => "Ambassador",
        "knife" => "Knife",
        "eternal_reward" => "Your Eternal Reward",
        "sword" | "demoshield" => "Eyelander",
        "bottle" => "Bottle",
        "telefrag" => "Telefrag",
        "world" => "World",
        "player" => "Fall",
        _ => return None,
    })
}

/// Left 4 Dead 2.
fn left4dead(raw: &str) -> Option<&'static str> {
    Some(match raw {
        "rifle_ak47" => "AK-47",
        "rifle" => "M16",
        "rifle_desert" => "Desert Rifle",
        "autoshotgun" => "Auto Shotgun",
        "shotgun_chrome" => "Chrome Shotgun",
        "pumpshotgun" => "Pump Shotgun",
        "smg" => "Uzi",
        "smg_silenced" => "Silenced SMG",
        "hunting_rifle" => "Hunting Rifle",
        "sniper_military" => "Military Sniper",
        "pistol" => "Pistol",
        "pistol_magnum" => "Magnum",
        "melee" => "Melee",
        "pipe_bomb" => "Pipe Bomb",
        "inferno" | "entityflame" => "Fire",
        "world" => "World",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_per_game() {
        assert_eq!(weapon_label("csgo", "ak47"), "AK-47");
        assert_eq!(weapon_label("cs16", "sg552"), "SG 552");
        assert_eq!(weapon_label("cs2", "knife_m9_bayonet"), "Knife");
        assert_eq!(weapon_label("tf2", "tf_projectile_rocket"), "Rocket");
        assert_eq!(weapon_label("l4d2", "rifle_ak47"), "AK-47");
        // Unknown names, and games without a table, show as written.
        assert_eq!(weapon_label("tf2", "the_new_thing"), "the_new_thing");
        assert_eq!(weapon_label("quake3", "MOD_ROCKET_SPLASH"), "Rocket splash");
        assert_eq!(weapon_label("", "tf_projectile_pipe"), "Grenade");
        assert_eq!(weapon_label("cod2", "mp44_mp"), "MP44");
        assert_eq!(
            weapon_label("iw4x", "deserteagle_tactical_mp"),
            "Desert Eagle"
        );
        assert_eq!(weapon_label("et", "MOD_MP40"), "MP40");
        assert_eq!(weapon_label("", "panzerschreck_mp"), "Panzerschreck");
        assert_eq!(weapon_label("cod4", "MOD_GRENADE_SPLASH"), "Grenade splash");
        assert_eq!(weapon_label("cod4", "MOD_TRIGGER_HURT"), "Map hazard");
        assert_eq!(weapon_label("", "MOD_TRIGGER_HURT"), "Trigger hurt");
        assert_eq!(weapon_label("", "MOD_MACHINEGUN"), "Machinegun");
    }
}
