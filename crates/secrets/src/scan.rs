//! The matching engine: gitleaks' semantics over one text.

use std::cell::{Cell, RefCell};

use crate::SecretMatch;
use crate::reach::{Near, Reach};
use crate::rules::{Allowlist, Rule, RuleSet, Target};

/// The marker that exempts a line from scanning.
const ALLOW_SIGNATURE: &[u8] = b"gitleaks:allow";

/// Windows are searched a block of text at a time, every rule in turn, so
/// that the text a block holds is still in the processor's cache when the
/// next rule reads it (a 20 MB text is not).
const BLOCK: usize = 128 * 1024;

/// Every finding of `rules` in `text`, in rule order then position.
///
/// The cost is linear in the text: the keyword prefilter reads it once; a
/// rule whose matches provably lie near an anchor (a keyword, mostly; see
/// `reach.rs`) searches only the windows around the anchors' occurrences;
/// and the line of a finding is counted from the previous finding's, its
/// line's bounds and `gitleaks:allow` are looked up once per line.
///
/// The prefilter and the windowed rules advance together, block by block:
/// a window is searched once nothing still to be found can reach it (so it
/// can no longer grow), and each rule's search keeps its own place, so
/// every rule makes the same searches in the same order as it would alone.
pub(crate) fn scan(rules: &RuleSet, text: &[u8], path: Option<&str>) -> Vec<SecretMatch> {
    let runs = |rule: &Rule| {
        rule.path
            .as_ref()
            .is_none_or(|p| path.is_some_and(|path| p.is_match(path.as_bytes())))
    };
    // Whether each rule runs: it has no keywords, or one is in the text.
    let mut gated = vec![false; rules.rules.len()];
    for &i in &rules.always {
        gated[i] = true;
    }
    let mut windows: Vec<Vec<(usize, usize)>> = vec![Vec::new(); rules.rules.len()];
    let mut cursors: Vec<Cursor> = rules.rules.iter().map(|_| Cursor::default()).collect();
    let text = Text::new(text);
    let len = text.bytes.len();
    let mut occurrences = rules.keywords.find(text.bytes);
    let mut block_end: usize = 0;
    loop {
        block_end = block_end.saturating_add(BLOCK).min(len);
        let last = block_end == len;
        // Every occurrence whose windows can start before the block's end.
        // Occurrences come in order of their starts, and so do the windows
        // of each rule.
        let horizon = if last {
            usize::MAX
        } else {
            block_end.saturating_add(rules.max_reach)
        };
        while let Some(m) = occurrences.next_before(horizon) {
            for &i in &rules.keyword_rules[m.keyword] {
                gated[i] = true;
            }
            for &i in &rules.anchor_rules[m.keyword] {
                let near = rules.rules[i]
                    .near
                    .as_ref()
                    .expect("anchor rules have anchors");
                let w = &mut windows[i];
                let ordered = match &near.reach {
                    // A match holding this occurrence lies within `n`
                    // bytes of it on either side (of its start, to keep
                    // windows in order whatever the anchor's length).
                    Reach::Bytes(n) => add_window(
                        w,
                        m.start.saturating_sub(*n),
                        m.start.saturating_add(*n).min(len),
                    ),
                    Reach::Run(bytes) => run_window(w, &text, m.start, m.end, bytes),
                    // Only the start matters (sorted before use).
                    Reach::Starts => {
                        w.push((m.start, m.start));
                        true
                    }
                };
                cursors[i].disorder |= !ordered;
            }
        }
        // Windows that end before the block does are final: windows still
        // to come start at or after it (or, for runs, after the last run).
        for (i, (rule, cursor)) in rules.rules.iter().zip(&mut cursors).enumerate() {
            let windowed = rule
                .near
                .as_ref()
                .is_some_and(|n| !matches!(n.reach, Reach::Starts));
            if gated[i] && windowed && !cursor.disorder && runs(rule) {
                let until = if last { usize::MAX } else { block_end };
                cursor.advance(rules, rule, &text, &windows[i], path, until);
            }
        }
        if last {
            break;
        }
    }
    let whole = [(0, len)];
    let mut findings = Vec::new();
    for (i, (rule, cursor)) in rules.rules.iter().zip(&mut cursors).enumerate() {
        if !gated[i] || !runs(rule) {
            continue;
        }
        if let Some(Near {
            reach: Reach::Starts,
            ..
        }) = &rule.near
        {
            let mut starts: Vec<usize> = windows[i].iter().map(|w| w.0).collect();
            starts.sort_unstable();
            starts.dedup();
            cursor.advance_starts(rules, rule, &text, &starts, path);
        } else if rule.near.is_none() || cursor.disorder {
            // No windows, or windows out of order (never seen: the
            // prefilter reports occurrences in order of their starts): the
            // whole text.
            *cursor = Cursor::default();
            cursor.advance(rules, rule, &text, &whole, path, usize::MAX);
        }
        findings.append(&mut cursor.found);
    }
    findings
}

/// Adds the run of `bytes` around an occurrence at `start..end` as a
/// window: a match of a rule made of those bytes alone that holds the
/// occurrence lies within it. An occurrence with another byte in it is in
/// no match; one inside the last run adds nothing.
fn run_window(
    windows: &mut Vec<(usize, usize)>,
    text: &Text<'_>,
    start: usize,
    end: usize,
    bytes: &[bool; 256],
) -> bool {
    let t = text.bytes;
    let ok = |i: usize| bytes[usize::from(t[i])];
    if !(start..end).all(ok) {
        return true;
    }
    if let Some(last) = windows.last()
        && last.0 <= start
        && start < last.1
    {
        return true;
    }
    let mut run_start = start;
    while run_start > 0 && ok(run_start - 1) {
        run_start -= 1;
    }
    let mut run_end = end;
    while run_end < t.len() && ok(run_end) {
        run_end += 1;
    }
    add_window(windows, run_start, run_end)
}

/// Adds a window to sorted, disjoint windows, merging it with the last one
/// when they meet; false when it starts before the last one (out of order).
fn add_window(windows: &mut Vec<(usize, usize)>, start: usize, end: usize) -> bool {
    match windows.last_mut() {
        Some(last) if start < last.0 => false,
        Some(last) if start <= last.1 => {
            last.1 = last.1.max(end);
            true
        }
        _ => {
            windows.push((start, end));
            true
        }
    }
}

/// Where one rule's search of a text has got to.
#[derive(Debug, Default)]
struct Cursor {
    /// The next window to search.
    next: usize,
    /// Where the search resumes.
    from: usize,
    /// The rule's findings so far, in order.
    found: Vec<SecretMatch>,
    /// The rule's windows came out of order: search the whole text instead.
    disorder: bool,
}

impl Cursor {
    /// Searches the windows, from the next one on, that end before
    /// `until`.
    ///
    /// Like gitleaks, a rule's matches do not overlap; unlike gitleaks, a
    /// match that yields no finding (its entropy is too low, an allowlist
    /// lets it go) does not hide the text after its start: the search
    /// resumes one byte in, so that junk before a token cannot shadow it.
    ///
    /// Windows give the same matches as one search of the whole text when
    /// every match lies wholly inside one window (`reach.rs` proves that
    /// for the rule, and windows are merged where they meet, so a match
    /// inside one is inside exactly one): a search from `from` within the
    /// window holding `from` finds the leftmost match starting at or after
    /// `from` and ending by the window's end, which is the leftmost match
    /// of the whole text when there is one in the window (the engine picks
    /// the same end, since every end of a match starting there is in the
    /// window too), and none when there is not; and the search resumes in
    /// the next window from where it would have. Searches bounded this way
    /// still see the whole text around them, so `\b`, `^` and `$` behave
    /// as in one search.
    fn advance(
        &mut self,
        rules: &RuleSet,
        rule: &Rule,
        text: &Text<'_>,
        windows: &[(usize, usize)],
        path: Option<&str>,
        until: usize,
    ) {
        while let Some(&(start, end)) = windows.get(self.next).filter(|w| w.1 < until) {
            self.next += 1;
            self.from = self.from.max(start);
            while self.from <= end {
                let Some((m_start, m_end)) = rule.regex.find_in(text.bytes, self.from, end) else {
                    break;
                };
                self.take(rules, rule, text, path, m_start, m_end);
            }
        }
    }

    /// Searches the whole text for a rule whose every match starts where
    /// an anchor occurrence does (`starts`, sorted): no match starts
    /// between `from` and the next such start, so the search skips there,
    /// and ends when none is left.
    fn advance_starts(
        &mut self,
        rules: &RuleSet,
        rule: &Rule,
        text: &Text<'_>,
        starts: &[usize],
        path: Option<&str>,
    ) {
        let mut next = 0;
        loop {
            next += starts[next..].partition_point(|&c| c < self.from);
            let Some(&c) = starts.get(next) else {
                return;
            };
            self.from = c;
            let Some((m_start, m_end)) = rule.regex.find_in(text.bytes, c, text.bytes.len()) else {
                return;
            };
            self.take(rules, rule, text, path, m_start, m_end);
        }
    }

    /// Records the finding a match makes, if any, and moves past it.
    fn take(
        &mut self,
        rules: &RuleSet,
        rule: &Rule,
        text: &Text<'_>,
        path: Option<&str>,
        m_start: usize,
        m_end: usize,
    ) {
        match finding(rules, rule, text, path, m_start, m_end) {
            Some(f) => {
                self.found.push(f);
                self.from = if m_end > m_start { m_end } else { m_end + 1 };
            }
            None => self.from = m_start + 1,
        }
    }
}

/// The scanned text, and what is known of its lines.
///
/// A finding's line is counted from the start of its 4 KiB chunk, whose
/// line is known from a table of newline counts per chunk, built as far as
/// the findings reach. The bounds of the last single line looked up, and
/// whether it holds `gitleaks:allow`, are kept, so that many matches on
/// one long line read it once.
struct Text<'a> {
    bytes: &'a [u8],
    /// `chunk_lines[k]`: the `\n`s before byte `k * LINE_CHUNK`.
    chunk_lines: RefCell<Vec<usize>>,
    /// The last line looked up, as `start..end` without a `\n` inside,
    /// and whether it holds the marker.
    last_line: Cell<Option<(usize, usize, bool)>>,
}

/// The chunk size of [`Text::chunk_lines`].
const LINE_CHUNK: usize = 4096;

/// The `\n`s in `bytes` (a loop the compiler vectorises).
#[allow(
    clippy::naive_bytecount,
    reason = "vectorised as written; not worth a dependency"
)]
fn newlines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

impl<'a> Text<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Text {
            bytes,
            chunk_lines: RefCell::new(vec![0]),
            last_line: Cell::new(None),
        }
    }

    /// The 1-based line on which byte `at` lies.
    fn line_number(&self, at: usize) -> usize {
        let chunk = at / LINE_CHUNK;
        let mut counts = self.chunk_lines.borrow_mut();
        while counts.len() <= chunk {
            let k = counts.len() - 1;
            let n = counts[k] + newlines(&self.bytes[k * LINE_CHUNK..(k + 1) * LINE_CHUNK]);
            counts.push(n);
        }
        1 + counts[chunk] + newlines(&self.bytes[chunk * LINE_CHUNK..at])
    }

    /// The line(s) a match at `start..end` is on, from just after the last
    /// `\n` before `start` to the first `\n` at or after `end` (or the
    /// ends of the text), and whether they hold `gitleaks:allow`.
    fn lines_of(&self, start: usize, end: usize) -> (usize, usize, bool) {
        if let Some((line_start, line_end, allowed)) = self.last_line.get()
            && line_start <= start
            && end <= line_end
        {
            return (line_start, line_end, allowed);
        }
        let bytes = self.bytes;
        let line_start = memchr::memrchr(b'\n', &bytes[..start]).map_or(0, |i| i + 1);
        let line_end = memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |i| end + i);
        let allowed = memchr::memmem::find(&bytes[line_start..line_end], ALLOW_SIGNATURE).is_some();
        if memchr::memchr(b'\n', &bytes[start..end]).is_none() {
            self.last_line.set(Some((line_start, line_end, allowed)));
        }
        (line_start, line_end, allowed)
    }
}

/// The finding a match of `rule` at `m_start..m_end` makes, if any.
fn finding(
    rules: &RuleSet,
    rule: &Rule,
    text: &Text<'_>,
    path: Option<&str>,
    m_start: usize,
    m_end: usize,
) -> Option<SecretMatch> {
    let bytes = text.bytes;
    // The match, without newlines at either end.
    let (mut start, mut end) = (m_start, m_end);
    while start < end && bytes[start] == b'\n' {
        start += 1;
    }
    while end > start && bytes[end - 1] == b'\n' {
        end -= 1;
    }
    let matched = &bytes[start..end];
    // The checks are independent, so the ones bounded by the match come
    // before the ones that read its line(s).
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
    let secret = &bytes[s_start..s_end];
    if let Some(threshold) = rule.entropy
        && shannon_entropy(secret) <= threshold
    {
        return None;
    }
    // The line(s) the match is on.
    let (line_start, line_end, allowed) = text.lines_of(m_start, m_end);
    if allowed {
        return None;
    }
    let line = &bytes[line_start..line_end];
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
        line: text.line_number(s_start),
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
    use proptest::prelude::*;

    use super::*;
    use crate::Scanner;

    /// The same rules, every one searching the whole text.
    fn whole_text(rules: &RuleSet) -> RuleSet {
        let mut rules = rules.clone();
        for rule in &mut rules.rules {
            rule.near = None;
        }
        for anchored in &mut rules.anchor_rules {
            anchored.clear();
        }
        rules
    }

    /// Scans with windows and over the whole text; they must agree.
    fn check_same(rules: &RuleSet, text: &[u8]) -> Vec<SecretMatch> {
        let near = scan(rules, text, None);
        let whole = scan(&whole_text(rules), text, None);
        assert_eq!(
            near,
            whole,
            "windows and whole text differ on {:?}",
            String::from_utf8_lossy(text)
        );
        for f in &near {
            assert_eq!(f.line, 1 + newlines(&text[..f.start]), "{f:?}");
        }
        near
    }

    fn custom(toml: &str) -> RuleSet {
        Scanner::from_toml(toml)
            .expect("test config compiles")
            .rules
    }

    /// The texts of the project's own vectors.
    fn own_texts() -> Vec<String> {
        include_str!("../tests/vectors/own.jsonl")
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let v: serde_json::Value =
                    serde_json::from_str(l).expect("own.jsonl is JSON lines");
                v["text"]
                    .as_str()
                    .expect("each vector has a text")
                    .to_owned()
            })
            .collect()
    }

    #[test]
    fn most_built_in_rules_are_searched_near_their_keywords() {
        let rules = &Scanner::builtin().rules;
        let whole: Vec<&str> = rules
            .rules
            .iter()
            .filter(|r| r.near.is_none())
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(whole, [""; 0]);
        let starts: Vec<&str> = rules
            .rules
            .iter()
            .filter(|r| r.near.as_ref().is_some_and(|n| n.reach == Reach::Starts))
            .map(|r| r.id.as_str())
            .collect();
        // A PEM block: unbounded, made of any bytes, but starting with the
        // keyword.
        assert_eq!(starts, ["private-key"]);
        let runs: Vec<&str> = rules
            .rules
            .iter()
            .filter(|r| {
                r.near
                    .as_ref()
                    .is_some_and(|n| matches!(n.reach, Reach::Run(_)))
            })
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(
            runs,
            [
                "slack-bot-token",
                "slack-app-token",
                "1password-service-account-token"
            ]
        );
    }

    #[test]
    fn windows_agree_with_the_whole_text_on_every_own_vector() {
        let rules = &Scanner::builtin().rules;
        let texts = own_texts();
        for text in &texts {
            check_same(rules, text.as_bytes());
        }
        // All of them in one text, glued by nothing, a space or a newline,
        // so that keywords and matches of different vectors meet.
        for glue in ["", " ", "\n"] {
            let found = check_same(rules, texts.join(glue).as_bytes());
            assert!(found.len() > 100, "{}", found.len());
        }
        // Several blocks, so that windows straddle their edges.
        let big = texts.join("\n").repeat(5);
        assert!(big.len() > 2 * BLOCK);
        check_same(rules, big.as_bytes());
    }

    #[test]
    #[allow(clippy::print_stderr, reason = "a skipped check says so")]
    fn windows_agree_with_the_whole_text_on_the_reference_vectors() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/testdata/secrets");
        let (Ok(rules), Ok(vectors)) = (
            std::fs::read_to_string(dir.join("rules.toml")),
            std::fs::read_to_string(dir.join("vectors.json")),
        ) else {
            eprintln!("SKIPPED: no reference vectors at {}", dir.display());
            return;
        };
        let vectors: serde_json::Value =
            serde_json::from_str(&vectors).expect("vectors.json is JSON");
        let texts: Vec<&str> = vectors["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .filter_map(|e| e["text"].as_str())
            .collect();
        for rules in [&custom(&rules), &Scanner::builtin().rules] {
            for text in &texts {
                check_same(rules, text.as_bytes());
            }
            for glue in ["", "\n"] {
                check_same(rules, texts.join(glue).as_bytes());
            }
        }
    }

    #[test]
    fn a_window_sees_the_text_around_it() {
        // `\b`, `^` and `$` at a window's edge see the bytes beyond it, as
        // a search of the whole text does; a search of the window alone
        // (a slice) would match in each of the first texts.
        let rules = custom(
            r"
            [[rules]]
            id = 'boundary'
            regex = '\b[a-z]{2}ab'
            keywords = ['ab']
            [[rules]]
            id = 'end'
            regex = 'ab\d\d$'
            keywords = ['ab']
            [[rules]]
            id = 'start'
            regex = '^\d\dab'
            keywords = ['ab']
            ",
        );
        let reach: Vec<Option<Reach>> = rules
            .rules
            .iter()
            .map(|r| r.near.as_ref().map(|n| n.reach.clone()))
            .collect();
        assert_eq!(
            reach,
            [
                Some(Reach::Bytes(4)),
                Some(Reach::Bytes(4)),
                Some(Reach::Bytes(4))
            ]
        );
        for text in ["qqxyab", "ab12 x", "x12ab"] {
            assert_eq!(check_same(&rules, text.as_bytes()), [], "{text}");
        }
        let found = check_same(&rules, b"12ab xyab ab34");
        let ids: Vec<&str> = found.iter().map(|f| f.rule_id.as_str()).collect();
        assert_eq!(ids, ["boundary", "end", "start"]);
    }

    #[test]
    fn matches_at_window_edges_and_across_merged_windows() {
        let rules = custom(
            r"
            [[rules]]
            id = 'tail'
            regex = '[a-z]{5}key'
            keywords = ['key']
            [[rules]]
            id = 'pair'
            regex = 'k1[0-9]{0,8}k2'
            keywords = ['k1', 'k2']
            ",
        );
        // A keyword at the very end of the longest match: the window starts
        // where the match does; at the start or end of the text.
        let found = check_same(&rules, b"abcdekey");
        assert_eq!((found[0].start, found[0].end), (0, 8));
        let found = check_same(&rules, b"..abcdekey\nxx");
        assert_eq!((found[0].start, found[0].end, found[0].line), (2, 10, 1));
        // Keywords whose windows merge, and matches over two keywords.
        let found = check_same(&rules, b"xk112345678k2 k1k2\nk1 k2");
        let spans: Vec<(usize, usize)> = found.iter().map(|f| (f.start, f.end)).collect();
        assert_eq!(spans, [(1, 13), (14, 18)]);
        assert_eq!(found[1].line, 1);
    }

    #[test]
    fn unbounded_rules_skip_to_their_anchors_or_stay_in_their_runs() {
        let rules = custom(
            r"
            [[rules]]
            id = 'pem'
            regex = '(?i)-----BEGIN[\s\S-]{4,}?KEY-----'
            keywords = ['-----begin']
            [[rules]]
            id = 'run'
            regex = 'tok_[a-z]{4,}'
            keywords = ['tok_']
            ",
        );
        let text = "x -----begin\n-----BEGIN abc\ndefKEY----- KEY-----\n-----Begin KEY-----KEY----- \
            tok_abcdtok_efgh tok_ab tok_abcdef\n-----BEGIN no end";
        let found = check_same(&rules, text.as_bytes());
        let spans: Vec<(&str, &str)> = found
            .iter()
            .map(|f| (f.rule_id.as_str(), &text[f.start..f.end]))
            .collect();
        assert_eq!(
            spans,
            [
                ("pem", "-----begin\n-----BEGIN abc\ndefKEY-----"),
                ("pem", "-----Begin KEY-----KEY-----"),
                ("run", "tok_abcdtok"),
                ("run", "tok_abcdef"),
            ]
        );
    }

    #[test]
    fn line_numbers_and_allow_marks() {
        let rules = &Scanner::builtin().rules;
        let token = "ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS";
        let text = format!("\n\na {token}\nb {token} # gitleaks:allow\n{token}");
        let found = check_same(rules, text.as_bytes());
        let lines: Vec<usize> = found.iter().map(|f| f.line).collect();
        assert_eq!(lines, [3, 5]);
        let text = format!("gitleaks:allo {token} gitleaks:allow");
        assert_eq!(check_same(rules, text.as_bytes()), []);
        let text = format!("gitleaks:allo\n{token}\ngitleaks:allow");
        assert_eq!(check_same(rules, text.as_bytes()).len(), 1);
    }

    proptest! {
        #[test]
        fn windows_agree_with_the_whole_text(
            parts in proptest::collection::vec(prop_oneof![
                proptest::sample::select(own_texts()),
                proptest::sample::select(vec![
                    "ghp_", "glpat-", "AKIA", "q~", "xoxp-", "hf_", "sk_live_", "\n", " ",
                    "=", "\"", "gitleaks:allow", "-----BEGIN", "ops_", "xoxe.xoxb-",
                    "ops_eyJ", "xoxb-1234567890-1234567890", "xapp-1-A1-2-", "hooks",
                    "hooks.slack.com/services/", "xoxeXxoxb-1-", "-", "+/",
                ]).prop_map(str::to_owned),
                "[a-zA-Z0-9_~.-]{0,40}",
            ], 0..12),
            cut in 0usize..7,
        ) {
            // Cut the text somewhere near its end, so that matches meet it.
            let mut text = parts.concat().into_bytes();
            text.truncate(text.len().saturating_sub(cut));
            check_same(&Scanner::builtin().rules, &text);
        }
    }

    #[test]
    fn entropy_matches_the_textbook_values() {
        assert!((shannon_entropy(b"aaaa") - 0.0).abs() < 1e-12);
        assert!((shannon_entropy(b"ab") - 1.0).abs() < 1e-12);
        assert!((shannon_entropy(b"abcd") - 2.0).abs() < 1e-12);
        assert!(shannon_entropy(b"").abs() < 1e-12);
    }
}
