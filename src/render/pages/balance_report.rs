//! The site-wide balance report on `balance.html`: how often team matches were lopsided as
//! played, how often the fairest split of the same players would have been, and how often they
//! ended in a stomp, per month and per server.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::render::helpers::percent;
use crate::render::pages::match_page;
use crate::render::renderer::Renderer;

/// A line-up is lopsided when the favourite's predicted chance is at least this (2:1 odds).
pub const LOPSIDED: f64 = 2.0 / 3.0;

/// A result is a stomp when the winner scored at least twice the loser's score and at least
/// this many points more (so 1:0 and 2:0 are not stomps, 3:0 and 50:24 are).
pub const STOMP_MARGIN: i32 = 3;

/// One row of the report.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BalanceRow {
    /// Month (`2026-11`), server name, or "All".
    pub label: String,
    /// Team matches with a prediction and a final score.
    pub matches: u32,
    /// Share of them (%) whose line-up as played was lopsided.
    pub lopsided: u32,
    /// Share (%) that would have been lopsided with the fairest split of the same players.
    pub lopsided_fairest: u32,
    /// Share (%) that ended in a stomp.
    pub stomps: u32,
    /// Share (%) of stomps among the lopsided line-ups, and among the others.
    pub stomps_lopsided: Option<u32>,
    pub stomps_even: Option<u32>,
}

/// The report: every team match, then per month (undated ones apart) and per server.
#[derive(Debug, Clone, Serialize, Default)]
pub struct BalanceReport {
    pub total: Option<BalanceRow>,
    pub months: Vec<BalanceRow>,
    pub servers: Vec<BalanceRow>,
    /// The thresholds, in words for the page.
    pub lopsided_percent: u32,
    pub stomp_margin: i32,
}

/// Counts behind a row.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    matches: u32,
    lopsided: u32,
    lopsided_fairest: u32,
    stomps: u32,
    stomps_lopsided: u32,
}

impl Tally {
    fn add(&mut self, lopsided: bool, lopsided_fairest: bool, stomp: bool) {
        self.matches += 1;
        self.lopsided += u32::from(lopsided);
        self.lopsided_fairest += u32::from(lopsided_fairest);
        self.stomps += u32::from(stomp);
        self.stomps_lopsided += u32::from(stomp && lopsided);
    }

    fn row(&self, label: String) -> BalanceRow {
        let even = self.matches - self.lopsided;
        BalanceRow {
            label,
            matches: self.matches,
            lopsided: percent(self.lopsided, self.matches),
            lopsided_fairest: percent(self.lopsided_fairest, self.matches),
            stomps: percent(self.stomps, self.matches),
            stomps_lopsided: (self.lopsided > 0)
                .then(|| percent(self.stomps_lopsided, self.lopsided)),
            stomps_even: (even > 0).then(|| percent(self.stomps - self.stomps_lopsided, even)),
        }
    }
}

/// The favourite's chance is at least [`LOPSIDED`].
fn lopsided(p: f64) -> bool {
    p >= LOPSIDED || p <= 1.0 - LOPSIDED
}

/// The final score `[red, blue]` is a stomp.
pub fn stomp([red, blue]: [i32; 2]) -> bool {
    let (high, low) = (red.max(blue), red.min(blue));
    high - low >= STOMP_MARGIN && high >= 2 * low.max(0)
}

/// The balance report over every team match with a prediction and a final score.
pub(in crate::render) fn balance_report(r: &Renderer) -> BalanceReport {
    let (mut total, mut months, mut servers) = (
        Tally::default(),
        BTreeMap::<String, Tally>::new(),
        BTreeMap::<&str, Tally>::new(),
    );
    for (i, m) in r.input.matches.heads().enumerate() {
        let (Some(p), Some(fair)) = (
            match_page::predicted_red_win(r, i),
            match_page::fairest_red_win(r, i),
        ) else {
            continue;
        };
        let Some(score) = m.final_team_scores() else {
            continue;
        };
        let add = |t: &mut Tally| t.add(lopsided(p), lopsided(fair), stomp(score));
        add(&mut total);
        let month = m
            .start
            .map_or_else(|| "undated".to_string(), |t| t.format("%Y-%m").to_string());
        add(months.entry(month).or_default());
        add(servers.entry(r.links.match_servers.name(i)).or_default());
    }
    let mut servers: Vec<BalanceRow> = servers
        .into_iter()
        .map(|(name, t)| t.row(name.to_string()))
        .collect();
    servers.sort_by(|a, b| b.matches.cmp(&a.matches).then(a.label.cmp(&b.label)));
    BalanceReport {
        total: (total.matches > 0).then(|| total.row("All".into())),
        months: months.into_iter().rev().map(|(k, t)| t.row(k)).collect(),
        servers,
        lopsided_percent: (LOPSIDED * 100.0).round() as u32,
        stomp_margin: STOMP_MARGIN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stomps_and_lopsided_line_ups_by_the_stated_rules() {
        for (score, expected) in [
            ([3, 0], true),
            ([0, 3], true),
            ([2, 0], false),
            ([1, 0], false),
            ([50, 24], true),
            ([50, 26], false),
            ([16, 5], true),
            ([5, 5], false),
        ] {
            assert_eq!(stomp(score), expected, "{score:?}");
        }
        assert!(lopsided(0.7) && lopsided(0.3) && !lopsided(0.6) && !lopsided(0.4));
        let mut t = Tally::default();
        t.add(true, false, true);
        t.add(true, false, false);
        t.add(false, false, false);
        t.add(false, true, false);
        let row = t.row("All".into());
        assert_eq!(
            (row.matches, row.lopsided, row.lopsided_fairest, row.stomps),
            (4, 50, 25, 25)
        );
        assert_eq!((row.stomps_lopsided, row.stomps_even), (Some(50), Some(0)));
    }
}
