//! SVG charts inlined into pages. The reliability diagram's plot area (grid, lines, points) is
//! drawn with plotters' SVG backend; the line charts (a match's frag timeline, a player's
//! curves: one per page) are written directly, element for element as plotters drew them (a
//! test compares the two on random charts), at a fraction of plotters' cost. The axis and
//! legend labels are `<text>` elements written here, so no font file is needed: the browser
//! renders the text. A line chart's legend is HTML after the SVG, so it wraps on a phone
//! instead of running its names into each other. Every label is escaped. The only module that
//! talks to plotters.

use std::fmt::Write as _;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::colour::escape;
use super::decimal::fixed;

const WIDTH: u32 = 720;
const HEIGHT: u32 = 260;
const LEFT: u32 = 56;
const BOTTOM: u32 = 34;
const TOP: u32 = 12;
const RIGHT: u32 = 16;

/// Line colours that read on light and dark backgrounds.
const PALETTE: [RGBColor; 6] = [
    RGBColor(234, 88, 12),
    RGBColor(37, 99, 235),
    RGBColor(22, 163, 74),
    RGBColor(190, 24, 93),
    RGBColor(202, 138, 4),
    RGBColor(124, 58, 237),
];
const GRID: RGBColor = RGBColor(128, 128, 128);

/// One line of a chart.
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// A line chart with labelled axes.
pub struct LineChart<'a> {
    /// Accessible description (`aria-label`).
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub series: Vec<Series>,
    /// Formats an x value for a tick label (dates, match numbers, clock times).
    pub x_format: &'a dyn Fn(f64) -> String,
    /// The smallest step between x tick labels: 1 for match numbers and minutes (no tick
    /// between two whole numbers, whose labels would repeat), a day for dates shown as days.
    pub x_step: f64,
    /// Draw a dot at every point (for short series).
    pub dots: bool,
}

/// Renders a chart to an SVG string that scales to its container. An empty chart gives "".
pub fn line_chart(chart: &LineChart) -> String {
    let Some((x0, x1, y0, y1)) = line_chart_ranges(chart) else {
        return String::new();
    };
    let plot = Plot::of((x0, x1, y0, y1));
    let points: usize = chart.series.iter().map(|s| s.points.len()).sum();
    let mut svg = String::with_capacity(2000 + points * if chart.dots { 110 } else { 9 });
    let _ = write!(
        svg,
        r#"<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{}">"#,
        escape(chart.title)
    );
    svg.push('\n');
    plot.draw(chart, &mut svg);
    svg.push_str(r#"<g class="labels">"#);
    plot.labels(chart, &mut svg);
    svg.push_str("</g></svg>");
    push_legend(chart, &mut svg);
    svg
}

/// The legend of a chart of more than one series: a list after the SVG, each name beside a
/// swatch of its line's colour.
fn push_legend(chart: &LineChart, out: &mut String) {
    if chart.series.len() < 2 {
        return;
    }
    out.push_str(r#"<ul class="chart-legend">"#);
    for (i, s) in chart.series.iter().enumerate() {
        out.push_str(r##"<li><span class="swatch" style="background:#"##);
        push_colour(out, PALETTE[i % PALETTE.len()], false);
        out.push_str(r#""></span>"#);
        out.push_str(&escape(&s.label));
        out.push_str("</li>");
    }
    out.push_str("</ul>");
}

/// The x and y ranges a line chart shows (x0, x1, y0, y1): its finite points' (x widened when
/// flat, y rounded by [`nice_range`]); None when no point is finite.
fn line_chart_ranges(chart: &LineChart) -> Option<(f64, f64, f64, f64)> {
    let points = chart.series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in points {
        if x.is_finite() && y.is_finite() {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
    }
    if x0 > x1 {
        return None;
    }
    if x1 - x0 < 1e-9 {
        x0 -= 1.0;
        x1 += 1.0;
    }
    let (y0, y1) = nice_range(y0, y1);
    Some((x0, x1, y0, y1))
}

/// A line chart's plot area as plotters lays it out on the [`WIDTH`] x [`HEIGHT`] canvas: the
/// value ranges and the pixel ranges they map to (y upwards), the margin above making room for
/// the legend.
struct Plot {
    x: (f64, f64),
    y: (f64, f64),
    /// Pixels of `x.0` and `x.1`.
    px: (i32, i32),
    /// Pixels of `y.0` and `y.1` (top is smaller).
    py: (i32, i32),
}

/// Length of the tick marks: plotters' 5% of the plot area's smaller side, at most 5 pixels.
const TICK: i32 = 5;

impl Plot {
    fn of((x0, x1, y0, y1): (f64, f64, f64, f64)) -> Plot {
        Plot {
            x: (x0, x1),
            y: (y0, y1),
            px: (LEFT as i32, (WIDTH - RIGHT) as i32 - 1),
            py: ((HEIGHT - BOTTOM) as i32 - 1, TOP as i32),
        }
    }

    /// The pixel of a point.
    fn at(&self, (x, y): (f64, f64)) -> (i32, i32) {
        (map(x, self.x, self.px), map(y, self.y, self.py))
    }

    /// The pixel of a point drawn: plotters keeps it within one pixel past the plot area (a
    /// point without a finite value, left out of the ranges, may lie outside them).
    fn drawn(&self, p: (f64, f64)) -> (i32, i32) {
        let (x, y) = self.at(p);
        (
            x.clamp(self.px.0, self.px.1 + 1),
            y.clamp(self.py.1, self.py.0 + 1),
        )
    }

    /// The grid, axes, tick marks, lines and dots, each element followed by a newline, in
    /// plotters' order and notation: horizontal grid lines at the y key points, the y axis and
    /// its ticks, the x axis and its ticks, then per series its line and its dots.
    fn draw(&self, chart: &LineChart, svg: &mut String) {
        let (left, right) = self.px;
        let (bottom, top) = self.py;
        let ys: Vec<i32> = key_points(self.y, 5)
            .into_iter()
            .map(|v| map(v, self.y, self.py))
            .collect();
        let xs: Vec<i32> = key_points(self.x, 6)
            .into_iter()
            .map(|v| map(v, self.x, self.px))
            .collect();
        // Pushed piece by piece, not through `write!`: a match page draws a chart, and
        // formatting was a third of drawing one.
        for &y in &ys {
            svg.push_str(r##"<line opacity="0.25" stroke="#808080" stroke-width="1" x1=""##);
            push_int(svg, left);
            svg.push_str("\" y1=\"");
            push_int(svg, y);
            svg.push_str("\" x2=\"");
            push_int(svg, right);
            svg.push_str("\" y2=\"");
            push_int(svg, y);
            svg.push_str("\"/>\n");
        }
        let axis = |svg: &mut String, (a, b): ((i32, i32), (i32, i32))| {
            svg.push_str(
                r##"<polyline fill="none" opacity="0.6" stroke="#808080" stroke-width="1" points=""##,
            );
            push_int(svg, a.0);
            svg.push(',');
            push_int(svg, a.1);
            svg.push(' ');
            push_int(svg, b.0);
            svg.push(',');
            push_int(svg, b.1);
            svg.push_str(" \"/>\n");
        };
        axis(svg, ((left - 1, top), (left - 1, bottom)));
        for &y in ys.iter().filter(|&&y| (top..=bottom).contains(&y)) {
            axis(svg, ((left - 1 - TICK, y), (left - 1, y)));
        }
        axis(svg, ((left, bottom + 1), (right, bottom + 1)));
        for &x in xs.iter().filter(|&&x| (left..=right).contains(&x)) {
            axis(svg, ((x, bottom + 1), (x, bottom + 1 + TICK)));
        }
        for (i, s) in chart.series.iter().enumerate() {
            if s.points.is_empty() {
                continue;
            }
            let colour = PALETTE[i % PALETTE.len()];
            svg.push_str(r##"<polyline fill="none" opacity="1" stroke="#"##);
            push_colour(svg, colour, true);
            svg.push_str(r#"" stroke-width="2" points=""#);
            for &p in &s.points {
                let (x, y) = self.drawn(p);
                push_int(svg, x);
                svg.push(',');
                push_int(svg, y);
                svg.push(' ');
            }
            svg.push_str("\"/>\n");
            if chart.dots {
                for &p in &s.points {
                    let (x, y) = self.drawn(p);
                    svg.push_str("<circle cx=\"");
                    push_int(svg, x);
                    svg.push_str("\" cy=\"");
                    push_int(svg, y);
                    svg.push_str(r##"" r="3" opacity="1" fill="#"##);
                    push_colour(svg, colour, true);
                    svg.push_str("\" stroke=\"none\" stroke-width=\"1\"/>\n");
                }
            }
        }
    }

    /// The tick labels and the axis names.
    fn labels(&self, chart: &LineChart, labels: &mut String) {
        line_chart_labels(chart, (self.x, self.y), |p| self.at(p), labels);
    }
}

/// Where plotters puts value `v` of the range `(lo, hi)` on the pixels `(from, to)`: its
/// rounding (a thousandth of a pixel towards `to`, then down), infinities at the ends.
#[allow(clippy::float_cmp)]
fn map(v: f64, (lo, hi): (f64, f64), (from, to): (i32, i32)) -> i32 {
    if hi == lo {
        return (to - from) / 2;
    }
    let logic = (v - lo) / (hi - lo);
    let length = to - from;
    if length == 0 {
        return to;
    }
    if logic.is_infinite() {
        return if logic.is_sign_positive() { to } else { from };
    }
    if length > 0 {
        from + (f64::from(length) * logic + 1e-3).floor() as i32
    } else {
        from + (f64::from(length) * logic - 1e-3).ceil() as i32
    }
}

/// The values plotters draws grid lines and ticks at in `range`, at most `max` of them: round
/// steps of 1, 2 or 5 times a power of ten (plotters' own search, so the grid is where it was).
fn key_points(range: (f64, f64), max: usize) -> Vec<f64> {
    if max == 0 {
        return Vec::new();
    }
    let range = (range.0.min(range.1), range.1.max(range.0));
    // A range wider than the largest float (ends near ±f64::MAX) has no step: the search below
    // would never end (plotters panicked or looped there too, so no drawing of its to match).
    if !(range.1 - range.0).is_finite() {
        return Vec::new();
    }
    if (range.0 - range.1).abs() < f64::EPSILON {
        return vec![range.0];
    }
    fn rem_euclid(a: f64, b: f64) -> f64 {
        let r = if b > 0.0 {
            a - (a / b).floor() * b
        } else {
            a - (a / b).ceil() * b
        };
        if (r - b).abs() < f64::EPSILON { 0.0 } else { r }
    }
    let mut scale = 10f64.powf((range.1 - range.0).log(10.0).floor());
    let mut granularity = scale / 10.0;
    if 1 + ((range.1 - range.0) / scale).floor() as usize > max {
        scale *= 10.0;
        granularity *= 10.0;
    }
    'outer: loop {
        let old = scale;
        for next in [2.0, 5.0, 10.0] {
            let mut left = range.0 - rem_euclid(range.0, old / next);
            if left < range.0 {
                left += old / next;
            }
            let right = range.1 - rem_euclid(range.1, old / next);
            let points = 1.0 + ((right - left) / old * next);
            if points.round() as usize > max {
                break 'outer;
            }
            scale = old / next;
        }
        scale = old / 10.0;
        granularity /= 10.0;
    }
    let left = {
        let mut v = range.0 - rem_euclid(range.0, scale);
        if v < range.0 {
            v += scale;
        }
        v
    };
    let base = (left / granularity).floor() * granularity;
    let mut relative = left - base;
    let right = range.1 - rem_euclid(range.1, scale);
    let mut out = Vec::new();
    while (right - relative - base) >= -f64::EPSILON {
        if (relative / granularity).round() * granularity < 0.0 {
            relative += granularity;
        }
        out.push(relative + base);
        relative += scale;
    }
    out
}

/// `colour` as six hexadecimal digits, in capitals (`{:02X}`) or not (`{:02x}`).
fn push_colour(out: &mut String, RGBColor(r, g, b): RGBColor, capitals: bool) {
    let digits: &[u8; 16] = if capitals {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    for byte in [r, g, b] {
        out.push(char::from(digits[usize::from(byte >> 4)]));
        out.push(char::from(digits[usize::from(byte & 15)]));
    }
}

/// `n` in decimal digits.
fn push_int(out: &mut String, n: i32) {
    if n < 0 {
        out.push('-');
    }
    super::helpers::push_number(out, n.unsigned_abs());
}

/// A line chart's tick labels (five on y, about six on x), then its titles, placed by `at`
/// (data to pixel coordinates).
fn line_chart_labels(
    chart: &LineChart,
    ((x0, x1), (y0, y1)): ((f64, f64), (f64, f64)),
    at: impl Fn((f64, f64)) -> (i32, i32),
    labels: &mut String,
) {
    for t in ticks(y0, y1, 5, 0.0) {
        let (px, py) = at((x0, t));
        labels.push_str("<text x=\"");
        push_int(labels, px - 6);
        labels.push_str("\" y=\"");
        push_int(labels, py);
        labels.push_str(r#"" text-anchor="end" dominant-baseline="middle">"#);
        labels.push_str(&escape(&short_number(t)));
        labels.push_str("</text>");
    }
    // A label equal to the one before (two ticks within one day, one month) is left out.
    let mut last = String::new();
    for t in ticks(x0, x1, 6, chart.x_step) {
        let label = (chart.x_format)(t);
        if label.is_empty() || label == last {
            continue;
        }
        let (px, py) = at((t, y0));
        labels.push_str("<text x=\"");
        push_int(labels, px);
        labels.push_str("\" y=\"");
        push_int(labels, py + 18);
        // The last label at the right edge ends there rather than being cut in half.
        labels.push_str(if px + 24 > (WIDTH - RIGHT) as i32 {
            r#"" text-anchor="end">"#
        } else {
            r#"" text-anchor="middle">"#
        });
        labels.push_str(&escape(&label));
        labels.push_str("</text>");
        last = label;
    }
    line_chart_titles(chart, at((x0, y1)), labels);
}

/// The axis names of a line chart whose plot area's top is at `top`.
fn line_chart_titles(chart: &LineChart, (_, top): (i32, i32), labels: &mut String) {
    let _ = write!(
        labels,
        r#"<text x="{}" y="{}" class="axis" transform="rotate(-90 {} {})" text-anchor="middle">{}</text>"#,
        12,
        (top + HEIGHT as i32 - BOTTOM as i32) / 2,
        12,
        (top + HEIGHT as i32 - BOTTOM as i32) / 2,
        escape(chart.y_label)
    );
    let _ = write!(
        labels,
        r#"<text x="{}" y="{}" class="axis" text-anchor="end">{}</text>"#,
        WIDTH - RIGHT,
        HEIGHT - 2,
        escape(chart.x_label)
    );
}

/// The line chart as plotters drew it (the reference [`line_chart`] is compared with).
#[cfg(test)]
fn line_chart_plotters(chart: &LineChart) -> String {
    let Some((x0, x1, y0, y1)) = line_chart_ranges(chart) else {
        return String::new();
    };
    let mut svg = String::new();
    let mut labels = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        if draw(&root, chart, (x0, x1, y0, y1), &mut labels).is_err() {
            return String::new();
        }
        if root.present().is_err() {
            return String::new();
        }
    }
    let mut svg = finish(svg, (WIDTH, HEIGHT), chart.title, &labels);
    push_legend(chart, &mut svg);
    svg
}

#[cfg(test)]
fn draw(
    root: &DrawingArea<SVGBackend, Shift>,
    chart: &LineChart,
    (x0, x1, y0, y1): (f64, f64, f64, f64),
    labels: &mut String,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut c = ChartBuilder::on(root)
        .margin_top(TOP)
        .margin_right(RIGHT)
        .x_label_area_size(BOTTOM)
        .y_label_area_size(LEFT)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    c.configure_mesh()
        .disable_x_mesh()
        .light_line_style(GRID.mix(0.0))
        .bold_line_style(GRID.mix(0.25))
        .axis_style(GRID.mix(0.6))
        .x_labels(6)
        .y_labels(5)
        // Plotters' tick labels would be removed by `finish` (ours are written below): left
        // empty and transparent, they cost neither formatting nor SVG (on the crowd of
        // `benches/build_speed.sh`, 127,000 curves, the player pages took 0.4 to 1.7 s less
        // processor time in noisy runs).
        .x_label_formatter(&|_| String::new())
        .y_label_formatter(&|_| String::new())
        .x_label_style(TextStyle::from(("sans-serif", 12).into_font()).color(&TRANSPARENT))
        .y_label_style(TextStyle::from(("sans-serif", 12).into_font()).color(&TRANSPARENT))
        .draw()?;
    for (i, s) in chart.series.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        c.draw_series(LineSeries::new(
            s.points.iter().copied(),
            colour.stroke_width(2),
        ))?;
        if chart.dots {
            c.draw_series(s.points.iter().map(|p| Circle::new(*p, 3, colour.filled())))?;
        }
    }
    // Tick labels, written as text for the browser to render.
    line_chart_labels(chart, ((x0, x1), (y0, y1)), |p| c.backend_coord(&p), labels);
    Ok(())
}

/// Size of a reliability diagram (square plot area).
const RELIABILITY_SIZE: (u32, u32) = (460, 420);

/// One system's points on a reliability diagram.
pub struct ReliabilitySeries {
    pub label: String,
    /// Per bin: mean predicted probability, observed frequency, number of results.
    pub bins: Vec<(f64, f64, u64)>,
}

/// A reliability diagram: predicted probability (x) against the observed frequency (y), both
/// 0..1, the diagonal of perfect calibration dashed, a dot per bin sized by its results (the
/// first series' dots labelled with their counts). No bins at all gives "".
pub fn reliability_chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[ReliabilitySeries],
) -> String {
    if series.iter().all(|s| s.bins.is_empty()) {
        return String::new();
    }
    let mut svg = String::new();
    let mut labels = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, RELIABILITY_SIZE).into_drawing_area();
        if draw_reliability(&root, (x_label, y_label), series, &mut labels).is_err() {
            return String::new();
        }
        if root.present().is_err() {
            return String::new();
        }
    }
    finish(svg, RELIABILITY_SIZE, title, &labels)
}

fn draw_reliability(
    root: &DrawingArea<SVGBackend, Shift>,
    (x_label, y_label): (&str, &str),
    series: &[ReliabilitySeries],
    labels: &mut String,
) -> Result<(), Box<dyn std::error::Error>> {
    let (width, height) = RELIABILITY_SIZE;
    let legend_rows = series.len().div_ceil(2) as u32;
    let mut c = ChartBuilder::on(root)
        .margin_top(TOP + 18 * legend_rows)
        .margin_right(RIGHT + 12)
        .x_label_area_size(BOTTOM)
        .y_label_area_size(LEFT)
        .build_cartesian_2d(0f64..1f64, 0f64..1f64)?;
    c.configure_mesh()
        .light_line_style(GRID.mix(0.0))
        .bold_line_style(GRID.mix(0.2))
        .axis_style(GRID.mix(0.6))
        .x_labels(6)
        .y_labels(6)
        .draw()?;
    // The diagonal as one dashed SVG line (plotters dashes with a polyline per dash).
    let ((x0, y0), (x1, y1)) = (c.backend_coord(&(0.0, 0.0)), c.backend_coord(&(1.0, 1.0)));
    let _ = write!(
        labels,
        r##"<line x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}" stroke="#808080" stroke-opacity="0.8" stroke-dasharray="6 4"/>"##
    );
    let most = series
        .iter()
        .flat_map(|s| s.bins.iter().map(|b| b.2))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    for (i, s) in series.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        let points: Vec<(f64, f64)> = s
            .bins
            .iter()
            .map(|&(p, o, _)| (p.clamp(0.0, 1.0), o.clamp(0.0, 1.0)))
            .collect();
        c.draw_series(LineSeries::new(
            points.iter().copied(),
            colour.stroke_width(2),
        ))?;
        for (&point, &(_, _, n)) in points.iter().zip(&s.bins) {
            let radius = 3.0 + 6.0 * (n as f64 / most).sqrt();
            c.draw_series(std::iter::once(Circle::new(
                point,
                radius as i32,
                colour.mix(0.7).filled(),
            )))?;
            if i == 0 {
                let (px, py) = c.backend_coord(&point);
                let _ = write!(
                    labels,
                    r#"<text x="{px}" y="{}" text-anchor="middle" class="count">{n}</text>"#,
                    py - radius as i32 - 4
                );
            }
        }
    }
    for t in ticks(0.0, 1.0, 5, 0.0) {
        let (px, py) = c.backend_coord(&(0.0, t));
        let percent = format!("{:.0}%", t * 100.0);
        let _ = write!(
            labels,
            r#"<text x="{}" y="{py}" text-anchor="end" dominant-baseline="middle">{percent}</text>"#,
            px - 6
        );
        let (px, py) = c.backend_coord(&(t, 0.0));
        let _ = write!(
            labels,
            r#"<text x="{px}" y="{}" text-anchor="middle">{percent}</text>"#,
            py + 18
        );
    }
    let (left, top) = c.backend_coord(&(0.0, 1.0));
    let middle = (top + height as i32 - BOTTOM as i32) / 2;
    let _ = write!(
        labels,
        r#"<text x="12" y="{middle}" class="axis" transform="rotate(-90 12 {middle})" text-anchor="middle">{}</text>"#,
        escape(y_label)
    );
    let _ = write!(
        labels,
        r#"<text x="{}" y="{}" class="axis" text-anchor="end">{}</text>"#,
        width - RIGHT,
        height - 2,
        escape(x_label)
    );
    for (i, s) in series.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        let x = left + 8 + (i as i32 % 2) * ((width as i32 - left) / 2);
        let y = top - 18 * (legend_rows as i32 - i as i32 / 2);
        let _ = write!(
            labels,
            r##"<rect x="{x}" y="{}" width="10" height="10" fill="#{:02x}{:02x}{:02x}"/><text x="{}" y="{}">{}</text>"##,
            y + 2,
            colour.0,
            colour.1,
            colour.2,
            x + 14,
            y + 11,
            escape(&s.label)
        );
    }
    Ok(())
}

/// Makes the SVG responsive and accessible, and adds the labels.
fn finish(svg: String, (width, height): (u32, u32), title: &str, labels: &str) -> String {
    let body = match svg.find('>') {
        Some(i) => &svg[i + 1..],
        None => return String::new(),
    };
    let body = body.trim_end().strip_suffix("</svg>").unwrap_or(body);
    let body = strip_text_elements(body);
    // Plotters fills the background white: drop it so the page colour shows (dark mode).
    let body = body.replacen(
        &format!(r##"<rect x="0" y="0" width="{width}" height="{height}" opacity="1" fill="#FFFFFF" stroke="none"/>"##),
        "",
        1,
    );
    format!(
        r#"<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{}">{body}<g class="labels">{labels}</g></svg>"#,
        escape(title)
    )
}

/// Removes plotters' own `<text>` elements: it sizes them with a font it does not have; ours are
/// placed explicitly.
fn strip_text_elements(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while let Some(start) = rest.find("<text") {
        out.push_str(&rest[..start]);
        match rest[start..].find("</text>") {
            Some(end) => rest = &rest[start + end + "</text>".len()..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Widens a value range to round numbers with some head room.
fn nice_range(lo: f64, hi: f64) -> (f64, f64) {
    let (lo, hi) = if hi - lo < 1e-9 {
        (lo - 1.0, hi + 1.0)
    } else {
        (lo, hi)
    };
    let step = nice_step((hi - lo) / 4.0);
    ((lo / step).floor() * step, (hi / step).ceil() * step)
}

fn nice_step(raw: f64) -> f64 {
    let mag = 10f64.powf(raw.abs().max(1e-12).log10().floor());
    let f = raw / mag;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// Round tick positions inside [lo, hi], about `count` of them, at least `min_step` apart.
fn ticks(lo: f64, hi: f64, count: usize, min_step: f64) -> Vec<f64> {
    let step = nice_step((hi - lo) / count as f64).max(min_step);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 && out.len() < 50 {
        out.push(t);
        t += step;
    }
    out
}

fn short_number(v: f64) -> String {
    if v.abs() >= 10_000.0 {
        let mut label = fixed(v / 1000.0, 0);
        label.push('k');
        label
    } else if v.fract().abs() < 1e-9 {
        fixed(v, 0)
    } else {
        fixed(v, 2)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_lines_and_escaped_labels() {
        let svg = line_chart(&LineChart {
            title: "rating of <script>",
            x_label: "match",
            y_label: "rating",
            series: vec![
                Series {
                    label: "a<b".into(),
                    points: vec![(1.0, 0.0), (2.0, 20.0), (3.0, 35.5)],
                },
                Series {
                    label: "b".into(),
                    points: vec![(1.0, 5.0)],
                },
            ],
            x_format: &|x| format!("#{x:.0}"),
            x_step: 1.0,
            dots: true,
        });
        assert!(
            svg.starts_with("<svg class=\"chart\" viewBox=\"0 0 720 260\""),
            "{svg}"
        );
        assert!(svg.contains("<polyline") || svg.contains("<path"), "{svg}");
        assert!(svg.contains(">#2</text>"), "{svg}");
        assert!(svg.contains(">rating</text>"));
        assert!(svg.contains("a&lt;b"));
        assert!(!svg.contains("<script>"));
        assert!(!svg.contains("fill=\"#FFFFFF\""));
        // Two series: the legend is a list after the SVG, its names escaped.
        assert!(
            svg.contains("</g></svg><ul class=\"chart-legend\">"),
            "{svg}"
        );
        assert!(svg.contains("</span>a&lt;b</li>"), "{svg}");
        assert!(svg.ends_with("</li></ul>"));
    }

    /// The directly written line chart is byte for byte plotters' drawing, on charts of random
    /// ranges (negative, tiny, huge, flat), series counts, lengths, dots and odd values.
    #[test]
    fn line_chart_is_plotters_drawing() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut checked = 0;
        for case in 0..3000 {
            let scale = 10f64.powi((next() % 12) as i32 - 4);
            let offset = (next() % 2000) as f64 - 1000.0;
            let series = (0..next() % 8)
                .map(|n| {
                    let points = (0..next() % 40)
                        .map(|_| {
                            let x = (next() % 10_000) as f64 / 100.0 * scale + offset;
                            let y = match next() % 50 {
                                0 if case % 7 == 0 => f64::NAN,
                                1 if case % 11 == 0 => f64::INFINITY,
                                2 => 0.0,
                                _ => ((next() % 20_000) as f64 - 5_000.0) / 100.0 * scale,
                            };
                            (x, y)
                        })
                        .collect();
                    Series {
                        label: format!("p<{n}>"),
                        points,
                    }
                })
                .collect();
            let chart = LineChart {
                title: "t",
                x_label: "x",
                y_label: "y",
                series,
                x_format: &|x| format!("{x:.1}"),
                x_step: 0.0,
                dots: next() % 2 == 0,
            };
            let ours = line_chart(&chart);
            assert_eq!(ours, line_chart_plotters(&chart), "case {case}");
            checked += usize::from(!ours.is_empty());
        }
        assert!(checked > 2000, "{checked} charts drawn");
    }

    /// Values so far apart that their distance is infinite draw a chart (without grid lines)
    /// instead of looping for ever in the key point search.
    #[test]
    fn ranges_wider_than_a_float_end() {
        for (a, b) in [(-1e308, 1e308), (-f64::MAX, f64::MAX), (0.0, f64::MAX)] {
            let chart = LineChart {
                title: "t",
                x_label: "x",
                y_label: "y",
                series: vec![Series {
                    label: "a".into(),
                    points: vec![(a, a), (b, b)],
                }],
                x_format: &|x| format!("{x:.1}"),
                x_step: 0.0,
                dots: true,
            };
            let svg = line_chart(&chart);
            assert!(svg.ends_with("</g></svg>"), "{a} to {b}: {svg}");
        }
    }

    #[test]
    fn empty_and_flat_series() {
        let empty = LineChart {
            title: "t",
            x_label: "x",
            y_label: "y",
            series: vec![],
            x_format: &|x| x.to_string(),
            x_step: 0.0,
            dots: false,
        };
        assert_eq!(line_chart(&empty), "");
        let flat = LineChart {
            series: vec![Series {
                label: "x".into(),
                points: vec![(5.0, 0.0)],
            }],
            ..empty
        };
        assert!(line_chart(&flat).contains("<svg"));
    }

    #[test]
    fn tick_helpers() {
        assert_eq!(nice_range(3.0, 97.0), (0.0, 100.0));
        assert_eq!(
            ticks(0.0, 100.0, 5, 0.0),
            [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
        );
        assert_eq!(short_number(12.5), "12.5");
        assert_eq!(short_number(40.0), "40");
    }

    #[test]
    fn reliability_diagram() {
        let series = [
            ReliabilitySeries {
                label: "team <model>".into(),
                bins: vec![(0.15, 0.2, 40), (0.55, 0.5, 120), (0.93, 1.0, 3)],
            },
            ReliabilitySeries {
                label: "other".into(),
                bins: vec![(0.5, 0.45, 163)],
            },
        ];
        let svg = reliability_chart("calibration", "predicted", "observed", &series);
        assert!(
            svg.starts_with("<svg class=\"chart\" viewBox=\"0 0 460 420\""),
            "{svg}"
        );
        assert_eq!(svg.matches("stroke-dasharray").count(), 1, "{svg}");
        for count in [">40</text>", ">120</text>", ">3</text>"] {
            assert!(
                svg.contains(count),
                "per-bin counts of the first series: {count}"
            );
        }
        assert!(
            !svg.contains(">163</text>"),
            "only the first series is labelled"
        );
        assert!(svg.contains(">100%</text>") && svg.contains(">0%</text>"));
        assert!(svg.contains("team &lt;model&gt;") && !svg.contains("<model>"));
        assert_eq!(svg.matches("<circle").count(), 4, "{svg}");
        let empty = ReliabilitySeries {
            label: "x".into(),
            bins: Vec::new(),
        };
        assert_eq!(reliability_chart("t", "x", "y", &[empty]), "");
    }

    /// The squares of a density panel as (x, y, width, height, fill): from plotters' `<rect>`s
    /// or from the direct writer's paths of `M x y h w v h h -w z`.
    fn squares(svg: &str) -> Vec<(i32, i32, i32, i32, String)> {
        let attr = |tag: &str, name: &str| -> String {
            let at = tag.find(&format!(" {name}=\"")).map(|i| i + name.len() + 3);
            at.map(|i| tag[i..].split('"').next().unwrap().to_string())
                .unwrap_or_default()
        };
        let mut out = Vec::new();
        for tag in svg.split('<').skip(1) {
            let fill = attr(tag, "fill").to_lowercase();
            if tag.starts_with("rect") && !attr(tag, "x").is_empty() {
                let n = |k: &str| attr(tag, k).parse::<i32>().unwrap();
                out.push((n("x"), n("y"), n("width"), n("height"), fill));
            } else if tag.starts_with("path") {
                for sub in attr(tag, "d").split('z').filter(|p| !p.is_empty()) {
                    let nums: Vec<i32> = sub
                        .split(['M', 'h', 'v', ' '])
                        .filter(|p| !p.is_empty())
                        .map(|p| p.parse().unwrap())
                        .collect();
                    assert_eq!(nums[4], -nums[2], "{sub}");
                    out.push((nums[0], nums[1], nums[2], nums[3], fill.clone()));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn density_panels_draw_what_plotters_draws() {
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            (seed >> 33) % n
        };
        for case in 0..40 {
            let (cols, rows) = (1 + next(48) as u32, 1 + next(48) as u32);
            let cell = [10.0, 21.333, 7.5][case % 3];
            let mut cells = std::collections::BTreeMap::new();
            for _ in 0..next(300) {
                let key = (next(u64::from(cols)) as u32, next(u64::from(rows)) as u32);
                *cells.entry(key).or_insert(0) += 1 + next(40) as u32;
            }
            let cells: Vec<(u32, u32, u32)> =
                cells.into_iter().map(|((c, r), n)| (c, r, n)).collect();
            let size = (
                (f64::from(cols) * cell).ceil() as u32,
                (f64::from(rows) * cell).ceil() as u32,
            );
            let ramp = if case % 2 == 0 {
                Ramp::Kills
            } else {
                Ramp::Deaths
            };
            let ours = density_svg("t", size, cell, &cells, ramp, true);
            assert_eq!(
                squares(&ours),
                squares(&density_plotters(size, cell, &cells, ramp))
            );
            assert_eq!(squares(&ours).len(), cells.len());
        }
        for v in [0, 7, -7, 10, -10, 1234567, i32::MIN, i32::MAX] {
            let mut s = String::new();
            push_int(&mut s, v);
            assert_eq!(s, v.to_string());
        }
    }
}

/// A heatmap's colours, from a cell with one event to the fullest cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ramp {
    /// Kills: yellow to red.
    Kills,
    /// Deaths: light blue to violet.
    Deaths,
}

impl Ramp {
    fn colour(self, t: f64) -> RGBColor {
        let (from, to) = match self {
            Ramp::Kills => ((253.0, 224.0, 71.0), (220.0, 38.0, 38.0)),
            Ramp::Deaths => ((125.0, 211.0, 252.0), (124.0, 58.0, 237.0)),
        };
        let mix = |a: f64, b: f64| (a + (b - a) * t.clamp(0.0, 1.0)).round() as u8;
        RGBColor(mix(from.0, to.0), mix(from.1, to.1), mix(from.2, to.2))
    }
}

/// Background of a heatmap drawn without an overview image: the density alone traces the
/// level, light on dark.
const HEAT_GROUND: RGBColor = RGBColor(31, 36, 48);

/// Shades of a density's colour scale: the cells of one shade are one `<path>`.
const LEVELS: usize = 8;

/// The shade (0 to [`LEVELS`] − 1) of a cell holding `n` events when the fullest holds `max`:
/// logarithmic, so a few busy spots do not wash out the rest.
fn level(n: u32, max: u32) -> usize {
    let t = (1.0 + f64::from(n)).ln() / (1.0 + f64::from(max.max(1))).ln();
    ((t * (LEVELS - 1) as f64).round() as usize).min(LEVELS - 1)
}

/// A cell's corners in whole pixels: (x0, y0, x1, y1).
fn cell_box(col: u32, row: u32, cell: f64) -> (i32, i32, i32, i32) {
    let at = |v: u32| (f64::from(v) * cell).round() as i32;
    (at(col), at(row), at(col + 1), at(row + 1))
}

/// The head of a standalone SVG file (for `<img>`): its namespace, size and escaped title, and
/// the dark ground unless it is drawn over an overview image.
fn svg_head(out: &mut String, (width, height): (u32, u32), title: &str, overlay: bool) {
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\"><title>{}</title>",
        escape(title)
    );
    if !overlay {
        ground(out, (width, height));
    }
}

/// The dark ground of a panel drawn without an overview image.
fn ground(out: &mut String, (width, height): (u32, u32)) {
    let RGBColor(r, g, b) = HEAT_GROUND;
    let _ = write!(
        out,
        "<rect width=\"{width}\" height=\"{height}\" fill=\"#{r:02x}{g:02x}{b:02x}\"/>"
    );
}

/// A density panel: each `(column, row, count)` cell a square of `cell` pixels, shaded by
/// `ramp` in [`LEVELS`] steps on a logarithmic scale to the fullest cell; on a dark ground
/// unless `overlay` (drawn over an overview image, transparent elsewhere). Written directly,
/// one path per shade, as plotters draws the same squares one by one (a test compares them):
/// about 20 bytes a square where plotters' `<rect>` takes about 85.
pub fn density_svg(
    title: &str,
    size: (u32, u32),
    cell: f64,
    cells: &[(u32, u32, u32)],
    ramp: Ramp,
    overlay: bool,
) -> String {
    let mut out = String::with_capacity(256 + cells.len() * 20);
    svg_head(&mut out, size, title, overlay);
    density_body(&mut out, cell, cells, ramp, overlay);
    out.push_str("</svg>\n");
    out
}

/// One panel of a [`density_sprite`].
pub struct Panel {
    /// Its view's id (letters, digits and `-`): `file.svg#id` shows it alone.
    pub id: String,
    pub title: String,
    /// `(column, row, count)` cells, as [`density_svg`] takes them.
    pub cells: Vec<(u32, u32, u32)>,
    pub ramp: Ramp,
}

/// Several panels of one size in one SVG file, one under the other, each shown alone by the
/// fragment of its id (`file.svg#id`, an SVG `<view>`): one file per map instead of one per
/// panel.
pub fn density_sprite(
    title: &str,
    (width, height): (u32, u32),
    cell: f64,
    panels: &[Panel],
    overlay: bool,
) -> String {
    let total = height * panels.len() as u32;
    let mut out = String::with_capacity(
        256 + panels
            .iter()
            .map(|p| p.cells.len() * 20 + 200)
            .sum::<usize>(),
    );
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {total}\" width=\"{width}\" height=\"{total}\"><title>{}</title>",
        escape(title)
    );
    for (k, p) in panels.iter().enumerate() {
        let (id, panel_title, cells, ramp) = (&p.id, &p.title, &p.cells, &p.ramp);
        let top = height * k as u32;
        let _ = write!(
            out,
            "<view id=\"{}\" viewBox=\"0 {top} {width} {height}\"/><g transform=\"translate(0 {top})\"><title>{}</title>",
            escape(id),
            escape(panel_title)
        );
        if !overlay {
            ground(&mut out, (width, height));
        }
        density_body(&mut out, cell, cells, *ramp, overlay);
        out.push_str("</g>");
    }
    out.push_str("</svg>\n");
    out
}

/// A density panel's squares: one `<path>` per shade.
fn density_body(out: &mut String, cell: f64, cells: &[(u32, u32, u32)], ramp: Ramp, overlay: bool) {
    let max = cells.iter().map(|c| c.2).max().unwrap_or(1);
    let mut paths = vec![String::new(); LEVELS];
    for &(col, row, n) in cells {
        let (x0, y0, x1, y1) = cell_box(col, row, cell);
        let d = &mut paths[level(n, max)];
        d.push('M');
        push_int(d, x0);
        d.push(' ');
        push_int(d, y0);
        d.push('h');
        push_int(d, x1 - x0);
        d.push('v');
        push_int(d, y1 - y0);
        d.push('h');
        push_int(d, x0 - x1);
        d.push('z');
    }
    let opacity = if overlay { "0.75" } else { "0.95" };
    for (k, d) in paths.iter().enumerate().filter(|(_, d)| !d.is_empty()) {
        let RGBColor(r, g, b) = ramp.colour(k as f64 / (LEVELS - 1) as f64);
        let _ = write!(
            out,
            "<path fill=\"#{r:02x}{g:02x}{b:02x}\" fill-opacity=\"{opacity}\" d=\"{d}\"/>"
        );
    }
}

/// The same panel drawn with plotters, square by square: what [`density_svg`] is checked against.
#[cfg(test)]
fn density_plotters(size: (u32, u32), cell: f64, cells: &[(u32, u32, u32)], ramp: Ramp) -> String {
    let max = cells.iter().map(|c| c.2).max().unwrap_or(1);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        for &(col, row, n) in cells {
            let (x0, y0, x1, y1) = cell_box(col, row, cell);
            let colour = ramp.colour(level(n, max) as f64 / (LEVELS - 1) as f64);
            root.draw(&Rectangle::new([(x0, y0), (x1, y1)], colour.filled()))
                .unwrap();
        }
        root.present().unwrap();
    }
    svg
}

/// One kill drawn on a match's map: from where the killer stood to where the victim fell.
pub struct KillLine {
    pub from: (f64, f64),
    pub to: (f64, f64),
    /// 0 red side, 1 blue side, 2 neither.
    pub side: u8,
}

/// The colours of the killer's side on a match's kill map: red, blue, neither.
const KILL_SIDES: [RGBColor; 3] = [
    RGBColor(239, 68, 68),
    RGBColor(59, 130, 246),
    RGBColor(234, 179, 8),
];

/// Every kill of a match as a line from killer to victim coloured by the killer's side, a dot
/// where the victim fell; on a dark ground unless `overlay`. Written directly: one path of lines
/// per side, and a circle per victim.
pub fn kill_lines_svg(title: &str, size: (u32, u32), lines: &[KillLine], overlay: bool) -> String {
    let width = (f64::from(size.0) / 320.0).ceil().max(1.0) as u32;
    let at = |(x, y): (f64, f64)| (x.round() as i32, y.round() as i32);
    let mut out = String::with_capacity(256 + lines.len() * 60);
    svg_head(&mut out, size, title, overlay);
    for (side, RGBColor(r, g, b)) in KILL_SIDES.iter().enumerate() {
        let mine: Vec<&KillLine> = lines
            .iter()
            .filter(|l| usize::from(l.side.min(2)) == side)
            .collect();
        if mine.is_empty() {
            continue;
        }
        let colour = format!("#{r:02x}{g:02x}{b:02x}");
        let mut d = String::new();
        for l in &mine {
            let ((x0, y0), (x1, y1)) = (at(l.from), at(l.to));
            let _ = write!(d, "M{x0} {y0}L{x1} {y1}");
        }
        let _ = write!(
            out,
            "<path fill=\"none\" stroke=\"{colour}\" stroke-opacity=\"0.7\" stroke-width=\"{width}\" d=\"{d}\"/><g fill=\"{colour}\">"
        );
        for l in &mine {
            let (x, y) = at(l.to);
            let _ = write!(out, "<circle cx=\"{x}\" cy=\"{y}\" r=\"{}\"/>", width * 2);
        }
        out.push_str("</g>");
    }
    out.push_str("</svg>\n");
    out
}
