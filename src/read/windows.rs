//! Parsing one large log that cannot be cut into pieces ([`LogFormat::splittable`]: every
//! format but Quake 3's) a window of bytes at a time, each window from the last checkpoint the
//! one before reached, so that the matches settled so far can be stored while the rest is read
//! (a Call of Duty server's `games_mp.log`, never rotated, is not held whole). The matches, the
//! report and the checkpoint are exactly those of one [`LogFormat::parse`] call: a window's
//! matches after its last checkpoint are dropped and read again by the next window, from that
//! checkpoint, as an incremental build resumes a grown log. Not the parsing of pieces side by
//! side (see [`super::parallel`]).

use std::fs::File;
use std::io;

use super::parallel::{Parsed, parse_range};
use crate::diagnostics::FileReport;
use crate::model::Match;
use crate::parse::{Checkpoint, LogFormat, Source};

/// Bytes of log a window reads (a match is tens of kilobytes: a window holds hundreds).
pub const WINDOW_BYTES: u64 = 32 << 20;

/// Whether a file of `size` bytes read from `resume` is worth reading in windows of `window`.
pub fn worth_it(size: u64, resume: Option<&Checkpoint>, window: u64) -> bool {
    size.saturating_sub(resume.map_or(0, |c| c.offset)) >= 2 * window
}

/// Parses the open log `file` (`size` bytes when the read began) from `resume` (or its start)
/// to its end, `window` bytes at a time (the same file to the end, even if its log is rotated
/// meanwhile); the result and `report` are exactly those of one `parser.parse` call from
/// `resume`. After each window, `settled` is told how many of the matches so far are settled
/// (before the checkpoint reached).
#[allow(clippy::too_many_arguments)]
pub fn parse(
    parser: &dyn LogFormat,
    file: &File,
    size: u64,
    source: &Source,
    report: &mut FileReport,
    resume: Option<&Checkpoint>,
    window: u64,
    settled: &mut dyn FnMut(&mut [Match], usize),
) -> io::Result<Parsed> {
    let before_call = resume.map_or(0, |c| c.matches);
    let mut matches: Vec<Match> = Vec::new();
    // The last checkpoint a window reached (None before the first).
    let mut reached: Option<Checkpoint> = None;
    loop {
        let from = reached.as_ref().or(resume);
        let offset = from.map_or(0, |c| c.offset);
        let end = offset.saturating_add(window.max(1));
        let last = end >= size;
        // The file from the window's start to `to` (its end when None).
        let parse_to = |read: &mut FileReport, to: Option<u64>| {
            parse_range(parser, file.try_clone()?, source, read, from, offset, to)
        };
        let mut read = report.clone();
        let mut parsed = parse_to(&mut read, (!last).then_some(end))?;
        match parsed.checkpoint.take() {
            Some(c) if !last => {
                // Up to the checkpoint, as one call reads it; the rest again from there, in
                // the next window.
                parsed
                    .matches
                    .truncate(c.matches - from.map_or(0, |f| f.matches));
                matches.append(&mut parsed.matches);
                *report = c.report.clone();
                settled(&mut matches, c.matches - before_call);
                reached = Some(c);
            }
            checkpoint => {
                // The end of the file, or a window without a checkpoint (a match longer than a
                // window): the rest in one go.
                let rest = match last {
                    true => Parsed {
                        matches: parsed.matches,
                        checkpoint,
                    },
                    false => {
                        read = report.clone();
                        parse_to(&mut read, None)?
                    }
                };
                *report = read;
                matches.extend(rest.matches);
                return Ok(Parsed {
                    matches,
                    checkpoint: rest.checkpoint.or(reached),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{Detected, detect};
    use crate::read::testing::{Told, same, source, whole};

    /// Every real log of every format, read in windows of several sizes from its start and
    /// from a checkpoint in its middle, gives what one call gives: the report, the matches
    /// and the checkpoint; what is told settled never shrinks, and is every match before the
    /// checkpoint of the window that told it.
    #[test]
    fn every_real_log_reads_the_same_in_windows() {
        let Some(root) = crate::testdata::shared("data") else {
            return;
        };
        let paths = crate::testdata::log_files(&root);
        assert!(paths.len() >= 20, "the shared logs are there");
        let (mut formats, mut windowed) = (std::collections::BTreeSet::new(), 0);
        for path in &paths {
            let bytes = std::fs::read(path).unwrap();
            let head = &bytes[..bytes.len().min(crate::parse::SNIFF_BYTES)];
            let Detected::Parser(parser) = detect(head) else {
                continue;
            };
            let size = bytes.len() as u64;
            let mut start = FileReport::new("x.log");
            start.format = Some(parser.name().into());
            start.bytes = size;
            let first = whole(parser, path, None, &start);
            let middle = {
                let mut report = start.clone();
                let mut input = std::io::BufReader::new(std::io::Read::take(
                    std::fs::File::open(path).unwrap(),
                    size / 2,
                ));
                parser
                    .parse(&mut input, &source(), &mut report, &mut |_| {}, None)
                    .unwrap()
            };
            for resume in [None, middle.as_ref()] {
                let report = resume.map_or(start.clone(), |c| c.report.clone());
                let expected = match resume {
                    None => first.clone(),
                    Some(_) => whole(parser, path, resume, &report),
                };
                for window in [size / 3, size / 17, 4096, 700, 1] {
                    let mut got_report = report.clone();
                    let mut told = Told::default();
                    let got = parse(
                        parser,
                        &File::open(path).unwrap(),
                        size,
                        &source(),
                        &mut got_report,
                        resume,
                        window,
                        &mut told.teller(),
                    )
                    .unwrap();
                    let what = format!("{} in windows of {window}", path.display());
                    same((got_report, got), &expected, &what);
                    told.check(expected.2.as_ref(), resume, &what);
                    if told.0.iter().any(|&t| t > 0) {
                        windowed += 1;
                        formats.insert(parser.name());
                    }
                }
            }
        }
        assert!(
            windowed >= 20,
            "logs were read in several windows ({windowed})"
        );
        assert!(formats.len() >= 3, "of several formats: {formats:?}");
    }

    /// The file is read to its end as it was opened, even when its log is rotated meanwhile
    /// (another file in its place).
    #[test]
    fn the_open_file_is_read_when_the_log_is_rotated() {
        let Some(root) = crate::testdata::shared("data/public/cod") else {
            return;
        };
        let original = root.join("cod4-lan-bozo-games_mp.log");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games_mp.log");
        std::fs::copy(&original, &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let Detected::Parser(parser) = detect(&bytes[..crate::parse::SNIFF_BYTES]) else {
            panic!("a Call of Duty log")
        };
        let mut report = FileReport::new("x.log");
        report.bytes = bytes.len() as u64;
        let expected = whole(parser, &path, None, &report);
        let file = File::open(&path).unwrap();
        std::fs::rename(&path, dir.path().join("games_mp.log.1")).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 3]).unwrap();
        let mut told = Told::default();
        let got = parse(
            parser,
            &file,
            bytes.len() as u64,
            &source(),
            &mut report,
            None,
            bytes.len() as u64 / 4,
            &mut told.teller(),
        );
        let got = got.unwrap();
        assert!(!told.0.is_empty(), "read in windows");
        same((report, got), &expected, "the log rotated");
    }
}
