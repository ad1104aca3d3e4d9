//! The pure prompt builders: the prose lives in `text/*.md`, and this module
//! puts the pieces of one mode together in the order of SPEC R7.2, filling
//! in the folder paths and the truncated indexes. Nothing here touches the
//! disk.

use camino::Utf8Path;

use memdir_entrypoint::{ENTRYPOINT_NAME, truncate_entrypoint_content};

/// Choices that shape the prompt beyond what path resolution decides.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PromptOptions {
    /// A long-running assistant session: memory is kept as an append-only
    /// daily log instead of being edited directly (SPEC R7.1).
    pub assistant_mode: bool,
    /// Add the optional section on searching memory and earlier sessions.
    pub include_search_section: bool,
}

/// The prose of each section, one file per section so that the wording can
/// be reviewed as text. The two type texts are deliberately separate and
/// flat (SPEC R1.4): one with `<scope>` tags for combined mode, one without.
mod text {
    pub(super) const INTRO_SINGLE: &str = include_str!("text/intro_single.md");
    pub(super) const INTRO_COMBINED: &str = include_str!("text/intro_combined.md");
    pub(super) const INTRO_DAILY_LOG: &str = include_str!("text/intro_daily_log.md");
    pub(super) const SCOPE_COMBINED: &str = include_str!("text/scope_combined.md");
    pub(super) const TYPES_SINGLE: &str = include_str!("text/types_single.md");
    pub(super) const TYPES_COMBINED: &str = include_str!("text/types_combined.md");
    pub(super) const WHAT_NOT_TO_SAVE: &str = include_str!("text/what_not_to_save.md");
    pub(super) const HOW_TO_SAVE_SINGLE: &str = include_str!("text/how_to_save_single.md");
    pub(super) const HOW_TO_SAVE_COMBINED: &str = include_str!("text/how_to_save_combined.md");
    pub(super) const HOW_TO_LOG_DAILY: &str = include_str!("text/how_to_log_daily.md");
    pub(super) const WHEN_TO_READ: &str = include_str!("text/when_to_read.md");
    pub(super) const BEFORE_RECOMMENDING: &str = include_str!("text/before_recommending.md");
    pub(super) const OTHER_PERSISTENCE: &str = include_str!("text/other_persistence.md");
    pub(super) const SEARCH_PAST_CONTEXT: &str = include_str!("text/search_past_context.md");
    pub(super) const INDEX_SINGLE: &str = include_str!("text/index_single.md");
    pub(super) const INDEX_COMBINED: &str = include_str!("text/index_combined.md");
    pub(super) const INDEX_DAILY_LOG: &str = include_str!("text/index_daily_log.md");
    pub(super) const INDEX_EMPTY: &str = include_str!("text/index_empty.md");
}

/// The single-folder prompt: auto memory on, team memory off.
///
/// `index` is the raw content of `<auto_dir>/MEMORY.md` (empty when there is
/// none); it is cut to the prompt budget here.
///
/// ```
/// use camino::Utf8Path;
/// use memdir_prompt::{build_single_prompt, PromptOptions};
///
/// let text = build_single_prompt(Utf8Path::new("/m/"), "", &PromptOptions::default());
/// assert!(text.contains("`/m/MEMORY.md`"));
/// assert!(text.contains("no memories saved yet"));
/// ```
#[must_use]
pub fn build_single_prompt(auto_dir: &Utf8Path, index: &str, options: &PromptOptions) -> String {
    let auto = auto_dir.to_string();
    let index_path = auto_dir.join(ENTRYPOINT_NAME).to_string();
    let index = injected_index(index);
    let vars = [
        ("auto_dir", auto.as_str()),
        ("index_path", index_path.as_str()),
        ("index", index.as_str()),
    ];
    assemble(
        &[
            text::INTRO_SINGLE,
            text::TYPES_SINGLE,
            text::WHAT_NOT_TO_SAVE,
            text::HOW_TO_SAVE_SINGLE,
            text::WHEN_TO_READ,
            text::BEFORE_RECOMMENDING,
            text::OTHER_PERSISTENCE,
            search_section(options.include_search_section),
            text::INDEX_SINGLE,
        ],
        &vars,
    )
}

/// The combined prompt: a private folder and its shared `team/` subfolder,
/// a scope section, and both indexes.
///
/// `index` and `team_index` are the raw contents of the two `MEMORY.md`
/// files (empty when missing); each is cut to the prompt budget on its own.
///
/// ```
/// use camino::Utf8Path;
/// use memdir_prompt::{build_combined_prompt, PromptOptions};
///
/// let text = build_combined_prompt(
///     Utf8Path::new("/m/"),
///     Utf8Path::new("/m/team/"),
///     "- [Use pnpm](use-pnpm.md) — not npm",
///     "",
///     &PromptOptions::default(),
/// );
/// assert!(text.contains("<scope>always private</scope>"));
/// assert!(text.contains("- [Use pnpm](use-pnpm.md) — not npm"));
/// ```
#[must_use]
pub fn build_combined_prompt(
    auto_dir: &Utf8Path,
    team_dir: &Utf8Path,
    index: &str,
    team_index: &str,
    options: &PromptOptions,
) -> String {
    let auto = auto_dir.to_string();
    let team = team_dir.to_string();
    let index_path = auto_dir.join(ENTRYPOINT_NAME).to_string();
    let team_index_path = team_dir.join(ENTRYPOINT_NAME).to_string();
    let index = injected_index(index);
    let team_index = injected_index(team_index);
    let vars = [
        ("auto_dir", auto.as_str()),
        ("team_dir", team.as_str()),
        ("index_path", index_path.as_str()),
        ("team_index_path", team_index_path.as_str()),
        ("index", index.as_str()),
        ("team_index", team_index.as_str()),
    ];
    assemble(
        &[
            text::INTRO_COMBINED,
            text::SCOPE_COMBINED,
            text::TYPES_COMBINED,
            text::WHAT_NOT_TO_SAVE,
            text::HOW_TO_SAVE_COMBINED,
            text::WHEN_TO_READ,
            text::BEFORE_RECOMMENDING,
            text::OTHER_PERSISTENCE,
            search_section(options.include_search_section),
            text::INDEX_COMBINED,
        ],
        &vars,
    )
}

/// The daily-log prompt of a long-running assistant session: append
/// timestamped bullets to `log_path`, which a later distillation step folds
/// into `MEMORY.md` and topic files; the current index is still shown.
///
/// ```
/// use camino::Utf8Path;
/// use memdir_prompt::{build_daily_log_prompt, PromptOptions};
///
/// let log = Utf8Path::new("/m/logs/2026/03/2026-03-05.md");
/// let text = build_daily_log_prompt(Utf8Path::new("/m/"), log, "", &PromptOptions::default());
/// assert!(text.contains("`/m/logs/2026/03/2026-03-05.md`"));
/// assert!(text.contains("Only ever append"));
/// ```
#[must_use]
pub fn build_daily_log_prompt(
    auto_dir: &Utf8Path,
    log_path: &Utf8Path,
    index: &str,
    options: &PromptOptions,
) -> String {
    let auto = auto_dir.to_string();
    let log = log_path.to_string();
    let index_path = auto_dir.join(ENTRYPOINT_NAME).to_string();
    let index = injected_index(index);
    let vars = [
        ("auto_dir", auto.as_str()),
        ("log_path", log.as_str()),
        ("index_path", index_path.as_str()),
        ("index", index.as_str()),
    ];
    assemble(
        &[
            text::INTRO_DAILY_LOG,
            text::TYPES_SINGLE,
            text::WHAT_NOT_TO_SAVE,
            text::HOW_TO_LOG_DAILY,
            text::WHEN_TO_READ,
            text::BEFORE_RECOMMENDING,
            text::OTHER_PERSISTENCE,
            search_section(options.include_search_section),
            text::INDEX_DAILY_LOG,
        ],
        &vars,
    )
}

fn search_section(include: bool) -> &'static str {
    if include {
        text::SEARCH_PAST_CONTEXT
    } else {
        ""
    }
}

/// The index as the prompt shows it: cut to the budget with its warning
/// (SPEC R3), or a plain statement that it is empty.
fn injected_index(raw: &str) -> String {
    let truncation = truncate_entrypoint_content(raw);
    if truncation.content.is_empty() {
        text::INDEX_EMPTY.trim_end().to_owned()
    } else {
        truncation.content
    }
}

/// Joins the non-empty sections with one blank line between them, fills in
/// `{name}` placeholders, and ends the text with one newline.
fn assemble(sections: &[&str], vars: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for section in sections.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        fill(section, vars, &mut out);
    }
    out.push('\n');
    out
}

/// `template` with each `{name}` of `vars` replaced, in a single pass, so
/// that a value that itself contains braces (an index line, a path, a
/// manifest) is inserted as it is and never scanned again. Braces that name
/// no variable stay.
///
/// ```
/// let text = memdir_prompt::fill_template("{a} and {b}, {c}", &[("a", "{b}"), ("b", "2")]);
/// assert_eq!(text, "{b} and 2, {c}");
/// ```
#[must_use]
pub fn fill_template(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    fill(template, vars, &mut out);
    out
}

/// [`fill_template`] into `out`.
fn fill(template: &str, vars: &[(&str, &str)], out: &mut String) {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let hit = vars.iter().find_map(|(name, value)| {
            after
                .strip_prefix(name)
                .and_then(|tail| tail.strip_prefix('}'))
                .map(|tail| (*value, tail))
        });
        if let Some((value, tail)) = hit {
            out.push_str(value);
            rest = tail;
        } else {
            out.push('{');
            rest = after;
        }
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests;
