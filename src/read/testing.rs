//! What the tests of reading a large log in parts share ([`super::parallel`] in pieces,
//! [`super::windows`] in windows): one call over a file to compare with, and a record of what
//! a reading tells settled.

use std::path::Path;

use super::parallel::parse_range;
use crate::diagnostics::FileReport;
use crate::model::Match;
use crate::parse::{Checkpoint, LogFormat, Source};

/// The source every test file is read as.
pub fn source() -> Source {
    Source {
        path: "x.log".into(),
        file_index: 3,
    }
}

/// One `parse` call over the file at `path` from `resume`: report, matches, checkpoint.
pub fn whole(
    parser: &dyn LogFormat,
    path: &Path,
    resume: Option<&Checkpoint>,
    report: &FileReport,
) -> (FileReport, Vec<Match>, Option<Checkpoint>) {
    let mut report = report.clone();
    let offset = resume.map_or(0, |c| c.offset);
    let f = std::fs::File::open(path).unwrap();
    let parsed = parse_range(parser, f, &source(), &mut report, resume, offset, None).unwrap();
    (report, parsed.matches, parsed.checkpoint)
}

/// What a reading in parts gave (its report and result) is what one call gave (`expected`,
/// as [`whole`] returns it).
pub fn same(
    (report, got): (FileReport, super::parallel::Parsed),
    expected: &(FileReport, Vec<Match>, Option<Checkpoint>),
    what: &str,
) {
    assert_eq!(report, expected.0, "report of {what}");
    assert_eq!(got.checkpoint, expected.2, "checkpoint of {what}");
    assert_eq!(got.matches.len(), expected.1.len(), "matches of {what}");
    assert!(got.matches == expected.1, "matches of {what}");
}

/// The counts of settled matches a reading told, in order.
#[derive(Default)]
pub struct Told(pub Vec<usize>);

impl Told {
    /// What a reading calls with the matches so far and how many are settled: a count never
    /// shrinks and never passes the matches read.
    pub fn teller(&mut self) -> impl FnMut(&mut [Match], usize) + '_ {
        |matches, n| {
            assert!(n <= matches.len() && self.0.last().is_none_or(|&t| t <= n));
            self.0.push(n);
        }
    }

    /// The last count told is at most every match before the last checkpoint of a reading
    /// from `resume` that ended at `checkpoint`.
    pub fn check(&self, checkpoint: Option<&Checkpoint>, resume: Option<&Checkpoint>, what: &str) {
        let settled = checkpoint.map_or(0, |c| c.matches) - resume.map_or(0, |c| c.matches);
        assert!(
            self.0.last().is_none_or(|&t| t <= settled),
            "settled of {what}"
        );
    }
}
