//! A whole session through the hooks `memdir hooks install` puts in the
//! user's settings, run through a shell in the order an agent calls them:
//! start, prompts, stop after a turn, pre-compact, start after compaction,
//! end — against a scripted Anthropic server; then the memory folder and
//! the session notes are checked.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use memdir_testkit::anthropic::{message as answer, tool_use as tool};
use memdir_testkit::{Folders, ScriptedServer};
use serde_json::{Value, json};

use crate::{memdir_in, memdir_with_stdin, stderr, stdout};

struct Session {
    folders: Folders,
    server: ScriptedServer,
    transcript: PathBuf,
    memory: PathBuf,
}

const SESSION: &str = "0b7e6c1a-e2e0-4000-8000-00000000e2e1";

impl Session {
    fn vars(&self) -> Vec<(&'static str, String)> {
        vec![
            ("HOME", self.folders.home.display().to_string()),
            ("ANTHROPIC_API_KEY", "sk-test-key".to_owned()),
            ("ANTHROPIC_BASE_URL", self.server.url().to_owned()),
            ("MEMDIR_MODEL_TIMEOUT_MS", "10000".to_owned()),
        ]
    }

    fn run(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let vars = self.vars();
        let refs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        memdir_with_stdin(&self.folders.project, &refs, args, stdin)
    }

    /// Runs the command `memdir hooks install` put in the user's settings
    /// for `event`, through a shell as the agent does, with `input` on
    /// stdin.
    fn run_installed(&self, event: &str, input: &str) -> Output {
        use std::io::Write as _;
        let settings =
            std::fs::read_to_string(self.folders.home.join(".claude/settings.json")).unwrap();
        let settings: Value = serde_json::from_str(&settings).unwrap();
        let command = settings["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap_or_else(|| panic!("no {event} hook installed: {settings}"))
            .to_owned();
        let mut cmd = std::process::Command::new("sh");
        cmd.arg("-c")
            .arg(&command)
            .current_dir(&self.folders.project);
        for var in crate::MEMDIR_VARS.iter().chain(&crate::MODEL_VARS) {
            cmd.env_remove(var);
        }
        for (k, v) in self.vars() {
            cmd.env(k, v);
        }
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    /// Runs a hook with the common fields and `extra`; returns its
    /// additionalContext (empty when it added nothing).
    fn hook(&self, event: &str, name: &str, extra: &Value) -> String {
        let mut input = json!({
            "session_id": SESSION,
            "transcript_path": self.transcript,
            "cwd": self.folders.project,
            "hook_event_name": name,
            "permission_mode": "default",
        });
        for (k, v) in extra.as_object().unwrap() {
            input[k] = v.clone();
        }
        let started = Instant::now();
        let out = self.run_installed(name, &input.to_string());
        assert_eq!(out.status.code(), Some(0), "hook {event}: {}", stderr(&out));
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "hook {event} took {:?}",
            started.elapsed()
        );
        let text = stdout(&out);
        if text.trim().is_empty() {
            return String::new();
        }
        let value: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("hook {event}: {e}: {text}"));
        assert_eq!(
            value["hookSpecificOutput"]["hookEventName"], name,
            "{value}"
        );
        value["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    fn append(&self, line: &Value) {
        let mut text = std::fs::read_to_string(&self.transcript).unwrap_or_default();
        text.push_str(&line.to_string());
        text.push('\n');
        std::fs::write(&self.transcript, text).unwrap();
    }
}

impl Session {
    /// How many requests the server has had, once it has had at least
    /// `n` (or after 30 s).
    fn requests_once_at_least(&self, n: usize) -> usize {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.server.requests().len() < n && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        self.server.requests().len()
    }
}

fn wait_for(path: &Path, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !path.exists() {
        assert!(
            Instant::now() < deadline,
            "{what} never appeared at {}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The session's world: a project, its memory folder as memdir resolves
/// it, the transcript path, and a server with the four calls the session
/// should make — the extraction's two, the notes update's two.
fn start() -> (Session, PathBuf) {
    let folders = Folders::new();
    let transcript = folders.root.join(format!("{SESSION}.jsonl"));
    let home = folders.home.display().to_string();
    let paths = memdir_in(
        &folders.project,
        &[("HOME", home.as_str())],
        ["paths", "--json"],
    );
    let paths: Value = serde_json::from_slice(&paths.stdout).unwrap();
    let memory = PathBuf::from(
        paths["autoMemPath"]
            .as_str()
            .unwrap_or_else(|| panic!("{paths}")),
    );
    let mem = memory.display().to_string();
    let notes = folders
        .project
        .join(format!(".claude/session-memory/session-{SESSION}.md"));
    let server = ScriptedServer::start(vec![
        // The extraction after the first turn: one Write, then done.
        answer(
            &json!([tool(
                "w1",
                "Write",
                &json!({"file_path": format!("{mem}/staging-fridays.md"),
                "content": "---\nname: staging-fridays\ndescription: staging is read-only on Fridays\ntype: project\n---\nStaging is read-only on Fridays.\n"})
            )]),
            "tool_use",
        ),
        answer(&json!([{"type": "text", "text": "Saved."}]), "end_turn"),
        // The session-notes update before compaction: one Edit, then done.
        answer(
            &json!([tool(
                "e1",
                "Edit",
                &json!({"file_path": notes.display().to_string(),
            "old_string": "_A short, specific name for this session's work, five to ten words_\n",
            "new_string": "_A short, specific name for this session's work, five to ten words_\nStaging rules and package installs\n"})
            )]),
            "tool_use",
        ),
        answer(
            &json!([{"type": "text", "text": "Notes updated."}]),
            "end_turn",
        ),
    ]);
    (
        Session {
            folders,
            server,
            transcript,
            memory,
        },
        notes,
    )
}

#[test]
fn a_session_through_the_hooks_remembers_across_turns_and_compaction() {
    let (s, notes) = start();

    // A memory saved earlier, for recall to find.
    let added = s.run(
        &[
            "add",
            "--type",
            "feedback",
            "--name",
            "use-pnpm",
            "--description",
            "use pnpm, never npm, for installs",
            "--body",
            "npm broke the lockfile.",
        ],
        None,
    );
    assert!(added.status.success(), "{}", stderr(&added));

    // 0. The user installs memdir's hooks; the agent will run what they
    // name.
    let installed = s.run(&["hooks", "install", "--json"], None);
    assert!(installed.status.success(), "{}", stderr(&installed));
    let report: Value = serde_json::from_slice(&installed.stdout).unwrap();
    assert_eq!(report["added"].as_array().unwrap().len(), 6, "{report}");

    // 1. Start: the memory prompt.
    let start = s.hook(
        "session-start",
        "SessionStart",
        &json!({"source": "startup"}),
    );
    assert!(start.contains("MEMORY.md"), "{start}");
    assert!(start.contains("use-pnpm"), "{start}");

    // 2. Prompts: the relevant memory once, then not again.
    let first = s.hook(
        "user-prompt-submit",
        "UserPromptSubmit",
        &json!({"prompt": "how should I install packages, npm or pnpm?", "prompt_id": "p1"}),
    );
    assert!(first.contains("use-pnpm"), "{first}");
    let again = s.hook(
        "user-prompt-submit",
        "UserPromptSubmit",
        &json!({"prompt": "and pnpm for the lockfile too?", "prompt_id": "p2"}),
    );
    assert!(!again.contains("use-pnpm"), "injected twice: {again}");

    // 3. A turn happens; stop starts extraction in the background.
    s.append(&json!({"type": "user", "uuid": "u1", "sessionId": SESSION, "message": {"role": "user", "content": "Note: staging is read-only on Fridays."}}));
    s.append(&json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": SESSION,
        "message": {"id": "msg_main_1", "role": "assistant", "content": [{"type": "text", "text": "Got it."}], "usage": {"input_tokens": 900, "output_tokens": 5}}}));
    let started = Instant::now();
    let stop = s.hook(
        "stop",
        "Stop",
        &json!({"stop_hook_active": false, "last_assistant_message": "Got it."}),
    );
    assert!(stop.is_empty(), "{stop}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "stop waited for extraction: {:?}",
        started.elapsed()
    );
    wait_for(&s.memory.join("staging-fridays.md"), "the extracted memory");

    // The memory is written between the extraction's two calls: its
    // second call (the tool's result) may still be on its way.
    let served = s.requests_once_at_least(2);
    assert_eq!(served, 2, "the extraction made two model calls");

    // 4. Before compaction: the session notes are written through the
    // Edit-only agent.
    let pre = s.hook(
        "pre-compact",
        "PreCompact",
        &json!({"trigger": "auto", "custom_instructions": null}),
    );
    assert!(pre.is_empty(), "{pre}");
    let text = std::fs::read_to_string(&notes)
        .unwrap_or_else(|e| panic!("no notes at {}: {e}", notes.display()));
    assert!(
        text.contains("Staging rules and package installs"),
        "{text}"
    );
    assert!(text.contains("# Worklog"), "the template survived: {text}");
    assert_eq!(s.server.requests().len(), 4);

    // 5. After compaction: the notes come back with the memory prompt,
    // and the new memory is in the index the prompt shows.
    let after = s.hook(
        "session-start",
        "SessionStart",
        &json!({"source": "compact"}),
    );
    assert!(
        after.contains("Staging rules and package installs"),
        "{after}"
    );
    assert!(after.contains("staging-fridays"), "{after}");

    // 6. End: quick, nothing added, nothing else asked of the model.
    let started = Instant::now();
    let end = s.hook(
        "session-end",
        "SessionEnd",
        &json!({"reason": "prompt_input_exit"}),
    );
    assert!(end.is_empty(), "{end}");
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(s.server.requests().len(), 4);
    let index = std::fs::read_to_string(s.memory.join("MEMORY.md")).unwrap();
    assert_eq!(index.matches("(staging-fridays.md)").count(), 1, "{index}");
    assert_eq!(index.matches("(use-pnpm.md)").count(), 1, "{index}");
}
