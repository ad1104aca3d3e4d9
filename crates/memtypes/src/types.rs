//! The two classifications of memories: what a memory *is* ([`MemoryType`])
//! and where a memory *file* comes from ([`MemoryFileSource`]).
//!
//! They are deliberately different enums with different names (SPEC R1.5):
//! a `user` memory and the user's `CLAUDE.md` have nothing to do with each
//! other, and the type system should not let one stand for the other.

use std::fmt;
use std::str::FromStr;

/// The kind of knowledge a memory holds (SPEC R1.1).
///
/// There are exactly four, in this order. Parsing is an exact,
/// case-sensitive match: `"User"` is not a type, and neither is `3`.
/// A memory without a valid type is *untyped* (`None`), which is normal for
/// old files and never an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemoryType {
    /// Who the user is: role, goals, background knowledge.
    User,
    /// How the user wants the work done: corrections and confirmations.
    Feedback,
    /// Ongoing work in the project: goals, decisions, deadlines.
    Project,
    /// Pointers to where things live outside the code: trackers, dashboards.
    Reference,
}

/// Where a memory is meant to be kept: only for this user, or shared with
/// the team through team sync.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// Kept in the private auto memory folder.
    Private,
    /// Kept in the `team/` subfolder and shared through team sync.
    Team,
}

impl MemoryType {
    /// All types, in the order the specification lists them.
    pub const ALL: [MemoryType; 4] = [
        MemoryType::User,
        MemoryType::Feedback,
        MemoryType::Project,
        MemoryType::Reference,
    ];

    /// Parses a type tolerantly: an exact, case-sensitive match or `None`.
    ///
    /// ```
    /// use memdir_memtypes::MemoryType;
    /// assert_eq!(MemoryType::parse("feedback"), Some(MemoryType::Feedback));
    /// assert_eq!(MemoryType::parse("Feedback"), None);
    /// assert_eq!(MemoryType::parse(""), None);
    /// ```
    #[must_use]
    pub fn parse(raw: &str) -> Option<MemoryType> {
        MemoryType::ALL.into_iter().find(|t| t.as_str() == raw)
    }

    /// The type's name as written in frontmatter.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryType::User => "user",
            MemoryType::Feedback => "feedback",
            MemoryType::Project => "project",
            MemoryType::Reference => "reference",
        }
    }

    /// The scope a memory of this type leans to when nothing else is said
    /// (SPEC R1.2).
    ///
    /// `user` memories are always private and `feedback` is private by
    /// default (a project-wide convention may still be shared); `project`
    /// and `reference` memories lean to the team.
    #[must_use]
    pub fn default_scope(self) -> Scope {
        match self {
            MemoryType::User | MemoryType::Feedback => Scope::Private,
            MemoryType::Project | MemoryType::Reference => Scope::Team,
        }
    }

    /// Whether a memory of this type may ever be shared with the team.
    ///
    /// Only `user` memories are never shared: they describe one person.
    #[must_use]
    pub fn may_be_shared(self) -> bool {
        self != MemoryType::User
    }
}

impl fmt::Display for MemoryType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a [`MemoryType`] strictly with [`str::parse`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown memory type {0:?} (expected one of: user, feedback, project, reference)")]
pub struct UnknownMemoryType(pub String);

impl FromStr for MemoryType {
    type Err = UnknownMemoryType;

    /// Strict parsing for places where an unknown type is a user's mistake,
    /// such as a command-line flag. Reading files uses [`MemoryType::parse`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        MemoryType::parse(s).ok_or_else(|| UnknownMemoryType(s.to_owned()))
    }
}

/// Where a memory *file* comes from, as a user interface lists them
/// (SPEC R1.5). Unrelated to [`MemoryType`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemoryFileSource {
    /// The user's own instruction file, `~/.claude/CLAUDE.md`.
    User,
    /// The project's instruction file, `CLAUDE.md` or `.claude/CLAUDE.md`.
    Project,
    /// The project's uncommitted instruction file, `CLAUDE.local.md`.
    Local,
    /// An instruction file managed by the system administrator.
    Managed,
    /// A file in the auto memory folder.
    AutoMem,
    /// A file in the auto memory folder's `team/` subfolder.
    TeamMem,
}

impl MemoryFileSource {
    /// All sources, in the order a user interface lists them.
    pub const ALL: [MemoryFileSource; 6] = [
        MemoryFileSource::User,
        MemoryFileSource::Project,
        MemoryFileSource::Local,
        MemoryFileSource::Managed,
        MemoryFileSource::AutoMem,
        MemoryFileSource::TeamMem,
    ];

    /// A short label for the source.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            MemoryFileSource::User => "user",
            MemoryFileSource::Project => "project",
            MemoryFileSource::Local => "local",
            MemoryFileSource::Managed => "managed",
            MemoryFileSource::AutoMem => "auto memory",
            MemoryFileSource::TeamMem => "team memory",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_is_exact_and_case_sensitive() {
        for t in MemoryType::ALL {
            assert_eq!(MemoryType::parse(t.as_str()), Some(t));
            assert_eq!(MemoryType::parse(&t.as_str().to_uppercase()), None);
            assert_eq!(MemoryType::parse(&format!(" {t}")), None);
        }
        assert_eq!(MemoryType::parse("3"), None);
    }

    #[test]
    fn order_is_the_specified_one() {
        let names: Vec<_> = MemoryType::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(names, ["user", "feedback", "project", "reference"]);
    }

    #[test]
    fn strict_parse_names_the_bad_value() {
        let err = "Users".parse::<MemoryType>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown memory type \"Users\" (expected one of: user, feedback, project, reference)"
        );
    }

    #[test]
    fn scope_leaning() {
        assert_eq!(MemoryType::User.default_scope(), Scope::Private);
        assert_eq!(MemoryType::Feedback.default_scope(), Scope::Private);
        assert_eq!(MemoryType::Project.default_scope(), Scope::Team);
        assert_eq!(MemoryType::Reference.default_scope(), Scope::Team);
        assert!(!MemoryType::User.may_be_shared());
        assert!(MemoryType::Feedback.may_be_shared());
    }
}
