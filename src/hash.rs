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
}
