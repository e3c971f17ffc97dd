//! Parsing one large log in pieces on the thread pool. The file is cut right after lines where
//! its format restarts from an empty state ([`LogFormat::resumes_after`]: a Quake 3
//! `ShutdownGame`); each piece is parsed from a checkpoint made up for its start (its offset, its
//! line number from a count of the newlines before it, an empty state), and the pieces are glued
//! in order: matches concatenated, the pieces' reports added up, match counts and checkpoints
//! shifted. Gluing checks that the piece before really ended at a checkpoint with an empty state
//! at the cut; where it did not, the rest of the file is parsed in one piece from the last real
//! checkpoint. So the matches, the report and the checkpoint are always exactly what one
//! [`LogFormat::parse`] call over the file gives.

use std::fs::File;
use std::io::{self, BufReader, Read as _, Seek, SeekFrom};
use std::path::Path;

use rayon::prelude::*;

use crate::diagnostics::{FileReport, Tally};
use crate::model::Match;
use crate::parse::lines::{Line, LineReader};
use crate::parse::{Checkpoint, LogFormat, Source};

/// Pieces are about this long: big enough that starting a piece costs nothing, small enough to
/// share a 30 MB log among the cores.
pub const PIECE_BYTES: u64 = 4 << 20;
/// How far past a piece's planned end a cut is looked for (a match is tens of kilobytes).
const SEARCH_BYTES: u64 = 16 << 20;
/// Read buffer of each piece.
const BUFFER: usize = 256 * 1024;

/// What parsing a file (or the rest of it after `resume`) gave: the matches emitted by this call
/// (not those before `resume`) and the last checkpoint reached by it, as [`LogFormat::parse`]
/// returns it; `report` is updated as that call updates it.
pub struct Parsed {
    pub matches: Vec<Match>,
    pub checkpoint: Option<Checkpoint>,
}

/// Whether a file of `size` bytes read from `resume` is worth parsing in pieces of `piece`.
pub fn worth_it(
    parser: &dyn LogFormat,
    size: u64,
    resume: Option<&Checkpoint>,
    piece: u64,
) -> bool {
    let start = resume.map_or(0, |c| c.offset);
    parser.splittable() && size.saturating_sub(start) >= 2 * piece
}

/// Parses the file at `path` (`size` bytes when the read began) from `resume` (or its start) to
/// its end, in pieces of about `piece` bytes parsed in parallel; the result and `report` are
/// exactly those of one `parser.parse` call from `resume`. The pieces are parsed a few per
/// thread at a time and glued in order, and after each such window `settled` is told how many
/// of the matches so far are settled (before the last checkpoint), so that they can be stored
/// while the rest is read (a log of gigabytes is not held whole).
#[allow(clippy::too_many_arguments)]
pub fn parse(
    parser: &dyn LogFormat,
    path: &Path,
    size: u64,
    source: &Source,
    report: &mut FileReport,
    resume: Option<&Checkpoint>,
    piece: u64,
    settled: &mut dyn FnMut(&mut [Match], usize),
) -> io::Result<Parsed> {
    let start = resume.map_or(0, |c| c.offset);
    let cuts = cuts(parser, path, start, size, piece.max(1))?;
    // Line numbers at each cut: the newlines between consecutive cuts, counted in parallel.
    let bounds: Vec<u64> = std::iter::once(start).chain(cuts.iter().copied()).collect();
    let newlines: Vec<u64> = bounds
        .par_windows(2)
        .map(|w| count_newlines(path, w[0], w[1]))
        .collect::<io::Result<_>>()?;
    let mut line = resume.map_or(0, |c| c.line);
    let mut starts = vec![(start, line)];
    for (&cut, n) in cuts.iter().zip(&newlines) {
        line += n;
        starts.push((cut, line));
    }
    // A report with this file's fields and nothing counted: where every later piece starts.
    let blank = FileReport {
        lines: 0,
        matches: 0,
        skipped_lines: Default::default(),
        notes: Default::default(),
        ..report.clone()
    };
    let original = report.clone();
    let parse_piece = |i: usize| -> io::Result<(FileReport, Parsed)> {
        let (offset, line) = starts[i];
        let end = starts.get(i + 1).map(|s| s.0);
        if i == 0 {
            let mut r = original.clone();
            let parsed = parse_range(
                parser,
                File::open(path)?,
                source,
                &mut r,
                resume,
                offset,
                end,
            )?;
            return Ok((r, parsed));
        }
        let made_up = Checkpoint {
            offset,
            line,
            matches: 0,
            report: blank.clone(),
            state: Vec::new(),
        };
        let mut r = blank.clone();
        let f = File::open(path)?;
        let parsed = parse_range(parser, f, source, &mut r, Some(&made_up), offset, end)?;
        Ok((r, parsed))
    };
    let before_call = resume.map_or(0, |c| c.matches);
    let window = WINDOW_PIECES_PER_THREAD * rayon::current_num_threads().max(1);
    let mut matches = Vec::new();
    let mut reached: Option<Checkpoint> = None;
    for first in (0..starts.len()).step_by(window) {
        let last = (first + window).min(starts.len());
        let pieces: Vec<(FileReport, Parsed)> = (first..last)
            .into_par_iter()
            .map(parse_piece)
            .collect::<io::Result<_>>()?;
        for (i, (piece_report, piece)) in (first..last).zip(pieces) {
            if i == 0 {
                *report = piece_report;
                matches = piece.matches;
                reached = piece.checkpoint;
                continue;
            }
            let cut = starts[i].0;
            let glued = reached
                .as_ref()
                .is_some_and(|c| c.offset == cut && c.state.is_empty());
            if !glued {
                // The cut was not a clean restart: read on in one piece from the last
                // checkpoint.
                if reached.is_none() {
                    // No checkpoint at all yet: everything is read again from the start.
                    *report = original.clone();
                    matches.clear();
                }
                return read_on(parser, path, source, report, resume, matches, reached);
            }
            let before = reached.as_ref().map_or(0, |c| c.matches);
            let at_cut = report.clone();
            add(report, &piece_report);
            report.matches = before + piece_report.matches;
            matches.extend(piece.matches);
            if let Some(mut c) = piece.checkpoint {
                let mut r = at_cut;
                add(&mut r, &c.report);
                r.matches = before + c.report.matches;
                c.matches += before;
                c.report = r;
                reached = Some(c);
            }
        }
        if let Some(c) = &reached {
            settled(&mut matches, c.matches - before_call);
        }
    }
    Ok(Parsed {
        matches,
        checkpoint: reached,
    })
}

/// Pieces parsed at once per thread of the pool before they are glued (a window of pieces
/// holds their matches until then: on two threads, 32 MB of log).
const WINDOW_PIECES_PER_THREAD: usize = 4;

/// Parses `[offset, end)` of the file `f` (to its end when `end` is None) from `resume`.
pub(super) fn parse_range(
    parser: &dyn LogFormat,
    mut f: File,
    source: &Source,
    report: &mut FileReport,
    resume: Option<&Checkpoint>,
    offset: u64,
    end: Option<u64>,
) -> io::Result<Parsed> {
    f.seek(SeekFrom::Start(offset))?;
    let mut matches = Vec::new();
    // To the file's end when `end` is None (a limit no file reaches).
    let limit = end.map_or(u64::MAX, |end| end - offset);
    let mut input = BufReader::with_capacity(BUFFER, f.take(limit));
    let checkpoint = parser.parse(&mut input, source, report, &mut |m| matches.push(m), resume)?;
    Ok(Parsed {
        matches,
        checkpoint,
    })
}

/// The fallback when a cut was not clean: parses from `reached` (the last real checkpoint of
/// this call, keeping what came before it; else from `resume` or the start, with `report` and
/// `matches` as they were there) to the end.
fn read_on(
    parser: &dyn LogFormat,
    path: &Path,
    source: &Source,
    report: &mut FileReport,
    resume: Option<&Checkpoint>,
    mut matches: Vec<Match>,
    reached: Option<Checkpoint>,
) -> io::Result<Parsed> {
    let before = resume.map_or(0, |c| c.matches);
    let (from, offset) = match &reached {
        Some(c) => {
            matches.truncate(c.matches - before);
            *report = c.report.clone();
            (Some(c), c.offset)
        }
        None => (resume, resume.map_or(0, |c| c.offset)),
    };
    let mut rest = parse_range(
        parser,
        File::open(path)?,
        source,
        report,
        from,
        offset,
        None,
    )?;
    matches.append(&mut rest.matches);
    Ok(Parsed {
        matches,
        checkpoint: rest.checkpoint.or(reached),
    })
}

/// Adds the counts of `later` (a piece read after `report`'s) to `report`: line tallies and
/// notes add up, and the first examples stay the first ones; the line count is `later`'s.
fn add(report: &mut FileReport, later: &FileReport) {
    report.lines = later.lines;
    for (into, from) in [
        (&mut report.skipped_lines, &later.skipped_lines),
        (&mut report.notes, &later.notes),
    ] {
        for (reason, tally) in from {
            let t: &mut Tally = into.entry(reason.clone()).or_default();
            t.count += tally.count;
            let room = crate::diagnostics::EXAMPLES_PER_REASON.saturating_sub(t.examples.len());
            t.examples.extend(tally.examples.iter().take(room).cloned());
        }
    }
}

/// Where to cut `[start, size)`: right after a line [`LogFormat::resumes_after`] accepts, the
/// first one past `start + piece`, then the first one at least `piece` bytes after the
/// previous cut, and so on (each search reads about one match).
fn cuts(
    parser: &dyn LogFormat,
    path: &Path,
    start: u64,
    size: u64,
    piece: u64,
) -> io::Result<Vec<u64>> {
    let mut f = File::open(path)?;
    let mut cuts = Vec::new();
    let mut target = start + piece;
    // The last piece is not made much shorter than the others.
    while target + piece / 2 < size {
        let (found, searched) = cut_after(parser, &mut f, target, size)?;
        match found {
            Some(cut) => {
                cuts.push(cut);
                target = cut + piece;
            }
            None if searched < SEARCH_BYTES => break,
            None => target += searched,
        }
    }
    Ok(cuts)
}

/// The end of the first line that starts after `target` and that the format restarts after,
/// before `size` and within [`SEARCH_BYTES`]; and how many bytes were searched.
fn cut_after(
    parser: &dyn LogFormat,
    f: &mut File,
    target: u64,
    size: u64,
) -> io::Result<(Option<u64>, u64)> {
    f.seek(SeekFrom::Start(target))?;
    let limit = SEARCH_BYTES.min(size.saturating_sub(target));
    let mut input = BufReader::with_capacity(64 * 1024, (&mut *f).take(limit));
    let mut reader = LineReader::new(&mut input).starting_at(0, target);
    // The first line read may have begun before the target: it is not a candidate.
    if reader.next_line()?.is_none() {
        return Ok((None, limit));
    }
    while let Some((_, line)) = reader.next_line()? {
        let restarts = matches!(line, Line::Text(text) if parser.resumes_after(text));
        if restarts && reader.complete {
            let cut = reader.consumed;
            return Ok(((cut < size).then_some(cut), cut - target));
        }
    }
    Ok((None, limit))
}

/// Newlines in `[from, to)` of the file.
fn count_newlines(path: &Path, from: u64, to: u64) -> io::Result<u64> {
    let mut f = File::open(path)?.take(to);
    f.get_mut().seek(SeekFrom::Start(from))?;
    f.set_limit(to - from);
    let mut buf = vec![0u8; BUFFER];
    let mut n = 0u64;
    loop {
        let got = match f.read(&mut buf) {
            Ok(0) => return Ok(n),
            Ok(got) => got,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        n += memchr::memchr_iter(b'\n', &buf[..got]).count() as u64;
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;
    use crate::parse::{Detected, detect, q3::Quake3};
    use crate::read::testing::{Told, same, source, whole as sequential};

    /// Checks that parsing `path` in pieces of every size in `pieces` gives what one sequential
    /// pass gives, from the start and from each of a few of the file's checkpoints; returns the
    /// most cuts one piece size made.
    fn same_in_pieces(parser: &dyn LogFormat, path: &Path, pieces: &[u64]) -> usize {
        let size = std::fs::metadata(path).unwrap().len();
        let mut start = FileReport::new("x.log");
        start.format = Some(parser.name().into());
        start.bytes = size;
        let whole = sequential(parser, path, None, &start);
        // Resume points: the file's checkpoints, as an incremental read finds them.
        let mut resumes = vec![None];
        if let Some(c) = &whole.2 {
            let mut half = start.clone();
            let mut cut = Vec::new();
            let mut reader = BufReader::new(File::open(path).unwrap().take(c.offset / 2));
            let cp = parser
                .parse(
                    &mut reader,
                    &source(),
                    &mut half,
                    &mut |m| cut.push(m),
                    None,
                )
                .unwrap();
            resumes.push(cp);
            resumes.push(Some(c.clone()));
        }
        let mut most = 0;
        for resume in resumes.iter().map(Option::as_ref) {
            let report = resume.map_or(start.clone(), |c| c.report.clone());
            let expected = sequential(parser, path, resume, &report);
            for &piece in pieces {
                let from = resume.map_or(0, |c| c.offset);
                most = most.max(cuts(parser, path, from, size, piece.max(1)).unwrap().len());
                let mut got_report = report.clone();
                let mut told = Told::default();
                let got = parse(
                    parser,
                    path,
                    size,
                    &source(),
                    &mut got_report,
                    resume,
                    piece,
                    &mut told.teller(),
                )
                .unwrap();
                let what = format!("{} in pieces of {piece} from {from}", path.display());
                same((got_report, got), &expected, &what);
                told.check(expected.2.as_ref(), resume, &what);
            }
        }
        most
    }

    #[test]
    fn every_real_log_parses_the_same_in_pieces() {
        let Some(root) = crate::testdata::shared("data") else {
            return;
        };
        let paths = crate::testdata::log_files(&root);
        assert!(paths.len() >= 20, "the shared logs are there");
        let mut split = 0;
        for path in &paths {
            let bytes = std::fs::read(path).unwrap();
            let head = &bytes[..bytes.len().min(crate::parse::SNIFF_BYTES)];
            let Detected::Parser(parser) = detect(head) else {
                continue;
            };
            let size = bytes.len() as u64;
            let pieces = [size / 2, size / 7, size / 40, 2048, 1];
            if same_in_pieces(parser, path, &pieces) > 0 {
                split += 1;
            }
        }
        assert!(split >= 5, "the Quake 3 logs were cut ({split} were)");
    }

    /// A Quake 3 log with what could fool a cut: a chat line naming ShutdownGame, a
    /// ShutdownGame with no match, lines between matches, a match never shut down, a line over
    /// the length limit, CRLF endings and a last line with no newline.
    fn tricky_log() -> Vec<u8> {
        let mut log = Vec::new();
        let w = &mut log;
        writeln!(w, "  0:01 Kill: 0 1 7: Ann killed Bob by MOD_ROCKET").unwrap();
        writeln!(w, "  0:02 ShutdownGame:").unwrap();
        writeln!(
            w,
            "  0:02 ClientUserinfo: 1 \\cl_guid\\ABCDEF0123456789ABCDEF"
        )
        .unwrap();
        writeln!(w, "  0:03 Kill: 0 1 7: Ann killed Bob by MOD_ROCKET").unwrap();
        for g in 0..40u32 {
            let nl = if g % 3 == 0 { "\r\n" } else { "\n" };
            let mut line = |s: String| {
                w.extend_from_slice(s.as_bytes());
                w.extend_from_slice(nl.as_bytes());
            };
            line(format!(
                "  1:00 InitGame: \\mapname\\q3dm{g}\\g_gametype\\0\\gamename\\baseq3"
            ));
            for slot in 0..3 {
                line(format!(
                    "  1:00 ClientUserinfoChanged: {slot} n\\P{}\\t\\0",
                    (g + slot) % 7
                ));
                line(format!("  1:00 ClientBegin: {slot}"));
            }
            for k in 0..(g % 5 + 1) {
                let (a, b) = (k % 3, (k + 1) % 3);
                line(format!(
                    "  1:{:02} Kill: {a} {b} 7: P{} killed P{} by MOD_ROCKET",
                    k + 1,
                    (g + a) % 7,
                    (g + b) % 7
                ));
            }
            if g % 4 == 1 {
                line("  1:10 say: P1: ShutdownGame: not really".into());
            }
            if g % 9 == 2 {
                line(format!("  1:11 say: {}", "x".repeat(70 * 1024)));
            }
            if g % 6 != 5 {
                line("  1:20 ShutdownGame:".into());
            }
            if g % 5 == 3 {
                line("  1:20 Kill: 0 1 7: P1 killed P2 by MOD_ROCKET".into());
                line("  1:20 ShutdownGame:".into());
            }
            line("  1:20 ------------------------------------------------------------".into());
        }
        write!(w, "  2:00 InitGame: \\mapname\\q3dm1\\g_gametype\\0").unwrap();
        log
    }

    #[test]
    fn cuts_anywhere_give_what_one_pass_gives() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.log");
        std::fs::write(&path, tricky_log()).unwrap();
        let size = std::fs::metadata(&path).unwrap().len();
        let pieces: Vec<u64> = [1, 2, 3, 50, 500, 777, 4096, size / 3].to_vec();
        let most = same_in_pieces(&Quake3, &path, &pieces);
        assert!(
            most >= 30,
            "cut after nearly every ShutdownGame ({most} cuts)"
        );
    }

    #[test]
    fn a_synthetic_server_log_parses_the_same_in_pieces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.log");
        // Ten copies of the real Quake 3 log with noise between them: a bigger file of the
        // same shape as a server's.
        let Some(real) = crate::testdata::shared("data/public/q3/qgames-challenge.log") else {
            return;
        };
        let real = std::fs::read(real).unwrap();
        let mut log = Vec::new();
        for i in 0..10 {
            log.extend_from_slice(&real);
            writeln!(log, "  9:99 Item: {i} weapon_railgun").unwrap();
        }
        log.extend_from_slice(&tricky_log());
        std::fs::write(&path, &log).unwrap();
        let size = log.len() as u64;
        same_in_pieces(&Quake3, &path, &[size / 5, size / 33, 10_000]);
    }

    /// Quake 3, but claiming that parsing restarts after every kill, which it does not.
    struct WrongCuts;

    impl LogFormat for WrongCuts {
        fn name(&self) -> &'static str {
            "quake3"
        }
        fn sniff(&self, head: &[u8]) -> bool {
            Quake3.sniff(head)
        }
        fn parse(
            &self,
            input: &mut dyn std::io::BufRead,
            source: &Source,
            report: &mut FileReport,
            emit: &mut dyn FnMut(Match),
            resume: Option<&Checkpoint>,
        ) -> io::Result<Option<Checkpoint>> {
            Quake3.parse(input, source, report, emit, resume)
        }
        fn splittable(&self) -> bool {
            true
        }
        fn resumes_after(&self, line: &[u8]) -> bool {
            memchr::memmem::find(line, b"Kill:").is_some() || Quake3.resumes_after(line)
        }
    }

    #[test]
    fn wrong_cuts_are_found_and_read_again_in_one_piece() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.log");
        std::fs::write(&path, tricky_log()).unwrap();
        let size = std::fs::metadata(&path).unwrap().len();
        let most = same_in_pieces(&WrongCuts, &path, &[1, 300, 5000, size / 2]);
        assert!(most > 40, "the wrong cuts were tried ({most})");
    }

    #[test]
    fn only_lines_that_restart_are_cuts() {
        assert!(Quake3.resumes_after(b"  0:02 ShutdownGame:"));
        assert!(Quake3.resumes_after(b"1234:02 ShutdownGame: now"));
        assert!(!Quake3.resumes_after(b"  0:02 say: ShutdownGame: x"));
        assert!(!Quake3.resumes_after(b"ShutdownGame:"));
        assert!(!Quake3.resumes_after(b"  0:02 ShutdownGameX:"));
    }
}
