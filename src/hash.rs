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
/// serialization): XXH64, which mixes 32 bytes per round where [`Hasher`] mixes one and
/// avalanches every input bit over the whole result, so keying every player page of a crowd on
/// each build costs a fraction of the hashing. How the bytes are split between writes does not
/// matter (it buffers them). Not for ids stored in the archive (those stay [`Hasher`]'s).
#[derive(Clone)]
pub struct StreamHasher(twox_hash::XxHash64);

impl StreamHasher {
    /// An empty hash.
    pub fn new() -> StreamHasher {
        StreamHasher(twox_hash::XxHash64::with_seed(0))
    }

    /// Adds bytes as they are (no length prefix); how they are split between calls does not
    /// matter.
    pub fn raw(&mut self, b: &[u8]) {
        std::hash::Hasher::write(&mut self.0, b);
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

    /// The hash of everything added so far (the length is part of it, so `"a"` and `"a\0"`
    /// differ).
    pub fn finish(&self) -> u64 {
        std::hash::Hasher::finish(&self.0)
    }
}

impl Default for StreamHasher {
    fn default() -> Self {
        StreamHasher::new()
    }
}

/// Hashes what is written, as [`Hasher`]'s `Write` does.
impl std::io::Write for StreamHasher {
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
    fn stream_hash_ignores_how_bytes_are_split_and_sees_every_byte() {
        let text: Vec<u8> = (0..300u32).map(|b| (b * 37 % 251) as u8).collect();
        let whole = {
            let mut h = StreamHasher::new();
            h.raw(&text);
            h.finish()
        };
        for cut in [0, 1, 7, 8, 9, 15, 16, 63, 99, 100, 130, 200, 299, 300] {
            for cut2 in [cut, (cut + 3).min(300), (cut + 129).min(300), 300] {
                let mut h = StreamHasher::new();
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
            let mut h = StreamHasher::new();
            h.raw(&changed);
            assert!(seen.insert(h.finish()), "a change at byte {at} went unseen");
        }
        // Trailing zero bytes and fields running together.
        let hash = |parts: &[&[u8]]| {
            let mut h = StreamHasher::new();
            parts.iter().for_each(|p| h.raw(p));
            h.finish()
        };
        assert_ne!(hash(&[b"a"]), hash(&[b"a\0"]));
        assert_ne!(hash(&[]), hash(&[b"\0"]));
        let fields = |a: &str, b: &str| {
            let mut h = StreamHasher::new();
            h.str(a);
            h.str(b);
            h.finish()
        };
        assert_ne!(fields("ab", "c"), fields("a", "bc"));
        // Differences that cancel in a rotate-xor-multiply step (FxHash's): the top bit of one
        // word and the bit it rotates onto in the next.
        let mut other = text.clone();
        other[7] ^= 0x80;
        other[8] ^= 0x10;
        assert_ne!(hash(&[&text]), hash(&[&other]));
    }
}
