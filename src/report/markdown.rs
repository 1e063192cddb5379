//! summary.md: the report's text and tables in Markdown, for a terminal, a
//! pull request or a commit; the charts are in index.html beside it.

use super::block::Block;

pub fn render(blocks: &[Block]) -> String {
    let mut out = String::new();
    let mut chart_noted = false;
    for block in blocks {
        match block {
            Block::Chart(_) if !chart_noted => {
                out.push_str("Charts: see index.html.\n\n");
                chart_noted = true;
            }
            Block::Chart(_) => {}
            Block::Heading(..) => {
                chart_noted = false;
                write(block, &mut out);
            }
            _ => write(block, &mut out),
        }
    }
    out.trim_end().to_string() + "\n"
}

fn write(block: &Block, out: &mut String) {
    match block {
        Block::Heading(level, text) => out.push_str(&format!("{} {text}\n\n", "#".repeat(*level as usize))),
        Block::Para(text) => out.push_str(&format!("{text}\n\n")),
        Block::Table(t) => out.push_str(&t.markdown()),
        Block::Link { text, href } => out.push_str(&format!("[{text}]({href})\n\n")),
        Block::Chart(_) | Block::ChartKey(_) | Block::Contents => {}
        Block::List(items) => {
            for item in items {
                out.push_str(&format!("- {item}\n"));
            }
            out.push('\n');
        }
        // A fold of charts alone has nothing to show here.
        Block::Details { body, .. } if body.iter().all(|b| matches!(b, Block::Chart(_) | Block::ChartKey(_))) => {}
        Block::Details { summary, body, .. } => {
            out.push_str(&format!("**{summary}**\n\n"));
            for b in body {
                write(b, out);
            }
        }
    }
}
