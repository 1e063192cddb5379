//! `/fortunes` (SPEC §8.3): TechEmpower's page through askama, the template
//! engine axum's own examples use. The template (`templates/fortunes.html`)
//! is compiled into the binary, and askama's HTML escaping, on for `.html`
//! templates, writes each message with `&`, `<`, `>`, `"` and `'` escaped
//! (`&amp;`, then numeric references: `&#60;`, `&#62;`, `&#34;`, `&#39;`).

use crate::AppState;
use crate::error::AppError;
use crate::world::{failed, unavailable};
use askama::Template;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Html;

pub struct Fortune {
    pub id: i32,
    pub message: String,
}

#[derive(Template)]
#[template(path = "fortunes.html")]
pub struct FortunesPage {
    pub fortunes: Vec<Fortune>,
}

pub async fn fortunes(State(state): State<AppState>) -> Result<Html<String>, AppError> {
    let conn = state.db.connection().await.map_err(unavailable)?;
    let statement = conn.prepare_cached("SELECT id, message FROM fortune").await.map_err(failed)?;
    let rows = conn.query(&statement, &[]).await.map_err(failed)?;
    // Back to the pool before the sort and the template.
    drop(conn);
    let mut fortunes: Vec<Fortune> = rows.iter().map(|row| Fortune { id: row.get(0), message: row.get(1) }).collect();
    fortunes.push(Fortune { id: 0, message: "Additional fortune added at request time.".into() });
    // Rust compares strings by their UTF-8 bytes: code point order.
    fortunes.sort_unstable_by(|a, b| a.message.cmp(&b.message));
    let page = FortunesPage { fortunes }
        .render()
        .map_err(|e| AppError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("rendering the page: {e}")))?;
    Ok(Html(page))
}
