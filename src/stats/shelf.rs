//! Where counted matches' packed lines ([`super::Lines`]) go once a block of matches is
//! counted: a [`Scratch`] file in the state folder (issue 41: the lines of every match stayed
//! in memory for the whole build, 11 MB of the 87 MB heap peak at 64,000 matches, and grow with
//! the history). A thread reading several matches of a block reads the block whole and keeps
//! it; one reading a match alone (of a player's, a server's) reads its lines alone. Not the
//! packing (see [`super::lines`]) nor the counting (see [`super`]).

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::Arc;

use crate::scratch::Scratch;

/// Matches whose lines are written out together: about 45 KB of lines of 8 players.
pub const BLOCK_MATCHES: usize = 512;

/// Where a match's packed lines lie in a [`LinesFile`]: the block written with them, where
/// they start in it and their length.
#[derive(Clone)]
pub struct Written {
    block: Arc<Block>,
    offset: u32,
    len: u32,
}

/// A block of lines written to a [`LinesFile`], shared by its matches' [`Written`].
struct Block {
    file: Arc<LinesFile>,
    at: u64,
    len: u32,
}

/// What a thread last read of the counts' files: whole blocks it reads several matches of,
/// and the lines it read alone last.
#[derive(Default)]
struct Reading {
    /// Blocks read whole: the newest first.
    blocks: Vec<Kept>,
    /// The last lines read alone.
    alone: Option<Kept>,
}

/// Bytes a thread read: a file's [`Scratch::number`], where they start in it, and the bytes.
struct Kept {
    file: u64,
    at: u64,
    bytes: Arc<[u8]>,
    /// Where the block the bytes are in (or are) starts.
    block: u64,
}

impl Kept {
    /// The bytes from `start` to `end` of file `file`, when these hold them: the bytes and
    /// where they start in them.
    fn holds(&self, file: u64, start: u64, end: u64) -> Option<(Arc<[u8]>, usize)> {
        (self.file == file && self.at <= start && end <= self.at + self.bytes.len() as u64)
            .then(|| (Arc::clone(&self.bytes), (start - self.at) as usize))
    }
}

/// Whole blocks each thread keeps: the passes over the counts read the matches in order (or
/// newest first), a run per thread.
const KEPT_BLOCKS: usize = 2;

impl Written {
    /// Bytes holding the lines, and where they start in them: from a block this thread read
    /// whole; else the whole block when this thread last read lines of the same block (it is
    /// reading several of its matches); else the lines alone.
    pub fn read(&self) -> (Arc<[u8]>, usize) {
        thread_local! {
            static READING: RefCell<Reading> = RefCell::default();
        }
        let Block { file, at, len } = &*self.block;
        let number = file.0.number();
        let start = at + u64::from(self.offset);
        let end = start + u64::from(self.len);
        READING.with_borrow_mut(|reading| {
            let mut kept = (reading.blocks.iter()).chain(&reading.alone);
            if let Some(found) = kept.find_map(|k| k.holds(number, start, end)) {
                return found;
            }
            let again =
                (reading.alone.as_ref()).is_some_and(|k| k.file == number && k.block == *at);
            let (from, to) = if again {
                (*at, at + u64::from(*len))
            } else {
                (start, end)
            };
            let kept = Kept {
                file: number,
                at: from,
                bytes: file.read(from, to).into(),
                block: *at,
            };
            let found = (Arc::clone(&kept.bytes), (start - from) as usize);
            if again {
                reading.blocks.insert(0, kept);
                reading.blocks.truncate(KEPT_BLOCKS);
            } else {
                reading.alone = Some(kept);
            }
            found
        })
    }
}

/// The file the counts' blocks of lines are written to.
#[derive(Debug)]
pub struct LinesFile(Scratch);

impl LinesFile {
    /// A file to be made in `dir` (the state folder) when the first block is written.
    pub fn new(dir: PathBuf) -> LinesFile {
        LinesFile(Scratch::new(dir))
    }

    /// Writes the packed lines `each` as one block; where each lies, or `None` when the block
    /// cannot be written (it then stays in memory).
    pub fn put<'a>(
        self: &Arc<Self>,
        each: impl Iterator<Item = &'a [u8]> + Clone,
    ) -> Option<Vec<Written>> {
        let len: usize = each.clone().map(<[u8]>::len).sum();
        let mut bytes = Vec::with_capacity(len);
        let mut placed = Vec::new();
        for lines in each {
            let offset = u32::try_from(bytes.len()).ok()?;
            placed.push((offset, u32::try_from(lines.len()).ok()?));
            bytes.extend_from_slice(lines);
        }
        let block = Arc::new(Block {
            file: Arc::clone(self),
            len: u32::try_from(len).ok()?,
            at: self.0.put(&bytes)?,
        });
        Some(
            (placed.into_iter())
                .map(|(offset, len)| Written {
                    block: Arc::clone(&block),
                    offset,
                    len,
                })
                .collect(),
        )
    }

    /// The bytes from `start` to `end`. Bytes that cannot be read back (the file is the
    /// build's own, open and unnamed) stop the build: no page shows made-up counts.
    fn read(&self, start: u64, end: u64) -> Vec<u8> {
        let mut bytes = vec![0; end.saturating_sub(start) as usize];
        if let Err(e) = self.0.read_exact_at(&mut bytes, start) {
            panic!(
                "the counts' scratch file in the state folder cannot be read back ({e}): \
                 nothing was published; check the disk and build again"
            )
        }
        bytes
    }
}

/// Where a history's counts write their lines, and from which match they are still held.
#[derive(Debug, Clone, Default)]
pub struct Shelf {
    file: Option<Arc<LinesFile>>,
    /// The first match whose lines are held in memory.
    held_from: usize,
}

impl PartialEq for Shelf {
    /// Where lines lie is not what they are: counts compare by their lines.
    fn eq(&self, _: &Shelf) -> bool {
        true
    }
}

impl Shelf {
    /// Lines will be written to a file in `dir` (a shelf already given one keeps it).
    pub fn give(&mut self, dir: PathBuf) {
        if self.file.is_none() {
            self.file = Some(Arc::new(LinesFile::new(dir)));
        }
    }

    /// From now on every match's lines are held again (they were all rewritten).
    pub fn rewritten(&mut self) {
        self.held_from = 0;
    }

    /// The next full block of held matches to write now, of `matches` in all.
    pub fn due(&self, matches: usize) -> Option<std::ops::Range<usize>> {
        self.file.as_ref()?;
        let held = matches.checked_sub(self.held_from)?;
        (held >= BLOCK_MATCHES).then_some(self.held_from..self.held_from + BLOCK_MATCHES)
    }

    /// Writes the packed lines `each` of the run [`Shelf::due`] gave; where each lies, or
    /// `None` when they stay in memory (then, and from then on: the file is let go).
    pub fn put<'a>(
        &mut self,
        each: impl Iterator<Item = &'a [u8]> + Clone,
    ) -> Option<Vec<Written>> {
        let written = self.file.as_ref()?.put(each.clone());
        match &written {
            Some(_) => self.held_from += each.count(),
            None => self.file = None,
        }
        written
    }
}
