//! A generated project for the citation benches: source files of a few
//! hundred bytes, twenty to a folder, and five memory bodies that cite it
//! (one path and one identifier broken in all).

use std::fmt::Write as _;
use std::path::Path;

/// Writes `files` source files under `root/src/…` and a `.gitignore`.
/// File `i` defines `Widget{i}` and `build_widget_{i}`; the middle one
/// also mentions `--legacy-auth`.
pub fn widget_project(root: &Path, files: usize) {
    for i in 0..files {
        let dir = root.join(format!("src/m{}/s{}", i / 400, (i / 20) % 20));
        std::fs::create_dir_all(&dir).unwrap();
        let mut text = String::new();
        let _ = writeln!(text, "//! Module {i}.");
        let _ = writeln!(text, "pub struct Widget{i} {{ pub size: usize }}");
        let _ = writeln!(text, "pub fn build_widget_{i}(size: usize) -> Widget{i} {{");
        let _ = writeln!(text, "    Widget{i} {{ size }}");
        let _ = writeln!(text, "}}");
        for _ in 0..4 {
            text.push_str("// Some prose that fills the file to a few hundred bytes.\n");
        }
        if i == files / 2 {
            text.push_str("// accepts --legacy-auth\n");
        }
        std::fs::write(dir.join(format!("w{i}.rs")), text).unwrap();
    }
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
}

/// The path of file `i` of [`widget_project`], relative to its root.
#[must_use]
pub fn widget_path(i: usize) -> String {
    format!("src/m{}/s{}/w{i}.rs", i / 400, (i / 20) % 20)
}

/// Five memory bodies citing a [`widget_project`] of `files` files: 23
/// citations, of which `src/legacy/auth.rs` and `LegacyAuthorizer` do
/// not hold.
#[must_use]
pub fn widget_memory_bodies(files: usize) -> [String; 5] {
    let path = widget_path;
    let last = files - 1;
    [
        format!(
            "`{}` defines `Widget3` and `build_widget_3`; pass `--legacy-auth`.",
            path(3)
        ),
        format!(
            "`{}` has `build_widget_{last}`; `Widget{last}` is big.",
            path(last)
        ),
        format!(
            "See `{}` and `Widget7`, `build_widget_8`, `{}`.",
            path(7),
            path(8)
        ),
        "The old `src/legacy/auth.rs` had `LegacyAuthorizer`.".to_owned(),
        format!(
            "`Widget{}` in `{}`; `build_widget_{}`.",
            files / 2,
            path(files / 2),
            files / 3
        ),
    ]
}
