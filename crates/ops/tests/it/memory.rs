//! Saving, updating and deleting one memory.

use memdir_memtypes::{FrontmatterShape, MemoryType, parse_memory_str};
use memdir_ops::{MemoryChange, NewMemory, OpsError, SaveOptions, Scope};

use crate::{World, exists};

fn memory(name: &str, body: &str) -> NewMemory {
    NewMemory {
        name: name.to_owned(),
        description: "The repo uses pnpm;\n npm breaks the lockfile".to_owned(),
        memory_type: MemoryType::Feedback,
        body: body.to_owned(),
        title: None,
    }
}

#[test]
fn save_writes_the_file_then_its_line() {
    let world = World::new();
    let project = world.project(world.env());
    let saved = project
        .save_memory(Scope::Private, &memory("use-pnpm", "Use pnpm."))
        .unwrap();
    assert_eq!(saved.path, world.path("memory/use-pnpm.md"));
    let parsed = parse_memory_str(&world.read("memory/use-pnpm.md"));
    assert_eq!(parsed.body, "Use pnpm.\n");
    assert_eq!(
        parsed.header.description.as_deref(),
        Some("The repo uses pnpm; npm breaks the lockfile")
    );
    assert_eq!(
        world.read("memory/MEMORY.md"),
        "- [use-pnpm](use-pnpm.md) — The repo uses pnpm; npm breaks the lockfile\n"
    );
}

#[test]
fn a_second_save_of_a_name_in_any_case_is_refused() {
    let world = World::new();
    let project = world.project(world.env());
    project
        .save_memory(Scope::Private, &memory("use-pnpm", "one"))
        .unwrap();
    let err = project
        .save_memory(Scope::Private, &memory("USE-pnpm", "two"))
        .unwrap_err();
    assert!(
        matches!(&err, OpsError::AlreadyExists { existing, .. } if existing == "use-pnpm.md"),
        "{err}"
    );
    assert!(!err.is_refusal());
    assert!(world.read("memory/use-pnpm.md").contains("one"));
}

#[test]
fn hostile_names_are_refusals_and_write_nothing() {
    let world = World::new();
    let project = world.project(world.env());
    for name in [
        "",
        " ",
        ".hidden",
        "../escape",
        "a/b",
        "a\\b",
        "MEMORY",
        "nul\0byte",
        "con",
        "zero\u{200b}width",
        "%2e%2e",
    ] {
        let err = project
            .save_memory(Scope::Private, &memory(name, "text"))
            .unwrap_err();
        assert!(err.is_refusal(), "{name:?}: {err}");
    }
    assert!(!exists(&world.path("escape.md")));
    assert!(!exists(&world.path("memory/MEMORY.md")));
}

#[test]
fn team_memories_refuse_secrets_and_user_memories() {
    let world = World::new();
    let project = world.project(world.env().with_var("MEMDIR_TEAM", "1"));
    let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    let err = project
        .save_memory(Scope::Team, &memory("ci", &format!("token {token}\n")))
        .unwrap_err();
    assert!(matches!(&err, OpsError::SecretsFound { findings, .. } if findings.len() == 1));
    assert!(err.is_refusal());
    assert!(!err.to_string().contains(&token), "{err}");
    assert!(!exists(&world.path("memory/team/ci.md")));

    let mut user = memory("me", "I like tabs");
    user.memory_type = MemoryType::User;
    assert!(matches!(
        project.save_memory(Scope::Team, &user),
        Err(OpsError::NotShareable)
    ));
    // A private memory refuses it too, unless the user keeps it knowingly.
    let err = project
        .save_memory(Scope::Private, &memory("ci", &format!("token {token}\n")))
        .unwrap_err();
    assert!(
        matches!(&err, OpsError::SecretsFound { team: false, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("--allow-secret"), "{err}");
    assert!(!exists(&world.path("memory/ci.md")));
    let options = SaveOptions {
        allow_secret: true,
        ..SaveOptions::default()
    };
    let saved = project
        .save_memory_with(
            Scope::Private,
            &memory("ci", &format!("token {token}\n")),
            &options,
        )
        .unwrap();
    assert_eq!(saved.kept_secrets.len(), 1);
    assert_eq!(saved.kept_secrets[0].rule_id, "github-pat");
    // The team folder refuses it whatever the options say.
    let err = project
        .save_memory_with(
            Scope::Team,
            &memory("ci", &format!("token {token}\n")),
            &options,
        )
        .unwrap_err();
    assert!(
        matches!(&err, OpsError::SecretsFound { team: true, .. }),
        "{err}"
    );
}

/// A secret in a memory's title would reach the index line, which is
/// synced and goes into every prompt: it is refused like one in the text.
#[test]
fn a_secret_in_the_title_is_refused_on_save_and_update() {
    let world = World::new();
    let project = world.project(world.env().with_var("MEMDIR_TEAM", "1"));
    let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    for scope in [Scope::Team, Scope::Private] {
        let mut new = memory("deploy", "Ship with make ship.");
        new.title = Some(format!("deploy with {token}"));
        let err = project.save_memory(scope, &new).unwrap_err();
        assert!(
            matches!(
                &err,
                OpsError::SecretsFound {
                    in_index_line: true,
                    ..
                }
            ),
            "{scope:?}: {err}"
        );
        assert!(!err.to_string().contains(&token), "{err}");
        project
            .save_memory(scope, &memory("deploy", "Ship with make ship."))
            .unwrap();
        let change = MemoryChange {
            title: Some(format!("deploy with {token}")),
            ..MemoryChange::default()
        };
        let err = project.update_memory(scope, "deploy", &change).unwrap_err();
        assert!(matches!(&err, OpsError::SecretsFound { .. }), "{err}");
    }
    for index in ["memory/team/MEMORY.md", "memory/MEMORY.md"] {
        assert!(!world.read(index).contains(&token), "{index}");
    }
}

/// `#` and `?` in a name make a file of their own: its line replaces no
/// other memory's line, and deleting such a name that does not exist
/// removes nothing.
#[test]
fn names_with_hash_or_question_mark_leave_other_lines_alone() {
    let world = World::new();
    let project = world.project(world.env().with_var("MEMDIR_TEAM", "1"));
    for scope in [Scope::Private, Scope::Team] {
        let index = match scope {
            Scope::Private => "memory/MEMORY.md",
            Scope::Team => "memory/team/MEMORY.md",
        };
        project
            .save_memory(scope, &memory("deploy", "Ship with make ship."))
            .unwrap();
        project
            .save_memory(scope, &memory("deploy.md#x", "An odd name."))
            .unwrap();
        project
            .save_memory(scope, &memory("q?a", "Another."))
            .unwrap();
        let text = world.read(index);
        assert!(text.contains("](deploy.md)"), "{text}");
        assert!(text.contains("](deploy.md%23x.md)"), "{text}");
        assert!(text.contains("](q%3Fa.md)"), "{text}");
        let err = project.delete_memory(scope, "deploy.md#zzz").unwrap_err();
        assert!(matches!(err, OpsError::NotFound { .. }), "{err}");
        assert_eq!(world.read(index), text);
        let deleted = project.delete_memory(scope, "deploy.md#x").unwrap();
        assert_eq!(deleted.index_lines_removed, 1);
        assert!(world.read(index).contains("](deploy.md)"));
    }
}

/// A description far longer than a line never pushes later memories out
/// of the part of the index the prompt gets: the line is shortened, the
/// file keeps the whole text.
#[test]
fn a_long_description_does_not_hide_later_memories() {
    let world = World::new();
    let project = world.project(world.env());
    let mut long = memory("long", "Body.");
    long.description = "a very long description ".repeat(1_300);
    project.save_memory(Scope::Private, &long).unwrap();
    for i in 0..20 {
        project
            .save_memory(Scope::Private, &memory(&format!("later-{i}"), "Body."))
            .unwrap();
    }
    let index = world.read("memory/MEMORY.md");
    let cut = memdir_entrypoint::truncate_entrypoint_content(&index);
    assert!(!cut.was_truncated(), "{} bytes", index.len());
    assert!(cut.content.contains("](later-19.md)"));
    assert!(index.lines().all(|l| l.chars().count() <= 200));
    let file = parse_memory_str(&world.read("memory/long.md"));
    assert_eq!(
        file.header.description.map(|d| d.len()),
        Some(long.description.trim_end().len())
    );
}

/// Escape sequences, NUL and bidirectional overrides never reach a memory,
/// its index line or a terminal that prints them.
#[test]
fn control_characters_are_refused_and_write_nothing() {
    let world = World::new();
    let project = world.project(world.env());
    for (field, value) in [
        ("description", "retitle \u{1b}]0;pwned\u{7}"),
        ("title", "nul\u{0}byte"),
        ("text", "clear \u{1b}[2J screen"),
        ("description", "flip \u{202e}txt.exe"),
    ] {
        let mut new = memory("ctl", "Body.");
        match field {
            "description" => new.description = value.to_owned(),
            "title" => new.title = Some(value.to_owned()),
            _ => new.body = value.to_owned(),
        }
        let err = project.save_memory(Scope::Private, &new).unwrap_err();
        assert!(
            matches!(&err, OpsError::ControlCharacter { field: f, .. } if *f == field),
            "{field}: {err}"
        );
        assert!(err.is_refusal());
        assert!(!err.to_string().contains('\u{1b}'));
    }
    assert!(!exists(&world.path("memory/ctl.md")));
    assert!(!exists(&world.path("memory/MEMORY.md")));
    // Tabs and line breaks are text.
    let mut fine = memory("fine", "a\tb\r\nc\n");
    fine.description = "tab\there".to_owned();
    project.save_memory(Scope::Private, &fine).unwrap();
}

/// One limit, checked on write: nothing is saved that memdir could not
/// read back or (for the team folder) sync.
#[test]
fn oversized_memories_are_refused_on_write() {
    let world = World::new();
    let project = world.project(world.env().with_var("MEMDIR_TEAM", "1"));
    let huge = "x".repeat(2_600_000);
    let err = project
        .save_memory(Scope::Private, &memory("huge", &huge))
        .unwrap_err();
    assert!(matches!(err, OpsError::TooLarge { .. }), "{err}");
    let big = "x".repeat(300_000);
    let err = project
        .save_memory(Scope::Team, &memory("big", &big))
        .unwrap_err();
    assert!(
        matches!(err, OpsError::TooLarge { max: 250_000, .. }),
        "{err}"
    );
    project
        .save_memory(Scope::Private, &memory("big", &big))
        .unwrap();
    let change = MemoryChange {
        body: Some(huge),
        ..MemoryChange::default()
    };
    let err = project
        .update_memory(Scope::Private, "big", &change)
        .unwrap_err();
    assert!(matches!(err, OpsError::TooLarge { .. }), "{err}");
    assert!(!exists(&world.path("memory/huge.md")));
    assert!(!exists(&world.path("memory/team/big.md")));
}

/// `memory` would be `memory.md`, which is the index on a disk that
/// ignores case.
#[test]
fn a_name_that_is_the_index_in_another_case_is_refused() {
    let world = World::new();
    let project = world.project(world.env());
    for name in ["memory", "Memory", "MEMORY", "mEmOrY"] {
        let err = project
            .save_memory(Scope::Private, &memory(name, "text"))
            .unwrap_err();
        assert!(matches!(err, OpsError::InvalidName { .. }), "{name}: {err}");
    }
    assert!(!exists(&world.path("memory/memory.md")));
}

/// Files pulled into `team/` before its index arrives are the team's to
/// index: a private save never gives them lines in the private index.
#[test]
fn team_files_without_a_team_index_stay_out_of_the_private_index() {
    let world = World::new();
    let project = world.project(world.env().with_var("MEMDIR_TEAM", "1"));
    std::fs::create_dir_all(world.path("memory/team")).unwrap();
    std::fs::write(
        world.path("memory/team/pulled.md"),
        "---\nname: pulled\ndescription: from the server\ntype: project\n---\nx\n",
    )
    .unwrap();
    project
        .save_memory(Scope::Private, &memory("mine", "Body."))
        .unwrap();
    let index = world.read("memory/MEMORY.md");
    assert!(!index.contains("pulled"), "{index}");
    let report = memdir_ops::fix_index(
        &world.path("memory/MEMORY.md"),
        std::time::Duration::from_secs(5),
    )
    .unwrap();
    assert!(report.added.is_empty(), "{:?}", report.added);
}

#[test]
fn the_team_folder_needs_team_memory_on() {
    let world = World::new();
    let project = world.project(world.env());
    let err = project
        .save_memory(Scope::Team, &memory("x", "y"))
        .unwrap_err();
    assert!(matches!(err, OpsError::TeamOff { .. }), "{err}");
}

#[test]
fn update_keeps_the_shape_unknown_keys_and_title() {
    let world = World::new();
    let project = world.project(world.env());
    std::fs::create_dir_all(world.path("memory")).unwrap();
    let nested = "---\nname: pnpm\ndescription: old hook\nmetadata:\n  node_type: memory\n  type: feedback\n  originSessionId: 9f2c\n---\nUse pnpm.\n";
    std::fs::write(world.path("memory/pnpm.md"), nested).unwrap();
    std::fs::write(
        world.path("memory/MEMORY.md"),
        "# Memory\n- [Package manager \\[pnpm\\]](pnpm.md) — old hook\n- [Other](other.md)\n",
    )
    .unwrap();
    let change = MemoryChange {
        description: Some("pnpm 9 only".to_owned()),
        memory_type: Some(MemoryType::Project),
        body: Some("Use pnpm 9.".to_owned()),
        title: None,
    };
    let saved = project
        .update_memory(Scope::Private, "pnpm", &change)
        .unwrap();
    assert_eq!(saved.path, world.path("memory/pnpm.md"));
    let text = world.read("memory/pnpm.md");
    let parsed = parse_memory_str(&text);
    assert_eq!(parsed.shape, FrontmatterShape::Nested);
    assert_eq!(parsed.header.memory_type, Some(MemoryType::Project));
    assert_eq!(parsed.body, "Use pnpm 9.\n");
    assert!(
        parsed.modified.is_some(),
        "a nested file records the change"
    );
    assert!(text.contains("  originSessionId: 9f2c\n"), "{text}");
    assert!(text.contains("  node_type: memory\n"), "{text}");
    assert_eq!(
        world.read("memory/MEMORY.md"),
        "# Memory\n- [Package manager \\[pnpm\\]](pnpm.md) — pnpm 9 only\n- [Other](other.md)\n"
    );
}

#[test]
fn update_of_a_flat_file_changes_only_what_was_asked() {
    let world = World::new();
    let project = world.project(world.env());
    project
        .save_memory(Scope::Private, &memory("use-pnpm", "Use pnpm."))
        .unwrap();
    let before = world.read("memory/use-pnpm.md");
    let change = MemoryChange {
        body: Some("Use pnpm, never npm.\n".to_owned()),
        ..MemoryChange::default()
    };
    project
        .update_memory(Scope::Private, "use-pnpm", &change)
        .unwrap();
    let after = world.read("memory/use-pnpm.md");
    assert_eq!(
        after,
        before.replace("Use pnpm.\n", "Use pnpm, never npm.\n"),
        "no modified key is added to a flat file"
    );
    let missing = project
        .update_memory(Scope::Private, "nope", &change)
        .unwrap_err();
    assert!(matches!(missing, OpsError::NotFound { .. }), "{missing}");
    let empty = MemoryChange {
        body: Some(" \n".to_owned()),
        ..MemoryChange::default()
    };
    assert!(matches!(
        project.update_memory(Scope::Private, "use-pnpm", &empty),
        Err(OpsError::Empty(_))
    ));
    assert_eq!(world.read("memory/use-pnpm.md"), after);
}

#[test]
fn a_team_update_is_secret_scanned_and_leaves_the_file_alone() {
    let world = World::new();
    let project = world.project(world.env().with_var("MEMDIR_TEAM", "1"));
    project
        .save_memory(Scope::Team, &memory("ci", "Runs on push."))
        .unwrap();
    let before = world.read("memory/team/ci.md");
    let change = MemoryChange {
        body: Some(format!(
            "token ghp_{}\n",
            "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
        )),
        ..MemoryChange::default()
    };
    let err = project
        .update_memory(Scope::Team, "ci", &change)
        .unwrap_err();
    assert!(err.is_refusal(), "{err}");
    assert_eq!(world.read("memory/team/ci.md"), before);
    let to_user = MemoryChange {
        memory_type: Some(MemoryType::User),
        ..MemoryChange::default()
    };
    assert!(matches!(
        project.update_memory(Scope::Team, "ci", &to_user),
        Err(OpsError::NotShareable)
    ));
    assert_eq!(world.read("memory/team/ci.md"), before);
}

#[test]
fn delete_removes_the_file_then_its_lines() {
    let world = World::new();
    let project = world.project(world.env());
    project
        .save_memory(Scope::Private, &memory("a", "one"))
        .unwrap();
    project
        .save_memory(Scope::Private, &memory("b", "two"))
        .unwrap();
    let deleted = project.delete_memory(Scope::Private, "a").unwrap();
    assert!(deleted.file_removed);
    assert_eq!(deleted.index_lines_removed, 1);
    assert!(!exists(&world.path("memory/a.md")));
    assert_eq!(
        world.read("memory/MEMORY.md"),
        "- [b](b.md) — The repo uses pnpm; npm breaks the lockfile\n"
    );
    // A line left without its file (a crash between the two steps) is
    // removed by running the delete again.
    std::fs::write(
        world.path("memory/MEMORY.md"),
        "- [b](b.md)\n- [c](c.md) — gone\n",
    )
    .unwrap();
    let again = project.delete_memory(Scope::Private, "c").unwrap();
    assert!(!again.file_removed);
    assert_eq!(again.index_lines_removed, 1);
    assert_eq!(world.read("memory/MEMORY.md"), "- [b](b.md)\n");
    assert!(matches!(
        project.delete_memory(Scope::Private, "c"),
        Err(OpsError::NotFound { .. })
    ));
    assert!(
        project
            .delete_memory(Scope::Private, "../b")
            .unwrap_err()
            .is_refusal()
    );
    assert!(exists(&world.path("memory/b.md")));
}

#[cfg(unix)]
#[test]
fn a_symlinked_memory_is_neither_read_nor_removed_through_the_link() {
    let world = World::new();
    let project = world.project(world.env());
    std::fs::create_dir_all(world.path("memory")).unwrap();
    std::fs::write(
        world.path("outside.md"),
        "---\nname: x\n---\nsecret plans\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(world.path("outside.md"), world.path("memory/x.md")).unwrap();
    let change = MemoryChange {
        body: Some("overwritten".to_owned()),
        ..MemoryChange::default()
    };
    let err = project
        .update_memory(Scope::Private, "x", &change)
        .unwrap_err();
    assert!(err.to_string().contains("symbolic link"), "{err}");
    assert_eq!(
        world.read("outside.md"),
        "---\nname: x\n---\nsecret plans\n"
    );
    // A delete removes the link in the folder, never the file it points to.
    project.delete_memory(Scope::Private, "x").unwrap();
    assert!(!exists(&world.path("memory/x.md")));
    assert_eq!(
        world.read("outside.md"),
        "---\nname: x\n---\nsecret plans\n"
    );
}

#[test]
fn writers_racing_on_one_folder_lose_nothing() {
    let world = World::new();
    let project = world.project(world.env());
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let project = project.clone();
            std::thread::spawn(move || {
                for m in 0..5 {
                    let name = format!("t{t}-m{m}");
                    project
                        .save_memory(Scope::Private, &memory(&name, "first"))
                        .unwrap();
                    for round in 0..3 {
                        let change = MemoryChange {
                            body: Some(format!("round {round}")),
                            ..MemoryChange::default()
                        };
                        project
                            .update_memory(Scope::Private, &name, &change)
                            .unwrap();
                    }
                    if m % 2 == 1 {
                        project.delete_memory(Scope::Private, &name).unwrap();
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let index = world.read("memory/MEMORY.md");
    let mut kept = Vec::new();
    for t in 0..8 {
        for m in 0..5 {
            let name = format!("t{t}-m{m}");
            let linked = index.contains(&format!("]({name}.md)"));
            let path = world.path(&format!("memory/{name}.md"));
            if m % 2 == 1 {
                assert!(!exists(&path) && !linked, "{name} was deleted");
            } else {
                assert!(linked, "{name} lost its index line");
                assert_eq!(
                    parse_memory_str(&world.read(&format!("memory/{name}.md"))).body,
                    "round 2\n"
                );
                kept.push(name);
            }
        }
    }
    assert_eq!(index.lines().count(), kept.len(), "{index}");
    let leftovers: Vec<_> = std::fs::read_dir(world.path("memory"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".memdir-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[cfg(unix)]
#[test]
fn a_fifo_in_place_of_a_memory_is_an_error_not_a_hang() {
    let world = World::new();
    let project = world.project(world.env());
    std::fs::create_dir_all(world.path("memory")).unwrap();
    let fifo = world.path("memory/pipe.md");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let change = MemoryChange {
        body: Some("x".to_owned()),
        ..MemoryChange::default()
    };
    let err = project
        .update_memory(Scope::Private, "pipe", &change)
        .unwrap_err();
    assert!(err.to_string().contains("FIFO"), "{err}");
}
