//! The settings files memdir reads, each with its source and whether that
//! source is trusted, and the one way to write a settings file back.
//!
//! Reading ([`Settings::load`]) is tolerant: a missing file is normal; a
//! file that is not a JSON object, not a regular file (a FIFO is never
//! waited on) or over [`MAX_SETTINGS_BYTES`] becomes a [`SettingsWarning`]
//! naming it, and is ignored. [`Settings::find`] gives a key's value from
//! the highest-precedence file among the sources a caller accepts, e.g.
//! only [`SettingsSource::is_trusted`] ones for anything that chooses where
//! memory is written or sent.
//!
//! Writing ([`update_settings_file`]) is strict: one file, read under a
//! lock, edited as a [`SettingsDocument`] (unknown keys, their order and
//! their text kept), replaced atomically; anything odd about the existing
//! file is a [`SettingsWriteError`] and leaves it untouched.
//!
//! ```
//! use memdir_settings::{Settings, SettingsLocations, SettingsSource, update_settings_file};
//!
//! let dir = tempfile::tempdir()?;
//! let user = dir.path().join("settings.json");
//! update_settings_file(&user, |doc| doc.set("teamMemory", &serde_json::json!({"url": "https://t"})))?;
//!
//! let settings = Settings::load(&SettingsLocations { user: Some(user), ..Default::default() });
//! let (file, value) = settings.find("teamMemory", SettingsSource::is_trusted).unwrap();
//! assert_eq!((file.source, value["url"].as_str()), (SettingsSource::User, Some("https://t")));
//! assert!(settings.warnings.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod backup;
mod read;
mod write;

pub use backup::write_backup;
pub use read::{
    MAX_SETTINGS_BYTES, Settings, SettingsFile, SettingsLocations, SettingsSource, SettingsWarning,
    managed_settings_path,
};
pub use write::{
    DocumentError, ReadSettings, SettingsDocument, SettingsWriteError, read_settings_file,
    replace_settings_file, update_settings_file,
};
