//! The programs a read-only command may run, and the arguments each may
//! not take: those that write files, run other programs, or wait forever.

use crate::check::short;
use crate::{Denial, Stage};

/// Every program a plan may run. Anything else is denied.
pub const ALLOWED_PROGRAMS: &[&str] = &[
    "basename", "cat", "cut", "df", "dirname", "du", "echo", "egrep", "fgrep", "file", "find",
    "git", "grep", "head", "ls", "nl", "printf", "pwd", "readlink", "realpath", "rg", "sort",
    "stat", "tail", "tr", "tree", "uniq", "wc",
];

/// Denied programs with a more useful reason than "not allowed".
const INTERPRETERS: &[&str] = &[
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "perl",
    "python",
    "python2",
    "python3",
    "ruby",
    "node",
    "nodejs",
    "deno",
    "bun",
    "php",
    "lua",
    "tclsh",
    "Rscript",
    "julia",
    "osascript",
    "jq",
];
const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "fish", "csh", "tcsh", "busybox", "pwsh",
];
const RUNNERS: &[&str] = &[
    "xargs",
    "env",
    "sudo",
    "doas",
    "su",
    "nohup",
    "time",
    "timeout",
    "nice",
    "ionice",
    "exec",
    "eval",
    "source",
    ".",
    "command",
    "builtin",
    "watch",
    "strace",
    "ltrace",
    "chroot",
    "setsid",
    "stdbuf",
    "parallel",
    "script",
    "make",
    "cargo",
    "npm",
    "npx",
    "yarn",
    "pnpm",
    "pip",
    "go",
    "trap",
    "alias",
    "unalias",
    "export",
    "set",
    "unset",
    "declare",
    "typeset",
    "local",
    "readonly",
    "shopt",
    "ulimit",
    "umask",
    "cd",
    "pushd",
    "popd",
    "kill",
    "pkill",
    "killall",
    "systemctl",
];
const VIEWERS: &[&str] = &[
    "less", "more", "most", "man", "info", "vi", "vim", "nvim", "view", "nano", "emacs", "ed",
    "ex", "pico", "code", "open", "xdg-open", "top", "htop",
];
const WRITERS: &[&str] = &[
    "rm", "rmdir", "mv", "cp", "mkdir", "touch", "chmod", "chown", "chgrp", "ln", "dd", "truncate",
    "tee", "install", "shred", "unlink", "patch", "tar", "zip", "unzip", "gzip", "gunzip", "split",
    "csplit", "mkfifo", "mknod", "rsync", "sed", "sponge", "mktemp",
];
const NETWORK: &[&str] = &[
    "curl", "wget", "ssh", "scp", "sftp", "nc", "ncat", "netcat", "telnet", "ftp", "socat",
];

/// Denies a stage whose program is not allowed, or whose arguments make an
/// allowed program write, run something, or wait forever. A `git` stage is
/// checked here and rewritten by [`git_argv`].
pub(crate) fn check_stage(stage: &Stage) -> Result<(), Denial> {
    let Some(program) = stage.argv.first() else {
        return Err(Denial::new("there is no command to run"));
    };
    let args = &stage.argv[1..];
    if program.is_empty() {
        return Err(Denial::new("the program name is empty"));
    }
    if program.contains('/') {
        return Err(Denial::new(format!(
            "`{}` names a program by its path; name an allowed program alone (`ls`)",
            short(program)
        )));
    }
    if !ALLOWED_PROGRAMS.contains(&program.as_str()) {
        return Err(unknown_program(program));
    }
    match program.as_str() {
        "find" => find(args),
        "sort" => sort(args),
        "uniq" => uniq(args),
        "tail" => tail(args),
        "tree" => tree(args),
        "file" => file(args),
        "rg" => rg(args),
        "git" => git(args),
        _ => Ok(()),
    }
}

fn unknown_program(program: &str) -> Denial {
    let p = program;
    let is = |list: &[&str]| list.contains(&p);
    Denial::new(if p == "sed" {
        "`sed` can edit files in place (`-i`, `w`) and run commands (`e`)".to_owned()
    } else if p == "tee" {
        "`tee` writes its input to files".to_owned()
    } else if p.starts_with("awk") || p.ends_with("awk") {
        format!("`{p}` is an interpreter: it can run commands with `system()`")
    } else if is(INTERPRETERS) {
        format!("`{p}` is an interpreter")
    } else if is(SHELLS) {
        format!("`{p}` is a shell")
    } else if is(RUNNERS) {
        format!("`{p}` runs other commands or changes the shell")
    } else if is(VIEWERS) {
        format!("`{p}` opens a pager or an editor")
    } else if is(WRITERS) {
        format!("`{p}` changes files")
    } else if is(NETWORK) {
        format!("`{p}` uses the network")
    } else {
        format!(
            "`{}` is not one of the read-only programs allowed ({})",
            short(p),
            ALLOWED_PROGRAMS.join(", ")
        )
    })
}

/// Whether `arg` is a long option that names, or abbreviates as GNU
/// `getopt_long` allows, one of `names` (`--out=x` abbreviates `output`).
fn long_option(arg: &str, names: &[&str]) -> bool {
    let Some(rest) = arg.strip_prefix("--") else {
        return false;
    };
    let name = rest.split('=').next().unwrap_or(rest);
    !name.is_empty() && names.iter().any(|n| n.starts_with(name))
}

/// Whether `arg` is a cluster of short options (`-rf`) holding one of
/// `letters`. Conservative: the value of an option in the cluster counts.
fn short_option(arg: &str, letters: &[char]) -> bool {
    arg.len() > 1
        && arg.starts_with('-')
        && !arg.starts_with("--")
        && arg[1..].chars().any(|c| letters.contains(&c))
}

fn deny(program: &str, arg: &str, what: &str) -> Result<(), Denial> {
    Err(Denial::new(format!("`{program} {}` {what}", short(arg))))
}

fn find(args: &[String]) -> Result<(), Denial> {
    for arg in args {
        let what = match arg.as_str() {
            "-delete" => "deletes files",
            "-exec" | "-execdir" | "-ok" | "-okdir" => "runs a command",
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => "writes to a file",
            _ => continue,
        };
        return deny("find", arg, what);
    }
    Ok(())
}

fn sort(args: &[String]) -> Result<(), Denial> {
    for arg in args {
        if short_option(arg, &['o']) || long_option(arg, &["output"]) {
            return deny("sort", arg, "writes its output to a file");
        }
        if long_option(arg, &["compress-program"]) {
            return deny("sort", arg, "runs a program");
        }
    }
    Ok(())
}

/// `uniq INPUT OUTPUT` writes OUTPUT: at most one operand is allowed.
fn uniq(args: &[String]) -> Result<(), Denial> {
    let mut operands = 0;
    let mut takes_value = false;
    let mut options_end = false;
    for arg in args {
        if takes_value {
            takes_value = false;
            continue;
        }
        if !options_end && arg == "--" {
            options_end = true;
        } else if !options_end && arg.starts_with("--") {
            takes_value = !arg.contains('=')
                && long_option(arg, &["skip-fields", "skip-chars", "check-chars"]);
        } else if !options_end && arg.len() > 1 && arg.starts_with('-') {
            // `-f N`, `-s N`, `-w N`; `-f1` carries its value.
            takes_value = arg.ends_with(['f', 's', 'w']);
        } else {
            operands += 1;
            if operands > 1 {
                return Err(Denial::new(format!(
                    "`uniq` writes to its second file operand (`{}`)",
                    short(arg)
                )));
            }
        }
    }
    Ok(())
}

fn tail(args: &[String]) -> Result<(), Denial> {
    for arg in args {
        if short_option(arg, &['f', 'F']) || long_option(arg, &["follow", "retry", "pid"]) {
            return deny("tail", arg, "waits for more output forever");
        }
    }
    Ok(())
}

fn tree(args: &[String]) -> Result<(), Denial> {
    for arg in args {
        if short_option(arg, &['o', 'R']) || long_option(arg, &["output"]) {
            return deny("tree", arg, "writes its output to a file");
        }
    }
    Ok(())
}

fn file(args: &[String]) -> Result<(), Denial> {
    for arg in args {
        if short_option(arg, &['C']) || long_option(arg, &["compile"]) {
            return deny("file", arg, "writes a compiled magic file");
        }
        if short_option(arg, &['z', 'Z']) || long_option(arg, &["uncompress"]) {
            return deny("file", arg, "may run decompression programs");
        }
    }
    Ok(())
}

fn rg(args: &[String]) -> Result<(), Denial> {
    for arg in args {
        if long_option(arg, &["pre", "pre-glob", "hostname-bin"]) {
            return deny("rg", arg, "runs another program");
        }
        if short_option(arg, &['z']) || long_option(arg, &["search-zip"]) {
            return deny("rg", arg, "runs decompression programs");
        }
    }
    Ok(())
}

/// Subcommands of git that only read.
const GIT_READ_ONLY: &[&str] = &[
    "blame",
    "branch",
    "cat-file",
    "count-objects",
    "describe",
    "diff",
    "diff-tree",
    "for-each-ref",
    "grep",
    "log",
    "ls-files",
    "ls-tree",
    "merge-base",
    "name-rev",
    "reflog",
    "remote",
    "rev-list",
    "rev-parse",
    "shortlog",
    "show",
    "show-ref",
    "status",
    "version",
];

/// Long options that make a git subcommand write a file, run a program or
/// open a pager.
const GIT_DANGEROUS_LONG: &[&str] = &[
    "output",
    "ext-diff",
    "textconv",
    "filters",
    "exec-path",
    "exec",
    "config-env",
    "open-files-in-pager",
    "paginate",
    "upload-pack",
    "receive-pack",
    "show-signature",
    "git-dir",
    "work-tree",
];

fn git(args: &[String]) -> Result<(), Denial> {
    let Some(sub) = args.first() else {
        return Err(Denial::new(
            "`git` needs a read-only subcommand (status, log, show, diff, …)",
        ));
    };
    if sub == "-c" || sub.starts_with("-c") && !sub.starts_with("--") {
        return Err(Denial::new(
            "`git -c` sets configuration, which can run programs and pagers",
        ));
    }
    if sub.starts_with('-') {
        return Err(Denial::new(format!(
            "`git {}`: options before the subcommand (`-c`, `-C`, `--exec-path`, …) are not \
             allowed",
            short(sub)
        )));
    }
    if !GIT_READ_ONLY.contains(&sub.as_str()) {
        let what = match sub.as_str() {
            "difftool" | "mergetool" => "runs an external tool",
            "help" => "opens a pager or a browser",
            "config" => "reads and writes configuration, which can run programs",
            "fetch" | "pull" | "push" | "clone" | "ls-remote" | "remote-https" => {
                "uses the network"
            }
            _ => "is not one of the read-only git subcommands",
        };
        return Err(Denial::new(format!(
            "`git {}` {what} (allowed: {})",
            short(sub),
            GIT_READ_ONLY.join(", ")
        )));
    }
    let rest = &args[1..];
    let program = format!("git {sub}");
    for arg in rest {
        // git takes an exact option name before an abbreviation: `--text`
        // is `diff -a`, not `--textconv`.
        let exact = arg
            .strip_prefix("--")
            .map(|r| r.split('=').next().unwrap_or(r));
        let benign = exact.is_some_and(|name| matches!(name, "text" | "filter"));
        if !benign && long_option(arg, GIT_DANGEROUS_LONG) {
            return deny(
                &program,
                arg,
                "can write files, run programs or open a pager",
            );
        }
        if arg.contains("%G") {
            return deny(&program, arg, "verifies signatures, which runs a program");
        }
        if sub != "ls-files" && arg == "-o" {
            return deny(&program, arg, "writes its output to a file");
        }
        if sub == "grep" && short_option(arg, &['O']) {
            return deny(&program, arg, "opens the matching files in a pager");
        }
    }
    match sub.as_str() {
        "branch" => git_branch(rest),
        "reflog" => match rest.first().map(String::as_str) {
            None | Some("show") => Ok(()),
            Some(a) if a.starts_with('-') => Ok(()),
            Some(a) => deny("git reflog", a, "changes the reflog"),
        },
        "remote" => match rest
            .iter()
            .find(|a| !matches!(a.as_str(), "-v" | "--verbose"))
        {
            None => Ok(()),
            Some(a) => deny("git remote", a, "changes remotes or uses the network"),
        },
        _ => Ok(()),
    }
}

fn git_branch(args: &[String]) -> Result<(), Denial> {
    const LISTING: &[&str] = &[
        "-a",
        "--all",
        "-r",
        "--remotes",
        "--no-color",
        "--color=never",
        "--show-current",
        "-i",
        "--ignore-case",
        "--omit-empty",
    ];
    // These make `git branch` list, so names after them are patterns or
    // commits, not branches to create.
    const LIST_MODE: &[&str] = &[
        "-l",
        "--list",
        "-v",
        "-vv",
        "--verbose",
        "--contains",
        "--no-contains",
        "--merged",
        "--no-merged",
        "--points-at",
    ];
    let mut list_mode = false;
    for arg in args {
        let name = arg.split('=').next().unwrap_or(arg);
        if LIST_MODE.contains(&name) {
            list_mode = true;
        } else if arg.starts_with('-')
            && !LISTING.contains(&arg.as_str())
            && !arg.starts_with("--sort=")
            && !arg.starts_with("--format=")
        {
            return deny("git branch", arg, "creates, renames or deletes branches");
        }
    }
    if !list_mode && let Some(name) = args.iter().find(|a| !a.starts_with('-')) {
        return deny("git branch", name, "creates a branch");
    }
    Ok(())
}

/// The argument vector that runs an allowed `git` stage: no pager, no
/// file-system monitor, no signature checks, and for the subcommands that
/// show diffs no external diff or text-conversion program, whatever the
/// configuration says.
pub(crate) fn git_argv(argv: &[String]) -> Vec<String> {
    let mut out: Vec<String> = [
        "git",
        "--no-pager",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "log.showSignature=false",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let Some(sub) = argv.get(1) else {
        return out;
    };
    out.push(sub.clone());
    match sub.as_str() {
        "diff" | "diff-tree" | "log" | "show" => {
            out.push("--no-ext-diff".to_owned());
            out.push("--no-textconv".to_owned());
        }
        "blame" | "grep" => out.push("--no-textconv".to_owned()),
        _ => {}
    }
    out.extend(argv[2..].iter().cloned());
    out
}
