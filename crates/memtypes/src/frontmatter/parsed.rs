//! What reading a memory's frontmatter gives: the [`Header`], the
//! [`ParsedMemory`] with its [`Diagnostic`]s, the two [`FrontmatterShape`]s,
//! and the keys memdir reads.

use std::fmt;

use crate::types::MemoryType;

/// The fields of a memory's frontmatter that memdir uses.
///
/// Every field is optional: a file may have no frontmatter at all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// Short kebab-case name of the memory (`name:`).
    pub name: Option<String>,
    /// One specific line saying what the memory holds (`description:`); it is
    /// what relevance judgements read.
    pub description: Option<String>,
    /// The memory type (`type:`); `None` for untyped memories.
    pub memory_type: Option<MemoryType>,
}

/// Something odd about a memory file that did not stop it from being read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Diagnostic {
    /// The file is not valid UTF-8; invalid bytes were replaced by U+FFFD.
    InvalidUtf8 {
        /// Byte offset of the first invalid sequence in the original bytes.
        offset: usize,
    },
    /// The file opens a frontmatter block with `---` but never closes it.
    /// The leading `key: value` lines were read as frontmatter anyway.
    UnclosedFrontmatter,
    /// The frontmatter is not valid YAML; the known keys were recovered line
    /// by line.
    MalformedYaml {
        /// The YAML parser's message.
        message: String,
    },
    /// The frontmatter is valid YAML but not a mapping of keys to values.
    NotAMapping,
    /// A known key holds something other than a string.
    NonStringValue {
        /// The key (`name`, `description` or `type`).
        key: &'static str,
        /// What it holds instead (`a number`, `a list`, …).
        found: &'static str,
    },
    /// `type:` holds a string that is not one of the four memory types.
    UnknownType {
        /// The value found.
        value: String,
    },
    /// `modified:` holds something that is not an ISO 8601 time; the file's
    /// mtime is used instead.
    InvalidModified {
        /// The key (`modified` or `metadata.modified`).
        key: &'static str,
        /// The value found, as text.
        value: String,
    },
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Diagnostic::InvalidUtf8 { offset } => {
                write!(f, "invalid UTF-8 at byte {offset}; invalid bytes replaced")
            }
            Diagnostic::UnclosedFrontmatter => {
                f.write_str("frontmatter opened with `---` is never closed")
            }
            Diagnostic::MalformedYaml { message } => {
                write!(
                    f,
                    "frontmatter is not valid YAML ({message}); fields recovered line by line"
                )
            }
            Diagnostic::NotAMapping => {
                f.write_str("frontmatter is not a mapping of keys to values")
            }
            Diagnostic::NonStringValue { key, found } => {
                write!(f, "`{key}` holds {found}, not a string")
            }
            Diagnostic::UnknownType { value } => write!(
                f,
                "unknown memory type {value:?} (expected user, feedback, project or reference); treated as untyped"
            ),
            Diagnostic::InvalidModified { key, value } => write!(
                f,
                "`{key}` holds {value:?}, not an ISO 8601 time; the file's mtime is used"
            ),
        }
    }
}

/// A memory file as read: its header, its body and what was odd about it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedMemory {
    /// The frontmatter fields that could be read.
    pub header: Header,
    /// Everything after the frontmatter block, byte for byte (line ends are
    /// kept as they were). The whole text when there is no frontmatter.
    pub body: String,
    /// Whether the file opens a frontmatter block (closed or not).
    pub has_frontmatter: bool,
    /// Which of the two frontmatter shapes the file has (R2.5); an update
    /// keeps it (see [`update_memory`](crate::update_memory)).
    pub shape: FrontmatterShape,
    /// The write time the frontmatter records (`modified:`, top-level or
    /// under `metadata:`), when it is a valid ISO 8601 time. It may lie in
    /// the future; [`effective_time_ms`](crate::effective_time_ms) caps it.
    pub modified: Option<jiff::Timestamp>,
    /// When a person or `memdir verify` last checked the memory against the
    /// project (`verified:`, an ISO 8601 time), when valid.
    pub verified: Option<jiff::Timestamp>,
    /// The memory files this one replaces (`supersedes:`, a list of file
    /// names relative to the memory folder, or one name): recall and the
    /// manifest never offer those.
    pub supersedes: Vec<String>,
    /// The memory file that replaced this one (`supersededBy:`), when one
    /// did.
    pub superseded_by: Option<String>,
    /// Keys of the frontmatter that memdir does not use, sorted; those under
    /// `metadata:` as `metadata.<key>`. Keeping them is not an error; they
    /// are listed so that a rewrite can warn about them.
    pub unknown_keys: Vec<String>,
    /// What was odd about the file, in the order found. Empty for a clean file.
    pub diagnostics: Vec<Diagnostic>,
}

/// The two ways a memory's frontmatter is laid out (SPEC R2.5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum FrontmatterShape {
    /// The R2.1 shape: `name`, `description` and `type` at the top level.
    /// Also the shape of a file without frontmatter, and of every new memory.
    #[default]
    Flat,
    /// The reference agent's shape since 2.1.146: a `metadata:` mapping
    /// holds `type` (and `modified`, `node_type`, `originSessionId`, …);
    /// `name` and `description` may sit at the top level or inside it.
    Nested,
}

impl FrontmatterShape {
    /// `flat` or `nested`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FrontmatterShape::Flat => "flat",
            FrontmatterShape::Nested => "nested",
        }
    }
}

impl fmt::Display for FrontmatterShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The keys memdir reads, at the top level and under `metadata:`.
pub(super) const KNOWN_KEYS: [&str; 4] = ["name", "description", "type", "modified"];

/// memdir's own top-level keys, read beside the known ones and written
/// only by [`set_memdir_key`](crate::set_memdir_key).
pub const MEMDIR_KEYS: [&str; 3] = ["verified", "supersedes", "supersededBy"];
/// The key of the nested block (R2.5).
pub(super) const METADATA: &str = "metadata";
