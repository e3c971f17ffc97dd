//! [`Heads`]: a history's match heads, held as they are made while the history is put together
//! and packed once it is (about 30 bytes a head, where held they take 64: 4.1 MB at 64,000
//! matches, the largest part of what a build held for its history, issue 41). A packed head is
//! read alone: its line, start and place among the sources are differences from its block's
//! first head's, and where each head starts is kept (pages read the heads of a player's
//! matches, scattered over the history, so unpacking a block for one head cost an append to the
//! 966 MB archive 0.4 s). Not the heads' texts (see `HeadTable`).

use super::super::match_head::{HeldHead, PackBase};

/// Heads whose differences share one base.
const BLOCK_HEADS: usize = 64;

/// A history's heads, in its order.
pub(super) enum Heads {
    /// Held one by one, while the history is put together (and changed).
    Open(Vec<HeldHead>),
    /// Packed, once it is.
    Packed(Packed),
}

/// Heads packed one after the other, a block of [`BLOCK_HEADS`] sharing a base.
pub(super) struct Packed {
    /// The heads' bytes, one after the other.
    bytes: Vec<u8>,
    /// Where each block starts in `bytes`, and the base of its heads' differences.
    blocks: Vec<(u32, PackBase)>,
    /// Where each head starts in its block.
    offsets: Vec<u16>,
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
            Heads::Packed(packed) => read(&packed.unpack(i)),
        }
    }

    /// The heads held one by one, to be changed or added to (unpacked first if packed).
    pub(super) fn open(&mut self) -> &mut Vec<HeldHead> {
        if let Heads::Packed(packed) = self {
            let heads = (0..packed.offsets.len())
                .map(|i| packed.unpack(i))
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
        let mut blocks = Vec::with_capacity(heads.len().div_ceil(BLOCK_HEADS));
        let mut offsets = Vec::with_capacity(heads.len());
        for block in heads.chunks(BLOCK_HEADS) {
            let start = bytes.len();
            let base = PackBase::of(&block[0]);
            for head in block {
                let at = bytes.len() - start;
                offsets.push(u16::try_from(at).expect("a block of heads packs in under 64 KB"));
                head.pack(&base, &mut bytes);
            }
            let start = u32::try_from(start).expect("heads packed in under 4 GB");
            blocks.push((start, base));
        }
        bytes.shrink_to_fit();
        *self = Heads::Packed(Packed {
            bytes,
            blocks,
            offsets,
        });
    }
}

impl Packed {
    /// The `i`-th head, unpacked.
    fn unpack(&self, i: usize) -> HeldHead {
        let (start, base) = &self.blocks[i / BLOCK_HEADS];
        let at = *start as usize + usize::from(self.offsets[i]);
        let mut bytes = &self.bytes[at..];
        match HeldHead::unpack(base, &mut bytes) {
            Some(head) => head,
            None => panic!("head {i} does not read back as packed"),
        }
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
