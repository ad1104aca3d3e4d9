//! Turning a project root into a folder name (SPEC R4.5), compatible with
//! the reference agent so that memdir finds a user's existing
//! `~/.claude/projects/<slug>/memory/`.

/// Longest folder name kept whole; longer names are cut and suffixed with
/// a hash of the full path.
pub const MAX_SLUG_PREFIX: usize = 200;

/// Replaces every character that is not an ASCII letter or digit with `-`.
///
/// A character outside the Basic Multilingual Plane (an emoji, say) becomes
/// two dashes: the reference agent replaces UTF-16 code units, and the
/// folder names must match. Idempotent.
///
/// ```
/// use memdir_paths::sanitize_path;
/// assert_eq!(sanitize_path("/home/a/my.proj"), "-home-a-my-proj");
/// assert_eq!(sanitize_path("/tmp/数据"), "-tmp---");
/// assert_eq!(sanitize_path("/tmp/🦀"), "-tmp---");
/// ```
#[must_use]
pub fn sanitize_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('-', c.len_utf16()));
        }
    }
    out
}

/// The folder name for a project root: [`sanitize_path`], and for names
/// longer than [`MAX_SLUG_PREFIX`] the first 200 characters, a `-` and a
/// base-36 hash of the full path.
///
/// The hash is the one the reference agent used for this (a 32-bit string
/// hash over UTF-16 code units, `h = h * 31 + unit`, printed as the base-36
/// absolute value). Versions of the agent from August 2026 on may suffix
/// long names differently; for such a project, point memdir at the folder
/// with `--memory-dir` or `autoMemoryDirectory`.
///
/// ```
/// use memdir_paths::project_slug;
/// assert_eq!(project_slug("/home/a/my.proj"), "-home-a-my-proj");
/// let long = format!("/{}", "d".repeat(260));
/// let slug = project_slug(&long);
/// assert_eq!(&slug[..201], format!("-{}-", "d".repeat(199)));
/// assert!(slug.len() > 202 && slug.len() <= 208);
/// ```
#[must_use]
pub fn project_slug(root: &str) -> String {
    let mut slug = sanitize_path(root);
    if slug.len() <= MAX_SLUG_PREFIX {
        return slug;
    }
    // The sanitised name is ASCII, so byte and character counts agree.
    slug.truncate(MAX_SLUG_PREFIX);
    slug.push('-');
    slug.push_str(&base36(i64::from(string_hash(root)).unsigned_abs()));
    slug
}

/// A 32-bit string hash over UTF-16 code units: `h = h * 31 + unit`,
/// wrapping.
fn string_hash(text: &str) -> i32 {
    text.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_shl(5)
            .wrapping_sub(h)
            .wrapping_add(i32::from(unit))
    })
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[usize::try_from(n % 36).expect("a digit below 36")]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).expect("base-36 digits are ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_matches_the_reference_string_hash() {
        // Values of the well-known 31-multiplier string hash.
        assert_eq!(string_hash(""), 0);
        assert_eq!(string_hash("a"), 97);
        assert_eq!(string_hash("hello"), 99_162_322);
        assert_eq!(string_hash("polygenelubricants"), i32::MIN);
        // Astral characters hash as their two UTF-16 units.
        assert_eq!(string_hash("🦀"), 0xD83E * 31 + 0xDD80);
    }

    #[test]
    fn base36_digits() {
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
        assert_eq!(base36(2_147_483_648), "zik0zk");
    }

    #[test]
    fn long_names_are_cut_and_hashed() {
        let root = format!("/very/deep/{}", "gggggggggg/".repeat(30));
        let slug = project_slug(&root);
        let hash = base36(i64::from(string_hash(&root)).unsigned_abs());
        assert_eq!(slug, format!("{}-{hash}", &sanitize_path(&root)[..200]));
        // Two long roots that share the first 200 characters differ.
        assert_ne!(
            project_slug(&format!("{root}a")),
            project_slug(&format!("{root}b"))
        );
        // Exactly 200 characters stay whole.
        let edge = format!("/{}", "x".repeat(199));
        assert_eq!(project_slug(&edge), sanitize_path(&edge));
    }
}
