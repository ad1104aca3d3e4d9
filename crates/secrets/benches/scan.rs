//! Benchmarks of the secret scanner: a typical 2 KB memory file (clean and
//! with one secret); the cost of one text of mixed content at 1, 4 and
//! 16 MB, so that growth faster than the input shows as falling MiB/s; and
//! 20 MB scanned as one text against the same bytes as 200 texts of
//! 100 KB. Rules are compiled before measuring, once.
//!
//! The mixed content is filler (code, notes, logs, config) with words that
//! hold rule keywords (`hf_hub_download`, `sk_test`, `AKIA` in prose…), a
//! near miss or tricky negative of the project's own vectors every 2 KB or
//! so, and one of its positive vectors every 100 KB, round-robin over the
//! rules: most rules run on every text, and each finds a few secrets.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
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

/// The texts of the project's own vectors: (positives, decoys).
fn vectors() -> (Vec<String>, Vec<String>) {
    let mut positives = Vec::new();
    let mut decoys = Vec::new();
    for line in include_str!("../tests/vectors/own.jsonl").lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let text = v["text"].as_str().unwrap_or_default().to_owned();
        if v["kind"] == "positive" {
            positives.push(text);
        } else if !text.contains("-----BEGIN") {
            // A lone PEM header pairs with the next `KEY-----` anywhere
            // later, in gitleaks too: leave such decoys out.
            decoys.push(text);
        }
    }
    (positives, decoys)
}

/// About `bytes` of mixed text (see the header).
fn corpus(bytes: usize) -> String {
    const FILLER: &[&str] = &[
        "fn main() { let config = load_config(\"app.toml\"); run(config); }",
        "- [Use pnpm](use-pnpm.md) — the repo's package manager is pnpm",
        "timestamp=2026-11-29T10:00:00Z level=info msg=\"request served\" status=200",
        "database:\n  host: db.internal\n  port: 5432",
        "The quick review found two issues in the migration and one in the token handling.",
        "model = hf_hub_download(repo_id=\"org/model\", filename=\"weights.bin\")",
        "Stripe keys start with sk_test or sk_live; never paste one here.",
        "AWS access keys look like AKIA followed by sixteen letters and digits.",
        "GitHub tokens (ghp_, gho_, ghs_) and GitLab ones (glpat-) are rotated weekly.",
        "Slack bots use xoxb tokens; see https://api.slack.com/authentication.",
        "export const taskId = \"task-sk-1\"; // q~ is not a secret",
        "See the dapi docs and the glc_ Grafana prefix in the runbook.",
    ];
    let (positives, decoys) = vectors();
    let mut text = String::with_capacity(bytes + 4096);
    let (mut i, mut next_decoy, mut next_secret) = (0, 2_000, 50_000);
    let (mut d, mut p) = (0, 0);
    while text.len() < bytes {
        text.push_str(FILLER[i % FILLER.len()]);
        text.push('\n');
        i += 1;
        if text.len() >= next_decoy {
            text.push_str(&decoys[d % decoys.len()]);
            text.push('\n');
            d += 1;
            next_decoy += 2_000;
        }
        if text.len() >= next_secret {
            text.push_str(&positives[p % positives.len()]);
            text.push('\n');
            p += 1;
            next_secret += 100_000;
        }
    }
    text
}

/// `text` cut at line ends into `n` texts of about equal size.
fn split(text: &str, n: usize) -> Vec<&str> {
    let mut parts = Vec::with_capacity(n);
    let mut start = 0;
    for k in 1..n {
        let target = (text.len() * k / n).max(start);
        let end = text.as_bytes()[target..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |i| target + i + 1);
        parts.push(&text[start..end]);
        start = end;
    }
    parts.push(&text[start..]);
    parts
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

    let mut group = c.benchmark_group("cost vs size");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for mb in [1, 4, 16] {
        let text = corpus(mb * 1_000_000);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("one text", format!("{mb} MB")),
            &text,
            |b, t| {
                b.iter(|| black_box(scanner.scan(black_box(t))).len());
            },
        );
    }
    group.finish();

    let text = corpus(20_000_000);
    let parts = split(&text, 200);
    let mut group = c.benchmark_group("20 MB");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(15));
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("one text", |b| {
        b.iter(|| black_box(scanner.scan(black_box(&text))).len());
    });
    group.bench_function("200 texts of 100 KB", |b| {
        b.iter(|| {
            parts
                .iter()
                .map(|p| black_box(scanner.scan(black_box(p))).len())
                .sum::<usize>()
        });
    });
    group.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
