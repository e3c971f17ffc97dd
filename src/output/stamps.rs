//! What each published file held when fragstats wrote or last checked it: a hash of its bytes,
//! with a fingerprint of its size, modification time and inode then. A build that renders a page again compares
//! the page's hash with the stamp instead of reading the published file back, when the file's
//! size, modification time and inode are still the stamp's (so a file the admin edited or
//! replaced is read and compared as before; one deleted is written again). Kept in the state
//! folder (`outputs.bin`) beside the state, apart from it: a missing, damaged or foreign file
//! only means reading the published files back. Not a record of anything else.

use std::path::{Path, PathBuf};

// Paths are keyed as the site's output paths are (`/`-separated text, see `safe_relative`).
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::paths::{KeyTable, PathList, short_key};

/// File name of the stamps inside the state folder.
const FILE: &str = "outputs.bin";
/// Bump when the layout or the hash changes: stamps of another format are not used.
const FORMAT: u32 = 2;

/// A file's bytes' hash and a fingerprint of its metadata when they were known, as saved and
/// held: 16 bytes (the metadata itself, 32 more, was 2 MB of a build's peak at 64,000 matches,
/// issue 41).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Recorded {
    hash: u64,
    /// [`fingerprint`] of the file's metadata then.
    meta: u64,
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

/// What `outputs.bin` holds: a path and its record per file of the site, read as a list;
/// written from the maps without one ([`Listed`]), in the same bytes.
#[derive(Serialize, Deserialize)]
struct Stored<F> {
    format: u32,
    files: F,
}

/// The published files' stamps as loaded, by the [`short_key`] of their site-relative path: 24
/// bytes a file (with both hashes of a path's key, 32: 0.5 MB of a build's peak at 64,000
/// matches, issue 41). Two paths sharing one (about one in 2^64 a pair) share a stamp, which
/// holds one file's inode: the other file is read back.
type Loaded = KeyTable<Recorded, u64>;

/// The stamps of `outputs.bin` as they are decoded: each path's [`short_key`] and its record
/// (the paths themselves are not kept).
struct KeyedStamps(Vec<(u64, Recorded)>);

impl<'de> Deserialize<'de> for KeyedStamps {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<KeyedStamps, D::Error> {
        struct Entries;
        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = KeyedStamps;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of paths and their stamps")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<KeyedStamps, A::Error> {
                // A length read from the file is believed up to 262,144 entries (6 MB); past
                // that the list grows as its entries are read.
                let mut entries = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 18));
                while let Some((rel, stamp)) = seq.next_element::<(&str, Recorded)>()? {
                    entries.push((short_key(rel), stamp));
                }
                Ok(KeyedStamps(entries))
            }
        }
        deserializer.deserialize_seq(Entries)
    }
}

/// The stamps a build makes, by the [`short_key`] of their site-relative path, in the order
/// made: a list while the site is written (24 bytes a stamp, where a map of the 65,000 of an
/// empty site of 64,000 matches held 131,072 slots of 25 bytes, 3.3 MB, growing through the
/// pages: issue 41), a [`KeyTable`] of the last of each path's once it is saved.
type Made = Vec<(u64, Recorded)>;

/// The stamps of `files` (site-relative paths, in order) found in `new`, else in `old`,
/// encoded as a list of path and stamp while they are looked up, not gathered first.
struct Listed<'a> {
    files: &'a PathList,
    new: &'a Loaded,
    old: &'a Loaded,
}

impl Listed<'_> {
    fn stamps(&self) -> impl Iterator<Item = (&str, &Recorded)> {
        self.files.iter().filter_map(|rel| {
            let key = short_key(rel);
            let stamp = self.new.get(&key).or_else(|| self.old.get(&key))?;
            Some((rel, stamp))
        })
    }
}

impl Serialize for Listed<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        // The list's length first (the encoding asks for it), then its items.
        let mut seq = serializer.serialize_seq(Some(self.stamps().count()))?;
        for item in self.stamps() {
            seq.serialize_element(&item)?;
        }
        seq.end()
    }
}

/// The stamps of the published site and those this build makes, by path relative to the site.
pub(super) struct Stamps {
    file: PathBuf,
    old: Loaded,
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
        // Mapped, not read into memory, and each path's key taken as it is decoded (read, with
        // a list of the paths and one of their keys, the file took 8 MB for a while at 65,000
        // files, under the build's peak: issue 41).
        let old = crate::mapped::FileBytes::read(&file)
            .ok()
            .and_then(|bytes| postcard::from_bytes::<Stored<KeyedStamps>>(&bytes).ok())
            .filter(|s| s.format == FORMAT)
            .map(|s| Loaded::new_any(s.files.0))
            .unwrap_or_default();
        Stamps {
            file,
            old,
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
        let recorded = self.old.get(&short_key(rel))?;
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
        // Newest first: the table keeps the first of a path's stamps.
        new.reverse();
        let new = Loaded::new(new);
        let stored = Stored {
            format: FORMAT,
            files: Listed {
                files,
                new: &new,
                old: &old,
            },
        };
        let tmp = file.with_extension("bin.tmp");
        let written = (|| -> anyhow::Result<()> {
            let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
            postcard::to_io(&stored, &mut out)?;
            std::io::Write::flush(&mut out)?;
            Ok(())
        })();
        // The two tables are freed on the thread pool, not on the way to the rename.
        rayon::spawn(move || drop((old, new)));
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

    /// The saved list names each file of the site that has a stamp, in the site's order: this
    /// build's stamp, else the previous build's; a file with neither is left out.
    #[test]
    fn saved_stamps_list_the_sites_files_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let [a, b, c] = ["a.html", "m/b.html", "c.html"].map(|n| dir.path().join(n));
        std::fs::create_dir_all(dir.path().join("m")).unwrap();
        for (path, bytes) in [(&a, "a"), (&b, "bb"), (&c, "ccc")] {
            std::fs::write(path, bytes).unwrap();
        }
        let first = Stamps::load(dir.path());
        first.stamp("a.html", &a, 1);
        first.stamp("m/b.html", &b, 2);
        first.save(&["a.html", "m/b.html"].into_iter().collect());
        let second = Stamps::load(dir.path());
        second.stamp("c.html", &c, 3);
        second.stamp("a.html", &a, 4);
        // Stamped again: the later stamp is saved.
        second.stamp("c.html", &c, 5);
        let files = ["c.html", "gone.html", "m/b.html", "a.html"];
        second.save(&files.into_iter().collect());
        let bytes = std::fs::read(dir.path().join(FILE)).unwrap();
        let stored: Stored<Vec<(String, Recorded)>> = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(stored.format, FORMAT);
        let listed: Vec<(&str, u64)> = stored
            .files
            .iter()
            .map(|(p, s)| (p.as_str(), s.hash))
            .collect();
        assert_eq!(listed, [("c.html", 5), ("m/b.html", 2), ("a.html", 4)]);
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
