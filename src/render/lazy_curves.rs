//! Rating curves drawn only for the player pages that are rendered. Drawing a curve's SVG
//! ([`super::charts`]) is a large part of rendering a player page, and on an append almost
//! every page's key is unchanged. So the view a page is keyed by holds, in place of each SVG,
//! a stub: the hash of everything the drawing is a function of (the points, the labels, the
//! x axis kind, and the source of the code that draws). Equal stubs draw equal SVGs, so an
//! equal key still means an equal page; a page that is rendered gets the real SVGs first
//! ([`draw_player_curves`]).
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
/// (with `colour.rs`, whose escaping the chart uses) and the locked dependency versions. Part
/// of each stub, so a fragstats that draws differently never keeps a page an older one drew.
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

/// Which of a player's curves: part of its stub, as the curve's title is made from it.
#[derive(Clone, Copy)]
enum Curve {
    Becker,
    Headline,
}

impl Curve {
    /// The curve's title, for the player named `what`.
    fn title(self, what: &str) -> String {
        match self {
            Curve::Becker => format!("Becker's rating of {what} over time"),
            Curve::Headline => format!("Headline rating of {what} after each match"),
        }
    }
}

/// A curve's point by its position.
type PointAt<'a> = Box<dyn Fn(usize) -> (u32, f64) + 'a>;

/// The points of player `i`'s curve `which` (see [`player_curves`]), not collected.
fn player_curve_points(r: &Renderer, i: usize, which: Curve) -> impl Iterator<Item = (f64, f64)> {
    let round = r.headline_refitted();
    let headline = &r.input.ratings.headline;
    let (len, point): (usize, PointAt) = match which {
        Curve::Becker => {
            let history = &r.input.ratings.dynamic.history;
            (
                history.len(i),
                Box::new(move |n| history.point(i, n).pair()),
            )
        }
        Curve::Headline => (
            headline.curve_len(i),
            Box::new(move |n| headline.curve_point(i, n)),
        ),
    };
    r.curve_points_iter_by(len, point)
        .map(move |(x, y)| match which {
            Curve::Headline if round => (x, y.round()),
            _ => (x, y),
        })
}

/// The two curves of player `i`'s page: Becker's rating, and the headline rating (no
/// points when the headline is Becker's ladder), rounded to whole points when the headline
/// is refitted (see the module doc).
pub(super) fn player_curves(r: &Renderer, i: usize) -> [CurveInput; 2] {
    let what = &r.input.roster.players[i].key;
    [Curve::Becker, Curve::Headline].map(|which| CurveInput {
        points: player_curve_points(r, i, which).collect(),
        what: what.clone(),
        title: which.title(what),
    })
}

/// The stand-ins of player `i`'s two curves in their keyed view, in [`player_curves`]'
/// order: "" for a curve without points (as its SVG is), else the hash of what it is drawn
/// from (the code, the x axis kind, the player's name and the curve's kind, of which the
/// title is made, and every point), hashed from the ratings as they are, without making
/// the points, the labels or the title.
pub(super) fn player_curve_stubs(r: &Renderer, i: usize) -> [String; 2] {
    thread_local! {
        // Everything a stub hashes, in a buffer reused by each page a thread keys, hashed
        // at once (as `lazy_rows` does).
        static INPUTS: std::cell::RefCell<Vec<u8>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    let what = &r.input.roster.players[i].key;
    [Curve::Becker, Curve::Headline].map(|which| {
        INPUTS.with_borrow_mut(|b| {
            b.clear();
            b.extend_from_slice(&code().to_le_bytes());
            b.push(u8::from(r.dated));
            b.push(which as u8);
            b.extend_from_slice(&(what.len() as u64).to_le_bytes());
            b.extend_from_slice(what.as_bytes());
            let head = b.len();
            for (x, y) in player_curve_points(r, i, which) {
                b.extend_from_slice(&x.to_bits().to_le_bytes());
                b.extend_from_slice(&y.to_bits().to_le_bytes());
            }
            if b.len() == head {
                return String::new();
            }
            let mut h = crate::hash::StreamHasher::new();
            h.raw(b);
            crate::hash::tagged_hex("curve:", h.finish())
        })
    })
}

/// The SVG of a curve.
pub(super) fn draw(r: &Renderer, c: CurveInput) -> String {
    r.draw_curve(c.points, &c.what, &c.title)
}

/// Replaces the curve stubs of player `i`'s keyed `page` by the SVGs, for rendering.
pub(super) fn draw_player_curves<'p>(
    r: &Renderer,
    i: usize,
    mut page: PlayerPage<'p>,
) -> PlayerPage<'p> {
    let [becker, headline] = player_curves(r, i);
    page.curve_svg = draw(r, becker);
    page.headline_curve_svg = draw(r, headline);
    page
}
