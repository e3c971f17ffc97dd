//! Helpers shared by the parsers' unit tests: running a parser over bytes and reading what it
//! made.

use super::{LogFormat, Source};
use crate::diagnostics::FileReport;
use crate::model::{EventKind, Match};

/// Every match `format` emits for `bytes` (read as the file `path`), and the file's report.
pub fn parse_with(format: &dyn LogFormat, path: &str, bytes: &[u8]) -> (Vec<Match>, FileReport) {
    let source = Source {
        path: path.into(),
        file_index: 0,
    };
    let mut report = FileReport::new(path);
    let mut out = Vec::new();
    let mut input = bytes;
    format
        .parse(&mut input, &source, &mut report, &mut |m| out.push(m), None)
        .unwrap();
    (out, report)
}

/// A kill as the tests write it: (kind, killer's plain name, victim's plain name, weapon).
pub type Kill = (EventKind, String, String, String);

/// The kills (frags, suicides, team kills) of a match, in order.
pub fn kills(m: &Match) -> Vec<Kill> {
    let name = |i: u32| {
        m.players
            .get(i as usize)
            .map_or(String::new(), |p| p.plain.to_string())
    };
    m.events
        .read()
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::Frag | EventKind::Suicide | EventKind::TeamKill
            )
        })
        .map(|e| {
            (
                e.kind,
                name(e.actor),
                name(e.target),
                m.weapons[usize::from(e.detail)].to_string(),
            )
        })
        .collect()
}

/// A [`Kill`] from string slices.
pub fn k(kind: EventKind, killer: &str, victim: &str, weapon: &str) -> Kill {
    (kind, killer.into(), victim.into(), weapon.into())
}
