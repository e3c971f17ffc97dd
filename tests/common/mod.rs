//! Helpers shared by the integration tests: where the real logs are, and running the real binary.

#![allow(dead_code)] // each test binary uses its own subset

pub mod balance;
pub mod crowd;
pub mod games;
#[path = "../../src/testdata/needs.rs"]
mod needs;

#[allow(unused_imports)] // `skipped` is for the browser test
pub use needs::{openarena, skipped};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `../shared/data`, the real logs (a test that reads them asks [`has_shared_data`] first).
pub fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data")
}

/// Whether `../shared/data` is there; when not, the calling test says it did not run (a
/// failure under `FRAGSTATS_REQUIRE_ALL`) and returns.
pub fn has_shared_data() -> bool {
    needs::shared("data/public").is_some()
}

/// The bytes of a log: `openarena/...` from the repository's copy, else under `../shared/data`.
pub fn shared_log(rel: &str) -> Vec<u8> {
    match rel.strip_prefix("openarena/") {
        Some(sub) => std::fs::read(openarena(sub)).unwrap(),
        None => std::fs::read(shared().join(rel)).unwrap(),
    }
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

/// Builds `logs` (absolute paths) with `config` (TOML lines) into `<tmp>/<name>/public`, from a
/// site folder of its own (`build --full`); returns the output folder.
pub fn build_in(tmp: &Path, name: &str, logs: &[PathBuf], config: &str) -> PathBuf {
    let dir = tmp.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let list: Vec<String> = logs
        .iter()
        .map(|p| format!("{:?}", p.display().to_string()))
        .collect();
    let toml = format!("logs = [{}]\n{config}", list.join(", "));
    std::fs::write(dir.join("site.toml"), toml).unwrap();
    let o = fragstats(&["build", "--full"], &dir);
    assert!(o.status.success(), "{}", stderr(&o));
    dir.join("public")
}

/// The JSON array in `out/<file>`.
pub fn json_array(out: &Path, file: &str) -> Vec<serde_json::Value> {
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join(file)).unwrap()).unwrap();
    v.as_array().unwrap().clone()
}

/// What a `data/balance.js` script holds, read as `fragstats balance` reads it.
pub fn balance_data(script: &str) -> fragstats::team::balance::data::BalanceData {
    fragstats::team::balance::data::BalanceData::from_script(script)
        .expect("data/balance.js reads back")
}

/// Every file under `dir` (or `dir` itself when it is a file), sorted by path.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    if dir.is_file() {
        return vec![dir.to_path_buf()];
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    entries.iter().flat_map(|e| walk(e)).collect()
}

/// Every file under `dir` with its bytes, by path relative to `dir` ('/'-separated).
pub fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walk(dir)
        .into_iter()
        .map(|f| {
            let rel = f
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read(&f).unwrap())
        })
        .collect()
}
