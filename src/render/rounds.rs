//! The round strip of a Counter-Strike or Team Fortress 2 match page: who won each round, in
//! order. Builds a view from [`Match::rounds`]; the template draws it.

use serde::Serialize;

use crate::model::{Match, Team};

/// One round in the strip.
#[derive(Debug, Clone, Serialize)]
pub struct RoundCell {
    /// 1-based round number.
    pub n: usize,
    /// CSS class of the winner: `red`, `blue` or `draw`.
    pub winner: &'static str,
    /// Tooltip: the side's label and how the log says the round was won.
    pub title: String,
}

/// The rounds of a match page.
#[derive(Debug, Clone, Serialize)]
pub struct RoundStrip {
    /// The game's names for the red and blue sides (`T`/`CT`, `RED`/`BLU`).
    pub red_label: &'static str,
    pub blue_label: &'static str,
    pub red_wins: usize,
    pub blue_wins: usize,
    pub cells: Vec<RoundCell>,
}

/// The strip of `m`: only for Counter-Strike and Team Fortress 2 matches that logged rounds.
pub fn round_strip(m: &Match) -> Option<RoundStrip> {
    let (red_label, blue_label) = match m.game.as_str() {
        "cs16" | "css" | "csgo" | "cs2" => ("T", "CT"),
        "tf2" => ("RED", "BLU"),
        _ => return None,
    };
    if m.rounds.is_empty() {
        return None;
    }
    let cells: Vec<RoundCell> = m
        .rounds
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let (winner, side) = match r.winner {
                Team::Red => ("red", red_label),
                Team::Blue => ("blue", blue_label),
                _ => ("draw", "Draw"),
            };
            // `how` is log text: the template escapes it.
            let how = r.how.strip_prefix("SFUI_Notice_").unwrap_or(&r.how);
            RoundCell {
                n: i + 1,
                winner,
                title: format!("Round {}: {side} ({})", i + 1, how.replace('_', " ")),
            }
        })
        .collect();
    Some(RoundStrip {
        red_label,
        blue_label,
        red_wins: cells.iter().filter(|c| c.winner == "red").count(),
        blue_wins: cells.iter().filter(|c| c.winner == "blue").count(),
        cells,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Round;

    #[test]
    fn strip_for_round_games_only() {
        let mut m = crate::testdata::bare_match("tdm", &[("a", Team::Red), ("b", Team::Blue)]);
        m.rounds = vec![
            Round {
                end: 10,
                winner: Team::Blue,
                how: "SFUI_Notice_CTs_Win".into(),
            },
            Round {
                end: 20,
                winner: Team::Red,
                how: "Target_Bombed".into(),
            },
        ]
        .into();
        assert!(round_strip(&m).is_none(), "a Quake 3 match has no strip");
        m.game = "cs2".into();
        let s = round_strip(&m).unwrap();
        assert_eq!((s.red_wins, s.blue_wins), (1, 1));
        assert_eq!(s.cells[0].title, "Round 1: CT (CTs Win)");
        assert_eq!(s.cells[1].winner, "red");
    }
}
