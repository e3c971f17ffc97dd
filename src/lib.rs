//! fragstats: game-server logs in, static statistics website out.
//!
//! Data flows one way: [`crawl`] -> [`parse`] -> [`model`] -> [`stats`] -> [`render`] ->
//! [`output`]; [`build`] runs the pipeline.

pub mod archive;
pub mod balance;
pub mod build;
pub mod cli;
pub mod compressed;
pub mod config;
pub mod crawl;
pub mod diagnostics;
pub mod evaluate;
pub mod export;
pub mod hash;
pub mod history;
pub mod idle;
pub mod init;
pub mod joined;
pub mod leftovers;
pub mod model;
pub mod output;
pub mod parse;
pub mod progress;
pub mod rating;
pub mod read;
pub mod render;
pub mod state;
pub mod stats;
pub mod watch;

#[cfg(test)]
mod testdata;
