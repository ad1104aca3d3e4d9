//! Validating a configured memory folder (SPEC R4.6): an override from the
//! environment or settings must not point memdir at `/`, at the home folder
//! or at anything that is not a plain absolute path; and a configured
//! project folder name (R4.3 step 3) must be one plain path segment.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use camino::Utf8PathBuf;

/// Why a configured memory path was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("memory path {raw:?} rejected: {reason}")]
pub struct InvalidMemoryPath {
    /// The path as configured.
    pub raw: String,
    /// Why it was rejected.
    pub reason: MemoryPathReason,
}

/// The rule a memory path broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MemoryPathReason {
    /// The path is empty.
    Empty,
    /// The path holds a NUL byte.
    NulByte,
    /// The path is relative (after `~/` expansion, when enabled).
    Relative,
    /// The path is `/` or too short to be a real folder (under 3 characters
    /// after normalisation).
    NearRoot,
    /// The path is a Windows drive root (`C:`, `C:\`).
    DriveRoot,
    /// The path is a UNC network path (`\\server\share`).
    Unc,
    /// The path is the home folder or one of its ancestors.
    HomeOrAncestor,
    /// The path starts with `~/` but the home folder is unknown.
    NoHome,
    /// The path starts with `~/` and the home folder is not valid UTF-8,
    /// so the expanded path could not be shown or written exactly.
    HomeNotUtf8,
}

impl fmt::Display for MemoryPathReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MemoryPathReason::Empty => "it is empty",
            MemoryPathReason::NulByte => "it contains a NUL byte",
            MemoryPathReason::Relative => "it is not absolute (use an absolute path or ~/…)",
            MemoryPathReason::NearRoot => "it is the root folder or too close to it",
            MemoryPathReason::DriveRoot => "it is a Windows drive root",
            MemoryPathReason::Unc => "it is a UNC network path",
            MemoryPathReason::HomeOrAncestor => "it is the home folder or one of its ancestors",
            MemoryPathReason::NoHome => "it starts with ~/ but the home folder is unknown",
            MemoryPathReason::HomeNotUtf8 => {
                "it starts with ~/ but the home folder is not valid UTF-8"
            }
        })
    }
}

/// Validates a configured memory folder and returns it normalised (`.` and
/// `..` applied, repeated separators removed) with a trailing separator.
///
/// With `expand_tilde`, a leading `~/` (or a lone `~`) is replaced by
/// `home`; `~user/` is never expanded and so is rejected as relative.
///
/// ```
/// use std::path::Path;
/// use memdir_paths::{validate_memory_path, MemoryPathReason};
/// let home = Some(Path::new("/home/me"));
/// let ok = validate_memory_path("~/notes/../memory", true, home)?;
/// assert_eq!(ok, Path::new("/home/me/memory/"));
/// let err = validate_memory_path("/home", true, home).unwrap_err();
/// assert_eq!(err.reason, MemoryPathReason::HomeOrAncestor);
/// # Ok::<(), memdir_paths::InvalidMemoryPath>(())
/// ```
pub fn validate_memory_path(
    raw: &str,
    expand_tilde: bool,
    home: Option<&Path>,
) -> Result<Utf8PathBuf, InvalidMemoryPath> {
    let reject = |reason| {
        Err(InvalidMemoryPath {
            raw: raw.to_owned(),
            reason,
        })
    };
    if raw.is_empty() {
        return reject(MemoryPathReason::Empty);
    }
    if raw.contains('\0') {
        return reject(MemoryPathReason::NulByte);
    }
    if raw.starts_with("\\\\") || raw.starts_with("//") {
        return reject(MemoryPathReason::Unc);
    }
    if is_drive_root(raw) {
        return reject(MemoryPathReason::DriveRoot);
    }
    let expanded: PathBuf = match raw.strip_prefix('~') {
        Some(rest) if expand_tilde && (rest.is_empty() || rest.starts_with('/')) => match home {
            Some(home) => home.join(rest.trim_start_matches('/')),
            None => return reject(MemoryPathReason::NoHome),
        },
        _ => PathBuf::from(raw),
    };
    if !expanded.is_absolute() {
        return reject(MemoryPathReason::Relative);
    }
    let normalized = normalize_lexically(&expanded);
    if normalized.as_os_str().len() < 3 {
        return reject(MemoryPathReason::NearRoot);
    }
    if let Some(home) = home.map(normalize_lexically)
        && home.starts_with(&normalized)
    {
        return reject(MemoryPathReason::HomeOrAncestor);
    }
    // Only `home` can bring bytes that are not UTF-8: `raw` is text.
    let Ok(normalized) = Utf8PathBuf::from_path_buf(normalized) else {
        return reject(MemoryPathReason::HomeNotUtf8);
    };
    let mut with_separator = normalized.into_string();
    with_separator.push(std::path::MAIN_SEPARATOR);
    Ok(Utf8PathBuf::from(with_separator))
}

/// The longest project folder name accepted, in bytes: what one path
/// segment may hold on common file systems.
pub const MAX_PROJECT_DIR_NAME_BYTES: usize = 255;

/// Why a configured project folder name was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("project folder name {} rejected: {reason}", shown(raw))]
pub struct InvalidProjectDirName {
    /// The name as configured.
    pub raw: String,
    /// Why it was rejected.
    pub reason: ProjectDirNameReason,
}

/// The rule a project folder name broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProjectDirNameReason {
    /// The name is empty.
    Empty,
    /// The name holds a NUL byte.
    NulByte,
    /// The name holds a control character (a line break, an escape).
    ControlCharacter,
    /// The name holds a path separator (`/` or `\`), so it is not one
    /// segment.
    Separator,
    /// The name is `.` or `..`, which name the `projects` folder itself or
    /// its parent.
    DotSegment,
    /// The name is not one plain segment on this platform (a Windows drive
    /// prefix such as `C:x`, or a `:` stream marker).
    NotOneSegment,
    /// The name is longer than [`MAX_PROJECT_DIR_NAME_BYTES`].
    TooLong,
}

impl fmt::Display for ProjectDirNameReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProjectDirNameReason::Empty => f.write_str("it is empty"),
            ProjectDirNameReason::NulByte => f.write_str("it contains a NUL byte"),
            ProjectDirNameReason::ControlCharacter => {
                f.write_str("it contains a control character")
            }
            ProjectDirNameReason::Separator => {
                f.write_str("it contains a path separator (it must be one folder name)")
            }
            ProjectDirNameReason::DotSegment => f.write_str("it is . or .., not a folder name"),
            ProjectDirNameReason::NotOneSegment => {
                f.write_str("it is not one plain folder name on this platform")
            }
            ProjectDirNameReason::TooLong => {
                write!(f, "it is longer than {MAX_PROJECT_DIR_NAME_BYTES} bytes")
            }
        }
    }
}

/// A name as an error message shows it: quoted with escapes, and cut when
/// long, so that a hostile value neither floods nor steers a terminal.
fn shown(raw: &str) -> String {
    const SHOWN_CHARS: usize = 64;
    if raw.chars().count() <= SHOWN_CHARS {
        return format!("{raw:?}");
    }
    let head: String = raw.chars().take(SHOWN_CHARS).collect();
    format!("{head:?}… ({} bytes)", raw.len())
}

/// Validates a configured project folder name (`CLAUDE_CODE_PROJECT_DIR_NAME`,
/// SPEC R4.3 step 3): it must be one plain path segment, so that
/// `<base>/projects/<name>/` stays inside `<base>/projects/`. Returns the
/// name unchanged: the reference agent uses it as it is, and memdir must
/// find the same folder.
///
/// ```
/// use memdir_paths::{validate_project_dir_name, ProjectDirNameReason};
/// assert_eq!(validate_project_dir_name("my-app")?, "my-app");
/// let err = validate_project_dir_name("../x").unwrap_err();
/// assert_eq!(err.reason, ProjectDirNameReason::Separator);
/// # Ok::<(), memdir_paths::InvalidProjectDirName>(())
/// ```
pub fn validate_project_dir_name(raw: &str) -> Result<&str, InvalidProjectDirName> {
    let reject = |reason| {
        Err(InvalidProjectDirName {
            raw: raw.to_owned(),
            reason,
        })
    };
    if raw.is_empty() {
        return reject(ProjectDirNameReason::Empty);
    }
    if raw.contains('\0') {
        return reject(ProjectDirNameReason::NulByte);
    }
    if raw.chars().any(char::is_control) {
        return reject(ProjectDirNameReason::ControlCharacter);
    }
    if raw.contains(['/', '\\']) {
        return reject(ProjectDirNameReason::Separator);
    }
    if raw == "." || raw == ".." {
        return reject(ProjectDirNameReason::DotSegment);
    }
    if raw.len() > MAX_PROJECT_DIR_NAME_BYTES {
        return reject(ProjectDirNameReason::TooLong);
    }
    // What the platform itself reads as more than one plain segment: on
    // Windows `C:x` carries a drive prefix (joining it would leave the base),
    // `a:b` names a stream, and a trailing dot or space is dropped (`...`
    // would be the `projects` folder itself).
    let mut components = Path::new(raw).components();
    let one_plain = matches!(components.next(), Some(Component::Normal(n)) if n == raw)
        && components.next().is_none();
    let windows_trap = raw.contains(':') || raw.ends_with(['.', ' ']);
    if !one_plain || (cfg!(windows) && windows_trap) {
        return reject(ProjectDirNameReason::NotOneSegment);
    }
    Ok(raw)
}

/// `C:`, `C:\` or `C:/`, alone.
fn is_drive_root(raw: &str) -> bool {
    let b = raw.as_bytes();
    b.len() >= 2
        && b[0].is_ascii_alphabetic()
        && b[1] == b':'
        && raw[2..].chars().all(|c| c == '\\' || c == '/')
}

/// Applies `.` and `..` components without touching the disk; `..` above
/// the root stays at the root.
///
/// ```
/// use std::path::Path;
/// let p = memdir_paths::normalize_lexically(Path::new("/a/./b/../c"));
/// assert_eq!(p, Path::new("/a/c"));
/// ```
#[must_use]
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(raw: &str, expected: Result<&str, MemoryPathReason>) {
        let got = validate_memory_path(raw, true, Some(Path::new("/home/me")));
        match expected {
            Ok(path) => assert_eq!(got, Ok(Utf8PathBuf::from(path)), "{raw:?}"),
            Err(reason) => assert_eq!(got.map_err(|e| e.reason), Err(reason), "{raw:?}"),
        }
    }

    #[test]
    fn accepts_plain_absolute_paths() {
        check("/srv/memory", Ok("/srv/memory/"));
        check("/srv/memory/", Ok("/srv/memory/"));
        check("/srv//a/./b/../memory", Ok("/srv/a/memory/"));
        check("~/memory", Ok("/home/me/memory/"));
        check("/home/me/.claude/x", Ok("/home/me/.claude/x/"));
        check("/abc", Ok("/abc/"));
    }

    #[test]
    fn rejects_each_rule() {
        use MemoryPathReason::*;
        check("", Err(Empty));
        check("/srv/\0mem", Err(NulByte));
        check("memory", Err(Relative));
        check("./memory", Err(Relative));
        check("~other/memory", Err(Relative));
        check("/", Err(NearRoot));
        check("/a", Err(NearRoot));
        check("/../..", Err(NearRoot));
        check("C:", Err(DriveRoot));
        check("C:\\", Err(DriveRoot));
        check("c:/", Err(DriveRoot));
        check("\\\\server\\share", Err(Unc));
        check("//server/share", Err(Unc));
        check("~", Err(HomeOrAncestor));
        check("~/", Err(HomeOrAncestor));
        check("/home/me", Err(HomeOrAncestor));
        check("/home/me/..", Err(HomeOrAncestor));
        check("/home", Err(HomeOrAncestor));
        check("/home/./me/", Err(HomeOrAncestor));
    }

    #[test]
    fn tilde_is_literal_without_expansion_and_needs_a_home() {
        assert_eq!(
            validate_memory_path("~/m", false, Some(Path::new("/home/me")))
                .unwrap_err()
                .reason,
            MemoryPathReason::Relative
        );
        assert_eq!(
            validate_memory_path("~/m", true, None).unwrap_err().reason,
            MemoryPathReason::NoHome
        );
    }

    fn check_name(raw: &str, expected: Result<(), ProjectDirNameReason>) {
        let got = validate_project_dir_name(raw);
        match expected {
            Ok(()) => assert_eq!(got, Ok(raw), "{raw:?}"),
            Err(reason) => assert_eq!(got.map_err(|e| e.reason), Err(reason), "{raw:?}"),
        }
    }

    #[test]
    fn project_dir_names_are_one_plain_segment() {
        use ProjectDirNameReason::*;
        check_name("my-app", Ok(()));
        check_name("-home-me-src-app", Ok(()));
        #[cfg(not(windows))]
        check_name("...", Ok(()));
        check_name(".hidden", Ok(()));
        check_name("with space", Ok(()));
        check_name("数据", Ok(()));
        check_name(&"n".repeat(255), Ok(()));
        check_name("", Err(Empty));
        check_name("a\0b", Err(NulByte));
        check_name("\0", Err(NulByte));
        check_name("a\nb", Err(ControlCharacter));
        check_name("\u{1b}[31mred", Err(ControlCharacter));
        check_name("../x", Err(Separator));
        check_name("a/b", Err(Separator));
        check_name("a\\b", Err(Separator));
        check_name("/abs", Err(Separator));
        check_name("..\\..\\x", Err(Separator));
        check_name("x/", Err(Separator));
        check_name(".", Err(DotSegment));
        check_name("..", Err(DotSegment));
        check_name(&"n".repeat(256), Err(TooLong));
        check_name(&"é".repeat(128), Err(TooLong));
    }

    #[cfg(windows)]
    #[test]
    fn project_dir_names_with_a_drive_or_stream_are_refused_on_windows() {
        check_name("C:x", Err(ProjectDirNameReason::NotOneSegment));
        check_name("a:b", Err(ProjectDirNameReason::NotOneSegment));
        check_name("...", Err(ProjectDirNameReason::NotOneSegment));
        check_name("name ", Err(ProjectDirNameReason::NotOneSegment));
    }

    #[test]
    fn project_dir_name_errors_are_short_and_escaped() {
        let err = validate_project_dir_name("a\u{1b}]0;x\u{7}").unwrap_err();
        assert_eq!(
            err.to_string(),
            "project folder name \"a\\u{1b}]0;x\\u{7}\" rejected: it contains a control character"
        );
        let long = "x".repeat(10_000);
        let message = validate_project_dir_name(&long).unwrap_err().to_string();
        assert!(message.len() < 200, "{message}");
        assert!(message.contains("(10000 bytes)"), "{message}");
    }

    #[cfg(unix)]
    #[test]
    fn a_home_folder_that_is_not_utf8_expands_to_an_error() {
        use std::os::unix::ffi::OsStrExt;
        let home = Path::new(std::ffi::OsStr::from_bytes(b"/home/m\xff"));
        let err = validate_memory_path("~/memory", true, Some(home)).unwrap_err();
        assert_eq!(err.reason, MemoryPathReason::HomeNotUtf8);
        // Without `~` the home folder is only compared with, never joined.
        assert_eq!(
            validate_memory_path("/srv/memory", true, Some(home)),
            Ok(Utf8PathBuf::from("/srv/memory/"))
        );
    }

    #[test]
    fn errors_name_the_path_and_the_reason() {
        let err = validate_memory_path("/home", true, Some(Path::new("/home/me"))).unwrap_err();
        assert_eq!(
            err.to_string(),
            "memory path \"/home\" rejected: it is the home folder or one of its ancestors"
        );
    }
}
