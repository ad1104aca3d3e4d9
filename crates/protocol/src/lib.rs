//! memdir's team-memory sync protocol (SPEC R8.1, R9), written once for
//! both its sides: the server (`memdir-teamserver`) and the sync client
//! (`memdir-teamsync`). Neither spells a wire field, a checksum, a name
//! rule, a limit or an endpoint of its own.
//!
//! - wire types ([`RepoData`] with its [`Content`], [`PutBody`],
//!   [`ErrorBody`] with its stable [`ErrorCode`]s), serde types used for
//!   both serialising and deserialising;
//! - checksums: [`entry_checksum`] and [`repo_checksum`], `sha256:<hex>`;
//! - the team key text rules of R4.10, pure (no file system):
//!   [`validate_team_mem_key_text`], [`normalize_team_mem_key`],
//!   [`KeyError`] and [`KeyReason`] (`memdir-paths` builds the physical
//!   checks of a key joined with a team folder on them), and
//!   [`fold_team_mem_key`], the form under which two keys name one file
//!   on a case-insensitive file system;
//! - the repository rule, `owner/name`: [`validate_repo`];
//! - the shared limits: [`MAX_ENTRY_BYTES`], [`MAX_PUT_BODY_BYTES`],
//!   [`DEFAULT_MAX_ENTRIES`];
//! - the endpoints: [`TEAM_MEMORY_PATH`], [`HEALTH_PATH`], and
//!   [`TeamMemoryQuery`], which builds and parses `?repo=…&view=hashes`;
//! - what makes a push cost what changed (R9.3): [`etag`],
//!   [`none_match_hits`] for `If-None-Match`, [`prefers_minimal`] for
//!   `Prefer: return=minimal`.
//!
//! It does no I/O: no sockets, no files.
//!
//! ```
//! use std::collections::BTreeMap;
//! use memdir_protocol::{PutBody, TeamMemoryQuery, View, entry_checksum, validate_team_mem_key_text};
//!
//! let key = validate_team_mem_key_text("conventions/testing.md")?;
//! let body = PutBody { entries: BTreeMap::from([(key, "Run the tests.".to_owned())]) };
//! let json = serde_json::to_string(&body).expect("a PUT body serialises");
//! assert_eq!(json, r#"{"entries":{"conventions/testing.md":"Run the tests."}}"#);
//!
//! let q = TeamMemoryQuery { repo: "acme/widgets".into(), view: View::Hashes };
//! assert_eq!(q.url("http://127.0.0.1:8765"),
//!     "http://127.0.0.1:8765/api/claude_code/team_memory?repo=acme/widgets&view=hashes");
//! assert!(entry_checksum("Run the tests.").starts_with("sha256:"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod checksum;
mod conditional;
mod endpoint;
mod key;
mod limits;
mod repo;
mod wire;

pub use checksum::{CHECKSUM_PREFIX, entry_checksum, repo_checksum};
pub use conditional::{
    PREFER_HEADER, PREFERENCE_APPLIED_HEADER, RETURN_MINIMAL, etag, none_match_hits,
    prefers_minimal,
};
pub use endpoint::{HEALTH_PATH, REPO_PARAM, TEAM_MEMORY_PATH, TeamMemoryQuery, VIEW_PARAM, View};
pub use key::{
    KeyError, KeyReason, MAX_KEY_BYTES, MAX_SEGMENT_BYTES, fold_team_mem_key,
    normalize_team_mem_key, validate_team_mem_key_text,
};
pub use limits::{DEFAULT_MAX_ENTRIES, MAX_ENTRY_BYTES, MAX_PUT_BODY_BYTES};
pub use repo::{MAX_REPO_PART_BYTES, validate_repo};
pub use wire::{Content, ErrorBody, ErrorCode, PutBody, RepoData};

/// Why a repository name or a request's query is not one the protocol
/// accepts. (A key's text rules fail with their own [`KeyError`].)
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProtocolError {
    /// The repository is not `owner/name` by the rule of [`validate_repo`].
    #[error(
        "repo must be owner/name: each part 1-100 letters, digits, '.', '_' or '-', \
         not starting with '.'"
    )]
    InvalidRepo {
        /// The repository as given.
        repo: String,
    },
    /// The query has no `repo` parameter.
    #[error("the repo parameter (owner/name) is missing")]
    MissingRepo,
    /// The query gives `repo` twice.
    #[error("repo is given twice")]
    RepoTwice,
    /// `view` is neither `hashes` nor `full`.
    #[error("view must be 'hashes' or 'full'")]
    InvalidView {
        /// The value given.
        view: String,
    },
    /// A query value does not percent-decode to UTF-8.
    #[error("the query is not valid UTF-8")]
    QueryNotUtf8,
}
