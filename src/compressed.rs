//! gzip-compressed logs (logrotate's `compress`): recognised by their magic bytes, decompressed
//! as a stream, and bounded: a file that inflates beyond [`limit`] (a decompression bomb) stops
//! with an error that says so instead of filling memory or disk.

use std::io::{self, BufRead, BufReader, Read};

use flate2::bufread::MultiGzDecoder;

/// The first two bytes of every gzip member.
const MAGIC: [u8; 2] = [0x1f, 0x8b];
/// Inflated bytes always allowed, whatever the compressed size.
const BASE_LIMIT: u64 = 64 << 20;
/// Inflated bytes allowed per compressed byte beyond that: text logs compress 5-50 times,
/// a bomb about 1000 times.
const MAX_RATIO: u64 = 200;

/// The head of a file is a gzip stream.
pub fn is_gzip(head: &[u8]) -> bool {
    head.starts_with(&MAGIC)
}

/// The most bytes a gzip file of `compressed` bytes may inflate to.
pub fn limit(compressed: u64) -> u64 {
    BASE_LIMIT.saturating_add(compressed.saturating_mul(MAX_RATIO))
}

/// The inflated bytes of `input` (every member, as `gunzip` does), failing with
/// [`io::ErrorKind::FileTooLarge`] past `limit` bytes.
pub fn reader<R: Read>(input: R, limit: u64) -> impl BufRead {
    BufReader::with_capacity(
        256 * 1024,
        Bounded {
            inner: MultiGzDecoder::new(BufReader::new(input)),
            left: limit,
            limit,
        },
    )
}

/// A reader that fails once more than `limit` bytes came through.
struct Bounded<R> {
    inner: R,
    left: u64,
    limit: u64,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n as u64 > self.left {
            return Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                format!(
                    "gzip file inflates beyond {} MiB ({} times its size): a decompression bomb? \
                     Not read further",
                    self.limit >> 20,
                    MAX_RATIO
                ),
            ));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::{Compression, write::GzEncoder};
    use std::io::Write;

    fn gz(bytes: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn members_are_concatenated_and_bombs_stopped() {
        let mut two = gz(b"first\n");
        two.extend(gz(b"second\n"));
        assert!(is_gzip(&two));
        let mut out = String::new();
        reader(&two[..], limit(two.len() as u64))
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, "first\nsecond\n");
        // 200 MiB of zeros compress to about 200 KiB: over the limit for that size.
        let bomb = {
            let mut e = GzEncoder::new(Vec::new(), Compression::best());
            let zeros = vec![0u8; 1 << 20];
            for _ in 0..200 {
                e.write_all(&zeros).unwrap();
            }
            e.finish().unwrap()
        };
        let err = io::copy(
            &mut reader(&bomb[..], limit(bomb.len() as u64)),
            &mut io::sink(),
        )
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::FileTooLarge);
        assert!(err.to_string().contains("decompression bomb"));
    }
}
