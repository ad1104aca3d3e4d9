//! Writing one settings file back: read it under a lock, let the caller
//! edit its top-level keys, and replace it atomically, relative to an open
//! handle of its folder.
//!
//! Key order and untouched values survive byte for byte. `serde_json`'s `Map`
//! sorts keys unless its `preserve_order` feature is on, and features unify
//! across the workspace: turning it on reorders every JSON object that
//! memdir prints (the CLI's `--json` snapshots change). So a document is
//! our own ordered list of top-level `(key, RawValue)` pairs instead
//! (`serde_json`'s `raw_value` feature, which changes nothing else): a value
//! nobody touched is written back as the very text it was read as.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use memdir_memtypes::{AtomicWriteError, ReadError, read_regular_from};
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::contained::{Folder, lock, open_folder};
use crate::read::{Unusable, parse_object};
use crate::{LockDir, MAX_SETTINGS_BYTES, SettingsPath};

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
    /// A folder between the trusted root and the file is a symbolic link
    /// (a linked `<project>/.claude`): the write would land in whatever
    /// folder it points to, another project's perhaps, so it is not made.
    #[error("cannot update settings {}: {} is a symbolic link (memdir does not write through a linked folder)", path.display(), folder.display())]
    LinkedFolder {
        /// The settings file.
        path: PathBuf,
        /// The folder that is a link.
        folder: PathBuf,
    },
    /// A folder on the way to the file cannot be opened: it is not a
    /// folder, or it may not be read.
    #[error("cannot update settings {}: cannot open the folder {}", path.display(), folder.display())]
    Folder {
        /// The settings file.
        path: PathBuf,
        /// The folder.
        folder: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
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
    /// The settings file's lock (in memdir's lock folder) cannot be
    /// opened or locked.
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
/// changed replaces the file atomically, relative to an open handle of its
/// folder. Returns what `edit` returned.
///
/// - Unknown keys, their order and their values' text survive; new keys go
///   at the end.
/// - The folder is reached from `file`'s root one segment at a time, and a
///   symbolic link on the way is refused
///   ([`SettingsWriteError::LinkedFolder`]): a linked `.claude` leads to
///   another project's files. The root itself is opened by its path.
/// - A missing file is created (mode 0644 less the umask on Unix); its
///   folder must exist ([`SettingsWriteError::MissingFolder`]): this never
///   creates folders.
/// - The file is left untouched, with a typed error, when it is not a
///   JSON object (comments included: JSON has none), sets a key twice, is
///   not a regular file (a FIFO or device is never waited on), is a
///   symbolic link, is over [`MAX_SETTINGS_BYTES`] or would become so.
/// - Updates are serialised by an exclusive lock in memdir's own folder
///   ([`LockDir`], `<base>/memdir/locks/`), held from the read to the
///   rename, so two memdir processes or threads updating different keys
///   lose nothing. Nothing is ever added beside the settings file but the
///   file itself. Writers that take no lock, such as an editor or another
///   program, are not serialised.
///
/// ```
/// use memdir_settings::{LockDir, SettingsPath, update_settings_file};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("settings.json");
/// std::fs::write(&path, "{\"theme\": \"dark\", \"autoMemoryEnabled\": true}\n")?;
/// let file = SettingsPath::new(dir.path(), "settings.json");
/// update_settings_file(&file, &LockDir::under_base(dir.path()), |doc| {
///     doc.set("autoMemoryEnabled", &serde_json::json!(false));
/// })?;
/// assert_eq!(
///     std::fs::read_to_string(&path)?,
///     "{\n  \"theme\": \"dark\",\n  \"autoMemoryEnabled\": false\n}\n"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn update_settings_file<T>(
    file: &SettingsPath,
    locks: &LockDir,
    edit: impl FnOnce(&mut SettingsDocument) -> T,
) -> Result<T, SettingsWriteError> {
    let path = file.path();
    let folder = open_folder(file)?
        .ok_or_else(|| SettingsWriteError::MissingFolder { path: path.clone() })?;
    let _lock = lock(file, locks)?;
    let mut doc = read_in(&folder, &path, MAX_SETTINGS_BYTES)?.document;
    let result = edit(&mut doc);
    if !doc.is_changed() {
        return Ok(result);
    }
    let text = doc.to_json();
    let len = text.len() as u64;
    if len > MAX_SETTINGS_BYTES {
        return Err(SettingsWriteError::WouldBeTooLarge {
            path,
            len,
            limit: MAX_SETTINGS_BYTES,
        });
    }
    folder.atomic_write(&path, text.as_bytes())?;
    log::debug!("updated settings {}", path.display());
    Ok(result)
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
/// lock: reached and checked exactly as [`update_settings_file`] reaches
/// and checks it (a linked folder on the way, a symbolic link, a FIFO, a
/// file that is not a JSON object or sets a key twice is an error), with
/// `limit` in place of [`MAX_SETTINGS_BYTES`] for files known to grow
/// larger (the agent's global configuration). A missing folder on the way
/// is no file. Nothing is created, not even a lock.
pub fn read_settings_file(
    file: &SettingsPath,
    limit: u64,
) -> Result<ReadSettings, SettingsWriteError> {
    match open_folder(file)? {
        Some(folder) => read_in(&folder, &file.path(), limit),
        None => Ok(ReadSettings {
            bytes: None,
            document: SettingsDocument::new(),
        }),
    }
}

/// Reads the file of an open folder, checked as a settings file to write.
fn read_in(
    folder: &Folder<'_>,
    path: &Path,
    limit: u64,
) -> Result<ReadSettings, SettingsWriteError> {
    let owned = || path.to_owned();
    let not_a_file = |kind| match kind {
        "a symbolic link" => SettingsWriteError::Symlink { path: owned() },
        kind => SettingsWriteError::NotAFile {
            path: owned(),
            kind,
        },
    };
    if folder.not_a_file() == Some("a symbolic link") {
        return Err(SettingsWriteError::Symlink { path: owned() });
    }
    let file = match folder.open_file() {
        Ok(Some(file)) => file,
        Ok(None) => {
            return Ok(ReadSettings {
                bytes: None,
                document: SettingsDocument::new(),
            });
        }
        // A socket cannot be opened at all; say what it is.
        Err(source) => {
            return Err(match folder.not_a_file() {
                Some(kind) => not_a_file(kind),
                None => SettingsWriteError::Read {
                    path: owned(),
                    source: ReadError::Io {
                        path: owned(),
                        source,
                    },
                },
            });
        }
    };
    let bytes = match read_regular_from(file, path, limit) {
        Ok(bytes) => bytes,
        Err(ReadError::NotAFile { kind, .. }) => return Err(not_a_file(kind)),
        Err(ReadError::TooLarge { limit, .. }) => {
            return Err(SettingsWriteError::TooLarge {
                path: owned(),
                limit,
            });
        }
        Err(source) => {
            return Err(SettingsWriteError::Read {
                path: owned(),
                source,
            });
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
/// The file is reached, locked and replaced as [`update_settings_file`]
/// does it (never through a linked folder; the lock in `locks`). `limit`
/// bounds both the file read again and the text written.
///
/// ```
/// use memdir_settings::{LockDir, SettingsPath, SettingsWriteError, read_settings_file, replace_settings_file};
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("settings.json");
/// std::fs::write(&path, "{\"model\": \"opus\"}")?;
/// let (file, locks) = (SettingsPath::new(dir.path(), "settings.json"), LockDir::under_base(dir.path()));
/// let read = read_settings_file(&file, 1 << 20)?;
/// let mut doc = read.document.clone();
/// doc.set("model", &serde_json::json!("opus[1m]"));
///
/// // Someone else writes the file meanwhile: nothing is overwritten.
/// std::fs::write(&path, "{\"model\": \"sonnet\"}")?;
/// let refused = replace_settings_file(&file, &locks, read.bytes.as_deref(), &doc, 1 << 20);
/// assert!(matches!(refused, Err(SettingsWriteError::ChangedMeanwhile { .. })));
/// assert_eq!(std::fs::read_to_string(&path)?, "{\"model\": \"sonnet\"}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn replace_settings_file(
    file: &SettingsPath,
    locks: &LockDir,
    expected: Option<&[u8]>,
    document: &SettingsDocument,
    limit: u64,
) -> Result<(), SettingsWriteError> {
    let path = file.path();
    let folder = open_folder(file)?
        .ok_or_else(|| SettingsWriteError::MissingFolder { path: path.clone() })?;
    let _lock = lock(file, locks)?;
    let now = read_in(&folder, &path, limit)?;
    if now.bytes.as_deref() != expected {
        return Err(SettingsWriteError::ChangedMeanwhile { path });
    }
    let text = document.to_json();
    let len = text.len() as u64;
    if len > limit {
        return Err(SettingsWriteError::WouldBeTooLarge { path, len, limit });
    }
    folder.atomic_write(&path, text.as_bytes())?;
    log::debug!("replaced settings {}", path.display());
    Ok(())
}

#[cfg(test)]
mod tests;
