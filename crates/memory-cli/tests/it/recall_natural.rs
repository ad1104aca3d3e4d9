//! The prompt hook as a person's natural prompts reach it: a question of
//! two clauses still brings the memory it needs, and a prompt that needs
//! no memory brings none. The folder is `fixtures/recall/hook-e2e/memory`;
//! the hook input is what the agent sends for `UserPromptSubmit`.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::{memdir_with_stdin, root, stdout};

struct World {
    tmp: tempfile::TempDir,
    memory: PathBuf,
}

fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let memory = tmp.path().join("memory");
    std::fs::create_dir(&memory).unwrap();
    for entry in std::fs::read_dir(root().join("fixtures/recall/hook-e2e/memory")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), memory.join(entry.file_name())).unwrap();
    }
    World { tmp, memory }
}

impl World {
    /// What the hook adds for `prompt` in a new session, or `None`.
    fn injected(&self, session: &str, prompt: &str) -> Option<String> {
        let home = self.tmp.path().join("home");
        // The agent's configuration folder exists, as for a real agent, so
        // recall goes through its persistent index.
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        let input = json!({
            "session_id": session,
            "transcript_path": self.tmp.path().join("t.jsonl"),
            "cwd": self.tmp.path(),
            "hook_event_name": "UserPromptSubmit",
            "permission_mode": "default",
            "prompt": prompt,
        });
        let out = memdir_with_stdin(
            self.tmp.path(),
            &[("HOME", home.to_str().unwrap())],
            [
                "--memory-dir",
                self.memory.to_str().unwrap(),
                "hook",
                "user-prompt-submit",
            ],
            Some(&input.to_string()),
        );
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let text = stdout(&out);
        if text.trim().is_empty() {
            return None;
        }
        let value: Value = serde_json::from_str(&text).unwrap();
        value["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .map(str::to_owned)
    }
}

#[test]
fn a_two_clause_question_brings_the_deploy_memory() {
    let w = world();
    let context = w
        .injected(
            "s-two-clauses",
            "How do we deploy this service, and is today a good day for it?",
        )
        .expect("the hook injected nothing");
    assert!(context.contains("deploy-fridays.md"), "{context}");
    assert!(context.contains("make ship"), "{context}");
    let index = w.tmp.path().join("home/.claude/memdir/recall");
    let kept = std::fs::read_dir(&index)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "sqlite")
        })
        .count();
    assert_eq!(kept, 1, "the hook recalled through the folder's index");
}

#[test]
fn thanks_brings_nothing() {
    let w = world();
    for (i, prompt) in ["thanks that worked", "ok", "explain what CORS is"]
        .into_iter()
        .enumerate()
    {
        assert_eq!(w.injected(&format!("s-none-{i}"), prompt), None, "{prompt}");
    }
}
