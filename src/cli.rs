//! The command line (clap derive): `fragstats build [--config FILE] [--out DIR] [PATH ...]`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Turns first-person-shooter server logs (Quake 3, OpenArena, Urban Terror, the Half-Life log
/// standard of Counter-Strike, Team Fortress 2 and Left 4 Dead 2, Call of Duty, Enemy Territory)
/// into a static statistics website: rankings, player, clan, map and match pages. Open the
/// result from disk or publish it on any web host.
#[derive(Debug, Parser)]
#[command(name = "fragstats", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// What to do.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read the logs and write the site (exit 0 when the site was written, even if some lines or
    /// files were skipped; skips are summarised on stderr).
    Build(BuildArgs),
    /// Build, then rebuild whenever the logs, site.toml, templates/, static/ or content/ change
    /// (one summary line per rebuild).
    Watch(BuildArgs),
    /// Like watch, and serve the site on http://127.0.0.1:PORT/ for a local preview (--bind for
    /// other devices).
    Serve(ServeArgs),
    /// Measure how well each rating system predicts the frags in the logs (log-loss, Brier score,
    /// accuracy; Spearman against bot skill where the logs have bots; winners of team matches) and
    /// print a table.
    Evaluate(EvaluateArgs),
    /// Split the players present into fair teams with the ratings of the last build (its
    /// `data/balance.js`): the split whose predicted P(red wins) is closest to 50%, the next best
    /// ones, and the naive snake split beside them. Exit 0 when teams were proposed, 1 otherwise.
    Balance(BalanceArgs),
    /// Write the parsed history as Apache Parquet tables (matches, match_players, frags,
    /// players) under DIR/<table>/, partitioned by month, for DuckDB, Polars, DataFusion or
    /// Spark. Reads the logs as `build` does; the counts equal the site's.
    Export(ExportArgs),
    /// Remove matches from the archive (the matches kept from logs that were since truncated,
    /// rotated away, replaced or deleted) and say what was removed. The next build leaves them
    /// out. Matches of logs still present stay: remove or edit the log itself for those.
    Forget(ForgetArgs),
    /// Start a new site in DIR (default: the current folder): a commented site.toml with every
    /// key at its default, logs/ for the server logs, content/ for pages, and the next steps.
    Init {
        /// Folder of the new site (created if needed; must not hold a site.toml yet).
        #[arg(value_name = "DIR", default_value = ".")]
        dir: PathBuf,
    },
}

/// Options of `fragstats forget`.
#[derive(Debug, Args)]
pub struct ForgetArgs {
    /// Site configuration (for its state folder). [default: ./site.toml]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Only matches that started before this day (YYYY-MM-DD, log time); undated matches stay.
    #[arg(long, value_name = "DATE")]
    pub before: Option<chrono::NaiveDate>,
    /// Only matches read from this log, or from logs under this folder (as given in `logs`, or
    /// as shown on the match pages).
    #[arg(value_name = "PATH")]
    pub path: Option<String>,
    /// Every archived match (needed when neither PATH nor --before is given).
    #[arg(long, conflicts_with_all = ["path", "before"])]
    pub all: bool,
}

/// Output of `fragstats balance`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BalanceFormat {
    /// Readable lines.
    Text,
    /// `say` lines for the in-game chat.
    Say,
    /// Server commands that move the players (`forceteam`).
    Rcon,
}

/// `fragstats balance --clans`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ClansArg {
    /// Clan mates on one side.
    Together,
    /// Clan mates spread evenly over both sides.
    Spread,
    /// Clans play no part.
    Off,
}

/// Options of `fragstats balance`.
#[derive(Debug, Args)]
pub struct BalanceArgs {
    /// Site configuration (for its output folder). [default: ./site.toml]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Output folder of the build to read, replacing `output` from the config.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print one JSON object (red, blue, p_red_wins, exact, alternatives, abba, random, unknown,
    /// swaps and current).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: BalanceFormat,
    /// Say why: every rule and the search.
    #[arg(long)]
    pub explain: bool,
    /// Keep a player on a side: NAME=red or NAME=blue.
    #[arg(long, value_name = "NAME=SIDE")]
    pub lock: Vec<String>,
    /// Keep these players on the same side: A,B[,C...].
    #[arg(long, value_name = "A,B")]
    pub together: Vec<String>,
    /// Keep these two players on different sides: A,B.
    #[arg(long, value_name = "A,B")]
    pub apart: Vec<String>,
    /// The teams as they are, "red: A, B; blue: C, D": propose the fewest swaps instead.
    #[arg(long, value_name = "TEAMS")]
    pub from: Option<String>,
    /// With --from: the most swaps to propose.
    #[arg(long, value_name = "N", default_value_t = 2, requires = "from")]
    pub max_swaps: usize,
    /// Seed of the random split shown for comparison. [default: a hash of the players' names]
    #[arg(long, value_name = "N")]
    pub seed: Option<u32>,
    /// Clan mates together, spread or off (a soft rule). [default: `[balance] clans`]
    #[arg(long, value_enum, value_name = "MODE")]
    pub clans: Option<ClansArg>,
    /// Avoid repeating the last match's teams (`[balance] avoid_last`).
    #[arg(long, overrides_with = "no_avoid_last")]
    pub avoid_last: bool,
    /// Do not avoid the last match's teams, even when `[balance] avoid_last = true` (the last of
    /// --avoid-last and --no-avoid-last wins).
    #[arg(long, overrides_with = "avoid_last")]
    pub no_avoid_last: bool,
    /// Players present (names as on the site: colour codes and case ignored, a unique prefix
    /// will do).
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,
}

/// Options of `fragstats export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Table format (Apache Parquet, the one there is).
    #[arg(long, value_enum, default_value_t = ExportFormat::Parquet)]
    pub format: ExportFormat,
    /// Site configuration (log paths, aliases, identity, state folder). [default: ./site.toml]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Folder to write the tables into; replaced as a whole when the export is complete (a
    /// folder of other files is refused).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Log files or folders to read instead of the config's `logs`.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// Formats of `fragstats export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// Apache Parquet files, one folder per table.
    Parquet,
}

/// Options of `fragstats evaluate`.
#[derive(Debug, Args)]
pub struct EvaluateArgs {
    /// Site configuration (for its log paths and aliases). [default: ./site.toml]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print the evaluation as JSON (the same as the site's `data/evaluation.json`).
    #[arg(long)]
    pub json: bool,
    /// Log files or folders to read instead of the config's `logs`.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// Options of `fragstats serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port to serve the site on.
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// Address to listen on: 127.0.0.1 is this machine only; 0.0.0.0 (every address) or one of
    /// this machine's LAN addresses lets other devices on the network preview the site.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    #[command(flatten)]
    pub build: BuildArgs,
}

/// Options of `fragstats build` (and `watch`, `serve`).
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Site configuration. Paths inside it are relative to its folder. [default: ./site.toml,
    /// or built-in defaults when there is none]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Output folder, replacing `output` from the config. [default: public/ beside the config]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Exit with status 3 when any file or line was skipped (the site is still written); a
    /// `hide`, `exclude` or `bots` setting that matches no player fails the build (status 1)
    /// before the site is published.
    #[arg(long)]
    pub strict: bool,
    /// Ignore the incremental state (`.fragstats/`) and read every log from the start.
    #[arg(long)]
    pub full: bool,
    /// Log files or folders (walked recursively) to read instead of the config's `logs`.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}
