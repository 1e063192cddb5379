//! At a glance's picture of one scenario at one core count: every ranked
//! implementation a row, best first, its figure (`Cell::estimate`) a dot and
//! its 95% interval a line on a log scale of requests per second, coloured
//! by its concurrency model (`palette`), with the ranks the decisions allow
//! beside its name. Rows sit on bands of alternating shade: a band starts
//! where the data order every implementation above wholly above every one
//! below, so that a band holds what the data do not all tell apart.

use super::charts::short;
use super::model::{Cell, Group, Model, cores_text};
use super::palette::{self, Entry, FONT, Fallible, Marker, PlotRect, Style};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// How to read the pictures, said once under them.
pub const KEY: &str = "Each picture ranks the implementations measured at one scenario and core count, best first: \
    the dot is an implementation's figure (successful requests/s, on a log scale), the line its 95% interval, \
    the colour its concurrency model; beside its name, the ranks the decisions allow (2–4: the data cannot order it \
    against its neighbours). A band, shaded or white, ends where the data order everything above it wholly above \
    everything below; ⚠: the load generator was the limit, a lower bound.";

const WIDTH: u32 = 580;
const FONT_SIZE: u32 = 13;
/// Pixels per implementation.
const ROW: u32 = 18;
/// The caption, the margins and the x axis around the rows.
const FRAME: u32 = 90;
/// More labels than this on the axis and only the powers of ten keep one.
const MAX_TICKS: usize = 8;
const BAND: RGBColor = RGBColor(0xe8, 0xec, 0xf2);
const GRID: RGBColor = RGBColor(0xd0, 0xd0, 0xd0);

/// One implementation's row.
struct Row {
    name: String,
    label: String,
    rank: String,
    colour: RGBColor,
    estimate: f64,
    lo: f64,
    hi: f64,
    band: usize,
}

/// The picture of `g` at `cores`; none when nothing there could be ranked.
pub fn ranking(model: &Model, g: &Group, cores: u32) -> Option<String> {
    let rows = rows(model, &g.ranked(cores));
    if rows.is_empty() {
        return None;
    }
    let size = (WIDTH, FRAME + rows.len() as u32 * ROW);
    let caption = format!("{} at {}: successful requests/s", g.title(), cores_text(cores));
    Some(palette::framed_as("chart dots", size, &caption, FONT_SIZE, &key(model, &rows), |area| draw(area, &rows)))
}

fn rows(model: &Model, ranked: &[&Cell]) -> Vec<Row> {
    let bands = bands(&ranked.iter().map(|c| (c.rank.unwrap_or(c.worst), c.worst)).collect::<Vec<_>>());
    ranked
        .iter()
        .zip(bands)
        .filter_map(|(c, band)| {
            let level = c.level?;
            let warn = if c.saturated > 0 { " ⚠" } else { "" };
            Some(Row {
                name: c.implementation.clone(),
                label: format!("{}{warn}", model.label(&c.implementation)),
                rank: c.rank_text(),
                colour: model.palette.style(&c.implementation).colour,
                estimate: c.estimate(),
                lo: level.lo.min(c.estimate()),
                hi: level.hi.max(c.estimate()),
                band,
            })
        })
        .collect()
}

/// Each row's band, rows in rank order given as (best, worst) rank: a new band
/// starts at a row when the rows above can take no rank below it and the rows
/// from it on no rank above, i.e. the data order all above over all below.
fn bands(ranks: &[(usize, usize)]) -> Vec<usize> {
    let mut band = 0;
    let mut worst_above = 0;
    ranks
        .iter()
        .enumerate()
        .map(|(i, &(_, worst))| {
            let best_below = ranks[i..].iter().map(|r| r.0).min().unwrap_or(usize::MAX);
            if i > 0 && worst_above <= i && best_below > i {
                band += 1;
            }
            worst_above = worst_above.max(worst);
            band
        })
        .collect()
}

/// One entry per concurrency model among the rows, in the palette's order.
fn key(model: &Model, rows: &[Row]) -> Vec<Entry> {
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    model
        .palette
        .by_model(&names)
        .into_iter()
        .map(|(which, members)| {
            let first = names[members[0]];
            let colour = model.palette.model(first).map_or(model.palette.style(first).colour, palette::family);
            Entry::series(which, Style { colour, marker: Marker::Circle })
        })
        .collect()
}

/// The x axis: from the round value (1, 2 or 5 × 10ⁿ) below every interval
/// to the one above, so that both ends are labelled.
fn extent(rows: &[Row]) -> (f64, f64) {
    let lo = rows.iter().map(|r| r.lo).fold(f64::INFINITY, f64::min).max(1e-3);
    let hi = rows.iter().map(|r| r.hi).fold(0.0, f64::max).max(lo);
    (round(lo / 1.1, false), round(hi * 1.1, true))
}

/// The nearest of 1, 2, 5 × 10ⁿ below `v`, or above it when `up`.
fn round(v: f64, up: bool) -> f64 {
    let power = 10f64.powf(v.log10().floor());
    let m = v / power;
    let steps = [1.0, 2.0, 5.0, 10.0];
    let pick = if up { steps.iter().find(|&&s| m <= s * (1.0 + 1e-9)) } else { steps.iter().rev().find(|&&s| m >= s * (1.0 - 1e-9)) };
    pick.unwrap_or(&1.0) * power
}

/// The axis's labelled values from `lo` to `hi`: 1, 2 and 5 × 10ⁿ, or the powers of ten alone when those are too many.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let first = lo.log10().floor() as i32;
    let all: Vec<f64> = (first..=hi.log10().ceil() as i32)
        .flat_map(|e| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(e)))
        .filter(|v| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9))
        .collect();
    if all.len() <= MAX_TICKS {
        return all;
    }
    all.into_iter().filter(|v| (v.log10() - v.log10().round()).abs() < 1e-9).collect()
}

/// An axis number: `500`, `2k`, `50k`, `1M`.
fn axis(v: f64) -> String {
    if v >= 1e6 {
        format!("{}M", short(v / 1e6))
    } else if v >= 1e3 {
        format!("{}k", short(v / 1e3))
    } else {
        short(v)
    }
}

/// Characters' width in pixels at `font`, generously (plotters' SVG text is `font / 1.24` px high).
fn text_width(chars: usize, font: u32) -> u32 {
    chars as u32 * font / 2
}

fn draw(area: &DrawingArea<SVGBackend, Shift>, rows: &[Row]) -> Fallible<PlotRect> {
    let n = rows.len() as f64;
    let rank_width = text_width(rows.iter().map(|r| r.rank.chars().count()).max().unwrap_or(1), FONT_SIZE) + 10;
    let name_width = text_width(rows.iter().map(|r| r.label.chars().count()).max().unwrap_or(1), FONT_SIZE) + 8;
    let (lo, hi) = extent(rows);
    let mut chart = ChartBuilder::on(area)
        .margin(8)
        .margin_right(14)
        .x_label_area_size(FONT_SIZE * 3)
        .y_label_area_size(rank_width + name_width)
        .build_cartesian_2d((lo..hi).log_scale(), 0f64..n)?;
    // Row i (0 the best) spans y from n-i-1 to n-i.
    let y = |i: usize| n - i as f64 - 0.5;
    chart.draw_series(rows.iter().enumerate().filter(|(_, r)| r.band % 2 == 1).map(|(i, _)| Rectangle::new([(lo, y(i) - 0.5), (hi, y(i) + 0.5)], BAND.filled())))?;
    let ticks = ticks(lo, hi);
    chart.draw_series(ticks.iter().map(|&v| PathElement::new(vec![(v, 0.0), (v, n)], GRID.stroke_width(1))))?;
    chart
        .configure_mesh()
        .disable_mesh()
        .y_labels(0)
        // The axis's numbers are drawn below with the grid (`ticks`).
        .x_labels(0)
        .x_label_formatter(&|_| String::new())
        .set_all_tick_mark_size(0)
        .x_desc("successful requests/s (log scale)")
        .axis_desc_style((FONT, FONT_SIZE + 1))
        .draw()?;
    for (i, r) in rows.iter().enumerate() {
        chart.draw_series(std::iter::once(PathElement::new(vec![(r.lo, y(i)), (r.hi, y(i))], r.colour.stroke_width(2))))?;
        chart.draw_series(std::iter::once(Circle::new((r.estimate, y(i)), 4, r.colour.filled())))?;
    }
    let base = area.get_base_pixel();
    let at = |x: f64, y: f64| {
        let (px, py) = chart.backend_coord(&(x, y));
        (px - base.0, py - base.1)
    };
    let text = |h: HPos, v: VPos| (FONT, FONT_SIZE).into_font().color(&BLACK).pos(Pos::new(h, v));
    for (i, r) in rows.iter().enumerate() {
        let row = at(lo, y(i)).1;
        area.draw(&Text::new(r.rank.clone(), (8, row), text(HPos::Left, VPos::Center)))?;
        area.draw(&Text::new(r.label.clone(), (8 + rank_width as i32, row), text(HPos::Left, VPos::Center)))?;
    }
    for &v in &ticks {
        let (x, bottom) = at(v, 0.0);
        area.draw(&Text::new(axis(v), (x, bottom + 5), text(HPos::Center, VPos::Top)))?;
    }
    Ok(chart.plotting_area().get_pixel_range())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::noise::NoiseFloor;
    use crate::store::{PointRecord, RunData, RunInfo};

    #[test]
    fn a_band_ends_where_the_data_order_all_above_over_all_below() {
        // 1, three that could each be 2nd to 4th, 5, then two tied for 6th and 7th.
        assert_eq!(bands(&[(1, 1), (2, 4), (2, 4), (2, 4), (5, 5), (6, 7), (6, 7)]), [0, 1, 1, 1, 2, 3, 3]);
        // A chain of overlaps is one band: 1–2, 1–3, 2–3.
        assert_eq!(bands(&[(1, 2), (1, 3), (2, 3)]), [0, 0, 0]);
    }

    #[test]
    fn the_axis_runs_between_round_values_and_labels_them() {
        let row = |lo: f64, hi: f64| Row { name: String::new(), label: String::new(), rank: String::new(), colour: BLACK, estimate: lo, lo, hi, band: 0 };
        assert_eq!(extent(&[row(1_800.0, 2_000.0), row(50_000.0, 56_000.0)]), (1_000.0, 100_000.0));
        assert_eq!(extent(&[row(465.0, 470.0), row(470.0, 474.0)]), (200.0, 1_000.0));
        assert_eq!(ticks(1_000.0, 100_000.0), [1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5]);
        assert_eq!(ticks(10.0, 1e6), [10.0, 100.0, 1e3, 1e4, 1e5, 1e6], "five decades: the powers of ten alone");
        assert_eq!((axis(500.0), axis(2_000.0), axis(50_000.0), axis(1e6)), ("500".into(), "2k".into(), "50k".into(), "1M".into()));
    }

    #[test]
    fn one_row_per_ranked_implementation_best_first() {
        let run = RunInfo::starting("quick".into(), "k".into(), serde_json::json!({}), Default::default(), vec![]);
        let point = |name: &str, repeat: u32, v: u64| PointRecord {
            key: format!("{name}/hello/cores=1/c=50/r{repeat}"),
            implementation: name.into(),
            scenario: "hello".into(),
            cores: 1,
            connections: 50,
            level: "c=50".into(),
            repeat,
            duration_s: 1.0,
            successes: v,
            requests: v,
            ..PointRecord::default()
        };
        let mut points: Vec<PointRecord> = [("slow", 2_000), ("fast", 40_000), ("middle", 9_000)].iter().flat_map(|&(n, v)| (1..=3).map(move |r| point(n, r, v + u64::from(r) * 10))).collect();
        let mut failed = point("broken", 1, 0);
        failed.error = Some("the server exited".into());
        points.push(failed);
        let model = Model::new(RunData { run, implementations: vec![], points }, NoiseFloor::default_floor());
        let svg = ranking(&model, &model.groups[0], 1).expect("three ranked implementations");
        assert!(svg.starts_with("<svg class=\"chart dots\" data-plot-area="), "{}", &svg[..80]);
        assert!(svg.contains("hello (c=50) at 1 core: successful requests/s"));
        let texts: Vec<&str> = svg.split("<text").skip(1).filter_map(|t| Some(t.split_once('>')?.1.split("</text>").next()?.trim())).collect();
        let row_of = |name: &str| texts.iter().position(|t| *t == name);
        assert!(row_of("fast") < row_of("middle") && row_of("middle") < row_of("slow") && row_of("fast").is_some(), "best first: {texts:?}");
        assert_eq!(row_of("broken"), None, "an implementation that could not be measured has no row");
        assert!(ranking(&model, &model.groups[0], 2).is_none(), "nothing measured at 2 cores");
    }
}
