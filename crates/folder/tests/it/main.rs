//! Integration tests of memdir-folder through its public API.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod batch;
mod concurrency;
mod containment;
mod recovery;
mod supersession;

use std::path::Path;

use memdir_entrypoint::IndexEntry;

/// A memory file and its index entry, as `memdir add` writes them.
pub(crate) fn memory(name: &str, description: &str) -> (String, Vec<u8>, IndexEntry) {
    let file = format!("{name}.md");
    let text = format!(
        "---\nname: {name}\ndescription: {description}\ntype: project\n---\nBody of {name}.\n"
    );
    let entry = IndexEntry {
        title: name.to_owned(),
        file: file.clone(),
        hook: description.to_owned(),
    };
    (file, text.into_bytes(), entry)
}

/// Every file name under `dir`, relative, sorted (hidden ones included).
pub(crate) fn all_files(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
            if entry.file_type().unwrap().is_dir() {
                walk(&entry.path(), &format!("{name}/"), out);
            } else {
                out.push(name);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, "", &mut out);
    out.sort();
    out
}
