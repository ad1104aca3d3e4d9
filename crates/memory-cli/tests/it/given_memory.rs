//! A memory as an agent is given it, through every front end that gives
//! one: the prompt hook, MCP `recall_memories` and MCP `read_memory` show
//! the same block, with the same age (from `modified`, SPEC R2.5), the
//! same notes and the same cap.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use memdir_testkit::Folders;
use serde_json::{Value, json};

use crate::{memdir_with_stdin, stdout};

const DAY_MS: u128 = 86_400_000;

/// A project, its memory folder and the options every command gets.
struct World {
    folders: Folders,
    memory: String,
    project: String,
    home: String,
}

impl World {
    /// `memory/deploys.md`, recorded as written 40 days ago (and an hour,
    /// so that the day cannot turn during the test) but with a fresh mtime,
    /// as a cloned or synced folder has it; it cites a script the project
    /// lacks, and its body is `body_chars` characters long.
    fn new(body_chars: usize) -> World {
        let folders = Folders::new();
        let memory = folders.root.join("memory");
        std::fs::create_dir_all(&memory).unwrap();
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis();
        let written = i64::try_from(now - 40 * DAY_MS - 3_600_000).unwrap();
        let modified = jiff::Timestamp::from_millisecond(written).unwrap();
        let body = format!("{}\n", "x".repeat(49)).repeat(body_chars / 50);
        std::fs::write(
            memory.join("deploys.md"),
            format!(
                "---\nname: deploys\ndescription: How we deploy to staging\ntype: project\n\
                 modified: {modified}\n---\nDeploy to staging with `scripts/deploy.sh` first.\n{body}"
            ),
        )
        .unwrap();
        World {
            memory: memory.display().to_string(),
            project: folders.project.display().to_string(),
            home: folders.home.display().to_string(),
            folders,
        }
    }

    fn vars(&self) -> [(&str, &str); 2] {
        // A budget no machine runs out of: the notes do not depend on speed.
        [
            ("HOME", self.home.as_str()),
            ("MEMDIR_CITATIONS_BUDGET_MS", "60000"),
        ]
    }

    fn global(&self) -> [&str; 4] {
        ["--memory-dir", &self.memory, "--project", &self.project]
    }

    /// What the prompt hook injects for `prompt`.
    fn hook(&self, prompt: &str) -> String {
        let input = json!({
            "session_id": "s-given",
            "cwd": self.project,
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        })
        .to_string();
        let mut args = self.global().to_vec();
        args.extend(["hook", "user-prompt-submit"]);
        let out = memdir_with_stdin(&self.folders.root, &self.vars(), args, Some(&input));
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let value: Value = serde_json::from_str(&stdout(&out)).expect("hook JSON");
        value["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// The text of each MCP tool call in `calls` (`[name, arguments]`).
    fn mcp(&self, calls: &[(&str, Value)]) -> Vec<String> {
        let mut args = self.global().to_vec();
        args.push("mcp");
        let mut child = crate::command(&self.folders.root, &self.vars(), args)
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
        let mut send = |v: &Value| writeln!(input, "{v}").unwrap();
        send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}}),
        );
        wait(0);
        send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        let mut texts = Vec::new();
        for (id, (name, arguments)) in (1u64..).zip(calls) {
            send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": name, "arguments": arguments}}));
            let result = wait(id)["result"].clone();
            assert_ne!(result["isError"], true, "{name}: {result}");
            texts.push(result["content"][0]["text"].as_str().unwrap().to_owned());
        }
        drop(input);
        child.wait().unwrap();
        texts
    }
}

#[test]
fn the_hook_and_both_mcp_tools_give_the_same_memory_aged_from_modified_and_capped() {
    let w = World::new(5_000);
    let prompt = "how do we deploy to staging";
    let context = w.hook(prompt);
    let (intro, hook_block) = context
        .split_once("\n\n")
        .unwrap_or_else(|| panic!("{context}"));
    assert_eq!(
        intro,
        "Memories that may be relevant to this request (from memdir):"
    );
    let mcp = w.mcp(&[
        ("recall_memories", json!({"query": prompt})),
        ("read_memory", json!({"name": "deploys"})),
    ]);
    let (recalled, read) = (&mcp[0], &mcp[1]);
    assert_eq!(
        recalled, hook_block,
        "MCP recall_memories and the hook differ"
    );
    assert_eq!(read, hook_block, "MCP read_memory and the hook differ");

    // The age is the recorded one, 40 days, not the fresh mtime's.
    let path = format!("{}/deploys.md", w.memory);
    let mut lines = hook_block.lines();
    assert_eq!(
        lines.next(),
        Some(format!("## deploys.md ({path}, saved 40 days ago)").as_str()),
        "{hook_block}"
    );
    let freshness = lines.next().unwrap();
    assert!(
        freshness.starts_with("<system-reminder>This memory is 40 days old."),
        "{hook_block}"
    );
    let cited = lines.next().unwrap();
    assert!(
        cited.starts_with("<system-reminder>Checked against the project's files: cites `scripts/deploy.sh`, which does not exist now"),
        "{hook_block}"
    );
    // The text is the file's, cut at 1,800 characters with a note.
    let content: Vec<&str> = lines.collect();
    assert_eq!(content.first(), Some(&"---"), "{hook_block}");
    let content = content.join("\n");
    assert!(
        content.chars().count() <= 1_800,
        "{}",
        content.chars().count()
    );
    let note = content.lines().last().unwrap();
    assert!(
        note.starts_with("[memdir: ")
            && note.contains(
                "more characters not shown (an agent is given at most 1800 characters of a memory)"
            ),
        "{note}"
    );
}

/// A memory longer than a few times the cap is given cut like any other,
/// not left out (and still recorded as given).
#[test]
fn a_long_memory_is_given_cut_not_dropped() {
    let w = World::new(20_000);
    let context = w.hook("how do we deploy to staging");
    assert!(
        context.contains("## deploys.md (") && context.contains("more characters not shown"),
        "{context}"
    );
}
