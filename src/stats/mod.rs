//! Counting: per match and per player (frags, deaths, suicides, team kills, flags, weapons, maps,
//! opponents) and per map, by the rules of RANKING.md "What counts". Works on identity numbers from
//! the [`Roster`]; knows nothing of ratings or HTML.

pub mod awards;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::model::identity::Roster;
use crate::model::{EventKind, FlagAction, Match, Team};

/// One player's line in one match.
#[derive(Debug, Clone, Default, PartialEq)]
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

/// Counts of one match, one line per active player (sorted by score, then frags, then name key).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MatchStats {
    pub lines: Vec<MatchLine>,
    pub frags: u32,
    pub suicides: u32,
    pub team_kills: u32,
    pub kill_lines: u32,
}

/// Totals of one player over all matches.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlayerStats {
    pub kills: u32,
    pub deaths: u32,
    pub suicides: u32,
    pub team_kills: u32,
    pub captures: u32,
    pub flag_returns: u32,
    pub flag_pickups: u32,
    pub carrier_kills: u32,
    /// Indices (into the ordered match list) of the matches the player took part in.
    pub matches: Vec<u32>,
    /// Frags by weapon name.
    pub weapons: BTreeMap<String, u32>,
    /// Matches played per map.
    pub maps: BTreeMap<String, u32>,
    /// Frags made against each opponent (identity number -> count).
    pub victims: BTreeMap<u32, u32>,
    /// Frags suffered from each opponent.
    pub killers: BTreeMap<u32, u32>,
    /// Awards received by name.
    pub awards: BTreeMap<String, u32>,
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

/// Totals of one map.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MapStats {
    pub name: String,
    pub matches: Vec<u32>,
    pub frags: u32,
    pub seconds: u64,
    pub players: BTreeSet<u32>,
    /// Frags made on this map by each player.
    pub frags_by_player: BTreeMap<u32, u32>,
}

/// Every count the site shows.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub matches: Vec<MatchStats>,
    pub players: Vec<PlayerStats>,
    /// Maps in byte order of name.
    pub maps: Vec<MapStats>,
}

impl Stats {
    /// Counts everything in `matches` (in the site's match order) for the identities in `roster`.
    pub fn compute(matches: &[Match], roster: &Roster) -> Stats {
        let mut players = vec![PlayerStats::default(); roster.players.len()];
        let mut maps: BTreeMap<&str, MapStats> = BTreeMap::new();
        let mut match_stats = Vec::with_capacity(matches.len());
        for (mi, (m, ids)) in matches.iter().zip(&roster.match_players).enumerate() {
            let ms = count_match(m, ids, &mut players);
            let map = maps.entry(&m.map).or_insert_with(|| MapStats {
                name: m.map.clone(),
                ..Default::default()
            });
            map.matches.push(mi as u32);
            map.frags += ms.frags;
            map.seconds += u64::from(m.duration_seconds);
            for line in &ms.lines {
                let p = &mut players[line.player as usize];
                p.matches.push(mi as u32);
                *p.maps.entry(m.map.clone()).or_default() += 1;
                map.players.insert(line.player);
                *map.frags_by_player.entry(line.player).or_default() += line.frags;
            }
            match_stats.push(ms);
        }
        Stats {
            matches: match_stats,
            players,
            maps: maps.into_values().collect(),
        }
    }
}

/// Ends `who`'s killing spree (they died, or the match ended), keeping their best.
fn end_spree(spree: &mut HashMap<u32, u32>, who: u32, lines: &mut HashMap<u32, MatchLine>) {
    if let Some(run) = spree.insert(who, 0)
        && let Some(l) = lines.get_mut(&who)
    {
        l.best_spree = l.best_spree.max(run);
    }
}

/// Counts one match into its own lines and the players' totals.
fn count_match(m: &Match, ids: &[u32], players: &mut [PlayerStats]) -> MatchStats {
    // Several match players can share one identity (aliases): merge their lines.
    let mut lines: HashMap<u32, MatchLine> = HashMap::new();
    for (i, p) in m.active_players() {
        let line = lines.entry(ids[i]).or_insert_with(|| MatchLine {
            player: ids[i],
            ..Default::default()
        });
        if let Some(s) = p.score {
            line.score = Some(line.score.unwrap_or(0) + s);
        }
        line.team = Some(p.team);
    }
    let mut ms = MatchStats::default();
    // Current killing spree per identity: frags since the last death.
    let mut spree: HashMap<u32, u32> = HashMap::new();
    for e in &m.events {
        let actor = ids[e.actor as usize];
        match e.kind {
            EventKind::Frag => {
                let victim = ids[e.target as usize];
                *spree.entry(actor).or_default() += 1;
                end_spree(&mut spree, victim, &mut lines);
                ms.frags += 1;
                ms.kill_lines += 1;
                if let Some(l) = lines.get_mut(&actor) {
                    l.frags += 1;
                }
                if let Some(l) = lines.get_mut(&victim) {
                    l.deaths += 1;
                }
                let weapon = &m.weapons[usize::from(e.detail)];
                let k = &mut players[actor as usize];
                k.kills += 1;
                *k.victims.entry(victim).or_default() += 1;
                match k.weapons.get_mut(weapon) {
                    Some(n) => *n += 1,
                    None => {
                        k.weapons.insert(weapon.clone(), 1);
                    }
                }
                let v = &mut players[victim as usize];
                v.deaths += 1;
                *v.killers.entry(actor).or_default() += 1;
            }
            EventKind::Suicide => {
                end_spree(&mut spree, actor, &mut lines);
                ms.suicides += 1;
                ms.kill_lines += 1;
                if let Some(l) = lines.get_mut(&actor) {
                    l.suicides += 1;
                    l.deaths += 1;
                }
                players[actor as usize].suicides += 1;
                players[actor as usize].deaths += 1;
            }
            EventKind::TeamKill => {
                let victim = ids[e.target as usize];
                end_spree(&mut spree, victim, &mut lines);
                ms.team_kills += 1;
                ms.kill_lines += 1;
                if let Some(l) = lines.get_mut(&actor) {
                    l.team_kills += 1;
                }
                if let Some(l) = lines.get_mut(&victim) {
                    l.deaths += 1;
                }
                players[actor as usize].team_kills += 1;
                players[victim as usize].deaths += 1;
            }
            EventKind::Flag(action, _) => {
                let p = &mut players[actor as usize];
                match action {
                    FlagAction::Capture => {
                        p.captures += 1;
                        if let Some(l) = lines.get_mut(&actor) {
                            l.captures += 1;
                        }
                    }
                    FlagAction::Return => p.flag_returns += 1,
                    FlagAction::Pickup => p.flag_pickups += 1,
                    FlagAction::CarrierKill => p.carrier_kills += 1,
                    FlagAction::Drop => {}
                }
            }
            EventKind::Award => {
                let name = &m.awards[usize::from(e.detail)];
                *players[actor as usize]
                    .awards
                    .entry(name.clone())
                    .or_default() += 1;
            }
            EventKind::TeamChange(_) | EventKind::Leave => {}
        }
    }
    let open: Vec<u32> = spree.keys().copied().collect();
    for who in open {
        end_spree(&mut spree, who, &mut lines);
    }
    let mut lines: Vec<MatchLine> = lines.into_values().collect();
    lines.sort_by(|a, b| {
        b.score
            .unwrap_or(i32::MIN)
            .cmp(&a.score.unwrap_or(i32::MIN))
            .then(b.frags.cmp(&a.frags))
            .then(a.deaths.cmp(&b.deaths))
            .then(a.player.cmp(&b.player))
    });
    ms.lines = lines;
    ms
}
