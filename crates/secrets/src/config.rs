//! gitleaks' TOML configuration format, read into rules and allowlists.
//!
//! One parser serves the built-in rules and a team's own gitleaks config:
//! `[[rules]]` with `id`, `description`, `regex`, `secretGroup`,
//! `entropy`, `keywords`, `path` and `[[rules.allowlists]]` (or the older
//! single `[rules.allowlist]`); a global `[allowlist]` or `[[allowlists]]`;
//! and `[extend] useDefault = true` to add to the built-in rules.

use serde::Deserialize;

/// A whole configuration file, as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ConfigFile {
    #[serde(default)]
    pub(crate) extend: Option<Extend>,
    #[serde(default)]
    pub(crate) rules: Vec<RuleSpec>,
    /// The older single global allowlist.
    #[serde(default)]
    pub(crate) allowlist: Option<AllowlistSpec>,
    /// The newer list of global allowlists.
    #[serde(default)]
    pub(crate) allowlists: Vec<AllowlistSpec>,
}

/// `[extend]`: whether a user's config adds to the built-in rules.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Extend {
    #[serde(default)]
    pub(crate) use_default: bool,
    /// Built-in rules to leave out.
    #[serde(default)]
    pub(crate) disabled_rules: Vec<String>,
}

/// One `[[rules]]` entry, as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RuleSpec {
    pub(crate) id: String,
    #[serde(default)]
    pub(crate) description: String,
    #[serde(default)]
    pub(crate) regex: Option<String>,
    #[serde(default)]
    pub(crate) secret_group: Option<usize>,
    #[serde(default)]
    pub(crate) entropy: Option<f64>,
    #[serde(default)]
    pub(crate) keywords: Vec<String>,
    #[serde(default)]
    pub(crate) path: Option<String>,
    #[serde(default)]
    pub(crate) allowlist: Option<AllowlistSpec>,
    #[serde(default)]
    pub(crate) allowlists: Vec<AllowlistSpec>,
}

/// An allowlist, as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AllowlistSpec {
    #[serde(default)]
    pub(crate) condition: Option<String>,
    #[serde(default)]
    pub(crate) regex_target: Option<String>,
    #[serde(default)]
    pub(crate) regexes: Vec<String>,
    #[serde(default)]
    pub(crate) paths: Vec<String>,
    #[serde(default)]
    pub(crate) stopwords: Vec<String>,
    #[serde(default)]
    pub(crate) commits: Vec<String>,
    /// Rules a global allowlist applies to (all when empty).
    #[serde(default)]
    pub(crate) target_rules: Vec<String>,
}

/// Rewrites a Go RE2 pattern into the Rust `regex` dialect: a `{` that
/// does not open a repetition (`{n}`, `{n,}`, `{n,m}`) is a literal in Go
/// and an error in Rust, so it is escaped.
pub(crate) fn go_to_rust_regex(pattern: &str) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut i = 0;
    let mut in_class = false;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                out.push(c);
                if let Some(&next) = chars.get(i + 1) {
                    out.push(next);
                }
                i += 2;
                continue;
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // A `]` right after `[` or `[^` is a literal member.
                if chars.get(i + 1) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i + 1) == Some(&']') {
                    out.push_str("\\]");
                    i += 1;
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            '{' if !in_class && !opens_repetition(&chars[i..]) => out.push_str("\\{"),
            '}' if !in_class && !closes_repetition(&out) => out.push_str("\\}"),
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

/// Whether `rest` (starting at `{`) is `{n}`, `{n,}` or `{n,m}`.
fn opens_repetition(rest: &[char]) -> bool {
    let Some(end) = rest.iter().position(|&c| c == '}') else {
        return false;
    };
    let inner: String = rest[1..end].iter().collect();
    let mut parts = inner.splitn(2, ',');
    let first = parts.next().unwrap_or_default();
    let second = parts.next();
    !first.is_empty()
        && first.chars().all(|c| c.is_ascii_digit())
        && second.is_none_or(|s| s.chars().all(|c| c.is_ascii_digit()))
}

/// Whether the `}` about to be written closes a repetition already in `out`.
fn closes_repetition(out: &str) -> bool {
    let Some(open) = out.rfind('{') else {
        return false;
    };
    if out[..open].ends_with('\\') {
        return false;
    }
    let inner = &out[open + 1..];
    let mut parts = inner.splitn(2, ',');
    let first = parts.next().unwrap_or_default();
    !first.is_empty()
        && first.chars().all(|c| c.is_ascii_digit())
        && parts
            .next()
            .is_none_or(|s| s.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_braces_are_escaped_and_repetitions_kept() {
        assert_eq!(
            go_to_rust_regex(r"^\$(?:\d+|{\d+})$"),
            r"^\$(?:\d+|\{\d+\})$"
        );
        assert_eq!(
            go_to_rust_regex(r"[a-z]{3,5}x{2}y{4,}"),
            r"[a-z]{3,5}x{2}y{4,}"
        );
        assert_eq!(
            go_to_rust_regex(r"^\{\{[ \t]*[\w ().|]+[ \t]*}}$"),
            r"^\{\{[ \t]*[\w ().|]+[ \t]*\}\}$"
        );
        assert_eq!(go_to_rust_regex(r"[{}]"), r"[{}]");
        assert_eq!(go_to_rust_regex(r"[]a]"), r"[\]a]");
        for p in [
            r"^\$(?:\d+|{\d+})$",
            r"^\{\{[ \t]*[\w ().|]+[ \t]*}}$",
            r"^\$\{\{[ \t]*(?:(?:env|github|secrets|vars)(?:\.[A-Za-z]\w+)+[\w ']*)[ \t]*}}$",
        ] {
            assert!(
                regex::bytes::Regex::new(&go_to_rust_regex(p)).is_ok(),
                "{p}"
            );
        }
    }
}
