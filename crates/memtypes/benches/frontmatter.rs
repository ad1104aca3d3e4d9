//! Benchmark of reading the frontmatter of 200 memory files held in memory
//! (the scan's cap), a mix of clean, CRLF, malformed and untyped files.

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

fn benches(c: &mut Criterion) {
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
