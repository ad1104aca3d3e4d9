//! `memdir paths`, `check-key`, `check-write`, and the index commands'
//! default file, run as a process with a controlled environment.

use std::fs;
use std::path::{Path, PathBuf};

use memdir_testkit::Folders;

use crate::{memdir_in, stderr, stdout};

/// A home folder and a project folder in one temporary folder.
struct World(Folders);

impl std::ops::Deref for World {
    type Target = Folders;
    fn deref(&self) -> &Folders {
        &self.0
    }
}

fn world() -> World {
    World(Folders::at("home", "work/my.app"))
}

impl World {
    fn run(&self, args: &[&str]) -> std::process::Output {
        memdir_in(
            &self.project,
            &[("HOME", self.home.to_str().unwrap())],
            args,
        )
    }

    fn json(&self, args: &[&str]) -> serde_json::Value {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

fn files_below(dir: &Path) -> usize {
    fs::read_dir(dir).map_or(0, |rd| {
        rd.filter_map(Result::ok)
            .map(|e| 1 + files_below(&e.path()))
            .sum()
    })
}

#[test]
fn paths_json_has_every_value_and_its_source() {
    let w = world();
    let j = w.json(&["paths", "--json"]);
    let slug =
        format!("{}", w.project.display()).replace(|c: char| !c.is_ascii_alphanumeric(), "-");
    let auto = format!("{}/.claude/projects/{slug}/memory/", w.home.display());
    assert_eq!(j["enabled"], true);
    assert_eq!(j["enabledBy"], "default");
    assert_eq!(j["autoMemPath"], auto.as_str());
    assert_eq!(j["autoMemPathSource"], "default");
    assert_eq!(j["teamEnabled"], false);
    assert_eq!(j["teamMemPath"], format!("{auto}team/").as_str());
    // <auto>/logs/YYYY/MM/YYYY-MM-DD.md
    let log = j["dailyLogPath"].as_str().unwrap();
    let parts: Vec<&str> = log
        .strip_prefix(&format!("{auto}logs/"))
        .unwrap()
        .split('/')
        .collect();
    assert_eq!(parts.len(), 3, "{log}");
    assert!(
        parts[2].starts_with(&format!("{}-{}-", parts[0], parts[1])),
        "{log}"
    );
    assert_eq!(
        Path::new(parts[2]).extension().and_then(|e| e.to_str()),
        Some("md")
    );
    assert_eq!(j["projectRoot"], w.project.to_str().unwrap());
    // Nothing was created by resolving.
    assert_eq!(files_below(&w.home), 0);
}

#[test]
fn paths_reports_overrides_and_warnings() {
    let w = world();
    fs::create_dir_all(w.project.join(".claude")).unwrap();
    fs::write(
        w.project.join(".claude/settings.json"),
        r#"{"autoMemoryDirectory": "~/.ssh", "teamMemoryEnabled": true}"#,
    )
    .unwrap();
    fs::write(w.project.join(".claude/settings.local.json"), "{broken").unwrap();
    let out = w.run(&["paths", "--json"]);
    assert!(out.status.success());
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["autoMemPathSource"], "default");
    assert_eq!(j["teamEnabled"], true);
    assert_eq!(j["teamEnabledBy"], "settings:project");
    assert_eq!(j["warnings"].as_array().unwrap().len(), 2);
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(
        err.lines().all(|l| l.starts_with("memdir: warning: ")),
        "{err}"
    );

    let out = memdir_in(
        &w.project,
        &[
            ("HOME", w.home.to_str().unwrap()),
            ("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1"),
        ],
        ["paths", "--json"],
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (j["enabled"].as_bool(), j["enabledBy"].as_str()),
        (Some(false), Some("env:CLAUDE_CODE_DISABLE_AUTO_MEMORY"))
    );
    assert_eq!(j["teamEnabledBy"], "auto-memory-off");
}

#[test]
fn paths_text_names_each_value() {
    let w = world();
    let out = w.run(&["paths"]);
    let text = stdout(&out);
    for label in [
        "project root",
        "auto memory dir",
        "team memory dir",
        "daily log",
        "(default)",
    ] {
        assert!(text.contains(label), "{text}");
    }
}

#[test]
fn hostile_keys_exit_3_with_one_line_and_create_nothing() {
    let w = world();
    let team = w.home.join("team");
    for key in [
        "../../etc/passwd",
        "%2e%2e%2fx",
        "\u{ff0e}\u{ff0e}/x",
        "/abs",
        "a\\b",
        "C:x",
        "a//b",
    ] {
        let out = w.run(&[
            "paths",
            "check-key",
            key,
            "--team-dir",
            team.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(out.status.code(), Some(3), "{key:?}");
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["ok"], false);
        assert_eq!(j["error"], "PathTraversalError");
        assert!(j["reason"].as_str().is_some_and(|r| !r.is_empty()));
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{key:?}: {err}");
        assert!(err.starts_with("memdir: path traversal rejected"), "{err}");
    }
    assert!(!team.exists());
    assert_eq!(files_below(&w.home), 0);
}

#[test]
fn check_key_accepts_and_defaults_to_the_team_folder() {
    let w = world();
    let j = w.json(&["paths", "check-key", "conventions/testing.md", "--json"]);
    let path = j["path"].as_str().unwrap();
    assert!(
        path.ends_with("/memory/team/conventions/testing.md"),
        "{path}"
    );
    assert_eq!(files_below(&w.home), 0);
}

#[test]
fn check_write_catches_the_team2_trap_and_symlinks() {
    let w = world();
    let team = w.home.join("mem/team");
    fs::create_dir_all(&team).unwrap();
    fs::create_dir_all(w.home.join("mem/team2")).unwrap();
    std::os::unix::fs::symlink(w.home.join("mem/team2"), team.join("link")).unwrap();
    let team_arg = team.to_str().unwrap();
    for (path, code) in [
        (w.home.join("mem/team2/x.md"), "outside-team-folder"),
        (team.join("../team2/x.md"), "outside-team-folder"),
        (team.join("link/x.md"), "escapes-via-symlink"),
    ] {
        let out = w.run(&[
            "paths",
            "check-write",
            path.to_str().unwrap(),
            "--team-dir",
            team_arg,
            "--json",
        ]);
        assert_eq!(out.status.code(), Some(3), "{}", path.display());
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["code"], code);
    }
    let out = w.run(&[
        "paths",
        "check-write",
        team.join("ok.md").to_str().unwrap(),
        "--team-dir",
        team_arg,
    ]);
    assert!(out.status.success());
    assert_eq!(
        stdout(&out).trim(),
        format!("ok: {}", team.join("ok.md").display())
    );
}

#[test]
fn index_commands_default_to_the_resolved_memory_folder() {
    let w = world();
    let out = w.run(&["index", "check"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with("memdir: no MEMORY.md in ") && err.lines().count() == 1,
        "{err}"
    );

    let example = crate::root().join("fixtures/example/memory");
    let out = w.run(&["--memory-dir", example.to_str().unwrap(), "index", "check"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("no problems found"));

    // The default path, once the folder exists.
    let j = w.json(&["paths", "--json"]);
    let auto = PathBuf::from(j["autoMemPath"].as_str().unwrap());
    fs::create_dir_all(&auto).unwrap();
    fs::write(auto.join("MEMORY.md"), "- [A](a.md) — x\n").unwrap();
    let j = w.json(&["index", "show", "--json"]);
    assert_eq!(j["content"], "- [A](a.md) — x");
}

#[test]
fn unsafe_memory_dirs_are_rejected_with_exit_3() {
    let w = world();
    for dir in ["/", w.home.to_str().unwrap()] {
        let out = w.run(&["--memory-dir", dir, "paths"]);
        assert_eq!(out.status.code(), Some(3), "{dir}");
        let err = stderr(&out);
        assert!(
            err.starts_with("memdir: --memory-dir: memory path") && err.lines().count() == 1,
            "{err}"
        );
    }
    // A relative folder is taken relative to the working directory.
    fs::create_dir_all(w.project.join("mem")).unwrap();
    let j = w.json(&["--memory-dir", "mem", "paths", "--json"]);
    assert_eq!(
        j["autoMemPath"],
        format!("{}/mem/", w.project.display()).as_str()
    );
    assert_eq!(j["autoMemPathSource"], "flag:--memory-dir");
}

#[test]
fn a_missing_project_folder_is_a_clear_error() {
    let w = world();
    let out = w.run(&["--project", "/no/such/project", "paths"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("memdir: cannot open project folder /no/such/project"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_project_folder_that_is_not_utf8_is_refused_by_name() {
    use std::os::unix::ffi::OsStrExt;
    let w = world();
    let bad = w.project.join(std::ffi::OsStr::from_bytes(b"proj\xff"));
    fs::create_dir(&bad).unwrap();
    let out = memdir_in(
        &bad,
        &[("HOME", w.home.to_str().unwrap())],
        ["paths", "--json"],
    );
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "project folder {} is not valid UTF-8",
            bad.display()
        )),
        "{err}"
    );
}

#[test]
fn the_team_url_comes_from_trusted_settings_only() {
    let w = world();
    let claude = w.project.join(".claude");
    fs::create_dir_all(&claude).unwrap();
    fs::write(
        claude.join("settings.json"),
        r#"{"teamMemoryEnabled": true, "teamMemory": {"url": "http://127.0.0.1:9"}}"#,
    )
    .unwrap();
    let out = w.run(&["team", "status"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("no team server is configured"),
        "{}",
        stderr(&out)
    );
    // The same key in a trusted file (here `--settings`) is used: the
    // command gets past choosing a server.
    let flag = w.home.join("flag.json");
    fs::write(&flag, r#"{"teamMemory": {"url": "http://127.0.0.1:9"}}"#).unwrap();
    let out = w.run(&["--settings", flag.to_str().unwrap(), "team", "status"]);
    assert!(
        !stderr(&out).contains("no team server is configured"),
        "{}",
        stderr(&out)
    );
}
