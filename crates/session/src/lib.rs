//! Session notes for memdir (SPEC R11): a markdown file per conversation,
//! kept up to date by a small restricted agent, so that what a long session
//! learned survives when its context is compacted.
//!
//! - [`should_extract_memory`] — whether an update is due, from a
//!   [`TranscriptView`] (the context's size, the tool calls) and the
//!   [`Watermark`] of the last update, with the thresholds of
//!   [`SessionMemoryConfig`].
//! - [`Template`] — the ten sections of [`DEFAULT_TEMPLATE`] (or a user's
//!   own, through [`Customization`]), and [`Template::check`], which an
//!   edit's result must pass: no heading or description line changed,
//!   removed, added or moved.
//! - [`update_session_notes`] — one update: the notes file
//!   ([`notes_path`]) created from the template when missing, an agent
//!   whose only tool is Edit of that file, the watermark recorded under
//!   `<base>/memdir/session/`.
//! - [`truncate_session_memory_for_compact`] — the notes as compaction
//!   injects them: each section cut to [`MAX_SECTION_CHARS`] at a line
//!   boundary.
//!
//! ```
//! use memdir_session::{DEFAULT_TEMPLATE, NotesEdit, Template, apply_edit};
//!
//! let template = Template::default();
//! let note = NotesEdit {
//!     old_string: "one line each_\n".into(),
//!     new_string: "one line each_\n- reproduced the crash with `cargo test -p app`\n".into(),
//!     replace_all: false,
//! };
//! let (notes, _) = apply_edit(DEFAULT_TEMPLATE, &note, &template)?;
//! assert!(notes.ends_with("- reproduced the crash with `cargo test -p app`\n"));
//!
//! // Renaming a section is refused, with the reason the model reads.
//! let rename = NotesEdit { old_string: "# Worklog".into(), new_string: "# Log".into(), replace_all: false };
//! let refusal = apply_edit(&notes, &rename, &template).unwrap_err();
//! assert!(refusal.to_string().contains("`# Worklog`"));
//! # Ok::<(), memdir_session::EditRefusal>(())
//! ```

mod custom;
mod edit;
mod error;
mod files;
mod markdown;
mod template;
mod trigger;
mod truncate;
mod update;

pub use custom::{Customization, DEFAULT_UPDATE_PROMPT, config_dir};
pub use edit::{EditRefusal, MAX_NOTES_BYTES, NotesEdit, apply_edit};
pub use error::{SessionError, StructureError, TemplateError};
pub use files::{MAX_NOTES_READ_BYTES, SessionFiles, notes_path, safe_session_id};
pub use template::{DEFAULT_TEMPLATE, MAX_TEMPLATE_BYTES, SectionSpec, Template};
pub use trigger::{
    MAX_SECTION_LENGTH, MAX_TOTAL_SESSION_MEMORY_TOKENS, SessionMemoryConfig, TranscriptView,
    Trigger, Watermark, estimate_tokens, should_extract_memory,
};
pub use truncate::{
    MAX_SECTION_CHARS, TRUNCATION_MARKER, TruncatedNotes, truncate_session_memory_for_compact,
};
pub use update::{
    MAX_CONVERSATION_CHARS, MAX_UPDATE_TURNS, UpdateOptions, UpdateOutcome, section_sizes,
    update_session_notes,
};

/// The README's example is compiled as a doctest, so that it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
