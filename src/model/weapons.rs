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
        "cod" | "cod2" | "cod4" | "iw4x" | "codwaw" => call_of_duty(raw),
        "et" => enemy_territory(raw),
        "" => counter_strike(raw)
            .or_else(|| team_fortress(raw))
            .or_else(|| left4dead(raw))
            // Call of Duty weapons end in `_mp`; its and ET's `MOD_` names would clash with
            // Quake 3's (`MOD_MACHINEGUN`), which read as words below.
            .or_else(|| raw.ends_with("_mp").then(|| call_of_duty(raw)).flatten()),
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

/// A readable label for a Call of Duty weapon (`mp44_mp` -> MP44) or means of death
/// (`MOD_FALLING` -> Falling); None for names this table does not know.
fn call_of_duty(raw: &str) -> Option<&'static str> {
    let base = raw.strip_suffix("_mp").unwrap_or(raw);
    let base = base.to_ascii_lowercase();
    Some(match base.as_str() {
        // Call of Duty 2
        "mp44" => "MP44",
        "panzerschreck" => "Panzerschreck",
        "ppsh" => "PPSh-41",
        "pps42" => "PPS-42",
        "mosin_nagant" => "Mosin-Nagant",
        "mosin_nagant_sniper" => "Mosin-Nagant (scoped)",
        "kar98k" => "Kar98k",
        "kar98k_sniper" => "Kar98k (scoped)",
        "springfield" => "Springfield",
        "m1garand" => "M1 Garand",
        "m1carbine" => "M1 Carbine",
        "svt40" => "SVT-40",
        "g43" => "Gewehr 43",
        "g43_sniper" => "Gewehr 43 (scoped)",
        "enfield" => "Lee-Enfield",
        "enfield_scope" => "Lee-Enfield (scoped)",
        "thompson" => "Thompson",
        "bar" => "BAR",
        "bren" => "Bren",
        "sten" => "Sten",
        "mp40" => "MP40",
        "greasegun" => "Grease Gun",
        "shotgun" => "Shotgun",
        "colt" => "Colt M1911",
        "luger" => "Luger",
        "tt30" => "TT-30",
        "webley" => "Webley",
        "frag_grenade_german"
        | "frag_grenade_american"
        | "frag_grenade_british"
        | "frag_grenade_russian"
        | "frag_grenade"
        | "frag_grenade_short" => "Frag grenade",
        "mg42_bipod_stand" | "mg42_bipod_duck" | "mg42_bipod_prone" => "MG42 (mounted)",
        "30cal_stand" | "30cal_prone" | "30cal_duck" => ".30 cal (mounted)",
        // Call of Duty 4 and Modern Warfare 2
        "m16" | "m16_reflex" | "m16_silencer" | "m16_acog" => "M16A4",
        "m16_gl" | "gl_m16" => "M16A4 (grenade launcher)",
        "m4" | "m4_reflex" | "m4_silencer" | "m4_acog" => "M4 Carbine",
        "m4_gl" | "gl_m4" => "M4 (grenade launcher)",
        "g3" | "g3_reflex" | "g3_silencer" | "g3_acog" => "G3",
        "g3_gl" | "gl_g3" => "G3 (grenade launcher)",
        "ak47" | "ak47_reflex" | "ak47_silencer" | "ak47_reflex_silencer" | "ak47_acog" => "AK-47",
        "m14" | "m14_reflex" => "M14",
        "mp5" | "mp5_reflex" | "mp5_silencer" => "MP5",
        "uzi" | "uzi_reflex" | "uzi_silencer" => "Mini-Uzi",
        "p90" | "p90_reflex" | "p90_silencer" => "P90",
        "ump45" | "ump45_reflex" | "ump45_silencer" | "ump45_reflex_silencer" => "UMP45",
        "m1014" | "m1014_grip" => "M1014",
        "winchester1200" | "winchester1200_grip" | "winchester1200_reflex" => "W1200",
        "m21" => "M21",
        "m40a3" => "M40A3",
        "barrett" => "Barrett .50cal",
        "dragunov" => "Dragunov",
        "remington700" => "R700",
        "rpd" | "rpd_grip" => "RPD",
        "m60e4" => "M60E4",
        "saw" | "saw_grip" => "M249 SAW",
        "usp" | "usp_silencer" => "USP .45",
        "beretta" | "beretta_silencer" => "M9",
        "colt45" => "M1911 .45",
        "deserteagle" | "deserteaglegold" | "deserteagle_tactical" => "Desert Eagle",
        "rpg" => "RPG-7",
        "artillery" => "Airstrike",
        "cobra_20mm" | "cobra_ffar" => "Attack helicopter",
        "helicopter" => "Helicopter",
        "claymore" => "Claymore",
        "c4" => "C4",
        "famas" | "famas_reflex" | "famas_silencer" | "famas_reflex_silencer" => "FAMAS",
        "fal" | "fal_reflex" | "fal_silencer" | "fal_reflex_silencer" => "FAL",
        "scar" | "scar_reflex" | "scar_silencer" | "scar_reflex_silencer" => "SCAR-H",
        "barrel" => "Exploding barrel",
        "destructible_car" => "Exploding car",
        // Means of death, for kills whose weapon field is `none`.
        "mod_falling" => "Falling",
        "mod_trigger_hurt" => "Map hazard",
        "mod_suicide" => "Suicide",
        "mod_explosive" => "Explosion",
        "mod_melee" => "Melee",
        "mod_crush" => "Crushed",
        "mod_telefrag" => "Telefrag",
        "mod_water" => "Drowned",
        _ => return None,
    })
}

/// A readable label for an Enemy Territory means of death (`MOD_MP40` -> MP40); None for names
/// this table does not know.
fn enemy_territory(raw: &str) -> Option<&'static str> {
    Some(match raw {
        "MOD_MP40" => "MP40",
        "MOD_THOMPSON" => "Thompson",
        "MOD_STEN" => "Sten",
        "MOD_MP34" => "MP34",
        "MOD_STG44" => "StG 44",
        "MOD_BAR" => "BAR",
        "MOD_FG42" | "MOD_FG42SCOPE" => "FG42",
        "MOD_VENOM" => "Venom",
        "MOD_MG42" | "MOD_BROWNING" | "MOD_MOBILE_MG42" | "MOD_MOBILE_BROWNING" => "Machine gun",
        "MOD_MACHINEGUN" => "Mounted gun",
        "MOD_CARBINE" | "MOD_GARAND" => "M1 Garand",
        "MOD_KAR98" | "MOD_K43" => "K43",
        "MOD_GARAND_SCOPE" => "M1 Garand (scoped)",
        "MOD_K43_SCOPE" => "K43 (scoped)",
        "MOD_M7" => "M7 rifle grenade",
        "MOD_GPG40" => "GPG40 rifle grenade",
        "MOD_GRENADE_LAUNCHER" | "MOD_GRENADE_PINEAPPLE" | "MOD_GRENADE" => "Grenade",
        "MOD_FLAMETHROWER" => "Flamethrower",
        "MOD_PANZERFAUST" | "MOD_BAZOOKA" => "Panzerfaust",
        "MOD_MORTAR" | "MOD_MORTAR2" => "Mortar",
        "MOD_COLT" | "MOD_AKIMBO_COLT" | "MOD_SILENCED_COLT" | "MOD_AKIMBO_SILENCEDCOLT" => "Colt",
        "MOD_LUGER" | "MOD_AKIMBO_LUGER" | "MOD_SILENCER" | "MOD_AKIMBO_SILENCEDLUGER" => "Luger",
        "MOD_KNIFE" => "Knife",
        "MOD_SMOKEGRENADE" | "MOD_SMOKEBOMB" => "Smoke grenade",
        "MOD_DYNAMITE" => "Dynamite",
        "MOD_LANDMINE" => "Landmine",
        "MOD_SATCHEL" => "Satchel charge",
        "MOD_AIRSTRIKE" => "Airstrike",
        "MOD_ARTY" => "Artillery",
        "MOD_SHOVE" => "Shove",
        "MOD_GOOMBA" => "Goomba",
        "MOD_FALLING" => "Falling",
        "MOD_CRUSH"
        | "MOD_CRUSH_CONSTRUCTION"
        | "MOD_CRUSH_CONSTRUCTIONDEATH"
        | "MOD_CRUSH_CONSTRUCTIONDEATH_NOATTACKER" => "Crushed",
        "MOD_WATER" => "Drowned",
        "MOD_SLIME" => "Slime",
        "MOD_LAVA" => "Lava",
        "MOD_TRIGGER_HURT" => "Map hazard",
        "MOD_EXPLOSIVE" => "Explosion",
        "MOD_TELEFRAG" => "Telefrag",
        "MOD_SUICIDE" => "Suicide",
        "MOD_SWITCHTEAM" => "Team switch",
        "MOD_UNKNOWN" => "Unknown",
        _ => return None,
    })
}

/// The class of weapon `raw` as game `game` logs it, for the heatmaps' switch: Counter-Strike's
/// buy menu groups (rifles, sniper rifles, SMGs, pistols, heavy, grenades, knives) and Team
/// Fortress 2's ways of killing (hitscan guns, projectiles and explosives, fire, melee,
/// buildings); `Other` for a weapon these do not know and for other games.
pub fn weapon_class(game: &str, raw: &str) -> &'static str {
    match game {
        "cs16" | "css" | "csgo" | "cs2" => counter_strike_class(raw),
        "tf2" => team_fortress_class(raw),
        _ => "Other",
    }
}

fn counter_strike_class(raw: &str) -> &'static str {
    let w = raw.strip_prefix("weapon_").unwrap_or(raw);
    match w {
        "ak47" | "m4a1" | "m4a1_silencer" | "m4a1_silencer_off" | "m4a4" | "aug" | "sg552"
        | "sg556" | "famas" | "galil" | "galilar" => "Rifles",
        "awp" | "scout" | "ssg08" | "g3sg1" | "scar20" | "sg550" => "Sniper rifles",
        "mp5navy" | "mp5sd" | "mp7" | "mp9" | "mac10" | "tmp" | "ump45" | "p90" | "bizon" => "SMGs",
        "glock" | "glock18" | "usp" | "usp_silencer" | "usp_silencer_off" | "hkp2000" | "p2000"
        | "p228" | "p250" | "fiveseven" | "tec9" | "cz75a" | "deagle" | "revolver" | "elite" => {
            "Pistols"
        }
        "m3" | "nova" | "xm1014" | "sawedoff" | "mag7" | "m249" | "negev" => "Heavy",
        "hegrenade" | "inferno" | "molotov" | "incgrenade" | "flashbang" | "decoy"
        | "smokegrenade" | "taser" => "Grenades and more",
        _ if w.starts_with("knife") || w.starts_with("bayonet") || w == "melee" => "Knives",
        _ => "Other",
    }
}

fn team_fortress_class(raw: &str) -> &'static str {
    const MELEE: [&str; 32] = [
        "bat",
        "bottle",
        "fireaxe",
        "club",
        "fists",
        "knife",
        "shovel",
        "wrench",
        "bonesaw",
        "ubersaw",
        "sword",
        "eyelander",
        "frying_pan",
        "fryingpan",
        "axtinguisher",
        "southern_hospitality",
        "holy_mackerel",
        "bushwacka",
        "unique_pickaxe",
        "pickaxe",
        "boston_basher",
        "tribalkukri",
        "gloves",
        "ullapool_caber",
        "ullapool_caber_explosion",
        "battleaxe",
        "headtaker",
        "sandman",
        "warrior_spirit",
        "eternal_reward",
        "robot_arm",
        "amputator",
    ];
    if raw.starts_with("obj_") || raw == "wrangler_kill" {
        "Buildings"
    } else if raw.starts_with("tf_projectile")
        || raw.contains("rocket")
        || raw.contains("pipe")
        || raw.contains("sticky")
        || raw.contains("grenade")
        || raw.contains("arrow")
        || raw.contains("crossbow")
        || raw.contains("launcher")
        || raw == "blackbox"
        || raw == "loch_n_load"
        || raw == "quake_rl"
        || raw == "huntsman"
    {
        "Projectiles"
    } else if raw.contains("flame")
        || raw.contains("flare")
        || raw == "backburner"
        || raw == "degreaser"
        || raw == "phlogistinator"
    {
        "Fire"
    } else if MELEE.contains(&raw) || raw.starts_with("taunt") {
        "Melee"
    } else if raw == "world" || raw == "player" || raw.starts_with("trigger") {
        "Other"
    } else {
        "Guns"
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
    fn weapon_classes_of_counter_strike_and_team_fortress() {
        assert_eq!(weapon_class("csgo", "ak47"), "Rifles");
        assert_eq!(weapon_class("cs2", "weapon_awp"), "Sniper rifles");
        assert_eq!(weapon_class("csgo", "knife_t"), "Knives");
        assert_eq!(weapon_class("csgo", "hkp2000"), "Pistols");
        assert_eq!(weapon_class("tf2", "tf_projectile_rocket"), "Projectiles");
        assert_eq!(weapon_class("tf2", "obj_sentrygun2"), "Buildings");
        assert_eq!(weapon_class("tf2", "flamethrower"), "Fire");
        assert_eq!(weapon_class("tf2", "scattergun"), "Guns");
        assert_eq!(weapon_class("tf2", "bat"), "Melee");
        assert_eq!(weapon_class("tf2", "fryingpan"), "Melee");
        assert_eq!(weapon_class("tf2", "ullapool_caber"), "Melee");
        assert_eq!(weapon_class("tf2", "wrangler_kill"), "Buildings");
        assert_eq!(weapon_class("quake3", "MOD_RAILGUN"), "Other");
    }

    #[test]
    fn call_of_duty_labels() {
        assert_eq!(call_of_duty("mp44_mp"), Some("MP44"));
        assert_eq!(call_of_duty("m16_gl_mp"), Some("M16A4 (grenade launcher)"));
        assert_eq!(call_of_duty("PPS42_mp"), Some("PPS-42"));
        assert_eq!(call_of_duty("MOD_FALLING"), Some("Falling"));
        assert_eq!(call_of_duty("no_such_gun_mp"), None);
    }

    #[test]
    fn enemy_territory_labels() {
        assert_eq!(enemy_territory("MOD_MP40"), Some("MP40"));
        assert_eq!(enemy_territory("MOD_STG44"), Some("StG 44"));
        assert_eq!(enemy_territory("MOD_NEW_GUN"), None);
    }

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
