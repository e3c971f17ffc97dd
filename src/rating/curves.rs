//! [`Curves`]: the rating curves of a ladder's identities, a [`CurvePoint`] per match each
//! played, in match order. Once given a folder ([`Curves::spill_to`], the state folder), each
//! curve keeps in memory only its newest points and where the others lie: every full block of
//! [`BLOCK`] points is written to a file without a name there, shared by the curves and their
//! copies, and read back a block at a time through a small cache per thread (issue 41: Becker's
//! and the headline's curves were 16 MB of the heap's 128 MB peak at 64,000 matches, and grow
//! with the history).
//! Saved and read as the list of lists of points they are, in the same bytes. Not the ratings
//! that make the points (see [`super::systems::dynamic`]).

use std::cell::RefCell;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, SerializeSeq, Serializer};

use crate::rating::curve_point::CurvePoint;
use crate::scratch::Scratch;

/// Points per block written out: 6 KB.
pub const BLOCK: usize = 512;

/// Bytes of a point on disk: its match number and the bits of its rating, little-endian.
const POINT_BYTES: usize = 12;

/// Blocks each thread keeps read back (about 400 KB), each in the slot its place gives.
const CACHED_BLOCKS: usize = 64;

/// One curve per identity (see the module doc).
#[derive(Clone, Default)]
pub struct Curves {
    /// Shared by copies (the checkpoint's and the pages' order of the same curves) until one
    /// of them adds a point.
    lines: Vec<Arc<Line>>,
    /// Where full blocks go, once given.
    disk: Option<Arc<Disk>>,
}

/// One identity's curve: full blocks written out, then the points after them.
#[derive(Clone, Default)]
struct Line {
    written: Vec<Written>,
    tail: Vec<CurvePoint>,
}

/// A full block of a curve written out: where it lies, and its first point's match number.
#[derive(Clone, Copy)]
struct Written {
    at: u64,
    first: u32,
}

/// Blocks a thread has read back: block `at` of file `number` in slot
/// [`Cache::slot`], replacing the one there.
#[derive(Default)]
struct Cache {
    slots: Vec<Option<Cached>>,
}

impl Cache {
    fn slot(file: u64, at: u64) -> usize {
        let block = at / (BLOCK * POINT_BYTES) as u64;
        (block ^ file.wrapping_mul(0x9e37_79b9_7f4a_7c15)) as usize % CACHED_BLOCKS
    }
}

/// A block read back: its file's [`Scratch::number`], where it lies, and its points.
struct Cached {
    file: u64,
    at: u64,
    points: Arc<[CurvePoint]>,
}

/// The file blocks are written to, made in its folder when the first block is written.
struct Disk(Scratch);

impl Disk {
    fn new(dir: PathBuf) -> Disk {
        Disk(Scratch::new(dir))
    }

    /// Writes `points`; where they lie, or `None` when they cannot be written.
    fn put(&self, points: &[CurvePoint]) -> Option<u64> {
        let mut bytes = Vec::with_capacity(points.len() * POINT_BYTES);
        for p in points {
            let (number, rating) = p.pair();
            bytes.extend_from_slice(&number.to_le_bytes());
            bytes.extend_from_slice(&rating.to_bits().to_le_bytes());
        }
        self.0.put(&bytes)
    }

    /// The block written at `at`. A block that cannot be read back (the file is the build's
    /// own, open and unnamed) stops the build: no curve is drawn from made-up points.
    fn block(&self, at: u64) -> Arc<[CurvePoint]> {
        thread_local! {
            static CACHE: RefCell<Cache> = RefCell::default();
        }
        CACHE.with_borrow_mut(|cache| {
            if cache.slots.is_empty() {
                cache.slots.resize_with(CACHED_BLOCKS, || None);
            }
            let number = self.0.number();
            let slot = &mut cache.slots[Cache::slot(number, at)];
            if let Some(cached) = slot.as_ref().filter(|c| c.file == number && c.at == at) {
                return Arc::clone(&cached.points);
            }
            let points: Arc<[CurvePoint]> = self.read(at).into();
            *slot = Some(Cached {
                file: number,
                at,
                points: Arc::clone(&points),
            });
            points
        })
    }

    /// Reads the block at `at`, bypassing the cache.
    fn read(&self, at: u64) -> Vec<CurvePoint> {
        let mut bytes = vec![0; BLOCK * POINT_BYTES];
        if let Err(e) = self.0.read_exact_at(&mut bytes, at) {
            panic!(
                "the rating curves' scratch file in the state folder cannot be read back ({e}): \
                 nothing was published; check the disk and build again"
            )
        }
        bytes
            .chunks_exact(POINT_BYTES)
            .map(|b| {
                let number = u32::from_le_bytes(b[..4].try_into().expect("four bytes"));
                let bits = u64::from_le_bytes(b[4..].try_into().expect("eight bytes"));
                CurvePoint::new(number, f64::from_bits(bits))
            })
            .collect()
    }
}

impl Line {
    /// Points in all.
    fn len(&self) -> usize {
        self.written.len() * BLOCK + self.tail.len()
    }
}

impl Curves {
    /// `n` curves without points, held in memory.
    pub fn new(n: usize) -> Curves {
        Curves {
            lines: vec![Arc::default(); n],
            disk: None,
        }
    }

    /// Writes every full block to a file without a name in `dir` from now on, the points held
    /// now included (they stay in memory when it cannot be made or written). Curves that
    /// already have their file keep it: the blocks written there are read from it.
    pub fn spill_to(&mut self, dir: PathBuf) {
        if self.disk.is_some() {
            return;
        }
        self.disk = Some(Arc::new(Disk::new(dir)));
        for id in 0..self.lines.len() {
            self.write_out(id);
        }
    }

    /// Writes curve `id`'s full blocks of held points out, when there is a file to write to.
    fn write_out(&mut self, id: usize) {
        let (Some(disk), Some(line)) = (&self.disk, self.lines.get_mut(id).map(Arc::make_mut))
        else {
            return;
        };
        let mut done = 0;
        while line.tail.len() - done >= BLOCK {
            let block = &line.tail[done..done + BLOCK];
            let Some(at) = disk.put(block) else {
                break;
            };
            let first = block[0].pair().0;
            line.written.push(Written { at, first });
            done += BLOCK;
        }
        if done > 0 {
            line.tail.drain(..done);
        }
    }

    /// Number of curves.
    pub fn count(&self) -> usize {
        self.lines.len()
    }

    /// Number of points of curve `id` (0 for a curve it does not have).
    pub fn len(&self, id: usize) -> usize {
        self.lines.get(id).map_or(0, |line| line.len())
    }

    /// Adds `point` to curve `id` (which must exist).
    pub fn push(&mut self, id: usize, point: CurvePoint) {
        let line = Arc::make_mut(&mut self.lines[id]);
        line.tail.push(point);
        if line.tail.len() >= BLOCK && self.disk.is_some() {
            self.write_out(id);
        }
    }

    /// Adds curves without points up to `n` curves.
    pub fn grow_to(&mut self, n: usize) {
        if self.lines.len() < n {
            self.lines.resize_with(n, Arc::default);
        }
    }

    /// The curves in the order `order` gives: curve `i` of the result is this one's
    /// `order[i]`, or none without points (`None`, or a curve it does not have). Shares the
    /// curves and the file, copying nothing.
    pub fn reordered(&self, order: impl Iterator<Item = Option<usize>>) -> Curves {
        Curves {
            lines: order
                .map(|id| {
                    id.and_then(|id| self.lines.get(id))
                        .cloned()
                        .unwrap_or_default()
                })
                .collect(),
            disk: self.disk.clone(),
        }
    }

    /// Frees the room the held points grew into (of the curves no copy shares).
    pub fn shrink_to_fit(&mut self) {
        for line in self.lines.iter_mut().filter_map(Arc::get_mut) {
            line.tail.shrink_to_fit();
            line.written.shrink_to_fit();
        }
    }

    /// Point `n` of curve `id` (`n` below [`Curves::len`]).
    pub fn point(&self, id: usize, n: usize) -> CurvePoint {
        let line = &self.lines[id];
        let on_disk = line.written.len() * BLOCK;
        if n >= on_disk {
            return line.tail[n - on_disk];
        }
        let disk = self.disk.as_ref().expect("written blocks have their file");
        disk.block(line.written[n / BLOCK].at)[n % BLOCK]
    }

    /// The last point of curve `id`, if any.
    pub fn last(&self, id: usize) -> Option<CurvePoint> {
        let len = self.len(id);
        (len > 0).then(|| self.point(id, len - 1))
    }

    /// The point of match `number` in curve `id`, if it has one (its points are in match
    /// order), and the point before it, if any: for a page that shows a rating and its change,
    /// one block read back (two when the point starts a block).
    pub fn at_match(&self, id: usize, number: u32) -> Option<(Option<CurvePoint>, CurvePoint)> {
        let line = self.lines.get(id)?;
        let on_disk = line.written.len() * BLOCK;
        let (points, first): (Arc<[CurvePoint]>, usize) = match line.tail.first() {
            Some(p) if p.pair().0 <= number => {
                let i = (line.tail.binary_search_by_key(&number, |p| p.pair().0)).ok()?;
                let before = match i {
                    0 => on_disk.checked_sub(1).map(|n| self.point(id, n)),
                    _ => Some(line.tail[i - 1]),
                };
                return Some((before, line.tail[i]));
            }
            _ => {
                let b = (line.written.partition_point(|w| w.first <= number)).checked_sub(1)?;
                let disk = self.disk.as_ref().expect("written blocks have their file");
                (disk.block(line.written[b].at), b * BLOCK)
            }
        };
        let i = (points.binary_search_by_key(&number, |p| p.pair().0)).ok()?;
        let before = match i {
            0 => first.checked_sub(1).map(|n| self.point(id, n)),
            _ => Some(points[i - 1]),
        };
        Some((before, points[i]))
    }

    /// The points of curve `id` in order, read a block at a time (not through the cache).
    pub fn points(&self, id: usize) -> impl Iterator<Item = CurvePoint> + '_ {
        let line = self.lines.get(id);
        let written = line.map_or(&[][..], |l| &l.written[..]);
        let tail = line.map_or(&[][..], |l| &l.tail[..]);
        written
            .iter()
            .flat_map(move |w| {
                let disk = self.disk.as_ref().expect("written blocks have their file");
                disk.read(w.at)
            })
            .chain(tail.iter().copied())
    }

    /// The curves renumbered into `n` curves: curve `old` becomes curve `to(old)`, the others
    /// start without points. Shares the file; these are left without points.
    pub fn renumbered(&mut self, n: usize, to: impl Fn(usize) -> usize) -> Curves {
        let mut lines = vec![Arc::default(); n];
        for (old, line) in self.lines.iter_mut().enumerate() {
            lines[to(old)] = std::mem::take(line);
        }
        Curves {
            lines,
            disk: self.disk.clone(),
        }
    }
}

impl PartialEq for Curves {
    fn eq(&self, other: &Curves) -> bool {
        self.count() == other.count()
            && (0..self.count())
                .all(|id| self.len(id) == other.len(id) && self.points(id).eq(other.points(id)))
    }
}

impl fmt::Debug for Curves {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries((0..self.count()).map(|id| self.points(id).collect::<Vec<_>>()))
            .finish()
    }
}

/// One curve, serialized as its list of points.
struct LineOf<'a>(&'a Curves, usize);

impl Serialize for LineOf<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len(self.1)))?;
        for p in self.0.points(self.1) {
            seq.serialize_element(&p)?;
        }
        seq.end()
    }
}

impl Serialize for Curves {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.count()))?;
        for id in 0..self.count() {
            seq.serialize_element(&LineOf(self, id))?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Curves {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Curves, D::Error> {
        let lines = Vec::<Vec<CurvePoint>>::deserialize(deserializer)?;
        Ok(Curves {
            lines: (lines.into_iter())
                .map(|tail| {
                    Arc::new(Line {
                        written: Vec::new(),
                        tail,
                    })
                })
                .collect(),
            disk: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Curve `id`'s point `n`: distinct bits everywhere, match numbers rising with gaps.
    fn made(id: usize, n: usize) -> CurvePoint {
        CurvePoint::new(
            (3 * n + id) as u32,
            1000.0 + (n as f64) * 0.1 - id as f64 / 7.0,
        )
    }

    /// Lengths around the block's, across several blocks, and none.
    const LENGTHS: [usize; 6] = [0, 1, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 77];

    fn filled(spill: Option<&std::path::Path>) -> (Curves, Vec<Vec<CurvePoint>>) {
        let mut curves = Curves::new(LENGTHS.len());
        if let Some(dir) = spill {
            curves.spill_to(dir.to_path_buf());
        }
        let lists: Vec<Vec<CurvePoint>> = (LENGTHS.iter().enumerate())
            .map(|(id, &len)| (0..len).map(|n| made(id, n)).collect())
            .collect();
        // Interleaved, as a ladder pushes them.
        for n in 0..*LENGTHS.iter().max().unwrap() {
            for (id, list) in lists.iter().enumerate() {
                if let Some(&p) = list.get(n) {
                    curves.push(id, p);
                }
            }
        }
        (curves, lists)
    }

    fn bits(p: CurvePoint) -> (u32, u64) {
        let (n, r) = p.pair();
        (n, r.to_bits())
    }

    /// Every read gives the pushed points to the bit, held or written out.
    fn reads_as(curves: &Curves, lists: &[Vec<CurvePoint>]) {
        assert_eq!(curves.count(), lists.len());
        for (id, list) in lists.iter().enumerate() {
            assert_eq!(curves.len(id), list.len());
            let all: Vec<_> = curves.points(id).map(bits).collect();
            assert_eq!(all, list.iter().copied().map(bits).collect::<Vec<_>>());
            for (n, &p) in list.iter().enumerate() {
                assert_eq!(bits(curves.point(id, n)), bits(p), "curve {id} point {n}");
                let (before, at) = curves.at_match(id, p.pair().0).expect("a point there");
                assert_eq!(bits(at), bits(p));
                assert_eq!(before.map(bits), n.checked_sub(1).map(|b| bits(list[b])));
                // Between two points' match numbers, and past the last: none.
                assert!(curves.at_match(id, p.pair().0 + 1).is_none());
            }
            assert_eq!(curves.last(id).map(bits), list.last().copied().map(bits));
            // Backwards too, block after block leaving the thread's cache.
            for n in (0..list.len()).rev() {
                assert_eq!(
                    bits(curves.point(id, n)),
                    bits(list[n]),
                    "curve {id} point {n}"
                );
            }
        }
        assert!(curves.at_match(0, 0).is_none());
        assert!(curves.at_match(lists.len(), 0).is_none());
    }

    #[test]
    fn written_out_curves_read_as_pushed_and_save_the_bytes_of_lists() {
        let dir = tempfile::tempdir().unwrap();
        let (held, lists) = filled(None);
        let (spilled, _) = filled(Some(dir.path()));
        assert!(held.lines.iter().all(|l| l.written.is_empty()));
        assert_eq!(spilled.lines[5].written.len(), 3);
        assert_eq!(spilled.lines[5].tail.len(), 77);
        assert_eq!(spilled.lines[3].tail.len(), 0);
        reads_as(&held, &lists);
        reads_as(&spilled, &lists);
        assert_eq!(held, spilled);
        let bytes = postcard::to_allocvec(&lists).unwrap();
        assert_eq!(postcard::to_allocvec(&held).unwrap(), bytes);
        assert_eq!(postcard::to_allocvec(&spilled).unwrap(), bytes);
        let back: Curves = postcard::from_bytes(&bytes).unwrap();
        reads_as(&back, &lists);
        // Nothing with a name is left in the folder.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn held_points_are_written_out_when_a_folder_is_given_later() {
        let dir = tempfile::tempdir().unwrap();
        let (mut curves, lists) = filled(None);
        curves.spill_to(dir.path().to_path_buf());
        assert_eq!(curves.lines[5].written.len(), 3);
        reads_as(&curves, &lists);
        // Given a folder again, they keep the file their blocks are in.
        let other = tempfile::tempdir().unwrap();
        curves.spill_to(other.path().to_path_buf());
        reads_as(&curves, &lists);
    }

    #[test]
    fn a_folder_that_cannot_be_written_keeps_the_points_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let (curves, lists) = filled(Some(&dir.path().join("missing")));
        assert!(curves.lines.iter().all(|l| l.written.is_empty()));
        reads_as(&curves, &lists);
    }

    #[test]
    fn renumbered_and_copied_curves_keep_their_points() {
        let dir = tempfile::tempdir().unwrap();
        let (mut curves, lists) = filled(Some(dir.path()));
        let n = lists.len();
        // Reversed, into one more curve (the new one first, without points).
        let moved = curves.renumbered(n + 1, |old| n - old);
        let mut expected = vec![Vec::new()];
        expected.extend(lists.iter().rev().cloned());
        reads_as(&moved, &expected);
        // A copy goes on apart from the original, sharing the blocks written before.
        let mut copy = moved.clone();
        let extra: Vec<CurvePoint> = (0..BLOCK + 3).map(|k| made(9, 10_000 + k)).collect();
        for &p in &extra {
            copy.push(1, p);
        }
        reads_as(&moved, &expected);
        expected[1].extend(&extra);
        reads_as(&copy, &expected);
    }
}
