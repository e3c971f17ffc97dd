//! Parse-speed benchmark (not a test): `cargo bench --bench parse`.
//!
//! Parses a synthetic Quake 3 log (`../shared/bench/gen_q3log.py 3000 3`) and a synthetic
//! Half-Life log (`benches/gen_hllog.py 400 3`), both generated into `target/` on first run, and
//! prints each parser's lines per second on one core (best of 5 runs, the file read into memory
//! first), and their ratio. Issue 16's target: the Half-Life parser within 2x of the Quake 3 one.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use fragstats::diagnostics::FileReport;
use fragstats::parse::{LogFormat, Source, hl::HalfLife, q3::Quake3};

fn generated(root: &Path, script: &Path, args: &[&str], name: &str) -> PathBuf {
    let path = root.join("target").join(name);
    if !path.exists() {
        let out = Command::new("python3")
            .arg(script)
            .args(args)
            .output()
            .expect("python3 runs the generator");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::write(&path, out.stdout).expect("target/ is writable");
    }
    path
}

/// Best lines per second of `format` over 5 parses of `bytes`, and the matches found.
fn lines_per_second(format: &dyn LogFormat, bytes: &[u8]) -> (f64, usize, u64) {
    let source = Source {
        path: "bench.log".into(),
        file_index: 0,
    };
    let mut best = f64::MAX;
    let (mut matches, mut lines) = (0, 0);
    for _ in 0..5 {
        let mut report = FileReport::new("bench.log");
        let mut input = bytes;
        let mut n = 0;
        let t = Instant::now();
        format
            .parse(&mut input, &source, &mut report, &mut |_| n += 1, None)
            .expect("in-memory input");
        best = best.min(t.elapsed().as_secs_f64());
        matches = n;
        lines = report.lines;
    }
    (lines as f64 / best, matches, lines)
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let q3 = generated(
        root,
        &root.join("../shared/bench/gen_q3log.py"),
        &["3000", "3"],
        "bench-q3-3000-3.log",
    );
    let hl = generated(
        root,
        &root.join("benches/gen_hllog.py"),
        &["400", "3"],
        "bench-hl-400-3.log",
    );
    let q3_bytes = std::fs::read(&q3).expect("q3 log");
    let hl_bytes = std::fs::read(&hl).expect("hl log");
    let (q3_rate, q3_matches, q3_lines) = lines_per_second(&Quake3, &q3_bytes);
    let (hl_rate, hl_matches, hl_lines) = lines_per_second(&HalfLife, &hl_bytes);
    println!(
        "quake3:   {q3_lines} lines, {} MB, {q3_matches} matches: {:.0} lines/s",
        q3_bytes.len() / 1_000_000,
        q3_rate
    );
    println!(
        "halflife: {hl_lines} lines, {} MB, {hl_matches} matches: {:.0} lines/s",
        hl_bytes.len() / 1_000_000,
        hl_rate
    );
    println!(
        "Q3 / HL lines per second: {:.2} (target: at most 2)",
        q3_rate / hl_rate
    );
}
