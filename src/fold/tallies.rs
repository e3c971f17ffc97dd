//! The tallies of the standings' ladders that the fold's checkpoint keeps (and renumbers with
//! the counts), so that the next build adds only its new matches to them. The ladders fill and
//! read them ([`crate::standings::ladders`]); the fold only stores them.

use chrono::NaiveDate;

/// What a ladder groups the matches by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LadderKind {
    /// By game type code (`ffa`, `duel`, `ctf`, ...).
    GameType,
    /// By game ([`crate::model::Match::game`]: `quake3`, `urt`, `cs2`, ...).
    Game,
}

/// Per identity, what a group's matches say of them. Sums and a latest day: the same whatever
/// the order the matches are added in, so a saved tally goes on with new matches.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Tally {
    pub(crate) matches: u32,
    pub(crate) frags: u32,
    pub(crate) incidents: u64,
    pub(crate) record: [u32; 3],
    pub(crate) last_seen: Option<NaiveDate>,
}

/// The tallies of every ladder's group over the first `matches` of a site, kept in the
/// checkpoint of the counts (see [`super::Checkpoint`]): the next build adds only its new matches
/// to them instead of going over every frag of the history again.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Tallies {
    pub(crate) matches: u64,
    pub(crate) groups: Vec<SavedTally>,
}

/// One group's tallies, sparse: most identities of a crowd never play most kinds of game.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct SavedTally {
    pub(crate) kind: LadderKind,
    pub(crate) key: String,
    /// The day of the group's newest dated match.
    pub(crate) newest: Option<NaiveDate>,
    /// (identity, tally) of each identity with a match in the group, by identity.
    pub(crate) players: Vec<(u32, Tally)>,
}

impl Tallies {
    /// Number of matches (the first ones of the site) tallied.
    pub fn matches(&self) -> u64 {
        self.matches
    }

    /// Moves the identities to their numbers in a larger roster (`to[old]`, as
    /// [`crate::stats::Stats::renumber`]); an identity without a number is an error.
    pub fn renumber(&mut self, to: &[u32]) -> Result<(), String> {
        for g in &mut self.groups {
            for (p, _) in &mut g.players {
                *p = *to
                    .get(*p as usize)
                    .ok_or("a saved ladder tally names an unknown player")?;
            }
        }
        Ok(())
    }
}
