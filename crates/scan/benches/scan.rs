//! Benchmark of scanning a folder of 200 memories against the floor of
//! the same work done with nothing but the file system: open, read 4 KiB,
//! close each file.

use std::hint::black_box;
use std::io::Read;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use memdir_scan::{CancelToken, ScanOptions, scan_memory_dir};

/// 200 memories at the depth a real memory folder has
/// (`~/.claude/projects/<project>/memory/`).
fn folder() -> (tempfile::TempDir, PathBuf, Vec<PathBuf>) {
    let tmp = tempfile::tempdir().expect("temp folder");
    let dir = tmp
        .path()
        .join("home/user/.claude/projects/-home-user-src-app/memory");
    std::fs::create_dir_all(&dir).expect("memory folder");
    let mut paths = Vec::new();
    for i in 0..200 {
        let path = dir.join(format!("memory-{i:03}.md"));
        let body = "Integration tests must use a real database, not mocks.\n\n**Why:** a mocked test hid a broken migration.\n\n**How to apply:** connect to the test database.\n".repeat(3);
        let text = format!(
            "---\nname: memory-{i}\ndescription: Memory number {i} about the build and its tests\ntype: feedback\n---\n{body}"
        );
        std::fs::write(&path, text).expect("write memory");
        paths.push(path);
    }
    (tmp, dir, paths)
}

fn benches(c: &mut Criterion) {
    let (_tmp, dir, paths) = folder();
    let mut group = c.benchmark_group("scan 200 files");
    group.bench_function("floor: open, read 4 KiB, close", |b| {
        b.iter(|| {
            let mut buf = [0u8; 4096];
            let mut total = 0;
            for path in &paths {
                let mut file = std::fs::File::open(path).expect("open");
                total += file.read(&mut buf).expect("read");
            }
            black_box(total)
        });
    });
    // The same, plus the fstat the scan must make for each file's mtime.
    group.bench_function("floor + fstat", |b| {
        b.iter(|| {
            let mut buf = [0u8; 4096];
            let mut total = 0;
            for path in &paths {
                let mut file = std::fs::File::open(path).expect("open");
                let modified = file.metadata().and_then(|m| m.modified()).expect("mtime");
                total += file.read(&mut buf).expect("read");
                black_box(modified);
            }
            black_box(total)
        });
    });
    group.bench_function("scan_memory_dir", |b| {
        b.iter(|| {
            let scan = scan_memory_dir(
                black_box(dir.as_path()),
                &ScanOptions::default(),
                &CancelToken::new(),
            );
            black_box(scan.expect("scan").memories.len())
        });
    });
    group.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
