//! A rule's regex: linear-time over bytes (every built-in rule, and any
//! RE2-style rule), or backtracking for a team's rule that needs
//! look-around, which RE2 and gitleaks do not support.

use regex::bytes::{Regex, RegexBuilder};

use crate::SecretsError;
use crate::config::go_to_rust_regex;

/// A compiled pattern.
#[derive(Debug, Clone)]
pub(crate) enum Pattern {
    /// The `regex` crate over bytes, with Go's ASCII `\w`, `\d`, `\s`, `\b`.
    Linear(Regex),
    /// `fancy-regex`, for look-around. It runs on UTF-8 text only (a text
    /// that is not UTF-8 is not matched) with Unicode classes.
    LookAround(fancy_regex::Regex),
}

impl Pattern {
    /// Compiles `pattern`, falling back to look-around support only when
    /// the pattern needs it.
    pub(crate) fn compile(pattern: &str, what: &str) -> Result<Pattern, SecretsError> {
        let rust = go_to_rust_regex(pattern);
        let linear = RegexBuilder::new(&rust)
            .unicode(false)
            .size_limit(32 * 1024 * 1024)
            .build();
        match linear {
            Ok(re) => Ok(Pattern::Linear(re)),
            Err(e) if has_look_around(pattern) => fancy_regex::Regex::new(&rust)
                .map(Pattern::LookAround)
                .map_err(|f| SecretsError::Regex {
                    what: what.to_owned(),
                    message: one_line(&format!("{f} (and without look-around: {e})")),
                }),
            Err(e) => Err(SecretsError::Regex {
                what: what.to_owned(),
                message: one_line(&e.to_string()),
            }),
        }
    }

    /// Whether the pattern matches anywhere in `text`.
    pub(crate) fn is_match(&self, text: &[u8]) -> bool {
        match self {
            Pattern::Linear(re) => re.is_match(text),
            Pattern::LookAround(re) => {
                std::str::from_utf8(text).is_ok_and(|t| re.is_match(t).unwrap_or(false))
            }
        }
    }

    /// The first match in `text` that starts at or after `start`, with the
    /// text before `start` as context (for `\b` and look-behind).
    pub(crate) fn find_at(&self, text: &[u8], start: usize) -> Option<(usize, usize)> {
        match self {
            Pattern::Linear(re) => re.find_at(text, start).map(|m| (m.start(), m.end())),
            Pattern::LookAround(re) => {
                let t = std::str::from_utf8(text).ok()?;
                let mut start = start;
                while !t.is_char_boundary(start) {
                    start += 1;
                }
                re.find_from_pos(t, start)
                    .ok()
                    .flatten()
                    .map(|m| (m.start(), m.end()))
            }
        }
    }

    /// The number of groups, counting the whole match.
    pub(crate) fn captures_len(&self) -> usize {
        match self {
            Pattern::Linear(re) => re.captures_len(),
            Pattern::LookAround(re) => re.captures_len(),
        }
    }

    /// The group spans of the first match in `text` (index 0 is the whole
    /// match), or `None` when it does not match.
    pub(crate) fn group_spans(&self, text: &[u8]) -> Option<Vec<Option<(usize, usize)>>> {
        match self {
            Pattern::Linear(re) => {
                let caps = re.captures(text)?;
                Some(
                    caps.iter()
                        .map(|g| g.map(|m| (m.start(), m.end())))
                        .collect(),
                )
            }
            Pattern::LookAround(re) => {
                let caps = re.captures(std::str::from_utf8(text).ok()?).ok()??;
                Some(
                    caps.iter()
                        .map(|g| g.map(|m| (m.start(), m.end())))
                        .collect(),
                )
            }
        }
    }
}

fn has_look_around(pattern: &str) -> bool {
    ["(?=", "(?!", "(?<=", "(?<!"]
        .iter()
        .any(|m| pattern.contains(m))
}

fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_around_only_where_needed() {
        assert!(matches!(
            Pattern::compile(r"ghp_[0-9a-zA-Z]{36}", "r").unwrap(),
            Pattern::Linear(_)
        ));
        let p = Pattern::compile(r"secret-(?!test)[a-z]{4}", "r").unwrap();
        assert!(matches!(p, Pattern::LookAround(_)));
        assert_eq!(p.find_at(b"secret-test secret-prod", 0), Some((12, 23)));
        assert_eq!(p.find_at(b"secret-test secret-prod", 13), None);
        assert!(
            !p.is_match(b"\xff secret-prod"),
            "look-around rules match UTF-8 text only"
        );
        let err = Pattern::compile(r"(unclosed", "rule x").unwrap_err();
        assert!(
            err.to_string().starts_with("invalid regex in rule x: "),
            "{err}"
        );
    }
}
