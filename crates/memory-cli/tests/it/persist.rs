//! `memdir persist`: a turn's output files uploaded to the Files API
//! (R15), against the Files API fake on 127.0.0.1.

use std::path::Path;
use std::process::Output;

use memdir_testkit::files_api::{FakeAuth, FilesApi};
use serde_json::Value;

use crate::{command, stderr, stdout};

const KEY: &str = "sk-ant-cli-test-key";
const SESSION: &str = "session_01cli";
/// The variables of file persistence; each test sets its own.
const PERSIST_VARS: [&str; 4] = [
    "MEMDIR_FILE_PERSISTENCE",
    "CLAUDE_CODE_ENVIRONMENT_KIND",
    "CLAUDE_CODE_SESSION_ACCESS_TOKEN",
    "CLAUDE_CODE_REMOTE_SESSION_ID",
];

fn persist(cwd: &Path, vars: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = command(cwd, &[], ["persist"].iter().chain(args));
    for var in PERSIST_VARS {
        cmd.env_remove(var);
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.output().expect("run memdir")
}

fn json(out: &Output) -> Value {
    serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(out), stderr(out)))
}

/// The variables of an enabled BYOC session talking to `api`.
fn byoc(api: &FilesApi) -> Vec<(&'static str, String)> {
    vec![
        ("CLAUDE_CODE_ENVIRONMENT_KIND", "byoc".into()),
        ("ANTHROPIC_API_KEY", KEY.into()),
        ("CLAUDE_CODE_REMOTE_SESSION_ID", SESSION.into()),
        ("ANTHROPIC_BASE_URL", api.url()),
    ]
}

fn run_byoc(api: &FilesApi, cwd: &Path, args: &[&str]) -> Output {
    let vars = byoc(api);
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    persist(cwd, &vars, args)
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A turn start an hour ago, in epoch milliseconds.
fn an_hour_ago() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    (now.as_millis() - 3_600_000).to_string()
}

#[test]
fn when_off_it_says_which_variable_to_set_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let start = an_hour_ago();
    let cases: [(&[(&str, &str)], &str); 4] = [
        (&[], "CLAUDE_CODE_ENVIRONMENT_KIND=byoc"),
        (
            &[
                ("MEMDIR_FILE_PERSISTENCE", "off"),
                ("CLAUDE_CODE_ENVIRONMENT_KIND", "byoc"),
            ],
            "MEMDIR_FILE_PERSISTENCE",
        ),
        (
            &[("CLAUDE_CODE_ENVIRONMENT_KIND", "byoc")],
            "CLAUDE_CODE_SESSION_ACCESS_TOKEN",
        ),
        (
            &[
                ("CLAUDE_CODE_ENVIRONMENT_KIND", "byoc"),
                ("ANTHROPIC_API_KEY", KEY),
            ],
            "CLAUDE_CODE_REMOTE_SESSION_ID",
        ),
    ];
    for (vars, named) in cases {
        let out = persist(dir.path(), vars, &["--turn-start", &start, "--json"]);
        assert_eq!(out.status.code(), Some(0), "{vars:?}: {}", stderr(&out));
        let report = json(&out);
        assert_eq!(report["ran"], false);
        assert_eq!(report["files"], Value::Array(Vec::new()));
        let reason = report["reason"].as_str().unwrap();
        assert!(reason.contains(named), "{vars:?}: {reason}");
        // Text mode says the same on one line.
        let out = persist(dir.path(), vars, &["--turn-start", &start]);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(stdout(&out).trim(), reason);
    }
}

#[test]
fn a_real_upload_reports_each_file_with_its_id() {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let cwd = tempfile::tempdir().unwrap();
    let outputs = cwd.path().join(SESSION).join("outputs");
    write(&outputs, "summary.md", b"# Done\n");
    write(&outputs, "data/-raw.csv", b"a,b\n1,2\n");
    let out = run_byoc(
        &api,
        cwd.path(),
        &["--turn-start", &an_hour_ago(), "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(report["ran"], true);
    assert!(report.get("reason").is_none(), "{report}");
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{report}");
    let stored = api.stored();
    for file in files {
        let path = file["path"].as_str().unwrap();
        let id = file["id"].as_str().unwrap();
        assert!(file.get("error").is_none(), "{file}");
        let on_server = stored.iter().find(|s| s.id == id).unwrap();
        assert_eq!(on_server.filename, path);
        assert_eq!(on_server.bytes, std::fs::read(outputs.join(path)).unwrap());
    }
    assert_eq!(files[0]["path"], "data/-raw.csv");
    assert_eq!(files[1]["path"], "summary.md");
    // In text: one line per file and a summary.
    let out = run_byoc(&api, cwd.path(), &["--turn-start", &an_hour_ago()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].starts_with("uploaded data/-raw.csv file_"),
        "{text}"
    );
    assert_eq!(lines[2], "2 of 2 files uploaded");
}

#[test]
fn a_refused_batch_exits_1_with_the_count_and_the_limit_and_sends_nothing() {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let cwd = tempfile::tempdir().unwrap();
    let outputs = cwd.path().join("out");
    for i in 0..3 {
        write(&outputs, &format!("f{i}.txt"), b"x");
    }
    let outputs_arg = outputs.to_str().unwrap();
    let args = [
        "--turn-start",
        &an_hour_ago(),
        "--outputs",
        outputs_arg,
        "--max-files",
        "2",
        "--json",
    ];
    let out = run_byoc(&api, cwd.path(), &args);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = json(&out);
    assert_eq!(report["ran"], true);
    assert_eq!(report["limit"]["count"], 3);
    assert_eq!(report["limit"]["limit"], 2);
    assert!(
        report["reason"]
            .as_str()
            .unwrap()
            .contains("over the limit of 2")
    );
    assert_eq!(api.request_count(), 0);
}

#[test]
fn a_file_with_a_secret_fails_the_run_unless_the_scan_is_off() {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let cwd = tempfile::tempdir().unwrap();
    let outputs = cwd.path().join(SESSION).join("outputs");
    let token = "ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS";
    write(
        &outputs,
        "notes.txt",
        format!("token: {token}\n").as_bytes(),
    );
    let out = run_byoc(
        &api,
        cwd.path(),
        &["--turn-start", &an_hour_ago(), "--json"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = json(&out);
    let error = report["files"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("github-pat") && error.contains("line 1"),
        "{error}"
    );
    assert!(!stdout(&out).contains(token) && !stderr(&out).contains(token));
    assert!(api.stored().is_empty());
    let args = ["--turn-start", &an_hour_ago(), "--json", "--no-secret-scan"];
    let out = run_byoc(&api, cwd.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(api.stored().len(), 1);
}

#[test]
fn a_session_id_that_is_a_path_is_refused_with_status_3() {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let cwd = tempfile::tempdir().unwrap();
    let mut vars = byoc(&api);
    vars.retain(|(k, _)| *k != "CLAUDE_CODE_REMOTE_SESSION_ID");
    vars.push(("CLAUDE_CODE_REMOTE_SESSION_ID", "../..".into()));
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let out = persist(cwd.path(), &vars, &["--turn-start", "0"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with("memdir: ") && err.trim().lines().count() == 1,
        "{err}"
    );
    assert_eq!(api.request_count(), 0);
}

#[test]
fn bad_arguments_are_usage_errors_and_help_has_an_example() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["--turn-start", "soon"][..],
        &[],
        &["--turn-start", "0", "--concurrency", "0"],
    ] {
        let out = persist(dir.path(), &[], args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    let out = persist(dir.path(), &[], &["--help"]);
    assert!(out.status.success());
    let help = stdout(&out);
    assert!(help.contains("memdir persist --turn-start"), "{help}");
    assert!(help.contains("JSON: {ran, reason?"), "{help}");
}

/// `text` in UTF-16, little-endian with a byte-order mark, as Windows
/// editors save it.
fn utf16le_with_bom(text: &str) -> Vec<u8> {
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    bytes
}

#[test]
fn a_secret_in_latin1_utf16_or_after_a_nul_byte_is_found_and_not_uploaded() {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let cwd = tempfile::tempdir().unwrap();
    let outputs = cwd.path().join(SESSION).join("outputs");
    let token = "ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS";
    let aws = "AKIAZ4Q7WXRTLMN3KPV2";
    // Latin-1: `é` is the single byte 0xE9, which is not UTF-8.
    let mut latin1 = b"# caf\xe9\n".to_vec();
    latin1.extend_from_slice(format!("GITHUB_TOKEN={token}\n").as_bytes());
    write(&outputs, "deploy.env", &latin1);
    write(
        &outputs,
        "notes.txt",
        &utf16le_with_bom(&format!("Notes\r\naws_access_key_id = {aws}\r\n")),
    );
    // A NUL byte first, then text; the name is one gitleaks lets go by
    // its extension, which must not exempt what is uploaded.
    let mut nul_first = b"\0".to_vec();
    nul_first.extend_from_slice(format!("token: {token}\n").as_bytes());
    write(&outputs, "blob.bin", &nul_first);
    write(
        &outputs,
        "clean.md",
        "# Résumé\n\nNothing to hide.\n".as_bytes(),
    );
    let out = run_byoc(
        &api,
        cwd.path(),
        &["--turn-start", &an_hour_ago(), "--json"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = json(&out);
    let error_of = |path: &str| -> String {
        let file = report["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == path)
            .unwrap_or_else(|| panic!("{path} not in {report}"));
        assert!(file.get("id").is_none(), "{file}");
        file["error"].as_str().unwrap().to_owned()
    };
    for (path, rule) in [
        ("deploy.env", "github-pat"),
        ("notes.txt", "aws-access-token"),
        ("blob.bin", "github-pat"),
    ] {
        let error = error_of(path);
        assert!(
            error.contains("not uploaded") && error.contains(rule),
            "{path}: {error}"
        );
    }
    let names: Vec<String> = api.stored().into_iter().map(|f| f.filename).collect();
    assert_eq!(names, ["clean.md"]);
    for text in [stdout(&out), stderr(&out)] {
        assert!(!text.contains(token) && !text.contains(aws), "{text}");
    }
    // In text, each refused file is named with its rule.
    let out = run_byoc(&api, cwd.path(), &["--turn-start", &an_hour_ago()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.lines()
            .any(|l| l.starts_with("failed notes.txt: ") && l.contains("aws-access-token")),
        "{text}"
    );
    assert!(text.contains("1 of 4 files uploaded, 3 failed"), "{text}");
}
