//! The eleven migrations of the reference agent's JSON configuration
//! (SPEC R14), run in order, each idempotent, none ever losing a key it
//! does not own.
//!
//! The files are the agent's: the global configuration `~/.claude.json`
//! (app state, with a `projects` map keyed by absolute project path), the
//! user's `<base>/settings.json`, a project's
//! `<project>/.claude/settings.local.json`, and the subscription beside the
//! tokens in `<base>/.credentials.json` (only `subscriptionType` and
//! `rateLimitTier` are ever deserialised). [`Locations::standard`] names
//! them.
//!
//! | # | id | change |
//! |---|---|---|
//! | 1 | `auto-updates-to-settings` | global `autoUpdates: false` -> settings `env.DISABLE_AUTOUPDATER = "1"` |
//! | 2 | `bypass-permissions-accepted-to-settings` | global `bypassPermissionsModeAccepted: true` -> settings `skipDangerousModePermissionPrompt: true` |
//! | 3 | `project-mcp-approvals-to-local-settings` | the project's `enableAllProjectMcpServers`, `enabledMcpjsonServers`, `disabledMcpjsonServers` -> its `settings.local.json` |
//! | 4 | `repl-bridge-to-remote-control` | global `replBridgeEnabled` -> `remoteControlAtStartup` |
//! | 5 | `fennec-to-opus` | `model: fennec-latest` -> `opus`; `fennec-fast-latest` -> `opus[1m]` and `fastMode: true` |
//! | 6 | `legacy-opus-to-current` | an explicit Opus 4.0 / 4.1 `model` -> `opus` |
//! | 7 | `opus-to-opus-1m` | `model: opus` -> `opus[1m]` (Max, Team Premium) |
//! | 8 | `sonnet-1m-to-sonnet-45-1m` | `model: sonnet[1m]` -> `sonnet-4-5-20250929[1m]` |
//! | 9 | `sonnet-45-to-sonnet-46` | a Sonnet 4.5 pin -> `claude-sonnet-4-6` (Pro, Max, Team Premium) |
//! | 10 | `reset-auto-mode-opt-in` | remove settings `skipAutoPermissionPrompt` |
//! | 11 | `reset-pro-to-opus-default` | Pro: remove `model: sonnet`, the old default, so Opus applies |
//!
//! Guards: 1–6 run whenever their old value is there; 7–11 run once, and a
//! done-flag in memdir's own `<base>/memdir/state.json` records it (memdir
//! never adds a key of its own to the agent's files). Each migration sees
//! the files as the earlier ones left them, so `fennec-latest` on a Max
//! plan ends as `opus[1m]`.
//!
//! Decisions this project made where the table leaves them open:
//!
//! - Where an old value moves to a new place that is already set, the new
//!   place keeps its value and the old key is still removed (so a run cut
//!   short between the two writes is completed by the next one).
//! - In #3, a server disabled in either file stays disabled and is dropped
//!   from the enabled list; the local file's own `enableAllProjectMcpServers`
//!   wins; the project's entry is found by its path as written, else by a
//!   key naming the same folder; `<project>/.claude/` is created when
//!   missing (the project folder itself must exist).
//! - #11's "old default" is the `sonnet` alias ([`OLD_PRO_DEFAULT`]).
//! - A done-flag is set when a once-only migration applied or found
//!   nothing to do, and not when a file it needed could not be used.
//!   No credentials file (tokens in the system keychain, an API key) is an
//!   unknown plan: the plan-dependent migrations change nothing.
//!
//! Safety: every write is a compare-and-replace under a lock in
//! `<base>/memdir/locks/` ([`memdir_settings::replace_settings_file`]):
//! atomic, keys and their order and untouched values' text preserved, and
//! never over what another program wrote since the read (the migration is
//! decided again). A project's local settings are reached from the project
//! folder one segment at a time, so a linked `.claude` is never written
//! through (nor is `<base>/backups` when it is a link). Before the global
//! configuration first changes in a run, its bytes are copied to
//! `<base>/backups/.claude.json.backup.<ms>` (the [`KEPT_BACKUPS`] newest
//! are kept). A file that is not valid JSON, is a symbolic link, lies
//! behind a linked folder or holds a value of an unexpected type where a
//! migration reads one (a `projects` entry that is `null`, whichever
//! project's; a list where an object belongs) is left untouched, whole,
//! and reported ([`Problem`]); the other files' migrations still run. Each
//! applied migration appends `{id, at, file, change}` to
//! `<base>/memdir/migrations.jsonl`.
//!
//! ```
//! use memdir_migrations::{Locations, RunOptions, run};
//!
//! let home = tempfile::tempdir()?;
//! let base = home.path().join(".claude");
//! std::fs::create_dir(&base)?;
//! std::fs::write(home.path().join(".claude.json"), "{\"autoUpdates\": false, \"numStartups\": 3}")?;
//! let at = Locations::standard(&base, Some(home.path()), false, None);
//!
//! let report = run(&at, &RunOptions::default())?;
//! assert_eq!(report.applied().map(|o| o.id).collect::<Vec<_>>(), ["auto-updates-to-settings"]);
//! assert_eq!(std::fs::read_to_string(home.path().join(".claude.json"))?, "{\n  \"numStartups\": 3\n}\n");
//! assert!(std::fs::read_to_string(base.join("settings.json"))?.contains("\"DISABLE_AUTOUPDATER\": \"1\""));
//!
//! // A second run changes nothing.
//! assert_eq!(run(&at, &RunOptions::default())?.applied().count(), 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod diff;
mod error;
mod locations;
mod mcp_approvals;
mod run;
mod shapes;
mod state;
mod subscription;
mod table;

pub use error::MigrationError;
pub use locations::{Locations, ProjectFiles};
pub use run::{Outcome, Problem, ProblemKind, Report, RunOptions, run, run_if_needed};
pub use subscription::Subscription;
pub use table::OLD_PRO_DEFAULT;

/// How many backups of the global configuration are kept.
pub const KEPT_BACKUPS: usize = 5;

/// The largest global configuration read: the file keeps per-project
/// history and grows to megabytes, far past a settings file's limit.
pub const MAX_GLOBAL_CONFIG_BYTES: u64 = 64 * 1024 * 1024;

/// The ids of the migrations, in the order they run.
#[must_use]
pub fn ids() -> Vec<&'static str> {
    table::TABLE.iter().map(|m| m.id).collect()
}
