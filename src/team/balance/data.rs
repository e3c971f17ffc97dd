//! `data/balance.js`: what the balancer needs from a build (every player's names and team-model
//! skill, and the model's parameters), written as a script so `balance.html` loads it from
//! `file://`, and read back by `fragstats balance`: one source of truth for both. Names are
//! matched as the site's search matches them.

use serde::{Deserialize, Serialize};

use crate::model::names::plain_name;
use crate::team::model::{Skill, TeamParams};

/// The script's assignment before the JSON.
pub const PREFIX: &str = "window.FRAGSTATS_BALANCE = ";

/// Bump when the layout changes.
pub const FORMAT: u32 = 2;

/// One player.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Identity key (`plain_name` in players.json).
    pub name: String,
    /// Every other name used, colour codes removed (empty for most players of a public server).
    pub names: Vec<String>,
    /// Team-model skill (θ) and its variance, written rounded (see [`skill_millionths`] and
    /// [`round_variance`]).
    pub skill: f64,
    pub variance: f64,
    /// Clan name (none for most players).
    pub clan: Option<String>,
}

/// A skill in millionths of θ, as the file writes it: a side's P(win) moves by under 1e-5
/// however many players it has, below the 0.1 % the page and the CLI show (both read the rounded
/// file, so they agree). Read back as `n / 1e6`, the same IEEE division in Rust and in the page.
fn skill_millionths(x: f64) -> i64 {
    // `as` saturates (and takes NaN to 0); -0 becomes 0.
    (x * 1e6).round() as i64
}

/// A variance to 4 significant digits, as the file writes it (it only weighs the skills'
/// uncertainty; a public server's players then share a few hundred values).
fn round_variance(x: f64) -> f64 {
    if x.is_finite() && x != 0.0 {
        format!("{x:.3e}").parse().unwrap_or(x)
    } else {
        x
    }
}

/// The whole file, as the balancer uses it.
#[derive(Debug, Clone, PartialEq)]
pub struct BalanceData {
    pub format: u32,
    pub params: TeamParams,
    pub players: Vec<Entry>,
    /// The last [`RECENT`] team matches, most recent first, each `[red, blue]` as indices into
    /// `players` (for `--avoid-last`).
    pub recent: Vec<[Vec<u32>; 2]>,
    /// `[balance]` of the build: the page's defaults.
    pub settings: crate::config::BalanceConfig,
}

/// The file's layout: one array per field, indices into shared tables. One object per player
/// (format 1) made a public server's file (63,000 players) 3.3 MB, mostly the keys repeated;
/// the page turns these arrays back into one object per player when it loads.
#[derive(Serialize, Deserialize)]
struct Columns {
    format: u32,
    params: TeamParams,
    /// Each player's identity key, in player order.
    names: Vec<String>,
    /// Each player's skill in millionths of θ ([`skill_millionths`]).
    skills: Vec<i64>,
    /// Each player's variance, as an index into `variance_values`.
    variances: Vec<u32>,
    /// The distinct rounded variances, most used first (most players of a public server have
    /// the prior's: their index is `0`).
    variance_values: Vec<f64>,
    /// `[player, [other names]]` for the players with other names, by player.
    #[serde(default)]
    aliases: Vec<(u32, Vec<String>)>,
    /// The clans' names.
    #[serde(default)]
    clans: Vec<String>,
    /// `[player, clan]` (an index into `clans`) for the players in a clan, by player.
    #[serde(default)]
    clan_of: Vec<[u32; 2]>,
    #[serde(default)]
    recent: Vec<[Vec<u32>; 2]>,
    #[serde(default)]
    settings: crate::config::BalanceConfig,
}

impl Columns {
    fn new(data: &BalanceData) -> Columns {
        let variances: Vec<f64> = data
            .players
            .iter()
            .map(|p| round_variance(p.variance))
            .collect();
        // Distinct values by use, most used first (ties: first used first).
        let mut used: std::collections::HashMap<u64, (usize, usize)> = Default::default();
        for (i, v) in variances.iter().enumerate() {
            used.entry(v.to_bits()).or_insert((0, i)).0 += 1;
        }
        let mut values: Vec<(u64, (usize, usize))> = used.into_iter().collect();
        values.sort_by_key(|&(_, (count, first))| (std::cmp::Reverse(count), first));
        let slot: std::collections::HashMap<u64, u32> = values
            .iter()
            .enumerate()
            .map(|(k, &(bits, _))| (bits, k as u32))
            .collect();
        // Clan names in order of first use, each found through a map (a site may have many).
        let mut clans: Vec<String> = Vec::new();
        let mut clan_slot: std::collections::HashMap<&str, u32> = Default::default();
        let mut clan_of = Vec::new();
        for (i, p) in data.players.iter().enumerate() {
            if let Some(clan) = &p.clan {
                let c = *clan_slot.entry(clan.as_str()).or_insert_with(|| {
                    clans.push(clan.clone());
                    (clans.len() - 1) as u32
                });
                clan_of.push([i as u32, c]);
            }
        }
        Columns {
            format: data.format,
            params: data.params.clone(),
            names: data.players.iter().map(|p| p.name.clone()).collect(),
            skills: data
                .players
                .iter()
                .map(|p| skill_millionths(p.skill))
                .collect(),
            variances: variances.iter().map(|v| slot[&v.to_bits()]).collect(),
            variance_values: values
                .iter()
                .map(|&(bits, _)| f64::from_bits(bits))
                .collect(),
            aliases: (data.players.iter().enumerate())
                .filter(|(_, p)| !p.names.is_empty())
                .map(|(i, p)| (i as u32, p.names.clone()))
                .collect(),
            clans,
            clan_of,
            recent: data.recent.clone(),
            settings: data.settings.clone(),
        }
    }

    /// The players again, or what in the file is inconsistent.
    fn into_data(self) -> Result<BalanceData, String> {
        let n = self.names.len();
        if self.skills.len() != n || self.variances.len() != n {
            return Err(format!(
                "it has {n} names, {} skills and {} variances",
                self.skills.len(),
                self.variances.len()
            ));
        }
        let in_range = |i: u32, len: usize| (i as usize) < len;
        let mut players: Vec<Entry> = Vec::with_capacity(n);
        for ((name, skill), variance) in self.names.into_iter().zip(self.skills).zip(self.variances)
        {
            let variance = *self
                .variance_values
                .get(variance as usize)
                .ok_or_else(|| format!("variance {variance} of {name:?} is not in its table"))?;
            players.push(Entry {
                name,
                names: Vec::new(),
                skill: skill as f64 / 1e6,
                variance,
                clan: None,
            });
        }
        for (i, names) in self.aliases {
            players
                .get_mut(i as usize)
                .ok_or_else(|| format!("other names for player {i} of {n}"))?
                .names = names;
        }
        for [i, c] in self.clan_of {
            let clan = self
                .clans
                .get(c as usize)
                .ok_or_else(|| format!("clan {c} of {}", self.clans.len()))?;
            players
                .get_mut(i as usize)
                .ok_or_else(|| format!("a clan for player {i} of {n}"))?
                .clan = Some(clan.clone());
        }
        if let Some(i) = (self.recent.iter().flatten().flatten()).find(|&&i| !in_range(i, n)) {
            return Err(format!("a recent match names player {i} of {n}"));
        }
        Ok(BalanceData {
            format: self.format,
            params: self.params,
            players,
            recent: self.recent,
            settings: self.settings,
        })
    }
}

/// Team matches kept in [`BalanceData::recent`].
pub const RECENT: usize = 200;

impl BalanceData {
    /// The script text.
    pub fn to_script(&self) -> String {
        let json = serde_json::to_string(&Columns::new(self))
            .expect("numbers are finite and keys are strings")
            .replace('<', "\\u003c");
        format!("{PREFIX}{json};\n")
    }

    /// Reads the script text back.
    pub fn from_script(text: &str) -> Result<BalanceData, String> {
        let json = text
            .trim()
            .strip_prefix(PREFIX)
            .and_then(|t| t.strip_suffix(';'))
            .ok_or("it is not a balance file written by fragstats")?;
        // The format first: an older file has none of the columns.
        #[derive(Deserialize)]
        struct Format {
            format: u32,
        }
        let format = serde_json::from_str::<Format>(json)
            .map_err(|e| format!("it is damaged ({e})"))?
            .format;
        if format != FORMAT {
            return Err(format!(
                "it has format {format} where this fragstats reads {FORMAT}"
            ));
        }
        let columns: Columns =
            serde_json::from_str(json).map_err(|e| format!("it is damaged ({e})"))?;
        columns
            .into_data()
            .map_err(|e| format!("it is damaged ({e})"))
    }

    /// The skill of player `i`.
    pub fn skill(&self, i: usize) -> Skill {
        let p = &self.players[i];
        Skill {
            mean: p.skill,
            variance: p.variance,
        }
    }

    /// Every player's names in lower case, for [`BalanceData::resolve`].
    pub fn index(&self) -> NameIndex {
        NameIndex(
            self.players
                .iter()
                .map(|p| {
                    std::iter::once(&p.name)
                        .chain(&p.names)
                        .map(|n| n.to_lowercase())
                        .collect()
                })
                .collect(),
        )
    }

    /// Finds the player a name means, as the site's search would: colour codes ignored,
    /// case-insensitive, the key or any name used, else a unique prefix, else a unique part of a
    /// name. A name that is close to no known one (edit distance above 2) is new; anything else
    /// that does not resolve to one player is an error listing the closest candidates.
    pub fn resolve(&self, index: &NameIndex, query: &str) -> Result<Resolved, String> {
        let plain = plain_name(query);
        let plain = plain.trim();
        let wanted = plain.to_lowercase();
        if wanted.is_empty() {
            return Err(format!("{query:?} is not a name"));
        }
        let names = |i: usize| index.0[i].iter();
        // The exact key (case kept) wins over everything else.
        if let Some(i) = self.players.iter().position(|p| p.name == plain) {
            return Ok(Resolved::Known(i));
        }
        let exact: Vec<usize> = (0..self.players.len())
            .filter(|&i| names(i).any(|n| *n == wanted))
            .collect();
        let matching = |test: &dyn Fn(&str) -> bool| -> Vec<usize> {
            (0..self.players.len())
                .filter(|&i| names(i).any(|n| test(n)))
                .collect()
        };
        // Exact, else a unique prefix, else a unique part of a name (the site's search finds
        // players by any part of any name).
        let mut prefix = exact;
        if prefix.is_empty() {
            prefix = matching(&|n| n.starts_with(&wanted));
        }
        if prefix.is_empty() {
            prefix = matching(&|n| n.contains(&wanted));
        }
        match prefix.len() {
            1 => return Ok(Resolved::Known(prefix[0])),
            0 => {}
            _ => {
                let list: Vec<&str> = prefix
                    .iter()
                    .take(8)
                    .map(|&i| self.players[i].name.as_str())
                    .collect();
                return Err(format!(
                    "{query:?} is ambiguous: it could be {}{}",
                    list.join(", "),
                    if prefix.len() > 8 { ", ..." } else { "" }
                ));
            }
        }
        let mut close: Vec<(usize, usize)> = (0..self.players.len())
            .filter_map(|i| {
                let d = names(i).map(|n| distance(n, &wanted)).min()?;
                (d <= 2).then_some((d, i))
            })
            .collect();
        if close.is_empty() {
            return Ok(Resolved::New(plain.to_string()));
        }
        close.sort();
        let list: Vec<&str> = close
            .iter()
            .take(5)
            .map(|&(_, i)| self.players[i].name.as_str())
            .collect();
        Err(format!(
            "no player is called {query:?}; did you mean {}? (a name close to none is taken as a newcomer)",
            list.join(", ")
        ))
    }
}

/// Every player's names in lower case (key first), in file order.
pub struct NameIndex(Vec<Vec<String>>);

/// What a name given to the balancer means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// Player `i` of the file.
    Known(usize),
    /// A name never seen (the newcomer prior applies).
    New(String),
}

/// Levenshtein distance over characters (names are short: at most a few dozen).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(64).collect();
    let b: Vec<char> = b.chars().take(64).collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data() -> BalanceData {
        let entry = |name: &str, names: &[&str]| Entry {
            name: name.into(),
            names: names.iter().map(|n| n.to_string()).collect(),
            skill: 0.0,
            variance: 0.1,
            clan: None,
        };
        BalanceData {
            format: FORMAT,
            params: TeamParams::prior(Skill {
                mean: 0.0,
                variance: 1.0,
            }),
            players: vec![
                entry("[OA]Sarge", &[]),
                entry("RedDevil", &["Devil"]),
                entry("Sarah", &[]),
                entry("Grunt", &[]),
            ],
            recent: vec![[vec![0, 1], vec![2, 3]]],
            settings: Default::default(),
        }
    }

    #[test]
    fn names_resolve_like_the_search() {
        let data = data();
        let index = data.index();
        struct D<'a>(&'a BalanceData, &'a NameIndex);
        impl D<'_> {
            fn resolve(&self, q: &str) -> Result<Resolved, String> {
                self.0.resolve(self.1, q)
            }
        }
        let d = D(&data, &index);
        assert_eq!(d.resolve("^1Red^7Devil"), Ok(Resolved::Known(1)));
        assert_eq!(d.resolve("devil"), Ok(Resolved::Known(1)));
        assert_eq!(d.resolve("[oa]s"), Ok(Resolved::Known(0)));
        assert_eq!(d.resolve("gru"), Ok(Resolved::Known(3)));
        assert_eq!(d.resolve("Zyxwvut"), Ok(Resolved::New("Zyxwvut".into())));
        assert_eq!(
            d.resolve("sarge"),
            Ok(Resolved::Known(0)),
            "a part of a name"
        );
        assert_eq!(d.resolve("r"), Ok(Resolved::Known(1)), "a unique prefix");
        let ambiguous = d.resolve("ar").unwrap_err();
        assert_eq!(
            ambiguous,
            "\"ar\" is ambiguous: it could be [OA]Sarge, Sarah"
        );
        let close = d.resolve("Grnt").unwrap_err();
        assert!(close.contains("did you mean Grunt"), "{close}");
        assert!(d.resolve("^1").is_err());
    }

    #[test]
    fn script_round_trips_and_escapes_markup() {
        let mut d = data();
        d.players[0].name = "</script><b>".into();
        let script = d.to_script();
        assert!(!script.contains('<'));
        assert_eq!(BalanceData::from_script(&script), Ok(d));
        assert!(BalanceData::from_script("nonsense").is_err());
    }

    /// Skills are written in millionths, variances to 4 significant digits in a table of
    /// distinct values (most used first), and read back so.
    #[test]
    fn floats_are_written_rounded() {
        let mut d = data();
        let values = [
            (0.012_345_678_9, 0.000_770_755_417_5, 0.012_346, 0.000_770_8),
            (-1.2e-15, 0.009_999_970_5, 0.0, 0.01),
            (-0.074_123_268_5, 1.0, -0.074_123, 1.0),
            (0.5, 0.01, 0.5, 0.01),
        ];
        for (entry, &(skill, variance, _, _)) in d.players.iter_mut().zip(&values) {
            entry.skill = skill;
            entry.variance = variance;
        }
        let script = d.to_script();
        assert!(
            script.contains(r#""skills":[12346,0,-74123,500000],"variances":[1,0,2,0],"variance_values":[0.01,0.0007708,1.0]"#),
            "{script}"
        );
        let back = BalanceData::from_script(&script).unwrap();
        for (entry, &(_, _, skill, variance)) in back.players.iter().zip(&values) {
            assert_eq!((entry.skill, entry.variance), (skill, variance));
            assert_eq!(entry.skill.to_bits(), skill.to_bits(), "not -0");
        }
    }

    /// Other names and clans are kept by player; a file of another format or with an index out
    /// of its table is refused with a reason.
    #[test]
    fn columns_round_trip_and_damage_is_reported() {
        let mut d = data();
        d.players[2].clan = Some("[OA]".into());
        d.players[3].clan = Some("=XiX=".into());
        d.players[0].clan = Some("=XiX=".into());
        let script = d.to_script();
        assert!(
            script.contains(r#""aliases":[[1,["Devil"]]],"clans":["=XiX=","[OA]"],"clan_of":[[0,0],[2,1],[3,0]]"#),
            "{script}"
        );
        assert_eq!(BalanceData::from_script(&script), Ok(d.clone()));
        let old = script.replacen("\"format\":2", "\"format\":1", 1);
        assert_eq!(
            BalanceData::from_script(&old).unwrap_err(),
            "it has format 1 where this fragstats reads 2"
        );
        let bad = script.replacen("\"clan_of\":[[0,0]", "\"clan_of\":[[9,0]", 1);
        assert_eq!(
            BalanceData::from_script(&bad).unwrap_err(),
            "it is damaged (a clan for player 9 of 4)"
        );
        let bad = script.replacen("\"variances\":[0,0,0,0]", "\"variances\":[0,0,0,7]", 1);
        assert!(
            BalanceData::from_script(&bad)
                .unwrap_err()
                .contains("variance 7 of \"Grunt\""),
            "{bad}"
        );
        let bad = script.replacen("\"recent\":[[[0,1]", "\"recent\":[[[0,4]", 1);
        assert_eq!(
            BalanceData::from_script(&bad).unwrap_err(),
            "it is damaged (a recent match names player 4 of 4)"
        );
    }
}
