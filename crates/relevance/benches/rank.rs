//! Benchmarks of the local ranker: one query over 200 and 10,000 memories
//! (index built once), building the full index for 200 memories, and
//! building the index for one query's terms, which `find_relevant_memories`
//! does per request. `bench/recall_vs_list.py` measures the same as whole
//! processes against `memdir list`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use memdir_relevance::{LocalRanker, Thresholds};
use memdir_scan::MemoryHeader;

const WORDS: &[&str] = &[
    "deploy",
    "staging",
    "database",
    "migration",
    "review",
    "release",
    "freeze",
    "oncall",
    "dashboard",
    "latency",
    "logging",
    "retention",
    "docker",
    "image",
    "kubernetes",
    "terraform",
    "state",
    "feature",
    "flag",
    "cache",
    "redis",
    "token",
    "rotation",
    "budget",
    "bundle",
    "accessibility",
    "contrast",
    "translation",
    "string",
    "backup",
    "restore",
    "alert",
    "incident",
    "postmortem",
    "lint",
    "format",
    "coverage",
    "benchmark",
    "api",
    "schema",
    "queue",
    "worker",
    "retry",
    "timeout",
    "quota",
    "billing",
    "search",
    "index",
    "upload",
    "export",
];
const CJK: &[&str] = &[
    "部署流程",
    "数据库迁移",
    "本番デプロイ",
    "レビュー",
    "배포 일정",
    "캐시 정책",
    "日志保留",
    "告警规则",
];

/// `n` memories with two- to four-topic descriptions, a fifth of them CJK.
fn memories(n: usize) -> Vec<MemoryHeader> {
    (0..n)
        .map(|i| {
            let pick = |k: usize| WORDS[(i * 7 + k * 13) % WORDS.len()];
            let mut description = format!(
                "{} {} for the {} {} service",
                pick(0),
                pick(1),
                pick(2),
                pick(3)
            );
            if i % 5 == 0 {
                description.push(' ');
                description.push_str(CJK[i % CJK.len()]);
            }
            MemoryHeader {
                filename: format!("{}-{}-{i}.md", pick(0), pick(1)),
                file_path: format!("/m/{i}.md").into(),
                mtime_ms: 0,
                name: Some(format!("{}-{}-{i}", pick(0), pick(1))),
                description: Some(description),
                memory_type: None,
                body_head: format!(
                    "When working on {} remember the {} and {} rules.\n",
                    pick(4),
                    pick(5),
                    pick(6)
                ),
                supersedes: Vec::new(),
                superseded_by: None,
            }
        })
        .collect()
}

const QUERIES: &[&str] = &[
    "how do we deploy the staging service",
    "database migration review",
    "本番デプロイの手順",
    "redis cache timeout retry",
    "recipe for banana bread",
];

fn benches(c: &mut Criterion) {
    for n in [200, 10_000] {
        let ranker = LocalRanker::new(&memories(n));
        let mut i = 0;
        c.bench_function(&format!("rank one query over {n} memories"), |b| {
            b.iter(|| {
                i = (i + 1) % QUERIES.len();
                black_box(ranker.rank(black_box(QUERIES[i]), 5).len())
            });
        });
    }
    let two_hundred = memories(200);
    c.bench_function("build the index for 200 memories", |b| {
        b.iter(|| black_box(LocalRanker::new(black_box(&two_hundred))));
    });
    let mut i = 0;
    c.bench_function("index and rank one query over 200 memories", |b| {
        b.iter(|| {
            i = (i + 1) % QUERIES.len();
            let query = black_box(QUERIES[i]);
            let ranker =
                LocalRanker::for_query(black_box(&two_hundred), query, Thresholds::default());
            black_box(ranker.rank(query, 5).len())
        });
    });
}

criterion_group!(group, benches);
criterion_main!(group);
