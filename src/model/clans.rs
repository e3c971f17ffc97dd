//! Clans: groups of player identities. Declared in `site.toml` (`[[clans]]` with prefix, suffix or
//! contains patterns on the plain name) and, unless turned off, detected from a bracketed tag at
//! the start of a name (`[TAG]`, `=TAG=`, `{TAG}`, `|TAG|`, `<TAG>`, `(TAG)`) shared by at least two
//! players. A player belongs to at most one clan; declared clans win over detected ones.

use std::collections::BTreeMap;

use super::identity::Roster;
use crate::config::ClanConfig;

/// Longest tag text (between the brackets) that counts as a clan tag.
const MAX_TAG_CHARS: usize = 12;

/// One clan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clan {
    /// Name shown on the site: the declared name or the tag with its brackets.
    pub name: String,
    /// Identity numbers of the members, ascending.
    pub members: Vec<u32>,
    /// Declared in site.toml (else detected from a tag).
    pub declared: bool,
}

/// Every clan, and each player's clan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Clans {
    /// Declared clans in config order, then detected clans in byte order of tag.
    pub clans: Vec<Clan>,
    /// For each identity, its clan number.
    pub of_player: Vec<Option<u32>>,
}

/// The clan tag a name starts with, brackets included (`[OA]Sarge` -> `[OA]`), if any. The name
/// must go on after the tag.
pub fn leading_tag(plain: &str) -> Option<&str> {
    const PAIRS: [(char, char); 6] = [
        ('[', ']'),
        ('{', '}'),
        ('(', ')'),
        ('<', '>'),
        ('=', '='),
        ('|', '|'),
    ];
    let first = plain.chars().next()?;
    let (_, close) = PAIRS.iter().find(|(open, _)| *open == first)?;
    let inner_start = first.len_utf8();
    let end = plain[inner_start..].find(*close)? + inner_start;
    let inner = &plain[inner_start..end];
    let tag_end = end + close.len_utf8();
    let count = inner.chars().count();
    // `(1)Name` is the Source engine's rename of a second player (or bot) called `Name`, not a
    // clan: a tag of digits in parentheses is none.
    let renamed_twin = first == '(' && inner.chars().all(|c| c.is_ascii_digit());
    let ok = (1..=MAX_TAG_CHARS).contains(&count)
        && !renamed_twin
        && !inner.chars().any(char::is_whitespace)
        && !plain[tag_end..].trim().is_empty();
    ok.then(|| &plain[..tag_end])
}

fn matches_declared(clan: &ClanConfig, plain: &str) -> bool {
    clan.prefix
        .iter()
        .any(|p| !p.is_empty() && plain.starts_with(p.as_str()))
        || clan
            .suffix
            .iter()
            .any(|s| !s.is_empty() && plain.ends_with(s.as_str()))
        || clan
            .contains
            .iter()
            .any(|c| !c.is_empty() && plain.contains(c.as_str()))
}

impl Clans {
    /// Assigns every identity of `roster` to at most one clan.
    pub fn assign(roster: &Roster, declared: &[ClanConfig], detect: bool) -> Clans {
        let mut of_player = vec![None; roster.players.len()];
        let mut clans: Vec<Clan> = declared
            .iter()
            .map(|c| Clan {
                name: c.name.clone(),
                members: Vec::new(),
                declared: true,
            })
            .collect();
        let mut by_tag: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
        for (i, p) in roster.players.iter().enumerate() {
            if let Some(c) = declared.iter().position(|c| matches_declared(c, &p.key)) {
                of_player[i] = Some(c as u32);
                clans[c].members.push(i as u32);
            } else if detect && let Some(tag) = leading_tag(&p.key) {
                by_tag.entry(tag).or_default().push(i as u32);
            }
        }
        for (tag, members) in by_tag {
            if members.len() < 2 || clans.iter().any(|c| c.name == tag) {
                continue;
            }
            let n = clans.len() as u32;
            for &m in &members {
                of_player[m as usize] = Some(n);
            }
            clans.push(Clan {
                name: tag.to_string(),
                members,
                declared: false,
            });
        }
        Clans { clans, of_player }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::identity::Identity;

    fn roster(names: &[&str]) -> Roster {
        let mut names: Vec<&str> = names.to_vec();
        names.sort();
        Roster {
            players: names
                .iter()
                .map(|n| Identity {
                    key: n.to_string(),
                    name: n.to_string(),
                    names_seen: vec![n.to_string()],
                })
                .collect(),
            match_players: Default::default(),
            bots: vec![false; names.len()],
        }
    }

    #[test]
    fn tags() {
        assert_eq!(leading_tag("[OA]Sarge"), Some("[OA]"));
        assert_eq!(leading_tag("=XiX=Grunt"), Some("=XiX="));
        assert_eq!(leading_tag("{TDK}Liz"), Some("{TDK}"));
        assert_eq!(leading_tag("|RB|Headcrash"), Some("|RB|"));
        assert_eq!(leading_tag("<ab>c"), Some("<ab>"));
        assert_eq!(leading_tag("(x)y"), Some("(x)"));
        assert_eq!(leading_tag("(1)Smoker"), None, "Source's second Smoker");
        assert_eq!(leading_tag("[1]Smoker"), Some("[1]"));
        assert_eq!(leading_tag("[ACE]"), None, "a tag alone is a name");
        assert_eq!(leading_tag("-[aequitas]-"), None);
        assert_eq!(leading_tag("[a b]c"), None);
        assert_eq!(leading_tag("Sarge"), None);
        assert_eq!(leading_tag(""), None);
        assert_eq!(leading_tag("[ʚϊ]x"), Some("[ʚϊ]"));
    }

    #[test]
    fn detected_need_two_members_and_declared_win() {
        let r = roster(&[
            "[OA]Sarge",
            "[OA]Morgan",
            "|RB|Headcrash",
            "=XiX=Grunt",
            "=XiX=Witch",
            "Tony",
        ]);
        let declared = vec![ClanConfig {
            name: "Witches".into(),
            suffix: vec!["Witch".into()],
            ..Default::default()
        }];
        let c = Clans::assign(&r, &declared, true);
        let names: Vec<&str> = c.clans.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["Witches", "[OA]"],
            "=XiX= keeps one member once Witch is declared"
        );
        let key = |k: &str| r.players.iter().position(|p| p.key == k).unwrap();
        assert_eq!(c.of_player[key("=XiX=Witch")], Some(0));
        assert_eq!(c.of_player[key("[OA]Sarge")], Some(1));
        assert_eq!(c.of_player[key("|RB|Headcrash")], None);
        assert_eq!(c.of_player[key("Tony")], None);
        let off = Clans::assign(&r, &[], false);
        assert!(off.clans.is_empty());
    }
}
