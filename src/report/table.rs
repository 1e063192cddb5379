//! A table as plain data, rendered to Markdown (summary.md) and to HTML
//! (index.html) from the same rows, and the number formats every table uses.

use super::spread::Summary;

#[derive(Debug, Clone, Default)]
pub struct Table {
    pub title: String,
    /// A sentence under the title: what the numbers are, what the marks mean.
    pub note: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Leading columns that hold labels (left-aligned); the rest are numbers.
    pub label_columns: usize,
    /// Other columns that hold text, not numbers.
    pub text_columns: Vec<usize>,
    /// Names over runs of columns, left to right (`("2 cores", 3)`): a row
    /// above the header in HTML, a prefix of each header in Markdown. Empty:
    /// no groups.
    pub groups: Vec<(String, usize)>,
    /// Shown in full in index.html however long (At a glance's ranking);
    /// another long table is folded there under its title.
    pub unfolded: bool,
}

impl Table {
    pub fn new(title: impl Into<String>, header: &[&str]) -> Table {
        Table { title: title.into(), header: header.iter().map(|h| h.to_string()).collect(), label_columns: 1, ..Table::default() }
    }

    pub fn note(mut self, note: impl Into<String>) -> Table {
        self.note = note.into();
        self
    }

    pub fn labels(mut self, n: usize) -> Table {
        self.label_columns = n;
        self
    }

    pub fn text_column(mut self, i: usize) -> Table {
        self.text_columns.push(i);
        self
    }

    pub fn unfolded(mut self) -> Table {
        self.unfolded = true;
        self
    }

    pub fn group(mut self, name: impl Into<String>, span: usize) -> Table {
        self.groups.push((name.into(), span));
        self
    }

    /// The header as Markdown shows it: each column's group before its name.
    fn flat_header(&self) -> Vec<String> {
        let mut names = Vec::new();
        for (group, span) in &self.groups {
            names.extend(std::iter::repeat_n(group.as_str(), *span));
        }
        self.header.iter().enumerate().map(|(i, h)| names.get(i).filter(|g| !g.is_empty()).map_or(h.clone(), |g| format!("{g} {h}"))).collect()
    }

    /// Columns that open a named group after another column (drawn with a rule before them).
    fn group_starts(&self) -> Vec<usize> {
        let mut at = 0;
        let mut out = Vec::new();
        for (group, span) in &self.groups {
            if at > 0 && !group.is_empty() {
                out.push(at);
            }
            at += span;
        }
        out
    }

    fn is_text(&self, i: usize) -> bool {
        i < self.label_columns || self.text_columns.contains(&i)
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn markdown(&self) -> String {
        let mut out = format!("#### {}\n\n", self.title);
        if !self.note.is_empty() {
            out += &format!("{}\n\n", self.note);
        }
        let esc = |s: &str| s.replace('|', "\\|");
        out += &format!("| {} |\n", self.flat_header().iter().map(|h| esc(h)).collect::<Vec<_>>().join(" | "));
        let rule: Vec<&str> = (0..self.header.len()).map(|i| if self.is_text(i) { ":---" } else { "---:" }).collect();
        out += &format!("| {} |\n", rule.join(" | "));
        for row in &self.rows {
            out += &format!("| {} |\n", row.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" | "));
        }
        out + "\n"
    }

    /// The note and the table; index.html writes the title before it (as a
    /// heading with its anchor, or as the summary a long table is folded under).
    pub fn html(&self) -> String {
        let mut out = String::new();
        if !self.note.is_empty() {
            out += &format!("<p class=\"note\">{}</p>\n", escape(&self.note));
        }
        let starts = self.group_starts();
        let rule = |i: usize| if starts.contains(&i) { " gs" } else { "" };
        // The labels of a table of numbers are names: kept on one line. A table of text wraps.
        let nowrap = |i: usize| i < self.label_columns && self.label_columns < self.header.len();
        out += "<table>\n<thead>";
        if !self.groups.is_empty() {
            out += "<tr>";
            let mut at = 0;
            for (group, span) in &self.groups {
                out += &format!("<th colspan=\"{span}\" class=\"group{}\">{}</th>", rule(at), escape(group));
                at += span;
            }
            out += "</tr>";
        }
        out += "<tr>";
        for (i, h) in self.header.iter().enumerate() {
            let class = format!("{}{}", if self.is_text(i) { "" } else { "num" }, rule(i));
            out += &if class.is_empty() { format!("<th>{}</th>", escape(h)) } else { format!("<th class=\"{}\">{}</th>", class.trim(), escape(h)) };
        }
        out += "</tr></thead>\n<tbody>\n";
        for row in &self.rows {
            out += "<tr>";
            for (i, c) in row.iter().enumerate() {
                let class = format!("{}{}{}", if self.is_text(i) { "" } else { "num" }, if nowrap(i) { " nw" } else { "" }, rule(i));
                let class = if class.is_empty() { String::new() } else { format!(" class=\"{}\"", class.trim()) };
                out += &format!("<td{class}>{}</td>", escape(c));
            }
            out += "</tr>\n";
        }
        out + "</tbody>\n</table>\n"
    }
}

/// HTML text escaping.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Requests per second: `18,115`, `47.5`, `4.00`.
pub fn rate(x: f64) -> String {
    if x >= 100.0 {
        thousands(x.round() as u64)
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// Milliseconds: `2006`, `15.3`, `0.77`.
pub fn ms(x: f64) -> String {
    if x >= 100.0 {
        thousands(x.round() as u64)
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// Milliseconds as [`ms`], or `> 6,000` when the value is only a lower bound
/// (a percentile among requests left unanswered, `stats::censored`).
pub fn ms_bounded(x: f64, lower_bound: bool) -> String {
    if lower_bound { format!("> {}", ms(x)) } else { ms(x) }
}

/// `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `±3%`, `±<1%`, or nothing for a single measurement.
pub fn spread(s: &Summary) -> String {
    if s.n < 2 {
        return String::new();
    }
    let pct = s.relative_spread() * 100.0;
    if pct < 0.5 { " ±<1%".into() } else { format!(" ±{pct:.0}%") }
}

/// Bytes as MiB with one decimal.
pub fn mib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / (1u64 << 20) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_like_the_seeds_tables() {
        assert_eq!((rate(18114.9), rate(47.466), rate(4.0)), ("18,115".into(), "47.5".into(), "4.00".into()));
        assert_eq!((ms(2006.02), ms(15.26), ms(0.774)), ("2,006".into(), "15.3".into(), "0.77".into()));
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn one_table_two_renderings() {
        let mut t = Table::new("T", &["impl", "req/s"]).note("n < 2 | a");
        t.row(vec!["go".into(), "1 < 2".into()]);
        assert_eq!(t.markdown(), "#### T\n\nn < 2 | a\n\n| impl | req/s |\n| :--- | ---: |\n| go | 1 < 2 |\n\n");
        assert!(t.html().contains("<td class=\"num\">1 &lt; 2</td>"));
    }

    #[test]
    fn column_groups_head_the_html_and_prefix_the_markdown() {
        let mut t = Table::new("T", &["impl", "rank", "req/s", "rank", "req/s"]).group("", 1).group("1 core", 2).group("2 cores", 2);
        t.row(vec!["go".into(), "1".into(), "5".into(), "=2".into(), "9".into()]);
        assert!(t.markdown().contains("| impl | 1 core rank | 1 core req/s | 2 cores rank | 2 cores req/s |"), "{}", t.markdown());
        let html = t.html();
        assert!(html.contains("<th colspan=\"2\" class=\"group gs\">1 core</th>") && html.contains("<th colspan=\"2\" class=\"group gs\">2 cores</th>"), "{html}");
        assert!(html.contains("<td class=\"num gs\">=2</td>"), "{html}");
    }
}
