//! Checking citations against a project: paths, identifiers, flags, the budget.

use std::fs;
use std::path::Path;
use std::time::Duration;

use memdir_citations::{Broken, Checked, Checker, Verdict, extract_citations, note};

const LONG: Duration = Duration::from_secs(30);

/// A small project: a billing module, a main with a flag, an ignored
/// build folder.
pub(crate) fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fs::create_dir_all(root.join("src/billing")).expect("mkdir");
    fs::write(
        root.join("src/billing/retries.rs"),
        "pub struct RetryPolicy;\npub fn parse_retry_after() {}\n",
    )
    .expect("write");
    fs::write(
        root.join("src/main.rs"),
        "// accepts --legacy-auth\nfn main() {}\n",
    )
    .expect("write");
    fs::write(root.join(".gitignore"), "target/\n").expect("write");
    fs::create_dir_all(root.join("target")).expect("mkdir");
    fs::write(root.join("target/gen.rs"), "fn only_in_ignored() {}\n").expect("write");
    dir
}

fn check(root: &Path, body: &str) -> Vec<Checked> {
    Checker::new(root)
        .expect("checker")
        .check(&extract_citations(body), LONG)
}

fn verdicts(checked: &[Checked]) -> Vec<(&str, Verdict)> {
    checked
        .iter()
        .map(|c| (c.citation.text.as_str(), c.verdict))
        .collect()
}

#[test]
fn renamed_file_removed_identifier_and_present_flag() {
    let dir = project();
    let checked = check(
        dir.path(),
        "`src/billing/retry.rs` has `RetryPolicy` and `parse_retry_after`; `backoff_ms` is gone; `--legacy-auth`.",
    );
    assert_eq!(
        verdicts(&checked),
        [
            (
                "src/billing/retry.rs",
                Verdict::Broken(Broken::DoesNotExist)
            ),
            ("RetryPolicy", Verdict::Holds),
            ("parse_retry_after", Verdict::Holds),
            ("backoff_ms", Verdict::Broken(Broken::OccursNowhere)),
            ("--legacy-auth", Verdict::Holds),
        ]
    );
    assert_eq!(
        note(&checked).as_deref(),
        Some("cites `src/billing/retry.rs`, which does not exist now; `backoff_ms` occurs nowhere")
    );
}

#[test]
fn all_holding_gives_no_note() {
    let dir = project();
    let checked = check(
        dir.path(),
        "`src/billing/retries.rs`, `src/billing/`, `RetryPolicy`.",
    );
    assert!(
        checked.iter().all(|c| c.verdict == Verdict::Holds),
        "{checked:?}"
    );
    assert_eq!(note(&checked), None);
}

#[test]
fn gitignored_and_hidden_files_do_not_count() {
    let dir = project();
    fs::create_dir_all(dir.path().join(".cache")).expect("mkdir");
    fs::write(dir.path().join(".cache/x.rs"), "only_in_hidden").expect("write");
    let checked = check(dir.path(), "`only_in_ignored` `only_in_hidden`");
    assert_eq!(
        verdicts(&checked),
        [
            ("only_in_ignored", Verdict::Broken(Broken::OccursNowhere)),
            ("only_in_hidden", Verdict::Broken(Broken::OccursNowhere)),
        ]
    );
    // Citing the ignored file does not make it count either.
    let checked = check(dir.path(), "`target/gen.rs` `only_in_ignored`");
    assert_eq!(checked[1].verdict, Verdict::Broken(Broken::OccursNowhere));
}

#[test]
fn binary_files_do_not_count() {
    let dir = project();
    fs::write(dir.path().join("blob.bin"), b"\0\0binary_only_name\0").expect("write");
    let checked = check(dir.path(), "`binary_only_name`");
    assert_eq!(checked[0].verdict, Verdict::Broken(Broken::OccursNowhere));
}

#[test]
fn the_memory_folder_inside_the_project_is_not_the_project() {
    let dir = project();
    let memory = dir.path().join("memory");
    fs::create_dir_all(&memory).expect("mkdir");
    fs::write(memory.join("note.md"), "`self_cited_name`").expect("write");
    let checker = Checker::new(dir.path()).expect("checker").exclude(&memory);
    let checked = checker.check(
        &extract_citations("`self_cited_name` `memory/note.md`"),
        LONG,
    );
    assert_eq!(checked[0].verdict, Verdict::Broken(Broken::OccursNowhere));
    assert_eq!(checked[1].verdict, Verdict::Unchecked);
}

#[test]
fn a_symlink_loop_does_not_hang() {
    let dir = project();
    std::os::unix::fs::symlink(dir.path(), dir.path().join("src/loop")).expect("symlink");
    std::os::unix::fs::symlink("a", dir.path().join("b")).expect("symlink");
    std::os::unix::fs::symlink("b", dir.path().join("a")).expect("symlink");
    let checked = check(dir.path(), "`never_anywhere` `RetryPolicy`");
    assert_eq!(
        verdicts(&checked),
        [
            ("never_anywhere", Verdict::Broken(Broken::OccursNowhere)),
            ("RetryPolicy", Verdict::Holds),
        ]
    );
}

#[test]
fn a_zero_budget_leaves_everything_unchecked() {
    let dir = project();
    let checked = Checker::new(dir.path()).expect("checker").check(
        &extract_citations("`src/gone.rs` `never_anywhere` `--legacy-auth`"),
        Duration::ZERO,
    );
    assert!(
        checked.iter().all(|c| c.verdict == Verdict::Unchecked),
        "{checked:?}"
    );
    assert_eq!(note(&checked), None);
}

#[test]
fn a_fifo_is_not_read_and_leaves_the_search_unsettled() {
    let dir = project();
    std::fs::create_dir_all(dir.path().join("io")).expect("mkdir");
    let fifo = dir.path().join("io/pipe.rs");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(status.success());
    // The walk sees a FIFO as no file; a citation of it still exists.
    let checked = check(dir.path(), "`io/pipe.rs` `never_anywhere`");
    assert_eq!(checked[0].verdict, Verdict::Holds);
    assert_eq!(checked[1].verdict, Verdict::Broken(Broken::OccursNowhere));
}

#[test]
fn absolute_paths_inside_and_outside_the_root() {
    let dir = project();
    let root = fs::canonicalize(dir.path()).expect("canonical");
    let inside = format!(
        "`{}/src/main.rs` `{}/src/nope.rs` `/etc/hosts.conf`",
        root.display(),
        root.display()
    );
    let checked = check(dir.path(), &inside);
    let got: Vec<Verdict> = checked.iter().map(|c| c.verdict).collect();
    assert_eq!(
        got,
        [
            Verdict::Holds,
            Verdict::Broken(Broken::DoesNotExist),
            Verdict::Unchecked
        ]
    );
}

#[test]
fn a_root_that_is_not_a_folder_is_an_error() {
    let dir = project();
    let err = Checker::new(dir.path().join("src/main.rs")).expect_err("a file");
    assert!(err.to_string().contains("is not a folder"), "{err}");
    assert!(Checker::new(dir.path().join("missing")).is_err());
}
