//! The report as a browser shows it: headless Chromium (Debian's `chromium`,
//! installed by scripts/setup.sh --test) loads index.html from disk with the
//! network off, and the charts must be in its DOM and on its screenshot in
//! each implementation's colour, and a scenario of one core count has no
//! chart against cores. A second report, of twenty implementations across
//! the six concurrency models, must open with its contents and the ranking's
//! pictures on the first screen, link every h2 from the contents, fold its
//! long tables, group its warnings, keep every legend beside its plot, give
//! every implementation a section and put all twenty colours on the screen;
//! the report and its
//! screenshot are kept in cargo's test temp folder
//! (target/tmp/report-twenty/) for a person to look at. A missing Chromium fails the test (see
//! `support/tools.rs`).

use crate::results;
use crate::tools;

use concur::impls::Model;
use concur::report::palette::Palette;
use std::path::{Path, PathBuf};
use std::process::Command;

fn headless(browser: &Path, profile: &Path, extra: &[&str], page: &Path) -> std::process::Output {
    Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("running chromium")
}

fn report(dir: &Path, write_db: fn(&Path) -> i64) -> PathBuf {
    let db = dir.join("concur.db");
    write_db(&db);
    // A quiet machine's calibration: the ranks are the repeats' as much as the floor's.
    results::write_calibration(&db, 0.01);
    let out = dir.join("report");
    let status = Command::new(env!("CARGO_BIN_EXE_concur")).args(["report", "--results"]).arg(&db).arg("-o").arg(&out).status().unwrap();
    assert!(status.success());
    out.join("index.html")
}

/// A decoded screenshot: width, height and RGB(A) pixels.
struct Shot {
    width: u32,
    height: u32,
    step: usize,
    pixels: Vec<u8>,
}

fn decode(png: &Path) -> Shot {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let step = info.color_type.samples();
    assert!(step >= 3, "expected an RGB screenshot, got {:?}", info.color_type);
    buf.truncate(info.buffer_size());
    Shot { width: info.width, height: info.height, step, pixels: buf }
}

impl Shot {
    /// Pixels of exactly `rgb`.
    fn count(&self, rgb: [u8; 3]) -> usize {
        self.pixels.chunks(self.step).filter(|px| px[..3] == rgb).count()
    }
}

/// The palette the report gives these implementations.
fn palette(names: &[(&str, Model)]) -> Palette {
    Palette::new(names.iter().copied())
}

fn rgb(p: &Palette, name: &str) -> [u8; 3] {
    let c = p.style(name).colour;
    [c.0, c.1, c.2]
}

#[test]
fn chromium_draws_the_charts() {
    let Some(browser) = tools::require(&tools::CHROMIUM) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = report(dir.path(), results::write_db);

    let dom = headless(&browser, &dir.path().join("profile-dom"), &["--dump-dom"], &page);
    let dom = String::from_utf8_lossy(&dom.stdout);
    // Five pictures at a glance (hello and page at 1 and 2 cores, db at 1), hello's and page's two charts against cores, and the clients held.
    assert_eq!(dom.matches("<svg").count(), 10, "{}", &dom[..dom.len().min(2000)]);
    let svgs = charts(&dom);
    assert!(svgs.iter().any(|svg| svg.starts_with("class=\"chart dots\"") && svg.contains("db (c=64) at 1 core: successful requests/s")), "db's picture at a glance");
    assert!(!svgs.iter().any(|svg| svg.contains("db (c=64): ")), "db was measured at one core count: no chart against cores");
    assert!(dom.contains("server memory per waiting client (KiB)"), "the clients-held chart is drawn");
    assert!(dom.contains("<polyline") && dom.contains("successful requests/s"), "the charts hold lines and captions");
    assert!(!dom.contains("chart not drawn"), "a chart failed to render");

    let shot = dir.path().join("report.png");
    let out = headless(&browser, &dir.path().join("profile-shot"), &["--hide-scrollbars", "--window-size=1280,2400", &format!("--screenshot={}", shot.display())], &page);
    assert!(shot.exists(), "no screenshot: {}", String::from_utf8_lossy(&out.stderr));
    let p = palette(&[("alpha", Model::GreenThreads), ("beta", Model::EventLoop)]);
    let shot = decode(&shot);
    let (alpha, beta) = (shot.count(rgb(&p, "alpha")), shot.count(rgb(&p, "beta")));
    assert!(alpha > 200 && beta > 200, "the lines of alpha (green: {alpha} px) and beta (blue: {beta} px) should be drawn");
}

/// Every inline chart, from its attributes to its end.
fn charts(html: &str) -> Vec<&str> {
    html.split("<svg ").skip(1).map(|svg| svg.split("</svg>").next().unwrap()).collect()
}

/// The text of each `<text>` of an SVG, trimmed.
fn texts(svg: &str) -> Vec<&str> {
    svg.split("<text").skip(1).filter_map(|t| Some(t.split_once('>')?.1.split("</text>").next()?.trim())).collect()
}

/// `name="value"` of an SVG or HTML tag.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    tag.split(&format!(" {name}=\"")).nth(1).and_then(|s| s.split('"').next())
}

/// A chart's plot area (x0, y0, x1, y1), and the x and y of each of its texts that names an implementation.
type Legend<'a> = ([i32; 4], Vec<(&'a str, i32, i32)>);

fn legends<'a>(html: &'a str, names: &[&'a str]) -> Vec<Legend<'a>> {
    charts(html)
        .into_iter()
        // The charts against cores; At a glance's pictures name implementations on their rows.
        .filter(|svg| svg.starts_with("class=\"chart\""))
        .map(|svg| {
            let area: Vec<i32> = attr(svg, "data-plot-area").expect("every chart states its plot area").split(',').map(|v| v.parse().unwrap()).collect();
            let texts = svg
                .split("<text")
                .skip(1)
                .filter_map(|t| {
                    let (tag, body) = t.split_once('>')?;
                    let label = body.split("</text>").next()?.trim();
                    let name = names.iter().find(|n| ["", " ◦", " †", " ‡"].iter().any(|mark| label == format!("{n}{mark}")))?;
                    Some((*name, attr(tag, "x")?.parse().ok()?, attr(tag, "y")?.parse().ok()?))
                })
                .collect();
            ([area[0], area[1], area[2], area[3]], texts)
        })
        .collect()
}

#[test]
fn twenty_implementations_read_at_a_glance() {
    let Some(browser) = tools::require(&tools::CHROMIUM) else {
        return;
    };
    // Kept after the test, with the screenshot, for a person to look at.
    let kept = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-twenty");
    let _ = std::fs::remove_dir_all(&kept);
    std::fs::create_dir_all(&kept).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let page = report(&kept, results::write_twenty_db);
    let html = std::fs::read_to_string(&page).unwrap();
    let names: Vec<&str> = results::TWENTY.iter().map(|t| t.0).collect();

    // The ranking first, then the warnings, one line per kind, then the results (every heading has its anchor).
    let at = |needle: &str| html.find(needle).unwrap_or_else(|| panic!("index.html lacks {needle:?}"));
    assert!(at("<h2 id=\"at-a-glance\">At a glance</h2>") < at("<summary>Warnings") && at("<summary>Warnings") < at("<h2 id=\"results-by-scenario\">Results by scenario</h2>"));
    first_screen(&html, &names);
    contents(&html);
    folded(&html);
    assert!(
        html.contains("<summary>Warnings (39 in 7 kind(s))</summary>"),
        "seven kinds: not measured, known deviations, a policy's departure, a failed point, saturation, target rate, a run note"
    );
    for kind in [
        "<summary>generator saturated in 6 points: rust-axum 3, rust-tokio 3</summary>",
        "<summary>target rate not reached in 27 points: ruby-rack 9, ruby-rails 9, ruby-sinatra 9</summary>",
        "<summary>1 point could not be measured: ruby-rails 1</summary>",
        "<summary>2 implementations measured with known deviations (†): bun (pipelining), deno (expect-continue)</summary>",
        "<summary>1 implementation not measured: swift-vapor (unavailable)</summary>",
        "<summary>1 implementation measured departing from spec/POLICIES.md (‡): python-fastapi (POLICIES §6.3 db-pool-division)</summary>",
    ] {
        assert!(html.contains(kind), "index.html lacks the warning line {kind:?}");
    }
    // Generated sentences and ranks with ties.
    for sentence in [
        // Three rounds whose values scatter 1-3% about each implementation's own level: 9% apart is decided.
        "<li>hello (c=50) at 1 core: rust-axum leads at 55,988 req/s [55,344–56,640], 1.09× the next (rust-tokio), at least 1.07× given the intervals; \
         5 more are placed only within 2 to 3 ranks each (the ranking's rank column); ruby-rails is last at 1,800 req/s, 31× below the leader, at least 31×; \
         its 3 rounds order 136 of the 136 pairs whose medians differ 1.5× or more, 186 of 190 in all; \
         p99 ranges from 1.86 ms (rust-axum) to 55.1 ms (ruby-rails).</li>",
        "<li>page (c=100) at 1 core: 7 implementations (rust-axum, rust-tokio, go-tcp ◦, …) could each be first, tied within the noise at 465–474 req/s;",
        // The generator limited both leaders at 4 cores: lower bounds, never ordered below each other.
        "<li>hello (c=50) at 4 cores: rust-axum and rust-tokio could each be first, tied within the noise at 179,279–194,963 req/s;",
        "; ⚠ the load generator was the limit for rust-axum and rust-tokio (see Warnings).</li>",
    ] {
        assert!(html.contains(sentence), "index.html lacks the sentence {sentence:?}");
    }
    assert!(html.contains("<td class=\"num gs\">1–2</td>"), "a first rank shared with the second, as the intervals allow");
    // The entries without a framework are marked, and the mark is said under the tables (spec/POLICIES.md §5).
    assert!(html.contains("go-tcp ◦") && html.contains("rust-threadpool ◦") && !html.contains("go-nethttp ◦"));
    assert!(html.contains("◦: no framework, an HTTP server written by hand"));
    // A declared departure from spec/POLICIES.md is marked beside the figures, said under the
    // tables and given with its reason among the implementations.
    assert!(html.contains("python-fastapi ‡") && html.contains("‡: departs from a rule of spec/POLICIES.md"));
    assert!(html.contains("verified, measured; departs from POLICIES §6.3 db-pool-division: uvicorn gives its workers no index"), "the Implementations table");
    assert!(html.contains("<th colspan=\"3\" class=\"group gs\">4 cores</th>"), "core counts as column groups");

    // One section per implementation, with its README.
    for name in names.iter().chain(&["swift-vapor"]) {
        let marked = ["", " ◦", " †", " ‡"].iter().any(|mark| html.contains(&format!("<summary>{name}{mark}: ")));
        assert!(marked, "no section for {name}");
        assert!(html.contains(&format!("<a href=\"../../impls/http/{name}/README.md\">")), "no README link for {name}");
    }
    assert!(html.contains("<h4 id=\"go-nethttp-every-point-18\">go-nethttp: every point (18)</h4>") && html.contains("<h4 id=\"go-nethttp-results\">go-nethttp: results</h4>"));

    // Small multiples: one throughput and one latency chart per model and scenario; legends beside the plot.
    let charts = legends(&html, &names);
    assert_eq!(charts.len(), 2 * 2 * 6, "two scenarios, two kinds of chart, six models");
    let mut named = std::collections::BTreeSet::new();
    for (area, texts) in &charts {
        assert!(!texts.is_empty() && texts.len() <= 6, "each small multiple names its model's implementations: {texts:?}");
        for (name, x, y) in texts {
            assert!(*x > area[2] || *y > area[3], "{name}'s legend entry at ({x},{y}) is inside the plot area {area:?}");
            named.insert(*name);
        }
    }
    assert_eq!(named.len(), 20, "every implementation is in some legend");

    // On screen: the png decodes at the window's size and every implementation's colour is drawn.
    let shot = kept.join("report-twenty.png");
    let (w, h) = (1280, 5200);
    let out = headless(&browser, &dir.path().join("profile-shot"), &["--hide-scrollbars", &format!("--window-size={w},{h}"), &format!("--screenshot={}", shot.display())], &page);
    assert!(shot.exists(), "no screenshot: {}", String::from_utf8_lossy(&out.stderr));
    let image = decode(&shot);
    assert_eq!((image.width, image.height), (w, h));
    let models: Vec<(&str, Model)> = results::TWENTY.iter().map(|t| (t.0, serde_json::from_value(serde_json::json!(t.3)).unwrap())).chain([("swift-vapor", Model::AsyncTasks)]).collect();
    let p = palette(&models);
    let drawn: Vec<(&str, usize)> = names.iter().map(|n| (*n, image.count(rgb(&p, n)))).collect();
    assert!(drawn.iter().all(|(_, px)| *px >= 40), "every implementation's colour should be on the screenshot: {drawn:?}");

    // The first screen alone shows every implementation's dot at a glance.
    let shot = kept.join("report-twenty-first-screen.png");
    let (w, h) = (1280, 1000);
    let out = headless(&browser, &dir.path().join("profile-first"), &["--hide-scrollbars", &format!("--window-size={w},{h}"), &format!("--screenshot={}", shot.display())], &page);
    assert!(shot.exists(), "no screenshot: {}", String::from_utf8_lossy(&out.stderr));
    let image = decode(&shot);
    let drawn: Vec<(&str, usize)> = names.iter().map(|n| (*n, image.count(rgb(&p, n)))).collect();
    assert!(drawn.iter().all(|(_, px)| *px >= 20), "every implementation's dot should be on the first screen: {drawn:?}");
}

/// At a glance opens with one picture per scenario and core count, before how orders are
/// decided and before the results: every implementation a row, best first, its ranks beside it.
fn first_screen(html: &str, names: &[&str]) {
    let at = |needle: &str| html.find(needle).unwrap_or_else(|| panic!("index.html lacks {needle:?}"));
    let pictures: Vec<&str> = charts(html).into_iter().filter(|svg| svg.starts_with("class=\"chart dots\"")).collect();
    assert_eq!(pictures.len(), 2 * 3, "hello and page at 1, 2 and 4 cores");
    let first = at("<svg class=\"chart dots\"");
    assert!(at("<h2 id=\"at-a-glance\">") < first && first < at("<summary>How orders and ties are decided</summary>"), "the pictures come before how to read them");
    assert!(html.rfind("<svg class=\"chart dots\"").unwrap() < at("<h2 id=\"results-by-scenario\">"));
    assert!(at("Each picture ranks the implementations") < at("<summary>How orders and ties are decided</summary>"), "the pictures' key is beside them");
    let hello = pictures.iter().find(|svg| svg.contains("hello (c=50) at 1 core: successful requests/s")).expect("hello's picture at 1 core");
    let rows = texts(hello);
    let row = |name: &str| rows.iter().position(|t| ["", " ◦", " †", " ‡"].iter().any(|mark| *t == format!("{name}{mark}"))).unwrap_or_else(|| panic!("no row for {name}: {rows:?}"));
    assert!(names.iter().all(|n| row(n) > 0), "every implementation has a row");
    assert!(row("rust-axum") < row("rust-tokio") && row("rust-tokio") < row("ruby-rails"), "best first: {rows:?}");
    assert_eq!(rows[row("rust-axum") - 1], "1", "the rank beside the leader's name");
    let four = pictures.iter().find(|svg| svg.contains("hello (c=50) at 4 cores")).expect("hello's picture at 4 cores");
    assert!(texts(four).windows(2).any(|w| w == ["1–2", "rust-axum ⚠"]), "a rank range and the generator's limit beside a name: {:?}", texts(four));
}

/// Contents after the headline link to every h2 by its anchor; every anchor is unique.
fn contents(html: &str) {
    let nav = html.split("<nav class=\"contents\"").nth(1).and_then(|s| s.split("</nav>").next()).expect("the contents");
    assert!(html.find("<nav class=\"contents\"") < html.find("<h2 "), "the contents come before the first section");
    let h2: Vec<&str> = html.split("<h2").skip(1).map(|h| attr(h.split('>').next().unwrap(), "id").expect("every h2 has an id")).collect();
    assert!(h2.len() >= 6, "{h2:?}");
    for id in &h2 {
        assert!(nav.contains(&format!("href=\"#{id}\"")), "the contents lack a link to #{id}");
    }
    let mut ids: Vec<&str> = html.split(" id=\"").skip(1).filter_map(|s| s.split('"').next()).collect();
    let all = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), all, "an anchor is used twice");
    assert!(nav.contains("<a href=\"#hello-c-50-2\">hello (c=50)</a>"), "a heading seen twice gets a second anchor: {nav}");
}

/// Tables longer than a screen are folded under their title, closed; the ranking at a glance is not.
fn folded(html: &str) {
    for (id, title, rows) in [
        ("language-feature-comparison-thesis-table-3", "Language feature comparison (thesis Table 3)", 21),
        ("hello-c-50-successful-requests-s", "hello (c=50): successful requests/s", 20),
        ("go-nethttp-every-point-18", "go-nethttp: every point (18)", 18),
    ] {
        let summary = format!("<details class=\"table\">\n<summary><h4 id=\"{id}\">{title}</h4> <span>({rows} rows)</span></summary>");
        assert!(html.contains(&summary), "index.html lacks {summary:?}");
    }
    let ranking = "<h4 id=\"hello-c-50-ranking\">hello (c=50): ranking</h4>";
    assert!(html.contains(ranking) && !html.contains(&format!("<summary>{ranking}")), "the ranking at a glance (20 rows) stays open");
}
