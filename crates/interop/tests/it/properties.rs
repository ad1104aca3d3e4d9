//! Invariants over arbitrary input.

use memdir_interop::{Format, MAX_NAME_CHARS, Memory, MemoryType, export, import, sanitize_name};
use proptest::prelude::*;

fn memory_type() -> impl Strategy<Value = MemoryType> {
    prop::sample::select(MemoryType::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn sanitised_names_are_safe_and_fixed(raw in any::<String>()) {
        if let Some(name) = sanitize_name(&raw) {
            prop_assert!(!name.is_empty() && name.chars().count() <= MAX_NAME_CHARS);
            prop_assert!(!name.contains(['/', '\\', '.', ' ']));
            prop_assert!(!name.starts_with('-') && !name.ends_with('-'));
            prop_assert_eq!(sanitize_name(&name), Some(name));
        }
    }

    #[test]
    fn mcp_memory_round_trips(
        raw_names in prop::collection::vec(any::<String>(), 1..5),
        descriptions in prop::collection::vec("[^\\s]{1,12}( [^\\s]{1,12}){0,4}", 5),
        bodies in prop::collection::vec(any::<String>(), 5),
        types in prop::collection::vec(memory_type(), 5),
    ) {
        let mut memories: Vec<Memory> = Vec::new();
        for (i, raw) in raw_names.iter().enumerate() {
            let Some(name) = sanitize_name(raw) else { continue };
            if memories.iter().any(|m| m.name == name) {
                continue;
            }
            memories.push(Memory {
                name,
                memory_type: types[i],
                description: descriptions[i].clone(),
                body: bodies[i].clone(),
            });
        }
        let files = export(Format::McpMemoryJsonl, &memories, None).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("memory.jsonl");
        std::fs::write(&path, &files[0].contents).unwrap();
        let imported = import(Format::McpMemoryJsonl, &path).unwrap();
        prop_assert_eq!(imported.skipped, vec![]);
        prop_assert_eq!(imported.memories, memories);
    }
}

/// Writes `format`'s export of one memory and imports it back.
fn one_file_round_trip(format: Format, memory: &Memory) -> Memory {
    let files = export(format, std::slice::from_ref(memory), None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(&files[0].rel_path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, &files[0].contents).unwrap();
    let mut imported = import(format, dir.path()).unwrap();
    assert_eq!(imported.skipped, vec![]);
    assert_eq!(imported.memories.len(), 1);
    imported.memories.remove(0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn cline_and_cursor_keep_everything(
        name in "[a-z0-9]{1,10}(-[a-z0-9]{1,10}){0,3}",
        description in "[^\\s]{1,12}( [^\\s]{1,12}){0,4}",
        body in any::<String>(),
        memory_type in memory_type(),
    ) {
        let memory = Memory { name, memory_type, description, body };
        for format in [Format::ClineMemoryBank, Format::CursorRules] {
            let back = one_file_round_trip(format, &memory);
            prop_assert_eq!(&back, &memory);
        }
    }
}
