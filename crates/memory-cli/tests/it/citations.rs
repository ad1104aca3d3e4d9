//! Citations checked at recall and by `memdir verify`, on the fixture
//! project under `fixtures/citations/` (copied to a temporary folder).

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use memdir_testkit::copy_tree;
use serde_json::{Value, json};

use crate::{memdir_with_stdin, root, stdout};

/// The fixture project and memory folder, copied; a file that only a
/// `.gitignore` rule covers holds an identifier one memory cites.
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = root().join("fixtures/citations");
    copy_tree(&fixtures.join("project"), &dir.path().join("project"));
    copy_tree(&fixtures.join("memory"), &dir.path().join("memory"));
    let build = dir.path().join("project/build");
    std::fs::create_dir_all(&build).unwrap();
    std::fs::write(
        build.join("client.rs"),
        "pub const generated_client_id: &str = \"x\";\n",
    )
    .unwrap();
    dir
}

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    run_on(dir, &[("MEMDIR_CITATIONS_BUDGET_MS", "60000")], args, None)
}

/// `memdir` on the fixture's project and memory folder, with `vars`.
fn run_on(dir: &Path, vars: &[(&str, &str)], args: &[&str], stdin: Option<&str>) -> Output {
    let project = dir.join("project");
    let memory = dir.join("memory");
    let mut all = vec![
        "--project",
        project.to_str().unwrap(),
        "--memory-dir",
        memory.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    memdir_with_stdin(dir, vars, all, stdin)
}

#[test]
fn recall_notes_name_each_broken_citation_and_nothing_else() {
    let dir = fixture();
    let out = run(
        dir.path(),
        &["recall", "billing retry deploy auth", "--json"],
    );
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut rows: Vec<String> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let note = m
                .get("citations")
                .map_or("(all hold)".to_owned(), |n| n.as_str().unwrap().to_owned());
            format!("{}: {note}", m["filename"].as_str().unwrap())
        })
        .collect();
    rows.sort();
    insta::assert_snapshot!("recall_citations_json", rows.join("\n"));

    let text = run(dir.path(), &["recall", "billing retry deploy auth"]);
    let shown = stdout(&text).replace(dir.path().to_str().unwrap(), "<tmp>");
    let notes: Vec<&str> = shown
        .lines()
        .filter(|l| l.contains("Checked against the project"))
        .collect();
    assert_eq!(notes.len(), 2, "{shown}");
}

#[test]
fn verify_records_verified_only_where_every_citation_holds() {
    let dir = fixture();
    let out = run(dir.path(), &["verify"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let mut lines: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    lines.sort();
    insta::assert_snapshot!("verify_text", lines.join("\n"));
    let memory = dir.path().join("memory");
    let verified = std::fs::read_to_string(memory.join("legacy-auth.md")).unwrap();
    assert!(verified.contains("\nverified: "), "{verified}");
    assert!(verified.ends_with("test a change with `--dry-run` first.\n"));
    let broken = std::fs::read_to_string(memory.join("retry-policy.md")).unwrap();
    assert!(!broken.contains("verified:"), "{broken}");

    // One file by name, as JSON; all of it holds, so the exit status is 0.
    let one = run(dir.path(), &["verify", "user-role.md", "--json"]);
    assert!(one.status.success(), "{one:?}");
    let json: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    assert_eq!(json[0]["file"], "user-role.md");
    assert_eq!(json[0]["status"], "verified");

    let missing = run(dir.path(), &["verify", "nope.md"]);
    assert!(!missing.status.success());
}

#[test]
fn verify_help_has_an_example() {
    let out = crate::memdir(["verify", "--help"]);
    assert!(stdout(&out).contains("memdir verify retry-policy.md --json"));
}

#[test]
fn doctor_reports_each_broken_citation_with_its_file_and_line() {
    let dir = fixture();
    let out = run(dir.path(), &["doctor", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut cited: Vec<String> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == "citation")
        .map(|f| {
            assert_eq!(f["severity"], "warning", "{f}");
            assert!(f["line"].as_u64().is_some(), "{f}");
            format!(
                "{}: {}",
                f["file"].as_str().unwrap(),
                f["message"].as_str().unwrap()
            )
        })
        .collect();
    cited.sort();
    insta::assert_snapshot!(cited.join("\n"));
}

#[test]
fn verify_refuses_a_file_outside_the_memory_folder() {
    let dir = fixture();
    let outside = dir.path().join("project/docs/deploy.md");
    let out = run(dir.path(), &["verify", outside.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("outside the memory folder"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// `run` with a home folder of its own (so the hook state and the
/// citation cache are written) and `stdin`.
fn run_at_home(dir: &Path, vars: &[(&str, &str)], args: &[&str], stdin: Option<&str>) -> Output {
    let home = dir.join("home");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    let mut env = vec![("HOME", home.to_str().unwrap())];
    env.extend_from_slice(vars);
    run_on(dir, &env, args, stdin)
}

/// The one citation cache file under the test's home, if written.
fn cache_file(dir: &Path) -> Option<PathBuf> {
    let folder = dir.join("home/.claude/memdir/citations");
    let entries = std::fs::read_dir(folder).ok()?;
    let files: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    assert!(files.len() <= 1, "{files:?}");
    files.into_iter().next()
}

fn session_start_input(dir: &Path) -> String {
    json!({
        "session_id": "s-citations",
        "cwd": dir.join("project"),
        "hook_event_name": "SessionStart",
        "source": "startup",
    })
    .to_string()
}

fn prompt_input(dir: &Path, prompt: &str) -> String {
    json!({
        "session_id": "s-citations",
        "transcript_path": dir.join("none.jsonl"),
        "cwd": dir.join("project"),
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    })
    .to_string()
}

/// The sections of the prompt hook's context, by memory file name.
fn hook_sections(out: &Output) -> Vec<(String, String)> {
    assert!(out.status.success(), "{out:?}");
    let value: Value = serde_json::from_str(&stdout(out)).expect("hook JSON");
    let context = value["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_owned();
    context
        .split("\n## ")
        .skip(1)
        .map(|s| {
            let name = s.split_whitespace().next().unwrap().to_owned();
            (name, s.to_owned())
        })
        .collect()
}

#[test]
fn the_prompt_hook_tells_the_model_which_claims_no_longer_hold() {
    let dir = fixture();
    let out = run_at_home(
        dir.path(),
        &[("MEMDIR_CITATIONS_BUDGET_MS", "60000")],
        &["hook", "user-prompt-submit"],
        Some(&prompt_input(dir.path(), "billing retry deploy auth")),
    );
    let sections = hook_sections(&out);
    let names: Vec<&str> = sections.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.contains(&"retry-policy.md"), "{names:?}");
    for (name, text) in &sections {
        let reminders: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("Checked against the project"))
            .collect();
        match name.as_str() {
            "retry-policy.md" => assert_eq!(
                reminders,
                [
                    "<system-reminder>Checked against the project's files: cites `src/billing/retry.rs`, which does not exist now; `backoff_jitter_ms` occurs nowhere. Verify before relying on this memory.</system-reminder>"
                ],
                "{text}"
            ),
            "deploy-steps.md" => assert_eq!(
                reminders,
                [
                    "<system-reminder>Checked against the project's files: cites `scripts/deploy.sh`, which does not exist now; `generated_client_id` occurs nowhere. Verify before relying on this memory.</system-reminder>"
                ],
                "{text}"
            ),
            _ => assert!(reminders.is_empty(), "{name}: {text}"),
        }
    }
}

/// Waits up to `limit` for `done` to hold.
fn eventually(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

fn refreshed(cache: &Path) -> bool {
    std::fs::read(cache)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .is_some_and(|v| v["refreshedMs"].is_u64())
}

#[test]
fn session_start_refreshes_the_cache_in_the_background() {
    let dir = fixture();
    assert!(cache_file(dir.path()).is_none());
    let input = session_start_input(dir.path());
    let start = Instant::now();
    let out = run_at_home(dir.path(), &[], &["hook", "session-start"], Some(&input));
    assert!(out.status.success(), "{out:?}");
    assert!(start.elapsed() < Duration::from_secs(5), "the hook waited");
    assert!(
        eventually(Duration::from_secs(30), || cache_file(dir.path())
            .is_some_and(|c| refreshed(&c))),
        "no refreshed cache appeared"
    );
    // A cache refreshed just now is not refreshed again at the next start.
    let cache = cache_file(dir.path()).unwrap();
    let before = std::fs::read(&cache).unwrap();
    let out = run_at_home(dir.path(), &[], &["hook", "session-start"], Some(&input));
    assert!(out.status.success());
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(std::fs::read(&cache).unwrap(), before);
}

#[test]
fn recall_reads_the_cache_a_refresh_wrote() {
    let dir = fixture();
    // The fixture was written just now: files changed within the last two
    // seconds are not recorded as holding a literal.
    std::thread::sleep(Duration::from_millis(2100));
    let out = run_at_home(dir.path(), &[], &["verify", "--cache-only", "--json"], None);
    assert!(out.status.success(), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["status"], "refreshed", "{report}");
    assert_eq!(report["unchecked"], 0, "{report}");
    assert!(report["citations"].as_u64().unwrap() >= 10, "{report}");
    let cache = cache_file(dir.path()).expect("a cache");
    assert_eq!(report["cache"], cache.to_str().unwrap());

    let notes = |dir: &Path| -> String {
        let out = run_at_home(
            dir,
            &[("MEMDIR_CITATIONS_BUDGET_MS", "60000")],
            &["recall", "billing retry deploy auth", "--json"],
            None,
        );
        assert!(out.status.success(), "{out:?}");
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut rows: Vec<String> = json
            .as_array()
            .unwrap()
            .iter()
            .map(|m| format!("{}: {}", m["filename"].as_str().unwrap(), m["citations"]))
            .collect();
        rows.sort();
        rows.join("\n")
    };
    let first = notes(dir.path());
    assert!(
        first.contains("`backoff_jitter_ms` occurs nowhere"),
        "{first}"
    );

    // `backoff_jitter_ms` appears in a file no memory cites: the cache,
    // which no recall walk re-reads, says it is nowhere until the next
    // refresh, which sees it.
    std::fs::write(
        dir.path().join("project/src/jitter.rs"),
        "pub const backoff_jitter_ms: u64 = 50;\n",
    )
    .unwrap();
    assert_eq!(notes(dir.path()), first);
    let out = run_at_home(dir.path(), &[], &["verify", "--cache-only"], None);
    assert!(
        stdout(&out).starts_with("citation cache refreshed: "),
        "{out:?}"
    );
    let second = notes(dir.path());
    assert!(!second.contains("backoff_jitter_ms"), "{second}");

    // `RetryPolicy` is removed from the file it was found in: the next
    // recall says so, without waiting for a refresh.
    let retries = dir.path().join("project/src/billing/retries.rs");
    let text = std::fs::read_to_string(&retries).unwrap();
    std::fs::write(&retries, text.replace("RetryPolicy", "RetryRules")).unwrap();
    let third = notes(dir.path());
    assert!(third.contains("`RetryPolicy` occurs nowhere"), "{third}");
}

/// Refreshes and recalls at once on one project: every process succeeds,
/// the cache is always whole JSON, and the notes come out as one recall
/// alone gives them.
#[test]
fn a_crowd_of_refreshes_and_recalls_agrees() {
    let dir = fixture();
    let alone = run(
        dir.path(),
        &["recall", "billing retry deploy auth", "--json"],
    );
    let expected: Value = serde_json::from_slice(&alone.stdout).unwrap();
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..12)
            .map(|i| {
                let dir = dir.path();
                s.spawn(move || {
                    if i % 2 == 0 {
                        run_at_home(dir, &[], &["verify", "--cache-only", "--json"], None)
                    } else {
                        run_at_home(
                            dir,
                            &[("MEMDIR_CITATIONS_BUDGET_MS", "60000")],
                            &["recall", "billing retry deploy auth", "--json"],
                            None,
                        )
                    }
                })
            })
            .collect();
        for (i, w) in workers.into_iter().enumerate() {
            let out = w.join().unwrap();
            assert!(out.status.success(), "{out:?}");
            let value: Value = serde_json::from_slice(&out.stdout).unwrap();
            if i % 2 == 0 {
                assert!(
                    value["status"] == "refreshed" || value["status"] == "busy",
                    "{value}"
                );
            } else {
                assert_eq!(value, expected);
            }
        }
    });
    let cache = cache_file(dir.path()).expect("a cache");
    let _: Value = serde_json::from_slice(&std::fs::read(cache).unwrap()).expect("whole JSON");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("home/.claude/memdir/citations"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".memdir-tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// MCP `recall_memories` gives the model the same reminder as the hook.
#[test]
fn mcp_recall_names_the_broken_citations() {
    use std::io::{BufRead, Write};
    use std::process::Stdio;

    let dir = fixture();
    let project = dir.path().join("project");
    let memory = dir.path().join("memory");
    let mut child = crate::command(
        dir.path(),
        &[("MEMDIR_CITATIONS_BUDGET_MS", "60000")],
        [
            "--project",
            project.to_str().unwrap(),
            "--memory-dir",
            memory.to_str().unwrap(),
            "mcp",
        ],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let mut input = child.stdin.take().unwrap();
    for line in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall_memories","arguments":{"query":"billing retry deploy auth"}}}"#,
    ] {
        writeln!(input, "{line}").unwrap();
    }
    let (send, answers) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == 2 {
                let _ = send.send(message);
            }
        }
    });
    let answer = answers
        .recv_timeout(Duration::from_secs(30))
        .expect("an answer to recall_memories");
    drop(input);
    let _ = child.wait();
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    let sections: Vec<&str> = text.split("## ").skip(1).collect();
    let retry = sections
        .iter()
        .find(|s| s.starts_with("retry-policy.md"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        retry.contains("<system-reminder>Checked against the project's files: cites `src/billing/retry.rs`, which does not exist now; `backoff_jitter_ms` occurs nowhere. Verify before relying on this memory.</system-reminder>"),
        "{retry}"
    );
    for s in sections
        .iter()
        .filter(|s| s.starts_with("legacy-auth.md") || s.starts_with("user-role.md"))
    {
        assert!(!s.contains("Checked against the project"), "{s}");
    }
}

/// Refreshes killed (SIGKILL) at staggered moments: the cache left behind is
/// whole JSON (or absent), and the next recall gives the notes one recall
/// alone gives.
#[cfg(unix)]
#[test]
fn refreshes_killed_at_any_moment_leave_a_usable_cache() {
    use std::process::Stdio;

    let dir = fixture();
    // Enough files for a refresh to take a while.
    for i in 0..3000 {
        let sub = dir.path().join(format!("project/gen/d{}", i / 100));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(
            sub.join(format!("f{i}.rs")),
            format!("fn generated_{i}() {{}}\n"),
        )
        .unwrap();
    }
    let expected = run(
        dir.path(),
        &["recall", "billing retry deploy auth", "--json"],
    );
    let expected: Value = serde_json::from_slice(&expected.stdout).unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    let project = dir.path().join("project");
    let memory = dir.path().join("memory");
    for round in 0..12u64 {
        let mut child = crate::command(
            dir.path(),
            &[("HOME", home.to_str().unwrap())],
            [
                "--project",
                project.to_str().unwrap(),
                "--memory-dir",
                memory.to_str().unwrap(),
                "verify",
                "--cache-only",
            ],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
        std::thread::sleep(Duration::from_millis(3 * round));
        let _ = child.kill();
        let _ = child.wait();
        if let Some(cache) = cache_file(dir.path()) {
            let bytes = std::fs::read(&cache).unwrap();
            let _: Value = serde_json::from_slice(&bytes)
                .unwrap_or_else(|e| panic!("round {round}: the cache is not whole JSON: {e}"));
        }
        let out = run_at_home(
            dir.path(),
            &[("MEMDIR_CITATIONS_BUDGET_MS", "60000")],
            &["recall", "billing retry deploy auth", "--json"],
            None,
        );
        assert!(out.status.success(), "{out:?}");
        let got: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(got, expected, "round {round}");
    }
}

/// Without the agent's configuration folder, a recall and the hooks keep
/// no cache and create no folder for one.
#[test]
fn no_cache_is_kept_without_a_base_folder() {
    let dir = fixture();
    let home = dir.path().join("no-home");
    let input = session_start_input(dir.path());
    let vars = [("HOME", home.to_str().unwrap())];
    let out = run_on(
        dir.path(),
        &vars,
        &["recall", "billing retry deploy auth"],
        None,
    );
    assert!(out.status.success(), "{out:?}");
    let out = run_on(dir.path(), &vars, &["hook", "session-start"], Some(&input));
    assert!(out.status.success(), "{out:?}");
    std::thread::sleep(Duration::from_millis(500));
    assert!(!home.exists(), "a folder was created for the cache");
}
