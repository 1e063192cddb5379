//! The report as a browser shows it: headless Chromium (Debian's `chromium`,
//! installed by scripts/setup.sh) loads index.html from disk with the
//! network off, and the charts must be in its DOM and on its screenshot in
//! each implementation's colour. A missing Chromium fails the test (see
//! `support/tools.rs`).

use crate::results;
use crate::tools;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The first two series colours of the report's palette (Tableau 10).
const BLUE: [u8; 3] = [0x4e, 0x79, 0xa7];
const ORANGE: [u8; 3] = [0xf2, 0x8e, 0x2b];

fn headless(browser: &Path, profile: &Path, extra: &[&str], page: &Path) -> std::process::Output {
    Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("running chromium")
}

fn report(dir: &Path) -> PathBuf {
    let db = dir.join("concur.db");
    results::write_db(&db);
    let out = dir.join("report");
    let status = Command::new(env!("CARGO_BIN_EXE_concur")).args(["report", "--db"]).arg(&db).arg("-o").arg(&out).status().unwrap();
    assert!(status.success());
    out.join("index.html")
}

/// Pixels of exactly `rgb` in a PNG.
fn count_colour(png: &Path, rgb: [u8; 3]) -> usize {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let step = info.color_type.samples();
    assert!(step >= 3, "expected an RGB screenshot, got {:?}", info.color_type);
    buf[..info.buffer_size()].chunks(step).filter(|px| px[..3] == rgb).count()
}

#[test]
fn chromium_draws_the_charts() {
    let Some(browser) = tools::require(&tools::CHROMIUM) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = report(dir.path());

    let dom = headless(&browser, &dir.path().join("profile-dom"), &["--dump-dom"], &page);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert_eq!(dom.matches("<svg").count(), 4, "two scenarios, two charts each:\n{}", &dom[..dom.len().min(2000)]);
    assert!(dom.contains("<polyline") && dom.contains("successful requests/s"), "the charts hold lines and captions");
    assert!(!dom.contains("chart not drawn"), "a chart failed to render");

    let shot = dir.path().join("report.png");
    let out = headless(&browser, &dir.path().join("profile-shot"), &["--hide-scrollbars", "--window-size=1280,2400", &format!("--screenshot={}", shot.display())], &page);
    assert!(shot.exists(), "no screenshot: {}", String::from_utf8_lossy(&out.stderr));
    let (blue, orange) = (count_colour(&shot, BLUE), count_colour(&shot, ORANGE));
    assert!(blue > 200 && orange > 200, "the lines of alpha (blue: {blue} px) and beta (orange: {orange} px) should be drawn");
}
