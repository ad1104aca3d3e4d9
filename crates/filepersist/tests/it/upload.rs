//! Uploads against the Files API fake (R15.4, R15.5).

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use memdir_filepersist::{
    Credential, Enabled, FileError, FileOutcome, Outcome, PersistOptions, Reading, Report,
    UploadOptions, persist_files,
};
use memdir_testkit::files_api::{FakeAuth, Fault, FilesApi, Rule};

use crate::{age, turn_start, write};

const KEY: &str = "sk-ant-test-key-0123456789";
/// A token the secret scanner finds (github-pat).
const GITHUB_TOKEN: &str = "ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS";

fn enabled(api: &FilesApi, credential: Credential) -> Enabled {
    Enabled {
        credential,
        session_id: "s1".into(),
        base_url: api.url(),
    }
}

/// Options with short pauses, so that retries do not slow the tests.
fn options(concurrency: usize) -> PersistOptions {
    let mut options = PersistOptions::default();
    options.upload = fast_upload(concurrency);
    options
}

fn fast_upload(concurrency: usize) -> UploadOptions {
    let mut upload = UploadOptions::default();
    upload.concurrency = concurrency;
    upload.first_backoff = Duration::from_millis(10);
    upload.timeout = Duration::from_secs(20);
    upload
}

fn run(api: &FilesApi, root: &Path, options: &PersistOptions) -> Report {
    persist_files(
        &enabled(api, Credential::ApiKey(KEY.into())),
        turn_start(),
        root,
        options,
        &|_| {},
    )
    .unwrap()
}

fn files(report: &Report) -> &[FileOutcome] {
    match &report.outcome {
        Outcome::Uploaded(files) => files,
        other @ Outcome::Refused { .. } => panic!("not uploaded: {other}"),
    }
}

fn error_of<'a>(report: &'a Report, path: &str) -> &'a FileError {
    let outcome = files(report).iter().find(|f| f.path == path).unwrap();
    outcome.result.as_ref().unwrap_err()
}

#[test]
fn uploads_land_with_the_headers_and_the_exact_bytes() {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let dir = tempfile::tempdir().unwrap();
    let binary: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
    write(dir.path(), "report.md", b"# Q3\n");
    write(dir.path(), "charts/q3.bin", &binary);
    let report = run(&api, dir.path(), &options(5));
    assert!(report.outcome.all_uploaded(), "{:?}", report.outcome);
    let outcomes = files(&report);
    assert_eq!(outcomes.len(), 2);
    let stored = api.stored();
    for outcome in outcomes {
        let uploaded = outcome.result.as_ref().unwrap();
        let file = stored.iter().find(|f| f.id == uploaded.id).unwrap();
        assert_eq!(file.filename, outcome.path);
        assert_eq!(uploaded.filename, outcome.path);
        assert_eq!(uploaded.size_bytes, file.bytes.len() as u64);
        assert_eq!(uploaded.created_at, memdir_testkit::files_api::CREATED_AT);
    }
    let bin = stored
        .iter()
        .find(|f| f.filename == "charts/q3.bin")
        .unwrap();
    assert!(bin.bytes == binary);
    assert_eq!(bin.content_type, "application/octet-stream");
    let md = stored.iter().find(|f| f.filename == "report.md").unwrap();
    assert_eq!(md.content_type, "text/markdown");
    for request in api.requests() {
        assert_eq!(request.status, 200);
        assert_eq!(request.header("x-api-key"), Some(KEY));
        assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
        assert_eq!(
            request.header("anthropic-beta"),
            Some("files-api-2025-04-14")
        );
        assert_eq!(request.header("authorization"), None);
        assert!(
            request
                .header("content-type")
                .unwrap()
                .starts_with("multipart/form-data")
        );
    }
}

#[test]
fn a_session_token_is_sent_as_bearer() {
    let api = FilesApi::start(FakeAuth::Bearer("tok-abc".into()));
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", b"a");
    let report = persist_files(
        &enabled(&api, Credential::SessionToken("tok-abc".into())),
        turn_start(),
        dir.path(),
        &options(5),
        &|_| {},
    )
    .unwrap();
    assert!(report.outcome.all_uploaded(), "{:?}", report.outcome);
    let request = &api.requests()[0];
    assert_eq!(request.header("authorization"), Some("Bearer tok-abc"));
    assert_eq!(request.header("x-api-key"), None);
}

fn max_in_flight_with(limit: usize) -> usize {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    // The first requests wait until `limit` are in flight at once: the
    // limit is reached for sure, and a client sending more at once would
    // have them all in flight while the first ones wait.
    api.add_rule(Rule::always(Fault::Gate {
        in_flight: limit,
        timeout: Duration::from_secs(5),
    }));
    let dir = tempfile::tempdir().unwrap();
    for i in 0..limit * 2 {
        write(dir.path(), &format!("f{i:02}.txt"), b"x");
    }
    let report = run(&api, dir.path(), &options(limit));
    assert!(report.outcome.all_uploaded(), "{:?}", report.outcome);
    assert_eq!(api.stored().len(), limit * 2);
    api.max_in_flight()
}

#[test]
fn no_more_uploads_than_the_limit_are_in_flight() {
    assert_eq!(max_in_flight_with(5), 5);
    assert_eq!(max_in_flight_with(2), 2);
}

#[test]
fn a_429_with_retry_after_and_a_500_are_retried_until_they_succeed() {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    api.add_rule(
        Rule::for_file(
            "limited.txt",
            Fault::RateLimited {
                retry_after: Some("0".into()),
            },
        )
        .times(2),
    );
    api.add_rule(Rule::for_file("flaky.txt", Fault::Status(500)).times(1));
    api.add_rule(Rule::for_file("overloaded.txt", Fault::Status(529)).times(3));
    let dir = tempfile::tempdir().unwrap();
    for name in ["limited.txt", "flaky.txt", "overloaded.txt"] {
        write(dir.path(), name, name.as_bytes());
    }
    let report = run(&api, dir.path(), &options(1));
    assert!(report.outcome.all_uploaded(), "{:?}", report.outcome);
    let statuses = |name: &str| -> Vec<u16> {
        api.requests()
            .iter()
            .filter(|r| r.filename.as_deref() == Some(name))
            .map(|r| r.status)
            .collect()
    };
    assert_eq!(statuses("limited.txt"), [429, 429, 200]);
    assert_eq!(statuses("flaky.txt"), [500, 200]);
    assert_eq!(statuses("overloaded.txt"), [529, 529, 529, 200]);
}

#[test]
fn retries_stop_after_three_and_the_error_says_what_the_api_answered() {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    api.add_rule(Rule::for_file("down.txt", Fault::Status(503)));
    // A 429 without Retry-After (a spend limit) is not retried.
    api.add_rule(Rule::for_file(
        "spent.txt",
        Fault::RateLimited { retry_after: None },
    ));
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "down.txt", b"x");
    write(dir.path(), "spent.txt", b"x");
    let report = run(&api, dir.path(), &options(2));
    let down = error_of(&report, "down.txt");
    assert!(
        matches!(down, FileError::Status { status: 503, .. }),
        "{down}"
    );
    assert_eq!(
        down.to_string(),
        "the Files API answered 503 api_error: scripted failure"
    );
    let spent = error_of(&report, "spent.txt");
    assert!(
        matches!(spent, FileError::Status { status: 429, .. }),
        "{spent}"
    );
    let count = |name: &str| {
        api.requests()
            .iter()
            .filter(|r| r.filename.as_deref() == Some(name))
            .count()
    };
    assert_eq!(count("down.txt"), 4);
    assert_eq!(count("spent.txt"), 1);
}

#[test]
fn a_401_is_not_retried_and_never_shows_the_credential() {
    let api = FilesApi::start(FakeAuth::ApiKey("the-right-key".into()));
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", b"x");
    let report = run(&api, dir.path(), &options(5));
    assert_eq!(api.request_count(), 1);
    let err = error_of(&report, "a.txt");
    assert!(
        matches!(err, FileError::Status { status: 401, error_type: Some(t), .. } if t == "authentication_error"),
        "{err}"
    );
    let text = err.to_string();
    assert!(!text.contains(KEY) && !text.contains('\n'), "{text}");
    assert!(api.stored().is_empty());
}

#[test]
fn a_missing_beta_header_would_be_refused_by_the_fake() {
    // The fake's own checks are what the header tests rely on.
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let client =
        memdir_http::HttpClient::new(memdir_http::ClientConfig::new(Duration::from_secs(5)));
    let request = memdir_http::Multipart::new()
        .file("file", "a.txt", "text/plain", b"x".to_vec())
        .into_request(memdir_http::Url::parse(&format!("{}/v1/files", api.url())).unwrap())
        .unwrap()
        .header("x-api-key", KEY)
        .header("anthropic-version", "2023-06-01");
    let response = client.send(&request).unwrap();
    assert_eq!(response.status, 400);
    assert!(
        response.text().contains("\"type\":\"error\""),
        "{}",
        response.text()
    );
}

#[test]
fn a_timeout_is_retried_then_reported_on_one_line() {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    api.add_rule(Rule::for_file(
        "slow.txt",
        Fault::Delay(Duration::from_secs(3)),
    ));
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "slow.txt", b"x");
    let mut options = options(1);
    options.upload.timeout = Duration::from_millis(300);
    options.upload.max_retries = 1;
    let report = run(&api, dir.path(), &options);
    let err = error_of(&report, "slow.txt");
    assert!(matches!(err, FileError::Transport { .. }), "{err}");
    let text = err.to_string();
    assert!(text.contains("timed out") && !text.contains('\n'), "{text}");
    assert_eq!(api.request_count(), 2);
}

#[cfg(unix)]
#[test]
fn links_out_of_the_folder_and_fifos_are_never_uploaded() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "passwd", b"root:x:0:0");
    write(outside.path(), "tree/id_rsa", b"private");
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "real.txt", b"inside");
    std::os::unix::fs::symlink(outside.path().join("passwd"), root.join("passwd")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("tree"), root.join("tree")).unwrap();
    crate::mkfifo(&root.join("pipe.txt"));
    let report = run(&api, root, &options(5));
    assert!(report.outcome.all_uploaded(), "{:?}", report.outcome);
    let names: Vec<String> = api.stored().into_iter().map(|f| f.filename).collect();
    assert_eq!(names, ["real.txt"]);
    assert_eq!(report.found.skipped.len(), 3, "{:?}", report.found.skipped);
}

#[test]
fn a_file_older_than_the_turn_is_not_uploaded() {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "new.txt", b"new");
    write(dir.path(), "old.txt", b"old");
    age(dir.path(), "old.txt");
    let report = run(&api, dir.path(), &options(5));
    assert_eq!(files(&report).len(), 1);
    let names: Vec<String> = api.stored().into_iter().map(|f| f.filename).collect();
    assert_eq!(names, ["new.txt"]);
    assert_eq!(report.found.unchanged, 1);
}

#[test]
fn a_batch_over_the_limit_uploads_nothing_and_says_how_many() {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let dir = tempfile::tempdir().unwrap();
    for i in 0..4 {
        write(dir.path(), &format!("f{i}.txt"), b"x");
    }
    let mut options = options(5);
    options.file_count_limit = 3;
    let report = run(&api, dir.path(), &options);
    assert_eq!(report.outcome, Outcome::Refused { count: 4, limit: 3 });
    assert_eq!(
        report.outcome.to_string(),
        "4 files were modified in the outputs folder, over the limit of 3; nothing was uploaded"
    );
    assert!(!report.outcome.all_uploaded());
    assert_eq!(api.request_count(), 0);
    // At the limit, all go.
    options.file_count_limit = 4;
    assert!(run(&api, dir.path(), &options).outcome.all_uploaded());
    assert_eq!(api.stored().len(), 4);
}

#[test]
fn a_text_file_with_a_secret_stays_unless_the_scan_is_turned_off() {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let dir = tempfile::tempdir().unwrap();
    let env_file = format!("# config\nGITHUB_TOKEN={GITHUB_TOKEN}\n");
    write(dir.path(), "deploy.env", env_file.as_bytes());
    // Binary (a NUL first) is scanned too, whatever its name.
    let mut binary = b"\0\x01".to_vec();
    binary.extend_from_slice(GITHUB_TOKEN.as_bytes());
    write(dir.path(), "blob.bin", &binary);
    write(dir.path(), "clean.txt", b"nothing to see");
    let report = run(&api, dir.path(), &options(5));
    let err = error_of(&report, "deploy.env");
    assert_eq!(
        err,
        &FileError::Secret {
            rule_id: "github-pat".into(),
            line: 2,
            reading: Reading::Raw,
        }
    );
    assert!(!err.to_string().contains(GITHUB_TOKEN), "{err}");
    assert!(matches!(
        error_of(&report, "blob.bin"),
        FileError::Secret { rule_id, .. } if rule_id == "github-pat"
    ));
    let names: Vec<String> = api.stored().into_iter().map(|f| f.filename).collect();
    assert_eq!(names, ["clean.txt"]);
    // Opted out: it is uploaded as it is.
    let mut options = options(5);
    options.upload.scan_secrets = false;
    let report = run(&api, dir.path(), &options);
    assert!(report.outcome.all_uploaded(), "{:?}", report.outcome);
    let sent = api
        .stored()
        .into_iter()
        .find(|f| f.filename == "deploy.env")
        .unwrap();
    assert_eq!(sent.bytes, env_file.as_bytes());
}

#[test]
fn names_in_cjk_with_quotes_or_a_leading_dash_arrive_as_they_are() {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let dir = tempfile::tempdir().unwrap();
    let names = ["报告/第一季度.md", "-rf.txt", "--help", "say \"hi\".txt"];
    for name in names {
        write(dir.path(), name, name.as_bytes());
    }
    let report = run(&api, dir.path(), &options(5));
    assert!(report.outcome.all_uploaded(), "{:?}", report.outcome);
    for name in names {
        let file = api.stored().into_iter().find(|f| f.filename == name);
        assert_eq!(
            file.map(|f| f.bytes),
            Some(name.as_bytes().to_vec()),
            "{name}"
        );
    }
}

#[test]
fn a_file_over_the_size_cap_is_reported_and_not_sent() {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "big.bin", &[7u8; 64]);
    let mut options = options(5);
    options.upload.max_file_bytes = 63;
    let report = run(&api, dir.path(), &options);
    assert_eq!(
        error_of(&report, "big.bin"),
        &FileError::TooLarge {
            size: 64,
            limit: 63
        }
    );
    assert_eq!(api.request_count(), 0);
}

#[test]
fn each_outcome_is_reported_as_it_comes() {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let dir = tempfile::tempdir().unwrap();
    for i in 0..6 {
        write(dir.path(), &format!("f{i}.txt"), b"x");
    }
    let heard = Mutex::new(Vec::new());
    let report = persist_files(
        &enabled(&api, Credential::ApiKey(KEY.into())),
        turn_start(),
        dir.path(),
        &options(3),
        &|outcome| heard.lock().unwrap().push(outcome.path.clone()),
    )
    .unwrap();
    let mut heard = heard.into_inner().unwrap();
    heard.sort();
    let all: Vec<String> = files(&report).iter().map(|f| f.path.clone()).collect();
    assert_eq!(heard, all);
}

#[test]
fn nothing_to_upload_sends_nothing() {
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let dir = tempfile::tempdir().unwrap();
    let report = run(&api, &dir.path().join("outputs"), &options(5));
    assert_eq!(report.outcome, Outcome::Uploaded(Vec::new()));
    assert!(report.outcome.all_uploaded());
    assert_eq!(api.request_count(), 0);
}

#[cfg(unix)]
#[test]
fn a_file_or_folder_swapped_for_a_link_after_the_search_is_not_read() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.txt", b"outside");
    write(outside.path(), "sub/a.txt", b"outside");
    let api = FilesApi::start(FakeAuth::ApiKey(KEY.into()));
    let uploader = memdir_filepersist::Uploader::new(
        &api.url(),
        Credential::ApiKey(KEY.into()),
        fast_upload(2),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    // As if the search had found `a.txt` and `sub/a.txt`, and then both
    // were replaced by links leading out.
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("a.txt")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("sub"), root.join("sub")).unwrap();
    let outcomes = uploader.upload_all(&root, &["a.txt".into(), "sub/a.txt".into()], &|_| {});
    for outcome in &outcomes {
        assert_eq!(outcome.result, Err(FileError::Symlink), "{}", outcome.path);
    }
    // Gone since the search: reported, not an error of the run.
    let gone = uploader.upload_one(&root, "gone.txt");
    assert_eq!(gone.result, Err(FileError::Vanished));
    assert_eq!(api.request_count(), 0);
}
