//! Where counted matches' packed lines ([`super::Lines`]) go once a block of matches is
//! counted: a [`Scratch`] file in the state folder, read back a block at a time through a small
//! cache per thread (issue 41: the lines of every match stayed in memory for the whole build,
//! 11 MB of the 87 MB heap peak at 64,000 matches, and grow with the history). Not the packing
//! (see [`super::lines`]) nor the counting (see [`super`]).

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::Arc;

use crate::scratch::Scratch;

/// Matches whose lines are written out together: about 45 KB of lines of 8 players.
pub const BLOCK_MATCHES: usize = 512;

/// Blocks each thread keeps read back (about 700 KB of lines of 8 players), each in the slot
/// its place gives.
const CACHED_BLOCKS: usize = 16;

/// Where a match's packed lines lie in a [`LinesFile`]: the block written with them and where
/// they start in it.
#[derive(Clone)]
pub struct Written {
    file: Arc<LinesFile>,
    block: u64,
    block_len: u32,
    offset: u32,
}

impl Written {
    /// The block holding the lines and where they start in it.
    pub fn read(&self) -> (Arc<[u8]>, usize) {
        (
            self.file.block(self.block, self.block_len),
            self.offset as usize,
        )
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
        let block_len = u32::try_from(len).ok()?;
        let mut bytes = Vec::with_capacity(len);
        let mut offsets = Vec::new();
        for lines in each {
            offsets.push(bytes.len() as u32);
            bytes.extend_from_slice(lines);
        }
        let block = self.0.put(&bytes)?;
        Some(
            (offsets.into_iter())
                .map(|offset| Written {
                    file: Arc::clone(self),
                    block,
                    block_len,
                    offset,
                })
                .collect(),
        )
    }

    /// The block of `len` bytes written at `at`, through this thread's cache. A block that
    /// cannot be read back (the file is the build's own, open and unnamed) stops the build: no
    /// page shows made-up counts.
    fn block(&self, at: u64, len: u32) -> Arc<[u8]> {
        thread_local! {
            static CACHE: RefCell<Vec<Option<Cached>>> = RefCell::default();
        }
        let number = self.0.number();
        CACHE.with_borrow_mut(|slots| {
            if slots.is_empty() {
                slots.resize_with(CACHED_BLOCKS, || None);
            }
            let place = (at / 4096) ^ number.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let slot = &mut slots[place as usize % CACHED_BLOCKS];
            if let Some((_, _, bytes)) = slot
                .as_ref()
                .filter(|(file, block, _)| *file == number && *block == at)
            {
                return Arc::clone(bytes);
            }
            let mut bytes = vec![0; len as usize];
            if let Err(e) = self.0.read_exact_at(&mut bytes, at) {
                panic!(
                    "the counts' scratch file in the state folder cannot be read back ({e}): \
                     nothing was published; check the disk and build again"
                )
            }
            let bytes: Arc<[u8]> = bytes.into();
            *slot = Some((number, at, Arc::clone(&bytes)));
            bytes
        })
    }
}

/// A block a thread read back: its file's [`Scratch::number`], where it lies, and its bytes.
type Cached = (u64, u64, Arc<[u8]>);

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
