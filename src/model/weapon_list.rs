//! [`WeaponList`]: a match's weapon (means of death) names, in the order its events number them,
//! held as numbers into one table of the names the process has met. Not the weapons' labels
//! (see [`super::weapons`]).

use std::collections::HashMap;
use std::fmt;
use std::ops::Index;
use std::sync::{Mutex, OnceLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Text;

/// How many distinct names the table holds: a game names tens of weapons, a modded server a few
/// hundred. Past it, a match keeps its own names.
const TABLE_SLOTS: usize = 4096;

/// Names longer than this are not put in the table (a hostile log's long names would fill it
/// for the process's life): their match keeps its own names.
const TABLE_NAME_BYTES: usize = 64;

/// The table's names by number, each set once, before its number is handed out.
static NAMES: [OnceLock<Text>; TABLE_SLOTS] = [const { OnceLock::new() }; TABLE_SLOTS];

/// The table's numbers by name, for adding names.
static NUMBERS: Mutex<Option<HashMap<Box<str>, u16, ahash::RandomState>>> = Mutex::new(None);

/// The number of `name` in the table, added when new; None when it cannot be (a long name, a
/// full table).
fn number_of(name: &str) -> Option<u16> {
    numbers_of(&[name])?.pop()
}

/// The numbers of `names` in the table (one lock for them all: a build reads a list per match
/// of the history back from the state), None when one cannot be numbered.
fn numbers_of(names: &[impl AsRef<str>]) -> Option<Vec<u16>> {
    let mut numbers = NUMBERS.lock().ok()?;
    let numbers = numbers.get_or_insert_with(HashMap::default);
    names
        .iter()
        .map(|name| number_in(numbers, name.as_ref()))
        .collect()
}

/// The number of `name` in `numbers` (the table's index), added when new.
fn number_in(numbers: &mut HashMap<Box<str>, u16, ahash::RandomState>, name: &str) -> Option<u16> {
    if name.len() > TABLE_NAME_BYTES {
        return None;
    }
    if let Some(&n) = numbers.get(name) {
        return Some(n);
    }
    let n = numbers.len();
    let slot = NAMES.get(n)?;
    slot.set(Text::new(name)).ok()?;
    let n = u16::try_from(n).ok()?;
    numbers.insert(name.into(), n);
    Some(n)
}

/// The table's name number `n`. Every number a list holds was handed out with its name set.
fn name_of(n: u16) -> Option<&'static Text> {
    NAMES.get(usize::from(n))?.get()
}

/// The text read for a number the table has no name for (none: every number is handed out
/// with its name set).
fn no_name() -> &'static Text {
    static EMPTY: OnceLock<Text> = OnceLock::new();
    EMPTY.get_or_init(Text::default)
}

/// A match's weapon names, in the order its kill events number them ([`super::Event::detail`]).
/// A name is two bytes a match, not a text of its own (eight bytes, and a list of about a dozen
/// a match: 6 MB at 64,000 matches, issue 41). Read as texts, stored as a list of names, so
/// stored bytes do not change.
#[derive(Clone)]
pub struct WeaponList(Names);

#[derive(Clone)]
enum Names {
    /// Numbers in the table.
    Numbered(Box<[u16]>),
    /// The match's own names (one of them could not be put in the table). Boxed once more, so
    /// that a list is two words, not three: the rare list of its own names is a pointer, held
    /// where the numbers' length is.
    Own(Box<Box<[Text]>>),
}

impl Default for WeaponList {
    fn default() -> WeaponList {
        WeaponList(Names::Numbered(Box::default()))
    }
}

impl WeaponList {
    /// How many names there are.
    pub fn len(&self) -> usize {
        match &self.0 {
            Names::Numbered(numbers) => numbers.len(),
            Names::Own(names) => names.len(),
        }
    }

    /// There is no name.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The list's numbers in the process's table of names, when it is held by them.
    pub fn numbers(&self) -> Option<&[u16]> {
        match &self.0 {
            Names::Numbered(numbers) => Some(numbers),
            Names::Own(_) => None,
        }
    }

    /// The list of the names `numbers` stand for in the process's table (as
    /// [`WeaponList::numbers`] gave them; a number the table does not hold reads as no name).
    pub fn from_numbers(numbers: Box<[u16]>) -> WeaponList {
        WeaponList(Names::Numbered(numbers))
    }

    /// Name `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<&Text> {
        match &self.0 {
            Names::Numbered(numbers) => name_of(*numbers.get(i)?),
            Names::Own(names) => names.get(i),
        }
    }

    /// The names in order, as many as [`WeaponList::len`] says (serializing asks for the
    /// number first).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Text> + '_ {
        (0..self.len()).map(|i| self.get(i).unwrap_or_else(|| no_name()))
    }

    /// The list of `names`, in order (numbered under one lock).
    fn of_names(names: &[impl AsRef<str>]) -> WeaponList {
        match numbers_of(names) {
            Some(numbers) => WeaponList(Names::Numbered(numbers.into_boxed_slice())),
            None => WeaponList(Names::Own(Box::new(
                names.iter().map(|n| Text::new(n.as_ref())).collect(),
            ))),
        }
    }

    /// Adds `name` at the end (a match's list is a dozen names, added once each).
    pub fn push(&mut self, name: &str) {
        if let Names::Numbered(numbers) = &mut self.0 {
            if let Some(n) = number_of(name) {
                let mut grown = std::mem::take(numbers).into_vec();
                grown.push(n);
                *numbers = grown.into_boxed_slice();
                return;
            }
            let names: Vec<Text> = self.iter().cloned().collect();
            self.0 = Names::Own(Box::new(names.into_boxed_slice()));
        }
        if let Names::Own(names) = &mut self.0 {
            let mut grown = std::mem::take(&mut **names).into_vec();
            grown.push(Text::new(name));
            **names = grown.into_boxed_slice();
        }
    }
}

impl Index<usize> for WeaponList {
    type Output = Text;

    fn index(&self, i: usize) -> &Text {
        match self.get(i) {
            Some(name) => name,
            None => panic!("weapon {i} of a list of {}", self.len()),
        }
    }
}

impl<S: AsRef<str>> FromIterator<S> for WeaponList {
    fn from_iter<I: IntoIterator<Item = S>>(names: I) -> WeaponList {
        WeaponList::of_names(&names.into_iter().collect::<Vec<S>>())
    }
}

impl<const N: usize> PartialEq<[&str; N]> for WeaponList {
    fn eq(&self, other: &[&str; N]) -> bool {
        self.len() == N && self.iter().zip(other).all(|(a, b)| a == b)
    }
}

impl PartialEq for WeaponList {
    fn eq(&self, other: &WeaponList) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| a == b)
    }
}

impl fmt::Debug for WeaponList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for WeaponList {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter().map(Text::as_str))
    }
}

impl<'de> Deserialize<'de> for WeaponList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Borrowed from the stored bytes where they allow it: no text is made for a name the
        // table holds.
        let names = Vec::<Name<'de>>::deserialize(deserializer)?;
        Ok(WeaponList::of_names(&names))
    }
}

/// A name as stored: borrowed from the bytes read when it can be.
struct Name<'a>(std::borrow::Cow<'a, str>);

impl AsRef<str> for Name<'_> {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for Name<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Name<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a weapon name")
            }
            fn visit_borrowed_str<E>(self, name: &'de str) -> Result<Name<'de>, E> {
                Ok(Name(std::borrow::Cow::Borrowed(name)))
            }
            fn visit_str<E>(self, name: &str) -> Result<Name<'de>, E> {
                Ok(Name(std::borrow::Cow::Owned(name.to_string())))
            }
            fn visit_string<E>(self, name: String) -> Result<Name<'de>, E> {
                Ok(Name(std::borrow::Cow::Owned(name)))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_the_names_in_order_and_is_stored_as_a_list_of_names() {
        let names = [
            "MOD_RAILGUN",
            "MOD_ROCKET_SPLASH",
            "weapon list test",
            "MOD_RAILGUN2",
        ];
        let list: WeaponList = names.iter().collect();
        assert_eq!(list.len(), names.len());
        assert!(names.iter().enumerate().all(|(i, n)| list[i] == *n));
        assert_eq!(list.get(4), None);
        let plain: Vec<Text> = names.iter().map(|n| Text::new(n)).collect();
        let bytes = postcard::to_allocvec(&list).unwrap();
        assert_eq!(bytes, postcard::to_allocvec(&plain).unwrap());
        assert_eq!(postcard::from_bytes::<WeaponList>(&bytes).unwrap(), list);
        assert_eq!(format!("{list:?}"), format!("{plain:?}"));
        // The same name in two lists is one number.
        let again: WeaponList = ["weapon list test"].iter().collect();
        match (&list.0, &again.0) {
            (Names::Numbered(a), Names::Numbered(b)) => assert_eq!(a[2], b[0]),
            _ => panic!("short names are numbered"),
        }
    }

    /// A name too long for the table makes its match keep its own names, all of them in order.
    #[test]
    fn a_long_name_keeps_the_list_its_own() {
        let long = "x".repeat(TABLE_NAME_BYTES + 1);
        let mut list = WeaponList::default();
        list.push("MOD_SHOTGUN");
        list.push(&long);
        list.push("MOD_GAUNTLET");
        assert!(matches!(list.0, Names::Own(_)));
        let read: Vec<&str> = list.iter().map(Text::as_str).collect();
        assert_eq!(read, ["MOD_SHOTGUN", long.as_str(), "MOD_GAUNTLET"]);
        assert_eq!(list, ["MOD_SHOTGUN", long.as_str(), "MOD_GAUNTLET"]);
    }

    /// A match holds a list in two words, its own names or its numbers.
    #[test]
    fn a_list_is_two_words() {
        assert_eq!(size_of::<WeaponList>(), 2 * size_of::<usize>());
    }
}
