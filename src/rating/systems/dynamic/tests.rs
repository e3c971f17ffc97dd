//! Hand-worked cases for every rule of RANKING.md section 1, the Elo reference values in
//! `../shared/reference/elo.json`, and a property test on where points enter. Tolerance: 1e-9
//! unless stated (the reference values are rounded to 1e-10).

use super::*;
use crate::config::ClanConfig;
use crate::model::identity::{Aliases, Roster};
use crate::model::{Event, Events, NO_PLAYER};

const TOL: f64 = 1e-9;

fn cfg() -> DynamicConfig {
    DynamicConfig::default()
}

/// A tiny match builder: players by name, then events in order.
struct M {
    m: Match,
}

impl M {
    fn new(gametype: &str, names: &[(&str, Team)]) -> M {
        let mut m = M {
            m: crate::testdata::bare_match(gametype, names),
        };
        for (i, (_, t)) in names.iter().enumerate() {
            m.ev(EventKind::TeamChange(*t), i as u32, NO_PLAYER);
        }
        m
    }
    fn ev(&mut self, kind: EventKind, actor: u32, target: u32) -> &mut Self {
        let line = self.m.events.len() as u64;
        self.m.events.push(Event {
            time: 0,
            line,
            kind,
            actor,
            target,
            detail: 0,
        });
        self
    }
    fn frag(&mut self, k: u32, v: u32) -> &mut Self {
        self.ev(EventKind::Frag, k, v)
    }
}

/// Clans X (`[X]` prefix) and Y (`[Y]` prefix).
fn clans_x_y() -> [ClanConfig; 2] {
    [
        ClanConfig {
            name: "X".into(),
            prefix: vec!["[X]".into()],
            ..Default::default()
        },
        ClanConfig {
            name: "Y".into(),
            prefix: vec!["[Y]".into()],
            ..Default::default()
        },
    ]
}

/// Rates matches and returns ratings by plain name (players) and clan names.
fn rate(
    matches: Vec<Match>,
    cfg: &DynamicConfig,
    clans: &[ClanConfig],
) -> (Roster, DynamicRatings, Clans) {
    let roster = Roster::build(&matches, &Aliases::default());
    let clans = Clans::assign(&roster, clans, false);
    let r = Stream::build(
        crate::model::MatchList::from(&matches),
        &roster,
        &clans,
        cfg,
    )
    .run(cfg);
    (roster, r, clans)
}

fn g(roster: &Roster, r: &DynamicRatings, name: &str) -> f64 {
    r.players[roster.players.iter().position(|p| p.key == name).unwrap()]
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < TOL, "{a} != {b}");
}

#[test]
fn frag_from_zero_and_floor() {
    // From 0:0, E = 0.5: the winner gains K/2 = 20; the loser would drop to -20, the floor keeps 0.
    let mut m = M::new("ffa", &[("A", Team::Free), ("B", Team::Free)]);
    m.frag(0, 1);
    let (ro, r, _) = rate(vec![m.m], &cfg(), &[]);
    close(g(&ro, &r, "A"), 20.0);
    close(g(&ro, &r, "B"), 0.0);
    close(r.floor_added, 20.0);
}

#[test]
fn second_frag_expected_score_sign() {
    // A (20) beats B (0) again: E(A,B) = 1/(1+10^(-20/400)) = 0.528744..., A gains 40*(1-E).
    let mut m = M::new("ffa", &[("A", Team::Free), ("B", Team::Free)]);
    m.frag(0, 1).frag(0, 1);
    let (ro, r, _) = rate(vec![m.m], &cfg(), &[]);
    let e = 1.0 / (1.0 + 10f64.powf(-20.0 / 400.0));
    assert!(e > 0.5, "the higher-rated player is expected to win");
    close(g(&ro, &r, "A"), 20.0 + 40.0 * (1.0 - e));
    close(g(&ro, &r, "B"), 0.0);
}

#[test]
fn suicide_and_team_kill_cost_half_k_and_spare_the_victim() {
    // A wins twice from 0 (20, then 20 + 40*(1-E)), then kills himself: -20.
    let mut m = M::new(
        "ctf",
        &[("A", Team::Red), ("B", Team::Blue), ("C", Team::Red)],
    );
    m.frag(0, 1).frag(2, 1).ev(EventKind::Suicide, 0, NO_PLAYER);
    let (ro, r, _) = rate(vec![m.m.clone()], &cfg(), &[]);
    close(g(&ro, &r, "A"), 0.0);
    // B hit the floor twice (20 each); A's suicide took him from 20 to exactly 0.
    close(r.floor_added, 40.0);

    // Team kill: C (20) kills team mate A: C loses K/2 = 20, A is untouched.
    let mut m = M::new(
        "ctf",
        &[("A", Team::Red), ("B", Team::Blue), ("C", Team::Red)],
    );
    m.frag(2, 1).frag(0, 1);
    let before = {
        let (ro, r, _) = rate(vec![m.m.clone()], &cfg(), &[]);
        (g(&ro, &r, "A"), g(&ro, &r, "C"))
    };
    m.ev(EventKind::TeamKill, 2, 0);
    let (ro, r, _) = rate(vec![m.m], &cfg(), &[]);
    close(g(&ro, &r, "A"), before.0);
    close(g(&ro, &r, "C"), before.1 - 20.0);
}

#[test]
fn capture_against_two_player_team_mean() {
    // Red A (0) captures; Blue B and C present. Give B and C ratings first: B frags A twice
    // (20, then 20+40*(1-E(20,0))), C frags A once (20).
    let mut m = M::new(
        "ctf",
        &[("A", Team::Red), ("B", Team::Blue), ("C", Team::Blue)],
    );
    m.frag(1, 0).frag(1, 0).frag(2, 0);
    m.ev(
        EventKind::Flag(FlagAction::Capture, Team::Blue),
        0,
        NO_PLAYER,
    );
    let (ro, r, _) = rate(vec![m.m], &cfg(), &[]);
    let e20 = 1.0 / (1.0 + 10f64.powf(-20.0 / 400.0));
    let gb = 20.0 + 40.0 * (1.0 - e20);
    let gc = 20.0;
    let mean = (gb + gc) / 2.0;
    let e = 1.0 / (1.0 + 10f64.powf(mean / 400.0));
    close(g(&ro, &r, "A"), 7.0 * 40.0 * (1.0 - e));
    close(g(&ro, &r, "B"), gb);
    close(g(&ro, &r, "C"), gc);
}

#[test]
fn capture_with_nobody_opposing_changes_nothing() {
    let mut m = M::new("ctf", &[("A", Team::Red), ("B", Team::Blue)]);
    m.ev(EventKind::Leave, 1, NO_PLAYER);
    m.ev(
        EventKind::Flag(FlagAction::Capture, Team::Blue),
        0,
        NO_PLAYER,
    );
    let (ro, r, _) = rate(vec![m.m], &cfg(), &[]);
    close(g(&ro, &r, "A"), 0.0);
    // Other flag events are ignored at their default weight 0.
    let mut m = M::new("ctf", &[("A", Team::Red), ("B", Team::Blue)]);
    m.ev(EventKind::Flag(FlagAction::Return, Team::Red), 0, NO_PLAYER);
    let (ro, r, _) = rate(vec![m.m.clone()], &cfg(), &[]);
    close(g(&ro, &r, "A"), 0.0);
    let c = DynamicConfig {
        flag_return: 1.0,
        ..cfg()
    };
    let (ro, r, _) = rate(vec![m.m], &c, &[]);
    close(g(&ro, &r, "A"), 20.0);
}

#[test]
fn negative_duel_scores() {
    close(duel_share(6, -2), 1.0); // 8:0
    close(duel_share(-3, -5), 5.0 / 8.0); // 5:3
    close(duel_share(0, 0), 0.5);
    close(duel_share(3, 1), 0.75);
}

#[test]
fn duel_rated_per_match() {
    // A: 6 frags, B: 1 frag and 3 suicides -> 6:-2 -> 8:0, e = 1 for A, one update with weight 1.
    let mut m = M::new("duel", &[("A", Team::Free), ("B", Team::Free)]);
    for _ in 0..6 {
        m.frag(0, 1);
    }
    m.frag(1, 0);
    for _ in 0..3 {
        m.ev(EventKind::Suicide, 1, NO_PLAYER);
    }
    let c = DynamicConfig {
        duel: DuelMode::Match,
        ..cfg()
    };
    let (ro, r, _) = rate(vec![m.m.clone()], &c, &[]);
    close(g(&ro, &r, "A"), 20.0);
    close(g(&ro, &r, "B"), 0.0);
    // Frag mode rates the same match frag by frag.
    let (ro, r, _) = rate(vec![m.m], &cfg(), &[]);
    assert!(g(&ro, &r, "A") > 20.0);
}

#[test]
fn decay_across_two_periods() {
    use chrono::NaiveDate;
    let day = |d: u32| {
        NaiveDate::from_ymd_opt(2026, 11, d)
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap()
    };
    let mut first = M::new("ffa", &[("A", Team::Free), ("B", Team::Free)]);
    first.frag(0, 1).frag(0, 1).frag(0, 1);
    first.m.start = Some(day(1));
    let mut later = M::new("ffa", &[("C", Team::Free), ("D", Team::Free)]);
    later.frag(0, 1);
    later.m.start = Some(day(16)); // 15 days later: two 7-day periods have passed
    let c = DynamicConfig {
        decay_points: 10.0,
        ..cfg()
    };
    let (ro, r, _) = rate(
        vec![first.m.clone(), later.m.clone()],
        &DynamicConfig { ..cfg() },
        &[],
    );
    let a_before = g(&ro, &r, "A");
    let (ro, r, _) = rate(vec![first.m.clone(), later.m.clone()], &c, &[]);
    close(g(&ro, &r, "A"), a_before - 20.0);
    close(g(&ro, &r, "B"), 0.0);
    close(g(&ro, &r, "C"), 20.0); // not rated before the decay
    assert_eq!(r.decay, DecayStatus::Applied { periods: 2 });
    // Without dates decay is off, and says so.
    first.m.start = None;
    later.m.start = None;
    let (_, r, _) = rate(vec![first.m, later.m], &c, &[]);
    assert_eq!(r.decay, DecayStatus::NoDates);
}

#[test]
fn clans_are_virtual_players() {
    // [X]a frags [Y]b: clans X and Y play 1:0. [X]a frags clan mate [X]c: clan suicide of X.
    let mut m = M::new(
        "ffa",
        &[
            ("[X]a", Team::Free),
            ("[Y]b", Team::Free),
            ("[X]c", Team::Free),
            ("solo", Team::Free),
        ],
    );
    m.frag(0, 1);
    let clans = clans_x_y();
    let (_, r, c) = rate(vec![m.m.clone()], &cfg(), &clans);
    assert_eq!(c.clans[0].name, "X");
    close(r.clans[0], 20.0);
    close(r.clans[1], 0.0);
    m.frag(0, 2);
    let (ro, r, _) = rate(vec![m.m.clone()], &cfg(), &clans);
    close(r.clans[0], 0.0); // 20 - K/2
    // The player still gains from the frag; the victim clan mate loses.
    assert!(g(&ro, &r, "[X]a") > 20.0);
    // Events with a clanless player do not touch clans.
    m.frag(3, 0);
    let (_, r2, _) = rate(vec![m.m], &cfg(), &clans);
    close(r2.clans[0], r.clans[0]);
    close(r2.clans[1], r.clans[1]);
}

#[test]
fn history_records_each_match() {
    let mut a = M::new("ffa", &[("A", Team::Free), ("B", Team::Free)]);
    a.frag(0, 1);
    let mut b = M::new("ffa", &[("A", Team::Free), ("C", Team::Free)]);
    b.frag(1, 0);
    let (ro, r, _) = rate(vec![a.m, b.m], &cfg(), &[]);
    let ia = ro.players.iter().position(|p| p.key == "A").unwrap();
    assert_eq!(r.history.len(ia), 2);
    assert_eq!(r.history.point(ia, 0).pair(), (0, 20.0));
    assert_eq!(r.history.point(ia, 1).pair().0, 1);
    close(r.history.point(ia, 1).pair().1, r.players[ia]);
}

fn reference(name: &str) -> serde_json::Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/reference/");
    serde_json::from_str(&std::fs::read_to_string(format!("{path}{name}")).unwrap()).unwrap()
}

/// Rates one result between two players starting from `ra`, `rb`.
fn one_result(ra: f64, rb: f64, e: f64, k: f64) -> (f64, f64) {
    let stream = Stream {
        ops: vec![Op::Result {
            a: 0,
            b: 1,
            weight: 1.0,
            e,
        }],
        side: Vec::new(),
        players: 2,
        clans: 0,
        decay: DecayStatus::Off,
    };
    let r = stream.run_from(&DynamicConfig { k, ..cfg() }, vec![ra, rb]);
    (r.players[0], r.players[1])
}

#[test]
fn elo_reference_cases() {
    let json = reference("elo.json");
    let mut checked = 0;
    for case in json["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let input = &case["input"];
        let want = &case["expected"];
        let tol = 1e-8;
        if name == "elo_expected_score_table" {
            for (i, pair) in input["pairs"].as_array().unwrap().iter().enumerate() {
                let (ra, rb) = (pair["ra"].as_f64().unwrap(), pair["rb"].as_f64().unwrap());
                assert!(
                    (expected(ra, rb) - want["e_a"][i].as_f64().unwrap()).abs() < tol,
                    "{name} {i}"
                );
            }
            checked += 1;
        } else if input.get("ra").is_some() && input.get("rb").is_some() {
            let k = case["params"]["k"].as_f64().unwrap();
            let (ra, rb) = one_result(
                input["ra"].as_f64().unwrap(),
                input["rb"].as_f64().unwrap(),
                input["score_a"].as_f64().unwrap(),
                k,
            );
            assert!(
                (ra - want["ra_new"].as_f64().unwrap()).abs() < tol,
                "{name}: {ra}"
            );
            assert!(
                (rb - want["rb_new"].as_f64().unwrap()).abs() < tol,
                "{name}: {rb}"
            );
            checked += 1;
        } else if case["params"]["mode"] == "sequential" && input.get("ra").is_some() {
            let k = case["params"]["k"].as_f64().unwrap();
            let mut ra = input["ra"].as_f64().unwrap();
            for (i, game) in input["games"].as_array().unwrap().iter().enumerate() {
                ra = one_result(
                    ra,
                    game["rb"].as_f64().unwrap(),
                    game["score_a"].as_f64().unwrap(),
                    k,
                )
                .0;
                let want = want["ra_after_each_game"][i].as_f64().unwrap();
                assert!((ra - want).abs() < tol, "{name} game {i}: {ra} != {want}");
            }
            checked += 1;
        } else if case["params"]["mode"] == "sequential" {
            let k = case["params"]["k"].as_f64().unwrap();
            let mut ratings: std::collections::BTreeMap<String, f64> = input["start"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(n, v)| (n.clone(), v.as_f64().unwrap()))
                .collect();
            for (i, game) in input["games"].as_array().unwrap().iter().enumerate() {
                let (a, b) = (game["a"].as_str().unwrap(), game["b"].as_str().unwrap());
                let (na, nb) =
                    one_result(ratings[a], ratings[b], game["score_a"].as_f64().unwrap(), k);
                ratings.insert(a.into(), na);
                ratings.insert(b.into(), nb);
                for (n, v) in want["ratings_after_each_game"][i].as_object().unwrap() {
                    assert!(
                        (ratings[n] - v.as_f64().unwrap()).abs() < tol,
                        "{name} game {i} {n}"
                    );
                }
            }
            checked += 1;
        }
    }
    // Batch (rating-period) cases do not apply: Becker updates after every result.
    assert!(checked >= 14, "checked {checked} cases");
}

proptest::proptest! {
    /// Frags and duel results move points between players: the sum of ratings changes only by
    /// what the floor at 0 adds.
    #[test]
    fn sum_changes_only_at_the_floor(
        start in proptest::collection::vec(0.0f64..400.0, 5),
        results in proptest::collection::vec((0u32..5, 0u32..5, 0.0f64..=1.0, 0.5f64..8.0), 1..200),
    ) {
        let ops: Vec<Op> = results
            .into_iter()
            .filter(|(a, b, _, _)| a != b)
            .map(|(a, b, e, weight)| Op::Result { a, b, weight, e })
            .collect();
        let stream = Stream { ops, side: Vec::new(), players: 5, clans: 0, decay: DecayStatus::Off };
        let before: f64 = start.iter().sum();
        let r = stream.run_from(&cfg(), start);
        let after: f64 = r.players.iter().sum();
        proptest::prop_assert!((after - before - r.floor_added).abs() < 1e-6);
        proptest::prop_assert!(r.players.iter().all(|g| *g >= 0.0));
    }
}

/// A ladder stopped after the first match, renumbered for newcomers whose names sort before
/// the players already rated, and advanced over the rest gives exactly the ratings, history and
/// decay of one pass (decay on, clans present).
#[test]
fn resumed_ladder_equals_one_pass() {
    let day = |d: u32| {
        chrono::NaiveDate::from_ymd_opt(2026, 11, d)
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap()
    };
    let mut first = M::new("ffa", &[("[X]b", Team::Free), ("d", Team::Free)]);
    first.frag(0, 1).frag(0, 1).frag(1, 0);
    first.m.start = Some(day(1));
    let mut second = M::new(
        "ffa",
        &[
            ("a", Team::Free),
            ("[X]b", Team::Free),
            ("[X]c", Team::Free),
        ],
    );
    second
        .frag(0, 1)
        .frag(2, 0)
        .ev(EventKind::Suicide, 1, NO_PLAYER);
    second.m.start = Some(day(9));
    let mut third = M::new(
        "ffa",
        &[("d", Team::Free), ("a", Team::Free), ("e", Team::Free)],
    );
    third.frag(0, 1).frag(2, 0).frag(1, 2);
    third.m.start = Some(day(24));
    let matches = vec![first.m, second.m, third.m];
    let c = DynamicConfig {
        decay_points: 5.0,
        ..cfg()
    };
    let declared = [ClanConfig {
        name: "X".into(),
        prefix: vec!["[X]".into()],
        ..Default::default()
    }];
    let roster = Roster::build(&matches, &Aliases::default());
    let clans = Clans::assign(&roster, &declared, false);
    let mut one = Ladder::new(roster.players.len(), clans.clans.len(), &c);
    one.advance(crate::model::MatchList::from(&matches), &roster, &clans, &c);

    let early = Roster::build(&matches[..1], &Aliases::default());
    let early_clans = Clans::assign(&early, &declared, false);
    let mut split = Ladder::new(early.players.len(), early_clans.clans.len(), &c);
    split.advance(
        crate::model::MatchList::from(&matches[..1]),
        &early,
        &early_clans,
        &c,
    );
    let to: Vec<u32> = early
        .players
        .iter()
        .map(|p| roster.players.iter().position(|q| q.key == p.key).unwrap() as u32)
        .collect();
    assert_ne!(
        to,
        [0, 1],
        "the newcomer renumbers the players already rated"
    );
    split.renumber(&to, roster.players.len(), &[0], clans.clans.len(), &c);
    split.advance(crate::model::MatchList::from(&matches), &roster, &clans, &c);
    assert_eq!(split.matches(), 3);
    assert_eq!(split.ratings(&c), one.ratings(&c));
    assert_eq!(one.ratings(&c).decay, DecayStatus::Applied { periods: 3 });
    // The same as the stream of the whole history.
    assert_eq!(
        one.ratings(&c),
        Stream::build(crate::model::MatchList::from(&matches), &roster, &clans, &c).run(&c)
    );
}

/// On real logs (clans detected, decay on), the ladder advanced a few matches' operations at
/// a time, as the build does on big archives, gives exactly the ratings, history and decay of
/// the stream of the whole history.
#[test]
fn ladder_in_runs_equals_one_stream() {
    let (matches, roster) = crate::testdata::history("openarena");
    assert!(matches.len() > 7, "{} matches", matches.len());
    let c = DynamicConfig {
        decay_points: 5.0,
        ..cfg()
    };
    let clans = Clans::assign(&roster, &[], true);
    let whole = Stream::build(crate::model::MatchList::from(&matches), &roster, &clans, &c).run(&c);
    for run in [1, 7, LADDER_RUN, matches.len()] {
        let mut ladder = Ladder::new(roster.players.len(), clans.clans.len(), &c);
        ladder.advance_in_runs(
            crate::model::MatchList::from(&matches),
            &roster,
            &clans,
            &c,
            run,
        );
        assert_eq!(ladder.matches(), matches.len());
        assert_eq!(ladder.ratings(&c), whole, "runs of {run} matches");
    }
}

#[test]
fn clans_follow_duels_rated_as_matches_event_by_event() {
    // Two mates of clan X in a duel rated per match: each kill of the other is a suicide of X
    // (-K/2 from 0 stays 0; so give X points first from a frag against clan Y in an FFA match).
    let clans = clans_x_y();
    let mut ffa = M::new("ffa", &[("[X]a", Team::Free), ("[Y]b", Team::Free)]);
    ffa.frag(0, 1).frag(0, 1);
    let e20 = 1.0 / (1.0 + 10f64.powf(-20.0 / 400.0));
    let x_before = 20.0 + 40.0 * (1.0 - e20);
    let mut duel = M::new("duel", &[("[X]a", Team::Free), ("[X]c", Team::Free)]);
    duel.frag(0, 1).frag(0, 1).frag(1, 0);
    let by_match = DynamicConfig {
        duel: DuelMode::Match,
        ..cfg()
    };
    let (ro, r, _) = rate(vec![ffa.m.clone(), duel.m.clone()], &by_match, &clans);
    // Three clan suicides: 40.98.. - 20 - 20 - 20, floored at 0 on the way.
    close(r.clans[0], (x_before - 20.0 - 20.0).max(0.0));
    // The players get one result for the match: 2:1, e = 2/3.
    let a_before = x_before;
    let e = 1.0 / (1.0 + 10f64.powf(-a_before / 400.0));
    close(g(&ro, &r, "[X]a"), a_before + 40.0 * (2.0 / 3.0 - e));

    // A duel between clans X and Y is a frag between the clans per kill, not one result.
    let mut duel = M::new("duel", &[("[X]a", Team::Free), ("[Y]b", Team::Free)]);
    duel.frag(0, 1);
    let (_, by_event, _) = rate(vec![duel.m.clone()], &cfg(), &clans);
    let (_, per_match, _) = rate(vec![duel.m], &by_match, &clans);
    close(per_match.clans[0], by_event.clans[0]);
    close(per_match.clans[0], 20.0);
}

/// Ratings after the real file `rel` up to (not including) `line`, with `cfg`: the roster and the
/// ratings before and after the event on that line (None, the test skipped, without `../shared`).
fn before_and_after(
    rel: &str,
    line: u64,
    cfg: &DynamicConfig,
) -> Option<(Roster, f64, f64, String)> {
    let path = crate::testdata::shared(&format!("data/public/{rel}"))?;
    let (matches, _) = crate::build::read_logs(&[path]).unwrap();
    let at = matches
        .iter()
        .position(|m| m.events.read().iter().any(|e| e.line == line))
        .expect("a match holds the line");
    let cut = |upto: u64| {
        let mut ms: Vec<Match> = matches[..=at].to_vec();
        let last = ms.last_mut().unwrap();
        let kept: Vec<_> = last
            .events
            .read()
            .iter()
            .filter(|e| e.line < upto)
            .copied()
            .collect();
        last.events = Events::from(kept);
        ms
    };
    let event = *matches[at]
        .events
        .read()
        .iter()
        .find(|e| e.line == line)
        .unwrap();
    let actor = matches[at].players[event.actor as usize].plain.to_string();
    let (ro, before, _) = rate(cut(line), cfg, &[]);
    let (_, after, _) = rate(cut(line + 1), cfg, &[]);
    let i = ro.players.iter().position(|p| p.key == actor).unwrap();
    Some((ro, before.players[i], after.players[i], actor))
}

/// The mean rating of the opposing side implied by a capture's gain `x*K*(1 - E(g, mean))`.
fn implied_mean(g: f64, gain: f64, weight: f64, k: f64) -> f64 {
    let e = 1.0 - gain / (weight * k);
    g + 400.0 * (1.0 / e - 1.0).log10()
}

#[test]
fn rejoining_the_same_side_counts_again_real_capture() {
    // oa-brensen-munerator.log: feldschwein leaves (line 5587), rejoins blue (6150), kills
    // -[aequitas]- twice; -[aequitas]- captures the blue flag at line 7150. Values of an
    // independent implementation of RANKING.md with k = 32, capture = 5.
    let c = DynamicConfig {
        k: 32.0,
        capture: 5.0,
        ..cfg()
    };
    let Some((_, before, after, actor)) =
        before_and_after("openarena/oa-brensen-munerator.log", 7150, &c)
    else {
        return;
    };
    assert_eq!(actor, "-[aequitas]-");
    let mean = implied_mean(before, after - before, 5.0, 32.0);
    // The gain is 93.263 here; the issue quotes 93.27 (its mean agrees to 1e-3): tolerance 0.01.
    assert!(
        (after - before - 93.27).abs() < 0.01,
        "gain {}",
        after - before
    );
    assert!((mean - 146.43).abs() < 0.005, "blue mean {mean}");
}

#[test]
fn reused_slot_after_initgame_does_not_drop_the_player_real_capture() {
    // urt43-lan-rodov.log: Arieh12 held slot 7 in the previous match; in the match from line 1775
    // he takes slot 1 (line 1814) and slot 7 goes to eyalo (line 1857). He stays on red, so the
    // capture at line 1991 is rated against a red mean of 166.21 (not 169.73).
    let c = DynamicConfig {
        k: 32.0,
        capture: 5.0,
        ..cfg()
    };
    let Some((_, before, after, _)) = before_and_after("urt/urt43-lan-rodov.log", 1991, &c) else {
        return;
    };
    let mean = implied_mean(before, after - before, 5.0, 32.0);
    assert!((mean - 166.21).abs() < 0.005, "red mean {mean}");
}
