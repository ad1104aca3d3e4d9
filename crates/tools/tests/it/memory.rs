//! Edit and Write: inside the memory folder only, whatever the path says.

use std::path::{Path, PathBuf};

use memdir_tools::{EditInput, MemoryScope, Place, ToolError, WriteInput};

/// A GitHub token of high entropy, assembled so this file holds none.
fn token() -> String {
    format!("ghp_{}", "q8Zr2LkW9xTb4YcN7mVd1HsF6jPa3EuG5oRi")
}

struct World {
    _dir: tempfile::TempDir,
    outside: PathBuf,
    scope: MemoryScope,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let memory = dir.path().join("memory");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let scope = MemoryScope::open(&memory, Some(&memory.join("team"))).unwrap();
    World {
        _dir: dir,
        outside,
        scope,
    }
}

fn write(scope: &MemoryScope, path: &Path, content: &str) -> Result<String, ToolError> {
    scope.write(&WriteInput {
        file_path: path.display().to_string(),
        content: content.to_owned(),
    })
}

fn refusal(result: Result<String, ToolError>) -> String {
    match result {
        Err(e @ ToolError::Refused { .. }) => e.to_string(),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn writes_inside_land_and_are_recorded_once() {
    let w = world();
    let file = w.scope.private_path().join("notes/use-pnpm.md");
    write(&w.scope, &file, "one\n").unwrap();
    write(&w.scope, &file, "two\n").unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "two\n");
    let team = w.scope.team_path().unwrap().join("conventions.md");
    write(&w.scope, &team, "Squash merges.\n").unwrap();
    assert_eq!(w.scope.written(), vec![file, team]);
}

#[test]
fn paths_that_leave_the_folder_are_refused_and_nothing_is_written() {
    let w = world();
    let private = w.scope.private_path().to_owned();
    let cases: Vec<(String, &str)> = vec![
        (
            w.outside.join("x.md").display().to_string(),
            "outside the memory folder",
        ),
        (
            format!("{}/../outside/x.md", private.display()),
            "outside the memory folder",
        ),
        ("notes.md".to_owned(), "absolute path"),
        ("/../../etc/x.md".to_owned(), "climbs above the root"),
        (format!("{}/x.md\0y", private.display()), "NUL"),
        (
            format!("{}/script.sh", private.display()),
            "not a markdown file",
        ),
        (private.display().to_string(), "memory folder itself"),
        (
            format!("{}/../memory-evil/x.md", private.display()),
            "outside the memory folder",
        ),
    ];
    for (path, why) in cases {
        let message = refusal(w.scope.write(&WriteInput {
            file_path: path.clone(),
            content: "x".into(),
        }));
        assert!(message.contains(why), "{path:?}: {message}");
    }
    assert!(std::fs::read_dir(&w.outside).unwrap().next().is_none());
    assert!(w.scope.written().is_empty());
}

#[cfg(unix)]
#[test]
fn links_inside_the_folder_that_point_out_are_refused() {
    let w = world();
    let private = w.scope.private_path().to_owned();
    std::os::unix::fs::symlink(&w.outside, private.join("link")).unwrap();
    let through = refusal(write(&w.scope, &private.join("link/x.md"), "x"));
    assert!(through.contains("outside the memory folder"), "{through}");
    let target = w.outside.join("victim.md");
    std::fs::write(&target, "keep me").unwrap();
    std::os::unix::fs::symlink(&target, private.join("alias.md")).unwrap();
    let alias = refusal(write(&w.scope, &private.join("alias.md"), "overwritten"));
    assert!(alias.contains("outside the memory folder"), "{alias}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    assert!(std::fs::read_dir(&w.outside).unwrap().count() == 1);
}

#[cfg(unix)]
#[test]
fn a_link_swapped_in_after_the_check_still_cannot_carry_the_write_out() {
    // The folder write never goes through a link: a folder replaced by a
    // link between the judgement and the write makes the write fail.
    let w = world();
    let private = w.scope.private_path().to_owned();
    std::fs::create_dir(private.join("sub")).unwrap();
    let target = w
        .scope
        .target(&private.join("sub/x.md").display().to_string())
        .unwrap();
    assert_eq!(
        (target.place, target.rel.as_str()),
        (Place::Private, "sub/x.md")
    );
    std::fs::remove_dir(private.join("sub")).unwrap();
    std::os::unix::fs::symlink(&w.outside, private.join("sub")).unwrap();
    let result = write(&w.scope, &private.join("sub/x.md"), "escaped?");
    assert!(result.is_err(), "{result:?}");
    assert!(!w.outside.join("x.md").exists());
}

#[test]
fn team_writes_are_secret_scanned_and_named_by_the_team_rules() {
    let w = world();
    let team = w.scope.team_path().unwrap().to_owned();
    let secret = refusal(write(
        &w.scope,
        &team.join("deploy.md"),
        &format!("token {}\n", token()),
    ));
    assert!(secret.contains("looks like a secret"), "{secret}");
    assert!(
        !secret.contains(&token()),
        "the refusal must not repeat the secret"
    );
    assert!(!team.join("deploy.md").exists());
    // The private folder refuses it too: private memories reach the model
    // with every prompt, and the agent cannot know the user meant to keep it.
    let private = refusal(write(
        &w.scope,
        &w.scope.private_path().join("deploy.md"),
        &format!("token {}\n", token()),
    ));
    assert!(private.contains("never save a credential"), "{private}");
    assert!(!private.contains(&token()));
    assert!(!w.scope.private_path().join("deploy.md").exists());
    // A secret the user kept in a private memory themselves does not stop
    // the agent from editing the rest of that memory.
    std::fs::write(
        w.scope.private_path().join("kept.md"),
        format!("token {}\nold note\n", token()),
    )
    .unwrap();
    w.scope
        .edit(&EditInput {
            file_path: w.scope.private_path().join("kept.md").display().to_string(),
            old_string: "old note".into(),
            new_string: "new note".into(),
            replace_all: false,
        })
        .unwrap();
    // An edit that brings a secret into a team memory is refused too.
    write(
        &w.scope,
        &team.join("ci.md"),
        "Use the CI token from the vault.\n",
    )
    .unwrap();
    let edit = w.scope.edit(&EditInput {
        file_path: team.join("ci.md").display().to_string(),
        old_string: "from the vault".into(),
        new_string: token(),
        replace_all: false,
    });
    assert!(refusal(edit).contains("looks like a secret"));
    assert_eq!(
        std::fs::read_to_string(team.join("ci.md")).unwrap(),
        "Use the CI token from the vault.\n"
    );
}

#[test]
fn edits_replace_exactly_what_they_name() {
    let w = world();
    let file = w.scope.private_path().join("style.md");
    write(&w.scope, &file, "tabs; tabs; spaces\n").unwrap();
    let path = file.display().to_string();
    let edit = |old: &str, new: &str, all: bool| {
        w.scope.edit(&EditInput {
            file_path: path.clone(),
            old_string: old.into(),
            new_string: new.into(),
            replace_all: all,
        })
    };
    let twice = edit("tabs", "TABS", false).unwrap_err();
    assert!(twice.to_string().contains("occurs 2 times"), "{twice}");
    assert!(
        edit("nowhere", "x", false)
            .unwrap_err()
            .to_string()
            .contains("does not occur")
    );
    assert!(
        edit("same", "same", false)
            .unwrap_err()
            .to_string()
            .contains("nothing would change")
    );
    assert!(
        edit("", "x", false)
            .unwrap_err()
            .to_string()
            .contains("old_string is empty")
    );
    assert_eq!(
        edit("spaces", "SPACES", false).unwrap(),
        format!("replaced 1 occurrence in {path}")
    );
    assert_eq!(
        edit("tabs", "TABS", true).unwrap(),
        format!("replaced 2 occurrences in {path}")
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "TABS; TABS; SPACES\n"
    );
    let missing = w.scope.edit(&EditInput {
        file_path: w.scope.private_path().join("none.md").display().to_string(),
        old_string: "a".into(),
        new_string: "b".into(),
        replace_all: false,
    });
    assert!(
        missing
            .unwrap_err()
            .to_string()
            .contains("create it with Write")
    );
}

#[test]
fn memory_md_is_never_rewritten_whole_but_may_be_edited() {
    let w = world();
    let index = w.scope.private_path().join("MEMORY.md");
    std::fs::write(&index, "- [a](a.md) — written by another process\n").unwrap();
    for name in ["MEMORY.md", "memory.md", "team/MEMORY.md"] {
        let path = w.scope.private_path().join(name);
        let message = refusal(write(&w.scope, &path, "- [mine](mine.md)\n"));
        assert!(message.contains("kept by memdir"), "{name}: {message}");
    }
    w.scope
        .edit(&EditInput {
            file_path: index.display().to_string(),
            old_string: "another process\n".into(),
            new_string: "another process\n- [b](b.md) — by Edit\n".into(),
            replace_all: false,
        })
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(&index).unwrap(),
        "- [a](a.md) — written by another process\n- [b](b.md) — by Edit\n"
    );
}

#[test]
fn daily_logs_are_never_rewritten_by_a_tool() {
    let w = world();
    let log = w.scope.private_path().join("logs/2026/12/2026-12-01.md");
    std::fs::create_dir_all(log.parent().unwrap()).unwrap();
    std::fs::write(&log, "- 10:00 — kept\n").unwrap();
    let message = refusal(write(&w.scope, &log, "- rewritten\n"));
    assert!(message.contains("daily log"), "{message}");
    let edit = w.scope.edit(&EditInput {
        file_path: log.display().to_string(),
        old_string: "kept".into(),
        new_string: "changed".into(),
        replace_all: false,
    });
    assert!(refusal(edit).contains("daily log"));
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "- 10:00 — kept\n");
}

#[cfg(unix)]
#[test]
fn a_fifo_where_a_memory_belongs_never_hangs_a_tool() {
    let w = world();
    let fifo = w.scope.private_path().join("stuck.md");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let edit = w.scope.edit(&EditInput {
        file_path: fifo.display().to_string(),
        old_string: "a".into(),
        new_string: "b".into(),
        replace_all: false,
    });
    assert!(edit.unwrap_err().to_string().contains("FIFO"));
    // Write replaces what is in the way with a regular file, atomically.
    write(&w.scope, &fifo, "now a file\n").unwrap();
    assert_eq!(std::fs::read_to_string(&fifo).unwrap(), "now a file\n");
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
}

/// A model can write a token as UTF-16 text, NUL bytes between its
/// letters; the scan reads that too.
#[test]
fn a_secret_written_as_utf16_text_is_refused() {
    let w = world();
    let wide: String = format!("token {}\n", token())
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .map(char::from)
        .collect();
    for folder in [w.scope.team_path().unwrap(), w.scope.private_path()] {
        let file = folder.join("wide.md");
        let refusal = refusal(write(&w.scope, &file, &wide));
        assert!(refusal.contains("looks like a secret"), "{refusal}");
        assert!(!file.exists());
    }
}
