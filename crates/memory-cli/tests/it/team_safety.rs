//! Team sync never loses an edit and never writes outside the team folder
//! (SPEC R8.2, R8.3, R18.2), run as processes against a real `memdir
//! serve` on 127.0.0.1.

use std::fs;
use std::os::unix::fs::symlink;

use crate::team::{Team, both_text, everything, run_in};
use crate::{memdir_in, stderr, stdout};

#[test]
fn the_four_cases_of_a_three_way_pull() {
    let t = Team::start();
    for key in ["local.md", "server.md", "both.md"] {
        t.write("a", key, &format!("{key}: first\n"));
    }
    t.ok("a", &["team", "push"]);
    t.ok("b", &["team", "pull"]);

    // Only b edits local.md; only a edits server.md; both edit both.md.
    t.write("b", "local.md", "local.md: edited on b\n");
    t.write("a", "server.md", "server.md: edited on a\n");
    t.write("a", "both.md", "both.md: edited on a\n");
    t.ok("a", &["team", "push"]);
    t.write("b", "both.md", "both.md: edited on b\n");

    let (code, j) = t.json("b", &["team", "sync"]);
    assert_eq!(code, Some(0), "{j}");
    // Local edit, server unchanged: kept, then pushed; never reverted.
    assert_eq!(t.read("b", "local.md"), "local.md: edited on b\n");
    assert_eq!(
        j["pull"]["keptLocal"],
        serde_json::json!(["local.md"]),
        "{j}"
    );
    assert_eq!(
        j["push"]["uploaded"],
        serde_json::json!(["local.md"]),
        "{j}"
    );
    assert!(t.conflict_copies("b", "local.md").is_empty());
    // Server edit, local unchanged: written.
    assert_eq!(t.read("b", "server.md"), "server.md: edited on a\n");
    assert!(t.conflict_copies("b", "server.md").is_empty());
    // Both edited: the server's entry wins, b's edit is kept aside.
    assert_eq!(t.read("b", "both.md"), "both.md: edited on a\n");
    assert_eq!(
        t.conflict_copies("b", "both.md"),
        ["both.md: edited on b\n"]
    );

    // a gets b's local edit on its next pull, and nothing else changes.
    let (code, j) = t.json("a", &["team", "pull"]);
    assert_eq!(code, Some(0), "{j}");
    assert_eq!(t.read("a", "local.md"), "local.md: edited on b\n");
    assert_eq!(j["pulled"], serde_json::json!(["local.md"]), "{j}");

    // A first sync (no base) that meets different contents: both changed.
    t.write("c", "both.md", "both.md: c's own, never synced\n");
    let (code, _) = t.json("c", &["team", "pull"]);
    assert_eq!(code, Some(0));
    assert_eq!(t.read("c", "both.md"), "both.md: edited on a\n");
    assert_eq!(
        t.conflict_copies("c", "both.md"),
        ["both.md: c's own, never synced\n"]
    );
}

#[test]
fn a_push_holds_back_a_file_edited_on_both_sides() {
    let t = Team::start();
    t.write("a", "n.md", "first\n");
    t.ok("a", &["team", "push"]);
    t.ok("b", &["team", "pull"]);
    t.write("a", "n.md", "a's edit\n");
    t.ok("a", &["team", "push"]);
    t.write("b", "n.md", "b's edit\n");

    // A push alone (no pull first) must not overwrite a's edit unseen.
    let (code, j) = t.json("b", &["team", "push"]);
    assert_eq!(code, Some(0), "{j}");
    assert_eq!(j["filesUploaded"], 0, "{j}");
    assert!(
        j["skipped"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("pull first"),
        "{j}"
    );
    t.ok("c", &["team", "pull"]);
    assert_eq!(t.read("c", "n.md"), "a's edit\n");
}

#[test]
fn a_file_named_like_a_token_is_never_uploaded() {
    const TOKEN: &str = "ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS";
    let t = Team::start();
    t.write("a", &format!("{TOKEN}.md"), "an innocent body\n");
    t.write("a", "fine.md", "fine\n");
    let out = t.run("a", &["team", "push", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(!text.contains(TOKEN), "{text}");
    let j: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(j["uploaded"], serde_json::json!(["fine.md"]), "{j}");
    assert_eq!(
        j["skippedSecrets"][0]["ruleIds"],
        serde_json::json!(["github-pat"])
    );
    assert!(
        j["skippedSecrets"][0]["file"]
            .as_str()
            .unwrap()
            .contains("[REDACTED:github-pat]"),
        "{j}"
    );
    // Not on the server either: a fresh pull brings only fine.md.
    t.ok("b", &["team", "pull"]);
    let memories: Vec<String> = everything(&t.team("b"))
        .into_iter()
        .filter(|f| !f.starts_with('.'))
        .collect();
    assert_eq!(memories, ["fine.md"]);
    let out = t.run("a", &["team", "status"]);
    assert!(!both_text(&out).contains(TOKEN));
}

#[test]
fn a_conflicts_folder_linked_outside_is_refused_and_the_edit_kept() {
    let t = Team::start();
    t.write("a", "n.md", "first\n");
    t.ok("a", &["team", "push"]);
    t.ok("b", &["team", "pull"]);
    t.write("a", "n.md", "a's edit\n");
    t.ok("a", &["team", "push"]);
    t.write("b", "n.md", "b's edit\n");
    let outside = t.tmp.path().join("outside");
    fs::create_dir(&outside).unwrap();
    symlink(&outside, t.team("b").join(".conflicts")).unwrap();

    let out = t.run("b", &["team", "pull"]);
    assert_eq!(out.status.code(), Some(1), "{}", both_text(&out));
    assert!(everything(&outside).is_empty(), "nothing written outside");
    // The copy could not be made, so the edit was not overwritten either.
    assert_eq!(t.read("b", "n.md"), "b's edit\n");
    assert!(
        both_text(&out).contains("symbolic link"),
        "{}",
        both_text(&out)
    );
}

#[test]
fn a_folder_swapped_for_a_symlink_during_a_pull_lets_nothing_out() {
    let t = Team::start();
    let entries = 1_500;
    for i in 0..entries {
        t.write("a", &format!("notes/n{i:04}.md"), &format!("note {i}\n"));
    }
    let out = t.run("a", &["team", "push", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));

    let outside = t.tmp.path().join("outside");
    fs::create_dir(&outside).unwrap();
    let notes = t.team("b").join("notes");
    let moved = t.team("b").join("notes-moved");
    fs::create_dir_all(&notes).unwrap();

    let (dir, url, token) = (t.tmp.path().to_owned(), t.url.clone(), t.token.clone());
    let pull =
        std::thread::spawn(move || run_in(&dir, &url, &token, "b", &["team", "pull", "--json"]));
    // Swap the folder for a link to outside and back, again and again,
    // while the pull writes.
    let mut swaps = 0;
    while !pull.is_finished() {
        if fs::rename(&notes, &moved).is_ok() {
            let _ = symlink(&outside, &notes);
            std::thread::sleep(std::time::Duration::from_millis(2));
            let _ = fs::remove_file(&notes);
            let _ = fs::rename(&moved, &notes);
            swaps += 1;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let out = pull.join().unwrap();
    assert!(swaps > 0, "the swap never ran during the pull");
    assert!(
        everything(&outside).is_empty(),
        "{} files written outside after {swaps} swaps: {}",
        everything(&outside).len(),
        both_text(&out)
    );
    // A second pull, with the folder left alone, completes the rest.
    let _ = fs::remove_file(&notes);
    let _ = fs::rename(&moved, &notes);
    let (code, j) = t.json("b", &["team", "pull"]);
    assert_eq!(code, Some(0), "{j}");
    assert_eq!(everything(&notes).len(), entries);
    assert!(everything(&outside).is_empty());
}

#[test]
fn adds_and_a_pull_into_one_team_folder_at_once_lose_nothing() {
    let t = Team::start();
    let entries = 300;
    for i in 0..entries {
        t.write("a", &format!("shared/s{i:03}.md"), &format!("shared {i}\n"));
    }
    t.ok("a", &["team", "push"]);
    fs::create_dir_all(t.team("b")).unwrap();

    let (dir, url, token) = (t.tmp.path().to_owned(), t.url.clone(), t.token.clone());
    let pull = std::thread::spawn(move || run_in(&dir, &url, &token, "b", &["team", "pull"]));
    let adds: Vec<_> = (0..8)
        .map(|i| {
            let dir = t.tmp.path().to_owned();
            std::thread::spawn(move || {
                let name = format!("local-{i}");
                let args = [
                    "--memory-dir",
                    "b",
                    "add",
                    "--team",
                    "--type",
                    "project",
                    "--name",
                    &name,
                    "--description",
                    "added while a pull ran",
                    "--body",
                    "local",
                ];
                memdir_in(&dir, &[("MEMDIR_TEAM", "1")], args)
            })
        })
        .collect();
    for add in adds {
        let out = add.join().unwrap();
        assert!(out.status.success(), "{}", both_text(&out));
    }
    let out = pull.join().unwrap();
    assert!(out.status.success(), "{}", both_text(&out));

    let index = t.read("b", "MEMORY.md");
    for i in 0..8 {
        assert!(index.contains(&format!("(local-{i}.md)")), "{index}");
    }
    assert_eq!(index.lines().count(), 8, "{index}");
    assert_eq!(everything(&t.team("b").join("shared")).len(), entries);
    assert!(
        everything(&t.team("b"))
            .iter()
            .all(|f| !f.contains(".memdir-tmp-")),
        "no temporary file left"
    );
}
