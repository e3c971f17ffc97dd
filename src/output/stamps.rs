//! What each published file held when fragstats wrote or last checked it: a hash of its bytes,
//! with a fingerprint of its size, modification time and inode then. A build that renders a page again compares
//! the page's hash with the stamp instead of reading the published file back, when the file's
//! size, modification time and inode are still the stamp's (so a file the admin edited or
//! replaced is read and compared as before; one deleted is written again). Kept in the state
//! folder (`outputs.bin`) beside the state, apart from it: a missing, damaged or foreign file
//! only means reading the published files back. Not a record of anything else.
//!
//! The saved stamps stay in their file while a build uses them: sorted by the key of their
//! path, a page of them read where a file is checked, with only each page's first key held
//! (loaded into a table, they were 24 bytes a file, 1.6 MB of a build's peak at 64,000
//! matches: issue 41).

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::paths::{PathList, short_key};

/// File name of the stamps inside the state folder.
const FILE: &str = "outputs.bin";
/// The file's first four bytes (little-endian): bump when the layout or the hash changes, so
/// that stamps of another format are not used. Then its records, by key, each once.
const FORMAT: u32 = 3;
/// Where the records start.
const HEADER: u64 = 4;
/// A saved stamp's bytes: its path's [`short_key`], its hash and its fingerprint, each 8 bytes
/// little-endian.
const RECORD: usize = 24;
/// Records a lookup reads at once (3 KB), whose first key is held.
const PAGE: usize = 128;
/// Records read at once when the file is read through (48 KB).
const CHUNK: usize = 2048;

/// A file's bytes' hash and a fingerprint of its metadata when they were known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Recorded {
    hash: u64,
    /// [`fingerprint`] of the file's metadata then.
    meta: u64,
}

/// The bytes of the record of `key`'s stamp `stamp`.
fn encode(key: u64, stamp: Recorded) -> [u8; RECORD] {
    let mut bytes = [0; RECORD];
    bytes[..8].copy_from_slice(&key.to_le_bytes());
    bytes[8..16].copy_from_slice(&stamp.hash.to_le_bytes());
    bytes[16..].copy_from_slice(&stamp.meta.to_le_bytes());
    bytes
}

/// The key and stamp of the record of bytes `bytes` (of [`RECORD`] bytes).
fn decode(bytes: &[u8]) -> (u64, Recorded) {
    let word = |i: usize| {
        let mut b = [0; 8];
        b.copy_from_slice(&bytes[i * 8..i * 8 + 8]);
        u64::from_le_bytes(b)
    };
    (
        word(0),
        Recorded {
            hash: word(1),
            meta: word(2),
        },
    )
}

/// What a file unchanged since stamped holds: its bytes' hash and length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    hash: u64,
    len: u64,
}

/// A hash (XXH64) of a file's size, modification time (seconds and nanoseconds) and inode: an
/// edit changes the time (and mostly the size), a replacement the inode. None for what is not
/// a file, or has no time.
fn fingerprint(meta: &std::fs::Metadata) -> Option<u64> {
    if !meta.is_file() {
        return None;
    }
    let since = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    let mut bytes = [0u8; 28];
    bytes[..8].copy_from_slice(&meta.len().to_le_bytes());
    bytes[8..16].copy_from_slice(&since.as_secs().to_le_bytes());
    bytes[16..20].copy_from_slice(&since.subsec_nanos().to_le_bytes());
    bytes[20..].copy_from_slice(&inode(meta).to_le_bytes());
    Some(twox_hash::XxHash64::oneshot(0, &bytes))
}

#[cfg(unix)]
fn inode(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(not(unix))]
fn inode(_: &std::fs::Metadata) -> u64 {
    0
}

/// The hash of a file's bytes, given part after part (XXH64: 64 bits, several GB/s, so far
/// cheaper than reading the file back); the same however the bytes are split.
pub(super) fn hash<'a>(parts: impl Iterator<Item = &'a [u8]>) -> u64 {
    let mut h = PartsHasher::new();
    for part in parts {
        h.write(part);
    }
    h.finish()
}

/// [`hash`] taken as the parts come (while they are written).
pub(super) struct PartsHasher(twox_hash::XxHash64);

impl PartsHasher {
    /// A hash of no bytes yet.
    pub(super) fn new() -> PartsHasher {
        PartsHasher(twox_hash::XxHash64::with_seed(0))
    }

    /// Takes the next part's bytes.
    pub(super) fn write(&mut self, part: &[u8]) {
        std::hash::Hasher::write(&mut self.0, part);
    }

    /// The hash of every part taken.
    pub(super) fn finish(self) -> u64 {
        std::hash::Hasher::finish(&self.0)
    }
}

/// The stamps the previous build saved, in their file: how many, and the first key of each
/// page of [`PAGE`] of them.
struct Saved {
    file: File,
    count: usize,
    firsts: Vec<u64>,
}

impl Saved {
    /// The stamps saved at `path`: None when the file is missing, cannot be read, is of
    /// another format, or its records are not each key once, in order.
    fn open(path: &Path) -> Option<Saved> {
        let file = File::open(path).ok()?;
        let body = file.metadata().ok()?.len().checked_sub(HEADER)?;
        if body % RECORD as u64 != 0 {
            return None;
        }
        let count = usize::try_from(body / RECORD as u64).ok()?;
        let mut format = [0; HEADER as usize];
        file.read_exact_at(&mut format, 0).ok()?;
        if u32::from_le_bytes(format) != FORMAT {
            return None;
        }
        let mut saved = Saved {
            file,
            count,
            firsts: Vec::new(),
        };
        let mut firsts = Vec::with_capacity(count.div_ceil(PAGE));
        let mut read = 0;
        let mut last = None;
        for (key, _) in saved.records() {
            if last.is_some_and(|last| last >= key) {
                return None;
            }
            if read % PAGE == 0 {
                firsts.push(key);
            }
            (read, last) = (read + 1, Some(key));
        }
        saved.firsts = firsts;
        (read == count).then_some(saved)
    }

    /// The stamp saved for `key`, if any (None too when its page cannot be read).
    fn get(&self, key: u64) -> Option<Recorded> {
        let page = (self.firsts.partition_point(|&first| first <= key)).checked_sub(1)?;
        let from = page * PAGE;
        let n = (self.count - from).min(PAGE);
        let mut bytes = [0; PAGE * RECORD];
        let bytes = &mut bytes[..n * RECORD];
        (self.file)
            .read_exact_at(bytes, HEADER + (from * RECORD) as u64)
            .ok()?;
        // The first record whose key is not below `key` (a page of 128 is read whole anyway).
        let (found, stamp) = (bytes.chunks_exact(RECORD))
            .map(decode)
            .find(|(k, _)| *k >= key)?;
        (found == key).then_some(stamp)
    }

    /// Its records in order (fewer when the file cannot be read to the end).
    fn records(&self) -> Records<'_> {
        Records {
            saved: self,
            next: 0,
            bytes: Vec::new(),
            at: 0,
        }
    }
}

/// The records of a [`Saved`] as they are read, [`CHUNK`] at a time.
struct Records<'a> {
    saved: &'a Saved,
    /// The first record not yet read into `bytes`.
    next: usize,
    bytes: Vec<u8>,
    /// Where the next record lies in `bytes`.
    at: usize,
}

impl Iterator for Records<'_> {
    type Item = (u64, Recorded);

    fn next(&mut self) -> Option<(u64, Recorded)> {
        if self.at == self.bytes.len() {
            let n = (self.saved.count - self.next).min(CHUNK);
            if n == 0 {
                return None;
            }
            self.bytes.resize(n * RECORD, 0);
            let from = HEADER + (self.next * RECORD) as u64;
            if self
                .saved
                .file
                .read_exact_at(&mut self.bytes, from)
                .is_err()
            {
                self.next = self.saved.count;
                self.bytes.clear();
                return None;
            }
            (self.next, self.at) = (self.next + n, 0);
        }
        let record = decode(&self.bytes[self.at..self.at + RECORD]);
        self.at += RECORD;
        Some(record)
    }
}

/// The stamps a build makes, by the [`short_key`] of their site-relative path, in the order
/// made: a list while the site is written (24 bytes a stamp, where a map of the 65,000 of an
/// empty site of 64,000 matches held 131,072 slots of 25 bytes, 3.3 MB, growing through the
/// pages: issue 41).
type Made = Vec<(u64, Recorded)>;

/// The stamps of the published site and those this build makes, by path relative to the site.
pub(super) struct Stamps {
    file: PathBuf,
    old: Option<Saved>,
    new: Mutex<Made>,
}

/// What the stamps say of the file at a path against new bytes.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// The file is unchanged since stamped and holds the bytes.
    Same,
    /// The file is unchanged since stamped and holds other bytes.
    Different,
    /// No stamp, or the file changed since: read it to know.
    Unknown,
}

impl Stamps {
    /// The stamps saved in `state_dir` (none when missing, unreadable or of another format).
    pub(super) fn load(state_dir: &Path) -> Stamps {
        let file = state_dir.join(FILE);
        Stamps {
            old: Saved::open(&file),
            file,
            new: Mutex::new(Made::new()),
        }
    }

    /// Whether the file at `path` (site-relative `rel`), whose metadata is `meta`, holds the
    /// `len` bytes whose hash `hash` takes, by its stamp (an unchanged file's stamp is kept for
    /// the next build: saving falls back to it). The hash is not taken when the stamp's size tells the answer.
    pub(super) fn check(
        &self,
        rel: &str,
        meta: &std::fs::Metadata,
        len: u64,
        hash: impl FnOnce() -> u64,
    ) -> Verdict {
        let Some(stamp) = self.current(rel, meta) else {
            return Verdict::Unknown;
        };
        // The file is as stamped: of another size, it holds other bytes.
        if stamp.len != len {
            return Verdict::Different;
        }
        if self.holds(stamp, len, hash()) {
            Verdict::Same
        } else {
            Verdict::Different
        }
    }

    /// The stamp of the file at site-relative `rel`, whose metadata is `meta`, when the file is
    /// still as stamped (else its bytes are to be read to know them).
    pub(super) fn current(&self, rel: &str, meta: &std::fs::Metadata) -> Option<Stamp> {
        let recorded = self.old.as_ref()?.get(short_key(rel))?;
        (fingerprint(meta) == Some(recorded.meta)).then_some(Stamp {
            hash: recorded.hash,
            len: meta.len(),
        })
    }

    /// Whether the file of `stamp` (from [`Stamps::current`]) holds the `len` bytes of hash
    /// `hash` (its stamp is then the one to keep, which saving falls back to).
    pub(super) fn holds(&self, stamp: Stamp, len: u64, hash: u64) -> bool {
        stamp.len == len && stamp.hash == hash
    }

    /// Stamps the file at `path` (site-relative `rel`), now holding bytes of hash `hash`.
    pub(super) fn stamp(&self, rel: &str, path: &Path, hash: u64) {
        if let Some(meta) = std::fs::symlink_metadata(path)
            .ok()
            .and_then(|m| fingerprint(&m))
        {
            self.record(rel, Recorded { hash, meta });
        }
    }

    fn record(&self, rel: &str, stamp: Recorded) {
        if let Ok(mut new) = self.new.lock() {
            new.push((short_key(rel), stamp));
        }
    }

    /// Saves the stamps of the site just published, made of `files` (site-relative): this
    /// build's, else the previous one's (a file kept unread keeps its stamp, checked when used).
    /// A failure is ignored: the next build reads the files back instead.
    pub(super) fn save(self, files: &PathList) {
        let Stamps { file, old, new } = self;
        let mut new = new.into_inner().unwrap_or_default();
        // By key, each path's stamps in the order made (the last is kept).
        new.sort_by_key(|(key, _)| *key);
        let mut keys: Vec<u64> = files.iter().map(short_key).collect();
        keys.sort_unstable();
        keys.dedup();
        let tmp = file.with_extension("bin.tmp");
        let written = (|| -> std::io::Result<()> {
            let mut out = std::io::BufWriter::new(File::create(&tmp)?);
            out.write_all(&FORMAT.to_le_bytes())?;
            // The three lists side by side, each in key order.
            let mut new = new.iter().copied().peekable();
            let mut old = old.iter().flat_map(Saved::records).peekable();
            for key in keys {
                let mut found = None;
                while let Some((k, stamp)) = new.next_if(|(k, _)| *k <= key) {
                    if k == key {
                        found = Some(stamp);
                    }
                }
                while let Some((k, stamp)) = old.next_if(|(k, _)| *k <= key) {
                    if k == key {
                        found = found.or(Some(stamp));
                    }
                }
                if let Some(stamp) = found {
                    out.write_all(&encode(key, stamp))?;
                }
            }
            out.flush()
        })();
        if written.is_err() || std::fs::rename(&tmp, &file).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file's hash is XXH64 of its bytes whole (what stamps saved by earlier builds hold),
    /// however they are split into parts.
    #[test]
    fn the_hash_of_parts_is_the_hash_of_the_whole() {
        let bytes: Vec<u8> = (0..1000u32).map(|n| (n * 7 % 251) as u8).collect();
        let whole = twox_hash::XxHash64::oneshot(0, &bytes);
        assert_eq!(hash(std::iter::once(&bytes[..])), whole);
        for cuts in [
            vec![0],
            vec![1, 31, 32, 33],
            vec![500, 500, 999],
            vec![1000],
        ] {
            let mut parts = Vec::new();
            let mut from = 0;
            for cut in cuts {
                parts.push(&bytes[from..cut]);
                from = cut;
            }
            parts.push(&bytes[from..]);
            assert_eq!(hash(parts.into_iter()), whole, "{from}");
        }
        assert_ne!(hash(std::iter::once(&bytes[1..])), whole);
    }

    /// The saved stamps' hashes by path, as the next build finds them.
    fn saved_hashes(dir: &Path, paths: &[&str]) -> Vec<Option<u64>> {
        let saved = Saved::open(&dir.join(FILE)).expect("stamps saved");
        (paths.iter())
            .map(|p| saved.get(short_key(p)).map(|s| s.hash))
            .collect()
    }

    /// The saved stamps are those of each file of the site that has one: this build's last
    /// stamp, else the previous build's; a file with neither, or no longer in the site, has
    /// none. The file holds each once, by key.
    #[test]
    fn saved_stamps_are_the_sites_files_latest() {
        let dir = tempfile::tempdir().unwrap();
        let [a, b, c] = ["a.html", "m/b.html", "c.html"].map(|n| dir.path().join(n));
        std::fs::create_dir_all(dir.path().join("m")).unwrap();
        for (path, bytes) in [(&a, "a"), (&b, "bb"), (&c, "ccc")] {
            std::fs::write(path, bytes).unwrap();
        }
        let first = Stamps::load(dir.path());
        assert!(first.old.is_none());
        first.stamp("a.html", &a, 1);
        first.stamp("m/b.html", &b, 2);
        first.stamp("c.html", &c, 9);
        first.save(&["a.html", "m/b.html"].into_iter().collect());
        let all = ["a.html", "m/b.html", "c.html", "gone.html"];
        assert_eq!(
            saved_hashes(dir.path(), &all),
            [Some(1), Some(2), None, None]
        );
        let second = Stamps::load(dir.path());
        second.stamp("c.html", &c, 3);
        second.stamp("a.html", &a, 4);
        // Stamped again: the later stamp is saved.
        second.stamp("c.html", &c, 5);
        let files = ["c.html", "gone.html", "m/b.html", "a.html", "c.html"];
        second.save(&files.into_iter().collect());
        assert_eq!(
            saved_hashes(dir.path(), &all),
            [Some(4), Some(2), Some(5), None]
        );
        let len = std::fs::metadata(dir.path().join(FILE)).unwrap().len();
        assert_eq!(len, HEADER + 3 * RECORD as u64);
    }

    /// Of many stamps, over many pages of them, each is found and no other key is; stamps of
    /// a damaged file, one of another format, or one whose keys are out of order are not used.
    #[test]
    fn each_saved_stamp_is_found_and_a_damaged_file_gives_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.html");
        std::fs::write(&path, b"x").unwrap();
        for count in [1usize, PAGE - 1, PAGE, PAGE + 1, 5 * PAGE + 7] {
            let paths: Vec<String> = (0..count).map(|n| format!("p/{n}.html")).collect();
            let stamps = Stamps::load(dir.path());
            for (n, p) in paths.iter().enumerate() {
                stamps.record(
                    p,
                    Recorded {
                        hash: n as u64,
                        meta: 7,
                    },
                );
            }
            stamps.save(&paths.iter().map(String::as_str).collect());
            let saved = Saved::open(&dir.path().join(FILE)).unwrap();
            assert_eq!(
                (saved.count, saved.firsts.len()),
                (count, count.div_ceil(PAGE))
            );
            for (n, p) in paths.iter().enumerate() {
                assert_eq!(saved.get(short_key(p)).map(|s| s.hash), Some(n as u64));
            }
            for absent in ["p/x.html", "", "q/0.html"] {
                assert_eq!(saved.get(short_key(absent)), None);
            }
            assert_eq!((saved.get(0), saved.get(u64::MAX)), (None, None));
        }
        let file = dir.path().join(FILE);
        let good = std::fs::read(&file).unwrap();
        let mut unsorted = good.clone();
        let (first, second) = unsorted[HEADER as usize..].split_at_mut(RECORD);
        first.swap_with_slice(&mut second[..RECORD]);
        let mut other_format = good.clone();
        other_format[0] = 2;
        for bad in [
            &good[..good.len() - 1],
            &unsorted,
            &other_format,
            &b"\x02"[..],
            b"",
        ] {
            std::fs::write(&file, bad).unwrap();
            assert!(Stamps::load(dir.path()).old.is_none());
        }
        std::fs::write(&file, &good).unwrap();
        assert!(Stamps::load(dir.path()).old.is_some());
    }

    /// A file unchanged since stamped is judged by its stamp: bytes of another size differ
    /// without being hashed; bytes of its size by their hash. A file changed since is unknown.
    #[test]
    fn a_stamp_of_another_size_needs_no_hash() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.html");
        std::fs::write(&path, b"alpha").unwrap();
        let stamps = Stamps::load(dir.path());
        let alpha = hash(std::iter::once(&b"alpha"[..]));
        stamps.stamp("a.html", &path, alpha);
        stamps.save(&["a.html"].into_iter().collect());
        let stamps = Stamps::load(dir.path());
        let meta = std::fs::symlink_metadata(&path).unwrap();
        let unhashed = || -> u64 { panic!("hashed") };
        assert_eq!(
            stamps.check("a.html", &meta, 6, unhashed),
            Verdict::Different
        );
        assert_eq!(stamps.check("a.html", &meta, 5, || alpha), Verdict::Same);
        assert_eq!(
            stamps.check("a.html", &meta, 5, || !alpha),
            Verdict::Different
        );
        assert_eq!(stamps.check("b.html", &meta, 5, || alpha), Verdict::Unknown);
        // Bytes of the same size written since, and only the time told: unknown.
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::io::Write::write_all(&mut &file, b"alpho").unwrap();
        let stamped = meta.modified().unwrap();
        file.set_modified(stamped + std::time::Duration::from_nanos(1))
            .unwrap();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        assert_eq!(meta.len(), 5);
        assert_eq!(stamps.check("a.html", &meta, 5, || alpha), Verdict::Unknown);
        std::fs::write(&path, b"alphabet").unwrap();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        assert_eq!(stamps.check("a.html", &meta, 6, unhashed), Verdict::Unknown);
    }
}
