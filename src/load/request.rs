//! Request bytes, encoded once per template and user row before the run and
//! shared read-only by the workers, so that sending is one `write` of a slice.

use super::plan::LoadPlan;
use super::scenario::Step;

/// Every request of the plan, by (user row, step).
pub struct Requests {
    bytes: Vec<u8>,
    spans: Vec<(usize, usize)>,
    rows: usize,
    steps: usize,
    /// Per step: whether it is a HEAD request (its response has no body).
    pub head: Vec<bool>,
    /// Per step: the accepted statuses, inclusive.
    pub expect: Vec<(u16, u16)>,
}

impl Requests {
    pub fn encode(plan: &LoadPlan) -> Requests {
        let uses_users = plan.steps.iter().any(Step::uses_users);
        let rows = if uses_users { plan.users.0.len().max(1) } else { 1 };
        let mut bytes = Vec::new();
        let mut spans = Vec::with_capacity(rows * plan.steps.len());
        for row in 0..rows {
            let fill = |text: &[u8]| match plan.users.0.get(row) {
                Some((user, password)) if uses_users => substitute(text, user, password),
                _ => text.to_vec(),
            };
            for step in &plan.steps {
                let start = bytes.len();
                encode_one(&mut bytes, plan, step, &fill);
                spans.push((start, bytes.len()));
            }
        }
        Requests {
            bytes,
            spans,
            rows,
            steps: plan.steps.len(),
            head: plan.steps.iter().map(|s| s.method == "HEAD").collect(),
            expect: plan.steps.iter().map(|s| s.expect.map_or((200, 399), |code| (code, code))).collect(),
        }
    }

    /// The bytes of `step` for user data row `row` (taken modulo the rows).
    #[inline]
    pub fn get(&self, row: u64, step: usize) -> &[u8] {
        let row = if self.rows == 1 { 0 } else { (row % self.rows as u64) as usize };
        let (start, end) = self.spans[row * self.steps + step];
        &self.bytes[start..end]
    }
}

fn encode_one(out: &mut Vec<u8>, plan: &LoadPlan, step: &Step, fill: &dyn Fn(&[u8]) -> Vec<u8>) {
    let body = fill(&step.body);
    out.extend_from_slice(step.method.as_bytes());
    out.push(b' ');
    out.extend_from_slice(&fill(step.path.as_bytes()));
    out.extend_from_slice(b" HTTP/1.1\r\n");
    let has = |name: &str| step.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name));
    if !has("host") {
        out.extend_from_slice(format!("Host: {}\r\n", plan.target.host).as_bytes());
    }
    for (name, value) in &step.headers {
        if name.eq_ignore_ascii_case("content-length") || (name.eq_ignore_ascii_case("connection") && !plan.keepalive) {
            continue;
        }
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(&fill(value.as_bytes()));
        out.extend_from_slice(b"\r\n");
    }
    if !body.is_empty() || matches!(step.method.as_str(), "POST" | "PUT" | "PATCH") {
        out.extend_from_slice(format!("Content-Length: {}\r\n", body.len()).as_bytes());
    }
    if !plan.keepalive {
        out.extend_from_slice(b"Connection: close\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(&body);
}

fn substitute(text: &[u8], user: &str, password: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 32);
    let mut i = 0;
    while i < text.len() {
        if text[i..].starts_with(b"{user}") {
            out.extend_from_slice(user.as_bytes());
            i += 6;
        } else if text[i..].starts_with(b"{password}") {
            out.extend_from_slice(password.as_bytes());
            i += 10;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::users::Users;

    #[test]
    fn templates_are_filled_per_row() {
        let mut plan = LoadPlan::get("http://127.0.0.1:8080/").unwrap();
        plan.steps[0] = Step {
            name: "set".into(),
            method: "POST".into(),
            path: "/password/set/{user}".into(),
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: br#"{"password":"{password}"}"#.to_vec(),
            expect: Some(200),
        };
        plan.users = Users(vec![("ann".into(), "pw1".into()), ("bo".into(), "secret".into())]);
        let r = Requests::encode(&plan);
        assert_eq!(
            String::from_utf8_lossy(r.get(1, 0)),
            "POST /password/set/bo HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\nContent-Length: 21\r\n\r\n{\"password\":\"secret\"}"
        );
        assert_eq!(r.get(2, 0), r.get(0, 0));
        assert_eq!(r.expect, [(200, 200)]);
    }

    #[test]
    fn no_keepalive_asks_to_close() {
        let mut plan = LoadPlan::get("http://127.0.0.1:8080/x").unwrap();
        plan.keepalive = false;
        let r = Requests::encode(&plan);
        assert_eq!(r.get(0, 0), b"GET /x HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nConnection: close\r\n\r\n");
        assert_eq!(r.expect, [(200, 399)]);
    }
}
