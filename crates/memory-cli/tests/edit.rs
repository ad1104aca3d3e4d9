//! `memdir edit` driven as a person would drive it: in a real terminal
//! (tmux, 80×24), with keys, reading the screen. Without tmux the tests
//! say so and pass, unless `MEMDIR_REQUIRE_TMUX=1`.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

const BIN: &str = env!("CARGO_BIN_EXE_memdir");

#[allow(clippy::print_stderr, reason = "a skipped check says so")]
fn tmux_available() -> bool {
    let found = Command::new("tmux")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var("MEMDIR_REQUIRE_TMUX").as_deref() != Ok("1"),
            "tmux is required (MEMDIR_REQUIRE_TMUX=1) but was not found"
        );
        eprintln!("skipped: tmux is not installed (set MEMDIR_REQUIRE_TMUX=1 to require it)");
    }
    found
}

/// A private tmux server with one 80×24 pane running `sh`; killed on drop.
struct Pane {
    socket: String,
}

impl Pane {
    fn start(env: &[(&str, String)]) -> Pane {
        let socket = format!(
            "memdir-edit-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        )
        .replace(['(', ')'], "");
        let mut shell = vec![
            "env".to_owned(),
            "-i".to_owned(),
            format!("PATH={}", std::env::var("PATH").unwrap_or_default()),
            "TERM=xterm-256color".to_owned(),
            "PS1=sh> ".to_owned(),
        ];
        shell.extend(env.iter().map(|(k, v)| format!("{k}={v}")));
        shell.push("sh".to_owned());
        let status = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", "80", "-y", "24", "-s", "t"])
            .args(shell)
            .status()
            .unwrap();
        assert!(status.success(), "tmux new-session failed");
        let pane = Pane { socket };
        pane.wait_for("sh>");
        pane
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn send(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "t"])
    }

    /// The screen once it shows `text`; fails after 15 s with the screen.
    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(15),
                "{text:?} never appeared; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .stderr(Stdio::null())
            .status();
    }
}

struct World {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        for dir in ["home", "project"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        let editor = root.join("editor.sh");
        std::fs::write(
            &editor,
            "#!/bin/sh\necho 'a line from the editor' >> \"$1\"\n",
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        World { _tmp: tmp, root }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("HOME", self.path("home").display().to_string()),
            ("EDITOR", self.path("editor.sh").display().to_string()),
        ]
    }

    fn command(&self) -> String {
        format!(
            "{BIN} --project {} --memory-dir {} edit; echo exit=$?",
            self.path("project").display(),
            self.path("memory").display()
        )
    }
}

/// The screen's lines joined by spaces, so that wrapped text reads whole.
fn flat(screen: &str) -> String {
    screen
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Echo and canonical mode are on: the terminal was given back as found.
fn assert_terminal_restored(pane: &Pane) {
    pane.send(&[
        "clear; stty -a | tr ' ' '\\n' | grep -x -e echo -e icanon | tr '\\n' ,; echo",
        "Enter",
    ]);
    let screen = pane.wait_for("icanon,echo,");
    assert!(!screen.contains("-echo,"), "{screen}");
}

#[test]
fn enter_on_auto_memory_creates_and_edits_memory_md_then_q_restores_the_terminal() {
    if !tmux_available() {
        return;
    }
    let world = World::new();
    let pane = Pane::start(&world.env());
    pane.send(&[&world.command(), "Enter"]);

    let screen = pane.wait_for("Auto memory");
    for source in ["User", "Project", "Local", "Managed", "Auto memory"] {
        assert!(screen.contains(source), "{source} missing from:\n{screen}");
    }
    assert!(
        !screen.contains("Team memory"),
        "team memory is off:\n{screen}"
    );
    assert!(screen.contains("~/.claude/CLAUDE.md"), "{screen}");
    assert!(screen.contains("CLAUDE.local.md"), "{screen}");
    for line in screen.lines().take(24) {
        assert!(
            line.chars().count() <= 80,
            "wider than 80 columns: {line:?}"
        );
    }
    let memory_md = world.path("memory/MEMORY.md");
    assert!(!memory_md.exists());

    // User, Project, Local, Managed, then Auto memory; k and j both move.
    pane.send(&["j", "j", "j", "k", "j", "Down", "Enter"]);
    let screen = pane.wait_for("Created and edited the auto memory file");
    assert_eq!(
        std::fs::read_to_string(&memory_md).unwrap(),
        "a line from the editor\n"
    );
    let text = flat(&screen);
    assert!(
        text.contains("To use another, set $VISUAL or $EDITOR"),
        "{screen}"
    );
    assert!(text.contains("(from $EDITOR)"), "{screen}");
    let auto_row = screen.lines().find(|l| l.contains("Auto memory")).unwrap();
    assert!(auto_row.contains("exists"), "{auto_row}");

    // A second Enter edits the same file without creating it again.
    pane.send(&["Enter"]);
    pane.wait_for("Edited the auto memory file");
    assert_eq!(
        std::fs::read_to_string(&memory_md).unwrap(),
        "a line from the editor\na line from the editor\n"
    );

    pane.send(&["q"]);
    let screen = pane.wait_for("exit=0");
    assert!(
        screen.lines().any(|l| l.starts_with("sh>")) && screen.trim_end().ends_with("sh>"),
        "no shell prompt again:\n{screen}"
    );
    assert!(
        !screen.contains("Up/Down"),
        "the list is still on screen:\n{screen}"
    );
    assert_terminal_restored(&pane);
}

#[test]
fn a_background_save_is_noticed_and_esc_quits() {
    if !tmux_available() {
        return;
    }
    let world = World::new();
    std::fs::create_dir_all(world.path("memory")).unwrap();
    let memory_md = world.path("memory/MEMORY.md");
    std::fs::write(&memory_md, "- [a](a.md) — a\n").unwrap();
    let pane = Pane::start(&world.env());
    pane.send(&[&world.command(), "Enter"]);
    let screen = pane.wait_for("Auto memory");
    assert!(!screen.contains("in the background"), "{screen}");

    // Another process saves a memory while the list is open.
    let file = std::fs::File::options()
        .append(true)
        .open(&memory_md)
        .unwrap();
    file.set_modified(SystemTime::now() + Duration::from_secs(5))
        .unwrap();
    drop(file);
    pane.wait_for("saved in the background");

    pane.send(&["Escape"]);
    pane.wait_for("exit=0");
    assert_terminal_restored(&pane);
}

#[test]
fn team_memory_is_listed_when_on_and_visual_wins_over_editor() {
    if !tmux_available() {
        return;
    }
    let world = World::new();
    let mut env = world.env();
    env.retain(|(k, _)| *k != "EDITOR");
    env.push(("EDITOR", "false".to_owned()));
    env.push(("VISUAL", world.path("editor.sh").display().to_string()));
    env.push(("MEMDIR_TEAM", "1".to_owned()));
    let pane = Pane::start(&env);
    pane.send(&[&world.command(), "Enter"]);
    pane.wait_for("Team memory");
    // G goes to the last row: the team index.
    pane.send(&["G", "Enter"]);
    let screen = pane.wait_for("Created and edited the team memory file");
    assert!(flat(&screen).contains("(from $VISUAL)"), "{screen}");
    assert_eq!(
        std::fs::read_to_string(world.path("memory/team/MEMORY.md")).unwrap(),
        "a line from the editor\n"
    );
    assert!(!world.path("memory/MEMORY.md").exists());
    pane.send(&["q"]);
    pane.wait_for("exit=0");
}

#[test]
fn the_managed_file_is_not_opened() {
    if !tmux_available() {
        return;
    }
    let world = World::new();
    let pane = Pane::start(&world.env());
    pane.send(&[&world.command(), "Enter"]);
    pane.wait_for("Auto memory");
    pane.send(&["j", "j", "j", "Enter"]);
    let screen = pane.wait_for("belongs to your administrator");
    assert!(
        flat(&screen).contains("belongs to your administrator and is read-only"),
        "{screen}"
    );
    pane.send(&["q"]);
    pane.wait_for("exit=0");
    assert!(!world.path("memory").exists());
}

#[test]
fn sigterm_restores_the_terminal() {
    if !tmux_available() {
        return;
    }
    let world = World::new();
    let pane = Pane::start(&world.env());
    let pid_file = world.path("pid");
    // The command runs in the foreground (it owns the terminal) and
    // leaves its process id for the test.
    let command = world.command().replacen(BIN, &format!("exec {BIN}"), 1);
    let command = command.replace("; echo exit=$?", "");
    pane.send(&[
        &format!(
            "sh -c 'echo $$ > {}; {command}'; echo exit=$?",
            pid_file.display()
        ),
        "Enter",
    ]);
    let _ = pane.wait_for("Auto memory");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let status = Command::new("kill")
        .args(["-TERM", pid.trim()])
        .status()
        .unwrap();
    assert!(status.success());
    let screen = pane.wait_for("exit=");
    assert!(
        !screen.contains("exit=0"),
        "SIGTERM is not a success:\n{screen}"
    );
    assert_terminal_restored(&pane);
}

#[test]
fn without_a_terminal_it_is_one_line_and_exit_1() {
    let world = World::new();
    let out = Command::new(BIN)
        .args(["--project"])
        .arg(world.path("project"))
        .args(["--memory-dir"])
        .arg(world.path("memory"))
        .arg("edit")
        .env("HOME", world.path("home"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("needs a terminal"), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(!world.path("memory").exists());
}
