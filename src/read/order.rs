//! The site's order of the matches read: RANKING.md's order of every log's and the archive's
//! matches, the same match read twice counted once, and each match's number, decided from the
//! heads of a staged history ([`History::staged`]) and applied to it
//! ([`History::reordered`]). Not the reading of the logs ([`super::read_logs_incremental`]).

use std::path::Path;

use anyhow::Result;
use chrono::NaiveDateTime;

use super::file_number;
use crate::crawl::{LogFile, rotation_key};
use crate::diagnostics::FileReport;
use crate::hashed_pairs::HashedPairs;
use crate::model::{HeadId, History, Match, Pick};
use crate::state::{Archive, ArchiveWrite};

/// A match's place in RANKING.md's order: what the order reads of its head, then its place in
/// the staged history (sorted unstably, matches alike in the rest keep their staged order, as
/// a stable sort kept them). The rest of its head is read again where removing copies needs
/// it: a key holding every field the ordering reads took 104 bytes, and its sort's room as
/// much again (13 MB of the reading's peak at 64,000 matches, issue 41).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Place {
    /// Its start, when every match has one (else None for all).
    start: Option<NaiveDateTime>,
    /// The rank of its source ([`Match::file_index`]).
    rank: u32,
    line: u64,
    /// Its place in the staged history.
    at: u32,
}

/// Puts the staged matches (`staged`: the present logs' matches, each log's in its order and
/// the logs in the order of `files`, each match's [`Match::file_index`] its log's place in
/// `files`) and the archived ones in RANKING.md's order, removes duplicates, numbers them
/// ([`number`], from the `remembered` pairs) and makes the history of them in that order. Each
/// source (a log, or one batch of archived matches of one log) gets a rank: by the log's place
/// in the file order (rotated copies oldest first), archived batches before the log's present
/// content, older batches first. The archive is encoded (when it changed) before its matches
/// move into the build.
pub(super) fn place_in_order(
    files: &[LogFile],
    mut staged: History,
    archive: Archive,
    reports: &mut [FileReport],
    remembered: &HashedPairs<u32>,
) -> Result<(History, ArchiveWrite)> {
    type SourceKey = ((Vec<u8>, u8, Vec<u8>, u64, Vec<u8>), u8, u64);
    let mut sources: Vec<(SourceKey, usize)> = files
        .iter()
        .enumerate()
        .map(|(i, f)| ((rotation_key(&f.path), 1, 0), i))
        .collect();
    let mut batches: Vec<(String, u64)> = archive
        .matches
        .iter()
        .map(|a| (a.origin.clone(), a.batch))
        .collect();
    batches.sort_unstable();
    batches.dedup();
    for (j, (origin, batch)) in batches.iter().enumerate() {
        sources.push((
            (rotation_key(Path::new(origin)), 0, *batch),
            files.len() + j,
        ));
    }
    sources.sort();
    // Rank of each source, and the report each rank's notes go to (none for the archive: the
    // build says how many matches it holds).
    let mut rank_of = vec![0usize; sources.len()];
    let mut report_of_rank = vec![usize::MAX; sources.len()];
    for (rank, (_, source)) in sources.iter().enumerate() {
        rank_of[*source] = rank;
        if *source < files.len() {
            report_of_rank[rank] = *source;
        }
    }
    let write = crate::state::encode_archive(&archive)?;
    let archived: Vec<Match> = (archive.matches.into_iter())
        .map(|a| {
            let j = batches
                .binary_search_by(|(o, b)| (o.as_str(), *b).cmp(&(a.origin.as_str(), a.batch)))
                .expect("every batch has a source");
            let mut m = a.m;
            m.file_index = file_number(files.len() + j);
            m
        })
        .collect();
    staged.stage_more(archived);
    let history = in_order(staged, &rank_of, reports, &report_of_rank, remembered);
    Ok((history, write))
}

/// The history of one log's matches `matches` (parsed in order, each match's
/// [`Match::file_index`] 0), as a build with no state folder, archive nor previous state makes
/// it: packed, in RANKING.md's order, copies removed (their notes to `report`), numbered from
/// 1. The fuzz targets' way to run the pipeline without crawling.
pub fn history_of_one_log(mut matches: Vec<Match>, report: &mut FileReport) -> History {
    let staged = History::staged(vec![History::stage_log(&mut matches, None)], None);
    drop(matches);
    let reports = std::slice::from_mut(report);
    in_order(staged, &[0], reports, &[0], &HashedPairs::default())
}

/// The staged history `staged` in RANKING.md's order, copies removed and numbered (see
/// [`place_in_order`]): `rank_of` gives each source's rank by its place, [`Match::file_index`]
/// of the staged heads.
fn in_order(
    staged: History,
    rank_of: &[usize],
    reports: &mut [FileReport],
    report_of_rank: &[usize],
    remembered: &HashedPairs<u32>,
) -> History {
    let all_dated = (0..staged.len()).all(|at| staged.head(at).start.is_some());
    let places: Vec<Place> = (0..staged.len())
        .map(|at| {
            let head = staged.head(at);
            Place {
                start: head.start.filter(|_| all_dated),
                rank: file_number(
                    rank_of
                        .get(head.file_index as usize)
                        .copied()
                        .unwrap_or(usize::MAX),
                ),
                line: head.line,
                at: u32::try_from(at).expect("fewer than 4 billion matches"),
            }
        })
        .collect();
    let (ordered, renamed) = order_and_dedupe(&staged, places, reports, report_of_rank);
    let renamed_at = |p: &Place| {
        let found = renamed.binary_search_by_key(&p.at, |(at, _)| *at);
        found.ok().map(|k| &renamed[k].1)
    };
    let id_of = |p: &Place| match renamed_at(p) {
        Some(id) => HeadId::Text(id),
        None => staged.head(p.at as usize).id,
    };
    let numbers = number(ordered.iter().map(id_of), remembered);
    let picks: Vec<Pick> = (ordered.iter().zip(numbers))
        .map(|(p, number)| Pick {
            from: p.at as usize,
            number,
            file_index: p.rank,
            id: renamed_at(p).cloned(),
        })
        .collect();
    drop(ordered);
    staged.reordered(picks)
}

/// Each match's number ([`Match::number`]), the matches given by their ids in site order: the
/// one `remembered` (the previous state's (id, number) pairs) gives its id, the later one of an
/// id remembered twice, else the next free one after the greatest. The build saves them from
/// the matches.
fn number<I>(ids: I, remembered: &HashedPairs<u32>) -> Vec<u32>
where
    I: Iterator,
    I::Item: std::ops::Deref<Target = str>,
{
    let mut next = remembered.values().max().unwrap_or(0) + 1;
    ids.map(|id| {
        remembered.get(&id).unwrap_or_else(|| {
            next += 1;
            next - 1
        })
    })
    .collect()
}

/// Sorts the matches of `staged` at `places` as RANKING.md says (by start time when every match
/// has one, else by the rank of their source and line) and removes copies: of matches with the
/// same content the first is kept; an unfinished copy (the log ended inside it) of a match
/// that another copy holds further (same id) is dropped. Two different finished matches that
/// share an id (the same opening) keep both: the one with the most events (of as many, the
/// last in the order) keeps the id, the other takes it with a suffix. Returns the places kept,
/// in order, and the new ids by staged place (sorted). Notes go to
/// `reports[report_of_rank[rank]]`.
fn order_and_dedupe(
    staged: &History,
    mut places: Vec<Place>,
    reports: &mut [FileReport],
    report_of_rank: &[usize],
) -> (Vec<Place>, Vec<(u32, Box<str>)>) {
    places.sort_unstable();
    let mut note = |m: &Place, why: &str, other: &Place| {
        let report = report_of_rank
            .get(m.rank as usize)
            .copied()
            .unwrap_or(m.rank as usize);
        if let Some(r) = reports.get_mut(report) {
            let source = staged.head(other.at as usize).source;
            r.note(why, m.line, &format!("same as {source}:{}", other.line));
        }
    };
    let head = |i: u32| staged.head(places[i as usize].at as usize);
    let count = u32::try_from(places.len()).expect("fewer than 4 billion matches");
    // Copies of one content side by side, each group's first (in the order) kept; noted in
    // the order.
    let mut contents: Vec<(u64, u32)> = (0..count).map(|i| (head(i).content, i)).collect();
    contents.sort_unstable();
    let mut copies: Vec<(u32, u32)> = Vec::new();
    for group in contents.chunk_by(|a, b| a.0 == b.0) {
        copies.extend(group[1..].iter().map(|&(_, i)| (i, group[0].1)));
    }
    drop(contents);
    copies.sort_unstable();
    let mut keep = vec![true; places.len()];
    for (i, first) in copies {
        keep[i as usize] = false;
        note(
            &places[i as usize],
            "duplicate match (same content seen earlier) counted once",
            &places[first as usize],
        );
    }
    // Copies under one id: the longest finished one stands for the unfinished ones. The ids
    // sorted, each with its place, so that copies are side by side (a map of the ids to their
    // places held a list per match).
    let mut ids: Vec<(HeadId, u32)> = (0..count)
        .filter(|&i| keep[i as usize])
        .map(|i| (head(i).id, i))
        .collect();
    ids.sort_unstable();
    let mut renamed = Vec::new();
    for group in ids.chunk_by(|a, b| a.0 == b.0).filter(|g| g.len() > 1) {
        let length = |i: u32| {
            (
                staged.events_len(places[i as usize].at as usize),
                !head(i).open,
            )
        };
        let longest = (group.iter().map(|&(_, i)| i))
            .max_by_key(|&i| length(i))
            .expect("a group has members");
        let mut suffix = 1;
        for &(id, i) in group {
            if i == longest {
                continue;
            }
            if head(i).open {
                keep[i as usize] = false;
                note(
                    &places[i as usize],
                    "unfinished copy of a match read further elsewhere: counted once",
                    &places[longest as usize],
                );
            } else {
                suffix += 1;
                renamed.push((places[i as usize].at, format!("{id}-{suffix}").into()));
            }
        }
    }
    drop(ids);
    renamed.sort_unstable();
    let mut keep = keep.into_iter();
    places.retain(|_| keep.next().unwrap_or(true));
    (places, renamed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A remembered id keeps its number, the last one when remembered twice (as a map built
    /// in order kept it); the others take the next numbers after the greatest kept, in order.
    #[test]
    fn matches_keep_their_remembered_numbers_and_newcomers_follow() {
        let remembered = [("c", 4), ("a", 9), ("b", 2), ("a", 7)];
        let labels = HashedPairs::from_pairs(remembered);
        let ids = ["new1", "a", "b", "aa", "c", "new2", ""];
        assert_eq!(number(ids.into_iter(), &labels), [8, 7, 2, 9, 4, 10, 11]);
        assert_eq!(number(["x"].into_iter(), &HashedPairs::default()), [1]);
    }

    /// One log's matches come out in line order, numbered from 1: a copy of an earlier match
    /// (same content) is counted once, with a note; an unfinished copy of a match read further
    /// (same id) is dropped; two finished matches of one id keep both, one renamed (the one with
    /// fewer events; of as many, the earlier).
    #[test]
    fn one_logs_history_is_ordered_without_copies() {
        let at = |line: u64, id: &str, content: u64, open: bool| Match {
            id: id.into(),
            content,
            line,
            open,
            ..crate::testdata::bare_match("ffa", &[("a", crate::model::Team::Free)])
        };
        let matches = vec![
            at(50, "b", 2, false),
            at(10, "a", 1, false),
            at(90, "a", 1, false),
            at(70, "c", 3, true),
            at(80, "c", 4, false),
            at(30, "b", 5, false),
        ];
        let mut report = FileReport::new("one.log");
        let history = history_of_one_log(matches, &mut report);
        let got: Vec<(u64, String, u32)> = (0..history.len())
            .map(|i| history.head(i))
            .map(|h| (h.line, h.id.to_string(), h.number))
            .collect();
        let want = [(10, "a", 1), (30, "b-2", 2), (50, "b", 3), (80, "c", 4)];
        let want: Vec<(u64, String, u32)> = (want.into_iter())
            .map(|(line, id, number)| (line, id.to_string(), number))
            .collect();
        assert_eq!(got, want);
        assert_eq!(history.at(1).id.as_ref(), "b-2");
        assert_eq!(report.notes.len(), 2, "{:?}", report.notes.keys());
    }
}
