//! `data/balance.js`: what the balancer needs from a build (every player's names and team-model
//! skill, and the model's parameters), written as a script so `balance.html` loads it from
//! `file://`, and read back by `fragstats balance`: one source of truth for both. Names are
//! matched as the site's search matches them.

use serde::{Deserialize, Serialize};

use crate::evaluate::team::{Skill, TeamParams};
use crate::model::names::plain_name;

/// The script's assignment before the JSON.
pub const PREFIX: &str = "window.FRAGSTATS_BALANCE = ";

/// Bump when the layout changes.
pub const FORMAT: u32 = 1;

/// One player.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Identity key (`plain_name` in players.json).
    pub name: String,
    /// Every other name used, colour codes removed; left out when there is none (most players
    /// of a public server: the file stays small).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// Team-model skill (θ) and its variance, written rounded (see [`round_skill`]).
    #[serde(serialize_with = "round_skill")]
    pub skill: f64,
    #[serde(serialize_with = "round_variance")]
    pub variance: f64,
    /// Clan name; left out for players without one (most of them: the file stays small).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clan: Option<String>,
}

/// Writes a skill to 1e-6 θ: a side's P(win) moves by under 1e-5 however many players it has,
/// below the 0.1 % the page and the CLI show (both read the rounded file, so they agree). Written
/// whole, the crowd's file was 4.7 MB of mostly digits below that.
fn round_skill<S: serde::Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    // + 0.0 turns -0 into 0.
    s.serialize_f64((x * 1e6).round() / 1e6 + 0.0)
}

/// Writes a variance to 4 significant digits (it only weighs the skills' uncertainty).
fn round_variance<S: serde::Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    let rounded = if x.is_finite() && *x != 0.0 {
        format!("{x:.3e}").parse().unwrap_or(*x)
    } else {
        *x
    };
    s.serialize_f64(rounded)
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BalanceData {
    pub format: u32,
    pub params: TeamParams,
    pub players: Vec<Entry>,
    /// The last [`RECENT`] team matches, most recent first, each `[red, blue]` as indices into
    /// `players` (for `--avoid-last`).
    #[serde(default)]
    pub recent: Vec<[Vec<u32>; 2]>,
    /// `[balance]` of the build: the page's defaults.
    #[serde(default)]
    pub settings: crate::config::BalanceConfig,
}

/// Team matches kept in [`BalanceData::recent`].
pub const RECENT: usize = 200;

impl BalanceData {
    /// The script text.
    pub fn to_script(&self) -> String {
        let json = serde_json::to_string(self)
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
        let data: BalanceData =
            serde_json::from_str(json).map_err(|e| format!("it is damaged ({e})"))?;
        if data.format != FORMAT {
            return Err(format!(
                "it has format {} where this fragstats reads {FORMAT}",
                data.format
            ));
        }
        Ok(data)
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

    /// Skills are written to 1e-6, variances to 4 significant digits, and read back so.
    #[test]
    fn floats_are_written_rounded() {
        let mut d = data();
        let values = [
            (0.012_345_678_9, 0.000_770_755_417_5, 0.012_346, 0.000_770_8),
            (-1.2e-15, 0.009_999_970_5, 0.0, 0.01),
            (-0.074_123_268_5, 1.0, -0.074_123, 1.0),
        ];
        for (entry, &(skill, variance, _, _)) in d.players.iter_mut().zip(&values) {
            entry.skill = skill;
            entry.variance = variance;
        }
        let script = d.to_script();
        assert!(
            script.contains(r#""skill":0.012346,"variance":0.0007708"#),
            "{script}"
        );
        assert!(!script.contains("-0.0,"), "{script}");
        let back = BalanceData::from_script(&script).unwrap();
        for (entry, &(_, _, skill, variance)) in back.players.iter().zip(&values) {
            assert_eq!((entry.skill, entry.variance), (skill, variance));
        }
    }
}
