//! Test helpers: the real logs of `../shared/data`, read as a build reads them.

use crate::model::Match;
use crate::model::identity::{Aliases, Roster};

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
