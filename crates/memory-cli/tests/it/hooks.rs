//! `memdir hook <event>` and `memdir hooks install|uninstall`: the agent's
//! hook inputs under `fixtures/hooks/` against snapshots of stdout, the
//! rule that a hook's own error never reaches the agent, and the settings
//! edits on files of many shapes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use memdir_testkit::Folders;
use serde_json::{Value, json};

use crate::{command, memdir_in, memdir_with_stdin, root, stdout};

/// A project, a copy of the example memory folder given with
/// `--memory-dir`, and a transcript of one exchange.
struct World {
    folders: Folders,
    memory: PathBuf,
    transcript: PathBuf,
}

impl World {
    fn new() -> World {
        let folders = Folders::new();
        let memory = folders.root.join("memory");
        std::fs::create_dir(&memory).unwrap();
        for entry in std::fs::read_dir(root().join("fixtures/example/memory")).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() {
                std::fs::copy(entry.path(), memory.join(entry.file_name())).unwrap();
            }
        }
        let transcript = folders.root.join("session.jsonl");
        std::fs::write(
            &transcript,
            "{\"type\":\"user\",\"uuid\":\"u1\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"Use pnpm here.\"}}\n",
        )
        .unwrap();
        World {
            folders,
            memory,
            transcript,
        }
    }

    fn home(&self) -> String {
        self.folders.home.display().to_string()
    }

    fn log(&self) -> PathBuf {
        self.folders.home.join(".claude/memdir/logs/hooks.log")
    }

    fn log_lines(&self) -> Vec<String> {
        std::fs::read_to_string(self.log())
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The fixture `name` with its placeholders filled in.
    fn input(&self, name: &str) -> String {
        std::fs::read_to_string(root().join("fixtures/hooks").join(name))
            .unwrap()
            .replace("$PROJECT", &self.folders.project.display().to_string())
            .replace("$TRANSCRIPT", &self.transcript.display().to_string())
    }

    fn hook(&self, event: &str, input: &str) -> Output {
        let home = self.home();
        let memory = self.memory.display().to_string();
        memdir_with_stdin(
            &self.folders.root,
            &[("HOME", home.as_str())],
            ["--memory-dir", memory.as_str(), "hook", event],
            Some(input),
        )
    }

    /// Stdout with the temporary paths named.
    fn redact(&self, text: &str) -> String {
        text.replace(&self.memory.display().to_string(), "[MEMORY]")
            .replace(&self.folders.root.display().to_string(), "[ROOT]")
    }
}

/// The hook JSON a hook printed, or `None` for empty stdout.
fn context(out: &Output) -> Option<(String, String)> {
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = stdout(out);
    if text.is_empty() {
        return None;
    }
    let value: Value = serde_json::from_str(&text).expect("one JSON object");
    let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["hookSpecificOutput"]);
    let inner = &value["hookSpecificOutput"];
    let context = inner["additionalContext"].as_str().unwrap().to_owned();
    assert!(context.chars().count() <= 10_000);
    Some((inner["hookEventName"].as_str().unwrap().to_owned(), context))
}

#[test]
fn every_fixture_answers_as_its_snapshot() {
    let mut names: Vec<String> = std::fs::read_dir(root().join("fixtures/hooks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| {
            Path::new(n)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        })
        .collect();
    names.sort();
    assert!(names.len() >= 9, "{names:?}");
    for name in names {
        let w = World::new();
        let event = [
            "session-start",
            "user-prompt-submit",
            "stop",
            "pre-compact",
            "session-end",
        ]
        .into_iter()
        .find(|e| name.starts_with(e))
        .unwrap();
        let started = Instant::now();
        let out = w.hook(event, &w.input(&name));
        if event == "session-end" {
            assert!(started.elapsed() < Duration::from_millis(1_500), "{name}");
        }
        let shown = match context(&out) {
            None => "(nothing on stdout)".to_owned(),
            Some((event_name, text)) => format!("{event_name}\n---\n{}", w.redact(&text)),
        };
        insta::assert_snapshot!(format!("hook-{}", name.trim_end_matches(".json")), shown);
    }
}

#[test]
fn errors_exit_0_print_nothing_and_log_one_line() {
    let w = World::new();
    let missing = w.input("pre-compact-manual.json").replace(
        &w.transcript.display().to_string(),
        &w.folders.root.join("gone.jsonl").display().to_string(),
    );
    let not_a_folder = World::new();
    std::fs::remove_dir_all(&not_a_folder.memory).unwrap();
    std::fs::write(&not_a_folder.memory, "a file where the folder belongs").unwrap();
    let cases: [(&World, &str, String, &str); 4] = [
        (
            &w,
            "session-start",
            "{not json".to_owned(),
            "not the agent's hook JSON",
        ),
        (
            &w,
            "stop",
            missing.replace("PreCompact", "Stop"),
            "gone.jsonl is not a file",
        ),
        (
            &w,
            "pre-compact",
            missing.clone(),
            "gone.jsonl is not a file",
        ),
        (
            &not_a_folder,
            "user-prompt-submit",
            not_a_folder.input("user-prompt-submit.json"),
            "user-prompt-submit: ",
        ),
    ];
    let mut expected_lines = 0;
    for (world, event, input, message) in &cases {
        let before = world.log_lines().len();
        let out = world.hook(event, input);
        assert_eq!(out.status.code(), Some(0), "{event}: {out:?}");
        assert_eq!(stdout(&out), "", "{event}");
        let lines = world.log_lines();
        assert_eq!(lines.len(), before + 1, "{event}: {lines:?}");
        let last = lines.last().unwrap();
        assert!(last.contains(&format!("{event}: ")), "{last}");
        assert!(last.contains(message), "{event}: {last}");
        expected_lines += 1;
    }
    assert_eq!(
        w.log_lines().len() + not_a_folder.log_lines().len(),
        expected_lines
    );
}

#[test]
fn a_session_never_gets_the_same_memory_twice() {
    let w = World::new();
    let input = w.input("user-prompt-submit.json");
    let (_, first) = context(&w.hook("user-prompt-submit", &input)).expect("memories");
    assert!(first.contains("no-db-mocking.md"), "{first}");
    let second = context(&w.hook("user-prompt-submit", &input));
    if let Some((_, second)) = &second {
        for line in first.lines().filter(|l| l.starts_with("## ")) {
            assert!(!second.contains(line), "{line} injected twice: {second}");
        }
    }
    // Another session gets it again.
    let other = input.replace("5f1c2d9e-0004", "another-session");
    let (_, again) = context(&w.hook("user-prompt-submit", &other)).expect("memories");
    assert!(again.contains("no-db-mocking.md"), "{again}");
}

#[test]
fn two_prompt_hooks_at_once_share_nothing() {
    let w = World::new();
    let input = w.input("user-prompt-submit.json");
    let outs: Vec<Output> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| w.hook("user-prompt-submit", &input)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let injected: Vec<String> = outs
        .iter()
        .filter_map(context)
        .flat_map(|(_, text)| {
            text.lines()
                .filter(|l| l.starts_with("## "))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut unique = injected.clone();
    unique.sort();
    unique.dedup();
    assert!(!injected.is_empty());
    assert_eq!(unique.len(), injected.len(), "{injected:?}");
}

#[test]
fn old_memories_carry_their_freshness_note() {
    let w = World::new();
    let file = std::fs::File::options()
        .write(true)
        .open(w.memory.join("no-db-mocking.md"))
        .unwrap();
    file.set_modified(std::time::SystemTime::now() - Duration::from_secs(40 * 86_400))
        .unwrap();
    let (_, text) = context(&w.hook("user-prompt-submit", &w.input("user-prompt-submit.json")))
        .expect("memories");
    assert!(
        text.contains("saved 40 days ago)\n<system-reminder>This memory is 40 days old."),
        "{text}"
    );
}

/// The processes whose command line holds `needle`, with their state.
fn processes_with(needle: &str) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(needle) {
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            let state = stat.rsplit(')').next().unwrap_or("").trim().chars().next();
            found.push((pid, state.map(String::from).unwrap_or_default()));
        }
    }
    found
}

#[test]
fn stop_returns_at_once_and_leaves_no_zombie() {
    if !Path::new("/proc/self/stat").exists() {
        return;
    }
    let w = World::new();
    // A transcript name no other process has on its command line.
    let transcript = w.folders.root.join("stop-test-unique-transcript.jsonl");
    std::fs::copy(&w.transcript, &transcript).unwrap();
    let input = w
        .input("stop-active.json")
        .replace("\"stop_hook_active\": true", "\"stop_hook_active\": false")
        .replace(
            &w.transcript.display().to_string(),
            &transcript.display().to_string(),
        );
    let started = Instant::now();
    let out = w.hook("stop", &input);
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(stdout(&out), "");
    assert!(took < Duration::from_millis(900), "stop took {took:?}");
    // The extraction (no model configured) ends on its own and is reaped.
    let needle = transcript.display().to_string();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let left = processes_with(&needle);
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "still there: {left:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Its error went to the log, not to the agent.
    let log = w.log_lines().join("\n");
    assert!(log.contains("no model is configured"), "{log}");
}

#[test]
fn compact_session_start_injects_the_session_notes() {
    let w = World::new();
    let notes = w
        .folders
        .project
        .join(".claude/session-memory/session-5f1c2d9e-0003.md");
    memdir_testkit::write_file(
        &notes,
        "# Session Title\n_A short title_\n\nHook tests\n\n# Current State\n_What is being done now_\n\nWriting the compact test.\n",
    );
    let out = w.hook("session-start", &w.input("session-start-compact.json"));
    let (_, text) = context(&out).expect("context");
    assert!(text.contains("# Persistent memory"), "{text}");
    let has_view = command(&w.folders.root, &[], ["session", "compact-view", "--help"])
        .output()
        .unwrap()
        .status
        .success();
    if has_view {
        assert!(text.contains("Writing the compact test."), "{text}");
        assert!(
            text.starts_with("The session notes of this conversation"),
            "{text}"
        );
    } else {
        // Without `memdir session`, the memory prompt alone, and the
        // missing command in the log.
        assert!(!text.contains("Writing the compact test."), "{text}");
        assert!(w.log_lines().join("\n").contains("compact-view"));
    }
}

#[test]
fn long_context_is_cut_at_10000_characters_with_a_note() {
    let w = World::new();
    let mut index = String::new();
    for i in 0..190 {
        let _ = writeln!(
            index,
            "- [Memory {i} with a long title](memory-{i}.md) — a hook about the deploy pipeline, long enough to fill the output"
        );
    }
    std::fs::write(w.memory.join("MEMORY.md"), index).unwrap();
    let (_, text) =
        context(&w.hook("session-start", &w.input("session-start-startup.json"))).expect("context");
    assert!(text.chars().count() <= 10_000);
    assert!(
        text.contains("[memdir: cut here to fit the hook output limit of 10000 characters;"),
        "{}",
        &text[text.len() - 300..]
    );
}

// ---- hooks install / uninstall ----

fn hooks_cmd(w: &World, args: &[&str]) -> Output {
    let home = w.home();
    let project = w.folders.project.display().to_string();
    let mut all = vec!["--project", project.as_str(), "hooks"];
    all.extend_from_slice(args);
    memdir_in(&w.folders.root, &[("HOME", home.as_str())], all)
}

fn user_settings(w: &World) -> PathBuf {
    let dir = w.folders.home.join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("settings.json")
}

fn memdir_commands(settings: &Value) -> Vec<String> {
    let mut found = Vec::new();
    for (_, groups) in settings["hooks"].as_object().into_iter().flatten() {
        for group in groups.as_array().unwrap() {
            for hook in group["hooks"].as_array().unwrap() {
                let c = hook["command"].as_str().unwrap();
                if c.contains(" hook ") && c.contains("memdir") {
                    found.push(c.to_owned());
                }
            }
        }
    }
    found
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn install_on_files_of_many_shapes_then_uninstall_restores_them() {
    let other_hooks = r#"{
  "theme": "dark",
  "hooks": {
    "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}]
  },
  "permissions": {"allow": ["Bash(ls)"]}
}
"#;
    let cases: [(&str, Option<&str>); 4] = [
        ("no file", None),
        ("empty object", Some("{}\n")),
        (
            "no hooks key",
            Some("{\n  \"theme\": \"dark\",\n  \"env\": {\"A\": \"1\"}\n}\n"),
        ),
        ("other hooks", Some(other_hooks)),
    ];
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_memdir")).unwrap();
    for (case, text) in cases {
        let w = World::new();
        let file = user_settings(&w);
        if let Some(text) = text {
            std::fs::write(&file, text).unwrap();
        }
        let before = text.map(|t| serde_json::from_str::<Value>(t).unwrap());
        let out = hooks_cmd(&w, &["install", "--json"]);
        assert_eq!(out.status.code(), Some(0), "{case}: {out:?}");
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["file"], json!(file.display().to_string()), "{case}");
        assert_eq!(
            report["added"],
            json!([
                "SessionStart",
                "UserPromptSubmit",
                "PostToolUse",
                "Stop",
                "PreCompact",
                "SessionEnd"
            ]),
            "{case}"
        );
        assert_eq!(report["backup"].is_string(), text.is_some(), "{case}");
        let installed = read_json(&file);
        let commands = memdir_commands(&installed);
        assert_eq!(commands.len(), 6, "{case}: {commands:?}");
        assert!(
            commands.contains(&format!("{} hook user-prompt-submit", exe.display())),
            "{case}: {commands:?}"
        );
        let group = &installed["hooks"]["SessionStart"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert_eq!(group["matcher"], "", "{case}");
        assert_eq!(group["hooks"][0]["type"], "command", "{case}");
        // The post-tool hook hears only the tools that write files.
        let post = installed["hooks"]["PostToolUse"]
            .as_array()
            .unwrap()
            .last()
            .unwrap();
        assert_eq!(post["matcher"], "Write|Edit|MultiEdit", "{case}");
        if let Some(before) = &before {
            // Every other key kept, in its order, with its value; hooks
            // in its place or last.
            let raw = std::fs::read_to_string(&file).unwrap();
            let mut keys: Vec<&str> = before
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            keys.sort_by_key(|k| text.unwrap().find(&format!("\"{k}\"")).unwrap());
            if !keys.contains(&"hooks") {
                keys.push("hooks");
            }
            let at: Vec<usize> = keys
                .iter()
                .map(|k| raw.find(&format!("\n  \"{k}\":")).unwrap())
                .collect();
            assert!(at.is_sorted(), "{case}: {raw}");
            for (k, v) in before.as_object().unwrap() {
                if k != "hooks" {
                    assert_eq!(&installed[k], v, "{case}: {k}");
                }
            }
        }
        if case == "other hooks" {
            other_hooks_kept_in_order(&file, &installed, other_hooks);
        }

        twice_is_once_and_uninstall_restores(&w, case, &file, before.as_ref(), text);
    }
}

/// The other hooks of a file, after install: kept with their values, and
/// in the order they were written, inside "hooks" too.
fn other_hooks_kept_in_order(file: &Path, installed: &Value, other_hooks: &str) {
    // Inside "hooks" too, the order as written: Stop before
    // PreToolUse (sorted would swap them), matcher before hooks,
    // type, command, timeout; memdir's events after.
    let raw = std::fs::read_to_string(file).unwrap();
    let at = |needle: &str| {
        raw.find(needle)
            .unwrap_or_else(|| panic!("{needle}: {raw}"))
    };
    assert!(at("\"Stop\"") < at("\"PreToolUse\""), "{raw}");
    assert!(at("\"PreToolUse\"") < at("\"SessionStart\""), "{raw}");
    assert!(at("\"notify-send done\"") < at("\"timeout\""), "{raw}");
    let stop_group = &raw[at("\"Stop\"")..at("\"PreToolUse\"")];
    assert!(
        stop_group.find("\"matcher\"") < stop_group.find("\"hooks\""),
        "{stop_group}"
    );
    assert!(
        stop_group.find("\"type\"") < stop_group.find("\"command\""),
        "{stop_group}"
    );
    let stop = installed["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop[0]["hooks"][0]["command"], "notify-send done");
    assert_eq!(stop[0]["hooks"][0]["timeout"], 5);
    assert_eq!(
        installed["hooks"]["PreToolUse"],
        read_json_str(other_hooks)["hooks"]["PreToolUse"]
    );
}

/// Installing again changes nothing; uninstalling gives back the file as
/// it was (byte for byte when it had no hooks), twice as well.
fn twice_is_once_and_uninstall_restores(
    w: &World,
    case: &str,
    file: &Path,
    before: Option<&Value>,
    text: Option<&str>,
) {
    // Twice is once.
    let text_once = std::fs::read_to_string(file).unwrap();
    let again: Value =
        serde_json::from_slice(&hooks_cmd(w, &["install", "--json"]).stdout).unwrap();
    assert_eq!(again["added"], json!([]), "{case}");
    assert_eq!(std::fs::read_to_string(file).unwrap(), text_once, "{case}");

    // Uninstall: what was there before, exactly.
    let out = hooks_cmd(w, &["uninstall", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["removed"].as_array().unwrap().len(), 6, "{case}");
    let after = read_json(file);
    match (before, text) {
        (Some(before), Some(text)) => {
            assert_eq!(&after, before, "{case}");
            if text.contains("\"PreToolUse\"") {
                let raw = std::fs::read_to_string(file).unwrap();
                assert!(
                    raw.find("\"Stop\"") < raw.find("\"PreToolUse\""),
                    "{case}: {raw}"
                );
            }
            if !text.contains("\"hooks\"") {
                assert_eq!(
                    std::fs::read_to_string(file).unwrap(),
                    text,
                    "{case}: byte for byte"
                );
            }
        }
        _ => assert_eq!(after, json!({}), "{case}"),
    }
    let again: Value =
        serde_json::from_slice(&hooks_cmd(w, &["uninstall", "--json"]).stdout).unwrap();
    assert_eq!(again["removed"], json!([]), "{case}");
}

fn read_json_str(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn memdir_already_present_is_not_duplicated() {
    let w = World::new();
    let file = user_settings(&w);
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_memdir")).unwrap();
    std::fs::write(
        &file,
        json!({"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": format!("{} hook stop", exe.display())}]}]}})
            .to_string(),
    )
    .unwrap();
    let report: Value =
        serde_json::from_slice(&hooks_cmd(&w, &["install", "--json"]).stdout).unwrap();
    assert_eq!(
        report["added"],
        json!([
            "SessionStart",
            "UserPromptSubmit",
            "PostToolUse",
            "PreCompact",
            "SessionEnd"
        ])
    );
    let stops = memdir_commands(&read_json(&file))
        .into_iter()
        .filter(|c| c.ends_with("hook stop"))
        .count();
    assert_eq!(stops, 1);
}

#[test]
fn files_that_are_not_a_json_object_are_refused_untouched() {
    for text in [
        "{\"theme\": \"dark\",,}",
        "[1, 2]",
        "{\"hooks\": [\"memdir hook stop\"]}",
        "// comment\n{}",
    ] {
        let w = World::new();
        let file = user_settings(&w);
        std::fs::write(&file, text).unwrap();
        for action in ["install", "uninstall"] {
            let out = hooks_cmd(&w, &[action]);
            assert_eq!(out.status.code(), Some(1), "{text}: {out:?}");
            // One line of error (after the reader's warning about the
            // same file, when it reads it).
            let err = crate::stderr(&out);
            let errors: Vec<&str> = err
                .lines()
                .filter(|l| !l.starts_with("memdir: warning: "))
                .collect();
            assert_eq!(errors.len(), 1, "{err}");
            assert!(errors[0].contains("cannot update settings"), "{err}");
            assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
        }
        let names: Vec<String> = std::fs::read_dir(file.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("memdir-backup"))
            .collect();
        assert!(names.is_empty(), "{names:?}");
    }
}

#[test]
fn backups_are_made_and_only_the_newest_five_kept() {
    let w = World::new();
    let file = user_settings(&w);
    std::fs::write(&file, "{\"theme\": \"dark\"}\n").unwrap();
    for _ in 0..4 {
        assert!(hooks_cmd(&w, &["install"]).status.success());
        assert!(hooks_cmd(&w, &["uninstall"]).status.success());
    }
    let mut backups: Vec<PathBuf> = std::fs::read_dir(file.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("settings.json.memdir-backup-"))
        .collect();
    backups.sort();
    assert_eq!(backups.len(), 5, "{backups:?}");
    // The newest is the file just before the last uninstall.
    let newest = read_json(backups.last().unwrap());
    assert_eq!(memdir_commands(&newest).len(), 6);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "{\n  \"theme\": \"dark\"\n}\n"
    );
}

#[test]
fn project_and_local_scopes_write_their_own_files() {
    let w = World::new();
    std::fs::create_dir_all(w.folders.project.join(".claude")).unwrap();
    for (scope, name) in [
        ("project", "settings.json"),
        ("local", "settings.local.json"),
    ] {
        let out = hooks_cmd(&w, &["install", "--scope", scope, "--json"]);
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let file = w.folders.project.join(".claude").join(name);
        assert_eq!(report["file"], json!(file.display().to_string()));
        assert_eq!(memdir_commands(&read_json(&file)).len(), 6);
    }
    assert!(!w.folders.home.join(".claude/settings.json").exists());
}

/// What `recall-index status --json` says of `w`'s index.
fn index_status(w: &World) -> Value {
    let home = w.home();
    let memory = w.memory.display().to_string();
    let out = memdir_in(
        &w.folders.root,
        &[("HOME", home.as_str())],
        [
            "--json",
            "--memory-dir",
            memory.as_str(),
            "recall-index",
            "status",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn post_tool_use_indexes_a_memory_the_agent_wrote_and_nothing_else() {
    let w = World::new();
    // The agent's configuration folder, under which the index is kept.
    std::fs::create_dir_all(w.folders.home.join(".claude")).unwrap();
    let tool = |path: &str, cwd: &Path| {
        json!({
            "session_id": "s", "cwd": cwd, "hook_event_name": "PostToolUse",
            "tool_name": "Write", "tool_input": {"file_path": path, "content": "…"},
            "tool_response": {"success": true},
        })
        .to_string()
    };
    // The agent writes memory `name`, then its hook names it as `given`
    // from `cwd`: nothing printed, exit 0.
    let agent_writes = |name: &str, given: &str, cwd: &Path| {
        let text = format!("---\nname: {name}\ndescription: {name} on Tuesday\ntype: user\n---\n");
        std::fs::write(w.memory.join(format!("{name}.md")), text).unwrap();
        let out = w.hook("post-tool-use", &tool(given, cwd));
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(out.stdout.is_empty(), "{}", stdout(&out));
    };
    // No index yet: nothing made (the next recall builds it).
    let tacos = w.memory.join("tacos.md").display().to_string();
    agent_writes("tacos", &tacos, &w.folders.project);
    assert_eq!(index_status(&w)["exists"], false);

    let home = w.home();
    let memory = w.memory.display().to_string();
    let built = memdir_in(
        &w.folders.root,
        &[("HOME", home.as_str())],
        ["--memory-dir", memory.as_str(), "recall-index", "rebuild"],
    );
    assert_eq!(built.status.code(), Some(0), "{built:?}");
    let before = index_status(&w)["memories"].as_u64().unwrap();

    // A memory the agent writes, named absolutely, then relative to the
    // session's folder: indexed by the hook itself, before any recall.
    let burritos = w.memory.join("burritos.md").display().to_string();
    agent_writes("burritos", &burritos, &w.folders.project);
    assert_eq!(index_status(&w)["memories"].as_u64().unwrap(), before + 1);
    agent_writes("nachos", "memory/nachos.md", &w.folders.root);
    assert_eq!(index_status(&w)["memories"].as_u64().unwrap(), before + 2);

    // Files that are not memories, inside the folder or out of it, a
    // path that names nothing, and a link that leads out of the folder:
    // left alone, nothing logged.
    std::fs::write(w.memory.join("notes.txt"), "x").unwrap();
    std::fs::write(w.folders.project.join("main.rs"), "fn main() {}").unwrap();
    let secret = w.folders.root.join("secret.md");
    std::fs::write(
        &secret,
        "---\nname: secret\ndescription: the launch code\n---\n",
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&secret, w.memory.join("escape.md")).unwrap();
    for path in [
        w.memory.join("notes.txt"),
        w.memory.join("MEMORY.md"),
        w.folders.project.join("main.rs"),
        w.memory.join("gone.md"),
        w.memory.join("escape.md"),
    ] {
        let out = w.hook(
            "post-tool-use",
            &tool(&path.display().to_string(), &w.folders.project),
        );
        assert_eq!(out.status.code(), Some(0), "{}", path.display());
        assert!(out.stdout.is_empty());
    }
    assert_eq!(index_status(&w)["memories"].as_u64().unwrap(), before + 2);
    assert!(w.log_lines().is_empty(), "{:?}", w.log_lines());
}
