//! What was read and what was skipped, per file and reason, with the first few examples, so a site
//! owner can see exactly what the logs held that fragstats did not use. Nothing here decides what to
//! skip; the crawler and parsers report into it. What is published passes [`NameFilter`] first:
//! the examples are stored as read, and the names to leave out are the config's of each build.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

pub use crate::model::name_filter::{HIDDEN_NAME, NameFilter};

/// How many example lines are kept per reason and file.
pub const EXAMPLES_PER_REASON: usize = 3;
/// Above this many files, the summary lists only files where something was skipped.
const PER_FILE_LIMIT: usize = 40;
/// Examples are cut to this many characters.
const EXAMPLE_CHARS: usize = 120;

/// One example of a skipped line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Example {
    pub line: u64,
    pub text: String,
}

/// How often one reason occurred, with the first examples.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub count: u64,
    pub examples: Vec<Example>,
}

impl Tally {
    fn add(&mut self, line: u64, text: &str) {
        self.count += 1;
        if self.examples.len() < EXAMPLES_PER_REASON {
            let mut text: String = text.chars().take(EXAMPLE_CHARS).collect();
            text.retain(|c| !c.is_control());
            self.examples.push(Example {
                line,
                text: redact(&text),
            });
        }
    }
}

/// Hides what identifies a person in an example line: IPv4 addresses, long hexadecimal
/// strings (guids) and Steam ids. Examples end up in `data/diagnostics.json`, which is published.
pub fn redact(text: &str) -> String {
    let text = redact_steam_ids(text);
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while !rest.is_empty() {
        let token_end = rest
            .find(|c: char| !(c.is_ascii_hexdigit() || c == '.' || c == ':'))
            .unwrap_or(rest.len());
        if token_end == 0 {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let token = &rest[..token_end];
        let dotted = token.split(':').next().unwrap_or("");
        let is_ip = dotted.split('.').count() == 4
            && dotted
                .split('.')
                .all(|p| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit()));
        let is_guid = token.len() >= 16 && token.bytes().all(|b| b.is_ascii_hexdigit());
        if is_ip {
            out.push_str("[ip]");
        } else if is_guid {
            out.push_str("[guid]");
        } else {
            out.push_str(token);
        }
        rest = &rest[token_end..];
    }
    out
}

/// Replaces Steam ids (`STEAM_0:1:2345`, `[U:1:2345]`) with `[steamid]`.
fn redact_steam_ids(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let next = [rest.find("STEAM_"), rest.find("[U:")]
            .into_iter()
            .flatten()
            .min();
        let Some(at) = next else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let (prefix, close) = if tail.starts_with("STEAM_") {
            ("STEAM_", None)
        } else {
            ("[U:", Some(']'))
        };
        let body = &tail[prefix.len()..];
        let len = body
            .find(|c: char| !(c.is_ascii_digit() || c == ':'))
            .unwrap_or(body.len());
        let id_ok = len > 0 && body[..len].contains(':');
        let closed = close.is_none_or(|c| body[len..].starts_with(c));
        if id_ok && closed {
            out.push_str("[steamid]");
            rest = &body[len + usize::from(close.is_some())..];
        } else {
            out.push_str(prefix);
            rest = body;
        }
    }
}

/// What happened to one input file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileReport {
    /// Path as shown to the user (relative to its log root).
    pub path: String,
    /// Detected format, or None when the file was skipped whole.
    pub format: Option<String>,
    pub bytes: u64,
    pub lines: u64,
    pub matches: usize,
    /// Why the whole file was skipped, if it was.
    pub file_skipped: Option<String>,
    /// Lines not used, by reason.
    pub skipped_lines: BTreeMap<String, Tally>,
    /// Match-level notes (empty matches dropped, duplicates, partial matches), by reason.
    pub notes: BTreeMap<String, Tally>,
    /// Reached through a symbolic link (followed).
    #[serde(default)]
    pub via_link: bool,
}

impl FileReport {
    /// A report for `path`, nothing read yet.
    pub fn new(path: impl Into<String>) -> Self {
        FileReport {
            path: path.into(),
            ..Default::default()
        }
    }

    /// Records a line that was not used.
    pub fn skip_line(&mut self, reason: &str, line: u64, text: &str) {
        self.skipped_lines
            .entry(reason.to_string())
            .or_default()
            .add(line, text);
    }

    /// Records a match-level note at `line`.
    pub fn note(&mut self, reason: &str, line: u64, text: &str) {
        self.notes
            .entry(reason.to_string())
            .or_default()
            .add(line, text);
    }

    /// Whether anything in this file was skipped (the file, or lines of it).
    pub fn skipped_anything(&self) -> bool {
        self.file_skipped.is_some() || !self.skipped_lines.is_empty()
    }

    /// Number of lines skipped for any reason.
    pub fn skipped_line_count(&self) -> u64 {
        self.skipped_lines.values().map(|t| t.count).sum()
    }
}

/// Reports of every input file, in crawl order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Diagnostics {
    pub files: Vec<FileReport>,
}

impl Diagnostics {
    /// True when anything at all was skipped (a file, a line) or noted.
    pub fn anything_skipped(&self) -> bool {
        self.files
            .iter()
            .any(|f| f.file_skipped.is_some() || !f.skipped_lines.is_empty() || !f.notes.is_empty())
    }

    /// These reports as published: every file path, reason and example passed through
    /// `filter` (borrowed when it has no name).
    pub fn without_names(&self, filter: &NameFilter) -> Cow<'_, Diagnostics> {
        if filter.is_empty() {
            return Cow::Borrowed(self);
        }
        let tallies = |by_reason: &BTreeMap<String, Tally>| {
            let mut out: BTreeMap<String, Tally> = BTreeMap::new();
            for (reason, tally) in by_reason {
                // Two reasons made one by the filter are counted as one.
                let t = out.entry(filter.text(reason).into_owned()).or_default();
                t.count += tally.count;
                t.examples.extend(tally.examples.iter().map(|e| Example {
                    line: e.line,
                    text: filter.text(&e.text).into_owned(),
                }));
            }
            out
        };
        let files = self
            .files
            .iter()
            .map(|f| FileReport {
                path: filter.text(&f.path).into_owned(),
                format: f.format.clone(),
                file_skipped: f
                    .file_skipped
                    .as_deref()
                    .map(|s| filter.text(s).into_owned()),
                skipped_lines: tallies(&f.skipped_lines),
                notes: tallies(&f.notes),
                ..*f
            })
            .collect();
        Cow::Owned(Diagnostics { files })
    }

    /// The human summary printed on stderr after a build: totals, then per reason the count and
    /// the first examples with file and line.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        let read: Vec<&FileReport> = self.files.iter().filter(|f| f.format.is_some()).collect();
        let lines: u64 = read.iter().map(|f| f.lines).sum();
        let matches: usize = read.iter().map(|f| f.matches).sum();
        let _ = writeln!(
            out,
            "read {} log file(s): {} lines, {} matches",
            read.len(),
            lines,
            matches
        );
        // Per file; with many files only those where something was skipped.
        let many = read.len() > PER_FILE_LIMIT;
        for f in self.files.iter().filter(|f| !many || f.skipped_anything()) {
            match &f.file_skipped {
                Some(why) => {
                    let _ = writeln!(out, "  {}: skipped: {why}", f.path);
                }
                None => {
                    let _ = writeln!(
                        out,
                        "  {}: {}, {} lines, {} matches, {} lines skipped{}",
                        f.path,
                        f.format.as_deref().unwrap_or("?"),
                        f.lines,
                        f.matches,
                        f.skipped_line_count(),
                        if f.via_link {
                            " (through a symbolic link)"
                        } else {
                            ""
                        }
                    );
                }
            }
        }
        fn lines_of(f: &FileReport) -> &BTreeMap<String, Tally> {
            &f.skipped_lines
        }
        fn notes_of(f: &FileReport) -> &BTreeMap<String, Tally> {
            &f.notes
        }
        type Pick = fn(&FileReport) -> &BTreeMap<String, Tally>;
        for (title, pick) in [("skipped lines", lines_of as Pick), ("notes", notes_of)] {
            let mut by_reason: BTreeMap<&str, (u64, Vec<String>)> = BTreeMap::new();
            for f in &self.files {
                for (reason, tally) in pick(f) {
                    let entry = by_reason.entry(reason).or_default();
                    entry.0 += tally.count;
                    for ex in &tally.examples {
                        if entry.1.len() < EXAMPLES_PER_REASON {
                            entry.1.push(format!("{}:{}: {}", f.path, ex.line, ex.text));
                        }
                    }
                }
            }
            if by_reason.is_empty() {
                continue;
            }
            let _ = writeln!(out, "{title}:");
            for (reason, (count, examples)) in by_reason {
                let _ = writeln!(out, "  {count} x {reason}");
                for ex in examples {
                    let _ = writeln!(out, "      e.g. {ex}");
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_first_examples_and_counts_all() {
        let mut f = FileReport::new("a.log");
        for i in 1..=5 {
            f.skip_line("corrupt line", i, "x\u{7}y");
        }
        let t = &f.skipped_lines["corrupt line"];
        assert_eq!(t.count, 5);
        assert_eq!(t.examples.len(), EXAMPLES_PER_REASON);
        assert_eq!(t.examples[0].text, "xy");
        let d = Diagnostics { files: vec![f] };
        let s = d.summary();
        assert!(s.contains("5 x corrupt line"), "{s}");
        assert!(s.contains("e.g. a.log:1: xy"), "{s}");
        assert!(d.anything_skipped());
    }

    #[test]
    fn examples_hide_addresses_and_guids() {
        assert_eq!(
            redact(
                r"1:03 ClientUserinfo: 4 \ip\192.168.10.96:27960\cl_guid\0123456789ABCDEF0123456789ABCDEF\name\x 12:30"
            ),
            r"1:03 ClientUserinfo: 4 \ip\[ip]\cl_guid\[guid]\name\x 12:30"
        );
        assert_eq!(
            redact("Kill: 2 3 10: ab killed cd by MOD_X"),
            "Kill: 2 3 10: ab killed cd by MOD_X"
        );
        assert_eq!(redact("ʚϊɞ 1.2.3"), "ʚϊɞ 1.2.3");
        assert_eq!(
            redact(r#""Blah<8><STEAM_0:0:67410624><CT>" and "x<2><[U:1:6318168]><>" STEAM_ID_LAN"#),
            r#""Blah<8><[steamid]><CT>" and "x<2><[steamid]><>" STEAM_ID_LAN"#
        );
    }

    #[test]
    fn published_diagnostics_name_no_hidden_player() {
        let mut f = FileReport::new("cod/x.log");
        f.skip_line("winner/loser line", 3, "W;;0123456789abcdef0123;Ibragim");
        f.note("match with no players dropped", 9, "mp_rust");
        let d = Diagnostics { files: vec![f] };
        let published = d.without_names(&NameFilter::new(["Ibragim"]));
        let json = serde_json::to_string(&*published).unwrap();
        assert!(!json.contains("Ibragim"), "{json}");
        assert!(json.contains("W;;[guid];[hidden]"), "{json}");
        assert_eq!(published.files[0].notes, d.files[0].notes);
        assert!(matches!(
            d.without_names(&NameFilter::default()),
            Cow::Borrowed(_)
        ));
    }
}
