//! git runs, through the policy and the runner, none of the programs its
//! configuration names: in a repository whose configuration names a
//! text-conversion program, clean, smudge and process filters, external
//! diffs, a pager, a file-system monitor and a signature program, each of
//! which would leave a mark, every allowed git command runs for real and
//! no mark appears.

use std::path::{Path, PathBuf};
use std::process::Command;

use memdir_bashpolicy::{Decision, RunError, RunLimits, RunOutput, check, run};

/// A repository whose configuration names a marking program for every
/// kind of program git may run on its own, and hooks that mark too.
struct Trap {
    dir: tempfile::TempDir,
    marks: PathBuf,
}

impl Trap {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let root = dir.path();
        let marks = root.join("marks.log");
        let program = root.join("mark.sh");
        // Writes what ran, then passes its input through as a filter or a
        // text conversion would.
        std::fs::write(
            &program,
            format!(
                "#!/bin/sh\necho \"$*\" >> '{}'\nif [ -f \"$2\" ]; then cat \"$2\"; else cat; fi\n",
                marks.display()
            ),
        )
        .expect("write the program");
        set_executable(&program);
        let repo = root.join("repo");
        std::fs::create_dir(&repo).expect("create the repository folder");
        let hooks = root.join("hooks");
        std::fs::create_dir(&hooks).expect("create the hooks folder");
        for hook in [
            "post-index-change",
            "reference-transaction",
            "post-checkout",
            "pre-auto-gc",
            "post-rewrite",
            "fsmonitor-watchman",
        ] {
            let path = hooks.join(hook);
            std::fs::write(
                &path,
                format!("#!/bin/sh\necho \"hook {hook}\" >> '{}'\n", marks.display()),
            )
            .expect("write a hook");
            set_executable(&path);
        }
        let trap = Self { dir, marks };
        trap.git(&["init", "-q", "-b", "main"]);
        let p = program.display();
        for (key, value) in [
            ("diff.conv.textconv", format!("{p} textconv")),
            ("diff.conv.command", format!("{p} diff-command")),
            ("diff.external", format!("{p} external")),
            ("filter.clean.clean", format!("{p} clean")),
            ("filter.clean.smudge", format!("{p} smudge")),
            ("filter.clean.required", "true".to_owned()),
            ("filter.proc.process", format!("{p} process")),
            ("core.pager", format!("{p} pager")),
            ("pager.log", format!("{p} pager-log")),
            ("core.fsmonitor", format!("{p} fsmonitor")),
            ("gpg.program", format!("{p} gpg")),
            ("log.showSignature", "true".to_owned()),
            ("pretty.sig", "%h %G?".to_owned()),
            ("core.alternateRefsCommand", format!("{p} alternate-refs")),
            ("core.hooksPath", hooks.display().to_string()),
        ] {
            trap.git(&["config", key, &value]);
        }
        trap.write(
            ".gitattributes",
            "*.bin diff=conv\n*.txt filter=clean\n*.dat filter=proc\n",
        );
        for (round, text) in ["one", "two"].iter().enumerate() {
            trap.write("a.bin", &format!("{text}\n"));
            trap.write("a.txt", &format!("{text}\n"));
            trap.write("a.dat", &format!("{text}\n"));
            trap.git(&["add", "."]);
            trap.git(&[
                "-c",
                "user.name=T",
                "-c",
                "user.email=t@example.com",
                "commit",
                "-qm",
                &format!("round {round}"),
            ]);
        }
        // Staged changes, changes in the working tree, and files touched
        // but unchanged (git hashes those through the clean filter).
        trap.write("a.bin", "staged\n");
        trap.git(&["add", "a.bin"]);
        trap.write("a.bin", "worktree\n");
        trap.write("a.txt", "twx\n");
        trap.touch("a.dat");
        let _ = std::fs::remove_file(&trap.marks);
        trap
    }

    fn repo(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.repo().join(name), text).expect("write");
    }

    /// Sets the file's modification time back, keeping its content.
    fn touch(&self, name: &str) {
        let file = std::fs::File::options()
            .write(true)
            .open(self.repo().join(name))
            .expect("open");
        file.set_modified(std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1))
            .expect("set the time");
    }

    /// git run directly in the repository, with the configuration as it
    /// is.
    fn git(&self, args: &[&str]) {
        self.git_in(&self.repo(), args);
    }

    /// git run directly in `dir`, with the configuration as it is.
    fn git_in(&self, dir: &Path, args: &[&str]) {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", self.dir.path())
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn marks(&self) -> String {
        std::fs::read_to_string(&self.marks).unwrap_or_default()
    }
}

#[cfg(unix)]
fn set_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[track_caller]
fn run_allowed(command: &str, dir: &Path) -> RunOutput {
    let Decision::Allowed(plan) = check(command) else {
        panic!("{command:?} is allowed: {}", check(command).reason());
    };
    run(&plan, dir, &RunLimits::default()).expect("the plan runs")
}

/// The trap works: git run directly with its configuration runs the
/// programs (so a missing mark below means something).
#[test]
fn the_trap_marks_when_git_runs_its_programs() {
    let trap = Trap::new();
    for args in [
        &["--no-pager", "diff"][..],
        &["--no-pager", "log", "-p", "-1", "--", "a.bin"],
        &["--no-pager", "status", "-v"],
        &["--no-pager", "cat-file", "--filters", "HEAD:a.txt"],
    ] {
        trap.git(args);
    }
    let marks = trap.marks();
    for program in ["clean", "textconv", "smudge", "fsmonitor"] {
        assert!(
            marks.lines().any(|l| l.starts_with(program)),
            "{program} did not run: {marks}"
        );
    }
}

/// Every git command the policy allows, in all the forms that could show
/// a diff or read the working tree, runs and runs none of git's programs.
#[test]
fn no_allowed_git_command_runs_a_configured_program() {
    let trap = Trap::new();
    let repo = trap.repo();
    let commands = [
        "git status",
        "git status --short",
        "git status -s -b",
        "git status --porcelain=v2",
        "git diff",
        "git diff --stat",
        "git diff --text",
        "git diff HEAD~1",
        "git diff --cached",
        "git diff --cached --text -- a.bin",
        "git diff HEAD~1 HEAD -- a.bin",
        "git diff --word-diff --numstat",
        "git diff --no-index a.bin a.txt",
        "git log",
        "git log -p",
        "git log -p --text -2",
        "git log --stat --follow -- a.bin",
        "git log --format=%H%n%B",
        "git log --pretty=sig",
        "git log --cc -c -m -p",
        "git show",
        "git show --text HEAD~1",
        "git show HEAD:a.bin",
        "git show HEAD:a.txt",
        "git show HEAD:a.dat",
        "git show --stat",
        "git blame a.bin",
        "git blame a.txt",
        "git blame a.dat",
        "git grep two",
        "git grep -a -n -e two",
        "git grep --cached two",
        "git cat-file -p HEAD:a.bin",
        "git cat-file -p HEAD:a.txt",
        "git cat-file blob HEAD:a.dat",
        "git cat-file --batch-all-objects --batch-check",
        "git ls-files -m",
        "git ls-files -s --eol",
        "git ls-files --others",
        "git diff-tree -p HEAD",
        "git diff-tree -r --stat --text HEAD",
        "git describe --always",
        "git rev-list --count HEAD",
        "git rev-list --objects --all",
        "git shortlog -sn HEAD",
        "git reflog",
        "git reflog show --all",
        "git branch",
        "git branch -v",
        "git branch -vv --list",
        "git for-each-ref",
        "git show-ref",
        "git rev-parse HEAD",
        "git count-objects -v",
        "git merge-base HEAD HEAD~1",
        "git name-rev HEAD",
        "git ls-tree -r HEAD",
        "git remote -v",
        "git version",
    ];
    let index = || std::fs::read(repo.join(".git/index")).expect("the index");
    let before = index();
    let mut ran = Vec::new();
    for command in commands {
        let out = run_allowed(command, &repo);
        let marks = trap.marks();
        if !marks.is_empty() {
            ran.push(format!("{command}: {}", marks.trim()));
            let _ = std::fs::remove_file(&trap.marks);
        }
        assert!(!out.timed_out, "{command}: {out:?}");
        // The answers are real answers, not errors about the programs.
        assert!(
            !out.output.contains("cannot run") && !out.output.contains("fatal"),
            "{command}: {}",
            out.output
        );
    }
    assert!(
        ran.is_empty(),
        "configured programs ran:\n{}",
        ran.join("\n")
    );
    assert!(index() == before, "the index was written");
}

/// `git branch -v` lists and creates nothing; a name after it is denied.
#[test]
fn git_branch_lists_and_creates_nothing() {
    let trap = Trap::new();
    let repo = trap.repo();
    let heads = || {
        let mut names: Vec<String> = std::fs::read_dir(repo.join(".git/refs/heads"))
            .expect("the heads")
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    };
    assert_eq!(heads(), ["main"]);
    for command in ["git branch -v", "git branch -vv", "git branch --list -a"] {
        let out = run_allowed(command, &repo);
        assert!(out.output.contains("main"), "{command}: {}", out.output);
        assert_eq!(out.exit_code, Some(0), "{command}: {}", out.output);
    }
    for command in [
        "git branch -v NAME",
        "git branch -vv NAME",
        "git branch --verbose NAME",
        "git branch --list NAME",
        "git branch --contains HEAD NAME",
    ] {
        let decision = check(command);
        assert!(
            decision.reason().contains("creates a branch"),
            "{command}: {}",
            decision.reason()
        );
    }
    assert_eq!(heads(), ["main"]);
}

/// Adds a submodule `sm` whose own configuration names a clean filter
/// and a text conversion for its `s.txt`, and asks the superproject to
/// look into submodules wherever it can. Returns the submodule's folder.
fn add_submodule(trap: &Trap) -> PathBuf {
    let root = trap.dir.path();
    let sub = root.join("sub");
    std::fs::create_dir(&sub).expect("create the submodule's origin");
    let commit = [
        "-c",
        "user.name=T",
        "-c",
        "user.email=t@example.com",
        "commit",
        "-qm",
        "c",
    ];
    trap.git_in(&sub, &["init", "-q", "-b", "main"]);
    std::fs::write(
        sub.join(".gitattributes"),
        "*.txt filter=inner diff=inner\n",
    )
    .expect("write");
    std::fs::write(sub.join("s.txt"), "inner\n").expect("write");
    trap.git_in(&sub, &["add", "."]);
    trap.git_in(&sub, &commit);
    trap.git(&[
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        "../sub",
        "sm",
    ]);
    trap.git(&commit);
    let p = root.join("mark.sh");
    let p = p.display();
    let inner = trap.repo().join("sm");
    trap.git_in(
        &inner,
        &["config", "filter.inner.clean", &format!("{p} inner-clean")],
    );
    trap.git_in(
        &inner,
        &[
            "config",
            "diff.inner.textconv",
            &format!("{p} inner-textconv"),
        ],
    );
    trap.git(&["config", "submodule.recurse", "true"]);
    trap.git(&["config", "diff.submodule", "diff"]);
    trap.git(&["config", "status.submoduleSummary", "true"]);
    inner
}

/// A submodule's own configuration names programs the superproject's
/// does not; looking into it would run them. No allowed command in the
/// superproject does, even when the superproject asks for submodules to be
/// looked into.
#[test]
fn no_allowed_git_command_runs_a_submodule_s_programs() {
    let trap = Trap::new();
    let inner = add_submodule(&trap);
    let repo = trap.repo();
    let touch = || {
        let file = std::fs::File::options()
            .write(true)
            .open(inner.join("s.txt"))
            .expect("open");
        file.set_modified(std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(7))
            .expect("set the time");
    };
    // The trap works: git run directly looks into the submodule.
    touch();
    trap.git(&["--no-pager", "status"]);
    assert!(trap.marks().contains("inner-clean"), "{}", trap.marks());
    let _ = std::fs::remove_file(&trap.marks);
    let mut ran = Vec::new();
    for command in [
        "git status",
        "git status --porcelain",
        "git diff",
        "git diff --stat",
        "git diff HEAD",
        "git log -p",
        "git show --stat",
        "git grep inner",
        "git ls-files -m",
        "git describe --always",
    ] {
        touch();
        let out = run_allowed(command, &repo);
        assert!(!out.timed_out, "{command}: {out:?}");
        let marks = trap.marks();
        if !marks.is_empty() {
            ran.push(format!("{command}: {}", marks.trim()));
            let _ = std::fs::remove_file(&trap.marks);
        }
    }
    assert!(
        ran.is_empty(),
        "a submodule's programs ran:\n{}",
        ran.join("\n")
    );
}

/// In a partial clone, git fetches a missing object on demand through the
/// remote's transport, which the configuration may name as a command
/// (`ext::`). A read-only command fetches nothing.
#[test]
fn no_allowed_git_command_fetches_what_a_partial_clone_lacks() {
    let trap = Trap::new();
    let root = trap.dir.path();
    trap.git(&["config", "uploadpack.allowFilter", "true"]);
    let clone = root.join("clone");
    trap.git_in(
        root,
        &[
            "clone",
            "-q",
            "--filter=blob:none",
            "--no-checkout",
            &format!("file://{}", trap.repo().display()),
            "clone",
        ],
    );
    // The transport: a command that leaves a mark and fails at once.
    let transport = root.join("transport.sh");
    std::fs::write(
        &transport,
        format!(
            "#!/bin/sh\necho \"transport $*\" >> '{}'\nexit 1\n",
            trap.marks.display()
        ),
    )
    .expect("write the transport");
    set_executable(&transport);
    let url = format!("ext::{} %S", transport.display());
    trap.git_in(&clone, &["config", "remote.origin.url", &url]);
    trap.git_in(&clone, &["config", "protocol.ext.allow", "always"]);
    let _ = std::fs::remove_file(&trap.marks);
    for command in [
        "git show HEAD:a.txt",
        "git cat-file -p HEAD:a.bin",
        "git log -p -1",
        "git diff HEAD~1 HEAD",
        "git grep --cached two HEAD",
        "git blame HEAD -- a.txt",
    ] {
        let out = run_allowed(command, &clone);
        assert!(!out.timed_out, "{command}: {out:?}");
        assert!(trap.marks().is_empty(), "{command}: {}", trap.marks());
    }
}

/// A driver whose name is not UTF-8 cannot be named back to git through
/// the environment; the runner stops rather than leave it on.
#[cfg(unix)]
#[test]
fn a_driver_name_that_is_not_utf8_stops_the_run() {
    use std::io::Write as _;
    let trap = Trap::new();
    let repo = trap.repo();
    let program = trap.dir.path().join("mark.sh");
    let mut config = std::fs::File::options()
        .append(true)
        .open(repo.join(".git/config"))
        .expect("open the configuration");
    config
        .write_all(b"[filter \"\xff\"]\n\tclean = ")
        .and_then(|()| config.write_all(program.as_os_str().as_encoded_bytes()))
        .and_then(|()| config.write_all(b" odd-clean\n"))
        .expect("write the configuration");
    std::fs::write(repo.join(".gitattributes"), b"*.odd filter=\xff\n").expect("write");
    std::fs::write(repo.join("x.odd"), "x\n").expect("write");
    trap.git(&["add", "x.odd"]);
    assert!(trap.marks().contains("odd-clean"), "{}", trap.marks());
    let _ = std::fs::remove_file(&trap.marks);
    trap.touch("x.odd");
    let Decision::Allowed(plan) = check("git status") else {
        panic!("git status is allowed");
    };
    let err = run(&plan, &repo, &RunLimits::default()).expect_err("stopped");
    assert!(
        matches!(&err, RunError::GitConfig { detail } if detail.contains("not UTF-8")),
        "{err:?}"
    );
    assert_eq!(trap.marks(), "");
}
