//! Grep and Glob: ripgrep's crates over the project's files, with its
//! rules for what to skip (hidden files, `.gitignore`, `.ignore`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use globset::GlobBuilder;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::sinks::UTF8;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;
use serde::Deserialize;

use crate::{ToolError, resolve};

/// How long one Grep or Glob may walk before it answers with what it has.
pub const SEARCH_TIME: Duration = Duration::from_secs(20);
/// The most lines (or files) Grep returns when the call names no limit.
pub const DEFAULT_GREP_RESULTS: usize = 250;
/// The most paths Glob returns.
pub const MAX_GLOB_RESULTS: usize = 100;
/// The longest matching line Grep shows whole.
const MAX_MATCH_CHARS: usize = 500;

/// What Grep answers with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// The paths of the files that match (the default).
    #[default]
    FilesWithMatches,
    /// The matching lines, `path:line:text`.
    Content,
    /// The number of matching lines per file, `path:count`.
    Count,
}

/// What Grep is given.
#[derive(Debug, Clone, Deserialize)]
pub struct GrepInput {
    /// A regular expression (Rust `regex` syntax, like ripgrep's).
    pub pattern: String,
    /// The file or folder to search: absolute, or relative to the project
    /// root; the project root when absent.
    #[serde(default)]
    pub path: Option<String>,
    /// Only files whose path matches this glob (`*.rs`, `src/**/*.ts`).
    #[serde(default)]
    pub glob: Option<String>,
    /// What to answer with.
    #[serde(default)]
    pub output_mode: Option<OutputMode>,
    /// Case-insensitive matching.
    #[serde(default, rename = "-i")]
    pub case_insensitive: Option<bool>,
    /// At most this many lines or files.
    #[serde(default)]
    pub head_limit: Option<usize>,
}

/// What Glob is given.
#[derive(Debug, Clone, Deserialize)]
pub struct GlobInput {
    /// A glob over paths relative to `path`: `*` and `?` stay within one
    /// folder, `**` crosses folders, `{a,b}` and `[ab]` as in shells.
    pub pattern: String,
    /// The folder to search: absolute, or relative to the project root;
    /// the project root when absent.
    #[serde(default)]
    pub path: Option<String>,
}

/// What a search stops on besides its end: a deadline and a caller's
/// cancellation.
pub struct Stop<'a> {
    /// When to stop walking and answer with what was found.
    pub deadline: Instant,
    /// Whether the caller has cancelled.
    pub cancelled: &'a dyn Fn() -> bool,
}

impl Stop<'_> {
    fn now(&self) -> bool {
        Instant::now() >= self.deadline || (self.cancelled)()
    }
}

fn walker(base: &Path, glob: Option<&str>) -> Result<ignore::Walk, ToolError> {
    let mut builder = WalkBuilder::new(base);
    // `.gitignore` counts even outside a git repository; hidden files and
    // folders are skipped, links not followed.
    builder.require_git(false).follow_links(false);
    if let Some(glob) = glob {
        let mut overrides = OverrideBuilder::new(base);
        overrides.add(glob).map_err(|e| ToolError::Pattern {
            pattern: glob.to_owned(),
            reason: e.to_string(),
        })?;
        builder.overrides(overrides.build().map_err(|e| ToolError::Pattern {
            pattern: glob.to_owned(),
            reason: e.to_string(),
        })?);
    }
    Ok(builder.build())
}

/// Searches the files under `input.path` for `input.pattern`.
pub fn grep(root: &Path, input: &GrepInput, stop: &Stop<'_>) -> Result<String, ToolError> {
    let base = input
        .path
        .as_deref()
        .map_or_else(|| root.to_owned(), |p| resolve(root, p));
    if !base.exists() {
        return Err(ToolError::NotFound { path: base });
    }
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(input.case_insensitive.unwrap_or(false))
        .build(&input.pattern)
        .map_err(|e| ToolError::Pattern {
            pattern: input.pattern.clone(),
            reason: e.to_string(),
        })?;
    let mode = input.output_mode.unwrap_or_default();
    let limit = input.head_limit.unwrap_or(DEFAULT_GREP_RESULTS).max(1);
    let mut searcher = SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(0))
        .line_number(true)
        .build();
    let mut lines: Vec<String> = Vec::new();
    let mut more = false;
    let mut timed_out = false;
    for entry in walker(&base, input.glob.as_deref())? {
        if stop.now() {
            timed_out = true;
            break;
        }
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path().to_owned();
        let shown = path.display().to_string();
        let mut count = 0usize;
        let result = searcher.search_path(
            &matcher,
            &path,
            UTF8(|number, line| {
                count += 1;
                match mode {
                    OutputMode::Content => {
                        if lines.len() >= limit {
                            more = true;
                            return Ok(false);
                        }
                        let text = line.trim_end_matches(['\n', '\r']);
                        let cut: String = text.chars().take(MAX_MATCH_CHARS).collect();
                        lines.push(format!("{shown}:{number}:{cut}"));
                        Ok(true)
                    }
                    OutputMode::FilesWithMatches => Ok(false),
                    OutputMode::Count => Ok(true),
                }
            }),
        );
        // A file that cannot be read (gone, not text) is skipped.
        if result.is_err() || count == 0 {
            continue;
        }
        match mode {
            OutputMode::Content => {}
            OutputMode::FilesWithMatches | OutputMode::Count if lines.len() >= limit => {
                more = true;
                break;
            }
            OutputMode::FilesWithMatches => lines.push(shown),
            OutputMode::Count => lines.push(format!("{shown}:{count}")),
        }
        if more {
            break;
        }
    }
    let mut out = if lines.is_empty() {
        "no matches\n".to_owned()
    } else {
        lines.join("\n") + "\n"
    };
    if more {
        let _ = writeln!(out, "(more results: showing the first {limit})");
    }
    if timed_out {
        let _ = writeln!(
            out,
            "(the search stopped before the end: time or cancellation)"
        );
    }
    Ok(out)
}

/// The files under `input.path` whose relative path matches
/// `input.pattern`, newest first.
pub fn glob(root: &Path, input: &GlobInput, stop: &Stop<'_>) -> Result<String, ToolError> {
    let base = input
        .path
        .as_deref()
        .map_or_else(|| root.to_owned(), |p| resolve(root, p));
    if !base.is_dir() {
        return Err(ToolError::NotFound { path: base });
    }
    let matcher = GlobBuilder::new(&input.pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| ToolError::Pattern {
            pattern: input.pattern.clone(),
            reason: e.to_string(),
        })?
        .compile_matcher();
    let mut found: Vec<(SystemTime, PathBuf)> = Vec::new();
    let mut timed_out = false;
    for entry in walker(&base, None)? {
        if stop.now() {
            timed_out = true;
            break;
        }
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(&base) else {
            continue;
        };
        if matcher.is_match(rel) {
            let modified = entry
                .metadata()
                .ok()
                .and_then(|m| m.modified().ok())
                .unwrap_or(SystemTime::UNIX_EPOCH);
            found.push((modified, entry.path().to_owned()));
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let total = found.len();
    let mut out = String::new();
    if total == 0 {
        out.push_str("no files match\n");
    }
    for (_, path) in found.iter().take(MAX_GLOB_RESULTS) {
        let _ = writeln!(out, "{}", path.display());
    }
    if total > MAX_GLOB_RESULTS {
        let _ = writeln!(
            out,
            "({total} files match; showing the {MAX_GLOB_RESULTS} newest: narrow the pattern)"
        );
    }
    if timed_out {
        let _ = writeln!(
            out,
            "(the walk stopped before the end: time or cancellation)"
        );
    }
    Ok(out)
}
