//! Glob words: in the plan as patterns, expanded by the runner inside the
//! working folder only, as Bash expands them otherwise.

use std::path::Path;

use memdir_bashpolicy::{
    Decision, Glob, MAX_GLOB_MATCHES, Plan, RunError, RunLimits, RunOutput, check, run,
};

#[track_caller]
fn allowed(command: &str) -> Plan {
    match check(command) {
        Decision::Allowed(plan) => plan,
        Decision::Denied(d) => panic!("{command:?} was denied: {}", d.reason),
    }
}

#[track_caller]
fn denied(command: &str, reason: &str) {
    let decision = check(command);
    assert!(!decision.is_allowed(), "{command:?} was allowed");
    assert!(
        decision.reason().contains(reason),
        "{command:?}: {:?} does not contain {reason:?}",
        decision.reason()
    );
}

#[track_caller]
fn run_in(command: &str, dir: &Path) -> Result<RunOutput, RunError> {
    run(&allowed(command), dir, &RunLimits::default())
}

fn files(dir: &Path, names: &[(&str, &str)]) {
    for (name, text) in names {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create a folder");
        }
        std::fs::write(path, text).expect("write");
    }
}

#[test]
fn a_glob_word_is_its_pattern_in_the_plan() {
    let plan = allowed("wc -l *.md");
    let stage = &plan.steps[0].pipeline[0];
    assert_eq!(stage.argv, ["wc", "-l", "*.md"]);
    assert_eq!(
        stage.globs,
        [Glob {
            arg: 2,
            pattern: "*.md".to_owned()
        }]
    );
    // What was quoted means itself.
    let plan = allowed(r#"ls "a*"* 'b?'[xy] c\*"#);
    let stage = &plan.steps[0].pipeline[0];
    assert_eq!(stage.argv, ["ls", "a**", "b?[xy]", "c*"]);
    assert_eq!(
        stage.globs,
        [
            Glob {
                arg: 1,
                pattern: r"a\**".to_owned()
            },
            Glob {
                arg: 2,
                pattern: r"b\?[xy]".to_owned()
            }
        ]
    );
    // An `[` without its `]` is a character, as in Bash.
    let plan = allowed("echo a[b ]");
    assert_eq!(plan.steps[0].pipeline[0].argv, ["echo", "a[b", "]"]);
    assert!(plan.steps[0].pipeline[0].globs.is_empty());
}

#[test]
fn globs_that_reach_outside_or_would_be_misread_are_denied() {
    denied("cat ../*", "climbs out of the working folder");
    denied("cat src/../../*", "climbs out of the working folder");
    denied("cat */../../x", "climbs out of the working folder");
    denied("cat /etc/*", "outside the working folder");
    denied(r"cat \/etc/*", "outside the working folder");
    denied("uniq *.txt", "which the glob `*.txt` could become");
    denied("git log -- *.rs", "git matches pathspecs itself");
    denied("find . -name *.rs", "quote it (`-name '*.rs'`)");
    denied("ls -I *.o", "cannot be the value of `ls -I`");
    denied("ls -*", "would be read by `ls` as an option");
    denied("*.sh", "the program name `*.sh` is a glob pattern");
}

#[test]
fn globs_expand_to_the_sorted_paths_they_match_hidden_only_when_asked() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    files(
        dir.path(),
        &[
            ("b.md", "one\n"),
            ("a.md", "one\ntwo\n"),
            (".hidden.md", "x\n"),
            ("notes.txt", "x\n"),
            ("sub/c.md", "x\n"),
            ("n1.log", "x\n"),
        ],
    );
    let out = run_in("wc -l *.md", dir.path()).expect("runs");
    assert_eq!(
        out.output.lines().collect::<Vec<_>>(),
        [" 2 a.md", " 1 b.md", " 3 total"],
        "{}",
        out.output
    );
    let lines = |command: &str| -> Vec<String> {
        let out = run_in(command, dir.path()).expect("runs");
        out.output.lines().map(str::to_owned).collect()
    };
    assert_eq!(lines("ls -d .*"), [".hidden.md"]);
    assert_eq!(lines("ls -d */"), ["sub/"]);
    assert_eq!(lines("ls */*.md"), ["sub/c.md"]);
    assert_eq!(lines("ls [ab].md"), ["a.md", "b.md"]);
    assert_eq!(lines("ls [!a]*.md"), ["b.md"]);
    assert_eq!(lines("ls [^b]*.md"), ["a.md"]);
    assert_eq!(lines("ls ?.md"), ["a.md", "b.md"]);
    assert_eq!(lines("ls *[[:digit:]].log"), ["n1.log"]);
    assert_eq!(lines("echo *.md '*.md'"), ["a.md b.md *.md"]);
}

#[test]
fn a_glob_that_matches_nothing_is_passed_on_as_it_is() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let out = run_in("ls *.xyz", dir.path()).expect("runs");
    assert_eq!(out.exit_code, Some(2));
    assert!(out.output.contains("'*.xyz'"), "{}", out.output);
    assert_eq!(
        run_in("echo *.xyz", dir.path()).expect("runs").output,
        "*.xyz\n"
    );
}

#[cfg(unix)]
#[test]
fn a_glob_never_follows_a_link_out_of_the_working_folder() {
    let outside = tempfile::tempdir().expect("a temporary folder");
    files(outside.path(), &[("secret.md", "SECRET\n")]);
    let dir = tempfile::tempdir().expect("a temporary folder");
    files(dir.path(), &[("sub/c.md", "inside\n")]);
    std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).expect("link");
    std::os::unix::fs::symlink(dir.path().join("sub"), dir.path().join("in")).expect("link");
    for command in ["cat out/*", "cat */secret.md", "cat */*", "cat o*/*.md"] {
        let out = run_in(command, dir.path()).expect("runs");
        assert!(!out.output.contains("SECRET"), "{command}: {}", out.output);
    }
    // A link that stays inside is followed.
    let out = run_in("cat in/*", dir.path()).expect("runs");
    assert_eq!(out.output, "inside\n");
    let out = run_in("ls -d */", dir.path()).expect("runs");
    assert_eq!(out.output, "in/\nout/\nsub/\n");
}

#[test]
fn a_match_that_looks_like_an_option_is_given_as_a_path() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    files(dir.path(), &[("-n", "dash\n"), ("a.txt", "alpha\n")]);
    let out = run_in("cat *", dir.path()).expect("runs");
    // `cat -n a.txt` would number the lines.
    assert_eq!(out.output, "dash\nalpha\n");
    let out = run_in("echo *", dir.path()).expect("runs");
    assert_eq!(out.output, "./-n a.txt\n");
}

#[test]
fn the_number_of_matches_is_capped() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for i in 0..=MAX_GLOB_MATCHES {
        std::fs::write(dir.path().join(format!("f{i:05}")), "").expect("write");
    }
    let err = run_in("ls f*", dir.path()).expect_err("too many");
    assert!(
        matches!(&err, RunError::TooManyMatches { pattern, limit } if pattern == "f*" && *limit == MAX_GLOB_MATCHES),
        "{err:?}"
    );
    std::fs::remove_file(dir.path().join("f00000")).expect("remove");
    let out = run_in("ls f*", dir.path()).expect("runs at the cap");
    assert_eq!(out.output.lines().count(), MAX_GLOB_MATCHES);
}

#[test]
fn a_stage_is_judged_again_with_its_globs_expanded() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    files(dir.path(), &[("a.log", "1\n2\n")]);
    // One file: GNU tail reads `-1` as a line count.
    let out = run_in("tail -1 *.log", dir.path()).expect("runs");
    assert_eq!(out.output, "2\n");
    // Two files: `-1` is no longer tail's obsolete option but an unknown
    // one.
    files(dir.path(), &[("b.log", "3\n")]);
    let err = run_in("tail -1 *.log", dir.path()).expect_err("denied");
    assert!(matches!(err, RunError::Denied(_)), "{err:?}");
}
