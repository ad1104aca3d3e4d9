//! What checking citations adds to `memdir recall` and to the prompt hook,
//! end to end as processes: five memories, each recalled and each citing
//! about five paths, identifiers and flags (one path and one identifier
//! broken in all), against generated projects of 1,000 and 10,000 files.
//!
//! Variants, measured in one run so that their ratio is fair:
//! - `off`: `MEMDIR_CITATIONS_BUDGET_MS=0`, no check at all (the reference);
//! - `cached`: the default budget, after `memdir verify --cache-only` (what
//!   the hooks keep warm in the background);
//! - `cold`: the default budget with the cache removed before each run:
//!   the search is cut at the budget and the rest left unchecked (the hook
//!   then starts a refresh in the background, as it would).
//!
//! `cached − off` is what citations add to a recall; `floor: --version`
//! is the cost of starting the process on the machine of the run. Criterion prints the
//! estimates; the medians are in `target/criterion/<id>/new/estimates.json`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use memdir_testkit::corpus::{widget_memory_bodies, widget_project};

const QUERY: &str = "widget builder legacy authorizer";

/// The generated project under `root/project`.
fn project(root: &Path, files: usize) -> PathBuf {
    let project = root.join("project");
    widget_project(&project, files);
    project
}

/// Five memories citing the project, all matching [`QUERY`].
fn memories(root: &Path, files: usize) -> PathBuf {
    let memory = root.join("memory");
    std::fs::create_dir_all(&memory).expect("mkdir");
    let bodies = widget_memory_bodies(files);
    let mut index = String::new();
    for (i, body) in bodies.iter().enumerate() {
        let name = format!("widget-builder-{i}");
        std::fs::write(
            memory.join(format!("{name}.md")),
            format!("---\nname: {name}\ndescription: widget builder and legacy authorizer notes {i}\ntype: project\n---\n{body}\n"),
        )
        .expect("write memory");
        let _ = writeln!(index, "- [{name}]({name}.md) — widget builder notes {i}");
    }
    std::fs::write(memory.join("MEMORY.md"), index).expect("write index");
    memory
}

struct World {
    root: tempfile::TempDir,
    project: PathBuf,
    memory: PathBuf,
}

impl World {
    fn new(files: usize) -> World {
        let root = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(root.path().join("home/.claude")).expect("mkdir");
        let project = project(root.path(), files);
        let memory = memories(root.path(), files);
        World {
            root,
            project,
            memory,
        }
    }

    fn command(&self, budget: Option<&str>, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_memdir"));
        cmd.arg("--project")
            .arg(&self.project)
            .arg("--memory-dir")
            .arg(&self.memory)
            .args(args)
            .env("HOME", self.root.path().join("home"))
            .env("MEMDIR_AUTO_MIGRATE", "0")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_BASE_URL")
            .env_remove("MEMDIR_CITATIONS_BUDGET_MS")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(ms) = budget {
            cmd.env("MEMDIR_CITATIONS_BUDGET_MS", ms);
        }
        cmd
    }

    /// Starting the process and exiting: what any run costs on this
    /// machine, measured beside the rest.
    fn version(&self) {
        let status = self.command(None, &["--version"]).status().expect("run");
        assert!(status.success());
    }

    fn recall(&self, budget: Option<&str>) {
        let status = self
            .command(budget, &["recall", QUERY])
            .status()
            .expect("run");
        assert!(status.success());
    }

    fn hook(&self, budget: Option<&str>, session: usize) {
        let mut child = self
            .command(budget, &["hook", "user-prompt-submit"])
            .stdin(Stdio::piped())
            .spawn()
            .expect("run");
        let input = format!(
            r#"{{"session_id":"bench-{session}","cwd":{},"hook_event_name":"UserPromptSubmit","prompt":"{QUERY}"}}"#,
            serde_json::to_string(&self.project).expect("json")
        );
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("write");
        assert!(child.wait().expect("wait").success());
    }

    fn warm(&self) {
        // Files changed within two seconds are not recorded as holding a
        // literal: let the generated project age first.
        std::thread::sleep(Duration::from_millis(2100));
        let status = self
            .command(None, &["verify", "--cache-only"])
            .status()
            .expect("run");
        assert!(status.success());
    }

    fn cache_dir(&self) -> PathBuf {
        self.root.path().join("home/.claude/memdir/citations")
    }
}

fn bench_size(c: &mut Criterion, files: usize) {
    let world = World::new(files);
    world.warm();
    let mut group = c.benchmark_group(format!("recall-citations/{files}-files"));
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(6));
    group.bench_function("floor: --version", |b| b.iter(|| world.version()));
    group.bench_function("off", |b| b.iter(|| world.recall(Some("0"))));
    group.bench_function("cached", |b| b.iter(|| world.recall(None)));
    let hidden = world.root.path().join("cache-aside");
    group.bench_function("cold", |b| {
        b.iter_batched(
            || {
                let _ = std::fs::remove_dir_all(&hidden);
                let _ = std::fs::rename(world.cache_dir(), &hidden);
            },
            |()| world.recall(None),
            BatchSize::PerIteration,
        );
    });
    group.finish();
    world.warm();
    let mut hook = c.benchmark_group(format!("hook-citations/{files}-files"));
    hook.sample_size(30)
        .measurement_time(Duration::from_secs(6));
    let mut session = 0;
    hook.bench_function("off", |b| {
        b.iter(|| {
            session += 1;
            world.hook(Some("0"), session);
        });
    });
    hook.bench_function("cached", |b| {
        b.iter(|| {
            session += 1;
            world.hook(None, session);
        });
    });
    // No cache: the hook's own 4 ms budget bounds the search. The refresh
    // each run starts in the background is let finish between runs.
    hook.bench_function("cold", |b| {
        b.iter_batched(
            || {
                std::thread::sleep(Duration::from_millis(300));
                let _ = std::fs::remove_dir_all(&hidden);
                let _ = std::fs::rename(world.cache_dir(), &hidden);
                session += 1;
                session
            },
            |s| world.hook(None, s),
            BatchSize::PerIteration,
        );
    });
    hook.finish();
}

fn recall_citations(c: &mut Criterion) {
    bench_size(c, 1_000);
    bench_size(c, 10_000);
}

criterion_group!(benches, recall_citations);
criterion_main!(benches);
