//! One module per page kind, each adding its builders to the shared [`Renderer`](super::renderer::Renderer).

pub(super) mod balance_report;
pub(super) mod clan;
pub(super) mod index;
pub(super) mod ladders;
pub(super) mod map;
pub(super) mod match_page;
pub(super) mod player;
pub(super) mod ranking;
pub(super) mod season;
pub(super) mod server;
