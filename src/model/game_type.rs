//! [`GameType`]: what kind of game a match was, one copy of each kind shared by the matches of
//! it. Not how a log names its game types (each parser maps those).

use std::cell::RefCell;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Text;

/// What a game type is: its names and whether sides or a duel play it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameTypeInfo {
    /// Short stable name, e.g. `ffa`, `duel`, `tdm`, `ctf`, `unknown`.
    pub code: Text,
    /// Human-readable name, e.g. "Capture the Flag".
    pub name: Text,
    /// Two sides (red and blue) play against each other.
    pub team_based: bool,
    /// One against one (tournament).
    pub duel: bool,
}

/// What kind of game a match was: a [`GameTypeInfo`] shared with the equal ones made on the
/// same thread. One pointer in each match, where the info itself took 24 bytes of every match
/// a history holds (issue 41). Serialized as the info, so stored bytes do not change.
#[derive(Clone)]
pub struct GameType(Arc<GameTypeInfo>);

/// Distinct game types a thread shares at most: a game has a handful; past this many (a log
/// that names thousands), new ones are not shared, so the table stays small.
const SHARED_KINDS: usize = 64;

thread_local! {
    static KINDS: RefCell<Vec<GameType>> = const { RefCell::new(Vec::new()) };
}

impl GameType {
    /// The game type `code` named `name`: the equal one this thread made before, if any.
    pub fn new(code: &str, name: &str, team_based: bool, duel: bool) -> GameType {
        GameType::shared(GameTypeInfo {
            code: code.into(),
            name: name.into(),
            team_based,
            duel,
        })
    }

    /// `info` as a game type: the equal one this thread made before, if any.
    pub fn shared(info: GameTypeInfo) -> GameType {
        KINDS.with_borrow_mut(|kinds| {
            if let Some(found) = kinds.iter().find(|k| *k.0 == info) {
                return found.clone();
            }
            let made = GameType(Arc::new(info));
            if kinds.len() < SHARED_KINDS {
                kinds.push(made.clone());
            }
            made
        })
    }
}

impl Deref for GameType {
    type Target = GameTypeInfo;
    fn deref(&self) -> &GameTypeInfo {
        &self.0
    }
}

impl PartialEq for GameType {
    fn eq(&self, other: &GameType) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl Eq for GameType {}

impl fmt::Debug for GameType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Serialize for GameType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for GameType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<GameType, D::Error> {
        GameTypeInfo::deserialize(deserializer).map(GameType::shared)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equal game types made on one thread are one copy; read back from their bytes, they are
    /// that copy too, and the bytes are the info's own.
    #[test]
    fn equal_game_types_are_one_copy_and_serialize_as_their_info() {
        let a = GameType::new("ctf", "Capture the Flag", true, false);
        let b = GameType::new("ctf", "Capture the Flag", true, false);
        assert!(Arc::ptr_eq(&a.0, &b.0));
        let other = GameType::new("ctf", "Capture the Flag", false, false);
        assert!(!Arc::ptr_eq(&a.0, &other.0));
        assert_ne!(a, other);
        let bytes = postcard::to_allocvec(&a).unwrap();
        assert_eq!(bytes, postcard::to_allocvec(&*a).unwrap());
        let back: GameType = postcard::from_bytes(&bytes).unwrap();
        assert!(Arc::ptr_eq(&a.0, &back.0));
        assert_eq!(back.name.as_str(), "Capture the Flag");
    }

    /// A match holds one pointer of it.
    #[test]
    fn a_game_type_is_one_pointer() {
        assert_eq!(size_of::<GameType>(), size_of::<usize>());
    }
}
