//! A history made as the logs are read, before the site's order of their matches is known:
//! each log's matches are packed as its reading ends ([`StagedLog`]), where they lie in the
//! log, and the history of them all is put in the site's order once every log is read
//! ([`History::reordered`]), keeping each block that the order leaves whole and in place and
//! packing the others' matches again (issue 41: every log's matches were held decoded until
//! every log was read, about 400 bytes a match, the peak of a long history's reading). Not the
//! order itself: the reading decides it from the heads ([`crate::read`]).

use std::path::PathBuf;

use rayon::prelude::*;

use super::{BLOCK_MATCHES, Block, History, Packed, Place, pack};
use crate::model::match_head::HeadTable;
use crate::model::{Events, Match};
use crate::scratch::Scratch;

/// A block the site's order keeps whole and in place is kept as it was packed when it holds at
/// least this many matches; a smaller one (a log of a few matches: a Half-Life server writes a
/// log a map) is packed again with its neighbours in the order, so that the history's blocks
/// stay full.
const KEPT_BLOCK_MATCHES: usize = BLOCK_MATCHES / 4;

/// One log's matches packed, in the log's order.
pub struct StagedLog {
    /// Its blocks, their heads' texts numbered in `head_texts` (their own tables left empty).
    packed: Vec<Packed>,
    /// The texts of all its heads: its blocks' tables merged as it is staged (a table a block
    /// held about 3 KB until every log was read, 3 MB of the reading's peak at 64,000 matches,
    /// issue 41).
    head_texts: HeadTable,
}

/// A match of a staged history as the site's order places it ([`History::reordered`]).
pub struct Pick {
    /// Its place in the staged history.
    pub from: usize,
    /// See [`Match::number`].
    pub number: u32,
    /// See [`Match::file_index`]: its source's place in the site's order of them.
    pub file_index: u32,
    /// Its new id, when a copy of another match's id is told apart; None: it keeps its own.
    pub id: Option<Box<str>>,
}

impl History {
    /// Packs `matches` (one log's, in order) into `scratch` (in memory without one, or where
    /// it cannot be written), its blocks on the thread pool; the matches' lists and events are
    /// taken, what is left of them only to be dropped.
    pub fn stage_log(matches: &mut [Match], scratch: Option<&Scratch>) -> StagedLog {
        let mut packed: Vec<Packed> = matches
            .par_chunks_mut(BLOCK_MATCHES)
            .map(|block| pack(block.iter_mut(), scratch))
            .collect();
        let mut head_texts = HeadTable::default();
        for p in &mut packed {
            head_texts.absorb(&std::mem::take(&mut p.head_texts), &mut p.heads);
        }
        StagedLog { packed, head_texts }
    }

    /// The scratch file a staged history's blocks go to: made in `dir` (the state folder).
    pub fn staging_file(dir: Option<PathBuf>) -> Option<Scratch> {
        dir.map(Scratch::new)
    }

    /// The history of the staged logs `logs`, one after the other, their blocks in `scratch`
    /// (the file they were staged into). Its matches have no number yet; read it for their
    /// heads, then put it in order with [`History::reordered`].
    pub fn staged(logs: Vec<StagedLog>, scratch: Option<Scratch>) -> History {
        let mut history = History::empty(scratch);
        history.reserve_for(logs.iter().flat_map(|log| &log.packed));
        for log in logs {
            history.append_log(log);
        }
        history
    }

    /// Adds the staged log `log`'s matches after its own.
    fn append_log(&mut self, log: StagedLog) {
        let renumbering = self.head_texts.renumbering(&log.head_texts);
        for p in log.packed {
            self.push_block(p, &renumbering);
        }
    }

    /// Packs `matches` after the staged history's matches (see [`History::stage_log`]).
    pub fn stage_more(&mut self, mut matches: Vec<Match>) {
        let staged = History::stage_log(&mut matches, self.scratch.as_ref());
        drop(matches);
        self.reserve_for(&staged.packed);
        self.append_log(staged);
    }

    /// How many events the `i`-th match holds.
    pub fn events_len(&self, i: usize) -> usize {
        self.events.len_of(i)
    }

    /// The history of the matches `picks` names, in that order, each with its pick's number,
    /// place among the sources and id. A block whose matches `picks` names all, one after the
    /// other in its order, is kept as it is (when it holds [`KEPT_BLOCK_MATCHES`] or more);
    /// the other picked matches are decoded and packed again, in order. Matches not picked are
    /// let go.
    pub fn reordered(mut self, picks: Vec<Pick>) -> History {
        let whole = self.whole_blocks(&picks);
        // Every match picked in its place, every block kept (undated logs, or one server's,
        // without copies): the history is numbered where it is, not made again beside itself
        // (issue 41: 8 MB of the reading's peak at 64,000 matches).
        let in_place = picks.len() == self.places.len()
            && picks.iter().enumerate().all(|(j, p)| p.from == j)
            && whole.iter().all(Option::is_some);
        if in_place {
            for (j, pick) in picks.into_iter().enumerate() {
                self.places[j].number = pick.number;
                let head = &mut self.heads.open()[j];
                head.set_file_index(pick.file_index);
                if let Some(id) = &pick.id {
                    head.rename(id, &mut self.head_texts);
                }
            }
            self.head_texts.seal();
            self.heads.pack();
            self.id = History::new_id();
            return self;
        }
        // The matches packed again, in order: their events taken out first (packed in blocks
        // on the thread pool, which reads this history).
        let again: Vec<(usize, Events)> = (picks.iter().enumerate())
            .filter(|(j, _)| whole[*j].is_none())
            .map(|(j, p)| (j, self.events.take(p.from)))
            .collect();
        let repacked: Vec<Packed> = again
            .into_par_iter()
            .chunks(BLOCK_MATCHES)
            .map(|chunk| {
                let mut matches: Vec<Match> = (chunk.into_iter())
                    .map(|(j, events)| {
                        let pick = &picks[j];
                        let mut m = self.decode_described(pick.from);
                        m.events = events;
                        m.number = pick.number;
                        m.file_index = pick.file_index;
                        if let Some(id) = &pick.id {
                            m.id = id.clone();
                        }
                        m
                    })
                    .collect();
                pack(matches.iter_mut(), self.scratch.as_ref())
            })
            .collect();
        let mut out = History::empty(self.scratch.take());
        out.places.reserve_exact(picks.len());
        out.events.reserve_exact(picks.len());
        out.heads.open().reserve_exact(picks.len());
        // The blocks packed again first, their matches then taken in order.
        let mut again = Vec::with_capacity(picks.len() - whole.iter().flatten().count());
        for mut p in repacked {
            let block = u32::try_from(out.blocks.len()).expect("fewer blocks than matches");
            out.head_texts.absorb(&p.head_texts, &mut p.heads);
            out.blocks.push(p.block);
            let places = p.places.into_iter().map(|place| Place { block, ..place });
            again.extend(places.zip(p.events).zip(p.heads));
        }
        let mut again = again.into_iter();
        let staged_texts = out.head_texts.renumbering(&self.head_texts);
        // Each kept block's number in the new history.
        let mut kept_as = vec![u32::MAX; self.blocks.len()];
        for (pick, whole) in picks.iter().zip(whole) {
            let Some(block) = whole else {
                let ((place, events), head) = again
                    .next()
                    .expect("a match packed again for each pick not in a kept block");
                out.places.push(place);
                out.events.push(events);
                out.heads.open().push(head);
                continue;
            };
            let b = block as usize;
            if kept_as[b] == u32::MAX {
                kept_as[b] = u32::try_from(out.blocks.len()).expect("fewer blocks than matches");
                let kept = std::mem::replace(&mut self.blocks[b], Block::Held(Box::default()));
                out.blocks.push(kept);
            }
            out.places.push(Place {
                block: kept_as[b],
                number: pick.number,
                ..self.places[pick.from]
            });
            out.events.push(self.events.take(pick.from));
            let mut head = self.heads.open()[pick.from].take();
            head.renumber(&staged_texts);
            head.set_file_index(pick.file_index);
            if let Some(id) = &pick.id {
                head.rename(id, &mut out.head_texts);
            }
            out.heads.open().push(head);
        }
        out.head_texts.seal();
        out.heads.pack();
        out
    }

    /// For each pick, the block it comes with whole ([`History::reordered`]), or None when its
    /// match is packed again.
    fn whole_blocks(&self, picks: &[Pick]) -> Vec<Option<u32>> {
        // Each block's first match and its length (a block's matches are side by side).
        let mut first = vec![usize::MAX; self.blocks.len()];
        let mut len = vec![0usize; self.blocks.len()];
        for (i, place) in self.places.iter().enumerate() {
            let b = place.block as usize;
            first[b] = first[b].min(i);
            len[b] += 1;
        }
        let mut whole = vec![None; picks.len()];
        let mut j = 0;
        while j < picks.len() {
            let from = picks[j].from;
            let block = self.places[from].block;
            let n = len[block as usize];
            let all_in_order = first[block as usize] == from
                && n >= KEPT_BLOCK_MATCHES
                && picks
                    .get(j..j + n)
                    .is_some_and(|run| run.iter().zip(from..).all(|(p, i)| p.from == i));
            if all_in_order {
                whole[j..j + n].fill(Some(block));
                j += n;
            } else {
                j += 1;
            }
        }
        whole
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Event, EventKind, Team};

    /// Log `log`'s `n` matches, each told apart by its line, map, id and a frag.
    fn log(log: u32, n: u32) -> Vec<Match> {
        (0..n)
            .map(|k| {
                let mut m = crate::testdata::bare_match(
                    "tdm",
                    &[("a", Team::Red), ("b", Team::Blue), ("c", Team::Red)],
                );
                m.id = format!("{log:08x}{k:08x}").into();
                m.content = u64::from(log) << 32 | u64::from(k);
                m.line = u64::from(k) * 10 + 1;
                m.file_index = log;
                m.source = format!("log{log}").into();
                m.map = format!("map{}", k % 5).into();
                m.server = format!("server {log} {k}").into();
                m.open = k + 1 == n;
                m.events.push(Event {
                    time: k,
                    line: m.line + 1,
                    kind: EventKind::Frag,
                    actor: 0,
                    target: 1,
                    detail: 0,
                });
                m
            })
            .collect()
    }

    /// Match `j` of `history` decodes as `expected`, and its head says the same.
    fn reads_back_as(history: &History, j: usize, expected: &Match) {
        assert_eq!(*history.at(j), *expected, "match {j}");
        let head = history.head(j);
        assert_eq!(
            (head.id.as_str(), head.number, head.file_index, head.open),
            (
                expected.id.as_ref(),
                expected.number,
                expected.file_index,
                expected.open
            )
        );
        assert_eq!((head.server, head.map), (&expected.server, &expected.map));
    }

    /// Picks in an order that keeps the first log's first block whole and in place, and the
    /// third log's second block, but not its first (one of its matches left out); the tiny
    /// second log's matches and the first log's last block's are interleaved. One pick is
    /// renamed. Every picked match reads back as it was, with its pick's number, rank and id,
    /// from the scratch file and from memory alike, and only the blocks kept whole are kept.
    #[test]
    fn reordered_matches_read_back_as_picked_and_whole_blocks_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let sizes = [100usize, 5, 130];
        let want: Vec<Vec<Match>> = (0..3).map(|l| log(l, sizes[l as usize] as u32)).collect();
        // Staged history's places of each log's first match.
        let (a, b, c) = (0usize, 100usize, 105usize);
        let mut order: Vec<usize> = (a..a + 64).collect();
        for k in 0..36 {
            order.push(a + 64 + k);
            if k < 5 {
                order.push(b + k);
            }
        }
        order.extend((c..c + 64).filter(|&i| i != c + 7));
        order.extend(c + 64..c + 128);
        order.extend([c + 129, c + 128]);
        for store in [Some(dir.path().to_path_buf()), None] {
            let scratch = History::staging_file(store);
            let logs: Vec<StagedLog> = (want.iter())
                .map(|w| History::stage_log(&mut w.clone(), scratch.as_ref()))
                .collect();
            let staged_sizes: Vec<usize> = (logs.iter())
                .map(|log| log.packed.iter().map(|p| p.places.len()).sum())
                .collect();
            assert_eq!(staged_sizes, sizes);
            let staged = History::staged(logs, scratch);
            assert_eq!(staged.head(c + 3).id, want[2][3].id.as_ref());
            assert!(staged.head(b + 4).open && !staged.head(b + 3).open);
            assert_eq!(staged.events_len(a + 9), 1);
            let all: Vec<&Match> = want.iter().flatten().collect();
            let picks: Vec<Pick> = (order.iter().enumerate())
                .map(|(j, &from)| Pick {
                    from,
                    number: 1000 + j as u32,
                    file_index: 7 - all[from].file_index,
                    id: (from == b + 2).then(|| "renamed-2".into()),
                })
                .collect();
            let whole = staged.whole_blocks(&picks);
            let kept: std::collections::BTreeSet<u32> = whole.iter().flatten().copied().collect();
            // The first log's first block, and the third log's second one: not the first
            // log's last (interleaved), the tiny log's, nor the third log's first (a match
            // left out) or last (its two matches swapped).
            assert_eq!(kept.len(), 2);
            assert_eq!(whole.iter().flatten().count(), 128);
            let history = staged.reordered(picks);
            assert_eq!(history.len(), order.len());
            for (j, &from) in order.iter().enumerate() {
                let mut expected = all[from].clone();
                expected.number = 1000 + j as u32;
                expected.file_index = 7 - expected.file_index;
                if from == b + 2 {
                    expected.id = "renamed-2".into();
                }
                reads_back_as(&history, j, &expected);
            }
        }
    }

    /// Every match picked in its place, every block kept whole (two logs of 80 and 40
    /// matches: blocks of 64, 16 and 40): the history is numbered where it is, blocks and all, and reads back as the
    /// picks say, a renamed one too, from the scratch file and from memory alike.
    #[test]
    fn matches_picked_in_their_places_are_numbered_where_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let want: Vec<Match> = log(0, 80).into_iter().chain(log(1, 40)).collect();
        for store in [Some(dir.path().to_path_buf()), None] {
            let scratch = History::staging_file(store);
            let logs = vec![
                History::stage_log(&mut want[..80].to_vec(), scratch.as_ref()),
                History::stage_log(&mut want[80..].to_vec(), scratch.as_ref()),
            ];
            let staged = History::staged(logs, scratch);
            let (blocks, id) = (staged.blocks.len(), staged.id);
            let places = staged.places.as_ptr();
            let picks = (0..want.len())
                .map(|from| Pick {
                    from,
                    number: 500 - from as u32,
                    file_index: 3 + want[from].file_index,
                    id: (from == 81).then(|| "renamed-81".into()),
                })
                .collect();
            let history = staged.reordered(picks);
            assert_eq!(
                (blocks, history.blocks.len(), history.len()),
                (3, 3, want.len())
            );
            assert_ne!(history.id, id, "a new history to the caches of blocks read");
            assert_eq!(
                history.places.as_ptr(),
                places,
                "the places are where they were"
            );
            for (j, m) in want.iter().enumerate() {
                let mut expected = m.clone();
                expected.number = 500 - j as u32;
                expected.file_index += 3;
                if j == 81 {
                    expected.id = "renamed-81".into();
                }
                reads_back_as(&history, j, &expected);
            }
        }
    }

    /// An archive's matches staged after the logs' read back after them.
    #[test]
    fn matches_staged_more_follow_the_logs() {
        let mut first = log(0, 3);
        let mut staged = History::staged(vec![History::stage_log(&mut first, None)], None);
        staged.stage_more(log(1, 2));
        assert_eq!(staged.len(), 5);
        let picks = (0..5)
            .rev()
            .map(|from| Pick {
                from,
                number: from as u32 + 1,
                file_index: 0,
                id: None,
            })
            .collect();
        let history = staged.reordered(picks);
        let ids: Vec<String> = (0..5).map(|i| history.at(i).id.to_string()).collect();
        assert_eq!(
            ids,
            [
                "0000000100000001",
                "0000000100000000",
                "0000000000000002",
                "0000000000000001",
                "0000000000000000"
            ]
        );
    }
}
