//! Machine-readable output under `data/`: `players.json`, `matches.json`, `clans.json`,
//! `diagnostics.json`, `evaluation.json`, `seasons.json`. Field names are a
//! contract other tools read; add fields, never rename them. No guid or IP address is ever written.

use anyhow::Result;
use serde::Serialize;

use super::{Links, OutputFile, PageSink, SiteInput};
use crate::model::Text;
use crate::model::identity::Identity;
use crate::model::names::plain_name;
use rayon::prelude::*;

/// A team match's final score in `data/matches.json`.
#[derive(Debug, Serialize)]
pub struct TeamScores {
    pub red: i32,
    pub blue: i32,
}

/// One object of `data/players.json`.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerJson<'a> {
    /// Latest name, colour codes kept.
    pub name: &'a str,
    /// Identity key: colour codes removed, trimmed, aliases applied.
    pub plain_name: &'a str,
    /// Player page, relative to the site root.
    pub url: &'a str,
    pub kills: u32,
    pub deaths: u32,
    pub suicides: u32,
    pub team_kills: u32,
    pub captures: u32,
    /// Headshot frags, kill assists and round objectives (Half-Life logs; 0 elsewhere).
    pub headshots: u32,
    pub assists: u32,
    pub objectives: u32,
    /// Number of matches taken part in.
    pub matches: usize,
    pub flag_returns: u32,
    /// Every name seen for this player, colour codes kept.
    pub names: &'a [String],
    /// Becker dynamic rating (final g).
    pub rating: f64,
    /// The headline rating (higher is better): by default the whole-history Bradley-Terry fit on
    /// an Elo-like scale (1500 = average, +400 = 10:1 frag odds); see `evaluation.json`.
    pub headline_rating: f64,
    /// Too little evidence for the headline rating yet (fewer frags made plus suffered than
    /// `rating.headline.provisional_incidents`).
    pub provisional: bool,
    /// A computer-controlled player (every appearance marked as a bot by the log).
    pub bot: bool,
    /// Division name (`[[divisions]]`); null when unranked (provisional, inactive) or under
    /// every bar.
    pub division: Option<&'a str>,
    /// Date of the player's latest dated match (`YYYY-MM-DD`); null when none is dated.
    pub last_seen: Option<String>,
    /// Seen within `[ladder] inactive_after_days` of the newest match (always true without it).
    pub active: bool,
    /// Won, drawn and lost team matches (by the final team score) and duels.
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Becker static core value in [-1, 1]; null outside the core.
    pub static_rating: Option<f64>,
    pub in_core: bool,
    /// Frags made plus suffered (suicides and team kills not counted).
    pub incidents: u64,
    /// Exact least-squares value for players outside the core; null in the core or when unmet.
    pub static_rating_outside: Option<f64>,
    /// Clan name, or null.
    pub clan: Option<&'a str>,
    /// The games the player took part in ([`crate::model::game_name`]'s codes: `tf2`, `urt`,
    /// ...), in byte order.
    pub games: Vec<&'a str>,
}

/// One object of `data/clans.json`.
#[derive(Debug, Serialize)]
pub struct ClanJson<'a> {
    pub name: &'a str,
    /// Clan page, relative to the site root.
    pub url: &'a str,
    /// Plain names (identity keys) of the members.
    pub members: Vec<&'a str>,
    /// Dynamic rating of the clan as a virtual player.
    pub rating: f64,
    /// Declared in site.toml (else detected from a shared tag).
    pub declared: bool,
}

/// One object of `data/matches.json`.
#[derive(Debug, Serialize)]
pub struct MatchJson<'a> {
    pub id: crate::model::HeadId<'a>,
    /// The server's name: its `[[servers]]` entry, else `sv_hostname` without colour codes.
    pub server: &'a str,
    /// Number in the order matches were first read, kept for the match's life (undated
    /// matches are labelled "Match N" with it).
    pub number: u32,
    pub url: String,
    pub map: Text,
    /// Which game wrote the log (`quake3`, `openarena`, `urt`, ...).
    pub game: Text,
    /// Short game type code: ffa, duel, tdm, ctf, ...
    pub gametype: Text,
    pub gametype_name: Text,
    /// ISO 8601 local server time, or null when the log has no date.
    pub start: Option<String>,
    pub duration_seconds: u32,
    /// Number of players who took part.
    pub players: usize,
    /// Frags (kills that were neither suicides nor team kills).
    pub kills: u32,
    pub suicides: u32,
    pub team_kills: u32,
    /// Log file path relative to its log root.
    pub source: Text,
    /// Line of the log file where the match starts.
    pub line: u64,
    pub exit_reason: Option<Text>,
    /// Final team score (`{"red": n, "blue": n}`; a CTF match without a logged score counts its
    /// captures), null outside team games.
    pub team_scores: Option<TeamScores>,
    /// The log file begins in the middle of this match.
    pub partial: bool,
    /// P(red wins) predicted before the match from the players' earlier results, for team
    /// matches with players on both sides (the team model of `evaluation.json`); else null.
    pub predicted_red_win: Option<f64>,
    /// P(red wins) of the fairest split of the same players, as the balancer would have
    /// proposed it from the same knowledge before the match (exhaustive up to 14 players, the
    /// snake split by skill beyond); null where `predicted_red_win` is.
    pub fairest_red_win: Option<f64>,
}

/// `data/players.json`, `data/matches.json`, `data/clans.json`, `data/diagnostics.json` (what was
/// skipped, per file and reason, examples redacted) and the search index. The large ones are
/// made in parallel: on a public server's site `players.json` alone is tens of MB.
/// Each given to `sink` (if any) as soon as it is made, so the big ones are written while the
/// others are still being made.
pub fn data_files(
    input: &SiteInput,
    links: &Links,
    sink: Option<&dyn PageSink>,
) -> Result<Vec<OutputFile>> {
    let sunk = |file: Result<OutputFile>| super::sunk(sink, file?);
    let ((players, matches), (search, balance)) = rayon::join(
        || {
            rayon::join(
                || players_file(input, links, sink),
                || matches_file(input, links, sink),
            )
        },
        || {
            rayon::join(
                || {
                    let (files, index) = search_files(input, links)?;
                    let files = files.into_iter().map(|f| sunk(Ok(f)));
                    files.chain([sunk(Ok(index))]).collect::<Result<Vec<_>>>()
                },
                || sunk(Ok(balance_file(input))),
            )
        },
    );
    let mut files = search?;
    files.extend([
        balance?,
        players?,
        matches?,
        sunk(clans_file(input, links))?,
        sunk(json_file("data/diagnostics.json", input.diagnostics))?,
        sunk(json_file(
            "data/seasons.json",
            &super::pages::season::seasons_json(input.seasons, input.roster),
        ))?,
    ]);
    Ok(files)
}

/// `data/players.json`: each shown player's object made as its chunk is written (to `sink`,
/// if any, as it is made).
fn players_file(
    input: &SiteInput,
    links: &Links,
    sink: Option<&dyn PageSink>,
) -> Result<OutputFile> {
    let st = &input.ratings.static_;
    let clan_name =
        |i: usize| input.clans.of_player[i].map(|c| input.clans.clans[c as usize].name.as_str());
    // As many as each list has (they are one per identity).
    let count = (input.roster.players.len())
        .min(input.stats.players.len())
        .min(links.players.len());
    let shown: Vec<usize> = (0..count).filter(|&i| !input.hidden[i]).collect();
    // On a site of one game (most), every player who played played it: no walk over their
    // matches.
    // Each match's game, read once.
    let game_of: Vec<Text> = (input.matches.par_heads())
        .map(|m| m.game.clone())
        .collect();
    let site_games = games_of(&game_of, 0..input.matches.len() as u32);
    let player = |n: usize| {
        let i = shown[n];
        let (p, s) = (&input.roster.players[i], &input.stats.players[i]);
        PlayerJson {
            name: &p.name,
            plain_name: &p.key,
            url: &links.players[i],
            kills: s.kills,
            deaths: s.deaths,
            suicides: s.suicides,
            team_kills: s.team_kills,
            captures: s.captures,
            headshots: s.headshots,
            assists: s.assists,
            objectives: s.objectives,
            matches: s.matches.len(),
            flag_returns: s.flag_returns,
            names: &p.names_seen,
            rating: input.ratings.dynamic.players[i],
            headline_rating: input.ratings.headline.value.get(i).copied().unwrap_or(0.0),
            provisional: input.ratings.headline.provisional[i],
            bot: input.bots[i],
            division: input.standing.division[i]
                .and_then(|d| input.config.divisions.get(d))
                .map(|d| d.name.as_str()),
            last_seen: input.standing.last_seen[i].map(|d| d.format("%Y-%m-%d").to_string()),
            active: input.standing.active[i],
            wins: input.standing.record[i][0],
            draws: input.standing.record[i][1],
            losses: input.standing.record[i][2],
            static_rating: st.value[i],
            in_core: st.value[i].is_some(),
            incidents: st.incidents[i],
            static_rating_outside: st.outside[i],
            clan: clan_name(i),
            games: match (s.matches.is_empty(), site_games.len()) {
                (true, _) => Vec::new(),
                (false, 1) => site_games.clone(),
                (false, _) => games_of(&game_of, s.matches.iter()),
            },
        }
    };
    super::sunk_parts(sink, "data/players.json", &mut |emit| {
        super::players_json::write(shown.len(), player, emit)
    })
}

/// The game codes of the matches numbered `played`, each once, in byte order.
fn games_of(game_of: &[Text], played: impl IntoIterator<Item = u32>) -> Vec<&str> {
    let mut games: Vec<&str> = Vec::new();
    for m in played {
        let game = game_of[m as usize].as_str();
        if !games.contains(&game) {
            games.push(game);
        }
    }
    games.sort_unstable();
    games
}

/// `data/matches.json`: each match's object made as its chunk is written (to `sink`, if any,
/// as it is made: on a long history it is tens of MB).
fn matches_file(
    input: &SiteInput,
    links: &Links,
    sink: Option<&dyn PageSink>,
) -> Result<OutputFile> {
    let predicted = &input.ratings.headline.evaluation.predicted_red_win;
    let fairest = &input.ratings.headline.evaluation.fairest_red_win;
    // As many as each list has (they are one per match).
    let count = (input.matches.len())
        .min(input.stats.matches.len())
        .min(links.match_servers.len());
    let one = |i: usize| {
        let (m, s) = (input.matches.head(i), &input.stats.matches[i]);
        let counts = s.counts();
        MatchJson {
            id: m.id,
            server: links.match_servers.name(i),
            number: m.number,
            url: crate::render::match_url(&m.id),
            map: m.map.clone(),
            game: m.game.clone(),
            gametype: m.gametype.code.clone(),
            gametype_name: m.gametype.name.clone(),
            start: m.start.map(|t| t.format("%Y-%m-%dT%H:%M:%S").to_string()),
            duration_seconds: m.duration_seconds,
            players: s.lines.len(),
            kills: counts.frags,
            suicides: counts.suicides,
            team_kills: counts.team_kills,
            source: m.source.clone(),
            line: m.line,
            exit_reason: m.exit_reason.cloned(),
            team_scores: m
                .final_team_scores()
                .map(|[red, blue]| TeamScores { red, blue }),
            partial: m.partial,
            predicted_red_win: predicted.get(i),
            fairest_red_win: fairest.get(i),
        }
    };
    super::sunk_parts(sink, "data/matches.json", &mut |emit| {
        super::matches_json::write(count, one, emit)
    })
}

/// `data/clans.json`.
fn clans_file(input: &SiteInput, links: &Links) -> Result<OutputFile> {
    let clans: Vec<ClanJson> = input
        .clans
        .clans
        .iter()
        .enumerate()
        .map(|(c, clan)| ClanJson {
            name: &clan.name,
            url: &links.clans[c],
            members: clan
                .members
                .iter()
                .filter(|m| !input.hidden[**m as usize])
                .map(|m| input.roster.players[*m as usize].key.as_str())
                .collect(),
            rating: input.ratings.dynamic.clans[c],
            declared: clan.declared,
        })
        .collect();
    json_file("data/clans.json", &clans)
}

/// The search's shards ([`super::search::files`]) and the whole index ([`search_index`]),
/// from one entry per shown player.
fn search_files(input: &SiteInput, links: &Links) -> Result<(Vec<OutputFile>, OutputFile)> {
    use rayon::prelude::*;
    // Tens of thousands on a public server's site, each a few strings: made in parallel.
    let entries: Vec<Option<Vec<String>>> = (input.roster.players.par_iter())
        .zip(links.players.par_iter())
        .zip(input.hidden.par_iter())
        .map(|((p, url), hidden)| (!hidden).then(|| search_entry(p, url)))
        .collect();
    let index = search_index(entries.iter().flatten())?;
    // The shards the pages load, best on the ladder first.
    let ladder_entries: Vec<&[String]> = (input.standing.ladder.iter())
        .filter_map(|&i| entries[i].as_deref())
        .collect();
    Ok((super::search::files(&ladder_entries)?, index))
}

/// `data/balance.js`: every player's names and team-model skill, and the model's parameters,
/// for `fragstats balance` and `balance.html`. Hidden players (`[moderation] hide`) are not in
/// it: to the balancer they are newcomers.
fn balance_file(input: &SiteInput) -> OutputFile {
    let team = &input.ratings.headline.evaluation.team;
    let params = team.params.clone().unwrap_or_else(|| {
        crate::team::model::TeamParams::prior(crate::team::model::Skill {
            mean: 0.0,
            variance: 1.0,
        })
    });
    // Each shown player's index in the file.
    let mut index: Vec<Option<u32>> = Vec::with_capacity(input.hidden.len());
    let mut shown = 0u32;
    for &hidden in input.hidden {
        index.push((!hidden).then_some(shown));
        shown += u32::from(!hidden);
    }
    let mut recent: Vec<[Vec<u32>; 2]> = Vec::new();
    // A match without a player on each side adds nothing: told by its head, not decoded.
    let matches = (0..input.matches.len()).filter(|&i| input.matches.head(i).two_sides);
    for i in matches.rev() {
        if recent.len() == crate::team::balance::data::RECENT {
            break;
        }
        let (m, ids) = (
            input.matches.at(i),
            input.roster.match_players.get(i).unwrap_or_default(),
        );
        let side = |team: crate::model::Team| -> Vec<u32> {
            let mut out: Vec<u32> = m
                .players
                .iter()
                .zip(ids.iter())
                .filter(|(p, _)| p.team == team)
                .filter_map(|(_, &id)| index.get(id as usize).copied().flatten())
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        };
        let (mut red, mut blue) = (
            side(crate::model::Team::Red),
            side(crate::model::Team::Blue),
        );
        // A player who changed sides stood on neither.
        let both: Vec<u32> = red.iter().copied().filter(|i| blue.contains(i)).collect();
        red.retain(|i| !both.contains(i));
        blue.retain(|i| !both.contains(i));
        if !red.is_empty() && !blue.is_empty() {
            recent.push([red, blue]);
        }
    }
    let players = input
        .roster
        .players
        .iter()
        .enumerate()
        .filter(|(i, _)| !input.hidden[*i])
        .map(|(i, p)| {
            let skill = team.skills.get(i).copied().unwrap_or(params.newcomer);
            let mut names: Vec<String> = Vec::new();
            for n in p.names_seen.iter().map(|n| plain_name(n)) {
                if !n.is_empty() && n != p.key && !names.contains(&n) {
                    names.push(n);
                }
            }
            crate::team::balance::data::Entry {
                name: p.key.clone(),
                names,
                skill: skill.mean,
                variance: skill.variance,
                clan: input.clans.of_player[i].map(|c| input.clans.clans[c as usize].name.clone()),
            }
        })
        .collect();
    let data = crate::team::balance::data::BalanceData {
        format: crate::team::balance::data::FORMAT,
        params,
        players,
        recent,
        settings: input.config.balance.clone(),
    };
    OutputFile::new("data/balance.js", data.to_script().into_bytes())
}

/// Pretty JSON with a trailing newline.
pub fn json_file(path: &str, value: &impl Serialize) -> Result<OutputFile> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    Ok(OutputFile::new(path, bytes))
}

/// The script at `path` that is `head`, `value` as JSON with `<` escaped (so a name cannot open
/// or close a tag even if the script were inlined), then `tail`: the JSON is written straight
/// after `head` in the file's one buffer, escaped in a second pass only when it holds a `<` (a
/// byte that is never part of a longer UTF-8 character, and that JSON has only inside strings).
pub(super) fn script_file(
    path: &str,
    head: &str,
    value: &impl Serialize,
    tail: &str,
) -> Result<OutputFile> {
    let mut out = Vec::with_capacity(head.len() + tail.len() + 64);
    out.extend_from_slice(head.as_bytes());
    serde_json::to_writer(&mut out, value)?;
    if out[head.len()..].contains(&b'<') {
        let mut escaped = Vec::with_capacity(out.len() + 64);
        escaped.extend_from_slice(head.as_bytes());
        for &b in &out[head.len()..] {
            if b == b'<' {
                escaped.extend_from_slice(b"\\u003c");
            } else {
                escaped.push(b);
            }
        }
        out = escaped;
    }
    out.extend_from_slice(tail.as_bytes());
    Ok(OutputFile::new(path, out))
}

/// `data/search-index.js`: the whole player search index as a script (browsers block `fetch` of
/// JSON on `file://`, but load scripts), for other tools and templates of older versions; the
/// built-in pages load its shards ([`super::search`]). Each entry is `[shown, url, other names…]`: the name a player's
/// page shows (their latest name, colour codes removed), then their key and every other name they
/// used, so a search finds them by any of these. Names are JSON string literals with `<` escaped,
/// so the file cannot close or open a tag even if it were inlined.
fn search_index<'e>(entries: impl Iterator<Item = &'e Vec<String>>) -> Result<OutputFile> {
    let entries: Vec<&Vec<String>> = entries.collect();
    script_file(
        "data/search-index.js",
        "window.FRAGSTATS_PLAYERS = ",
        &entries,
        ";\n",
    )
}

/// `[shown, url, key, other names…]`, without colour codes or repeats.
fn search_entry(p: &Identity, url: &str) -> Vec<String> {
    let shown = match plain_name(&p.name) {
        // A name of colour codes only is shown as the key (`(unnamed)`).
        s if s.is_empty() => p.key.clone(),
        s => s,
    };
    let mut entry = vec![shown, url.to_string()];
    let others = std::iter::once(p.key.clone()).chain(p.names_seen.iter().map(|n| plain_name(n)));
    for name in others {
        if !name.is_empty() && name != entry[0] && !entry[2..].contains(&name) {
            entry.push(name);
        }
    }
    entry
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A script is its head, the value's JSON with every `<` (and only those) escaped, and its
    /// tail: what `serde_json::to_string` then a replace of `<` makes.
    #[test]
    fn scripts_escape_each_tag_opening() {
        for names in [vec!["plain", "é"], vec!["<b>", "a<<b", "x\"<"], vec![]] {
            let file = script_file("d.js", "v = ", &names, ";\n").unwrap();
            let json = serde_json::to_string(&names)
                .unwrap()
                .replace('<', "\\u003c");
            assert_eq!(
                String::from_utf8(file.to_vec()).unwrap(),
                format!("v = {json};\n")
            );
        }
    }

    /// An aliased player is found by the name their page shows, not only by the alias target.
    #[test]
    fn search_entry_leads_with_the_name_shown() {
        let p = Identity {
            key: "Boss".into(),
            name: "^1Red^7Devil".into(),
            names_seen: vec!["^1Red^7Devil".into(), "^2Old".into(), "RedDevil".into()],
        };
        assert_eq!(
            search_entry(&p, "players/boss.html"),
            ["RedDevil", "players/boss.html", "Boss", "Old"]
        );
        let blank = Identity {
            key: "(unnamed)".into(),
            name: "^1".into(),
            names_seen: vec!["^1".into()],
        };
        assert_eq!(search_entry(&blank, "u.html"), ["(unnamed)", "u.html"]);
    }
}
