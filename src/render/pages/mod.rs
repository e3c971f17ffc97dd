//! One module per page kind, each adding its builders to the shared [`Renderer`](super::renderer::Renderer).

mod balance_report;
mod clan;
pub(super) mod index;
mod map;
mod match_page;
mod player;
mod ranking;
pub(super) mod season;
pub(super) mod server;
