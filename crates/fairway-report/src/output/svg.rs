//! Dependency-free SVG plots for the results folder of `fairway run` (docs/architecture.md, "Outputs").
//!
//! A [`Plot`] is one titled panel of x/y [`Series`]: throughput of each flow over time, a link's
//! queue and its RED average, cumulative drops, a media scale. [`stack`] draws several panels in
//! one file, one above the other, sharing the x axis. The caller picks the units and names them
//! in the axis labels ("throughput (Mb/s)"); tick values are written compactly with SI prefixes
//! (200k, 1.5M, 20m).
//!
//! The output is deterministic (coordinates rounded to 2 decimals, nothing hash-ordered) and
//! stays small: a series with more than four points per pixel column is drawn from the first,
//! lowest, highest and last point of each column, in their original order (M4: Jugel et al.,
//! "M4: A Visualization-Oriented Time Series Data Aggregation", PVLDB 7(10), 2014). That
//! rasterises to the same line and keeps every spike. Non-finite points are skipped, and no
//! input (empty, constant, huge, reversed limits, zero size) panics.

use std::fmt::{self, Write as _};

/// Okabe & Ito (2008) colour-blind-safe palette, yellow left out: it is too faint on white.
const PALETTE: [&str; 7] = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"];
/// Dash pattern for each pass through the palette, so 35 series stay distinguishable.
const DASHES: [&str; 5] = ["", "7 3", "2 2.5", "10 3 2 3", "4 2 1 2 1 2"];
const FONT: &str = "Helvetica, Arial, sans-serif";
/// Legend entries shown before "+N more".
const MAX_LEGEND: usize = 12;
/// Legend names longer than this are cut with an ellipsis (the full name becomes a tooltip).
const MAX_NAME: usize = 32;
const LEGEND_ROW: f64 = 16.0;
/// Average glyph advance at font-size 11, used to estimate text widths for the layout.
const CHAR_W: f64 = 6.1;
const MIN_WIDTH: u32 = 160;
const MIN_HEIGHT: u32 = 100;
/// Points per pixel column above which a series is reduced (M4 keeps at most 4 per column).
const REDUCE_PER_COLUMN: usize = 4;
/// Pixel coordinates are clamped to this magnitude so that far-off-scale points stay short
/// numbers; the clip path hides them anyway.
const COORD_LIMIT: f64 = 1e6;
/// Data values are clamped to this magnitude so that axis spans stay finite.
const VALUE_LIMIT: f64 = 1e300;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Straight segments between consecutive points.
    Line,
    /// Hold each value until the next point's x, then jump: integer traces such as a media
    /// scale, or cumulative counts.
    Step,
    /// A dot per point and no connecting line.
    Points,
    /// Straight segments with a dot at each point (few points: a sweep's means).
    LinePoints,
    /// An open diamond per point and no line: reference values, such as a paper's numbers drawn
    /// beside a simulation's.
    Markers,
    /// A filled band from each point's y up to [`Series::upper`]'s value at the same index: a
    /// range, such as a queue's least and greatest samples in each bin.
    Band,
}

/// One named trace of a plot.
#[derive(Clone, Copy, Debug)]
pub struct Series<'a> {
    /// Legend text; an empty name keeps the series out of the legend.
    pub name: &'a str,
    /// (x, y) in the caller's units, x increasing; non-finite points are skipped.
    pub points: &'a [(f64, f64)],
    pub style: Style,
    /// Error bars: for each point, the half-height of a vertical bar centred on it (a 95%
    /// confidence interval, say). Non-finite or missing entries draw no bar.
    pub errors: Option<&'a [f64]>,
    /// Draw in the colour and dash of the series at this index rather than its own (a paper's
    /// values in the colour of the simulation's series they go with).
    pub look: Option<usize>,
    /// A [`Style::Band`]'s upper edge, one value per point.
    pub upper: Option<&'a [f64]>,
}

impl<'a> Series<'a> {
    pub fn new(name: &'a str, points: &'a [(f64, f64)], style: Style) -> Self {
        Series { name, points, style, errors: None, look: None, upper: None }
    }
    /// A band from `lower`'s values up to `upper`'s (see [`Style::Band`]).
    pub fn band(name: &'a str, lower: &'a [(f64, f64)], upper: &'a [f64]) -> Self {
        Series { upper: Some(upper), ..Self::new(name, lower, Style::Band) }
    }
    /// The same series drawn in the colour of series `k` (see [`Series::look`]).
    pub fn like(mut self, k: usize) -> Self {
        self.look = Some(k);
        self
    }
    /// The same series with error bars (see [`Series::errors`]).
    pub fn with_errors(mut self, errors: &'a [f64]) -> Self {
        self.errors = Some(errors);
        self
    }
    pub fn line(name: &'a str, points: &'a [(f64, f64)]) -> Self {
        Self::new(name, points, Style::Line)
    }
    pub fn step(name: &'a str, points: &'a [(f64, f64)]) -> Self {
        Self::new(name, points, Style::Step)
    }
    pub fn scatter(name: &'a str, points: &'a [(f64, f64)]) -> Self {
        Self::new(name, points, Style::Points)
    }
}

/// One x/y panel. Build with [`Plot::new`] and the chained setters, render with [`Plot::to_svg`].
#[derive(Clone, Debug)]
pub struct Plot<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub series: Vec<Series<'a>>,
    /// Image size in px; in [`stack`] `width` is ignored and `height` is this panel's share.
    pub width: u32,
    pub height: u32,
    /// Fixed ends of the y axis. By default the axis covers the data with a little headroom,
    /// from zero when no value is negative.
    pub y_min: Option<f64>,
    pub y_max: Option<f64>,
    /// Fixed x axis; by default the data's extent, widened to a round tick when that is close.
    pub x_range: Option<(f64, f64)>,
    /// An x interval drawn shaded behind the series, with a label in its top left corner (a
    /// run's warm-up).
    pub shade: Option<(f64, f64, &'a str)>,
    /// The y axis fits the points from this x on only (the steady state after a warm-up); the
    /// earlier ones are drawn, cut at the axis.
    pub fit_from: Option<f64>,
    /// Text and lines are drawn this many times their usual size (11 px text at 1), the image
    /// keeping its `width` and `height`: larger text for a figure printed small. In [`stack`]
    /// the first plot's counts.
    pub scale: f64,
    /// Ticks on the x axis at whole numbers only (x numbers things: flows, not a quantity).
    pub x_whole: bool,
}

impl<'a> Plot<'a> {
    pub fn new(title: &'a str, x_label: &'a str, y_label: &'a str) -> Self {
        Plot {
            title,
            x_label,
            y_label,
            series: Vec::new(),
            width: 800,
            height: 400,
            y_min: None,
            y_max: None,
            x_range: None,
            shade: None,
            fit_from: None,
            scale: 1.0,
            x_whole: false,
        }
    }
    pub fn series(mut self, series: Series<'a>) -> Self {
        self.series.push(series);
        self
    }
    pub fn line(self, name: &'a str, points: &'a [(f64, f64)]) -> Self {
        self.series(Series::line(name, points))
    }
    pub fn step(self, name: &'a str, points: &'a [(f64, f64)]) -> Self {
        self.series(Series::step(name, points))
    }
    pub fn scatter(self, name: &'a str, points: &'a [(f64, f64)]) -> Self {
        self.series(Series::scatter(name, points))
    }
    pub fn size(mut self, width: u32, height: u32) -> Self {
        self.width = width;
        self.height = height;
        self
    }
    pub fn y_min(mut self, y_min: f64) -> Self {
        self.y_min = Some(y_min);
        self
    }
    pub fn y_max(mut self, y_max: f64) -> Self {
        self.y_max = Some(y_max);
        self
    }
    pub fn x_range(mut self, lo: f64, hi: f64) -> Self {
        self.x_range = Some((lo, hi));
        self
    }
    /// Shades x from `lo` to `hi`, labelled (see [`Plot::shade`]).
    pub fn shade(mut self, lo: f64, hi: f64, label: &'a str) -> Self {
        self.shade = Some((lo, hi, label));
        self
    }
    /// Fits the y axis to the points from `x` on (see [`Plot::fit_from`]).
    pub fn fit_from(mut self, x: f64) -> Self {
        self.fit_from = Some(x);
        self
    }
    /// Ticks the x axis at whole numbers only (see [`Plot::x_whole`]).
    pub fn x_whole(mut self) -> Self {
        self.x_whole = true;
        self
    }
    /// Draws text and lines `scale` times their usual size (see [`Plot::scale`]).
    pub fn scale(mut self, scale: f64) -> Self {
        self.scale = scale;
        self
    }
    /// The plot as a standalone SVG document.
    pub fn to_svg(&self) -> String {
        render(&[self], self.width)
    }
}

/// Several plots stacked vertically in one SVG sharing the x axis (e.g. per-flow panels): one x
/// range for all, x tick labels and x label under the bottom panel only, plot areas aligned.
/// The x range is the first `x_range` set on any plot, else the extent of all their data.
pub fn stack(plots: &[Plot<'_>], width: u32) -> String {
    let refs: Vec<&Plot<'_>> = plots.iter().collect();
    render(&refs, width)
}

/// A number rounded to 2 decimals, trailing zeros dropped, never "-0": the one way coordinates
/// are written, so equal input gives equal bytes.
struct N(f64);

impl N {
    /// The value in hundredths, as written: clamped to the drawing's limits, rounded.
    fn cents(&self) -> i64 {
        let v = if self.0.is_finite() { self.0.clamp(-COORD_LIMIT, COORD_LIMIT) } else { 0.0 };
        (v * 100.0).round() as i64
    }

    /// Its text in `buf`: distinct hundredths give distinct texts.
    fn text<'b>(&self, buf: &'b mut [u8; 24]) -> &'b str {
        let r = self.cents();
        let mut a = r.unsigned_abs();
        let mut i = buf.len();
        let mut put = |b: u8, i: &mut usize| {
            *i -= 1;
            buf[*i] = b;
        };
        match a % 100 {
            0 => {}
            d if d % 10 == 0 => {
                put(b'0' + (d / 10) as u8, &mut i);
                put(b'.', &mut i);
            }
            d => {
                put(b'0' + (d % 10) as u8, &mut i);
                put(b'0' + (d / 10) as u8, &mut i);
                put(b'.', &mut i);
            }
        }
        a /= 100;
        loop {
            put(b'0' + (a % 10) as u8, &mut i);
            a /= 10;
            if a == 0 {
                break;
            }
        }
        if r < 0 {
            put(b'-', &mut i);
        }
        std::str::from_utf8(&buf[i..]).expect("ASCII digits")
    }

    /// Appends its text to `s`: path data is most of a figure's bytes, and this skips the
    /// formatting machinery.
    fn push_to(&self, s: &mut String) {
        s.push_str(self.text(&mut [0; 24]));
    }
}

impl fmt::Display for N {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text(&mut [0; 24]))
    }
}

/// Text escaped for XML content and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters other than tab and newline are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// `<text>` at (x, y) with extra attributes (each with a leading space) and escaped content.
fn text(s: &mut String, x: f64, y: f64, attrs: &str, content: &str) {
    let _ = write!(s, r#"<text x="{}" y="{}"{attrs}>{}</text>"#, N(x), N(y), esc(content));
}

fn text_width(text: &str, font_size: f64) -> f64 {
    text.chars().count() as f64 * CHAR_W * font_size / 11.0
}

fn finite(p: &(f64, f64)) -> bool {
    p.0.is_finite() && p.1.is_finite()
}

fn clamp_value(v: f64) -> f64 {
    v.clamp(-VALUE_LIMIT, VALUE_LIMIT)
}

/// The smallest of 1, 2, 5 x 10^k that is at least `raw`.
fn nice_step(raw: f64) -> f64 {
    if !(raw > 0.0 && raw.is_finite()) {
        return 1.0;
    }
    let base = 10f64.powi(raw.log10().floor() as i32);
    let f = raw / base;
    let m = if f <= 1.0 + 1e-9 {
        1.0
    } else if f <= 2.0 + 1e-9 {
        2.0
    } else if f <= 5.0 + 1e-9 {
        5.0
    } else {
        10.0
    };
    m * base
}

/// Multiples of `step` within [lo, hi] (at most 200 of them).
fn ticks(lo: f64, hi: f64, step: f64) -> Vec<f64> {
    let first = (lo / step - 1e-9).ceil();
    let last = (hi / step + 1e-9).floor();
    let mut out = Vec::new();
    let mut i = first;
    while i <= last && out.len() < 200 {
        let t = i * step;
        out.push(if t == 0.0 { 0.0 } else { t });
        i += 1.0;
    }
    out
}

/// Tick labels with a shared number of decimals: SI prefixes per value for large numbers
/// (500k, 1M, 1.5M), one shared prefix when every tick is below 0.01 (0, 5m, 10m).
fn tick_labels(ticks: &[f64], step: f64) -> Vec<String> {
    const BIG: [(f64, &str); 4] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    const SMALL: [(f64, &str); 3] = [(1e-3, "m"), (1e-6, "\u{b5}"), (1e-9, "n")];
    let max_abs = ticks.iter().fold(0.0f64, |m, t| m.max(t.abs()));
    let small = (max_abs > 0.0 && max_abs < 1e-2)
        .then(|| SMALL.iter().copied().find(|&(s, _)| max_abs >= s * (1.0 - 1e-9)).unwrap_or(SMALL[2]));
    ticks
        .iter()
        .map(|&t| {
            let (scale, suffix) = small.unwrap_or_else(|| {
                BIG.iter().copied().find(|&(s, _)| t.abs() >= s * (1.0 - 1e-9)).unwrap_or((1.0, ""))
            });
            let r = step / scale;
            let decimals = if r >= 1.0 { 0 } else { ((-r.log10() - 1e-9).ceil() as usize).min(9) };
            let mut s = format!("{:.*}", decimals, t / scale);
            if s.contains('.') {
                s.truncate(s.trim_end_matches('0').trim_end_matches('.').len());
            }
            if s == "0" || s == "-0" {
                return "0".into();
            }
            s + suffix
        })
        .collect()
}

/// One axis: its range in data units and its tick values.
#[derive(Clone, Debug)]
struct Axis {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
    labels: Vec<String>,
}

impl Axis {
    fn new(lo: f64, hi: f64, step: f64) -> Self {
        let ticks = ticks(lo, hi, step);
        let labels = tick_labels(&ticks, step);
        Axis { lo, hi, ticks, labels }
    }
}

fn x_axis(extent: Option<(f64, f64)>, fixed: bool, px: f64, whole: bool) -> Axis {
    let (mut lo, mut hi) = extent.map_or((0.0, 1.0), |(a, b)| (clamp_value(a), clamp_value(b)));
    if hi - lo <= 1e-12 * lo.abs().max(hi.abs()) {
        if lo == 0.0 {
            hi = 1.0;
        } else {
            let pad = lo.abs() * 0.1;
            lo -= pad;
            hi += pad;
        }
    }
    let mut step = nice_step((hi - lo) / (px / 90.0).clamp(2.0, 12.0));
    if whole {
        step = step.max(1.0);
    }
    if !fixed {
        // Widen to a round tick when that adds at most 5% (30.0 s rather than 29.99 s).
        let span = hi - lo;
        let (nlo, nhi) = ((lo / step).floor() * step, (hi / step).ceil() * step);
        if lo - nlo <= 0.05 * span {
            lo = nlo;
        }
        if nhi - hi <= 0.05 * span {
            hi = nhi;
        }
    }
    Axis::new(lo, hi, step)
}

/// The y axis of one panel over the points whose x lies in `x_window`; `None` when it has none.
fn y_axis(p: &Plot<'_>, x_window: Option<(f64, f64)>, px: f64) -> (Axis, bool) {
    let mut extent: Option<(f64, f64)> = None;
    let mut integral = true;
    for s in &p.series {
        for (k, &(x, y)) in s.points.iter().enumerate().filter(|(_, p)| finite(p)) {
            if x_window.is_some_and(|(a, b)| x < a || x > b) || p.fit_from.is_some_and(|f| x < f) {
                continue;
            }
            let y = clamp_value(y);
            integral &= y.fract() == 0.0;
            let e = s.errors.and_then(|e| e.get(k)).copied().filter(|e| e.is_finite()).map_or(0.0, f64::abs);
            let (a, mut b) = (clamp_value(y - e), clamp_value(y + e));
            if let Some(&u) = s.upper.and_then(|u| u.get(k)).filter(|u| u.is_finite()) {
                b = b.max(clamp_value(u));
            }
            extent = Some(extent.map_or((a, b), |(lo, hi)| (lo.min(a), hi.max(b))));
        }
    }
    let fixed_lo = p.y_min.filter(|v| v.is_finite()).map(clamp_value);
    let fixed_hi = p.y_max.filter(|v| v.is_finite()).map(clamp_value);
    let (mut lo, mut hi) = extent.unwrap_or((0.0, 1.0));
    // Start from zero when no value is negative (queues, rates, counts), end at zero when none
    // is positive; the headroom below is only added at an end that is not pinned to zero.
    let (lo_pinned, hi_pinned) = (lo >= 0.0, lo < 0.0 && hi <= 0.0);
    if lo_pinned {
        lo = 0.0;
    } else if hi_pinned {
        hi = 0.0;
    }
    if let Some(v) = fixed_lo {
        lo = v;
    }
    if let Some(v) = fixed_hi {
        hi = v;
    }
    if lo > hi {
        std::mem::swap(&mut lo, &mut hi);
    }
    if hi - lo <= 1e-12 * lo.abs().max(hi.abs()) {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.5 };
        if fixed_hi.is_some() && fixed_lo.is_none() {
            lo = hi - pad;
        } else {
            hi = lo + pad;
        }
    }
    let mut step = nice_step((hi - lo) / (px / 45.0).clamp(2.0, 10.0));
    if integral && step < 1.0 && hi - lo >= 2.0 {
        step = 1.0; // integer traces (a media scale, a count) get integer ticks
    }
    // 3% headroom, rounded up to half a tick step (a queue capped at 100 gets an axis to 110,
    // not 120, and its top does not hide under the frame); whole steps for integer traces.
    let span = hi - lo;
    let grain = if integral && step == 1.0 { step } else { step / 2.0 };
    if fixed_hi.is_none() && !(hi_pinned && hi == 0.0) {
        hi = ((hi + 0.03 * span) / grain).ceil() * grain;
    }
    if fixed_lo.is_none() && !(lo_pinned && lo == 0.0) {
        lo = ((lo - 0.03 * span) / grain).floor() * grain;
    }
    (Axis::new(lo, hi, step), extent.is_some())
}

/// Data to pixel coordinates of one panel's plot area.
#[derive(Clone, Copy, Debug)]
struct Map {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
    left: f64,
    top: f64,
    w: f64,
    h: f64,
}

impl Map {
    fn x(&self, v: f64) -> f64 {
        let px = self.left + (v - self.x0) / (self.x1 - self.x0) * self.w;
        px.clamp(-COORD_LIMIT, COORD_LIMIT)
    }
    fn y(&self, v: f64) -> f64 {
        let py = self.top + self.h - (v - self.y0) / (self.y1 - self.y0) * self.h;
        py.clamp(-COORD_LIMIT, COORD_LIMIT)
    }
}

/// First, lowest, highest and last point seen in one pixel column, with their input indices.
struct Column {
    col: i64,
    first: (usize, (f64, f64)),
    min: (usize, (f64, f64)),
    max: (usize, (f64, f64)),
    last: (usize, (f64, f64)),
}

impl Column {
    fn new(col: i64, k: usize, p: (f64, f64)) -> Self {
        Column { col, first: (k, p), min: (k, p), max: (k, p), last: (k, p) }
    }
    fn push(&mut self, k: usize, p: (f64, f64)) {
        if p.1 < self.min.1 .1 {
            self.min = (k, p);
        }
        if p.1 > self.max.1 .1 {
            self.max = (k, p);
        }
        self.last = (k, p);
    }
    fn flush(self, out: &mut Vec<(f64, f64)>) {
        let mut kept = [self.first, self.min, self.max, self.last];
        kept.sort_by_key(|e| e.0);
        for (j, e) in kept.iter().enumerate() {
            if j == 0 || e.0 != kept[j - 1].0 {
                out.push(e.1);
            }
        }
    }
}

/// A series' finite points in pixel coordinates, reduced to at most 4 per pixel column (M4) when
/// it has more than `REDUCE_PER_COLUMN` per column; everything left or right of the plot area
/// counts as one column each. The bound holds for x in increasing order.
fn pixel_points(points: &[(f64, f64)], m: &Map) -> Vec<(f64, f64)> {
    let mapped = points.iter().filter(|p| finite(p)).map(|&(x, y)| (m.x(x), m.y(y)));
    let columns = m.w.ceil().max(1.0) as usize;
    if points.len() <= REDUCE_PER_COLUMN * columns {
        return mapped.collect();
    }
    let mut out = Vec::with_capacity(4 * (columns + 3));
    let mut cur: Option<Column> = None;
    for (k, p) in mapped.enumerate() {
        let col = if p.0 < m.left {
            -1
        } else if p.0 > m.left + m.w {
            i64::MAX
        } else {
            (p.0 - m.left) as i64
        };
        match &mut cur {
            Some(c) if c.col == col => c.push(k, p),
            _ => {
                if let Some(c) = cur.take() {
                    c.flush(&mut out);
                }
                cur = Some(Column::new(col, k, p));
            }
        }
    }
    if let Some(c) = cur {
        c.flush(&mut out);
    }
    out
}

/// SVG path data for one series' pixel points.
fn path_data(pts: &[(f64, f64)], style: Style) -> String {
    let mut d = String::with_capacity(pts.len() * 14);
    let single = pts.len() == 1;
    let xy = |d: &mut String, lead: &str, x: f64, y: f64| {
        d.push_str(lead);
        N(x).push_to(d);
        d.push(' ');
        N(y).push_to(d);
    };
    for (k, &(x, y)) in pts.iter().enumerate() {
        match style {
            // An open diamond, 4.5 px from the centre to each corner.
            Style::Markers => {
                xy(&mut d, "M", x, y - 4.5);
                d.push_str("l4.5 4.5l-4.5 4.5l-4.5 -4.5z");
            }
            _ if single => {
                xy(&mut d, "M", x, y);
                d.push_str("h0");
            }
            Style::Points => {
                xy(&mut d, "M", x, y);
                d.push_str("h0");
            }
            _ if k == 0 => xy(&mut d, "M", x, y),
            Style::Line | Style::LinePoints | Style::Band if k == 1 => xy(&mut d, "L", x, y),
            Style::Line | Style::LinePoints | Style::Band => xy(&mut d, " ", x, y),
            Style::Step => {
                // A step to a point written the same as the last is left out.
                let (px, py) = pts[k - 1];
                if N(x).cents() != N(px).cents() {
                    d.push('H');
                    N(x).push_to(&mut d);
                }
                if N(y).cents() != N(py).cents() {
                    d.push('V');
                    N(y).push_to(&mut d);
                }
            }
        }
    }
    d
}

/// Colour and dash pattern of series `i`.
fn look(i: usize) -> (&'static str, &'static str) {
    (PALETTE[i % PALETTE.len()], DASHES[(i / PALETTE.len()) % DASHES.len()])
}

/// Stroke attributes of series `i` with lines `width` px wide (points are round, then square
/// after the first pass through the palette).
fn stroke_attrs(i: usize, style: Style, width: &str) -> String {
    let (colour, dash) = look(i);
    match style {
        Style::Points => {
            let cap = if (i / PALETTE.len()).is_multiple_of(2) { "round" } else { "square" };
            format!(r#"stroke="{colour}" stroke-width="4" stroke-linecap="{cap}""#)
        }
        Style::Markers => format!(r#"stroke="{colour}" stroke-width="1.6" fill="white""#),
        _ => {
            let mut a = format!(r#"stroke="{colour}" stroke-width="{width}""#);
            if !dash.is_empty() {
                let _ = write!(a, r#" stroke-dasharray="{dash}""#);
            }
            a
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Place {
    None,
    Right,
    Below { cols: usize, rows: usize },
}

/// The legend of one panel: the first `MAX_LEGEND` named series and how many more there are.
struct Legend {
    items: Vec<(usize, String, bool)>,
    more: usize,
    item_w: f64,
    place: Place,
}

impl Legend {
    fn new(p: &Plot<'_>, width: f64) -> Self {
        let named: Vec<usize> = (0..p.series.len()).filter(|&i| !p.series[i].name.is_empty()).collect();
        let items: Vec<(usize, String, bool)> = named
            .iter()
            .take(MAX_LEGEND)
            .map(|&i| {
                let name = p.series[i].name;
                let cut = name.chars().count() > MAX_NAME;
                let label = if cut {
                    name.chars().take(MAX_NAME - 1).collect::<String>() + "\u{2026}"
                } else {
                    name.to_string()
                };
                (i, label, cut)
            })
            .collect();
        let more = named.len() - items.len();
        let count = items.len() + usize::from(more > 0);
        let longest = items.iter().map(|e| text_width(&e.1, 11.0)).fold(text_width("+000 more", 11.0), f64::max);
        let item_w = 28.0 + longest;
        let place = if count == 0 {
            Place::None
        } else if count <= 8 && item_w <= 0.3 * width {
            Place::Right
        } else {
            let cols = (((width - 100.0) / (item_w + 16.0)).floor() as usize).max(1);
            Place::Below { cols, rows: count.div_ceil(cols) }
        };
        Legend { items, more, item_w, place }
    }
}

/// One panel's vertical layout and y axis.
struct Panel<'p, 'a> {
    plot: &'p Plot<'a>,
    top: f64,
    h: f64,
    y: Axis,
    has_data: bool,
    legend: Legend,
    bottom: bool,
}

/// Height of the x tick labels and x label under the bottom panel.
fn x_block(bottom: bool, x_label: &str) -> f64 {
    match (bottom, x_label.is_empty()) {
        (false, _) => 0.0,
        (true, true) => 20.0,
        (true, false) => 38.0,
    }
}

fn render(plots: &[&Plot<'_>], width: u32) -> String {
    // Laid out at 1/scale of the size asked for, then drawn at that size through the viewBox:
    // text and lines come out `scale` times larger.
    let scale = plots.first().map_or(1.0, |p| p.scale).clamp(0.25, 4.0);
    let out_width = f64::from(width.max(MIN_WIDTH));
    let width = (out_width / scale).max(f64::from(MIN_WIDTH));
    let x_label = plots.iter().rev().map(|p| p.x_label).find(|l| !l.is_empty()).unwrap_or("");
    let x_fixed = plots
        .iter()
        .find_map(|p| p.x_range.filter(|&(a, b)| a.is_finite() && b.is_finite() && a != b))
        .map(|(a, b)| (a.min(b), a.max(b)));
    let x_extent = x_fixed.or_else(|| {
        let xs = plots.iter().flat_map(|p| p.series.iter()).flat_map(|s| s.points.iter());
        xs.filter(|p| finite(p))
            .map(|p| p.0)
            .fold(None, |e: Option<(f64, f64)>, x| Some(e.map_or((x, x), |(lo, hi)| (lo.min(x), hi.max(x)))))
    });

    let mut panels = Vec::with_capacity(plots.len());
    let mut y_top = 0.0;
    for (i, &p) in plots.iter().enumerate() {
        let bottom = i + 1 == plots.len();
        let legend = Legend::new(p, width);
        let top_m = if p.title.is_empty() { 14.0 } else { 34.0 };
        let mut bottom_m = 12.0 + x_block(bottom, x_label);
        if let Place::Below { rows, .. } = legend.place {
            bottom_m += 8.0 + rows as f64 * LEGEND_ROW;
        }
        let h = ((f64::from(p.height.max(MIN_HEIGHT)) / scale).max(f64::from(MIN_HEIGHT)) - top_m - bottom_m).max(20.0);
        let (y, has_data) = y_axis(p, x_fixed, h);
        panels.push(Panel { plot: p, top: y_top + top_m, h, y, has_data, legend, bottom });
        y_top += top_m + h + bottom_m;
    }
    let total_h = y_top.max(f64::from(MIN_HEIGHT));
    let any_y_label = plots.iter().any(|p| !p.y_label.is_empty());
    let widest_tick = panels.iter().flat_map(|p| p.y.labels.iter()).map(|l| text_width(l, 11.0)).fold(0.0, f64::max);
    let left = (if any_y_label { 28.0 } else { 8.0 }) + widest_tick + 10.0;
    let right = panels.iter().fold(18.0f64, |r, p| match p.legend.place {
        Place::Right => r.max(p.legend.item_w + 30.0),
        _ => r,
    });
    let w = (width - left - right).max(20.0);
    let x = x_axis(x_extent, x_fixed.is_some(), w, plots.iter().any(|p| p.x_whole));
    let id = clip_id(plots, width);

    let mut s = String::with_capacity(32 * 1024);
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{OW}" height="{OH}" viewBox="0 0 {W} {H}" font-family="{FONT}" font-size="11">"#,
        OW = N(width * scale),
        OH = N(total_h * scale),
        W = N(width),
        H = N(total_h)
    );
    let titles: Vec<&str> = plots.iter().map(|p| p.title).filter(|t| !t.is_empty()).collect();
    let _ = write!(s, "\n<title>{}</title>", esc(&titles.join(" / ")));
    let _ = write!(s, "\n<rect width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n<defs>", N(width), N(total_h));
    for (i, pn) in panels.iter().enumerate() {
        let _ = write!(
            s,
            r#"<clipPath id="{id}-{i}"><rect x="{}" y="{}" width="{}" height="{}"/></clipPath>"#,
            N(left),
            N(pn.top),
            N(w),
            N(pn.h)
        );
    }
    s.push_str("</defs>\n");
    for (i, pn) in panels.iter().enumerate() {
        draw_panel(&mut s, pn, left, w, &x, x_label, &format!("{id}-{i}"));
    }
    s.push_str("</svg>\n");
    s
}

/// How far the plot's points go beyond its y axis, as the warm-up's label says it ("" when
/// none does): " (off the axis: up to 64)".
fn off_axis(p: &Plot<'_>, y: &Axis) -> String {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for s in &p.series {
        for (k, &(_, v)) in s.points.iter().enumerate().filter(|(_, q)| finite(q)) {
            let u = s.upper.and_then(|u| u.get(k)).copied().filter(|u| u.is_finite()).unwrap_or(v);
            (lo, hi) = (lo.min(v.min(u)), hi.max(v.max(u)));
        }
    }
    let short = |v: f64| {
        let t = if v.abs() >= 100.0 { format!("{v:.0}") } else { format!("{v:.3}") };
        if t.contains('.') {
            t.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            t
        }
    };
    let mut out = vec![];
    if hi > y.hi {
        out.push(format!("up to {}", short(hi)));
    }
    if lo < y.lo {
        out.push(format!("down to {}", short(lo)));
    }
    if out.is_empty() {
        String::new()
    } else {
        format!(" (off the axis: {})", out.join(", "))
    }
}

/// A clip-path id that differs between plots, so several SVGs can be inlined in one HTML page.
fn clip_id(plots: &[&Plot<'_>], width: f64) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325; // FNV-1a
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    eat(&width.to_bits().to_le_bytes());
    for p in plots {
        for t in [p.title, p.x_label, p.y_label] {
            eat(t.as_bytes());
            eat(&[0]);
        }
        eat(&p.height.to_le_bytes());
        for s in &p.series {
            eat(s.name.as_bytes());
            eat(&(s.points.len() as u64).to_le_bytes());
            for q in [s.points.first(), s.points.last()].into_iter().flatten() {
                eat(&q.0.to_bits().to_le_bytes());
                eat(&q.1.to_bits().to_le_bytes());
            }
        }
    }
    format!("fw{h:016x}")
}

fn draw_panel(s: &mut String, pn: &Panel<'_, '_>, left: f64, w: f64, x: &Axis, x_label: &str, clip: &str) {
    let p = pn.plot;
    let (top, h) = (pn.top, pn.h);
    let (right, bottom) = (left + w, top + h);
    let m = Map { x0: x.lo, x1: x.hi, y0: pn.y.lo, y1: pn.y.hi, left, top, w, h };

    // Grid, and a darker line at y = 0 when the axis crosses it.
    s.push_str(r##"<path fill="none" stroke="#e4e4e4" stroke-width="1" shape-rendering="crispEdges" d=""##);
    for &t in &x.ticks {
        let _ = write!(s, "M{} {}V{}", N(m.x(t)), N(top), N(bottom));
    }
    for &t in &pn.y.ticks {
        let _ = write!(s, "M{} {}H{}", N(left), N(m.y(t)), N(right));
    }
    s.push_str("\"/>\n");
    if pn.y.lo < 0.0 && pn.y.hi > 0.0 {
        let _ = writeln!(
            s,
            r##"<path fill="none" stroke="#9a9a9a" stroke-width="1" shape-rendering="crispEdges" d="M{} {}H{}"/>"##,
            N(left),
            N(m.y(0.0)),
            N(right)
        );
    }

    // A shaded interval behind the series, its label in its top left corner.
    if let Some((a, b, label)) = p.shade.filter(|&(a, b, _)| a.is_finite() && b.is_finite() && b > a) {
        let (xa, xb) = (m.x(a).clamp(left, right), m.x(b).clamp(left, right));
        if xb > xa {
            let _ = writeln!(
                s,
                r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#000000" fill-opacity="0.07"/>"##,
                N(xa),
                N(top),
                N(xb - xa),
                N(h)
            );
            // A y axis fitted to what follows the interval leaves its peaks off the axis: the
            // label says how far they go, so that nothing is cut without a word.
            let off = p.fit_from.map_or(String::new(), |_| off_axis(p, &pn.y));
            text(s, xa + 4.0, top + 13.0, r##" fill="#555555" font-style="italic""##, &format!("{label}{off}"));
            s.push('\n');
        }
    }

    // Series, clipped to the plot area.
    let _ = writeln!(s, r#"<g clip-path="url(#{clip})" fill="none" stroke-linejoin="round" stroke-linecap="round">"#);
    for (i, series) in p.series.iter().enumerate() {
        let pts = pixel_points(series.points, &m);
        if pts.is_empty() {
            continue;
        }
        let width = if pts.len() > 2 * w as usize { "1" } else { "1.6" };
        let style = match series.style {
            Style::Markers => Style::Markers,
            _ if pts.len() == 1 => Style::Points,
            other => other,
        };
        let li = series.look.unwrap_or(i);
        if style == Style::Band {
            let upper: Vec<(f64, f64)> =
                series.points.iter().zip(series.upper.unwrap_or(&[])).map(|(&(x, _), &u)| (x, u)).collect();
            let top = pixel_points(&upper, &m);
            let mut d = path_data(&pts, Style::Line);
            for &(x, y) in top.iter().rev() {
                let _ = write!(d, " {} {}", N(x), N(y));
            }
            let _ = writeln!(s, r#"<path stroke="none" fill="{}" fill-opacity="0.35" d="{d}Z"/>"#, look(li).0);
            continue;
        }
        if let Some(errors) = series.errors {
            draw_error_bars(s, li, series.points, errors, &m);
        }
        let _ = writeln!(s, r#"<path {} d="{}"/>"#, stroke_attrs(li, style, width), path_data(&pts, style));
        if style == Style::LinePoints {
            let _ = writeln!(
                s,
                r#"<path {} d="{}"/>"#,
                stroke_attrs(li, Style::Points, ""),
                path_data(&pts, Style::Points)
            );
        }
    }
    s.push_str("</g>\n");

    // Frame and tick marks.
    let _ = write!(
        s,
        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#444444" stroke-width="1" shape-rendering="crispEdges"/>"##,
        N(left),
        N(top),
        N(w),
        N(h)
    );
    s.push_str(r##"<path fill="none" stroke="#444444" stroke-width="1" shape-rendering="crispEdges" d=""##);
    for &t in &x.ticks {
        let _ = write!(s, "M{} {}v4", N(m.x(t)), N(bottom));
    }
    for &t in &pn.y.ticks {
        let _ = write!(s, "M{} {}h-4", N(left), N(m.y(t)));
    }
    s.push_str("\"/>\n");

    // Tick labels, axis labels, title.
    s.push_str(r##"<g fill="#333333">"##);
    for (&t, l) in pn.y.ticks.iter().zip(&pn.y.labels) {
        text(s, left - 7.0, m.y(t) + 4.0, r#" text-anchor="end""#, l);
    }
    if pn.bottom {
        for (&t, l) in x.ticks.iter().zip(&x.labels) {
            text(s, m.x(t), bottom + 17.0, r#" text-anchor="middle""#, l);
        }
    }
    s.push_str("</g>\n");
    let mid = left + w / 2.0;
    if !p.y_label.is_empty() {
        let rotate = format!(
            r#" transform="translate(15 {}) rotate(-90)" text-anchor="middle" font-size="12""#,
            N(top + h / 2.0)
        );
        text(s, 0.0, 0.0, &rotate, p.y_label);
    }
    if pn.bottom && !x_label.is_empty() {
        text(s, mid, bottom + 35.0, r#" text-anchor="middle" font-size="12""#, x_label);
    }
    if !p.title.is_empty() {
        let bold = r#" text-anchor="middle" font-size="14" font-weight="bold""#;
        text(s, mid, top - 12.0, bold, p.title);
    }
    if !pn.has_data {
        let grey = r##" text-anchor="middle" font-size="13" fill="#888888""##;
        text(s, mid, top + h / 2.0, grey, "no data");
    }
    s.push('\n');
    draw_legend(s, pn, left, w, x_block(pn.bottom, x_label));
}

/// Vertical bars of half-height `errors[k]` through each finite point, with 6 px caps, in the
/// series' colour (solid, whatever its dash pattern).
fn draw_error_bars(s: &mut String, i: usize, points: &[(f64, f64)], errors: &[f64], m: &Map) {
    let mut d = String::new();
    for (p, e) in points.iter().zip(errors) {
        if !finite(p) || !e.is_finite() || *e == 0.0 {
            continue;
        }
        let (x, lo, hi) = (m.x(p.0), m.y(clamp_value(p.1 - e.abs())), m.y(clamp_value(p.1 + e.abs())));
        let _ = write!(d, "M{} {}V{}M{} {}h6M{} {}h6", N(x), N(lo), N(hi), N(x - 3.0), N(lo), N(x - 3.0), N(hi));
    }
    if !d.is_empty() {
        let _ = writeln!(s, r#"<path stroke="{}" stroke-width="1.2" d="{d}"/>"#, look(i).0);
    }
}

fn draw_legend(s: &mut String, pn: &Panel<'_, '_>, left: f64, w: f64, x_block: f64) {
    let lg = &pn.legend;
    let (x0, y0, cols) = match lg.place {
        Place::None => return,
        Place::Right => (left + w + 16.0, pn.top + 8.0, 1),
        Place::Below { cols, .. } => (left, pn.top + pn.h + x_block + 18.0, cols),
    };
    let at = |k: usize| (x0 + (k % cols) as f64 * (lg.item_w + 16.0), y0 + (k / cols) as f64 * LEGEND_ROW);
    s.push_str(r#"<g fill="none" stroke-linecap="round">"#);
    for (k, (i, label, cut)) in lg.items.iter().enumerate() {
        let (ex, ey) = at(k);
        let series = &pn.plot.series[*i];
        let i = &series.look.unwrap_or(*i);
        s.push_str("<g>");
        if *cut {
            let _ = write!(s, "<title>{}</title>", esc(series.name));
        }
        match series.style {
            Style::Points => {
                let _ =
                    write!(s, r#"<path {} d="M{} {}h0"/>"#, stroke_attrs(*i, Style::Points, ""), N(ex + 11.0), N(ey));
            }
            Style::Markers => {
                let d = path_data(&[(ex + 11.0, ey)], Style::Markers);
                let _ = write!(s, r#"<path {} d="{d}"/>"#, stroke_attrs(*i, Style::Markers, ""));
            }
            Style::Band => {
                let _ = write!(
                    s,
                    r#"<rect x="{}" y="{}" width="22" height="10" stroke="none" fill="{}" fill-opacity="0.35"/>"#,
                    N(ex),
                    N(ey - 5.0),
                    look(*i).0
                );
            }
            Style::LinePoints => {
                let attrs = stroke_attrs(*i, Style::Line, "2");
                let _ = write!(s, r#"<path {attrs} d="M{} {}h22"/>"#, N(ex), N(ey));
                let _ =
                    write!(s, r#"<path {} d="M{} {}h0"/>"#, stroke_attrs(*i, Style::Points, ""), N(ex + 11.0), N(ey));
            }
            _ => {
                let attrs = stroke_attrs(*i, series.style, "2");
                let _ = write!(s, r#"<path {attrs} d="M{} {}h22"/>"#, N(ex), N(ey));
            }
        }
        text(s, ex + 28.0, ey + 4.0, r##" fill="#222222""##, label);
        s.push_str("</g>");
    }
    if lg.more > 0 {
        let (ex, ey) = at(lg.items.len());
        let more = format!("+{} more", lg.more);
        text(s, ex + 28.0, ey + 4.0, r##" fill="#666666" font-style="italic""##, &more);
    }
    s.push_str("</g>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small XML well-formedness check: tags balance with one root, attributes are quoted,
    /// and every '&' starts an entity, so no raw '<' or '&' from text gets through.
    fn check_xml(doc: &str) -> Result<(), String> {
        fn entity_ok(rest: &str) -> bool {
            ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].iter().any(|e| rest.starts_with(e))
        }
        let mut stack: Vec<&str> = Vec::new();
        let mut roots = 0;
        let mut i = 0;
        while i < doc.len() {
            let rest = &doc[i..];
            if rest.starts_with('<') {
                let end = rest.find('>').ok_or("unterminated tag")?;
                let tag = &rest[1..end];
                if let Some(name) = tag.strip_prefix('/') {
                    match stack.pop() {
                        Some(open) if open == name => {}
                        other => return Err(format!("</{name}> closes {other:?}")),
                    }
                } else {
                    let self_closing = tag.ends_with('/');
                    let body = tag.trim_end_matches('/');
                    let name_end = body.find(char::is_whitespace).unwrap_or(body.len());
                    let name = &body[..name_end];
                    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':') {
                        return Err(format!("bad element name in <{tag}>"));
                    }
                    let mut attrs = body[name_end..].trim_start();
                    while !attrs.is_empty() {
                        let eq = attrs.find("=\"").ok_or(format!("unquoted attribute in <{tag}>"))?;
                        let key = &attrs[..eq];
                        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':') {
                            return Err(format!("bad attribute name {key:?}"));
                        }
                        let value_end = attrs[eq + 2..].find('"').ok_or("unterminated attribute")? + eq + 2;
                        let value = &attrs[eq + 2..value_end];
                        if value.contains('<') || value.match_indices('&').any(|(j, _)| !entity_ok(&value[j..])) {
                            return Err(format!("raw '<' or '&' in attribute {value:?}"));
                        }
                        attrs = attrs[value_end + 1..].trim_start();
                    }
                    if stack.is_empty() {
                        roots += 1;
                    }
                    if !self_closing {
                        stack.push(name);
                    }
                }
                i += end + 1;
            } else {
                if rest.starts_with('&') && !entity_ok(rest) {
                    return Err("raw '&' in text".into());
                }
                if stack.is_empty() && !rest.starts_with(char::is_whitespace) {
                    return Err("text outside the root element".into());
                }
                i += rest.chars().next().map_or(1, char::len_utf8);
            }
        }
        match (stack.is_empty(), roots) {
            (true, 1) => Ok(()),
            _ => Err(format!("unclosed {stack:?} or {roots} roots")),
        }
    }

    fn valid(doc: &str) {
        if let Err(e) = check_xml(doc) {
            panic!("not well-formed: {e}\n{}", &doc[..doc.len().min(2000)]);
        }
        assert!(doc.starts_with("<svg ") && doc.ends_with("</svg>\n"));
        assert!(!doc.contains("NaN") && !doc.contains("inf"), "non-finite number in output");
    }

    fn path_ds(doc: &str) -> Vec<&str> {
        doc.match_indices(" d=\"").map(|(i, _)| &doc[i + 4..i + 4 + doc[i + 4..].find('"').unwrap()]).collect()
    }

    fn ramp(n: usize, f: impl Fn(f64) -> f64) -> Vec<(f64, f64)> {
        (0..n).map(|i| i as f64 * 0.01).map(|x| (x, f(x))).collect()
    }

    #[test]
    fn checker_rejects_broken_xml() {
        assert!(check_xml("<svg><g></svg>").is_err());
        assert!(check_xml("<svg>a & b</svg>").is_err());
        assert!(check_xml("<svg><text x=\"1\">a</text></svg>").is_ok());
        assert!(check_xml("<svg x=1/>").is_err());
    }

    #[test]
    fn well_formed_with_legend_names() {
        let a = ramp(300, |x| x.sin() + 1.0);
        let b = ramp(300, |x| x.cos() + 1.0);
        let doc =
            Plot::new("Throughput", "time (s)", "throughput (Mb/s)").line("flow 1", &a).line("flow 2", &b).to_svg();
        valid(&doc);
        assert!(doc.contains(">flow 1</text>") && doc.contains(">flow 2</text>"));
        assert!(doc.contains(">throughput (Mb/s)</text>") && doc.contains(">Throughput</text>"));
    }

    #[test]
    fn text_is_escaped() {
        let a = ramp(10, |x| x);
        let name = "TFRC <s=1000> & \"RED\" 'q'";
        let doc = Plot::new("a<b & c", "x & y", "<y>").line(name, &a).to_svg();
        valid(&doc);
        assert!(doc.contains(">TFRC &lt;s=1000&gt; &amp; &quot;RED&quot; &apos;q&apos;</text>"));
        assert!(doc.contains(">a&lt;b &amp; c</text>") && doc.contains(">&lt;y&gt;</text>"));
    }

    /// Two decimals at most, trailing zeros dropped, never "-0", clamped; NaN as 0.
    #[test]
    fn numbers_are_written_one_way() {
        let cases = [
            (0.0, "0"),
            (-0.0, "0"),
            (-0.004, "0"),
            (-0.005, "-0.01"),
            (1.5, "1.5"),
            (1.25, "1.25"),
            (-3.07, "-3.07"),
            (12.999, "13"),
            (0.1, "0.1"),
            (0.09, "0.09"),
            (100.0, "100"),
            (-1234.5, "-1234.5"),
            (1e7, "1000000"),
            (-1e7, "-1000000"),
            (f64::NAN, "0"),
            (f64::INFINITY, "0"),
        ];
        for (v, text) in cases {
            assert_eq!(N(v).to_string(), text, "{v}");
            let mut s = String::from("x");
            N(v).push_to(&mut s);
            assert_eq!(s, format!("x{text}"));
        }
        // A step to where the last point was written is left out; one a hundredth away is not.
        let d = path_data(&[(1.0, 2.0), (1.001, 2.0), (1.01, 2.004), (1.01, 3.0)], Style::Step);
        assert_eq!(d, "M1 2H1.01V3");
    }

    #[test]
    fn nice_ticks() {
        assert_eq!(ticks(0.0, 37.0, nice_step(37.0 / 5.0)), vec![0.0, 10.0, 20.0, 30.0]);
        assert_eq!(nice_step(0.37), 0.5);
        assert_eq!(nice_step(1.2e6), 2e6);
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(nice_step(0.0), 1.0);
        let t = ticks(-3.0, 7.0, 2.0);
        assert_eq!(t, vec![-2.0, 0.0, 2.0, 4.0, 6.0]);
        assert_eq!(tick_labels(&ticks(0.0, 1.0, 0.2), 0.2), ["0", "0.2", "0.4", "0.6", "0.8", "1"]);
        assert_eq!(tick_labels(&ticks(0.0, 2e6, 5e5), 5e5), ["0", "500k", "1M", "1.5M", "2M"]);
        assert_eq!(tick_labels(&[2e5, 4e5], 2e5), ["200k", "400k"]);
        assert_eq!(tick_labels(&ticks(0.0, 0.03, 0.01), 0.01), ["0", "0.01", "0.02", "0.03"]);
        assert_eq!(tick_labels(&ticks(0.0, 0.004, 0.001), 0.001), ["0", "1m", "2m", "3m", "4m"]);
        assert_eq!(tick_labels(&ticks(-1.0, 1.0, 0.5), 0.5), ["-1", "-0.5", "0", "0.5", "1"]);
        assert_eq!(tick_labels(&[1e9, 2.5e9], 5e8), ["1G", "2.5G"]);
    }

    #[test]
    fn y_axis_defaults() {
        let pos = [(0.0, 5.0), (1.0, 9.6)];
        let (y, _) = y_axis(&Plot::new("", "", "").line("", &pos), None, 300.0);
        assert_eq!(y.lo, 0.0);
        assert!(y.hi >= 9.6 && y.ticks.len() >= 3);
        let neg = [(0.0, -5.0), (1.0, 7.0)];
        let (y, _) = y_axis(&Plot::new("", "", "").line("", &neg), None, 300.0);
        assert!(y.lo < -5.0 && y.hi > 7.0 && y.ticks.contains(&0.0));
        let flat = [(0.0, 4.0), (1.0, 4.0)];
        let (y, _) = y_axis(&Plot::new("", "", "").line("", &flat), None, 300.0);
        assert!(y.lo == 0.0 && y.hi > 4.0);
        let zero = [(0.0, 0.0), (1.0, 0.0)];
        let (y, _) = y_axis(&Plot::new("", "", "").line("", &zero), None, 300.0);
        assert!(y.hi > y.lo && y.ticks.len() >= 2);
        let steps = [(0.0, 0.0), (1.0, 3.0), (2.0, 1.0)];
        let (y, _) = y_axis(&Plot::new("", "", "").step("", &steps), None, 300.0);
        assert!(y.ticks.iter().all(|t| t.fract() == 0.0), "integer trace gets integer ticks: {:?}", y.ticks);
        let (y, _) = y_axis(&Plot::new("", "", "").line("", &pos).y_min(2.0).y_max(8.0), None, 300.0);
        assert_eq!((y.lo, y.hi), (2.0, 8.0));
    }

    #[test]
    fn downsampling_keeps_extremes_and_bounds_points() {
        let mut pts = ramp(100_000, |x| (x * 7.0).sin());
        pts[31_337].1 = 50.0;
        pts[77_777].1 = -40.0;
        let m = Map { x0: 0.0, x1: 1000.0, y0: -50.0, y1: 50.0, left: 50.0, top: 10.0, w: 600.0, h: 300.0 };
        let out = pixel_points(&pts, &m);
        assert!(out.len() <= 4 * (600 + 3), "{} points", out.len());
        assert!(out.len() >= 600);
        let (ymin, ymax) = out.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
        assert_eq!(ymin, m.y(50.0));
        assert_eq!(ymax, m.y(-40.0));
        assert!(out.windows(2).all(|w| w[0].0 <= w[1].0), "order kept");
        // A short series is not touched.
        assert_eq!(pixel_points(&pts[..1000], &m).len(), 1000);
    }

    #[test]
    fn million_points_stay_small() {
        let pts: Vec<(f64, f64)> = (0..1_000_000u64).map(|i| (i as f64 * 1e-5, ((i * 7919) % 1000) as f64)).collect();
        let doc = Plot::new("queue", "time (s)", "queue (packets)").line("queue", &pts).to_svg();
        valid(&doc);
        assert!(doc.len() < 1_000_000, "{} bytes", doc.len());
    }

    #[test]
    fn step_draws_horizontal_then_vertical() {
        let pts = [(0.0, 1.0), (1.0, 3.0), (2.0, 2.0), (3.0, 2.0)];
        let doc = Plot::new("scale", "time (s)", "scale").step("scale", &pts).to_svg();
        valid(&doc);
        let d = path_ds(&doc)
            .into_iter()
            .find(|d| d.matches('M').count() == 1 && d.contains('H') && d.contains('V'))
            .expect("step path");
        let letters: String = d.chars().filter(|c| c.is_ascii_alphabetic()).collect();
        assert_eq!(letters, "MHVHVH", "{d}");
    }

    #[test]
    fn deterministic() {
        let a = ramp(20_000, |x| (x * 3.0).sin().abs() * 1e6);
        let b = ramp(20_000, |x| (x * 0.3).cos().abs() * 5e5);
        let plot = || Plot::new("t", "time (s)", "rate (b/s)").line("a", &a).step("b", &b);
        assert_eq!(plot().to_svg(), plot().to_svg());
        assert_eq!(stack(&[plot(), plot()], 700), stack(&[plot(), plot()], 700));
        assert_ne!(plot().to_svg(), Plot::new("u", "time (s)", "rate (b/s)").line("a", &a).to_svg());
    }

    #[test]
    fn palette_and_dashes_distinguish_many_series() {
        let looks: Vec<_> = (0..30).map(look).collect();
        for i in 0..looks.len() {
            assert!(!looks[i + 1..].contains(&looks[i]), "series {i} repeats");
        }
    }

    #[test]
    fn many_series_legend() {
        let data: Vec<Vec<(f64, f64)>> = (0..25).map(|k| ramp(50, |x| x * k as f64)).collect();
        let names: Vec<String> = (0..25).map(|k| format!("flow {k}")).collect();
        let mut plot = Plot::new("many", "time (s)", "y");
        for (d, n) in data.iter().zip(&names) {
            plot = plot.line(n, d);
        }
        let doc = plot.to_svg();
        valid(&doc);
        assert!(doc.contains(">flow 11</text>") && !doc.contains(">flow 12</text>"));
        assert!(doc.contains(">+13 more</text>"));
    }

    /// A band is one filled shape, lower edge out and upper edge back; the axis covers its
    /// upper edge; the legend shows a swatch.
    #[test]
    fn a_band_fills_between_its_edges() {
        let lower = [(0.0, 1.0), (1.0, 1.0), (1.0, 2.0), (2.0, 2.0)];
        let upper = [5.0, 5.0, 40.0, 40.0];
        let p = Plot::new("t", "x", "y").series(Series::band("range", &lower, &upper));
        let doc = p.to_svg();
        valid(&doc);
        let fills: Vec<&str> = doc.lines().filter(|l| l.contains(r#"fill-opacity="0.35" d="M"#)).collect();
        assert_eq!(fills.len(), 1, "one shape");
        assert!(fills[0].ends_with(r#"Z"/>"#));
        // Four points out and four back.
        let d = fills[0].split(" d=\"").nth(1).unwrap();
        let numbers = d.split(|c: char| c == ' ' || c.is_ascii_alphabetic()).filter(|t| t.parse::<f64>().is_ok());
        assert_eq!(numbers.count(), 2 * 8, "{d}");
        assert!(doc.contains(r#"width="22" height="10" stroke="none""#), "a swatch in the legend");
        let (axis, _) = y_axis(&p, None, 300.0);
        assert!(axis.hi >= 40.0 && axis.lo == 0.0, "{axis:?}");
    }

    #[test]
    fn error_bars_and_markers() {
        let pts = [(1.0, 10.0), (2.0, 20.0), (3.0, f64::NAN)];
        let errs = [2.0, f64::NAN, 1.0];
        let paper = [(1.0, 30.0), (2.0, 12.0)];
        let doc = Plot::new("t", "x (s)", "y (pkts)")
            .series(Series::new("fairway", &pts, Style::LinePoints).with_errors(&errs))
            .series(Series::new("paper", &paper, Style::Markers))
            .to_svg();
        valid(&doc);
        // One bar: the NaN error and the NaN point draw none.
        let bars: Vec<&str> = doc.lines().filter(|l| l.contains(r#"stroke-width="1.2""#)).collect();
        assert_eq!(bars.len(), 1);
        assert_eq!(bars[0].matches('V').count(), 1, "{}", bars[0]);
        // The axis covers the bars (10 + 2 = 12 <= top) and the markers (30).
        let (axis, _) = y_axis(
            &Plot::new("", "", "").series(Series::new("", &[(0.0, 10.0)], Style::Line).with_errors(&[25.0])),
            None,
            300.0,
        );
        assert!(axis.hi >= 35.0 && axis.lo <= -15.0, "{axis:?}");
        // Markers are closed diamonds filled white, in the legend too.
        assert!(doc.matches("l4.5 4.5l-4.5 4.5l-4.5 -4.5z").count() >= 3, "two markers and a legend entry");
        assert!(doc.contains(r#"fill="white""#));
        // A line with points draws dots over its line.
        assert!(doc.contains(r#"stroke-width="4""#));
    }

    #[test]
    fn edge_cases_do_not_panic() {
        let nan = [(f64::NAN, 1.0), (0.0, f64::INFINITY), (1.0, f64::NEG_INFINITY), (f64::INFINITY, 2.0)];
        let mixed = [(0.0, 1.0), (1.0, f64::NAN), (2.0, 3.0)];
        let single = [(5.0, 2.5)];
        let flat = [(0.0, 7.0), (1.0, 7.0), (2.0, 7.0)];
        let neg = [(-2.0, -1e6), (0.0, -3e6), (3.0, -5e5)];
        let huge = [(0.0, 1e308), (1e308, -1e308), (-1e308, 0.0)];
        let tiny = [(0.0, 1e-12), (1e-9, 3e-12)];
        let empty: [(f64, f64); 0] = [];
        let long = "a very long flow name that will not fit into the legend at all, really";
        let plots = vec![
            Plot::new("", "", ""),
            Plot::new("empty", "x", "y").line("e", &empty),
            Plot::new("nan", "x", "y").line("n", &nan).scatter("m", &mixed),
            Plot::new("single", "x", "y").line("s", &single).step("s2", &single),
            Plot::new("flat", "x", "y").line("f", &flat),
            Plot::new("neg", "x", "y").line("n", &neg).step("", &neg),
            Plot::new("huge", "x", "y").line("h", &huge).scatter(long, &huge),
            Plot::new("tiny", "x", "y").line("t", &tiny),
            Plot::new("limits", "x", "y").line("l", &flat).y_min(10.0).y_max(-10.0),
            Plot::new("equal limits", "x", "y").line("l", &flat).y_min(3.0).y_max(3.0),
            Plot::new("nan limits", "x", "y").line("l", &flat).y_min(f64::NAN).y_max(f64::INFINITY),
            Plot::new("x window", "x", "y").line("l", &flat).x_range(1.5, 0.5),
            Plot::new("bad window", "x", "y").line("l", &flat).x_range(f64::NAN, 2.0),
            Plot::new("zero size", "x", "y").line("l", &flat).size(0, 0),
            Plot::new("ctrl\u{1}chars", "x", "y").line("tab\there", &flat),
        ];
        for p in &plots {
            valid(&p.to_svg());
        }
        valid(&stack(&plots, 900));
        valid(&stack(&[], 0));
        let doc = plots[0].to_svg();
        assert!(doc.contains(">no data</text>"));
        assert!(plots[6].to_svg().contains("<title>a very long flow name"));
    }

    #[test]
    fn stack_shares_x_axis() {
        let a = ramp(100, |x| x);
        let b: Vec<(f64, f64)> = ramp(100, |x| x).into_iter().map(|(x, y)| (x + 5.0, y)).collect();
        let doc = stack(
            &[Plot::new("flow 1", "", "Mb/s").line("a", &a), Plot::new("flow 2", "time (s)", "Mb/s").line("b", &b)],
            800,
        );
        valid(&doc);
        assert_eq!(doc.matches(">time (s)</text>").count(), 1);
        assert_eq!(doc.matches("<clipPath ").count(), 2);
        // x ticks run over the union 0..6 and are labelled once, under the bottom panel.
        assert_eq!(doc.matches(r#"text-anchor="middle">6</text>"#).count(), 1);
    }

    #[test]
    fn a_warm_up_peak_off_the_fitted_axis_is_named_in_the_label() {
        // A slow-start peak of 64 in the first 5 s, then 10 to 20: the axis fits 10 to 20.
        let pts: Vec<(f64, f64)> =
            (0..300).map(|k| (k as f64 * 0.1, if k < 50 { 64.0 } else { 10.0 + (k % 11) as f64 })).collect();
        let doc = Plot::new("w", "t", "cwnd").line("a", &pts).fit_from(5.0).shade(0.0, 5.0, "warm-up").to_svg();
        valid(&doc);
        assert!(doc.contains(">warm-up (off the axis: up to 64)</text>"), "{doc}");
        // Inside the axis: the label alone.
        let calm: Vec<(f64, f64)> = pts.iter().map(|&(x, y)| (x, y.min(20.0))).collect();
        let doc = Plot::new("w", "t", "cwnd").line("a", &calm).fit_from(5.0).shade(0.0, 5.0, "warm-up").to_svg();
        assert!(doc.contains(">warm-up</text>"), "{doc}");
    }
}
