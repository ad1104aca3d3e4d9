//! `memdir team push|pull|sync` against a real `memdir serve` process on
//! 127.0.0.1: two folders converge, a secret is never sent, a bad token is
//! an `auth` failure.

use std::fs;

use crate::serve::start_server;
use crate::{memdir_in, stderr, stdout};

const TOKEN: &str = "ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS";

#[test]
fn two_folders_converge_and_secrets_stay_home() {
    let tmp = tempfile::tempdir().unwrap();
    let out = memdir_in(
        tmp.path(),
        &[],
        ["serve", "--db", "team.db", "--create-token", "acme"],
    );
    let token = stdout(&out).trim().to_owned();
    let (mut server, addr, _log) = start_server(tmp.path());
    let url = format!("http://{addr}");
    let vars = |bearer: &str| -> Vec<(&'static str, String)> {
        vec![
            ("MEMDIR_TEAM", "1".to_owned()),
            ("MEMDIR_TEAM_URL", url.clone()),
            ("MEMDIR_TEAM_TOKEN", bearer.to_owned()),
        ]
    };
    let run = |mem: &str, bearer: &str, args: &[&str]| {
        let vars = vars(bearer);
        let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mut all = vec!["--memory-dir", mem];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--repo", "acme/app"]);
        memdir_in(tmp.path(), &vars, all)
    };
    fs::create_dir_all(tmp.path().join("a/team")).unwrap();
    fs::write(
        tmp.path().join("a/team/freeze.md"),
        "---\nname: freeze\ndescription: Release freeze\ntype: project\n---\nNo merges.\n",
    )
    .unwrap();
    fs::write(
        tmp.path().join("a/team/leak.md"),
        format!("token {TOKEN}\n"),
    )
    .unwrap();

    let out = run("a", &token, &["team", "push"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("not sent leak.md") && text.contains("github-pat"),
        "{text}"
    );
    assert!(!text.contains(TOKEN));

    // Status changes nothing and says what a pull would bring.
    let out = run("b", &token, &["team", "status", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["toPull"], serde_json::json!(["freeze.md"]));
    assert!(!tmp.path().join("b/team/freeze.md").exists());

    let out = run("b", &token, &["team", "sync", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["pull"]["filesPulled"], 1);
    assert_eq!(
        fs::read_to_string(tmp.path().join("b/team/freeze.md")).unwrap(),
        fs::read_to_string(tmp.path().join("a/team/freeze.md")).unwrap()
    );
    assert!(
        !tmp.path().join("b/team/leak.md").exists(),
        "the secret never left folder a"
    );

    let out = run("b", "mdt_wrong", &["team", "pull", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["errorType"], "auth");

    // Team memory off: a clear error, nothing contacted.
    let out = memdir_in(
        tmp.path(),
        &[],
        ["--memory-dir", "b", "team", "pull", "--repo", "acme/app"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("team memory is off"),
        "{}",
        stderr(&out)
    );
    let _ = server.kill();
}
