//! Parse-speed benchmark (not a test): `cargo bench --bench parse`.
//!
//! Parses a synthetic Quake 3 log (`../shared/bench/gen_q3log.py 3000 3`) and three synthetic
//! Half-Life logs (`benches/gen_hllog.py 400 3 GAMES`: CS:GO and TF2 maps alternating, CS:GO
//! only, TF2 only), all generated into `target/` on first run, and prints each parser's lines per
//! second on one core (best of 7 runs, the inputs taken in turn, each file read into memory
//! first), and the ratio of Quake 3's rate to each Half-Life input's. Issue 16's target: the
//! Half-Life parser within 2x of the Quake 3 one. `cargo bench --bench parse -- halflife` parses
//! only the Half-Life inputs (to profile).

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

/// One input: its parser, bytes and the best run so far.
struct Input {
    label: String,
    format: &'static dyn LogFormat,
    bytes: Vec<u8>,
    best: f64,
    matches: usize,
    lines: u64,
}

impl Input {
    /// Parses the input once, keeping the best time.
    fn run(&mut self) {
        let source = Source {
            path: "bench.log".into(),
            file_index: 0,
        };
        let mut report = FileReport::new("bench.log");
        let mut input = &self.bytes[..];
        let mut n = 0;
        let t = Instant::now();
        self.format
            .parse(&mut input, &source, &mut report, &mut |_| n += 1, None)
            .expect("in-memory input");
        self.best = self.best.min(t.elapsed().as_secs_f64());
        self.matches = n;
        self.lines = report.lines;
    }

    fn rate(&self) -> f64 {
        self.lines as f64 / self.best
    }
}

/// Parses per input, taken in turn so a burst of load on the machine hits them alike.
const ROUNDS: usize = 7;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // `cargo bench` passes `--bench`; a word picks one parser.
    let only: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let runs = |name: &str| only.as_deref().is_none_or(|o| o == name);
    let mut inputs = Vec::new();
    let input = |label: &str, format: &'static dyn LogFormat, path: PathBuf| Input {
        label: label.to_string(),
        format,
        bytes: std::fs::read(&path).expect("generated log"),
        best: f64::MAX,
        matches: 0,
        lines: 0,
    };
    if runs("quake3") {
        let q3 = generated(
            root,
            &root.join("../shared/bench/gen_q3log.py"),
            &["3000", "3"],
            "bench-q3-3000-3.log",
        );
        inputs.push(input("quake3", &Quake3, q3));
    }
    if runs("halflife") {
        for games in ["mixed", "cs", "tf"] {
            // The mixed log keeps the name it had before the inputs were split by game.
            let name = match games {
                "mixed" => "bench-hl-400-3.log".to_string(),
                g => format!("bench-hl-400-3-{g}.log"),
            };
            let hl = generated(
                root,
                &root.join("benches/gen_hllog.py"),
                &["400", "3", games],
                &name,
            );
            inputs.push(input(&format!("halflife {games}"), &HalfLife, hl));
        }
    }
    for _ in 0..ROUNDS {
        for i in &mut inputs {
            i.run();
        }
    }
    let q3_rate = inputs.iter().find(|i| i.label == "quake3").map(Input::rate);
    for i in &inputs {
        print!(
            "{:15}: {} lines, {} MB, {} matches: {:.0} lines/s",
            i.label,
            i.lines,
            i.bytes.len() / 1_000_000,
            i.matches,
            i.rate()
        );
        match q3_rate {
            Some(q3) if i.label != "quake3" => {
                println!("; Q3 / HL {:.2} (target: at most 2)", q3 / i.rate())
            }
            _ => println!(),
        }
    }
}
