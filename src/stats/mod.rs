//! Counting: per match and per player (frags, deaths, suicides, team kills, flags, weapons, maps,
//! opponents) and per map, by the rules of RANKING.md "What counts". Works on identity numbers from
//! the [`Roster`]; knows nothing of ratings or HTML.

pub mod awards;
mod lines;
mod match_numbers;
mod names;
mod shelf;

pub use lines::Lines;
pub use match_numbers::MatchNumbers;
pub use names::{NameCounts, Names};

use crate::model::MatchList;
use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::model::identity::Roster;
use crate::model::{EventKind, FlagAction, Match, Team};

/// One player's line in one match.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct MatchLine {
    /// Identity number.
    pub player: u32,
    pub frags: u32,
    pub deaths: u32,
    pub suicides: u32,
    pub team_kills: u32,
    pub captures: u32,
    pub score: Option<i32>,
    /// Longest run of frags without dying in this match.
    pub best_spree: u32,
    /// Last team in the match.
    pub team: Option<Team>,
}

/// A match's totals: frags, suicides, team kills, and all three (its kill lines).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatchCounts {
    pub frags: u32,
    pub suicides: u32,
    pub team_kills: u32,
    pub kill_lines: u32,
}

/// Counts of one match, one line per active player (sorted by score, then frags, then name key),
/// packed with its totals: 16 bytes held a match (see [`Lines`]). Saved and read back as its
/// lines, then each total, as it was when they were held apart.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MatchStats {
    /// Packed: see [`Lines`].
    pub lines: Lines,
}

impl MatchStats {
    /// The match's `counts` and `lines`.
    pub fn new(counts: MatchCounts, lines: &[MatchLine]) -> MatchStats {
        MatchStats {
            lines: Lines::with_counts(counts, lines),
        }
    }

    /// The match's totals.
    pub fn counts(&self) -> MatchCounts {
        self.lines.counts()
    }
}

/// A [`MatchStats`] as it is saved: its lines, then each total.
#[derive(Serialize)]
#[serde(rename = "MatchStats")]
struct SavedMatchStats<'a> {
    lines: &'a Lines,
    frags: u32,
    suicides: u32,
    team_kills: u32,
    kill_lines: u32,
}

/// A [`MatchStats`] as it is read back.
#[derive(Deserialize)]
#[serde(rename = "MatchStats")]
struct ReadMatchStats {
    lines: Vec<MatchLine>,
    frags: u32,
    suicides: u32,
    team_kills: u32,
    kill_lines: u32,
}

impl Serialize for MatchStats {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let counts = self.counts();
        SavedMatchStats {
            lines: &self.lines,
            frags: counts.frags,
            suicides: counts.suicides,
            team_kills: counts.team_kills,
            kill_lines: counts.kill_lines,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for MatchStats {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<MatchStats, D::Error> {
        let read = ReadMatchStats::deserialize(deserializer)?;
        let counts = MatchCounts {
            frags: read.frags,
            suicides: read.suicides,
            team_kills: read.team_kills,
            kill_lines: read.kill_lines,
        };
        Ok(MatchStats::new(counts, &read.lines))
    }
}

/// Totals of one player over all matches.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PlayerStats {
    pub kills: u32,
    pub deaths: u32,
    pub suicides: u32,
    pub team_kills: u32,
    pub captures: u32,
    pub flag_returns: u32,
    pub flag_pickups: u32,
    pub carrier_kills: u32,
    /// Frags that were headshots (Half-Life logs).
    #[serde(default)]
    pub headshots: u32,
    /// Kills helped (Half-Life logs: `kill assist`, `assisted killing`).
    #[serde(default)]
    pub assists: u32,
    /// Round objectives: bombs planted, defused and exploded, control points taken.
    #[serde(default)]
    pub objectives: u32,
    /// Indices (into the ordered match list) of the matches the player took part in.
    pub matches: MatchNumbers,
    /// Frags by weapon name (named in [`Stats::names`]).
    pub weapons: NameCounts,
    /// Matches played per map (named in [`Stats::names`]).
    pub maps: NameCounts,
    /// Frags made against each opponent (identity number -> count).
    #[serde(deserialize_with = "sorted_map")]
    pub victims: BTreeMap<u32, u32>,
    /// Frags suffered from each opponent.
    #[serde(deserialize_with = "sorted_map")]
    pub killers: BTreeMap<u32, u32>,
    /// Awards received by name (named in [`Stats::names`]).
    pub awards: NameCounts,
}

impl PlayerStats {
    /// Kills per death (kills when there were no deaths).
    pub fn kd(&self) -> f64 {
        if self.deaths == 0 {
            f64::from(self.kills)
        } else {
            f64::from(self.kills) / f64::from(self.deaths)
        }
    }
}

/// Reads a map whose keys come in order, as a saved [`BTreeMap`] holds them, in one pass: its
/// entries are gathered, then the tree is built from them in bulk (not one insert at a time
/// from the root). Keys out of order or repeated are still taken as `BTreeMap`'s own reader
/// takes them (the last value of a key wins).
fn sorted_map<'de, D, K, V>(deserializer: D) -> Result<BTreeMap<K, V>, D::Error>
where
    D: serde::Deserializer<'de>,
    K: Ord + Deserialize<'de>,
    V: Deserialize<'de>,
{
    struct Entries<K, V>(std::marker::PhantomData<(K, V)>);
    impl<'de, K: Ord + Deserialize<'de>, V: Deserialize<'de>> serde::de::Visitor<'de>
        for Entries<K, V>
    {
        type Value = BTreeMap<K, V>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            // The hint comes from the input: bounded, as serde's own readers bound it.
            let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
            while let Some(entry) = map.next_entry()? {
                entries.push(entry);
            }
            Ok(entries.into_iter().collect())
        }
    }
    deserializer.deserialize_map(Entries(std::marker::PhantomData))
}

/// Reads a set whose values come in order, as a saved [`BTreeSet`] holds them, in one bulk
/// build like [`sorted_map`] (values out of order or repeated are still taken, once each):
/// through serde's own reader of a list, which bounds what it reserves.
fn sorted_set<'de, D, T>(deserializer: D) -> Result<BTreeSet<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Ord + Deserialize<'de>,
{
    Ok(Vec::<T>::deserialize(deserializer)?.into_iter().collect())
}

/// Totals of one map.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MapStats {
    pub name: String,
    /// Indices (into the ordered match list) of the matches played on the map.
    pub matches: MatchNumbers,
    pub frags: u32,
    pub seconds: u64,
    /// Read back in one bulk build, as the maps below (a crowd's maps each hold tens of
    /// thousands of players).
    #[serde(deserialize_with = "sorted_set")]
    pub players: BTreeSet<u32>,
    /// Frags made on this map by each player.
    #[serde(deserialize_with = "sorted_map")]
    pub frags_by_player: BTreeMap<u32, u32>,
    /// Frags made on this map by raw weapon name (as the log names it).
    #[serde(deserialize_with = "sorted_map")]
    pub weapons: BTreeMap<String, u32>,
}

/// Every count the site shows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub matches: Vec<MatchStats>,
    pub players: Vec<PlayerStats>,
    /// Maps in byte order of name.
    pub maps: Vec<MapStats>,
    /// The weapon, map and award names of the players' counts.
    pub names: Names,
    /// Where the matches' lines are written once counted, when given a folder
    /// ([`Stats::shelve_lines_in`]).
    #[serde(skip)]
    shelf: shelf::Shelf,
    /// The matches' lines are not kept ([`Stats::totals_only`]).
    #[serde(skip)]
    totals_only: bool,
}

impl Stats {
    /// Counts everything in `matches` (in the site's match order) for the identities in `roster`.
    pub fn compute(matches: MatchList, roster: &Roster) -> Stats {
        let mut stats = Stats::default();
        stats.advance(matches, roster);
        stats
    }

    /// Whether every player's counts by name name a name of [`Stats::names`], and that table
    /// is sound: counts read back from a file are checked before use.
    pub fn names_sound(&self) -> bool {
        let len = self.names.len();
        self.names.sound()
            && (self.players.iter())
                .all(|p| p.weapons.within(len) && p.maps.within(len) && p.awards.within(len))
    }

    /// Counts the matches of `matches` (the whole history, in the site's match order) after
    /// those already counted. The counts must be numbered like `roster` (see
    /// [`Stats::renumber`]).
    pub fn advance(&mut self, matches: MatchList, roster: &Roster) {
        self.players
            .resize(roster.players.len(), PlayerStats::default());
        let from = self.matches.len();
        self.matches
            .reserve_exact(matches.len().saturating_sub(from));
        // The new matches alone are read (skipping the others would decode them).
        let new = matches.slice(from.min(matches.len())..);
        let new_ids = roster.match_players.iter_from(from.min(matches.len()));
        for (mi, (m, ids)) in (from..).zip(new.iter().zip(new_ids)) {
            let (mut ms, weapon_frags) = count_match(&m, &ids, &mut self.players, &mut self.names);
            let map_name = self.names.id(&m.map);
            let at = match self.maps.binary_search_by(|s| s.name.as_str().cmp(&m.map)) {
                Ok(at) => at,
                Err(at) => {
                    self.maps.insert(
                        at,
                        MapStats {
                            name: m.map.to_string(),
                            ..Default::default()
                        },
                    );
                    at
                }
            };
            let map = &mut self.maps[at];
            map.matches.push(mi as u32);
            map.frags += ms.counts().frags;
            map.seconds += u64::from(m.duration_seconds);
            for (weapon, &n) in m.weapons.iter().zip(&weapon_frags) {
                if n > 0 {
                    match map.weapons.get_mut(weapon.as_str()) {
                        Some(count) => *count += n,
                        None => {
                            map.weapons.insert(weapon.to_string(), n);
                        }
                    }
                }
            }
            for line in &ms.lines {
                let p = &mut self.players[line.player as usize];
                p.matches.push(mi as u32);
                p.maps.add(map_name, 1, &self.names);
                map.players.insert(line.player);
                *map.frags_by_player.entry(line.player).or_default() += line.frags;
            }
            if self.totals_only {
                ms = MatchStats::new(ms.counts(), &[]);
            }
            self.matches.push(ms);
            self.shelve();
        }
        // Kept to the end of the build (and in its checkpoint): without the room the lists of
        // matches grew into (up to as much again).
        let lists = (self.players.iter_mut().map(|p| &mut p.matches))
            .chain(self.maps.iter_mut().map(|m| &mut m.matches));
        for list in lists {
            list.shrink_to_fit();
        }
    }

    /// Counts that keep each match's totals but not its lines (every match's [`MatchStats::lines`]
    /// empty): for a ladder of one game type or season, which shows its players' totals and
    /// ratings only (issue 41: such a ladder of most of a history held its lines beside the
    /// site's own counts).
    pub fn totals_only() -> Stats {
        Stats {
            totals_only: true,
            ..Stats::default()
        }
    }

    /// Writes the matches' lines to a file without a name in `dir` (the state folder) a block
    /// of matches at a time from now on, those counted already included; the newest matches'
    /// stay in memory until they make a block (all of them when the file cannot be written).
    pub fn shelve_lines_in(&mut self, dir: std::path::PathBuf) {
        self.shelf.give(dir);
        self.shelve();
    }

    /// Writes every full block of held lines to the shelf, when there is one.
    fn shelve(&mut self) {
        while let Some(run) = self.shelf.due(self.matches.len()) {
            let held = &self.matches[run.clone()];
            // Every line of the run is held (the shelf knows from where); were one not, the
            // run would stay as it is rather than be written without it.
            if held.iter().any(|m| m.lines.held().is_none()) {
                return;
            }
            let Some(written) = self
                .shelf
                .put(held.iter().map(|m| m.lines.held().unwrap_or_default()))
            else {
                return;
            };
            for (m, written) in self.matches[run].iter_mut().zip(written) {
                m.lines = Lines::written(written);
            }
        }
    }

    /// Moves player `p` to number `to[p]` among `players` players (the new ones with nothing
    /// counted). `to` must keep the order of the numbers (as the roster's byte order of keys
    /// does when players are added), so every list sorted by number stays sorted.
    ///
    /// Numbers below the first that moves stay as they are, so only what names a moved player
    /// is rewritten: nothing when the numbering is this build's already (an append without a
    /// newcomer), and otherwise about half of the players' maps (a newcomer sorts anywhere).
    pub fn renumber(&mut self, to: &[u32], players: usize) {
        use rayon::prelude::*;
        let kept = to
            .iter()
            .enumerate()
            .position(|(old, &new)| new as usize != old)
            .unwrap_or(to.len());
        let id = |p: u32| to[p as usize];
        let moves = |last: Option<u32>| last.is_some_and(|p| p as usize >= kept);
        // Each moved player goes up (`to` keeps the order and skips the newcomers' numbers):
        // from the last down, their new place holds a newcomer's empty counts.
        self.players
            .resize_with(players.max(to.len()), PlayerStats::default);
        for old in (kept..to.len()).rev() {
            self.players.swap(old, to[old] as usize);
        }
        self.players.truncate(players);
        self.players.par_iter_mut().for_each(|p| {
            if moves(p.victims.last_key_value().map(|(&v, _)| v)) {
                p.victims = std::mem::take(&mut p.victims)
                    .into_iter()
                    .map(|(v, n)| (id(v), n))
                    .collect();
            }
            if moves(p.killers.last_key_value().map(|(&k, _)| k)) {
                p.killers = std::mem::take(&mut p.killers)
                    .into_iter()
                    .map(|(k, n)| (id(k), n))
                    .collect();
            }
        });
        if kept == to.len() {
            return;
        }
        self.matches.par_iter_mut().for_each(|m| {
            let mut lines = m.lines.to_vec();
            for line in &mut lines {
                line.player = id(line.player);
            }
            *m = MatchStats::new(m.counts(), &lines);
        });
        self.shelf.rewritten();
        self.shelve();
        for map in &mut self.maps {
            map.players = std::mem::take(&mut map.players)
                .into_iter()
                .map(id)
                .collect();
            map.frags_by_player = std::mem::take(&mut map.frags_by_player)
                .into_iter()
                .map(|(p, n)| (id(p), n))
                .collect();
        }
    }
}

/// Counts one match into its own lines and the players' totals, and returns with the lines the
/// match's frags per weapon (by index into `m.weapons`). Counts within the match are gathered in
/// small dense tables first (match players are few) and added to the players' maps once per
/// match.
fn count_match(
    m: &Match,
    ids: &[u32],
    players: &mut [PlayerStats],
    names: &mut Names,
) -> (MatchStats, Vec<u32>) {
    // One line per identity (several match players can share one identity through aliases);
    // `line_of` maps each match player to its line.
    let mut lines: Vec<MatchLine> = Vec::new();
    let mut line_of = vec![usize::MAX; m.players.len()];
    for (i, p) in m.active_players() {
        let pos = match lines.iter().position(|l| l.player == ids[i]) {
            Some(pos) => pos,
            None => {
                lines.push(MatchLine {
                    player: ids[i],
                    ..Default::default()
                });
                lines.len() - 1
            }
        };
        line_of[i] = pos;
        let line = &mut lines[pos];
        if let Some(s) = p.score() {
            line.score = Some(line.score.unwrap_or(0) + s);
        }
        line.team = Some(p.team);
    }
    let n = lines.len();
    let w = m.weapons.len();
    // Current killing spree per line: frags since the last death.
    let mut spree = vec![0u32; n];
    let mut pairs = vec![0u32; n * n];
    let mut weapons = vec![0u32; n * w];
    let mut weapon_frags = vec![0u32; w];
    let mut ms = MatchCounts::default();
    // Every player named by a kill line is active, so has a line.
    let line = |i: u32| line_of.get(i as usize).copied().filter(|p| *p < n);
    for e in m.events.read().iter() {
        let actor = ids[e.actor as usize];
        match e.kind {
            EventKind::Frag => {
                ms.frags += 1;
                ms.kill_lines += 1;
                if let Some(n) = weapon_frags.get_mut(usize::from(e.detail)) {
                    *n += 1;
                }
                if let (Some(k), Some(v)) = (line(e.actor), line(e.target)) {
                    lines[k].frags += 1;
                    spree[k] += 1;
                    lines[v].deaths += 1;
                    lines[v].best_spree = lines[v].best_spree.max(spree[v]);
                    spree[v] = 0;
                    pairs[k * n + v] += 1;
                    if usize::from(e.detail) < w {
                        weapons[k * w + usize::from(e.detail)] += 1;
                    }
                }
            }
            EventKind::Suicide => {
                ms.suicides += 1;
                ms.kill_lines += 1;
                if let Some(p) = line(e.actor) {
                    lines[p].best_spree = lines[p].best_spree.max(spree[p]);
                    spree[p] = 0;
                    lines[p].suicides += 1;
                    lines[p].deaths += 1;
                }
                players[actor as usize].suicides += 1;
                players[actor as usize].deaths += 1;
            }
            EventKind::TeamKill => {
                let victim = ids[e.target as usize];
                ms.team_kills += 1;
                ms.kill_lines += 1;
                if let Some(p) = line(e.actor) {
                    lines[p].team_kills += 1;
                }
                if let Some(v) = line(e.target) {
                    lines[v].best_spree = lines[v].best_spree.max(spree[v]);
                    spree[v] = 0;
                    lines[v].deaths += 1;
                }
                players[actor as usize].team_kills += 1;
                players[victim as usize].deaths += 1;
            }
            EventKind::Flag(action, _) => {
                let p = &mut players[actor as usize];
                match action {
                    FlagAction::Capture => {
                        p.captures += 1;
                        if let Some(l) = line(e.actor) {
                            lines[l].captures += 1;
                        }
                    }
                    FlagAction::Return => p.flag_returns += 1,
                    FlagAction::Pickup => p.flag_pickups += 1,
                    FlagAction::CarrierKill => p.carrier_kills += 1,
                    FlagAction::BombPlant
                    | FlagAction::BombDefuse
                    | FlagAction::BombExplode
                    | FlagAction::PointCapture => p.objectives += 1,
                    FlagAction::Drop => {}
                }
            }
            EventKind::Award => {
                let name = names.id(&m.awards[usize::from(e.detail)]);
                players[actor as usize].awards.add(name, 1, names);
            }
            EventKind::Headshot => players[actor as usize].headshots += 1,
            EventKind::Assist => players[actor as usize].assists += 1,
            EventKind::TeamChange(_) | EventKind::Leave => {}
        }
    }
    for p in 0..n {
        lines[p].best_spree = lines[p].best_spree.max(spree[p]);
    }
    let weapon_names: Vec<u32> = m.weapons.iter().map(|name| names.id(name)).collect();
    for k in 0..n {
        for v in 0..n {
            let count = pairs[k * n + v];
            if count == 0 {
                continue;
            }
            let (killer, victim) = (lines[k].player, lines[v].player);
            let kp = &mut players[killer as usize];
            kp.kills += count;
            *kp.victims.entry(victim).or_default() += count;
            let vp = &mut players[victim as usize];
            vp.deaths += count;
            *vp.killers.entry(killer).or_default() += count;
        }
        for (weapon, &name) in weapon_names.iter().enumerate() {
            let count = weapons[k * w + weapon];
            if count == 0 {
                continue;
            }
            (players[lines[k].player as usize].weapons).add(name, count, names);
        }
    }
    lines.sort_by(|a, b| {
        b.score
            .unwrap_or(i32::MIN)
            .cmp(&a.score.unwrap_or(i32::MIN))
            .then(b.frags.cmp(&a.frags))
            .then(a.deaths.cmp(&b.deaths))
            .then(a.player.cmp(&b.player))
    });
    // Kept for the whole build (a match's counts): packed.
    (MatchStats::new(ms, &lines), weapon_frags)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::identity::Aliases;
    use crate::testdata::Listed;

    /// A match's counts save as the lines and totals held apart saved (the checkpoint's bytes),
    /// and read back as they were.
    #[test]
    fn match_counts_save_as_they_did_held_apart() {
        #[derive(Serialize)]
        struct Apart {
            lines: Vec<MatchLine>,
            frags: u32,
            suicides: u32,
            team_kills: u32,
            kill_lines: u32,
        }
        let lines = vec![
            MatchLine {
                player: 4,
                frags: 300,
                score: Some(-1),
                team: Some(Team::Red),
                ..Default::default()
            },
            MatchLine::default(),
        ];
        let counts = MatchCounts {
            frags: 300,
            suicides: 2,
            team_kills: 70_000,
            kill_lines: 70_302,
        };
        let ms = MatchStats::new(counts, &lines);
        assert_eq!((ms.counts(), ms.lines.to_vec()), (counts, lines.clone()));
        let apart = Apart {
            lines,
            frags: 300,
            suicides: 2,
            team_kills: 70_000,
            kill_lines: 70_302,
        };
        let bytes = postcard::to_allocvec(&ms).unwrap();
        assert_eq!(bytes, postcard::to_allocvec(&apart).unwrap());
        assert_eq!(postcard::from_bytes::<MatchStats>(&bytes).unwrap(), ms);
        assert_eq!(
            serde_json::to_string(&ms).unwrap(),
            serde_json::to_string(&apart).unwrap()
        );
    }

    #[test]
    fn saved_player_maps_read_back_as_btreemap_reads_them() {
        let mut p = PlayerStats::default();
        p.victims.extend([(3, 1), (7, 2), (900, 4)]);
        let bytes = postcard::to_allocvec(&p).unwrap();
        assert_eq!(postcard::from_bytes::<PlayerStats>(&bytes).unwrap(), p);
        // Out of order and repeated keys: sorted, the last value of a key wins.
        #[derive(Deserialize)]
        struct Only {
            #[serde(deserialize_with = "sorted_map")]
            m: BTreeMap<String, u32>,
        }
        let only: Only = serde_json::from_str(r#"{"m":{"b":1,"a":2,"b":3}}"#).unwrap();
        let plain: BTreeMap<String, u32> = serde_json::from_str(r#"{"b":1,"a":2,"b":3}"#).unwrap();
        assert_eq!(only.m, plain);
        assert_eq!(
            only.m.into_iter().collect::<Vec<_>>(),
            [("a".into(), 2), ("b".into(), 3)]
        );
    }

    #[test]
    fn saved_map_sets_read_back_as_btreeset_reads_them() {
        let mut m = MapStats {
            name: "q3dm17".into(),
            ..MapStats::default()
        };
        m.players.extend([2, 9, 40_000]);
        m.frags_by_player.extend([(2, 5), (40_000, 1)]);
        m.weapons.insert("RL".into(), 6);
        let bytes = postcard::to_allocvec(&m).unwrap();
        assert_eq!(postcard::from_bytes::<MapStats>(&bytes).unwrap(), m);
        // Out of order and repeated values: sorted, each once.
        #[derive(Deserialize)]
        struct Only {
            #[serde(deserialize_with = "sorted_set")]
            s: BTreeSet<u32>,
        }
        let only: Only = serde_json::from_str(r#"{"s":[9,2,9,40]}"#).unwrap();
        assert_eq!(only.s.into_iter().collect::<Vec<_>>(), [2, 9, 40]);
    }
    /// Lines written to the counts' file a block at a time read back as counted: the same
    /// counts, lines and saved bytes as lines held in memory, before and after a renumbering
    /// (which writes them again) and once read back from a checkpoint; a folder where no file
    /// can be made keeps them held.
    #[test]
    fn shelved_lines_are_the_lines_counted() {
        let (once, _) = crate::testdata::history("openarena");
        let n = 3 * shelf::BLOCK_MATCHES + 100;
        let matches: Vec<Match> = std::iter::repeat(&once)
            .flatten()
            .take(n)
            .cloned()
            .collect();
        assert_eq!(matches.len(), n);
        let roster = Roster::build(&matches, &Aliases::default());
        let mut held = Stats::compute(crate::model::MatchList::from(&matches), &roster);
        let dir = tempfile::tempdir().unwrap();
        let mut shelved = Stats::default();
        shelved.shelve_lines_in(dir.path().to_path_buf());
        // Counted in two steps, the first ending inside a block.
        shelved.advance(matches.slice(..700), &roster);
        shelved.advance(crate::model::MatchList::from(&matches), &roster);
        let full = 3 * shelf::BLOCK_MATCHES;
        let written = |s: &Stats| {
            (s.matches.iter())
                .filter(|m| m.lines.held().is_none())
                .count()
        };
        assert_eq!(written(&shelved), full);
        assert!(
            shelved.matches[full..]
                .iter()
                .all(|m| m.lines.held().is_some())
        );
        let same = |a: &Stats, b: &Stats| {
            assert_eq!(a, b);
            for (x, y) in a.matches.iter().zip(&b.matches) {
                assert_eq!(
                    (x.lines.len(), x.lines.to_vec()),
                    (y.lines.len(), y.lines.to_vec())
                );
                assert_eq!(x.lines.pair(), y.lines.pair());
            }
            assert_eq!(
                postcard::to_allocvec(a).unwrap(),
                postcard::to_allocvec(b).unwrap()
            );
        };
        same(&shelved, &held);
        assert!(held.matches.iter().any(|m| m.lines.len() > 2));
        // Read out of order (as a server's page reads its matches): each match's own bytes.
        for i in (0..n).rev().step_by(3).chain((0..n).step_by(5)) {
            let (a, b) = (&shelved.matches[i].lines, &held.matches[i].lines);
            assert_eq!((a.to_vec(), a.len()), (b.to_vec(), b.len()));
        }

        // Every player moves up one (a newcomer sorts first): every line is written again.
        let players = roster.players.len();
        let to: Vec<u32> = (1..=players as u32).collect();
        held.renumber(&to, players + 1);
        shelved.renumber(&to, players + 1);
        assert_eq!(written(&shelved), full);
        same(&shelved, &held);

        let saved = postcard::to_allocvec(&held).unwrap();
        let mut read: Stats = postcard::from_bytes(&saved).unwrap();
        assert_eq!(written(&read), 0);
        read.shelve_lines_in(dir.path().to_path_buf());
        assert_eq!(written(&read), full);
        same(&read, &held);

        let mut nowhere: Stats = postcard::from_bytes(&saved).unwrap();
        nowhere.shelve_lines_in(dir.path().join("missing"));
        assert_eq!(written(&nowhere), 0);
        same(&nowhere, &held);
    }

    use crate::model::{Event, NO_PLAYER, Team};

    /// Headshots, assists and round objectives (Half-Life events) are counted per player.
    #[test]
    fn headshots_assists_objectives() {
        let mut m = crate::testdata::bare_match("ctf", &[("a", Team::Red), ("b", Team::Blue)]);
        m.weapons = ["ak47"].iter().collect();
        let e = |kind, actor, target| Event {
            time: 1,
            line: 1,
            kind,
            actor,
            target,
            detail: 0,
        };
        m.events = vec![
            e(EventKind::Frag, 0, 1),
            e(EventKind::Headshot, 0, 1),
            e(EventKind::Assist, 1, 0),
            e(
                EventKind::Flag(FlagAction::BombPlant, Team::Blue),
                0,
                NO_PLAYER,
            ),
            e(
                EventKind::Flag(FlagAction::PointCapture, Team::Red),
                1,
                NO_PLAYER,
            ),
        ]
        .into();
        let matches = [m];
        let roster = Roster::build(&matches, &Aliases::default());
        let s = Stats::compute(crate::model::MatchList::from(&matches), &roster);
        let a = &s.players[roster.match_players.at(0)[0] as usize];
        let b = &s.players[roster.match_players.at(0)[1] as usize];
        assert_eq!(
            (a.kills, a.headshots, a.assists, a.objectives),
            (1, 1, 0, 1)
        );
        assert_eq!(
            (b.deaths, b.headshots, b.assists, b.objectives),
            (1, 0, 1, 1)
        );
        assert_eq!(a.captures + b.captures, 0);
    }
}
