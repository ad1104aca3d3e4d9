//! Writing one settings file back: read it under a lock, let the caller
//! edit its top-level keys, and replace it atomically.
//!
//! Key order and untouched values survive byte for byte. `serde_json`'s `Map`
//! sorts keys unless its `preserve_order` feature is on, and features unify
//! across the workspace: turning it on reorders every JSON object that
//! memdir prints (the CLI's `--json` snapshots change). So a document is
//! our own ordered list of top-level `(key, RawValue)` pairs instead
//! (`serde_json`'s `raw_value` feature, which changes nothing else): a value
//! nobody touched is written back as the very text it was read as.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use memdir_memtypes::{AtomicWriteError, ReadError, atomic_write, not_a_file};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::MAX_SETTINGS_BYTES;
use crate::read::{Unusable, parse_object, read_bytes_up_to};

/// Why a settings file was not updated. The file is unchanged in every
/// case.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsWriteError {
    /// Something other than a regular file is in the file's place: a FIFO,
    /// socket, device or folder, itself or at the end of a symbolic link.
    #[error("cannot update settings {}: it is {kind}, not a regular file", path.display())]
    NotAFile {
        /// The settings file.
        path: PathBuf,
        /// What is there: `a FIFO`, `a device`, `a folder`, ….
        kind: &'static str,
    },
    /// The file is a symbolic link. Writing would replace the link with a
    /// regular file, or write wherever the link points; neither is done.
    #[error("cannot update settings {}: it is a symbolic link (update the file it points to)", path.display())]
    Symlink {
        /// The settings file.
        path: PathBuf,
    },
    /// The existing file is over [`MAX_SETTINGS_BYTES`] (or the limit the
    /// caller gave).
    #[error("cannot update settings {}: it is over the {limit}-byte limit", path.display())]
    TooLarge {
        /// The settings file.
        path: PathBuf,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The updated file would be over [`MAX_SETTINGS_BYTES`], so that
    /// readers would ignore it.
    #[error("cannot update settings {}: the result ({len} bytes) would be over the {limit}-byte limit", path.display())]
    WouldBeTooLarge {
        /// The settings file.
        path: PathBuf,
        /// The length of the updated text, in bytes.
        len: u64,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The existing file is not JSON (JSON has no comments: a `//` line
    /// makes a file invalid).
    #[error("cannot update settings {}: it is not valid JSON", path.display())]
    InvalidJson {
        /// The settings file.
        path: PathBuf,
        /// What the parser found.
        #[source]
        source: serde_json::Error,
    },
    /// The existing file is JSON but not an object.
    #[error("cannot update settings {}: it is not a JSON object", path.display())]
    NotAnObject {
        /// The settings file.
        path: PathBuf,
    },
    /// The existing file sets a top-level key twice; which one counts is
    /// the reader's guess, so neither is rewritten.
    #[error("cannot update settings {}: the key {key:?} appears more than once", path.display())]
    DuplicateKey {
        /// The settings file.
        path: PathBuf,
        /// The repeated key.
        key: String,
    },
    /// The folder that should hold the file does not exist. It is not
    /// created: a folder in the wrong place (a mistyped base folder, a
    /// project without `.claude/`) is the caller's decision to make.
    #[error("cannot update settings {}: its folder does not exist", path.display())]
    MissingFolder {
        /// The settings file.
        path: PathBuf,
    },
    /// Reading the existing file failed.
    #[error("cannot update settings {}: cannot read it", path.display())]
    Read {
        /// The settings file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: ReadError,
    },
    /// The lock file beside the settings file cannot be opened or locked.
    #[error("cannot update settings: cannot lock {}", lock.display())]
    Lock {
        /// The lock file.
        lock: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Something other than a regular file is at the lock file's name.
    #[error("cannot update settings: the lock {} is {kind}, not a regular file", lock.display())]
    LockNotAFile {
        /// The lock file.
        lock: PathBuf,
        /// What is there: `a FIFO`, `a folder`, ….
        kind: &'static str,
    },
    /// The file changed between the caller's read and the replacement
    /// ([`replace_settings_file`]): another program wrote it. Nothing was
    /// written; read it again and redo the change.
    #[error("cannot update settings {}: it changed since it was read", path.display())]
    ChangedMeanwhile {
        /// The settings file.
        path: PathBuf,
    },
    /// The atomic replacement failed.
    #[error(transparent)]
    Write(#[from] AtomicWriteError),
}

/// One settings file's top-level keys in the file's order, each value kept
/// as the exact JSON text it was read as until it is replaced.
///
/// ```
/// use memdir_settings::SettingsDocument;
///
/// let mut doc = SettingsDocument::parse(br#"{"z": 1, "a": {"x" : [1,2]}}"#)?;
/// doc.set("m", &serde_json::json!(true));
/// doc.set("z", &serde_json::json!(2));
/// assert_eq!(doc.keys().collect::<Vec<_>>(), ["z", "a", "m"]);
/// assert_eq!(doc.to_json(), "{\n  \"z\": 2,\n  \"a\": {\"x\" : [1,2]},\n  \"m\": true\n}\n");
/// # Ok::<(), memdir_settings::DocumentError>(())
/// ```
#[derive(Clone, Default)]
pub struct SettingsDocument {
    entries: Vec<(String, Box<RawValue>)>,
    changed: bool,
    /// How deep in its file the object sits: 0 for the file itself, 1 for
    /// the value of a top-level key ([`SettingsDocument::object`]), …
    depth: usize,
}

impl fmt::Debug for SettingsDocument {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.entries.iter().map(|(k, v)| (k, v.get())))
            .finish()
    }
}

/// Why a text is not a settings document.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DocumentError {
    /// The text is not JSON.
    #[error("not valid JSON")]
    InvalidJson(#[source] serde_json::Error),
    /// The text is JSON but not an object.
    #[error("not a JSON object")]
    NotAnObject,
    /// A top-level key appears more than once.
    #[error("the key {0:?} appears more than once")]
    DuplicateKey(String),
}

impl SettingsDocument {
    /// An empty document, `{}`.
    #[must_use]
    pub fn new() -> Self {
        SettingsDocument::default()
    }

    /// Parses a settings file's text: a JSON object whose top-level keys
    /// are all different.
    pub fn parse(bytes: &[u8]) -> Result<Self, DocumentError> {
        // The whole text as the read side sees it first, so that a document
        // parses exactly when `Settings::load` would use the file, and each
        // raw value below is known to parse as a `Value`.
        match parse_object(bytes) {
            Ok(_) => {}
            Err(Unusable::InvalidJson(e)) => return Err(DocumentError::InvalidJson(e)),
            Err(_) => return Err(DocumentError::NotAnObject),
        }
        let Entries(entries) = serde_json::from_slice(bytes).map_err(DocumentError::InvalidJson)?;
        for (i, (key, _)) in entries.iter().enumerate() {
            if entries[..i].iter().any(|(k, _)| k == key) {
                return Err(DocumentError::DuplicateKey(key.clone()));
            }
        }
        Ok(SettingsDocument {
            entries,
            changed: false,
            depth: 0,
        })
    }

    /// The object under a top-level key as a document of its own, to edit
    /// one level deeper with the same guarantees (key order and untouched
    /// values' text kept); write it back with
    /// [`set_object`](Self::set_object). `None` when the key is absent;
    /// [`DocumentError::NotAnObject`] when its value is not an object.
    ///
    /// ```
    /// use memdir_settings::SettingsDocument;
    ///
    /// let text = "{\n  \"projects\": {\n    \"/p\": {\n      \"z\": 1,\n      \"a\": 2\n    }\n  }\n}\n";
    /// let mut doc = SettingsDocument::parse(text.as_bytes())?;
    /// let mut projects = doc.object("projects").unwrap()?;
    /// let mut project = projects.object("/p").unwrap()?;
    /// project.remove("z");
    /// project.set("b", &serde_json::json!([true]));
    /// projects.set_object("/p", &project);
    /// doc.set_object("projects", &projects);
    /// assert_eq!(
    ///     doc.to_json(),
    ///     "{\n  \"projects\": {\n    \"/p\": {\n      \"a\": 2,\n      \"b\": [\n        true\n      ]\n    }\n  }\n}\n"
    /// );
    /// # Ok::<(), memdir_settings::DocumentError>(())
    /// ```
    #[must_use]
    pub fn object(&self, key: &str) -> Option<Result<SettingsDocument, DocumentError>> {
        let raw = self.raw(key)?;
        Some(SettingsDocument::parse(raw.as_bytes()).map(|mut doc| {
            doc.depth = self.depth + 1;
            doc
        }))
    }

    /// Writes back a document taken with [`object`](Self::object) (or a new
    /// one) as the value of `key`: nothing happens when it did not change.
    ///
    /// # Panics
    ///
    /// Never: a rendered document is JSON.
    pub fn set_object(&mut self, key: &str, object: &SettingsDocument) {
        if !object.is_changed() && self.raw(key).is_some() {
            return;
        }
        let raw = RawValue::from_string(object.render(self.depth + 1))
            .expect("a rendered document is JSON");
        match self.entries.iter_mut().find(|(k, _)| k == key) {
            Some((_, old)) => *old = raw,
            None => self.entries.push((key.to_owned(), raw)),
        }
        self.changed = true;
    }

    /// The top-level keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_str())
    }

    /// The value of a top-level key.
    ///
    /// # Panics
    ///
    /// Never: every value was checked to parse when the document was made.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<Value> {
        self.raw(key).map(|raw| {
            serde_json::from_str(raw)
                .expect("every value parsed as a Value when the document was made")
        })
    }

    /// The JSON text of a top-level key's value, as the file spells it.
    #[must_use]
    pub fn raw(&self, key: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.get())
    }

    /// Sets a top-level key: in its place when the key exists, else at the
    /// end. Setting a key to the value it has changes nothing. The new
    /// value is printed as `serde_json` prints a `Value`: the keys of its
    /// objects sorted.
    pub fn set(&mut self, key: &str, value: &Value) {
        if self.get(key).as_ref() == Some(value) {
            return;
        }
        let raw = raw_value(value, self.depth);
        match self.entries.iter_mut().find(|(k, _)| k == key) {
            Some((_, old)) => *old = raw,
            None => self.entries.push((key.to_owned(), raw)),
        }
        self.changed = true;
    }

    /// Sets a top-level key to the JSON text `json` as it is (its keys in
    /// the order written), in its place when the key exists, else at the
    /// end. For values whose nested key order matters; `json` must be
    /// valid JSON.
    pub fn set_raw(&mut self, key: &str, json: &str) -> Result<(), DocumentError> {
        let raw = RawValue::from_string(json.to_owned()).map_err(DocumentError::InvalidJson)?;
        if self.raw(key) == Some(raw.get()) {
            return Ok(());
        }
        match self.entries.iter_mut().find(|(k, _)| k == key) {
            Some((_, old)) => *old = raw,
            None => self.entries.push((key.to_owned(), raw)),
        }
        self.changed = true;
        Ok(())
    }

    /// Removes a top-level key, returning whether it was there.
    pub fn remove(&mut self, key: &str) -> bool {
        let before = self.entries.len();
        self.entries.retain(|(k, _)| k != key);
        let removed = self.entries.len() != before;
        self.changed |= removed;
        removed
    }

    /// Whether [`set`](Self::set) or [`remove`](Self::remove) changed
    /// anything since the document was parsed.
    #[must_use]
    pub fn is_changed(&self) -> bool {
        self.changed
    }

    /// The document as a file's text: one top-level key per line, indented
    /// by two spaces, each value as its text; a final newline. A file
    /// written so (the usual pretty-printed shape) comes back byte for byte
    /// but for the keys that changed.
    #[must_use]
    pub fn to_json(&self) -> String {
        let mut out = self.render(0);
        out.push('\n');
        out
    }

    /// The object's text as it sits `depth` levels deep in a file indented
    /// by two spaces a level: its entries one more level in, its closing
    /// brace at `depth`.
    fn render(&self, depth: usize) -> String {
        if self.entries.is_empty() {
            return "{}".to_owned();
        }
        let inner = "  ".repeat(depth + 1);
        let mut out = String::from("{\n");
        for (i, (key, value)) in self.entries.iter().enumerate() {
            out.push_str(&inner);
            out.push_str(&Value::String(key.clone()).to_string());
            out.push_str(": ");
            out.push_str(value.get());
            out.push_str(if i + 1 < self.entries.len() {
                ",\n"
            } else {
                "\n"
            });
        }
        out.push_str(&"  ".repeat(depth));
        out.push('}');
        out
    }
}

/// A new value as raw JSON, pretty-printed and indented to sit among the
/// entries of an object `depth` levels deep in
/// [`SettingsDocument::to_json`]'s output.
fn raw_value(value: &Value, depth: usize) -> Box<RawValue> {
    let pretty = serde_json::to_string_pretty(value).expect("a Value always serialises");
    let indented = pretty.replace('\n', &format!("\n{}", "  ".repeat(depth + 1)));
    RawValue::from_string(indented).expect("pretty JSON with more indentation is still JSON")
}

/// A JSON object's top-level entries, in order.
struct Entries(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;
        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = Entries;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(EntriesVisitor)
    }
}

/// Updates one settings file: reads it (a missing file is an empty
/// document), lets `edit` change its top-level keys, and when anything
/// changed replaces the file atomically (through
/// [`memdir_memtypes::atomic_write`]). Returns what `edit` returned.
///
/// - Unknown keys, their order and their values' text survive; new keys go
///   at the end.
/// - A missing file is created (mode 0644 less the umask on Unix); its
///   folder must exist ([`SettingsWriteError::MissingFolder`]): this never
///   creates folders.
/// - The file is left untouched, with a typed error, when it is not a
///   JSON object (comments included: JSON has none), sets a key twice, is
///   not a regular file (a FIFO or device is never waited on: the read is
///   the bounded one of `memdir_memtypes`), is a symbolic link, is over
///   [`MAX_SETTINGS_BYTES`] or would become so.
/// - Updates are serialised by an exclusive lock on `.<name>.lock` beside
///   the file (`.settings.json.lock`), held from the read to the rename, so
///   two memdir processes or threads updating different keys lose nothing.
///   The lock file is left in place (removing it would let a waiter lock a
///   file that is gone). Writers that take no lock, such as an editor or
///   another program, are not serialised.
///
/// ```
/// use memdir_settings::update_settings_file;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("settings.json");
/// std::fs::write(&path, "{\"theme\": \"dark\", \"autoMemoryEnabled\": true}\n")?;
/// update_settings_file(&path, |doc| {
///     doc.set("autoMemoryEnabled", &serde_json::json!(false));
/// })?;
/// assert_eq!(
///     std::fs::read_to_string(&path)?,
///     "{\n  \"theme\": \"dark\",\n  \"autoMemoryEnabled\": false\n}\n"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn update_settings_file<T>(
    path: &Path,
    edit: impl FnOnce(&mut SettingsDocument) -> T,
) -> Result<T, SettingsWriteError> {
    let _lock = lock(path)?;
    let mut doc = read_document(path)?;
    let result = edit(&mut doc);
    if !doc.is_changed() {
        return Ok(result);
    }
    let text = doc.to_json();
    let len = text.len() as u64;
    if len > MAX_SETTINGS_BYTES {
        return Err(SettingsWriteError::WouldBeTooLarge {
            path: path.to_owned(),
            len,
            limit: MAX_SETTINGS_BYTES,
        });
    }
    atomic_write(path, text.as_bytes())?;
    log::debug!("updated settings {}", path.display());
    Ok(result)
}

/// The document in the file at `path`, or an empty one when there is no
/// file.
fn read_document(path: &Path) -> Result<SettingsDocument, SettingsWriteError> {
    read_settings_file(path, MAX_SETTINGS_BYTES).map(|read| read.document)
}

/// A settings file as [`read_settings_file`] found it: the exact bytes
/// (`None` when there was no file) and the document they hold (empty when
/// there was no file).
#[derive(Clone)]
pub struct ReadSettings {
    /// The file's bytes, or `None` when there was no file.
    pub bytes: Option<Vec<u8>>,
    /// The document, to edit and pass to [`replace_settings_file`].
    pub document: SettingsDocument,
}

/// Reads a settings file for a later [`replace_settings_file`], without a
/// lock: checked exactly as [`update_settings_file`] checks it (a symbolic
/// link, a FIFO, a file that is not a JSON object or sets a key twice is
/// an error), with `limit` in place of [`MAX_SETTINGS_BYTES`] for files
/// known to grow larger (the agent's global configuration).
pub fn read_settings_file(path: &Path, limit: u64) -> Result<ReadSettings, SettingsWriteError> {
    let owned = || path.to_owned();
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(SettingsWriteError::Symlink { path: owned() });
    }
    let bytes = match read_bytes_up_to(path, limit) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            return Ok(ReadSettings {
                bytes: None,
                document: SettingsDocument::new(),
            });
        }
        Err(Unusable::NotAFile(kind)) => {
            return Err(SettingsWriteError::NotAFile {
                path: owned(),
                kind,
            });
        }
        Err(Unusable::TooLarge(limit)) => {
            return Err(SettingsWriteError::TooLarge {
                path: owned(),
                limit,
            });
        }
        Err(Unusable::Io(source)) => {
            return Err(SettingsWriteError::Read {
                path: owned(),
                source: ReadError::Io {
                    path: owned(),
                    source,
                },
            });
        }
        Err(Unusable::Read(source)) => {
            return Err(SettingsWriteError::Read {
                path: owned(),
                source,
            });
        }
        Err(Unusable::InvalidJson(source)) => {
            return Err(SettingsWriteError::InvalidJson {
                path: owned(),
                source,
            });
        }
        Err(Unusable::NotAnObject) => {
            return Err(SettingsWriteError::NotAnObject { path: owned() });
        }
    };
    let document = SettingsDocument::parse(&bytes).map_err(|e| match e {
        DocumentError::InvalidJson(source) => SettingsWriteError::InvalidJson {
            path: owned(),
            source,
        },
        DocumentError::DuplicateKey(key) => SettingsWriteError::DuplicateKey { path: owned(), key },
        DocumentError::NotAnObject => SettingsWriteError::NotAnObject { path: owned() },
    })?;
    Ok(ReadSettings {
        bytes: Some(bytes),
        document,
    })
}

/// Replaces a settings file with `document`, but only if the file still
/// holds exactly `expected` (`None`: there must still be no file), checked
/// under the lock: a compare-and-replace for callers that read the file
/// with [`read_settings_file`], decided on its content without a lock, and
/// must not overwrite what another program wrote meanwhile
/// ([`SettingsWriteError::ChangedMeanwhile`]).
///
/// `lock` is the lock file to hold (`None`: `.<name>.lock` beside the file,
/// the one [`update_settings_file`] takes). `limit` bounds both the file
/// read again and the text written. The replacement is atomic.
///
/// ```
/// use memdir_settings::{SettingsWriteError, read_settings_file, replace_settings_file};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("settings.json");
/// std::fs::write(&path, "{\"model\": \"opus\"}")?;
/// let read = read_settings_file(&path, 1 << 20)?;
/// let mut doc = read.document.clone();
/// doc.set("model", &serde_json::json!("opus[1m]"));
///
/// // Someone else writes the file meanwhile: nothing is overwritten.
/// std::fs::write(&path, "{\"model\": \"sonnet\"}")?;
/// let refused = replace_settings_file(&path, None, read.bytes.as_deref(), &doc, 1 << 20);
/// assert!(matches!(refused, Err(SettingsWriteError::ChangedMeanwhile { .. })));
/// assert_eq!(std::fs::read_to_string(&path)?, "{\"model\": \"sonnet\"}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn replace_settings_file(
    path: &Path,
    lock: Option<&Path>,
    expected: Option<&[u8]>,
    document: &SettingsDocument,
    limit: u64,
) -> Result<(), SettingsWriteError> {
    let lock_path = match lock {
        Some(lock) => lock.to_owned(),
        None => lock_beside(path)?,
    };
    let _lock = lock_file(path, &lock_path)?;
    let now = read_settings_file(path, limit)?;
    if now.bytes.as_deref() != expected {
        return Err(SettingsWriteError::ChangedMeanwhile {
            path: path.to_owned(),
        });
    }
    let text = document.to_json();
    let len = text.len() as u64;
    if len > limit {
        return Err(SettingsWriteError::WouldBeTooLarge {
            path: path.to_owned(),
            len,
            limit,
        });
    }
    atomic_write(path, text.as_bytes())?;
    log::debug!("replaced settings {}", path.display());
    Ok(())
}

/// Takes the exclusive lock on `.<name>.lock` beside `path`, waiting for
/// another holder. The lock is released when the file is dropped, or when
/// its process dies.
fn lock(path: &Path) -> Result<File, SettingsWriteError> {
    lock_file(path, &lock_beside(path)?)
}

/// `.<name>.lock` beside `path`.
fn lock_beside(path: &Path) -> Result<PathBuf, SettingsWriteError> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(AtomicWriteError::NotAFilePath {
            path: path.to_owned(),
        }
        .into());
    };
    let mut lock_name = std::ffi::OsString::from(".");
    lock_name.push(name);
    lock_name.push(".lock");
    Ok(parent.join(lock_name))
}

/// Takes the exclusive lock `lock_path` for updating `path`, waiting for
/// another holder.
fn lock_file(path: &Path, lock_path: &Path) -> Result<File, SettingsWriteError> {
    let lock_path = lock_path.to_owned();
    let failed = |source| SettingsWriteError::Lock {
        lock: lock_path.clone(),
        source,
    };
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A link planted at the lock's name must not make us create or
        // lock a file elsewhere, and a FIFO must not make us wait.
        options.custom_flags(NOFOLLOW_NONBLOCK);
    }
    let file = match options.open(&lock_path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(SettingsWriteError::MissingFolder {
                path: path.to_owned(),
            });
        }
        Err(e) => return Err(failed(e)),
    };
    let meta = file.metadata().map_err(failed)?;
    if let Some(kind) = not_a_file(&meta) {
        return Err(SettingsWriteError::LockNotAFile {
            lock: lock_path,
            kind,
        });
    }
    file.lock().map_err(failed)?;
    Ok(file)
}

/// `O_NOFOLLOW | O_NONBLOCK` for `open` flags.
#[cfg(unix)]
#[allow(
    clippy::cast_possible_wrap,
    reason = "open flags are a C int; the bits fit"
)]
const NOFOLLOW_NONBLOCK: i32 =
    (rustix::fs::OFlags::NOFOLLOW.bits() | rustix::fs::OFlags::NONBLOCK.bits()) as i32;

#[cfg(test)]
mod tests;
