//! `git`: which subcommands may run, the options of each as git reads
//! them, and what [`crate::run`] adds so that no configured program runs.
//!
//! git takes any unambiguous prefix of a long option of its parse-options
//! tables (`git cat-file --te` is `--textconv`, `git branch --verb` is
//! `--verbose`), but not of its diff and revision options, so the policy
//! accepts whole option names only and denies a prefix, naming the option
//! git reads it as. Each subcommand has its own table: the same letter
//! means different things (`git grep -O` opens a pager, `git log -O` reads
//! an order file).

use crate::Denial;
use crate::check::short;
use crate::options::{self, Opt, Parsed, Syntax, Word};

const fn flag(short: &'static str, long: &'static [&'static str]) -> Opt {
    Opt::flag(short, long)
}
const fn value(short: &'static str, long: &'static [&'static str]) -> Opt {
    Opt::value(short, long)
}
const fn attached(short: &'static str, long: &'static [&'static str]) -> Opt {
    Opt::attached(short, long)
}
const fn joined(short: &'static str, long: &'static [&'static str]) -> Opt {
    Opt::joined(short, long)
}

const RUNS_TEXTCONV: &str = "runs the text-conversion programs the configuration names";
const RUNS_EXTERNAL_DIFF: &str = "runs the external diff program the configuration names";
const WRITES_OUTPUT: &str = "writes its output to a file";
const SUBMODULES: &str = "looks into submodules, whose configuration can run programs";

/// Options that choose commits (`revision.c`): log, show, shortlog,
/// rev-list and the like.
const WALK: &[Opt] = &[
    flag("", &["all"]),
    attached("", &["branches"]),
    attached("", &["tags"]),
    attached("", &["remotes"]),
    flag("", &["reflog"]),
    flag("", &["alternate-refs"])
        .deny("runs the command the configuration names to list alternate refs"),
    flag("", &["not"]),
    attached("", &["no-walk"]),
    flag("", &["do-walk"]),
    flag("", &["first-parent"]),
    flag("", &["exclude-first-parent-only"]),
    flag("", &["merges"]),
    flag("", &["no-merges"]),
    joined("", &["min-parents"]),
    joined("", &["max-parents"]),
    flag("", &["no-min-parents"]),
    flag("", &["no-max-parents"]),
    flag("", &["boundary"]),
    flag("", &["left-right"]),
    flag("", &["left-only"]),
    flag("", &["right-only"]),
    flag("", &["cherry"]),
    flag("", &["cherry-mark"]),
    flag("", &["cherry-pick"]),
    attached("", &["ancestry-path"]),
    flag("", &["simplify-by-decoration"]),
    flag("", &["simplify-merges"]),
    flag("", &["full-history"]),
    flag("", &["dense"]),
    flag("", &["sparse"]),
    flag("", &["show-pulls"]),
    flag("", &["remove-empty"]),
    flag("", &["topo-order"]),
    flag("", &["date-order"]),
    flag("", &["author-date-order"]),
    flag("", &["reverse"]),
    flag("g", &["walk-reflogs"]),
    flag("", &["children"]),
    flag("", &["parents"]),
    flag("", &["graph"]),
    flag("", &["oneline"]),
    flag("", &["abbrev-commit"]),
    flag("", &["no-abbrev-commit"]),
    flag("", &["relative-date"]),
    flag("", &["full-diff"]),
    flag("i", &["regexp-ignore-case"]),
    flag("E", &["extended-regexp"]),
    flag("F", &["fixed-strings"]),
    flag("P", &["perl-regexp"]),
    flag("", &["basic-regexp"]),
    flag("", &["all-match"]),
    flag("", &["invert-grep"]),
    flag("", &["log-size"]),
    flag("", &["bisect"]),
    flag("", &["merge"]),
    value("n", &["max-count"]),
    flag("0123456789", &[]),
    value("", &["skip"]),
    value("", &["since", "after", "max-age"]),
    value("", &["until", "before", "min-age"]),
    value("", &["since-as-filter"]),
    value("", &["author"]),
    value("", &["committer"]),
    value("", &["grep"]),
    value("", &["grep-reflog"]),
    value("", &["date"]),
    attached("", &["notes", "show-notes"]),
    flag("", &["no-notes"]),
    attached("", &["expand-tabs"]),
    flag("", &["no-expand-tabs"]),
    attached("", &["show-linear-break"]),
    flag("", &["show-signature"]).deny("verifies signatures, which runs the configured program"),
    flag("", &["no-show-signature"]),
];

/// Ref patterns, which `git shortlog` does not take.
const REF_PATTERNS: &[Opt] = &[
    value("", &["glob"]),
    value("", &["exclude"]),
    value("", &["exclude-hidden"]),
    flag("", &["single-worktree"]),
];

/// How commits are printed (`revision.c`, `pretty.c`).
const PRETTY: &[Opt] = &[
    attached("", &["pretty"]),
    joined("", &["format"]),
    value("", &["encoding"]),
    attached("", &["abbrev"]),
    flag("", &["no-abbrev"]),
];

/// How merges and trees are diffed (`revision.c`).
const MERGES: &[Opt] = &[
    value("", &["diff-merges"]),
    flag("", &["no-diff-merges"]),
    flag("", &["remerge-diff"]),
    flag("", &["combined-all-paths"]),
    flag("", &["cc"]),
    flag("cmrt", &[]),
    flag("", &["root"]),
    flag("", &["always"]),
];

/// Options of `git log`, `git show` and `git reflog` themselves
/// (`builtin/log.c`).
const LOG: &[Opt] = &[
    flag("", &["source"]),
    flag("", &["use-mailmap", "mailmap"]),
    flag("", &["no-use-mailmap", "no-mailmap"]),
    attached("", &["decorate"]),
    flag("", &["no-decorate"]),
    flag("", &["clear-decorations"]),
    value("", &["decorate-refs"]),
    value("", &["decorate-refs-exclude"]),
    value("L", &[]),
    flag("", &["follow"]),
    flag("", &["no-follow"]),
];

/// How a diff is shown (`diff.c`): diff, diff-tree, log, show.
const DIFF: &[Opt] = &[
    flag("pu", &["patch"]),
    flag("s", &["no-patch"]),
    attached("U", &["unified"]),
    flag("W", &["function-context"]),
    flag("", &["no-function-context"]),
    flag("", &["raw"]),
    flag("", &["patch-with-raw"]),
    flag("", &["patch-with-stat"]),
    flag("", &["numstat"]),
    flag("", &["shortstat"]),
    attached("", &["stat"]),
    attached("X", &["dirstat"]),
    flag("", &["cumulative"]),
    attached("", &["dirstat-by-file"]),
    flag("", &["compact-summary"]),
    flag("", &["summary"]),
    flag("", &["name-only"]),
    flag("", &["name-status"]),
    flag("", &["check"]),
    flag("", &["full-index"]),
    flag("", &["binary"]),
    flag("", &["no-renames"]),
    flag("", &["rename-empty"]),
    flag("", &["no-rename-empty"]),
    flag("R", &[]),
    attached("", &["relative"]),
    flag("", &["no-relative"]),
    flag("a", &["text"]),
    flag("", &["ignore-cr-at-eol"]),
    flag("", &["ignore-space-at-eol"]),
    flag("b", &["ignore-space-change"]),
    flag("w", &["ignore-all-space"]),
    flag("", &["ignore-blank-lines"]),
    value("I", &["ignore-matching-lines"]),
    flag("", &["minimal"]),
    flag("", &["patience"]),
    flag("", &["histogram"]),
    value("", &["diff-algorithm"]),
    value("", &["anchored"]),
    flag("", &["indent-heuristic"]),
    flag("", &["no-indent-heuristic"]),
    attached("", &["color"]),
    flag("", &["no-color"]),
    attached("", &["color-moved"]),
    flag("", &["no-color-moved"]),
    value("", &["color-moved-ws"]),
    flag("", &["no-color-moved-ws"]),
    attached("", &["color-words"]),
    attached("", &["word-diff"]),
    value("", &["word-diff-regex"]),
    flag("", &["no-prefix"]),
    flag("", &["default-prefix"]),
    value("", &["src-prefix"]),
    value("", &["dst-prefix"]),
    value("", &["line-prefix"]),
    flag("", &["ita-invisible-in-index"]),
    flag("", &["ita-visible-in-index"]),
    flag("", &["exit-code"]),
    flag("", &["quiet"]),
    flag("", &["ext-diff"]).deny(RUNS_EXTERNAL_DIFF),
    flag("", &["no-ext-diff"]),
    flag("", &["textconv"]).deny(RUNS_TEXTCONV),
    flag("", &["no-textconv"]),
    attached("", &["ignore-submodules"])
        .deny("changes how submodules are looked into, which can run their programs"),
    attached("", &["submodule"]).deny(SUBMODULES),
    flag("z", &[]),
    flag("", &["pickaxe-all"]),
    flag("", &["pickaxe-regex"]),
    flag("D", &["irreversible-delete"]),
    flag("", &["find-copies-harder"]),
    attached("B", &["break-rewrites"]),
    attached("M", &["find-renames"]),
    attached("C", &["find-copies"]),
    value("l", &[]),
    value("", &["diff-filter"]),
    value("S", &[]),
    value("G", &[]),
    value("", &["find-object"]),
    value("O", &[]),
    value("", &["rotate-to"]),
    value("", &["skip-to"]),
    value("", &["output"]).deny(WRITES_OUTPUT),
    value("", &["output-indicator-new"]),
    value("", &["output-indicator-old"]),
    value("", &["output-indicator-context"]),
    value("", &["inter-hunk-context"]),
    value("", &["stat-width"]),
    value("", &["stat-name-width"]),
    value("", &["stat-graph-width"]),
    value("", &["stat-count"]),
];

/// `git diff` itself (`builtin/diff.c`).
const DIFF_COMMAND: &[Opt] = &[
    flag("", &["cached", "staged"]),
    flag("", &["merge-base"]),
    flag("", &["no-index"]),
    flag("", &["base"]),
    flag("", &["ours"]),
    flag("", &["theirs"]),
];

const BLAME: &[Opt] = &[
    flag("", &["incremental"]),
    flag("b", &[]),
    flag("", &["root"]),
    flag("", &["show-stats"]),
    flag("", &["progress"]),
    flag("", &["no-progress"]),
    flag("", &["score-debug"]),
    flag("f", &["show-name"]),
    flag("n", &["show-number"]),
    flag("p", &["porcelain"]),
    flag("", &["line-porcelain"]),
    flag("c", &[]),
    flag("t", &[]),
    flag("l", &[]),
    flag("s", &[]),
    flag("e", &["show-email"]),
    flag("w", &[]),
    flag("", &["minimal"]),
    flag("", &["color-lines"]),
    flag("", &["color-by-age"]),
    flag("", &["textconv"]).deny(RUNS_TEXTCONV),
    flag("", &["no-textconv"]),
    flag("", &["first-parent"]),
    flag("", &["reverse"]),
    attached("M", &[]),
    attached("C", &[]),
    value("L", &[]),
    value("S", &[]),
    value("", &["contents"]),
    attached("", &["abbrev"]),
    value("", &["ignore-rev"]),
    value("", &["ignore-revs-file"]),
];

const REF_FILTER: &[Opt] = &[
    value("", &["sort"]),
    value("", &["format"]),
    attached("", &["color"]),
    flag("", &["no-color"]),
    value("", &["points-at"]),
    value("", &["contains"]),
    value("", &["no-contains"]),
    value("", &["merged"]),
    value("", &["no-merged"]),
    flag("", &["ignore-case"]),
    flag("", &["omit-empty"]),
];

/// `git branch` may only list: a name operand would be a branch to create.
const BRANCH: &[Opt] = &[
    flag("i", &["ignore-case"]),
    flag("a", &["all"]),
    flag("r", &["remotes"]),
    flag("l", &["list"]),
    flag("v", &["verbose"]),
    flag("", &["show-current"]),
    attached("", &["abbrev"]),
    flag("", &["no-abbrev"]),
    attached("", &["column"]),
    flag("", &["no-column"]),
    flag("dD", &["delete"]).deny("deletes branches"),
    flag("mM", &["move"]).deny("renames branches"),
    flag("cC", &["copy"]).deny("copies branches"),
    flag("f", &["force"]).deny("overwrites branches"),
    attached("t", &["track"]).deny("creates a branch"),
    flag("", &["no-track"]).deny("creates a branch"),
    value("u", &["set-upstream-to"]).deny("changes a branch's upstream"),
    flag("", &["unset-upstream"]).deny("changes a branch's upstream"),
    flag("", &["edit-description"]).deny("opens an editor"),
    flag("", &["create-reflog"]).deny("creates a branch"),
    flag("", &["recurse-submodules"]).deny(SUBMODULES),
];

const CAT_FILE: &[Opt] = &[
    flag("t", &[]),
    flag("s", &[]),
    flag("e", &[]),
    flag("p", &[]),
    attached("", &["batch"]),
    attached("", &["batch-check"]),
    flag("", &["batch-all-objects"]),
    flag("", &["unordered"]),
    flag("", &["buffer"]),
    flag("", &["follow-symlinks"]),
    flag("", &["allow-unknown-type"]),
    flag("", &["use-mailmap", "mailmap"]),
    flag("", &["no-use-mailmap", "no-mailmap"]),
    flag("Z", &[]),
    flag("z", &[]),
    flag("", &["textconv"]).deny(RUNS_TEXTCONV),
    flag("", &["filters"]).deny("runs the smudge filters the configuration names"),
    attached("", &["batch-command"]).deny("reads commands"),
    value("", &["path"]).deny("is for `--textconv` and `--filters`, which run programs"),
];

const COUNT_OBJECTS: &[Opt] = &[flag("v", &["verbose"]), flag("H", &["human-readable"])];

const DESCRIBE: &[Opt] = &[
    flag("", &["all"]),
    flag("", &["tags"]),
    flag("", &["contains"]),
    attached("", &["abbrev"]),
    value("", &["candidates"]),
    flag("", &["exact-match"]),
    flag("", &["debug"]),
    flag("", &["long"]),
    value("", &["match"]),
    value("", &["exclude"]),
    flag("", &["always"]),
    flag("", &["first-parent"]),
    attached("", &["dirty"]).deny("compares the working tree, which can run filters in submodules"),
    attached("", &["broken"])
        .deny("compares the working tree, which can run filters in submodules"),
];

const DIFF_TREE: &[Opt] = &[
    flag("", &["stdin"]),
    flag("", &["no-commit-id"]),
    flag("v", &[]),
    flag("", &["merge-base"]),
];

const FOR_EACH_REF: &[Opt] = &[
    value("", &["count"]),
    flag("s", &["shell"]),
    flag("", &["perl"]),
    flag("", &["python"]),
    flag("", &["tcl"]),
    value("", &["exclude"]),
    flag("", &["include-root-refs"]),
    flag("", &["stdin"]),
];

const GREP: &[Opt] = &[
    flag("", &["cached"]),
    flag("", &["no-index"]),
    flag("", &["untracked"]),
    flag("", &["exclude-standard"]),
    flag("", &["no-exclude-standard"]),
    flag("", &["recurse-submodules"]).deny(SUBMODULES),
    flag("v", &["invert-match"]),
    flag("i", &["ignore-case"]),
    flag("I", &[]),
    value("", &["max-depth"]),
    flag("r", &["recursive"]),
    flag("", &["no-recursive"]),
    flag("w", &["word-regexp"]),
    flag("a", &["text"]),
    flag("", &["textconv"]).deny(RUNS_TEXTCONV),
    flag("", &["no-textconv"]),
    flag("h", &[]),
    flag("H", &[]),
    flag("", &["full-name"]),
    flag("E", &["extended-regexp"]),
    flag("G", &["basic-regexp"]),
    flag("F", &["fixed-strings"]),
    flag("P", &["perl-regexp"]),
    flag("n", &["line-number"]),
    flag("", &["column"]),
    flag("l", &["files-with-matches", "name-only"]),
    flag("L", &["files-without-match"]),
    attached("O", &["open-files-in-pager"]).deny("opens the matching files in a pager"),
    flag("z", &["null"]),
    flag("o", &["only-matching"]),
    flag("c", &["count"]),
    attached("", &["color"]),
    flag("", &["no-color"]),
    flag("", &["break"]),
    flag("", &["heading"]),
    flag("p", &["show-function"]),
    value("A", &["after-context"]),
    value("B", &["before-context"]),
    value("C", &["context"]),
    flag("0123456789", &[]),
    flag("W", &["function-context"]),
    value("", &["threads"]),
    value("f", &[]),
    value("e", &[]),
    flag("", &["and"]),
    flag("", &["or"]),
    flag("", &["not"]),
    flag("", &["all-match"]),
    flag("q", &["quiet"]),
    value("m", &["max-count"]),
];

const LS_FILES: &[Opt] = &[
    flag("c", &["cached"]),
    flag("d", &["deleted"]),
    flag("o", &["others"]),
    flag("i", &["ignored"]),
    flag("s", &["stage"]),
    flag("u", &["unmerged"]),
    flag("k", &["killed"]),
    flag("m", &["modified"]),
    flag("t", &[]),
    flag("v", &[]),
    flag("f", &[]),
    flag("z", &[]),
    flag("", &["directory"]),
    flag("", &["no-empty-directory"]),
    flag("", &["eol"]),
    value("x", &["exclude"]),
    value("X", &["exclude-from"]),
    value("", &["exclude-per-directory"]),
    flag("", &["exclude-standard"]),
    flag("", &["error-unmatch"]),
    value("", &["with-tree"]),
    flag("", &["full-name"]),
    flag("", &["recurse-submodules"]).deny(SUBMODULES),
    attached("", &["abbrev"]),
    flag("", &["debug"]),
    flag("", &["deduplicate"]),
    flag("", &["sparse"]),
    value("", &["format"]),
];

const LS_TREE: &[Opt] = &[
    flag("d", &[]),
    flag("r", &[]),
    flag("t", &[]),
    flag("l", &["long"]),
    flag("z", &[]),
    flag("", &["name-only", "name-status"]),
    flag("", &["object-only"]),
    flag("", &["full-name"]),
    flag("", &["full-tree"]),
    attached("", &["abbrev"]),
    value("", &["format"]),
];

const MERGE_BASE: &[Opt] = &[
    flag("a", &["all"]),
    flag("", &["octopus"]),
    flag("", &["independent"]),
    flag("", &["is-ancestor"]),
    flag("", &["fork-point"]),
];

const NAME_REV: &[Opt] = &[
    flag("", &["tags"]),
    value("", &["refs"]),
    value("", &["exclude"]),
    flag("", &["all"]),
    flag("", &["annotate-stdin"]),
    flag("", &["name-only"]),
    flag("", &["no-undefined"]),
    flag("", &["always"]),
];

const REMOTE: &[Opt] = &[flag("v", &["verbose"])];

/// `git rev-list` beyond the revision options.
const REV_LIST: &[Opt] = &[
    flag("", &["count"]),
    flag("", &["objects"]),
    flag("", &["objects-edge"]),
    flag("", &["no-object-names"]),
    flag("", &["in-commit-order"]),
    flag("", &["timestamp"]),
    flag("", &["header"]),
    flag("", &["disk-usage"]),
    flag("", &["indexed-objects"]),
    flag("", &["unpacked"]),
    attached("", &["filter"]),
    attached("", &["missing"]),
    flag("", &["stdin"]),
];

const SHORTLOG: &[Opt] = &[
    flag("n", &["numbered"]),
    flag("s", &["summary"]),
    flag("e", &["email"]),
    flag("c", &["committer"]),
    attached("w", &[]),
    value("", &["group"]),
];

const SHOW_REF: &[Opt] = &[
    flag("", &["head"]),
    flag("", &["tags"]),
    flag("", &["heads", "branches"]),
    flag("d", &["dereference"]),
    attached("s", &["hash"]),
    attached("", &["abbrev"]),
    flag("", &["verify"]),
    flag("", &["exists"]),
    flag("q", &["quiet"]),
];

const STATUS: &[Opt] = &[
    flag("s", &["short"]),
    flag("b", &["branch"]),
    flag("", &["no-branch"]),
    attached("", &["porcelain"]),
    flag("", &["long"]),
    attached("u", &["untracked-files"]),
    attached("", &["ignored"]),
    flag("z", &[]),
    attached("", &["column"]),
    flag("", &["no-column"]),
    flag("", &["ahead-behind"]),
    flag("", &["no-ahead-behind"]),
    flag("", &["renames"]),
    flag("", &["no-renames"]),
    attached("", &["find-renames"]),
    flag("", &["show-stash"]),
    flag("v", &["verbose"]).deny("shows the staged diff through text-conversion programs"),
    attached("", &["ignore-submodules"])
        .deny("changes how submodules are looked into, which can run their programs"),
];

const VERSION: &[Opt] = &[flag("", &["build-options"])];

/// Which operands a subcommand may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operands {
    /// Revisions, paths, patterns: anything.
    Any,
    /// None: `git branch NAME` creates a branch, `git remote add …` adds one.
    None,
}

struct Subcommand {
    name: &'static str,
    tables: &'static [&'static [Opt]],
    operands: Operands,
}

const SUBCOMMANDS: &[Subcommand] = &[
    sub("blame", &[BLAME], Operands::Any),
    sub("branch", &[BRANCH, REF_FILTER], Operands::None),
    sub("cat-file", &[CAT_FILE], Operands::Any),
    sub("count-objects", &[COUNT_OBJECTS], Operands::None),
    sub("describe", &[DESCRIBE], Operands::Any),
    sub("diff", &[DIFF_COMMAND, DIFF], Operands::Any),
    sub(
        "diff-tree",
        &[DIFF_TREE, DIFF, MERGES, PRETTY],
        Operands::Any,
    ),
    sub("for-each-ref", &[FOR_EACH_REF, REF_FILTER], Operands::Any),
    sub("grep", &[GREP], Operands::Any),
    sub(
        "log",
        &[LOG, DIFF, WALK, REF_PATTERNS, PRETTY, MERGES],
        Operands::Any,
    ),
    sub("ls-files", &[LS_FILES], Operands::Any),
    sub("ls-tree", &[LS_TREE], Operands::Any),
    sub("merge-base", &[MERGE_BASE], Operands::Any),
    sub("name-rev", &[NAME_REV], Operands::Any),
    sub("reflog", &[LOG, WALK, REF_PATTERNS, PRETTY], Operands::Any),
    sub("remote", &[REMOTE], Operands::None),
    sub(
        "rev-list",
        &[REV_LIST, WALK, REF_PATTERNS, PRETTY],
        Operands::Any,
    ),
    sub("rev-parse", &[], Operands::Any),
    sub("shortlog", &[SHORTLOG, WALK, PRETTY], Operands::Any),
    sub(
        "show",
        &[LOG, DIFF, WALK, REF_PATTERNS, PRETTY, MERGES],
        Operands::Any,
    ),
    sub("show-ref", &[SHOW_REF], Operands::Any),
    sub("status", &[STATUS], Operands::Any),
    sub("version", &[VERSION], Operands::None),
];

const fn sub(
    name: &'static str,
    tables: &'static [&'static [Opt]],
    operands: Operands,
) -> Subcommand {
    Subcommand {
        name,
        tables,
        operands,
    }
}

/// The subcommands of `git reflog` other than `show`.
const REFLOG_SUBCOMMANDS: &[&str] = &["expire", "delete", "exists", "drop", "list", "write"];

/// Denies a `git` stage unless it is a read-only subcommand with options
/// git reads as read-only.
pub(crate) fn check(args: &[Word<'_>]) -> Result<(), Denial> {
    let Some(first) = args.first() else {
        return Err(Denial::new(
            "`git` needs a read-only subcommand (status, log, show, diff, …)",
        ));
    };
    if let Some(glob) = args.iter().find(|w| w.glob) {
        return Err(Denial::new(format!(
            "the glob `{}` would be expanded before git sees it; quote it, git matches \
             pathspecs itself (`git log -- '*.rs'`)",
            short(glob.text)
        )));
    }
    let name = first.text;
    if name == "-c" || name.starts_with("-c") && !name.starts_with("--") {
        return Err(Denial::new(
            "`git -c` sets configuration, which can run programs and pagers",
        ));
    }
    if name.starts_with('-') {
        return Err(Denial::new(format!(
            "`git {}`: options before the subcommand (`-c`, `-C`, `--exec-path`, …) are not \
             allowed",
            short(name)
        )));
    }
    let Some(subcommand) = SUBCOMMANDS.iter().find(|s| s.name == name) else {
        return Err(unknown_subcommand(name));
    };
    for arg in args {
        if arg.text.contains("%G") || arg.text.contains("%(signature") {
            return Err(Denial::new(format!(
                "`git {name} {}` verifies signatures, which runs the configured program",
                short(arg.text)
            )));
        }
    }
    if let Some(help) = args.iter().find(|w| w.text == "--help") {
        return Err(Denial::new(format!(
            "`git {name} {}` opens the manual in a pager",
            help.text
        )));
    }
    // rev-parse prints what it is given, options it does not know too,
    // and runs nothing.
    if name == "rev-parse" {
        return Ok(());
    }
    let mut rest = &args[1..];
    if name == "reflog" && rest.first().is_some_and(|w| w.text == "show") {
        rest = &rest[1..];
    }
    let program = format!("git {name}");
    let parsed = parse(&program, subcommand.tables, rest)?;
    if subcommand.operands == Operands::None
        && let Some(operand) = parsed.operands.first()
    {
        return Err(Denial::new(match name {
            "branch" => format!(
                "`git branch {}` creates a branch; `git branch` may only list them",
                short(operand.text)
            ),
            "remote" => format!(
                "`git remote {}` changes remotes or uses the network; only `git remote -v` \
                 is allowed",
                short(operand.text)
            ),
            _ => format!("`{program}` takes no operand (`{}`)", short(operand.text)),
        }));
    }
    if name == "reflog"
        && let Some(op) = parsed
            .operands
            .iter()
            .find(|w| REFLOG_SUBCOMMANDS.contains(&w.text))
    {
        return Err(Denial::new(format!(
            "`git reflog {}` changes or inspects reflogs in ways the policy does not allow; \
             `git reflog` and `git reflog show` are allowed",
            op.text
        )));
    }
    Ok(())
}

/// Parses with several tables, the first holding a name winning.
fn parse<'a>(
    program: &str,
    tables: &'static [&'static [Opt]],
    args: &[Word<'a>],
) -> Result<Parsed<'a>, Denial> {
    options::parse_tables(program, tables, Syntax::GIT, args)
}

fn unknown_subcommand(name: &str) -> Denial {
    let what = match name {
        "difftool" | "mergetool" => "runs an external tool",
        "help" => "opens a pager or a browser",
        "config" => "reads and writes configuration, which can run programs",
        "fetch" | "pull" | "push" | "clone" | "ls-remote" | "remote-https" => "uses the network",
        _ => "is not one of the read-only git subcommands",
    };
    let allowed: Vec<&str> = SUBCOMMANDS.iter().map(|s| s.name).collect();
    Denial::new(format!(
        "`git {}` {what} (allowed: {})",
        short(name),
        allowed.join(", ")
    ))
}

/// Configuration every `git` stage runs with, given on its command line:
/// no file-system monitor, no hooks, no index written, no signature checks
/// or signature programs, and no look into submodules, whose own
/// configuration would name programs of its own.
pub(crate) const FORCED_CONFIG: &[&str] = &[
    "core.fsmonitor=false",
    // No hooks: `git diff` can write the index, which runs the
    // `post-index-change` hook.
    "core.hooksPath=/dev/null",
    // `git diff` writes the index when files were touched but not changed
    // (it does not heed GIT_OPTIONAL_LOCKS); with this it does not.
    "diff.autoRefreshIndex=false",
    "log.showSignature=false",
    "diff.ignoreSubmodules=all",
    "diff.submodule=short",
    "status.submoduleSummary=false",
    "submodule.recurse=false",
    // A `pretty.<name>` format of the configuration may ask for signatures
    // (`%G?`); with no program named, none runs.
    "gpg.program=",
    "gpg.openpgp.program=",
    "gpg.x509.program=",
    "gpg.ssh.program=",
];

/// The argument vector that runs an allowed `git` stage: [`FORCED_CONFIG`]
/// and `--no-pager` before the subcommand, and for the subcommands that
/// show diffs no external diff or text-conversion program, whatever the
/// configuration says.
pub(crate) fn argv(argv: &[String]) -> Vec<String> {
    let mut out: Vec<String> = vec!["git".to_owned(), "--no-pager".to_owned()];
    for config in FORCED_CONFIG {
        out.push("-c".to_owned());
        out.push((*config).to_owned());
    }
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

/// The regular expression (`git config --get-regexp`) of the keys that
/// name programs git may run on its own for a read-only command: clean,
/// smudge and process filters, text conversions, external diffs and
/// signature programs. [`crate::run`] reads them before each `git` stage
/// and gives each an empty value, which runs nothing.
pub(crate) const PROGRAM_KEYS: &str = r"^(filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|diff\.external|gpg\.(.+\.)?program)$";

/// The configuration that turns off every key `git config` listed:
/// programs emptied, and filters no longer required (a required filter
/// without a program would stop git).
pub(crate) fn neutralising_config(keys: &[String]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for key in keys {
        out.push((key.clone(), String::new()));
        if let Some(driver) = key.strip_prefix("filter.").and_then(|k| {
            k.strip_suffix(".clean")
                .or_else(|| k.strip_suffix(".smudge"))
                .or_else(|| k.strip_suffix(".process"))
        }) {
            let required = format!("filter.{driver}.required");
            if !out.iter().any(|(k, _)| *k == required) {
                out.push((required, "false".to_owned()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
