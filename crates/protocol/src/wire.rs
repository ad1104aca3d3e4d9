//! The JSON bodies of SPEC R8.1, one set of types for both directions: the
//! server serialises them, the client deserialises them (and the other way
//! round for a PUT's body).
//!
//! Field names are camelCase on the wire. The client's reading is lenient
//! where the protocol lets a server say less: every field of
//! [`RepoData`] has a default, so a body with only `content.entryChecksums`
//! still reads.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A repository as the server describes it: the answer to a `GET`, to an
/// accepted `PUT` (hashes view) and the body of a 412 or 428 (hashes view,
/// with an [`ErrorBody`]'s `error` and `message` beside it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RepoData {
    /// The organisation that owns the repository.
    #[serde(default)]
    pub organization_id: String,
    /// `owner/name`.
    #[serde(default)]
    pub repo: String,
    /// The number of accepted PUTs; 0 for a repository never written.
    #[serde(default)]
    pub version: u64,
    /// When the last accepted PUT committed (ISO 8601); `null` if none did.
    #[serde(default)]
    pub last_modified: Option<String>,
    /// The whole-repository checksum ([`crate::repo_checksum`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    /// Entries and their checksums.
    #[serde(default)]
    pub content: Content,
}

/// The `content` object of [`RepoData`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Content {
    /// Key → text: in the full view only (left out of the hashes view, and
    /// of the JSON when empty).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub entries: BTreeMap<String, String>,
    /// Key → `sha256:<hex>` ([`crate::entry_checksum`]), for every entry.
    #[serde(default)]
    pub entry_checksums: BTreeMap<String, String>,
}

/// The body of a `PUT`: `{"entries": {key: text}}`, an upsert of these
/// keys (others are kept).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PutBody {
    /// Key → text.
    pub entries: BTreeMap<String, String>,
}

/// An error answer: `{"error": code, "message": text, …}`, with details
/// beside them (`key`, `reason`, `limit`, …) depending on the code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// The stable code ([`ErrorCode`]; a newer server may send others).
    pub error: String,
    /// A human-readable message.
    pub message: String,
    /// The details of this code.
    #[serde(flatten)]
    pub details: Map<String, Value>,
}

impl ErrorBody {
    /// An error body without details.
    #[must_use]
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            error: code.as_str().to_owned(),
            message: message.into(),
            details: Map::new(),
        }
    }

    /// The same body with one detail more.
    #[must_use]
    pub fn with(mut self, name: &str, value: impl Into<Value>) -> Self {
        self.details.insert(name.to_owned(), value.into());
        self
    }

    /// The code, when it is one this version knows.
    #[must_use]
    pub fn code(&self) -> Option<ErrorCode> {
        ErrorCode::from_code(&self.error)
    }
}

/// The stable codes of an [`ErrorBody`], with the status that carries
/// each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// 400: the body is not `{"entries": {key: text}}`.
    InvalidJson,
    /// 400: no `repo`, or not `owner/name` ([`crate::validate_repo`]);
    /// details: `repo` when one was given.
    InvalidRepo,
    /// 400: the query is not UTF-8, gives `repo` twice or a bad `view`.
    InvalidQuery,
    /// 400: a key breaks the text rules
    /// ([`crate::validate_team_mem_key_text`]); details: `key`, `reason`
    /// (the [`crate::KeyReason::code`]).
    InvalidKey,
    /// 400 or 431: a malformed or oversized request head.
    BadRequest,
    /// 401: no bearer token, or an unknown or revoked one.
    Unauthorized,
    /// 404: no such endpoint, or a repository with no entries.
    NotFound,
    /// 405: with an `Allow` header.
    MethodNotAllowed,
    /// 408: the request did not arrive in time.
    RequestTimeout,
    /// 411: a body without a `Content-Length`.
    LengthRequired,
    /// 412: `If-Match` is not the current checksum (a [`RepoData`] body).
    PreconditionFailed,
    /// 428: a PUT without `If-Match` to a repository with entries (a
    /// [`RepoData`] body).
    PreconditionRequired,
    /// 413: an entry over the limit; details: `key`, `bytes`, `limit`.
    EntryTooLarge,
    /// 413: a body over the limit.
    BodyTooLarge,
    /// 413: the repository would hold too many entries; details:
    /// `maxEntries`, `wouldHold`.
    TooManyEntries,
    /// 409: a new key names the same file as another key on a
    /// case-insensitive file system (equal [`crate::fold_team_mem_key`]):
    /// one the repository holds or one earlier in the same body; details:
    /// `key` (the new key) and `existing` (the other).
    KeyCollision,
    /// 500: a failure inside the server.
    Internal,
    /// 503: the database is not available.
    Unavailable,
}

impl ErrorCode {
    /// Every code.
    pub const ALL: [ErrorCode; 18] = [
        ErrorCode::InvalidJson,
        ErrorCode::InvalidRepo,
        ErrorCode::InvalidQuery,
        ErrorCode::InvalidKey,
        ErrorCode::BadRequest,
        ErrorCode::Unauthorized,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::RequestTimeout,
        ErrorCode::LengthRequired,
        ErrorCode::PreconditionFailed,
        ErrorCode::PreconditionRequired,
        ErrorCode::EntryTooLarge,
        ErrorCode::BodyTooLarge,
        ErrorCode::TooManyEntries,
        ErrorCode::KeyCollision,
        ErrorCode::Internal,
        ErrorCode::Unavailable,
    ];

    /// The code on the wire (`snake_case`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::InvalidRepo => "invalid_repo",
            ErrorCode::InvalidQuery => "invalid_query",
            ErrorCode::InvalidKey => "invalid_key",
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::RequestTimeout => "request_timeout",
            ErrorCode::LengthRequired => "length_required",
            ErrorCode::PreconditionFailed => "precondition_failed",
            ErrorCode::PreconditionRequired => "precondition_required",
            ErrorCode::EntryTooLarge => "entry_too_large",
            ErrorCode::BodyTooLarge => "body_too_large",
            ErrorCode::TooManyEntries => "too_many_entries",
            ErrorCode::KeyCollision => "key_collision",
            ErrorCode::Internal => "internal",
            ErrorCode::Unavailable => "unavailable",
        }
    }

    /// The code of a wire text, if this version knows it.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == code)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn repo_data_round_trips_in_camel_case() {
        let data = RepoData {
            organization_id: "acme".into(),
            repo: "o/r".into(),
            version: 3,
            last_modified: Some("2026-01-02T03:04:05.678Z".into()),
            checksum: Some("sha256:ab".into()),
            content: Content {
                entries: map(&[("a.md", "A")]),
                entry_checksums: map(&[("a.md", "sha256:cd")]),
            },
        };
        let value = serde_json::to_value(&data).unwrap();
        assert_eq!(
            value,
            json!({
                "organizationId": "acme",
                "repo": "o/r",
                "version": 3,
                "lastModified": "2026-01-02T03:04:05.678Z",
                "checksum": "sha256:ab",
                "content": {"entries": {"a.md": "A"}, "entryChecksums": {"a.md": "sha256:cd"}},
            })
        );
        let back: RepoData = serde_json::from_value(value).unwrap();
        assert_eq!(back, data);
    }

    #[test]
    fn the_hashes_view_has_no_entries_and_never_written_is_null() {
        let data = RepoData {
            organization_id: "acme".into(),
            repo: "o/r".into(),
            checksum: Some("sha256:e3".into()),
            ..RepoData::default()
        };
        assert_eq!(
            serde_json::to_value(&data).unwrap(),
            json!({
                "organizationId": "acme",
                "repo": "o/r",
                "version": 0,
                "lastModified": null,
                "checksum": "sha256:e3",
                "content": {"entryChecksums": {}},
            })
        );
    }

    #[test]
    fn a_sparse_answer_still_reads() {
        let data: RepoData =
            serde_json::from_str(r#"{"content":{"entryChecksums":{"k":"sha256:0"}},"extra":1}"#)
                .unwrap();
        assert_eq!(data.checksum, None);
        assert!(data.content.entries.is_empty());
        assert_eq!(data.content.entry_checksums, map(&[("k", "sha256:0")]));
        let data: RepoData = serde_json::from_str("{}").unwrap();
        assert_eq!(data, RepoData::default());
        // A 412 body: repository data with an error beside it.
        let data: RepoData = serde_json::from_value(json!({
            "error": "precondition_failed", "message": "m", "checksum": "sha256:1",
            "content": {"entryChecksums": {}}
        }))
        .unwrap();
        assert_eq!(data.checksum.as_deref(), Some("sha256:1"));
        assert!(serde_json::from_str::<RepoData>(r#"{"content":{"entries":{"k":1}}}"#).is_err());
    }

    #[test]
    fn put_bodies_round_trip_and_need_entries() {
        let body = PutBody {
            entries: map(&[("b.md", "two \"quoted\"\n"), ("a.md", "one")]),
        };
        let text = serde_json::to_string(&body).unwrap();
        assert_eq!(
            text,
            r#"{"entries":{"a.md":"one","b.md":"two \"quoted\"\n"}}"#
        );
        assert_eq!(serde_json::from_str::<PutBody>(&text).unwrap(), body);
        for bad in [
            "{}",
            "[]",
            r#"{"entries":[]}"#,
            r#"{"entries":{"k":1}}"#,
            "null",
        ] {
            assert!(serde_json::from_str::<PutBody>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn error_bodies_carry_details_beside_code_and_message() {
        let body = ErrorBody::new(ErrorCode::InvalidKey, "key \"../x\" rejected")
            .with("key", "../x")
            .with("reason", "dot-dot-segment");
        let value = serde_json::to_value(&body).unwrap();
        assert_eq!(
            value,
            json!({
                "error": "invalid_key", "message": "key \"../x\" rejected",
                "key": "../x", "reason": "dot-dot-segment",
            })
        );
        let back: ErrorBody = serde_json::from_value(value).unwrap();
        assert_eq!(back, body);
        assert_eq!(back.code(), Some(ErrorCode::InvalidKey));
        let unknown: ErrorBody =
            serde_json::from_str(r#"{"error":"teapot","message":"short and stout"}"#).unwrap();
        assert_eq!(unknown.code(), None);
    }

    #[test]
    fn error_codes_are_distinct_snake_case_and_read_back() {
        let mut seen = std::collections::BTreeSet::new();
        for code in ErrorCode::ALL {
            let text = code.as_str();
            assert!(
                text.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{text}"
            );
            assert!(seen.insert(text), "{text} twice");
            assert_eq!(ErrorCode::from_code(text), Some(code));
        }
    }
}
