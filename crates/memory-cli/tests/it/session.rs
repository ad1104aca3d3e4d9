//! `memdir session` against a scripted model server that speaks the
//! Anthropic Messages API: when an update runs, what it may change, and
//! what it refuses.

use std::path::PathBuf;

use memdir_testkit::anthropic::{message as answer, tool_use as tool};
use memdir_testkit::{Folders, Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::{memdir_in, stderr, stdout};

fn done() -> Reply {
    answer(
        &json!([{"type": "text", "text": "Notes updated."}]),
        "end_turn",
    )
}

struct World {
    folders: Folders,
    transcript: PathBuf,
    notes: PathBuf,
}

/// A project and a transcript whose last response had a context of
/// `tokens` tokens and called no tool.
fn world(tokens: u64) -> World {
    let folders = Folders::new();
    let transcript = folders.root.join("s-1.jsonl");
    let lines = [
        json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": "s-1",
               "message": {"role": "user", "content": "Switch the build to pnpm; npm broke the lockfile."}}),
        json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s-1",
               "message": {"id": "msg_main_1", "role": "assistant", "model": "claude-main",
                           "content": [{"type": "text", "text": "Done: pnpm install works, the lockfile is regenerated."}],
                           "usage": {"input_tokens": tokens, "output_tokens": 40}}}),
    ];
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(&transcript, text).unwrap();
    let notes = folders
        .project
        .join(".claude/session-memory/session-s-1.md");
    World {
        folders,
        transcript,
        notes,
    }
}

fn session(w: &World, server: Option<&ScriptedServer>, args: &[&str]) -> std::process::Output {
    let home = w.folders.home.display().to_string();
    let mut vars = vec![("HOME", home.as_str()), ("MEMDIR_MODEL_TIMEOUT_MS", "5000")];
    if let Some(server) = server {
        vars.push(("ANTHROPIC_API_KEY", "sk-test-key"));
        vars.push(("ANTHROPIC_BASE_URL", server.url()));
    }
    let mut all = vec!["session"];
    all.extend_from_slice(args);
    memdir_in(&w.folders.project, &vars, all)
}

fn update(w: &World, server: &ScriptedServer, extra: &[&str]) -> Value {
    let transcript = w.transcript.to_str().unwrap();
    let mut args = vec![
        "update",
        "--json",
        "--transcript",
        transcript,
        "--session",
        "s-1",
    ];
    args.extend_from_slice(extra);
    let out = session(w, Some(server), &args);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    json_out(&out)
}

fn json_out(out: &std::process::Output) -> Value {
    serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\nstderr: {}", stdout(out), stderr(out)))
}

/// The default template, as the notes start.
fn template() -> &'static str {
    include_str!("../../../session/src/text/template.md")
}

fn edit(id: &str, w: &World, old: &str, new: &str) -> Value {
    tool(
        id,
        "Edit",
        &json!({"file_path": w.notes, "old_string": old, "new_string": new}),
    )
}

#[test]
fn a_due_update_creates_the_notes_lands_an_edit_and_records_the_watermark() {
    let w = world(12_000);
    let worklog = "one line each_\n";
    let server = ScriptedServer::start(vec![
        answer(
            &json!([edit(
                "t1",
                &w,
                worklog,
                "one line each_\n- moved the build to pnpm\n"
            )]),
            "tool_use",
        ),
        done(),
    ]);
    let report = update(&w, &server, &[]);
    assert_eq!(report["ran"], true, "{report}");
    assert_eq!(report["updated"], true);
    assert_eq!(report["edits"], 1);
    assert_eq!(report["stop"], "end_turn");
    assert_eq!(report["notes"], w.notes.display().to_string());
    assert_eq!(report["path"], report["notes"]);
    assert_eq!(report["watermark"]["tokens"], 12_040);
    assert_eq!(report["watermark"]["toolCalls"], 0);
    assert!(
        report["reason"].as_str().unwrap().contains("no tool"),
        "{report}"
    );
    let notes = std::fs::read_to_string(&w.notes).unwrap();
    assert_eq!(
        notes,
        template().replace(worklog, "one line each_\n- moved the build to pnpm\n")
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let first = requests[0].json();
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, ["Edit"]);
    let prompt = first["messages"][0]["content"].to_string();
    assert!(prompt.contains("npm broke the lockfile"), "{prompt}");
    assert!(prompt.contains("# Errors & Corrections"));
    assert!(prompt.contains("- Worklog: 0 tokens"), "{prompt}");
    assert!(prompt.contains("of 12000 tokens"));
    let state = w.folders.home.join(".claude/memdir/session");
    assert!(state.is_dir());

    // Nothing grew since: no model call, nothing written.
    let again = update(&w, &server, &[]);
    assert_eq!(again["ran"], false);
    assert!(
        again["reason"].as_str().unwrap().contains("grew 0 tokens"),
        "{again}"
    );
    assert_eq!(server.requests().len(), 2);
    assert_eq!(std::fs::read_to_string(&w.notes).unwrap(), notes);
}

#[test]
fn an_edit_that_damages_the_template_is_refused_and_the_file_is_unchanged() {
    let w = world(12_000);
    let before = template().replace("one line each_\n", "one line each_\n- step one\n");
    memdir_testkit::write_file(&w.notes, &before);
    let server = ScriptedServer::start(vec![
        answer(
            &json!([
                edit("t1", &w, "# Learnings\n", ""),
                edit("t2", &w, "oldest first, one line each_", "newest first_"),
                edit("t3", &w, "# Worklog", "# Secrets\n\n# Worklog"),
            ]),
            "tool_use",
        ),
        done(),
    ]);
    let report = update(&w, &server, &[]);
    assert_eq!(report["ran"], true, "{report}");
    assert_eq!(report["updated"], false);
    assert_eq!(report["edits"], 0);
    let reasons: Vec<&str> = report["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons.len(), 3, "{report}");
    assert!(
        reasons[0].contains("`# Learnings` is missing"),
        "{reasons:?}"
    );
    assert!(reasons[1].contains("description line under `# Worklog`"));
    assert!(reasons[2].contains("`# Secrets` is not in the template"));
    assert_eq!(std::fs::read_to_string(&w.notes).unwrap(), before);
    // The model read the reasons.
    let second = server.requests()[1].json().to_string();
    assert!(
        second.contains("refused, the notes are unchanged"),
        "{second}"
    );
}

#[test]
fn write_and_other_files_are_refused() {
    let w = world(12_000);
    let settings = w.folders.project.join(".claude/settings.json");
    let server = ScriptedServer::start(vec![
        answer(
            &json!([
                tool(
                    "t1",
                    "Write",
                    &json!({"file_path": w.notes, "content": "# All mine\n"})
                ),
                tool(
                    "t2",
                    "Edit",
                    &json!({"file_path": settings, "old_string": "{", "new_string": "{\"x\":1,"})
                ),
            ]),
            "tool_use",
        ),
        done(),
    ]);
    let report = update(&w, &server, &[]);
    let refused = report["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 2, "{report}");
    assert_eq!(refused[0]["tool"], "Write");
    assert!(
        refused[0]["reason"]
            .as_str()
            .unwrap()
            .contains("no tool named Write")
    );
    assert!(
        refused[1]["reason"]
            .as_str()
            .unwrap()
            .contains("only Edit of the session notes")
    );
    assert_eq!(std::fs::read_to_string(&w.notes).unwrap(), template());
    assert!(!settings.exists());
}

#[test]
fn below_the_thresholds_nothing_runs_unless_forced() {
    let w = world(900);
    let server = ScriptedServer::start(vec![done()]);
    let report = update(&w, &server, &[]);
    assert_eq!(report["ran"], false);
    assert_eq!(report["watermark"], Value::Null);
    assert!(
        report["reason"]
            .as_str()
            .unwrap()
            .contains("the first notes are written at 10000"),
        "{report}"
    );
    assert!(server.requests().is_empty());
    assert!(!w.notes.exists());
    assert!(!w.folders.project.join(".claude").exists());

    let forced = update(&w, &server, &["--force"]);
    assert_eq!(forced["ran"], true, "{forced}");
    assert!(forced["reason"].as_str().unwrap().starts_with("forced"));
    assert_eq!(server.requests().len(), 1);
    assert_eq!(std::fs::read_to_string(&w.notes).unwrap(), template());
    assert_eq!(forced["watermark"]["tokens"], 940);
}

#[test]
fn without_a_model_it_says_so_and_writes_nothing() {
    let w = world(12_000);
    let out = session(
        &w,
        None,
        &[
            "update",
            "--transcript",
            w.transcript.to_str().unwrap(),
            "--session",
            "s-1",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.starts_with("memdir: no model is configured"), "{err}");
    assert_eq!(err.lines().count(), 1);
    assert!(!w.folders.project.join(".claude").exists());
    assert!(!w.folders.home.join(".claude/memdir").exists());
}

#[test]
fn show_prints_the_notes_and_compact_view_cuts_long_sections() {
    let w = world(12_000);
    let long = "- a line of the worklog that goes on\n".repeat(400);
    let notes = template().replace("one line each_\n", &format!("one line each_\n{long}"));
    memdir_testkit::write_file(&w.notes, &notes);

    let out = session(&w, None, &["show", "--session", "s-1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), notes);
    assert!(stderr(&out).contains("session-s-1.md"));
    let json = json_out(&session(&w, None, &["show", "--session", "s-1", "--json"]));
    assert_eq!(json["path"], w.notes.display().to_string());
    assert_eq!(json["content"], notes);

    let view = json_out(&session(
        &w,
        None,
        &["compact-view", "--session", "s-1", "--json"],
    ));
    assert_eq!(view["wasTruncated"], true);
    let cut = view["truncatedContent"].as_str().unwrap();
    assert!(cut.len() < notes.len());
    assert!(
        cut.trim_end()
            .ends_with("was cut for length; the notes file has it all]")
    );
    for line in template().lines() {
        assert!(cut.contains(line), "{line}");
    }
    let text = session(&w, None, &["compact-view", "--session", "s-1"]);
    assert_eq!(stdout(&text), cut);
    assert!(stderr(&text).contains("cut to 8,000 characters"));

    // No notes yet, and an id that tries to leave the folder.
    let missing = session(&w, None, &["show", "--session", "../../s-1"]);
    assert_eq!(missing.status.code(), Some(1));
    let err = stderr(&missing);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(".claude/session-memory/session-______s-1.md"),
        "{err}"
    );
}
