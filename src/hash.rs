//! The project's stable hashes: stable across runs and machines (unlike std's hasher), so their
//! values can name matches, fingerprint files and key cached pages in the state. [`Hasher`] is
//! 64-bit FNV-1a, for every id and fingerprint stored in the archive (`raw` feeds bytes as they
//! are; the field methods length-prefix them); [`StreamHasher`] is XXH64, for long streams that
//! only key pages within the state.

/// The hash of fragstats' own code that a cached output depends on beyond its inputs: the
/// version, the `sources` (texts of `include_str!`, in a fixed order) and the locked dependency
/// versions. Part of a page's stub, so a fragstats that formats differently never keeps a page
/// an older one made.
pub fn code_hash(sources: &[&str]) -> u64 {
    let mut h = Hasher::new();
    h.str(env!("CARGO_PKG_VERSION"));
    for source in sources {
        h.str(source);
    }
    h.str(include_str!("../Cargo.lock"));
    h.finish()
}

/// `prefix` followed by `hash` as 16 lowercase hex digits (as `format!("{prefix}{hash:016x}")`
/// writes it, without the formatting machinery: each player page's stubs are made so on every
/// build).
pub fn tagged_hex(prefix: &str, hash: u64) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(prefix.len() + 16);
    s.push_str(prefix);
    for shift in (0..16).rev() {
        s.push(char::from(DIGITS[(hash >> (shift * 4)) as usize & 0xf]));
    }
    s
}

/// Accumulates a hash.
#[derive(Clone)]
pub struct Hasher(u64);

impl Hasher {
    /// An empty hash.
    pub fn new() -> Hasher {
        Hasher(0xcbf2_9ce4_8422_2325)
    }

    /// Adds a field of bytes, length-prefixed so `("ab", "c")` and `("a", "bc")` differ (laid
    /// out by [`Fields`], as every field here).
    pub fn bytes(&mut self, b: &[u8]) {
        Fields::bytes(self, b);
    }

    /// Adds a string.
    pub fn str(&mut self, s: &str) {
        Fields::str(self, s);
    }

    /// Adds a number.
    pub fn u64(&mut self, v: u64) {
        Fields::u64(self, v);
    }

    /// Adds bytes as they are (no length prefix).
    pub fn raw(&mut self, b: &[u8]) {
        for byte in b {
            self.0 ^= u64::from(*byte);
            self.0 = self.0.wrapping_mul(FNV_PRIME);
        }
    }

    /// The hash so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// Where the fields of a [`Hasher`] hash go: a hasher absorbs them at once; a byte vector keeps
/// them, to be hashed later beside others ([`fnv_many`]) to the same value. The provided
/// methods are the one layout of fields ([`Hasher`]'s own methods are these).
pub trait Fields {
    /// Adds bytes as they are (no length prefix).
    fn raw(&mut self, b: &[u8]);

    /// Adds a field of bytes, length-prefixed.
    fn bytes(&mut self, b: &[u8]) {
        self.raw(&(b.len() as u64).to_le_bytes());
        self.raw(b);
    }

    /// Adds a string.
    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    /// Adds a number.
    fn u64(&mut self, v: u64) {
        self.raw(&v.to_le_bytes());
    }
}

impl Fields for Hasher {
    fn raw(&mut self, b: &[u8]) {
        Hasher::raw(self, b);
    }
}

impl Fields for Vec<u8> {
    fn raw(&mut self, b: &[u8]) {
        self.extend_from_slice(b);
    }
}

/// FNV-1a's prime (see [`Hasher::raw`]).
const FNV_PRIME: u64 = 0x0100_0000_01b3;
/// Texts [`fnv_many`] hashes side by side.
const LANES: usize = 4;

/// [`Hasher`]'s value of each of `texts` (bytes, and a point within them where the hash so far
/// is wanted too): the same values as feeding each to its own [`Hasher::raw`], several times
/// faster. One FNV-1a text is one chain of dependent multiplies, each waiting for the one
/// before; [`LANES`] independent texts keep the multiplier busy in the same time.
pub fn fnv_many(texts: &[(&[u8], Option<usize>)]) -> Vec<(Option<u64>, u64)> {
    let mut out = vec![(None, 0); texts.len()];
    // Each lane: the text it hashes, how far it got, its hash so far.
    let mut lanes: [Option<(usize, usize, u64)>; LANES] = [None; LANES];
    let mut next = 0;
    loop {
        // Record marks reached, retire finished texts and take new ones.
        for lane in &mut lanes {
            loop {
                match *lane {
                    Some((t, pos, h)) => {
                        let (bytes, mark) = texts[t];
                        if mark == Some(pos) {
                            out[t].0 = Some(h);
                        }
                        if pos < bytes.len() {
                            break;
                        }
                        out[t].1 = h;
                        *lane = None;
                    }
                    None if next < texts.len() => {
                        *lane = Some((next, 0, Hasher::new().0));
                        next += 1;
                    }
                    None => break,
                }
            }
        }
        // Every lane runs to the nearest stop (a mark or a text's end) of any lane.
        let stop = |&(t, pos, _): &(usize, usize, u64)| {
            let (bytes, mark) = texts[t];
            let end = mark.filter(|m| *m > pos).unwrap_or(bytes.len());
            end.min(bytes.len()) - pos
        };
        let Some(run) = lanes.iter().flatten().map(stop).min() else {
            return out;
        };
        // Idle lanes hash a busy lane's bytes into a state nobody reads.
        let busy = lanes.iter().flatten().next().copied().unwrap_or_default();
        let mut states = [0u64; LANES];
        let mut bytes: [&[u8]; LANES] = [&[]; LANES];
        for (i, lane) in lanes.iter().enumerate() {
            let (t, pos, h) = lane.unwrap_or(busy);
            states[i] = h;
            bytes[i] = &texts[t].0[pos..pos + run];
        }
        for i in 0..run {
            for (h, b) in states.iter_mut().zip(&bytes) {
                *h = (*h ^ u64::from(b[i])).wrapping_mul(FNV_PRIME);
            }
        }
        for (lane, h) in lanes.iter_mut().zip(states) {
            if let Some((_, pos, state)) = lane {
                *pos += run;
                *state = h;
            }
        }
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

    /// Fields kept in byte vectors and hashed side by side by [`fnv_many`] give each the value
    /// of a [`Hasher`] fed the same fields, for texts of many lengths.
    #[test]
    fn fields_kept_and_hashed_later_equal_fields_hashed_at_once() {
        fn fill(k: usize, h: &mut dyn Fields) {
            h.u64(k as u64);
            h.str(&"é".repeat(k % 7));
            h.bytes(&vec![k as u8; k * 3]);
            h.raw(b"x");
        }
        let mut kept: Vec<Vec<u8>> = Vec::new();
        let mut direct: Vec<u64> = Vec::new();
        for k in 0..40 {
            let mut bytes = Vec::new();
            fill(k, &mut bytes);
            kept.push(bytes);
            let mut h = Hasher::new();
            fill(k, &mut h);
            direct.push(h.finish());
        }
        let texts: Vec<(&[u8], Option<usize>)> = kept.iter().map(|b| (&b[..], None)).collect();
        let later: Vec<u64> = fnv_many(&texts).into_iter().map(|(_, h)| h).collect();
        assert_eq!(later, direct);
        // The inherent methods lay fields out as the trait's do.
        let mut inherent = Hasher::new();
        inherent.u64(7);
        inherent.str("ab");
        inherent.bytes(b"c");
        let mut through = Hasher::new();
        Fields::u64(&mut through, 7);
        Fields::str(&mut through, "ab");
        Fields::bytes(&mut through, b"c");
        assert_eq!(inherent.finish(), through.finish());
    }

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
    fn fnv_many_gives_what_one_hasher_per_text_gives() {
        // Texts of many lengths (empty, shorter and longer than others), marks at the start,
        // inside, at the end and past it, more texts than lanes.
        let data: Vec<u8> = (0..5000u32).map(|b| (b * 131 % 256) as u8).collect();
        let mut texts: Vec<(&[u8], Option<usize>)> = Vec::new();
        for (k, len) in [0, 1, 7, 300, 4999, 2, 64, 1000, 13, 0, 5000, 8, 9]
            .iter()
            .enumerate()
        {
            let bytes = &data[k..k + len.min(&(5000 - k))];
            let mark = match k % 4 {
                0 => None,
                1 => Some(0),
                2 => Some(bytes.len() / 3),
                _ => Some(bytes.len()),
            };
            texts.push((bytes, mark));
        }
        texts.push((&data[..10], Some(11)));
        for n in 0..=texts.len() {
            let got = fnv_many(&texts[..n]);
            assert_eq!(got.len(), n);
            for (&(bytes, mark), got) in texts.iter().zip(got) {
                let mut h = Hasher::new();
                let at = mark.filter(|m| *m <= bytes.len());
                let mut at_mark = None;
                if let Some(m) = at {
                    h.raw(&bytes[..m]);
                    at_mark = Some(h.finish());
                    h.raw(&bytes[m..]);
                } else {
                    h.raw(bytes);
                }
                assert_eq!(
                    got,
                    (at_mark, h.finish()),
                    "{} bytes, mark {mark:?}",
                    bytes.len()
                );
            }
        }
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

    /// `tagged_hex` writes what the format string it replaces writes, for hashes of every
    /// length of hex digits.
    #[test]
    fn tagged_hex_writes_what_format_writes() {
        for hash in [0, 1, 0xf, 0xabc, 0x0123_4567_89ab_cdef, u64::MAX, 1 << 63] {
            assert_eq!(tagged_hex("curve:", hash), format!("curve:{hash:016x}"));
            assert_eq!(tagged_hex("", hash), format!("{hash:016x}"));
        }
    }
}
