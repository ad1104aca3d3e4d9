//! The one error type of the crate: what stops a whole run. A single
//! file's failure is not one of these; it is that file's
//! [`FileError`](crate::FileError) in the result.

use std::path::PathBuf;

/// Why file persistence could not run at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PersistError {
    /// The session id is not one plain folder name, so it cannot name the
    /// outputs folder safely.
    #[error(
        "the remote session id {id:?} is not a plain folder name; refusing to use it as a path"
    )]
    UnsafeSessionId {
        /// The id as given.
        id: String,
    },
    /// The outputs folder is a symbolic link or not a folder.
    #[error("the outputs folder {} is {kind}, not a folder", path.display())]
    OutputsNotAFolder {
        /// The outputs folder.
        path: PathBuf,
        /// What it is: `a symbolic link`, `a regular file`, ….
        kind: &'static str,
    },
    /// The outputs folder exists but cannot be read.
    #[error("cannot list the outputs folder {}", path.display())]
    ListOutputs {
        /// The outputs folder.
        path: PathBuf,
        /// What the system reported.
        #[source]
        source: std::io::Error,
    },
    /// The API's base URL is not a usable URL.
    #[error("the Files API base url is not usable")]
    BaseUrl(#[source] memdir_http::Error),
}
