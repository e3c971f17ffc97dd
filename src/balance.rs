//! `fragstats balance`: reads the last build's `data/balance.js`, resolves the names, applies the
//! rules and prints the proposal as text, chat lines, server commands or one JSON object.

use std::fmt::Write as _;

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};

use crate::build::{BuildRequest, Plan};
use crate::cli::{BalanceArgs, BalanceFormat, ClansArg};
use crate::config::{BalanceConfig, ClanMode};
use crate::team::balance::data::{BalanceData, NameIndex, Resolved};
use crate::team::balance::random::{random_split, seed_of};
use crate::team::balance::soft::{ClanGroup, LastTeams, Options, Soft, propose};
use crate::team::balance::{
    Candidate, Rules, SWAP_EXCHANGES, Side, Split, p_red, swap_limit, swaps,
};

/// The lobby: candidates, and the names never seen.
struct Lobby {
    index: NameIndex,
    candidates: Vec<Candidate>,
    /// Each candidate's index in the data file (None for a newcomer).
    ids: Vec<Option<u32>>,
    unknown: Vec<String>,
}

impl Lobby {
    /// Index of the player `query` means, adding them if not present yet.
    fn add(&mut self, data: &BalanceData, query: &str) -> Result<usize> {
        let (name, skill, id) = match data.resolve(&self.index, query).map_err(|e| anyhow!(e))? {
            Resolved::Known(i) => (
                data.players[i].name.clone(),
                data.params.strength(data.skill(i)),
                Some(i as u32),
            ),
            Resolved::New(name) => (name, data.params.strength(data.params.newcomer), None),
        };
        if let Some(at) = self.candidates.iter().position(|c| c.name == name) {
            return Ok(at);
        }
        if id.is_none() {
            self.unknown.push(name.clone());
        }
        self.ids.push(id);
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

/// The clans of the lobby with two or more members present, by clan name.
fn clan_groups(data: &BalanceData, lobby: &Lobby) -> Vec<ClanGroup> {
    let mut by_name: std::collections::BTreeMap<&str, Vec<usize>> = Default::default();
    for (i, id) in lobby.ids.iter().enumerate() {
        if let Some(clan) = id.and_then(|id| data.players[id as usize].clan.as_deref()) {
            by_name.entry(clan).or_default().push(i);
        }
    }
    by_name
        .into_iter()
        .filter(|(_, members)| members.len() >= 2)
        .map(|(name, members)| ClanGroup {
            name: name.to_string(),
            members,
        })
        .collect()
}

/// Reads the balance data of the build the arguments point at, and `[balance]` of the config.
fn load(args: &BalanceArgs) -> Result<(BalanceData, BalanceConfig)> {
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
    let data = BalanceData::from_script(&text).map_err(|e| {
        anyhow!(
            "{}: {e} (run `fragstats build` again to rewrite it)",
            path.display()
        )
    })?;
    Ok((data, plan.config.balance))
}

/// Whether to avoid the last match's teams: `--no-avoid-last` wins over the config, which
/// `--avoid-last` can only turn on (clap keeps the last of the two flags given).
fn avoid_last(args: &BalanceArgs, settings: &BalanceConfig) -> bool {
    !args.no_avoid_last && (args.avoid_last || settings.avoid_last)
}

/// Runs the command; returns what to print.
pub fn run(args: &BalanceArgs) -> Result<String> {
    let (data, settings) = load(args)?;
    let mut lobby = Lobby {
        index: data.index(),
        candidates: Vec::new(),
        ids: Vec::new(),
        unknown: Vec::new(),
    };
    let from = match &args.from {
        Some(text) => {
            let (red, blue) = parse_from(text)?;
            // One player named twice on a side (two spellings of one name) counts once, as on
            // the page.
            let mut side = |names: &[&str]| -> Result<Vec<usize>> {
                let mut ids = Vec::new();
                for n in names {
                    let i = lobby.add(&data, n)?;
                    if !ids.contains(&i) {
                        ids.push(i);
                    }
                }
                Ok(ids)
            };
            let red = side(&red)?;
            let blue = side(&blue)?;
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
    rules.soft = Soft {
        mode: match args.clans {
            Some(ClansArg::Together) => ClanMode::Together,
            Some(ClansArg::Spread) => ClanMode::Spread,
            Some(ClansArg::Off) => ClanMode::Off,
            None => settings.clans,
        },
        clans: clan_groups(&data, &lobby),
        unit: settings.clan_penalty / 100.0,
    };
    let avoid_last = avoid_last(args, &settings);
    let last = avoid_last
        .then(|| LastTeams::find(&data.recent, &lobby.ids))
        .flatten();
    let options = Options {
        alternatives: 3,
        party_guard: settings.party_guard,
        avoid: last.map(|l| (l, settings.avoid_last_within / 100.0)),
    };
    let c = &lobby.candidates;
    let outcome = propose(c, &data.params, &rules, &options).map_err(|e| anyhow!(e))?;
    let proposal = &outcome.proposal;
    let soft = &outcome.soft;
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
    // Warnings: the guards, and a swap list whose first swaps alone would leave the teams less
    // fair than they are (the p after each swap is cumulative).
    let mut warnings = outcome.warnings.clone();
    if let Some((list, current)) = &swap_list {
        let movable = |side: &[usize]| side.iter().filter(|&&i| !rules.locked(i)).count();
        let (reds, blues) = (movable(&current.red), movable(&current.blue));
        let asked = args.max_swaps.min(reds).min(blues);
        let limit = swap_limit(reds, blues, args.max_swaps);
        if limit < asked {
            warnings.push(format!(
                "searched up to {limit} swaps, not {asked}: more would try over {SWAP_EXCHANGES} exchanges"
            ));
        }
        let start = (current.p_red - 0.5).abs();
        if let Some(k) = list
            .iter()
            .take(list.len().saturating_sub(1))
            .position(|s| (s.p_red - 0.5).abs() > start)
        {
            warnings.push(format!(
                "make all {} swaps: after swap {} alone P(red wins) would be {:.0}%, farther from 50% than now ({:.0}%)",
                list.len(),
                k + 1,
                list[k].p_red * 100.0,
                current.p_red * 100.0
            ));
        }
    }
    let names_of = |ids: &[usize]| ids.iter().map(|&i| c[i].name.clone()).collect::<Vec<_>>();
    let mode_name = |m: ClanMode| match m {
        ClanMode::Off => "off",
        ClanMode::Together => "together",
        ClanMode::Spread => "spread",
    };
    let out_of_place = |g: &ClanGroup, split: &Split| {
        let red = g.members.iter().filter(|i| split.red.contains(i)).count() as u32;
        crate::team::balance::soft::misplaced(soft.mode, red, g.members.len() as u32)
    };
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
        out["warnings"] = json!(warnings);
        out["clans"] = json!({
            "mode": mode_name(soft.mode),
            "penalty_points": settings.clan_penalty,
            "groups": soft.clans.iter().map(|g| json!({
                "name": g.name,
                "members": names_of(&g.members),
                "out_of_place": out_of_place(g, &proposal.best),
            })).collect::<Vec<_>>(),
        });
        out["last_match"] = match &outcome.avoid {
            Some(a) => json!({
                "red": names_of(&a.last.red),
                "blue": names_of(&a.last.blue),
                "avoided": a.avoided,
                "why": a.why,
            }),
            None => Value::Null,
        };
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
                        "no swap brings P(red wins) {} point or more closer to 50%: keep the teams",
                        crate::team::balance::MIN_GAIN * 100.0
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
            if let Some(a) = &outcome.avoid {
                let _ = writeln!(
                    out,
                    "last match's teams: {} | {}: {}",
                    team(&a.last.red),
                    team(&a.last.blue),
                    a.why
                );
            } else if avoid_last {
                let _ = writeln!(
                    out,
                    "last match's teams: no recent team match had two or more of these players on each side"
                );
            }
        }
        BalanceFormat::Say | BalanceFormat::Rcon => {}
    }
    if args.format == BalanceFormat::Text {
        for w in &warnings {
            let _ = writeln!(out, "warning: {w}");
        }
    }
    match args.format {
        BalanceFormat::Text => {}
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
            "why: the team model (data/evaluation.json, team_model) predicts P(red wins) from each side's mean skill, the team sizes and the red side's bias; the split closest to 50% is proposed, counting the penalties of broken soft rules (listed below) as probability points."
        );
        let margin = |p: f64| {
            if data.params.margin > 0.0 {
                format!("{:+.1}", data.params.expected_margin(p))
            } else {
                data.params.margin_why()
            }
        };
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
        if soft.mode != ClanMode::Off {
            let _ = writeln!(
                out,
                "soft rule: clan mates {} ([balance] clans), {} points of |P(red wins) - 50%| for each mate out of place ({}); the party guard keeps P(red wins) of a group kept together within {:.0}% to {:.0}%",
                mode_name(soft.mode),
                settings.clan_penalty,
                if soft.mode == ClanMode::Together {
                    "the fewer of a clan's mates on one side"
                } else {
                    "half the difference between a clan's mates on each side"
                },
                (1.0 - settings.party_guard) * 100.0,
                settings.party_guard * 100.0
            );
            for g in &soft.clans {
                let _ = writeln!(
                    out,
                    "clan {}: {} ({} out of place, {:.1} points)",
                    g.name,
                    team(&g.members),
                    out_of_place(g, &proposal.best),
                    f64::from(out_of_place(g, &proposal.best)) * settings.clan_penalty
                );
            }
            if soft.clans.is_empty() {
                let _ = writeln!(out, "clan: no two players of the lobby share a clan");
            }
        }
        let _ = writeln!(
            out,
            "objective: |P(red wins) - 50%| + penalties = {:.2} points",
            crate::team::balance::soft::objective(&proposal.best, soft) * 100.0
        );
        for w in &warnings {
            let _ = writeln!(out, "guard: {w}");
        }
        if let Some(a) = &outcome.avoid {
            let _ = writeln!(
                out,
                "last match (the most recent team match with two or more of these players on each side, among the build's last {}): red {} | blue {}; {} (tolerance {} points)",
                crate::team::balance::data::RECENT,
                team(&a.last.red),
                team(&a.last.blue),
                a.why,
                settings.avoid_last_within
            );
        }
        for (cand, id) in c.iter().zip(&lobby.ids) {
            let theta = id.map_or(data.params.newcomer, |i| data.skill(i as usize));
            let _ = writeln!(
                out,
                "player {}: skill {:.3} ± {:.3}, team strength {:.3}",
                cand.name,
                theta.mean,
                theta.variance.sqrt(),
                cand.skill.mean
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
