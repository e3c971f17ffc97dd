//! A line reader that never buffers more than a fixed limit: a longer line is reported as too long
//! and skipped, so a file with no newlines cannot make memory grow. Handles LF and CRLF and keeps
//! bytes that are not UTF-8 (the caller decodes lossily).

use std::io::{self, BufRead};

/// Lines longer than this many bytes are skipped with a diagnostic.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// One line from [`LineReader::next_line`].
pub enum Line<'a> {
    /// The line's bytes without the line ending.
    Text(&'a [u8]),
    /// The line was longer than the limit; its bytes were dropped.
    TooLong,
}

/// Reads lines one at a time from a [`BufRead`], counting them from 1.
pub struct LineReader<'r> {
    input: &'r mut dyn BufRead,
    buf: Vec<u8>,
    limit: usize,
    /// Bytes of the line last returned that are still in `input`'s buffer: a line that lies
    /// whole in the buffer is lent from there (not copied) and consumed on the next call.
    pending: usize,
    /// Number of the line last returned (1-based).
    pub number: u64,
    /// Bytes consumed so far (the end of the line last returned, line ending included).
    pub consumed: u64,
    /// The line last returned ended with a newline (it was complete).
    pub complete: bool,
}

impl<'r> LineReader<'r> {
    /// A reader with the default [`MAX_LINE_BYTES`] limit.
    pub fn new(input: &'r mut dyn BufRead) -> Self {
        Self::with_limit(input, MAX_LINE_BYTES)
    }

    /// A reader that skips lines longer than `limit` bytes.
    pub fn with_limit(input: &'r mut dyn BufRead, limit: usize) -> Self {
        LineReader {
            input,
            buf: Vec::with_capacity(256),
            limit,
            pending: 0,
            number: 0,
            consumed: 0,
            complete: false,
        }
    }

    /// Continues counting lines and bytes from a point in the middle of a file.
    pub fn starting_at(mut self, line: u64, offset: u64) -> Self {
        self.number = line;
        self.consumed = offset;
        self
    }

    /// The next line with its 1-based number, or None at end of input. A last line without a
    /// newline is returned too.
    pub fn next_line(&mut self) -> io::Result<Option<(u64, Line<'_>)>> {
        self.input.consume(std::mem::take(&mut self.pending));
        self.buf.clear();
        let mut too_long = false;
        let mut any = false;
        self.complete = false;
        // The usual case: the whole line, newline included, is in the input's buffer. It is
        // returned from there; the copying loop below handles lines across buffer refills.
        let newline = loop {
            match self.input.fill_buf() {
                Ok(c) => break memchr::memchr(b'\n', c),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        if let Some(i) = newline
            && i <= self.limit + 1
        {
            // The buffer holds the line still: this call does no I/O.
            let chunk = self.input.fill_buf()?;
            self.pending = i + 1;
            self.consumed += self.pending as u64;
            self.complete = true;
            self.number += 1;
            let chunk = &chunk[..i.min(chunk.len())];
            let line = chunk.strip_suffix(b"\r").unwrap_or(chunk);
            if line.len() > self.limit {
                return Ok(Some((self.number, Line::TooLong)));
            }
            return Ok(Some((self.number, Line::Text(line))));
        }
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            any = true;
            let (take, done) = match memchr::memchr(b'\n', chunk) {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            if !too_long {
                if self.buf.len() + take > self.limit + 2 {
                    too_long = true;
                    self.buf.clear();
                } else {
                    self.buf.extend_from_slice(&chunk[..take]);
                }
            }
            self.input.consume(take);
            self.consumed += take as u64;
            if done {
                self.complete = true;
                break;
            }
        }
        if !any {
            return Ok(None);
        }
        self.number += 1;
        if too_long {
            return Ok(Some((self.number, Line::TooLong)));
        }
        let mut end = self.buf.len();
        if end > 0 && self.buf[end - 1] == b'\n' {
            end -= 1;
        }
        if end > 0 && self.buf[end - 1] == b'\r' {
            end -= 1;
        }
        if end > self.limit {
            return Ok(Some((self.number, Line::TooLong)));
        }
        Ok(Some((self.number, Line::Text(&self.buf[..end]))))
    }
}

/// Gives back to the input the bytes of the last line lent from its buffer, so whoever reads the
/// input after this reader goes on right after that line.
impl Drop for LineReader<'_> {
    fn drop(&mut self) {
        self.input.consume(std::mem::take(&mut self.pending));
    }
}

/// The complete lines of an in-memory head (the last, possibly cut-off, line is left out unless
/// the head ends with a newline). Line endings are removed.
pub fn complete_lines(head: &[u8]) -> impl Iterator<Item = &[u8]> {
    let complete = match memchr::memrchr(b'\n', head) {
        Some(i) => &head[..i],
        None => head,
    };
    complete
        .split(|b| *b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(input: &[u8], limit: usize) -> Vec<Option<Vec<u8>>> {
        let mut cursor = io::BufReader::with_capacity(4, input);
        let mut r = LineReader::with_limit(&mut cursor, limit);
        let mut out = Vec::new();
        while let Some((_, line)) = r.next_line().unwrap() {
            out.push(match line {
                Line::Text(t) => Some(t.to_vec()),
                Line::TooLong => None,
            });
        }
        out
    }

    #[test]
    fn splits_lf_crlf_and_last_line_without_newline() {
        let got = collect(b"a\r\nbb\n\nccc", 100);
        assert_eq!(
            got,
            vec![
                Some(b"a".to_vec()),
                Some(b"bb".to_vec()),
                Some(vec![]),
                Some(b"ccc".to_vec())
            ]
        );
    }

    #[test]
    fn long_lines_are_dropped_not_buffered() {
        let got = collect(b"short\n0123456789abcdef\nok\n", 8);
        assert_eq!(
            got,
            vec![Some(b"short".to_vec()), None, Some(b"ok".to_vec())]
        );
    }

    /// Lines, numbers and offsets read through a buffer of `capacity` bytes.
    fn read_all(
        input: &[u8],
        capacity: usize,
        limit: usize,
    ) -> Vec<(u64, Option<Vec<u8>>, u64, bool)> {
        let mut cursor = io::BufReader::with_capacity(capacity, input);
        let mut r = LineReader::with_limit(&mut cursor, limit);
        let mut out = Vec::new();
        while let Some((n, line)) = r.next_line().unwrap() {
            let text = match line {
                Line::Text(t) => Some(t.to_vec()),
                Line::TooLong => None,
            };
            out.push((n, text, r.consumed, r.complete));
        }
        out
    }

    #[test]
    fn lines_lent_from_the_buffer_equal_lines_copied_across_refills() {
        // CRLF, a lone CR, lines just under, at and over the limit (with and without CR), empty
        // lines, bytes that are not UTF-8, and a last line without a newline.
        let input = b"a\r\nb\rc\n\n12345678\n123456789\n1234567\r\n12345678\r\n\xff\xfe\nlast";
        let whole = read_all(input, 1 << 16, 8);
        for capacity in 1..input.len() + 2 {
            assert_eq!(
                read_all(input, capacity, 8),
                whole,
                "buffer of {capacity} bytes"
            );
        }
        let texts: Vec<_> = whole.iter().map(|(_, t, _, _)| t.clone()).collect();
        let some = |t: &[u8]| Some(t.to_vec());
        assert_eq!(
            texts,
            vec![
                some(b"a"),
                some(b"b\rc"),
                some(b""),
                some(b"12345678"),
                None,
                some(b"1234567"),
                some(b"12345678"),
                some(b"\xff\xfe"),
                some(b"last"),
            ]
        );
        assert_eq!(
            whole.last().map(|l| (l.2, l.3)),
            Some((input.len() as u64, false))
        );
    }

    #[test]
    fn a_dropped_reader_leaves_the_input_after_its_last_line() {
        let mut cursor = io::BufReader::with_capacity(64, &b"one\ntwo\nthree\n"[..]);
        {
            let mut r = LineReader::new(&mut cursor);
            assert!(matches!(
                r.next_line().unwrap(),
                Some((1, Line::Text(b"one")))
            ));
        }
        let mut rest = String::new();
        io::Read::read_to_string(&mut cursor, &mut rest).unwrap();
        assert_eq!(rest, "two\nthree\n");
    }

    #[test]
    fn keeps_invalid_utf8_bytes() {
        let got = collect(b"n\xabme\n", 100);
        assert_eq!(got, vec![Some(b"n\xabme".to_vec())]);
    }
}
