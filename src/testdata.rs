//! Test helpers: the real logs of `../shared/data`, read as a build reads them.

use crate::model::identity::{Aliases, Roster};
use crate::model::{Events, GameType, Match, MatchPlayer, Team};

/// The matches of `../shared/data/<set>` in site order, and their roster.
pub fn history(set: &str) -> (Vec<Match>, Roster) {
    let root = std::path::PathBuf::from(format!(
        "{}/../shared/data/{set}",
        env!("CARGO_MANIFEST_DIR")
    ));
    let (matches, _) = crate::build::read_logs(&[root]).expect("the shared logs are readable");
    let roster = Roster::build(&matches, &Aliases::default());
    (matches, roster)
}

/// A match of game type `gametype` (`ctf` is team based, `duel` a duel) with these players,
/// all active, and no events: the start of hand-made cases.
pub fn bare_match(gametype: &str, players: &[(&str, Team)]) -> Match {
    Match {
        id: String::new(),
        content: 0,
        open: false,
        number: 0,
        source: "t.log".into(),
        file_index: 0,
        line: 1,
        map: "m".into(),
        game: "quake3".into(),
        gametype: GameType {
            code: gametype.into(),
            name: gametype.into(),
            team_based: gametype == "ctf",
            duel: gametype == "duel",
        },
        server: String::new(),
        start: None,
        duration_seconds: 0,
        exit_reason: None,
        team_scores: None,
        partial: false,
        players: players
            .iter()
            .map(|(n, t)| MatchPlayer {
                plain: n.to_string(),
                name: n.to_string(),
                score: None,
                team: *t,
                joined: 0,
                left: None,
                active: true,
                bot_skill: None,
                uid: None,
                bot: false,
            })
            .collect(),
        events: Events::default(),
        weapons: vec!["MOD_X".into()],
        awards: Vec::new(),
        rounds: Vec::new(),
    }
}
