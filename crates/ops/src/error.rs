//! The one error type of the crate.

use std::path::PathBuf;

/// A secret found in a memory meant for the team folder: the rule and the
/// line, never the secret's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretFound {
    /// The gitleaks rule id (`github-pat`, `aws-access-token`, …).
    pub rule_id: String,
    /// The 1-based line of the memory file.
    pub line: usize,
}

/// Why a use case did not happen. Nothing on disk is half-written in any
/// case. [`OpsError::is_refusal`] tells a refusal for safety (a front end's
/// exit status 3) from an ordinary failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpsError {
    /// The project's memory paths could not be resolved.
    #[error(transparent)]
    Paths(#[from] memdir_paths::PathsError),
    /// The explicit memory folder the caller gave is not acceptable (a
    /// refusal: it is outside what memory may use).
    #[error("the memory folder given: {0}")]
    InvalidMemoryDir(#[source] memdir_paths::InvalidMemoryPath),
    /// The settings file the caller named cannot be used (a settings file
    /// found on its own may be broken and is only warned about).
    #[error("the settings file given: {0}")]
    SettingsFile(#[source] memdir_memtypes::ReadError),
    /// The settings migrations could not run (memdir's own records or
    /// lock); files they could not use are reported, not errors.
    #[error("settings migrations: {0}")]
    Migration(#[source] memdir_migrations::MigrationError),
    /// An embedding model could not be installed or read.
    /// (Its message includes the model error's, so it names no source.)
    #[error("embedding model: {0}")]
    Embedding(memdir_embed::EmbedError),
    /// The working directory cannot be read.
    #[error("cannot read the working directory")]
    WorkingDirectory(#[source] std::io::Error),
    /// Team memory is off for this project.
    #[error(
        "team memory is off ({by}); turn it on with teamMemoryEnabled: true in settings or MEMDIR_TEAM=1"
    )]
    TeamOff {
        /// The rule that turned it off.
        by: String,
    },
    /// A memory name breaks the naming rules.
    #[error("name {name:?}: {reason}")]
    InvalidName {
        /// The name given.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A field the memory needs is empty.
    #[error("{0}")]
    Empty(&'static str),
    /// User memories describe one person and are never shared.
    #[error(
        "user memories describe one person and stay private; they are never saved to the team folder"
    )]
    NotShareable,
    /// A memory holds a secret: in the team folder it would be shared; in
    /// the private folder it would reach the model with every prompt and
    /// every export.
    #[error(
        "refused: the memory{} {} ({}); {} (the secret is not shown)",
        if *in_index_line { "'s index line holds" } else { " holds" },
        if findings.len() == 1 { "a secret" } else { "secrets" },
        findings.iter().map(|f| format!("{} on line {}", f.rule_id, f.line)).collect::<Vec<_>>().join(", "),
        if *team {
            "team memories are shared, so take it out"
        } else {
            "private memories go to the model and into exports, so take it out and say where the secret is kept instead (memdir add --allow-secret keeps it in a private memory you write yourself)"
        }
    )]
    SecretsFound {
        /// What was found, without the secrets.
        findings: Vec<SecretFound>,
        /// Whether the memory was bound for the team folder.
        team: bool,
        /// Whether the secret is in the memory's index line (its title or
        /// description) rather than its file.
        in_index_line: bool,
    },
    /// A memory's name, title, description or text holds a control
    /// character (an escape sequence, NUL, a bidirectional override), which
    /// would reach the index, the prompt and terminals raw.
    #[error(
        "refused: the {field} holds the control character U+{code:04X}; write it as plain text"
    )]
    ControlCharacter {
        /// Which field: `name`, `title`, `description` or `text`.
        field: &'static str,
        /// The character's code point.
        code: u32,
    },
    /// A memory is larger than a memory may be.
    #[error(
        "the memory is {bytes} bytes; {what} holds at most {max}: a memory is a short note, keep detail elsewhere"
    )]
    TooLarge {
        /// Its size as it would be written.
        bytes: usize,
        /// The limit.
        max: usize,
        /// Whose limit it is.
        what: &'static str,
    },
    /// A memory of that name exists already.
    #[error(
        "a memory named {existing} already exists in {}; edit it instead of adding a near-duplicate",
        folder.display()
    )]
    AlreadyExists {
        /// The folder.
        folder: PathBuf,
        /// The existing file's name.
        existing: String,
    },
    /// No memory of that name exists.
    #[error("no memory named {file} in {}", folder.display())]
    NotFound {
        /// The folder.
        folder: PathBuf,
        /// The file looked for.
        file: String,
    },
    /// The memory file is not UTF-8 text, so it cannot be edited safely.
    #[error("{file} in {} is not UTF-8 text; it was left as it is", folder.display())]
    NotText {
        /// The folder.
        folder: PathBuf,
        /// The file.
        file: String,
    },
    /// A file named as a folder's index is not a `MEMORY.md`.
    #[error("{} is not a MEMORY.md; give the index of the memory folder to repair", path.display())]
    NotAnIndex {
        /// The path given.
        path: PathBuf,
    },
    /// A write into the memory folder failed or was refused.
    #[error(transparent)]
    Folder(#[from] memdir_folder::FolderError),
    /// The index could not be edited.
    #[error(transparent)]
    Index(#[from] memdir_entrypoint::EntrypointError),
    /// Recall failed (the folder cannot be scanned).
    #[error(transparent)]
    Recall(#[from] memdir_relevance::RelevanceError),
    /// The recall index cannot be opened, read or written.
    #[error(transparent)]
    RecallIndex(#[from] memdir_relevance::index::IndexError),
    /// No recall index is kept without the agent's configuration folder
    /// (recall then scans the memory folder).
    #[error(
        "{} does not exist: recall keeps no index without it and scans the memory folder instead",
        base.display()
    )]
    NoRecallIndex {
        /// The base folder.
        base: PathBuf,
    },
    /// No team server is configured.
    #[error("no team server is configured: set MEMDIR_TEAM_URL or teamMemory.url in your settings")]
    NoTeamServer,
    /// Auto memory is off for this project, so nothing is extracted.
    #[error("auto memory is off ({by}); nothing is extracted")]
    AutoMemoryOff {
        /// The rule that turned it off.
        by: String,
    },
    /// File persistence could not run (the outputs folder, the session id
    /// or the base URL is unusable).
    #[error(transparent)]
    Persist(#[from] memdir_filepersist::PersistError),
    /// No model is configured, and the use case needs one.
    #[error(
        "no model is configured: set ANTHROPIC_API_KEY, or OPENAI_BASE_URL (and MEMDIR_MODEL) for an OpenAI-compatible server"
    )]
    NoModel,
    /// The model configuration is invalid.
    #[error(transparent)]
    Model(memdir_model::ModelError),
    /// Extraction could not run (the transcript or its state unreadable).
    #[error(transparent)]
    Extract(#[from] memdir_extract::ExtractError),
    /// A settings file could not be updated (it is left as it was).
    #[error(transparent)]
    SettingsWrite(#[from] memdir_settings::SettingsWriteError),
    /// A settings file's `hooks` key is not in the shape the agent reads,
    /// so memdir's entries are not added to it or removed from it.
    #[error("cannot update settings {}: {what}", path.display())]
    HooksShape {
        /// The settings file.
        path: PathBuf,
        /// What is wrong with its hooks.
        what: &'static str,
    },
    /// The backup copy of a settings file could not be made, so the file
    /// was not changed.
    #[error("cannot back up settings to {}", path.display())]
    Backup {
        /// The backup copy (or its folder).
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// memdir's own hook state (what a prompt hook injected) cannot be
    /// read or locked.
    #[error("cannot use the hook state {}", path.display())]
    HookState {
        /// The state file, its lock or its folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// memdir's own hook state could not be written.
    #[error(transparent)]
    HookStateWrite(#[from] memdir_memtypes::AtomicWriteError),
    /// A session's notes could not be read or updated.
    #[error(transparent)]
    Session(#[from] memdir_session::SessionError),
    /// A daily-log entry is longer than an entry may be.
    #[error("the log entry has {bytes} bytes; an entry has at most {max}")]
    LogEntryTooLong {
        /// Its length.
        bytes: usize,
        /// The most an entry may have.
        max: usize,
    },
    /// Today's log has grown to its limit; nothing was appended.
    #[error(
        "the daily log {path} is full ({max} bytes); run memdir dream and start a new day's log"
    )]
    LogFull {
        /// The log file.
        path: camino::Utf8PathBuf,
        /// Its limit.
        max: u64,
    },
    /// The daily log's path is not inside the memory folder.
    #[error("the daily log {path} is not inside the memory folder")]
    LogOutsideFolder {
        /// The path resolved.
        path: camino::Utf8PathBuf,
    },
    /// A memory folder could not be read for its checks.
    #[error(transparent)]
    Doctor(#[from] memdir_doctor::DoctorError),
    /// An input of another tool's format could not be read.
    #[error(transparent)]
    Interop(#[from] memdir_interop::InteropError),
    /// An export file could not be written (or read before).
    #[error("cannot export to {}: {reason}", path.display())]
    ExportFile {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// An export file would be written outside its destination folder (a
    /// refusal: a folder on the way is a link out of it).
    #[error("refusing to export to {}: a folder on the way leads outside the destination", path.display())]
    ExportOutside {
        /// The file.
        path: PathBuf,
    },
    /// The citation cache could not be locked or written.
    #[error("cannot use the citations cache {}", path.display())]
    CitationCache {
        /// The cache file or its lock.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A session has no notes yet.
    #[error("no notes for session {session} yet (they would be at {})", path.display())]
    NoSessionNotes {
        /// The session asked for.
        session: String,
        /// Where its notes would be.
        path: PathBuf,
    },
}

impl OpsError {
    /// Whether the use case refused an input for safety (a name that would
    /// leave the folder, a secret bound for the team, a path through a
    /// symbolic link) rather than failing.
    #[must_use]
    pub fn is_refusal(&self) -> bool {
        match self {
            OpsError::InvalidMemoryDir(_)
            | OpsError::InvalidName { .. }
            | OpsError::SecretsFound { .. }
            | OpsError::ControlCharacter { .. }
            | OpsError::ExportOutside { .. }
            | OpsError::Persist(memdir_filepersist::PersistError::UnsafeSessionId { .. })
            | OpsError::Session(memdir_session::SessionError::Link { .. }) => true,
            OpsError::Folder(e) => e.is_refusal(),
            _ => false,
        }
    }
}

impl From<memdir_embed::EmbedError> for OpsError {
    fn from(e: memdir_embed::EmbedError) -> Self {
        OpsError::Embedding(e)
    }
}
