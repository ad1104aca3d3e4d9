//! Where memdir writes the agent's settings, and where it does not: never
//! through a linked `.claude` folder, never a lock or any other file of its
//! own beside the agent's files, never into a global configuration that
//! holds a value of the wrong type; and what a settings file the
//! project's git tracks may not decide.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use memdir_testkit::{Folders, write_file};
use serde_json::Value;

use crate::{memdir_in, memdir_with_stdin, stderr, stdout};

fn run(f: &Folders, args: &[&str]) -> Output {
    let home = f.home.display().to_string();
    memdir_in(&f.project, &[("HOME", home.as_str())], args)
}

/// Every file under `dir` (links reported as links, never followed) with
/// its bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            out.extend(tree(&path));
        } else if kind.is_symlink() {
            let target = fs::read_link(&path).unwrap();
            out.insert(path, target.as_os_str().as_encoded_bytes().to_vec());
        } else {
            out.insert(path.clone(), fs::read(&path).unwrap());
        }
    }
    out
}

/// A project whose `.claude` is a link to another project's `.claude`,
/// and a global configuration that approves MCP servers for the first.
struct Linked {
    f: Folders,
    victim: PathBuf,
    global: PathBuf,
}

impl Linked {
    fn new() -> Linked {
        let f = Folders::new();
        let victim = f.root.join("src/victim");
        write_file(
            &victim.join(".claude/settings.local.json"),
            "{\n  \"permissions\": {}\n}\n",
        );
        write_file(&victim.join(".claude/settings.json"), "{}\n");
        std::os::unix::fs::symlink(victim.join(".claude"), f.project.join(".claude")).unwrap();
        let global = f.home.join(".claude.json");
        let project = f.project.display().to_string();
        write_file(
            &global,
            &format!(
                "{{\"projects\": {{\"{project}\": {{\"enableAllProjectMcpServers\": true}}}}}}\n"
            ),
        );
        fs::create_dir_all(f.home.join(".claude")).unwrap();
        Linked { f, victim, global }
    }
}

#[test]
fn a_linked_claude_folder_is_never_written_through() {
    let w = Linked::new();
    let victim_before = tree(&w.victim);
    let global_before = fs::read(&w.global).unwrap();

    // The start-up migration of a plain read.
    let out = run(&w.f, &["list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        tree(&w.victim),
        victim_before,
        "list wrote through the link"
    );
    // The approvals stay where they are: they have nowhere to go.
    assert_eq!(fs::read(&w.global).unwrap(), global_before);

    let out = run(&w.f, &["migrate"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains(".claude/settings.local.json") && err.contains("symbolic link"),
        "{err}"
    );
    assert!(
        stdout(&out).contains("held back project-mcp-approvals-to-local-settings"),
        "{}",
        stdout(&out)
    );

    for scope in ["local", "project"] {
        let out = run(&w.f, &["hooks", "install", "--scope", scope]);
        assert_eq!(out.status.code(), Some(1), "{scope}: {}", stdout(&out));
        let err = stderr(&out);
        assert!(err.contains("symbolic link"), "{scope}: {err}");
    }
    assert_eq!(
        tree(&w.victim),
        victim_before,
        "a command wrote through the link"
    );
    assert_eq!(fs::read(&w.global).unwrap(), global_before);
}

/// Whether `path` is one of the files memdir may leave outside its own
/// folder `<base>/memdir/`: the agent's settings it edits and their
/// backups.
fn allowed_outside(f: &Folders, path: &Path) -> bool {
    let base = f.home.join(".claude");
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let agents = [
        f.home.join(".claude.json"),
        base.join("settings.json"),
        f.project.join(".claude/settings.local.json"),
    ];
    agents.iter().any(|a| a == path)
        || (path.parent() == Some(&base.join("backups"))
            && name.starts_with(".claude.json.backup."))
        || name.starts_with("settings.json.memdir-backup-")
        || name.starts_with("settings.local.json.memdir-backup-")
}

#[test]
fn memdir_leaves_no_lock_or_file_of_its_own_beside_the_agents_files() {
    let f = Folders::new();
    let base = f.home.join(".claude");
    let project = f.project.display().to_string();
    // Something for the start-up migration to move into each settings
    // file, so that both are written.
    write_file(
        &f.home.join(".claude.json"),
        &format!(
            "{{\"autoUpdates\": false, \"projects\": {{\"{project}\": {{\"enabledMcpjsonServers\": [\"github\"]}}}}}}\n"
        ),
    );
    write_file(
        &base.join("settings.json"),
        "{\"model\": \"fennec-latest\"}\n",
    );
    fs::create_dir_all(f.project.join(".claude")).unwrap();

    // A plain read creates no lock anywhere, not even memdir's.
    let memory = f.root.join("memory");
    fs::create_dir_all(&memory).unwrap();
    let memory = memory.display().to_string();
    let quiet = [
        ("HOME", f.home.to_str().unwrap()),
        ("MEMDIR_AUTO_MIGRATE", "0"),
    ];
    let out = memdir_in(
        &f.project,
        &quiet,
        ["--memory-dir", memory.as_str(), "list"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let locks: Vec<_> = tree(&f.root)
        .into_keys()
        .filter(|p| p.to_string_lossy().ends_with(".lock"))
        .collect();
    assert_eq!(locks, Vec::<PathBuf>::new(), "a read made a lock");

    for args in [
        &["list"][..],
        &["migrate"],
        &["hooks", "install", "--scope", "local"],
        &["hooks", "install", "--scope", "user"],
        &["hooks", "uninstall", "--scope", "user"],
    ] {
        let out = run(&f, args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    // Each file was written (a backup of each hooks file proves it).
    let local = fs::read_to_string(f.project.join(".claude/settings.local.json")).unwrap();
    assert!(
        local.contains("github") && local.contains("hook"),
        "{local}"
    );
    let user = fs::read_to_string(base.join("settings.json")).unwrap();
    assert!(user.contains("\"opus\""), "{user}");

    let strays: Vec<PathBuf> = tree(&f.root)
        .into_keys()
        .filter(|p| !p.starts_with(base.join("memdir")) && !p.starts_with(f.root.join("memory")))
        .filter(|p| !allowed_outside(&f, p))
        .collect();
    assert_eq!(
        strays,
        Vec::<PathBuf>::new(),
        "memdir's files outside <base>/memdir/"
    );
}

#[test]
fn a_global_configuration_with_a_null_project_is_left_whole_and_reported() {
    let f = Folders::new();
    let project = f.project.display().to_string();
    let global = f.home.join(".claude.json");
    let text = format!(
        "{{\"autoUpdates\": false, \"projects\": {{\"/p\": null, \"{project}\": {{\"enableAllProjectMcpServers\": true}}}}}}\n"
    );
    write_file(&global, &text);
    write_file(
        &f.home.join(".claude/settings.json"),
        "{\"model\": \"fennec-latest\"}\n",
    );
    fs::create_dir_all(f.project.join(".claude")).unwrap();

    let out = run(&f, &["migrate"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains(".claude.json: projects[\"/p\"] is null, not an object; left untouched"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&global).unwrap(), text);
    assert!(!f.project.join(".claude/settings.local.json").exists());
    assert!(!f.home.join(".claude/backups").exists());
    // The user settings' own migrations ran all the same.
    let user = fs::read_to_string(f.home.join(".claude/settings.json")).unwrap();
    assert!(user.contains("\"model\": \"opus\""), "{user}");
    assert!(!user.contains("DISABLE_AUTOUPDATER"), "{user}");
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
}

#[test]
fn a_local_settings_file_that_git_tracks_cannot_choose_the_memory_folder() {
    let f = Folders::new();
    // Another project's private memory, with an index worth stealing.
    let other = f.home.join(".claude/projects/-other/memory");
    write_file(
        &other.join("MEMORY.md"),
        "- [Deploy keys](deploy.md) — OTHER-PROJECT-PRIVATE-LINE\n",
    );
    write_file(
        &f.project.join(".claude/settings.local.json"),
        &format!("{{\"autoMemoryDirectory\": \"{}\"}}\n", other.display()),
    );
    git(&f.project, &["init", "-q"]);
    git(&f.project, &["add", ".claude/settings.local.json"]);
    git(&f.project, &["commit", "-q", "-m", "settings"]);
    let home = f.home.display().to_string();
    let vars = [("HOME", home.as_str())];

    let paths: Value =
        serde_json::from_slice(&memdir_in(&f.project, &vars, ["--json", "paths"]).stdout).unwrap();
    assert_eq!(paths["autoMemPathSource"], "default", "{paths}");
    let warnings = paths["warnings"].to_string();
    assert!(warnings.contains("git tracks"), "{warnings}");

    let input = format!(
        "{{\"session_id\": \"s1\", \"cwd\": \"{}\", \"hook_event_name\": \"SessionStart\", \"source\": \"startup\"}}",
        f.project.display()
    );
    let out = memdir_with_stdin(&f.project, &vars, ["hook", "session-start"], Some(&input));
    assert_eq!(out.status.code(), Some(0));
    assert!(
        !stdout(&out).contains("OTHER-PROJECT-PRIVATE-LINE"),
        "{}",
        stdout(&out)
    );

    // Untracked, the same file is the user's own word again.
    git(
        &f.project,
        &["rm", "-q", "--cached", ".claude/settings.local.json"],
    );
    let paths: Value =
        serde_json::from_slice(&memdir_in(&f.project, &vars, ["--json", "paths"]).stdout).unwrap();
    assert_eq!(paths["autoMemPathSource"], "settings:local", "{paths}");
    let out = memdir_with_stdin(&f.project, &vars, ["hook", "session-start"], Some(&input));
    assert!(
        stdout(&out).contains("OTHER-PROJECT-PRIVATE-LINE"),
        "{}",
        stdout(&out)
    );
}
