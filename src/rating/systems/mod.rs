//! The rating systems, one file each: Becker's dynamic ladder ([`dynamic`]) and static ranking
//! ([`static_rank`]) as RANKING.md specifies them, the whole-history Bradley-Terry fit that is the
//! site's default headline ([`whole_history`]), Glicko-2, TrueSkill and Weng-Lin
//! ([`established`], [`trueskill`]), the NS2 team model ([`ns2`]) and fragstats' own team model
//! ([`team_model`]). Each stands behind [`super::system::FragRater`] for the replay; none knows
//! pages or logs.

pub mod dynamic;
pub mod established;
pub mod ns2;
pub mod static_rank;
pub mod team_model;
pub mod trueskill;
pub mod whole_history;
