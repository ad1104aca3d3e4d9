//! Canonical paths in the spelling a user types (SPEC R4.4, R4.5): on
//! Windows `fs::canonicalize` answers with a verbatim path (`\\?\C:\…`,
//! `\\?\UNC\server\share\…`), and a project folder named from it would
//! carry the prefix (`----C--Users-…`) where the reference agent, which
//! sees `C:\Users\…`, names it `C--Users-…`.
//!
//! The rules are the `dunce` crate's, written out as a pure function of the
//! path's text so that they are tested on every platform (dunce does
//! nothing outside Windows), and extended to verbatim UNC paths, which
//! dunce leaves alone but the reference agent sees as `\\server\share\…`.

use std::borrow::Cow;
use std::io;
use std::path::{Path, PathBuf};

/// The longest plain Windows path, in UTF-16 units: `MAX_PATH` (260) less
/// the terminating NUL. A longer path is reachable only verbatim.
const MAX_PLAIN_PATH: usize = 259;

/// The longest file name on NTFS, in UTF-16 units.
const MAX_NAME: usize = 255;

/// A Windows verbatim path in its plain spelling, when both name the same
/// file: `\\?\C:\Users\me` → `C:\Users\me`, `\\?\UNC\server\share\x` →
/// `\\server\share\x`. Anything else comes back unchanged: paths that are
/// not verbatim (every Unix path among them), other verbatim forms
/// (`\\?\Volume{…}\`, `\\?\GLOBALROOT\…`), and verbatim paths whose plain
/// spelling would mean something else — a name with `.` or `..` (verbatim
/// takes them literally), a name ending in `.` or a space (plain spelling
/// drops them), a reserved device name (`CON`, `nul.txt`), a character a
/// plain path forbids, an empty name, or a path longer than `MAX_PATH`.
///
/// ```
/// use memdir_paths::strip_verbatim_prefix;
/// assert_eq!(strip_verbatim_prefix(r"\\?\C:\Users\me\proj"), r"C:\Users\me\proj");
/// assert_eq!(strip_verbatim_prefix(r"\\?\UNC\server\share\proj"), r"\\server\share\proj");
/// assert_eq!(strip_verbatim_prefix(r"\\?\C:\a\con"), r"\\?\C:\a\con");
/// assert_eq!(strip_verbatim_prefix("/home/me/proj"), "/home/me/proj");
/// ```
#[must_use]
pub fn strip_verbatim_prefix(path: &str) -> Cow<'_, str> {
    plain_spelling(path).map_or(Cow::Borrowed(path), Cow::Owned)
}

/// [`std::fs::canonicalize`], with a Windows verbatim result in its plain
/// spelling when that names the same file ([`strip_verbatim_prefix`]).
pub(crate) fn canonicalize(path: &Path) -> io::Result<PathBuf> {
    let real = std::fs::canonicalize(path)?;
    if cfg!(windows)
        && let Some(plain) = real.to_str().and_then(plain_spelling)
    {
        return Ok(PathBuf::from(plain));
    }
    Ok(real)
}

fn plain_spelling(path: &str) -> Option<String> {
    let rest = path.strip_prefix(r"\\?\")?;
    let (plain, names) = if let Some(unc) = strip_prefix_ignore_ascii_case(rest, r"UNC\") {
        // `server\share` must both be there, then the path below them.
        let mut parts = unc.splitn(3, '\\');
        let (server, share) = (parts.next()?, parts.next()?);
        if server.is_empty() || share.is_empty() || !is_plain_name(server) {
            return None;
        }
        let below = parts.next().into_iter().flat_map(|b| b.split('\\'));
        let names: Vec<&str> = std::iter::once(share).chain(below).collect();
        (format!(r"\\{unc}"), names)
    } else {
        // A drive letter, a colon and the root: `C:` alone would be the
        // current folder of drive C, another place.
        let b = rest.as_bytes();
        if b.len() < 3 || !b[0].is_ascii_alphabetic() || b[1] != b':' || b[2] != b'\\' {
            return None;
        }
        (rest.to_owned(), rest[3..].split('\\').collect())
    };
    let last = names.len().saturating_sub(1);
    for (i, name) in names.iter().enumerate() {
        // One trailing separator (`C:\`, `C:\dir\`) is an empty last name.
        if name.is_empty() && i == last {
            continue;
        }
        if !is_plain_name(name) {
            return None;
        }
    }
    (plain.encode_utf16().count() <= MAX_PLAIN_PATH).then_some(plain)
}

/// Whether `name` reads the same in a plain Windows path as in a verbatim
/// one.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name.encode_utf16().count() <= MAX_NAME
        && !name.ends_with(['.', ' '])
        && !name
            .chars()
            .any(|c| c.is_ascii_control() || "<>:\"/\\|?*".contains(c))
        && !is_device_name(name)
}

/// `CON`, `nul.txt`, `COM1.log`, `lpt¹`, `CONIN$`…: names that a plain
/// path reads as a device wherever they appear, with or without an
/// extension, in any case.
fn is_device_name(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    let upper = stem.to_ascii_uppercase();
    if matches!(
        upper.as_str(),
        "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$"
    ) {
        return true;
    }
    let (Some(head), Some(digit)) = (upper.get(..3), upper.get(3..)) else {
        return false;
    };
    (head == "COM" || head == "LPT")
        && matches!(
            digit,
            "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "¹" | "²" | "³"
        )
}

fn strip_prefix_ignore_ascii_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project_slug;

    fn check(verbatim: &str, plain: &str) {
        assert_eq!(strip_verbatim_prefix(verbatim), plain, "{verbatim:?}");
    }

    fn unchanged(path: &str) {
        assert_eq!(strip_verbatim_prefix(path), path, "{path:?}");
    }

    #[test]
    fn verbatim_disk_paths_lose_the_prefix() {
        check(r"\\?\C:\Users\me\proj", r"C:\Users\me\proj");
        check(r"\\?\c:\x", r"c:\x");
        check(r"\\?\C:\", r"C:\");
        check(r"\\?\D:\dir\", r"D:\dir\");
        check(r"\\?\C:\Users\me\my.proj", r"C:\Users\me\my.proj");
        check(r"\\?\C:\数据\🦀", r"C:\数据\🦀");
        check(r"\\?\C:\a\...b", r"C:\a\...b");
        check(r"\\?\C:\a\.hidden", r"C:\a\.hidden");
        check(r"\\?\C:\a\console", r"C:\a\console");
        check(r"\\?\C:\a\COM10", r"C:\a\COM10");
    }

    #[test]
    fn verbatim_unc_paths_become_plain_unc() {
        check(r"\\?\UNC\server\share", r"\\server\share");
        check(r"\\?\UNC\server\share\", r"\\server\share\");
        check(r"\\?\UNC\server\share\dir\proj", r"\\server\share\dir\proj");
        check(r"\\?\unc\server\share\x", r"\\server\share\x");
    }

    #[test]
    fn paths_whose_plain_spelling_differs_stay_verbatim() {
        // Not verbatim at all.
        unchanged(r"C:\Users\me");
        unchanged(r"\\server\share\x");
        unchanged("/home/me/proj");
        unchanged("relative/path");
        unchanged("");
        // Other verbatim and device forms.
        unchanged(r"\\?\Volume{0b5e1f46-0000-0000-0000-100000000000}\x");
        unchanged(r"\\?\GLOBALROOT\Device\HarddiskVolume1\x");
        unchanged(r"\\.\pipe\x");
        unchanged(r"\\.\C:\x");
        unchanged(r"\\?\C:");
        unchanged(r"\\?\C:x");
        unchanged(r"\\?\1:\x");
        // Dots, empty names and trailing dots or spaces are literal.
        unchanged(r"\\?\C:\a\..\b");
        unchanged(r"\\?\C:\a\.\b");
        unchanged(r"\\?\C:\a\\b");
        unchanged(r"\\?\C:\a.");
        unchanged(r"\\?\C:\a \b");
        // Devices, forbidden characters, controls.
        unchanged(r"\\?\C:\a\con");
        unchanged(r"\\?\C:\a\NUL.txt");
        unchanged(r"\\?\C:\a\Com1.log");
        unchanged(r"\\?\C:\a\lpt¹");
        unchanged(r"\\?\C:\a\conout$");
        unchanged(r"\\?\C:\a\aux .txt");
        unchanged(r"\\?\C:\a/b");
        unchanged(r"\\?\C:\a?b");
        unchanged(r"\\?\C:\a:stream");
        unchanged("\\\\?\\C:\\a\u{1}b");
        // UNC without a server or a share, or with a device as the share.
        unchanged(r"\\?\UNC\server");
        unchanged(r"\\?\UNC\server\");
        unchanged(r"\\?\UNC\\share");
        unchanged(r"\\?\UNC\server\con");
        // Past MAX_PATH only the verbatim spelling reaches the file.
        let long = format!(r"\\?\C:\{}", "d".repeat(300));
        unchanged(&long);
        unchanged(&format!(r"\\?\C:\{}", "n".repeat(256)));
    }

    #[test]
    fn the_longest_plain_path_is_kept_plain() {
        // `C:\` plus 256 characters is 259 UTF-16 units, the most MAX_PATH
        // allows.
        let names = format!("{}\\{}", "a".repeat(200), "b".repeat(55));
        let plain = format!(r"C:\{names}");
        assert_eq!(plain.len(), 259);
        check(&format!(r"\\?\{plain}"), &plain);
        unchanged(&format!(r"\\?\{plain}x"));
    }

    #[test]
    fn the_plain_spelling_gives_the_reference_agents_folder_name() {
        // The reference agent sees `C:\Users\me\proj` and sanitises every
        // character that is not an ASCII letter or digit.
        let canonical = r"\\?\C:\Users\me\proj";
        assert_eq!(project_slug(canonical), "----C--Users-me-proj");
        assert_eq!(
            project_slug(&strip_verbatim_prefix(canonical)),
            "C--Users-me-proj"
        );
        assert_eq!(
            project_slug(&strip_verbatim_prefix(r"\\?\UNC\srv\team\proj")),
            "--srv-team-proj"
        );
    }

    #[test]
    fn canonicalize_on_this_platform_keeps_real_paths() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a");
        std::fs::create_dir(&dir).unwrap();
        let real = canonicalize(&dir.join("../a")).unwrap();
        assert_eq!(real, canonicalize(&dir).unwrap());
        assert!(!real.to_string_lossy().starts_with(r"\\?\"), "{real:?}");
        assert!(real.is_absolute());
        assert!(canonicalize(&tmp.path().join("missing")).is_err());
    }
}
