//! Dependency-free SVG charts of simulator time series: panels stacked
//! vertically over one shared time axis, each with its own y axis and legend.
//! Pure formatting: takes series in, returns SVG 1.1 text; it does no I/O and
//! knows nothing about what the series measure.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One line of a chart.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Series {
    /// Legend text; series with the same label get the same colour in every panel.
    pub label: String,
    /// `(time in seconds, value)` pairs in time order; non-finite pairs are dropped.
    pub points: Vec<(f64, f64)>,
}

/// One chart of a figure, drawn over the figure's shared time axis.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Panel {
    /// Title shown above the panel.
    pub title: String,
    /// Text of the y axis.
    pub y_label: String,
    /// Top of the y axis; `None` fits the data. Values above it are drawn at
    /// the top edge.
    pub y_max: Option<f64>,
    /// The lines of the panel.
    pub series: Vec<Series>,
}

/// The most points drawn per series; longer series keep the minimum and the
/// maximum of each bucket so that spikes survive.
pub const MAX_POINTS_PER_SERIES: usize = 2000;

const WIDTH: f64 = 960.0;
const MARGIN_LEFT: f64 = 76.0;
const LEGEND_WIDTH: f64 = 180.0;
const PLOT_WIDTH: f64 = WIDTH - MARGIN_LEFT - LEGEND_WIDTH - 12.0;
const TITLE_HEIGHT: f64 = 40.0;
const PANEL_TITLE_HEIGHT: f64 = 24.0;
const PLOT_HEIGHT: f64 = 180.0;
const PANEL_GAP: f64 = 16.0;
const MARGIN_BOTTOM: f64 = 48.0;

/// Tableau 10: distinct and readable on white. After ten labels the colours
/// repeat with a dash pattern.
const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];
const DASHES: [&str; 3] = ["", "6 3", "2 2"];

/// Renders `panels` stacked vertically under `title` as a standalone SVG 1.1
/// document. Time is shown in days when the data span more than two days,
/// otherwise in hours. Empty panels, empty series and single points are fine.
pub fn render_svg(title: &str, panels: &[Panel]) -> String {
    let (x_axis, unit) = time_axis(panels);
    let styles = series_styles(panels);
    let panel_step = PANEL_TITLE_HEIGHT + PLOT_HEIGHT + PANEL_GAP;
    let stacked = (panel_step * panels.len() as f64 - PANEL_GAP).max(0.0);
    let height = TITLE_HEIGHT + stacked + MARGIN_BOTTOM;
    let mut svg = Svg::default();
    svg.add(format_args!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{WIDTH}\" \
         height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\" font-family=\"sans-serif\" \
         font-size=\"11\">\n\
         <rect x=\"0\" y=\"0\" width=\"{WIDTH}\" height=\"{height}\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"16\" \
         font-weight=\"bold\">{}</text>\n",
        WIDTH / 2.0,
        escape(title)
    ));
    let mut bottom = TITLE_HEIGHT;
    for (index, panel) in panels.iter().enumerate() {
        let top = TITLE_HEIGHT + panel_step * index as f64 + PANEL_TITLE_HEIGHT;
        let frame = Frame {
            left: MARGIN_LEFT,
            right: MARGIN_LEFT + PLOT_WIDTH,
            top,
            bottom: top + PLOT_HEIGHT,
        };
        render_panel(&mut svg, panel, &frame, &x_axis, unit, &styles);
        bottom = frame.bottom;
    }
    if !panels.is_empty() {
        render_x_labels(&mut svg, &x_axis, unit, bottom);
    }
    svg.add(format_args!("</svg>\n"));
    svg.out
}

/// A string being written as SVG.
#[derive(Default)]
struct Svg {
    out: String,
}

impl Svg {
    fn add(&mut self, text: std::fmt::Arguments<'_>) {
        // Writing into a `String` cannot fail.
        let _ = self.out.write_fmt(text);
    }
}

/// The pixel rectangle of one plot area.
struct Frame {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

/// The unit the time axis is shown in.
#[derive(Debug, Clone, Copy, PartialEq)]
struct TimeUnit {
    seconds: f64,
    name: &'static str,
}

const HOURS: TimeUnit = TimeUnit {
    seconds: 3600.0,
    name: "hours",
};
const DAYS: TimeUnit = TimeUnit {
    seconds: 86_400.0,
    name: "days",
};

/// A linear axis: its range (lo < hi, both finite) and tick values.
#[derive(Debug, Clone, PartialEq)]
struct Axis {
    lo: f64,
    hi: f64,
    step: f64,
    ticks: Vec<f64>,
}

impl Axis {
    /// Picks a 1/2/2.5/5 x 10^k step that gives 4 to 6 ticks when it can.
    /// With `extend`, the range grows to the ticks around it.
    fn new(lo: f64, hi: f64, extend: bool) -> Axis {
        let (lo, hi) = if lo.is_finite() && hi.is_finite() && hi > lo && (hi - lo).is_finite() {
            (lo, hi)
        } else if lo.is_finite() && lo.abs() < 1e300 {
            (lo, lo + f64::max(1.0, lo.abs() * 1e-9))
        } else {
            (0.0, 1.0)
        };
        let exponent = ((hi - lo) / 5.0).log10().floor() as i32;
        let mut best: Option<(f64, i64, i64)> = None;
        for power in exponent - 1..=exponent + 1 {
            for mantissa in [1.0, 2.0, 2.5, 5.0] {
                let step = mantissa * 10f64.powi(power);
                let (first, last) = if extend {
                    ((lo / step + 1e-9).floor(), (hi / step - 1e-9).ceil())
                } else {
                    ((lo / step - 1e-9).ceil(), (hi / step + 1e-9).floor())
                };
                // Far too many ticks (a tiny span far from 0) would not fit i64.
                if !(1.0..=1000.0).contains(&(last - first + 1.0)) {
                    continue;
                }
                let (first, last) = (first as i64, last as i64);
                let miss = |first: i64, last: i64| ((last - first - 4).abs() - 1).max(0);
                if best.is_none_or(|(_, f, l)| miss(first, last) < miss(f, l)) {
                    best = Some((step, first, last));
                }
            }
        }
        let (step, ticks) = match best {
            Some((step, first, last)) => (step, (first..=last).map(|i| i as f64 * step).collect()),
            None => (hi - lo, Vec::new()),
        };
        let (lo, hi) = match (extend, ticks.first(), ticks.last()) {
            (true, Some(&a), Some(&b)) if b > a => (a.min(lo), b.max(hi)),
            _ => (lo, hi),
        };
        Axis {
            lo,
            hi,
            step,
            ticks,
        }
    }

    /// Maps `value` into `[from, to]`, clamped to it.
    fn map(&self, value: f64, from: f64, to: f64) -> f64 {
        let t = ((value - self.lo) / (self.hi - self.lo)).clamp(0.0, 1.0);
        let px = from + t * (to - from);
        if px.is_finite() {
            px
        } else {
            from
        }
    }

    /// Tick label text: just enough decimals for the step, and a k/M/G
    /// suffix for large values.
    fn label(&self, value: f64) -> String {
        let largest = self.lo.abs().max(self.hi.abs());
        let (divisor, suffix) = [(1e9, "G", 1e9), (1e6, "M", 1e6), (1e3, "k", 1e4)]
            .into_iter()
            .find(|&(_, _, from)| largest >= from)
            .map_or((1.0, ""), |(divisor, suffix, _)| (divisor, suffix));
        let step = self.step / divisor;
        let decimals = (0..6)
            .find(|&d| {
                let scaled = step * 10f64.powi(d);
                (scaled - scaled.round()).abs() <= 1e-6 * scaled.abs().max(1.0)
            })
            .unwrap_or(6) as usize;
        if value.abs() < self.step * 1e-9 {
            return "0".to_owned();
        }
        format!("{:.decimals$}{suffix}", value / divisor)
    }
}

/// The shared x axis (in display units) over every finite point.
fn time_axis(panels: &[Panel]) -> (Axis, TimeUnit) {
    let (lo, hi) = panels
        .iter()
        .flat_map(|p| &p.series)
        .flat_map(|s| &s.points)
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &(x, _)| {
            (lo.min(x), hi.max(x))
        });
    let unit = if hi - lo > 2.0 * DAYS.seconds {
        DAYS
    } else {
        HOURS
    };
    (Axis::new(lo / unit.seconds, hi / unit.seconds, false), unit)
}

/// The y axis of a panel: from min(0, data) up to `y_max` or the data.
fn value_axis(panel: &Panel) -> Axis {
    let (lo, hi) = panel
        .series
        .iter()
        .flat_map(|s| &s.points)
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .fold((0.0f64, f64::NEG_INFINITY), |(lo, hi), &(_, y)| {
            (lo.min(y), hi.max(y))
        });
    match panel.y_max {
        Some(top) if top.is_finite() && top > lo => {
            let axis = Axis::new(lo, top, false);
            Axis {
                lo: axis.lo.min(lo),
                ..axis
            }
        }
        _ => Axis::new(lo, hi, true),
    }
}

/// Colour and dash pattern per label, by order of first appearance.
fn series_styles(panels: &[Panel]) -> BTreeMap<&str, (&'static str, &'static str)> {
    let mut styles = BTreeMap::new();
    for series in panels.iter().flat_map(|p| &p.series) {
        let next = styles.len();
        styles.entry(series.label.as_str()).or_insert_with(|| {
            let dash = DASHES[(next / PALETTE.len()) % DASHES.len()];
            (PALETTE[next % PALETTE.len()], dash)
        });
    }
    styles
}

fn render_panel(
    svg: &mut Svg,
    panel: &Panel,
    frame: &Frame,
    x_axis: &Axis,
    unit: TimeUnit,
    styles: &BTreeMap<&str, (&'static str, &'static str)>,
) {
    let y_axis = value_axis(panel);
    let Frame {
        left,
        right,
        top,
        bottom,
    } = *frame;
    svg.add(format_args!(
        "<g>\n<text x=\"{left}\" y=\"{:.1}\" font-size=\"13\" font-weight=\"bold\">{}</text>\n",
        top - 8.0,
        escape(&panel.title)
    ));
    for &tick in &x_axis.ticks {
        let x = x_axis.map(tick, left, right);
        svg.add(format_args!(
            "<line x1=\"{x:.1}\" y1=\"{top:.1}\" x2=\"{x:.1}\" y2=\"{bottom:.1}\" stroke=\"#e4e4e4\"/>\n"
        ));
    }
    for &tick in &y_axis.ticks {
        let y = y_axis.map(tick, bottom, top);
        svg.add(format_args!(
            "<line x1=\"{left:.1}\" y1=\"{y:.1}\" x2=\"{right:.1}\" y2=\"{y:.1}\" stroke=\"#e4e4e4\"/>\n\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
            left - 6.0,
            y + 4.0,
            y_axis.label(tick)
        ));
    }
    let middle = (top + bottom) / 2.0;
    svg.add(format_args!(
        "<path d=\"M{left:.1},{top:.1} V{bottom:.1} H{right:.1}\" fill=\"none\" stroke=\"#333\"/>\n\
         <text x=\"16\" y=\"{middle:.1}\" transform=\"rotate(-90 16 {middle:.1})\" \
         text-anchor=\"middle\">{}</text>\n",
        escape(&panel.y_label)
    ));
    for series in &panel.series {
        let style = styles.get(series.label.as_str()).copied();
        let (colour, dash) = style.unwrap_or((PALETTE[0], ""));
        let points = downsample(&series.points, MAX_POINTS_PER_SERIES);
        let to_px = |&(x, y): &(f64, f64)| {
            (
                x_axis.map(x / unit.seconds, left, right),
                y_axis.map(y, bottom, top),
            )
        };
        render_line(svg, points.iter().map(to_px), colour, dash);
    }
    render_legend(svg, panel, frame, styles);
    svg.add(format_args!("</g>\n"));
}

/// Draws a polyline, or a dot when there is a single point.
fn render_line(
    svg: &mut Svg,
    mut points: impl ExactSizeIterator<Item = (f64, f64)>,
    colour: &str,
    dash: &str,
) {
    let dash = if dash.is_empty() {
        String::new()
    } else {
        format!(" stroke-dasharray=\"{dash}\"")
    };
    match points.len() {
        0 => {}
        1 => {
            if let Some((x, y)) = points.next() {
                svg.add(format_args!(
                    "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"2.5\" fill=\"{colour}\"/>\n"
                ));
            }
        }
        _ => {
            svg.add(format_args!("<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\"{dash} stroke-linejoin=\"round\" points=\""));
            for (i, (x, y)) in points.enumerate() {
                let sep = if i == 0 { "" } else { " " };
                svg.add(format_args!("{sep}{x:.1},{y:.1}"));
            }
            svg.add(format_args!("\"/>\n"));
        }
    }
}

fn render_legend(
    svg: &mut Svg,
    panel: &Panel,
    frame: &Frame,
    styles: &BTreeMap<&str, (&'static str, &'static str)>,
) {
    let x = frame.right + 14.0;
    let mut seen = Vec::new();
    for series in &panel.series {
        if seen.contains(&series.label.as_str()) {
            continue;
        }
        seen.push(series.label.as_str());
        let style = styles.get(series.label.as_str()).copied();
        let (colour, dash) = style.unwrap_or((PALETTE[0], ""));
        let y = frame.top + 10.0 + 16.0 * (seen.len() - 1) as f64;
        svg.add(format_args!(
            "<line x1=\"{x:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{colour}\" \
             stroke-width=\"3\" stroke-dasharray=\"{}\"/>\n\
             <text x=\"{:.1}\" y=\"{:.1}\">{}</text>\n",
            x + 18.0,
            if dash.is_empty() { "none" } else { dash },
            x + 24.0,
            y + 4.0,
            escape(&series.label)
        ));
    }
}

fn render_x_labels(svg: &mut Svg, x_axis: &Axis, unit: TimeUnit, bottom: f64) {
    for &tick in &x_axis.ticks {
        let x = x_axis.map(tick, MARGIN_LEFT, MARGIN_LEFT + PLOT_WIDTH);
        svg.add(format_args!(
            "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\n",
            bottom + 16.0,
            x_axis.label(tick)
        ));
    }
    svg.add(format_args!(
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">time ({})</text>\n",
        MARGIN_LEFT + PLOT_WIDTH / 2.0,
        bottom + 36.0,
        unit.name
    ));
}

/// Keeps at most `max` finite points (`max` >= 4): the first, the last, and
/// the lowest and highest of each of `max / 2 - 1` buckets, in their order.
fn downsample(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    let finite: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    let max = max.max(4);
    if finite.len() <= max {
        return finite;
    }
    let size = finite.len().div_ceil(max / 2 - 1);
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(max);
    let mut push = |point: (f64, f64)| {
        if out.last() != Some(&point) {
            out.push(point);
        }
    };
    push(finite[0]);
    for chunk in finite.chunks(size) {
        let by_y = |a: &(usize, &(f64, f64)), b: &(usize, &(f64, f64))| a.1 .1.total_cmp(&b.1 .1);
        let low = chunk.iter().enumerate().min_by(by_y).map_or(0, |(i, _)| i);
        let high = chunk.iter().enumerate().max_by(by_y).map_or(0, |(i, _)| i);
        push(chunk[low.min(high)]);
        push(chunk[low.max(high)]);
    }
    push(finite[finite.len() - 1]);
    out
}

/// Escapes text for SVG element content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 forbids most control characters even when escaped.
            c if c.is_control() && !matches!(c, '\t' | '\n' | '\r') => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks that start and end tags balance and returns the element names seen.
    fn balanced_elements(svg: &str) -> Vec<String> {
        let mut stack: Vec<String> = Vec::new();
        let mut seen = Vec::new();
        let mut rest = svg;
        while let Some(open) = rest.find('<') {
            let close = rest[open..].find('>').expect("unterminated tag") + open;
            let tag = &rest[open + 1..close];
            rest = &rest[close + 1..];
            if tag.starts_with('?') || tag.starts_with('!') {
                continue;
            }
            let name: String = tag
                .trim_start_matches('/')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            assert!(!name.is_empty(), "empty tag name in <{tag}>");
            if tag.starts_with('/') {
                assert_eq!(
                    stack.pop().as_deref(),
                    Some(name.as_str()),
                    "mismatched </{name}>"
                );
            } else if !tag.ends_with('/') {
                stack.push(name.clone());
            }
            seen.push(name);
        }
        assert!(stack.is_empty(), "unclosed tags: {stack:?}");
        assert!(!rest.contains('>'), "stray '>' after the last tag");
        seen
    }

    /// Every numeric attribute parses as a finite number.
    fn assert_finite_coordinates(svg: &str) {
        let attrs = [
            "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "width", "height", "points",
        ];
        for attr in attrs {
            let needle = format!(" {attr}=\"");
            for (at, _) in svg.match_indices(&needle) {
                let value = &svg[at + needle.len()..];
                let value = &value[..value.find('"').expect("closed attribute")];
                for number in value.split([' ', ',']).filter(|n| !n.is_empty()) {
                    let parsed: f64 = number.parse().unwrap_or(f64::NAN);
                    assert!(parsed.is_finite(), "{attr}=\"{value}\"");
                }
            }
        }
        assert!(
            !svg.contains("NaN") && !svg.contains("inf"),
            "non-finite text"
        );
    }

    fn series(label: &str, points: Vec<(f64, f64)>) -> Series {
        Series {
            label: label.into(),
            points,
        }
    }

    fn polylines(svg: &str) -> Vec<Vec<(f64, f64)>> {
        svg.split("points=\"")
            .skip(1)
            .map(|rest| {
                rest[..rest.find('"').expect("closed points")]
                    .split(' ')
                    .map(|pair| {
                        let (x, y) = pair.split_once(',').expect("x,y pair");
                        (x.parse().expect("x"), y.parse().expect("y"))
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn renders_balanced_svg_with_every_label_escaped() {
        let week: Vec<(f64, f64)> = (0..=168)
            .map(|h| (h as f64 * 3600.0, (h % 24) as f64))
            .collect();
        let panels = [
            Panel {
                title: "GPU utilisation <spur & baseline>".into(),
                y_label: "fraction \"busy\"".into(),
                y_max: Some(1.0),
                series: vec![
                    series("spur", week.clone()),
                    series("baseline's", week.clone()),
                ],
            },
            Panel {
                title: "queue".into(),
                y_label: "pending jobs".into(),
                y_max: None,
                series: vec![series("baseline's", week)],
            },
        ];
        let svg = render_svg("B1 & B2 < 3", &panels);
        let elements = balanced_elements(&svg);
        assert_eq!(elements.first().map(String::as_str), Some("svg"));
        assert_eq!(elements.iter().filter(|e| *e == "polyline").count(), 3);
        for text in [
            "B1 &amp; B2 &lt; 3",
            "GPU utilisation &lt;spur &amp; baseline&gt;",
            "fraction &quot;busy&quot;",
            "baseline&apos;s",
            ">spur<",
            "queue",
            "pending jobs",
            "time (days)",
        ] {
            assert!(svg.contains(text), "missing {text}");
        }
        assert_finite_coordinates(&svg);
        // The same label keeps its colour across panels; different labels differ.
        let strokes: Vec<&str> = svg
            .match_indices("<polyline fill=\"none\" stroke=\"")
            .map(|(at, m)| &svg[at + m.len()..at + m.len() + 7])
            .collect();
        assert_eq!(strokes.len(), 3);
        assert_ne!(strokes[0], strokes[1]);
        assert_eq!(strokes[1], strokes[2]);
    }

    #[test]
    fn empty_single_and_non_finite_series_give_finite_coordinates() {
        let cases = [
            vec![],
            vec![series("empty", vec![])],
            vec![series("one", vec![(5.0, 3.0)])],
            vec![series("flat", vec![(0.0, 0.0), (0.0, 0.0)])],
            vec![series(
                "odd",
                vec![(f64::NAN, 1.0), (1.0, f64::INFINITY), (2.0, -4.0)],
            )],
        ];
        for series in cases {
            let labels: Vec<String> = series.iter().map(|s| s.label.clone()).collect();
            let panel = Panel {
                title: "t".into(),
                y_label: "y".into(),
                y_max: Some(f64::NAN),
                series,
            };
            for panels in [vec![], vec![panel]] {
                let svg = render_svg("edge", &panels);
                balanced_elements(&svg);
                assert_finite_coordinates(&svg);
                if !panels.is_empty() {
                    assert!(labels.iter().all(|l| svg.contains(l.as_str())));
                }
            }
        }
        let svg = render_svg(
            "dot",
            &[Panel {
                series: vec![series("one", vec![(5.0, 3.0)])],
                ..Panel::default()
            }],
        );
        assert!(svg.contains("<circle"));
        assert!(svg.contains("time (hours)"));
    }

    #[test]
    fn long_series_are_downsampled_and_keep_their_spikes() {
        let mut points: Vec<(f64, f64)> = (0..100_000).map(|i| (i as f64, 1.0)).collect();
        points[54_321].1 = 50.0;
        points[77_777].1 = -20.0;
        let kept = downsample(&points, MAX_POINTS_PER_SERIES);
        assert!(kept.len() <= MAX_POINTS_PER_SERIES, "{}", kept.len());
        assert!(kept.contains(&(54_321.0, 50.0)) && kept.contains(&(77_777.0, -20.0)));
        assert_eq!((kept[0], kept[kept.len() - 1]), (points[0], points[99_999]));
        assert!(
            kept.windows(2).all(|w| w[0].0 < w[1].0),
            "time order is kept"
        );

        let panel = Panel {
            title: "spiky".into(),
            y_label: "v".into(),
            y_max: Some(50.0),
            series: vec![series("s", points)],
        };
        let svg = render_svg("big", &[panel]);
        let lines = polylines(&svg);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].len() <= MAX_POINTS_PER_SERIES);
        let top = lines[0].iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let first_plot_top = TITLE_HEIGHT + PANEL_TITLE_HEIGHT;
        assert!(
            (top - first_plot_top).abs() < 1.0,
            "the spike reaches the top: {top}"
        );
    }

    #[test]
    fn axes_get_four_to_six_ticks() {
        for span in [
            0.3, 1.0, 1.5, 3.0, 7.0, 9.5, 13.0, 16.0, 31.0, 47.0, 99.0, 364.0, 2500.0, 7e6,
        ] {
            for extend in [false, true] {
                let axis = Axis::new(0.0, span, extend);
                let count = axis.ticks.len();
                assert!(
                    (4..=6).contains(&count),
                    "span {span} extend {extend}: {:?}",
                    axis.ticks
                );
                assert!(axis.lo <= 0.0 && axis.hi >= span);
            }
        }
        let axis = Axis::new(0.0, 2.5e6, true);
        assert_eq!(axis.label(2e6), "2.0M");
        assert_eq!(Axis::new(0.0, 25_000.0, true).label(10_000.0), "10k");
        assert_eq!(Axis::new(0.0, 1.0, false).label(0.2), "0.2");
        assert_eq!(axis.label(0.0), "0");
        let (_, unit) = time_axis(&[Panel {
            series: vec![series("d", vec![(0.0, 0.0), (2.5 * 86_400.0, 1.0)])],
            ..Panel::default()
        }]);
        assert_eq!(unit, DAYS);
    }
}
