//! View structs: what templates see. They are the public template API (a site's own templates use
//! these field names), built from the model and stats, with every player text pre-escaped into
//! `*_html` fields or left as plain strings for Tera's autoescaping.

use serde::Serialize;

/// Site-wide values every page gets as `site`.
#[derive(Debug, Clone, Serialize)]
pub struct SiteView {
    pub title: String,
    pub description: String,
    pub version: &'static str,
    /// CSS custom properties from `[colors]` (hex colours only, validated).
    pub colors_css: String,
    /// The site has `feed.xml` (when `base_url` is set and matches are dated).
    pub feed: bool,
    /// `base_url` with one trailing `/`, empty when not configured (the pages' `og:url`).
    pub base_url: String,
}

#[cfg(test)]
impl SiteView {
    /// A minimal site for the list modules' tests.
    pub(crate) fn for_tests() -> SiteView {
        SiteView {
            title: "t".into(),
            description: String::new(),
            version: "0",
            colors_css: String::new(),
            feed: false,
            base_url: String::new(),
        }
    }
}

#[cfg(test)]
impl<'a> Common<'a> {
    /// The common fields of a test page at `current`, `root` from the site root.
    pub(crate) fn for_tests(site: &'a SiteView, root: &'static str, current: &str) -> Common<'a> {
        Common {
            site,
            nav: &[],
            root,
            current: current.to_string(),
        }
    }
}

/// A navigation link.
#[derive(Debug, Clone, Serialize)]
pub struct NavItem {
    pub label: String,
    /// Relative to the site root, unless `external`.
    pub url: String,
    /// A link from `[[nav]]` in site.toml, used as written.
    pub external: bool,
}

/// Fields common to every page.
#[derive(Debug, Clone, Serialize)]
pub struct Common<'a> {
    pub site: &'a SiteView,
    pub nav: &'a [NavItem],
    /// Prefix from the page to the site root: "" or "../".
    pub root: &'static str,
    /// URL of the page itself, relative to the site root. The only field that differs between
    /// the pages of one folder: page keys hash the rest once per template (`shared_key`).
    pub current: String,
}

/// A row in a player table; its names and links borrowed from the renderer's.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerRow<'a> {
    pub name_html: &'a str,
    pub plain: &'a str,
    pub url: &'a str,
    /// Becker's dynamic rating, one decimal.
    pub rating: &'a str,
    /// Headline rating, rounded.
    pub headline: &'a str,
    /// Too little evidence yet: listed after everyone else, without a position.
    pub provisional: bool,
    /// Clan name (plain text) and page, empty without a clan.
    pub clan: &'a str,
    pub clan_url: &'a str,
    pub kills: u32,
    pub deaths: u32,
    pub kd: String,
    pub suicides: u32,
    pub team_kills: u32,
    pub captures: u32,
    pub matches: usize,
    /// Rating trend over the player's last matches: `up`, `down` or `flat`.
    pub trend: &'static str,
    /// Not seen within `[ladder] inactive_after_days`: listed apart, not ranked.
    pub inactive: bool,
    /// Division badge (`[[divisions]]`), empty when unranked.
    pub division: &'a str,
}

/// A row in a match table.
#[derive(Debug, Clone, Serialize)]
pub struct MatchRow {
    pub url: String,
    pub when: String,
    /// The start as `YYYY-MM-DD HH:MM:SS` for sorting (`data-sort`); empty when undated.
    pub when_sort: String,
    pub map: String,
    pub map_url: String,
    pub gametype: String,
    pub players: usize,
    pub frags: u32,
    pub duration: String,
    /// The length in seconds, for sorting.
    pub seconds: u32,
    /// The server's name (`[[servers]]` or `sv_hostname`), for the list's server filter.
    pub server: String,
}

/// A row in a map table, and the head of a map page.
#[derive(Debug, Clone, Serialize)]
pub struct MapRow {
    pub name: String,
    pub url: String,
    pub matches: usize,
    pub frags: u32,
    pub frags_per_minute: String,
    pub players: usize,
}

/// A player named with a count (nemesis, top player on a map).
#[derive(Debug, Clone, Serialize)]
pub struct NamedCount {
    pub name_html: String,
    pub url: String,
    pub count: u32,
}

/// A plain label with a count and share (weapons, awards, maps). The label and link are
/// borrowed where the renderer or the stats hold them: every player page lists its weapons,
/// maps and awards, and is built on each build to be keyed.
#[derive(Debug, Clone, Serialize)]
pub struct LabelCount<'a> {
    pub name: std::borrow::Cow<'a, str>,
    pub count: u32,
    pub percent: u32,
    /// Link, where the label has a page ("" otherwise).
    pub url: &'a str,
}

/// One opponent in a head-to-head table. Borrows the opponent's name and link from the
/// renderer: a page lists up to [`HEAD_TO_HEAD_ROWS`] of them and is built for every player on
/// each build (to key it), so copying them cost more than all the rest of the view.
#[derive(Debug, Clone, Serialize)]
pub struct Opponent<'a> {
    pub name_html: &'a str,
    pub url: &'a str,
    pub made: u32,
    pub suffered: u32,
    pub share: u32,
}

/// One match in a player's match list; the strings of the match are borrowed, as in
/// [`Opponent`] (its date labels are made for the row).
#[derive(Debug, Clone, Serialize)]
pub struct PlayerMatchRow<'a> {
    pub url: String,
    pub when: String,
    /// As [`MatchRow::when_sort`].
    pub when_sort: String,
    pub map: crate::model::Text,
    pub map_url: &'a str,
    pub gametype: crate::model::Text,
    pub place: usize,
    pub frags: u32,
    pub deaths: u32,
    pub score: String,
    /// Rating after the match, and the change it brought (signed), with `up`/`down`/`flat`.
    pub rating: String,
    pub change: String,
    pub change_class: &'static str,
}

/// A player page.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerPage<'a> {
    /// The coloured name (borrowed from the renderer's, made for a hidden player).
    pub name_html: std::borrow::Cow<'a, str>,
    pub plain: &'a str,
    /// The headline rating (no decimals), the name of its system, and the rank on its ladder
    /// (1-based; None while provisional).
    pub headline: &'a str,
    pub headline_system: &'a str,
    pub rank: Option<usize>,
    /// Too little evidence yet for a rank: frags made plus suffered still missing.
    pub provisional_missing: Option<u64>,
    /// Division badge (`[[divisions]]`), empty when unranked.
    pub division: &'a str,
    /// Date of the latest dated match (`YYYY-MM-DD`), empty when no match is dated.
    pub last_seen: String,
    /// Not seen within `[ladder] inactive_after_days`: not ranked until the next match.
    pub inactive: bool,
    /// Becker's dynamic ladder: rating, one decimal, and rank (1-based).
    pub rating: &'a str,
    pub becker_rank: usize,
    /// On a site of many players ([`super::rank_shards`]): `rank` and `becker_rank` are left
    /// out of the page (0 / None), and so are the ladder and season ranks unless the site has
    /// its own `player.html`, and loaded from this shard script (path from the site root);
    /// absent otherwise, so smaller sites' pages are as before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank_shard: Option<&'a str>,
    /// With `rank_shard`: the player's key in the shard (the page's file name without `.html`).
    #[serde(skip_serializing_if = "str::is_empty")]
    pub rank_id: &'a str,
    /// With `rank_shard`: the player has a headline rank (neither provisional nor inactive).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ranked: bool,
    /// Static core value as a percentage (0-100), when in the core.
    pub static_percent: Option<String>,
    /// Static value outside the core (less reliable), as a percentage.
    pub static_outside_percent: Option<String>,
    pub incidents: u64,
    pub clan: &'a str,
    pub clan_url: &'a str,
    /// The coloured names seen (borrowed from the renderer's where one is the player's name).
    pub aliases: Vec<std::borrow::Cow<'a, str>>,
    pub kills: u32,
    pub deaths: u32,
    pub kd: String,
    pub suicides: u32,
    pub team_kills: u32,
    pub captures: u32,
    /// Headshot frags, kill assists and round objectives (Half-Life logs; 0 elsewhere).
    pub headshots: u32,
    pub assists: u32,
    pub objectives: u32,
    pub matches: usize,
    /// Team matches and duels won, drawn and lost; `results` is their sum.
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub results: u32,
    /// The player's place on each game type and game ladder they are on (when there are
    /// several game types).
    pub ladders: Vec<LadderPlace>,
    pub victim: Option<NamedCount>,
    pub nemesis: Option<NamedCount>,
    pub weapons: Vec<LabelCount<'a>>,
    pub maps: Vec<LabelCount<'a>>,
    pub awards: Vec<LabelCount<'a>>,
    /// Only in the view a page is keyed by: the stand-in of `weapons`, `maps` and `awards`,
    /// left empty there (see `lazy_labels`); empty, and so left out, in the view rendered.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub labels_stub: String,
    /// The [`HEAD_TO_HEAD_ROWS`] opponents met most (frags made plus suffered), and how many
    /// opponents there are in all.
    pub opponents: TableRows<Opponent<'a>>,
    pub opponents_total: usize,
    pub match_rows: TableRows<PlayerMatchRow<'a>>,
    /// The markup of the `opponents` and `match_rows` tables' rows, written in Rust when the
    /// built-in `player.html` prints them (see [`super::player_tables`]); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opponents_html: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_rows_html: Option<String>,
    /// Only in the view a page is keyed by: the stand-in of `victim`, `nemesis`, `opponents`
    /// and `match_rows`, left empty there (see `lazy_rows`); empty, and so left out, in the
    /// view rendered.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub rows_stub: String,
    /// The player's placement in each season they played in, newest first.
    pub seasons: Vec<PlayerSeasonRow>,
    /// Inline SVG of Becker's rating over time (built and escaped in Rust).
    pub curve_svg: String,
    /// Inline SVG of the headline rating after each match played, ending at the published
    /// value; "" when the headline is Becker's ladder (drawn by `curve_svg`).
    pub headline_curve_svg: String,
    /// The headline system refits the whole history at the end (so the last point may jump).
    pub headline_refitted: bool,
    /// Where the player kills and dies, per map with positions (most kills and deaths first).
    pub heat: Vec<super::heatmap::PlayerHeat>,
}

/// The rows of a table in a page's view: in full, or only counted (`Counted(n)` serialises as
/// `n` nulls) where Rust writes the rows' markup and the built-in template only takes their
/// `length`: a row made into a Tera value for a count costs more than writing it.
#[derive(Debug, Clone)]
pub enum TableRows<T> {
    Full(Vec<T>),
    Counted(usize),
}

impl<T> Default for TableRows<T> {
    fn default() -> Self {
        TableRows::Full(Vec::new())
    }
}

impl<T: Serialize> Serialize for TableRows<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            TableRows::Full(rows) => rows.serialize(s),
            TableRows::Counted(n) => serialize_nulls(s, *n),
        }
    }
}

/// `n` nulls: the rows of a table whose markup Rust writes, as a template that only counts
/// them (`| length`) is given them ([`TableRows::Counted`], the player list's rows).
pub(super) fn serialize_nulls<S: serde::Serializer>(s: S, n: usize) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(n))?;
    for _ in 0..n {
        seq.serialize_element(&())?;
    }
    seq.end()
}

/// A player's place on one ladder of `ladders.html`.
#[derive(Debug, Clone, Serialize)]
pub struct LadderPlace {
    pub name: String,
    /// `ladders.html#<anchor>`.
    pub url: String,
    /// 1-based; None when unranked (provisional or inactive there).
    pub rank: Option<u32>,
    /// The headline rating on that ladder, rounded.
    pub rating: String,
    pub matches: u32,
}

/// A map page.
#[derive(Debug, Clone, Serialize)]
pub struct MapPage<'a> {
    pub name: String,
    pub matches: usize,
    pub frags: u32,
    pub frags_per_minute: String,
    pub players: usize,
    pub top: Vec<NamedCount>,
    pub match_rows: Vec<MatchRow>,
    pub weapons: Vec<LabelCount<'a>>,
    /// Team matches on this map won by red, by blue, drawn (from the final team scores).
    pub red_wins: u32,
    pub blue_wins: u32,
    pub draws: u32,
    pub red_percent: u32,
    /// Where the kills and deaths happen, when the logs give positions.
    pub heat: Option<super::heatmap::HeatView>,
}

/// One line of a match scoreboard.
#[derive(Debug, Clone, Serialize)]
pub struct ScoreLine {
    pub place: usize,
    pub name_html: String,
    pub url: String,
    pub score: String,
    pub frags: u32,
    pub deaths: u32,
    pub suicides: u32,
    pub team_kills: u32,
    pub captures: u32,
    pub best_spree: u32,
    /// Rating change from this match (signed), with `up`/`down`/`flat`.
    pub change: String,
    pub change_class: &'static str,
}

/// The players of one side in a match scoreboard.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    /// `red`, `blue` or `free`.
    pub team: String,
    /// Heading, empty for free-for-all.
    pub label: String,
    /// Empty unless the site has its own `match.html` (see `rows_html`).
    pub lines: Vec<ScoreLine>,
    /// The rows of `lines` as HTML (`<tr>` elements), as the built-in template shows them.
    pub rows_html: String,
}

/// One kill in a match's kill list.
#[derive(Debug, Clone, Serialize)]
pub struct KillRow {
    pub time: String,
    /// `time` in seconds, for sorting.
    pub seconds: u32,
    /// `frag`, `suicide` or `teamkill`.
    pub kind: &'static str,
    pub killer: String,
    pub victim: String,
    pub weapon: String,
}

/// A match page.
#[derive(Debug, Clone, Serialize)]
pub struct MatchPage {
    pub map: String,
    pub map_url: String,
    pub gametype: String,
    /// Which game wrote the log ("Counter-Strike 2").
    pub game: String,
    /// Who won each round (Counter-Strike, Team Fortress 2), when the log has rounds.
    pub rounds: Option<super::rounds::RoundStrip>,
    pub when: String,
    pub duration: String,
    pub exit_reason: Option<String>,
    /// The server's name on the site and its page.
    pub server: String,
    pub server_url: String,
    pub server_html: String,
    pub source: String,
    pub line: u64,
    pub partial: bool,
    pub team_scores: Option<[i32; 2]>,
    /// The winner: "Red team", "Blue team", a duel's winner's name as HTML, "Draw", or empty.
    pub winner_html: String,
    /// The best player: most frags, then fewest deaths, then the higher score line.
    pub best_html: String,
    pub best_url: String,
    /// P(red wins) before the match, as "71%" (team matches only).
    pub predicted_red_win: Option<String>,
    /// The same for the fairest split of the same players ("52%").
    pub fairest_red_win: Option<String>,
    /// Red's expected team score minus blue's before the match (signed, one decimal).
    pub expected_margin: Option<String>,
    /// `balance.html?players=...&from=...` with this team match's players (not hidden) and their
    /// sides, names URI-encoded; None for other matches.
    pub balance_url: Option<String>,
    pub sides: Vec<Side>,
    pub kill_lines: u32,
    /// Empty unless the site has its own `match.html` (see `kills_html`).
    pub kills: Vec<KillRow>,
    /// The rows of `kills` as HTML (`<tr>` elements), as the built-in template shows them.
    pub kills_html: String,
    /// Inline SVG: cumulative frags over the match of its best players.
    pub timeline_svg: String,
    /// The match's kills as lines from killer to victim, when the log gives positions.
    pub kill_map: Option<super::heatmap::MatchKills>,
}

/// Totals on the index page.
#[derive(Debug, Clone, Serialize)]
pub struct Totals {
    pub players: usize,
    pub matches: usize,
    pub maps: usize,
    pub frags: u64,
    /// "2026-11-01 to 2026-11-22", when matches have dates.
    pub span: Option<String>,
}

/// A Markdown page.
#[derive(Debug, Clone, Serialize)]
pub struct TextPage {
    pub title: String,
    pub html: String,
}

/// A row of the static (least squares) ranking.
#[derive(Debug, Clone, Serialize)]
pub struct StaticRow {
    pub name_html: String,
    pub url: String,
    /// g in [-1, 1], signed, three decimals.
    pub value: String,
    /// (g + 1) / 2 as a percentage, one decimal.
    pub percent: String,
    pub incidents: u64,
}

/// A clan in a table and on its page.
#[derive(Debug, Clone, Serialize)]
pub struct ClanRow {
    pub name: String,
    pub url: String,
    pub rating: String,
    pub members: usize,
    pub declared: bool,
}

/// A clan page.
#[derive(Debug, Clone, Serialize)]
pub struct ClanPage<'a> {
    pub name: String,
    /// Mean headline rating of the listed members; None when every member is hidden.
    pub headline: Option<String>,
    pub headline_system: String,
    /// Inline SVG of the members' mean headline rating after each match ("" for Becker's).
    pub headline_curve_svg: String,
    /// The headline refits the whole history at the end (the curve's last point may jump).
    pub headline_refitted: bool,
    /// Becker's clan rating, and the clan's place on that ladder.
    pub rating: String,
    pub becker_rank: usize,
    pub declared: bool,
    pub members: Vec<PlayerRow<'a>>,
    pub curve_svg: String,
    /// Frags between this clan's members and each other clan's.
    pub versus: Vec<ClanVersus>,
    /// Matches in which a member took part, newest first.
    pub match_rows: Vec<MatchRow>,
}

/// A clan-vs-clan record.
#[derive(Debug, Clone, Serialize)]
pub struct ClanVersus {
    pub name: String,
    pub url: String,
    pub made: u32,
    pub suffered: u32,
    pub share: u32,
}

/// One place in an award ("most frags in a match").
#[derive(Debug, Clone, Serialize)]
pub struct AwardEntry {
    pub name_html: String,
    pub url: String,
    pub value: String,
    /// Where it happened (a match), may be empty.
    pub detail: String,
    pub detail_url: String,
}

/// A "big numbers" award with winner and runner-up.
#[derive(Debug, Clone, Serialize)]
pub struct AwardView {
    pub title: String,
    pub entries: Vec<AwardEntry>,
}

/// The rankings-explained page.
#[derive(Debug, Clone, Serialize)]
pub struct RankingPage {
    /// The explanation, Markdown rendered to HTML.
    pub explain_html: String,
    pub core: Vec<StaticRow>,
    /// The highest [`OUTSIDE_SHOWN`] values outside the core.
    pub outside: Vec<StaticRow>,
    /// Players with a value outside the core, shown or not.
    pub outside_total: usize,
}

/// A row of `servers.html`.
#[derive(Debug, Clone, Serialize)]
pub struct ServerRow {
    pub name: String,
    pub url: String,
    pub matches: usize,
    pub players: usize,
    pub frags: u64,
    pub maps: usize,
    /// First and latest match dates (`YYYY-MM-DD`), empty when undated.
    pub first: String,
    pub last: String,
}

/// A server's page (`servers/<slug>.html`).
#[derive(Debug, Clone, Serialize)]
pub struct ServerPage<'a> {
    pub row: ServerRow,
    /// Matches per map, most played first.
    pub maps: Vec<LabelCount<'a>>,
    /// The players with most frags on this server.
    pub top: Vec<NamedCount>,
    /// Matches per month (`YYYY-MM`), oldest first; empty when undated.
    pub activity: Vec<LabelCount<'a>>,
    pub match_rows: Vec<MatchRow>,
}

/// Rows of the "outside the core" list on `ranking.html`.
pub const OUTSIDE_SHOWN: usize = 1000;

/// Opponents listed on a player page: a regular of a public server meets tens of thousands,
/// which would make the page tens of megabytes.
pub const HEAD_TO_HEAD_ROWS: usize = 200;

/// A player's placement in one season, on their page.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerSeasonRow {
    pub name: String,
    pub url: String,
    /// 1-based; None while provisional in that season.
    pub rank: Option<usize>,
    /// Ranked players of that season.
    pub ranked: usize,
    pub rating: String,
    pub matches: usize,
}
