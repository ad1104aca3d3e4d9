//! Two organisations on one server see nothing of each other.

use serde_json::json;

use crate::support::{quiet, start};

#[test]
fn another_organisations_repository_looks_exactly_like_none() {
    let h = start(quiet());
    let (acme, other) = (h.token("acme"), h.token("other"));
    assert_eq!(
        h.put(&acme, "acme/app", None, &json!({"a.md": "secret plan"}))
            .status,
        200
    );

    for view in ["", "&view=hashes"] {
        let foreign = h.get(
            Some(&other),
            &format!("/api/claude_code/team_memory?repo=acme/app{view}"),
        );
        let missing = h.get(
            Some(&other),
            &format!("/api/claude_code/team_memory?repo=acme/nothing{view}"),
        );
        assert_eq!(foreign.status, 404);
        assert_eq!(
            (foreign.status, &foreign.body, &foreign.etag),
            (missing.status, &missing.body, &missing.etag)
        );
        assert_eq!(
            foreign.body,
            json!({"error": "not_found", "message": "no team memory for this repository"})
        );
    }

    // A write under the same name makes the other organisation's own
    // repository; the first one is untouched.
    let own = h.put(&other, "acme/app", None, &json!({"b.md": "theirs"}));
    assert_eq!(
        (
            own.status,
            &own.body["version"],
            &own.body["organizationId"]
        ),
        (200, &json!(1), &json!("other"))
    );
    let acme_view = h.repo(&acme, "acme/app");
    assert_eq!(
        acme_view.body["content"]["entries"],
        json!({"a.md": "secret plan"})
    );
    assert_eq!(acme_view.body["version"], json!(1));
    let other_view = h.repo(&other, "acme/app");
    assert_eq!(
        other_view.body["content"]["entries"],
        json!({"b.md": "theirs"})
    );
}

#[test]
fn a_revoked_token_reads_nothing() {
    let h = start(quiet());
    let created = h.store.create_token("acme").unwrap();
    assert_eq!(
        h.put(&created.token, "o/r", None, &json!({"k.md": "v"}))
            .status,
        200
    );
    h.store.revoke_token(&created.prefix).unwrap();
    let r = h.repo(&created.token, "o/r");
    assert_eq!(r.status, 401);
}
