//! The team-memory sync client (SPEC R8): pull and push a team memory
//! folder against a memdir team server (`memdir-teamserver`).
//!
//! - [`Client`] — server URL, bearer token, repository (`owner/name`),
//!   team folder, timeout and retry backoff.
//! - [`pull`] — each key judged three ways against the last sync: a
//!   server-only change written, a local-only change kept, both changed
//!   kept aside in `.conflicts/` before the server's entry is written;
//!   every key checked with [`memdir_protocol::validate_team_mem_key_text`]
//!   before anything is written; every write through `memdir-folder`.
//!
//! The protocol — wire types ([`memdir_protocol::RepoData`],
//! [`memdir_protocol::PutBody`]), checksums, the repository and key rules,
//! the limits — is `memdir_protocol`'s, shared with the server.
//! - [`push`] — only keys changed here from a base the server still
//!   holds, names and contents secret-scanned, size-checked, packed into
//!   bounded PUT bodies, `If-Match` with 412 retries.
//! - [`status`] — what a push would send and a pull would write
//!   ([`SyncStatus`]), from one `view=hashes` GET, writing nothing.
//! - [`Watcher`] — the R8.8 watcher: pull once, then push
//!   [`DEBOUNCE`] after the last change in the team folder.
//! - [`SyncResult`] — the R8.6 result, a `serde::Serialize` type whose
//!   JSON is R8.6's; [`ErrorType`] its `errorType`.
//! - [`SyncError`] — why a sync or a step of it failed, as data (the HTTP
//!   status, the folder error); its [`SyncError::error_type`] is the
//!   result's `errorType`.
//! - [`repo_from_git_config`], [`parse_github_remote`] — the repository
//!   identity of R8.7, read from `.git/config` without running git.
//!
//! ```no_run
//! use memdir_teamsync::{Client, repo_from_git_config};
//! let root = std::path::Path::new(".");
//! let client = Client::new("http://127.0.0.1:8765", root.join("memory/team"))
//!     .with_token(std::env::var("MEMDIR_TEAM_TOKEN").ok())
//!     .with_repo(repo_from_git_config(root));
//! let pulled = client.pull();
//! let pushed = client.push();
//! println!("{}", serde_json::to_string(&pulled)?);
//! println!("{}", serde_json::to_string(&pushed)?);
//! # Ok::<(), serde_json::Error>(())
//! ```

mod client;
mod error;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod http;
mod pull;
mod push;
mod repo;
mod result;
mod state;
mod status;
mod watch;

pub use client::{
    Client, MAX_CONFLICT_RETRIES, MAX_FILE_SIZE_BYTES, MAX_PUT_BODY_BYTES, MAX_RETRIES,
    TEAM_MEMORY_SYNC_TIMEOUT,
};
pub use error::{ErrorType, SyncError};
pub use pull::pull;
pub use push::push;
pub use repo::{parse_github_remote, repo_from_git_config};
pub use result::{SkippedKey, SkippedSecret, SyncResult};
pub use state::{CONFLICTS_DIR, STATE_FILE};
pub use status::{SyncStatus, status};
pub use watch::{DEBOUNCE, SUPPRESSED_FILE, WatchError, WatchOptions, Watcher};
