//! [`MatchPlayer`]: a player as seen in one match. What stays the same from match to match (the
//! names, the bot's skill, the account: a [`Who`]) is shared by every match of a thread that
//! saw the same, so a history of the same players holds it once, not once a match, and the
//! score and leaving time are each a value and a flag (issue 41: a player a match took 64 bytes,
//! 24 now; at 64,000 matches of 8 players, 33 MB of a 157 MB heap peak, 12 MB now). Reads of
//! the shared part look the same as a plain struct's (`p.name`, through [`Deref`]); a change to
//! it copies it first. Serialized as the ten fields of a plain struct, so stored bytes do not
//! change.

use std::cell::RefCell;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Team, Text};

/// A player as seen in one match.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchPlayer {
    /// Names, bot skill and account, shared with the matches that saw the same.
    who: Arc<Who>,
    /// See [`MatchPlayer::score`] (0 when `scored` is not set): the two options of a player are
    /// a value and a flag each, so a player takes 24 bytes, not 32.
    score: i32,
    /// Seconds since match start of the first sighting in this match.
    pub joined: u32,
    /// See [`MatchPlayer::left`] (0 when `gone` is not set).
    left: u32,
    /// Last team seen.
    pub team: Team,
    /// Took part in play: named by a kill, score, flag or award line.
    pub active: bool,
    scored: bool,
    gone: bool,
}

/// What a [`MatchPlayer`] shares with the other matches that saw the same player the same way.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Who {
    /// Name with colour codes removed and white space trimmed (before alias rules).
    pub plain: Text,
    /// Latest name as written in the log, colour codes kept.
    pub name: Text,
    /// Bot skill from the userinfo (`skill\ 4.00`). An answer key for evaluation only:
    /// never an input to a rating.
    pub bot_skill: Option<f32>,
    /// A hash of the player's account or client id (Urban Terror auth name, `cl_guid`,
    /// OpenArena's `id`) where the log gives one: the identity under `identity = "guid"`. The
    /// id itself is never kept or published.
    pub uid: Option<u64>,
    /// A computer-controlled player (the log marks it: a Quake 3 bot's `skill`, a Half-Life
    /// `BOT` id).
    pub bot: bool,
}

/// A player's identity fields, borrowed: from a [`Who`], or straight from a packed block of
/// the history (what the roster reads of every match player, with no text made for it).
#[derive(Clone, Copy)]
pub struct WhoRef<'a> {
    /// See [`Who::plain`].
    pub plain: &'a str,
    /// See [`Who::name`].
    pub name: &'a str,
    /// See [`Who::uid`].
    pub uid: Option<u64>,
    /// See [`Who::bot`].
    pub bot: bool,
}

impl Who {
    /// Its identity fields, borrowed.
    pub fn view(&self) -> WhoRef<'_> {
        WhoRef {
            plain: &self.plain,
            name: &self.name,
            uid: self.uid,
            bot: self.bot,
        }
    }
}

/// Every field of a [`MatchPlayer`], as a plain struct: how one is made
/// ([`MatchPlayer::from`]) and how it is stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "MatchPlayer")]
pub struct PlayerFields {
    /// See [`Who::plain`].
    pub plain: Text,
    /// See [`Who::name`].
    pub name: Text,
    /// See [`MatchPlayer::score`].
    pub score: Option<i32>,
    /// See [`MatchPlayer::team`].
    pub team: Team,
    /// See [`MatchPlayer::joined`].
    pub joined: u32,
    /// See [`MatchPlayer::left`].
    pub left: Option<u32>,
    /// See [`MatchPlayer::active`].
    pub active: bool,
    /// See [`Who::bot_skill`].
    pub bot_skill: Option<f32>,
    /// See [`Who::uid`].
    pub uid: Option<u64>,
    /// See [`Who::bot`].
    #[serde(default)]
    pub bot: bool,
}

/// The same fields, borrowed: how a [`MatchPlayer`] is written.
#[derive(Serialize)]
#[serde(rename = "MatchPlayer")]
struct FieldsOf<'a> {
    plain: &'a Text,
    name: &'a Text,
    score: Option<i32>,
    team: Team,
    joined: u32,
    left: Option<u32>,
    active: bool,
    bot_skill: Option<f32>,
    uid: Option<u64>,
    bot: bool,
}

impl From<PlayerFields> for MatchPlayer {
    fn from(f: PlayerFields) -> MatchPlayer {
        MatchPlayer {
            who: Arc::new(Who {
                plain: f.plain,
                name: f.name,
                bot_skill: f.bot_skill,
                uid: f.uid,
                bot: f.bot,
            }),
            score: f.score.unwrap_or(0),
            joined: f.joined,
            left: f.left.unwrap_or(0),
            team: f.team,
            active: f.active,
            scored: f.score.is_some(),
            gone: f.left.is_some(),
        }
    }
}

impl MatchPlayer {
    /// A player who is `who`, with these fields (see [`PlayerFields`]).
    pub fn with_who(
        who: Arc<Who>,
        score: Option<i32>,
        joined: u32,
        left: Option<u32>,
        team: Team,
        active: bool,
    ) -> MatchPlayer {
        MatchPlayer {
            who,
            score: score.unwrap_or(0),
            joined,
            left: left.unwrap_or(0),
            team,
            active,
            scored: score.is_some(),
            gone: left.is_some(),
        }
    }

    /// Final score from the `score:` lines, if logged.
    pub fn score(&self) -> Option<i32> {
        self.scored.then_some(self.score)
    }

    /// Sets [`MatchPlayer::score`].
    pub fn set_score(&mut self, score: Option<i32>) {
        (self.score, self.scored) = (score.unwrap_or(0), score.is_some());
    }

    /// Seconds since match start of the disconnect, if it happened inside the match.
    pub fn left(&self) -> Option<u32> {
        self.gone.then_some(self.left)
    }

    /// Sets [`MatchPlayer::left`].
    pub fn set_left(&mut self, left: Option<u32>) {
        (self.left, self.gone) = (left.unwrap_or(0), left.is_some());
    }

    /// The same player, its [`Who`] the one this thread already holds when it has seen the
    /// same: [`MatchPlayer::share`].
    pub fn shared(mut self) -> MatchPlayer {
        self.share();
        self
    }

    /// Takes the [`Who`] this thread already holds when it has seen the same. Called once the
    /// player is complete (a parser changes names as they come; a player made from its fields
    /// holds its own until then).
    pub fn share(&mut self) {
        if let Some(held) = share(&self.who) {
            self.who = held;
        }
    }
}

impl Deref for MatchPlayer {
    type Target = Who;
    fn deref(&self) -> &Who {
        &self.who
    }
}

impl DerefMut for MatchPlayer {
    /// The shared part, copied first when another match holds it too.
    fn deref_mut(&mut self) -> &mut Who {
        Arc::make_mut(&mut self.who)
    }
}

impl Serialize for MatchPlayer {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        FieldsOf {
            plain: &self.plain,
            name: &self.name,
            score: self.score(),
            team: self.team,
            joined: self.joined,
            left: self.left(),
            active: self.active,
            bot_skill: self.bot_skill,
            uid: self.uid,
            bot: self.bot,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for MatchPlayer {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<MatchPlayer, D::Error> {
        PlayerFields::deserialize(deserializer).map(|f| MatchPlayer::from(f).shared())
    }
}

/// A [`Who`] in the table: equal when its names are the same texts ([`Text::place`]: equal
/// names made on one thread are, so the lookup hashes no name) and every other field has the
/// same bits (a skill that is not a number included).
#[derive(Clone)]
struct Shared(Arc<Who>);

impl Shared {
    fn key(&self) -> (usize, usize, Option<u32>, Option<u64>, bool) {
        let w = &self.0;
        let skill = w.bot_skill.map(f32::to_bits);
        (w.plain.place(), w.name.place(), skill, w.uid, w.bot)
    }
}

impl PartialEq for Shared {
    fn eq(&self, other: &Shared) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Shared {}

impl Hash for Shared {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

/// Whos held by this thread's table at most: past it, new ones are not shared (a log of
/// millions of distinct names keeps its memory bounded by the table).
const TABLE_LIMIT: usize = 1 << 18;

thread_local! {
    static TABLE: RefCell<HashSet<Shared, ahash::RandomState>> =
        RefCell::new(HashSet::default());
}

/// The who this thread holds equal to `who`, when it holds another; else `who` is held from
/// now on (while the table has room).
fn share(who: &Arc<Who>) -> Option<Arc<Who>> {
    TABLE.with_borrow_mut(|table| {
        let who = Shared(Arc::clone(who));
        if let Some(found) = table.get(&who) {
            return (!Arc::ptr_eq(&found.0, &who.0)).then(|| Arc::clone(&found.0));
        }
        if table.len() < TABLE_LIMIT {
            table.insert(who);
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(name: &str, skill: Option<f32>, uid: Option<u64>) -> PlayerFields {
        PlayerFields {
            plain: Text::new(name),
            name: Text::new(&format!("^1{name}")),
            score: Some(-3),
            team: Team::Blue,
            joined: 12,
            left: Some(99),
            active: true,
            bot_skill: skill,
            uid,
            bot: skill.is_some(),
        }
    }

    /// Stored as the plain struct of ten fields (postcard and JSON), read back equal; the same
    /// who is held once, a different one (by any field, a skill that is not a number too) is
    /// not mixed up with it; a change to one match's player leaves the other's alone.
    #[test]
    fn a_match_player_stores_as_its_fields_and_shares_its_who() {
        assert_eq!(
            std::mem::size_of::<MatchPlayer>(),
            24,
            "a player's bytes in a match"
        );
        let mut unscored = fields("Sarge", None, None);
        (unscored.score, unscored.left) = (None, None);
        let mut zero = fields("Sarge", None, None);
        (zero.score, zero.left) = (Some(0), Some(0));
        for f in [
            unscored,
            zero,
            fields("Anarki", Some(4.0), None),
            fields("Anarki", Some(f32::NAN), Some(7)),
            fields("Visor", None, Some(u64::MAX)),
        ] {
            let p = MatchPlayer::from(f.clone()).shared();
            let bytes = postcard::to_allocvec(&p).unwrap();
            assert_eq!(bytes, postcard::to_allocvec(&f).unwrap());
            assert_eq!(
                serde_json::to_string(&p).unwrap(),
                serde_json::to_string(&f).unwrap()
            );
            let back: MatchPlayer = postcard::from_bytes(&bytes).unwrap();
            assert_eq!(postcard::to_allocvec(&back).unwrap(), bytes);
            assert_eq!((back.score(), back.left()), (f.score, f.left));
            assert!(Arc::ptr_eq(&back.who, &p.who), "{f:?} shared");
        }
        let a = MatchPlayer::from(fields("Anarki", Some(4.0), None)).shared();
        let others = [
            fields("Anarki", Some(5.0), None),
            fields("Anarki", Some(4.0), Some(1)),
            fields("Anarki", None, None),
            fields("Anark", Some(4.0), None),
        ];
        for other in others {
            let other_player = MatchPlayer::from(other.clone()).shared();
            assert!(!Arc::ptr_eq(&a.who, &other_player.who), "{other:?}");
        }
        let mut b = MatchPlayer::from(fields("Anarki", Some(4.0), None));
        assert!(!Arc::ptr_eq(&a.who, &b.who), "its own until shared");
        b.share();
        assert!(Arc::ptr_eq(&a.who, &b.who));
        b.name = Text::new("Anarki2");
        assert_eq!(a.name, "^1Anarki");
        assert_eq!(b.name, "Anarki2");
        assert_eq!(b.clone().shared().name, "Anarki2");
    }
}
