//! Bounded reads (SPEC R18.4): a FIFO, a socket or a device where a memory,
//! an index, settings or a file to scan belongs is one line on stderr and
//! an exit, never a hang; no read grows past its format's limit.
//!
//! Every run here is killed after [`TIMEOUT`], so a regression fails the
//! test instead of hanging the suite.

#![cfg(unix)]

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long one run may take before it is killed and the test fails.
const TIMEOUT: Duration = Duration::from_secs(10);

/// What a bounded run printed and how it ended.
struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Runs `memdir` in `dir` with `args` and `stdin` (else an empty stdin),
/// as [`crate::memdir_in`] does, but kills it and fails after [`TIMEOUT`].
fn run<S: AsRef<OsStr>>(dir: &Path, args: &[S], stdin: Option<Vec<u8>>) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_memdir"));
    for var in crate::MEMDIR_VARS.iter().chain(&crate::MODEL_VARS) {
        cmd.env_remove(var);
    }
    let mut child = cmd
        .env("HOME", "/nonexistent-memdir-test-home")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run memdir");
    let mut input = child.stdin.take().expect("stdin");
    // The child may exit before reading all of its input; that is not an
    // error here.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin.unwrap_or_default());
    });
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr")));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for memdir") {
            break status;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "memdir {:?} still running after {TIMEOUT:?}; killed",
                args.iter().map(AsRef::as_ref).collect::<Vec<_>>()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    writer.join().expect("stdin writer");
    Run {
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

/// Checks that a run ended with `code` and exactly one line on stderr that
/// contains every one of `needles`.
fn check(what: &str, run: &Run, code: i32, needles: &[&str]) {
    let err = &run.stderr;
    assert_eq!(run.status.code(), Some(code), "{what}: stderr {err:?}");
    assert_eq!(err.lines().count(), 1, "{what}: one line, got {err:?}");
    assert!(err.starts_with("memdir: "), "{what}: {err:?}");
    for needle in needles {
        assert!(err.contains(needle), "{what}: {err:?} lacks {needle:?}");
    }
    assert!(!err.contains("panicked"), "{what}: {err:?}");
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

fn s(path: &Path) -> &str {
    path.to_str().expect("UTF-8 temporary path")
}

/// A temporary project with a memory folder `memory/` whose MEMORY.md is a
/// FIFO that nothing ever writes to.
fn fifo_index() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    std::fs::create_dir(&dir).unwrap();
    mkfifo(&dir.join("MEMORY.md"));
    (tmp, dir)
}

#[test]
fn a_fifo_index_is_one_line_and_exit_1() {
    let (tmp, dir) = fifo_index();
    let index = dir.join("MEMORY.md");
    let needles = [s(&index), "it is a FIFO, not a regular file"];
    for args in [
        vec!["--memory-dir", s(&dir), "prompt"],
        vec!["--memory-dir", s(&dir), "prompt", "--json"],
        vec!["--memory-dir", s(&dir), "index", "check"],
        vec!["--memory-dir", s(&dir), "index", "show"],
        vec!["index", "check", s(&index), "--json"],
        vec!["index", "show", s(&index)],
    ] {
        let out = run(tmp.path(), &args, None);
        check(&format!("{args:?}"), &out, 1, &needles);
        assert!(out.stdout.is_empty(), "{args:?}: {:?}", out.stdout);
    }
    // The prompt's error says which file it was reading for.
    let out = run(tmp.path(), &["--memory-dir", s(&dir), "prompt"], None);
    assert!(
        out.stderr.contains("cannot read memory index "),
        "{}",
        out.stderr
    );
}

#[test]
fn a_device_is_refused_without_reading_it() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        ["index", "check", "/dev/zero"],
        ["index", "show", "/dev/zero"],
        ["secrets", "scan", "/dev/zero"],
        ["secrets", "redact", "/dev/zero"],
    ] {
        let started = Instant::now();
        let out = run(tmp.path(), &args, None);
        check(
            &format!("{args:?}"),
            &out,
            1,
            &["/dev/zero", "it is a device, not a regular file"],
        );
        // Refused before any read: no time to fill memory.
        assert!(started.elapsed() < Duration::from_secs(5), "{args:?}");
    }
}

/// A settings file named with `--settings` must be usable: a FIFO there is
/// one error line at once, not a wait for a writer.
#[test]
fn a_fifo_settings_file_is_one_error_not_a_wait() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("settings.json");
    mkfifo(&fifo);
    let out = run(
        tmp.path(),
        &[
            "--settings",
            s(&fifo),
            "--memory-dir",
            s(tmp.path()),
            "paths",
        ],
        None,
    );
    check(
        "--settings FIFO paths",
        &out,
        1,
        &["--settings", s(&fifo), "it is a FIFO, not a regular file"],
    );
}

/// A memory folder with two memories, and special files with memory names
/// beside them: a FIFO `x.md`, a socket `notes/x.md`, a link `link.md` to
/// the FIFO.
fn folder_with_special_files() -> (tempfile::TempDir, PathBuf, std::os::unix::net::UnixListener) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    std::fs::create_dir_all(dir.join("notes")).unwrap();
    for (name, description) in [("a.md", "deploys go through staging"), ("b.md", "use pnpm")] {
        std::fs::write(
            dir.join(name),
            format!("---\nname: {name}\ndescription: {description}\ntype: project\n---\nBody.\n"),
        )
        .unwrap();
    }
    std::fs::write(
        dir.join("MEMORY.md"),
        "- [A](a.md) — staging\n- [B](b.md) — pnpm\n",
    )
    .unwrap();
    mkfifo(&dir.join("x.md"));
    let socket = std::os::unix::net::UnixListener::bind(dir.join("notes/x.md")).unwrap();
    std::os::unix::fs::symlink(dir.join("x.md"), dir.join("link.md")).unwrap();
    (tmp, dir, socket)
}

#[test]
fn special_files_in_a_memory_folder_are_skipped_not_waited_on() {
    let (tmp, dir, _socket) = folder_with_special_files();
    let out = run(
        tmp.path(),
        &["--memory-dir", s(&dir), "list", "--json"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    let rows: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let mut names: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["filename"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["a.md", "b.md"]);
    // Each special file is named once, with what it is.
    for (file, kind) in [
        ("x.md", "a FIFO"),
        ("notes/x.md", "a socket"),
        ("link.md", "a FIFO"),
    ] {
        let line = format!(
            "memdir: warning: {}: cannot read (it is {kind}, not a regular file); skipped",
            dir.join(file).display()
        );
        assert!(
            out.stderr.lines().any(|l| l == line),
            "{line:?} not in {:?}",
            out.stderr
        );
    }

    for args in [
        vec!["--memory-dir", s(&dir), "prompt"],
        vec![
            "--memory-dir",
            s(&dir),
            "recall",
            "staging deploys",
            "--json",
        ],
    ] {
        let out = run(tmp.path(), &args, None);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn a_file_over_the_scan_limit_is_one_line_naming_the_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let big = tmp.path().join("big.txt");
    // Sparse: 64 MiB and one byte, without writing them.
    std::fs::File::create(&big)
        .unwrap()
        .set_len(64 * 1024 * 1024 + 1)
        .unwrap();
    let limit = "64 MiB (67108864 bytes) limit";
    for args in [["secrets", "scan", s(&big)], ["secrets", "redact", s(&big)]] {
        let out = run(tmp.path(), &args, None);
        check(&format!("{args:?}"), &out, 1, &[s(&big), limit]);
    }
    let out = run(
        tmp.path(),
        &["secrets", "scan", "-"],
        Some(vec![b'a'; 64 * 1024 * 1024 + 1]),
    );
    check("secrets scan - (too much)", &out, 1, &["stdin", limit]);
    // At the limit exactly, stdin is scanned.
    let out = run(
        tmp.path(),
        &["secrets", "scan", "-"],
        Some(vec![b'a'; 64 * 1024 * 1024]),
    );
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
}

#[test]
fn a_folder_scan_skips_and_reports_special_files() {
    let (tmp, dir, _socket) = folder_with_special_files();
    let out = run(tmp.path(), &["secrets", "scan", s(&dir)], None);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert!(
        out.stdout.contains("(3 inputs scanned, 2 skipped)"),
        "{}",
        out.stdout
    );
    for (file, kind) in [("x.md", "a FIFO"), ("notes/x.md", "a socket")] {
        let line = format!(
            "memdir: warning: {}: it is {kind}, not a regular file; skipped",
            dir.join(file).display()
        );
        assert!(
            out.stderr.lines().any(|l| l == line),
            "{line:?} not in {:?}",
            out.stderr
        );
    }
}

#[test]
fn a_missing_command_is_one_usage_line() {
    let tmp = tempfile::tempdir().unwrap();
    for (args, usage) in [
        (
            vec![],
            "usage: memdir [OPTIONS] <COMMAND> (see 'memdir --help')",
        ),
        (
            vec!["index"],
            "usage: memdir index [OPTIONS] <COMMAND> (see 'memdir index --help')",
        ),
        (
            vec!["secrets"],
            "usage: memdir secrets [OPTIONS] <COMMAND> (see 'memdir secrets --help')",
        ),
        (
            vec!["team"],
            "usage: memdir team [OPTIONS] <COMMAND> (see 'memdir team --help')",
        ),
    ] {
        let out = run(tmp.path(), &args, None);
        check(
            &format!("{args:?}"),
            &out,
            2,
            &["is required", usage, "--help"],
        );
        assert!(out.stdout.is_empty(), "{args:?}: {:?}", out.stdout);
    }
    // With options but no command, clap's own one-line error stands.
    let out = run(tmp.path(), &["--json"], None);
    check("--json", &out, 2, &["subcommand", "(see 'memdir --help')"]);
}

#[test]
fn a_server_database_that_is_no_regular_file_is_refused_before_it_is_opened() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("team.db");
    mkfifo(&fifo);
    let folder = tmp.path().join("folder.db");
    std::fs::create_dir(&folder).unwrap();
    let link = tmp.path().join("link.db");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    let dangling = tmp.path().join("dangling.db");
    std::os::unix::fs::symlink(tmp.path().join("elsewhere.db"), &dangling).unwrap();
    let listing = || {
        let mut names: Vec<String> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    };
    let before = listing();
    for (db, kind) in [
        (&fifo, "it is a FIFO, not a regular file"),
        (&folder, "it is a folder, not a regular file"),
        (&link, "it is a FIFO, not a regular file"),
        (&dangling, "it is a symbolic link to nothing"),
    ] {
        for args in [
            vec!["serve", "--db", s(db), "--create-token", "acme"],
            vec!["serve", "--db", s(db), "--bind", "127.0.0.1:0"],
        ] {
            let out = run(tmp.path(), &args, None);
            check(&format!("{args:?}"), &out, 3, &[s(db), kind]);
            assert!(out.stdout.is_empty(), "{args:?}: {:?}", out.stdout);
        }
    }
    // Nothing was created beside them: no -journal, -wal or -shm file, and
    // nothing where the dangling link points.
    assert_eq!(listing(), before);

    // A device: refused, and no journal appears beside it.
    let journal = Path::new("/dev/zero-journal");
    let existed = journal.exists();
    let out = run(
        tmp.path(),
        &["serve", "--db", "/dev/zero", "--create-token", "acme"],
        None,
    );
    check(
        "/dev/zero",
        &out,
        3,
        &["/dev/zero", "it is a device, not a regular file"],
    );
    if !existed {
        assert!(!journal.exists(), "/dev/zero-journal was created");
    }
}
