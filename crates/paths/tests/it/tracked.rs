//! What the project's git tracks, read from indexes that the `git` binary
//! wrote (every index version, SHA-256, worktrees, split and sparse
//! indexes), and what a tracked `settings.local.json` may decide.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::Command;

use memdir_paths::{AutoMemPathSource, Environment, PathResolver, git_index_holds};
use memdir_settings::{SettingsFile, SettingsSource};
use memdir_testkit::{Folders, write_file as write};

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(["-c", "init.defaultBranch=main", "-c", "core.autocrlf=false"])
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A repository with files whose paths share long prefixes (what index
/// version 4 compresses), half of them added, and the local settings file
/// added or not.
fn repository(dir: &Path, object_format: &str, add_local: bool) -> Vec<String> {
    git(
        dir,
        &["init", "-q", &format!("--object-format={object_format}")],
    );
    let mut all = Vec::new();
    for i in 0..120 {
        for folder in ["src/deeply/nested/module", "src/deeply/other", ".claude"] {
            let path = format!("{folder}/file-{i:03}.txt");
            write(&dir.join(&path), "x");
            all.push(path);
        }
    }
    write(&dir.join(".claude/settings.local.json"), "{}");
    write(&dir.join(".claude/settings.json"), "{}");
    all.push(".claude/settings.local.json".to_owned());
    all.push(".claude/settings.json".to_owned());
    let added: Vec<&str> = all
        .iter()
        .enumerate()
        .filter(|(i, p)| i % 2 == 0 && !p.ends_with("settings.local.json"))
        .map(|(_, p)| p.as_str())
        .collect();
    for chunk in added.chunks(50) {
        let mut args = vec!["add", "--"];
        args.extend_from_slice(chunk);
        git(dir, &args);
    }
    if add_local {
        git(dir, &["add", ".claude/settings.local.json"]);
    }
    all
}

/// What `git ls-files` says is tracked.
fn tracked_by_git(dir: &Path) -> BTreeSet<String> {
    git(dir, &["ls-files", "-z"])
        .split('\0')
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

/// For every path, the reader agrees with git.
fn agrees_with_git(dir: &Path, all: &[String], case: &str) {
    let tracked = tracked_by_git(dir);
    assert!(tracked.len() > 100, "{case}: {}", tracked.len());
    for path in all {
        assert_eq!(
            git_index_holds(dir, &[path]).unwrap(),
            tracked.contains(path),
            "{case}: {path}"
        );
    }
}

#[test]
fn every_index_version_reads_as_git_reads_it() {
    for object_format in ["sha1", "sha256"] {
        for version in ["2", "3", "4"] {
            let f = Folders::new();
            let all = repository(&f.project, object_format, true);
            git(&f.project, &["update-index", "--index-version", version]);
            if version != "2" {
                // Extended flags (version 3's addition) on some entries.
                git(&f.project, &["add", "-N", "src/deeply/other/file-001.txt"]);
                git(
                    &f.project,
                    &[
                        "update-index",
                        "--skip-worktree",
                        ".claude/settings.local.json",
                    ],
                );
            }
            let index = fs::read(f.project.join(".git/index")).unwrap();
            let found = u32::from_be_bytes(index[4..8].try_into().unwrap());
            assert_eq!(found.to_string(), version, "{object_format}");
            let case = format!("{object_format} v{version}");
            agrees_with_git(&f.project, &all, &case);
            assert!(git_index_holds(&f.project, &[".claude/settings.local.json"]).unwrap());
            assert!(
                !git_index_holds(&f.project, &[".claude"]).unwrap(),
                "{case}"
            );
            git(
                &f.project,
                &[
                    "update-index",
                    "--no-skip-worktree",
                    ".claude/settings.local.json",
                ],
            );
            git(
                &f.project,
                &["rm", "-q", "--cached", ".claude/settings.local.json"],
            );
            assert!(
                !git_index_holds(&f.project, &[".claude/settings.local.json"]).unwrap(),
                "{case}"
            );
        }
    }
}

#[test]
fn no_git_or_no_index_yet_tracks_nothing() {
    let f = Folders::new();
    write(&f.project.join(".claude/settings.local.json"), "{}");
    assert!(!git_index_holds(&f.project, &[".claude/settings.local.json"]).unwrap());
    git(&f.project, &["init", "-q"]);
    assert!(!f.project.join(".git/index").exists());
    assert!(!git_index_holds(&f.project, &[".claude/settings.local.json"]).unwrap());
}

#[test]
fn a_linked_worktree_reads_its_own_index() {
    let f = Folders::new();
    repository(&f.project, "sha1", false);
    git(&f.project, &["commit", "-q", "-m", "first"]);
    let wt = f.root.join("wt");
    git(&f.project, &["worktree", "add", "-q", wt.to_str().unwrap()]);
    write(&wt.join(".claude/settings.local.json"), "{}");
    assert!(!git_index_holds(&wt, &[".claude/settings.local.json"]).unwrap());
    git(&wt, &["add", ".claude/settings.local.json"]);
    assert!(git_index_holds(&wt, &[".claude/settings.local.json"]).unwrap());
    // The main working tree's index did not change.
    assert!(!git_index_holds(&f.project, &[".claude/settings.local.json"]).unwrap());
}

#[test]
fn a_split_index_reads_its_shared_index_too() {
    let f = Folders::new();
    let all = repository(&f.project, "sha1", true);
    git(&f.project, &["update-index", "--split-index"]);
    // A change after the split: only in the split index.
    write(&f.project.join("late.txt"), "x");
    git(&f.project, &["add", "late.txt"]);
    let shared = fs::read_dir(f.project.join(".git"))
        .unwrap()
        .filter_map(Result::ok)
        .any(|e| e.file_name().to_string_lossy().starts_with("sharedindex."));
    assert!(shared, "git wrote no shared index");
    agrees_with_git(&f.project, &all, "split");
    assert!(git_index_holds(&f.project, &["late.txt"]).unwrap());
    assert!(git_index_holds(&f.project, &[".claude/settings.local.json"]).unwrap());
}

#[test]
fn a_sparse_index_folder_holds_the_files_below_it() {
    let f = Folders::new();
    git(&f.project, &["init", "-q"]);
    for path in [".claude/settings.local.json", ".claude/x", "src/a", "top"] {
        write(&f.project.join(path), "x");
    }
    git(&f.project, &["add", "."]);
    git(&f.project, &["commit", "-q", "-m", "first"]);
    git(
        &f.project,
        &["sparse-checkout", "set", "--cone", "--sparse-index", "src"],
    );
    let listed = git(&f.project, &["ls-files", "--sparse"]);
    assert!(listed.lines().any(|l| l == ".claude/"), "{listed}");
    assert!(git_index_holds(&f.project, &[".claude/settings.local.json"]).unwrap());
    assert!(!git_index_holds(&f.project, &["other/settings.local.json"]).unwrap());
}

#[test]
fn a_damaged_index_or_git_file_is_an_error() {
    let f = Folders::new();
    repository(&f.project, "sha1", true);
    let index = f.project.join(".git/index");
    let bytes = fs::read(&index).unwrap();
    // Cut inside the first entry (the read stops early, past the paths it
    // looks for, so damage beyond them goes unseen and does no harm).
    fs::write(&index, &bytes[..40]).unwrap();
    let err = git_index_holds(&f.project, &[".claude/settings.local.json"]).unwrap_err();
    assert!(
        err.to_string().starts_with("cannot read git's index"),
        "{err}"
    );

    let g = Folders::new();
    write(&g.project.join(".git"), "gitdir: /no/such/git/dir\n");
    let err = git_index_holds(&g.project, &["a"]).unwrap_err();
    assert!(err.to_string().contains("to its git dir"), "{err}");
}

/// A project in git whose local settings choose a memory folder.
struct Project {
    f: Folders,
    chosen: String,
}

impl Project {
    fn new() -> Project {
        let f = Folders::new();
        let chosen = f.home.join("elsewhere/memory").display().to_string();
        git(&f.project, &["init", "-q"]);
        write(
            &f.project.join(".claude/settings.local.json"),
            &format!(
                "{{\"autoMemoryDirectory\": \"{chosen}\", \"teamMemory\": {{\"url\": \"https://team.example\"}}}}"
            ),
        );
        Project { f, chosen }
    }

    fn resolve(&self) -> std::sync::Arc<memdir_paths::Resolution> {
        PathResolver::new(Environment::new().with_home(&self.f.home))
            .with_managed_settings(None)
            .resolve(&self.f.project)
            .unwrap()
    }
}

#[test]
fn a_tracked_local_file_may_not_choose_where_memory_goes() {
    let p = Project::new();
    let r = p.resolve();
    assert_eq!(
        r.auto_mem_path_source,
        AutoMemPathSource::Settings(SettingsSource::Local)
    );
    assert_eq!(r.auto_mem_path.as_str(), format!("{}/", p.chosen));
    assert!(
        r.settings
            .find("teamMemory", SettingsFile::is_trusted)
            .is_some()
    );

    git(&p.f.project, &["add", ".claude/settings.local.json"]);
    let r = p.resolve();
    assert_eq!(r.auto_mem_path_source, AutoMemPathSource::Default);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("settings.local.json that git tracks")),
        "{:?}",
        r.warnings
    );
    assert!(
        r.settings
            .find("teamMemory", SettingsFile::is_trusted)
            .is_none()
    );
    // The file is still read; it only decides nothing that needs trust.
    assert!(r.settings.find("teamMemory", |_| true).is_some());
}

#[test]
fn an_unreadable_index_counts_as_tracked() {
    let p = Project::new();
    fs::write(p.f.project.join(".git/index"), b"DIRC\0\0\0\x09garbage").unwrap();
    let r = p.resolve();
    assert_eq!(r.auto_mem_path_source, AutoMemPathSource::Default);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("cannot tell whether git tracks it")),
        "{:?}",
        r.warnings
    );
}

#[cfg(unix)]
#[test]
fn a_committed_link_to_tracked_settings_is_tracked_too() {
    // `.claude` is a link the repository committed, to a folder whose
    // settings.local.json it committed as well.
    let f = Folders::new();
    git(&f.project, &["init", "-q"]);
    let chosen = f.home.join("elsewhere/memory").display().to_string();
    write(
        &f.project.join("config/claude/settings.local.json"),
        &format!("{{\"autoMemoryDirectory\": \"{chosen}\"}}"),
    );
    std::os::unix::fs::symlink("config/claude", f.project.join(".claude")).unwrap();
    git(&f.project, &["add", "config/claude/settings.local.json"]);
    let resolve = || {
        PathResolver::new(Environment::new().with_home(&f.home))
            .with_managed_settings(None)
            .resolve(&f.project)
            .unwrap()
    };
    // The file's real path is tracked.
    assert_eq!(resolve().auto_mem_path_source, AutoMemPathSource::Default);
    // The link alone, committed, decides where the file is.
    git(
        &f.project,
        &["rm", "-q", "--cached", "config/claude/settings.local.json"],
    );
    assert_eq!(
        resolve().auto_mem_path_source,
        AutoMemPathSource::Settings(SettingsSource::Local)
    );
    git(&f.project, &["add", ".claude"]);
    assert_eq!(resolve().auto_mem_path_source, AutoMemPathSource::Default);
}
