//! Progress on a terminal, drawn by indicatif: one line on standard error,
//! and nothing at all when standard error is not a terminal (a log file, a
//! pipe, CI), so that what is captured is the results alone.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A style from one of concur's constant templates (indicatif's syntax).
pub fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).expect("progress templates are constants and valid")
}

/// A bar of `len` steps on standard error; hidden unless it is a terminal.
pub fn bar(len: u64, style: ProgressStyle) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr()).with_style(style)
}
