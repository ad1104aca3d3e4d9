//! File persistence (SPEC R15): at the end of a turn, find the files the
//! turn wrote in its session's outputs folder and upload them to the
//! Anthropic Files API, so that they outlive a BYOC sandbox.
//!
//! - [`PersistEnv`] → [`Enablement`]: whether it runs, from values the
//!   caller gathered (the switch, [`EnvironmentKind`], a [`Credential`],
//!   the session id, the base URL); when it does not, a
//!   [`DisabledReason`] that names the variable to set.
//! - [`find_modified_files`]: one recursive listing of the outputs folder
//!   ([`Listing`]), then a parallel stat; regular files modified at or
//!   after the turn's start, never a symbolic link, a FIFO or anything
//!   resolving outside the folder ([`Found`], with what it [`Skipped`]).
//! - [`Uploader`]: `POST {base}/v1/files`, at most
//!   [`DEFAULT_UPLOAD_CONCURRENCY`] in flight, each file opened without
//!   following links and secret-scanned whatever it holds, transient
//!   failures retried ([`UploadOptions`], [`FileOutcome`]).
//!
//! The secret scan reads a file however it is written
//! (`memdir_secrets::Scanner::scan_content`): UTF-8, UTF-16 (with a
//! byte-order mark or without) and Latin-1/Windows-1252 text decoded, and
//! the printable runs of any binary file in 8-bit and UTF-16 code units,
//! as `strings` shows them; a file's name exempts nothing. A finding keeps
//! the file back ([`FileError::Secret`] names the rule, the line and the
//! reading, never the secret). When the scan is unsure it refuses too:
//! an archive or compressed stream (zip, gzip, bzip2, xz, zstd, lz4,
//! 7-zip, rar), whose compressed contents no reading sees, is not uploaded
//! ([`FileError::Unscannable`]). Documents packaged as a zip (`.docx`,
//! `.xlsx`, `.pptx`, ODF, EPUB), images and PDFs are uploaded when
//! what they show uncompressed scans clean; their compressed streams are
//! not read. The whole file is scanned: it is read whole, up to
//! [`MAX_FILE_BYTES`], before anything is sent. The scan guards against
//! accidents, not against a writer set on hiding a secret (one encoded in
//! base64 or encrypted is not found).
//! - [`persist_files`]: the whole run, refusing a batch over
//!   [`FILE_COUNT_LIMIT`] before anything is sent ([`Outcome`]).
//!
//! ```no_run
//! use std::time::{Duration, SystemTime};
//! use memdir_filepersist::{Enablement, PersistEnv, PersistOptions, persist_files};
//!
//! let Enablement::Enabled(enabled) = PersistEnv::from_process().enablement() else {
//!     return Ok(());
//! };
//! let outputs = enabled.outputs_dir(&std::env::current_dir()?)?;
//! let turn_start = SystemTime::now() - Duration::from_secs(60);
//! let report = persist_files(&enabled, turn_start, &outputs, &PersistOptions::default(), &|_| {})?;
//! println!("{}", report.outcome);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The crate reads files only below the outputs folder given, writes
//! none, and prints nothing (it logs through `log`). The credential never
//! appears in an error, a log line or a `Debug` output.

mod env;
mod error;
mod find;
mod mime;
mod open;
mod run;
mod upload;

pub use env::{
    Credential, DEFAULT_BASE_URL, DisabledReason, ENV_API_KEY, ENV_BASE_URL, ENV_ENVIRONMENT_KIND,
    ENV_FEATURE, ENV_SESSION_ID, ENV_SESSION_TOKEN, Enabled, Enablement, EnvironmentKind,
    PersistEnv,
};
pub use error::PersistError;
pub use find::{Found, FoundFile, Listing, SkipReason, Skipped, find_modified_files};
/// The secret scan's terms that [`FileError`] uses.
pub use memdir_secrets::{Compressed, Reading};
pub use run::{FILE_COUNT_LIMIT, Outcome, PersistOptions, Report, persist_files};
pub use upload::{
    API_VERSION, DEFAULT_UPLOAD_CONCURRENCY, FILES_API_BETA, FileError, FileOutcome,
    MAX_FILE_BYTES, MAX_RETRIES, UPLOAD_TIMEOUT, UploadOptions, UploadedFile, Uploader,
};
