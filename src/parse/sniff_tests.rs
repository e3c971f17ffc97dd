//! Sniffing every real log in `../shared/data`: each keeps the format of its folder (Quake 3
//! family, Call of Duty, Enemy Territory, Half-Life), whatever order the formats are tried in.

use std::path::Path;

use super::{Detected, SNIFF_BYTES, detect};

/// The format a file's folder holds: `public/<folder>`, or the OpenArena bot logs.
fn expected(path: &Path, data: &Path) -> &'static str {
    let rel = path.strip_prefix(data).unwrap();
    let mut parts = rel.iter().map(|p| p.to_str().unwrap());
    match (parts.next(), parts.next()) {
        (Some("openarena"), _) => "quake3",
        (Some("public"), Some("q3" | "urt" | "openarena")) => "quake3",
        (Some("public"), Some("cod")) => "callofduty",
        (Some("public"), Some("et")) => "enemyterritory",
        (Some("public"), Some(hl)) if hl.starts_with("hl-") => "halflife",
        _ => panic!("no expected format for {}", rel.display()),
    }
}

#[test]
fn every_shared_log_keeps_its_format() {
    let Some(data) = crate::testdata::shared("data") else {
        return;
    };
    let files = crate::testdata::log_files(&data);
    assert!(files.len() >= 30, "{} logs", files.len());
    let mut per_format = std::collections::BTreeMap::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let head = &bytes[..bytes.len().min(SNIFF_BYTES)];
        let want = expected(f, &data);
        let got = match detect(head) {
            Detected::Parser(p) => p.name(),
            Detected::Unsupported(why) | Detected::Unknown(why) => why,
        };
        assert_eq!(got, want, "{}", f.display());
        *per_format.entry(want).or_insert(0) += 1;
    }
    // Every format is exercised.
    assert_eq!(per_format.len(), 4, "{per_format:?}");
}
