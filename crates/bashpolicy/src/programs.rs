//! The programs a read-only command may run, and the arguments each may
//! not take: those that write files, run other programs, or wait forever.

use crate::check::short;
use crate::options::{self, Syntax, Word};
use crate::{Denial, Stage, find, git, tables};

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
/// allowed program write, run something, or wait forever. Options are
/// read as the program reads them ([`crate::options`]); an option the
/// policy does not know is denied.
pub(crate) fn check_stage(stage: &Stage) -> Result<(), Denial> {
    let Some(program) = stage.argv.first() else {
        return Err(Denial::new("there is no command to run"));
    };
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
    let words: Vec<Word<'_>> = stage.argv[1..]
        .iter()
        .enumerate()
        .map(|(i, text)| Word {
            text,
            glob: stage.globs.iter().any(|g| g.arg == i + 1),
        })
        .collect();
    let args = words.as_slice();
    let gnu = |table| options::parse(program, table, Syntax::GNU, args).map(drop);
    match program.as_str() {
        // GNU echo and printf read no options but `--help` and `--version`
        // alone, and nothing they print is run.
        "echo" | "printf" => Ok(()),
        "find" => find::check(args),
        "git" => git::check(args),
        "tree" => tree(args),
        "rg" => options::parse(program, tables::RG, Syntax::WHOLE, args).map(drop),
        "head" => head(args),
        "tail" => tail(args),
        "uniq" => uniq(args),
        "tr" => options::parse(program, tables::TR, Syntax::GNU_IN_ORDER, args).map(drop),
        "basename" => {
            options::parse(program, tables::BASENAME, Syntax::GNU_IN_ORDER, args).map(drop)
        }
        "ls" => gnu(tables::LS),
        "cat" => gnu(tables::CAT),
        "wc" => gnu(tables::WC),
        "stat" => gnu(tables::STAT),
        "du" => gnu(tables::DU),
        "df" => gnu(tables::DF),
        "pwd" => gnu(tables::PWD),
        "sort" => gnu(tables::SORT),
        "cut" => gnu(tables::CUT),
        "nl" => gnu(tables::NL),
        "dirname" => gnu(tables::DIRNAME),
        "realpath" => gnu(tables::REALPATH),
        "readlink" => gnu(tables::READLINK),
        "grep" | "egrep" | "fgrep" => gnu(tables::GREP),
        "file" => gnu(tables::FILE),
        other => Err(unknown_program(other)),
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

/// `head`: an obsolete first option (`-5`, `-5c`) counts lines or bytes
/// and is read before the others.
fn head(args: &[Word<'_>]) -> Result<(), Denial> {
    let obsolete = args.first().is_some_and(|first| {
        first.text.strip_prefix('-').is_some_and(|rest| {
            let letters = rest.trim_start_matches(|c: char| c.is_ascii_digit());
            letters.len() < rest.len() && letters.chars().all(|c| "cbklmqvz".contains(c))
        })
    });
    let rest = if obsolete { &args[1..] } else { args };
    options::parse("head", tables::HEAD, Syntax::GNU, rest).map(drop)
}

/// `tail`: GNU tail reads an obsolete first option (`-5`, `-5c`, `-5f`)
/// when at most one file follows it; with an `f` it follows the file
/// forever, and is denied whatever follows it.
fn tail(args: &[Word<'_>]) -> Result<(), Denial> {
    if let Some(first) = args.first()
        && let Some(follows) = tail_obsolete(first.text)
    {
        if follows {
            return Err(Denial::new(format!(
                "`tail {}` follows the file and waits for more output forever",
                short(first.text)
            )));
        }
        // GNU tail's test, without the program name: one word; or one
        // more that is not an option; or `--` and at most one file.
        let one_file = match &args[1..] {
            [] => true,
            [dashes, ..] if dashes.text == "--" && args.len() <= 3 => true,
            [file] => !(file.text.starts_with('-') && file.text.len() > 1),
            _ => false,
        };
        if one_file {
            return options::parse("tail", tables::TAIL, Syntax::GNU, &args[1..]).map(drop);
        }
    }
    options::parse("tail", tables::TAIL, Syntax::GNU, args).map(drop)
}

/// Whether `arg` has the form of tail's obsolete option, `-[NUM][bcl][f]`
/// (not `-` or `-c`), and whether it follows (`f`).
fn tail_obsolete(arg: &str) -> Option<bool> {
    let rest = arg.strip_prefix('-')?;
    if rest.is_empty() || rest == "c" {
        return None;
    }
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.strip_prefix(['b', 'c', 'l']).unwrap_or(rest);
    match rest {
        "" => Some(false),
        "f" => Some(true),
        _ => None,
    }
}

/// `uniq INPUT OUTPUT` writes OUTPUT: at most one operand, and no glob
/// that could grow into two.
fn uniq(args: &[Word<'_>]) -> Result<(), Denial> {
    let parsed = options::parse("uniq", tables::UNIQ, Syntax::GNU, args)?;
    if let Some(glob) = parsed.operands.iter().find(|w| w.glob) {
        return Err(Denial::new(format!(
            "`uniq` writes to its second file operand, which the glob `{}` could become",
            short(glob.text)
        )));
    }
    if let Some(second) = parsed.operands.get(1) {
        return Err(Denial::new(format!(
            "`uniq` writes to its second file operand (`{}`)",
            short(second.text)
        )));
    }
    Ok(())
}

/// tree 2: clusters of letters, each letter of [`tables::TREE_VALUE_LETTERS`]
/// taking the next word; long options by their whole name only.
fn tree(args: &[Word<'_>]) -> Result<(), Denial> {
    let mut i = 0;
    let mut options_ended = false;
    while let Some(word) = args.get(i) {
        i += 1;
        let t = word.text;
        if options_ended || !t.starts_with('-') || t == "-" {
            if word.glob && t.starts_with('-') {
                return Err(Denial::new(format!(
                    "the glob `{}` would be read by `tree` as an option; quote it",
                    short(t)
                )));
            }
            continue;
        }
        if t == "--" {
            options_ended = true;
            continue;
        }
        let mut takes_next = 0;
        if let Some(long) = t.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, _)) => (name, true),
                None => (long, false),
            };
            if name == "output" {
                return Err(Denial::new("`tree -o` writes its output to a file"));
            }
            if tables::TREE_LONG_VALUES.contains(&name) {
                takes_next = usize::from(!attached);
            } else if attached || !tables::TREE_LONG_FLAGS.contains(&name) {
                return Err(Denial::new(format!(
                    "`tree {}` is not an option of `tree` that the policy knows to be read-only",
                    short(t)
                )));
            }
        } else {
            for c in t[1..].chars() {
                match c {
                    'o' => return Err(Denial::new("`tree -o` writes its output to a file")),
                    'R' => {
                        return Err(Denial::new(
                            "`tree -R` writes an HTML listing into every folder",
                        ));
                    }
                    c if tables::TREE_VALUE_LETTERS.contains(c) => takes_next += 1,
                    c if tables::TREE_FLAG_LETTERS.contains(c) => {}
                    c => {
                        return Err(Denial::new(format!(
                            "`tree -{c}` is not an option of `tree` that the policy knows to \
                             be read-only"
                        )));
                    }
                }
            }
        }
        for _ in 0..takes_next {
            match args.get(i) {
                Some(value) if value.glob => {
                    return Err(Denial::new(format!(
                        "the glob `{}` cannot be the value of `tree {}`; quote it",
                        short(value.text),
                        short(t)
                    )));
                }
                Some(_) => i += 1,
                None => return Err(Denial::new(format!("`tree {}` needs a value", short(t)))),
            }
        }
    }
    Ok(())
}
