//! Integration tests of `memdir-interop` through its public API: golden
//! imports of the fixtures under `fixtures/interop/`, round trips, section
//! rewrites that leave the user's text alone, and hostile inputs.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod golden;
mod hostile;
mod properties;
mod rewrite;
mod roundtrip;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use memdir_interop::{Format, Imported, Memory, MemoryType};

/// The fixtures of one format.
pub(crate) fn fixture(format: Format) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/interop")
        .join(format.cli_name())
}

/// An import as a readable list, with `root` cut from the places.
pub(crate) fn render(imported: &Imported, root: &Path) -> String {
    let root = format!("{}/", root.display());
    let mut out = String::new();
    for m in &imported.memories {
        writeln!(out, "## {} ({})", m.name, m.memory_type).unwrap();
        writeln!(out, "description: {}", m.description).unwrap();
        writeln!(out, "body:").unwrap();
        for line in m.body.split_inclusive('\n') {
            write!(out, "  | {line}").unwrap();
        }
        if !m.body.is_empty() && !m.body.ends_with('\n') {
            writeln!(out, "\n  (no final line end)").unwrap();
        }
    }
    for s in &imported.skipped {
        writeln!(out, "skipped {}: {}", s.at.replace(&root, ""), s.reason).unwrap();
    }
    out
}

/// The fixed set exported in the round trips: all four types, CJK in one
/// body, `<script>` in another.
pub(crate) fn five_memories() -> Vec<Memory> {
    let memory = |name: &str, memory_type, description: &str, body: &str| Memory {
        name: name.to_owned(),
        memory_type,
        description: description.to_owned(),
        body: body.to_owned(),
    };
    vec![
        memory(
            "user-role",
            MemoryType::User,
            "The user is a data scientist new to Rust",
            "Explain ownership with Python comparisons.\n",
        ),
        memory(
            "no-db-mocks",
            MemoryType::Feedback,
            "Integration tests hit a real database, never mocks",
            "Why: a mocked migration passed while production broke.\n\nHow to apply: start the test Postgres.\n",
        ),
        memory(
            "release-freeze",
            MemoryType::Project,
            "Merge freeze from 2026-03-05 for the mobile release",
            "只合并发布修复。\n用户界面文本全部放在 locales/ 下。\n",
        ),
        memory(
            "ci-dashboard",
            MemoryType::Reference,
            "CI results live at ci.example.com/builds",
            "See <script>alert(1)</script> in the old dashboard's page source.\n",
        ),
        memory(
            "pager-rota",
            MemoryType::Reference,
            "The on-call rota is in PagerDuty, team \"payments\"",
            "",
        ),
    ]
}
