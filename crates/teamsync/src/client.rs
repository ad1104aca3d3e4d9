//! The sync client's configuration. It depends on no other module of the
//! crate; the operations add their methods to [`Client`] where they live
//! (`pull.rs`, `push.rs`, `status.rs`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::SyncError;

/// `TEAM_MEMORY_SYNC_TIMEOUT_MS` (R8.5): the whole-request timeout.
pub const TEAM_MEMORY_SYNC_TIMEOUT: Duration = Duration::from_secs(30);
/// `MAX_RETRIES` (R8.5): retries of network errors, 5xx and 429.
pub const MAX_RETRIES: u32 = 3;
/// `MAX_CONFLICT_RETRIES` (R8.5): retries of a push after a 412.
pub const MAX_CONFLICT_RETRIES: u32 = 2;
/// `MAX_FILE_SIZE_BYTES` (R8.3): larger files are not pushed. The
/// protocol's largest entry, [`memdir_protocol::MAX_ENTRY_BYTES`].
pub const MAX_FILE_SIZE_BYTES: usize = memdir_protocol::MAX_ENTRY_BYTES;
/// `MAX_PUT_BODY_BYTES` (R8.3): the largest PUT body sent,
/// [`memdir_protocol::MAX_PUT_BODY_BYTES`].
pub const MAX_PUT_BODY_BYTES: usize = memdir_protocol::MAX_PUT_BODY_BYTES;

/// A team-memory sync client: where the server is, who we are, which
/// repository, and which local folder holds the team memory.
///
/// ```
/// use memdir_teamsync::Client;
/// let client = Client::new("http://127.0.0.1:8765", "/tmp/team")
///     .with_token(Some("mdt_…".to_owned()))
///     .with_repo(Some("acme/widgets".to_owned()));
/// assert_eq!(client.repo(), Some("acme/widgets"));
/// ```
#[derive(Debug, Clone)]
pub struct Client {
    pub(crate) base_url: String,
    pub(crate) token: Option<String>,
    pub(crate) repo: Option<String>,
    pub(crate) team_dir: PathBuf,
    pub(crate) timeout: Duration,
    pub(crate) backoff_base: Duration,
    pub(crate) backoff_max: Duration,
}

impl Client {
    /// A client of the server at `base_url` (scheme, host, port) for the
    /// team folder `team_dir`, with no token and no repository yet.
    pub fn new(base_url: impl Into<String>, team_dir: impl Into<PathBuf>) -> Self {
        Self {
            base_url: base_url.into().trim_end_matches('/').to_owned(),
            token: None,
            repo: None,
            team_dir: team_dir.into(),
            timeout: TEAM_MEMORY_SYNC_TIMEOUT,
            backoff_base: Duration::from_millis(500),
            backoff_max: Duration::from_secs(30),
        }
    }

    /// Sets the bearer token; `None` makes every sync fail with `no_oauth`.
    #[must_use]
    pub fn with_token(mut self, token: Option<String>) -> Self {
        self.token = token.filter(|t| !t.trim().is_empty());
        self
    }

    /// Sets the repository (`owner/name`); `None` makes every sync fail
    /// with `no_repo`. See [`crate::repo_from_git_config`].
    #[must_use]
    pub fn with_repo(mut self, repo: Option<String>) -> Self {
        self.repo = repo;
        self
    }

    /// Sets the per-request timeout (default 30 s).
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the retry backoff: the first wait, doubled on each retry, and
    /// the longest wait (which also caps a server's `Retry-After`).
    #[must_use]
    pub fn with_backoff(mut self, base: Duration, max: Duration) -> Self {
        self.backoff_base = base;
        self.backoff_max = max;
        self
    }

    /// The server's base URL.
    #[must_use]
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The repository, if set.
    #[must_use]
    pub fn repo(&self) -> Option<&str> {
        self.repo.as_deref()
    }

    /// The team folder.
    #[must_use]
    pub fn team_dir(&self) -> &Path {
        &self.team_dir
    }

    /// The per-request timeout.
    #[must_use]
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The token and repository, or the error that their absence means.
    pub(crate) fn credentials(&self) -> Result<(&str, &str), SyncError> {
        let token = self.token.as_deref().ok_or(SyncError::NoToken)?;
        let repo = self.repo.as_deref().ok_or(SyncError::NoRepo)?;
        Ok((token, repo))
    }
}
