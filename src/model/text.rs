//! [`Text`]: an immutable string shared by every value that holds the same text (player names,
//! weapons, maps, servers). Every match of a history repeats dozens of such strings; held as
//! `String`s they were half of a match's description in memory (issue 41: the 64,000 matches of
//! `benches/memory.sh` loaded from their state took 2.8 KB a match, 1.4 KB with shared texts).
//! Serialized as a plain string, so stored bytes do not change.
//!
//! Texts are made through a per-thread table of the texts that thread has made (no lock; a text
//! made on two threads is held at most once per thread), which holds distinct texts only: its
//! size grows with the players, maps and weapons seen, not with the history.

use std::borrow::Borrow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An immutable string, shared with the equal texts made on the same thread. One pointer wide
/// (the bytes' length is beside them, not in each holder): a match's description holds a text
/// per player name, weapon, map and server, tens of them a match in a history of millions.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Text(Arc<Box<str>>);

/// Texts longer than this are not looked up (a hostile name or a long exit reason is rare and
/// would only fill the table).
const SHARED_UP_TO: usize = 64;

/// Texts made on this thread at most this many; past it, new texts are not shared (a log of
/// millions of distinct names keeps its memory bounded by the table).
const TABLE_LIMIT: usize = 1 << 20;

thread_local! {
    static TABLE: RefCell<HashSet<Text, ahash::RandomState>> = RefCell::new(HashSet::default());
}

impl Text {
    /// The text `s`: the one this thread made before if any.
    pub fn new(s: &str) -> Text {
        if s.len() > SHARED_UP_TO {
            return Text(Arc::new(Box::from(s)));
        }
        TABLE.with_borrow_mut(|table| {
            if let Some(found) = table.get(s) {
                return found.clone();
            }
            let made = Text(Arc::new(Box::from(s)));
            if table.len() < TABLE_LIMIT {
                table.insert(made.clone());
            }
            made
        })
    }

    /// The text `s`, of its own: not looked up nor shared (texts that live for a moment, as a
    /// match decoded from the history does).
    pub fn unshared(s: &str) -> Text {
        Text(Arc::new(Box::from(s)))
    }

    /// Where the text's bytes are held: two texts at the same place are the same text (equal
    /// texts made on the same thread are, as a rule; texts at two places may still be equal).
    pub fn place(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// The text as a `&str`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::new(s)
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::new(&s)
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Text {
        Text::new(s)
    }
}

impl From<Text> for String {
    fn from(t: Text) -> String {
        t.as_str().to_string()
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Text {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Text> for str {
    fn eq(&self, other: &Text) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Text> for String {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Text, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E>(self, v: &str) -> Result<Text, E> {
                Ok(Text::new(v))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equal texts made on one thread share their bytes; they compare, hash, order, print and
    /// serialize as the strings they hold.
    #[test]
    fn equal_texts_share_their_bytes_and_act_as_strings() {
        let a = Text::new("Sarge");
        let b = Text::from(String::from("Sarge"));
        assert!(Arc::ptr_eq(&a.0, &b.0));
        assert_eq!(a, "Sarge");
        assert_eq!("Sarge", a);
        assert_eq!(a, String::from("Sarge"));
        assert!(Text::new("Anarki") < a);
        assert_eq!(format!("{a} {a:?}"), "Sarge \"Sarge\"");
        let long = "x".repeat(SHARED_UP_TO + 1);
        assert!(!Arc::ptr_eq(&Text::new(&long).0, &Text::new(&long).0));
        let bytes = rmp_serde::to_vec(&vec![a.clone(), Text::new("")]).unwrap();
        assert_eq!(bytes, rmp_serde::to_vec(&vec!["Sarge", ""]).unwrap());
        let back: Vec<Text> = rmp_serde::from_slice(&bytes).unwrap();
        assert!(Arc::ptr_eq(&back[0].0, &a.0));
        let json: Text = serde_json::from_str("\"caf\\u00e9\"").unwrap();
        assert_eq!(json, "café");
    }

    /// A text, and a text that may be missing, take one pointer in what holds them.
    #[test]
    fn a_text_is_one_pointer_wide() {
        let pointer = std::mem::size_of::<usize>();
        assert_eq!(std::mem::size_of::<Text>(), pointer);
        assert_eq!(std::mem::size_of::<Option<Text>>(), pointer);
    }
}
