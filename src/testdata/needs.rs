//! Where a test's logs come from, and the loud skip of a test whose data is not there. One file
//! for the unit tests (`crate::testdata`) and the integration tests (`tests/common`, by path).
//!
//! The OpenArena bot logs made for this project are kept in the repository
//! (`tests/fixtures/openarena`), so a fresh clone tests on them; the real logs of strangers
//! (`../shared/data/public`) and the reference values (`../shared/reference`) are not, and a test
//! that needs them says on stderr that it did not run: `SKIPPED: <test> needs <what>`. With
//! `FRAGSTATS_REQUIRE_ALL=1` (`.ci/run` sets it) a test that cannot run fails instead.

#![allow(dead_code)] // each test binary uses its own subset

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The (test, what) pairs said already: a property test's cases say it once.
static SAID: Mutex<BTreeSet<(String, String)>> = Mutex::new(BTreeSet::new());

/// `tests/fixtures/openarena/<rel>` (`""`: the folder), the project's own bot logs.
pub fn openarena(rel: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/openarena");
    if rel.is_empty() { dir } else { dir.join(rel) }
}

/// `../shared/<rel>` when it is there; None otherwise, after [`skipped`] said so.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel);
    if path.exists() {
        Some(path)
    } else {
        skipped(&format!("../shared/{rel}"));
        None
    }
}

/// Says that the running test (its thread's name) did not run, or did not run whole, for want
/// of `what`; panics instead when `FRAGSTATS_REQUIRE_ALL` is set (to anything but `0`).
pub fn skipped(what: &str) {
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let required = std::env::var_os("FRAGSTATS_REQUIRE_ALL").is_some_and(|v| v != "0");
    assert!(
        !required,
        "{test} needs {what}, and FRAGSTATS_REQUIRE_ALL is set"
    );
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    if !said.insert((test.clone(), what.to_string())) {
        return;
    }
    // To the process's stderr itself: the test harness keeps what `eprintln!` prints in a test
    // that passes.
    let _ = writeln!(std::io::stderr(), "SKIPPED: {test} needs {what}");
}
