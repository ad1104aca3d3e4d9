//! Benchmark of reading the frontmatter of 200 memory files held in memory
//! (the scan's cap): a mix of clean, CRLF, malformed and untyped files, and
//! a folder as today's reference agent writes it (the nested `metadata:`
//! shape, SPEC R2.5).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use memdir_memtypes::parse_memory;

fn files() -> Vec<Vec<u8>> {
    (0..200)
        .map(|i| {
            let body = "Integration tests must use a real database, not mocks.\n\n**Why:** a mocked test hid a broken migration.\n\n**How to apply:** connect to the test database.\n";
            let text = match i % 4 {
                0 => format!("---\nname: memory-{i}\ndescription: Memory number {i} about the build\ntype: feedback\n---\n{body}"),
                1 => format!("---\r\nname: memory-{i}\r\ndescription: CRLF memory {i}\r\ntype: project\r\n---\r\n{body}"),
                2 => format!("---\nname: memory-{i}\ndescription: Note: use pnpm for memory {i}\ntype: reference\n---\n{body}"),
                _ => format!("# Untyped memory {i}\n\n{body}"),
            };
            text.into_bytes()
        })
        .collect()
}

/// 200 files in the reference agent's shape, a quarter of them with a
/// model-written description that is not valid YAML.
fn nested_files() -> Vec<Vec<u8>> {
    (0..200)
        .map(|i| {
            let description = if i % 4 == 3 {
                format!("Note: use pnpm for memory {i}")
            } else {
                format!("\"Memory number {i}: about the build\"")
            };
            format!(
                "---\nname: memory-{i}\ndescription: {description}\nmetadata:\n  node_type: memory\n  type: feedback\n  originSessionId: 4b1e6a0c-93d2-4c0e-a7f1-2f5d0c9e8b{i:02}\n  modified: 2026-03-05T09:30:{:02}.000Z\n---\nUse a real database.\n",
                i % 60
            )
            .into_bytes()
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let nested = nested_files();
    c.bench_function("parse nested frontmatter of 200 files", |b| {
        b.iter(|| {
            nested
                .iter()
                .map(|f| parse_memory(black_box(f)).diagnostics.len())
                .sum::<usize>()
        });
    });
    let files = files();
    c.bench_function("parse frontmatter of 200 files", |b| {
        b.iter(|| {
            files
                .iter()
                .map(|f| parse_memory(black_box(f)).diagnostics.len())
                .sum::<usize>()
        });
    });
}

criterion_group!(group, benches);
criterion_main!(group);
