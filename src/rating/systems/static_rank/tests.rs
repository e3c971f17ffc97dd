//! The least-squares matrices of `../shared/reference/bradley_terry.json` (tolerance 1e-9; the file
//! rounds to 1e-10) and hand-built cases for the core's peeling and tie-breaks.

use super::*;

fn reference_cases() -> Vec<serde_json::Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/reference/bradley_terry.json"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json["cases"].as_array().unwrap().clone()
}

fn matrix_from_wins(wins: &serde_json::Value) -> FragMatrix {
    let rows = wins.as_array().unwrap();
    let mut counts = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        for (j, w) in row.as_array().unwrap().iter().enumerate() {
            counts.push((i as u32, j as u32, w.as_u64().unwrap() as u32));
        }
    }
    FragMatrix::from_counts(rows.len(), counts)
}

#[test]
fn becker_least_squares_reference() {
    let mut checked = 0;
    for case in reference_cases() {
        if !case["name"]
            .as_str()
            .unwrap()
            .ends_with("becker_least_squares")
        {
            continue;
        }
        let m = matrix_from_wins(&case["input"]["wins"]);
        let met: Vec<[u32; 2]> = m.pairs.iter().map(|p| [p.i, p.j]).collect();
        let want_met: Vec<[u32; 2]> =
            serde_json::from_value(case["expected"]["met_pairs"].clone()).unwrap();
        assert_eq!(met, want_met);
        for (p, r) in m
            .pairs
            .iter()
            .zip(case["expected"]["r_ij_for_met_pairs"].as_array().unwrap())
        {
            assert!((p.r() - r.as_f64().unwrap()).abs() < 1e-9);
        }
        let g = least_squares(&m);
        for (i, want) in case["expected"]["g_least_squares"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            let got = g[i].unwrap();
            assert!(
                (got - want.as_f64().unwrap()).abs() < 1e-9,
                "{} player {i}: {got} vs {want}",
                case["name"]
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 2);
}

#[test]
fn core_closed_form_is_the_exact_least_squares_on_a_complete_graph() {
    let case = reference_cases()
        .into_iter()
        .find(|c| c["name"] == "bt_4_players_complete_becker_least_squares")
        .unwrap();
    let m = matrix_from_wins(&case["input"]["wins"]);
    let cfg = StaticConfig {
        min_pair_frags: 1,
        min_incidents: 0,
    };
    let r = rank(&m, &cfg);
    assert_eq!(r.core, [0, 1, 2, 3], "best first");
    for (i, want) in case["expected"]["g_least_squares"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let got = r.value[i].unwrap();
        assert!(
            (got - want.as_f64().unwrap()).abs() < 1e-9,
            "{i}: {got} vs {want}"
        );
        assert_eq!(r.outside[i], None, "core players have no outside value");
    }
    assert_eq!(r.incidents, [18, 16, 16, 16]);
}

/// Pairs given as (i, j, a_ij, a_ji).
fn matrix(n: usize, pairs: &[(u32, u32, u32, u32)]) -> FragMatrix {
    FragMatrix::from_counts(
        n,
        pairs
            .iter()
            .flat_map(|&(i, j, a, b)| [(i, j, a), (j, i, b)]),
    )
}

#[test]
fn peeling_keeps_the_dense_group() {
    // 0,1,2 met each other >= 5 times and have >= 20 incidents; 3 (15) and 4 (1) have too few.
    let m = matrix(
        5,
        &[
            (0, 1, 6, 4),
            (0, 2, 4, 4),
            (1, 2, 6, 6),
            (0, 3, 10, 2),
            (1, 3, 1, 1),
            (3, 4, 1, 0),
        ],
    );
    let cfg = StaticConfig::default();
    let r = rank(&m, &cfg);
    let mut core = r.core.clone();
    core.sort();
    assert_eq!(core, [0, 1, 2]);
    // Closed form inside: g_0 = (r_01 + r_02) / 3 = (0.2 + 0) / 3.
    assert!((r.value[0].unwrap() - 0.2 / 3.0).abs() < 1e-12);
    assert!(
        r.value[3].is_none() && r.outside[3].is_some(),
        "3 met others: exact LSQ outside"
    );
    assert!(r.outside[0].is_none());
    // 4 met 3 once: it is outside the core but has an exact value.
    assert!(r.outside[4].is_some());
}

#[test]
fn peeling_tie_breaks() {
    // A 4-cycle where every player has 2 qualifying partners out of 3: someone must go.
    // Ties on partners go to fewer incidents: player 2 has the fewest.
    let m = matrix(4, &[(0, 1, 5, 5), (1, 2, 3, 2), (2, 3, 3, 2), (3, 0, 5, 5)]);
    let cfg = StaticConfig {
        min_pair_frags: 5,
        min_incidents: 0,
    };
    let inc = m.incidents();
    assert_eq!(inc, [20, 15, 10, 15]);
    let mut core = core(&m, &inc, &cfg);
    core.sort();
    // Remove 2 (fewest incidents); then 1 and 3 have 1 partner each, tie on incidents (15):
    // the larger identity (3) goes first; then {0, 1} qualify.
    assert_eq!(core, [0, 1]);
}

#[test]
fn core_needs_two_players() {
    let m = matrix(3, &[(0, 1, 20, 0), (0, 2, 1, 0)]);
    let r = rank(&m, &StaticConfig::default());
    assert_eq!(r.core, [0, 1]);
    assert_eq!(r.value[0], Some(0.5));
    assert_eq!(r.value[1], Some(-0.5));
    // Only player 0 reaches 20 incidents: a core of one is empty.
    let m = matrix(3, &[(0, 1, 10, 0), (0, 2, 10, 0)]);
    let r = rank(&m, &StaticConfig::default());
    assert!(r.core.is_empty());
    assert!(r.value.iter().all(Option::is_none));
    assert!(
        r.outside.iter().all(Option::is_some),
        "everyone met someone"
    );
}

#[test]
fn components_have_mean_zero_and_unmet_players_none() {
    // Two separate pairs and an isolated player.
    let m = matrix(5, &[(0, 1, 3, 1), (2, 3, 0, 2)]);
    let g = least_squares(&m);
    assert!((g[0].unwrap() - 0.25).abs() < 1e-12 && (g[1].unwrap() + 0.25).abs() < 1e-12);
    assert!((g[2].unwrap() + 0.5).abs() < 1e-12 && (g[3].unwrap() - 0.5).abs() < 1e-12);
    assert_eq!(g[4], None);
}

/// The peeling rule written the slow, obvious way.
fn naive_core(m: &FragMatrix, cfg: &StaticConfig) -> Vec<u32> {
    let inc = m.incidents();
    let met = |a: u32, b: u32| {
        m.pairs
            .iter()
            .find(|p| (p.i, p.j) == (a.min(b), a.max(b)))
            .map_or(0, |p| p.met())
    };
    let mut set: Vec<u32> = (0..m.n as u32)
        .filter(|&i| inc[i as usize] >= u64::from(cfg.min_incidents))
        .collect();
    loop {
        let partners = |i: u32| {
            set.iter()
                .filter(|&&j| j != i && met(i, j) >= u64::from(cfg.min_pair_frags.max(1)))
                .count()
        };
        if set.iter().all(|&i| partners(i) + 1 == set.len()) {
            break;
        }
        let worst = *set
            .iter()
            .min_by_key(|&&i| (partners(i), inc[i as usize], std::cmp::Reverse(i)))
            .unwrap();
        set.retain(|&i| i != worst);
    }
    if set.len() < 2 { Vec::new() } else { set }
}

proptest::proptest! {
    #[test]
    fn peeling_matches_the_obvious_algorithm(
        n in 2usize..12,
        raw in proptest::collection::vec((0u32..12, 0u32..12, 0u32..9), 0..60),
        min_pair in 1u32..6,
        min_inc in 0u32..30,
    ) {
        let counts: Vec<(u32, u32, u32)> = raw
            .into_iter()
            .filter(|(a, b, _)| (*a as usize) < n && (*b as usize) < n)
            .collect();
        let m = FragMatrix::from_counts(n, counts);
        let cfg = StaticConfig { min_pair_frags: min_pair, min_incidents: min_inc };
        proptest::prop_assert_eq!(core(&m, &m.incidents(), &cfg), naive_core(&m, &cfg));
        // The exact least squares satisfies the normal equations L g = b.
        let g = least_squares(&m);
        for i in 0..n {
            let mut lg = 0.0;
            let mut b = 0.0;
            for p in &m.pairs {
                let (gi, gj) = (g[p.i as usize].unwrap(), g[p.j as usize].unwrap());
                if p.i as usize == i { lg += gi - gj; b += p.r(); }
                if p.j as usize == i { lg += gj - gi; b -= p.r(); }
            }
            proptest::prop_assert!((lg - b).abs() < 1e-7, "row {}: {} vs {}", i, lg, b);
        }
    }
}

proptest::proptest! {
    #[test]
    fn rows_give_the_matrix_of_the_sorted_counts(
        n in 1usize..20,
        raw in proptest::collection::vec((0u32..20, 0u32..20, 0u32..4), 0..120),
    ) {
        // Each killer's victims as the counts keep them (zero counts and self-kills included).
        let mut rows = vec![BTreeMap::<u32, u32>::new(); n];
        for (k, v, c) in raw {
            if (k as usize) < n && (v as usize) < n {
                *rows[k as usize].entry(v).or_default() += c;
            }
        }
        let counts = rows
            .iter()
            .enumerate()
            .flat_map(|(k, row)| row.iter().map(move |(&v, &c)| (k as u32, v, c)));
        proptest::prop_assert_eq!(
            FragMatrix::from_rows(rows.iter()),
            FragMatrix::from_counts(n, counts)
        );
    }
}
