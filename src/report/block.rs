//! The report's one layout: the blocks every section is built of (`document`
//! and the sections beside it), rendered twice (`html`, `markdown`). Each
//! section returns blocks and never calls back into the document.

use super::table::Table;

/// One piece of the page: what it says, not how it is drawn.
pub enum Block {
    Heading(u8, String),
    Para(String),
    Table(Table),
    /// Inline SVG; summary.md leaves it out.
    Chart(String),
    /// How to read the charts just above it; summary.md leaves it out with them.
    ChartKey(String),
    /// index.html's links to every h2 and h3 of the page; summary.md has none.
    Contents,
    List(Vec<String>),
    /// A paragraph holding one link, relative to the report's folder.
    Link { text: String, href: String },
    /// Folded in HTML (open when short), a plain section in Markdown.
    Details { summary: String, open: bool, body: Vec<Block> },
}
