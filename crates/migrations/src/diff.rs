//! The unified diff a dry run prints.

use std::path::Path;

use similar::TextDiff;

/// `before` -> `after` of the file at `path` as a unified diff with three
/// lines of context (`/dev/null` for a file that does not exist yet).
pub(crate) fn unified(path: &Path, before: &[u8], after: &str) -> String {
    let old = String::from_utf8_lossy(before);
    let shown = path.display().to_string();
    let old_name = if before.is_empty() {
        "/dev/null".to_owned()
    } else {
        format!("a{}", prefixed(&shown))
    };
    TextDiff::from_lines(old.as_ref(), after)
        .unified_diff()
        .context_radius(3)
        .header(&old_name, &format!("b{}", prefixed(&shown)))
        .to_string()
}

/// The path with a leading separator, as `a/…` and `b/…` need.
fn prefixed(path: &str) -> String {
    if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("/{path}")
    }
}
