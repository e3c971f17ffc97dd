//! [`PerMatch`]: a value the team model gives some matches of the history (a prediction, a
//! margin), held for those matches only. Not the values' computation (see [`super::replay`]).

/// Values by match number in the order rated, held only for the matches that have one: the
/// team model predicts team matches with players on both sides, which a history of
/// free-for-all and duel matches has none of. A value per match of the history (16 bytes
/// each, three lists) was 3 MB at 64,000 matches that held nothing (issue 41).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PerMatch(Vec<(u32, f64)>);

impl PerMatch {
    /// The values of `known` (match number, value), for the matches numbered under `matches`:
    /// the last value given for a match is its value.
    pub fn from_known(known: impl IntoIterator<Item = (u64, f64)>, matches: u64) -> PerMatch {
        let mut given: Vec<(u32, f64)> = (known.into_iter())
            .filter(|&(m, _)| m < matches)
            .filter_map(|(m, value)| Some((u32::try_from(m).ok()?, value)))
            .collect();
        // Stable: a match's values keep the order they were given in.
        given.sort_by_key(|&(m, _)| m);
        let mut values: Vec<(u32, f64)> = Vec::with_capacity(given.len());
        for (m, value) in given {
            match values.last_mut() {
                Some(last) if last.0 == m => last.1 = value,
                _ => values.push((m, value)),
            }
        }
        values.shrink_to_fit();
        PerMatch(values)
    }

    /// The value of match `m`, if it has one.
    pub fn get(&self, m: usize) -> Option<f64> {
        let m = u32::try_from(m).ok()?;
        let at = self.0.binary_search_by_key(&m, |&(n, _)| n).ok()?;
        Some(self.0[at].1)
    }

    /// A value or none for each of the first `matches` matches, in order.
    #[cfg(test)]
    pub fn dense(&self, matches: usize) -> Vec<Option<f64>> {
        (0..matches).map(|m| self.get(m)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a value per match gave: the last value given for a match wins, a match numbered
    /// past the history has none, and a match never given a value has none.
    #[test]
    fn holds_what_a_value_per_match_held() {
        let known = [(4, 0.25), (1, 0.5), (4, 0.75), (9, 0.1), (2, 0.0)];
        let mut dense = vec![None; 6];
        for &(m, value) in &known {
            if let Some(slot) = dense.get_mut(m as usize) {
                *slot = Some(value);
            }
        }
        let values = PerMatch::from_known(known, 6);
        assert_eq!(values.dense(6), dense);
        assert_eq!(values.get(4), Some(0.75));
        assert_eq!(
            (values.get(3), values.get(9), values.get(usize::MAX)),
            (None, None, None)
        );
        assert_eq!(PerMatch::default().dense(2), [None, None]);
    }
}
