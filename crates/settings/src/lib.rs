//! The settings files memdir reads, each with its source and whether that
//! source is trusted, and the one way to write a settings file back.
//!
//! Reading ([`Settings::load`]) is tolerant: a missing file is normal; a
//! file that is not a JSON object, not a regular file (a FIFO is never
//! waited on) or over [`MAX_SETTINGS_BYTES`] becomes a [`SettingsWarning`]
//! naming it, and is ignored. Reading follows symbolic links, as the agent
//! does. [`Settings::find`] gives a key's value from the highest-precedence
//! file among those a caller accepts, e.g. only
//! [`SettingsFile::is_trusted`] ones for anything that chooses where memory
//! is written or sent (not the committed project file, nor a local file
//! the project's git tracks: [`Settings::mark_committed`]).
//!
//! Writing ([`update_settings_file`]) is strict: one file
//! ([`SettingsPath`]: a trusted root and the path below it, walked without
//! following a symbolic link), read under a lock kept in memdir's own
//! folder ([`LockDir`], never beside the file), edited as a
//! [`SettingsDocument`] (unknown keys, their order and their text kept),
//! replaced atomically relative to its folder's handle; anything odd about
//! the existing file or the way to it is a [`SettingsWriteError`] and
//! leaves it untouched.
//!
//! ```
//! use memdir_settings::{LockDir, Settings, SettingsFile, SettingsLocations, SettingsPath, SettingsSource, update_settings_file};
//!
//! let dir = tempfile::tempdir()?;
//! let user = SettingsPath::new(dir.path(), "settings.json");
//! let locks = LockDir::under_base(dir.path());
//! update_settings_file(&user, &locks, |doc| doc.set("teamMemory", &serde_json::json!({"url": "https://t"})))?;
//!
//! let settings = Settings::load(&SettingsLocations { user: Some(user.path()), ..Default::default() });
//! let (file, value) = settings.find("teamMemory", SettingsFile::is_trusted).unwrap();
//! assert_eq!((file.source, value["url"].as_str()), (SettingsSource::User, Some("https://t")));
//! assert!(settings.warnings.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod backup;
mod contained;
mod read;
mod write;

pub use backup::write_backup;
pub use contained::{LockDir, SettingsPath};
pub use read::{
    MAX_SETTINGS_BYTES, Settings, SettingsFile, SettingsLocations, SettingsSource, SettingsWarning,
    managed_settings_path,
};
pub use write::{
    DocumentError, ReadSettings, SettingsDocument, SettingsWriteError, read_settings_file,
    replace_settings_file, update_settings_file,
};
