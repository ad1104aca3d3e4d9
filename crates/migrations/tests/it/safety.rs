//! Damaged files, the dry run, links, backups, memdir's own records and
//! concurrent runs.

use std::fmt::Write as _;
use std::fs;
use std::os::unix::fs::PermissionsExt as _;

use memdir_migrations::KEPT_BACKUPS;
use memdir_testkit::fixture;

use crate::support::World;

fn mix() -> World {
    World::from_case(&fixture("migrations/mix"))
}

#[test]
fn a_dry_run_writes_nothing_and_shows_each_change_as_a_diff() {
    let world = mix();
    let before = world.all_bytes();
    let report = world.run(true);
    assert_eq!(world.all_bytes(), before, "a dry run changed a file");
    assert!(!world.at.state_dir().exists());
    assert!(report.dry_run && report.backup.is_none());
    let applied: Vec<_> = report.applied().map(|o| o.id).collect();
    assert_eq!(applied.len(), 7, "{applied:?}");
    let diffs: String = report
        .applied()
        .map(|o| o.diff.clone().unwrap())
        .collect::<String>();
    insta::assert_snapshot!(world.clean(&diffs));
    // The real run then does what the dry run showed.
    let real = world.run(false);
    assert_eq!(real.applied().map(|o| o.id).collect::<Vec<_>>(), applied);
}

#[test]
fn each_applied_migration_is_logged_once_and_other_state_keys_survive() {
    let world = mix();
    world.put("state.json", "{\"someoneElse\": {\"kept\": true}}\n");
    world.run(false);
    world.run(false);
    let log = fs::read_to_string(world.at.event_log()).unwrap();
    let events: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: Vec<&str> = events.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "auto-updates-to-settings",
            "bypass-permissions-accepted-to-settings",
            "project-mcp-approvals-to-local-settings",
            "repl-bridge-to-remote-control",
            "fennec-to-opus",
            "opus-to-opus-1m",
            "reset-auto-mode-opt-in",
        ]
    );
    for event in &events {
        assert_eq!(event["at"], crate::support::NOW);
        let file = std::path::Path::new(event["file"].as_str().unwrap());
        assert!(file.extension().is_some_and(|e| e == "json"), "{event}");
        assert!(!event["change"].as_str().unwrap().is_empty());
    }
    let state: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(world.at.state_file()).unwrap()).unwrap();
    assert_eq!(state["someoneElse"]["kept"], true);
    assert_eq!(state["migrations"]["done"].as_object().unwrap().len(), 5);
    // The agent's files never get a key of memdir's.
    for text in world.agent_files().values() {
        assert!(
            !text.contains("memdir") || text.contains("memdir hook stop"),
            "{text}"
        );
    }
}

#[test]
fn the_five_newest_backups_are_kept_each_the_bytes_before_the_change() {
    let world = World::new();
    let mut made = Vec::new();
    for n in 0..KEPT_BACKUPS + 2 {
        let text = format!("{{\"numStartups\": {n}, \"autoUpdates\": false}}");
        world.put("claude.json", &text);
        let options = memdir_migrations::RunOptions {
            dry_run: false,
            now: Some(
                jiff::Timestamp::from_millisecond(1_000 + i64::try_from(n).unwrap()).unwrap(),
            ),
        };
        let report = memdir_migrations::run(&world.at, &options).unwrap();
        let backup = report.backup.unwrap();
        assert_eq!(fs::read_to_string(&backup).unwrap(), text);
        assert_eq!(
            fs::metadata(&backup).unwrap().permissions().mode() & 0o777,
            0o600
        );
        made.push(backup);
    }
    let mut left: Vec<_> = fs::read_dir(world.at.backup_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    left.sort();
    assert_eq!(left, made[2..]);
    assert!(made[0].ends_with(".claude.json.backup.0000000001000"));
}

#[test]
fn locks_stay_in_memdirs_folder() {
    let world = mix();
    let report = world.run(false);
    let written: Vec<_> = report.applied().filter_map(|o| o.file.clone()).collect();
    assert!(written.contains(&world.at.user_settings), "{written:?}");
    let local = world.at.project.clone().unwrap().local_settings;
    assert!(written.contains(&local), "{written:?}");
    let locks: Vec<_> = world
        .all_bytes()
        .into_keys()
        .filter(|p| p.extension().is_some_and(|e| e == "lock"))
        .collect();
    assert!(!locks.is_empty());
    for lock in locks {
        assert!(lock.starts_with(world.at.state_dir()), "{}", lock.display());
    }
}

#[test]
fn a_linked_claude_folder_is_never_written_through() {
    // The project's `.claude` leads to another project's: the approvals
    // of this project must not land in that one's settings.
    let world = World::new();
    let victim = world.folders.root.join("src/victim/.claude");
    fs::create_dir_all(&victim).unwrap();
    fs::write(victim.join("settings.local.json"), "{}\n").unwrap();
    std::os::unix::fs::symlink(&victim, world.folders.project.join(".claude")).unwrap();
    world.put(
        "claude.json",
        "{\"projects\": {\"@PROJECT@\": {\"enableAllProjectMcpServers\": true}}}",
    );
    let global = fs::read(&world.at.global_config).unwrap();
    for run in [
        |w: &World| Some(w.run(false)),
        |w: &World| memdir_migrations::run_if_needed(&w.at).unwrap(),
    ] {
        let report = run(&world).unwrap();
        assert_eq!(report.applied().count(), 0, "{:?}", report.outcomes);
        let names: Vec<_> = fs::read_dir(&victim)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["settings.local.json"]);
        assert_eq!(
            fs::read_to_string(victim.join("settings.local.json")).unwrap(),
            "{}\n"
        );
        assert_eq!(fs::read(&world.at.global_config).unwrap(), global);
        let problem = &report.problems[0];
        assert_eq!(problem.kind, memdir_migrations::ProblemKind::Unusable);
        assert!(
            problem.message.contains(".claude is a symbolic link"),
            "{problem}"
        );
        // The state is dropped so that the start-up check runs again.
        let _ = fs::remove_file(world.at.state_file());
    }
}

#[test]
fn a_linked_or_special_file_is_left_alone_and_reported() {
    let world = World::new();
    let elsewhere = world.folders.root.join("dotfiles-claude.json");
    fs::write(&elsewhere, "{\"autoUpdates\": false}").unwrap();
    std::os::unix::fs::symlink(&elsewhere, &world.at.global_config).unwrap();
    rustix_free_mkfifo(&world.at.user_settings);
    world.put(
        "settings.local.json",
        "{\"enabledMcpjsonServers\": [\"a\"]}",
    );
    let report = world.run(false);
    assert_eq!(report.applied().count(), 0, "{:?}", report.outcomes);
    assert_eq!(
        fs::read_to_string(&elsewhere).unwrap(),
        "{\"autoUpdates\": false}"
    );
    assert!(
        fs::symlink_metadata(&world.at.global_config)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let problems: Vec<String> = report.problems.iter().map(ToString::to_string).collect();
    let problems = problems.join("\n");
    assert!(problems.contains("symbolic link"), "{problems}");
    assert!(problems.contains("FIFO"), "{problems}");
    assert!(report.backup.is_none());
}

/// A FIFO at `path`, made with the system's `mkfifo`.
fn rustix_free_mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_damaged_state_file_holds_back_only_the_once_only_migrations() {
    let world = World::new();
    world.put("state.json", "{\"migrations\": [1, 2]}");
    world.put(
        "settings.json",
        "{\"model\": \"fennec-latest\", \"skipAutoPermissionPrompt\": true}",
    );
    let report = world.run(false);
    let applied: Vec<_> = report.applied().map(|o| o.id).collect();
    assert_eq!(applied, ["fennec-to-opus"]);
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.path == world.at.state_file()),
        "{:?}",
        report.problems
    );
    assert_eq!(
        fs::read_to_string(world.at.state_file()).unwrap(),
        "{\"migrations\": [1, 2]}"
    );
}

#[test]
fn the_start_up_check_runs_again_only_when_an_input_changed() {
    let world = mix();
    assert!(
        memdir_migrations::run_if_needed(&world.at)
            .unwrap()
            .is_some()
    );
    assert!(
        memdir_migrations::run_if_needed(&world.at)
            .unwrap()
            .is_none()
    );
    // An older agent writes an old value again.
    world.put("claude.json", "{\"replBridgeEnabled\": true}");
    let report = memdir_migrations::run_if_needed(&world.at)
        .unwrap()
        .unwrap();
    assert_eq!(
        report.applied().map(|o| o.id).collect::<Vec<_>>(),
        ["repl-bridge-to-remote-control"]
    );
}

#[test]
fn concurrent_runs_apply_each_migration_exactly_once() {
    let world = mix();
    let applied: Vec<Vec<&'static str>> = std::thread::scope(|s| {
        let runs: Vec<_> = (0..8)
            .map(|_| s.spawn(|| world.run(false).applied().map(|o| o.id).collect()))
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let mut all: Vec<&str> = applied.into_iter().flatten().collect();
    all.sort_unstable();
    let before = all.len();
    all.dedup();
    assert_eq!(all.len(), before, "a migration applied twice");
    assert_eq!(all.len(), 7);
    let log = fs::read_to_string(world.at.event_log()).unwrap();
    assert_eq!(log.lines().count(), 7);
}

#[test]
fn a_large_global_configuration_keeps_every_other_project_byte_for_byte() {
    let world = World::new();
    let mut text = String::from("{\n  \"projects\": {\n");
    for n in 0..20_000 {
        writeln!(
            text,
            "    \"/src/p{n}\": {{\"allowedTools\": [], \"lastCost\": {n}.5, \"enabledMcpjsonServers\": [\"s{n}\"]}},"
        )
        .unwrap();
    }
    text.push_str("    \"@PROJECT@\": {\"enabledMcpjsonServers\": [\"github\"]}\n  }\n}\n");
    assert!(text.len() > memdir_settings_limit());
    world.put("claude.json", &text);
    let report = world.run(false);
    assert_eq!(
        report.applied().map(|o| o.id).collect::<Vec<_>>(),
        ["project-mcp-approvals-to-local-settings"]
    );
    let after = fs::read_to_string(&world.at.global_config).unwrap();
    for n in [0, 777, 19_999] {
        let line = format!(
            "    \"/src/p{n}\": {{\"allowedTools\": [], \"lastCost\": {n}.5, \"enabledMcpjsonServers\": [\"s{n}\"]}},\n"
        );
        assert!(after.contains(&line), "project {n} changed");
    }
    assert!(!after.contains("github"));
}

/// A settings file's own limit, which the global configuration may pass.
fn memdir_settings_limit() -> usize {
    1024 * 1024
}
