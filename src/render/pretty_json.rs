//! The pieces of a hand-written pretty JSON file, byte for byte as `serde_json::to_vec_pretty`
//! lays it out (two spaces per level): a scalar after its key, and an array of items. Used where
//! a data file is tens of MB and remade on every append (`players.json`, `ladders.json`), with
//! each file's tests holding its bytes to serde_json's.

use anyhow::Result;
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
