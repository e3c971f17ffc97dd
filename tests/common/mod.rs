//! Helpers shared by the integration tests: where the real logs are, and running the real binary.

#![allow(dead_code)] // each test binary uses its own subset

pub mod games;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `../shared/data`, the real logs.
pub fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data")
}

/// The bytes of a log under `../shared/data`.
pub fn shared_log(rel: &str) -> Vec<u8> {
    std::fs::read(shared().join(rel)).unwrap()
}

/// Runs the `fragstats` binary with `args` in `cwd`.
pub fn fragstats(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fragstats"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run fragstats")
}

/// A run's stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
