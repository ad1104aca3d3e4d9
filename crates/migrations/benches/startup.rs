//! The start-up check against a full run, on a migrated configuration
//! whose global file holds many projects (as a long-used one does): the
//! check reads memdir's state and `stat`s the inputs, the full run parses
//! every file. Cost should stay flat in the global file's size for the
//! check and grow with it for the full run.

#![allow(
    clippy::unwrap_used,
    reason = "a benchmark that cannot set up should stop"
)]

use std::fmt::Write as _;
use std::path::Path;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use memdir_migrations::{Locations, RunOptions, run, run_if_needed};

fn world(dir: &Path, projects: usize) -> Locations {
    let home = dir.join("home");
    let base = home.join(".claude");
    std::fs::create_dir_all(&base).unwrap();
    let mut global = String::from("{\n  \"numStartups\": 9,\n  \"projects\": {\n");
    for n in 0..projects {
        let _ = writeln!(
            global,
            "    \"/src/p{n}\": {{\"allowedTools\": [], \"history\": [{{\"display\": \"fix the build {n}\"}}]}},"
        );
    }
    global.push_str("    \"/src/last\": {}\n  }\n}\n");
    std::fs::write(home.join(".claude.json"), global).unwrap();
    std::fs::write(base.join("settings.json"), "{\"model\": \"opus\"}").unwrap();
    let at = Locations::standard(&base, Some(&home), false, None);
    run(&at, &RunOptions::default()).unwrap();
    at
}

fn startup(c: &mut Criterion) {
    let mut group = c.benchmark_group("migrations");
    for projects in [10, 1_000, 10_000] {
        let dir = tempfile::tempdir().unwrap();
        let at = world(dir.path(), projects);
        group.bench_with_input(
            BenchmarkId::new("start-up check", projects),
            &at,
            |b, at| {
                b.iter(|| assert!(run_if_needed(at).unwrap().is_none()));
            },
        );
        group.bench_with_input(
            BenchmarkId::new("full run (reference)", projects),
            &at,
            |b, at| {
                b.iter(|| run(at, &RunOptions::default()).unwrap());
            },
        );
    }
    group.finish();
}

criterion_group!(benches, startup);
criterion_main!(benches);
