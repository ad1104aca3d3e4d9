//! `memdir extract` against a scripted model server that speaks the
//! Anthropic Messages API: what a run writes, and what it refuses.

use std::path::{Path, PathBuf};

use memdir_testkit::anthropic::{message as answer, tool_use as tool};
use memdir_testkit::{Folders, Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::{memdir_in, stderr, stdout};

/// A GitHub token of high entropy, assembled so this file holds none.
fn token() -> String {
    format!("ghp_{}", "q8Zr2LkW9xTb4YcN7mVd1HsF6jPa3EuG5oRi")
}

struct World {
    folders: Folders,
    memory: PathBuf,
    transcript: PathBuf,
}

/// A project, a memory folder given with --memory-dir, and a transcript of
/// one exchange worth remembering.
fn world() -> World {
    let folders = Folders::new();
    let memory = folders.root.join("memory");
    let transcript = folders
        .root
        .join("5f1c2d9e-aaaa-4bbb-8ccc-000000000001.jsonl");
    let lines = [
        json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": "s-1",
               "timestamp": "2026-12-01T10:00:00Z", "cwd": folders.project,
               "message": {"role": "user", "content": "I'm a data scientist, new to Rust. Always use pnpm here: npm broke our lockfile last week."}}),
        json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s-1",
               "timestamp": "2026-12-01T10:00:05Z",
               "message": {"id": "msg_main_1", "role": "assistant", "model": "claude-main",
                           "content": [{"type": "text", "text": "Understood: pnpm from now on."}],
                           "usage": {"input_tokens": 900, "output_tokens": 12}}}),
    ];
    let text = lines
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    std::fs::write(&transcript, text).unwrap();
    World {
        folders,
        memory,
        transcript,
    }
}

fn run(w: &World, server: &ScriptedServer, extra: &[(&str, &str)]) -> std::process::Output {
    let home = w.folders.home.display().to_string();
    let mut vars = vec![
        ("HOME", home.as_str()),
        ("ANTHROPIC_API_KEY", "sk-test-key"),
        ("ANTHROPIC_BASE_URL", server.url()),
        ("MEMDIR_MODEL_TIMEOUT_MS", "5000"),
    ];
    vars.extend_from_slice(extra);
    memdir_in(
        &w.folders.project,
        &vars,
        [
            "extract",
            "--json",
            "--memory-dir",
            w.memory.to_str().unwrap(),
            "--transcript",
            w.transcript.to_str().unwrap(),
        ],
    )
}

fn json_out(out: &std::process::Output) -> Value {
    serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\nstderr: {}", stdout(out), stderr(out)))
}

/// `memdir extract --json` over the world's transcript, started and left
/// running; its output is captured.
fn spawn_extract(w: &World, server: &ScriptedServer) -> std::process::Child {
    let home = w.folders.home.display().to_string();
    let mut cmd = crate::command(
        &w.folders.project,
        &[
            ("HOME", home.as_str()),
            ("ANTHROPIC_API_KEY", "sk-test-key"),
            ("ANTHROPIC_BASE_URL", server.url()),
        ],
        [
            "extract",
            "--json",
            "--memory-dir",
            w.memory.to_str().unwrap(),
            "--transcript",
            w.transcript.to_str().unwrap(),
        ],
    );
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    cmd.spawn().unwrap()
}

fn memory_file(name: &str, kind: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\n{body}\n")
}

#[test]
fn a_run_reads_then_writes_two_memories_with_their_index_lines() {
    let w = world();
    let mem = w.memory.display().to_string();
    let server = ScriptedServer::start(vec![
        answer(
            &json!([{"type": "text", "text": "Checking the index."},
                    tool("toolu_1", "Read", &json!({"file_path": format!("{mem}/MEMORY.md")}))]),
            "tool_use",
        ),
        answer(
            &json!([
                tool(
                    "toolu_2",
                    "Write",
                    &json!({"file_path": format!("{mem}/user-role.md"),
                    "content": memory_file("user-role", "user", "data scientist, new to Rust", "Explain Rust through Python analogies.")})
                ),
                tool(
                    "toolu_3",
                    "Write",
                    &json!({"file_path": format!("{mem}/use-pnpm.md"),
                    "content": memory_file("use-pnpm", "feedback", "pnpm, never npm", "Use pnpm. **Why:** npm broke the lockfile (2026-11-24).")})
                ),
            ]),
            "tool_use",
        ),
        answer(
            &json!([{"type": "text", "text": "Saved two memories."}]),
            "end_turn",
        ),
    ]);
    let out = run(&w, &server, &[]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let report = json_out(&out);
    assert_eq!(report["ran"], true, "{report}");
    assert_eq!(report["turns"], 3);
    assert_eq!(report["stop"], "end_turn");
    let saved: Vec<String> = report["saved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    let canonical = std::fs::canonicalize(&w.memory).unwrap();
    assert_eq!(
        saved,
        [
            canonical.join("user-role.md").display().to_string(),
            canonical.join("use-pnpm.md").display().to_string()
        ]
    );
    assert!(
        report["notice"]
            .as_str()
            .unwrap()
            .starts_with("memory_saved: ")
    );
    assert!(
        std::fs::read_to_string(w.memory.join("use-pnpm.md"))
            .unwrap()
            .contains("Use pnpm.")
    );
    let index = std::fs::read_to_string(w.memory.join("MEMORY.md")).unwrap();
    assert_eq!(
        index,
        "- [user-role](user-role.md) — data scientist, new to Rust\n- [use-pnpm](use-pnpm.md) — pnpm, never npm\n"
    );
    // What the model was sent: the transcript and the manifest in the first
    // request; the Read's result, answered by id, in the second.
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let first = requests[0].json();
    let prompt = first["messages"][0]["content"].to_string();
    assert!(prompt.contains("Always use pnpm here"), "{prompt}");
    assert!(prompt.contains("(none yet)"));
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["Read", "Grep", "Glob", "Bash", "Edit", "Write"]);
    let second = requests[1].json().to_string();
    assert!(second.contains("\"tool_use_id\":\"toolu_1\""), "{second}");

    // Nothing new since: no model call, nothing written.
    let again = run(&w, &server, &[]);
    let report = json_out(&again);
    assert_eq!(report["ran"], false);
    assert!(
        report["reason"]
            .as_str()
            .unwrap()
            .contains("no new messages"),
        "{report}"
    );
    assert_eq!(server.requests().len(), 3);
}

#[cfg(unix)]
#[test]
fn hostile_turns_are_refused_and_nothing_lands_outside() {
    let w = world();
    let mem = w.memory.display().to_string();
    let outside = w.folders.root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(&w.memory).unwrap();
    std::os::unix::fs::symlink(&outside, w.memory.join("link")).unwrap();
    let victim = w.folders.project.join("keep.txt");
    std::fs::write(&victim, "keep").unwrap();
    let glob = |id: &str| tool(id, "Glob", &json!({"pattern": "*.md", "path": mem}));
    let mut script = vec![answer(
        &json!([
            tool(
                "t1",
                "Write",
                &json!({"file_path": outside.join("x.md"), "content": "escaped"})
            ),
            tool(
                "t2",
                "Write",
                &json!({"file_path": format!("{mem}/link/y.md"), "content": "escaped"})
            ),
            tool(
                "t3",
                "Write",
                &json!({"file_path": format!("{mem}/team/deploy.md"), "content": format!("token {}", token())})
            ),
            tool(
                "t4",
                "Bash",
                &json!({"command": format!("rm -rf {}", w.folders.project.display())})
            ),
            tool("t5", "Task", &json!({"prompt": "do anything"})),
            tool(
                "t6",
                "Write",
                &json!({"file_path": format!("{mem}/no-content.md")})
            ),
            tool("t7", "Bash", &json!({"command": "cat keep.txt > copy.txt"})),
        ]),
        "tool_use",
    )];
    for turn in 2..=6 {
        script.push(answer(&json!([glob(&format!("g{turn}"))]), "tool_use"));
    }
    let server = ScriptedServer::start(script);
    let out = run(&w, &server, &[("MEMDIR_TEAM", "1")]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let report = json_out(&out);
    assert_eq!(report["turns"], 5, "{report}");
    assert_eq!(report["stop"], "turn_limit");
    assert_eq!(
        server.requests().len(),
        5,
        "a sixth call reached the server"
    );
    assert!(report["saved"].as_array().unwrap().is_empty(), "{report}");
    let tools: Vec<&str> = report["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tool"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        ["Write", "Write", "Write", "Bash", "Task", "Write", "Bash"],
        "{report}"
    );
    let refused = report["refused"].to_string();
    for why in [
        "outside the memory folder",
        "looks like a secret",
        "no tool named Task",
        "content",
        "rm",
        "redirect",
    ] {
        assert!(refused.contains(why), "{why:?} missing from {refused}");
    }
    assert!(!refused.contains(&token()), "a refusal repeated the secret");
    assert!(std::fs::read_dir(&outside).unwrap().next().is_none());
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    assert!(!w.folders.project.join("copy.txt").exists());
    assert!(!w.memory.join("team/deploy.md").exists());
    assert!(w.folders.project.exists());
}

#[test]
fn without_a_model_it_says_so_and_writes_nothing() {
    let w = world();
    let home = w.folders.home.display().to_string();
    let out = memdir_in(
        &w.folders.project,
        &[("HOME", home.as_str())],
        [
            "extract",
            "--memory-dir",
            w.memory.to_str().unwrap(),
            "--transcript",
            w.transcript.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.starts_with("memdir: no model is configured"), "{err}");
    assert_eq!(err.lines().count(), 1);
    assert!(!w.memory.exists());
    assert!(!Path::new(&w.folders.home.join(".claude/memdir")).exists());
}

/// An OpenAI-compatible chat completion: tool calls with JSON-string
/// arguments, or text.
fn openai(tool_calls: &[(&str, &str, Value)], text: Option<&str>) -> Reply {
    let calls: Vec<Value> = tool_calls
        .iter()
        .map(|(id, name, args)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect();
    let mut message = json!({"role": "assistant", "content": text});
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    Reply::json(
        200,
        &json!({
            "id": "chatcmpl-test", "object": "chat.completion", "created": 1_764_583_200, "model": "local-test",
            "choices": [{"index": 0, "message": message,
                         "finish_reason": if tool_calls.is_empty() { "stop" } else { "tool_calls" }}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        }),
    )
}

#[test]
fn an_openai_compatible_server_updates_an_existing_memory_in_place() {
    let w = world();
    std::fs::create_dir_all(&w.memory).unwrap();
    let existing = memory_file("use-pnpm", "feedback", "pnpm, never npm", "Use pnpm.");
    std::fs::write(w.memory.join("use-pnpm.md"), &existing).unwrap();
    std::fs::write(
        w.memory.join("MEMORY.md"),
        "- [use-pnpm](use-pnpm.md) — pnpm, never npm\n",
    )
    .unwrap();
    let file = w.memory.join("use-pnpm.md").display().to_string();
    let server = ScriptedServer::start(vec![
        openai(&[("call_1", "Read", json!({"file_path": file}))], None),
        openai(
            &[(
                "call_2",
                "Edit",
                json!({"file_path": file, "old_string": "Use pnpm.",
                       "new_string": "Use pnpm. **Why:** npm broke the lockfile (2026-11-24)."}),
            )],
            None,
        ),
        openai(&[], Some("Updated the existing memory.")),
    ]);
    let url = format!("{}/v1", server.url());
    let out = run(
        &w,
        &server,
        &[
            ("ANTHROPIC_API_KEY", ""),
            ("OPENAI_BASE_URL", &url),
            ("MEMDIR_MODEL", "local-test"),
        ],
    );
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let report = json_out(&out);
    assert_eq!(
        (report["turns"].as_u64(), report["stop"].as_str()),
        (Some(3), Some("end_turn")),
        "{report}"
    );
    assert_eq!(report["saved"].as_array().unwrap().len(), 1);
    assert!(
        std::fs::read_to_string(w.memory.join("use-pnpm.md"))
            .unwrap()
            .contains("**Why:** npm broke")
    );
    assert_eq!(
        std::fs::read_to_string(w.memory.join("MEMORY.md")).unwrap(),
        "- [use-pnpm](use-pnpm.md) — pnpm, never npm\n",
        "an update must not add a second index line"
    );
    let requests = server.requests();
    assert_eq!(requests[0].target, "/v1/chat/completions");
    // The manifest offered the existing memory; the Read's answer went back
    // as a `tool` message with the call's id.
    assert!(requests[0].json().to_string().contains("use-pnpm.md"));
    let second = requests[1].json();
    let tool_message = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("a tool message");
    assert_eq!(tool_message["tool_call_id"], "call_1");
    assert!(
        tool_message["content"]
            .as_str()
            .unwrap()
            .contains("Use pnpm.")
    );
}

#[test]
fn an_overloaded_server_is_retried_and_a_failed_run_keeps_its_messages_for_next_time() {
    let w = world();
    let overloaded = Reply::json(
        529,
        &json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    );
    let server = ScriptedServer::start(vec![
        overloaded.clone(),
        answer(
            &json!([{"type": "text", "text": "Nothing worth keeping."}]),
            "end_turn",
        ),
    ]);
    let out = run(&w, &server, &[]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(server.requests().len(), 2, "the 529 was retried once");
    assert_eq!(json_out(&out)["ran"], true);

    // A second transcript line, then a server that answers too late: the
    // run fails (exit 1) and the cursor stays, so the next run sees it.
    let mut text = std::fs::read_to_string(&w.transcript).unwrap();
    text.push_str(
        &json!({"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "s-1",
                "message": {"role": "user", "content": "Also: the staging database is read-only on Fridays."}})
        .to_string(),
    );
    text.push('\n');
    std::fs::write(&w.transcript, text).unwrap();
    let slow = ScriptedServer::start(vec![
        answer(&json!([{"type": "text", "text": "late"}]), "end_turn")
            .delay(std::time::Duration::from_secs(3)),
    ]);
    let out = run(&w, &slow, &[("MEMDIR_MODEL_TIMEOUT_MS", "500")]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let report = json_out(&out);
    assert!(
        report["stop"].as_str().unwrap().starts_with("model error"),
        "{report}"
    );
    let retry = ScriptedServer::start(vec![answer(
        &json!([{"type": "text", "text": "Noted."}]),
        "end_turn",
    )]);
    let report = json_out(&run(&w, &retry, &[]));
    assert_eq!(report["reason"], "ran on 1 new messages", "{report}");
    assert!(
        retry.requests()[0]
            .json()
            .to_string()
            .contains("read-only on Fridays")
    );
}

#[test]
fn a_second_process_on_the_same_session_is_queued_and_run_as_a_trailing_run() {
    let w = world();
    let mem = w.memory.display().to_string();
    // The first run's first call takes a second: long enough for a second
    // process to find the session busy.
    let server = ScriptedServer::start(vec![
        answer(
            &json!([{"type": "text", "text": "Nothing yet."}]),
            "end_turn",
        )
        .delay(std::time::Duration::from_secs(1)),
        answer(
            &json!([tool(
                "w1",
                "Write",
                &json!({"file_path": format!("{mem}/fridays.md"),
                "content": memory_file("fridays", "project", "staging is read-only on Fridays", "Staging is read-only on Fridays.")})
            )]),
            "tool_use",
        ),
        answer(&json!([{"type": "text", "text": "Saved."}]), "end_turn"),
    ]);
    let first = spawn_extract(&w, &server);
    // Wait until the first run is talking to the model, then add a message
    // and ask again.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while server.requests().is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the first run never called the model"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let mut text = std::fs::read_to_string(&w.transcript).unwrap();
    text.push_str(
        &json!({"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "s-1",
                "message": {"role": "user", "content": "Remember: staging is read-only on Fridays."}})
        .to_string(),
    );
    text.push('\n');
    std::fs::write(&w.transcript, text).unwrap();
    let second = json_out(&run(&w, &server, &[]));
    assert_eq!(second["ran"], false, "{second}");
    assert!(
        second["reason"].as_str().unwrap().starts_with("queued"),
        "{second}"
    );
    let first = first.wait_with_output().unwrap();
    assert!(
        first.status.success(),
        "{}\n{}",
        stdout(&first),
        stderr(&first)
    );
    let report = json_out(&first);
    let reasons = report["reasons"].to_string();
    assert!(reasons.contains("ran on 2 new messages"), "{reasons}");
    assert!(
        reasons.contains("ran on 1 new messages (a trailing run)"),
        "{reasons}"
    );
    assert!(w.memory.join("fridays.md").exists());
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn an_extraction_and_concurrent_adds_lose_no_file_and_no_index_line() {
    let w = world();
    std::fs::create_dir_all(&w.memory).unwrap();
    let mem = w.memory.display().to_string();
    let pause = std::time::Duration::from_millis(150);
    let writes: Vec<Value> = (0..3)
        .map(|i| {
            tool(
                &format!("w{i}"),
                "Write",
                &json!({"file_path": format!("{mem}/extracted-{i}.md"),
                        "content": memory_file(&format!("extracted-{i}"), "project", &format!("extracted note {i}"), "body")}),
            )
        })
        .collect();
    let server = ScriptedServer::start(vec![
        answer(
            &json!([tool(
                "r",
                "Read",
                &json!({"file_path": format!("{mem}/MEMORY.md")})
            )]),
            "tool_use",
        )
        .delay(pause),
        answer(&Value::Array(writes), "tool_use").delay(pause),
        answer(
            &json!([{"type": "text", "text": "Saved three."}]),
            "end_turn",
        )
        .delay(pause),
    ]);
    let home = w.folders.home.display().to_string();
    let extraction = spawn_extract(&w, &server);
    let adds: Vec<_> = (0..10)
        .map(|i| {
            let mut cmd = crate::command(
                &w.folders.project,
                &[("HOME", home.as_str())],
                [
                    "--memory-dir".to_owned(),
                    mem.clone(),
                    "add".to_owned(),
                    "--type".to_owned(),
                    "project".to_owned(),
                    "--name".to_owned(),
                    format!("added-{i}"),
                    "--description".to_owned(),
                    format!("added note {i}"),
                    "--body".to_owned(),
                    "body".to_owned(),
                ],
            );
            cmd.stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            std::thread::sleep(std::time::Duration::from_millis(40));
            cmd.spawn().unwrap()
        })
        .collect();
    for add in adds {
        let out = add.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let out = extraction.wait_with_output().unwrap();
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(json_out(&out)["saved"].as_array().unwrap().len(), 3);
    let index = std::fs::read_to_string(w.memory.join("MEMORY.md")).unwrap();
    let names: Vec<String> = (0..10)
        .map(|i| format!("added-{i}"))
        .chain((0..3).map(|i| format!("extracted-{i}")))
        .collect();
    for name in &names {
        assert!(
            w.memory.join(format!("{name}.md")).exists(),
            "{name}.md is missing"
        );
        assert_eq!(
            index.matches(&format!("]({name}.md)")).count(),
            1,
            "{name} should have exactly one index line:\n{index}"
        );
    }
    assert_eq!(index.lines().count(), names.len(), "{index}");
}

#[test]
fn an_extraction_beside_team_pulls_loses_nothing_of_either() {
    let team = crate::team::Team::start();
    for i in 0..8 {
        team.write(
            "alice",
            &format!("k{i}.md"),
            &format!("alice's team note {i}\n"),
        );
    }
    team.ok("alice", &["team", "push"]);
    let bob = team.tmp.path().join("bob");
    std::fs::create_dir_all(bob.join("team")).unwrap();
    let transcript = team.tmp.path().join("t.jsonl");
    std::fs::write(
        &transcript,
        json!({"type": "user", "uuid": "u1", "sessionId": "s-team",
               "message": {"role": "user", "content": "The whole team squashes merges; I like dark themes."}})
        .to_string()
            + "\n",
    )
    .unwrap();
    let mem = bob.display().to_string();
    let pause = std::time::Duration::from_millis(150);
    let server = ScriptedServer::start(vec![
        answer(&json!([tool("r", "Glob", &json!({"pattern": "**/*.md", "path": mem}))]), "tool_use").delay(pause),
        answer(
            &json!([
                tool("w1", "Write", &json!({"file_path": format!("{mem}/team/squash-merges.md"),
                    "content": memory_file("squash-merges", "project", "the team squashes merges", "Squash merges.")})),
                tool("w2", "Write", &json!({"file_path": format!("{mem}/dark-theme.md"),
                    "content": memory_file("dark-theme", "user", "prefers dark themes", "Dark themes.")})),
            ]),
            "tool_use",
        )
        .delay(pause),
        answer(&json!([{"type": "text", "text": "Saved."}]), "end_turn").delay(pause),
    ]);
    let home = team.tmp.path().join("home").display().to_string();
    let mut cmd = crate::command(
        team.tmp.path(),
        &[
            ("HOME", home.as_str()),
            ("MEMDIR_TEAM", "1"),
            ("ANTHROPIC_API_KEY", "sk-test-key"),
            ("ANTHROPIC_BASE_URL", server.url()),
        ],
        [
            "extract",
            "--json",
            "--memory-dir",
            &mem,
            "--transcript",
            transcript.to_str().unwrap(),
        ],
    );
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let extraction = cmd.spawn().unwrap();
    for _ in 0..4 {
        team.ok("bob", &["team", "pull"]);
        std::thread::sleep(std::time::Duration::from_millis(60));
    }
    let out = extraction.wait_with_output().unwrap();
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(
        json_out(&out)["saved"].as_array().unwrap().len(),
        2,
        "{}",
        stdout(&out)
    );
    for i in 0..8 {
        assert_eq!(
            team.read("bob", &format!("k{i}.md")),
            format!("alice's team note {i}\n")
        );
    }
    assert!(
        team.read("bob", "squash-merges.md")
            .contains("Squash merges.")
    );
    assert!(bob.join("dark-theme.md").exists());
    let team_index = team.read("bob", "MEMORY.md");
    assert_eq!(
        team_index.matches("(squash-merges.md)").count(),
        1,
        "{team_index}"
    );
    assert!(
        !team_index.contains("k0.md"),
        "pulled files are the team's to index: {team_index}"
    );
    let index = std::fs::read_to_string(bob.join("MEMORY.md")).unwrap();
    assert_eq!(index.matches("(dark-theme.md)").count(), 1, "{index}");
    assert!(
        !index.contains("squash-merges"),
        "a team memory's line goes in the team index: {index}"
    );
}

#[cfg(unix)]
#[test]
fn an_extraction_killed_mid_run_leaves_the_session_free_and_its_messages_unconsumed() {
    let w = world();
    let slow = ScriptedServer::start(vec![
        answer(&json!([{"type": "text", "text": "late"}]), "end_turn")
            .delay(std::time::Duration::from_secs(20)),
    ]);
    let mut child = spawn_extract(&w, &slow);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while slow.requests().is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the run never called the model"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    let _ = child.wait();
    // The lock died with the process; the next run is not queued, and it
    // sees the same two messages.
    let server = ScriptedServer::start(vec![answer(
        &json!([{"type": "text", "text": "Nothing to keep."}]),
        "end_turn",
    )]);
    let report = json_out(&run(&w, &server, &[]));
    assert_eq!(report["ran"], true, "{report}");
    assert_eq!(report["reason"], "ran on 2 new messages", "{report}");
}

/// A live credential the user typed is not saved into a private memory by
/// extraction: the write is refused with the reason, which the run's
/// report shows, and the model's second try without it is saved.
#[test]
fn a_credential_is_not_extracted_into_a_private_memory() {
    let w = world();
    let mem = w.memory.display().to_string();
    // An AWS access key id of the documented shape, assembled here.
    let key = format!("AKIA{}", "Q3XZ7RTV2MPL5KWN");
    let with_key = memory_file(
        "aws-access",
        "reference",
        "The AWS key for the staging bucket",
        &format!("aws_access_key_id = {key}"),
    );
    let without = memory_file(
        "aws-access",
        "reference",
        "Where the AWS key for the staging bucket is kept",
        "The staging bucket's key is in the team vault under aws/staging.",
    );
    let server = ScriptedServer::start(vec![
        answer(
            &json!([tool(
                "t1",
                "Write",
                &json!({"file_path": format!("{mem}/aws-access.md"), "content": with_key})
            )]),
            "tool_use",
        ),
        answer(
            &json!([tool(
                "t2",
                "Write",
                &json!({"file_path": format!("{mem}/aws-access.md"), "content": without})
            )]),
            "tool_use",
        ),
        answer(&json!([{"type": "text", "text": "Saved."}]), "end_turn"),
    ]);
    let out = run(&w, &server, &[]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let report = json_out(&out);
    let refused = report["refused"].to_string();
    assert!(refused.contains("looks like a secret"), "{report}");
    assert!(refused.contains("aws-access.md"), "{report}");
    assert!(!refused.contains(&key), "a refusal repeated the secret");
    let saved = std::fs::read_to_string(w.memory.join("aws-access.md")).unwrap();
    assert!(!saved.contains(&key), "{saved}");
    assert!(saved.contains("team vault"));
    let index = std::fs::read_to_string(w.memory.join("MEMORY.md")).unwrap();
    assert!(index.contains("(aws-access.md)") && !index.contains(&key));
}
