//! Standings: what the ratings make of the players over a group of matches (a ladder per game
//! type and game, a season, any subset rated as a build of only it would rate it) and each
//! player's place, activity and division on a ladder. Above the fold and the ratings; renders
//! nothing.

pub mod ladders;
pub mod season;
pub mod standing;
pub mod subset;
