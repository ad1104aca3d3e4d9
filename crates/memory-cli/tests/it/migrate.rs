//! `memdir migrate` as processes: the dry run, the report, damaged files,
//! a crowd of runs at once, runs killed midway, and the start-up run of
//! another command.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use memdir_testkit::{Folders, fixture};
use serde_json::Value;

use crate::{command, memdir_in, stderr, stdout};

/// A home and project holding the `mix` fixture: an old configuration
/// with every kind of old value.
struct Setup {
    f: Folders,
}

impl Setup {
    fn mix() -> Setup {
        let f = Folders::new();
        let case = fixture("migrations/mix");
        let project = f.project.display().to_string();
        let put = |from: &str, to: PathBuf| {
            let text = fs::read_to_string(case.join(from)).unwrap();
            memdir_testkit::write_file(&to, &text.replace("@PROJECT@", &project));
        };
        put("claude.json", f.home.join(".claude.json"));
        put("settings.json", f.home.join(".claude/settings.json"));
        put("credentials.json", f.home.join(".claude/.credentials.json"));
        Setup { f }
    }

    fn home(&self) -> String {
        self.f.home.display().to_string()
    }

    fn migrate(&self, args: &[&str]) -> std::process::Output {
        let home = self.home();
        let mut all = vec!["migrate"];
        all.extend_from_slice(args);
        memdir_in(&self.f.project, &[("HOME", home.as_str())], all)
    }

    /// The agent's three files, the project folder shown as `@PROJECT@`.
    fn agent_files(&self) -> BTreeMap<&'static str, String> {
        let project = self.f.project.display().to_string();
        [
            ("claude.json", self.f.home.join(".claude.json")),
            ("settings.json", self.f.home.join(".claude/settings.json")),
            (
                "settings.local.json",
                self.f.project.join(".claude/settings.local.json"),
            ),
        ]
        .into_iter()
        .filter_map(|(name, path)| {
            let text = fs::read_to_string(path).ok()?;
            serde_json::from_str::<Value>(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
            Some((name, text.replace(&project, "@PROJECT@")))
        })
        .collect()
    }

    fn events(&self) -> Vec<Value> {
        fs::read_to_string(self.f.home.join(".claude/memdir/migrations.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

fn all_bytes(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in walkdir(dir) {
        out.insert(entry.clone(), fs::read(&entry).unwrap());
    }
    out
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        if entry.file_type().unwrap().is_dir() {
            files.extend(walkdir(&entry.path()));
        } else {
            files.push(entry.path());
        }
    }
    files
}

/// What one uninterrupted run makes of the fixture.
fn migrated_once() -> BTreeMap<&'static str, String> {
    let s = Setup::mix();
    let out = s.migrate(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    s.agent_files()
}

#[test]
fn a_dry_run_prints_diffs_and_writes_nothing() {
    let s = Setup::mix();
    let before = all_bytes(&s.f.root);
    let out = s.migrate(&["--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("would apply opus-to-opus-1m: model: \"opus\" -> \"opus[1m]\""),
        "{text}"
    );
    assert!(text.contains("-  \"autoUpdates\": false,\n"), "{text}");
    assert!(
        text.contains("7 of 11 migrations would change something; nothing was written"),
        "{text}"
    );
    let out = s.migrate(&["--dry-run", "--json"]);
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report.as_array().unwrap().len(), 11);
    assert!(report[0]["diff"].as_str().unwrap().starts_with("--- a"));
    assert_eq!(all_bytes(&s.f.root), before, "a dry run wrote something");
}

#[test]
fn a_run_reports_each_migration_once_and_a_second_changes_nothing() {
    let s = Setup::mix();
    let out = s.migrate(&["--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let rows = report.as_array().unwrap();
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 11);
    assert_eq!(ids[0], "auto-updates-to-settings");
    assert_eq!(ids[10], "reset-pro-to-opus-default");
    for row in rows {
        let applied = row["applied"].as_bool().unwrap();
        assert_eq!(row["change"].is_string(), applied, "{row}");
        assert_eq!(row["skippedBecause"].is_string(), !applied, "{row}");
        assert!(row.get("diff").is_none());
    }
    assert!(!stdout(&out).contains("FIXTURE-NOT-A-REAL-TOKEN"));
    let once = s.agent_files();
    let again = s.migrate(&["--json"]);
    let report: Value = serde_json::from_str(&stdout(&again)).unwrap();
    assert!(
        report
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["applied"] == false)
    );
    assert_eq!(s.agent_files(), once);
    assert_eq!(s.events().len(), 7);
}

#[test]
fn a_damaged_file_is_left_alone_reported_and_the_exit_status_says_so() {
    let s = Setup::mix();
    let global = s.f.home.join(".claude.json");
    fs::write(&global, "{\"autoUpdates\": false,").unwrap();
    let out = s.migrate(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains(".claude.json: it is not valid JSON; left untouched"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(
        fs::read_to_string(&global).unwrap(),
        "{\"autoUpdates\": false,"
    );
    // The user settings' migrations ran all the same.
    let settings = fs::read_to_string(s.f.home.join(".claude/settings.json")).unwrap();
    assert!(settings.contains("\"model\": \"opus[1m]\""), "{settings}");
}

#[test]
fn a_crowd_of_runs_applies_each_migration_exactly_once() {
    let s = Setup::mix();
    let home = s.home();
    let children: Vec<_> = (0..10)
        .map(|_| {
            command(
                &s.f.project,
                &[("HOME", home.as_str())],
                ["--json", "migrate"],
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    let mut applied: Vec<String> = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
        applied.extend(
            report
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["applied"] == true)
                .map(|r| r["id"].as_str().unwrap().to_owned()),
        );
    }
    let mut unique = applied.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(applied.len(), 7, "{applied:?}");
    assert_eq!(unique.len(), 7, "{applied:?}");
    assert_eq!(s.events().len(), 7);
    assert_eq!(s.agent_files(), migrated_once());
}

#[test]
fn runs_killed_at_any_moment_lose_nothing_and_the_next_run_completes() {
    let expected = migrated_once();
    for round in 0..12u64 {
        let s = Setup::mix();
        let home = s.home();
        let mut child = command(&s.f.project, &[("HOME", home.as_str())], ["migrate"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(round * 1_500));
        let _ = child.kill();
        let _ = child.wait();
        // Whatever the kill left is whole JSON (agent_files parses each).
        let _ = s.agent_files();
        let out = s.migrate(&[]);
        assert!(out.status.success(), "round {round}: {}", stderr(&out));
        assert_eq!(s.agent_files(), expected, "round {round}");
        // A write killed before its rename can leave only its own
        // temporary file, never a part of one of the agent's files.
        for dir in [s.f.home.clone(), s.f.home.join(".claude")] {
            for entry in fs::read_dir(&dir).unwrap().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let known = [
                    ".claude.json",
                    ".claude",
                    "settings.json",
                    ".credentials.json",
                    "memdir",
                    "backups",
                ];
                assert!(
                    known.contains(&name.as_str()) || name.starts_with(".memdir-tmp-"),
                    "round {round}: {name} in {}",
                    dir.display()
                );
            }
        }
    }
}

#[test]
fn another_command_migrates_first_unless_turned_off() {
    let s = Setup::mix();
    let home = s.home();
    let memory = s.f.root.join("memory");
    let memory = memory.to_str().unwrap();
    let off = memdir_in(
        &s.f.project,
        &[("HOME", home.as_str()), ("MEMDIR_AUTO_MIGRATE", "0")],
        ["list", "--memory-dir", memory],
    );
    assert!(!stderr(&off).contains("migrated"), "{}", stderr(&off));
    assert!(
        fs::read_to_string(s.f.home.join(".claude.json"))
            .unwrap()
            .contains("autoUpdates")
    );
    let on = memdir_in(
        &s.f.project,
        &[("HOME", home.as_str())],
        ["list", "--memory-dir", memory],
    );
    let err = stderr(&on);
    assert!(
        err.contains("memdir: migrated settings (fennec-to-opus)"),
        "{err}"
    );
    assert_eq!(s.agent_files(), migrated_once());
    // Once done, the next command says nothing of migrations.
    let quiet = memdir_in(
        &s.f.project,
        &[("HOME", home.as_str())],
        ["list", "--memory-dir", memory],
    );
    assert!(!stderr(&quiet).contains("migrat"), "{}", stderr(&quiet));
}
