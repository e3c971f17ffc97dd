//! fragstats: game-server logs in, static statistics website out.
//!
//! Data flows one way: [`crawl`] finds the logs, [`read`] has [`parse`] turn the new bytes into
//! [`model`] matches (kept in [`state`], the archive of record, with [`archive`]); [`fold`]
//! goes over them in order into the counts ([`stats`]) and ratings ([`rating`]: every system and
//! the replay that judges them); [`standings`] makes ladders and seasons of those, and [`team`]
//! predicts and balances teams; [`render`] makes the pages and [`output`] publishes them. [`build`] runs the pipeline; [`watch`],
//! [`balance`] and [`export`] are the other commands.

pub mod archive;
pub mod balance;
pub mod build;
pub mod cli;
pub(crate) mod codec;
pub mod compressed;
pub mod config;
pub mod crawl;
pub mod diagnostics;
pub mod export;
pub mod fold;
pub mod hash;
pub mod hashed_pairs;
pub mod idle;
pub mod init;
pub mod joined;
pub mod leftovers;
pub(crate) mod mapped;
pub mod model;
pub mod output;
pub mod parse;
pub mod progress;
pub mod rating;
pub mod read;
pub mod render;
pub mod scratch;
pub mod standings;
pub mod state;
pub mod stats;
pub(crate) mod sys;
pub mod team;
pub mod watch;

#[cfg(test)]
mod testdata;
