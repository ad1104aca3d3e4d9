//! The matching engine: gitleaks' semantics over one text.

use crate::SecretMatch;
use crate::rules::{Allowlist, Rule, RuleSet, Target};

/// The marker that exempts a line from scanning.
const ALLOW_SIGNATURE: &[u8] = b"gitleaks:allow";

/// Every finding of `rules` in `text`, in rule order then position.
pub(crate) fn scan(rules: &RuleSet, text: &[u8], path: Option<&str>) -> Vec<SecretMatch> {
    // Which rules run: those with a keyword somewhere in the text, and
    // those without keywords.
    let mut run = vec![false; rules.rules.len()];
    for &i in &rules.always {
        run[i] = true;
    }
    for m in rules.keywords.find_overlapping_iter(text) {
        for &i in &rules.keyword_rules[m.pattern().as_usize()] {
            run[i] = true;
        }
    }
    let mut findings = Vec::new();
    for (rule, _) in rules.rules.iter().zip(&run).filter(|(_, on)| **on) {
        if let Some(p) = &rule.path
            && !path.is_some_and(|path| p.is_match(path.as_bytes()))
        {
            continue;
        }
        scan_rule(rules, rule, text, path, &mut findings);
    }
    findings
}

/// The findings of one rule. Like gitleaks, a rule's matches do not
/// overlap; unlike gitleaks, a match that yields no finding (its entropy is
/// too low, an allowlist lets it go) does not hide the text after its
/// start: the search resumes one byte in, so that junk before a token
/// cannot shadow it.
fn scan_rule(
    rules: &RuleSet,
    rule: &Rule,
    text: &[u8],
    path: Option<&str>,
    out: &mut Vec<SecretMatch>,
) {
    let mut from = 0;
    while from <= text.len() {
        let Some((m_start, m_end)) = rule.regex.find_at(text, from) else {
            return;
        };
        match finding(rules, rule, text, path, m_start, m_end) {
            Some(f) => {
                out.push(f);
                from = if m_end > m_start { m_end } else { m_end + 1 };
            }
            None => from = m_start + 1,
        }
    }
}

/// The finding a match of `rule` at `m_start..m_end` makes, if any.
fn finding(
    rules: &RuleSet,
    rule: &Rule,
    text: &[u8],
    path: Option<&str>,
    m_start: usize,
    m_end: usize,
) -> Option<SecretMatch> {
    // The match, without newlines at either end.
    let (mut start, mut end) = (m_start, m_end);
    while start < end && text[start] == b'\n' {
        start += 1;
    }
    while end > start && text[end - 1] == b'\n' {
        end -= 1;
    }
    let matched = &text[start..end];
    // The line(s) the match is on.
    let line_start = text[..m_start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line_end = text[m_end..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |i| m_end + i);
    let line = &text[line_start..line_end];
    if contains(line, ALLOW_SIGNATURE) {
        return None;
    }
    // The secret: a capture group of the regex run again on the match.
    let (s_start, s_end) = match secret_span(rule, matched) {
        Secret::Group(a, b) => (start + a, start + b),
        Secret::WholeMatch => (start, end),
        Secret::NoSuchGroup => return None,
    };
    if s_start == s_end {
        // An empty secret (an optional group that took no part) leaks
        // nothing.
        return None;
    }
    let secret = &text[s_start..s_end];
    if let Some(threshold) = rule.entropy
        && shannon_entropy(secret) <= threshold
    {
        return None;
    }
    let parts = Parts {
        secret,
        matched,
        line,
        path,
    };
    let allowed = rules
        .global
        .iter()
        .filter(|a| a.target_rules.is_empty() || a.target_rules.contains(&rule.id))
        .chain(&rule.allowlists)
        .any(|a| allows(a, &parts));
    if allowed {
        return None;
    }
    Some(SecretMatch {
        rule_id: rule.id.clone(),
        label: rule.description.clone(),
        start: s_start,
        end: s_end,
        line: text[..s_start].split(|&b| b == b'\n').count(),
    })
}

/// Where the secret lies within a match.
enum Secret {
    /// A capture group, by offsets within the match.
    Group(usize, usize),
    /// The whole match (no group, or only empty ones).
    WholeMatch,
    /// The rule's `secretGroup` names a group the regex lacks: no finding.
    NoSuchGroup,
}

/// Finds the secret the way gitleaks does: the regex runs again on the
/// match alone, and the secret is the `secretGroup`, or else the first
/// non-empty group, or else the whole match.
fn secret_span(rule: &Rule, matched: &[u8]) -> Secret {
    if rule.regex.captures_len() <= 1 {
        return Secret::WholeMatch;
    }
    let Some(caps) = rule.regex.group_spans(matched) else {
        return Secret::WholeMatch;
    };
    match rule.secret_group {
        Some(g) if g >= caps.len() => Secret::NoSuchGroup,
        Some(g) => caps[g].map_or(Secret::Group(0, 0), |(a, b)| Secret::Group(a, b)),
        None => caps
            .iter()
            .skip(1)
            .flatten()
            .find(|(a, b)| a < b)
            .map_or(Secret::WholeMatch, |&(a, b)| Secret::Group(a, b)),
    }
}

/// The texts an allowlist can be tested against.
struct Parts<'a> {
    secret: &'a [u8],
    matched: &'a [u8],
    line: &'a [u8],
    path: Option<&'a str>,
}

/// Whether an allowlist lets a finding go: any of its checks for OR, every
/// check it lists for AND.
fn allows(a: &Allowlist, p: &Parts<'_>) -> bool {
    let target = match a.target {
        Target::Secret => p.secret,
        Target::Match => p.matched,
        Target::Line => p.line,
    };
    let path_ok = || {
        p.path
            .is_some_and(|path| a.paths.iter().any(|r| r.is_match(path.as_bytes())))
    };
    let regex_ok = || a.regexes.iter().any(|r| r.is_match(target));
    let stop_ok = || {
        let lower = String::from_utf8_lossy(p.secret).to_lowercase();
        a.stopwords.iter().any(|w| lower.contains(w.as_str()))
    };
    if a.and {
        let listed = a.has_commits
            || !a.paths.is_empty()
            || !a.regexes.is_empty()
            || !a.stopwords.is_empty();
        listed
            && !a.has_commits
            && (a.paths.is_empty() || path_ok())
            && (a.regexes.is_empty() || regex_ok())
            && (a.stopwords.is_empty() || stop_ok())
    } else {
        (!a.paths.is_empty() && path_ok())
            || (!a.regexes.is_empty() && regex_ok())
            || (!a.stopwords.is_empty() && stop_ok())
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Shannon entropy in bits per character, as gitleaks computes it:
/// character frequencies over the UTF-8 byte length.
pub(crate) fn shannon_entropy(data: &[u8]) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let text = String::from_utf8_lossy(data);
    let mut counts: std::collections::HashMap<char, usize> = std::collections::HashMap::new();
    let mut ascii = [0usize; 128];
    for c in text.chars() {
        if c.is_ascii() {
            ascii[c as usize] += 1;
        } else {
            *counts.entry(c).or_default() += 1;
        }
    }
    #[allow(clippy::cast_precision_loss, reason = "lengths far below 2^52")]
    let inv = 1.0 / data.len() as f64;
    ascii
        .iter()
        .copied()
        .chain(counts.into_values())
        .filter(|&n| n > 0)
        .map(|n| {
            #[allow(clippy::cast_precision_loss, reason = "counts far below 2^52")]
            let f = n as f64 * inv;
            -f * f.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_matches_the_textbook_values() {
        assert!((shannon_entropy(b"aaaa") - 0.0).abs() < 1e-12);
        assert!((shannon_entropy(b"ab") - 1.0).abs() < 1e-12);
        assert!((shannon_entropy(b"abcd") - 2.0).abs() < 1e-12);
        assert!(shannon_entropy(b"").abs() < 1e-12);
    }
}
