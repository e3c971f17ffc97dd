//! The balance page's search (`static/balance.js`, as the built site ships it) against the
//! command's (`fragstats balance`), in every `cargo test`, with no browser: the page's script
//! runs in QuickJS (an embedded JavaScript engine) on a stand-in for the page that accepts
//! anything, reads its lobby and rules from the address as in a browser, and the test reads the
//! state its search computed (`window.fragstatsBalance.compute`). Lobbies are generated here:
//! every size the searches switch at (every split, meeting in the middle, the local search),
//! newcomers with hostile names, locks, together groups, apart pairs, conflicts, the teams as
//! they are (swaps) and the last match's teams on and off. The splits, their order, P(red wins)
//! to the bit, the warnings, the random split's seed and the conflicts' words must be the
//! command's. (The Chromium test drives the same page by hand, where a browser is present.)

mod common;

use std::path::Path;
use std::process::Command;

use common::balance::{Case, command};
use rquickjs::{Context, Runtime};
use serde_json::{Value, json};

/// A page that is not there: every element, property and call gives another such stand-in, so
/// the page's drawing code runs and draws nothing.
const NO_PAGE: &str = r#"
var nothing = (function () {
  var make = function () {
    return new Proxy(function () {}, {
      get: function (target, key) {
        if (key === Symbol.toPrimitive) return function () { return ""; };
        if (key === "length") return 0;
        if (key === "then") return undefined;
        return make();
      },
      set: function () { return true; },
      apply: function () { return make(); }
    });
  };
  return make();
})();
var document = nothing;
// The browser's UTF-8 encoder (the random split's seed hashes the names' bytes).
var TextEncoder = function () {};
TextEncoder.prototype.encode = function (text) {
  var out = [];
  for (var i = 0; i < text.length; i++) {
    var c = text.codePointAt(i);
    if (c > 0xffff) i++;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | c >> 6, 0x80 | c & 63);
    else if (c < 0x10000) out.push(0xe0 | c >> 12, 0x80 | c >> 6 & 63, 0x80 | c & 63);
    else out.push(0xf0 | c >> 18, 0x80 | c >> 12 & 63, 0x80 | c >> 6 & 63, 0x80 | c & 63);
  }
  return new Uint8Array(out);
};
"#;

/// What the page computed, in the command's terms (names, not indices).
const READ_STATE: &str = r#"
(function () {
  var st = window.fragstatsBalance.compute();
  var names = function (ids) { return ids.map(function (i) { return st.lobby[i].name; }); };
  var split = function (s) { return { red: names(s.red), blue: names(s.blue), p_red_wins: s.p }; };
  var r = st.result;
  if (r.error) return JSON.stringify({ error: r.error, conflict: !!r.conflict, errors: st.errors });
  var out = {
    errors: st.errors,
    unknown: st.unknown,
    exact: r.exact,
    splits: [split(r.best)].concat(r.alternatives.map(split), [split(r.abba), split(r.random)]),
    seed: r.random.seed,
    rules_kept: r.random.rulesKept,
    warnings: r.warnings,
    last: r.avoid ? { red: names(r.avoid.last.red), blue: names(r.avoid.last.blue),
      avoided: r.avoid.avoided, why: r.avoid.why } : null
  };
  if (st.nowRed.length || st.nowBlue.length) {
    out.swaps = window.fragstatsBalance.swaps(st).map(function (s) {
      return { to_blue: st.lobby[s.toBlue].name, to_red: st.lobby[s.toRed].name, p_red_wins: s.p };
    });
  }
  return JSON.stringify(out);
})()
"#;

/// The page's state for `query` (its address after `balance.html`), or the script's exception.
fn page_state(site: &Path, query: &str) -> Result<Value, String> {
    let data = std::fs::read_to_string(site.join("data/balance.js")).unwrap();
    let page = std::fs::read_to_string(site.join("static/balance.js")).unwrap();
    let runtime = Runtime::new().unwrap();
    let context = Context::full(&runtime).unwrap();
    context.with(|ctx| {
        let location = format!(
            "var window = {{ location: {{ search: {}, hash: \"\", pathname: \"/balance.html\" }} }};",
            serde_json::to_string(query).unwrap()
        );
        let fail = |what: &str, e: rquickjs::Error| format!("{what}: {e}: {:?}", ctx.catch());
        let run = |what: &str, source: String| -> Result<(), String> {
            ctx.eval::<(), _>(source).map_err(|e| fail(what, e))
        };
        run("stand-in", format!("{NO_PAGE}{location}"))?;
        run("data/balance.js", data)?;
        run("static/balance.js", page)?;
        let state: String = (ctx.eval::<String, _>(READ_STATE)).map_err(|e| fail("reading the state", e))?;
        serde_json::from_str(&state).map_err(|e| e.to_string())
    })
}

/// The command's splits in the page's order, as the page states them.
fn command_splits(cli: &Value) -> Value {
    let split =
        |s: &Value| json!({"red": s["red"], "blue": s["blue"], "p_red_wins": s["p_red_wins"]});
    let mut all = vec![split(cli)];
    all.extend(cli["alternatives"].as_array().unwrap().iter().map(split));
    all.push(split(&cli["abba"]));
    all.push(split(&cli["random"]));
    Value::Array(all)
}

/// The page and the command agree on `case` (the command with `more` flags, the page with
/// `extra` in its address); returns the command's answer.
fn agree(tmp: &Path, site: &Path, case: &Case, more: &[&str], extra: &str) -> Value {
    let what = format!("{}{extra} {more:?}", case.query());
    let page = page_state(site, &format!("{}{extra}", case.query()))
        .unwrap_or_else(|e| panic!("{what}: the page's script failed: {e}"));
    match command(tmp, site, case, more) {
        Err(err) if err == "--from: a player is on both teams" => {
            let said = page["errors"].as_array().into_iter().flatten();
            let said = said
                .filter_map(Value::as_str)
                .any(|e| e.starts_with("a player is on both teams now: "));
            assert!(said, "{what}: command {err:?}, page {page}");
            json!({ "error": err })
        }
        Err(err) => {
            assert_eq!(
                page["conflict"],
                json!(true),
                "{what}: command {err:?}, page {page}"
            );
            assert_eq!(page["error"], json!(err), "{what}");
            json!({ "error": err })
        }
        Ok(cli) => {
            assert_eq!(page["errors"], json!([]), "{what}: {page}");
            assert_eq!(page["splits"], command_splits(&cli), "{what}");
            assert_eq!(page["exact"], cli["exact"], "{what}");
            assert_eq!(page["seed"], cli["random"]["seed"], "{what}");
            assert_eq!(page["rules_kept"], cli["random"]["rules_kept"], "{what}");
            assert_eq!(page["unknown"], cli["unknown"], "{what}");
            // The swap warnings are the swap block's (drawn by the page, checked in Chromium).
            let swap_warning = |w: &&Value| {
                let w = w.as_str().unwrap();
                w.starts_with("searched up to ") || w.starts_with("make all ")
            };
            let cli_warnings: Vec<&Value> = (cli["warnings"].as_array().unwrap().iter())
                .filter(|w| !swap_warning(w))
                .collect();
            assert_eq!(page["warnings"], json!(cli_warnings), "{what}");
            match &cli["last_match"] {
                Value::Null => assert_eq!(page["last"], Value::Null, "{what}"),
                last => {
                    for key in ["red", "blue", "avoided", "why"] {
                        assert_eq!(page["last"][key], last[key], "{what}: {key}");
                    }
                }
            }
            assert_eq!(
                page["swaps"],
                cli.get("swaps").cloned().unwrap_or(Value::Null),
                "{what}"
            );
            cli
        }
    }
}

/// A small deterministic generator (the cases must be the same on every run).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Newcomers' names a stranger could choose, none of them a player of the site.
const HOSTILE: [&str; 6] = [
    "<img src=x onerror=alert(1)>",
    "\u{dc}n\u{ef} c\u{f8}d\u{e9} \u{540d}",
    "^1Red^7Devil",
    "a+b&c=d#%",
    "\"quoted\" 'name'",
    "Zz;+&#=%\u{fc} \u{540d}:red",
];

/// A lobby of `size` players (the site's, then newcomers), with rules drawn by `rng`.
fn lobby(rng: &mut Lcg, known: &[String], size: usize) -> Case {
    let mut pool: Vec<String> = known.to_vec();
    pool.extend(HOSTILE.iter().map(|n| n.to_string()));
    pool.extend((0..size).map(|i| format!("Qzvxw{i}jkq")));
    let mut names = Vec::new();
    while names.len() < size {
        let name = pool.remove(rng.below(pool.len()));
        names.push(name);
    }
    let mut case = Case::of(&names);
    // Rules name only players whose names the command's lists can carry (no `,;=:`).
    let plain: Vec<String> = (names.iter())
        .filter(|n| !n.contains([',', ';', '=', ':']))
        .cloned()
        .collect();
    let pick = |rng: &mut Lcg| plain[rng.below(plain.len())].clone();
    if plain.len() >= 4 {
        for _ in 0..rng.below(3) {
            let side = if rng.chance(50) { "red" } else { "blue" };
            case.lock.push((pick(rng), side));
        }
        if rng.chance(40) {
            let group: Vec<String> = (0..2 + rng.below(2)).map(|_| pick(rng)).collect();
            case.together.push(group);
        }
        if rng.chance(40) {
            case.apart.push([pick(rng), pick(rng)]);
        }
    }
    if rng.chance(25) {
        // The teams as they are: everyone on a side, at least one on each (the command refuses
        // a side left empty, where the page asks for one in its swap box).
        case.lock.clear();
        case.names.retain(|n| !n.contains([',', ';', ':']));
        case.from = (case.names.iter().enumerate())
            .map(|(i, n)| {
                let red = i == 0 || (i > 1 && rng.chance(50));
                (n.clone(), if red { "red" } else { "blue" })
            })
            .collect();
        case.max_swaps = Some(1 + rng.below(4));
    }
    case
}

#[test]
fn balance_page_script_gives_the_commands_teams_without_a_browser() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    std::fs::write(
        tmp.path().join("site.toml"),
        "title = \"Balance test\"\n[balance]\navoid_last = true\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_fragstats"))
        .current_dir(tmp.path())
        .args(["build", "--out", site.to_str().unwrap()])
        .arg(common::openarena(""))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::stderr(&o));
    let data =
        common::balance_data(&std::fs::read_to_string(site.join("data/balance.js")).unwrap());
    let known: Vec<String> = data.players.iter().map(|p| p.name.clone()).collect();
    assert!(known.len() >= 16, "too few players: {known:?}");

    let mut rng = Lcg(20261128);
    // Sizes on both sides of every switch of the search: 2-12 every split, 13-40 meeting in
    // the middle, beyond it the local search. (40 once: QuickJS takes about 8 s to meet in the
    // middle of it.)
    let sizes = [
        2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 18, 20, 24, 29, 33, 36, 41, 48,
    ];
    let (mut ready, mut conflicts, mut swaps, mut avoided) = (0, 0, 0, 0);
    for round in 0..3 {
        for &size in &sizes {
            let size = if round == 0 && size == 36 { 40 } else { size };
            let case = lobby(&mut rng, &known, size);
            let off = round == 2;
            let (more, extra): (&[&str], &str) = if off {
                (&["--no-avoid-last"], "&avoid=0")
            } else {
                (&[], "")
            };
            let cli = agree(tmp.path(), &site, &case, more, extra);
            if cli.get("error").is_some() {
                conflicts += 1;
                continue;
            }
            ready += 1;
            swaps += usize::from(cli.get("swaps").is_some());
            avoided += usize::from(cli["last_match"]["avoided"] == json!(true));
        }
    }
    // Conflicts in the command's words, whatever the lobby.
    let mut c = Case::of(&known[..10]);
    c.lock = vec![(known[0].clone(), "red"), (known[1].clone(), "blue")];
    c.together = vec![vec![known[0].clone(), known[1].clone()]];
    assert!(agree(tmp.path(), &site, &c, &[], "").get("error").is_some());
    conflicts += 1;
    // One player named twice in the teams as they are, under two spellings: once on one side
    // counts once; on both sides, both refuse.
    let coloured = format!("^3{}", known[0]);
    let mut c = Case::of(&[]);
    c.from = vec![
        (coloured.clone(), "red"),
        (known[0].clone(), "red"),
        (known[1].clone(), "blue"),
    ];
    let once = agree(tmp.path(), &site, &c, &[], "");
    assert_eq!(once["current"]["red"], json!([known[0]]), "{once}");
    c.from[1].1 = "blue";
    assert!(agree(tmp.path(), &site, &c, &[], "").get("error").is_some());
    eprintln!(
        "{ready} lobbies agreed ({swaps} with swaps, {avoided} avoiding the last match's teams), \
         {conflicts} conflicts named alike"
    );
    assert!(
        ready >= 50 && swaps >= 5 && conflicts >= 1,
        "the cases did not cover the searches"
    );
    // A test that cannot fail is no test: a page whose search differs is caught.
    let page = std::fs::read_to_string(site.join("static/balance.js")).unwrap();
    let scale = "function scale() { return Math.max(params.coef[0], 0); }";
    let broken = page.replace(scale, &scale.replace("coef[0]", "coef[0] * (1 + 1e-12)"));
    assert_ne!(broken, page, "the page's scale moved: update this check");
    std::fs::write(site.join("static/balance.js"), broken).unwrap();
    let case = Case::of(&known[..12]);
    let page = page_state(&site, &case.query()).unwrap();
    let cli = command(tmp.path(), &site, &case, &[]).unwrap();
    assert_ne!(
        page["splits"],
        command_splits(&cli),
        "a changed search went unseen"
    );
}
