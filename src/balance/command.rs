//! `fragstats balance`: reads the last build's `data/balance.js`, resolves the names, applies the
//! rules and prints the proposal as text, chat lines, server commands or one JSON object.

use std::fmt::Write as _;

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};

use super::data::{BalanceData, NameIndex, Resolved};
use super::random::{random_split, seed_of};
use super::{Candidate, Rules, Side, Split, balance, p_red, swaps};
use crate::build::{BuildRequest, Plan};
use crate::cli::{BalanceArgs, BalanceFormat};

/// The lobby: candidates, and the names never seen.
struct Lobby {
    index: NameIndex,
    candidates: Vec<Candidate>,
    unknown: Vec<String>,
}

impl Lobby {
    /// Index of the player `query` means, adding them if not present yet.
    fn add(&mut self, data: &BalanceData, query: &str) -> Result<usize> {
        let (name, skill, new) = match data.resolve(&self.index, query).map_err(|e| anyhow!(e))? {
            Resolved::Known(i) => (data.players[i].name.clone(), data.skill(i), false),
            Resolved::New(name) => (name, data.params.newcomer, true),
        };
        if let Some(at) = self.candidates.iter().position(|c| c.name == name) {
            return Ok(at);
        }
        if new {
            self.unknown.push(name.clone());
        }
        self.candidates.push(Candidate { name, skill });
        Ok(self.candidates.len() - 1)
    }
}

/// Splits "A, B" (or "A,B") into names.
fn names(list: &str) -> impl Iterator<Item = &str> {
    list.split(',').map(str::trim).filter(|n| !n.is_empty())
}

/// Parses `--from "red: A, B; blue: C, D"`.
fn parse_from(text: &str) -> Result<(Vec<&str>, Vec<&str>)> {
    let (mut red, mut blue) = (None, None);
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (side, list) = part
            .split_once(':')
            .ok_or_else(|| anyhow!("--from: write the teams as \"red: A, B; blue: C, D\""))?;
        match side.trim().to_lowercase().as_str() {
            "red" => red = Some(names(list).collect::<Vec<_>>()),
            "blue" => blue = Some(names(list).collect::<Vec<_>>()),
            other => bail!("--from: unknown side {other:?} (red or blue)"),
        }
    }
    match (red, blue) {
        (Some(r), Some(b)) if !r.is_empty() && !b.is_empty() => Ok((r, b)),
        _ => bail!("--from: give both teams, \"red: A, B; blue: C, D\""),
    }
}

/// Reads the balance data of the build the arguments point at.
fn load(args: &BalanceArgs) -> Result<BalanceData> {
    let plan = Plan::new(&BuildRequest {
        config: args.config.clone(),
        out: args.out.clone(),
        ..Default::default()
    })?;
    let path = plan.out.join("data/balance.js");
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "cannot read {} (run `fragstats build` first: the balancer uses the ratings of the last build)",
            path.display()
        )
    })?;
    BalanceData::from_script(&text).map_err(|e| {
        anyhow!(
            "{}: {e} (run `fragstats build` again to rewrite it)",
            path.display()
        )
    })
}

/// Runs the command; returns what to print.
pub fn run(args: &BalanceArgs) -> Result<String> {
    let data = load(args)?;
    let mut lobby = Lobby {
        index: data.index(),
        candidates: Vec::new(),
        unknown: Vec::new(),
    };
    let from = match &args.from {
        Some(text) => {
            let (red, blue) = parse_from(text)?;
            let red = red
                .iter()
                .map(|n| lobby.add(&data, n))
                .collect::<Result<Vec<_>>>()?;
            let blue = blue
                .iter()
                .map(|n| lobby.add(&data, n))
                .collect::<Result<Vec<_>>>()?;
            if red.iter().any(|r| blue.contains(r)) {
                bail!("--from: a player is on both teams");
            }
            Some((red, blue))
        }
        None => None,
    };
    for name in &args.names {
        lobby.add(&data, name)?;
    }
    if let Some((red, blue)) = &from
        && red.len() + blue.len() != lobby.candidates.len()
    {
        bail!("with --from, every player is in the teams given: list no other NAME");
    }
    let mut rules = Rules::default();
    for lock in &args.lock {
        let (name, side) = lock
            .rsplit_once('=')
            .ok_or_else(|| anyhow!("--lock {lock:?}: write NAME=red or NAME=blue"))?;
        let side = match side.trim().to_lowercase().as_str() {
            "red" => Side::Red,
            "blue" => Side::Blue,
            other => bail!("--lock {lock:?}: unknown side {other:?} (red or blue)"),
        };
        rules.lock.push((lobby.add(&data, name)?, side));
    }
    for list in &args.together {
        let ids = names(list)
            .map(|n| lobby.add(&data, n))
            .collect::<Result<Vec<_>>>()?;
        if ids.len() < 2 {
            bail!("--together {list:?}: name at least two players, A,B");
        }
        rules.together.extend(ids.windows(2).map(|w| (w[0], w[1])));
    }
    for list in &args.apart {
        let ids = names(list)
            .map(|n| lobby.add(&data, n))
            .collect::<Result<Vec<_>>>()?;
        if ids.len() != 2 {
            bail!("--apart {list:?}: name two players, A,B");
        }
        rules.apart.push((ids[0], ids[1]));
    }
    if let Some((red, blue)) = &from
        && lobby.candidates.len() != red.len() + blue.len()
    {
        bail!("with --from, the rules may name only players of the teams given");
    }
    let c = &lobby.candidates;
    let proposal = balance(c, &data.params, &rules, 3).map_err(|e| anyhow!(e))?;
    let random = random_split(
        c,
        &data.params,
        &rules,
        args.seed.unwrap_or_else(|| seed_of(c)),
    );
    let swap_list = from.as_ref().map(|(red, blue)| {
        (
            swaps(c, &data.params, &rules, red, blue, args.max_swaps),
            Split {
                red: red.clone(),
                blue: blue.clone(),
                p_red: p_red(c, &data.params, red, blue),
            },
        )
    });
    let split_json = |s: &Split| {
        let side = |ids: &[usize]| ids.iter().map(|&i| c[i].name.clone()).collect::<Vec<_>>();
        json!({"red": side(&s.red), "blue": side(&s.blue), "p_red_wins": s.p_red})
    };
    if args.json {
        let mut out = split_json(&proposal.best);
        out["exact"] = json!(proposal.exact);
        out["alternatives"] = Value::Array(proposal.alternatives.iter().map(split_json).collect());
        out["abba"] = split_json(&proposal.abba);
        out["random"] = split_json(&random.split);
        out["random"]["seed"] = json!(random.seed);
        out["random"]["rules_kept"] = json!(random.rules_kept);
        out["random"]["expected_margin"] = json!(data.params.expected_margin(random.split.p_red));
        out["unknown"] = json!(lobby.unknown);
        out["expected_margin"] = json!(data.params.expected_margin(proposal.best.p_red));
        if let Some((list, current)) = &swap_list {
            out["current"] = split_json(current);
            out["current"]["expected_margin"] = json!(data.params.expected_margin(current.p_red));
            out["swaps"] = Value::Array(
                list.iter()
                    .map(|s| {
                        json!({"to_blue": c[s.to_blue].name, "to_red": c[s.to_red].name, "p_red_wins": s.p_red})
                    })
                    .collect(),
            );
        }
        return Ok(format!("{out:#}\n"));
    }
    let team = |ids: &[usize]| -> String {
        ids.iter()
            .map(|&i| c[i].name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let pct = |p: f64| format!("{:.0}%", p * 100.0);
    let mut out = String::new();
    match args.format {
        BalanceFormat::Text => {
            if let Some((list, current)) = &swap_list {
                let _ = writeln!(
                    out,
                    "now:  red {} | blue {}  P(red wins) = {}",
                    team(&current.red),
                    team(&current.blue),
                    pct(current.p_red)
                );
                if list.is_empty() {
                    let _ = writeln!(
                        out,
                        "no swap gains {} points or more: keep the teams",
                        super::MIN_GAIN * 100.0
                    );
                }
                for s in list {
                    let _ = writeln!(
                        out,
                        "swap: {} to blue, {} to red  -> P(red wins) = {}",
                        c[s.to_blue].name,
                        c[s.to_red].name,
                        pct(s.p_red)
                    );
                }
            }
            let _ = writeln!(
                out,
                "red:  {}\nblue: {}\nP(red wins) = {} ({})",
                team(&proposal.best.red),
                team(&proposal.best.blue),
                pct(proposal.best.p_red),
                if proposal.exact {
                    "best of every split"
                } else {
                    "local search, not proven best"
                }
            );
            for (k, a) in proposal.alternatives.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "alternative {}: red {} | blue {}  P(red wins) = {}",
                    k + 1,
                    team(&a.red),
                    team(&a.blue),
                    pct(a.p_red)
                );
            }
            let _ = writeln!(
                out,
                "snake (ABBA): red {} | blue {}  P(red wins) = {}",
                team(&proposal.abba.red),
                team(&proposal.abba.blue),
                pct(proposal.abba.p_red)
            );
            let _ = writeln!(
                out,
                "random (seed {}): red {} | blue {}  P(red wins) = {}{}",
                random.seed,
                team(&random.split.red),
                team(&random.split.blue),
                pct(random.split.p_red),
                if random.rules_kept {
                    ""
                } else {
                    "  (breaks the together/apart rules: no random draw kept them)"
                }
            );
            if !lobby.unknown.is_empty() {
                let _ = writeln!(
                    out,
                    "new (never seen, rated as a typical newcomer): {}",
                    lobby.unknown.join(", ")
                );
            }
        }
        BalanceFormat::Say => {
            let _ = writeln!(out, "say \"Red: {}\"", chat(&team(&proposal.best.red)));
            let _ = writeln!(out, "say \"Blue: {}\"", chat(&team(&proposal.best.blue)));
            let _ = writeln!(out, "say \"P(red wins) = {}\"", pct(proposal.best.p_red));
        }
        BalanceFormat::Rcon => {
            for (ids, side) in [(&proposal.best.red, "red"), (&proposal.best.blue, "blue")] {
                for &i in ids {
                    let _ = writeln!(out, "forceteam \"{}\" {side}", chat(&c[i].name));
                }
            }
        }
    }
    if args.explain {
        let _ = writeln!(
            out,
            "why: the team model (data/evaluation.json, team_model) predicts P(red wins) from each side's mean skill, the team sizes and the red side's bias; the split closest to 50% is proposed."
        );
        let margin = |p: f64| format!("{:+.1}", data.params.expected_margin(p));
        let _ = writeln!(
            out,
            "proposed: P(red wins) = {:.1}%, expected margin (red - blue) {}",
            proposal.best.p_red * 100.0,
            margin(proposal.best.p_red)
        );
        if let Some((_, current)) = &swap_list {
            let _ = writeln!(
                out,
                "current teams: P(red wins) = {:.1}%, expected margin {}",
                current.p_red * 100.0,
                margin(current.p_red)
            );
        }
        let _ = writeln!(
            out,
            "random split: P(red wins) = {:.1}%, expected margin {} (the players sorted by name, shuffled by Mulberry32 from seed {}{}; {})",
            random.split.p_red * 100.0,
            margin(random.split.p_red),
            random.seed,
            if args.seed.is_some() {
                ", given by --seed"
            } else {
                ", a hash of the names; --seed N draws another"
            },
            if random.rules_kept {
                "locks and rules kept"
            } else {
                "locks kept, but no draw kept the together/apart rules"
            }
        );
        for &(i, side) in &rules.lock {
            let _ = writeln!(
                out,
                "rule: {} stays {}",
                c[i].name,
                if side == Side::Red { "red" } else { "blue" }
            );
        }
        for &(a, b) in &rules.together {
            let _ = writeln!(out, "rule: {} and {} play together", c[a].name, c[b].name);
        }
        for &(a, b) in &rules.apart {
            let _ = writeln!(out, "rule: {} and {} play apart", c[a].name, c[b].name);
        }
        for cand in c {
            let _ = writeln!(
                out,
                "player {}: skill {:.3} ± {:.3}",
                cand.name,
                cand.skill.mean,
                cand.skill.variance.sqrt()
            );
        }
    }
    Ok(out)
}

/// A name for a chat or console line: no quotes or command separators.
fn chat(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '"' | ';' | '\n' | '\r'))
        .collect()
}
