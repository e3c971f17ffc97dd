//! Calibration of team predictions: a reliability diagram (predicted P(red wins) against how
//! often red won, in bins) and its expected calibration error, as the evaluation reports them.

use serde::{Deserialize, Serialize};

/// Number of bins of a reliability diagram (each 0.1 of predicted probability wide).
pub const BINS: usize = 10;

/// One bin of a reliability diagram.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bin {
    /// Lower edge of the predicted P(red wins) (inclusive).
    pub from: f64,
    /// Upper edge (exclusive, except 1 for the last bin).
    pub to: f64,
    /// Team results predicted in the bin.
    pub matches: u64,
    /// Mean prediction in the bin.
    pub predicted: f64,
    /// Share of the bin's results red won.
    pub observed: f64,
    /// The standard error `observed` would have around `predicted` if the predictions were
    /// calibrated (independent results): √(Σ p(1 − p)) / matches. A gap within about two of
    /// these is what chance alone gives.
    pub se: f64,
}

/// Predictions against outcomes in [`BINS`] bins, and the expected calibration error (the
/// results-weighted mean of |predicted − observed| over the bins).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Reliability {
    /// Bins with at least one result, lowest first.
    pub bins: Vec<Bin>,
    /// Expected calibration error (0 = calibrated; in probability, not points).
    pub ece: f64,
    /// Team results binned.
    pub matches: u64,
}

impl Reliability {
    /// The largest |predicted − observed| over the bins holding at least `min` results (None
    /// when no bin holds that many).
    pub fn worst_gap(&self, min: u64) -> Option<f64> {
        self.bins
            .iter()
            .filter(|b| b.matches >= min)
            .map(|b| (b.predicted - b.observed).abs())
            .max_by(f64::total_cmp)
    }
}

/// Running sums of a reliability diagram: per bin the results, the sum of the predictions and
/// the red wins (saved in the evaluation's checkpoint).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    sums: [(u64, f64, f64); BINS],
    /// Per bin: the sum of the squared predictions (for [`Bin::se`]).
    #[serde(default)]
    squares: [f64; BINS],
}

impl Calibration {
    /// One result: `p` the predicted P(red wins), `red_won` what happened.
    pub fn add(&mut self, p: f64, red_won: bool) {
        if !p.is_finite() {
            return;
        }
        let p = p.clamp(0.0, 1.0);
        let bin = ((p * BINS as f64) as usize).min(BINS - 1);
        let s = &mut self.sums[bin];
        s.0 += 1;
        s.1 += p;
        s.2 += f64::from(u8::from(red_won));
        self.squares[bin] += p * p;
    }

    /// The diagram and its expected calibration error.
    pub fn reliability(&self) -> Reliability {
        let total: u64 = self.sums.iter().map(|s| s.0).sum();
        let mut out = Reliability {
            matches: total,
            ..Reliability::default()
        };
        for (i, (&(n, p, w), &squares)) in self.sums.iter().zip(&self.squares).enumerate() {
            if n == 0 {
                continue;
            }
            let bin = Bin {
                from: i as f64 / BINS as f64,
                to: (i + 1) as f64 / BINS as f64,
                matches: n,
                predicted: p / n as f64,
                observed: w / n as f64,
                se: (p - squares).max(0.0).sqrt() / n as f64,
            };
            out.ece += n as f64 / total as f64 * (bin.predicted - bin.observed).abs();
            out.bins.push(bin);
        }
        out
    }
}

/// The reliability of `predictions` (P(red wins) per match, or None) against `red_won` (per
/// match: Some(red won) for a result with a winner), paired by position.
pub fn reliability(predictions: &[Option<f64>], red_won: &[Option<bool>]) -> Reliability {
    let mut c = Calibration::default();
    for (p, won) in predictions.iter().zip(red_won) {
        if let (Some(p), Some(won)) = (p, won) {
            c.add(*p, *won);
        }
    }
    c.reliability()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-worked: bins, their means and the expected calibration error.
    #[test]
    fn reliability_hand_worked() {
        let predictions = [
            Some(0.05),
            Some(0.15),
            Some(0.12),
            None,
            Some(1.0),
            Some(0.95),
        ];
        let won = [
            Some(false),
            Some(true),
            Some(false),
            Some(true),
            Some(true),
            None,
        ];
        let r = reliability(&predictions, &won);
        assert_eq!(
            r.matches, 4,
            "a match without a prediction or winner is left out"
        );
        let bins: Vec<(f64, u64)> = r.bins.iter().map(|b| (b.from, b.matches)).collect();
        assert_eq!(
            bins,
            [(0.0, 1), (0.1, 2), (0.9, 1)],
            "p = 1 falls in the last bin"
        );
        assert!((r.bins[1].predicted - 0.135).abs() < 1e-12);
        assert_eq!(r.bins[1].observed, 0.5);
        // √(0.15·0.85 + 0.12·0.88) / 2; a bin of certain predictions has none.
        let se = (0.15f64 * 0.85 + 0.12 * 0.88).sqrt() / 2.0;
        assert!((r.bins[1].se - se).abs() < 1e-12, "{}", r.bins[1].se);
        assert_eq!(r.bins[2].se, 0.0);
        // ECE = (1·0.05 + 2·|0.135 − 0.5| + 1·0) / 4.
        assert!(
            (r.ece - (0.05 + 2.0 * 0.365) / 4.0).abs() < 1e-12,
            "{}",
            r.ece
        );
        assert!((r.worst_gap(2).unwrap() - 0.365).abs() < 1e-12);
        assert_eq!(r.worst_gap(3), None);
        let mut c = Calibration::default();
        c.add(f64::NAN, true);
        assert_eq!(c.reliability(), Reliability::default());
    }
}
