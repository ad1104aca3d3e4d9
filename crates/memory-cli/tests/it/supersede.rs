//! Supersession through the binary: `add --supersedes`, then recall, the
//! manifest, the prompt and the index lint never offer the replaced
//! memory; an extraction that writes a replacement retires the old one.

use memdir_testkit::anthropic::{message as answer, tool_use as tool};
use memdir_testkit::{Folders, ScriptedServer};
use serde_json::{Value, json};

use crate::{memdir_in, stderr, stdout};

fn memdir(f: &Folders, memory: &str, args: &[&str]) -> std::process::Output {
    let home = f.home.display().to_string();
    let mut all = vec!["--memory-dir", memory];
    all.extend_from_slice(args);
    memdir_in(&f.project, &[("HOME", home.as_str())], all)
}

fn add(
    f: &Folders,
    memory: &str,
    name: &str,
    description: &str,
    extra: &[&str],
) -> std::process::Output {
    let mut args = vec![
        "add",
        "--type",
        "project",
        "--name",
        name,
        "--description",
        description,
        "--body",
        description,
    ];
    args.extend_from_slice(extra);
    memdir(f, memory, &args)
}

#[test]
fn a_replaced_memory_never_reaches_recall_the_manifest_or_the_prompt() {
    let f = Folders::new();
    let dir = f.root.join("memory");
    let memory = dir.to_str().unwrap();
    let out = add(
        &f,
        memory,
        "deploy",
        "Deploy with make deploy from the ops box",
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let out = add(
        &f,
        memory,
        "deploy-ci",
        "Deploy by pushing a tag; the CI pipeline deploys",
        &["--supersedes", "deploy"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let old = std::fs::read_to_string(dir.join("deploy.md")).unwrap();
    assert!(old.contains("supersededBy: deploy-ci.md"), "{old}");
    assert!(
        std::fs::read_to_string(dir.join("deploy-ci.md"))
            .unwrap()
            .contains("supersedes:\n  - deploy.md")
    );

    let recall = memdir(
        &f,
        memory,
        &["--json", "recall", "how do we deploy with make"],
    );
    let rows: Value = serde_json::from_str(&stdout(&recall)).unwrap();
    let files: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["filename"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["deploy-ci.md"], "{rows}");

    let list = memdir(&f, memory, &["list"]);
    assert!(!stdout(&list).contains("deploy.md "), "{}", stdout(&list));
    assert!(stderr(&list).contains("1 superseded memories not listed (deploy.md by deploy-ci.md)"));

    let prompt = memdir(&f, memory, &["prompt"]);
    assert!(
        !stdout(&prompt).contains("(deploy.md)"),
        "{}",
        stdout(&prompt)
    );
    assert!(stdout(&prompt).contains("(deploy-ci.md)"));

    // A line put back by hand is reported, and the fix takes it out again.
    let index = dir.join("MEMORY.md");
    let mut text = std::fs::read_to_string(&index).unwrap();
    text.push_str("- [deploy](deploy.md) — back again\n");
    std::fs::write(&index, text).unwrap();
    let check = memdir(&f, memory, &["index", "check"]);
    assert_eq!(check.status.code(), Some(1));
    assert!(
        stdout(&check)
            .contains("superseded-memory: link to deploy.md, which deploy-ci.md supersedes"),
        "{}",
        stdout(&check)
    );
    let fix = memdir(&f, memory, &["--json", "index", "fix"]);
    let report: Value = serde_json::from_str(&stdout(&fix)).unwrap();
    assert_eq!(report["supersededLinesRemoved"], json!(["deploy.md"]));
    assert_eq!(report["added"], json!([]));
    assert!(
        !std::fs::read_to_string(&index)
            .unwrap()
            .contains("(deploy.md)")
    );
}

#[test]
fn superseding_a_memory_that_is_not_there_writes_nothing() {
    let f = Folders::new();
    let dir = f.root.join("memory");
    let memory = dir.to_str().unwrap();
    add(&f, memory, "keep", "A memory to keep", &[]);
    let out = add(
        &f,
        memory,
        "new",
        "A new memory",
        &["--supersedes", "missing"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no memory named missing.md"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.join("new.md").exists());
    let out = add(
        &f,
        memory,
        "new",
        "A new memory",
        &["--supersedes", "../keep"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(!dir.join("new.md").exists());
}

#[test]
fn an_extraction_that_writes_a_replacement_retires_the_old_memory() {
    let f = Folders::new();
    let dir = f.root.join("memory");
    let memory = dir.to_str().unwrap().to_owned();
    add(&f, &memory, "use-npm", "Use npm for installs", &[]);
    let transcript = f.root.join("5f1c2d9e-aaaa-4bbb-8ccc-000000000009.jsonl");
    let line = json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": "s-9",
        "timestamp": "2026-12-01T10:00:00Z", "cwd": f.project,
        "message": {"role": "user", "content": "We moved to pnpm; npm is no longer used here."}});
    std::fs::write(&transcript, format!("{line}\n")).unwrap();
    let content = "---\nname: use-pnpm\ndescription: pnpm, not npm, since 2026-12-01\ntype: project\nsupersedes: [use-npm.md]\n---\nUse pnpm.\n";
    let server = ScriptedServer::start(vec![
        answer(
            &json!([tool(
                "toolu_1",
                "Write",
                &json!({"file_path": format!("{memory}/use-pnpm.md"), "content": content})
            )]),
            "tool_use",
        ),
        answer(
            &json!([{"type": "text", "text": "Replaced the npm memory."}]),
            "end_turn",
        ),
    ]);
    let home = f.home.display().to_string();
    let out = memdir_in(
        &f.project,
        &[
            ("HOME", home.as_str()),
            ("ANTHROPIC_API_KEY", "sk-test-key"),
            ("ANTHROPIC_BASE_URL", server.url()),
        ],
        [
            "extract",
            "--json",
            "--memory-dir",
            &memory,
            "--transcript",
            transcript.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let old = std::fs::read_to_string(dir.join("use-npm.md")).unwrap();
    assert!(old.contains("supersededBy: use-pnpm.md"), "{old}");
    let index = std::fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    assert_eq!(
        index,
        "- [use-pnpm](use-pnpm.md) — pnpm, not npm, since 2026-12-01\n"
    );
}
