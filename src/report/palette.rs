//! How a series looks in every chart of the report, HTTP and micro alike,
//! and where its key goes. Colours follow the manifest's concurrency model:
//! each model is one family of hues (event loops blue, green threads green,
//! actors purple, OS threads orange, processes red, async tasks teal), so
//! that twenty lines read as six groups first; within a model the
//! implementations differ by shade and by marker shape. An implementation
//! keeps its style in every chart. The legend is drawn beside the plot area,
//! never over the data, and every chart's SVG says where its plot area is
//! (`data-plot-area="x0,y0,x1,y1"`) so that a test can check that.

use crate::impls::Model;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The shape drawn at each point of a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Triangle,
    Square,
    Cross,
}

const MARKERS: [Marker; 4] = [Marker::Circle, Marker::Triangle, Marker::Square, Marker::Cross];

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    pub colour: RGBColor,
    pub marker: Marker,
}

/// The other models' lines behind a small multiple.
pub const FAINT: RGBColor = RGBColor(0xd4, 0xd4, 0xd4);
/// Key lines (p99, p50) and a series the palette was not given.
const KEY_GREY: RGBColor = RGBColor(0x55, 0x55, 0x55);

/// (saturation, lightness) of the shades of one model's hue, in the order
/// handed out: consecutive implementations differ in lightness the most.
/// Five shades and four markers give twenty distinct (shade, marker) pairs.
const SHADES: [(f64, f64); 5] = [(0.80, 0.34), (0.70, 0.55), (0.90, 0.22), (0.75, 0.45), (0.65, 0.66)];

/// The hue (degrees) of a model's family.
fn hue(model: Model) -> f64 {
    match model {
        Model::EventLoop => 214.0,
        Model::GreenThreads => 122.0,
        Model::Actors => 282.0,
        Model::OsThreads => 30.0,
        Model::Processes => 352.0,
        Model::AsyncTasks => 174.0,
    }
}

/// The colour that stands for a whole model in a key: its family's first shade.
pub fn family(model: Model) -> RGBColor {
    let (s, l) = SHADES[0];
    hsl(hue(model), s, l)
}

/// Models in the order charts and legends take them.
pub const MODELS: [Model; 6] = [Model::EventLoop, Model::GreenThreads, Model::Actors, Model::OsThreads, Model::Processes, Model::AsyncTasks];

/// Every implementation's style, fixed for one report.
#[derive(Debug, Clone, Default)]
pub struct Palette {
    styles: Vec<(String, Model, Style)>,
}

impl Palette {
    /// `series`: the name and model of every implementation that may be drawn.
    pub fn new<'a>(series: impl IntoIterator<Item = (&'a str, Model)>) -> Palette {
        let mut all: Vec<(String, Model)> = series.into_iter().map(|(n, m)| (n.to_string(), m)).collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all.dedup_by(|a, b| a.0 == b.0);
        let styles = all
            .iter()
            .map(|(name, model)| {
                let i = all.iter().filter(|(_, m)| m == model).position(|(n, _)| n == name).unwrap_or(0);
                let (s, l) = SHADES[i % SHADES.len()];
                (name.clone(), *model, Style { colour: hsl(hue(*model), s, l), marker: MARKERS[i % MARKERS.len()] })
            })
            .collect();
        Palette { styles }
    }

    /// The style of `name`; grey circles for a name the palette was not given.
    pub fn style(&self, name: &str) -> Style {
        self.styles.iter().find(|s| s.0 == name).map_or(Style { colour: KEY_GREY, marker: Marker::Circle }, |s| s.2)
    }

    /// The concurrency model of `name`, when known.
    pub fn model(&self, name: &str) -> Option<Model> {
        self.styles.iter().find(|s| s.0 == name).map(|s| s.1)
    }

    /// `names` split by concurrency model, as small multiples take them: one group per
    /// model in [`MODELS`] order, then "model unknown"; each the model's label and the
    /// indices into `names` of its members. No group is empty.
    pub fn by_model(&self, names: &[&str]) -> Vec<(&'static str, Vec<usize>)> {
        let members = |model: Option<Model>| (0..names.len()).filter(|&i| self.model(names[i]) == model).collect::<Vec<usize>>();
        MODELS
            .iter()
            .map(|&m| (m.as_str(), members(Some(m))))
            .chain(std::iter::once(("model unknown", members(None))))
            .filter(|(_, group)| !group.is_empty())
            .collect()
    }
}

/// HSL to RGB (hue in degrees, saturation and lightness in 0..1).
fn hsl(h: f64, s: f64, l: f64) -> RGBColor {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = (h.rem_euclid(360.0)) / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    RGBColor(byte(r), byte(g), byte(b))
}

/// Draws the marker of `style` at each of `points`, `size` pixels from its
/// centre to its edge.
pub fn markers<X: Ranged, Y: Ranged>(chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, Y>>, style: Style, points: Vec<(X::ValueType, Y::ValueType)>, size: i32) -> Fallible
where
    X::ValueType: Clone + 'static,
    Y::ValueType: Clone + 'static,
{
    let fill = style.colour.filled();
    let at = points.into_iter();
    match style.marker {
        Marker::Circle => chart.draw_series(at.map(|p| Circle::new(p, size, fill))).map(|_| ()),
        // A triangle of the same radius looks smaller than a circle.
        Marker::Triangle => chart.draw_series(at.map(|p| TriangleMarker::new(p, size + 2, fill))).map(|_| ()),
        Marker::Square => chart.draw_series(at.map(|p| EmptyElement::at(p) + Rectangle::new([(1 - size, 1 - size), (size - 1, size - 1)], fill))).map(|_| ()),
        Marker::Cross => chart.draw_series(at.map(|p| Cross::new(p, size, style.colour.stroke_width(2)))).map(|_| ()),
    }?;
    Ok(())
}

/// The marker of `style` at pixel `at` of `area` (a legend's sample).
fn marker_at(area: &DrawingArea<SVGBackend, Shift>, style: Style, at: (i32, i32), size: i32) -> Fallible {
    let fill = style.colour.filled();
    match style.marker {
        Marker::Circle => area.draw(&Circle::new(at, size, fill)),
        Marker::Triangle => area.draw(&TriangleMarker::new(at, size + 2, fill)),
        Marker::Square => area.draw(&Rectangle::new([(at.0 + 1 - size, at.1 + 1 - size), (at.0 + size - 1, at.1 + size - 1)], fill)),
        Marker::Cross => area.draw(&Cross::new(at, size, style.colour.stroke_width(2))),
    }?;
    Ok(())
}

/// How a legend entry draws its sample line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stroke {
    /// A series: its line and its marker.
    Solid,
    /// No marker: a key for a kind of line (p99 solid, p50 dashed, other models faint).
    Key,
    KeyDashed,
}

pub struct Entry {
    pub label: String,
    pub style: Style,
    pub stroke: Stroke,
}

impl Entry {
    pub fn series(label: impl Into<String>, style: Style) -> Entry {
        Entry { label: label.into(), style, stroke: Stroke::Solid }
    }

    /// A grey key line explaining a kind of line rather than a series.
    pub fn key(label: impl Into<String>, colour: RGBColor, dashed: bool) -> Entry {
        Entry { label: label.into(), style: Style { colour, marker: Marker::Circle }, stroke: if dashed { Stroke::KeyDashed } else { Stroke::Key } }
    }

    pub fn key_grey(label: impl Into<String>, dashed: bool) -> Entry {
        Entry::key(label, KEY_GREY, dashed)
    }
}

pub type Fallible<T = ()> = Result<T, Box<dyn std::error::Error>>;
/// The plot area in the SVG's pixels: x from..to, y from..to.
pub type PlotRect = (std::ops::Range<i32>, std::ops::Range<i32>);

pub const FONT: &str = "sans-serif";
const ROW: i32 = 18;
/// About where the legend's first row sits below the chart's top edge: the caption, the plot's margin, 8 px.
const LEGEND_TOP: u32 = 56;

/// Pixels the legend needs beside the plot for these labels at `font`
/// (plotters' size: its SVG text is `font / 1.24` px high).
fn legend_width(entries: &[Entry], font: u32) -> u32 {
    let chars = entries.iter().map(|e| e.label.chars().count()).max().unwrap_or(0) as f64;
    (36.0 + chars * f64::from(font) * 0.5).clamp(60.0, 230.0) as u32
}

fn legend(area: &DrawingArea<SVGBackend, Shift>, entries: &[Entry], font: u32, top: i32) -> Fallible {
    for (i, e) in entries.iter().enumerate() {
        let y = top + i as i32 * ROW;
        let c = e.style.colour;
        match e.stroke {
            Stroke::Solid | Stroke::Key => area.draw(&PathElement::new(vec![(4, y), (26, y)], c.stroke_width(2)))?,
            Stroke::KeyDashed => {
                for x in [4, 13, 22] {
                    area.draw(&PathElement::new(vec![(x, y), (x + 5, y)], c.stroke_width(2)))?;
                }
            }
        }
        if e.stroke == Stroke::Solid {
            marker_at(area, e.style, (15, y), 4)?;
        }
        let text = (FONT, font).into_font().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
        area.draw(&Text::new(e.label.clone(), (32, y), text))?;
    }
    Ok(())
}

/// A chart with its caption across the top and its legend to the right of
/// the plot area. `plot` draws into the area left of the legend and returns
/// the plot area's pixels, which the SVG then carries as `data-plot-area`.
/// A drawing error becomes a visible note, not a failed report.
pub fn framed(
    size: (u32, u32),
    caption: &str,
    font: u32,
    entries: &[Entry],
    plot: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Fallible<PlotRect>,
) -> String {
    framed_as("chart", size, caption, font, entries, plot)
}

/// [`framed`], the SVG of class `class` (`chart dots`: a test tells the kinds of chart apart by it).
pub fn framed_as(
    class: &str,
    size: (u32, u32),
    caption: &str,
    font: u32,
    entries: &[Entry],
    plot: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Fallible<PlotRect>,
) -> String {
    // Taller than asked when the legend needs it (a legend row per entry from the plot's top),
    // so that no entry is cut off at the bottom.
    let size = (size.0, size.1.max(LEGEND_TOP + entries.len() as u32 * ROW as u32 + ROW as u32));
    let mut svg = String::new();
    let result = {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        let drawn = || -> Fallible<PlotRect> {
            root.fill(&WHITE)?;
            let body = root.titled(caption, (FONT, font + 4))?;
            let width = body.dim_in_pixel().0;
            let (left, right) = body.split_horizontally(width.saturating_sub(legend_width(entries, font)));
            let rect = plot(&left)?;
            // Aligned with the top of the plot area.
            let top = rect.1.start - right.get_base_pixel().1 + 8;
            legend(&right, entries, font, top)?;
            root.present()?;
            Ok(rect)
        };
        drawn()
    };
    match result {
        Ok((x, y)) => svg.replacen("<svg ", &format!("<svg class=\"{class}\" data-plot-area=\"{},{},{},{}\" ", x.start, y.start, x.end, y.end), 1),
        Err(e) => format!("<p class=\"note\">chart not drawn: {}</p>", super::table::escape(&e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distance(a: RGBColor, b: RGBColor) -> f64 {
        let d = |x: u8, y: u8| (f64::from(x) - f64::from(y)).powi(2);
        (d(a.0, b.0) + d(a.1, b.1) + d(a.2, b.2)).sqrt()
    }

    #[test]
    fn twenty_implementations_in_six_models_get_twenty_distinct_styles() {
        let names: Vec<(String, Model)> = (0..20).map(|i| (format!("impl-{i:02}"), MODELS[i % 6])).collect();
        let p = Palette::new(names.iter().map(|(n, m)| (n.as_str(), *m)));
        let styles: Vec<Style> = names.iter().map(|(n, _)| p.style(n)).collect();
        for (i, a) in styles.iter().enumerate() {
            for (j, b) in styles.iter().enumerate().skip(i + 1) {
                assert!(a != b, "{} and {} share a style", names[i].0, names[j].0);
                if names[i].1 != names[j].1 {
                    assert!(distance(a.colour, b.colour) > 40.0, "{} and {} (different models) look alike: {a:?} {b:?}", names[i].0, names[j].0);
                }
            }
        }
    }

    #[test]
    fn the_style_depends_on_the_model_not_on_the_other_names() {
        let a = Palette::new([("c-pthreads", Model::OsThreads), ("rust-tokio", Model::AsyncTasks)]);
        let b = Palette::new([("aaa", Model::EventLoop), ("c-pthreads", Model::OsThreads), ("rust-tokio", Model::AsyncTasks)]);
        assert_eq!(a.style("c-pthreads"), b.style("c-pthreads"));
        assert!(distance(a.style("c-pthreads").colour, a.style("rust-tokio").colour) > 150.0, "the issue's pair must be far apart");
        assert_eq!(a.model("rust-tokio"), Some(Model::AsyncTasks));
    }

    #[test]
    fn hsl_converts() {
        assert_eq!(hsl(0.0, 1.0, 0.5), RGBColor(255, 0, 0));
        assert_eq!(hsl(120.0, 1.0, 0.25), RGBColor(0, 128, 0));
        assert_eq!(hsl(240.0, 0.0, 1.0), RGBColor(255, 255, 255));
    }

    #[test]
    fn a_chart_grows_taller_for_a_legend_that_would_not_fit() {
        let entries: Vec<Entry> = (0..19).map(|i| Entry::series(format!("impl-{i:02}"), Style { colour: RED, marker: Marker::Square })).collect();
        let svg = framed((580, 340), "t", 15, &entries, |area| {
            let chart = ChartBuilder::on(area).margin(8).build_cartesian_2d(0.0..1.0, 0.0..1.0)?;
            Ok(chart.plotting_area().get_pixel_range())
        });
        let height: i32 = svg.split("height=\"").nth(1).and_then(|s| s.split('"').next()).unwrap().parse().unwrap();
        let last = svg.split("<text").find(|t| t.contains("impl-18")).expect("the last entry is drawn");
        let y: i32 = last.split("y=\"").nth(1).and_then(|s| s.split('"').next()).unwrap().parse().unwrap();
        assert!(height > 340 && y + 10 < height, "the last legend entry at y={y} in a chart {height} px high");
    }

    #[test]
    fn the_legend_is_beside_the_plot_area() {
        let entries = [Entry::series("go-nethttp", Style { colour: RED, marker: Marker::Square })];
        let svg = framed((400, 250), "t", 12, &entries, |area| {
            let chart = ChartBuilder::on(area).margin(8).build_cartesian_2d(0.0..1.0, 0.0..1.0)?;
            Ok(chart.plotting_area().get_pixel_range())
        });
        let attr = svg.split("data-plot-area=\"").nth(1).and_then(|s| s.split('"').next()).expect("the plot area is stated");
        let right: i32 = attr.split(',').nth(2).unwrap().parse().unwrap();
        let text = svg.split("<text").find(|t| t.contains("go-nethttp")).expect("the legend names the series");
        let x: i32 = text.split("x=\"").nth(1).and_then(|s| s.split('"').next()).unwrap().parse().unwrap();
        assert!(x > right, "legend text at x={x}, plot area ends at {right}:\n{svg}");
    }
}
