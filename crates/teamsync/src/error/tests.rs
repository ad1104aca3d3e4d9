//! Unit tests of [`SyncError`](super::SyncError): what each variant maps to,
//! which failures are permanent, and that the status stays data.

use std::io;

use memdir_folder::FolderError;

use super::{ErrorType, SyncError};

fn folder_error() -> FolderError {
    FolderError::Io {
        path: "/t/team/a.md".into(),
        step: "write",
        source: io::Error::other("disk full"),
    }
}

fn refusal() -> FolderError {
    FolderError::Escape {
        folder: "/t/team".into(),
        rel: "a/b.md".into(),
        why: "a is a symbolic link".into(),
    }
}

fn unreadable(status: u16) -> SyncError {
    let source = serde_json::from_str::<serde_json::Value>("{").expect_err("not JSON");
    SyncError::Unreadable { status, source }
}

fn io_error() -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, "denied")
}

#[test]
fn each_variant_has_its_error_type() {
    let check = |e: SyncError, expected: Option<ErrorType>| {
        assert_eq!(e.error_type(), expected, "{e:?}");
    };
    check(SyncError::NoToken, Some(ErrorType::NoOauth));
    check(SyncError::NoRepo, Some(ErrorType::NoRepo));
    check(SyncError::from_answer(401, ""), Some(ErrorType::Auth));
    check(SyncError::from_answer(403, ""), Some(ErrorType::Auth));
    check(SyncError::from_answer(429, ""), Some(ErrorType::Network));
    check(SyncError::from_answer(503, ""), Some(ErrorType::Network));
    check(SyncError::from_answer(413, ""), None);
    check(unreadable(200), Some(ErrorType::Network));
    check(
        SyncError::from_transport(memdir_http::Error::Timeout {
            url: "http://h/".into(),
            timeout: std::time::Duration::from_secs(1),
            source: "timed out".into(),
        }),
        Some(ErrorType::Timeout),
    );
    check(
        SyncError::from_transport(memdir_http::Error::Transport {
            url: "http://h/".into(),
            source: "refused".into(),
        }),
        Some(ErrorType::Network),
    );
    check(SyncError::Conflict, Some(ErrorType::Conflict));
    check(SyncError::Folder(folder_error()), None);
    check(SyncError::StateWrite(folder_error()), None);
    check(SyncError::ConflictCopy(folder_error()), None);
    check(
        SyncError::List {
            path: "/t/team".into(),
            source: io_error(),
        },
        None,
    );
    check(SyncError::TooLarge { limit: 1 }, None);
    check(SyncError::TooLargeForRequest { limit: 1 }, None);
    check(SyncError::NotUtf8, None);
    check(SyncError::NameNotUtf8, None);
}

#[test]
fn the_status_is_data() {
    let e = SyncError::from_answer(418, "I'm a teapot");
    assert!(
        matches!(&e, SyncError::Status { status: 418, body } if body == "I'm a teapot"),
        "{e:?}"
    );
    assert_eq!(e.status(), Some(418));
    assert_eq!(e.to_string(), "server answered 418: I'm a teapot");
    assert!(matches!(
        SyncError::from_answer(401, ""),
        SyncError::Auth { status: 401, .. }
    ));
    assert!(matches!(
        SyncError::from_answer(502, ""),
        SyncError::Unavailable { status: 502, .. }
    ));
    assert_eq!(unreadable(200).status(), Some(200));
    assert_eq!(SyncError::Conflict.status(), None);
}

#[test]
fn an_answer_quotes_at_most_300_characters_of_its_body() {
    let SyncError::Status { body, .. } = SyncError::from_answer(400, &"é".repeat(1_000)) else {
        panic!("a 400 is an unexpected status");
    };
    assert_eq!(body.chars().count(), 300);
}

#[test]
fn permanence_follows_the_variant_and_the_status() {
    let check = |e: SyncError, expected: bool| {
        assert_eq!(e.is_permanent(), expected, "{e:?}");
    };
    for status in [400, 401, 403, 404, 413, 422, 499] {
        check(SyncError::from_answer(status, ""), true);
    }
    for status in [409, 429, 500, 503, 302] {
        check(SyncError::from_answer(status, ""), false);
    }
    check(SyncError::NoToken, true);
    check(SyncError::NoRepo, true);
    check(SyncError::Conflict, false);
    check(unreadable(400), false);
    check(
        SyncError::from_transport(memdir_http::Error::Timeout {
            url: "http://h/".into(),
            timeout: std::time::Duration::from_secs(1),
            source: "timed out".into(),
        }),
        false,
    );
    check(SyncError::StateWrite(folder_error()), false);
}

#[test]
fn messages_chain_their_causes() {
    assert_eq!(
        SyncError::StateWrite(folder_error()).describe(),
        "cannot write the sync state: cannot write /t/team/a.md: disk full"
    );
    assert_eq!(
        SyncError::ConflictCopy(folder_error()).describe(),
        "cannot keep the local edit aside: cannot write /t/team/a.md: disk full"
    );
    // A folder error reads as it always did.
    assert_eq!(
        SyncError::Folder(folder_error()).describe(),
        "cannot write /t/team/a.md: disk full"
    );
    let timeout = SyncError::from_transport(memdir_http::Error::Timeout {
        url: "http://h/".into(),
        timeout: std::time::Duration::from_secs(1),
        source: "timed out".into(),
    });
    assert!(
        timeout.describe().starts_with("request failed: "),
        "{timeout}"
    );
    assert!(
        unreadable(500)
            .describe()
            .starts_with("unreadable server answer (status 500): "),
    );
}

#[test]
fn refusals_stay_visible() {
    assert!(SyncError::Folder(refusal()).is_refusal());
    assert!(SyncError::StateWrite(refusal()).is_refusal());
    assert!(!SyncError::Folder(folder_error()).is_refusal());
    assert!(!SyncError::Conflict.is_refusal());
    assert!(
        SyncError::ConflictCopy(folder_error())
            .folder_error()
            .is_some()
    );
}
