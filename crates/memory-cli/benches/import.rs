//! `memdir import mcp-memory` as a process, into an empty folder and into
//! a folder that already holds 1,000 memories, at 100 and 1,000 imported
//! entities: the cost per memory should stay flat as either grows (one
//! locked batch, one index write), where writing one memory at a time
//! grew with the folder. The reference in the same run is `floor`: the
//! same number of files created and fsynced one by one, the durability
//! work an import cannot avoid.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// An mcp-memory JSONL input of `n` entities.
fn input(path: &Path, n: usize, tag: &str) {
    let mut text = String::new();
    for i in 0..n {
        let _ = writeln!(
            text,
            r#"{{"type":"entity","name":"{tag}-{i}","entityType":"project","observations":["The {tag} service {i} retries billing calls three times","Owned by the payments team"]}}"#
        );
    }
    std::fs::write(path, text).expect("write the input");
}

fn import(memory: &Path, file: &Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_memdir"))
        .arg("--memory-dir")
        .arg(memory)
        .args(["import", "mcp-memory"])
        .arg(file)
        .env("HOME", memory.with_file_name("home"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run memdir");
    assert!(status.success());
}

/// `n` small files, each written and fsynced, then the folder fsynced.
fn floor(dir: &Path, n: usize) {
    for i in 0..n {
        let mut f = std::fs::File::create(dir.join(format!("m-{i}.md"))).expect("create");
        f.write_all(b"---\nname: m\ndescription: d\ntype: project\n---\nbody\n")
            .expect("write");
        f.sync_all().expect("fsync");
    }
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .expect("fsync the folder");
}

fn benches(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("temp folder");
    let mut group = c.benchmark_group("import");
    group.sample_size(10);
    for n in [100usize, 1000] {
        let file = tmp.path().join(format!("in-{n}.jsonl"));
        input(&file, n, "new");
        let base = tmp.path().join("base.jsonl");
        input(&base, 1000, "old");
        group.throughput(Throughput::Elements(n as u64));
        let fresh = |populated: bool| {
            let dir = tempfile::tempdir_in(tmp.path()).expect("folder");
            let memory = dir.path().join("memory");
            if populated {
                import(&memory, &base);
            }
            (dir, memory)
        };
        group.bench_with_input(BenchmarkId::new("into an empty folder", n), &n, |b, _| {
            b.iter_batched(
                || fresh(false),
                |(_dir, memory)| import(&memory, &file),
                BatchSize::PerIteration,
            );
        });
        group.bench_with_input(BenchmarkId::new("into 1,000 memories", n), &n, |b, _| {
            b.iter_batched(
                || fresh(true),
                |(_dir, memory)| import(&memory, &file),
                BatchSize::PerIteration,
            );
        });
        group.bench_with_input(BenchmarkId::new("floor", n), &n, |b, &n| {
            b.iter_batched(
                || tempfile::tempdir_in(tmp.path()).expect("folder"),
                |dir| floor(dir.path(), n),
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

criterion_group!(import_benches, benches);
criterion_main!(import_benches);
