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
        self.buf.clear();
        let mut too_long = false;
        let mut any = false;
        self.complete = false;
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

    #[test]
    fn keeps_invalid_utf8_bytes() {
        let got = collect(b"n\xabme\n", 100);
        assert_eq!(got, vec![Some(b"n\xabme".to_vec())]);
    }
}
