//! The micro-benchmarks' charts, drawn by plotters as inline SVG like the
//! HTTP charts: one line per implementation over a logarithmic x axis
//! (repetitions, processes, pairs all grow by decades or doublings), with a
//! logarithmic y axis where values span decades (latency, spawn time).
//! Colours, markers and the legend beside the plot are the HTTP charts'
//! (`palette`): an implementation's concurrency model picks its hue. Past
//! `charts::MAX_LINES` implementations, [`by_model`] draws the HTTP charts'
//! small multiples: one small chart per model on the same axes, the other
//! models' lines faint behind.

use super::charts::{MAX_LINES, SMALL};
use super::palette::{self, Entry, FAINT, FONT, Fallible, Palette, Style};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

const SIZE: (u32, u32) = (580, 340);

/// One implementation's line: (x, y) points, x ascending.
#[derive(Clone)]
pub struct Line {
    pub name: String,
    /// An implementation keeps its style in every chart.
    pub style: Style,
    pub points: Vec<(f64, f64)>,
    /// A point drawn large and labelled, e.g. the maximum processes reached.
    pub mark: Option<(f64, f64, String)>,
}

pub struct Spec<'a> {
    pub title: &'a str,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    /// A logarithmic x axis (repetitions, processes, rates); else linear (seconds), negative values kept.
    pub log_x: bool,
    pub log_y: bool,
    pub lines: Vec<Line>,
}

/// Draws `spec`; a chart without points, or one plotters cannot draw, becomes a note.
pub fn draw(spec: &Spec) -> String {
    let own: Vec<&Line> = spec.lines.iter().collect();
    panel(spec, spec.title, SIZE, 15, &own, &[])
}

/// `spec` as one chart, or, with more than [`MAX_LINES`] implementation lines,
/// one small chart per concurrency model (by `palette`), every one on the
/// axes of the whole and with the other models' lines faint behind its own.
/// `shared` lines (not implementations: a bound) are drawn in every chart.
pub fn by_model(spec: &Spec, palette: &Palette, shared: Vec<Line>) -> Vec<String> {
    let lines = spec.lines.iter().cloned().chain(shared).collect();
    let whole = Spec { title: spec.title, x_desc: spec.x_desc, y_desc: spec.y_desc, log_x: spec.log_x, log_y: spec.log_y, lines };
    let count = spec.lines.len();
    if count <= MAX_LINES {
        return vec![draw(&whole)];
    }
    let (implementations, shared) = whole.lines.split_at(count);
    let names: Vec<&str> = implementations.iter().map(|l| l.name.as_str()).collect();
    palette
        .by_model(&names)
        .into_iter()
        .map(|(model, members)| {
            let behind: Vec<&Line> = (0..count).filter(|i| !members.contains(i)).map(|i| &implementations[i]).collect();
            let own: Vec<&Line> = members.iter().map(|&i| &implementations[i]).chain(shared.iter()).collect();
            // A small chart's title fits its width: the model and the measure (the heading above says the rest).
            panel(&whole, &format!("{model}: {}", spec.y_desc), SMALL, 14, &own, &behind)
        })
        .collect()
}

/// One chart of `own` lines over `behind` ones drawn faint, on the axes every line of `spec` needs.
fn panel(spec: &Spec, title: &str, size: (u32, u32), font: u32, own: &[&Line], behind: &[&Line]) -> String {
    let all: Vec<(f64, f64)> = spec.lines.iter().flat_map(|l| l.points.iter().copied().chain(l.mark.iter().map(|m| (m.0, m.1)))).collect();
    let xs: Vec<f64> = all.iter().map(|p| p.0).filter(|v| v.is_finite() && (*v > 0.0 || !spec.log_x)).collect();
    let ys: Vec<f64> = all.iter().map(|p| p.1).filter(|v| v.is_finite() && (*v > 0.0 || !spec.log_y)).collect();
    if xs.is_empty() || ys.is_empty() {
        return format!("<p class=\"note\">{}: no successful result to draw.</p>", super::table::escape(title));
    }
    // A linear axis keeps negative values (seconds before an event), which `max` (from 0) would not.
    let x_lo = if spec.log_x { min(&xs) / 1.5 } else { min(&xs) };
    let x_hi = if spec.log_x { max(&xs) * 1.5 } else { xs.iter().copied().fold(f64::NEG_INFINITY, f64::max).max(x_lo + 1.0) };
    let mut entries: Vec<Entry> = own.iter().map(|l| Entry::series(l.name.clone(), l.style)).collect();
    if !behind.is_empty() {
        entries.push(Entry::key("other models", FAINT, false));
    }
    palette::framed(size, title, font, &entries, |area| {
        let (lo, hi) = (min(&ys) / 2.0, max(&ys) * 4.0);
        match (spec.log_x, spec.log_y) {
            (true, true) => plot(area, spec, font, own, behind, (x_lo..x_hi).log_scale(), (lo..hi).log_scale()),
            (true, false) => plot(area, spec, font, own, behind, (x_lo..x_hi).log_scale(), 0.0..max(&ys) * 1.1),
            (false, true) => plot(area, spec, font, own, behind, x_lo..x_hi, (lo..hi).log_scale()),
            (false, false) => plot(area, spec, font, own, behind, x_lo..x_hi, 0.0..max(&ys) * 1.1),
        }
    })
}

fn plot<X, Y>(area: &DrawingArea<SVGBackend, Shift>, spec: &Spec, font: u32, own: &[&Line], behind: &[&Line], x: X, y: Y) -> Fallible<palette::PlotRect>
where
    X: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    Y: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    X::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
    Y::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(area).margin(8).margin_right(14).x_label_area_size(36).y_label_area_size(56).build_cartesian_2d(x, y)?;
    chart
        .configure_mesh()
        .light_line_style(WHITE)
        .x_desc(spec.x_desc)
        .y_desc(spec.y_desc)
        .x_label_formatter(&|v| short(*v))
        .y_label_formatter(&|v| short(*v))
        .label_style((FONT, font - 3))
        .axis_desc_style((FONT, font - 2))
        .draw()?;
    for line in behind {
        chart.draw_series(LineSeries::new(line.points.iter().copied(), FAINT.stroke_width(1)))?;
    }
    for line in own {
        let c = line.style.colour;
        chart.draw_series(LineSeries::new(line.points.iter().copied(), c.stroke_width(2)))?;
        palette::markers(&mut chart, line.style, line.points.clone(), 4)?;
        if let Some((x, y, label)) = &line.mark {
            chart.draw_series(std::iter::once(Circle::new((*x, *y), 8, c.stroke_width(2))))?;
            let style = (FONT, 11).into_font().color(&c).pos(Pos::new(HPos::Right, VPos::Bottom));
            chart.draw_series(std::iter::once(Text::new(label.clone(), (*x, *y), style)))?;
        }
    }
    Ok(chart.plotting_area().get_pixel_range())
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(0.0, f64::max)
}

/// Axis numbers: `1k`, `100k`, `1M`, `2.5`, `0.01`.
pub fn short(v: f64) -> String {
    let a = v.abs();
    let trim = |x: f64| {
        let s = format!("{x:.1}");
        s.strip_suffix(".0").map_or(s.clone(), str::to_string)
    };
    if a >= 1e9 {
        format!("{}G", trim(v / 1e9))
    } else if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e3 {
        format!("{}k", trim(v / 1e3))
    } else if a >= 1.0 || a == 0.0 {
        trim(v)
    } else {
        format!("{v:.3}").trim_end_matches('0').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(lines: Vec<Line>, log_y: bool) -> String {
        draw(&Spec { title: "t", x_desc: "x", y_desc: "y", log_x: true, log_y, lines })
    }

    #[test]
    fn lines_and_marks_become_svg() {
        let style = Style { colour: RGBColor(1, 2, 3), marker: palette::Marker::Triangle };
        let line = Line { name: "go".into(), style, points: vec![(1e3, 900.0), (1e5, 2500.0)], mark: Some((1e6, 3e4, "max 1M".into())) };
        let svg = spec(vec![line], true);
        assert!(svg.starts_with("<svg") && svg.contains("go") && svg.contains("max 1M"), "{svg}");
    }

    #[test]
    fn an_empty_chart_is_a_note() {
        assert!(spec(vec![], false).contains("no successful result"));
    }

    #[test]
    fn axis_numbers_are_short() {
        assert_eq!((short(1000.0), short(100_000.0), short(1e6), short(2.5), short(0.01)), ("1k".into(), "100k".into(), "1M".into(), "2.5".into(), "0.01".into()));
    }
}
