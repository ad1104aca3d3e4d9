//! `memdir dream` against a scripted model server that speaks the
//! Anthropic Messages API: the logs not yet read become topic files and
//! index lines, once.

use std::path::{Path, PathBuf};

use memdir_testkit::anthropic::{message as answer, tool_use as tool};
use memdir_testkit::{Folders, ScriptedServer};
use serde_json::{Value, json};

use crate::{memdir_in, stderr, stdout};

struct World {
    folders: Folders,
    memory: PathBuf,
}

fn world() -> World {
    let folders = Folders::new();
    let memory = folders.root.join("memory");
    World { folders, memory }
}

/// Writes a day's log as `memdir log` would have (a test's fixture).
fn day_log(w: &World, date: &str, lines: &[&str]) -> PathBuf {
    let (year, rest) = date.split_at(4);
    let month = &rest[1..3];
    let dir = w.memory.join("logs").join(year).join(month);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{date}.md"));
    let text = lines.join("\n") + "\n";
    std::fs::write(&path, text).unwrap();
    path
}

fn dream(w: &World, server: Option<&ScriptedServer>) -> std::process::Output {
    let home = w.folders.home.display().to_string();
    let mut vars = vec![("HOME", home.as_str())];
    if let Some(server) = server {
        vars.extend([
            ("ANTHROPIC_API_KEY", "sk-test-key"),
            ("ANTHROPIC_BASE_URL", server.url()),
            ("MEMDIR_MODEL_TIMEOUT_MS", "5000"),
        ]);
    }
    memdir_in(
        &w.folders.project,
        &vars,
        [
            "dream",
            "--json",
            "--memory-dir",
            w.memory.to_str().unwrap(),
        ],
    )
}

fn json_out(out: &std::process::Output) -> Value {
    serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\nstderr: {}", stdout(out), stderr(out)))
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

fn memory_file(name: &str, kind: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\ntype: {kind}\n---\n{body}\n")
}

fn read(id: &str, path: &Path) -> Value {
    tool(id, "Read", &json!({"file_path": path}))
}

/// A model that reads both logs, then writes two topic files.
fn two_topics(w: &World, first: &Path, second: &Path) -> ScriptedServer {
    let mem = w.memory.display().to_string();
    ScriptedServer::start(vec![
        answer(
            &json!([read("toolu_1", first), read("toolu_2", second)]),
            "tool_use",
        ),
        answer(
            &json!([
                tool(
                    "toolu_3",
                    "Write",
                    &json!({
                        "file_path": format!("{mem}/staging-vpn.md"),
                        "content": memory_file("staging-vpn", "project", "staging deploys need the VPN", "Connect the VPN before deploying to staging (2026-11-29).")
                    })
                ),
                tool(
                    "toolu_4",
                    "Write",
                    &json!({
                        "file_path": format!("{mem}/use-pnpm.md"),
                        "content": memory_file("use-pnpm", "feedback", "pnpm, never npm", "Use pnpm (2026-11-30).")
                    })
                ),
            ]),
            "tool_use",
        ),
        answer(
            &json!([{"type": "text", "text": "Saved two memories."}]),
            "end_turn",
        ),
    ])
}

#[test]
fn two_days_of_logs_become_topic_files_once_and_a_later_log_alone_is_read_next() {
    let w = world();
    let first = day_log(
        &w,
        "2026-11-29",
        &["- 09:10 — staging deploys need the VPN", "- 16:40 — lunch"],
    );
    let second = day_log(
        &w,
        "2026-11-30",
        &["- 10:02 — the user prefers pnpm to npm"],
    );
    let server = two_topics(&w, &first, &second);
    let out = dream(&w, Some(&server));
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let report = json_out(&out);
    assert_eq!(report["ran"], true, "{report}");
    assert_eq!(
        strings(&report["logsRead"]),
        [first.display().to_string(), second.display().to_string()]
    );
    let canonical = std::fs::canonicalize(&w.memory).unwrap();
    assert_eq!(
        strings(&report["saved"]),
        [
            canonical.join("staging-vpn.md").display().to_string(),
            canonical.join("use-pnpm.md").display().to_string()
        ]
    );
    assert!(
        std::fs::read_to_string(w.memory.join("staging-vpn.md"))
            .unwrap()
            .contains("Connect the VPN")
    );
    let index = std::fs::read_to_string(w.memory.join("MEMORY.md")).unwrap();
    assert_eq!(
        index,
        "- [staging-vpn](staging-vpn.md) — staging deploys need the VPN\n- [use-pnpm](use-pnpm.md) — pnpm, never npm\n"
    );
    // The model was told which logs to read, and read them.
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let prompt = requests[0].json()["messages"][0]["content"].to_string();
    assert!(prompt.contains(&first.display().to_string()), "{prompt}");
    assert!(prompt.contains(&second.display().to_string()), "{prompt}");
    let tools: Vec<String> = requests[0].json()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(tools, ["Read", "Grep", "Glob", "Bash", "Edit", "Write"]);
    let reads = requests[1].json().to_string();
    assert!(reads.contains("staging deploys need the VPN"), "{reads}");
    assert!(reads.contains("prefers pnpm"), "{reads}");
    // The logs are left as they were.
    assert!(std::fs::read_to_string(&first).unwrap().contains("lunch"));

    // Nothing new: no request reaches the server, nothing changes.
    let again = dream(&w, Some(&server));
    assert!(again.status.success(), "{}", stderr(&again));
    let report = json_out(&again);
    assert_eq!(report["ran"], false, "{report}");
    assert_eq!(strings(&report["logsRead"]), Vec::<String>::new());
    assert_eq!(strings(&report["saved"]), Vec::<String>::new());
    assert_eq!(server.requests().len(), 3);
    assert_eq!(
        std::fs::read_to_string(w.memory.join("MEMORY.md")).unwrap(),
        index
    );

    // A later log is the only one read next time.
    let third = day_log(&w, "2026-12-01", &["- 08:30 — nothing worth keeping"]);
    let next = ScriptedServer::start(vec![
        answer(&json!([read("toolu_5", &third)]), "tool_use"),
        answer(
            &json!([{"type": "text", "text": "Nothing to keep."}]),
            "end_turn",
        ),
    ]);
    let out = dream(&w, Some(&next));
    assert!(out.status.success(), "{}", stderr(&out));
    let report = json_out(&out);
    assert_eq!(report["ran"], true, "{report}");
    assert_eq!(strings(&report["logsRead"]), [third.display().to_string()]);
    assert_eq!(strings(&report["saved"]), Vec::<String>::new());
    let prompt = next.requests()[0].json()["messages"][0]["content"].to_string();
    assert!(prompt.contains(&third.display().to_string()), "{prompt}");
    assert!(!prompt.contains(&first.display().to_string()), "{prompt}");
    assert!(!prompt.contains(&second.display().to_string()), "{prompt}");
    assert_eq!(next.requests().len(), 2);
}

#[test]
fn a_failed_run_leaves_the_logs_to_be_read_again() {
    let w = world();
    let log = day_log(
        &w,
        "2026-11-29",
        &["- 09:10 — staging deploys need the VPN"],
    );
    // The script is empty: the server answers 599, the run fails.
    let broken = ScriptedServer::start(vec![]);
    let out = dream(&w, Some(&broken));
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    let report = json_out(&out);
    assert_eq!(report["ran"], true, "{report}");
    let server = ScriptedServer::start(vec![answer(
        &json!([{"type": "text", "text": "Nothing to keep."}]),
        "end_turn",
    )]);
    let out = dream(&w, Some(&server));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        strings(&json_out(&out)["logsRead"]),
        [log.display().to_string()]
    );
}

#[test]
fn without_a_model_it_says_so_on_one_line_and_reads_nothing() {
    let w = world();
    day_log(
        &w,
        "2026-11-29",
        &["- 09:10 — staging deploys need the VPN"],
    );
    let out = dream(&w, None);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no model is configured"), "{err}");
    assert!(stdout(&out).is_empty());
    assert!(!w.memory.join("MEMORY.md").exists());
}
