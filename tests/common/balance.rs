//! A lobby for the balancer written both ways (as `fragstats balance` flags and as
//! `balance.html`'s address), and the comparison of the page's splits with the command's.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// A query value as `encodeURIComponent` writes it.
pub fn uri_component(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// A lobby with hard rules and the teams as they are, written both ways: as `fragstats balance`
/// flags and as `balance.html`'s query.
#[derive(Default, Clone)]
pub struct Case {
    pub names: Vec<String>,
    pub lock: Vec<(String, &'static str)>,
    pub together: Vec<Vec<String>>,
    pub apart: Vec<[String; 2]>,
    pub from: Vec<(String, &'static str)>,
    pub max_swaps: Option<usize>,
}

impl Case {
    pub fn of(names: &[String]) -> Case {
        Case {
            names: names.to_vec(),
            ..Case::default()
        }
    }

    pub fn flags(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (name, side) in &self.lock {
            out.extend(["--lock".to_string(), format!("{name}={side}")]);
        }
        for group in &self.together {
            out.extend(["--together".to_string(), group.join(",")]);
        }
        for [a, b] in &self.apart {
            out.extend(["--apart".to_string(), format!("{a},{b}")]);
        }
        if !self.from.is_empty() {
            let side = |s: &str| -> Vec<&str> {
                self.from
                    .iter()
                    .filter(|(_, x)| *x == s)
                    .map(|(n, _)| n.as_str())
                    .collect()
            };
            out.extend([
                "--from".to_string(),
                format!(
                    "red: {}; blue: {}",
                    side("red").join(", "),
                    side("blue").join(", ")
                ),
            ]);
        }
        if let Some(n) = self.max_swaps {
            out.extend(["--max-swaps".to_string(), n.to_string()]);
        }
        out
    }

    pub fn query(&self) -> String {
        let enc = |list: &[String]| list.iter().map(|n| uri_component(n)).collect::<Vec<_>>();
        let sides = |list: &[(String, &str)]| {
            list.iter()
                .map(|(n, s)| format!("{}:{s}", uri_component(n)))
                .collect::<Vec<_>>()
                .join(",")
        };
        let mut q = format!("?players={}", enc(&self.names).join(","));
        if !self.lock.is_empty() {
            q += &format!("&lock={}", sides(&self.lock));
        }
        if !self.together.is_empty() {
            let groups: Vec<String> = self.together.iter().map(|g| enc(g).join("+")).collect();
            q += &format!("&together={}", groups.join(";"));
        }
        if !self.apart.is_empty() {
            let groups: Vec<String> = self.apart.iter().map(|g| enc(g).join("+")).collect();
            q += &format!("&apart={}", groups.join(";"));
        }
        if !self.from.is_empty() {
            q += &format!("&from={}", sides(&self.from));
        }
        if let Some(n) = self.max_swaps {
            q += &format!("&swaps={n}");
        }
        q
    }
}

/// The splits the page lists, in its order, from the CLI's JSON: the proposal, its
/// alternatives, ABBA and the random split (from the same seed, a hash of the names).
pub fn cli_splits(cli: &Value) -> Vec<Value> {
    let mut expected = vec![cli.clone()];
    expected.extend(cli["alternatives"].as_array().unwrap().iter().cloned());
    expected.push(cli["abba"].clone());
    expected.push(cli["random"].clone());
    expected
}

/// The names of a split, as sets with p.
pub fn split_of(value: &Value) -> (Vec<String>, Vec<String>, f64) {
    let side = |key: &str| {
        let mut names: Vec<String> = serde_json::from_value(value[key].clone()).unwrap();
        names.sort();
        names
    };
    (
        side("red"),
        side("blue"),
        value["p_red_wins"].as_f64().unwrap(),
    )
}

/// The page's split and the CLI's have the same sides (as sets) and the same p (within 1e-9).
pub fn same_split(what: &str, page: &Value, cli: &Value) {
    let (pr, pb, pp) = split_of(page);
    let (cr, cb, cp) = split_of(cli);
    assert_eq!((&pr, &pb), (&cr, &cb), "{what}: page {pp}, cli {cp}");
    assert!((pp - cp).abs() < 1e-9, "{what}: page {pp}, cli {cp}");
}

/// `fragstats balance --json` in `cwd` on the site `site` for `case`, with `more` flags: its
/// JSON, or its one-line error.
pub fn command(cwd: &Path, site: &Path, case: &Case, more: &[&str]) -> Result<Value, String> {
    let o = Command::new(env!("CARGO_BIN_EXE_fragstats"))
        .current_dir(cwd)
        .args(["balance", "--out", site.to_str().unwrap(), "--json"])
        .args(more)
        .args(case.flags())
        .args(&case.names)
        .output()
        .unwrap();
    if o.status.success() {
        Ok(serde_json::from_slice(&o.stdout).unwrap())
    } else {
        let err = String::from_utf8_lossy(&o.stderr).trim().to_string();
        Err(err.strip_prefix("error: ").unwrap_or(&err).to_string())
    }
}
