//! The use cases of memdir, for any front end.
//!
//! A front end (the `memdir` command line, an MCP server, agent hooks, an
//! editor integration) opens a [`Project`] once and calls the use cases on
//! it; it only translates its own arguments into these calls and prints
//! what comes back. Every rule a use case needs — naming, collisions, the
//! secret scan before anything is shared, the order of writes under the
//! folder's lock, which selector answers a recall, which settings may
//! name a team server — lives here or below, never in a front end.
//!
//! - [`Project::open`]: where the project's memory lives, resolved once.
//! - [`Project::save_memory`], [`Project::update_memory`],
//!   [`Project::delete_memory`]: one memory and its index line.
//! - [`Project::recall`]: the memories a request needs, with the
//!   configured selector.
//! - [`Project::recall_for_agent`], [`Project::read_memory_for_agent`]:
//!   memories as an agent is given them ([`AgentMemory`]: one read of the
//!   file, its age from `modified`, its notes, its text cut at
//!   [`MAX_AGENT_MEMORY_CHARS`], and the block to show), the same for the
//!   prompt hook and the MCP server, which only wrap it.
//! - [`Project::install_hooks`], [`Project::recall_for_hook`]: the agent's
//!   hooks in its settings, and a recall for an agent that skips what a
//!   session's prompt hook already injected.
//! - [`Project::verify`]: check what memories cite about the project and
//!   record `verified:` in those whose citations all hold;
//!   [`Project::citation_notes`] is the check recall makes.
//! - [`Project::team_client`]: a sync client for the team folder.
//! - [`Project::update_session_notes`], [`Project::session_notes`],
//!   [`Project::session_notes_for_compact`]: a session's notes.
//! - [`Project::append_log`], [`Project::dream`]: the daily log of
//!   assistant mode, and its distillation into memories.
//! - [`Project::memory_files`], [`Project::create_memory_file`]: the
//!   memory files a user edits by hand, by source.
//! - [`fix_index`]: repair a folder after interrupted writes.
//! - [`doctor`]: check a memory folder, and make the safe repairs.
//! - [`migrate`]: the agent's settings migrations; [`Project::open`] also
//!   runs them once at start-up, cheaply when nothing changed
//!   ([`ENV_AUTO_MIGRATE`]`=0` turns that off).
//! - [`persist_outputs`]: upload a turn's output files to the Files API
//!   (BYOC environments only).
//!
//! ```no_run
//! use memdir_ops::{Environment, MemoryType, NewMemory, Project, ProjectOptions, Scope};
//!
//! let project = Project::open(Environment::from_process(), &ProjectOptions::default())?;
//! let saved = project.save_memory(Scope::Private, &NewMemory {
//!     name: "use-pnpm".into(),
//!     description: "The repo uses pnpm; npm breaks the lockfile".into(),
//!     memory_type: MemoryType::Feedback,
//!     body: "Use pnpm, never npm.".into(),
//!     title: None,
//! })?;
//! println!("saved {}", saved.path);
//! # Ok::<(), memdir_ops::OpsError>(())
//! ```

mod agent_memory;
mod doctor;
mod edit;
mod error;
mod extract;
mod hooks;
mod interop;
mod log;
mod memory;
mod migrate;
mod model;
mod ordered;
mod persist;
mod project;
mod recall;
mod session;
mod team;
mod verify;

pub use agent_memory::{AgentMemory, AgentRecall, MAX_AGENT_MEMORY_CHARS, cut_to_fit};
pub use doctor::{DOCTOR_CITATIONS_BUDGET, DoctorFixed, DoctorReport, doctor};
pub use edit::MemoryFile;
pub use error::{OpsError, SecretFound};
pub use extract::{ExtractReport, ExtractRequest};
pub use hooks::{
    HOOK_CITATIONS_BUDGET, HookEvent, HooksChange, KEPT_BACKUPS, SettingsScope, sanitize_session,
};
pub use interop::{
    ExportReport, ExportedFile, FileChange, ImportOutcome, ImportReport, ImportedMemory,
};
pub use log::{DreamReport, Logged, MAX_LOG_BYTES, MAX_LOG_ENTRY_BYTES};
pub use memdir_embed::ModelInfo;
pub use memdir_extract::DreamOutcome;
pub use memdir_extract::Outcome as ExtractOutcome;
/// What [`fix_index`] did.
pub use memdir_folder::FixReport;
pub use memdir_interop::{Format as InteropFormat, Skipped as InteropSkipped};
pub use memdir_migrations::{Outcome as MigrationOutcome, Report as MigrationReport};
pub use memory::{
    Deleted, MAX_MEMORY_BYTES, MemoryChange, NewMemory, SaveOptions, Saved, fix_index,
    memory_file_name,
};
pub use migrate::{ENV_AUTO_MIGRATE, migrate};
pub use model::ModelStatus;
pub use persist::{PersistReport, PersistRequest, persist_outputs};
pub use project::{ENV_LOCK_TIMEOUT_MS, Project, ProjectOptions, Scope, lock_timeout};
pub use recall::{RecallOutcome, RecallRequest, SelectorChoice};
pub use session::{CompactView, SessionNotes, SessionUpdateRequest};
pub use team::{ENV_TEAM_TOKEN, ENV_TEAM_URL, TeamOverrides};
pub use verify::{
    CacheRefresh, DEFAULT_VERIFY_BUDGET, ENV_CITATIONS_BUDGET_MS, VerifiedMemory, VerifyRequest,
    VerifyStatus, citation_reminder,
};

// The value types this crate's API is made of, so that a front end needs
// this crate alone.
pub use memdir_citations::{
    Broken as CitationBroken, Checked as CheckedCitation, Citation, CitationKind, Verdict,
};
pub use memdir_doctor::{Finding as DoctorFinding, Fix as DoctorFix, Severity};
pub use memdir_filepersist::{
    DEFAULT_UPLOAD_CONCURRENCY, DisabledReason as PersistDisabled, FILE_COUNT_LIMIT, FileError,
    FileOutcome, Outcome as PersistOutcome, SkipReason, Skipped, UploadedFile,
};
pub use memdir_memtypes::{MemoryFileSource, MemoryType};
pub use memdir_paths::{Environment, Resolution};
pub use memdir_relevance::index::{
    IndexStatus as RecallIndexStatus, Progress as RecallIndexProgress,
    Reconciled as RecallIndexReport,
};
pub use memdir_relevance::{Recall, RelevantMemory, SelectorUsed};
pub use memdir_session::{
    Trigger as SessionTrigger, TruncatedNotes, UpdateOutcome as SessionUpdateOutcome,
    Watermark as SessionWatermark,
};
pub use memdir_teamsync::{Client as TeamClient, SyncResult, SyncStatus};
