//! Hostile inputs: broken lines, huge files, unsafe names, FIFOs.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::Command;

use memdir_interop::{
    Format, InteropError, MAX_FILE_BYTES, MAX_MEMORIES, Memory, MemoryType, export, import,
    sanitize_name,
};

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path
}

#[test]
fn broken_jsonl_lines_are_skipped_with_their_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let text = "{\"type\":\"entity\",\"name\":\"a\",\"entityType\":\"user\",\"observations\":[\"x\"]}\n\
                {not json\n\
                \n\
                [1,2]\n\
                {\"type\":\"entity\",\"name\":7,\"entityType\":\"user\"}\n\
                \u{0}\u{ff}garbage\n";
    let path = write(dir.path(), "memory.jsonl", text);
    let imported = import(Format::McpMemoryJsonl, &path).unwrap();
    assert_eq!(imported.memories.len(), 1);
    let lines: Vec<_> = imported
        .skipped
        .iter()
        .map(|s| s.at.rsplit(':').next().unwrap().to_owned())
        .collect();
    assert_eq!(lines, ["2", "4", "5", "6"]);
    assert!(imported.skipped[0].reason.starts_with("not a JSON object"));
    assert!(imported.skipped[2].reason.contains("\"name\""));
}

#[test]
fn a_file_over_the_limit_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let size = usize::try_from(MAX_FILE_BYTES).unwrap() + 1024 * 1024;
    let line = "- a fact\n";
    let text = format!(
        "## Gemini Added Memories\n{}",
        line.repeat(size / line.len())
    );
    let path = write(dir.path(), "GEMINI.md", &text);
    let err = import(Format::GeminiMd, &path).unwrap_err();
    assert!(matches!(err, InteropError::Read(_)), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains("GEMINI.md") && message.contains("limit"),
        "{message}"
    );
}

#[test]
fn a_fifo_is_refused_without_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("memory.jsonl");
    let status = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    for format in [Format::McpMemoryJsonl, Format::GeminiMd, Format::AgentsMd] {
        let err = import(format, &fifo).unwrap_err();
        assert!(err.to_string().contains("FIFO"), "{format}: {err}");
    }
    let err = import(Format::ClineMemoryBank, &fifo).unwrap_err();
    assert!(matches!(err, InteropError::NotAFolder { .. }), "{err:?}");
}

#[test]
fn a_fifo_inside_a_memory_bank_is_skipped_without_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("memory-bank");
    fs::create_dir(&bank).unwrap();
    write(&bank, "progress.md", "# Progress\n\nScanning works.\n");
    let status = Command::new("mkfifo")
        .arg(bank.join("activeContext.md"))
        .status()
        .unwrap();
    assert!(status.success());
    let imported = import(Format::ClineMemoryBank, dir.path()).unwrap();
    assert_eq!(imported.memories.len(), 1);
    assert_eq!(imported.memories[0].name, "progress");
    assert_eq!(imported.skipped.len(), 1);
    assert_eq!(imported.skipped[0].at, "activeContext.md");
    assert!(imported.skipped[0].reason.contains("FIFO"));
}

#[test]
fn a_folder_where_a_file_belongs_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = import(Format::GeminiMd, dir.path()).unwrap_err();
    assert!(
        err.to_string().contains("folder without GEMINI.md"),
        "{err}"
    );
    // A folder holding the format's file (as an export writes it) is read.
    std::fs::write(
        dir.path().join("GEMINI.md"),
        "## Gemini Added Memories\n- The API runs on port 8080\n",
    )
    .unwrap();
    let imported = import(Format::GeminiMd, dir.path()).unwrap();
    assert_eq!(imported.memories.len(), 1);
}

#[test]
fn hostile_names_never_become_paths() {
    let cases = [
        ("../../etc/passwd", Some("etc-passwd")),
        ("/abs", Some("abs")),
        ("con", Some("con-memory")),
        ("COM1", Some("com1-memory")),
        ("", None),
        ("-rf", Some("rf")),
        ("..", None),
        ("a\u{202e}b", Some("a-b")),
        ("C:\\Windows\\system32", Some("c-windows-system32")),
    ];
    for (raw, want) in cases {
        assert_eq!(sanitize_name(raw).as_deref(), want, "{raw:?}");
    }
    let long = "x".repeat(500);
    assert_eq!(sanitize_name(&long).unwrap().chars().count(), 80);
}

#[test]
fn hostile_entity_names_are_sanitised_or_skipped_on_import() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for name in ["../../etc/passwd", "/abs", "con", "", "-rf", "///"] {
        writeln!(
            text,
            "{{\"type\":\"entity\",\"name\":{name:?},\"entityType\":\"person\",\"observations\":[]}}"
        )
        .unwrap();
    }
    let path = write(dir.path(), "memory.jsonl", &text);
    let imported = import(Format::McpMemoryJsonl, &path).unwrap();
    let names: Vec<_> = imported.memories.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["etc-passwd", "abs", "con-memory", "rf"]);
    assert_eq!(imported.skipped.len(), 2);
    assert!(imported.memories.iter().all(|m| !m.description.is_empty()));
}

#[test]
fn export_refuses_a_name_that_cannot_be_made_safe() {
    let memory = Memory {
        name: "../..".into(),
        memory_type: MemoryType::User,
        description: "d".into(),
        body: String::new(),
    };
    let err = export(Format::ClineMemoryBank, std::slice::from_ref(&memory), None).unwrap_err();
    assert!(matches!(err, InteropError::InvalidName { .. }), "{err:?}");
    let twins = [
        Memory {
            name: "A b".into(),
            ..memory.clone()
        },
        Memory {
            name: "a/b".into(),
            ..memory
        },
    ];
    let err = export(Format::CursorRules, &twins, None).unwrap_err();
    assert!(matches!(err, InteropError::DuplicateName { .. }), "{err:?}");
}

#[test]
fn export_paths_stay_inside_their_folder() {
    let memory = Memory {
        name: "../../.ssh/authorized_keys".into(),
        memory_type: MemoryType::Reference,
        description: String::new(),
        body: "ssh-ed25519 AAAA\n".into(),
    };
    let files = export(Format::ClineMemoryBank, &[memory], None).unwrap();
    assert_eq!(files[0].rel_path, "memory-bank/ssh-authorized-keys.md");
    assert_eq!(
        files[0].contents,
        "# ssh-ed25519 AAAA\n\n<!-- memdir-type: reference -->\nssh-ed25519 AAAA\n"
    );
}

#[test]
fn imports_stop_at_the_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("## Gemini Added Memories\n");
    for i in 0..MAX_MEMORIES + 5 {
        writeln!(text, "- fact number {i}").unwrap();
    }
    let path = write(dir.path(), "GEMINI.md", &text);
    let imported = import(Format::GeminiMd, &path).unwrap();
    assert_eq!(imported.memories.len(), MAX_MEMORIES);
    assert_eq!(imported.skipped.len(), 5);
    assert!(imported.skipped[0].reason.contains("limit"));
}

#[cfg(unix)]
#[test]
fn links_in_a_rules_folder_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let outside = write(
        dir.path(),
        "secret.txt",
        "---\ndescription: s\n---\nsecret\n",
    );
    let rules = dir.path().join(".cursor/rules");
    fs::create_dir_all(&rules).unwrap();
    std::os::unix::fs::symlink(&outside, rules.join("leak.mdc")).unwrap();
    let imported = import(Format::CursorRules, dir.path()).unwrap();
    assert!(imported.memories.is_empty());
    assert_eq!(imported.skipped[0].at, "leak.mdc");
}

#[test]
fn an_oversized_rule_fails_the_import_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join(".cursor/rules");
    fs::create_dir_all(&rules).unwrap();
    let size = usize::try_from(MAX_FILE_BYTES).unwrap() + 1;
    write(&rules, "huge.mdc", &"x".repeat(size));
    let err = import(Format::CursorRules, dir.path()).unwrap_err();
    assert!(err.to_string().contains("huge.mdc"), "{err}");
}
