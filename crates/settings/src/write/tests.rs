//! Tests of writing a settings file back.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::*;
use crate::{Settings, SettingsLocations};

/// A file in the usual pretty shape, with odd spacing inside values and
/// keys out of alphabetical order.
const PRETTY: &str = r#"{
  "zeta": {"b" : 2, "a": [1,  2]},
  "permissions": {
    "allow": ["Bash(ls)"],
    "deny": []
  },
  "autoMemoryEnabled": true,
  "alpha": "\u00e9t\u00e9",
  "number": 1.50
}
"#;

fn write(path: &Path, text: &str) {
    fs::write(path, text).unwrap();
}

/// The file at `path`, its folder the trusted root.
fn file(path: &Path) -> SettingsPath {
    SettingsPath::in_folder(path).unwrap()
}

/// The lock folder of the tests: under `<folder of path>/base/`, as
/// memdir's locks are under the agent's base folder.
fn locks(path: &Path) -> LockDir {
    LockDir::under_base(&path.with_file_name("base"))
}

/// [`update_settings_file`] of the file at `path`.
fn update<T>(
    path: &Path,
    edit: impl FnOnce(&mut SettingsDocument) -> T,
) -> Result<T, SettingsWriteError> {
    update_settings_file(&file(path), &locks(path), edit)
}

#[test]
fn unknown_keys_their_order_and_their_text_survive() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    write(&path, PRETTY);
    update(&path, |doc| {
        doc.set("autoMemoryEnabled", &json!(false));
        doc.set("added", &json!({"url": "https://team", "n": [1]}));
    })
    .unwrap();
    // A new value is a `Value`, whose objects list their keys sorted.
    let expected = r#"{
  "zeta": {"b" : 2, "a": [1,  2]},
  "permissions": {
    "allow": ["Bash(ls)"],
    "deny": []
  },
  "autoMemoryEnabled": false,
  "alpha": "\u00e9t\u00e9",
  "number": 1.50,
  "added": {
    "n": [
      1
    ],
    "url": "https://team"
  }
}
"#;
    assert_eq!(fs::read_to_string(&path).unwrap(), expected);
    // The reader sees the same values.
    let settings = Settings::load(&SettingsLocations {
        user: Some(path),
        ..SettingsLocations::default()
    });
    assert!(settings.warnings.is_empty());
    let values = &settings.files()[0].values;
    assert_eq!(values["alpha"], json!("été"));
    assert_eq!(values["added"]["url"], json!("https://team"));
    assert_eq!(values.len(), 6);
}

#[test]
fn a_removed_key_goes_and_an_unchanged_document_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    write(&path, PRETTY);
    let before = fs::metadata(&path).unwrap().modified().unwrap();
    let seen = update(&path, |doc| {
        doc.set("autoMemoryEnabled", &json!(true)); // the value it has
        assert!(!doc.remove("missing"));
        doc.get("zeta")
    })
    .unwrap();
    assert_eq!(seen, Some(json!({"a": [1, 2], "b": 2})));
    assert_eq!(fs::read_to_string(&path).unwrap(), PRETTY);
    assert_eq!(fs::metadata(&path).unwrap().modified().unwrap(), before);

    update(&path, |doc| assert!(doc.remove("permissions"))).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    assert!(!text.contains("permissions"), "{text}");
    assert!(
        text.starts_with("{\n  \"zeta\": {\"b\" : 2, \"a\": [1,  2]},\n  \"autoMemoryEnabled\"")
    );
}

#[test]
fn a_missing_file_is_created_but_never_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.local.json");
    // Nothing to write: nothing created.
    update(&path, |_| ()).unwrap();
    assert!(!path.exists());
    update(&path, |doc| doc.set("k", &json!(1))).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "{\n  \"k\": 1\n}\n");

    let nested = dir.path().join(".claude").join("settings.json");
    let err = update(&nested, |doc| doc.set("k", &json!(1))).unwrap_err();
    assert!(
        matches!(&err, SettingsWriteError::MissingFolder { path } if *path == nested),
        "{err:?}"
    );
    assert!(!dir.path().join(".claude").exists());
    assert_eq!(
        err.to_string(),
        format!(
            "cannot update settings {}: its folder does not exist",
            nested.display()
        )
    );
}

/// Runs an update that must be refused, and checks that `edit` never ran
/// and the file's bytes did not change.
fn refused(path: &Path) -> SettingsWriteError {
    // Read only a regular file: reading a FIFO would wait for a writer.
    let contents = |path: &Path| {
        fs::symlink_metadata(path)
            .is_ok_and(|m| m.is_file())
            .then(|| fs::read(path).unwrap())
    };
    let kind = |path: &Path| fs::symlink_metadata(path).map(|m| m.file_type()).ok();
    let before = (contents(path), kind(path));
    let mut ran = false;
    let err = update(path, |doc| {
        ran = true;
        doc.set("k", &json!(1));
    })
    .unwrap_err();
    assert!(!ran, "edit ran for {}", path.display());
    assert_eq!(
        (contents(path), kind(path)),
        before,
        "{} changed",
        path.display()
    );
    err
}

#[test]
fn files_that_are_not_a_json_object_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let check = |name: &str, text: &str| {
        let path = dir.path().join(name);
        write(&path, text);
        refused(&path)
    };
    let err = check("comment.json", "{\n  // a comment\n  \"a\": 1\n}\n");
    assert!(
        matches!(err, SettingsWriteError::InvalidJson { .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .ends_with("comment.json: it is not valid JSON")
    );
    assert!(std::error::Error::source(&err).is_some());
    let err = check("trailing.json", "{\"a\": 1,}");
    assert!(
        matches!(err, SettingsWriteError::InvalidJson { .. }),
        "{err:?}"
    );
    for (name, text) in [
        ("list.json", "[1, 2]"),
        ("string.json", "\"x\""),
        ("null.json", "null"),
    ] {
        let err = check(name, text);
        assert!(
            matches!(err, SettingsWriteError::NotAnObject { .. }),
            "{name}: {err:?}"
        );
    }
    let err = check("twice.json", r#"{"a": 1, "b": 2, "a": 3}"#);
    assert!(
        matches!(&err, SettingsWriteError::DuplicateKey { key, .. } if key == "a"),
        "{err:?}"
    );
    let err = check("empty.json", "");
    assert!(
        matches!(err, SettingsWriteError::InvalidJson { .. }),
        "{err:?}"
    );
}

#[test]
fn an_oversized_file_or_result_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let huge = dir.path().join("huge.json");
    fs::File::create(&huge)
        .unwrap()
        .set_len(MAX_SETTINGS_BYTES + 1)
        .unwrap();
    let err = refused(&huge);
    assert!(
        matches!(err, SettingsWriteError::TooLarge { limit, .. } if limit == MAX_SETTINGS_BYTES),
        "{err:?}"
    );

    let path = dir.path().join("settings.json");
    write(&path, PRETTY);
    let big = "x".repeat(usize::try_from(MAX_SETTINGS_BYTES).unwrap());
    let err = update(&path, |doc| doc.set("big", &json!(big))).unwrap_err();
    assert!(
        matches!(err, SettingsWriteError::WouldBeTooLarge { len, .. } if len > MAX_SETTINGS_BYTES),
        "{err:?}"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), PRETTY);
}

#[cfg(unix)]
#[test]
fn fifos_devices_folders_and_links_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.json");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let err = refused(&fifo);
    assert!(
        matches!(err, SettingsWriteError::NotAFile { kind: "a FIFO", .. }),
        "{err:?}"
    );

    let folder = dir.path().join("folder.json");
    fs::create_dir(&folder).unwrap();
    let err = refused(&folder);
    assert!(
        matches!(
            err,
            SettingsWriteError::NotAFile {
                kind: "a folder",
                ..
            }
        ),
        "{err:?}"
    );

    // A link is refused whatever it points to: a FIFO, a device, a file.
    let real = dir.path().join("real.json");
    write(&real, PRETTY);
    for (name, target) in [
        ("to-fifo.json", fifo.as_path()),
        ("to-null.json", Path::new("/dev/null")),
        ("to-file.json", real.as_path()),
        ("dangling.json", Path::new("/no/such/file.json")),
    ] {
        let link = dir.path().join(name);
        std::os::unix::fs::symlink(target, &link).unwrap();
        let err = refused(&link);
        assert!(
            matches!(&err, SettingsWriteError::Symlink { path } if *path == link),
            "{name}: {err:?}"
        );
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
    assert_eq!(fs::read_to_string(&real).unwrap(), PRETTY);
    assert!(!Path::new("/no/such/file.json").exists());
}

#[cfg(unix)]
#[test]
fn a_link_at_the_lock_name_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    write(&path, PRETTY);
    let elsewhere = dir.path().join("elsewhere");
    let lock = locks(&path).lock_path(&file(&path));
    fs::create_dir_all(lock.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &lock).unwrap();
    let err = refused(&path);
    assert!(matches!(err, SettingsWriteError::Lock { .. }), "{err:?}");
    assert!(!elsewhere.exists());
}

#[test]
fn concurrent_updates_of_different_keys_lose_nothing() {
    const PER_THREAD: usize = 40;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    write(&path, PRETTY);
    std::thread::scope(|scope| {
        for prefix in ["a", "b"] {
            let path = &path;
            scope.spawn(move || {
                for i in 0..PER_THREAD {
                    update(path, |doc| doc.set(&format!("{prefix}{i}"), &json!(i))).unwrap();
                }
            });
        }
    });
    let doc = SettingsDocument::parse(&fs::read(&path).unwrap()).unwrap();
    for prefix in ["a", "b"] {
        for i in 0..PER_THREAD {
            assert_eq!(
                doc.get(&format!("{prefix}{i}")),
                Some(json!(i)),
                "{prefix}{i}"
            );
        }
    }
    assert_eq!(doc.keys().count(), 5 + 2 * PER_THREAD);
}

#[test]
fn a_reader_never_sees_a_half_written_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    write(&path, PRETTY);
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            for i in 0..30 {
                // Large enough that a write in place would be seen halfway.
                let value = format!("{i}").repeat(100_000);
                update(&path, |doc| doc.set("big", &json!(value))).unwrap();
            }
            done.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        let mut reads = 0;
        while !done.load(std::sync::atomic::Ordering::Relaxed) || reads == 0 {
            let doc = SettingsDocument::parse(&fs::read(&path).unwrap()).unwrap();
            assert_eq!(doc.get("autoMemoryEnabled"), Some(json!(true)));
            reads += 1;
        }
    });
    // Nothing is left beside the file: its lock is in the lock folder.
    let mut names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["base", "settings.json"]);
    assert!(locks(&path).lock_path(&file(&path)).is_file());
}

/// The environment variable that turns [`crash_child`] into a writer that
/// never stops, for [`a_killed_writer_leaves_the_old_or_the_new_file`].
const CRASH_CHILD: &str = "MEMDIR_SETTINGS_CRASH_CHILD";

/// Does nothing in a normal run. In the child process of
/// [`a_killed_writer_leaves_the_old_or_the_new_file`], rewrites the file
/// named by [`CRASH_CHILD`] until it is killed.
#[test]
fn crash_child() {
    let Some(path) = std::env::var_os(CRASH_CHILD) else {
        return;
    };
    let path = Path::new(&path);
    for i in 0_u64.. {
        let value = format!("{i:08}").repeat(20_000);
        update(path, |doc| {
            doc.set("big", &json!(value));
            doc.set("i", &json!(i));
        })
        .unwrap();
    }
}

/// A writer killed (SIGKILL) at an arbitrary moment leaves a whole file:
/// the old one or the new one, never a mix.
#[test]
fn a_killed_writer_leaves_the_old_or_the_new_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    write(&path, PRETTY);
    for delay_ms in [30, 70, 150] {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["write::tests::crash_child", "--exact", "--test-threads=1"])
            .env(CRASH_CHILD, &path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        child.kill().unwrap();
        child.wait().unwrap();
        let doc = SettingsDocument::parse(&fs::read(&path).unwrap()).unwrap();
        assert_eq!(doc.get("autoMemoryEnabled"), Some(json!(true)));
        if let Some(i) = doc.get("i") {
            let big = doc.get("big").unwrap();
            assert_eq!(
                big.as_str().unwrap(),
                format!("{:08}", i.as_u64().unwrap()).repeat(20_000)
            );
        }
    }
    // A later update still works (the dead writer's lock went with it).
    update(&path, |doc| doc.set("after", &json!(true))).unwrap();
}

#[test]
fn documents_parse_and_print() {
    let doc = SettingsDocument::parse(b"{}").unwrap();
    assert_eq!(doc.to_json(), "{}\n");
    assert!(!doc.is_changed());
    let doc = SettingsDocument::parse(br#" {"a\"b": [1, {"c": null}]} "#).unwrap();
    assert_eq!(doc.raw("a\"b"), Some(r#"[1, {"c": null}]"#));
    assert_eq!(doc.to_json(), "{\n  \"a\\\"b\": [1, {\"c\": null}]\n}\n");
    assert!(matches!(
        SettingsDocument::parse(b"{\"a\": 1e400}"),
        Err(DocumentError::InvalidJson(_))
    ));
    assert!(matches!(
        SettingsDocument::parse(b"{\"a\": 1, \"a\": 1}"),
        Err(DocumentError::DuplicateKey(k)) if k == "a"
    ));
    assert!(matches!(
        SettingsDocument::parse(b"[]"),
        Err(DocumentError::NotAnObject)
    ));
}

#[test]
fn set_raw_keeps_the_text_it_is_given_and_refuses_what_is_not_json() {
    let mut doc = SettingsDocument::parse(b"{\n  \"a\": 1,\n  \"hooks\": {\"b\": 1}\n}\n").unwrap();
    doc.set_raw("hooks", "{\"z\": 1, \"b\": 2}").unwrap();
    doc.set_raw("new", "[3]").unwrap();
    assert!(doc.is_changed());
    assert_eq!(
        doc.to_json(),
        "{\n  \"a\": 1,\n  \"hooks\": {\"z\": 1, \"b\": 2},\n  \"new\": [3]\n}\n"
    );
    assert!(matches!(
        doc.set_raw("a", "{not json"),
        Err(DocumentError::InvalidJson(_))
    ));
    assert_eq!(doc.raw("a"), Some("1"));
    let mut same = SettingsDocument::parse(b"{\"a\": [1]}").unwrap();
    same.set_raw("a", "[1]").unwrap();
    assert!(!same.is_changed(), "the same text is no change");
}

#[test]
fn a_nested_object_is_edited_in_place_keeping_its_keys_order_and_text() {
    let text = "{\n  \"a\": 1,\n  \"projects\": {\n    \"/p\": {\n      \"z\": {\"keep\" : [1,2]},\n      \"old\": true,\n      \"b\": 2\n    },\n    \"/q\": {\"x\": 1}\n  }\n}\n";
    let mut doc = SettingsDocument::parse(text.as_bytes()).unwrap();
    let mut projects = doc.object("projects").unwrap().unwrap();
    let mut p = projects.object("/p").unwrap().unwrap();
    p.remove("old");
    p.set("new", &json!({"list": [1]}));
    projects.set_object("/p", &p);
    doc.set_object("projects", &projects);
    let expected = "{\n  \"a\": 1,\n  \"projects\": {\n    \"/p\": {\n      \"z\": {\"keep\" : [1,2]},\n      \"b\": 2,\n      \"new\": {\n        \"list\": [\n          1\n        ]\n      }\n    },\n    \"/q\": {\"x\": 1}\n  }\n}\n";
    assert_eq!(doc.to_json(), expected);
    assert_eq!(
        serde_json::from_str::<Value>(&doc.to_json()).unwrap()["projects"]["/p"]["new"]["list"][0],
        1
    );
}

#[test]
fn an_unchanged_nested_object_leaves_the_document_unchanged() {
    let text = "{\"projects\": {\"/p\": {\"b\": 1, \"a\": 2}}}";
    let mut doc = SettingsDocument::parse(text.as_bytes()).unwrap();
    let projects = doc.object("projects").unwrap().unwrap();
    doc.set_object("projects", &projects);
    assert!(!doc.is_changed());
    assert!(doc.object("missing").is_none());
    let mut not_object = SettingsDocument::parse(b"{\"p\": null, \"l\": [1]}").unwrap();
    assert!(matches!(
        not_object.object("p"),
        Some(Err(DocumentError::NotAnObject))
    ));
    assert!(matches!(
        not_object.object("l"),
        Some(Err(DocumentError::NotAnObject))
    ));
    // A new nested object is written at its depth.
    let mut fresh = SettingsDocument::new();
    fresh.set("k", &json!("v"));
    not_object.set_object("p", &fresh);
    assert_eq!(
        not_object.to_json(),
        "{\n  \"p\": {\n    \"k\": \"v\"\n  },\n  \"l\": [1]\n}\n"
    );
}

#[test]
fn replace_refuses_a_file_that_appeared_or_vanished_since_the_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    let read = read_settings_file(&file(&path), MAX_SETTINGS_BYTES).unwrap();
    assert!(read.bytes.is_none());
    write(&path, "{}");
    let mut doc = read.document.clone();
    doc.set("k", &json!(1));
    assert!(matches!(
        replace_settings_file(&file(&path), &locks(&path), None, &doc, MAX_SETTINGS_BYTES),
        Err(SettingsWriteError::ChangedMeanwhile { .. })
    ));
    let read = read_settings_file(&file(&path), MAX_SETTINGS_BYTES).unwrap();
    fs::remove_file(&path).unwrap();
    assert!(matches!(
        replace_settings_file(
            &file(&path),
            &locks(&path),
            read.bytes.as_deref(),
            &doc,
            MAX_SETTINGS_BYTES
        ),
        Err(SettingsWriteError::ChangedMeanwhile { .. })
    ));
    replace_settings_file(&file(&path), &locks(&path), None, &doc, MAX_SETTINGS_BYTES).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "{\n  \"k\": 1\n}\n");
    // A larger limit reads a file past the settings limit.
    write(&path, &format!("{{\"big\": \"{}\"}}", "x".repeat(2 << 20)));
    assert!(matches!(
        read_settings_file(&file(&path), MAX_SETTINGS_BYTES),
        Err(SettingsWriteError::TooLarge { .. })
    ));
    assert!(read_settings_file(&file(&path), 8 << 20).is_ok());
}

/// A project whose `.claude` is a link to another project's `.claude`.
#[cfg(unix)]
fn linked_project(dir: &Path) -> (PathBuf, PathBuf) {
    let victim = dir.join("victim/.claude");
    fs::create_dir_all(&victim).unwrap();
    write(&victim.join("settings.local.json"), PRETTY);
    let project = dir.join("project");
    fs::create_dir(&project).unwrap();
    std::os::unix::fs::symlink(&victim, project.join(".claude")).unwrap();
    (project, victim)
}

#[cfg(unix)]
#[test]
fn a_linked_folder_on_the_way_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (project, victim) = linked_project(dir.path());
    let locks = LockDir::under_base(&dir.path().join("base"));
    let local = SettingsPath::new(&project, ".claude/settings.local.json");
    let linked = |err: &SettingsWriteError| {
        matches!(err, SettingsWriteError::LinkedFolder { path, folder }
            if *path == project.join(".claude/settings.local.json") && *folder == project.join(".claude"))
    };

    let mut ran = false;
    let err = update_settings_file(&local, &locks, |doc| {
        ran = true;
        doc.set("k", &json!(1));
    })
    .unwrap_err();
    assert!(linked(&err), "{err:?}");
    assert!(!ran);
    assert!(
        err.to_string().ends_with(
            ".claude is a symbolic link (memdir does not write through a linked folder)"
        ),
        "{err}"
    );
    let err = read_settings_file(&local, MAX_SETTINGS_BYTES)
        .err()
        .unwrap();
    assert!(linked(&err), "{err:?}");
    let mut doc = SettingsDocument::new();
    doc.set("k", &json!(1));
    let err = replace_settings_file(&local, &locks, None, &doc, MAX_SETTINGS_BYTES).unwrap_err();
    assert!(linked(&err), "{err:?}");

    // The other project's folder holds what it held, and no lock either.
    let names: Vec<_> = fs::read_dir(&victim)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["settings.local.json"]);
    assert_eq!(
        fs::read_to_string(victim.join("settings.local.json")).unwrap(),
        PRETTY
    );
    assert!(!locks.path().exists(), "a refused write took a lock");

    // A link that stays inside the root is refused as well: the file it
    // leads to is not the one named.
    let inner = dir.path().join("inner");
    fs::create_dir_all(inner.join("shared/.claude")).unwrap();
    std::os::unix::fs::symlink("shared/.claude", inner.join(".claude")).unwrap();
    let err = update_settings_file(
        &SettingsPath::new(&inner, ".claude/settings.json"),
        &locks,
        |doc| doc.set("k", &json!(1)),
    )
    .unwrap_err();
    assert!(
        matches!(&err, SettingsWriteError::LinkedFolder { folder, .. } if *folder == inner.join(".claude")),
        "{err:?}"
    );
    assert!(!inner.join("shared/.claude/settings.json").exists());

    // A link deeper down is refused the same way.
    fs::create_dir_all(dir.path().join("real/b")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("real"), project.join("a")).unwrap();
    let deep = SettingsPath::new(&project, "a/b/settings.json");
    let err = update_settings_file(&deep, &locks, |doc| doc.set("k", &json!(1))).unwrap_err();
    assert!(
        matches!(&err, SettingsWriteError::LinkedFolder { folder, .. } if *folder == project.join("a")),
        "{err:?}"
    );
    assert!(!dir.path().join("real/b/settings.json").exists());
}

#[cfg(unix)]
#[test]
fn the_trusted_root_itself_may_be_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("dotfiles/claude");
    fs::create_dir_all(&real).unwrap();
    let base = dir.path().join(".claude");
    std::os::unix::fs::symlink(&real, &base).unwrap();
    let user = SettingsPath::new(&base, "settings.json");
    let locks = LockDir::under_base(&base);
    update_settings_file(&user, &locks, |doc| doc.set("k", &json!(1))).unwrap();
    assert_eq!(
        fs::read_to_string(real.join("settings.json")).unwrap(),
        "{\n  \"k\": 1\n}\n"
    );
    // One lock for both spellings of the base.
    let via_real = LockDir::under_base(&real).lock_path(&SettingsPath::new(&real, "settings.json"));
    assert_eq!(locks.lock_path(&user).file_name(), via_real.file_name());
}

#[test]
fn a_read_takes_no_lock_and_a_refused_write_leaves_none() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    write(&path, PRETTY);
    let read = read_settings_file(&file(&path), MAX_SETTINGS_BYTES).unwrap();
    assert_eq!(read.bytes.as_deref(), Some(PRETTY.as_bytes()));
    let missing = dir.path().join("no/such/settings.json");
    let read =
        read_settings_file(&SettingsPath::new(dir.path(), "no/such/settings.json"), 10).unwrap();
    assert!(read.bytes.is_none());
    let err = update_settings_file(
        &SettingsPath::new(dir.path(), "no/such/settings.json"),
        &locks(&path),
        |doc| doc.set("k", &json!(1)),
    )
    .unwrap_err();
    assert!(
        matches!(&err, SettingsWriteError::MissingFolder { path } if *path == missing),
        "{err:?}"
    );
    assert!(!locks(&path).path().exists());
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["settings.json"]);
}
