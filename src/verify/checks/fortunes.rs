//! The fortunes page of SPEC §8.3, compared as TechEmpower's verifier
//! compares it: tag by tag and text by text, so that whitespace between
//! tags, the letter case of tag names and the spelling of a character
//! reference (`&#39;`, `&apos;` or `'`) do not matter, while a message that
//! was not escaped (its `<script>` becomes a tag) does. `<meta>`, `<thead>`
//! and `<tbody>` are ignored, as there.

/// A page as a sequence of tags (normalized) and texts (decoded, trimmed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    Tag(String),
    Text(String),
}

const IGNORED: &[&str] = &["meta", "thead", "/thead", "tbody", "/tbody"];
const ADDED: &str = "Additional fortune added at request time.";

/// The tokens of the page for the `stored` fortunes: theirs and the one
/// added at request time, sorted by message in code point order.
pub fn expected(stored: &[(i32, String)]) -> Vec<Token> {
    let mut rows: Vec<(i32, String)> = stored.to_vec();
    rows.push((0, ADDED.to_string()));
    rows.sort_by(|a, b| a.1.cmp(&b.1));
    let tag = |t: &str| Token::Tag(t.to_string());
    let text = |t: &str| Token::Text(t.to_string());
    let mut page: Vec<Token> = ["!doctype html", "html", "head", "title"].map(tag).to_vec();
    page.push(text("Fortunes"));
    page.extend(["/title", "/head", "body", "table", "tr", "th"].map(tag));
    page.extend([text("id"), tag("/th"), tag("th"), text("message"), tag("/th"), tag("/tr")]);
    for (id, message) in &rows {
        page.extend([tag("tr"), tag("td"), text(&id.to_string()), tag("/td"), tag("td"), text(message), tag("/td"), tag("/tr")]);
    }
    page.extend(["/table", "/body", "/html"].map(tag));
    page
}

/// Splits `html` at `<…>`; whitespace-only text between tags is dropped.
pub fn tokens(html: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut rest = html;
    while !rest.is_empty() {
        let (text, after) = rest.split_at(rest.find('<').unwrap_or(rest.len()));
        let text = collapse(&decode(text));
        if !text.is_empty() {
            out.push(Token::Text(text));
        }
        let Some(inside) = after.strip_prefix('<') else { break };
        let end = inside.find('>').unwrap_or(inside.len());
        let tag = collapse(&inside[..end].to_lowercase());
        let tag = tag.trim_end_matches('/').trim_end().to_string();
        if !IGNORED.contains(&tag.split(' ').next().unwrap_or("")) {
            out.push(Token::Tag(tag));
        }
        rest = inside.get(end + 1..).unwrap_or("");
    }
    out
}

/// Fails with the first difference, shown as a reader would see it.
pub fn compare(got: &[Token], want: &[Token]) -> Result<(), String> {
    let Some(at) = (0..got.len().max(want.len())).find(|&i| got.get(i) != want.get(i)) else { return Ok(()) };
    let before: String = want[at.saturating_sub(4)..at.min(want.len())].iter().map(render).collect();
    let place = if before.is_empty() { "at its start".to_string() } else { format!("after `{before}`") };
    Err(format!("the page differs from the expected one {place}: got `{}`, want `{}`", show_from(got, at), show_from(want, at)))
}

fn show_from(tokens: &[Token], at: usize) -> String {
    if at >= tokens.len() { "(the end)".to_string() } else { tokens[at..].iter().take(5).map(render).collect() }
}

fn render(token: &Token) -> String {
    match token {
        Token::Tag(t) => format!("<{t}>"),
        Token::Text(t) => t.clone(),
    }
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Replaces character references by their characters; an unknown or
/// malformed one stays as written (and so differs from the expected text).
fn decode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        match after.find(';').and_then(|semi| Some((reference(&after[..semi])?, semi))) {
            Some((c, semi)) => {
                out.push(c);
                rest = &after[semi + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn reference(name: &str) -> Option<char> {
    let number = |digits: &str, radix| u32::from_str_radix(digits, radix).ok().and_then(char::from_u32);
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        "mdash" => Some('—'),
        _ => match name.strip_prefix('#') {
            Some(hex) if hex.starts_with(['x', 'X']) => number(&hex[1..], 16),
            Some(dec) => number(dec, 10),
            None => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored() -> Vec<(i32, String)> {
        vec![(1, "fortune: it's".into()), (2, "<script>alert(\"x\");</script>".into()), (3, "フレーム".into())]
    }

    const GOOD: &str = "<!DOCTYPE html>\n<html>\n<head><title>Fortunes</title></head>\n<body>\n<table>\n<tr><th>id</th><th>message</th></tr>\n\
        <tr><td>2</td><td>&lt;script&gt;alert(&#34;x&#34;);&lt;/script&gt;</td></tr>\n<tr><td>0</td><td>Additional fortune added at request time.</td></tr>\n\
        <tr><td>1</td><td>fortune: it&#39;s</td></tr>\n<tr><td>3</td><td>フレーム</td></tr>\n</table>\n</body>\n</html>\n";

    #[test]
    fn an_escaped_page_in_any_spelling_matches() {
        assert_eq!(compare(&tokens(GOOD), &expected(&stored())), Ok(()));
        let other = GOOD.replace("&#34;", "&quot;").replace("&#39;", "'").replace("<TABLE>", "<table >").replace('\n', "");
        assert_eq!(compare(&tokens(&other), &expected(&stored())), Ok(()));
        let with_meta = GOOD.replace("<head>", "<head><meta charset=\"utf-8\">").replace("<table>", "<table><tbody>");
        assert_eq!(compare(&tokens(&with_meta), &expected(&stored())), Ok(()));
    }

    #[test]
    fn an_unescaped_message_or_a_missing_row_differs() {
        let raw = GOOD.replace("&lt;script&gt;alert(&#34;x&#34;);&lt;/script&gt;", "<script>alert(\"x\");</script>");
        let err = compare(&tokens(&raw), &expected(&stored())).unwrap_err();
        assert!(err.contains("got `<script>"), "{err}");
        let no_added = GOOD.replace("<tr><td>0</td><td>Additional fortune added at request time.</td></tr>", "");
        assert!(compare(&tokens(&no_added), &expected(&stored())).unwrap_err().contains("want `0</td><td>Additional fortune added at request time."));
        let unsorted = GOOD.replace("<tr><td>3</td><td>フレーム</td></tr>", "").replace("<tr><td>2</td>", "<tr><td>3</td><td>フレーム</td></tr><tr><td>2</td>");
        assert!(compare(&tokens(&unsorted), &expected(&stored())).is_err());
    }
}
