//! [`Events`]: a match's events, decoded on first use. Matches read back from the incremental
//! state keep their events packed (the bytes the state stored) until something reads them, and
//! most builds read only the newest matches' events: the rest come from the checkpoint of the
//! counts and ratings.
//!
//! Decoded from a state file's bytes inside [`sharing`], packed events are not even copied:
//! they are a range of those bytes, which the matches of the file share (on a public server's
//! site, 56 MB of the 70 MB of segments every build loads, in 20,000 allocations).

use std::cell::RefCell;
use std::ops::{Deref, DerefMut, Range};
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Event;
use crate::mapped::FileBytes;

/// A match's events in order; derefs to `Vec<Event>`. Either packed or decoded (or both, once
/// packed events were read).
pub struct Events {
    /// The events as the state stored them (postcard), when read back from it.
    packed: Option<Packed>,
    decoded: OnceLock<Vec<Event>>,
}

/// The postcard bytes of packed events: their own, or a range of a state file's bytes.
#[derive(Clone)]
enum Packed {
    Own(Box<[u8]>),
    Shared(Arc<FileBytes>, Range<usize>),
}

impl Deref for Packed {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Packed::Own(bytes) => bytes,
            Packed::Shared(file, range) => &file[range.clone()],
        }
    }
}

thread_local! {
    /// The bytes being decoded inside [`sharing`] on this thread.
    static SHARED: RefCell<Option<Arc<FileBytes>>> = const { RefCell::new(None) };
}

/// Runs `decode` on `bytes`: the packed events it deserializes from them (borrowed, as
/// `rmp_serde::from_slice` gives them) refer to `bytes` instead of copying them. Decoding runs
/// on the calling thread only (it must not hand work to other threads).
pub fn sharing<T>(bytes: &Arc<FileBytes>, decode: impl FnOnce(&[u8]) -> T) -> T {
    /// Restores the bytes an outer call was sharing, also when `decode` panics.
    struct Restore(Option<Arc<FileBytes>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SHARED.set(self.0.take());
        }
    }
    let _restore = Restore(SHARED.replace(Some(Arc::clone(bytes))));
    decode(bytes)
}

/// `v` as packed events: a range of the bytes [`sharing`] decodes when it lies inside them,
/// else a copy.
fn packed_from(v: &[u8]) -> Packed {
    SHARED.with_borrow(|shared| {
        if let Some(file) = shared {
            let start = (v.as_ptr() as usize).wrapping_sub(file.as_ptr() as usize);
            if start <= file.len() && v.len() <= file.len() - start {
                return Packed::Shared(Arc::clone(file), start..start + v.len());
            }
        }
        Packed::Own(v.into())
    })
}

impl Events {
    /// The events, decoding them first if they are still packed. Packed bytes come from a state
    /// file whose checksum was verified, so they decode; if they did not (a fragstats bug), the
    /// match would show no events rather than stop the build.
    fn get(&self) -> &Vec<Event> {
        self.decoded.get_or_init(|| {
            let bytes = self.packed.as_deref().unwrap_or_default();
            postcard::from_bytes(bytes).unwrap_or_else(|_| {
                debug_assert!(false, "packed events do not decode");
                Vec::new()
            })
        })
    }

    /// Still packed (not read since the state was loaded).
    pub fn is_packed(&self) -> bool {
        self.decoded.get().is_none()
    }
}

impl Default for Events {
    fn default() -> Events {
        Events::from(Vec::new())
    }
}

impl From<Vec<Event>> for Events {
    fn from(events: Vec<Event>) -> Events {
        Events {
            packed: None,
            decoded: OnceLock::from(events),
        }
    }
}

impl Deref for Events {
    type Target = Vec<Event>;

    fn deref(&self) -> &Vec<Event> {
        self.get()
    }
}

impl DerefMut for Events {
    fn deref_mut(&mut self) -> &mut Vec<Event> {
        self.get();
        // Changed events make the packed bytes stale.
        self.packed = None;
        self.decoded.get_mut().expect("decoded just now")
    }
}

impl<'a> IntoIterator for &'a Events {
    type Item = &'a Event;
    type IntoIter = std::slice::Iter<'a, Event>;

    fn into_iter(self) -> Self::IntoIter {
        self.get().iter()
    }
}

impl Clone for Events {
    fn clone(&self) -> Events {
        Events {
            packed: self.packed.clone(),
            decoded: self.decoded.clone(),
        }
    }
}

impl PartialEq for Events {
    fn eq(&self, other: &Events) -> bool {
        self.get() == other.get()
    }
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// Stored as one byte string (the postcard encoding of the events), so that reading a state
/// copies the bytes instead of decoding every event.
impl Serialize for Events {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.packed {
            Some(packed) => serializer.serialize_bytes(packed),
            None => {
                let bytes = postcard::to_allocvec(self.get()).map_err(serde::ser::Error::custom)?;
                serializer.serialize_bytes(&bytes)
            }
        }
    }
}

impl<'de> Deserialize<'de> for Events {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Events, D::Error> {
        struct Bytes;
        impl<'de> serde::de::Visitor<'de> for Bytes {
            type Value = Packed;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the packed events of a match")
            }
            fn visit_borrowed_bytes<E>(self, v: &'de [u8]) -> Result<Packed, E> {
                Ok(packed_from(v))
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Packed, E> {
                Ok(Packed::Own(v.into()))
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Packed, E> {
                Ok(Packed::Own(v.into()))
            }
        }
        Ok(Events {
            packed: Some(deserializer.deserialize_bytes(Bytes)?),
            decoded: OnceLock::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::EventKind;

    fn event(line: u64) -> Event {
        Event {
            time: 3,
            line,
            kind: EventKind::Frag,
            actor: 0,
            target: 1,
            detail: 2,
        }
    }

    /// Events survive the trip through bytes, stay packed until read, and a packed copy
    /// written again gives the same bytes.
    #[test]
    fn packed_until_read() {
        let events = Events::from(vec![event(1), event(2)]);
        let bytes = postcard::to_allocvec(&events).unwrap();
        let mut back: Events = postcard::from_bytes(&bytes).unwrap();
        assert!(back.is_packed());
        assert_eq!(postcard::to_allocvec(&back).unwrap(), bytes);
        assert_eq!(back.len(), 2);
        assert!(!back.is_packed());
        assert_eq!(back, events);
        back.push(event(3));
        let again: Events = postcard::from_bytes(&postcard::to_allocvec(&back).unwrap()).unwrap();
        assert_eq!(again.len(), 3);
        assert_eq!(Events::default().len(), 0);
    }

    /// Inside `sharing`, packed events are ranges of the decoded bytes (outside, copies); both
    /// read and write back as the events they hold.
    #[test]
    fn events_decoded_inside_sharing_refer_to_the_bytes() {
        let all = vec![
            Events::from(vec![event(1), event(2)]),
            Events::from(vec![event(3)]),
        ];
        let bytes = Arc::new(FileBytes::Read(rmp_serde::to_vec(&all).unwrap()));
        let shared: Vec<Events> = sharing(&bytes, |b| rmp_serde::from_slice(b).unwrap());
        let copied: Vec<Events> = rmp_serde::from_slice(&bytes).unwrap();
        assert!(
            SHARED.with_borrow(Option::is_none),
            "restored after sharing"
        );
        for (events, own) in [(&shared, false), (&copied, true)] {
            for e in events {
                let packed = e.packed.as_ref().unwrap();
                assert_eq!(matches!(packed, Packed::Own(_)), own);
            }
            assert_eq!(rmp_serde::to_vec(events).unwrap(), &bytes[..]);
            assert!(events.iter().all(Events::is_packed));
            assert_eq!(events, &all);
        }
        assert_eq!(Arc::strong_count(&bytes), 3, "two matches share the bytes");
    }
}
