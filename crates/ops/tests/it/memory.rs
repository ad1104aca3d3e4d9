//! Saving, updating and deleting one memory.

use memdir_memtypes::{FrontmatterShape, MemoryType, parse_memory_str};
use memdir_ops::{MemoryChange, NewMemory, OpsError, Scope};

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
    assert!(matches!(&err, OpsError::SecretsFound { findings } if findings.len() == 1));
    assert!(err.is_refusal());
    assert!(!err.to_string().contains(&token), "{err}");
    assert!(!exists(&world.path("memory/team/ci.md")));

    let mut user = memory("me", "I like tabs");
    user.memory_type = MemoryType::User;
    assert!(matches!(
        project.save_memory(Scope::Team, &user),
        Err(OpsError::NotShareable)
    ));
    // The same secret in a private memory is the user's own business.
    project
        .save_memory(Scope::Private, &memory("ci", &format!("token {token}\n")))
        .unwrap();
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
