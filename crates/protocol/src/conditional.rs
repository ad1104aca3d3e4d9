//! What makes a push cost what changed (SPEC R9.3): the entity tag of a
//! repository's state, `If-None-Match` on the hashes view (a `304 Not
//! Modified` when nothing changed), and `Prefer: return=minimal` (RFC 7240)
//! on a PUT, whose answer then carries only the checksums of the keys it
//! wrote. A side that sends neither gets the full answers of R8.1.

/// The request header that asks for a minimal answer.
pub const PREFER_HEADER: &str = "Prefer";
/// The preference itself.
pub const RETURN_MINIMAL: &str = "return=minimal";
/// The answer header saying the preference was applied (RFC 7240 §3).
pub const PREFERENCE_APPLIED_HEADER: &str = "Preference-Applied";

/// The entity tag of a repository whose checksum is `checksum`: the
/// checksum in quotes (a strong tag).
///
/// ```
/// assert_eq!(memdir_protocol::etag("sha256:ab"), "\"sha256:ab\"");
/// ```
#[must_use]
pub fn etag(checksum: &str) -> String {
    format!("\"{checksum}\"")
}

/// Whether an `If-None-Match` value names the state whose checksum is
/// `checksum`: `*`, or a comma-separated list of tags one of which is that
/// checksum's tag (weak tags compare by their opaque part, as RFC 9110
/// §13.1.2's weak comparison does for `If-None-Match`).
///
/// ```
/// use memdir_protocol::none_match_hits;
/// assert!(none_match_hits("\"sha256:ab\"", "sha256:ab"));
/// assert!(none_match_hits("W/\"x\", \"sha256:ab\"", "sha256:ab"));
/// assert!(none_match_hits("*", "sha256:ab"));
/// assert!(!none_match_hits("\"sha256:abc\"", "sha256:ab"));
/// assert!(!none_match_hits("sha256:ab", "sha256:ab")); // a tag is quoted
/// ```
#[must_use]
pub fn none_match_hits(if_none_match: &str, checksum: &str) -> bool {
    let value = if_none_match.trim();
    if value == "*" {
        return true;
    }
    let wanted = etag(checksum);
    value.split(',').any(|tag| {
        let tag = tag.trim();
        tag.strip_prefix("W/").unwrap_or(tag) == wanted
    })
}

/// Whether a `Prefer` header value asks for `return=minimal`: one of its
/// comma-separated preferences, compared without regard to case or
/// surrounding space, parameters after `;` ignored.
///
/// ```
/// use memdir_protocol::prefers_minimal;
/// assert!(prefers_minimal("return=minimal"));
/// assert!(prefers_minimal("respond-async, Return = Minimal; x=1"));
/// assert!(!prefers_minimal("return=representation"));
/// ```
#[must_use]
pub fn prefers_minimal(prefer: &str) -> bool {
    prefer.split(',').any(|preference| {
        let token = preference.split(';').next().unwrap_or_default();
        let mut parts = token.splitn(2, '=');
        let name = parts.next().unwrap_or_default().trim();
        let value = parts.next().unwrap_or_default().trim().trim_matches('"');
        name.eq_ignore_ascii_case("return") && value.eq_ignore_ascii_case("minimal")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_or_odd_tags_never_match_by_accident() {
        for value in [
            "",
            ",",
            "\"\"",
            "W/",
            "\"sha256:ab",
            "sha256:ab\"",
            "\"SHA256:AB\"",
        ] {
            assert!(!none_match_hits(value, "sha256:ab"), "{value:?}");
        }
        assert!(none_match_hits("  *  ", "anything"));
        assert!(none_match_hits(",,\"sha256:ab\",", "sha256:ab"));
    }

    #[test]
    fn only_return_minimal_is_minimal() {
        for value in [
            "",
            "return",
            "minimal",
            "return=",
            "wait=10",
            "handling=strict",
        ] {
            assert!(!prefers_minimal(value), "{value:?}");
        }
        assert!(prefers_minimal("return=\"minimal\""));
        assert!(prefers_minimal("wait=5,return=minimal"));
    }
}
