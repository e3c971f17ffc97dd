//! A value sealed (header, CRC-32 of the body, postcard body: the layout of `seal_with`)
//! straight into a file, through a buffer of a megabyte, for the ratings checkpoint (tens of MB
//! on a public server's site): no pass to measure its size, no copy of it in memory, the
//! checksum taken of each buffer's worth as it is written (`benches/RESULTS.md` has the
//! append cycle's figures).
//!
//! Every write of the body but the last is a whole buffer, from the start of the file (so a
//! run of whole pages): written over an older file whose pages are no longer cached, no block
//! of it is read back to fill in a page. The checksum goes last into the first page, written
//! just before.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};

use serde::Serialize;

/// Bytes gathered before each write.
const BUFFER: usize = 1 << 20;

/// Writes `header`, the checksum and `value`'s postcard encoding into `file` from its start,
/// and cuts it to their length.
pub(super) fn write(
    file: &File,
    header: &super::Header,
    value: &impl Serialize,
) -> anyhow::Result<()> {
    let head = postcard::to_allocvec(header)?;
    let mut sink = Sink {
        file,
        buffer: Vec::with_capacity(BUFFER),
        body_from: head.len() + 4,
        written: 0,
        sum: crc32fast::Hasher::new(),
        failed: None,
    };
    sink.extend(&head);
    sink.extend(&[0; 4]);
    let encoded = postcard::serialize_with_flavor(value, &mut sink);
    sink.flush();
    if let Some(e) = sink.failed {
        return Err(e.into());
    }
    encoded?;
    let mut out = file;
    out.seek(SeekFrom::Start(head.len() as u64))?;
    out.write_all(&sink.sum.finalize().to_le_bytes())?;
    file.set_len(sink.written)?;
    Ok(())
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
    failed: Option<std::io::Error>,
}

impl Sink<'_> {
    /// Adds `bytes`, writing every buffer they fill.
    fn extend(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let room = BUFFER - self.buffer.len();
            let (now, later) = bytes.split_at(room.min(bytes.len()));
            self.buffer.extend_from_slice(now);
            bytes = later;
            if self.buffer.len() == BUFFER {
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
        if self.buffer.len() + 1 < BUFFER {
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
    }
}
