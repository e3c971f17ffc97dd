//! The archive of record: a match once read stays in the history when the log it came from is
//! truncated, rotated away, replaced or deleted. [`update`] keeps, in the state folder's
//! archive, every match the previous build held whose content no present log holds; [`forget`]
//! is the only way matches leave it (`fragstats forget`).

use std::collections::{HashMap, HashSet};

use chrono::NaiveDate;

use crate::model::{HeadId, History, Match};
use crate::state::{Archive, Archived};

/// The archive after a build: the old archive's matches and the matches `dropped` from the
/// previous state (with the log each came from), less those whose content a present log
/// holds, and less unfinished copies (the log ended inside them) of a match a present log
/// holds further: one with the same id, or one that starts on the same line of the same log
/// with the unfinished copy's events as its first events (a live log that grew). New matches
/// form one batch, after the existing ones. `present`'s match `i` was read from
/// `logs[file_index]`, its head's [`Match::file_index`].
pub fn update(
    archive: Archive,
    dropped: Vec<(String, Match)>,
    present: &History,
    logs: &[String],
) -> Archive {
    if dropped.is_empty() && archive.matches.is_empty() {
        return archive;
    }
    let heads = || (0..present.len()).map(|i| present.head(i));
    let present_content: HashSet<u64> = heads().map(|h| h.content).collect();
    let present_ids: HashSet<HeadId> = heads().map(|h| h.id).collect();
    let present_at: HashMap<(&str, u64), usize> = (heads().enumerate())
        .filter_map(|(i, h)| Some(((logs.get(h.file_index as usize)?.as_str(), h.line), i)))
        .collect();
    let grown = |origin: &str, m: &Match| {
        present_at
            .get(&(origin, m.line))
            .is_some_and(|&i| continues(m, &present.at(i)))
    };
    let still_needed = |origin: &str, m: &Match| {
        !present_content.contains(&m.content)
            && !(m.open && (present_ids.contains(&*m.id) || grown(origin, m)))
    };
    let batch = archive.next_batch;
    let archive_len = archive.matches.len();
    let mut seen: HashSet<u64> = HashSet::new();
    let mut matches: Vec<Archived> = archive
        .matches
        .into_iter()
        .filter(|a| still_needed(&a.origin, &a.m) && seen.insert(a.m.content))
        .collect();
    let kept = matches.len();
    let changed = kept < archive_len;
    matches.extend(
        dropped
            .into_iter()
            .filter(|(origin, m)| still_needed(origin, m) && seen.insert(m.content))
            .map(|(origin, m)| Archived { origin, batch, m }),
    );
    let added = matches.len() > kept;
    Archive {
        matches,
        next_batch: if added { batch + 1 } else { batch },
        changed: archive.changed || changed || added,
    }
}

/// `later` is `open` read further: `open`'s events are its first events, with the same
/// players in them. The events of `open`'s last line are left out (the log may have ended
/// inside that line).
fn continues(open: &Match, later: &Match) -> bool {
    let (open_events, later_events) = (open.events.read(), later.events.read());
    let last = open_events.last().map_or(0, |e| e.line);
    let before_last = open_events.iter().take_while(|e| e.line < last);
    if before_last.clone().count() > later_events.len() {
        return false;
    }
    let mut pairs = before_last.zip(later_events.iter());
    let same_player = |a: u32, b: u32| {
        a == b
            && match (open.players.get(a as usize), later.players.get(b as usize)) {
                (Some(x), Some(y)) => x.plain == y.plain,
                (None, None) => true,
                _ => false,
            }
    };
    pairs.all(|(a, b)| {
        a.line == b.line
            && a.time == b.time
            && a.kind == b.kind
            && a.detail == b.detail
            && same_player(a.actor, b.actor)
            && same_player(a.target, b.target)
    })
}

/// Which archived matches `fragstats forget` removes: those read from a log under `path` (a
/// prefix of the log's path as it was opened or of its path under its log root), that started
/// before `before` (undated matches have no start: with a date they are kept). No condition
/// means every archived match.
#[derive(Debug, Clone, Default)]
pub struct Forget {
    pub path: Option<String>,
    pub before: Option<NaiveDate>,
}

impl Forget {
    fn applies(&self, a: &Archived) -> bool {
        let path_ok = self.path.as_deref().is_none_or(|p| {
            let p = p.trim_end_matches('/');
            let under = |s: &str| s == p || s.starts_with(&format!("{p}/"));
            under(&a.origin) || under(&a.m.source)
        });
        let date_ok = self
            .before
            .is_none_or(|d| a.m.start.is_some_and(|s| s.date() < d));
        path_ok && date_ok
    }
}

/// Removes the archived matches `what` selects; returns how many were removed per log.
pub fn forget(archive: &mut Archive, what: &Forget) -> Vec<(String, usize)> {
    let mut removed: HashMap<String, usize> = HashMap::new();
    archive.matches.retain(|a| {
        let gone = what.applies(a);
        if gone {
            *removed.entry(a.origin.clone()).or_default() += 1;
        }
        !gone
    });
    archive.changed |= !removed.is_empty();
    let mut removed: Vec<(String, usize)> = removed.into_iter().collect();
    removed.sort();
    removed
}

/// Counts of archived matches per log they were read from.
pub type PerLog = Vec<(String, usize)>;

/// Removes the archived matches `what` selects from the archive in `state_dir`; returns how
/// many were removed per log and how many are left per log.
pub fn forget_in(state_dir: &std::path::Path, what: &Forget) -> anyhow::Result<(PerLog, PerLog)> {
    let _lock = crate::state::lock(state_dir, || {
        eprintln!("waiting for the fragstats build of this site to finish");
    });
    let mut archive = match crate::state::load_archive(state_dir)? {
        crate::state::LoadedArchive::Archive(a) => a,
        crate::state::LoadedArchive::SetAside(p) => anyhow::bail!(
            "the archive cannot be read by this fragstats; it was kept as {}",
            p.display()
        ),
    };
    let removed = forget(&mut archive, what);
    crate::state::save_archive(state_dir, &crate::state::encode_archive(&archive)?)?;
    let mut left: std::collections::BTreeMap<String, usize> = Default::default();
    for a in &archive.matches {
        *left.entry(a.origin.clone()).or_default() += 1;
    }
    Ok((removed, left.into_iter().collect()))
}
