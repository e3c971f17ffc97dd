//! What each published file held when fragstats wrote or last checked it: a hash of its bytes,
//! with its size, modification time and inode then. A build that renders a page again compares
//! the page's hash with the stamp instead of reading the published file back, when the file's
//! size, modification time and inode are still the stamp's (so a file the admin edited or
//! replaced is read and compared as before; one deleted is written again). Kept in the state
//! folder (`outputs.bin`) beside the state, apart from it: a missing, damaged or foreign file
//! only means reading the published files back. Not a record of anything else.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

// Paths are keyed as the site's output paths are (`/`-separated text, see `safe_relative`).
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// File name of the stamps inside the state folder.
const FILE: &str = "outputs.bin";
/// Bump when the layout or the hash changes: stamps of another format are not used.
const FORMAT: u32 = 1;

/// A file's bytes' hash and what its metadata was when they were known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Stamp {
    hash: u64,
    meta: Meta,
}

/// Size, modification time (seconds and nanoseconds) and inode of a file: an edit changes the
/// time (and mostly the size), a replacement the inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Meta {
    len: u64,
    seconds: i64,
    nanos: u32,
    inode: u64,
}

impl Meta {
    fn of(meta: &std::fs::Metadata) -> Option<Meta> {
        if !meta.is_file() {
            return None;
        }
        let since = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        Some(Meta {
            len: meta.len(),
            seconds: i64::try_from(since.as_secs()).ok()?,
            nanos: since.subsec_nanos(),
            inode: inode(meta),
        })
    }
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

/// What `outputs.bin` holds: read with owned paths, saved from paths borrowed rather than
/// copied (a public server's site has 100,000 files); the same bytes either way.
#[derive(Serialize, Deserialize)]
struct Stored<P> {
    format: u32,
    files: Vec<(P, Stamp)>,
}

/// Stamps by site-relative path, hashed with ahash: each build looks up and saves one per file
/// of the site, where the standard hasher's cost showed.
type StampMap = HashMap<String, Stamp, ahash::RandomState>;

/// The stamps of the published site and those this build makes, by path relative to the site.
pub(super) struct Stamps {
    file: PathBuf,
    old: StampMap,
    new: Mutex<StampMap>,
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
        let old = std::fs::read(&file)
            .ok()
            .and_then(|bytes| postcard::from_bytes::<Stored<String>>(&bytes).ok())
            .filter(|s| s.format == FORMAT)
            .map(|s| s.files.into_iter().collect())
            .unwrap_or_default();
        Stamps {
            file,
            old,
            new: Mutex::new(StampMap::default()),
        }
    }

    /// Whether the file at `path` (site-relative `rel`), whose metadata is `meta`, holds the
    /// `len` bytes whose hash `hash` takes, by its stamp; an unchanged file's stamp is kept for
    /// the next build. The hash is not taken when the stamp's size tells the answer.
    pub(super) fn check(
        &self,
        rel: &str,
        meta: &std::fs::Metadata,
        len: u64,
        hash: impl FnOnce() -> u64,
    ) -> Verdict {
        let Some(stamp) = self.old.get(rel) else {
            return Verdict::Unknown;
        };
        if Meta::of(meta) != Some(stamp.meta) {
            return Verdict::Unknown;
        }
        // The file is as stamped: of another size, it holds other bytes.
        if stamp.meta.len != len {
            return Verdict::Different;
        }
        if stamp.hash == hash() {
            self.record(rel, *stamp);
            Verdict::Same
        } else {
            Verdict::Different
        }
    }

    /// Stamps the file at `path` (site-relative `rel`), now holding bytes of hash `hash`.
    pub(super) fn stamp(&self, rel: &str, path: &Path, hash: u64) {
        if let Some(meta) = std::fs::symlink_metadata(path)
            .ok()
            .and_then(|m| Meta::of(&m))
        {
            self.record(rel, Stamp { hash, meta });
        }
    }

    fn record(&self, rel: &str, stamp: Stamp) {
        if let Ok(mut new) = self.new.lock() {
            new.insert(rel.to_string(), stamp);
        }
    }

    /// Saves the stamps of the site just published, made of `files` (site-relative): this
    /// build's, else the previous one's (a file kept unread keeps its stamp, checked when used).
    /// A failure is ignored: the next build reads the files back instead.
    pub(super) fn save(self, files: &[String]) {
        use rayon::prelude::*;
        let Stamps { file, old, new } = self;
        let new = new.into_inner().unwrap_or_default();
        // Looked up in parallel (a public server's site has 100,000 files), in order.
        let stored = Stored::<&str> {
            format: FORMAT,
            files: files
                .par_iter()
                .filter_map(|rel| {
                    let stamp = new.get(rel).or_else(|| old.get(rel))?;
                    Some((rel.as_str(), *stamp))
                })
                .collect(),
        };
        // The two maps (a path per file) are freed on the thread pool, not on the way to
        // writing the file, which the build waits for.
        rayon::spawn(move || drop((old, new)));
        let Ok(bytes) = postcard::to_allocvec(&stored) else {
            return;
        };
        let tmp = file.with_extension("bin.tmp");
        if std::fs::write(&tmp, bytes).is_err() || std::fs::rename(&tmp, &file).is_err() {
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
        stamps.save(&["a.html".to_string()]);
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
        std::fs::write(&path, b"alphabet").unwrap();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        assert_eq!(stamps.check("a.html", &meta, 6, unhashed), Verdict::Unknown);
    }
}
