//! Why a sync, or one of its steps, failed: [`SyncError`], and the R8.6
//! `errorType` it reports ([`ErrorType`]).

use std::path::PathBuf;

use memdir_folder::FolderError;
use serde::{Deserialize, Serialize};

/// Why a sync failed (R8.6 `errorType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorType {
    /// The server refused the token (401 or 403).
    Auth,
    /// The server did not answer in time, after retries.
    Timeout,
    /// The connection failed, or the server kept failing (5xx, 429), after
    /// retries.
    Network,
    /// Other writers kept changing the repository: 412 after every retry.
    Conflict,
    /// No credentials are configured.
    NoOauth,
    /// No usable `owner/name` repository (no github.com `origin` remote).
    NoRepo,
}

/// How many characters of an unexpected answer's body an error quotes.
pub(crate) const QUOTED_BODY_CHARS: usize = 300;

/// Why a sync, or one key or file of it, failed.
///
/// What a caller needs to decide is a field, never a message to parse: the
/// HTTP status of an answer, the folder error and its
/// [`FolderError::is_refusal`], the size limit. [`SyncError::error_type`]
/// is the R8.6 `errorType` of the variant. A [`crate::SyncResult`] carries
/// the error's text (with its causes) in `error`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SyncError {
    /// No bearer token is configured (`no_oauth`).
    #[error("no team sync token is configured")]
    NoToken,
    /// No usable `owner/name` repository: no github.com `origin` remote
    /// (`no_repo`).
    #[error("no github.com origin remote to name the repository")]
    NoRepo,
    /// The server refused the token: 401 or 403 (`auth`).
    #[error("server answered {status}: {body}")]
    Auth {
        /// The HTTP status, 401 or 403.
        status: u16,
        /// The start of the answer's body, at most 300 characters.
        body: String,
    },
    /// The server kept failing, 5xx or 429, after every retry (`network`).
    #[error("server answered {status}: {body}")]
    Unavailable {
        /// The HTTP status of the last answer.
        status: u16,
        /// The start of the last answer's body, at most 300 characters.
        body: String,
    },
    /// An answer whose status the operation does not expect (no
    /// `errorType`), such as 400 or 413.
    #[error("server answered {status}: {body}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// The start of the answer's body, at most 300 characters.
        body: String,
    },
    /// An answer whose body is not the JSON the protocol describes
    /// (`network`).
    #[error("unreadable server answer (status {status})")]
    Unreadable {
        /// The HTTP status of the answer.
        status: u16,
        /// Why the body could not be read.
        #[source]
        source: serde_json::Error,
    },
    /// The request did not complete in time, after retries (`timeout`).
    #[error("request failed")]
    Timeout {
        /// What the HTTP client reported.
        source: memdir_http::Error,
    },
    /// The connection failed or broke off, after retries (`network`).
    #[error("request failed")]
    Transport {
        /// What the HTTP client reported.
        source: memdir_http::Error,
    },
    /// Other writers kept changing the repository: 412 after every retry
    /// (`conflict`).
    #[error("the repository kept changing under the push")]
    Conflict,
    /// The team folder, or a file in it, could not be opened, locked, read
    /// or written; [`SyncError::is_refusal`] tells a refused path.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// The sync state file could not be written.
    #[error("cannot write the sync state")]
    StateWrite(#[source] FolderError),
    /// A local edit a pull was about to replace could not be copied to
    /// `.conflicts/`, so the server's entry was not written.
    #[error("cannot keep the local edit aside")]
    ConflictCopy(#[source] FolderError),
    /// A folder under the team folder could not be listed.
    #[error("cannot list {}", path.display())]
    List {
        /// The folder.
        path: PathBuf,
        /// What the system reported.
        #[source]
        source: std::io::Error,
    },
    /// A local file is over the size a push may send.
    #[error("over the {limit}-byte limit")]
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// A local file cannot fit in one request body, even alone.
    #[error("too large for one {limit}-byte request")]
    TooLargeForRequest {
        /// The largest request body, in bytes.
        limit: usize,
    },
    /// A local file is not UTF-8 text.
    #[error("not UTF-8 text")]
    NotUtf8,
    /// A local file's name is not UTF-8.
    #[error("the file name is not UTF-8")]
    NameNotUtf8,
}

impl SyncError {
    /// The error of an HTTP answer that an operation does not handle:
    /// [`SyncError::Auth`] for 401 and 403, [`SyncError::Unavailable`] for
    /// 429 and 5xx, [`SyncError::Status`] otherwise, quoting at most 300
    /// characters of the body.
    #[must_use]
    pub fn from_answer(status: u16, body: &str) -> Self {
        let body: String = body.chars().take(QUOTED_BODY_CHARS).collect();
        match status {
            401 | 403 => Self::Auth { status, body },
            429 | 500.. => Self::Unavailable { status, body },
            _ => Self::Status { status, body },
        }
    }

    /// The error of a request that did not complete: [`SyncError::Timeout`]
    /// or [`SyncError::Transport`].
    pub(crate) fn from_transport(source: memdir_http::Error) -> Self {
        if matches!(source, memdir_http::Error::Timeout { .. }) {
            Self::Timeout { source }
        } else {
            Self::Transport { source }
        }
    }

    /// The R8.6 `errorType` this error reports, if it has one.
    #[must_use]
    pub fn error_type(&self) -> Option<ErrorType> {
        match self {
            Self::NoToken => Some(ErrorType::NoOauth),
            Self::NoRepo => Some(ErrorType::NoRepo),
            Self::Auth { .. } => Some(ErrorType::Auth),
            Self::Timeout { .. } => Some(ErrorType::Timeout),
            Self::Unavailable { .. } | Self::Unreadable { .. } | Self::Transport { .. } => {
                Some(ErrorType::Network)
            }
            Self::Conflict => Some(ErrorType::Conflict),
            Self::Status { .. }
            | Self::Folder(_)
            | Self::StateWrite(_)
            | Self::ConflictCopy(_)
            | Self::List { .. }
            | Self::TooLarge { .. }
            | Self::TooLargeForRequest { .. }
            | Self::NotUtf8
            | Self::NameNotUtf8 => None,
        }
    }

    /// The HTTP status of the server's answer, when the error comes from
    /// one.
    #[must_use]
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Auth { status, .. }
            | Self::Unavailable { status, .. }
            | Self::Status { status, .. }
            | Self::Unreadable { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The folder error underneath, if there is one.
    #[must_use]
    pub fn folder_error(&self) -> Option<&FolderError> {
        match self {
            Self::Folder(e) | Self::StateWrite(e) | Self::ConflictCopy(e) => Some(e),
            _ => None,
        }
    }

    /// Whether the team folder refused a path (it would escape the folder,
    /// or is not a valid path in it): [`FolderError::is_refusal`].
    #[must_use]
    pub fn is_refusal(&self) -> bool {
        self.folder_error().is_some_and(FolderError::is_refusal)
    }

    /// Whether retrying cannot help until something changes (R8.8): no
    /// token, no repository, a refused token, or an answer of 4xx other
    /// than 409 and 429.
    #[must_use]
    pub fn is_permanent(&self) -> bool {
        match self {
            Self::NoToken | Self::NoRepo | Self::Auth { .. } => true,
            Self::Status { status, .. } => {
                (400..500).contains(status) && *status != 409 && *status != 429
            }
            _ => false,
        }
    }

    /// The message with its causes on one line, as a sync result's `error`
    /// shows it.
    #[must_use]
    pub fn describe(&self) -> String {
        describe(self)
    }
}

/// An error and its causes on one line, for the string messages of a
/// sync result.
fn describe(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let line = cause.to_string();
        if !text.contains(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests;
