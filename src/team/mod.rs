//! Teams: the team-outcome model ([`model`]: P(red wins) of a line-up from the players'
//! skills and the learnt parameters) and the balancer that splits a lobby by it ([`balance`]).
//! Learning the parameters from a site's results is a rating system's job
//! ([`crate::rating::systems::team_model`]); this folder only uses them.

pub mod balance;
pub mod model;
