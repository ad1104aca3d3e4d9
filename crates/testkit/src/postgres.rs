//! A fresh PostgreSQL database per test, on the server that
//! `MEMDIR_TEST_POSTGRES_URL` names, dropped when the test ends.

use std::io::Write as _;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The variable that names the PostgreSQL server for tests: a connection
/// string (URL or `key=value` pairs) of a role that may create databases.
pub const POSTGRES_URL_VAR: &str = "MEMDIR_TEST_POSTGRES_URL";

/// Set to `1`, a test that needs PostgreSQL fails instead of skipping when
/// [`POSTGRES_URL_VAR`] is unset.
pub const REQUIRE_POSTGRES_VAR: &str = "MEMDIR_REQUIRE_POSTGRES";

/// Distinguishes the databases one test process makes.
static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A database made for one test; dropped (with its connections) when this
/// value is.
#[derive(Debug)]
pub struct PgDatabase {
    admin: String,
    name: String,
    url: String,
}

impl PgDatabase {
    /// A new, empty database on the server of [`POSTGRES_URL_VAR`], or
    /// `None` when the variable is unset: then the test should return
    /// early, and this has said on stderr that it is skipped. Panics
    /// instead when [`REQUIRE_POSTGRES_VAR`] is `1`.
    #[must_use]
    pub fn create() -> Option<Self> {
        let admin = match std::env::var(POSTGRES_URL_VAR) {
            Ok(url) if !url.trim().is_empty() => url,
            _ => {
                assert!(
                    std::env::var(REQUIRE_POSTGRES_VAR).as_deref() != Ok("1"),
                    "{REQUIRE_POSTGRES_VAR}=1 but {POSTGRES_URL_VAR} is not set"
                );
                let test = std::thread::current().name().unwrap_or("a test").to_owned();
                // Straight to the stream, past libtest's capture, so that
                // a passing run shows it too.
                let _ = writeln!(
                    std::io::stderr(),
                    "skipped: postgres ({POSTGRES_URL_VAR} not set): {test}"
                );
                return None;
            }
        };
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!(
            "memdir_test_{}_{}_{nanos:08x}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        execute(&admin, &format!("CREATE DATABASE {name}"));
        let url = with_dbname(&admin, &name);
        Some(Self { admin, name, url })
    }

    /// The connection string of this database (the server's, with its
    /// database name).
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The database's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs SQL statements in this database.
    pub fn batch_execute(&self, sql: &str) {
        execute(&self.url, sql);
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        if std::thread::panicking() {
            // Keep the first failure the one reported.
            let _ = try_execute(&self.admin, &sql);
        } else {
            execute(&self.admin, &sql);
        }
    }
}

/// `url` naming the database `dbname` instead of its own: the path of a
/// URL is replaced, a `key=value` string gets a later `dbname`, which
/// wins.
#[must_use]
pub fn with_dbname(url: &str, dbname: &str) -> String {
    for scheme in ["postgres://", "postgresql://"] {
        if let Some(rest) = url.strip_prefix(scheme) {
            let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
            let (authority, tail) = rest.split_at(authority_end);
            let query = tail.find('?').map_or("", |at| &tail[at..]);
            return format!("{scheme}{authority}/{dbname}{query}");
        }
    }
    format!("{url} dbname={dbname}")
}

fn execute(url: &str, sql: &str) {
    try_execute(url, sql).unwrap_or_else(|e| panic!("PostgreSQL: {sql}: {e}"));
}

fn try_execute(url: &str, sql: &str) -> Result<(), tokio_postgres::Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
        let connection = tokio::spawn(connection);
        let result = client.batch_execute(sql).await;
        drop(client);
        let _ = connection.await;
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dbname_replaces_a_url_path_or_follows_key_values() {
        assert_eq!(
            with_dbname("postgres://u:p@h:1/postgres", "t"),
            "postgres://u:p@h:1/t"
        );
        assert_eq!(
            with_dbname("postgresql://u@h?sslmode=disable", "t"),
            "postgresql://u@h/t?sslmode=disable"
        );
        assert_eq!(
            with_dbname("postgresql://%2Ftmp%2Fs:5/x?connect_timeout=3", "t"),
            "postgresql://%2Ftmp%2Fs:5/t?connect_timeout=3"
        );
        assert_eq!(
            with_dbname("host=/tmp/s port=5 dbname=postgres", "t"),
            "host=/tmp/s port=5 dbname=postgres dbname=t"
        );
    }

    #[test]
    fn a_database_is_created_and_dropped() {
        let Some(db) = PgDatabase::create() else {
            return;
        };
        db.batch_execute("CREATE TABLE t (x int); INSERT INTO t VALUES (1);");
        let (admin, name) = (db.admin.clone(), db.name.clone());
        drop(db);
        let err = try_execute(&with_dbname(&admin, &name), "SELECT 1").unwrap_err();
        assert!(err.to_string().contains("db error"), "{err}");
    }
}
