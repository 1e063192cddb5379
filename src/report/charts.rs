//! The charts, drawn by plotters as SVG text to inline in the page: the
//! thesis' Figure 2 (successful requests per second against server cores,
//! one line per implementation, the range over repeats as a bar) and
//! Figure 3 (p50 dashed and p99 solid latency against cores, on a log
//! scale since the two differ by orders of magnitude). Core counts sit at
//! equal steps, as the thesis' doubling sweep reads best.
//!
//! Up to [`MAX_LINES`] implementations share one chart. More become small
//! multiples: one small chart per concurrency model, all on the same axes,
//! each with the other models' lines in faint grey behind its own, so that
//! twenty lines stay readable and still comparable. Styles and the legend
//! beside the plot come from `palette`.

use super::model::{Cell, Group, Model};
use super::palette::{self, Entry, FAINT, FONT, Fallible, Style};
use super::spread::Summary;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{SegmentValue, SegmentedCoord, ValueFormatter};
use plotters::coord::types::RangedCoordu32;
use plotters::prelude::*;

/// More implementations than this in one chart and it becomes small multiples.
pub const MAX_LINES: usize = 8;
/// One chart holding every implementation (two fit side by side on the page).
const FULL: (u32, u32) = (580, 340);
/// One model's chart among small multiples (three fit side by side).
pub const SMALL: (u32, u32) = (380, 260);

/// One implementation's line: (index of core count, summary).
type Series = Vec<(u32, Summary)>;

struct Line {
    name: String,
    label: String,
    style: Style,
    points: Series,
}

/// One chart's worth of lines: its own, and the others drawn faint behind them.
struct Panel {
    caption: String,
    size: (u32, u32),
    font: u32,
    lines: Vec<Line>,
    behind: Vec<Series>,
}

fn lines(model: &Model, g: &Group, pick: impl Fn(&Cell) -> Option<Summary>) -> Vec<(String, Series)> {
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

/// One panel with every line, or one per concurrency model when there are too many.
fn panels(model: &Model, all: &[(String, Series)], caption: &str) -> Vec<Panel> {
    let line = |(name, pts): &(String, Series)| Line { name: name.clone(), label: model.label(name), style: model.palette.style(name), points: pts.clone() };
    if all.len() <= MAX_LINES {
        return vec![Panel { caption: caption.to_string(), size: FULL, font: 15, lines: all.iter().map(line).collect(), behind: vec![] }];
    }
    let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
    model
        .palette
        .by_model(&names)
        .into_iter()
        .map(|(which, members)| Panel {
            caption: format!("{which}: {caption}"),
            size: SMALL,
            font: 14,
            lines: members.iter().map(|&i| line(&all[i])).collect(),
            behind: (0..all.len()).filter(|i| !members.contains(i)).map(|i| all[i].1.clone()).collect(),
        })
        .collect()
}

fn entries(p: &Panel, extra: Vec<Entry>) -> Vec<Entry> {
    let mut out: Vec<Entry> = p.lines.iter().map(|l| Entry::series(l.label.clone(), l.style)).collect();
    out.extend(extra);
    if !p.behind.is_empty() {
        out.push(Entry::key("other models", FAINT, false));
    }
    out
}

/// Figure 2: successful requests per second against server cores.
pub fn throughput(model: &Model, g: &Group) -> Vec<String> {
    let all = lines(model, g, |c| c.throughput);
    let top = all.iter().flat_map(|(_, s)| s.iter().map(|(_, v)| v.max)).fold(0.0, f64::max).max(1.0) * 1.08;
    let caption = if all.len() > MAX_LINES { "requests/s".to_string() } else { format!("{}: successful requests/s", g.title()) };
    panels(model, &all, &caption)
        .iter()
        .map(|p| {
            palette::framed(p.size, &p.caption, p.font, &entries(p, vec![]), |area| {
                let mut chart = builder(area, p.font).build_cartesian_2d(x_range(g).into_segmented(), 0f64..top)?;
                mesh(&mut chart, g, "requests/s", p.font)?;
                let at = |(i, _): &(u32, Summary), v: f64| (SegmentValue::CenterOf(*i), v);
                for pts in &p.behind {
                    chart.draw_series(LineSeries::new(pts.iter().map(|q| at(q, q.1.median)), FAINT.stroke_width(1)))?;
                }
                for l in &p.lines {
                    let c = l.style.colour;
                    chart.draw_series(LineSeries::new(l.points.iter().map(|q| at(q, q.1.median)), c.stroke_width(2)))?;
                    chart.draw_series(l.points.iter().filter(|q| q.1.n > 1).map(|q| PathElement::new(vec![at(q, q.1.min), at(q, q.1.max)], c.stroke_width(1))))?;
                    palette::markers(&mut chart, l.style, l.points.iter().map(|q| at(q, q.1.median)).collect(), 4)?;
                }
                Ok(chart.plotting_area().get_pixel_range())
            })
        })
        .collect()
}

/// Figure 3: p50 (dashed) and p99 (solid) latency against server cores.
pub fn latency(model: &Model, g: &Group) -> Vec<String> {
    let p50 = lines(model, g, |c| c.p50_ms);
    let p99 = lines(model, g, |c| c.p99_ms);
    let all = || p50.iter().chain(&p99).flat_map(|(_, s)| s.iter().map(|(_, v)| v.median.max(0.001)));
    let lo = all().fold(f64::INFINITY, f64::min).min(1.0) / 1.5;
    let hi = all().fold(0.0, f64::max).max(lo * 10.0) * 1.5;
    let caption = if p99.len() > MAX_LINES { "latency p50 (dashed), p99".to_string() } else { format!("{}: latency p50 (dashed) and p99 (solid)", g.title()) };
    let p50_of = |name: &str| p50.iter().find(|(n, _)| n == name).map(|(_, s)| s.clone()).unwrap_or_default();
    panels(model, &p99, &caption)
        .iter()
        .map(|p| {
            let keys = vec![Entry::key_grey("p99", false), Entry::key_grey("p50", true)];
            palette::framed(p.size, &p.caption, p.font, &entries(p, keys), |area| {
                let mut chart = builder(area, p.font).build_cartesian_2d(x_range(g).into_segmented(), (lo..hi).log_scale())?;
                mesh(&mut chart, g, "ms (log scale)", p.font)?;
                let at = |(i, s): &(u32, Summary)| (SegmentValue::CenterOf(*i), s.median.max(lo));
                for pts in &p.behind {
                    chart.draw_series(LineSeries::new(pts.iter().map(at), FAINT.stroke_width(1)))?;
                }
                for l in &p.lines {
                    let c = l.style.colour;
                    chart.draw_series(LineSeries::new(l.points.iter().map(at), c.stroke_width(2)))?;
                    palette::markers(&mut chart, l.style, l.points.iter().map(at).collect(), 4)?;
                    let median = p50_of(&l.name);
                    chart.draw_series(DashedLineSeries::new(median.iter().map(at), 6, 4, c.stroke_width(2)))?;
                    palette::markers(&mut chart, l.style, median.iter().map(at).collect(), 3)?;
                }
                Ok(chart.plotting_area().get_pixel_range())
            })
        })
        .collect()
}

fn builder<'a, 'b>(area: &'a DrawingArea<SVGBackend<'b>, Shift>, font: u32) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut b = ChartBuilder::on(area);
    b.margin(8).margin_right(14).x_label_area_size(font * 5 / 2).y_label_area_size(font * 4);
    b
}

/// One segment per core count (plotters' integer ranges include their end).
fn x_range(g: &Group) -> std::ops::Range<u32> {
    0..(g.cores.len() as u32).saturating_sub(1)
}

type Chart<'a, 'b, Y> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<SegmentedCoord<RangedCoordu32>, Y>>;

fn mesh<Y: Ranged<ValueType = f64> + ValueFormatter<f64>>(chart: &mut Chart<'_, '_, Y>, g: &Group, y_desc: &str, font: u32) -> Fallible {
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
        .label_style((FONT, font))
        .axis_desc_style((FONT, font + 1))
        .draw()?;
    Ok(())
}

/// Axis numbers: `12k`, `1.5M`, `250`, `0.5`.
pub fn short(v: f64) -> String {
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
