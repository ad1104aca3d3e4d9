//! `memdir` end to end as a process, as an agent's hook would run it, on a
//! folder of 200 memories indexed by a 200-line MEMORY.md: `prompt`,
//! `recall` (offline) and `list`; and the hook commands as the agent runs
//! them, one process each: `hook session-start`, `hook user-prompt-submit`
//! (a new session each time, so that every run recalls) and the time
//! `hook stop` takes to return while its extraction goes on in the
//! background. Criterion prints the medians; the hooks' target is under
//! 10 ms.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

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

fn hook(root: &Path, event: &str, input: &str) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_memdir"))
        .arg("--memory-dir")
        .arg(root.join("memory"))
        .args(["hook", event])
        .env("HOME", root.join("home"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run memdir");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(input.as_bytes())
        .expect("write the hook input");
    drop(stdin);
    assert!(child.wait().expect("wait for memdir").success());
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

fn hook_benches(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("temp folder");
    let root = tmp.path();
    for dir in ["memory", "home", "project"] {
        std::fs::create_dir(root.join(dir)).expect("folder");
    }
    folder(&root.join("memory"));
    let transcript = root.join("session.jsonl");
    std::fs::write(
        &transcript,
        "{\"type\":\"user\",\"uuid\":\"u1\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
    )
    .expect("transcript");
    let cwd = root.join("project");
    let cwd = cwd.display();
    let transcript = transcript.display();
    let session = AtomicUsize::new(0);

    let mut group = c.benchmark_group("memdir hook, 200 memories");
    group.bench_function("session-start", |b| {
        let input = format!(
            r#"{{"session_id":"s","cwd":"{cwd}","hook_event_name":"SessionStart","source":"startup"}}"#
        );
        b.iter(|| hook(root, "session-start", &input));
    });
    group.bench_function("user-prompt-submit", |b| {
        b.iter(|| {
            let n = session.fetch_add(1, Ordering::Relaxed);
            let input = format!(
                r#"{{"session_id":"s{n}","cwd":"{cwd}","hook_event_name":"UserPromptSubmit","prompt":"deploy pipeline checks"}}"#
            );
            hook(root, "user-prompt-submit", &input);
        });
    });
    group.bench_function("stop (return time)", |b| {
        let input = format!(
            r#"{{"session_id":"s","cwd":"{cwd}","transcript_path":"{transcript}","hook_event_name":"Stop","stop_hook_active":false}}"#
        );
        b.iter(|| hook(root, "stop", &input));
    });
    group.finish();
}

criterion_group!(group, benches, hook_benches);
criterion_main!(group);
