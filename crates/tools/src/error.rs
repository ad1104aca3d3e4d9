//! The one error type of the tools: every variant's message is written for
//! the model that called the tool, which sees it as the tool's answer.

use std::path::PathBuf;

/// Why a tool call did not do what it was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The input does not have the tool's shape.
    #[error("the input is not valid for {tool}: {reason}")]
    BadInput {
        /// The tool's name.
        tool: &'static str,
        /// What is wrong, in words.
        reason: String,
    },
    /// The path does not exist.
    #[error("{} does not exist", path.display())]
    NotFound {
        /// The path asked for.
        path: PathBuf,
    },
    /// A file could not be read.
    #[error(transparent)]
    Read(#[from] memdir_memtypes::ReadError),
    /// The file holds bytes that are not text.
    #[error("{} is a binary file", path.display())]
    Binary {
        /// The file.
        path: PathBuf,
    },
    /// The search pattern is not a valid regular expression or glob.
    #[error("the pattern {pattern:?} is not valid: {reason}")]
    Pattern {
        /// The pattern given.
        pattern: String,
        /// The parser's complaint.
        reason: String,
    },
    /// A write the policy refuses (outside the memory folder, a secret in
    /// a team memory, …).
    #[error("{reason}")]
    Refused {
        /// The reason, one sentence.
        reason: String,
    },
    /// An edit whose old text does not occur exactly as required.
    #[error("{reason}")]
    Edit {
        /// What did not match.
        reason: String,
    },
    /// Reading or writing the memory folder failed.
    #[error(transparent)]
    Folder(#[from] memdir_folder::FolderError),
    /// Walking or searching the files failed.
    #[error("searching failed: {0}")]
    Search(#[source] std::io::Error),
}
