//! The recall index through the real binary: kept under `<base>/memdir/`,
//! current after writes by memdir and by other programs, rebuilt after
//! damage and after a kill, and never the reason a memory is lost or a
//! deleted one returned.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::{command, stderr, stdout};

struct World {
    tmp: tempfile::TempDir,
    memory: PathBuf,
}

fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("home/.claude")).unwrap();
    let memory = tmp.path().join("memory");
    std::fs::create_dir(&memory).unwrap();
    World { tmp, memory }
}

impl World {
    fn cmd(&self, args: &[&str]) -> Command {
        let home = self.tmp.path().join("home");
        let mut all = vec!["--memory-dir", self.memory.to_str().unwrap()];
        all.extend_from_slice(args);
        let mut cmd = command(self.tmp.path(), &[("HOME", home.to_str().unwrap())], all);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    fn run(&self, args: &[&str]) -> (String, String) {
        let out = self.cmd(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        (stdout(&out), stderr(&out))
    }

    /// The file names `memdir recall` returns for `query`.
    fn recall(&self, query: &str) -> Vec<String> {
        let (out, _) = self.run(&["--json", "recall", query]);
        let value: serde_json::Value = serde_json::from_str(&out).unwrap();
        value
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let path = m["path"].as_str().unwrap();
                Path::new(path)
                    .strip_prefix(&self.memory)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    }

    fn write(&self, file: &str, description: &str) {
        let name = file.trim_end_matches(".md");
        std::fs::write(
            self.memory.join(file),
            format!(
                "---\nname: {name}\ndescription: {description}\ntype: project\n---\n{description}\n"
            ),
        )
        .unwrap();
    }

    fn index_files(&self) -> Vec<PathBuf> {
        let dir = self.tmp.path().join("home/.claude/memdir/recall");
        std::fs::read_dir(dir)
            .map(|d| {
                d.map(|e| e.unwrap().path())
                    .filter(|p| p.extension().is_some_and(|e| e == "sqlite"))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn status(&self) -> serde_json::Value {
        let (out, _) = self.run(&["--json", "recall-index", "status"]);
        serde_json::from_str(&out).unwrap()
    }
}

#[test]
fn recall_keeps_an_index_under_the_base_folder_and_sees_every_change() {
    let w = world();
    w.run(&[
        "add",
        "--type",
        "project",
        "--name",
        "deploy-fridays",
        "--description",
        "Never deploy on Fridays; ship with make ship",
        "--body",
        "Deploys go out Monday to Thursday with `make ship`.",
    ]);
    assert_eq!(
        w.recall("how do we deploy this service"),
        ["deploy-fridays.md"]
    );
    let index = w.index_files();
    assert_eq!(index.len(), 1, "one index for the folder");
    assert_eq!(w.status()["memories"], 1);

    // Written by another program, not memdir: found at the next recall.
    w.write(
        "ledger-flaky.md",
        "The ledger reconciliation test is flaky under parallel runs",
    );
    assert_eq!(
        w.recall("ledger reconciliation test flaky"),
        ["ledger-flaky.md"]
    );
    // Deleted by another program: never returned.
    std::fs::remove_file(w.memory.join("ledger-flaky.md")).unwrap();
    assert!(w.recall("ledger reconciliation test flaky").is_empty());
    // Deleted through memdir.
    w.run(&[
        "add",
        "--type",
        "project",
        "--name",
        "cache-ttl",
        "--description",
        "The Redis cache TTL for sessions is 15 minutes",
        "--body",
        "TTL 15m.",
    ]);
    assert_eq!(w.recall("redis cache ttl sessions"), ["cache-ttl.md"]);
    assert_eq!(w.status()["memories"], 2);
    std::fs::remove_file(w.memory.join("cache-ttl.md")).unwrap();
    assert!(w.recall("redis cache ttl sessions").is_empty());
    assert_eq!(w.status()["memories"], 1);

    // Damaged: rebuilt, said once, nothing lost.
    std::fs::write(&index[0], b"garbage, not a database").unwrap();
    for suffix in ["-wal", "-shm"] {
        let mut p = index[0].clone().into_os_string();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
    let (_, err) = w.run(&["recall", "how do we deploy this service"]);
    assert!(err.contains("rebuilt"), "{err}");
    let (out, err) = w.run(&["recall", "how do we deploy this service"]);
    assert!(!err.contains("rebuilt"), "{err}");
    assert!(out.contains("deploy-fridays.md"), "{out}");
}

#[test]
fn without_a_base_folder_recall_scans_and_writes_no_index() {
    let w = world();
    std::fs::remove_dir_all(w.tmp.path().join("home/.claude")).unwrap();
    w.write("deploy.md", "Never deploy on Fridays; ship with make ship");
    assert_eq!(w.recall("how do we deploy this service"), ["deploy.md"]);
    assert!(!w.tmp.path().join("home/.claude").exists());
}

#[test]
#[cfg(unix)]
fn a_build_killed_at_any_moment_loses_nothing() {
    let w = world();
    for i in 0..1500 {
        w.write(
            &format!("note-{i:04}.md"),
            &format!("Service {i} retries billing calls with backoff seed{i}x"),
        );
    }
    // Kill the build at moments spread over its run.
    for delay_ms in [5u64, 20, 60, 120, 250] {
        let mut child = w.cmd(&["recall-index", "rebuild"]).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(
            w.recall("billing backoff seed777x"),
            ["note-0777.md"],
            "after a kill at {delay_ms} ms"
        );
        assert_eq!(
            w.status()["memories"],
            1500,
            "after a kill at {delay_ms} ms"
        );
    }
}

#[test]
fn concurrent_recalls_and_writes_agree_with_the_folder() {
    let w = world();
    for i in 0..40 {
        w.write(
            &format!("base-{i:02}.md"),
            &format!("Base memory {i} about the deploy pipeline"),
        );
    }
    let mut children = Vec::new();
    for i in 0..6 {
        children.push(
            w.cmd(&[
                "add",
                "--type",
                "project",
                "--name",
                &format!("added-{i}"),
                "--description",
                &format!("Added memory token{i}q about release trains"),
                "--body",
                "Release trains leave on Tuesdays.",
            ])
            .spawn()
            .unwrap(),
        );
        children.push(w.cmd(&["recall", "deploy pipeline"]).spawn().unwrap());
        children.push(w.cmd(&["recall", "release trains"]).spawn().unwrap());
    }
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    }
    for i in 0..6 {
        assert_eq!(
            w.recall(&format!("release trains token{i}q"))
                .first()
                .map(String::as_str),
            Some(format!("added-{i}.md").as_str())
        );
    }
    assert_eq!(w.status()["memories"], 46);
}

#[test]
fn recall_index_commands_refuse_what_they_cannot_do_in_one_line() {
    let w = world();
    let one_line_failure = |args: &[&str], code: i32, says: &str| {
        let out = w.cmd(args).output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    };
    one_line_failure(&["recall-index"], 2, "subcommand is required");
    one_line_failure(&["recall-index", "rebuild", "extra"], 2, "extra");
    // No memory folder: nothing indexed, no index file made.
    std::fs::remove_dir(&w.memory).unwrap();
    one_line_failure(&["recall-index", "rebuild"], 1, "cannot list memory folder");
    one_line_failure(&["recall-index", "refresh"], 1, "cannot list memory folder");
    assert!(w.index_files().is_empty());
    assert_eq!(w.status()["exists"], false);
    // No agent configuration folder: it is not created.
    std::fs::create_dir(&w.memory).unwrap();
    std::fs::remove_dir_all(w.tmp.path().join("home/.claude")).unwrap();
    one_line_failure(&["recall-index", "rebuild"], 1, "does not exist");
    assert!(!w.tmp.path().join("home/.claude").exists());
}
