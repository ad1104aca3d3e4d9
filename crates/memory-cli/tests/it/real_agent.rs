//! The real agent: Claude Code as published on npm
//! (`@anthropic-ai/claude-code`), run headless (`claude -p`) against a
//! scripted model on 127.0.0.1, with the hooks `memdir hooks install`
//! wrote. The natural two-clause prompt gets the deploy memory, and a
//! memory the agent writes with its Write tool is indexed by the
//! post-tool hook before any recall.
//!
//! The binary comes from `MEMDIR_CLAUDE_BIN` (`.ci/run` installs the
//! package and sets it). Without it the test says so and passes, unless
//! `MEMDIR_REQUIRE_CLAUDE=1` (set by CI) makes that a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use memdir_testkit::anthropic::{streamed, tool_use};
use memdir_testkit::{Folders, Recorded, Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::{memdir_in, root, stdout};

const PROMPT: &str = "How do we deploy this service, and is today a good day for it?";

fn claude() -> Option<PathBuf> {
    std::env::var_os("MEMDIR_CLAUDE_BIN")
        .map(PathBuf::from)
        .filter(|p| p.is_file())
}

/// What the scripted model answers: for the agent's turn (the request
/// that offers the Write tool), a Write of `memory` first, then a short
/// text once the tool's result is back; a short text for anything else
/// the agent asks on the side.
fn model(request: &Recorded, memory: &Path) -> Reply {
    if request.target.contains("count_tokens") {
        return Reply::json(200, &json!({"input_tokens": 10}));
    }
    let body = request.json();
    let offers_write = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|t| t["name"] == "Write");
    let results = body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|c| c["type"] == "tool_result")
        .count();
    let content = if offers_write && results == 0 {
        json!([tool_use(
            "toolu_write_1",
            "Write",
            &json!({
                "file_path": memory,
                "content": "---\nname: release-train\ndescription: Releases leave on the Tuesday train\ntype: project\n---\nCut the branch on Monday.\n",
            }),
        )])
    } else {
        json!([{"type": "text", "text": "Done."}])
    };
    let stop = if content[0]["type"] == "tool_use" {
        "tool_use"
    } else {
        "end_turn"
    };
    if body["stream"] == true {
        streamed(&content, stop)
    } else {
        memdir_testkit::anthropic::message(&content, stop)
    }
}

#[test]
#[allow(clippy::print_stderr)] // says plainly that the test was skipped
fn claude_code_gets_the_deploy_memory_and_the_post_tool_hook_indexes_its_write() {
    let Some(claude) = claude() else {
        assert!(
            std::env::var("MEMDIR_REQUIRE_CLAUDE").as_deref() != Ok("1"),
            "MEMDIR_REQUIRE_CLAUDE=1 but MEMDIR_CLAUDE_BIN names no Claude Code binary"
        );
        eprintln!(
            "skipped: set MEMDIR_CLAUDE_BIN to a Claude Code binary (npm @anthropic-ai/claude-code)"
        );
        return;
    };
    let folders = Folders::new();
    std::fs::create_dir_all(folders.home.join(".claude")).unwrap();
    let home = folders.home.display().to_string();
    let vars = [("HOME", home.as_str())];
    let paths = memdir_in(&folders.project, &vars, ["--json", "paths"]);
    let paths: Value = serde_json::from_slice(&paths.stdout).unwrap();
    let memory = PathBuf::from(paths["autoMemPath"].as_str().unwrap());
    std::fs::create_dir_all(&memory).unwrap();
    let fixture = root().join("fixtures/recall/hook-e2e/memory");
    let mut fixture_memories = 0;
    for entry in std::fs::read_dir(&fixture).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), memory.join(entry.file_name())).unwrap();
        fixture_memories += u64::from(entry.file_name() != "MEMORY.md");
    }
    let installed = memdir_in(&folders.project, &vars, ["hooks", "install"]);
    assert_eq!(installed.status.code(), Some(0), "{installed:?}");
    // Extraction has tests of its own; here it would ask the same model.
    let settings_file = folders.home.join(".claude/settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings_file).unwrap()).unwrap();
    settings["hooks"].as_object_mut().unwrap().remove("Stop");
    std::fs::write(&settings_file, settings.to_string()).unwrap();

    let written = memory.join("release-train.md");
    let server = {
        let written = written.clone();
        ScriptedServer::answering(move |request| model(request, &written))
    };
    let mut child = Command::new(&claude)
        .args(["-p", PROMPT, "--permission-mode", "acceptEdits"])
        .args(["--allowedTools", "Read Write Edit"])
        .current_dir(&folders.project)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &folders.home)
        .env("ANTHROPIC_BASE_URL", server.url())
        .env(
            "ANTHROPIC_API_KEY",
            "sk-ant-test-0123456789abcdefghijklmnopqrstuvwxyz",
        )
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(180);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("claude -p ran for three minutes");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    let requests = server.requests();
    assert!(
        out.status.success(),
        "claude -p failed: {}\n{}\nrequests: {}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr),
        requests.len()
    );

    // The prompt hook's memory reached the model with the prompt: its
    // body, which the index the agent loads itself (MEMORY.md) lacks.
    let turn: Vec<&Recorded> = requests
        .iter()
        .filter(|r| String::from_utf8_lossy(&r.body).contains("a good day for it"))
        .collect();
    assert!(!turn.is_empty(), "the prompt never reached the model");
    assert!(
        turn.iter()
            .any(|r| String::from_utf8_lossy(&r.body).contains("runs the smoke tests first")),
        "the deploy memory was not given with the prompt"
    );

    // The agent's Write, then its post-tool hook: the new memory is in the
    // index before any recall has run since the prompt's.
    assert!(
        written.is_file(),
        "the agent did not write {}",
        written.display()
    );
    let status = memdir_in(
        &folders.project,
        &vars,
        ["--json", "recall-index", "status"],
    );
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["memories"], json!(fixture_memories + 1), "{status}");
    let log = folders.home.join(".claude/memdir/logs/hooks.log");
    let log = std::fs::read_to_string(log).unwrap_or_default();
    assert!(log.is_empty(), "the hooks logged errors: {log}");
}
