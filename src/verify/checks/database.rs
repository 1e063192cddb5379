//! SPEC §8.3, what the database routes answer: rows of the right shape
//! whose numbers are the database's, N clamped, `/updates` changing exactly
//! the rows it returns (read back from the database), and the fortunes page.

use super::fortunes;
use super::{Check, Ctx, Response, Verdict, expect_status};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

pub fn checks() -> Vec<Check> {
    vec![
        Check { id: "db-row", section: "§8.3", about: "GET /db is one row {id, randomNumber} of world, drawn at random, as the database holds it", run: db_row },
        Check { id: "db-queries", section: "§8.3", about: "/queries?queries=N: N rows as the database holds them; N of 0, 1, 20, 500, 501, foo, empty and missing clamped to 1..500", run: db_queries },
        Check { id: "db-updates", section: "§8.3", about: "/updates?queries=N: the N rows with new numbers, written to the database (read back), no other row changed; N clamped", run: db_updates },
        Check { id: "db-fortunes", section: "§8.3", about: "GET /fortunes is TechEmpower's page: every fortune and one added per request, sorted, escaped, UTF-8", run: db_fortunes },
    ]
}

/// The `queries` values sent, each with the N it must count as.
const CLAMPS: &[(Option<&str>, usize)] = &[(Some("0"), 1), (Some("1"), 1), (Some("20"), 20), (Some("500"), 500), (Some("501"), 500), (Some("foo"), 1), (Some(""), 1), (None, 1)];

fn target(route: &str, n: Option<&str>) -> String {
    n.map_or(route.to_string(), |n| format!("{route}?queries={n}"))
}

/// The body of a 200 `application/json` response, parsed.
pub fn json_body(r: &Response, what: &str) -> Result<Value, String> {
    expect_status(r, 200, what)?;
    if r.media_type() != "application/json" {
        return Err(format!("{what}: Content-Type is {:?}, want application/json", r.header("content-type")));
    }
    serde_json::from_slice(&r.body).map_err(|e| format!("{what}: the body is not JSON ({e}): {}", r.summary()))
}

/// One row: an object with exactly `id` and `randomNumber`, both within 1..10000.
pub fn row(v: &Value, what: &str) -> Result<(i32, i32), String> {
    let wrong = || format!("{what}: {v} is not a row {{\"id\":1..10000,\"randomNumber\":1..10000}} with exactly these two members (SPEC §8.3)");
    let object = v.as_object().filter(|o| o.len() == 2).ok_or_else(wrong)?;
    let field = |name: &str| object.get(name).and_then(Value::as_i64).filter(|n| (1..=10_000).contains(n)).map(|n| n as i32);
    Ok((field("id").ok_or_else(wrong)?, field("randomNumber").ok_or_else(wrong)?))
}

/// The rows of an array response, which must hold `want` of them.
pub fn rows(r: &Response, what: &str, want: usize) -> Result<Vec<(i32, i32)>, String> {
    let body = json_body(r, what)?;
    let items = body.as_array().ok_or_else(|| format!("{what}: want a JSON array of {want} rows (an array even for one), got {}", r.summary()))?;
    if items.len() != want {
        return Err(format!("{what}: {} rows, want {want}", items.len()));
    }
    items.iter().map(|v| row(v, what)).collect()
}

/// Fails on the first row whose number is not the database's.
pub fn as_in_database(rows: &[(i32, i32)], world: &BTreeMap<i32, i32>, what: &str) -> Result<(), String> {
    match rows.iter().find(|(id, n)| world.get(id) != Some(n)) {
        None => Ok(()),
        Some((id, n)) => Err(format!("{what}: row {id} has randomNumber {n}, the database {:?}: read it from the database on every request (SPEC §8.3)", world.get(id))),
    }
}

fn db_row(ctx: &Ctx) -> Verdict {
    let mut seen = Vec::new();
    for _ in 0..10 {
        let r = ctx.call("GET", "/db", b"")?;
        seen.push(row(&json_body(&r, "GET /db")?, "GET /db")?);
    }
    as_in_database(&seen, &ctx.db()?.world()?, "GET /db")?;
    if seen.iter().map(|(id, _)| id).collect::<BTreeSet<_>>().len() < 2 {
        return Err(format!("GET /db returned row {} ten times: draw the id at random from 1..10000 on every request", seen[0].0));
    }
    Ok(vec![])
}

fn db_queries(ctx: &Ctx) -> Verdict {
    let mut answered = Vec::new();
    for &(n, want) in CLAMPS {
        let what = format!("GET {}", target("/queries", n));
        answered.extend(rows(&ctx.call("GET", &target("/queries", n), b"")?, &what, want)?);
    }
    as_in_database(&answered, &ctx.db()?.world()?, "GET /queries")?;
    let distinct = answered.iter().map(|(id, _)| id).collect::<BTreeSet<_>>().len();
    if distinct < answered.len() / 2 {
        return Err(format!("GET /queries: {} rows held only {distinct} distinct ids: draw each id at random", answered.len()));
    }
    Ok(vec![])
}

fn db_updates(ctx: &Ctx) -> Verdict {
    let mut admin = ctx.db()?;
    for &(n, want) in CLAMPS {
        let what = format!("GET {}", target("/updates", n));
        let before = admin.world()?;
        let answered = rows(&ctx.call("GET", &target("/updates", n), b"")?, &what, want)?;
        written(&answered, &before, &admin.world()?, &what)?;
    }
    Ok(vec![])
}

/// Every returned row holds one of its returned numbers now, the rows
/// returned changed (a new number may equal the old one: 1 in 10,000), and
/// no other row changed.
fn written(answered: &[(i32, i32)], before: &BTreeMap<i32, i32>, after: &BTreeMap<i32, i32>, what: &str) -> Result<(), String> {
    let mut numbers: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
    for (id, n) in answered {
        numbers.entry(*id).or_default().push(*n);
    }
    for (id, ns) in &numbers {
        if !after.get(id).is_some_and(|now| ns.contains(now)) {
            return Err(format!("{what}: row {id} was returned with {ns:?} but the database holds {:?}: write the new numbers back (SPEC §8.3)", after.get(id)));
        }
    }
    let unchanged = numbers.keys().filter(|id| before.get(id) == after.get(id)).count();
    if unchanged > (numbers.len() / 10).max(1) {
        return Err(format!("{what}: {unchanged} of the {} rows returned kept their number: give each a new random number", numbers.len()));
    }
    let others: Vec<&i32> = after.keys().filter(|id| !numbers.contains_key(id) && before.get(id) != after.get(id)).take(3).collect();
    if !others.is_empty() {
        return Err(format!("{what}: rows {others:?} changed but were not returned: update exactly the rows read"));
    }
    Ok(())
}

fn db_fortunes(ctx: &Ctx) -> Verdict {
    let stored = ctx.db()?.fortunes()?;
    let want = fortunes::expected(&stored);
    // Twice: the added fortune belongs to each request, not to a list that grows.
    for _ in 0..2 {
        let r = ctx.call("GET", "/fortunes", b"")?;
        expect_status(&r, 200, "GET /fortunes")?;
        let ctype = r.header("content-type").unwrap_or("").to_ascii_lowercase().replace(' ', "");
        if ctype != "text/html;charset=utf-8" {
            return Err(format!("GET /fortunes: Content-Type is {ctype:?}, want \"text/html; charset=utf-8\""));
        }
        let page = std::str::from_utf8(&r.body).map_err(|e| format!("GET /fortunes: the page is not UTF-8 ({e})"))?;
        fortunes::compare(&fortunes::tokens(page), &want).map_err(|e| format!("GET /fortunes: {e} (SPEC §8.3)"))?;
    }
    Ok(vec![])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_row_has_exactly_id_and_random_number_in_range() {
        assert_eq!(row(&json!({"id": 5, "randomNumber": 10000}), "x"), Ok((5, 10000)));
        for bad in [json!({"id": 5}), json!({"id": 5, "randomnumber": 3}), json!({"id": 0, "randomNumber": 3}), json!({"id": 5, "randomNumber": "3"}), json!({"id": 5, "randomNumber": 3, "x": 1}), json!([5, 3])] {
            assert!(row(&bad, "x").is_err(), "{bad}");
        }
    }

    #[test]
    fn updates_must_land_on_exactly_the_returned_rows() {
        let before: BTreeMap<i32, i32> = [(1, 10), (2, 20), (3, 30)].into();
        let after: BTreeMap<i32, i32> = [(1, 11), (2, 21), (3, 30)].into();
        assert_eq!(written(&[(1, 11), (2, 21)], &before, &after, "x"), Ok(()));
        // The same id drawn twice: the row keeps one of the two numbers.
        assert_eq!(written(&[(1, 99), (1, 11), (2, 21)], &before, &after, "x"), Ok(()));
        assert!(written(&[(1, 12), (2, 21)], &before, &after, "x").unwrap_err().contains("row 1 was returned with [12]"));
        assert!(written(&[(1, 11)], &before, &after, "x").unwrap_err().contains("rows [2] changed but were not returned"));
        // One row may keep its number by chance; more than a tenth may not.
        assert_eq!(written(&[(1, 11), (2, 21), (3, 30)], &before, &after, "x"), Ok(()));
        let after_none: BTreeMap<i32, i32> = [(1, 10), (2, 20), (3, 30)].into();
        assert!(written(&[(1, 10), (2, 20), (3, 30)], &before, &after_none, "x").unwrap_err().contains("3 of the 3 rows returned kept their number"));
    }
}
