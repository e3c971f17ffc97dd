//! The read loop every log format shares: lines from the bounded reader ([`super::lines`]), a
//! line too long reported and skipped, each other line fed to the format's [`LineParser`], a
//! [`Checkpoint`] after each complete line where the parser could start again from its saved
//! state alone, and the file closed at its end. A format supplies only what it does with a line.

use std::io::BufRead;

use super::Checkpoint;
use super::lines::{Line, LineReader};
use crate::diagnostics::FileReport;
use crate::model::Match;

/// What one format's parser does with the lines of one file.
pub(crate) trait LineParser {
    /// Goes on after `checkpoint` (the lines are read from there): the matches it had emitted,
    /// and the format's own state it saved ([`Self::state`]).
    fn resume(&mut self, checkpoint: &Checkpoint);
    /// One line (its bytes, without the line ending) numbered `number`: true when after it no
    /// match is open and parsing could start again there from [`Self::state`] alone.
    fn feed(
        &mut self,
        bytes: &[u8],
        number: u64,
        report: &mut FileReport,
        emit: &mut dyn FnMut(Match),
    ) -> bool;
    /// Whether a match is open (no checkpoint is taken then).
    fn is_open(&self) -> bool;
    /// Matches emitted so far in the file (those before a resumed checkpoint included).
    fn emitted(&self) -> usize;
    /// What the format remembers across matches, saved in a checkpoint taken now.
    fn state(&self) -> Vec<u8> {
        Vec::new()
    }
    /// The file ended: closes the open match and gives every match still held.
    fn finish(&mut self, report: &mut FileReport, emit: &mut dyn FnMut(Match));
    /// Reading failed: gives the matches already finished that are still held (none by
    /// default); the open one is not closed.
    fn interrupted(&mut self, _emit: &mut dyn FnMut(Match)) {}
}

/// Parses `input` to its end with `parser` (see [`super::LogFormat::parse`]): returns the last
/// checkpoint reached, if any.
pub(crate) fn read_lines(
    parser: &mut impl LineParser,
    input: &mut dyn BufRead,
    report: &mut FileReport,
    emit: &mut dyn FnMut(Match),
    resume: Option<&Checkpoint>,
) -> std::io::Result<Option<Checkpoint>> {
    // Every match is kept for the whole build: settled as it is given.
    let emit = &mut |mut m: Match| {
        m.settle();
        emit(m)
    };
    let mut reader = LineReader::new(input);
    if let Some(c) = resume {
        reader = reader.starting_at(c.line, c.offset);
        parser.resume(c);
    }
    let mut checkpoint = None;
    loop {
        let (number, line) = match reader.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => {
                parser.interrupted(emit);
                return Err(e);
            }
        };
        let boundary = match line {
            Line::TooLong => {
                report.skip_line("line longer than 64 KiB", number, "");
                false
            }
            Line::Text(bytes) => parser.feed(bytes, number, report, emit),
        };
        if boundary && reader.complete && !parser.is_open() {
            let mut at = report.clone();
            at.lines = number;
            at.matches = parser.emitted();
            checkpoint = Some(Checkpoint {
                offset: reader.consumed,
                line: number,
                matches: parser.emitted(),
                report: at,
                state: parser.state(),
            });
        }
    }
    report.lines = reader.number;
    parser.finish(report, emit);
    report.matches = parser.emitted();
    Ok(checkpoint)
}
