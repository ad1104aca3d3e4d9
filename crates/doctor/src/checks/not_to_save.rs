//! `not-to-save`: memories of what SPEC R1.3 says not to save, each
//! heuristic with its reason. Each one wants strong evidence, so that a
//! feedback memory that mentions a file path or a commit is left alone:
//!
//! - code or architecture: the body is mostly a code block, or mostly a
//!   list of file paths (derivable from the project as it is);
//! - git history: a commit hash with commit narration, or three pieces of
//!   narration (`git log` / `git blame` are authoritative);
//! - a debugging recipe: "the fix was", "to debug this", "root cause
//!   was", or a stack trace (the fix is in the code, the context in the
//!   commit message);
//! - ephemeral task details: "currently working on", "TODO today", ….

use std::sync::LazyLock;

use regex::Regex;

use crate::text::{body_first_line, line_of, lines_with_offsets, mask_code};
use crate::{Check, Finding, FolderView, MemoryFile, Severity};

/// The `not-to-save` check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NotToSave;

/// At least this share of the body's non-blank lines must be code (or
/// paths) for the body to count as code.
const CODE_SHARE: f64 = 0.6;
/// And at least this many lines.
const MIN_CODE_LINES: usize = 3;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("the not-to-save patterns are valid")
}

static PATH_ITEM: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(?:[-*+]|\d+\.)\s+`?(?:[\w.-]+/)+[\w.-]+\.\w{1,5}`?(?:\s|:|$)"));
static HASH: LazyLock<Regex> = LazyLock::new(|| re(r"\b[0-9a-f]{7,40}\b"));
static GIT_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:commit(?:ted)?|merged|reverted|cherry-pick(?:ed)?|rebased|git log|git blame|force-pushed|landed in)\b",
    )
});
static DEBUG: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\bthe fix (?:was|is)\b|\bto debug (?:this|it)\b|\broot cause (?:was|is)\b|\bfixed it by\b|traceback \(most recent call last\)|\bpanicked at\b|修复方法是|解决方法是|修正方法は|直し方は|해결 방법은|고친 방법은",
    )
});
static TRACE_LINE: LazyLock<Regex> =
    LazyLock::new(|| re(r#"^\s+(?:at \S+.*:\d+|File ".+", line \d+)"#));
static EPHEMERAL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\bcurrently working on\b|\btodo today\b|\bright now i'?m\b|\bin the middle of\b|\bfor this session\b|\bwork in progress\b|今天要做|今天的任务|現在作業中|今日のタスク|지금 작업 중|오늘 할 일",
    )
});

impl Check for NotToSave {
    fn name(&self) -> &'static str {
        "not-to-save"
    }

    fn run(&self, folder: &FolderView) -> Vec<Finding> {
        let mut findings = Vec::new();
        for memory in &folder.memories {
            let first = body_first_line(&memory.text, &memory.parsed.body);
            for (at, why) in reasons(memory) {
                findings.push(
                    Finding::new(self.name(), Severity::Warning, memory.rel.clone(), why)
                        .at_line(first + at - 1),
                );
            }
        }
        findings
    }
}

/// The reasons a memory should not be one, each with the 1-based line of
/// the body where its evidence starts.
fn reasons(memory: &MemoryFile) -> Vec<(usize, String)> {
    let body = &memory.parsed.body;
    let masked = mask_code(body);
    let mut out = Vec::new();
    if let Some(line) = code_body(body, &masked) {
        out.push((line, "mostly code or a list of file paths: code patterns, architecture and paths are derivable from the project (R1.3)".to_owned()));
    }
    if let Some(line) = git_history(&masked) {
        out.push((
            line,
            "git history (commits, merges): git log and git blame are authoritative (R1.3)"
                .to_owned(),
        ));
    }
    if let Some(line) = debugging(body, &masked) {
        out.push((
            line,
            "a debugging recipe: the fix is in the code, the context in the commit message (R1.3)"
                .to_owned(),
        ));
    }
    if let Some(m) = EPHEMERAL.find(&masked) {
        out.push((
            line_of(body, m.start()),
            "ephemeral task details: they are stale by the next conversation (R1.3)".to_owned(),
        ));
    }
    out
}

fn code_body(body: &str, masked: &str) -> Option<usize> {
    let mut total: usize = 0;
    let mut code = 0;
    let mut paths = 0;
    let mut first = None;
    for ((at, line), (_, masked_line)) in lines_with_offsets(body).zip(lines_with_offsets(masked)) {
        if line.trim().is_empty() {
            continue;
        }
        total += 1;
        let is_code = masked_line.trim().is_empty();
        let is_path = PATH_ITEM.is_match(line);
        code += usize::from(is_code);
        paths += usize::from(is_path);
        if (is_code || is_path) && first.is_none() {
            first = Some(line_of(body, at));
        }
    }
    #[allow(clippy::cast_precision_loss, reason = "line counts are small")]
    let share = |n: usize| n as f64 / total.max(1) as f64;
    let heavy = |n: usize| n >= MIN_CODE_LINES && share(n) >= CODE_SHARE;
    if heavy(code) || heavy(paths) {
        first
    } else {
        None
    }
}

fn git_history(masked: &str) -> Option<usize> {
    let words: Vec<_> = GIT_WORDS.find_iter(masked).collect();
    let hash = HASH.find_iter(masked).find(|m| {
        m.as_str().bytes().any(|b| b.is_ascii_digit())
            && m.as_str().bytes().any(|b| b.is_ascii_alphabetic())
    });
    let first = words.first()?;
    if hash.is_some() || words.len() >= 3 {
        Some(line_of(masked, first.start()))
    } else {
        None
    }
}

fn debugging(body: &str, masked: &str) -> Option<usize> {
    if let Some(m) = DEBUG.find(masked) {
        return Some(line_of(body, m.start()));
    }
    let mut traces = lines_with_offsets(body).filter(|(_, l)| TRACE_LINE.is_match(l));
    let first = traces.next()?;
    traces.next().map(|_| line_of(body, first.0))
}
