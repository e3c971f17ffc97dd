//! The one stable hash of the project: 64-bit FNV-1a. Stable across runs and machines (unlike
//! std's hasher), so its values can name matches, fingerprint files and key cached pages in the
//! state. `raw` feeds bytes as they are; the field methods length-prefix them.

/// Accumulates a hash.
#[derive(Clone)]
pub struct Hasher(u64);

impl Hasher {
    /// An empty hash.
    pub fn new() -> Hasher {
        Hasher(0xcbf2_9ce4_8422_2325)
    }

    /// Adds a field of bytes, length-prefixed so `("ab", "c")` and `("a", "bc")` differ.
    pub fn bytes(&mut self, b: &[u8]) {
        self.raw(&(b.len() as u64).to_le_bytes());
        self.raw(b);
    }

    /// Adds a string.
    pub fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    /// Adds a number.
    pub fn u64(&mut self, v: u64) {
        self.raw(&v.to_le_bytes());
    }

    /// Adds bytes as they are (no length prefix).
    pub fn raw(&mut self, b: &[u8]) {
        for byte in b {
            self.0 ^= u64::from(*byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// The hash so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// Hashes what is written (as raw bytes), so a value can be hashed through its serialization
/// without building it in memory.
impl std::io::Write for Hasher {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.raw(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Default for Hasher {
    fn default() -> Self {
        Hasher::new()
    }
}

/// A stable hash for long streams (a page's whole template context, through its
/// serialization): it mixes eight bytes per step where [`Hasher`] mixes one, so keying every
/// player page of a crowd on each build costs a fraction of the hashing. Each step
/// (`h = (h.rotate_left(5) ^ word) * K`, the step of rustc's FxHash) is a bijection of `h`,
/// so two streams that differ in one word always hash differently. Bytes are gathered in a
/// small buffer first: a serializer writes a few bytes at a time. Not for ids stored in the
/// archive (those stay [`Hasher`]'s).
#[derive(Clone)]
pub struct WordHasher {
    h: u64,
    /// Bytes not yet mixed (`fill` of them).
    buf: [u8; WordHasher::BUF],
    fill: usize,
    /// Bytes written in all.
    len: u64,
}

impl WordHasher {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    const BUF: usize = 128;

    /// An empty hash.
    pub fn new() -> WordHasher {
        WordHasher {
            h: 0xcbf2_9ce4_8422_2325,
            buf: [0; WordHasher::BUF],
            fill: 0,
            len: 0,
        }
    }

    /// Mixes the whole words of `b`; returns the bytes left over (fewer than eight).
    fn mix_words<'b>(&mut self, b: &'b [u8]) -> &'b [u8] {
        let mut words = b.chunks_exact(8);
        for w in &mut words {
            let mut word = [0; 8];
            word.copy_from_slice(w);
            self.h = (self.h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(Self::K);
        }
        words.remainder()
    }

    /// Adds bytes as they are (no length prefix); how they are split between calls does not
    /// matter.
    pub fn raw(&mut self, mut b: &[u8]) {
        self.len += b.len() as u64;
        if self.fill + b.len() <= Self::BUF {
            self.buf[self.fill..self.fill + b.len()].copy_from_slice(b);
            self.fill += b.len();
            return;
        }
        // Complete the buffer's last word, mix the buffer, then `b`'s whole words directly.
        let take = (8 - self.fill % 8) % 8;
        let take = take.min(b.len());
        self.buf[self.fill..self.fill + take].copy_from_slice(&b[..take]);
        self.fill += take;
        b = &b[take..];
        let buf = self.buf;
        let rest = self.mix_words(&buf[..self.fill]);
        debug_assert!(rest.is_empty() || b.is_empty());
        let rest = if b.is_empty() {
            rest
        } else {
            self.mix_words(b)
        };
        self.buf[..rest.len()].copy_from_slice(rest);
        self.fill = rest.len();
    }

    /// Adds a string, length-prefixed.
    pub fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.raw(s.as_bytes());
    }

    /// Adds a number.
    pub fn u64(&mut self, v: u64) {
        self.raw(&v.to_le_bytes());
    }

    /// The hash so far: the bytes not yet mixed (zero-padded to a word) and the length are
    /// mixed last, so `"a"` and `"a\0"` differ.
    pub fn finish(&self) -> u64 {
        let mut last = self.clone();
        let mut tail = [0; WordHasher::BUF + 8];
        tail[..self.fill].copy_from_slice(&self.buf[..self.fill]);
        let _ = last.mix_words(&tail[..self.fill.div_ceil(8) * 8]);
        let _ = last.mix_words(&self.len.to_le_bytes());
        last.h
    }
}

impl Default for WordHasher {
    fn default() -> Self {
        WordHasher::new()
    }
}

/// Hashes what is written, as [`Hasher`]'s `Write` does.
impl std::io::Write for WordHasher {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.raw(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_do_not_run_together() {
        let key = |a: &str, b: &str| {
            let mut h = Hasher::new();
            h.str(a);
            h.str(b);
            h.finish()
        };
        assert_ne!(key("ab", "c"), key("a", "bc"));
        assert_eq!(key("ab", "c"), key("ab", "c"));
    }

    #[test]
    fn word_hash_ignores_how_bytes_are_split_and_sees_every_byte() {
        let text: Vec<u8> = (0..300u32).map(|b| (b * 37 % 251) as u8).collect();
        let whole = {
            let mut h = WordHasher::new();
            h.raw(&text);
            h.finish()
        };
        for cut in [0, 1, 7, 8, 9, 15, 16, 63, 99, 100, 130, 200, 299, 300] {
            for cut2 in [cut, (cut + 3).min(300), (cut + 129).min(300), 300] {
                let mut h = WordHasher::new();
                h.raw(&text[..cut]);
                h.raw(&text[cut..cut2]);
                h.raw(&text[cut2..]);
                assert_eq!(h.finish(), whole, "split at {cut} and {cut2}");
            }
        }
        let mut seen = std::collections::HashSet::new();
        seen.insert(whole);
        for at in 0..text.len() {
            let mut changed = text.clone();
            changed[at] ^= 0x80;
            let mut h = WordHasher::new();
            h.raw(&changed);
            assert!(seen.insert(h.finish()), "a change at byte {at} went unseen");
        }
        // Trailing zero bytes and fields running together.
        let hash = |parts: &[&[u8]]| {
            let mut h = WordHasher::new();
            parts.iter().for_each(|p| h.raw(p));
            h.finish()
        };
        assert_ne!(hash(&[b"a"]), hash(&[b"a\0"]));
        assert_ne!(hash(&[]), hash(&[b"\0"]));
        let fields = |a: &str, b: &str| {
            let mut h = WordHasher::new();
            h.str(a);
            h.str(b);
            h.finish()
        };
        assert_ne!(fields("ab", "c"), fields("a", "bc"));
    }
}
