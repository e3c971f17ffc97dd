//! One file of the site staged as its parts are made, never whole in memory: the data files
//! that grow with the history (`data/matches.json` is about 40 MB at 64,000 matches). Each part
//! is written to a file beside the file's place and hashed as it comes; the published file is
//! compared by its stamp when it is still as stamped, else read alongside, part for part. An
//! unchanged file keeps the published one (and its modification time), a changed one is renamed
//! into place. Pages made whole are staged by `stage_file`, not here.

use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::Path;

use anyhow::{Context, Result};

use super::stamps::{PartsHasher, Stamp, Stamps};

/// Makes a file's bytes part after part, giving each part in order to the function it is
/// given; stops at the first error, from the parts or from what takes them.
pub type MakeParts<'a> = dyn FnMut(&mut dyn FnMut(Vec<u8>) -> Result<()>) -> Result<()> + 'a;

/// What the new bytes are compared with.
enum Against {
    /// The published file's stamp (it is still as stamped): its size and hash, at the end.
    Stamp(Stamp),
    /// The published file's bytes, read as the parts come; None once they differ.
    Bytes(Option<BufReader<File>>),
    /// There is no published file at the path.
    Nothing,
}

/// Stages the file at site-relative `rel` from the parts `make` makes (see the module doc);
/// true when its bytes are new. `mirrored`: the staging folder holds a hard link to the
/// published file, else it is `previous`'s file of the same path, if any. On an error nothing
/// is left of the file's new bytes.
pub(super) fn stage(
    staging: &Path,
    rel: &str,
    previous: Option<&Path>,
    mirrored: bool,
    stamps: Option<&Stamps>,
    make: &mut MakeParts,
) -> Result<bool> {
    let path = staging.join(rel);
    let old = match mirrored {
        true => Some(path.clone()),
        false => previous.map(|p| p.join(rel)),
    };
    let old_meta = (old.as_ref())
        .and_then(|old| std::fs::symlink_metadata(old).ok())
        .filter(std::fs::Metadata::is_file);
    let mut against = match (&old, &old_meta) {
        (Some(old), Some(meta)) => match stamps.and_then(|s| s.current(rel, meta)) {
            Some(stamp) => Against::Stamp(stamp),
            None => Against::Bytes(File::open(old).ok().map(BufReader::new)),
        },
        _ => Against::Nothing,
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let part_file = path.with_file_name(format!(".{}.part", name.unwrap_or_default()));
    let made = write_parts(&part_file, &mut against, make)
        .with_context(|| format!("cannot write {}", path.display()));
    let (hash, len) = match made {
        Ok(made) => made,
        Err(e) => {
            let _ = std::fs::remove_file(&part_file);
            return Err(e);
        }
    };
    let same = match against {
        Against::Stamp(stamp) => stamps.is_some_and(|s| s.holds(stamp, len, hash)),
        Against::Bytes(Some(mut rest)) => rest.read(&mut [0]).is_ok_and(|n| n == 0),
        Against::Bytes(None) | Against::Nothing => false,
    };
    let stamp = |path: &Path| {
        if let Some(stamps) = stamps {
            stamps.stamp(rel, path, hash);
        }
    };
    if same {
        // The mirrored link is the published file; else the published file is linked in.
        let kept = mirrored || old.is_some_and(|old| std::fs::hard_link(old, &path).is_ok());
        if kept {
            let _ = std::fs::remove_file(&part_file);
            stamp(&path);
            return Ok(false);
        }
    }
    // Replaces a mirrored link without writing through it.
    std::fs::rename(&part_file, &path).with_context(|| {
        let _ = std::fs::remove_file(&part_file);
        format!("cannot put {} in place", path.display())
    })?;
    stamp(&path);
    Ok(true)
}

/// Creates `part_file` with the parts `make` makes, comparing each with `against`'s bytes as it
/// goes; returns their hash and number.
fn write_parts(
    part_file: &Path,
    against: &mut Against,
    make: &mut MakeParts,
) -> Result<(u64, u64)> {
    let mut out = File::create(part_file)?;
    let mut hasher = PartsHasher::new();
    let mut len = 0u64;
    let mut old_bytes = Vec::new();
    make(&mut |part| {
        hasher.write(&part);
        len += part.len() as u64;
        if let Against::Bytes(reader) = against
            && let Some(old) = reader
        {
            old_bytes.resize(part.len(), 0);
            if old.read_exact(&mut old_bytes).is_err() || old_bytes != part {
                *reader = None;
            }
        }
        out.write_all(&part)?;
        Ok(())
    })?;
    Ok((hasher.finish(), len))
}
