//! The extraction step's error type.

use std::path::PathBuf;

/// Why an extraction request could not be handled.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExtractError {
    /// A state or lock file could not be created, opened or locked.
    #[error("extraction state at {}", path.display())]
    State {
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The state file could not be read.
    #[error("reading the extraction state")]
    ReadState(#[source] memdir_memtypes::ReadError),
    /// The state file is not what this version writes; it is left as it
    /// is rather than reset (the cursor would go back).
    #[error("the extraction state {} is damaged ({reason}); remove it to start over", path.display())]
    DamagedState {
        /// The state file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The state file could not be written.
    #[error("writing the extraction state")]
    WriteState(#[source] memdir_memtypes::AtomicWriteError),
    /// The transcript could not be read.
    #[error(transparent)]
    Transcript(#[from] memdir_transcript::TranscriptError),
    /// The memory folders could not be opened for the tools.
    #[error(transparent)]
    Tools(#[from] memdir_tools::ToolError),
    /// The agent could not be set up.
    #[error(transparent)]
    Agent(#[from] memdir_agent::AgentError),
    /// Reading the index or writing index lines failed.
    #[error(transparent)]
    Folder(#[from] memdir_folder::FolderError),
    /// A memory folder's path is not UTF-8 (the prompt shows it as text).
    #[error("the memory folder {} is not a UTF-8 path", path.display())]
    NotUtf8 {
        /// The folder.
        path: PathBuf,
    },
}
