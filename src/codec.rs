//! Encoding helpers shared by the state folder and the rating systems' saved states (postcard).
//! It knows nothing of files or of what it encodes.

/// `bytes` followed by `value`'s postcard encoding, `bytes` grown once to hold it (its size is
/// measured first): a large state grown step by step would be copied over and over into fresh
/// memory (`benches/RESULTS.md` has the peak memory of both ways).
pub(crate) fn extend_sized<T: serde::Serialize + ?Sized>(
    value: &T,
    mut bytes: Vec<u8>,
) -> postcard::Result<Vec<u8>> {
    let size = postcard::serialize_with_flavor(value, postcard::ser_flavors::Size::default())?;
    bytes.reserve_exact(size);
    postcard::to_extend(value, bytes)
}
