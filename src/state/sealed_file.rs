//! A value sealed (header, CRC-32 of the body, then the body: the layout of `seal_with`)
//! straight into a file through a buffer: the ratings checkpoint (tens of MB on a public
//! server's site, postcard, a buffer of a megabyte) and the segments of settled matches (5 MB
//! each, MessagePack by position as `seal_compact` makes them, a buffer of 64 KB). No pass to
//! measure its size, no copy of it in memory, the checksum taken of each buffer's worth as it
//! is written (`benches/RESULTS.md` has the append cycle's figures).
//!
//! Every write of the body but the last is a whole buffer, from the start of the file (so a
//! run of whole pages): written over an older file whose pages are no longer cached, no block
//! of it is read back to fill in a page. The checksum goes last into the first page, written
//! just before.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};

use serde::Serialize;

use crate::hash::Hasher;

/// Bytes gathered before each write of the checkpoint.
const BUFFER: usize = 1 << 20;
/// Bytes gathered before each write of a segment: two logs read side by side each write one,
/// and a 5 MB encoding held whole set the reading's peak (issue 41).
const SEGMENT_BUFFER: usize = 1 << 16;

/// Writes `header`, the checksum and `value`'s postcard encoding into `file` from its start,
/// and cuts it to their length.
pub(super) fn write(
    file: &File,
    header: &super::Header,
    value: &impl Serialize,
) -> anyhow::Result<()> {
    let mut sink = Sink::start(file, header, BUFFER, None)?;
    let encoded = postcard::serialize_with_flavor(value, &mut sink);
    sink.finish(encoded.map_err(anyhow::Error::from))?;
    Ok(())
}

/// Writes `header`, the checksum and `value` as `seal_compact` encodes it (MessagePack, the
/// fields of structs by position, each match's packed events placed: see
/// [`crate::model::events::placed`]) into `file` from its start, and cuts it to their length.
/// Gives the bytes' [`content_hash`].
pub(super) fn write_compact(
    file: &File,
    header: &super::Header,
    value: &impl Serialize,
) -> anyhow::Result<u64> {
    let mut sink = Sink::start(file, header, SEGMENT_BUFFER, Some(Hasher::new()))?;
    let start = sink.body_from as u64;
    let mut writer = crate::model::events::PlacingWriter::new(&mut sink, start);
    let encoded = rmp_serde::encode::write(&mut writer, value).map_err(anyhow::Error::from);
    sink.finish(encoded)
}

/// The hash that names sealed `bytes` (a segment's name holds it): FNV-1a of the header and
/// the body, then of the checksum. The checksum follows the body so that a file written as it
/// is encoded ([`write_compact`]) hashes its bytes in the order they are made. None when the
/// bytes are not sealed.
pub(super) fn content_hash(bytes: &[u8]) -> Option<u64> {
    let (_, sum, body) = super::sealed_parts(bytes)?;
    let head = &bytes[..bytes.len() - body.len() - sum.len()];
    let mut h = Hasher::new();
    h.raw(head);
    h.raw(body);
    h.raw(sum);
    Some(h.finish())
}

/// Where the encoding goes: a buffer written to the file whenever it is full, the checksum
/// taken of the body's bytes on the way. The first write error is kept (postcard's errors
/// carry none); nothing more is written after it, and the encoding stops.
struct Sink<'f> {
    file: &'f File,
    buffer: Vec<u8>,
    /// Where the body starts: the bytes before (header and checksum) are not summed.
    body_from: usize,
    /// Bytes written to the file so far.
    written: u64,
    sum: crc32fast::Hasher,
    /// The [`content_hash`] so far, when it is wanted.
    name: Option<Hasher>,
    /// Bytes gathered before each write.
    capacity: usize,
    failed: Option<std::io::Error>,
}

impl<'f> Sink<'f> {
    /// A sink into `file` holding `header` and the checksum's place.
    fn start(
        file: &'f File,
        header: &super::Header,
        capacity: usize,
        name: Option<Hasher>,
    ) -> anyhow::Result<Sink<'f>> {
        let head = postcard::to_allocvec(header)?;
        let mut sink = Sink {
            file,
            buffer: Vec::with_capacity(capacity),
            body_from: head.len() + 4,
            written: 0,
            sum: crc32fast::Hasher::new(),
            name,
            capacity,
            failed: None,
        };
        sink.extend(&head);
        sink.extend(&[0; 4]);
        Ok(sink)
    }

    /// Writes the rest once the body is `encoded`, then the checksum into its place after the
    /// header, and cuts the file there; gives the [`content_hash`] (0 when it was
    /// not wanted). A write's error comes before the encoding's.
    fn finish(mut self, encoded: anyhow::Result<()>) -> anyhow::Result<u64> {
        self.flush();
        if let Some(e) = self.failed {
            return Err(e.into());
        }
        encoded?;
        let sum = self.sum.finalize().to_le_bytes();
        let mut out = self.file;
        out.seek(SeekFrom::Start((self.body_from - 4) as u64))?;
        out.write_all(&sum)?;
        self.file.set_len(self.written)?;
        Ok(self.name.map_or(0, |mut h| {
            h.raw(&sum);
            h.finish()
        }))
    }

    /// Adds `bytes`, writing every buffer they fill.
    fn extend(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let room = self.capacity - self.buffer.len();
            let (now, later) = bytes.split_at(room.min(bytes.len()));
            self.buffer.extend_from_slice(now);
            bytes = later;
            if self.buffer.len() == self.capacity {
                self.flush();
            }
        }
    }

    /// An error once a write failed, so that the encoding stops there (the write's own error
    /// is the one reported).
    fn going(&self) -> postcard::Result<()> {
        match self.failed {
            Some(_) => Err(postcard::Error::SerializeBufferFull),
            None => Ok(()),
        }
    }

    /// Writes what the buffer holds.
    fn flush(&mut self) {
        if self.failed.is_some() {
            self.buffer.clear();
            return;
        }
        let start = self.written as usize;
        let skip = self.body_from.saturating_sub(start).min(self.buffer.len());
        self.sum.update(&self.buffer[skip..]);
        if let Some(name) = &mut self.name {
            // The header, not the checksum's place: the checksum is hashed last.
            let header = (self.body_from - 4)
                .saturating_sub(start)
                .min(self.buffer.len());
            name.raw(&self.buffer[..header]);
            name.raw(&self.buffer[skip..]);
        }
        let mut out = self.file;
        match out.write_all(&self.buffer) {
            Ok(()) => self.written += self.buffer.len() as u64,
            Err(e) => self.failed = Some(e),
        }
        self.buffer.clear();
    }
}

impl postcard::ser_flavors::Flavor for &mut Sink<'_> {
    type Output = ();

    fn try_push(&mut self, data: u8) -> postcard::Result<()> {
        if self.buffer.len() + 1 < self.capacity {
            self.buffer.push(data);
            return Ok(());
        }
        self.extend(&[data]);
        self.going()
    }

    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        self.extend(data);
        self.going()
    }

    fn finalize(self) -> postcard::Result<()> {
        Ok(())
    }
}

/// For MessagePack: a write error is given as the encoder's (the write's own is kept).
impl std::io::Write for &mut Sink<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.extend(buf);
        match self.failed {
            Some(_) => Err(std::io::Error::other("the state file could not be written")),
            None => Ok(buf.len()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value of several buffers' length written over a longer file holds the bytes sealing
    /// makes in memory, and no more.
    #[test]
    fn the_file_holds_what_sealing_in_memory_makes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sealed");
        std::fs::write(&path, vec![7u8; 5 * BUFFER]).unwrap();
        let value: (Vec<u64>, Vec<u8>, String) = (
            (0..400_000).map(|i| i * 2_654_435_761).collect(),
            vec![3; BUFFER + 17],
            "end".into(),
        );
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        let header = super::super::Header::current();
        write(&file, &header, &value).unwrap();
        let expected = super::super::seal_with(&header, |bytes| {
            bytes.extend(postcard::to_allocvec(&value)?);
            Ok(())
        })
        .unwrap();
        assert!(expected.len() > 2 * BUFFER);
        assert_eq!(std::fs::read(&path).unwrap(), expected);
    }

    /// A value of several segment buffers' length written as a segment holds the bytes
    /// `seal_compact` makes in memory, and their content hash is the one given.
    #[test]
    fn a_segment_file_holds_what_sealing_compact_makes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("segment");
        std::fs::write(&path, vec![7u8; 5 * SEGMENT_BUFFER]).unwrap();
        let value: (Vec<u64>, String) = (
            (0..3 * SEGMENT_BUFFER as u64 / 8)
                .map(|i| i * 2_654_435_761)
                .collect(),
            "end".into(),
        );
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        let hash = write_compact(&file, &super::super::Header::current(), &value).unwrap();
        let expected = super::super::seal_compact(&value).unwrap();
        assert!(expected.len() > 2 * SEGMENT_BUFFER);
        assert_eq!(std::fs::read(&path).unwrap(), expected);
        assert_eq!(Some(hash), content_hash(&expected));
        // The hash covers every byte: the checksum and the header too.
        let mut other = expected.clone();
        let sum_at = postcard::to_allocvec(&super::super::Header::current())
            .unwrap()
            .len();
        other[sum_at] ^= 1;
        assert_ne!(content_hash(&other), Some(hash));
        other[sum_at] ^= 1;
        other[0] ^= 1;
        assert_ne!(content_hash(&other), Some(hash));
        assert_eq!(content_hash(&expected[..3]), None);
    }

    /// A file that cannot be written (opened to read only) gives the write's error.
    #[test]
    fn a_write_that_fails_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sealed");
        std::fs::write(&path, b"old").unwrap();
        let file = File::open(&path).unwrap();
        let value = vec![1u64 << 40; 3 * BUFFER / 8];
        let err = write(&file, &super::super::Header::current(), &value).unwrap_err();
        assert!(err.downcast_ref::<std::io::Error>().is_some(), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        let err = write_compact(&file, &super::super::Header::current(), &value).unwrap_err();
        assert!(err.downcast_ref::<std::io::Error>().is_some(), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
    }
}
