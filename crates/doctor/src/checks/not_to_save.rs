//! `not-to-save`: memories of what SPEC R1.3 says not to save, each
//! heuristic with its reason. Each one wants two kinds of evidence, or one
//! that cannot be mistaken, so that a feedback memory that mentions a
//! command, a file path or a commit is left alone:
//!
//! - code to copy: the body is mostly code (fenced or indented, and
//!   reading as code), or it holds a snippet offered as the pattern ("use
//!   this pattern for handlers", 按这个模板写, 次のパターンで実装), or two
//!   lines of code shown "like this" — code is derivable from the project
//!   as it is;
//! - a file listing or an architecture description: mostly list items or
//!   code lines that start with a path (or a tree drawing), or three paths
//!   or more with two words of structure ("layer", "lives in", "talks
//!   to", 目录结构);
//! - git history: a commit hash with commit narration, two change numbers
//!   (`PR #482`, `#490`) with narration, or three pieces of narration
//!   (`git log` and `git blame` are authoritative);
//! - a debugging recipe: the story of one fix in one phrase ("the fix
//!   was", "traced it to", "Fix:", 解决步骤, 対処法) or a stack trace; or
//!   steps — two list items with debugging verbs (run, restart, clear,
//!   delete, check, …) or numbered commands, about a failure named in the
//!   description or before the steps; "when X fails" with two such verbs;
//!   or one incident pointed at ("the flaky test", "this error") with two
//!   verbs and no rule drawn from it ("always", "never") — the fix is in
//!   the code, the context in the commit message;
//! - ephemeral task details: where a task stands ("currently working
//!   on", "Status:", "Next:", 当前进度, 今やっていること), two hints of it
//!   ("still need to", "blocked on", "PR #733 is open"), or a task list
//!   with open boxes.
//!
//! A feedback memory's rationale paragraph (`**Why:** …`) often tells the
//! incident behind its rule; the stories of history and of fixes are not
//! looked for there.

mod shape;
mod words;

use regex::Regex;

use crate::text::body_first_line;
use crate::{Check, Finding, FolderView, MemoryFile, Severity};
use shape::{Body, Item, Kind, with_body};
use words::{
    ARCHITECTURE, AS_NOUN, CHANGE_REF, CODE_SYNTAX, COMMAND, COPY_THIS, DEBUG_VERB, FAILURE,
    FIX_STORY, GIT_WORDS, HASH, HISTORY_VERB, INCIDENT, LIKE_THIS, NEGATED, RULE, TASK_HINT,
    TASK_STATUS, WHEN_FAILS,
};

/// The `not-to-save` check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NotToSave;

/// At least this share of the body's non-blank lines (a fence's markers
/// count) must be code (or file-listing entries) for the body to count as
/// code (or a listing).
const CODE_SHARE: f64 = 0.6;
/// And at least this many lines.
const MIN_CODE_LINES: usize = 3;
/// Code shown "like this" is a pattern from this many lines of code that
/// look like code (a one-line example in a rule is fine); code offered
/// as the pattern to copy, from one.
const MIN_SHOWN_LINES: usize = 2;
/// An architecture description names at least this many paths…
const MIN_ARCHITECTURE_PATHS: usize = 3;
/// … and this many words of structure.
const MIN_ARCHITECTURE_WORDS: usize = 2;
/// A recipe has at least this many steps with a debugging verb.
const MIN_RECIPE_STEPS: usize = 2;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("the not-to-save patterns are valid")
}

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

/// Why a memory should not be one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reason {
    Code,
    Layout,
    GitHistory,
    Debugging,
    Ephemeral,
}

impl Reason {
    fn message(self) -> &'static str {
        match self {
            Reason::Code => {
                "code to copy (mostly code, or a snippet given as the pattern): code is derivable from the project as it is (R1.3)"
            }
            Reason::Layout => {
                "a file listing or an architecture description: the layout is derivable from the project as it is (R1.3)"
            }
            Reason::GitHistory => {
                "git history (commits, merges): git log and git blame are authoritative (R1.3)"
            }
            Reason::Debugging => {
                "a debugging recipe (steps or the story of one fix): the fix is in the code, the context in the commit message (R1.3)"
            }
            Reason::Ephemeral => {
                "ephemeral task details: they are stale by the next conversation (R1.3)"
            }
        }
    }
}

/// The reasons a memory should not be one, each with the 1-based line of
/// the body where its evidence starts.
fn reasons(memory: &MemoryFile) -> Vec<(usize, &'static str)> {
    let header = &memory.parsed.header;
    let subject = format!(
        "{} {}",
        header.name.as_deref().unwrap_or(""),
        header.description.as_deref().unwrap_or("")
    );
    reasons_of(&memory.parsed.body, &subject)
        .into_iter()
        .map(|(line, reason)| (line, reason.message()))
        .collect()
}

/// The reasons of a body whose name and description are `subject`.
fn reasons_of(body: &str, subject: &str) -> Vec<(usize, Reason)> {
    with_body(body, |body| {
        [
            (code(body), Reason::Code),
            (layout(body), Reason::Layout),
            (git_history(body), Reason::GitHistory),
            (debugging(body, subject), Reason::Debugging),
            (ephemeral(body), Reason::Ephemeral),
        ]
        .into_iter()
        .filter_map(|(line, reason)| Some((line?, reason)))
        .collect()
    })
}

/// The 1-based body line of `line` (by its byte offset).
fn number(body: &Body<'_>, at: usize) -> usize {
    body.text[..at].matches('\n').count() + 1
}

/// The first line for which `pred` holds, numbered.
fn first(body: &Body<'_>, pred: impl Fn(&shape::Line<'_>) -> bool) -> Option<usize> {
    body.lines
        .iter()
        .find(|l| pred(l))
        .map(|l| number(body, l.at))
}

/// The first line whose `part` matches `re`, numbered.
fn first_match(
    body: &Body<'_>,
    re: &Regex,
    part: for<'l> fn(&'l shape::Line<'l>) -> &'l str,
) -> Option<usize> {
    first(body, |l| re.is_match(part(l)))
}

fn prose<'l>(line: &'l shape::Line<'l>) -> &'l str {
    line.prose
}

fn narrative<'l>(line: &'l shape::Line<'l>) -> &'l str {
    line.narrative()
}

fn code(body: &Body<'_>) -> Option<usize> {
    let content: Vec<&shape::Line<'_>> = body
        .lines
        .iter()
        .filter(|l| matches!(l.kind, Kind::FencedCode | Kind::IndentedCode))
        .collect();
    let snippet = content
        .iter()
        .filter(|l| CODE_SYNTAX.is_match(l.text))
        .count();
    // A block that does not read as code (a commit message, a quoted
    // sentence) does not make the memory code; a file listing in a code
    // block is a listing, reported as one.
    let commands = content.iter().filter(|l| COMMAND.is_match(l.text)).count();
    let reads_as_code = (snippet + commands) * 2 > content.len();
    let (lines, share) = body.share(|l| l.is_code() && !Body::is_path_entry(l));
    if reads_as_code && lines >= MIN_CODE_LINES && share >= CODE_SHARE {
        return first(body, |l| l.is_code() && !Body::is_path_entry(l));
    }
    if snippet >= 1
        && let Some(line) = first_match(body, &COPY_THIS, prose)
    {
        return Some(line);
    }
    if snippet >= MIN_SHOWN_LINES {
        return first_match(body, &LIKE_THIS, prose);
    }
    None
}

fn layout(body: &Body<'_>) -> Option<usize> {
    let (entries, share) = body.share(Body::is_path_entry);
    if entries >= MIN_CODE_LINES && share >= CODE_SHARE {
        return first(body, Body::is_path_entry);
    }
    if body.paths().len() < MIN_ARCHITECTURE_PATHS {
        return None;
    }
    let words: std::collections::BTreeSet<String> = body
        .lines
        .iter()
        .flat_map(|l| ARCHITECTURE.find_iter(l.prose))
        .map(|m| m.as_str().to_lowercase())
        .collect();
    (words.len() >= MIN_ARCHITECTURE_WORDS)
        .then(|| first_match(body, &ARCHITECTURE, prose))
        .flatten()
}

fn git_history(body: &Body<'_>) -> Option<usize> {
    let count = |re: &Regex| -> usize {
        body.lines
            .iter()
            .map(|l| re.find_iter(l.narrative()).count())
            .sum()
    };
    let words = count(&GIT_WORDS);
    let refs = count(&CHANGE_REF);
    let hash = body.lines.iter().any(|l| {
        HASH.find_iter(l.narrative()).any(|m| {
            m.as_str().bytes().any(|b| b.is_ascii_digit())
                && m.as_str().bytes().any(|b| b.is_ascii_alphabetic())
        })
    });
    if words > 0 && (hash || words >= 3 || refs >= 2) {
        return first_match(body, &GIT_WORDS, narrative);
    }
    // A story told by change numbers: "moved to Kamal in #140".
    (refs >= 2 && count(&HISTORY_VERB) >= 2)
        .then(|| first_match(body, &HISTORY_VERB, narrative))
        .flatten()
}

/// `subject` is the memory's name and description: what it is about.
fn debugging(body: &Body<'_>, subject: &str) -> Option<usize> {
    if let Some(line) = first_match(body, &FIX_STORY, narrative) {
        return Some(line);
    }
    if let Some(line) = stack_trace(body) {
        return Some(line);
    }
    let told = |l: &&shape::Line<'_>| !l.rationale && l.kind == Kind::Text;
    // Steps: list items with a debugging verb ("if it didn't, re-run the
    // job" is one), or numbered ones that are only a command.
    let steps: Vec<&shape::Line<'_>> = body
        .lines
        .iter()
        .filter(told)
        .filter(|l| {
            matches!(l.item, Some(Item::Ordered | Item::Bullet)) && step_verbs(l.prose) > 0
                || l.item == Some(Item::Ordered) && only_a_command(l)
        })
        .collect();
    if let Some(step) = steps.first().filter(|_| steps.len() >= MIN_RECIPE_STEPS) {
        // The steps are a recipe when what they are for failed: said in
        // the description, before the steps or in the first one (a
        // routine procedure may end with "if errors rise, roll back").
        // Code spans count: `ECONNREFUSED` is what failed.
        let failed = FAILURE.is_match(subject)
            || body
                .lines
                .iter()
                .take_while(|l| l.at <= step.at)
                .filter(told)
                .any(|l| FAILURE.is_match(l.text));
        if failed {
            return Some(number(body, step.at));
        }
    }
    let verbs: usize = body
        .lines
        .iter()
        .filter(told)
        .map(|l| step_verbs(l.prose))
        .sum();
    if verbs < MIN_RECIPE_STEPS {
        return None;
    }
    if let Some(when) = first_match(body, &WHEN_FAILS, narrative) {
        return Some(when);
    }
    // One incident pointed at ("the flaky test", "this error") with
    // what to do about it, and no rule ("always", "never") drawn from it.
    let rule = body.lines.iter().any(|l| RULE.is_match(l.prose));
    if rule {
        return None;
    }
    first_match(body, &INCIDENT, narrative).or_else(|| {
        INCIDENT
            .is_match(subject)
            .then(|| first(body, |l| told(&l) && step_verbs(l.prose) > 0))
            .flatten()
    })
}

/// The debugging verbs of `text` (prose: `pnpm run` is a command, not
/// a step), leaving out those forbidden ("don't run") and nouns ("the
/// last run").
fn step_verbs(text: &str) -> usize {
    DEBUG_VERB
        .find_iter(text)
        .filter(|m| {
            let before = &text[..m.start()];
            !NEGATED.is_match(before) && !AS_NOUN.is_match(before)
        })
        .count()
}

/// Whether a list item holds a command in a code span and nothing else.
fn only_a_command(line: &shape::Line<'_>) -> bool {
    let marker = shape::ITEM.find(line.prose).map_or(0, |m| m.end());
    line.text.contains('`')
        && line.prose[marker..]
            .chars()
            .all(|c| c.is_whitespace() || c.is_ascii_punctuation())
}

/// Two lines of a stack trace (`at f (file:1)`, `File "x", line 1`).
fn stack_trace(body: &Body<'_>) -> Option<usize> {
    static TRACE_LINE: std::sync::LazyLock<Regex> =
        std::sync::LazyLock::new(|| re(r#"^\s+(?:at \S+.*:\d+|File ".+", line \d+)"#));
    let mut traces = body.lines.iter().filter(|l| TRACE_LINE.is_match(l.text));
    let first = traces.next()?;
    traces.next().map(|_| number(body, first.at))
}

fn ephemeral(body: &Body<'_>) -> Option<usize> {
    if let Some(line) = first_match(body, &TASK_STATUS, prose) {
        return Some(line);
    }
    let hints: std::collections::BTreeSet<&str> = body
        .lines
        .iter()
        .flat_map(|l| TASK_HINT.find_iter(l.narrative()))
        .map(|m| m.as_str())
        .collect();
    if hints.len() >= 2 {
        return first_match(body, &TASK_HINT, narrative);
    }
    let is_task = |l: &shape::Line<'_>| matches!(l.item, Some(Item::Task(_)));
    let tasks = body.lines.iter().filter(|l| is_task(l)).count();
    let open = body.lines.iter().any(|l| l.item == Some(Item::Task(false)));
    (open && tasks >= 2).then(|| first(body, is_task)).flatten()
}

#[cfg(test)]
mod tests;
