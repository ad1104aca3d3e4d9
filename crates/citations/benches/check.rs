//! The cost of checking a recall's citations: five memories of about five
//! citations each (one identifier and one path broken, the rest holding)
//! against generated projects of 1,000 and 10,000 files of a few hundred
//! bytes in nested folders. A broken identifier makes the walk visit every
//! file, so this is the worst case of a walk that finishes; the budget is
//! set long so the whole walk is measured.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use memdir_citations::{Checker, Citation, extract_citations};

/// Writes `files` source files under `root`, 20 per folder, two levels deep.
fn generate(root: &Path, files: usize) {
    for i in 0..files {
        let dir = root.join(format!("src/m{}/s{}", i / 400, (i / 20) % 20));
        std::fs::create_dir_all(&dir).expect("mkdir");
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
        std::fs::write(dir.join(format!("w{i}.rs")), text).expect("write");
    }
    std::fs::write(root.join(".gitignore"), "target/\n").expect("write");
}

/// Five memory bodies citing the generated project.
fn memories(files: usize) -> Vec<Citation> {
    let path = |i: usize| format!("src/m{}/s{}/w{i}.rs", i / 400, (i / 20) % 20);
    let last = files - 1;
    let bodies = [
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
    ];
    bodies.iter().flat_map(|b| extract_citations(b)).collect()
}

fn bench_size(c: &mut Criterion, files: usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    generate(dir.path(), files);
    let citations = memories(files);
    let checker = Checker::new(dir.path()).expect("checker");
    c.bench_function(&format!("check/{files}-files/full-walk"), |b| {
        b.iter(|| checker.check(&citations, Duration::from_secs(60)));
    });
    let holding: Vec<Citation> = citations
        .iter()
        .filter(|c| c.text != "LegacyAuthorizer")
        .cloned()
        .collect();
    c.bench_function(&format!("check/{files}-files/all-found"), |b| {
        b.iter(|| checker.check(&holding, Duration::from_secs(60)));
    });
}

fn check(c: &mut Criterion) {
    bench_size(c, 1_000);
    bench_size(c, 10_000);
}

criterion_group!(benches, check);
criterion_main!(benches);
