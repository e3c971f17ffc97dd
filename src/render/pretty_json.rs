//! The pieces of a hand-written pretty JSON file, byte for byte as `serde_json::to_vec_pretty`
//! lays it out (two spaces per level): a scalar after its key, and an array of items. Used where
//! a data file is tens of MB and remade on every append (`players.json`, `ladders.json`), with
//! each file's tests holding its bytes to serde_json's.

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;

/// `lead` (comma, newline, indent and key), then one scalar value as `serde_json` writes it.
pub(in crate::render) fn field<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    lead: &str,
    value: &T,
) -> Result<()> {
    out.extend_from_slice(lead.as_bytes());
    serde_json::to_writer(&mut *out, value)?;
    Ok(())
}

/// The array of `items` whose elements sit `depth` levels deep: `[]` when empty, else each
/// element on its own line after its indent (written by `item`), and the closing bracket one
/// level out.
pub(in crate::render) fn array<T>(
    out: &mut Vec<u8>,
    items: &[T],
    depth: usize,
    mut item: impl FnMut(&mut Vec<u8>, &T) -> Result<()>,
) -> Result<()> {
    if items.is_empty() {
        out.extend_from_slice(b"[]");
        return Ok(());
    }
    out.push(b'[');
    for (n, value) in items.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        newline(out, depth);
        item(out, value)?;
    }
    newline(out, depth - 1);
    out.push(b']');
    Ok(())
}

/// A newline and the indent of `depth` levels.
pub(in crate::render) fn newline(out: &mut Vec<u8>, depth: usize) {
    out.push(b'\n');
    out.resize(out.len() + 2 * depth, b' ');
}

/// Items of an array written per chunk by one thread each: two chunks a thread are held at once,
/// 0.3 MB each of `matches.json` (chunks of 2,048 matches held 6 MB, the top of the pages' heap
/// at 64,000 games, issue 41).
const CHUNK: usize = 512;

/// Bytes per item the first chunks' buffers are sized for, before any chunk is done.
const FIRST_GUESS: usize = 1024;

/// The elements of an array of `count` items that sit `depth` levels deep, each after its
/// comma (but the first), newline and indent, written by `item` from its position: what
/// [`array`] writes between its brackets, in chunks made in parallel and kept apart, never
/// joined (a public server's `players.json` is tens of MB, remade on every append). Each
/// chunk's buffer is sized once from the bytes per item of the chunks already made (plus an
/// eighth), so it seldom grows.
pub(in crate::render) fn par_items(
    count: usize,
    depth: usize,
    item: impl Fn(&mut Vec<u8>, usize) -> Result<()> + Sync,
) -> Result<Vec<Vec<u8>>> {
    let mut chunks = Vec::new();
    par_items_each(count, depth, usize::MAX, item, &mut |chunk| {
        chunks.push(chunk);
        Ok(())
    })?;
    Ok(chunks)
}

/// [`par_items`]' chunks given to `emit` in order, made `batch` at a time: with a few per
/// thread, the items of an array that grows with the history are never all in memory.
fn par_items_each(
    count: usize,
    depth: usize,
    batch: usize,
    item: impl Fn(&mut Vec<u8>, usize) -> Result<()> + Sync,
    emit: &mut dyn FnMut(Vec<u8>) -> Result<()>,
) -> Result<()> {
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    let (made_bytes, made_items) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let chunks = count.div_ceil(CHUNK);
    for first in (0..chunks).step_by(batch) {
        let made: Vec<Vec<u8>> = (first..first.saturating_add(batch).min(chunks))
            .into_par_iter()
            .map(|c| {
                let items = c * CHUNK..((c + 1) * CHUNK).min(count);
                let per_item = match made_items.load(Relaxed) {
                    0 => FIRST_GUESS,
                    n => made_bytes.load(Relaxed) / n * 9 / 8 + 8,
                };
                let mut out = Vec::with_capacity(items.len() * per_item);
                for i in items.clone() {
                    if i > 0 {
                        out.push(b',');
                    }
                    newline(&mut out, depth);
                    item(&mut out, i)?;
                }
                made_bytes.fetch_add(out.len(), Relaxed);
                made_items.fetch_add(items.len(), Relaxed);
                Ok(out)
            })
            .collect::<Result<_>>()?;
        made.into_iter().try_for_each(&mut *emit)?;
    }
    Ok(())
}

/// The whole file of a top-level array of `count` items (elements one level deep, each written
/// by `item` from its position) and a trailing newline, part after part to `emit`: the bytes
/// [`array`] then `\n` makes, in the chunks of [`par_items`] between the brackets, two per
/// thread made at a time.
pub(in crate::render) fn par_array_file(
    count: usize,
    item: impl Fn(&mut Vec<u8>, usize) -> Result<()> + Sync,
    emit: &mut dyn FnMut(Vec<u8>) -> Result<()>,
) -> Result<()> {
    if count == 0 {
        return emit(b"[]\n".to_vec());
    }
    emit(b"[".to_vec())?;
    let batch = 2 * rayon::current_num_threads().max(1);
    par_items_each(count, 1, batch, item, emit)?;
    emit(b"\n]\n".to_vec())
}

/// [`par_array_file`] of objects: for each position, `{`, the fields `fields` writes of what
/// `make` makes of it (each led by its own comma, newline and indent, two levels deep), and `}`
/// on a line of its own (`players.json`, `matches.json`).
pub(in crate::render) fn par_objects_file<T>(
    count: usize,
    make: impl Fn(usize) -> T + Sync,
    fields: impl Fn(&mut Vec<u8>, &T) -> Result<()> + Sync,
    emit: &mut dyn FnMut(Vec<u8>) -> Result<()>,
) -> Result<()> {
    let item = |out: &mut Vec<u8>, i| {
        out.push(b'{');
        fields(out, &make(i))?;
        newline(out, 1);
        out.push(b'}');
        Ok(())
    };
    par_array_file(count, item, emit)
}

/// The bytes `write` gives part after part, in one buffer (for tests).
#[cfg(test)]
pub(in crate::render) fn collected(
    write: impl FnOnce(&mut dyn FnMut(Vec<u8>) -> Result<()>) -> Result<()>,
) -> Vec<u8> {
    let mut bytes = Vec::new();
    write(&mut |part| {
        bytes.extend(part);
        Ok(())
    })
    .unwrap();
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chunked and parallel, the file is [`array`]'s bytes: for none, one, a chunk's worth and
    /// more than a chunk of items.
    #[test]
    fn par_array_file_is_array_and_a_newline() {
        for count in [0, 1, CHUNK, CHUNK + 3, 3 * CHUNK - 1] {
            let items: Vec<usize> = (0..count).collect();
            let mut want = Vec::new();
            array(&mut want, &items, 1, |out, n| field(out, "", n)).unwrap();
            want.push(b'\n');
            let got =
                collected(|emit| par_array_file(count, |out, n| field(out, "", &items[n]), emit));
            assert_eq!(got, want, "{count} items");
            // Items of a deeper array, between its brackets.
            let mut want = Vec::new();
            array(&mut want, &items, 3, |out, n| field(out, "", n)).unwrap();
            let got = par_items(count, 3, |out, n| field(out, "", &items[n])).unwrap();
            let inner = want
                .get(1..want.len().saturating_sub(6))
                .unwrap_or_default();
            assert_eq!(got.concat(), inner, "{count} items three deep");
        }
    }
}
