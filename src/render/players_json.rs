//! `data/players.json` written by hand: on a public server's site it is tens of MB, remade on
//! every append, and serde's generic pretty printer spends most of its time on the same keys and
//! indents over and over. The structure (keys, indents, commas) is written here as literals, each
//! value through `serde_json` itself, so the bytes are exactly what `serde_json::to_vec_pretty`
//! makes of the same [`PlayerJson`] list (a test holds the two together).

use anyhow::Result;

use super::data::PlayerJson;
use super::pretty_json::{array, field, par_objects_file};

/// The pretty JSON array of the `count` players that `player` makes from their positions, with
/// a trailing newline, byte for byte as `serde_json::to_vec_pretty` then `\n` would make it,
/// given to `emit` part after part as its chunks are made (see [`par_objects_file`]).
pub(super) fn write<'a>(
    count: usize,
    player: impl Fn(usize) -> PlayerJson<'a> + Sync,
    emit: &mut dyn FnMut(Vec<u8>) -> Result<()>,
) -> Result<()> {
    par_objects_file(count, player, fields, emit)
}

/// One player's fields, in [`PlayerJson`]'s order, at the depth of an element of the array.
fn fields(out: &mut Vec<u8>, p: &PlayerJson) -> Result<()> {
    field(out, "\n    \"name\": ", p.name)?;
    field(out, ",\n    \"plain_name\": ", p.plain_name)?;
    field(out, ",\n    \"url\": ", p.url)?;
    field(out, ",\n    \"kills\": ", &p.kills)?;
    field(out, ",\n    \"deaths\": ", &p.deaths)?;
    field(out, ",\n    \"suicides\": ", &p.suicides)?;
    field(out, ",\n    \"team_kills\": ", &p.team_kills)?;
    field(out, ",\n    \"captures\": ", &p.captures)?;
    field(out, ",\n    \"headshots\": ", &p.headshots)?;
    field(out, ",\n    \"assists\": ", &p.assists)?;
    field(out, ",\n    \"objectives\": ", &p.objectives)?;
    field(out, ",\n    \"matches\": ", &p.matches)?;
    field(out, ",\n    \"flag_returns\": ", &p.flag_returns)?;
    out.extend_from_slice(b",\n    \"names\": ");
    array(out, p.names, 3, |out, name| field(out, "", name))?;
    field(out, ",\n    \"rating\": ", &p.rating)?;
    field(out, ",\n    \"headline_rating\": ", &p.headline_rating)?;
    field(out, ",\n    \"provisional\": ", &p.provisional)?;
    field(out, ",\n    \"bot\": ", &p.bot)?;
    field(out, ",\n    \"division\": ", &p.division)?;
    field(out, ",\n    \"last_seen\": ", &p.last_seen)?;
    field(out, ",\n    \"active\": ", &p.active)?;
    field(out, ",\n    \"wins\": ", &p.wins)?;
    field(out, ",\n    \"draws\": ", &p.draws)?;
    field(out, ",\n    \"losses\": ", &p.losses)?;
    field(out, ",\n    \"static_rating\": ", &p.static_rating)?;
    field(out, ",\n    \"in_core\": ", &p.in_core)?;
    field(out, ",\n    \"incidents\": ", &p.incidents)?;
    field(
        out,
        ",\n    \"static_rating_outside\": ",
        &p.static_rating_outside,
    )?;
    field(out, ",\n    \"clan\": ", &p.clan)?;
    out.extend_from_slice(b",\n    \"games\": ");
    array(out, &p.games, 3, |out, game| field(out, "", game))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::pretty_json::collected;

    fn sample<'a>(names: &'a [String], n: u32) -> PlayerJson<'a> {
        PlayerJson {
            name: "^1Red\"\\\u{1}\t<Devil>é",
            plain_name: "RedDevil",
            url: "players/reddevil.html",
            kills: n,
            deaths: 7,
            suicides: 0,
            team_kills: 1,
            captures: 2,
            headshots: 0,
            assists: 3,
            objectives: 0,
            matches: 12,
            flag_returns: 4,
            names,
            rating: 0.1 + f64::from(n) / 3.0,
            headline_rating: if n == 0 { f64::NAN } else { 1512.25e-7 },
            provisional: n == 0,
            bot: n == 2,
            division: (n == 1).then_some("Gold \"A\""),
            last_seen: (n != 2).then(|| "2024-01-02".to_string()),
            active: true,
            wins: 1,
            draws: 0,
            losses: u32::MAX,
            static_rating: (n == 1).then_some(-0.5),
            in_core: n == 1,
            incidents: u64::MAX,
            static_rating_outside: (n == 2).then_some(1e300),
            clan: (n == 2).then_some("[clan]"),
            games: if n == 2 { vec!["tf2", "urt"] } else { vec![] },
        }
    }

    /// The hand-written bytes are serde_json's pretty bytes, for empty and non-empty lists,
    /// escaped strings, nulls, odd floats and an empty list of names.
    #[test]
    fn same_bytes_as_serde_json() {
        let names = vec!["^1a\n".to_string(), "b\u{7f}".to_string()];
        let none: Vec<String> = Vec::new();
        let lists: [Vec<PlayerJson>; 3] = [
            Vec::new(),
            vec![sample(&names, 0)],
            vec![sample(&names, 0), sample(&none, 1), sample(&names, 2)],
        ];
        for players in &lists {
            let mut want = serde_json::to_vec_pretty(players).unwrap();
            want.push(b'\n');
            let got = collected(|emit| write(players.len(), |i| players[i].clone(), emit));
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want)
            );
        }
    }
}
