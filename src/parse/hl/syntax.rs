//! The pieces of Half-Life log standard syntax: the line frame (`L ` file frame, CS2's HTTP
//! frame, the UDP header, a BOM), player blocks read from the right, positions and properties.
//! Pure functions on one line; they know nothing of matches.

use chrono::{NaiveDate, NaiveDateTime};

/// Why a line has no usable frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameError {
    /// The line starts like a frame but stops before its end (a cut-off last line).
    CutOff,
    /// The line does not start with a frame at all.
    Missing,
}

/// Which frame a line had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// `L MM/DD/YYYY - HH:MM:SS: ` (files and UDP).
    File,
    /// `MM/DD/YYYY - HH:MM:SS.mmm - ` (CS2 `logaddress_add_http`).
    Http,
}

/// The stamp digits of a frame, kept as bytes so a repeated stamp is not parsed twice.
pub type StampBytes = [u8; 25];

/// A framed line: its stamp (as bytes and parsed), its kind and the event text after it.
pub struct Framed<'a> {
    pub stamp: StampBytes,
    pub kind: FrameKind,
    pub event: &'a [u8],
}

/// Strips what can come before the frame: a UTF-8 BOM, the UDP `FF FF FF FF` header with its
/// packet type (`R` on Source, `log ` on GoldSrc).
fn strip_prefixes(mut line: &[u8]) -> &[u8] {
    if let Some(rest) = line.strip_prefix(b"\xEF\xBB\xBF") {
        line = rest;
    }
    if let Some(rest) = line.strip_prefix(b"\xFF\xFF\xFF\xFF") {
        line = rest;
        if let Some(rest) = line.strip_prefix(b"log ") {
            line = rest;
        } else if let Some(rest) = line.strip_prefix(b"R") {
            line = rest;
        }
    }
    line
}

/// True when `pattern` (with `9` for a digit, other bytes literal) matches the start of `bytes`
/// as far as `bytes` goes; returns None when `bytes` is shorter than the pattern.
fn matches_pattern(bytes: &[u8], pattern: &[u8]) -> Option<bool> {
    // The whole pattern fits (every line but a cut-off one): one pass with no early exit.
    if let Some(head) = bytes.get(..pattern.len()) {
        let mut bad = 0u8;
        for (b, p) in head.iter().zip(pattern) {
            let digit = *p == b'9';
            bad |= u8::from(if digit { !b.is_ascii_digit() } else { b != p });
        }
        return Some(bad == 0);
    }
    for (i, p) in pattern.iter().enumerate() {
        let b = *bytes.get(i)?;
        let ok = if *p == b'9' {
            b.is_ascii_digit()
        } else {
            b == *p
        };
        if !ok {
            return Some(false);
        }
    }
    Some(true)
}

const FILE_FRAME: &[u8] = b"L 99/99/9999 - 99:99:99: ";
const HTTP_FRAME: &[u8] = b"99/99/9999 - 99:99:99.999 - ";

/// Splits a line into its frame and event text.
pub fn frame(line: &[u8]) -> Result<Framed<'_>, FrameError> {
    let line = strip_prefixes(line);
    for (kind, pattern) in [(FrameKind::File, FILE_FRAME), (FrameKind::Http, HTTP_FRAME)] {
        match matches_pattern(line, pattern) {
            Some(true) => {
                let digits = if kind == FrameKind::File {
                    &line[2..23]
                } else {
                    &line[..25]
                };
                let mut stamp = [0u8; 25];
                stamp[..digits.len()].copy_from_slice(digits);
                return Ok(Framed {
                    stamp,
                    kind,
                    event: &line[pattern.len()..],
                });
            }
            Some(false) => {}
            // Shorter than a frame: cut off when what there is agrees with the frame so far.
            None => {
                if line.len() >= 2 && matches_pattern(line, &pattern[..line.len()]) == Some(true) {
                    return Err(FrameError::CutOff);
                }
            }
        }
    }
    // A frame whose stamp stops early (`L 09/29/2010 - 19:36:`) also ends the line.
    if line.len() < FILE_FRAME.len() && line.starts_with(b"L ") {
        return Err(FrameError::CutOff);
    }
    Err(FrameError::Missing)
}

/// Parses the stamp bytes of a frame (`MM/DD/YYYY - HH:MM:SS` with an optional `.mmm`).
pub fn parse_stamp(s: &StampBytes) -> Option<NaiveDateTime> {
    let n = |a: usize, b: usize| -> u32 {
        s[a..b]
            .iter()
            .fold(0u32, |acc, d| acc * 10 + u32::from(d.wrapping_sub(b'0')))
    };
    let date = NaiveDate::from_ymd_opt(n(6, 10) as i32, n(0, 2), n(3, 5))?;
    let milli = if s[21] == b'.' { n(22, 25) } else { 0 };
    date.and_hms_milli_opt(n(13, 15), n(16, 18), n(19, 21), milli)
}

/// A player block `"Name<uid><authid><team>"`, read from the right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block<'a> {
    pub name: &'a str,
    pub uid: &'a str,
    pub authid: &'a str,
    /// The team field; None in CS:GO's three-field block (`switched from team`).
    pub team: Option<&'a str>,
}

/// The `<...>` groups at the end of `inner`, from the right (at most 8), each with the byte
/// index where it starts, and how many were found. Nested brackets (`<<none>>`) stay inside
/// their group.
fn groups_from_right(inner: &str) -> ([(usize, &str); 8], usize) {
    let bytes = inner.as_bytes();
    let mut out = [(0, ""); 8];
    let mut n = 0;
    let mut end = bytes.len();
    while n < out.len() && end > 0 && bytes[end - 1] == b'>' {
        let mut depth = 0usize;
        let mut start = None;
        // Only the brackets matter: jump from one to the next.
        for i in memchr::memrchr2_iter(b'<', b'>', &bytes[..end]) {
            match bytes[i] {
                b'>' => depth += 1,
                b'<' => {
                    depth -= 1;
                    if depth == 0 {
                        start = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(start) = start else { break };
        out[n] = (start, &inner[start + 1..end - 1]);
        n += 1;
        end = start;
    }
    (out, n)
}

fn is_uid(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.len() <= 10 && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Parses the text between a player block's quotes. `fields` is 4 (name, uid, authid, team) or 3
/// (no team); Left 4 Dead 2's nine-field block (character, state, health, position and area after
/// the team) is recognised by its `setpos` field whatever `fields` says.
pub fn block(inner: &str, fields: usize) -> Option<Block<'_>> {
    let (g, n) = groups_from_right(inner);
    let g = &g[..n];
    // Nine fields: area, position, health, state, character, team, authid, uid (from the right).
    if g.len() == 8 && g[1].1.starts_with("setpos") && is_uid(g[7].1) {
        return Some(Block {
            name: &inner[..g[7].0],
            uid: g[7].1,
            authid: g[6].1,
            team: Some(g[5].1),
        });
    }
    match fields {
        3 if g.len() >= 2 && is_uid(g[1].1) => Some(Block {
            name: &inner[..g[1].0],
            uid: g[1].1,
            authid: g[0].1,
            team: None,
        }),
        4 if g.len() >= 3 && is_uid(g[2].1) => Some(Block {
            name: &inner[..g[2].0],
            uid: g[2].1,
            authid: g[1].1,
            team: Some(g[0].1),
        }),
        _ => None,
    }
}

/// The position ` [x y z]` at the start of `s` (CS:GO and CS2 write one after a player block),
/// rounded to whole world units; None when there is none or a coordinate is not a number.
pub fn position(s: &str) -> Option<[i32; 3]> {
    let rest = s.strip_prefix(" [")?;
    coordinates(&rest[..memchr::memchr(b']', rest.as_bytes())?])
}

/// Three coordinates `x y z` (TF2's `attacker_position "x y z"`), rounded to whole world units;
/// None unless there are exactly three finite numbers within a map's reach (±2^20 units).
pub fn coordinates(s: &str) -> Option<[i32; 3]> {
    let mut out = [0; 3];
    let mut parts = s.split_ascii_whitespace();
    for c in &mut out {
        let part = parts.next()?;
        // Most logs write whole units: read as such without the float parser.
        if let Ok(v) = part.parse::<i32>()
            && v.unsigned_abs() <= 1 << 20
        {
            *c = v;
            continue;
        }
        let v: f64 = part.parse().ok()?;
        if !v.is_finite() || v.abs() > f64::from(1 << 20) {
            return None;
        }
        *c = v.round() as i32;
    }
    parts.next().is_none().then_some(out)
}

/// Strips a leading ` [x y z]` world position (CS:GO and CS2 put one after a player block).
pub fn skip_position(s: &str) -> &str {
    let Some(rest) = s.strip_prefix(" [") else {
        return s;
    };
    match memchr::memchr(b']', rest.as_bytes()) {
        Some(i)
            if rest[..i]
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b' ' | b'-' | b'.')) =>
        {
            &rest[i + 1..]
        }
        _ => s,
    }
}

/// A player block at the start of `s` (which starts with `"`), with the text after its closing
/// quote. The block ends at the first `>"` where the fields parse and what follows satisfies
/// `after`; a name may hold `"`, `<` and `>`, so every candidate end is tried.
pub fn player_at<'a>(
    s: &'a str,
    fields: usize,
    after: impl Fn(&str) -> bool,
) -> Option<(Block<'a>, &'a str)> {
    let body = s.strip_prefix('"')?;
    for q in memchr::memchr_iter(b'"', body.as_bytes()) {
        // A block ends at a quote right after `>` (both ASCII: the slices stay on char bounds).
        if q == 0 || body.as_bytes()[q - 1] != b'>' {
            continue;
        }
        let rest = &body[q + 1..];
        if after(rest)
            && let Some(b) = block(&body[..q], fields)
        {
            return Some((b, rest));
        }
    }
    None
}

/// True when `rest` (the text after a leading player block) goes on with a verb: a space, an
/// optional position, then a letter.
pub fn verb_follows(rest: &str) -> bool {
    let r = skip_position(rest);
    r.strip_prefix(' ')
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_alphabetic()))
}

/// True when `rest` (the text after a second player block) ends the line or goes on with a
/// position, a property or `with "weapon"`.
pub fn object_ends(rest: &str) -> bool {
    let r = skip_position(rest);
    r.is_empty() || r.starts_with(" (") || r.starts_with(" with \"") || r == " "
}

/// The value of a quoted word at the start of `s` (`"value" ...`, up to the next quote), and the
/// rest after its closing quote.
pub fn quoted(s: &str) -> Option<(&str, &str)> {
    let body = s.strip_prefix('"')?;
    let end = memchr::memchr(b'"', body.as_bytes())?;
    Some((&body[..end], &body[end + 1..]))
}

/// The value of a quoted text that ends its line (a new name, chat): up to the last quote, so
/// quotes inside stay in (`say ""-- PUSH CONFIG LOADED --""`).
pub fn quoted_to_end(s: &str) -> Option<&str> {
    let body = s.strip_prefix('"')?;
    let end = memchr::memrchr(b'"', body.as_bytes())?;
    Some(&body[..end])
}

/// Iterates the properties of a line tail: `(key "value")` gives `(key, Some(value))`, a bare
/// `(flag)` gives `(flag, None)`. Text between properties is skipped.
pub fn properties(s: &str) -> impl Iterator<Item = (&str, Option<&str>)> {
    let mut rest = s;
    std::iter::from_fn(move || {
        loop {
            let open = memchr::memchr(b'(', rest.as_bytes())?;
            let after = &rest[open + 1..];
            let key_len = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(after.len());
            let key = &after[..key_len];
            let tail = &after[key_len..];
            if key.is_empty() {
                rest = after;
                continue;
            }
            if let Some(t) = tail.strip_prefix(')') {
                rest = t;
                return Some((key, None));
            }
            if let Some(t) = tail.strip_prefix(" \"") {
                let Some(end) = t.find("\")") else {
                    rest = t;
                    continue;
                };
                rest = &t[end + 2..];
                return Some((key, Some(&t[..end])));
            }
            rest = tail;
        }
    })
}

/// The value of property `key` in a line tail.
pub fn property<'a>(s: &'a str, key: &str) -> Option<&'a str> {
    properties(s).find(|(k, _)| *k == key).and_then(|(_, v)| v)
}

/// True when the tail has the bare flag `(flag)`.
#[cfg(test)]
pub fn has_flag(s: &str, flag: &str) -> bool {
    properties(s).any(|(k, v)| k == flag && v.is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames() {
        let f = frame(b"L 08/05/2013 - 20:50:00: Loading map \"de_dust2\"").unwrap();
        assert_eq!(f.kind, FrameKind::File);
        assert_eq!(f.event, b"Loading map \"de_dust2\"");
        let t = parse_stamp(&f.stamp).unwrap();
        assert_eq!(t.to_string(), "2013-08-05 20:50:00");
        let f = frame(b"01/09/2024 - 03:52:14.075 - World triggered \"Match_Start\"").unwrap();
        assert_eq!(f.kind, FrameKind::Http);
        assert_eq!(
            parse_stamp(&f.stamp).unwrap().to_string(),
            "2024-01-09 03:52:14.075"
        );
        // UDP header (Source `R`, GoldSrc `log `) and BOM.
        assert!(frame(b"\xFF\xFF\xFF\xFFRL 08/05/2013 - 20:50:00: x").is_ok());
        assert!(frame(b"\xFF\xFF\xFF\xFFlog L 08/05/2013 - 20:50:00: x").is_ok());
        assert!(frame(b"\xEF\xBB\xBFL 08/05/2013 - 20:50:00: x").is_ok());
        assert_eq!(
            frame(b"L 09/29/2010 - 19:36:").err(),
            Some(FrameError::CutOff)
        );
        assert_eq!(frame(b"Blue Team: BLU").err(), Some(FrameError::Missing));
        assert_eq!(frame(b"").err(), Some(FrameError::Missing));
        // Digits that make no date.
        let f = frame(b"L 99/99/2013 - 20:50:00: x").unwrap();
        assert!(parse_stamp(&f.stamp).is_none());
    }

    #[test]
    fn blocks_from_the_right() {
        let b = block("Erik<164><BOT><TERRORIST>", 4).unwrap();
        assert_eq!(
            (b.name, b.uid, b.authid, b.team),
            ("Erik", "164", "BOT", Some("TERRORIST"))
        );
        let b = block("Maximus<1><<none>><CT>", 4).unwrap();
        assert_eq!((b.name, b.authid), ("Maximus", "<none>"));
        let b = block("a<b>\"<c><7><STEAM_0:1:2><>", 4).unwrap();
        assert_eq!((b.name, b.uid, b.team), ("a<b>\"<c>", "7", Some("")));
        let b = block("Erik<164><BOT>", 3).unwrap();
        assert_eq!((b.name, b.team), ("Erik", None));
        let nine = "Rochelle<130><BOT><Survivor><Producer><ALIVE><77+0><setpos_exact 6594.13 -1356.83 86.03; setang 5.33 330.64 0.00><Area 196066>";
        let b = block(nine, 4).unwrap();
        assert_eq!(
            (b.name, b.uid, b.authid, b.team),
            ("Rochelle", "130", "BOT", Some("Survivor"))
        );
        assert!(block("no block", 4).is_none());
        assert!(block("x<a><b><c>", 4).is_none());
    }

    #[test]
    fn players_and_properties() {
        let line = "\"A<2><BOT><CT>\" [1 2 3] killed \"B \\\"<x>\\\"<3><BOT><TERRORIST>\" [-1 -2 -3] with \"ak47\" (headshot)";
        let (a, rest) = player_at(line, 4, verb_follows).unwrap();
        assert_eq!(a.name, "A");
        let rest = skip_position(rest);
        let v = rest.strip_prefix(" killed ").unwrap();
        let (b, rest) = player_at(v, 4, object_ends).unwrap();
        assert_eq!(b.name, "B \\\"<x>\\\"");
        let rest = skip_position(rest);
        let (w, tail) = quoted(rest.strip_prefix(" with ").unwrap()).unwrap();
        assert_eq!(w, "ak47");
        assert!(has_flag(tail, "headshot"));
        let tail = " (customkill \"headshot\") (attacker_position \"-1 2 3\")";
        assert_eq!(property(tail, "customkill"), Some("headshot"));
        assert!(!has_flag(tail, "headshot"));
        let text = quoted_to_end("\"\"-- PUSH CONFIG LOADED --\"\"").unwrap();
        assert_eq!(text, "\"-- PUSH CONFIG LOADED --\"");
        assert_eq!(quoted("\"CT\" triggered \"x\" (CT \"1\")").unwrap().0, "CT");
    }
}
