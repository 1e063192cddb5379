//! The anchors of index.html and the contents that link to them: every
//! heading gets an `id`, a slug of its text made unique on the page (`-2`,
//! `-3` after the first), so that a link to a section of a report stays the
//! same for the same report; the h2 and h3 are listed in the contents.

use super::table::escape;
use std::collections::HashSet;

#[derive(Default)]
pub struct Anchors {
    used: HashSet<String>,
    /// The h2 and h3 in page order: level, id, text.
    listed: Vec<(u8, String, String)>,
}

impl Anchors {
    /// The id of a heading of `level` that reads `text`, listed in the contents when an h2 or h3.
    pub fn id(&mut self, level: u8, text: &str) -> String {
        let base = slug(text);
        let id = (1..).map(|n| if n == 1 { base.clone() } else { format!("{base}-{n}") }).find(|id| !self.used.contains(id)).unwrap_or(base);
        self.used.insert(id.clone());
        if matches!(level, 2 | 3) {
            self.listed.push((level, id.clone(), text.to_string()));
        }
        id
    }

    /// One line per h2, the h3 under it after its name; empty when there is no heading to list.
    pub fn contents(&self) -> String {
        if self.listed.is_empty() {
            return String::new();
        }
        let link = |id: &str, text: &str| format!("<a href=\"#{}\">{}</a>", escape(id), escape(text));
        let mut lines: Vec<(String, Vec<String>)> = Vec::new();
        for (level, id, text) in &self.listed {
            match lines.last_mut() {
                Some((_, under)) if *level == 3 => under.push(link(id, text)),
                _ => lines.push((link(id, text), vec![])),
            }
        }
        let items: String = lines
            .into_iter()
            .map(|(h2, under)| if under.is_empty() { format!("<li>{h2}</li>\n") } else { format!("<li>{h2}: {}</li>\n", under.join(" · ")) })
            .collect();
        format!("<nav class=\"contents\" aria-label=\"Contents\">\n<strong>Contents</strong>\n<ul>\n{items}</ul>\n</nav>\n")
    }
}

/// `hello (c=50)` → `hello-c-50`: lower-case ASCII letters and digits, any run of others one hyphen.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for ch in text.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    if out.is_empty() { "section".into() } else { out.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heading_seen_twice_gets_a_second_anchor() {
        let mut a = Anchors::default();
        let ids: Vec<String> = [(2, "At a glance"), (3, "hello (c=50)"), (2, "Results by scenario"), (3, "hello (c=50)"), (4, "go-nethttp: results"), (2, "† ◦")].iter().map(|&(l, t)| a.id(l, t)).collect();
        assert_eq!(ids, ["at-a-glance", "hello-c-50", "results-by-scenario", "hello-c-50-2", "go-nethttp-results", "section"]);
        let html = a.contents();
        assert!(html.contains("<li><a href=\"#at-a-glance\">At a glance</a>: <a href=\"#hello-c-50\">hello (c=50)</a></li>"), "{html}");
        assert!(html.contains("<a href=\"#hello-c-50-2\">hello (c=50)</a>") && !html.contains("#go-nethttp-results"), "h4 are not listed: {html}");
    }
}
