//! The command line (clap derive): `fragstats build [--config FILE] [--out DIR] [PATH ...]`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Turns first-person-shooter server logs (Quake 3, OpenArena, Urban Terror) into a static
/// statistics website: rankings, player, map and match pages. Open the result from disk or
/// publish it on any web host.
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
}

/// Options of `fragstats build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Site configuration. Paths inside it are relative to its folder. [default: ./site.toml,
    /// or built-in defaults when there is none]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Output folder, replacing `output` from the config. [default: public/ beside the config]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Exit with status 3 when any file or line was skipped (the site is still written).
    #[arg(long)]
    pub strict: bool,
    /// Ignore the incremental state (`.fragstats/`) and read every log from the start.
    #[arg(long)]
    pub full: bool,
    /// Log files or folders (walked recursively) to read instead of the config's `logs`.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}
