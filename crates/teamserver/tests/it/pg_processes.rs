//! PostgreSQL with server processes: acknowledged writes survive a SIGKILL
//! of the server, and two server processes over one database behave as
//! one server. Each test takes a fresh database of the server that
//! `MEMDIR_TEST_POSTGRES_URL` names, and skips without it. The server
//! processes are `crash.rs`'s child.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use memdir_testkit::PgDatabase;
use serde_json::json;

use crate::crash::{ChildServer, Db, acknowledged_writes_survive_sigkill_on, agent, in_child, put};

#[test]
fn acknowledged_writes_survive_sigkill_on_postgres() {
    if in_child() {
        return;
    }
    let Some(pg) = PgDatabase::create() else {
        return;
    };
    acknowledged_writes_survive_sigkill_on(&Db::Postgres(pg.url().to_owned()));
}

/// One accepted PUT as its client saw it.
#[derive(Debug, Clone)]
struct Accepted {
    key: String,
    value: String,
    version: u64,
}

#[test]
fn two_server_processes_over_one_database_lose_no_update() {
    const CLIENTS: usize = 6;
    const PUTS: usize = 25;
    if in_child() {
        return;
    }
    let Some(pg) = PgDatabase::create() else {
        return;
    };
    let db = Db::Postgres(pg.url().to_owned());
    let token = db.open().create_token("acme").unwrap().token;
    let servers = [ChildServer::start(&db), ChildServer::start(&db)];
    let addrs: Vec<String> = servers.iter().map(|s| s.addr.clone()).collect();

    let accepted = Arc::new(Mutex::new(Vec::<Accepted>::new()));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            // Half the clients on each server.
            let addr = addrs[c % 2].clone();
            let (token, accepted) = (token.clone(), Arc::clone(&accepted));
            std::thread::spawn(move || {
                let agent = agent();
                let mut seen: Option<String> = None;
                let mut last_version = 0;
                for i in 0..PUTS {
                    let (key, value) = (format!("c{c}/{i}.md"), format!("value {c} {i}"));
                    loop {
                        let r = put(&agent, &addr, &token, seen.as_deref(), &key, &value)
                            .expect("the server answers");
                        seen = r.body["checksum"].as_str().map(str::to_owned);
                        match r.status {
                            200 => {
                                let version = r.body["version"].as_u64().unwrap();
                                assert!(version > last_version, "{version} after {last_version}");
                                last_version = version;
                                accepted.lock().unwrap().push(Accepted {
                                    key,
                                    value,
                                    version,
                                });
                                break;
                            }
                            412 | 428 => {}
                            other => panic!("{other}: {}", r.body),
                        }
                    }
                }
            })
        })
        .collect();
    for c in clients {
        c.join().unwrap();
    }
    let accepted = accepted.lock().unwrap().clone();
    assert_eq!(accepted.len(), CLIENTS * PUTS);
    let mut versions: Vec<u64> = accepted.iter().map(|a| a.version).collect();
    versions.sort_unstable();
    let expected: Vec<u64> = (1..=(CLIENTS * PUTS) as u64).collect();
    assert_eq!(versions, expected, "every accepted PUT has its own version");

    // Both servers answer with the same state, holding every accepted PUT.
    let mut states = Vec::new();
    for addr in &addrs {
        let mut resp = agent()
            .get(format!(
                "http://{addr}/api/claude_code/team_memory?repo=o/r"
            ))
            .header("Authorization", format!("Bearer {token}"))
            .call()
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        let body: serde_json::Value = resp.body_mut().read_json().unwrap();
        states.push(body);
    }
    assert_eq!(states[0], states[1]);
    let entries: BTreeMap<String, serde_json::Value> = states[0]["content"]["entries"]
        .as_object()
        .unwrap()
        .clone()
        .into_iter()
        .collect();
    for a in &accepted {
        assert_eq!(entries.get(&a.key), Some(&json!(a.value)), "{a:?} lost");
    }
    assert_eq!(states[0]["version"], json!(CLIENTS * PUTS));

    // A checksum one server handed out is stale on the other once the
    // first has moved on.
    let agent = agent();
    let old = states[0]["checksum"].as_str().unwrap().to_owned();
    let moved = put(&agent, &addrs[0], &token, Some(&old), "last.md", "x").unwrap();
    assert_eq!(moved.status, 200);
    let stale = put(&agent, &addrs[1], &token, Some(&old), "late.md", "y").unwrap();
    assert_eq!(stale.status, 412, "{}", stale.body);
    assert_eq!(stale.body["checksum"], moved.body["checksum"]);
    assert_eq!(stale.body["version"], json!(CLIENTS * PUTS + 1));
    drop(servers);
}
