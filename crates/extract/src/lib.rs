//! Memory extraction (SPEC R12): after a turn of a conversation, a small
//! restricted agent reads the new messages and saves what is worth keeping
//! into the memory folder.
//!
//! This crate holds the step's bookkeeping and its instructions:
//!
//! - [`StateFiles`] — the per-session state under `<base>/memdir/extract/`
//!   (the cursor, the throttle's counter, the pending request) and the run
//!   lock that keeps two runs of one session apart across processes; a
//!   request that finds a run under way is queued, and the running process
//!   runs it once more before it stops ([`StateFiles::begin`],
//!   [`RunGuard::finish`]).
//! - [`has_memory_writes`] — whether the main agent wrote memory itself in
//!   the new messages (then the step skips them and advances its cursor).
//! - [`instructions`] — the instructions after the transcript, for the
//!   private folder alone or with the team folder.
//! - [`dream`] — the daily logs of assistant mode that no dream has read
//!   yet, distilled into topic files by the same restricted agent.

mod dream;
mod error;
mod prompt;
mod run;
mod state;
mod writes;

pub use dream::{DREAM_MAX_TURNS, DreamOutcome, DreamSetup, dream};
pub use error::ExtractError;
pub use prompt::{Instructions, instructions};
pub use run::{MAX_TRANSCRIPT_CHARS, MAX_TURNS, Outcome, Setup, extract};
pub use state::{Begin, Request, RunGuard, SessionState, StateFiles};
pub use writes::has_memory_writes;

/// The README's example is compiled as a doctest, so that it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
