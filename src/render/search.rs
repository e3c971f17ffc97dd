//! The player search the pages load: `data/search.js` (a few bytes per shard, loaded by every
//! page) and the shards `data/search/<n>.js`, of which a search loads one. A player is in the
//! shard of every pair of consecutive characters (bigram) of their folded names; the page picks
//! the smallest shard among the bigrams of what was typed and matches substrings in it, so it
//! never loads the whole roster of a public server (tens of thousands of names). A shard keeps at
//! most [`SHARD_CAP`] players, best on the ladder first: only a query made of nothing but very
//! common bigrams ("pl" in a crowd of "Player…") can meet a capped shard, and the page says so.
//! Everything is a script, not JSON, because browsers refuse `fetch` of local files on `file://`.
//! Not here: the whole index `data/search-index.js` (kept for other tools and older templates,
//! see [`super::data`]) and the search box itself (`static/site.js`).

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;

use super::OutputFile;
use super::data::script_file;

/// The most players a shard holds (about 100 KB).
pub const SHARD_CAP: usize = 2000;

/// Average players per shard the shard count aims at (shards hold a player once per bigram of
/// theirs in them, so they are larger than this).
const PLAYERS_PER_SHARD: usize = 64;

/// The most shards (files) written.
const MAX_SHARDS: usize = 4096;

/// `data/search.js`: what a page needs to pick a shard.
#[derive(Debug, Serialize)]
struct Meta {
    /// Number of shards; 1 on a small site, whose one shard holds everyone (then a single
    /// typed character searches too).
    shards: usize,
    /// Players in each shard.
    sizes: Vec<usize>,
    /// Shards that held more than [`SHARD_CAP`] players and keep only the best of them.
    capped: Vec<usize>,
}

/// Folds a name as `static/site.js` does: colour codes (`^` and a letter or digit) removed,
/// white space trimmed, lower case.
pub fn fold(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '^' && chars.peek().is_some_and(|n| n.is_ascii_alphanumeric()) {
            chars.next();
            continue;
        }
        out.push(c);
    }
    out.trim().to_lowercase()
}

/// [`fold`]`(name)` as characters, into `out` (cleared first): a crowd folds each of its tens of
/// thousands of players' names on every build, so a name of ASCII (most are) is folded in place,
/// without the three strings `fold` makes; any other name goes through `fold` itself.
fn fold_chars(name: &str, out: &mut Vec<char>) {
    out.clear();
    if !name.is_ascii() {
        out.extend(fold(name).chars());
        return;
    }
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '^' && chars.peek().is_some_and(|n| n.is_ascii_alphanumeric()) {
            chars.next();
            continue;
        }
        out.push(c.to_ascii_lowercase());
    }
    // `str::trim`'s white space, at both ends.
    let end = out
        .iter()
        .rposition(|c| !c.is_whitespace())
        .map_or(0, |e| e + 1);
    out.truncate(end);
    let start = out.iter().position(|c| !c.is_whitespace()).unwrap_or(0);
    out.drain(..start);
}

/// The shard of the bigram `a b` among `shards` (the same arithmetic as `static/site.js`, on
/// 32-bit unsigned integers).
pub fn bucket(a: char, b: char, shards: usize) -> usize {
    let k = (a as u32).wrapping_mul(65_599).wrapping_add(b as u32);
    let mut h = k.wrapping_mul(0x9E37_79B1);
    h ^= h >> 15;
    (h as usize) % shards.max(1)
}

/// How many shards a site of `players` listed players gets: about [`PLAYERS_PER_SHARD`] each,
/// a power of two, 1 for a small site.
fn shard_count(players: usize) -> usize {
    (players / PLAYERS_PER_SHARD)
        .max(1)
        .next_power_of_two()
        .min(MAX_SHARDS)
}

/// `data/search.js` and `data/search/<n>.js` for `entries` (`[shown, url, other names…]`, as
/// in `data/search-index.js`), given best on the ladder first.
pub fn files<E: AsRef<[String]> + Sync>(entries: &[E]) -> Result<Vec<OutputFile>> {
    let shards = shard_count(entries.len());
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); shards];
    let mut seen: Vec<usize> = Vec::new();
    let mut folded: Vec<char> = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        seen.clear();
        if shards == 1 {
            seen.push(0);
        }
        // The URL (index 1) is not searched.
        for name in entry.as_ref().iter().enumerate().filter(|(k, _)| *k != 1) {
            fold_chars(name.1, &mut folded);
            for pair in folded.windows(2) {
                seen.push(bucket(pair[0], pair[1], shards));
            }
        }
        seen.sort_unstable();
        seen.dedup();
        for &s in &seen {
            members[s].push(i);
        }
    }
    let meta = Meta {
        shards,
        sizes: members.iter().map(|m| m.len().min(SHARD_CAP)).collect(),
        capped: (0..shards)
            .filter(|&s| members[s].len() > SHARD_CAP)
            .collect(),
    };
    let mut files = vec![script_file(
        "data/search.js",
        "window.FRAGSTATS_SEARCH = ",
        &meta,
        ";\n",
    )?];
    // The page reads each shard from this table once the script has loaded. About a hundred
    // shards on a public server's site, together as large as the whole index: made in parallel.
    let shards: Vec<OutputFile> = (members.par_iter().enumerate())
        .map(|(s, list)| {
            let shard: Vec<&[String]> = (list.iter().take(SHARD_CAP))
                .map(|&i| entries[i].as_ref())
                .collect();
            script_file(
                &format!("data/search/{s}.js"),
                &format!("(window.FRAGSTATS_SHARDS = window.FRAGSTATS_SHARDS || {{}})[{s}] = "),
                &shard,
                ";\n",
            )
        })
        .collect::<Result<_>>()?;
    files.extend(shards);
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str) -> Vec<String> {
        vec![name.to_string(), format!("players/{name}.html")]
    }

    /// The shard contents a page would read, by shard number.
    fn shard_entries(files: &[OutputFile], s: usize) -> Vec<Vec<String>> {
        let file = files
            .iter()
            .find(|f| f.path == format!("data/search/{s}.js"))
            .unwrap();
        let text = String::from_utf8(file.to_vec()).unwrap();
        let json = text
            .split_once("] = ")
            .unwrap()
            .1
            .trim_end()
            .trim_end_matches(';');
        serde_json::from_str(json).unwrap()
    }

    /// Folding matches site.js: colour codes out (a `^` before a non-alphanumeric stays), trim,
    /// lower case (also beyond ASCII).
    #[test]
    fn fold_removes_colour_codes_and_case() {
        assert_eq!(fold(" ^1Red^7DEVIL "), "reddevil");
        assert_eq!(fold("^^1x^"), "^x^");
        assert_eq!(fold("ÄRGER"), "ärger");
    }

    /// The characters folded in place are `fold`'s: colour codes at either end and beside
    /// white space, every kind of ASCII white space, upper case, and names beyond ASCII.
    #[test]
    fn folding_in_place_is_fold() {
        let mut out = vec!['x'];
        for name in [
            "",
            " ",
            "^1",
            " ^1Red^7DEVIL ",
            "^^1x^",
            "ÄRGER",
            "\t\x0b\x0c\r\n A b \x0b",
            "^7 x ^1",
            "a^",
            "^ ",
            "ΌΣΟΣ",
            "  \u{3000}Ab\u{3000}",
            "Player 12",
            "x\x1fY\x1f",
        ] {
            fold_chars(name, &mut out);
            assert_eq!(out, fold(name).chars().collect::<Vec<_>>(), "{name:?}");
        }
    }

    /// On a crowd, every player is in the shard of each bigram of each of their names, so the
    /// smallest shard among a query's bigrams finds every player containing it; a small site has
    /// one shard of everyone.
    #[test]
    fn each_bigram_of_each_name_leads_to_a_shard_holding_the_player() {
        let mut entries: Vec<Vec<String>> =
            (0..5000).map(|n| entry(&format!("Gamer{n}"))).collect();
        entries.push(vec![
            "^1Red^7Devil".into(),
            "players/boss.html".into(),
            "Boss".into(),
        ]);
        let files = files(&entries).unwrap();
        let shards = shard_count(entries.len());
        assert!(shards > 1);
        assert_eq!(files.len(), shards + 1);
        let meta = String::from_utf8(files[0].to_vec()).unwrap();
        let meta: serde_json::Value = serde_json::from_str(
            meta.split_once(" = ")
                .unwrap()
                .1
                .trim_end()
                .trim_end_matches(';'),
        )
        .unwrap();
        for query in ["devil", "boss", "dd", "reddev", "rb"] {
            let q: Vec<char> = query.chars().collect();
            // As the page picks: the smallest shard among the query's bigrams.
            let smallest = q
                .windows(2)
                .map(|pair| bucket(pair[0], pair[1], shards))
                .min_by_key(|&s| meta["sizes"][s].as_u64().unwrap())
                .unwrap();
            let found = shard_entries(&files, smallest);
            assert_eq!(
                found.iter().any(|e| e[1] == "players/boss.html"),
                query != "rb",
                "{query}: shard {smallest}"
            );
            assert!(found.len() < SHARD_CAP, "{query}: shard {smallest}");
        }
        // "ga" is in every name: its shard is capped, best first.
        let common = bucket('g', 'a', shards);
        assert!(meta["capped"].as_array().unwrap().contains(&common.into()));
        assert_eq!(meta["sizes"][common], SHARD_CAP);
        let found = shard_entries(&files, common);
        assert_eq!(found.len(), SHARD_CAP);
        assert_eq!(found[0][0], "Gamer0");
        let small = super::files(&entries[..10]).unwrap();
        assert_eq!(small.len(), 2);
        assert_eq!(shard_entries(&small, 0).len(), 10);
    }

    /// Hand-computed with the 32-bit arithmetic site.js uses: ('a', 'b') → k = 97 * 65599 + 98
    /// = 6363201, h = k * 0x9E3779B1 mod 2^32, h ^= h >> 15.
    #[test]
    fn bucket_is_the_documented_hash() {
        let k: u64 = 97 * 65_599 + 98;
        let h = (k * 0x9E37_79B1) % (1 << 32);
        let h = h ^ (h >> 15);
        assert_eq!(bucket('a', 'b', 1024), (h % 1024) as usize);
        assert_eq!(bucket('a', 'b', 1), 0);
        // As node computes the function of site.js.
        assert_eq!(bucket('a', 'b', 1024), 751);
        assert_eq!(bucket('\u{10FFFF}', '\u{10FFFE}', 4096), 3837);
        assert_eq!(bucket('ä', 'r', 1024), 574);
    }
}
