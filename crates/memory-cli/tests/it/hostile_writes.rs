//! Writes an attacker or a careless user would try, through `memdir add`,
//! `memdir mcp` and files other programs wrote: no index line is lost to
//! an odd name or a long description, no secret reaches an index, and no
//! control character reaches a terminal.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::{memdir_in, stderr, stdout};

/// A GitHub token of high entropy, assembled so this file holds none.
fn token() -> String {
    format!("ghp_{}", "q8Zr2LkW9xTb4YcN7mVd1HsF6jPa3EuG5oRi")
}

struct World {
    _tmp: tempfile::TempDir,
    memory: PathBuf,
}

fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path().join("memory");
    World { _tmp: tmp, memory }
}

impl World {
    fn run(&self, args: &[&str]) -> std::process::Output {
        let mut all = vec!["--memory-dir", self.memory.to_str().unwrap()];
        all.extend_from_slice(args);
        memdir_in(self.memory.parent().unwrap(), &[("MEMDIR_TEAM", "1")], all)
    }

    fn add(&self, name: &str, description: &str, extra: &[&str]) -> std::process::Output {
        let mut args = vec![
            "add",
            "--type",
            "project",
            "--name",
            name,
            "--description",
            description,
            "--body",
            "Body text.",
        ];
        args.extend_from_slice(extra);
        self.run(&args)
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.memory.join(rel)).unwrap_or_default()
    }

    /// Runs `memdir mcp`, sends `calls` (as `tools/call` requests after the
    /// handshake) and returns each call's result, in order.
    fn mcp(&self, calls: &[Value]) -> Vec<Value> {
        let mut child = crate::command(
            self.memory.parent().unwrap(),
            &[("MEMDIR_TEAM", "1")],
            ["--memory-dir", self.memory.to_str().unwrap(), "mcp"],
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
        let mut input = child.stdin.take().unwrap();
        let (tx, rx) = mpsc::channel();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut send = |v: &Value| writeln!(input, "{v}").unwrap();
        send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}}),
        );
        let wait = |id: u64| -> Value {
            loop {
                let line = rx
                    .recv_timeout(Duration::from_secs(30))
                    .unwrap_or_else(|_| panic!("no answer to request {id}"));
                let v: Value = serde_json::from_str(&line).unwrap();
                if v["id"] == id {
                    return v;
                }
            }
        };
        wait(0);
        send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        let mut results = Vec::new();
        for (i, call) in calls.iter().enumerate() {
            let id = i as u64 + 1;
            send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": call}));
            results.push(wait(id)["result"].clone());
        }
        drop(input);
        child.wait().unwrap();
        results
    }
}

fn tool_text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn index_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `add --name 'deploy.md#x'` once replaced `deploy.md`'s line; now each
/// name keeps a line of its own, private and team alike.
#[test]
fn a_name_with_hash_or_question_mark_keeps_every_other_line() {
    let w = world();
    for team in [false, true] {
        let extra: &[&str] = if team { &["--team"] } else { &[] };
        let index = w
            .memory
            .join(if team { "team/MEMORY.md" } else { "MEMORY.md" });
        for name in ["deploy", "deploy.md#x", "deploy.md?y"] {
            let out = w.add(name, &format!("how {name} works"), extra);
            assert!(out.status.success(), "{name}: {}", stderr(&out));
        }
        let lines = index_lines(&index);
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(
            lines.iter().any(|l| l.contains("](deploy.md)")),
            "{lines:?}"
        );
        let check = w.run(&["index", "check", "--json", index.to_str().unwrap()]);
        let lint: Value = serde_json::from_slice(&check.stdout).unwrap();
        assert_eq!(lint["lint"], json!([]), "{lint}");
    }
}

/// An index damaged by an older version (a `#` name's line took the place
/// of `deploy.md`'s) is diagnosed and repaired: the memory that lost its
/// line is named, and `index fix` gives it one.
#[test]
fn index_check_finds_the_memory_a_hash_name_shadowed_and_fix_repairs_it() {
    let w = world();
    std::fs::create_dir_all(&w.memory).unwrap();
    for (file, name) in [("deploy.md", "deploy"), ("deploy.md#x.md", "deploy.md#x")] {
        std::fs::write(
            w.memory.join(file),
            format!("---\nname: {name}\ndescription: about {name}\ntype: project\n---\nx\n"),
        )
        .unwrap();
    }
    std::fs::write(
        w.memory.join("MEMORY.md"),
        "- [deploy.md#x](deploy.md#x.md) — x\n",
    )
    .unwrap();
    let check = w.run(&["index", "check", "--json"]);
    let lint: Value = serde_json::from_slice(&check.stdout).unwrap();
    let unlinked: Vec<&str> = lint["lint"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["kind"] == "unlinked-file")
        .map(|l| l["message"].as_str().unwrap())
        .collect();
    assert_eq!(unlinked.len(), 1, "{lint}");
    assert!(unlinked[0].starts_with("deploy.md is"), "{lint}");
    let fix = w.run(&["index", "fix"]);
    assert!(fix.status.success(), "{}", stderr(&fix));
    let lines = index_lines(&w.memory.join("MEMORY.md"));
    assert!(
        lines.iter().any(|l| l.contains("](deploy.md)")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("deploy.md#x.md")),
        "{lines:?}"
    );
}

/// MCP `delete_memory` of a `#` name that does not exist removes nothing,
/// and a body larger than memdir could read back is refused on write.
#[test]
fn mcp_delete_of_a_missing_hash_name_and_an_oversized_body_change_nothing() {
    let w = world();
    assert!(w.add("deploy", "how we ship", &[]).status.success());
    let before = w.read("MEMORY.md");
    let results = w.mcp(&[
        json!({"name": "delete_memory", "arguments": {"name": "deploy.md#zzz"}}),
        json!({"name": "write_memory", "arguments": {"name": "huge", "type": "project",
            "description": "a huge one", "body": "x".repeat(3_000_000), "scope": "private"}}),
    ]);
    assert_eq!(results[0]["isError"], true, "{}", results[0]);
    assert_eq!(w.read("MEMORY.md"), before);
    assert_eq!(results[1]["isError"], true);
    assert!(tool_text(&results[1]).contains("bytes"), "{}", results[1]);
    assert!(!w.memory.join("huge.md").exists());
}

/// A secret in a team memory's title reaches neither `team/MEMORY.md`
/// (through `add` or MCP, new or updated) nor any output.
#[test]
fn a_secret_title_never_reaches_the_team_index() {
    let w = world();
    let title = format!("deploy using {}", token());
    let out = w.add("deploy", "how we ship", &["--team", "--title", &title]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("index line"), "{}", stderr(&out));
    assert!(!stderr(&out).contains(&token()));
    let results = w.mcp(&[
        json!({"name": "write_memory", "arguments": {"name": "ci", "type": "project",
            "description": "the CI", "body": "Runs on push.", "scope": "team", "title": title}}),
        json!({"name": "write_memory", "arguments": {"name": "ci", "type": "project",
            "description": "the CI", "body": "Runs on push.", "scope": "team"}}),
        json!({"name": "write_memory", "arguments": {"name": "ci", "type": "project",
            "description": "the CI", "body": "Runs on push.", "scope": "team", "title": title}}),
    ]);
    assert_eq!(results[0]["isError"], true, "{}", results[0]);
    assert_ne!(results[1]["isError"], true, "{}", results[1]);
    assert_eq!(results[2]["isError"], true, "an update: {}", results[2]);
    assert!(!tool_text(&results[2]).contains(&token()));
    assert!(!w.read("team/MEMORY.md").contains(&token()));
    assert!(!w.read("team/ci.md").contains(&token()));
}

/// A secret in a private memory is refused unless the user keeps it
/// knowingly; it is never allowed into the team folder.
#[test]
fn a_private_secret_needs_allow_secret() {
    let w = world();
    let body = format!("token {}", token());
    let mut args = vec![
        "add",
        "--type",
        "reference",
        "--name",
        "gh",
        "--description",
        "gh token",
        "--body",
        &body,
    ];
    let out = w.run(&args);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("--allow-secret"), "{}", stderr(&out));
    assert!(!w.memory.join("gh.md").exists());
    args.push("--allow-secret");
    let out = w.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("kept a secret (github-pat"),
        "{}",
        stderr(&out)
    );
    args.push("--team");
    let out = w.run(&args);
    assert_eq!(
        out.status.code(),
        Some(2),
        "--allow-secret with --team is a usage error"
    );
}

/// A 30,000-character description once made a line that the 25,000-byte
/// cut dropped with every line after it; now its line is short and every
/// later memory still reaches the prompt.
#[test]
fn a_long_description_hides_no_memory_from_the_prompt() {
    let w = world();
    let long = "the deploy pipeline ".repeat(1_500);
    let out = w.add("pipeline", &long, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    for i in 0..5 {
        assert!(
            w.add(&format!("later-{i}"), "a later memory", &[])
                .status
                .success()
        );
    }
    let shown: Value = serde_json::from_slice(&w.run(&["index", "show", "--json"]).stdout).unwrap();
    let content = shown["content"].as_str().unwrap();
    assert!(!content.contains("WARNING"), "{content}");
    for i in 0..5 {
        assert!(content.contains(&format!("](later-{i}.md)")), "{content}");
    }
    assert!(
        index_lines(&w.memory.join("MEMORY.md"))
            .iter()
            .all(|l| l.chars().count() <= 200)
    );
    assert!(w.read("pipeline.md").contains(long.trim_end()));
}

/// Control characters are refused on write, and those in files other
/// programs wrote are escaped when printed and left out of index lines.
#[test]
fn control_characters_never_reach_the_terminal_or_the_index() {
    let w = world();
    let out = w.add("retitle", "hi \u{1b}]0;pwned\u{7} there", &[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(!w.memory.join("retitle.md").exists());
    std::fs::create_dir_all(&w.memory).unwrap();
    std::fs::write(
        w.memory.join("planted.md"),
        "---\nname: planted\ndescription: \"clear \\e[2J and \\e]0;pwned\\a\"\ntype: project\n---\nx\n",
    )
    .unwrap();
    let list = w.run(&["list"]);
    assert!(list.status.success(), "{}", stderr(&list));
    assert!(
        !list.stdout.contains(&0x1b) && !list.stdout.contains(&0x07),
        "{}",
        stdout(&list)
    );
    assert!(stdout(&list).contains("\\u{1b}[2J"), "{}", stdout(&list));
    assert!(w.run(&["index", "fix"]).status.success());
    let index = w.read("MEMORY.md");
    assert!(index.contains("](planted.md)"), "{index}");
    assert!(
        !index.contains('\u{1b}') && !index.contains('\u{7}'),
        "{index:?}"
    );
}

/// `memory` would be `memory.md`, the index itself on a disk that ignores
/// letter case.
#[test]
fn a_name_that_is_the_index_in_another_case_is_refused() {
    let w = world();
    for name in ["memory", "Memory"] {
        let out = w.add(name, "x", &[]);
        assert_eq!(out.status.code(), Some(3), "{name}: {}", stderr(&out));
    }
    assert!(!w.memory.join("memory.md").exists());
}

/// A description with escape sequences that another program wrote goes out
/// to another tool's file without them.
#[test]
fn exports_carry_no_control_characters() {
    let w = world();
    std::fs::create_dir_all(&w.memory).unwrap();
    std::fs::write(
        w.memory.join("planted.md"),
        "---\nname: planted\ndescription: \"retitle \\e]0;pwned\\a now\"\ntype: project\n---\nx\n",
    )
    .unwrap();
    let out_dir = w.memory.with_file_name("out");
    for format in ["mcp-memory", "gemini", "agents-md", "cline"] {
        let out = w.run(&["export", format, out_dir.to_str().unwrap()]);
        assert!(out.status.success(), "{format}: {}", stderr(&out));
    }
    for entry in walkdir(&out_dir) {
        let text = std::fs::read(&entry).unwrap();
        assert!(
            !text.contains(&0x1b) && !text.contains(&0x07),
            "{}",
            entry.display()
        );
    }
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walkdir(&path));
        } else {
            out.push(path);
        }
    }
    out
}
