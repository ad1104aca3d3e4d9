//! Integration tests of `memdir-relevance` through its public API.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod eval;
mod index;
mod model;
mod recall;

use std::fs;
use std::path::Path;

/// Writes a memory file with the given frontmatter fields and body.
fn memory(dir: &Path, file: &str, kind: &str, description: &str, body: &str) {
    let name = file.trim_end_matches(".md");
    let text =
        format!("---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\n{body}\n");
    fs::write(dir.join(file), text).unwrap();
}
