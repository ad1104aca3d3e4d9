//! Export the five memories, import what was written, compare what each
//! format carries.

use std::fs;
use std::path::{Path, PathBuf};

use memdir_interop::{ExportFile, Format, Imported, Memory, MemoryType, export, import};

use crate::five_memories;

/// Writes the files under `root` and returns the path import reads.
fn write(root: &Path, files: &[ExportFile], format: Format) -> PathBuf {
    for file in files {
        assert!(!file.rel_path.starts_with('/') && !file.rel_path.contains(".."));
        let path = root.join(&file.rel_path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, &file.contents).unwrap();
    }
    match format {
        Format::ClineMemoryBank | Format::CursorRules => root.to_path_buf(),
        _ => root.join(&files[0].rel_path),
    }
}

fn round_trip(format: Format) -> Imported {
    let dir = tempfile::tempdir().unwrap();
    let files = export(format, &five_memories(), None).unwrap();
    let path = write(dir.path(), &files, format);
    let imported = import(format, &path).unwrap();
    assert_eq!(imported.skipped, [], "{format}");
    imported
}

fn sorted(mut memories: Vec<Memory>) -> Vec<Memory> {
    memories.sort_by(|a, b| a.name.cmp(&b.name));
    memories
}

#[test]
fn mcp_memory_keeps_everything() {
    assert_eq!(round_trip(Format::McpMemoryJsonl).memories, five_memories());
}

/// The one-file-a-memory formats keep name, type (in a comment line),
/// description and body.
fn files_keep_everything(format: Format) {
    assert_eq!(
        sorted(round_trip(format).memories),
        sorted(five_memories()),
        "{format}"
    );
}

#[test]
fn cline_keeps_everything() {
    files_keep_everything(Format::ClineMemoryBank);
}

#[test]
fn cursor_keeps_everything() {
    files_keep_everything(Format::CursorRules);
}

fn bullets_keep_descriptions(format: Format) {
    let imported = round_trip(format).memories;
    let descriptions: Vec<_> = imported.iter().map(|m| m.description.clone()).collect();
    let expected: Vec<_> = five_memories().into_iter().map(|m| m.description).collect();
    assert_eq!(descriptions, expected, "{format}");
    for m in &imported {
        assert_eq!(m.memory_type, MemoryType::User);
        assert_eq!(m.body, format!("{}\n", m.description));
    }
}

#[test]
fn gemini_keeps_descriptions() {
    bullets_keep_descriptions(Format::GeminiMd);
}

#[test]
fn qwen_keeps_descriptions() {
    bullets_keep_descriptions(Format::QwenMemory);
}

fn pointers_keep_names_and_descriptions(format: Format) {
    let imported = round_trip(format).memories;
    let got: Vec<_> = imported
        .iter()
        .map(|m| (m.name.clone(), m.description.clone()))
        .collect();
    let expected: Vec<_> = five_memories()
        .into_iter()
        .map(|m| (m.name, m.description))
        .collect();
    assert_eq!(got, expected, "{format}");
    assert!(
        imported
            .iter()
            .all(|m| m.memory_type == MemoryType::Project)
    );
}

#[test]
fn agents_md_keeps_names_and_descriptions() {
    pointers_keep_names_and_descriptions(Format::AgentsMd);
}

#[test]
fn claude_md_keeps_names_and_descriptions() {
    pointers_keep_names_and_descriptions(Format::ClaudeMd);
}
