//! index.html: one self-contained file (inline CSS, inline SVG, no script,
//! nothing fetched), readable offline and printable.

use super::document::Block;
use super::table::escape;

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
";

pub fn render(blocks: &[Block], title: &str) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(title)
    );
    write_blocks(blocks, &mut out);
    out + "</body>\n</html>\n"
}

fn write_blocks(blocks: &[Block], out: &mut String) {
    let mut i = 0;
    while i < blocks.len() {
        if let Block::Chart(_) = blocks[i] {
            out.push_str("<div class=\"charts\">\n");
            while let Some(Block::Chart(svg)) = blocks.get(i) {
                out.push_str(svg);
                out.push('\n');
                i += 1;
            }
            out.push_str("</div>\n");
            continue;
        }
        write_block(&blocks[i], out);
        i += 1;
    }
}

fn write_block(block: &Block, out: &mut String) {
    match block {
        Block::Heading(level, text) => out.push_str(&format!("<h{level}>{}</h{level}>\n", escape(text))),
        Block::Para(text) => out.push_str(&format!("<p>{}</p>\n", escape(text))),
        Block::Table(t) => out.push_str(&t.html()),
        Block::Link { text, href } => out.push_str(&format!("<p><a href=\"{}\">{}</a></p>\n", escape(href), escape(text))),
        Block::Chart(svg) => out.push_str(svg),
        Block::List(items) => {
            out.push_str("<ul>\n");
            for item in items {
                out.push_str(&format!("<li>{}</li>\n", escape(item)));
            }
            out.push_str("</ul>\n");
        }
        Block::Details { summary, open, body } => {
            let class = if summary.starts_with("Warnings") { " class=\"warnings\"" } else { "" };
            out.push_str(&format!("<details{class}{}>\n<summary>{}</summary>\n", if *open { " open" } else { "" }, escape(summary)));
            write_blocks(body, out);
            out.push_str("</details>\n");
        }
    }
}
