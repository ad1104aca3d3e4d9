//! Whether the main agent wrote memory itself (SPEC R12.3): then the
//! extraction step skips those turns, so the two never both write for the
//! same messages.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The tools of the reference agent that write a file, and the input field
/// naming it.
const WRITING_TOOLS: &[(&str, &str)] = &[
    ("Write", "file_path"),
    ("Edit", "file_path"),
    ("MultiEdit", "file_path"),
    ("NotebookEdit", "notebook_path"),
];

/// Whether any of `tool_uses` (a tool's name and its input, as the main
/// agent called it) wrote a file inside `memory_dir`. Paths are compared
/// after `.` and `..` are applied; `memory_dir` and its canonical form
/// both count.
pub fn has_memory_writes<'a>(
    tool_uses: impl IntoIterator<Item = (&'a str, &'a Value)>,
    memory_dir: &Path,
) -> bool {
    let dirs: Vec<PathBuf> = std::iter::once(memdir_paths::normalize_lexically(memory_dir))
        .chain(std::fs::canonicalize(memory_dir).ok())
        .collect();
    tool_uses.into_iter().any(|(name, input)| {
        let Some((_, field)) = WRITING_TOOLS.iter().find(|(tool, _)| *tool == name) else {
            return false;
        };
        let Some(path) = input.get(*field).and_then(Value::as_str) else {
            return false;
        };
        let path = memdir_paths::normalize_lexically(Path::new(path));
        path.is_absolute() && dirs.iter().any(|dir| path.starts_with(dir))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_writing_tools_into_the_folder_count() {
        let dir = Path::new("/home/u/.claude/projects/p/memory");
        let write_in = json!({"file_path": "/home/u/.claude/projects/p/memory/role.md"});
        let edit_team = json!({"file_path": "/home/u/.claude/projects/p/memory/team/x.md"});
        let sneaky = json!({"file_path": "/home/u/.claude/projects/p/memory/../other/x.md"});
        let read_in = json!({"file_path": "/home/u/.claude/projects/p/memory/role.md"});
        let write_out = json!({"file_path": "/tmp/x.md"});
        let relative = json!({"file_path": "memory/role.md"});
        assert!(has_memory_writes([("Write", &write_in)], dir));
        assert!(has_memory_writes([("Edit", &edit_team)], dir));
        assert!(!has_memory_writes([("Write", &sneaky)], dir));
        assert!(!has_memory_writes([("Read", &read_in)], dir));
        assert!(!has_memory_writes(
            [("Write", &write_out), ("Edit", &relative)],
            dir
        ));
        assert!(!has_memory_writes(
            [("Write", &json!({"file_path": 7}))],
            dir
        ));
    }
}
