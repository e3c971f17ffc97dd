//! `data/matches.json` written by hand, like `players.json` ([`super::players_json`]): on a
//! public server's site it is about 10 MB, remade on every append, and serde's generic pretty
//! printer spent most of its time on the same keys and indents. Keys and indents are literals,
//! each value goes through `serde_json` itself, and the matches are made and written in parallel
//! chunks, so the bytes are exactly what `serde_json::to_vec_pretty` makes of the same
//! [`MatchJson`] list (a test holds the two together).

use anyhow::Result;

use super::data::MatchJson;
use super::pretty_json::{field, par_objects_file};

/// The pretty JSON array of the `count` matches that `one` makes from their positions, with a
/// trailing newline, byte for byte as `serde_json::to_vec_pretty` then `\n` would make it,
/// given to `emit` part after part as its chunks are made (see [`par_objects_file`]).
pub(super) fn write<'a>(
    count: usize,
    one: impl Fn(usize) -> MatchJson<'a> + Sync,
    emit: &mut dyn FnMut(Vec<u8>) -> Result<()>,
) -> Result<()> {
    par_objects_file(count, one, fields, emit)
}

/// One match's fields, in [`MatchJson`]'s order, at the depth of an element of the array.
fn fields(out: &mut Vec<u8>, m: &MatchJson) -> Result<()> {
    field(out, "\n    \"id\": ", &m.id)?;
    field(out, ",\n    \"server\": ", m.server)?;
    field(out, ",\n    \"number\": ", &m.number)?;
    field(out, ",\n    \"url\": ", &m.url)?;
    field(out, ",\n    \"map\": ", &m.map)?;
    field(out, ",\n    \"game\": ", &m.game)?;
    field(out, ",\n    \"gametype\": ", &m.gametype)?;
    field(out, ",\n    \"gametype_name\": ", &m.gametype_name)?;
    field(out, ",\n    \"start\": ", &m.start)?;
    field(out, ",\n    \"duration_seconds\": ", &m.duration_seconds)?;
    field(out, ",\n    \"players\": ", &m.players)?;
    field(out, ",\n    \"kills\": ", &m.kills)?;
    field(out, ",\n    \"suicides\": ", &m.suicides)?;
    field(out, ",\n    \"team_kills\": ", &m.team_kills)?;
    field(out, ",\n    \"source\": ", &m.source)?;
    field(out, ",\n    \"line\": ", &m.line)?;
    field(out, ",\n    \"exit_reason\": ", &m.exit_reason)?;
    match &m.team_scores {
        Some(t) => {
            field(out, ",\n    \"team_scores\": {\n      \"red\": ", &t.red)?;
            field(out, ",\n      \"blue\": ", &t.blue)?;
            out.extend_from_slice(b"\n    }");
        }
        None => out.extend_from_slice(b",\n    \"team_scores\": null"),
    }
    field(out, ",\n    \"partial\": ", &m.partial)?;
    field(out, ",\n    \"predicted_red_win\": ", &m.predicted_red_win)?;
    field(out, ",\n    \"fairest_red_win\": ", &m.fairest_red_win)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::data::TeamScores;
    use crate::render::pretty_json::collected;

    fn sample(n: u32) -> MatchJson<'static> {
        MatchJson {
            id: crate::model::HeadId::Text("2024-01-02 \"x\"\\<y>\u{1}é"),
            server: if n == 1 { "" } else { "^1Srv\t" },
            number: n,
            url: "matches/m1.html".into(),
            map: "q3dm17".into(),
            game: "quake3".into(),
            gametype: "ctf".into(),
            gametype_name: "Capture the Flag".into(),
            start: (n != 1).then(|| "2024-01-02T03:04:05".to_string()),
            duration_seconds: n * 61,
            players: 3,
            kills: u32::MAX,
            suicides: 0,
            team_kills: 2,
            source: "logs/games.log".into(),
            line: u64::MAX,
            exit_reason: (n == 2).then(|| "Capturelimit hit.".into()),
            team_scores: (n != 0).then_some(TeamScores { red: -1, blue: 8 }),
            partial: n == 1,
            predicted_red_win: match n {
                0 => None,
                1 => Some(f64::NAN),
                _ => Some(0.1 + f64::from(n) / 3.0),
            },
            fairest_red_win: (n == 2).then_some(1e-300),
        }
    }

    /// The hand-written bytes are serde_json's pretty bytes, for empty and non-empty lists,
    /// escaped strings, nulls, team scores and odd floats.
    #[test]
    fn same_bytes_as_serde_json() {
        for count in [0, 1, 3, 5000] {
            let matches: Vec<MatchJson> = (0..count).map(|n| sample(n % 3)).collect();
            let mut want = serde_json::to_vec_pretty(&matches).unwrap();
            want.push(b'\n');
            let got = collected(|emit| write(matches.len(), |i| sample(i as u32 % 3), emit));
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
                "{count} matches"
            );
        }
    }
}
