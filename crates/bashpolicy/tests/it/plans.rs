//! Plans: what an allowed command runs, and the reasons of denials.

use memdir_bashpolicy::{Decision, Plan, Stage, Stderr, Step, When, check};

fn argvs(plan: &Plan) -> Vec<Vec<Vec<&str>>> {
    plan.steps
        .iter()
        .map(|s| {
            s.pipeline
                .iter()
                .map(|st| st.argv.iter().map(String::as_str).collect())
                .collect()
        })
        .collect()
}

#[track_caller]
fn allowed(command: &str) -> Plan {
    match check(command) {
        Decision::Allowed(plan) => plan,
        Decision::Denied(d) => panic!("{command:?} was denied: {}", d.reason),
    }
}

#[track_caller]
fn denied(command: &str, reason: &str) {
    match check(command) {
        Decision::Allowed(plan) => panic!("{command:?} was allowed: {plan:?}"),
        Decision::Denied(d) => assert!(
            d.reason.contains(reason),
            "{command:?}: {:?} does not contain {reason:?}",
            d.reason
        ),
    }
}

#[test]
fn quotes_are_removed_and_what_they_quote_is_literal() {
    let plan = allowed(r#"grep -rn "a;b|c" 'x > y' e\ f "\$(id)" r''g"#);
    assert_eq!(
        argvs(&plan),
        [[["grep", "-rn", "a;b|c", "x > y", "e f", "$(id)", "rg"]]]
    );
    assert_eq!(
        argvs(&allowed(r#"echo "back\\slash" "keep\x" 'single\n'"#)),
        [[["echo", r"back\slash", r"keep\x", r"single\n"]]]
    );
}

#[test]
fn pipelines_and_lists_keep_their_shape() {
    let plan = allowed("ls -la | grep foo | wc -l; pwd && cat a || echo none\nls");
    assert_eq!(
        argvs(&plan),
        vec![
            vec![vec!["ls", "-la"], vec!["grep", "foo"], vec!["wc", "-l"]],
            vec![vec!["pwd"]],
            vec![vec!["cat", "a"]],
            vec![vec!["echo", "none"]],
            vec![vec!["ls"]],
        ]
    );
    let whens: Vec<When> = plan.steps.iter().map(|s| s.when).collect();
    assert_eq!(
        whens,
        [
            When::Always,
            When::Always,
            When::IfSucceeded,
            When::IfFailed,
            When::Always
        ]
    );
}

#[test]
fn the_two_stderr_redirections_are_part_of_the_plan() {
    let plan = allowed("ls missing 2>/dev/null | grep x 2>&1");
    let stderr: Vec<Stderr> = plan.steps[0].pipeline.iter().map(|s| s.stderr).collect();
    assert_eq!(stderr, [Stderr::Null, Stderr::Stdout]);
    assert_eq!(argvs(&plan), [[vec!["ls", "missing"], vec!["grep", "x"]]]);
}

#[test]
fn git_runs_without_pager_external_diff_or_text_conversion() {
    let plan = allowed("git diff HEAD~1 --stat");
    assert_eq!(
        argvs(&plan),
        [[[
            "git",
            "--no-pager",
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "diff.autoRefreshIndex=false",
            "-c",
            "log.showSignature=false",
            "-c",
            "diff.ignoreSubmodules=all",
            "-c",
            "diff.submodule=short",
            "-c",
            "status.submoduleSummary=false",
            "-c",
            "submodule.recurse=false",
            "-c",
            "gpg.program=",
            "-c",
            "gpg.openpgp.program=",
            "-c",
            "gpg.x509.program=",
            "-c",
            "gpg.ssh.program=",
            "diff",
            "--no-ext-diff",
            "--no-textconv",
            "HEAD~1",
            "--stat"
        ]]]
    );
    let status = allowed("git status --short");
    let argv = &status.steps[0].pipeline[0].argv;
    assert_eq!(argv[argv.len() - 2..], ["status", "--short"]);
    let blame = allowed("git blame a.txt");
    let argv = &blame.steps[0].pipeline[0].argv;
    assert_eq!(argv[argv.len() - 3..], ["blame", "--no-textconv", "a.txt"]);
}

#[test]
fn denials_name_the_offending_part() {
    denied("cat a > b", "`>` redirects output to a file");
    denied("sed -i s/a/b/ f", "`sed` can edit files in place");
    denied("echo $(id)", "`$(…)` runs a command");
    denied("echo \"`id`\"", "backticks");
    denied("cat x | python3", "`python3` is an interpreter");
    denied("ls; rm -rf /", "`rm` changes files");
    denied("find . -name x -delete", "`find -delete` deletes files");
    denied("find . -exec rm '{}' ';'", "`find -exec` runs a command");
    denied("git -c core.pager=sh log", "`git -c` sets configuration");
    denied("git log --output=x", "`git log --output=x`");
    denied("git branch -D main", "`git branch -D`");
    denied("tail -f log", "`tail -f` follows the file");
    denied(
        "tail -n 5 --follow log",
        "`tail --follow` waits for more output forever",
    );
    denied("tail -5f log", "`tail -5f` follows the file");
    denied("PATH=/tmp ls", "`PATH=/tmp` before a command");
    denied("/bin/ls", "`/bin/ls` names a program by its path");
    denied("cat <<EOF\nhi\nEOF", "`<<` here-documents");
    denied("cat <<< hi", "`<<<` here-strings");
    denied("echo ${x:=y}", "`${x:=y}` expands a variable");
    denied("cat ../*", "climbs out of the working folder");
    denied("ls &", "`&` runs a command in the background");
    denied("echo 'open", "not valid Bash");
    denied("ls\0", "NUL");
}

#[test]
fn nesting_and_length_are_bounded_before_parsing() {
    let deep = format!("echo {}x{}", "$(".repeat(17), ")".repeat(17));
    denied(&deep, "nests brackets or backticks more than 16 deep");
    let long = format!("ls {}", "a".repeat(memdir_bashpolicy::MAX_COMMAND_BYTES));
    denied(&long, "longer than");
}

#[test]
fn nesting_up_to_the_limit_parses_on_a_small_stack() {
    // The limit must leave room on a thread's stack, whatever the thread:
    // the deepest accepted nesting parses on 512 KiB.
    let n = memdir_bashpolicy::MAX_NESTING;
    let inputs = [
        format!("echo {}x{}", "$(".repeat(n), ")".repeat(n)),
        format!("{}ls{}", "(".repeat(n), ")".repeat(n)),
        format!("echo \"{}x{}\"", "$(echo \"".repeat(n), "\")".repeat(n)),
        format!("echo {}", "${x:-".repeat(n) + &"}".repeat(n)),
        // Long flat lists and pipelines, just under the length limit.
        format!("ls{}", "|ls".repeat(2000)),
        format!("ls{}", ";ls".repeat(2000)),
        format!("ls{}", "&&ls".repeat(1500)),
        format!("ls{}", " a".repeat(4000)),
    ];
    let handle = std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(move || {
            inputs
                .iter()
                .map(|i| check(i).is_allowed())
                .collect::<Vec<_>>()
        })
        .expect("a thread starts");
    assert_eq!(
        handle.join().expect("no overflow"),
        [false, false, false, false, true, true, true, true]
    );
}

#[test]
fn a_decision_reports_its_plan() {
    let decision = check("ls | head");
    assert!(decision.is_allowed());
    assert_eq!(decision.reason(), "read-only: `ls`, `head`");
    assert_eq!(
        decision.plan(),
        Some(&Plan {
            steps: vec![Step {
                when: When::Always,
                pipeline: vec![
                    Stage::new(vec!["ls".to_owned()]),
                    Stage::new(vec!["head".to_owned()])
                ],
            }],
        })
    );
    assert_eq!(check("rm x").plan(), None);
}
