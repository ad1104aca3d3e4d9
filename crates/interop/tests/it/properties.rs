//! Invariants over arbitrary input.

use memdir_interop::{Format, Memory, MemoryType, export, import, sanitize_name};
use proptest::prelude::*;

fn memory_type() -> impl Strategy<Value = MemoryType> {
    prop::sample::select(MemoryType::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn sanitised_names_are_safe_and_fixed(raw in any::<String>()) {
        if let Some(name) = sanitize_name(&raw) {
            prop_assert!(!name.is_empty() && name.chars().count() <= 84);
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
