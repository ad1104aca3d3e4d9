//! Benchmarks of the secret scanner: a typical 2 KB memory file (clean and
//! with one secret), and throughput over 4 MB of mixed text with a planted
//! secret every 100 KB. Rules are compiled before measuring, once.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use memdir_secrets::Scanner;

fn memory_file(with_secret: bool) -> String {
    let mut text = String::from(
        "---\nname: deploy-tokens\ndescription: How CI gets its deploy credentials\ntype: reference\n---\n",
    );
    while text.len() < 2_000 {
        text.push_str("CI reads the deploy token from the vault at job start; rotate it with the release checklist.\n");
    }
    if with_secret {
        text.push_str("old token: ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS\n");
    }
    text
}

fn corpus(bytes: usize) -> String {
    let lines = [
        "fn main() { let config = load_config(\"app.toml\"); run(config); }",
        "- [Use pnpm](use-pnpm.md) — the repo's package manager is pnpm",
        "timestamp=2026-11-29T10:00:00Z level=info msg=\"request served\" status=200",
        "database:\n  host: db.internal\n  port: 5432",
        "The quick review found two issues in the migration and one in the token handling.",
    ];
    let mut text = String::with_capacity(bytes + 1024);
    let mut i = 0;
    while text.len() < bytes {
        text.push_str(lines[i % lines.len()]);
        text.push('\n');
        if i % 1_500 == 1_499 {
            let _ = writeln!(
                text,
                "export GITLAB_TOKEN=glpat-Xq3Tb7ZkP2vLw9RcY5nH{:04}",
                i % 10_000
            );
        }
        i += 1;
    }
    text
}

fn benches(c: &mut Criterion) {
    let scanner = Scanner::builtin();
    let clean = memory_file(false);
    let dirty = memory_file(true);
    c.bench_function("scan a clean 2 KB memory file", |b| {
        b.iter(|| black_box(scanner.scan(black_box(&clean))).len());
    });
    c.bench_function("scan a 2 KB memory file with a secret", |b| {
        b.iter(|| black_box(scanner.scan(black_box(&dirty))).len());
    });
    let big = corpus(4 * 1024 * 1024);
    let mut group = c.benchmark_group("throughput");
    group.throughput(Throughput::Bytes(big.len() as u64));
    group.sample_size(20);
    group.bench_function("scan 4 MB of mixed text", |b| {
        b.iter(|| black_box(scanner.scan(black_box(&big))).len());
    });
    group.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
