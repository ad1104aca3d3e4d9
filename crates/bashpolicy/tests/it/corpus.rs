//! The hostile corpus must be denied line by line, the benign one allowed;
//! every misjudged line is reported, not just the first.

use memdir_bashpolicy::{Decision, MAX_COMMAND_BYTES, check};

fn lines(name: &str) -> Vec<String> {
    let path = format!("{}/tests/corpus/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the corpus file is readable");
    text.lines()
        .filter(|l| !l.starts_with("# ") && !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// Every hostile command, plus variants the file cannot hold: joined to a
/// benign command by a newline, with a NUL byte, and grown very long.
fn hostile() -> Vec<String> {
    let base = lines("hostile.txt");
    let mut all = base.clone();
    // A line ending in `|`, `&&`, `||` or `\` continues on the next line,
    // so only complete lines are joined to others.
    let complete = base
        .iter()
        .filter(|l| !(l.ends_with('|') || l.ends_with("&&") || l.ends_with('\\')));
    for line in complete {
        all.push(format!("ls\n{line}"));
        all.push(format!("{line}\nls"));
        all.push(format!("ls -la\n\n{line}\n"));
    }
    all.extend([
        "ls\0 rm -rf /".to_owned(),
        "ls \0".to_owned(),
        "\0".to_owned(),
        "cat README.md\r\nrm x".to_owned(),
        "ls\u{1b}[2J".to_owned(),
        format!("ls {}", "a".repeat(MAX_COMMAND_BYTES)),
        format!("echo {}", "x ".repeat(MAX_COMMAND_BYTES)),
        "ls | ".repeat(2000),
        format!("{}ls{}", "$(".repeat(5000), ")".repeat(5000)),
        format!(
            "echo \"{}ls{}\"",
            "$(echo \"".repeat(300),
            "\")".repeat(300)
        ),
        format!("{}ls{}", "(".repeat(1000), ")".repeat(1000)),
        format!("{}ls{}", "{ ".repeat(100), "; }".repeat(100)),
        "`".repeat(40),
        String::new(),
        "   ".to_owned(),
        "\n\n".to_owned(),
    ]);
    all
}

#[test]
fn every_hostile_command_is_denied() {
    let all = hostile();
    assert!(all.len() > 1500, "the corpus is large: {}", all.len());
    let allowed: Vec<String> = all
        .iter()
        .filter_map(|line| match check(line) {
            Decision::Allowed(plan) => Some(format!("{line:?} => {plan:?}")),
            Decision::Denied(_) => None,
        })
        .collect();
    assert!(
        allowed.is_empty(),
        "{} hostile commands were allowed:\n{}",
        allowed.len(),
        allowed.join("\n")
    );
}

#[test]
fn every_denial_names_its_reason_on_one_line() {
    for line in hostile() {
        let reason = check(&line).reason();
        assert!(!reason.is_empty(), "{line:?}");
        assert!(!reason.contains('\n'), "{line:?}: {reason:?}");
        assert!(reason.len() < 600, "{line:?}: {reason:?}");
    }
}

#[test]
fn every_benign_command_is_allowed() {
    let all = lines("benign.txt");
    assert!(all.len() > 150, "the corpus is large: {}", all.len());
    let denied: Vec<String> = all
        .iter()
        .filter_map(|line| match check(line) {
            Decision::Allowed(_) => None,
            Decision::Denied(d) => Some(format!("{line:?} => {}", d.reason)),
        })
        .collect();
    assert!(
        denied.is_empty(),
        "{} benign commands were denied:\n{}",
        denied.len(),
        denied.join("\n")
    );
}
