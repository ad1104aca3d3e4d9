//! The cost of checking a recall's citations: five memories of about five
//! citations each (one identifier and one path broken, the rest holding)
//! against generated projects of 1,000 and 10,000 files of a few hundred
//! bytes in nested folders. A broken identifier makes the walk visit every
//! file, so this is the worst case of a walk that finishes; the budget is
//! set long so the whole walk is measured.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use memdir_citations::{Checker, Citation, extract_citations};
use memdir_testkit::corpus::{widget_memory_bodies, widget_project};

/// Five memory bodies citing the generated project.
fn memories(files: usize) -> Vec<Citation> {
    widget_memory_bodies(files)
        .iter()
        .flat_map(|b| extract_citations(b))
        .collect()
}

fn bench_size(c: &mut Criterion, files: usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    widget_project(dir.path(), files);
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
