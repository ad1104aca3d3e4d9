//! The `secret` check reads the indexes too: an index line's title goes
//! into every conversation, and `team/MEMORY.md` to the whole team.

use memdir_doctor::{Doctor, Finding, Severity};

/// A GitHub token, built at run time so that no scanner of this
/// repository mistakes the test for a leak.
fn github_token() -> String {
    format!("ghp_{}", "RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS")
}

fn slack_token() -> String {
    format!("xoxb-{}", "4826193057-9384751062-Qm3xTb7ZkP2vLw9RcY5nHdJs")
}

const DEPLOY: &str = "---\nname: deploy\ndescription: How the deploy job authenticates\ntype: reference\n---\nThe deploy job reads its token from the CI secret store.\n";

/// The `secret` findings of a folder holding `index` as `team/MEMORY.md`
/// and `private` as `MEMORY.md`, each beside one clean memory.
fn secrets(team_index: &str, private_index: &str) -> Vec<Finding> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("team")).unwrap();
    std::fs::write(dir.path().join("team/MEMORY.md"), team_index).unwrap();
    std::fs::write(dir.path().join("team/deploy.md"), DEPLOY).unwrap();
    std::fs::write(dir.path().join("MEMORY.md"), private_index).unwrap();
    std::fs::write(dir.path().join("deploy.md"), DEPLOY).unwrap();
    Doctor::builtin()
        .run(dir.path())
        .unwrap()
        .into_iter()
        .filter(|f| f.check == "secret")
        .collect()
}

#[test]
fn a_secret_in_an_index_title_is_an_error_on_its_line_never_shown() {
    let token = github_token();
    let slack = slack_token();
    let team = format!("- [{token}](deploy.md) — the token the deploy job uses\n");
    let private = format!(
        "# Memory index\n\n- [deploy](deploy.md) — how the deploy job authenticates\n- [alerts](deploy.md) — bot {slack} posts the alerts\n"
    );
    let found = secrets(&team, &private);
    let at: Vec<(&str, Option<usize>, Severity)> = found
        .iter()
        .map(|f| (f.file.as_str(), f.line, f.severity))
        .collect();
    assert_eq!(
        at,
        [
            ("MEMORY.md", Some(4), Severity::Error),
            ("team/MEMORY.md", Some(1), Severity::Error),
        ],
        "{found:#?}"
    );
    for f in &found {
        assert!(!f.message.contains(&token[4..12]), "{}", f.message);
        assert!(!f.message.contains(&slack[5..15]), "{}", f.message);
        assert!(f.message.contains("index"), "{}", f.message);
    }
}

#[test]
fn clean_indexes_have_no_secret_findings() {
    let index = "- [deploy](deploy.md) — how the deploy job authenticates (ghp_ tokens live in the CI store)\n";
    assert_eq!(secrets(index, index), []);
}
