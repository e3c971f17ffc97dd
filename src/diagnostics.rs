//! What was read and what was skipped, per file and reason, with the first few examples, so a site
//! owner can see exactly what the logs held that fragstats did not use. Nothing here decides what to
//! skip; the crawler and parsers report into it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

/// How many example lines are kept per reason and file.
pub const EXAMPLES_PER_REASON: usize = 3;
/// Examples are cut to this many characters.
const EXAMPLE_CHARS: usize = 120;

/// One example of a skipped line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Example {
    pub line: u64,
    pub text: String,
}

/// How often one reason occurred, with the first examples.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
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
            self.examples.push(Example { line, text });
        }
    }
}

/// What happened to one input file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
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
        for f in self.files.iter().filter(|f| f.file_skipped.is_some()) {
            let _ = writeln!(
                out,
                "skipped file {}: {}",
                f.path,
                f.file_skipped.as_deref().unwrap_or_default()
            );
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
    }
}
