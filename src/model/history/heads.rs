//! [`Heads`]: a history's match heads, held as they are made while the history is put together
//! and packed once it is (a block of [`BLOCK_HEADS`] heads in about 30 bytes each, where held
//! they take 64: 4.1 MB at 64,000 matches, the largest part of what a build holds for its
//! history, issue 41). A packed block is unpacked whole when one of its heads is read, and a
//! thread keeps the last few it unpacked. Not the heads' texts (see [`HeadTable`]).

use std::cell::RefCell;
use std::rc::Rc;

use super::super::match_head::{HeldHead, PackBase};

/// Heads packed together: a thread unpacks them at once (4 KB held).
const BLOCK_HEADS: usize = 64;

/// Blocks of heads a thread keeps unpacked: the steps that run side by side on a thread each
/// read their own run of matches.
const BLOCKS_KEPT: usize = 8;

/// A block of heads as a thread unpacked it: the id of the heads it is from, its number and
/// its heads.
type Unpacked = (u64, usize, Rc<Vec<HeldHead>>);

/// A history's heads, in its order.
pub(super) enum Heads {
    /// Held one by one, while the history is put together (and changed).
    Open(Vec<HeldHead>),
    /// Packed, once it is.
    Packed(Packed),
}

/// Heads packed a block at a time.
pub(super) struct Packed {
    /// The blocks' bytes, one after the other.
    bytes: Vec<u8>,
    /// Where each block starts in `bytes`.
    starts: Vec<u32>,
    len: usize,
    /// Tells these heads apart from any others in the per-thread cache of blocks unpacked.
    id: u64,
}

impl Default for Heads {
    fn default() -> Heads {
        Heads::Open(Vec::new())
    }
}

impl Heads {
    /// What `read` makes of the `i`-th head.
    ///
    /// # Panics
    /// When there is no `i`-th head.
    pub(super) fn with<T>(&self, i: usize, read: impl FnOnce(&HeldHead) -> T) -> T {
        match self {
            Heads::Open(heads) => read(&heads[i]),
            Heads::Packed(packed) => {
                assert!(i < packed.len, "head {i} of {}", packed.len);
                let block = packed.block(i / BLOCK_HEADS);
                read(&block[i % BLOCK_HEADS])
            }
        }
    }

    /// The heads held one by one, to be changed or added to (unpacked first if packed).
    pub(super) fn open(&mut self) -> &mut Vec<HeldHead> {
        if let Heads::Packed(packed) = self {
            let heads = (0..packed.starts.len())
                .flat_map(|b| packed.unpack(b))
                .collect();
            *self = Heads::Open(heads);
        }
        match self {
            Heads::Open(heads) => heads,
            Heads::Packed(_) => unreachable!("unpacked just above"),
        }
    }

    /// Packs the heads: from now on they are read, not changed.
    pub(super) fn pack(&mut self) {
        let Heads::Open(heads) = self else {
            return;
        };
        let mut bytes = Vec::new();
        let mut starts = Vec::with_capacity(heads.len().div_ceil(BLOCK_HEADS));
        for block in heads.chunks(BLOCK_HEADS) {
            starts.push(u32::try_from(bytes.len()).expect("heads packed in under 4 GB"));
            let mut last = PackBase::default();
            for head in block {
                head.pack(&mut last, &mut bytes);
            }
        }
        bytes.shrink_to_fit();
        static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        *self = Heads::Packed(Packed {
            bytes,
            starts,
            len: heads.len(),
            id: MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        });
    }
}

impl Packed {
    /// Block `b` unpacked, through this thread's cache of the last [`BLOCKS_KEPT`] unpacked.
    fn block(&self, b: usize) -> Rc<Vec<HeldHead>> {
        thread_local! {
            /// The last blocks unpacked, newest first.
            static UNPACKED: RefCell<Vec<Unpacked>> = const { RefCell::new(Vec::new()) };
        }
        UNPACKED.with_borrow_mut(|unpacked| {
            if let Some(found) =
                (unpacked.iter()).position(|(id, at, _)| *id == self.id && *at == b)
            {
                if found > 0 {
                    let hit = unpacked.remove(found);
                    unpacked.insert(0, hit);
                }
                return Rc::clone(&unpacked[0].2);
            }
            let heads = Rc::new(self.unpack(b));
            unpacked.truncate(BLOCKS_KEPT - 1);
            unpacked.insert(0, (self.id, b, Rc::clone(&heads)));
            heads
        })
    }

    /// The heads of block `b`, unpacked.
    fn unpack(&self, b: usize) -> Vec<HeldHead> {
        let from = self.starts[b] as usize;
        let to = self
            .starts
            .get(b + 1)
            .map_or(self.bytes.len(), |&s| s as usize);
        let count = BLOCK_HEADS.min(self.len - b * BLOCK_HEADS);
        let mut bytes = &self.bytes[from..to];
        let mut last = PackBase::default();
        let heads: Vec<HeldHead> = (0..count)
            .map_while(|_| HeldHead::unpack(&mut last, &mut bytes))
            .collect();
        assert!(
            heads.len() == count && bytes.is_empty(),
            "the heads of block {b} do not read back as packed"
        );
        heads
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Team;
    use crate::model::match_head::HeadTable;

    /// Heads read back the same held and packed, in order and out of it, across blocks (one
    /// cut short), and again once opened to be changed.
    #[test]
    fn packed_heads_read_as_held() {
        fn made(table: &mut HeadTable) -> Vec<HeldHead> {
            let mut m = crate::testdata::bare_match("ctf", &[("a", Team::Red), ("b", Team::Blue)]);
            (0..BLOCK_HEADS * 2 + 5)
                .map(|k| {
                    m.line = 1000 + 37 * k as u64;
                    m.id = format!("{:016x}", k * 977).into();
                    m.duration_seconds = k as u32;
                    HeldHead::of(&m, table)
                })
                .collect()
        }
        let mut table = HeadTable::default();
        let mut heads = Heads::Open(made(&mut table));
        let again = made(&mut table);
        let count = again.len();
        let read = |heads: &Heads, i: usize| {
            heads.with(i, |h| {
                let head = h.head(i as u32, &table);
                (head.line, head.id.to_string(), head.duration_seconds)
            })
        };
        let held: Vec<_> = (0..count).map(|i| read(&heads, i)).collect();
        heads.pack();
        assert!(matches!(heads, Heads::Packed(_)));
        let order = (0..count)
            .rev()
            .chain(0..count)
            .chain((0..count).step_by(65));
        for i in order {
            assert_eq!(read(&heads, i), held[i], "head {i}");
        }
        assert_eq!(heads.open(), &again);
        assert!((0..count).all(|i| read(&heads, i) == held[i]));
    }
}
