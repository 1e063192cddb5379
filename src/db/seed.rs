//! The data of SPEC §8.1 and who may touch it: TechEmpower's `world` and
//! `fortune` tables (the fortunes from spec/fortunes.json), in TechEmpower's database under TechEmpower's user
//! names, so that its implementations' habits carry over. The server under
//! test logs in as [`APP_USER`], which may read both tables and update
//! `world`; concur logs in as [`ADMIN_USER`] to seed and to read what the
//! server did (`pg_stat_statements`, `pg_stat_activity`).

/// The database the routes use.
pub const DATABASE: &str = "hello_world";
/// The server's login (in CONCUR_DB_URL), with TechEmpower's password.
pub const APP_USER: &str = "benchmarkdbuser";
pub const APP_PASSWORD: &str = "benchmarkdbpass";
/// concur's own login, the cluster's superuser. The cluster listens on
/// loopback only; the password keeps other local users' programs out by
/// accident, not by secrecy.
pub const ADMIN_USER: &str = "concur";
pub const ADMIN_PASSWORD: &str = "concur-admin";

/// Rows of `world`.
pub const WORLD_ROWS: i32 = 10_000;

/// TechEmpower's twelve fortunes (SPEC §8.1), among them markup that must
/// be escaped and text that is not ASCII.
const FORTUNES_JSON: &str = include_str!("../../spec/fortunes.json");

#[derive(serde::Deserialize)]
struct Fortune {
    id: i32,
    message: String,
}

/// Run one by one as the admin on the `postgres` database of a new cluster
/// (`CREATE DATABASE` refuses to share a query string).
pub fn cluster_sql() -> Vec<String> {
    vec![
        format!("CREATE ROLE {APP_USER} LOGIN PASSWORD '{APP_PASSWORD}'"),
        format!("CREATE DATABASE {DATABASE} TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8'"),
    ]
}

/// Run one by one as the admin in the new database: the tables, their rows,
/// the grants, and fresh planner statistics (`VACUUM` runs alone).
pub fn database_sql() -> Vec<String> {
    let fortunes: Vec<Fortune> = serde_json::from_str(FORTUNES_JSON).expect("spec/fortunes.json is a list of {id, message}");
    let fortunes: Vec<String> = fortunes.iter().map(|f| format!("({}, '{}')", f.id, f.message.replace('\'', "''"))).collect();
    vec![
        "CREATE EXTENSION pg_stat_statements".into(),
        "CREATE TABLE world (id integer PRIMARY KEY, randomnumber integer NOT NULL)".into(),
        format!(
            "INSERT INTO world (id, randomnumber) \
             SELECT x, least(floor(random() * {WORLD_ROWS} + 1), {WORLD_ROWS}) FROM generate_series(1, {WORLD_ROWS}) AS x"
        ),
        "CREATE TABLE fortune (id integer PRIMARY KEY, message varchar(2048) NOT NULL)".into(),
        format!("INSERT INTO fortune (id, message) VALUES {}", fortunes.join(", ")),
        format!("GRANT SELECT, UPDATE ON world TO {APP_USER}"),
        format!("GRANT SELECT ON fortune TO {APP_USER}"),
        "VACUUM ANALYZE world".into(),
        "VACUUM ANALYZE fortune".into(),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_fortunes_of_the_spec_become_one_insert() {
        let sql = super::database_sql();
        let insert = sql.iter().find(|s| s.starts_with("INSERT INTO fortune")).unwrap();
        assert_eq!(insert.matches("), (").count(), 11, "{insert}");
        assert!(insert.contains("(2, 'A computer scientist is someone who fixes things that aren''t broken.')"), "{insert}");
        assert!(insert.contains("フレームワークのベンチマーク"), "{insert}");
    }
}
