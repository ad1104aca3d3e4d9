//! A rule's regex: linear-time over bytes (every built-in rule, and any
//! RE2-style rule), or backtracking for a team's rule that needs
//! look-around, which RE2 and gitleaks do not support.

use regex_automata::meta::{self, Regex};
use regex_automata::{Input, MatchKind};
use regex_syntax::hir::Hir;

use crate::SecretsError;
use crate::config::go_to_rust_regex;

/// The compiled-size limit of one regex (the `regex` crate's is 10 MiB; a
/// few gitleaks rules need more).
const SIZE_LIMIT: usize = 32 * 1024 * 1024;

/// A compiled pattern.
#[derive(Debug, Clone)]
pub(crate) enum Pattern {
    /// The `regex` crate's engine over bytes, with Go's ASCII `\w`, `\d`,
    /// `\s`, `\b`. It is used directly (not through `regex::bytes::Regex`,
    /// which is a thin wrapper around it, configured as below) because a
    /// search here may end before the end of the text while look-around
    /// assertions still see the text beyond it.
    Linear(Regex),
    /// `fancy-regex`, for look-around. It runs on UTF-8 text only (a text
    /// that is not UTF-8 is not matched) with Unicode classes.
    LookAround(fancy_regex::Regex),
}

impl Pattern {
    /// Compiles `pattern`, falling back to look-around support only when
    /// the pattern needs it.
    pub(crate) fn compile(pattern: &str, what: &str) -> Result<Pattern, SecretsError> {
        Self::compile_with_hir(pattern, what).map(|(p, _)| p)
    }

    /// Compiles `pattern`, and also returns the syntax tree the linear
    /// engine was built from (none for a look-around pattern).
    pub(crate) fn compile_with_hir(
        pattern: &str,
        what: &str,
    ) -> Result<(Pattern, Option<Hir>), SecretsError> {
        let rust = go_to_rust_regex(pattern);
        match linear(&rust) {
            Ok((re, hir)) => Ok((Pattern::Linear(re), Some(hir))),
            Err(e) if has_look_around(pattern) => fancy_regex::Regex::new(&rust)
                .map(|re| (Pattern::LookAround(re), None))
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

    /// The first match in `text` that starts at or after `start` and ends
    /// at or before `end`, with the whole text as context: `\b`, `^`, `$`
    /// and look-behind see the bytes before `start` and after `end`, as in
    /// a search of the whole text. A look-around pattern can only search
    /// to the end of the text (`end` must be `text.len()`).
    pub(crate) fn find_in(&self, text: &[u8], start: usize, end: usize) -> Option<(usize, usize)> {
        match self {
            Pattern::Linear(re) => re
                .find(Input::new(text).span(start..end))
                .map(|m| (m.start(), m.end())),
            Pattern::LookAround(re) => {
                debug_assert_eq!(end, text.len(), "look-around patterns search to the end");
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

    /// The first match in `text` that starts at or after `start`, with the
    /// text before `start` as context (for `\b` and look-behind).
    #[cfg(test)]
    pub(crate) fn find_at(&self, text: &[u8], start: usize) -> Option<(usize, usize)> {
        self.find_in(text, start, text.len())
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
                let mut caps = re.create_captures();
                re.captures(text, &mut caps);
                if !caps.is_match() {
                    return None;
                }
                Some(
                    (0..caps.group_len())
                        .map(|g| caps.get_group(g).map(|s| (s.start, s.end)))
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

/// Why a pattern has no linear-time engine; shown as `regex` shows it.
#[derive(Debug, thiserror::Error)]
enum LinearError {
    /// The pattern does not parse.
    #[error(transparent)]
    Parse(Box<regex_syntax::Error>),
    /// The pattern compiles to an automaton over the size limit.
    #[error("Compiled regex exceeds size limit of {0} bytes.")]
    TooLarge(usize),
    /// The automaton cannot be built for another reason.
    #[error(transparent)]
    Build(Box<regex_automata::meta::BuildError>),
}

/// Parses and compiles `rust` exactly as `regex::bytes::RegexBuilder` with
/// `unicode(false)` and a 32 MiB size limit would, keeping the syntax tree.
fn linear(rust: &str) -> Result<(Regex, Hir), LinearError> {
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(rust)
        .map_err(|e| LinearError::Parse(Box::new(e)))?;
    let config = meta::Config::new()
        .match_kind(MatchKind::LeftmostFirst)
        .utf8_empty(false)
        .nfa_size_limit(Some(SIZE_LIMIT))
        .hybrid_cache_capacity(2 * (1 << 20));
    let re = meta::Builder::new()
        .configure(config)
        .build_from_hir(&hir)
        .map_err(|e| match e.size_limit() {
            Some(limit) => LinearError::TooLarge(limit),
            None => LinearError::Build(Box::new(e)),
        })?;
    Ok((re, hir))
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
