//! Any bytes as a Quake 3 family log: the parser must never panic, and every match it returns
//! must be internally consistent (event player numbers inside the match, weapon indices valid).
#![no_main]

use fragstats::diagnostics::FileReport;
use fragstats::model::{EventKind, NO_PLAYER};
use fragstats::parse::{LogFormat, Source, detect, q3::Quake3};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = detect(data);
    let _ = Quake3.sniff(data);
    let source = Source { path: "fuzz.log".into(), file_index: 0 };
    let mut report = FileReport::new("fuzz.log");
    let mut input = data;
    let mut matches = Vec::new();
    Quake3.parse(&mut input, &source, &mut report, &mut |m| matches.push(m), None).unwrap();
    for m in &matches {
        assert!(m.players.iter().any(|p| p.active));
        for e in m.events.read().iter() {
            assert!((e.actor as usize) < m.players.len());
            assert!(e.target == NO_PLAYER || (e.target as usize) < m.players.len());
            if matches!(e.kind, EventKind::Frag | EventKind::Suicide | EventKind::TeamKill) {
                assert!(usize::from(e.detail) < m.weapons.len());
            }
        }
    }
});
