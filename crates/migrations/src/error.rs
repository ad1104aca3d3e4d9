//! What stops a run. A file that cannot be migrated does not: it is
//! reported in the [`Report`](crate::Report) and left alone.

use std::io;
use std::path::PathBuf;

use memdir_settings::SettingsWriteError;

/// Why a run of the migrations could not go on. Files already written stay
/// written; each is complete (atomic replacement).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MigrationError {
    /// memdir's folder under the base cannot be created.
    #[error("cannot create {}: {source}", path.display())]
    StateDir {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The run's lock cannot be opened or taken.
    #[error("cannot lock {}: {source}", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// memdir's state file cannot be written.
    #[error("cannot record the migrations' done-flags: {0}")]
    State(#[source] SettingsWriteError),
    /// The event log cannot be appended to.
    #[error("cannot append to the migrations' log {}: {source}", path.display())]
    EventLog {
        /// The log file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}
