//! `/fortunes` (SPEC §8.3): TechEmpower's page, written with `format!` and
//! an escape of the five characters HTML gives meaning to. A std-only
//! server of this kind writes its few lines of HTML by hand rather than take
//! a template engine (the Rust book's server writes its pages the same way).

use super::world::unavailable;
use super::{App, Reply};
use crate::http::Response;
use std::fmt::Write;

const ADDED: &str = "Additional fortune added at request time.";

impl App {
    pub(super) fn fortunes(&self) -> Reply {
        let mut pooled = self.db.connection().map_err(unavailable)?;
        let conn = &mut *pooled;
        let rows = conn.client.query(&conn.fortunes, &[]).map_err(|e| unavailable(e.to_string()))?;
        let mut list: Vec<(i32, String)> = rows.iter().map(|row| (row.get(0), row.get(1))).collect();
        // Back to the pool before the sort and the page.
        drop(pooled);
        list.push((0, ADDED.to_string()));
        Ok(Response::html(page(list).into_bytes()))
    }
}

/// The page of `list`, sorted by message (Rust compares strings by their
/// UTF-8 bytes, which is code point order).
pub fn page(mut list: Vec<(i32, String)>) -> String {
    list.sort_by(|a, b| a.1.cmp(&b.1));
    let mut html = String::from("<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>");
    for (id, message) in &list {
        let _ = write!(html, "<tr><td>{id}</td><td>{}</td></tr>", escape(message));
    }
    html.push_str("</table></body></html>");
    html
}

/// The message as HTML text: `&`, `<`, `>`, `"` and `'` as references.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::page;

    #[test]
    fn messages_are_escaped_and_sorted_by_code_point() {
        let html = page(vec![(2, "b & <i>'\"".into()), (1, "フ".into()), (3, "B".into())]);
        let rows = "<tr><td>3</td><td>B</td></tr><tr><td>2</td><td>b &amp; &lt;i&gt;&#39;&quot;</td></tr><tr><td>1</td><td>フ</td></tr>";
        assert!(html.contains(rows), "{html}");
    }
}
