//! `memdir import` and `memdir export` as a user runs them: round trips
//! through every format, a second import that changes nothing, dry runs
//! that write nothing, hostile inputs, and the user's own text kept.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::{memdir_in, stdout};

/// A project, a memory folder and a second, empty one.
struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["project", "memory", "empty"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        World { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// `memdir` on the project with the memory folder `memory`.
    fn run(&self, memory: &str, args: &[&str]) -> Output {
        let project = self.path("project");
        let memory = self.path(memory);
        let mut all = vec![
            "--project",
            project.to_str().unwrap(),
            "--memory-dir",
            memory.to_str().unwrap(),
        ];
        all.extend_from_slice(args);
        memdir_in(self.dir.path(), &[], all)
    }

    fn add(&self, name: &str, kind: &str, description: &str, body: &str) {
        let out = self.run(
            "memory",
            &[
                "add",
                "--name",
                name,
                "--type",
                kind,
                "--description",
                description,
                "--body",
                body,
            ],
        );
        assert!(out.status.success(), "{out:?}");
    }

    /// The memories of `memory` exported as `out/memory.jsonl`; its path.
    fn export_mcp(&self) -> PathBuf {
        let out = self.run(
            "memory",
            &["export", "mcp-memory", self.path("out").to_str().unwrap()],
        );
        assert!(out.status.success(), "{out:?}");
        self.path("out/memory.jsonl")
    }

    /// The five memories every round trip starts from.
    fn seed(&self) {
        self.add(
            "pnpm",
            "feedback",
            "Use pnpm, not npm",
            "The lockfile is pnpm-lock.yaml.\nNever commit package-lock.json.",
        );
        self.add(
            "role",
            "user",
            "Dana leads the payments team",
            "Prefers short answers.",
        );
        self.add(
            "freeze",
            "project",
            "Merge freeze from 2026-03-05",
            "Only release fixes merge.\n库存实时同步 stays on.",
        );
        self.add(
            "dashboards",
            "reference",
            "Where the dashboards are",
            "Grafana: https://grafana.example/d/1",
        );
        self.add(
            "markup",
            "project",
            "A memory with markup",
            "<script>alert(1)</script> is text here.",
        );
    }
}

/// Every memory file of a folder (not the index): name → text.
fn memories(folder: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| {
            let path = e.path();
            path.extension().is_some_and(|x| x == "md") && e.file_name() != "MEMORY.md"
        })
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read_to_string(e.path()).unwrap(),
            )
        })
        .collect()
}

/// Every file under `dir`, with its bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let t = e.file_type().unwrap();
            if t.is_dir() {
                stack.push(e.path());
            } else {
                out.insert(e.path(), std::fs::read(e.path()).unwrap_or_default());
            }
        }
    }
    out
}

fn field(text: &str, key: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}: ")))
        .map(|v| v.trim_matches('"').to_owned())
}

fn body(text: &str) -> String {
    text.splitn(3, "---\n")
        .nth(2)
        .unwrap_or(text)
        .trim()
        .to_owned()
}

#[test]
fn mcp_memory_round_trip_reproduces_the_memories() {
    let w = World::new();
    w.seed();
    let file = w.export_mcp();
    let out = w.run("empty", &["import", "mcp-memory", file.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(memories(&w.path("empty")), memories(&w.path("memory")));
    // A second import changes nothing.
    let before = tree(&w.path("empty"));
    let again = w.run(
        "empty",
        &["import", "mcp-memory", file.to_str().unwrap(), "--json"],
    );
    assert!(again.status.success(), "{again:?}");
    let json: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert!(
        json["memories"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["outcome"] == "alreadyPresent"),
        "{json}"
    );
    assert_eq!(tree(&w.path("empty")), before);
}

#[test]
fn every_format_round_trips_what_it_carries() {
    // What each format carries: (format, file or folder under `out`,
    // type kept, body kept, name kept).
    let cases = [
        ("cline", "memory-bank", true, true, true),
        ("cursor", ".cursor/rules", true, true, true),
        ("gemini", "GEMINI.md", false, false, false),
        ("qwen", "QWEN.md", false, false, false),
        ("agents-md", "AGENTS.md", false, false, true),
        ("claude-md", "CLAUDE.md", false, false, true),
    ];
    for (format, input, type_kept, body_kept, name_kept) in cases {
        let w = World::new();
        w.seed();
        let out_dir = w.path("out");
        let out = w.run("memory", &["export", format, out_dir.to_str().unwrap()]);
        assert!(out.status.success(), "{format}: {out:?}");
        let input = out_dir.join(input);
        let out = w.run("empty", &["import", format, input.to_str().unwrap()]);
        assert!(out.status.success(), "{format}: {out:?}");
        let original = memories(&w.path("memory"));
        let back = memories(&w.path("empty"));
        assert_eq!(back.len(), original.len(), "{format}: {back:?}");
        let described = |m: &BTreeMap<String, String>| {
            let mut d: Vec<String> = m
                .values()
                .map(|t| field(t, "description").unwrap())
                .collect();
            d.sort();
            d
        };
        assert_eq!(described(&back), described(&original), "{format}");
        if name_kept {
            assert_eq!(
                back.keys().collect::<Vec<_>>(),
                original.keys().collect::<Vec<_>>(),
                "{format}"
            );
        }
        for (file, text) in &original {
            let Some(other) = back.get(file) else {
                continue;
            };
            if body_kept {
                assert_eq!(body(other), body(text), "{format} {file}");
            }
            if type_kept {
                assert_eq!(field(other, "type"), field(text, "type"), "{format} {file}");
            }
        }
    }
}

#[test]
fn dry_runs_write_nothing() {
    let w = World::new();
    w.seed();
    std::fs::write(w.path("project/AGENTS.md"), "# Mine\n").unwrap();
    let before = tree(w.dir.path());
    let out = w.run("memory", &["export", "agents-md", "--dry-run"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).contains("+<!-- memdir:begin -->"),
        "{}",
        stdout(&out)
    );
    let jsonl = w.path("in.jsonl");
    std::fs::write(
        &jsonl,
        r#"{"type":"entity","name":"x","entityType":"person","observations":["likes tea"]}"#,
    )
    .unwrap();
    let before_import = {
        let mut t = before.clone();
        t.insert(jsonl.clone(), std::fs::read(&jsonl).unwrap());
        t
    };
    let out = w.run(
        "empty",
        &["import", "mcp-memory", jsonl.to_str().unwrap(), "--dry-run"],
    );
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout(&out).contains("would write x.md"),
        "{}",
        stdout(&out)
    );
    assert_eq!(tree(w.dir.path()), before_import);
}

#[test]
fn export_keeps_the_users_text_and_a_second_export_changes_nothing() {
    let w = World::new();
    w.seed();
    let mine = "# Agents\n\nMy own rules.\r\n\n## Later\nstill mine";
    std::fs::write(w.path("project/AGENTS.md"), mine).unwrap();
    let out = w.run("memory", &["export", "agents-md"]);
    assert!(out.status.success(), "{out:?}");
    let once = std::fs::read_to_string(w.path("project/AGENTS.md")).unwrap();
    assert!(once.starts_with(mine), "{once:?}");
    assert!(once.contains("- pnpm — Use pnpm, not npm"), "{once}");
    let out = w.run("memory", &["export", "agents-md"]);
    assert!(stdout(&out).contains("unchanged"), "{}", stdout(&out));
    assert_eq!(
        std::fs::read_to_string(w.path("project/AGENTS.md")).unwrap(),
        once
    );
}

#[cfg(unix)]
#[test]
fn export_never_writes_through_a_link() {
    let w = World::new();
    w.seed();
    let outside = w.path("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, w.path("project/.cursor")).unwrap();
    let out = w.run("memory", &["export", "cursor"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(tree(&outside).is_empty(), "{:?}", tree(&outside));
    // A linked AGENTS.md (often to CLAUDE.md) is left as the link it is.
    std::fs::write(w.path("project/CLAUDE.md"), "# Claude\n").unwrap();
    std::os::unix::fs::symlink("CLAUDE.md", w.path("project/AGENTS.md")).unwrap();
    let out = w.run("memory", &["export", "agents-md"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(
        std::fs::read_to_string(w.path("project/CLAUDE.md")).unwrap(),
        "# Claude\n"
    );
}

#[test]
fn hostile_inputs_are_reported_and_never_written_outside() {
    let w = World::new();
    let jsonl = w.path("in.jsonl");
    std::fs::write(
        &jsonl,
        concat!(
            "{\"type\":\"entity\",\"name\":\"../../etc/passwd\",\"entityType\":\"x\",\"observations\":[\"a\"]}\n",
            "{\"type\":\"entity\",\"name\":\"/abs/path\",\"entityType\":\"x\",\"observations\":[\"b\"]}\n",
            "{broken\n",
            "{\"type\":\"entity\",\"name\":\"-rf\",\"entityType\":\"x\",\"observations\":[\"c\"]}\n",
            "{\"type\":\"entity\",\"name\":\"...\",\"entityType\":\"x\",\"observations\":[\"d\"]}\n",
        ),
    )
    .unwrap();
    let out = w.run(
        "empty",
        &["import", "mcp-memory", jsonl.to_str().unwrap(), "--json"],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let skipped: Vec<String> = json["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["at"].as_str().unwrap().to_owned())
        .collect();
    assert!(skipped.iter().any(|a| a.ends_with(":3")), "{json}");
    let files = memories(&w.path("empty"));
    assert!(
        files
            .keys()
            .all(|f| !f.contains('/') && !f.starts_with('.')),
        "{files:?}"
    );
    assert!(!w.path("etc").exists() && !w.path("abs").exists());
    assert!(
        tree(w.dir.path())
            .keys()
            .all(|p| p.starts_with(w.dir.path()))
    );

    // A 5 MiB input is refused in one line, and nothing is written.
    let huge = w.path("huge.jsonl");
    std::fs::write(&huge, "x".repeat(5 * 1024 * 1024)).unwrap();
    let before = tree(&w.path("memory"));
    let out = w.run("memory", &["import", "mcp-memory", huge.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).lines().count(),
        1,
        "{out:?}"
    );
    assert_eq!(tree(&w.path("memory")), before);

    // An unknown format names the ones there are.
    let out = w.run("memory", &["import", "notion", jsonl.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("mcp-memory"),
        "{out:?}"
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_given_as_input_is_an_error_not_a_hang() {
    let w = World::new();
    let fifo = w.path("pipe.jsonl");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let out = w.run("memory", &["import", "mcp-memory", fifo.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("FIFO"),
        "{out:?}"
    );
}

#[test]
fn help_teaches_with_examples() {
    let import = crate::memdir(["import", "--help"]);
    assert!(stdout(&import).contains("memdir import cline ./memory-bank"));
    let export = crate::memdir(["export", "--help"]);
    assert!(stdout(&export).contains("memdir export agents-md --dry-run"));
    assert!(stdout(&export).contains("qwen"));
}

/// Eight imports of one input at once into one folder: each memory is
/// written once, with one index line, and every import ends in success
/// (what another import wrote first is "already here").
#[test]
fn a_crowd_of_imports_writes_each_memory_once() {
    let w = World::new();
    w.seed();
    let file = w.export_mcp();
    std::thread::scope(|s| {
        let runs: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| {
                    w.run(
                        "empty",
                        &["import", "mcp-memory", file.to_str().unwrap(), "--json"],
                    )
                })
            })
            .collect();
        let mut written = 0;
        for run in runs {
            let out = run.join().unwrap();
            assert!(out.status.success(), "{out:?}");
            let json: Value = serde_json::from_slice(&out.stdout).unwrap();
            for m in json["memories"].as_array().unwrap() {
                match m["outcome"].as_str().unwrap() {
                    "written" => written += 1,
                    "alreadyPresent" => {}
                    other => panic!("{other}: {m}"),
                }
            }
        }
        assert_eq!(written, 5);
    });
    assert_eq!(memories(&w.path("empty")), memories(&w.path("memory")));
    let index = std::fs::read_to_string(w.path("empty/MEMORY.md")).unwrap();
    for name in memories(&w.path("memory")).keys() {
        assert_eq!(
            index.matches(&format!("({name})")).count(),
            1,
            "{name}: {index}"
        );
    }
    let check = w.run("empty", &["index", "check"]);
    assert!(check.status.success(), "{check:?}");
}

/// Imports killed at staggered moments: the next import completes the
/// folder, every memory once with one index line, and the index is clean.
#[cfg(unix)]
#[test]
fn imports_killed_midway_are_completed_by_the_next() {
    use std::process::Stdio;

    let w = World::new();
    w.seed();
    let file = w.export_mcp();
    let project = w.path("project");
    let empty = w.path("empty");
    for round in 0..10u64 {
        let mut child = crate::command(
            w.dir.path(),
            &[],
            [
                "--project",
                project.to_str().unwrap(),
                "--memory-dir",
                empty.to_str().unwrap(),
                "import",
                "mcp-memory",
                file.to_str().unwrap(),
            ],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2 * round));
        let _ = child.kill();
        let _ = child.wait();
    }
    let out = w.run("empty", &["import", "mcp-memory", file.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let fix = w.run("empty", &["index", "fix"]);
    assert!(fix.status.success(), "{fix:?}");
    assert_eq!(memories(&empty), memories(&w.path("memory")));
    let index = std::fs::read_to_string(empty.join("MEMORY.md")).unwrap();
    for name in memories(&w.path("memory")).keys() {
        assert_eq!(
            index.matches(&format!("({name})")).count(),
            1,
            "{name}: {index}"
        );
    }
    let check = w.run("empty", &["index", "check"]);
    assert!(stdout(&check).contains("no problems found"), "{check:?}");
}

/// A FIFO or a link where an imported memory's file belongs: the import
/// neither hangs nor writes through it, and says so for that memory.
#[cfg(unix)]
#[test]
fn a_fifo_or_link_in_the_way_of_an_import_is_not_written_through() {
    let w = World::new();
    w.seed();
    let file = w.export_mcp();
    let empty = w.path("empty");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(empty.join("pnpm.md"))
            .status()
            .unwrap()
            .success()
    );
    let outside = w.path("outside.md");
    std::fs::write(&outside, "mine\n").unwrap();
    std::os::unix::fs::symlink(&outside, empty.join("role.md")).unwrap();
    let out = w.run(
        "empty",
        &["import", "mcp-memory", file.to_str().unwrap(), "--json"],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let outcome = |name: &str| {
        json["memories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == name)
            .unwrap()["outcome"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(outcome("pnpm"), "nameTaken", "{json}");
    assert_eq!(outcome("role"), "nameTaken", "{json}");
    assert_eq!(outcome("freeze"), "written", "{json}");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "mine\n");
}

/// What `export FORMAT PATH` writes, `import FORMAT PATH` reads back: a
/// PATH naming a file is that file, and a folder an export wrote is read
/// through the format's file in it.
#[test]
fn export_and_import_of_one_path_meet() {
    let w = World::new();
    w.seed();
    for (format, path, file) in [
        ("mcp-memory", "out.jsonl", "out.jsonl"),
        ("mcp-memory", "outdir", "outdir/memory.jsonl"),
        ("gemini", "notes/G.md", "notes/G.md"),
        ("gemini", "gdir", "gdir/GEMINI.md"),
    ] {
        let target = w.path(path);
        let out = w.run("memory", &["export", format, target.to_str().unwrap()]);
        assert!(out.status.success(), "{format} {path}: {out:?}");
        assert!(w.path(file).is_file(), "{format} {path}: no {file}");
        assert!(!w.path(&format!("{file}/memory.jsonl")).exists());
        let fresh = format!("fresh-{}", path.replace('/', "-"));
        std::fs::create_dir_all(w.path(&fresh)).unwrap();
        let out = w.run(
            &fresh,
            &["import", format, target.to_str().unwrap(), "--json"],
        );
        assert!(out.status.success(), "{format} {path}: {out:?}");
        assert_eq!(memories(&w.path(&fresh)).len(), 5, "{format} {path}");
    }
    // A folder without the format's file is refused, naming what is missing.
    let out = w.run(
        "empty",
        &["import", "mcp-memory", w.path("project").to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("folder without memory.jsonl"),
        "{out:?}"
    );
}
