//! `site.toml`: every key has a default, so an empty file is valid; unknown keys are errors that
//! name the key, its line and the valid keys. Paths inside are relative to the file's folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// The whole site configuration.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Site title in every page header. Default: "fragstats".
    pub title: String,
    /// One line under the title. Default: empty.
    pub description: String,
    /// Absolute URL of the published site, used only for absolute links in feeds. Default: none.
    pub base_url: Option<String>,
    /// Log files or folders (walked recursively). Default: `["logs"]`.
    pub logs: Vec<PathBuf>,
    /// Output folder. Default: `public`.
    pub output: PathBuf,
    /// Folder for the incremental state (what was read from each log). Default: `.fragstats`.
    pub state: PathBuf,
    /// How players are told apart: `"name"` (the name, colour codes removed) or `"guid"` (the
    /// account or client id where the log has one, else the name). Default: `"name"`.
    pub identity: IdentityMode,
    /// Extra names counted as one player: `"Main name" = ["other name", ...]`. Default: none.
    pub aliases: BTreeMap<String, Vec<String>>,
    /// Declared clans. Default: none.
    pub clans: Vec<ClanConfig>,
    /// Also find clans from bracketed tags (`[TAG]`, `=TAG=`, ...) shared by two or more players.
    /// Default: true.
    pub detect_clans: bool,
    /// Rating systems. Default: see [`RatingConfig`].
    pub rating: RatingConfig,
    /// Folder of Markdown pages (`*.md`), each rendered as a page linked from the navigation.
    /// Default: `content`.
    pub content: PathBuf,
    /// Extra navigation links (`[[nav]]` with `label` and `url`). Default: none.
    pub nav: Vec<NavLink>,
    /// Theme colours. Default: the built-in theme's.
    pub colors: Colors,
    /// What to do with bots: `"show"`, `"hide"` (not listed, still counted) or `"exclude"` (their
    /// frags dropped before counting and rating). Default: `"show"`.
    pub bots: BotsMode,
    /// `[moderation]`: players hidden by opt-out or excluded as banned. Default: none.
    pub moderation: Moderation,
    /// `[ladder]`: who is listed as active. Default: everyone.
    pub ladder: LadderConfig,
    /// `[[divisions]]`, best first: every ranked player gets the first whose bar they pass.
    /// Default: none.
    pub divisions: Vec<DivisionConfig>,
    /// `[[servers]]`: a server's name for the matches of some logs (else a match's server is its
    /// `sv_hostname`, colour codes removed). Default: none.
    pub servers: Vec<ServerConfig>,
    /// `[seasons]`: ladders of their own for periods of log time. Default: none.
    pub seasons: SeasonsConfig,
    /// `[balance]`: soft rules of the team balancer (clans, the party guard, the last match).
    /// Default: see [`BalanceConfig`].
    pub balance: BalanceConfig,
}

/// `[balance]`: how `fragstats balance` and `balance.html` treat clans and the last match.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct BalanceConfig {
    /// Clan mates `"together"` (on one side), `"spread"` (evenly over both) or `"off"`. A soft
    /// rule: each mate out of place costs `clan_penalty`. Default: `"off"`.
    pub clans: ClanMode,
    /// Cost of one clan mate out of place, in points of |P(red wins) − 50%|. Default: 2.0.
    pub clan_penalty: f64,
    /// The overpowered-party guard: a group kept together may not push P(red wins) beyond this
    /// (or below 1 − it). Default: 0.75.
    pub party_guard: f64,
    /// Avoid repeating the last match's teams (as `--avoid-last`). Default: false.
    pub avoid_last: bool,
    /// How much less fair (in points of |P(red wins) − 50%|) a split avoiding the last match's
    /// teams may be. Default: 3.0.
    pub avoid_last_within: f64,
}

impl Default for BalanceConfig {
    fn default() -> Self {
        BalanceConfig {
            clans: ClanMode::Off,
            clan_penalty: 2.0,
            party_guard: 0.75,
            avoid_last: false,
            avoid_last_within: 3.0,
        }
    }
}

/// `[balance] clans`: where the balancer puts clan mates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ClanMode {
    /// Clans play no part.
    #[default]
    Off,
    /// Mates on one side.
    Together,
    /// Mates spread evenly over both sides.
    Spread,
}

/// `[seasons]`: either `every` (calendar periods) or `[[seasons.list]]` (named date ranges), and
/// the share of the previous season's rating a season starts from (`carry`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct SeasonsConfig {
    /// One season per calendar month, quarter or year that holds a dated match. Default: none.
    pub every: Option<SeasonEvery>,
    /// Named seasons with inclusive start and end dates (log time). Default: none.
    pub list: Vec<SeasonSpan>,
    /// Soft reset, in [0, 1]: each season's rating starts this share of the player's distance
    /// from the previous season's average ahead (0 = from nothing). Default: 0.
    pub carry: f64,
}

impl SeasonsConfig {
    /// Whether any season is configured (else none is computed or shown).
    pub fn configured(&self) -> bool {
        self.every.is_some() || !self.list.is_empty()
    }
}

/// `[seasons] every`: the length of calendar seasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SeasonEvery {
    Month,
    Quarter,
    Year,
}

/// One `[[seasons.list]]` entry.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct SeasonSpan {
    /// The season's name on the site.
    pub name: String,
    /// First day (`YYYY-MM-DD`, log time), inclusive.
    pub start: String,
    /// Last day (`YYYY-MM-DD`, log time), inclusive.
    pub end: String,
}

impl SeasonSpan {
    /// The first and last day, when both are `YYYY-MM-DD` dates ([`Config::validate`] checks).
    pub fn dates(&self) -> Option<(chrono::NaiveDate, chrono::NaiveDate)> {
        let day = |s: &str| chrono::NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d").ok();
        Some((day(&self.start)?, day(&self.end)?))
    }
}

/// One `[[servers]]` entry.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// The server's name on the site.
    pub name: String,
    /// Log files or folders (relative to site.toml, inside one of `logs`) whose matches were
    /// played on this server.
    pub logs: Vec<PathBuf>,
}

/// `[ladder]`: activity on the ladder.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct LadderConfig {
    /// A player not seen in the last N days of log time (before the newest match) is listed
    /// apart as inactive: not ranked, rating kept. Default: none (everyone is active).
    pub inactive_after_days: Option<u32>,
    /// Above this many players, player pages load their two rank numbers from small shard
    /// scripts (`data/ranks/`) instead of carrying them, so one new match does not rewrite
    /// every page. Default: [`crate::render::rank_shards::SHARD_ABOVE`].
    pub rank_shards_above: Option<usize>,
    /// On a site with the logs of several games, the index and the player list show one ladder
    /// per game (ratings of games whose players never met are not comparable); true shows the
    /// one ladder of every match instead. Default: false.
    pub combined: bool,
}

/// One `[[divisions]]` entry: a name and a bar (`top_percent` or `min_rating`; neither = every
/// ranked player left).
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct DivisionConfig {
    /// Badge shown on the ladder and the player page.
    pub name: String,
    /// The best this share of ranked players (by ladder position), in (0, 100].
    pub top_percent: Option<f64>,
    /// A headline rating of at least this.
    pub min_rating: Option<f64>,
}

/// `bots`: how computer-controlled players appear on the site.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BotsMode {
    /// Listed like everyone else.
    #[default]
    Show,
    /// Never listed by name, still counted in everyone else's numbers and ratings.
    Hide,
    /// Every frag a bot made or suffered is dropped before counting and rating.
    Exclude,
}

/// `[moderation]`: names matched like aliases (colour codes ignored, after `[aliases]`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Moderation {
    /// Players who opted out: never named anywhere (others' pages say "anonymous"), still
    /// counted. Default: none.
    pub hide: Vec<String>,
    /// Banned players: every frag they made or suffered is dropped before counting and rating,
    /// and they are listed nowhere. Default: none.
    pub exclude: Vec<String>,
}

/// `identity`: what makes a player the same player in every match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IdentityMode {
    /// The name (colour codes removed), after `[aliases]`.
    #[default]
    Name,
    /// The Quake 3 family's account or client id (Urban Terror's auth name, `cl_guid`,
    /// OpenArena's `id`) where the log gives one, else the name; anyone taking another's name
    /// is another player.
    Guid,
}

/// A navigation link added by the site owner.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct NavLink {
    pub label: String,
    pub url: String,
}

/// `[colors]`: CSS colours of the theme, as `#rgb` or `#rrggbb`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Colors {
    /// Accent (title, highlights) on light pages. Default: the theme's orange.
    pub accent: Option<String>,
    /// Accent on dark pages. Default: the theme's light orange.
    pub accent_dark: Option<String>,
    /// Links on light pages.
    pub link: Option<String>,
    /// Links on dark pages.
    pub link_dark: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            title: "fragstats".into(),
            description: String::new(),
            base_url: None,
            logs: vec![PathBuf::from("logs")],
            output: PathBuf::from("public"),
            state: PathBuf::from(".fragstats"),
            identity: IdentityMode::Name,
            aliases: BTreeMap::new(),
            clans: Vec::new(),
            detect_clans: true,
            rating: RatingConfig::default(),
            content: PathBuf::from("content"),
            nav: Vec::new(),
            colors: Colors::default(),
            bots: BotsMode::Show,
            moderation: Moderation::default(),
            ladder: LadderConfig::default(),
            divisions: Vec::new(),
            servers: Vec::new(),
            seasons: SeasonsConfig::default(),
            balance: BalanceConfig::default(),
        }
    }
}

/// A clan declared in `[[clans]]`: members are players whose plain name matches a pattern.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClanConfig {
    /// Clan name shown on the site.
    pub name: String,
    /// Names starting with one of these belong to the clan.
    pub prefix: Vec<String>,
    /// Names ending with one of these belong to the clan.
    pub suffix: Vec<String>,
    /// Names containing one of these belong to the clan.
    pub contains: Vec<String>,
}

/// `[rating]`: the rating systems' parameters.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct RatingConfig {
    /// Becker's dynamic (Elo) rating.
    pub dynamic: DynamicConfig,
    /// Becker's static (least squares) rating.
    #[serde(rename = "static")]
    pub static_: StaticConfig,
    /// Which system gives the headline rating, and who is provisional.
    pub headline: HeadlineConfig,
    /// The whole-history Bradley-Terry fit (the default headline).
    pub whole_history: WholeHistoryConfig,
    /// Glicko-2 as fed with frags.
    pub glicko2: Glicko2Settings,
    /// Measure every system on the site's logs (`evaluation.html`, `data/evaluation.json`).
    /// Default: true.
    pub evaluation: bool,
}

impl Default for RatingConfig {
    fn default() -> Self {
        RatingConfig {
            dynamic: DynamicConfig::default(),
            static_: StaticConfig::default(),
            headline: HeadlineConfig::default(),
            whole_history: WholeHistoryConfig::default(),
            glicko2: Glicko2Settings::default(),
            evaluation: true,
        }
    }
}

/// The rating systems a site can show as its headline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HeadlineSystem {
    WholeHistory,
    BradleyTerry,
    Glicko2,
    Trueskill,
    WengLin,
    Ns2,
    Becker,
    VspXp,
    Xlrstats,
    Kd,
    WinRate,
}

impl HeadlineSystem {
    /// The system's key, as in `site.toml` and the evaluation JSON.
    pub fn id(self) -> &'static str {
        match self {
            HeadlineSystem::WholeHistory => "whole-history",
            HeadlineSystem::BradleyTerry => "bradley-terry",
            HeadlineSystem::Glicko2 => "glicko2",
            HeadlineSystem::Trueskill => "trueskill",
            HeadlineSystem::WengLin => "weng-lin",
            HeadlineSystem::Ns2 => "ns2",
            HeadlineSystem::Becker => "becker",
            HeadlineSystem::VspXp => "vsp-xp",
            HeadlineSystem::Xlrstats => "xlrstats",
            HeadlineSystem::Kd => "kd",
            HeadlineSystem::WinRate => "win-rate",
        }
    }
}

/// `[rating.headline]`: the rating players see first.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct HeadlineConfig {
    /// Default: `"whole-history"` (chosen by the evaluation, see ranking.html).
    pub system: HeadlineSystem,
    /// Players with fewer frags made plus suffered are provisional: listed apart, never on top
    /// of the ladder. Default: 30.
    pub provisional_incidents: u32,
}

impl Default for HeadlineConfig {
    fn default() -> Self {
        HeadlineConfig {
            system: HeadlineSystem::WholeHistory,
            provisional_incidents: 30,
        }
    }
}

/// `[rating.whole_history]`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct WholeHistoryConfig {
    /// Factor on the weight of every earlier frag after each match, in (0, 1]. Default: 0.99
    /// (a frag 69 matches old counts half).
    pub decay: f64,
}

impl Default for WholeHistoryConfig {
    fn default() -> Self {
        WholeHistoryConfig { decay: 0.99 }
    }
}

/// Glicko-2 rating periods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Glicko2Period {
    /// Every match is a rating period.
    Match,
    /// Every day (of log time) is a rating period; undated matches count as one period each.
    Day,
}

/// `[rating.glicko2]`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Glicko2Settings {
    /// `"match"` (default) or `"day"`.
    pub period: Glicko2Period,
    /// Volatility constraint τ. Default: 0.5.
    pub tau: f64,
}

impl Default for Glicko2Settings {
    fn default() -> Self {
        Glicko2Settings {
            period: Glicko2Period::Match,
            tau: 0.5,
        }
    }
}

/// How duels (1v1 tournament matches) feed the dynamic rating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DuelMode {
    /// Every frag is a 1:0 result, as in other game types.
    Frag,
    /// The match is one result at its end (frags minus suicides as the score).
    Match,
}

/// `[rating.dynamic]`: Becker's Elo ladder (RANKING.md section 1).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct DynamicConfig {
    /// Elo K factor. Default: 40.
    pub k: f64,
    /// Rating of a new player. Default: 0.
    pub initial: f64,
    /// Weight of a frag. Default: 1.
    pub frag: f64,
    /// Weight of a flag capture. Default: 7.
    pub capture: f64,
    /// Weight of a flag return. Default: 0 (ignored).
    pub flag_return: f64,
    /// Weight of taking the enemy flag. Default: 0 (ignored).
    pub flag_pickup: f64,
    /// Weight of killing the enemy flag carrier. Default: 0 (ignored).
    pub flag_carrier_kill: f64,
    /// Weight of planting the bomb (Counter-Strike). Default: 2.
    pub bomb_plant: f64,
    /// Weight of defusing the bomb (Counter-Strike). Default: 3.
    pub bomb_defuse: f64,
    /// Weight of a planted bomb exploding, for its planter (Counter-Strike). Default: 2.
    pub bomb_explode: f64,
    /// Weight of taking part in a control point capture (Team Fortress 2). Default: 3.
    pub point_capture: f64,
    /// Points subtracted from everyone per decay period. Default: 0 (no decay).
    pub decay_points: f64,
    /// Length of a decay period in days of log time. Default: 7.
    pub decay_every_days: u32,
    /// `"frag"` (default) or `"match"`: how duels are rated.
    pub duel: DuelMode,
}

impl Default for DynamicConfig {
    fn default() -> Self {
        DynamicConfig {
            k: 40.0,
            initial: 0.0,
            frag: 1.0,
            capture: 7.0,
            flag_return: 0.0,
            flag_pickup: 0.0,
            flag_carrier_kill: 0.0,
            bomb_plant: 2.0,
            bomb_defuse: 3.0,
            bomb_explode: 2.0,
            point_capture: 3.0,
            decay_points: 0.0,
            decay_every_days: 7,
            duel: DuelMode::Frag,
        }
    }
}

/// `[rating.static]`: Becker's least squares on the frag matrix (RANKING.md section 2).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct StaticConfig {
    /// Frags between two players (both ways) for the pair to count in the core. Default: 5.
    pub min_pair_frags: u32,
    /// Frags made plus suffered for a player to be considered for the core. Default: 20.
    pub min_incidents: u32,
}

impl Default for StaticConfig {
    fn default() -> Self {
        StaticConfig {
            min_pair_frags: 5,
            min_incidents: 20,
        }
    }
}

impl Config {
    /// Parses the text of a `site.toml`. `origin` names the file in error messages.
    pub fn parse(text: &str, origin: &str) -> Result<Config> {
        let config: Config = toml::from_str(text).map_err(|err| {
            let place = match err.span() {
                Some(span) => {
                    let before = &text[..span.start.min(text.len())];
                    let line = before.matches('\n').count() + 1;
                    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                    format!("{origin}:{line}:{col}")
                }
                None => origin.to_string(),
            };
            anyhow::anyhow!("{place}: {}", err.message().trim())
        })?;
        config.validate(origin)?;
        Ok(config)
    }

    /// Reads and parses a `site.toml`.
    pub fn load(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read config file {}", path.display()))?;
        Config::parse(&text, &path.display().to_string())
    }

    /// Checks values serde cannot: colours must be hex colours (they go into CSS), every number
    /// must be in its range.
    pub fn validate(&self, origin: &str) -> Result<()> {
        self.validate_numbers(origin)?;
        for (n, link) in self.nav.iter().enumerate() {
            if link.url.trim().is_empty() || link.label.trim().is_empty() {
                anyhow::bail!(
                    "{origin}: [[nav]] entry {} needs both `label` and `url` (label = {:?}, url = {:?})",
                    n + 1,
                    link.label,
                    link.url
                );
            }
        }
        if let Some(url) = &self.base_url {
            let rest = url
                .strip_prefix("https://")
                .or_else(|| url.strip_prefix("http://"));
            if !rest.is_some_and(|r| !r.is_empty() && !r.starts_with('/') && !r.contains(' ')) {
                anyhow::bail!(
                    "{origin}: base_url = {url:?} must be the absolute address of the published site, \
                     like \"https://stats.example.org/\""
                );
            }
        }
        for (n, s) in self.servers.iter().enumerate() {
            if s.name.trim().is_empty() || s.logs.is_empty() {
                anyhow::bail!(
                    "{origin}: [[servers]] entry {} needs a `name` and `logs` (the log files or \
                     folders of that server)",
                    n + 1
                );
            }
        }
        for (n, d) in self.divisions.iter().enumerate() {
            let which = format!("[[divisions]] entry {} ({:?})", n + 1, d.name);
            if d.name.trim().is_empty() {
                anyhow::bail!("{origin}: {which} needs a `name`");
            }
            if d.top_percent.is_some() && d.min_rating.is_some() {
                anyhow::bail!(
                    "{origin}: {which} sets both `top_percent` and `min_rating`: keep one"
                );
            }
            if let Some(p) = d.top_percent
                && !(p > 0.0 && p <= 100.0)
            {
                anyhow::bail!(
                    "{origin}: {which}: top_percent = {p} must be above 0 and at most 100"
                );
            }
            if let Some(r) = d.min_rating {
                Range::closed(-1_000_000.0, 1_000_000.0).check(
                    origin,
                    &format!("{which}: min_rating"),
                    r,
                    "",
                )?;
            }
        }
        self.validate_seasons(origin)?;
        self.validate_balance(origin)?;
        let c = &self.colors;
        for (key, value) in [
            ("accent", &c.accent),
            ("accent_dark", &c.accent_dark),
            ("link", &c.link),
            ("link_dark", &c.link_dark),
        ] {
            if let Some(v) = value
                && !is_hex_colour(v)
            {
                anyhow::bail!(
                    "{origin}: colors.{key} = {v:?} is not a colour: write it as #rgb or #rrggbb"
                );
            }
        }
        Ok(())
    }
}

/// The values a numeric key allows: `low` to `high`, `low` itself only when `low_allowed`.
#[derive(Debug, Clone, Copy)]
struct Range {
    low: f64,
    low_allowed: bool,
    high: f64,
}

impl Range {
    /// From `low` to `high`, both allowed.
    const fn closed(low: f64, high: f64) -> Range {
        Range {
            low,
            low_allowed: true,
            high,
        }
    }

    /// Above `low`, at most `high`.
    const fn above(low: f64, high: f64) -> Range {
        Range {
            low,
            low_allowed: false,
            high,
        }
    }

    /// Refuses `value` of `key` outside the range (or not a number), naming both and the range;
    /// `why` (if not empty) says what the ends mean.
    fn check(self, origin: &str, key: &str, value: f64, why: &str) -> Result<()> {
        let inside = if self.low_allowed {
            value >= self.low
        } else {
            value > self.low
        } && value <= self.high;
        if inside {
            return Ok(());
        }
        let (low, high) = (self.low, self.high);
        let range = if self.low_allowed {
            format!("between {low} and {high}")
        } else {
            format!("above {low} and at most {high}")
        };
        let why = if why.is_empty() {
            String::new()
        } else {
            format!(" ({why})")
        };
        anyhow::bail!("{origin}: {key} = {value} is out of range: it must be {range}{why}")
    }
}

/// Weights of the dynamic rating's incidents: none negative, none worth more than 100 frags.
const WEIGHT: Range = Range::closed(0.0, 100.0);

impl Config {
    /// Every number of `[rating]` and `[ladder]` in its range (those of `[balance]`,
    /// `[seasons]` and `[[divisions]]` are checked with their tables).
    fn validate_numbers(&self, origin: &str) -> Result<()> {
        let r = &self.rating;
        let d = &r.dynamic;
        let checks: [(&str, f64, Range, &str); 20] = [
            (
                "rating.dynamic.k",
                d.k,
                Range::closed(0.0, 1000.0),
                "0 keeps every rating",
            ),
            (
                "rating.dynamic.initial",
                d.initial,
                Range::closed(-10_000.0, 10_000.0),
                "",
            ),
            ("rating.dynamic.frag", d.frag, WEIGHT, ""),
            ("rating.dynamic.capture", d.capture, WEIGHT, ""),
            ("rating.dynamic.flag_return", d.flag_return, WEIGHT, ""),
            ("rating.dynamic.flag_pickup", d.flag_pickup, WEIGHT, ""),
            (
                "rating.dynamic.flag_carrier_kill",
                d.flag_carrier_kill,
                WEIGHT,
                "",
            ),
            ("rating.dynamic.bomb_plant", d.bomb_plant, WEIGHT, ""),
            ("rating.dynamic.bomb_defuse", d.bomb_defuse, WEIGHT, ""),
            ("rating.dynamic.bomb_explode", d.bomb_explode, WEIGHT, ""),
            ("rating.dynamic.point_capture", d.point_capture, WEIGHT, ""),
            (
                "rating.dynamic.decay_points",
                d.decay_points,
                Range::closed(0.0, 1000.0),
                "0 = no decay",
            ),
            (
                "rating.dynamic.decay_every_days",
                f64::from(d.decay_every_days),
                Range::closed(1.0, 3650.0),
                "days of log time",
            ),
            (
                "rating.static.min_pair_frags",
                f64::from(r.static_.min_pair_frags),
                Range::closed(1.0, 100_000.0),
                "",
            ),
            (
                "rating.static.min_incidents",
                f64::from(r.static_.min_incidents),
                Range::closed(0.0, 1_000_000.0),
                "",
            ),
            (
                "rating.headline.provisional_incidents",
                f64::from(r.headline.provisional_incidents),
                Range::closed(0.0, 1_000_000.0),
                "0 = nobody is provisional",
            ),
            (
                "rating.whole_history.decay",
                r.whole_history.decay,
                Range::above(0.0, 1.0),
                "1 = no decay",
            ),
            (
                "rating.glicko2.tau",
                r.glicko2.tau,
                Range::above(0.0, 10.0),
                "Glickman suggests 0.3 to 1.2",
            ),
            (
                "ladder.inactive_after_days",
                self.ladder.inactive_after_days.map_or(0.0, f64::from),
                Range::closed(0.0, 36_500.0),
                "days of log time",
            ),
            (
                "ladder.rank_shards_above",
                self.ladder.rank_shards_above.map_or(0.0, |n| n as f64),
                Range::closed(0.0, 10_000_000.0),
                "players",
            ),
        ];
        for (key, value, range, why) in checks {
            range.check(origin, key, value, why)?;
        }
        Ok(())
    }

    /// `[balance]`: penalties and tolerances are points (0 or more), the guard a probability.
    fn validate_balance(&self, origin: &str) -> Result<()> {
        let b = &self.balance;
        for (key, value) in [
            ("clan_penalty", b.clan_penalty),
            ("avoid_last_within", b.avoid_last_within),
        ] {
            if !(0.0..=100.0).contains(&value) {
                anyhow::bail!(
                    "{origin}: balance.{key} = {value} must be between 0 and 100 (points of \
                     P(red wins))"
                );
            }
        }
        if !(b.party_guard > 0.5 && b.party_guard <= 1.0) {
            anyhow::bail!(
                "{origin}: balance.party_guard = {} must be above 0.5 and at most 1 (1 turns the \
                 guard off; 0.75 stops a group from making one side a 3:1 favourite)",
                b.party_guard
            );
        }
        Ok(())
    }

    /// `[seasons]`: one way of defining them, real dates in order, a carry in [0, 1].
    fn validate_seasons(&self, origin: &str) -> Result<()> {
        let s = &self.seasons;
        if s.every.is_some() && !s.list.is_empty() {
            anyhow::bail!(
                "{origin}: [seasons] sets both `every` and [[seasons.list]]: keep one (`every` \
                 makes calendar seasons, the list names its own)"
            );
        }
        if !(0.0..=1.0).contains(&s.carry) {
            anyhow::bail!(
                "{origin}: seasons.carry = {} must be between 0 (each season starts from \
                 nothing) and 1 (it starts from the whole previous rating)",
                s.carry
            );
        }
        if s.carry > 0.0 && !s.configured() {
            anyhow::bail!(
                "{origin}: seasons.carry is set but no season is: add `every = \"month\"` (or \
                 \"quarter\", \"year\") or [[seasons.list]] entries under [seasons]"
            );
        }
        for (n, season) in s.list.iter().enumerate() {
            let which = format!("[[seasons.list]] entry {} ({:?})", n + 1, season.name);
            if season.name.trim().is_empty() {
                anyhow::bail!("{origin}: {which} needs a `name`");
            }
            for (key, value) in [("start", &season.start), ("end", &season.end)] {
                if chrono::NaiveDate::parse_from_str(value.trim(), "%Y-%m-%d").is_err() {
                    anyhow::bail!(
                        "{origin}: {which}: {key} = {value:?} is not a date: write it as \
                         YYYY-MM-DD, like \"2026-03-01\" (both ends are inclusive)"
                    );
                }
            }
            if let Some((start, end)) = season.dates()
                && end < start
            {
                anyhow::bail!("{origin}: {which}: end {end} is before start {start}");
            }
        }
        Ok(())
    }
}

/// `#rgb` or `#rrggbb`.
pub fn is_hex_colour(v: &str) -> bool {
    v.strip_prefix('#')
        .is_some_and(|h| matches!(h.len(), 3 | 6) && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_file_gives_defaults() {
        let c = Config::parse("", "site.toml").unwrap();
        assert_eq!(c, Config::default());
        assert_eq!(c.logs, vec![PathBuf::from("logs")]);
        assert_eq!(c.rating.dynamic.k, 40.0);
        assert_eq!(c.rating.static_.min_pair_frags, 5);
    }

    #[test]
    fn unknown_key_names_key_line_and_valid_keys() {
        let err = Config::parse("title = \"x\"\n\n[rating.dynamic]\nkk = 3\n", "site.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("site.toml:4:1: unknown field `kk`"),
            "{err}"
        );
        assert!(err.contains("expected one of"), "{err}");
        assert!(err.contains("`decay_points`"), "{err}");
        assert!(!err.contains('\n'), "one line: {err}");
    }

    #[test]
    fn nav_links_need_a_url_and_base_url_must_be_absolute() {
        let err = Config::parse("[[nav]]\nlabel = \"Forum\"\n", "s").unwrap_err();
        assert!(err.to_string().contains("[[nav]] entry 1 needs"), "{err}");
        assert!(Config::parse("[[nav]]\nlabel = \"F\"\nurl = \"https://f.org\"\n", "s").is_ok());
        for bad in ["stats.example.org", "/stats", "ftp://x.org", "https://"] {
            let err = Config::parse(&format!("base_url = {bad:?}\n"), "s").unwrap_err();
            assert!(err.to_string().contains("base_url"), "{bad}: {err}");
        }
        assert!(Config::parse("base_url = \"https://stats.example.org/\"\n", "s").is_ok());
    }

    #[test]
    fn colours_must_be_hex() {
        assert!(Config::parse("[colors]\naccent = \"#0af\"\n", "s").is_ok());
        let err = Config::parse("[colors]\naccent = \"red;}body{x:1\"\n", "s").unwrap_err();
        assert!(err.to_string().contains("colors.accent"), "{err}");
    }

    #[test]
    fn seasons_are_checked() {
        let c = Config::parse("[seasons]\nevery = \"quarter\"\ncarry = 0.5\n", "s").unwrap();
        assert_eq!(c.seasons.every, Some(SeasonEvery::Quarter));
        assert_eq!(c.seasons.carry, 0.5);
        let listed = "[[seasons.list]]\nname = \"Spring\"\nstart = \"2026-03-01\"\n";
        let c = Config::parse(&format!("{listed}end = \"2026-05-31\"\n"), "s").unwrap();
        let (start, end) = c.seasons.list[0].dates().unwrap();
        assert_eq!(
            (start.to_string(), end.to_string()),
            ("2026-03-01".into(), "2026-05-31".into())
        );
        for (text, says) in [
            (
                format!("{listed}end = \"2026-02-31\"\n"),
                "end = \"2026-02-31\" is not a date",
            ),
            (format!("{listed}end = \"2026-02-01\"\n"), "is before start"),
            (
                format!("[seasons]\nevery = \"year\"\n{listed}end = \"2026-05-31\"\n"),
                "keep one",
            ),
            ("[seasons]\ncarry = 0.5\n".into(), "no season is"),
            (
                "[seasons]\nevery = \"month\"\ncarry = 1.5\n".into(),
                "between 0",
            ),
            (
                "[[seasons.list]]\nstart = \"2026-01-01\"\nend = \"2026-01-02\"\n".into(),
                "needs a `name`",
            ),
        ] {
            let err = Config::parse(&text, "s").unwrap_err().to_string();
            assert!(err.contains(says), "{text}: {err}");
        }
        let err = Config::parse("[seasons]\nevery = \"week\"\n", "s").unwrap_err();
        assert!(err.to_string().contains("unknown variant `week`"), "{err}");
    }

    #[test]
    fn rating_keys_and_duel_mode() {
        let c = Config::parse(
            "[rating.dynamic]\nk = 32.0\nduel = \"match\"\n[rating.static]\nmin_incidents = 3\n",
            "s",
        )
        .unwrap();
        assert_eq!(c.rating.dynamic.k, 32.0);
        assert_eq!(c.rating.dynamic.duel, DuelMode::Match);
        assert_eq!(c.rating.static_.min_incidents, 3);
        assert_eq!(c.rating.static_.min_pair_frags, 5);
        let err = Config::parse("[rating.dynamic]\nduel = \"round\"\n", "s").unwrap_err();
        assert!(err.to_string().contains("unknown variant `round`"), "{err}");
    }

    /// Issue 39: a number that makes no sense is refused with its key, its value and the range.
    #[test]
    fn numbers_out_of_range_name_key_value_and_range() {
        for (text, says) in [
            (
                "[rating.dynamic]\nk = -5.0\n",
                "s: rating.dynamic.k = -5 is out of range: it must be between 0 and 1000 (0 \
                 keeps every rating)",
            ),
            (
                "[rating.dynamic]\ncapture = 1e9\n",
                "rating.dynamic.capture = 1000000000 is out of range: it must be between 0 and 100",
            ),
            (
                "[rating.dynamic]\nfrag = nan\n",
                "rating.dynamic.frag = NaN is out of range",
            ),
            (
                "[rating.dynamic]\ndecay_every_days = 0\n",
                "rating.dynamic.decay_every_days = 0 is out of range: it must be between 1 and 3650",
            ),
            (
                "[rating.static]\nmin_pair_frags = 0\n",
                "rating.static.min_pair_frags = 0 is out of range: it must be between 1 and 100000",
            ),
            (
                "[rating.headline]\nprovisional_incidents = 2000000\n",
                "rating.headline.provisional_incidents = 2000000 is out of range",
            ),
            (
                "[rating.whole_history]\ndecay = 0\n",
                "rating.whole_history.decay = 0 is out of range: it must be above 0 and at most 1 \
                 (1 = no decay)",
            ),
            (
                "[rating.glicko2]\ntau = -1\n",
                "rating.glicko2.tau = -1 is out of range: it must be above 0 and at most 10",
            ),
            (
                "[ladder]\ninactive_after_days = 40000\n",
                "ladder.inactive_after_days = 40000 is out of range: it must be between 0 and 36500",
            ),
            (
                "[ladder]\nrank_shards_above = 20000000\n",
                "ladder.rank_shards_above = 20000000 is out of range",
            ),
            (
                "[[divisions]]\nname = \"Gold\"\nmin_rating = inf\n",
                "[[divisions]] entry 1 (\"Gold\"): min_rating = inf is out of range: it must be \
                 between -1000000 and 1000000",
            ),
            (
                "[balance]\nclan_penalty = -1\n",
                "balance.clan_penalty = -1 must be between 0 and 100",
            ),
        ] {
            let err = Config::parse(text, "s").unwrap_err().to_string();
            assert!(err.contains(says), "{text}: {err}");
        }
        // The ends are allowed, as are the values the tests and sample sites use.
        for text in [
            "[rating.dynamic]\nk = 0.0\ndecay_every_days = 3650\n",
            "[rating.static]\nmin_incidents = 100000\n",
            "[rating.whole_history]\ndecay = 1\n[ladder]\ninactive_after_days = 0\n",
            "[ladder]\nrank_shards_above = 0\n",
        ] {
            assert!(Config::parse(text, "s").is_ok(), "{text}");
        }
    }
}
