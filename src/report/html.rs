//! index.html: one self-contained file (inline CSS, inline SVG, no script,
//! nothing fetched), readable offline and printable. Every heading carries
//! an anchor, listed in the contents near the top (`contents`), and a table
//! longer than a screen holds is folded under its title.

use super::contents::Anchors;
use super::block::Block;
use super::table::{Table, escape};

/// Tables of more rows than this are folded (closed) unless marked to stay
/// open: the 18 implementations' tables are, and a screen still shows the
/// headings around them.
const LONG_TABLE: usize = 15;

const STYLE: &str = "
body { font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; color: #222; margin: 2rem auto; max-width: 76rem; padding: 0 1rem; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2.5rem; border-bottom: 1px solid #ddd; } h3 { margin-top: 2rem; } h4 { margin: 1.2rem 0 .3rem; }
table { border-collapse: collapse; margin: .4rem 0 1rem; font-size: 13.5px; }
th, td { border: 1px solid #ddd; padding: .25rem .55rem; vertical-align: top; }
th { background: #f4f4f4; text-align: left; } th.num { text-align: right; } td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
p.note { color: #555; font-size: 13px; margin: .2rem 0; max-width: 60rem; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem; } .charts svg { border: 1px solid #eee; max-width: 100%; height: auto; }
details { margin: 1rem 0; } summary { cursor: pointer; font-weight: 600; }
details.warnings { background: #fff8e6; border: 1px solid #f0d48a; padding: .5rem 1rem; }
details details, details.warnings > p { margin: .3rem 0 .3rem 1rem; } details details > summary { font-weight: normal; }
th.group { text-align: center; background: #ebebeb; } .gs { border-left: 2px solid #999; } td.nw { white-space: nowrap; }
nav.contents { font-size: 13.5px; margin: .8rem 0 1rem; } nav.contents ul { margin: .2rem 0; padding-left: 1.2rem; } nav.contents li { margin: .1rem 0; }
details.table > summary h4 { display: inline; margin: 0; } details.table > summary span { font-weight: normal; color: #555; }
";

pub fn render(blocks: &[Block], title: &str) -> String {
    let mut page = Page::default();
    page.blocks(blocks);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{}</body>\n</html>\n",
        escape(title),
        page.finish()
    )
}

/// The body as it is written, with the anchors handed out so far.
#[derive(Default)]
struct Page {
    out: String,
    anchors: Anchors,
    /// Where the contents go, written once every heading is known.
    contents_at: Option<usize>,
}

impl Page {
    fn finish(mut self) -> String {
        if let Some(at) = self.contents_at {
            self.out.insert_str(at, &self.anchors.contents());
        }
        self.out
    }

    /// Blocks in order, consecutive charts side by side.
    fn blocks(&mut self, blocks: &[Block]) {
        let mut i = 0;
        while i < blocks.len() {
            if let Block::Chart(_) = blocks[i] {
                self.out.push_str("<div class=\"charts\">\n");
                while let Some(Block::Chart(svg)) = blocks.get(i) {
                    self.out.push_str(svg);
                    self.out.push('\n');
                    i += 1;
                }
                self.out.push_str("</div>\n");
                continue;
            }
            self.block(&blocks[i]);
            i += 1;
        }
    }

    fn block(&mut self, block: &Block) {
        match block {
            Block::Heading(level, text) => self.heading(*level, text),
            Block::Para(text) => self.out.push_str(&format!("<p>{}</p>\n", escape(text))),
            Block::ChartKey(text) => self.out.push_str(&format!("<p class=\"note\">{}</p>\n", escape(text))),
            Block::Table(t) => self.table(t, true),
            Block::Link { text, href } => self.out.push_str(&format!("<p><a href=\"{}\">{}</a></p>\n", escape(href), escape(text))),
            Block::Chart(svg) => self.out.push_str(svg),
            Block::Contents => self.contents_at = Some(self.out.len()),
            Block::List(items) => {
                self.out.push_str("<ul>\n");
                for item in items {
                    self.out.push_str(&format!("<li>{}</li>\n", escape(item)));
                }
                self.out.push_str("</ul>\n");
            }
            Block::Details { summary, open, body } => self.details(summary, *open, body),
        }
    }

    fn heading(&mut self, level: u8, text: &str) {
        let id = self.anchors.id(level, text);
        self.out.push_str(&format!("<h{level} id=\"{}\">{}</h{level}>\n", escape(&id), escape(text)));
    }

    /// A table under its title; when longer than [`LONG_TABLE`] rows and `may_fold`, folded under it.
    fn table(&mut self, t: &Table, may_fold: bool) {
        let id = self.anchors.id(4, &t.title);
        let title = format!("<h4 id=\"{}\">{}</h4>", escape(&id), escape(&t.title));
        if may_fold && !t.unfolded && t.rows.len() > LONG_TABLE {
            self.out.push_str(&format!("<details class=\"table\">\n<summary>{title} <span>({} rows)</span></summary>\n{}</details>\n", t.rows.len(), t.html()));
        } else {
            self.out.push_str(&format!("{title}\n{}", t.html()));
        }
    }

    fn details(&mut self, summary: &str, open: bool, body: &[Block]) {
        let class = if summary.starts_with("Warnings") { " class=\"warnings\"" } else { "" };
        self.out.push_str(&format!("<details{class}{}>\n<summary>{}</summary>\n", if open { " open" } else { "" }, escape(summary)));
        match body {
            // Folded already: not folded again.
            [Block::Table(t)] => self.table(t, false),
            _ => self.blocks(body),
        }
        self.out.push_str("</details>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(title: &str, rows: usize) -> Table {
        let mut t = Table::new(title, &["n"]);
        for i in 0..rows {
            t.row(vec![i.to_string()]);
        }
        t
    }

    #[test]
    fn a_long_table_is_folded_under_its_title_unless_kept_open() {
        let steps = Block::Details { summary: "Every step".into(), open: false, body: vec![Block::Table(table("steps", 30))] };
        let blocks = [Block::Table(table("short", 3)), Block::Table(table("long", LONG_TABLE + 1)), Block::Table(table("ranking", 20).unfolded()), steps];
        let html = render(&blocks, "t");
        assert!(html.contains("<h4 id=\"short\">short</h4>\n<table>"), "{html}");
        assert!(html.contains("<details class=\"table\">\n<summary><h4 id=\"long\">long</h4> <span>(16 rows)</span></summary>\n<table>"), "{html}");
        assert!(html.contains("<h4 id=\"ranking\">ranking</h4>\n<table>"), "{html}");
        assert!(html.contains("<summary>Every step</summary>\n<h4 id=\"steps\">steps</h4>\n<table>"), "a table alone in a fold is not folded again: {html}");
    }

    #[test]
    fn the_contents_stand_where_the_document_puts_them_and_list_every_later_section() {
        let blocks = [
            Block::Heading(1, "Report".into()),
            Block::Para("headline".into()),
            Block::Contents,
            Block::Heading(2, "At a glance".into()),
            Block::Heading(3, "hello (c=50)".into()),
            Block::Heading(2, "Results".into()),
            Block::Heading(3, "hello (c=50)".into()),
        ];
        let html = render(&blocks, "t");
        let nav = html.find("<nav class=\"contents\"").expect("the contents");
        assert!(html.find("<p>headline</p>").unwrap() < nav && nav < html.find("<h2 id=\"at-a-glance\">At a glance</h2>").unwrap(), "{html}");
        assert!(html.contains("<li><a href=\"#results\">Results</a>: <a href=\"#hello-c-50-2\">hello (c=50)</a></li>") && html.contains("<h3 id=\"hello-c-50-2\">"), "{html}");
        assert!(!render(&blocks[3..], "t").contains("<nav"), "no contents where the document puts none");
    }
}
