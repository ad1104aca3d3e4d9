//! The crate's error types: why an update could not run, why a template
//! cannot be used, and why an edit of the notes was refused.

use std::path::PathBuf;

/// Why reading, creating or updating a session's notes failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// A folder or lock file could not be created, opened or locked.
    #[error("session notes state at {}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A symbolic link stands where the notes folder or file belongs;
    /// nothing is written through it.
    #[error("{} is a symbolic link; session notes are not written through links", path.display())]
    Link {
        /// The link.
        path: PathBuf,
    },
    /// The notes file could not be read (missing folders aside).
    #[error("reading the session notes")]
    ReadNotes(#[source] memdir_memtypes::ReadError),
    /// The notes file is not UTF-8 text.
    #[error("the session notes {} are not UTF-8 text", path.display())]
    NotText {
        /// The notes file.
        path: PathBuf,
    },
    /// The notes no longer follow the template, so no edit could keep it;
    /// the file is left as it is.
    #[error("the session notes {} do not follow the template ({source}); fix them or remove the file to start over", path.display())]
    OffTemplate {
        /// The notes file.
        path: PathBuf,
        /// What differs.
        #[source]
        source: StructureError,
    },
    /// The notes file could not be written.
    #[error("writing the session notes")]
    WriteNotes(#[source] memdir_memtypes::AtomicWriteError),
    /// The watermark state could not be read.
    #[error("reading the session notes state")]
    ReadState(#[source] memdir_memtypes::ReadError),
    /// The watermark state is not what this version writes; it is left as
    /// it is.
    #[error("the session notes state {} is damaged ({reason}); remove it to start over", path.display())]
    DamagedState {
        /// The state file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The watermark state could not be written.
    #[error("writing the session notes state")]
    WriteState(#[source] memdir_memtypes::AtomicWriteError),
    /// The transcript could not be read.
    #[error(transparent)]
    Transcript(#[from] memdir_transcript::TranscriptError),
    /// The agent could not be set up.
    #[error(transparent)]
    Agent(#[from] memdir_agent::AgentError),
}

/// Why a text cannot serve as a notes template.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TemplateError {
    /// It has no `# ` heading, so it has no sections.
    #[error("the template has no `# ` heading")]
    NoSections,
    /// It is longer than a template may be.
    #[error("the template is over {limit} bytes")]
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
}

/// Why the notes (or an edit's result) do not keep the template's
/// structure. The message is what the model reads when its edit is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StructureError {
    /// A template heading is gone.
    #[error(
        "the heading `{heading}` is missing; every template heading must stay, exactly as written"
    )]
    MissingHeading {
        /// The heading line.
        heading: String,
    },
    /// A heading the template does not have was added.
    #[error(
        "the heading `{heading}` is not in the template; add no `# ` headings (use `##` or lists inside a section)"
    )]
    ExtraHeading {
        /// The heading line.
        heading: String,
    },
    /// A heading was renamed, or the headings were reordered.
    #[error(
        "found the heading `{found}` where `{expected}` belongs; headings must keep their text and order"
    )]
    ChangedHeading {
        /// The template's heading at that place.
        expected: String,
        /// The heading found there.
        found: String,
    },
    /// A section's italic description line was changed or removed.
    #[error(
        "the description line under `{heading}` must stay exactly `{expected}`, directly below the heading"
    )]
    ChangedDescription {
        /// The section's heading.
        heading: String,
        /// The description the template has.
        expected: String,
    },
    /// The result would be larger than notes may grow.
    #[error(
        "the notes would be {bytes} bytes, over the {limit}-byte limit; condense sections instead of adding"
    )]
    TooLarge {
        /// The size the edit would give.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
}
