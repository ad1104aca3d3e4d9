//! Golden snapshot of `fixtures/frontmatter-shapes/`: the header read from
//! each file of a folder that mixes both frontmatter shapes (SPEC R2.5),
//! and the text an update of it writes.

use std::fmt::Write;

use memdir_memtypes::{Header, MemoryType, parse_memory, parse_memory_str, update_memory};

fn fixture_files() -> Vec<(String, Vec<u8>)> {
    let dir = memdir_testkit::fixture("frontmatter-shapes/memory");
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().is_some_and(|n| n != "MEMORY.md"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    assert!(files.len() >= 10, "fixture folder incomplete: {files:?}");
    files
}

#[test]
fn parsed_headers() {
    let mut out = String::new();
    for (name, bytes) in fixture_files() {
        let m = parse_memory(&bytes);
        let _ = writeln!(out, "## {name}");
        let _ = writeln!(out, "shape: {}", m.shape);
        let _ = writeln!(out, "name: {:?}", m.header.name);
        let _ = writeln!(out, "description: {:?}", m.header.description);
        let _ = writeln!(
            out,
            "type: {:?}",
            m.header.memory_type.map(MemoryType::as_str)
        );
        let _ = writeln!(out, "modified: {:?}", m.modified.map(|t| t.to_string()));
        let _ = writeln!(out, "unknown keys: {:?}", m.unknown_keys);
        for d in &m.diagnostics {
            let _ = writeln!(out, "diagnostic: {d}");
        }
        out.push('\n');
    }
    insta::assert_snapshot!("parsed_headers", out);
}

/// Each file updated with a new description and type and a recorded write
/// time: the text keeps its shape and unknown keys, and reads back as what
/// was written.
#[test]
fn updates_keep_the_shape() {
    let written: jiff::Timestamp = "2026-12-15T09:00:00Z".parse().unwrap();
    let mut out = String::new();
    for (name, bytes) in fixture_files() {
        let text = String::from_utf8(bytes).unwrap();
        let before = parse_memory_str(&text);
        let header = Header {
            description: Some(format!(
                "Updated: {}",
                before.header.description.as_deref().unwrap_or("none")
            )),
            memory_type: Some(MemoryType::Reference),
            ..before.header.clone()
        };
        let updated = update_memory(&text, &header, Some(written), "Updated body.\n");
        let after = parse_memory_str(&updated);
        assert_eq!(after.header, header, "{name}: {updated}");
        assert_eq!(after.modified, Some(written), "{name}");
        assert_eq!(after.shape, before.shape, "{name}");
        assert_eq!(after.body, "Updated body.\n", "{name}");
        let _ = writeln!(out, "## {name}\n{updated}");
    }
    insta::assert_snapshot!("updates", out);
}
