//! The charts, drawn by plotters as SVG text to inline in the page: the
//! thesis' Figure 2 (successful requests per second against server cores,
//! one line per implementation, the range over repeats as a bar) and
//! Figure 3 (p50 dashed and p99 solid latency against cores, on a log
//! scale since the two differ by orders of magnitude). Core counts sit at
//! equal steps, as the thesis' doubling sweep reads best.

use super::model::{Group, Model};
use super::spread::Summary;
use plotters::coord::ranged1d::{SegmentValue, SegmentedCoord, ValueFormatter};
use plotters::coord::types::RangedCoordu32;
use plotters::prelude::*;

/// Series colours (Tableau 10): an implementation keeps its colour in every chart.
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xba, 0xb0, 0xac),
];

const SIZE: (u32, u32) = (560, 360);
const FONT: &str = "sans-serif";

pub fn colour(model: &Model, name: &str) -> RGBColor {
    PALETTE[model.series_index(name) % PALETTE.len()]
}

/// One implementation's line: (index of core count, summary).
type Series = Vec<(u32, Summary)>;

fn series(model: &Model, g: &Group, pick: impl Fn(&super::model::Cell) -> Option<Summary>) -> Vec<(String, Series)> {
    model
        .measured
        .iter()
        .map(|name| {
            let pts = g.cores.iter().enumerate().filter_map(|(i, &k)| g.cell(name, k).and_then(&pick).map(|s| (i as u32, s))).collect();
            (name.clone(), pts)
        })
        .filter(|(_, pts): &(String, Series)| !pts.is_empty())
        .collect()
}

/// Figure 2: successful requests per second against server cores.
pub fn throughput(model: &Model, g: &Group) -> String {
    let lines = series(model, g, |c| c.throughput);
    // Headroom above the highest point keeps the legend clear of the lines.
    let top = lines.iter().flat_map(|(_, s)| s.iter().map(|(_, v)| v.max)).fold(0.0, f64::max).max(1.0) * 1.3;
    draw(|area| {
        let mut chart = ChartBuilder::on(&area)
            .caption(format!("{}: successful requests/s", g.title()), (FONT, 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d(x_range(g).into_segmented(), 0f64..top)?;
        mesh(&mut chart, g, "requests/s")?;
        for (name, pts) in &lines {
            let c = colour(model, name);
            let at = |(i, _): &(u32, Summary), v: f64| (SegmentValue::CenterOf(*i), v);
            chart
                .draw_series(LineSeries::new(pts.iter().map(|p| at(p, p.1.median)), c.stroke_width(2)))?
                .label(model.label(name))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2)));
            chart.draw_series(pts.iter().map(|p| Circle::new(at(p, p.1.median), 4, c.filled())))?;
            chart.draw_series(pts.iter().filter(|p| p.1.n > 1).map(|p| PathElement::new(vec![at(p, p.1.min), at(p, p.1.max)], c.stroke_width(1))))?;
        }
        legend(&mut chart)
    })
}

/// Figure 3: p50 (dashed) and p99 (solid) latency against server cores.
pub fn latency(model: &Model, g: &Group) -> String {
    let p50 = series(model, g, |c| c.p50_ms);
    let p99 = series(model, g, |c| c.p99_ms);
    let all = || p50.iter().chain(&p99).flat_map(|(_, s)| s.iter().map(|(_, v)| v.median.max(0.001)));
    let lo = all().fold(f64::INFINITY, f64::min).min(1.0) / 1.5;
    let max = all().fold(0.0, f64::max).max(lo * 10.0);
    let hi = max * ((max / lo).ln() * 0.35).exp();
    draw(|area| {
        let mut chart = ChartBuilder::on(&area)
            .caption(format!("{}: latency p50 (dashed) and p99 (solid)", g.title()), (FONT, 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d(x_range(g).into_segmented(), (lo..hi).log_scale())?;
        mesh(&mut chart, g, "milliseconds (log scale)")?;
        let at = |(i, s): &(u32, Summary)| (SegmentValue::CenterOf(*i), s.median.max(lo));
        for (name, pts) in &p99 {
            let c = colour(model, name);
            chart
                .draw_series(LineSeries::new(pts.iter().map(at), c.stroke_width(2)))?
                .label(model.label(name))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2)));
            chart.draw_series(pts.iter().map(|p| Circle::new(at(p), 4, c.filled())))?;
        }
        for (name, pts) in &p50 {
            let c = colour(model, name);
            chart.draw_series(DashedLineSeries::new(pts.iter().map(at), 6, 4, c.stroke_width(2)))?;
            chart.draw_series(pts.iter().map(|p| Circle::new(at(p), 3, c.stroke_width(2))))?;
        }
        legend(&mut chart)
    })
}

/// One segment per core count (plotters' integer ranges include their end).
fn x_range(g: &Group) -> std::ops::Range<u32> {
    0..(g.cores.len() as u32).saturating_sub(1)
}

type Chart<'a, 'b, Y> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<SegmentedCoord<RangedCoordu32>, Y>>;
type Fallible = Result<(), Box<dyn std::error::Error>>;

fn mesh<Y: Ranged<ValueType = f64> + ValueFormatter<f64>>(chart: &mut Chart<'_, '_, Y>, g: &Group, y_desc: &str) -> Fallible {
    let cores = g.cores.clone();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .x_desc("server cores")
        .y_desc(y_desc)
        .x_labels(cores.len() + 1)
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => cores.get(*i as usize).map_or(String::new(), u32::to_string),
            _ => String::new(),
        })
        .y_label_formatter(&|v| short(*v))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .draw()?;
    Ok(())
}

fn legend<'a, 'b: 'a, Y: Ranged<ValueType = f64>>(chart: &mut Chart<'a, 'b, Y>) -> Fallible {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font((FONT, 13))
        .draw()?;
    Ok(())
}

/// Renders into an SVG string; a drawing error becomes a visible note, not a failed report.
fn draw(f: impl FnOnce(DrawingArea<SVGBackend, plotters::coord::Shift>) -> Fallible) -> String {
    let mut svg = String::new();
    let result = {
        let area = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        area.fill(&WHITE).map_err(|e| e.to_string()).and_then(|()| f(area.clone()).map_err(|e| e.to_string())).and_then(|()| area.present().map_err(|e| e.to_string()))
    };
    match result {
        Ok(()) => svg,
        Err(e) => format!("<p class=\"note\">chart not drawn: {}</p>", super::table::escape(&e)),
    }
}

/// Axis numbers: `12k`, `1.5M`, `250`, `0.5`.
fn short(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e4 {
        format!("{}k", trim(v / 1e3))
    } else if a >= 1.0 || a == 0.0 {
        trim(v)
    } else {
        format!("{v:.2}").trim_end_matches('0').to_string()
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_numbers_are_short() {
        assert_eq!((short(12_000.0), short(1_500_000.0), short(250.0), short(0.5), short(0.0)), ("12k".into(), "1.5M".into(), "250".into(), "0.5".into(), "0".into()));
    }
}
