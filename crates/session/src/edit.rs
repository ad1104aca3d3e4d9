//! The one tool of an update (SPEC R11.5): Edit, on the notes file only,
//! refusing any result that breaks the template's structure.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use memdir_agent::{CanUseTool, Cancel, Tool, ToolOutput, ToolSpec, Verdict};
use serde_json::{Value, json};

use crate::error::StructureError;
use crate::{SessionFiles, Template, estimate_tokens};

/// The largest notes an edit may leave, in bytes: twice the token budget
/// of the whole file at four characters per token. An edit that leaves
/// notes over it (and larger than before) is refused.
pub const MAX_NOTES_BYTES: usize = 2 * 4 * crate::MAX_TOTAL_SESSION_MEMORY_TOKENS;

/// The name the model calls the tool by.
pub(crate) const EDIT: &str = "Edit";

/// An edit as the model asks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotesEdit {
    /// The exact text to replace.
    pub old_string: String,
    /// What replaces it.
    pub new_string: String,
    /// Replace every occurrence rather than exactly one.
    pub replace_all: bool,
}

/// Why an edit was refused: what the model reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EditRefusal {
    /// `old_string` is empty.
    #[error("old_string is empty; give the exact text to replace")]
    EmptyOld,
    /// `old_string` and `new_string` are the same.
    #[error("old_string and new_string are the same: nothing would change")]
    NoChange,
    /// `old_string` does not occur in the notes.
    #[error("old_string does not occur in the notes; copy the text exactly as it is in the file")]
    NotFound,
    /// `old_string` occurs more than once, and `replace_all` is not set.
    #[error("old_string occurs {count} times in the notes; give more context or set replace_all")]
    Ambiguous {
        /// How often it occurs.
        count: usize,
    },
    /// The result would break the template.
    #[error("refused, the notes are unchanged: {0}")]
    Structure(#[from] StructureError),
}

/// Applies `edit` to `notes`, and checks the result against `template`
/// and [`MAX_NOTES_BYTES`]. Returns the new text and the number of
/// replacements.
pub fn apply_edit(
    notes: &str,
    edit: &NotesEdit,
    template: &Template,
) -> Result<(String, usize), EditRefusal> {
    if edit.old_string.is_empty() {
        return Err(EditRefusal::EmptyOld);
    }
    if edit.old_string == edit.new_string {
        return Err(EditRefusal::NoChange);
    }
    let count = notes.matches(edit.old_string.as_str()).count();
    let (text, replaced) = match count {
        0 => return Err(EditRefusal::NotFound),
        1 => (notes.replacen(&edit.old_string, &edit.new_string, 1), 1),
        n if edit.replace_all => (notes.replace(&edit.old_string, &edit.new_string), n),
        n => return Err(EditRefusal::Ambiguous { count: n }),
    };
    if text.len() > MAX_NOTES_BYTES && text.len() > notes.len() {
        return Err(StructureError::TooLarge {
            bytes: text.len(),
            limit: MAX_NOTES_BYTES,
        }
        .into());
    }
    template.check(&text)?;
    Ok((text, replaced))
}

/// The Edit tool over one session's notes.
pub(crate) struct EditTool {
    pub(crate) files: Arc<SessionFiles>,
    pub(crate) template: Arc<Template>,
}

impl Tool for EditTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: EDIT.to_owned(),
            description: format!(
                "Replaces text in the session notes file {}, the only file that may be edited. `old_string` must occur exactly once unless `replace_all` is set. Every `# ` heading and the italic line below it must stay exactly as they are.",
                self.files.notes().display()
            ),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "file_path": {"type": "string", "description": "The absolute path of the notes file."},
                    "old_string": {"type": "string", "description": "The exact text to replace."},
                    "new_string": {"type": "string", "description": "The text to put in its place."},
                    "replace_all": {"type": "boolean", "description": "Replace every occurrence."}
                },
                "required": ["file_path", "old_string", "new_string"]
            }),
        }
    }

    fn call(&self, input: &Value, _cancel: &Cancel) -> ToolOutput {
        let text = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_owned);
        let (Some(old_string), Some(new_string)) = (text("old_string"), text("new_string")) else {
            return ToolOutput::error("old_string and new_string must be strings");
        };
        let edit = NotesEdit {
            old_string,
            new_string,
            replace_all: input
                .get("replace_all")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        };
        // The update holds the session's lock, so nothing else writes the
        // notes between this read and the write.
        let notes = match self.files.read_notes() {
            Ok(Some(notes)) => notes,
            Ok(None) => return ToolOutput::error("the notes file is gone; the update stops here"),
            Err(e) => return ToolOutput::error(format!("cannot read the notes: {e}")),
        };
        match apply_edit(&notes, &edit, &self.template) {
            Ok((text, replaced)) => match self.files.write_notes(&text) {
                Ok(()) => ToolOutput::ok(format!(
                    "edited {}: {replaced} replacement{}; the notes are now about {} tokens",
                    self.files.notes().display(),
                    if replaced == 1 { "" } else { "s" },
                    estimate_tokens(&text)
                )),
                Err(e) => ToolOutput::error(format!("cannot write the notes: {e}")),
            },
            Err(refusal) => ToolOutput::error(refusal.to_string()),
        }
    }
}

/// Allows Edit of the notes file alone: its path as given, or as the
/// system resolves it.
pub(crate) struct NotesOnly {
    pub(crate) notes: PathBuf,
}

impl CanUseTool for NotesOnly {
    fn check(&self, tool: &str, input: &Value) -> Verdict {
        let only = || {
            Verdict::Deny(format!(
                "only Edit of the session notes {} is allowed",
                self.notes.display()
            ))
        };
        if tool != EDIT {
            return only();
        }
        let Some(path) = input.get("file_path").and_then(Value::as_str) else {
            return only();
        };
        let path = memdir_paths::normalize_lexically(Path::new(path));
        let same = path == memdir_paths::normalize_lexically(&self.notes)
            || std::fs::canonicalize(&path)
                .ok()
                .zip(std::fs::canonicalize(&self.notes).ok())
                .is_some_and(|(a, b)| a == b);
        if same { Verdict::Allow } else { only() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DEFAULT_TEMPLATE;

    fn edit(old: &str, new: &str, all: bool) -> NotesEdit {
        NotesEdit {
            old_string: old.into(),
            new_string: new.into(),
            replace_all: all,
        }
    }

    fn check(old: &str, new: &str, all: bool) -> Result<String, EditRefusal> {
        apply_edit(DEFAULT_TEMPLATE, &edit(old, new, all), &Template::default()).map(|(t, _)| t)
    }

    #[test]
    fn an_edit_below_a_description_lands() {
        let done = check(
            "one line each_\n",
            "one line each_\n- read the failing test\n",
            false,
        )
        .unwrap();
        assert!(done.ends_with("one line each_\n- read the failing test\n"));
    }

    #[test]
    fn edits_that_break_the_template_are_refused() {
        let refused = |old: &str, new: &str, all: bool| match check(old, new, all) {
            Err(EditRefusal::Structure(e)) => e,
            other => panic!("{old:?} -> {new:?}: {other:?}"),
        };
        assert!(matches!(
            refused("# Learnings\n", "", false),
            StructureError::MissingHeading { .. }
        ));
        assert!(matches!(
            refused("what to do differently next time", "lessons", false),
            StructureError::ChangedDescription { .. }
        ));
        assert!(matches!(
            refused("# Worklog", "# Extra\n\n# Worklog", false),
            StructureError::ExtraHeading { .. }
        ));
        assert!(matches!(
            refused("# Workflow", "# Process", false),
            StructureError::ChangedHeading { .. }
        ));
        assert!(matches!(
            refused("# ", "#", true),
            StructureError::ChangedHeading { .. } | StructureError::MissingHeading { .. }
        ));
        let huge = format!("one line each_\n{}", "x".repeat(MAX_NOTES_BYTES));
        assert!(matches!(
            refused("one line each_\n", &huge, false),
            StructureError::TooLarge { .. }
        ));
    }

    #[test]
    fn edits_that_cannot_apply_say_why() {
        assert_eq!(check("", "x", false), Err(EditRefusal::EmptyOld));
        assert_eq!(check("# W", "# W", false), Err(EditRefusal::NoChange));
        assert_eq!(check("not there", "x", false), Err(EditRefusal::NotFound));
        assert_eq!(
            check("# ", "#  ", false),
            Err(EditRefusal::Ambiguous { count: 10 })
        );
    }

    #[test]
    fn over_the_size_limit_an_edit_may_still_shrink_the_notes() {
        let big = DEFAULT_TEMPLATE.replace(
            "one line each_\n",
            &format!("one line each_\n{}\n", "y".repeat(MAX_NOTES_BYTES)),
        );
        let (text, _) = apply_edit(&big, &edit("yyyy", "", true), &Template::default()).unwrap();
        assert_eq!(
            text,
            DEFAULT_TEMPLATE.replace("one line each_\n", "one line each_\n\n")
        );
    }

    #[test]
    fn the_policy_allows_the_notes_file_alone() {
        let policy = NotesOnly {
            notes: PathBuf::from("/p/.claude/session-memory/session-s.md"),
        };
        let input = |p: &str| json!({"file_path": p, "old_string": "a", "new_string": "b"});
        assert_eq!(
            policy.check("Edit", &input("/p/.claude/session-memory/session-s.md")),
            Verdict::Allow
        );
        assert_eq!(
            policy.check(
                "Edit",
                &input("/p/.claude/x/../session-memory/session-s.md")
            ),
            Verdict::Allow
        );
        for (tool, path) in [
            ("Edit", "/p/.claude/session-memory/session-other.md"),
            ("Edit", "/p/.claude/settings.json"),
            ("Edit", "session-s.md"),
            ("Write", "/p/.claude/session-memory/session-s.md"),
        ] {
            assert!(
                matches!(policy.check(tool, &input(path)), Verdict::Deny(r) if r.contains("only Edit")),
                "{tool} {path}"
            );
        }
    }
}
