//! R9.3: a push costs in proportion to what changed. Against our server
//! the client sends `If-None-Match` on the hashes view and `Prefer:
//! return=minimal` on the PUT; against a server that ignores both it gets
//! the full answers of R8.1 and still pushes correctly.

use memdir_protocol::{entry_checksum, repo_checksum};
use memdir_testkit::{Proxy, Reply, ScriptedServer};
use serde_json::json;

use crate::support::{REPO, client_for, start, write, write_thousand};

#[test]
fn a_one_entry_push_in_a_large_repository_moves_about_that_entry() {
    let h = start();
    let proxy = Proxy::start(h.server.local_addr());
    let team = tempfile::tempdir().unwrap();
    let client = client_for(proxy.url(), team.path()).with_token(Some(h.token.clone()));
    write_thousand(team.path());
    assert!(client.push().success);
    // A pull makes the client's state mirror the server's whole view.
    assert!(client.pull().success);

    // Nothing changed anywhere: the hashes view costs a 304.
    let (sent, received) = (proxy.sent(), proxy.received());
    let r = client.push();
    assert!(r.success && r.files_uploaded == 0, "{r:?}");
    let idle = (proxy.sent() - sent) + (proxy.received() - received);
    assert!(idle < 800, "an idle push moved {idle} bytes");

    // One 1,346-byte entry changed: the whole push, both directions,
    // headers included, moves at most three times that.
    let entry = format!("{}\n", "x".repeat(1_345));
    assert_eq!(entry.len(), 1_346);
    write(team.path(), "k/0500.md", &entry);
    let (sent, received) = (proxy.sent(), proxy.received());
    let r = client.push();
    assert!(r.success && r.files_uploaded == 1, "{r:?}");
    let moved = (proxy.sent() - sent) + (proxy.received() - received);
    assert!(
        moved <= 3 * entry.len(),
        "a one-entry push moved {moved} bytes"
    );
    assert_eq!(h.stored()["k/0500.md"], entry);

    // The state the minimal answer left behind is exact: the next push
    // is a 304 again, and a second change still goes through.
    let (sent, received) = (proxy.sent(), proxy.received());
    assert!(client.push().success);
    let idle = (proxy.sent() - sent) + (proxy.received() - received);
    assert!(
        idle < 800,
        "an idle push after the change moved {idle} bytes"
    );
    write(team.path(), "k/0001.md", "second change\n");
    let r = client.push();
    assert!(r.success && r.files_uploaded == 1, "{r:?}");
    assert_eq!(h.stored()["k/0001.md"], "second change\n");
}

#[test]
fn another_members_change_is_seen_through_a_stale_tag() {
    let h = start();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (ca, cb) = (h.client(a.path()), h.client(b.path()));
    write(a.path(), "x.md", "first\n");
    assert!(ca.push().success);
    assert!(ca.pull().success);
    assert!(cb.pull().success);
    write(b.path(), "x.md", "from b\n");
    assert!(cb.push().success);
    // A's tag is stale now: the server answers 200 with the new hashes,
    // and A's own edit of the same key is held back, not sent over B's.
    write(a.path(), "x.md", "from a\n");
    let r = ca.push();
    assert!(r.success, "{r:?}");
    assert_eq!(r.files_uploaded, 0);
    assert_eq!(r.skipped.len(), 1, "{r:?}");
    assert_eq!(h.stored()["x.md"], "from b\n");
}

#[test]
fn a_server_that_ignores_both_headers_still_gets_a_correct_push() {
    let sum = entry_checksum("hello\n");
    let sums = std::collections::BTreeMap::from([("a.md".to_owned(), sum.clone())]);
    let after = repo_checksum(&sums);
    let data = |checksum: &str, sums: serde_json::Value| {
        json!({"organizationId": "acme", "repo": REPO, "version": 1,
               "lastModified": null, "checksum": checksum,
               "content": {"entryChecksums": sums}})
    };
    let server = ScriptedServer::start(vec![
        Reply::json(404, &json!({"error": "not_found", "message": "none"})),
        Reply::json(200, &data(&after, json!({"a.md": sum}))),
        // The second push: the server ignores If-None-Match and answers
        // the full hashes view.
        Reply::json(200, &data(&after, json!({"a.md": sum}))),
    ]);
    let team = tempfile::tempdir().unwrap();
    let client = client_for(server.url(), team.path()).with_token(Some("t".to_owned()));
    write(team.path(), "a.md", "hello\n");
    let r = client.push();
    assert!(r.success && r.files_uploaded == 1, "{r:?}");
    let r = client.push();
    assert!(r.success && r.files_uploaded == 0, "{r:?}");
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[0].header("if-none-match"), None, "no state yet");
    assert_eq!(requests[1].method, "PUT");
    assert_eq!(requests[1].header("prefer"), Some("return=minimal"));
    // The full PUT answer left a complete state, so the next GET asks
    // whether anything changed since.
    assert_eq!(
        requests[2].header("if-none-match"),
        Some(format!("\"{after}\"").as_str())
    );
}
