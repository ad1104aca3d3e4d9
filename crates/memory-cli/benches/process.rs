//! `memdir` end to end as a process, as an agent's hook would run it, on a
//! folder of 200 memories indexed by a 200-line MEMORY.md: `prompt`,
//! `recall` (offline) and `list`.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use criterion::{Criterion, criterion_group, criterion_main};

fn folder(dir: &Path) {
    let mut index = String::new();
    for i in 0..200 {
        let name = format!("memory-{i:03}");
        let text = format!(
            "---\nname: {name}\ndescription: Memory {i} about the deploy pipeline and its checks\ntype: project\n---\nBody of memory {i}.\n"
        );
        std::fs::write(dir.join(format!("{name}.md")), text).expect("write memory");
        let _ = writeln!(
            index,
            "- [{name}]({name}.md) — memory {i} about the deploy pipeline"
        );
    }
    std::fs::write(dir.join("MEMORY.md"), index).expect("write index");
}

fn run(dir: &Path, args: &[&str]) {
    let status = Command::new(env!("CARGO_BIN_EXE_memdir"))
        .arg("--memory-dir")
        .arg(dir)
        .args(args)
        .env("HOME", dir.with_file_name("home"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run memdir");
    assert!(status.success());
}

fn benches(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("temp folder");
    let dir = tmp.path().join("memory");
    std::fs::create_dir(&dir).expect("memory folder");
    folder(&dir);
    let mut group = c.benchmark_group("memdir process, 200 memories");
    group.bench_function("prompt", |b| b.iter(|| run(&dir, &["prompt"])));
    group.bench_function("recall", |b| {
        b.iter(|| run(&dir, &["recall", "deploy pipeline checks"]));
    });
    group.bench_function("list", |b| b.iter(|| run(&dir, &["list"])));
    group.bench_function("floor: --version", |b| b.iter(|| run(&dir, &["--version"])));
    group.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
