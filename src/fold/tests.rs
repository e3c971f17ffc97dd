use super::*;
use crate::config::ClanConfig;
use crate::model::Match;
use crate::model::identity::Aliases;
use crate::testdata::history;

/// Two declared clans splitting the bots by a letter of their names: unlike detected clans,
/// whose membership waits for a second player with the tag, these hold from the first match.
fn clans_of(roster: &Roster) -> Clans {
    let clan = |name: &str, letter: &str| ClanConfig {
        name: name.into(),
        prefix: vec![],
        suffix: vec![],
        contains: vec![letter.into()],
    };
    Clans::assign(roster, &[clan("Es", "e"), clan("As", "a")], false)
}

/// The folds of `matches` resumed from `checkpoint`, restored under `cfg` as a build does.
fn resumed(
    matches: &[Match],
    roster: &Roster,
    clans: &Clans,
    cfg: &RatingConfig,
    checkpoint: Checkpoint<'static>,
) -> Folds {
    fold(
        crate::model::MatchList::from(matches),
        roster,
        clans,
        cfg,
        Some(checkpoint.restore(cfg)),
    )
}

/// The checkpoint a previous build of `matches` alone would have saved, through its bytes, with
/// clans assigned by `assign`.
fn checkpoint_after(
    matches: &[Match],
    cfg: &RatingConfig,
    assign: impl Fn(&Roster) -> Clans,
) -> Checkpoint<'static> {
    let roster = Roster::build(matches, &Aliases::default());
    let clans = assign(&roster);
    let folds = fold(
        crate::model::MatchList::from(matches),
        &roster,
        &clans,
        cfg,
        None,
    );
    let checkpoint = folds.continuation.unwrap().checkpoint(
        &folds.stats,
        matches.len(),
        &roster,
        &clans,
        cfg,
        Tallies::default(),
    );
    let bytes = crate::state::encode_checkpoint(&checkpoint).unwrap();
    crate::state::decode_checkpoint(&bytes).expect("a checkpoint reads back")
}

type Outcome = (
    Stats,
    DynamicRatings,
    String,
    Vec<f64>,
    Vec<Vec<(u32, f64)>>,
);

/// Everything the folds give, comparable (the evaluation through its JSON, the headline's
/// ratings and curves apart since the JSON skips them).
fn outcome(f: &Folds) -> Outcome {
    (
        f.stats.clone(),
        f.dynamic.clone(),
        serde_json::to_string(&f.evaluation).unwrap(),
        f.evaluation.headline_ratings.clone(),
        (0..f.evaluation.headline_curves.count())
            .map(|i| {
                (f.evaluation.headline_curves.points(i))
                    .map(|p| p.pair())
                    .collect()
            })
            .collect(),
    )
}

/// Resuming the checkpoint of a previous build that saw only the first matches (so had fewer
/// players, numbered differently) gives the same counts, ladder and evaluation, to the bit, as
/// one fold over everything.
#[test]
fn resumed_folds_equal_one_fold() {
    let (matches, roster) = history("openarena");
    let clans = clans_of(&roster);
    assert!(clans.of_player.iter().flatten().count() >= 4);
    let cfg = RatingConfig::default();
    let expected = outcome(&fold((&matches).into(), &roster, &clans, &cfg, None));
    let mut renumbered = 0;
    for cut in [1, 2, 5, matches.len() / 3, matches.len() - 1] {
        let checkpoint = checkpoint_after(&matches[..cut], &cfg, clans_of);
        renumbered += usize::from(checkpoint.keys.len() < roster.players.len());
        let folds = resumed(&matches, &roster, &clans, &cfg, checkpoint);
        assert_eq!(folds.replayed, Replayed::Resumed(cut), "cut after {cut}");
        assert!(outcome(&folds) == expected, "cut after {cut}");
    }
    assert!(
        renumbered >= 2,
        "newcomers after the cut renumber the saved folds"
    );
}

/// Renumbering rewrites only what names a player whose number moved: a checkpoint whose
/// players all keep their numbers (the newcomers sort after them) and one where a newcomer
/// sorts before some of them both resume to the bits of one fold.
#[test]
fn resumed_folds_equal_one_fold_whether_numbers_move_or_not() {
    let (matches, roster) = history("openarena");
    let clans = clans_of(&roster);
    let cfg = RatingConfig::default();
    let expected = outcome(&fold((&matches).into(), &roster, &clans, &cfg, None));
    let (mut kept, mut moved) = (false, false);
    for cut in 1..matches.len() {
        let checkpoint = checkpoint_after(&matches[..cut], &cfg, clans_of);
        let numbers = checkpoint.player_numbers(&roster).unwrap();
        let same = numbers.iter().enumerate().all(|(i, &n)| n as usize == i);
        if (same && kept) || (!same && moved) {
            continue;
        }
        let folds = resumed(&matches, &roster, &clans, &cfg, checkpoint);
        assert_eq!(folds.replayed, Replayed::Resumed(cut), "cut after {cut}");
        assert!(outcome(&folds) == expected, "cut after {cut}");
        kept |= same;
        moved |= !same;
        if kept && moved {
            break;
        }
    }
    assert!(kept && moved, "both kinds of cut are tried");
}

/// The checkpoint file is written without flushing it to disk (it is a cache): what a crash
/// can leave of it (a zeroed or cut tail, a zero-length file), or a byte changed, is refused by
/// its checksum, never read as a checkpoint.
#[test]
fn a_checkpoint_torn_by_a_crash_is_refused() {
    let (matches, roster) = history("openarena/tdm");
    let cfg = RatingConfig::default();
    let folds = fold(
        crate::model::MatchList::from(&matches),
        &roster,
        &clans_of(&roster),
        &cfg,
        None,
    );
    let checkpoint = folds.continuation.unwrap().checkpoint(
        &folds.stats,
        matches.len(),
        &roster,
        &clans_of(&roster),
        &cfg,
        Tallies::default(),
    );
    let bytes = crate::state::encode_checkpoint(&checkpoint).unwrap();
    let dir = tempfile::tempdir().unwrap();
    crate::state::CheckpointSave::from_bytes(dir.path(), &bytes, true)
        .commit()
        .unwrap();
    assert!(crate::state::load_checkpoint(dir.path(), &cfg).is_some());
    let len = bytes.len();
    let mut torn = vec![
        bytes[..len / 2].to_vec(),
        bytes[..len - 1].to_vec(),
        Vec::new(),
    ];
    for from in [len / 2, len - 8] {
        let mut zeroed = bytes.clone();
        zeroed[from..].fill(0);
        torn.push(zeroed);
    }
    // A changed byte that still decodes (a rating, say): refused by the checksum, which is
    // checked beside the decoding.
    let body = len - postcard::to_allocvec(&checkpoint).unwrap().len();
    let flipped = (len / 2..len)
        .find_map(|i| {
            let mut b = bytes.clone();
            b[i] ^= 0x10;
            postcard::from_bytes::<Checkpoint>(&b[body..])
                .is_ok()
                .then_some(b)
        })
        .expect("a byte whose change still decodes");
    torn.push(flipped);
    for (k, damaged) in torn.iter().enumerate() {
        crate::state::CheckpointSave::from_bytes(dir.path(), damaged, true)
            .commit()
            .unwrap();
        assert!(
            crate::state::load_checkpoint(dir.path(), &cfg).is_none(),
            "torn checkpoint {k} read"
        );
    }
    // Encoded straight into the file, over a spare of another length or to a new file: the
    // same bytes, read back.
    for in_place in [true, true, false] {
        crate::state::CheckpointSave::write(dir.path(), &checkpoint, in_place)
            .commit()
            .unwrap();
        let file = std::fs::read(dir.path().join("ratings.bin")).unwrap();
        assert!(file == bytes, "written in place {in_place}");
        assert!(crate::state::load_checkpoint(dir.path(), &cfg).is_some());
    }
}

/// A checkpoint is refused, and everything folded from the first match, when what it saw
/// changed: the order of the matches, an alias rule, the rating configuration, a clan, or when
/// the build has fewer matches.
#[test]
fn checkpoint_refused_when_history_config_or_clans_changed() {
    let (matches, roster) = history("openarena/tdm");
    assert!(matches.len() >= 3);
    let cfg = RatingConfig::default();
    let clans = clans_of(&roster);
    let cut = matches.len() - 1;
    let saved = checkpoint_after(&matches[..cut], &cfg, clans_of);
    let refused = |matches: &[Match], roster: &Roster, clans: &Clans, cfg: &RatingConfig| {
        let replayed = resumed(matches, roster, clans, cfg, saved.clone()).replayed;
        match replayed {
            Replayed::Refused(why) => why,
            other => panic!("resumed: {other:?}"),
        }
    };
    assert_eq!(
        resumed(&matches, &roster, &clans, &cfg, saved.clone()).replayed,
        Replayed::Resumed(cut)
    );
    let mut reordered = matches.clone();
    reordered.swap(0, 2);
    let reordered_roster = Roster::build(&reordered, &Aliases::default());
    let why = refused(
        &reordered,
        &reordered_roster,
        &clans_of(&reordered_roster),
        &cfg,
    );
    assert!(why.contains("matches before"), "{why}");

    let first = crate::model::names::plain_name(&matches[0].players[0].name);
    let aliases = Aliases::new(&[("Somebody Else".to_string(), vec![first])].into());
    let aliased = Roster::build(&matches, &aliases);
    let why = refused(&matches, &aliased, &clans_of(&aliased), &cfg);
    assert!(why.contains("aliases"), "{why}");

    let mut decay = cfg.clone();
    decay.whole_history.decay = 0.98;
    assert!(refused(&matches, &roster, &clans, &decay).contains("configuration"));
    let mut evaluation = cfg.clone();
    evaluation.evaluation = !cfg.evaluation;
    assert!(refused(&matches, &roster, &clans, &evaluation).contains("configuration"));

    // Restored under one configuration and resumed under another: refused either way round,
    // though the checkpoint fits one of them.
    let mixed = |restored: &RatingConfig, resumed: &RatingConfig| {
        let restored = saved.clone().restore(restored);
        fold(
            crate::model::MatchList::from(&matches),
            &roster,
            &clans,
            resumed,
            Some(restored),
        )
        .replayed
    };
    for (a, b) in [(&cfg, &decay), (&decay, &cfg)] {
        let replayed = mixed(a, b);
        assert!(
            matches!(&replayed, Replayed::Refused(why) if why.contains("configuration")),
            "{replayed:?}"
        );
    }

    let detected = Clans::assign(&roster, &[], true);
    assert!(refused(&matches, &roster, &detected, &cfg).contains("clan"));
    let fewer = &matches[..cut - 1];
    let fewer_roster = Roster::build(fewer, &Aliases::default());
    let why = refused(fewer, &fewer_roster, &clans_of(&fewer_roster), &cfg);
    assert!(why.contains("matches"), "{why}");
}

/// A clan that forms only with a newcomer changes the clan of a player already rated: the
/// ladder cannot be carried over.
#[test]
fn a_clan_forming_later_refuses_the_checkpoint() {
    let (matches, roster) = history("openarena");
    let detect = |roster: &Roster| Clans::assign(roster, &[], true);
    let clans = detect(&roster);
    let cfg = RatingConfig::default();
    // The longest start of the history in which some member of a clan is still clanless.
    let cut = (1..matches.len())
        .rev()
        .find(|&cut| {
            let early = Roster::build(&matches[..cut], &Aliases::default());
            let early_clans = detect(&early);
            early.players.iter().enumerate().any(|(i, p)| {
                early_clans.of_player[i].is_none()
                    && roster
                        .players
                        .iter()
                        .position(|q| q.key == p.key)
                        .is_some_and(|j| clans.of_player[j].is_some())
            })
        })
        .expect("the [OA] clan forms part-way through the bot logs");
    let checkpoint = checkpoint_after(&matches[..cut], &cfg, detect);
    let folds = resumed(&matches, &roster, &clans, &cfg, checkpoint);
    match &folds.replayed {
        Replayed::Refused(why) => assert!(why.contains("clan"), "{why}"),
        other => panic!("resumed: {other:?}"),
    }
    assert!(outcome(&folds) == outcome(&fold((&matches).into(), &roster, &clans, &cfg, None)));
}

/// The headline's curve has one point per match a player played, in order, then the
/// published value at the last one; Becker's headline draws its own ladder history instead.
#[test]
fn headline_curve_has_a_point_per_match_played_and_ends_at_the_published_value() {
    use crate::config::HeadlineSystem;
    use crate::rating::Ratings;
    let (matches, roster) = history("openarena");
    let clans = clans_of(&roster);
    for system in [
        HeadlineSystem::WholeHistory,
        HeadlineSystem::Glicko2,
        HeadlineSystem::Trueskill,
        HeadlineSystem::Ns2,
        HeadlineSystem::Xlrstats,
        HeadlineSystem::Kd,
        HeadlineSystem::Becker,
    ] {
        let mut cfg = RatingConfig::default();
        cfg.headline.system = system;
        let folds = fold((&matches).into(), &roster, &clans, &cfg, None);
        let ratings = Ratings::compute(folds.dynamic, folds.evaluation, folds.static_, &cfg);
        let headline = &ratings.headline;
        if system == HeadlineSystem::Becker {
            assert!((0..roster.players.len()).all(|i| headline.curve(i).next().is_none()));
            continue;
        }
        assert_eq!(headline.online.count(), roster.players.len(), "{system:?}");
        for i in 0..roster.players.len() {
            let points: Vec<(u32, f64)> = headline.curve(i).collect();
            assert_eq!(points.len(), headline.curve_len(i));
            for (n, &point) in points.iter().enumerate() {
                assert_eq!(headline.curve_point(i, n), point);
            }
            let played: Vec<u32> = roster
                .match_players
                .iter()
                .enumerate()
                .filter(|(_, ids)| ids.contains(&(i as u32)))
                .map(|(m, _)| m as u32)
                .collect();
            assert!(!played.is_empty());
            let numbers: Vec<u32> = points.iter().map(|&(n, _)| n).collect();
            assert_eq!(
                numbers[..numbers.len() - 1],
                played[..],
                "{system:?} player {i}"
            );
            assert_eq!(numbers.last(), played.last(), "{system:?} player {i}");
            assert_eq!(
                points.last().unwrap().1,
                headline.value[i],
                "{system:?} player {i}"
            );
            assert!(points.iter().all(|&(_, r)| r.is_finite()), "{system:?}");
        }
    }
}

/// The walk over both key lists finds the numbers a table of the roster's keys finds, and
/// nothing when a saved key is missing or out of order (the table then says why).
#[test]
fn walked_player_numbers_are_the_looked_up_ones() {
    let (matches, roster) = history("openarena");
    let cfg = RatingConfig::default();
    let mut saved = checkpoint_after(&matches[..2], &cfg, clans_of);
    assert!(
        saved.keys.len() < roster.players.len(),
        "newcomers move numbers"
    );
    let looked_up: Vec<u32> = (saved.keys.iter())
        .map(|k| roster.players.iter().position(|p| p.key == *k).unwrap() as u32)
        .collect();
    assert_eq!(saved.walked_numbers(&roster), Some(looked_up.clone()));
    assert_eq!(saved.player_numbers(&roster), Ok(looked_up));
    saved.keys.swap(0, 1);
    assert_eq!(saved.walked_numbers(&roster), None);
    assert!(
        saved
            .player_numbers(&roster)
            .unwrap_err()
            .contains("differently")
    );
    saved.keys[0] = "nobody who played".into();
    assert_eq!(saved.walked_numbers(&roster), None);
    assert!(saved.player_numbers(&roster).unwrap_err().contains("gone"));
}

/// Without curves (a game type's or season's ladder), the folds are the same but for the
/// headline's curves and the matches' lines, which are not drawn up.
#[test]
fn folds_without_curves_differ_only_by_them() {
    let (matches, roster) = history("openarena");
    let clans = clans_of(&roster);
    let cfg = RatingConfig {
        evaluation: false,
        ..RatingConfig::default()
    };
    let drawn = outcome(&fold((&matches).into(), &roster, &clans, &cfg, None));
    let undrawn = outcome(&fold_without_curves(
        crate::model::MatchList::from(&matches),
        &roster,
        &clans,
        &cfg,
    ));
    assert!(drawn.4.iter().any(|c| !c.is_empty()));
    assert!(undrawn.4.iter().all(Vec::is_empty));
    let (mut with_lines, without) = (drawn.0.clone(), &undrawn.0);
    assert!(with_lines.matches.iter().any(|m| !m.lines.is_empty()));
    assert!(without.matches.iter().all(|m| m.lines.is_empty()));
    assert_eq!(with_lines.players, without.players);
    for (m, n) in with_lines.matches.iter_mut().zip(&without.matches) {
        m.lines = n.lines.clone();
    }
    assert_eq!(with_lines.matches, without.matches);
    assert_eq!(
        (&with_lines.maps, &with_lines.names),
        (&without.maps, &without.names)
    );
    assert_eq!((&drawn.1, &drawn.3), (&undrawn.1, &undrawn.3));
    assert_eq!(drawn.2, undrawn.2);
}

/// Becker's and the headline's curves written out to the state folder but for their newest
/// points ([`Ladder::spill_curves_to`], the replay's spill folder) give the folds and the
/// checkpoint's bytes of curves held in memory, on a history whose regulars' curves run over
/// several blocks.
#[test]
fn folds_writing_their_curves_out_equal_folds_holding_them() {
    let (once, _) = history("openarena");
    let matches: Vec<Match> = (0..30).flat_map(|_| once.iter().cloned()).collect();
    let roster = Roster::build(&matches, &Aliases::default());
    let clans = clans_of(&roster);
    let cfg = RatingConfig::default();
    let dir = tempfile::tempdir().unwrap();
    let block = crate::rating::curves::BLOCK;
    let checkpoint = |folds: Folds| {
        let checkpoint = folds.continuation.unwrap().checkpoint(
            &folds.stats,
            matches.len(),
            &roster,
            &clans,
            &cfg,
            Tallies::default(),
        );
        crate::state::encode_checkpoint(&checkpoint).unwrap()
    };
    let held = fold((&matches).into(), &roster, &clans, &cfg, None);
    let (mut written, followers) = fold_ahead(
        crate::model::MatchList::from(&matches),
        &roster,
        &clans,
        &cfg,
        None,
        CheckpointRule::EVERY_BUILD,
        Some(dir.path()),
        true,
    );
    let comparison = followers.finish(true);
    let continuation = written.continuation.as_mut().unwrap();
    comparison.complete(&mut written.evaluation, &mut continuation.evaluation);
    let longest = |f: &Folds| {
        (0..roster.players.len())
            .map(|i| {
                let headline = f.evaluation.headline_curves.len(i);
                f.dynamic.history.len(i).min(headline)
            })
            .max()
            .unwrap()
    };
    assert!(longest(&written) > 2 * block, "{}", longest(&written));
    assert!(outcome(&written) == outcome(&held));
    assert!(checkpoint(written) == checkpoint(held));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
