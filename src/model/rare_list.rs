//! [`RareList`]: a list that most matches leave empty (awards, rounds, kill positions), one
//! pointer wide in each match. Not a general-purpose vector.

use std::fmt;
use std::ops::{Deref, DerefMut};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A list held behind one pointer, nothing allocated while it is empty: a match keeps three
/// of them, empty in every Quake 3 family match but awards, so a vector's 24 bytes each were
/// 72 of a match's 304 in memory (issue 41: 3 MB at 64,000 matches). Reads as a slice, grows
/// as a vector, and is stored as a list, so stored bytes do not change.
// The vector is boxed on purpose: a pointer in the match instead of the vector's 24 bytes.
#[allow(clippy::box_collection)]
#[derive(Clone)]
pub struct RareList<T>(Option<Box<Vec<T>>>);

impl<T> RareList<T> {
    /// An empty list.
    pub const fn new() -> RareList<T> {
        RareList(None)
    }

    /// Adds `item` at the end.
    pub fn push(&mut self, item: T) {
        self.0.get_or_insert_with(Box::default).push(item);
    }

    /// Frees the room the list grew into beyond its items (and the list itself when empty).
    pub fn shrink_to_fit(&mut self) {
        match &mut self.0 {
            Some(list) if list.is_empty() => self.0 = None,
            Some(list) => list.shrink_to_fit(),
            None => {}
        }
    }
}

impl<T> Default for RareList<T> {
    fn default() -> RareList<T> {
        RareList::new()
    }
}

impl<T> Deref for RareList<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }
}

impl<T> DerefMut for RareList<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.0.as_deref_mut().map_or(&mut [], Vec::as_mut_slice)
    }
}

impl<T> From<Vec<T>> for RareList<T> {
    fn from(list: Vec<T>) -> RareList<T> {
        RareList((!list.is_empty()).then(|| Box::new(list)))
    }
}

impl<T> FromIterator<T> for RareList<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> RareList<T> {
        RareList::from(items.into_iter().collect::<Vec<T>>())
    }
}

impl<'a, T> IntoIterator for &'a RareList<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: PartialEq> PartialEq for RareList<T> {
    fn eq(&self, other: &RareList<T>) -> bool {
        **self == **other
    }
}

impl<T: Eq> Eq for RareList<T> {}

impl<T: PartialEq> PartialEq<Vec<T>> for RareList<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        **self == **other
    }
}

impl<T: PartialEq, const N: usize> PartialEq<[T; N]> for RareList<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        **self == other[..]
    }
}

impl<T: fmt::Debug> fmt::Debug for RareList<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Serialize> Serialize for RareList<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for RareList<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::deserialize(deserializer).map(RareList::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_grows_and_is_stored_as_a_vector_and_is_one_pointer_wide() {
        assert_eq!(
            std::mem::size_of::<RareList<u64>>(),
            std::mem::size_of::<usize>()
        );
        let mut list = RareList::new();
        assert!(list.is_empty());
        assert_eq!(postcard::to_allocvec(&list).unwrap(), [0]);
        let mut plain = Vec::new();
        for n in 0..100u32 {
            list.push(n * 3);
            plain.push(n * 3);
        }
        list[7] = 1;
        plain[7] = 1;
        list.shrink_to_fit();
        assert_eq!(list, plain);
        assert_eq!((&list).into_iter().count(), 100);
        let bytes = postcard::to_allocvec(&list).unwrap();
        assert_eq!(bytes, postcard::to_allocvec(&plain).unwrap());
        assert_eq!(postcard::from_bytes::<RareList<u32>>(&bytes).unwrap(), list);
        assert_eq!(format!("{list:?}"), format!("{plain:?}"));
        let mut emptied = RareList::from(vec![1u8]);
        emptied[0] = 2;
        assert_eq!(emptied, vec![2]);
        assert_eq!(RareList::<u8>::from(Vec::new()), RareList::new());
    }
}
