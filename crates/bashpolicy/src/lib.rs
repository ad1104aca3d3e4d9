//! Which Bash commands a read-only agent may run (SPEC R12.4), decided on a
//! real shell grammar, and running the allowed ones without a shell.
//!
//! The memory-extraction agent may look around a project with `ls`,
//! `grep`, `find`, `cat`, `git log` and the like, but nothing it runs may
//! write, delete, execute another program or wait for a terminal.
//!
//! - [`check`] parses a command line and returns a [`Decision`]: either
//!   [`Decision::Allowed`] with the [`Plan`] that will run (pipelines of
//!   argument vectors, quotes removed, no shell feature left), or
//!   [`Decision::Denied`] with a one-sentence reason naming the offending
//!   part ("`>` redirects output to a file", "`python3` is an
//!   interpreter"). Anything the policy does not understand is denied.
//! - [`run`] executes a [`Plan`] without a shell: one process per stage,
//!   pipes between them, globs expanded in the working folder, stdin from
//!   `/dev/null`, a cleaned environment (pagers off, a private temporary
//!   folder), memory and file-size caps, a wall-clock timeout that kills
//!   every stage, and an output cap ([`RunLimits`]).
//!
//! ```
//! use memdir_bashpolicy::{check, Decision};
//!
//! let Decision::Allowed(plan) = check("grep -rn 'fn main' src | head -5") else {
//!     panic!("a read-only pipeline is allowed");
//! };
//! assert_eq!(plan.steps[0].pipeline[0].argv, ["grep", "-rn", "fn main", "src"]);
//!
//! let denied = check("cat notes.md > /tmp/copy");
//! assert_eq!(denied.reason(), "`>` redirects output to a file");
//! assert!(check("echo $(rm -rf ~)").reason().contains("`$(…)` runs a command"));
//! // Options as the program reads them: `--temp` is `--temporary-directory`.
//! assert!(check("sort --temp=/tmp notes.txt").reason().contains("--temporary-directory"));
//! // Globs stay patterns in the plan; `run` expands them in the folder.
//! let Decision::Allowed(plan) = check("wc -l *.md") else { panic!("allowed") };
//! assert_eq!(plan.steps[0].pipeline[0].globs[0].pattern, "*.md");
//! ```
//!
//! # The grammar: `brush-parser`
//!
//! Deciding on strings (`shlex`, regular expressions) misses what a shell
//! sees: `$(…)` inside double quotes, here-documents, `r''m`. Three Rust
//! parsers of shell grammar were weighed:
//!
//! - `brush-parser` 0.4 (chosen): the parser of the brush shell, released
//!   often and tested against Bash itself; MIT like this workspace; pure
//!   Rust (a PEG grammar), about half a minute to build on two cores. It
//!   covers Bash beyond POSIX (`[[ ]]`, `<<<`, `&>`, `$'…'`, process
//!   substitution, `coproc`) and reports each as its own AST node:
//!   redirections as `IoRedirect` (`File`, `HereDocument`, `HereString`,
//!   `OutputAndError`) with their file descriptor and kind, assignments
//!   before a command as `AssignmentWord`, and, through
//!   `brush_parser::word::parse`, every piece of a word: single- and
//!   double-quoted text, escapes, `$VAR`/`${…}`, `$(…)`, backticks, `$((…))`
//!   and tilde expansion, nested inside double quotes where they occur.
//! - `yash-syntax` 0.25: a careful POSIX parser, but GPL-3.0 (this
//!   workspace is MIT OR Apache-2.0), POSIX only (no `<<<`, `[[`, `&>`), and
//!   its parser API is async.
//! - `tree-sitter-bash` 0.25: broad Bash coverage, but a C grammar to build,
//!   and error-tolerant by design: a malformed command still yields a tree
//!   with `ERROR` nodes, which a fail-closed policy must find itself.
//!
//! brush's recursive-descent parsing overflows the stack on deeply nested
//! input (a thousand `$(`), which is an abort rather than an error, so
//! [`check`] refuses deep nesting and long commands before parsing, and
//! treats a parser panic as a denial.
//!
//! # What is allowed
//!
//! - Simple commands of the programs in [`ALLOWED_PROGRAMS`], each with
//!   its options read as the program itself reads them: GNU long options
//!   by any unambiguous prefix (`sort --temp=x` is `--temporary-directory`),
//!   values attached or in the next word, clusters of short options with a
//!   value on the last (`sort -nT/tmp`), options after operands, `--`; git,
//!   ripgrep and tree by whole names. Each program has a table of every
//!   option it has; an option is allowed only when the table says it
//!   reads, and an option missing from the table is denied, since the
//!   program may read it as anything. Denied, among others: `sort -o`,
//!   `-T` and `--compress-program`; `tail -f` in every spelling, the
//!   obsolete `tail -5f` too; `uniq` with a second operand; `find -exec`,
//!   `-delete`, `-fprint` and the like; `file -z`, `-C`, `-p`; `rg --pre`,
//!   `-z`; `tree -o`, `-R`; `df --sync`.
//! - `git` with read-only subcommands, each with its own table of whole
//!   option names (git takes prefixes of some, so `git cat-file --te` is
//!   denied as the `--textconv` it abbreviates): no `--output`,
//!   `--ext-diff`, `--textconv`, `--filters`, `status -v`, `grep -O`,
//!   `--recurse-submodules`, `--help`, no options before the subcommand;
//!   `git branch` only lists (no name operand at all). The plan runs git
//!   with no pager, no hooks, no file-system monitor, no index refresh, no
//!   signature programs, no look into submodules, and, for the diffing
//!   subcommands, `--no-ext-diff --no-textconv`; [`run`] adds the rest.
//! - Pipelines of them (`|`), and lists joined by `;`, `&&`, `||` or
//!   newlines when every part is allowed; [`run`] gives `&&` and `||`
//!   their shell meaning.
//! - Exactly two redirections, which [`run`] performs itself: `2>/dev/null`
//!   and `2>&1`.
//! - Quoting of every kind except `$'…'` and `$"…"`: the plan holds the
//!   words after quote removal, so `'a;b'` is one argument `a;b`.
//! - Unquoted glob words (`*`, `?`, `[…]`), kept in the plan as patterns
//!   ([`Glob`]) and expanded by [`run`] as Bash expands them by default,
//!   but inside the working folder only: relative patterns without `..`,
//!   no folder outside looked into (also not through a link), hidden names
//!   only for a segment starting with `.`, a pattern matching nothing
//!   passed on as it is, at most [`MAX_GLOB_MATCHES`] paths, and a match
//!   that starts like an option given as `./name`. A glob where a value or
//!   an option belongs (`ls -I *.o`, `ls -*`), in `find`'s expression, in
//!   any `git` command, or as an operand of `uniq` is denied: quote it.
//!
//! # What is denied
//!
//! Every other redirection, here-documents and here-strings; every
//! expansion other than globs (`$VAR`, `${…}`, `$(…)`, backticks, `$((…))`,
//! `~`, braces `{a,b}`), since nothing else is expanded; background jobs,
//! subshells, groups, functions, loops and conditionals; assignments
//! before a command (`PATH=…`, `LD_PRELOAD=…`); programs named by a path
//! (`/bin/ls`, `./x`), so only `PATH` decides what runs; and every program
//! not on the list: interpreters and shells, `sed`, `awk`, `tee`, `xargs`,
//! `env` and the other programs that run programs, pagers and editors,
//! anything that changes files or uses the network.
//!
//! # What the runner adds
//!
//! A policy on words cannot bound what an allowed program does with what
//! it reads, so [`run`] confines every stage: a memory cap
//! ([`RunLimits::max_memory_bytes`]: `tail -n 1 /dev/zero` ends with an
//! allocation error, not after a gigabyte a second), a private `TMPDIR`
//! removed after the run, also after a timeout (`sort`'s temporary files
//! go with it), a cap on the size of any file written, no core dumps, a
//! session of its own (no terminal to read), and for `git` every filter,
//! text-conversion, external-diff and signature program its configuration
//! names turned off.

mod check;
mod find;
mod git;
mod glob;
mod options;
mod programs;
mod run;
mod tables;

pub use check::{MAX_COMMAND_BYTES, MAX_NESTING, check};
pub use glob::{MAX_GLOB_ENTRIES, MAX_GLOB_MATCHES};
pub use programs::ALLOWED_PROGRAMS;
pub use run::{
    DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_MEMORY_BYTES, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT,
    RunError, RunLimits, RunOutput, run,
};

/// The policy's answer for one command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Every part is read-only; this is what will run.
    Allowed(Plan),
    /// Something is not allowed, or not understood.
    Denied(Denial),
}

impl Decision {
    /// Whether the command may run.
    #[must_use]
    pub fn is_allowed(&self) -> bool {
        matches!(self, Self::Allowed(_))
    }

    /// One sentence for the model: why the command was denied, or which
    /// read-only programs it runs.
    #[must_use]
    pub fn reason(&self) -> String {
        match self {
            Self::Allowed(plan) => plan.summary(),
            Self::Denied(denial) => denial.reason.clone(),
        }
    }

    /// The plan of an allowed command.
    #[must_use]
    pub fn plan(&self) -> Option<&Plan> {
        match self {
            Self::Allowed(plan) => Some(plan),
            Self::Denied(_) => None,
        }
    }
}

/// Why a command was denied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    /// One sentence naming the offending part, as the model will see it.
    pub reason: String,
}

impl Denial {
    pub(crate) fn new(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
        }
    }
}

/// What an allowed command runs: steps in order, each a pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The pipelines, in the order the command line gives them.
    pub steps: Vec<Step>,
}

impl Plan {
    /// A plan of one pipeline of the given argument vectors, each stage's
    /// errors going to the output.
    #[must_use]
    pub fn pipeline(argvs: Vec<Vec<String>>) -> Self {
        Self {
            steps: vec![Step {
                when: When::Always,
                pipeline: argvs.into_iter().map(Stage::new).collect(),
            }],
        }
    }

    /// "read-only: `ls`, `grep`": the programs the plan runs.
    fn summary(&self) -> String {
        let mut names: Vec<&str> = Vec::new();
        for stage in self.steps.iter().flat_map(|s| &s.pipeline) {
            if let Some(name) = stage.argv.first()
                && !names.contains(&name.as_str())
            {
                names.push(name);
            }
        }
        let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        format!("read-only: {}", list.join(", "))
    }
}

/// One pipeline of a plan and when it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Whether it runs, given the exit status of the last pipeline that ran.
    pub when: When,
    /// The stages, stdout of each piped into stdin of the next.
    pub pipeline: Vec<Stage>,
}

/// When a step runs: the shell's `;`, `&&` and `||`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Always (`;`, a newline, or the first step).
    Always,
    /// Only when the last pipeline that ran succeeded (`&&`).
    IfSucceeded,
    /// Only when the last pipeline that ran failed (`||`).
    IfFailed,
}

/// One program of a pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    /// The program (looked up in `PATH`) and its arguments, quotes removed.
    pub argv: Vec<String>,
    /// Where the program's stderr goes.
    pub stderr: Stderr,
    /// The arguments that are glob patterns, which [`run`] replaces by the
    /// paths they match in the working folder.
    pub globs: Vec<Glob>,
}

impl Stage {
    /// A stage without globs whose errors go to the output.
    #[must_use]
    pub fn new(argv: Vec<String>) -> Self {
        Self {
            argv,
            stderr: Stderr::Output,
            globs: Vec::new(),
        }
    }
}

/// An argument of a [`Stage`] that is a glob pattern (`*.md`).
///
/// [`run`] expands it as Bash would with its default options, inside the
/// working folder only: the paths it matches, sorted, or the argument
/// itself when it matches nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    /// Which argument of [`Stage::argv`] (0 is the program).
    pub arg: usize,
    /// The pattern: `*`, `?` and `[…]` are special, and `\` makes the
    /// next character mean itself (what was quoted on the command line).
    pub pattern: String,
}

/// Where a stage's stderr goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stderr {
    /// Into the run's output, as a terminal would show it.
    Output,
    /// Discarded (`2>/dev/null`).
    Null,
    /// Wherever the stage's stdout goes (`2>&1`): the next stage, or the
    /// output for the last one.
    Stdout,
}
