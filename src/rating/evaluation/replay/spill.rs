//! The spill file of a build's replay: the batches the leaders have replayed and the followers
//! have not yet (the followers, slower, finish beside the pages), each with the headline's
//! losses on its frags, written to a [`Scratch`] file in the state folder, so that what waits
//! for the followers is on disk, not in memory (issue 41). The file is gone once the build
//! closes it, whatever way the build ends.
//!
//! A record is the batch's description (postcard), then its packed outcomes, then the losses as
//! little-endian `f32`s, each after its length in bytes (`u64`, little-endian).

use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

use super::Batch;
use crate::rating::evaluation::outcomes::Outcomes;
use crate::scratch::Scratch;

/// A spill file being written: records are appended, and read back from their range.
pub struct Spill {
    file: Arc<Scratch>,
}

impl Spill {
    /// A spill file to be made in `dir` when the first record is put.
    pub fn new(dir: PathBuf) -> Spill {
        Spill {
            file: Arc::new(Scratch::new(dir)),
        }
    }

    /// The file, to read records from with [`take`].
    pub fn file(&self) -> &Arc<Scratch> {
        &self.file
    }

    /// Appends `batch` and the headline's `losses` on its frags; returns the record's range, or
    /// `None` when it cannot be written (a folder that cannot be written, a full disk: the
    /// record, and every later one, stays with the caller).
    pub fn put(&self, batch: &Batch, losses: &[f32]) -> Option<Range<u64>> {
        let description = postcard::to_allocvec(batch).ok()?;
        let outcomes = batch.outcomes.as_bytes();
        let mut record =
            Vec::with_capacity(24 + description.len() + outcomes.len() + 4 * losses.len());
        for part in [&description[..], outcomes] {
            record.extend((part.len() as u64).to_le_bytes());
            record.extend(part);
        }
        record.extend((4 * losses.len() as u64).to_le_bytes());
        record.extend(losses.iter().flat_map(|l| l.to_le_bytes()));
        let start = self.file.put(&record)?;
        Some(start..start + record.len() as u64)
    }
}

/// The batch and losses of the record at `range` of `file` (a [`Spill`]'s).
pub fn take(file: &Scratch, range: Range<u64>) -> std::io::Result<(Batch, Vec<f32>)> {
    let mut record = vec![0; (range.end - range.start) as usize];
    file.read_exact_at(&mut record, range.start)?;
    let damaged = || std::io::Error::new(std::io::ErrorKind::InvalidData, "a damaged record");
    let mut rest = &record[..];
    let mut next = || -> std::io::Result<&[u8]> {
        let (len, after) = rest.split_first_chunk::<8>().ok_or_else(damaged)?;
        let len = usize::try_from(u64::from_le_bytes(*len)).map_err(|_| damaged())?;
        let (part, after) = after.split_at_checked(len).ok_or_else(damaged)?;
        rest = after;
        Ok(part)
    };
    let description = next()?;
    let mut batch: Batch = postcard::from_bytes(description).map_err(|_| damaged())?;
    batch.outcomes = Outcomes::from_bytes(next()?.to_vec());
    let losses = next()?
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().expect("four bytes")))
        .collect();
    Ok((batch, losses))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rating::evaluation::replay::{Book, next_batch};
    use crate::testdata::Listed;

    /// Records read back as written, from any one of them, in a file whose folder holds no
    /// name of it; a record cut short is an error, not a panic.
    #[test]
    fn records_read_back_as_written() {
        let (matches, roster) = crate::testdata::history("openarena");
        let mut all = matches.list().iter().zip(roster.match_players.iter());
        let mut book = Book::default();
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::new(dir.path().to_path_buf());
        let reader = Arc::clone(spill.file());
        let mut written = Vec::new();
        while let Some(batch) = next_batch(&mut book, &mut all, &roster, 7) {
            let losses: Vec<f32> = (0..batch.frags).map(|i| i as f32 / 7.0).collect();
            let range = spill.put(&batch, &losses).unwrap();
            written.push((range, postcard::to_allocvec(&batch).unwrap(), batch, losses));
        }
        assert!(written.len() > 2);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "no name");
        for (range, description, batch, losses) in written.iter().rev() {
            let (back, back_losses) = take(&reader, range.clone()).unwrap();
            assert_eq!(&postcard::to_allocvec(&back).unwrap(), description);
            assert_eq!(back.outcomes.as_bytes(), batch.outcomes.as_bytes());
            assert_eq!(&back_losses, losses);
        }
        let (range, ..) = &written[0];
        assert!(take(&reader, range.start..range.end - 3).is_err());
        assert!(take(&reader, range.start + 8..range.end).is_err());
    }
}
