//! Unit tests of the PostgreSQL backend: what the conformance suite
//! (`tests/it/conformance.rs`) does not cover — connection strings,
//! migrations, the runtime it blocks on. The database tests need
//! `MEMDIR_TEST_POSTGRES_URL` and skip without it.

use std::sync::Arc;

use memdir_testkit::PgDatabase;

use super::*;

/// Every message in an error's chain, joined.
fn chain(e: &StoreError) -> String {
    let mut out = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let _ = write!(out, ": {s}");
        source = s.source();
    }
    out
}

fn query_one_text(url: &str, sql: &str) -> String {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(url, NoTls).await.expect("connect");
        let connection = tokio::spawn(connection);
        let row = client.query_one(sql, &[]).await.expect("query");
        let text: String = row.get(0);
        drop(client);
        let _ = connection.await;
        text
    })
}

#[test]
fn a_password_is_never_repeated_in_an_error_or_description() {
    const SECRET: &str = "hunter2pw";
    for url in [
        // Nobody listens on port 1.
        "postgres://memdir:hunter2pw@127.0.0.1:1/memdir?connect_timeout=5",
        "host=127.0.0.1 port=1 user=memdir password=hunter2pw dbname=memdir connect_timeout=5",
        // Unparseable, in ways whose parser message would quote a part.
        "postgres://memdir:hunter2pw@127.0.0.1:notaport/memdir",
        "postgres://memdir:hunter2pw@127.0.0.1/memdir?hunter2pw=1",
        "host=127.0.0.1 password=hunter2 pw=1",
        "host=127.0.0.1 password=x hunter2pw",
        "password='hunter2pw",
    ] {
        let err = PgStore::connect(url).expect_err(url);
        let text = chain(&err);
        assert!(!text.contains(SECRET), "{url}: {text}");
        assert!(!text.contains("hunter2"), "{url}: {text}");
        assert!(
            !PgStore::redact(url).unwrap_or_default().contains("hunter2"),
            "{url}"
        );
        assert!(!format!("{err:?}").contains("hunter2"), "{url}: {err:?}");
    }
    assert_eq!(
        PgStore::redact("postgres://memdir:hunter2pw@db.example:5433/team").as_deref(),
        Some("postgres://memdir@db.example:5433/team")
    );
    assert_eq!(
        PgStore::redact("host=/run/postgresql user=memdir password=hunter2pw dbname=team")
            .as_deref(),
        Some("postgres://memdir@[/run/postgresql]/team")
    );
    assert_eq!(PgStore::redact("port=x"), None);
}

#[test]
fn a_wrong_password_is_refused_without_being_repeated() {
    let Some(db) = PgDatabase::create() else {
        return;
    };
    let url = db.url();
    let wrong = match url.split_once("://") {
        Some((scheme, rest)) => {
            let Some((userinfo, host)) = rest.split_once('@') else {
                return; // no user to give a password for
            };
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:wrongpw123@{host}")
        }
        None => format!("{url} password=wrongpw123"),
    };
    // A server that trusts the connection takes any password.
    if let Err(err) = PgStore::connect(&wrong) {
        let text = chain(&err);
        assert!(!text.contains("wrongpw123"), "{text}");
    }
}

#[test]
fn connects_migrated_and_describes_itself_without_the_password() {
    let Some(db) = PgDatabase::create() else {
        return;
    };
    let store = PgStore::connect(db.url()).expect("connect");
    assert_eq!(store.schema_version().expect("version"), SCHEMA_VERSION);
    assert_eq!(
        usize::try_from(SCHEMA_VERSION).expect("small"),
        MIGRATIONS.len()
    );
    assert!(store.target().ends_with(&format!("/{}", db.name())));
    if let Some(password) = parse(db.url()).expect("parse").get_password() {
        let password = std::str::from_utf8(password).expect("utf-8");
        assert!(!store.target().contains(password), "{}", store.target());
        assert!(!format!("{store:?}").contains(password));
    }
    assert!(!format!("{store:?}").contains("password"));
    // Connecting again finds nothing to do.
    drop(store);
    let again = PgStore::connect(db.url()).expect("reconnect");
    assert_eq!(again.schema_version().expect("version"), SCHEMA_VERSION);
}

#[test]
fn refuses_a_newer_schema() {
    let Some(db) = PgDatabase::create() else {
        return;
    };
    drop(PgStore::connect(db.url()).expect("connect"));
    db.batch_execute("UPDATE memdir_schema SET version = 99");
    match PgStore::connect(db.url()) {
        Err(StoreError::SchemaTooNew {
            found: 99,
            supported,
        }) => assert_eq!(supported, SCHEMA_VERSION),
        other => panic!("expected SchemaTooNew, got {other:?}"),
    }
}

#[test]
fn servers_starting_together_migrate_once() {
    let Some(db) = PgDatabase::create() else {
        return;
    };
    let url = Arc::new(db.url().to_owned());
    let starts: Vec<_> = (0..6)
        .map(|_| {
            let url = Arc::clone(&url);
            std::thread::spawn(move || PgStore::connect(&url).map(|s| s.schema_version()))
        })
        .collect();
    for start in starts {
        let version = start
            .join()
            .expect("thread")
            .expect("connect")
            .expect("version");
        assert_eq!(version, SCHEMA_VERSION);
    }
}

#[test]
fn a_unix_socket_key_value_string_connects() {
    let Some(db) = PgDatabase::create() else {
        return;
    };
    let dirs = query_one_text(
        db.url(),
        "SELECT setting FROM pg_settings WHERE name = 'unix_socket_directories'",
    );
    let port = query_one_text(
        db.url(),
        "SELECT setting FROM pg_settings WHERE name = 'port'",
    );
    let user = query_one_text(db.url(), "SELECT current_user::text");
    let Some(dir) = dirs.split(',').map(str::trim).find(|d| d.starts_with('/')) else {
        return;
    };
    let mut url = format!("host={dir} port={port} user={user} dbname={}", db.name());
    let parsed = parse(db.url()).expect("parse");
    if let Some(password) = parsed.get_password() {
        let password = std::str::from_utf8(password).expect("utf-8");
        let _ = write!(url, " password='{password}'");
    }
    let store = PgStore::connect(&url).unwrap_or_else(|e| panic!("{}: {}", dir, chain(&e)));
    assert_eq!(store.schema_version().expect("version"), SCHEMA_VERSION);
    assert!(
        store.target().contains(&format!("[{dir}]")),
        "{}",
        store.target()
    );
    // The same socket as a URL.
    let url = format!(
        "postgresql://{user}@/{}?host={dir}&port={port}{}",
        db.name(),
        parsed
            .get_password()
            .map(|p| format!("&password={}", std::str::from_utf8(p).expect("utf-8")))
            .unwrap_or_default()
    );
    let store = PgStore::connect(&url).unwrap_or_else(|e| panic!("{}: {}", dir, chain(&e)));
    assert_eq!(store.schema_version().expect("version"), SCHEMA_VERSION);
}

#[test]
fn works_from_plain_threads_and_from_another_runtimes_blocking_threads() {
    let Some(db) = PgDatabase::create() else {
        return;
    };
    let store = Arc::new(PgStore::connect(db.url()).expect("connect"));
    let plain: Vec<_> = (0..4)
        .map(|i| {
            let store = Arc::clone(&store);
            std::thread::spawn(move || {
                let token = store.create_token(&format!("org{i}")).expect("token");
                store.verify_token(&token.token).expect("verify")
            })
        })
        .collect();
    for (i, t) in plain.into_iter().enumerate() {
        assert_eq!(t.join().expect("thread"), Some(format!("org{i}")));
    }
    let other = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let verified = other.block_on(async {
        let mut tasks = Vec::new();
        for i in 0..8 {
            let store = Arc::clone(&store);
            tasks.push(tokio::task::spawn_blocking(move || {
                let token = store.create_token(&format!("blocking{i}")).expect("token");
                store.verify_token(&token.token).expect("verify")
            }));
        }
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.expect("task"));
        }
        out
    });
    for (i, org) in verified.into_iter().enumerate() {
        assert_eq!(org, Some(format!("blocking{i}")));
    }
    // The last handle dropped inside an async task must not panic (a
    // runtime may not be dropped there the blocking way).
    other.block_on(async move {
        tokio::spawn(async move { drop(store) })
            .await
            .expect("dropped in a task");
    });
}

/// Keys that name one file, written before such keys were refused, keep
/// working: both read, both can be written, a third spelling is refused.
#[test]
fn keys_that_name_one_file_from_before_keep_working() {
    let Some(db) = PgDatabase::create() else {
        return;
    };
    let store = PgStore::connect(db.url()).expect("connect");
    let one = BTreeMap::from([("deploy.md".to_owned(), "lower".to_owned())]);
    let limits = crate::Limits { max_entries: 10 };
    let put = |entries: &BTreeMap<String, String>, if_match: &crate::IfMatch| {
        store
            .put(&PutRequest {
                org: "o",
                repo: "a/b",
                entries,
                if_match,
                limits,
            })
            .expect("put")
    };
    assert!(matches!(
        put(&one, &crate::IfMatch::Absent),
        PutOutcome::Accepted(_)
    ));
    // The other spelling, as an older server would have stored it.
    let sums = BTreeMap::from([
        (
            "Deploy.md".to_owned(),
            memdir_protocol::entry_checksum("upper"),
        ),
        (
            "deploy.md".to_owned(),
            memdir_protocol::entry_checksum("lower"),
        ),
    ]);
    db.batch_execute(&format!(
        "INSERT INTO memdir_entries (org, repo, key, content, checksum)
         VALUES ('o', 'a/b', 'Deploy.md', 'upper'::bytea, '{}');
         UPDATE memdir_repos SET checksum = '{}' WHERE org = 'o' AND repo = 'a/b';",
        sums["Deploy.md"],
        memdir_protocol::repo_checksum(&sums)
    ));
    let state = store
        .get("o", "a/b", View::Full)
        .expect("get")
        .expect("some");
    assert_eq!(
        state
            .entries
            .as_ref()
            .map(|e| e.keys().cloned().collect::<Vec<_>>()),
        Some(vec!["Deploy.md".to_owned(), "deploy.md".to_owned()])
    );
    let both = BTreeMap::from([
        ("Deploy.md".to_owned(), "UPPER".to_owned()),
        ("deploy.md".to_owned(), "LOWER".to_owned()),
    ]);
    let PutOutcome::Accepted(state) = put(&both, &crate::IfMatch::Checksum(state.checksum)) else {
        panic!("the held spellings are refused");
    };
    let third = BTreeMap::from([("DEPLOY.md".to_owned(), "third".to_owned())]);
    assert_eq!(
        put(&third, &crate::IfMatch::Checksum(state.checksum)),
        PutOutcome::KeyCollision {
            key: "DEPLOY.md".to_owned(),
            existing: "Deploy.md".to_owned(),
        }
    );
}
