//! The model selector (SPEC R6.4 a): a side query that names, from the
//! manifest, the memories a request needs.

use std::collections::HashSet;

use memdir_model::{ModelClient, ModelError, SideQuery};
use memdir_scan::{MemoryHeader, format_manifest};
use serde_json::{Value, json};

const SYSTEM: &str = "\
You pick which of a user's saved memories an AI coding agent should read before answering a request.

You see each memory only as a manifest line: `- [type] file name (last modified): description`. Judge from the file name and the description alone.

Rules:
- Pick a memory only when it clearly bears on the request. When unsure, leave it out: a missing memory costs little, an irrelevant one distracts.
- Pick at most 5, most relevant first.
- If a list of recently used tools is given, do not pick reference memories that merely document how to use those tools (the agent is already using them), but do pick memories that hold warnings, gotchas or known problems about them.
- Answer with the file names exactly as they appear in the manifest; an empty list is a good answer when nothing fits.";

/// The JSON schema of the answer. The number of names is not capped here:
/// names past five are dropped after the fact rather than failing the
/// whole answer.
fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "selected_memories": { "type": "array", "items": { "type": "string" } }
        },
        "required": ["selected_memories"],
        "additionalProperties": false
    })
}

/// Asks the model which memories fit `query`. Names not in the manifest,
/// repeats, and anything past `limit` are dropped.
pub(crate) fn select(
    client: &ModelClient,
    query: &str,
    memories: &[MemoryHeader],
    recent_tools: &[String],
    limit: usize,
) -> Result<Vec<usize>, ModelError> {
    let tools = if recent_tools.is_empty() {
        "(none)".to_owned()
    } else {
        recent_tools.join(", ")
    };
    let user = format!(
        "Request:\n{query}\n\nRecently used tools: {tools}\n\nMemories:\n{}",
        format_manifest(memories)
    );
    let answer = client.side_query(&SideQuery {
        system: SYSTEM.to_owned(),
        user,
        schema_name: "memory_selection".to_owned(),
        schema: schema(),
        max_tokens: 512,
    })?;
    Ok(pick(&answer, memories, limit))
}

/// The manifest indices of the names in `answer`, in the model's order.
fn pick(answer: &Value, memories: &[MemoryHeader], limit: usize) -> Vec<usize> {
    let mut seen = HashSet::new();
    answer["selected_memories"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter_map(|name| memories.iter().position(|m| m.filename == name.trim()))
        .filter(|&i| seen.insert(i))
        .take(limit)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(filename: &str) -> MemoryHeader {
        MemoryHeader {
            filename: filename.into(),
            file_path: filename.into(),
            mtime_ms: 0,
            name: None,
            description: None,
            memory_type: None,
            body_head: String::new(),
            supersedes: Vec::new(),
            superseded_by: None,
        }
    }

    #[test]
    fn bad_names_repeats_and_extras_are_dropped() {
        let memories: Vec<_> = ["a.md", "b.md", "c.md", "d.md", "e.md", "f.md", "g.md"]
            .map(memory)
            .into();
        let answer = json!({"selected_memories": ["b.md", "nope.md", "b.md", " a.md ", "c.md", "d.md", "e.md", "f.md", "g.md", 7]});
        assert_eq!(pick(&answer, &memories, 5), [1, 0, 2, 3, 4]);
        assert_eq!(
            pick(&json!({"other": 1}), &memories, 5),
            Vec::<usize>::new()
        );
    }
}
