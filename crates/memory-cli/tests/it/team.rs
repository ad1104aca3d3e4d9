//! `memdir team push|pull|sync` against a real `memdir serve` process on
//! 127.0.0.1: two folders converge, a secret is never sent, a bad token is
//! an `auth` failure. The harness here is shared with `team_safety`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Output};

use crate::serve::start_server;
use crate::{memdir_in, stderr, stdout};

const TOKEN: &str = "ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS";

/// A team server and the folders of its members, all in one temp folder.
pub(crate) struct Team {
    pub(crate) tmp: tempfile::TempDir,
    server: Child,
    /// The server's log; kept open, or its next line would kill it.
    _log: std::io::Lines<std::io::BufReader<std::process::ChildStderr>>,
    pub(crate) url: String,
    pub(crate) token: String,
}

impl Team {
    pub(crate) fn start() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let out = memdir_in(
            tmp.path(),
            &[],
            ["serve", "--db", "team.db", "--create-token", "acme"],
        );
        let token = stdout(&out).trim().to_owned();
        let (server, addr, log) = start_server(tmp.path());
        Team {
            url: format!("http://{addr}"),
            tmp,
            server,
            _log: log,
            token,
        }
    }

    /// Runs `memdir --memory-dir <member> <args> --repo acme/app`.
    pub(crate) fn run(&self, member: &str, args: &[&str]) -> Output {
        run_in(self.tmp.path(), &self.url, &self.token, member, args)
    }

    /// Runs a command that must succeed.
    pub(crate) fn ok(&self, member: &str, args: &[&str]) {
        let out = self.run(member, args);
        assert!(out.status.success(), "{args:?}: {}", both_text(&out));
    }

    /// Runs a team command as JSON and returns its output, which must be
    /// JSON whatever the exit status.
    pub(crate) fn json(&self, member: &str, args: &[&str]) -> (Option<i32>, serde_json::Value) {
        let mut all = args.to_vec();
        all.push("--json");
        let out = self.run(member, &all);
        let value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {} / {}", stdout(&out), stderr(&out)));
        (out.status.code(), value)
    }

    /// The team folder of a member.
    pub(crate) fn team(&self, member: &str) -> PathBuf {
        self.tmp.path().join(member).join("team")
    }

    pub(crate) fn write(&self, member: &str, key: &str, text: &str) {
        let path = self.team(member).join(key);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    pub(crate) fn read(&self, member: &str, key: &str) -> String {
        fs::read_to_string(self.team(member).join(key)).unwrap()
    }

    /// The local edits a pull kept aside for `key`, oldest first.
    pub(crate) fn conflict_copies(&self, member: &str, key: &str) -> Vec<String> {
        let dir = self.team(member).join(".conflicts");
        let Ok(entries) = fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut copies: Vec<_> = entries
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(&format!("{key}."))
            })
            .collect();
        copies.sort();
        copies
            .iter()
            .map(|p| fs::read_to_string(p).unwrap())
            .collect()
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

pub(crate) fn run_in(dir: &Path, url: &str, token: &str, member: &str, args: &[&str]) -> Output {
    let vars = [
        ("MEMDIR_TEAM", "1"),
        ("MEMDIR_TEAM_URL", url),
        ("MEMDIR_TEAM_TOKEN", token),
    ];
    let mut all = vec!["--memory-dir", member];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--repo", "acme/app"]);
    memdir_in(dir, &vars, all)
}

/// Everything under `dir`, files and links, relative.
pub(crate) fn everything(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type().unwrap().is_dir() {
            out.extend(
                everything(&entry.path())
                    .into_iter()
                    .map(|n| format!("{name}/{n}")),
            );
        } else {
            out.push(name);
        }
    }
    out
}

pub(crate) fn both_text(out: &Output) -> String {
    format!("{}{}", stdout(out), stderr(out))
}

#[test]
fn two_folders_converge_and_secrets_stay_home() {
    let t = Team::start();
    t.write(
        "a",
        "freeze.md",
        "---\nname: freeze\ndescription: Release freeze\ntype: project\n---\nNo merges.\n",
    );
    t.write("a", "leak.md", &format!("token {TOKEN}\n"));

    let out = t.run("a", &["team", "push"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("not sent leak.md") && text.contains("github-pat"),
        "{text}"
    );
    assert!(!text.contains(TOKEN));

    // Status changes nothing and says what a pull would bring.
    let (code, j) = t.json("b", &["team", "status"]);
    assert_eq!(code, Some(0), "{j}");
    assert_eq!(j["toPull"], serde_json::json!(["freeze.md"]));
    assert!(!t.team("b").join("freeze.md").exists());

    let (code, j) = t.json("b", &["team", "sync"]);
    assert_eq!(code, Some(0), "{j}");
    assert_eq!(j["pull"]["filesPulled"], 1);
    assert_eq!(t.read("b", "freeze.md"), t.read("a", "freeze.md"));
    assert!(
        !t.team("b").join("leak.md").exists(),
        "the secret never left folder a"
    );

    let out = run_in(
        t.tmp.path(),
        &t.url,
        "mdt_wrong",
        "b",
        &["team", "pull", "--json"],
    );
    assert_eq!(out.status.code(), Some(1));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["errorType"], "auth");

    // Team memory off: a clear error, nothing contacted.
    let out = memdir_in(
        t.tmp.path(),
        &[],
        ["--memory-dir", "b", "team", "pull", "--repo", "acme/app"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("team memory is off"),
        "{}",
        stderr(&out)
    );
}
