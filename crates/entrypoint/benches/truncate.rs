//! Benchmarks of MEMORY.md truncation and lint on a 1 MB index (far past
//! the limits, as a neglected index grows).

use std::fmt::Write;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use memdir_entrypoint::{FolderListing, lint_index, truncate_entrypoint_content};

/// About 1 MB of index lines, a mix of ASCII and CJK text.
fn big_index() -> String {
    let mut index = String::from("# Memory index\n\n");
    let mut i = 0;
    while index.len() < 1_000_000 {
        if i % 5 == 0 {
            let _ = writeln!(
                index,
                "- [部署说明 {i}](deploy-{i}.md) — 预发环境部署需要在发布频道申请审批"
            );
        } else {
            let _ = writeln!(
                index,
                "- [Topic {i}](topic-{i}.md) — a one-line hook saying when memory {i} matters"
            );
        }
        i += 1;
    }
    index
}

fn benches(c: &mut Criterion) {
    let index = big_index();
    c.bench_function("truncate 1 MB index", |b| {
        b.iter(|| truncate_entrypoint_content(black_box(&index)));
    });
    let folder = FolderListing::from_paths((0..5_000).map(|i| format!("topic-{i}.md")));
    c.bench_function("lint 1 MB index", |b| {
        b.iter(|| lint_index(black_box(&index), Some(&folder)));
    });
}

criterion_group!(group, benches);
criterion_main!(group);
