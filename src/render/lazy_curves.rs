//! Rating curves drawn only for the player pages that are rendered. Drawing the curves (SVGs
//! through plotters) took about 21% of the processor time of the crowd append of
//! `benches/build_speed.sh` when every page's view drew them, and on an append almost every
//! page's key is unchanged. So the view a page is keyed by holds, in place of each SVG,
//! a stub: the hash of everything the drawing is a function of (the points, the labels, the
//! x axis kind, and the source of the code that draws). Equal stubs draw equal SVGs, so an
//! equal key still means an equal page; a page that is rendered gets the real SVGs first
//! ([`Renderer::draw_player_curves`]).
//!
//! A refitted headline's curve (the whole-history fit, Bradley-Terry: Elo-like scales of
//! hundreds of points) is drawn at the precision the page shows the headline (whole points):
//! its last point is the refitted value, which moves a little for every player each time the
//! whole history is refitted; unrounded, every page would have to be drawn (and many
//! rewritten for a pixel) on each append. Other headlines (K/D, win rate, TrueSkill's scale
//! of 25) are drawn as they are: whole points would flatten them, and they change only for
//! the players of the new matches.

use std::sync::OnceLock;

use super::renderer::Renderer;
use super::views::PlayerPage;

/// What one curve is drawn from.
pub(super) struct CurveInput {
    points: Vec<(f64, f64)>,
    what: String,
    title: String,
}

/// The hash of the code a curve's SVG depends on beyond its input: the chart and curve code
/// (with `colour.rs`, whose escaping the chart uses) and the locked dependency versions
/// (plotters). Part of each stub, so a fragstats that draws
/// differently never keeps a page an older one drew.
fn code() -> u64 {
    static CODE: OnceLock<u64> = OnceLock::new();
    *CODE.get_or_init(|| {
        crate::hash::code_hash(&[
            include_str!("charts.rs"),
            include_str!("colour.rs"),
            include_str!("renderer.rs"),
            include_str!("lazy_curves.rs"),
            include_str!("decimal.rs"),
        ])
    })
}

impl Renderer<'_> {
    /// The two curves of player `i`'s page: Becker's rating, and the headline rating (no
    /// points when the headline is Becker's ladder), rounded to whole points when the headline
    /// is refitted (see the module doc).
    pub(super) fn player_curves(&self, i: usize) -> [CurveInput; 2] {
        let what = &self.input.roster.players[i].key;
        let round = self.headline_refitted();
        let becker = CurveInput {
            points: self.curve_points(&self.input.ratings.dynamic.history[i]),
            what: what.clone(),
            title: format!("Becker's rating of {what} over time"),
        };
        let headline = CurveInput {
            points: self
                .input
                .ratings
                .headline
                .curve
                .get(i)
                .map(|h| self.curve_points(h))
                .unwrap_or_default()
                .into_iter()
                .map(|(x, y)| (x, if round { y.round() } else { y }))
                .collect(),
            what: what.clone(),
            title: format!("Headline rating of {what} after each match"),
        };
        [becker, headline]
    }

    /// The stand-in of a curve in a keyed view: "" when it has no points (as its SVG is),
    /// else the hash of what it is drawn from.
    pub(super) fn curve_stub(&self, c: &CurveInput) -> String {
        if c.points.is_empty() {
            return String::new();
        }
        let mut h = crate::hash::Hasher::new();
        h.u64(code());
        h.u64(u64::from(self.dated));
        h.str(&c.what);
        h.str(&c.title);
        for &(x, y) in &c.points {
            h.u64(x.to_bits());
            h.u64(y.to_bits());
        }
        format!("curve:{:016x}", h.finish())
    }

    /// The SVG of a curve.
    pub(super) fn draw(&self, c: CurveInput) -> String {
        self.draw_curve(c.points, &c.what, &c.title)
    }

    /// Replaces the curve stubs of player `i`'s keyed `page` by the SVGs, for rendering.
    pub(super) fn draw_player_curves<'p>(
        &self,
        i: usize,
        mut page: PlayerPage<'p>,
    ) -> PlayerPage<'p> {
        let [becker, headline] = self.player_curves(i);
        page.curve_svg = self.draw(becker);
        page.headline_curve_svg = self.draw(headline);
        page
    }
}
