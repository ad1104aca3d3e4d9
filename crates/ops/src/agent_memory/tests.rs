//! The renderer of what an agent is given of a memory, and the two use
//! cases that read a memory for an agent, on a real folder.

use std::time::SystemTime;

use super::*;
use crate::{Environment, ProjectOptions};

const DAY: i64 = 86_400_000;
const NOW: i64 = 1_795_000_000_000;

/// The ISO 8601 form of `ms`.
fn iso(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms).unwrap().to_string()
}

/// A memory file with `modified` (when given) and `body`.
fn memory_text(modified: Option<i64>, body: &str) -> String {
    let modified = modified.map_or(String::new(), |ms| format!("modified: {}\n", iso(ms)));
    format!(
        "---\nname: deploys\ndescription: Deploys go through staging\ntype: project\n{modified}---\n{body}"
    )
}

/// `text` rendered as read at `mtime`, at [`NOW`].
fn render(text: &str, mtime: Option<i64>, cited: Option<&str>) -> AgentMemory {
    MemoryRead::new(
        "/m/deploys.md".into(),
        "deploys.md".to_owned(),
        text.to_owned(),
        mtime,
    )
    .render(cited, NOW)
}

/// A body of `n` characters in lines of 50.
fn long_body(n: usize) -> String {
    let line = format!("{}\n", "x".repeat(49));
    line.repeat(n / 50)
}

#[test]
fn the_recorded_modified_time_decides_the_age_not_the_mtime() {
    // A cloned folder: the mtime is the checkout, `modified` the write.
    let m = render(
        &memory_text(Some(NOW - 40 * DAY), "Deploy to staging first.\n"),
        Some(NOW - 60_000),
        None,
    );
    assert_eq!(m.time_ms, NOW - 40 * DAY);
    assert_eq!(m.age_days, 40);
    assert_eq!(m.age_text, "40 days ago");
    let note = m.freshness_note.as_deref().unwrap();
    assert!(
        note.starts_with("<system-reminder>This memory is 40 days old."),
        "{note}"
    );
    assert!(
        m.text.starts_with(&format!(
            "## deploys.md (/m/deploys.md, saved 40 days ago)\n{note}\n---\nname: deploys\n"
        )),
        "{}",
        m.text
    );
    assert_eq!(m.name.as_deref(), Some("deploys"));
    assert_eq!(m.memory_type, Some(MemoryType::Project));
    assert_eq!(m.description.as_deref(), Some("Deploys go through staging"));
}

#[test]
fn a_modified_time_in_the_future_counts_as_now() {
    let m = render(
        &memory_text(Some(NOW + 3 * DAY), "x\n"),
        Some(NOW - 30 * DAY),
        None,
    );
    assert_eq!((m.time_ms, m.age_days), (NOW, 0));
    assert_eq!(m.age_text, "today");
    assert_eq!(m.freshness_note, None);
}

#[test]
fn without_a_valid_modified_time_the_mtime_decides() {
    let m = render(&memory_text(None, "x\n"), Some(NOW - 10 * DAY), None);
    assert_eq!((m.age_days, m.age_text.as_str()), (10, "10 days ago"));
    let bad =
        memory_text(None, "x\n").replace("type: project\n", "type: project\nmodified: last week\n");
    let m = render(&bad, Some(NOW - 2 * DAY), None);
    assert_eq!(m.age_text, "2 days ago");
    assert!(m.freshness_note.is_some());
    // No time at all (the file vanished after the read): now.
    let m = render(&memory_text(None, "x\n"), None, None);
    assert_eq!(m.age_text, "today");
    assert_eq!(m.freshness_note, None);
}

#[test]
fn a_short_memory_is_given_whole() {
    let text = memory_text(None, "Deploy to staging first.\n\n\n");
    let m = render(&text, Some(NOW), None);
    assert!(!m.truncated);
    assert_eq!(m.content, text.trim_end());
    assert_eq!(
        m.text,
        format!(
            "## deploys.md (/m/deploys.md, saved today)\n{}\n",
            text.trim_end()
        )
    );
}

#[test]
fn a_long_memory_is_cut_at_a_line_to_the_one_cap_with_a_note() {
    let text = memory_text(None, &long_body(5_000));
    let total = text.trim_end().chars().count();
    let m = render(&text, Some(NOW), None);
    assert!(m.truncated);
    let chars = m.content.chars().count();
    assert!(chars <= MAX_AGENT_MEMORY_CHARS, "{chars}");
    // Nearly all of the cap is used: only the note's room is left out.
    assert!(chars > MAX_AGENT_MEMORY_CHARS - 200, "{chars}");
    let (kept, note) = m.content.rsplit_once('\n').unwrap();
    assert!(kept.starts_with("---\nname: deploys\n"), "{kept}");
    let body_lines: Vec<&str> = kept.lines().skip(5).collect();
    assert!(
        body_lines.iter().all(|l| *l == "x".repeat(49)),
        "cut inside a line: {kept}"
    );
    let left_out = total - kept.chars().count() - 1;
    assert_eq!(note, memory_cut_note(left_out));
    assert!(note.contains("1800 characters"), "{note}");
    assert!(m.text.ends_with(&format!("{note}\n")), "{}", m.text);
}

#[test]
fn a_citation_note_goes_between_the_freshness_note_and_the_text() {
    let text = memory_text(None, "See `src/retry.rs`.\n");
    let m = render(
        &text,
        Some(NOW - 5 * DAY),
        Some("cites `src/retry.rs`, which does not exist now"),
    );
    let cited = m.citation_note.clone().unwrap();
    assert_eq!(
        cited,
        citation_reminder("cites `src/retry.rs`, which does not exist now")
    );
    let freshness = m.freshness_note.clone().unwrap();
    assert_eq!(
        m.text,
        format!(
            "## deploys.md (/m/deploys.md, saved 5 days ago)\n{freshness}\n{cited}\n{}\n",
            text.trim_end()
        )
    );
}

#[test]
fn cut_to_fit_never_goes_over_nor_splits_a_character() {
    let note = |n: usize| format!("[{n} left out]");
    for (text, max) in [
        ("é".repeat(5_000), 1_800),
        ("line of text\n".repeat(2_000), 10_000),
        (format!("{}\n{}", "a".repeat(30), "b".repeat(3_000)), 100),
        ("ab\n".repeat(10), 18),
    ] {
        let total = text.chars().count();
        let cut = cut_to_fit(&text, max, note).unwrap();
        assert!(cut.chars().count() <= max, "{max}: {cut:?}");
        let (kept, last) = cut.rsplit_once('\n').unwrap();
        let kept_chars = kept.chars().count() + usize::from(text[kept.len()..].starts_with('\n'));
        assert_eq!(last, note(total - kept_chars), "{max}: {cut:?}");
        assert!(text.starts_with(kept), "{max}");
    }
    assert_eq!(cut_to_fit("fits", 4, note), None);
}

// ---- the use cases, on a real folder ----

fn project(dir: &std::path::Path) -> Project {
    Project::open(
        Environment::new().with_home(dir.join("home")),
        &ProjectOptions {
            dir: Some(dir.to_path_buf()),
            memory_dir: Some(dir.join("memory")),
            settings_file: None,
        },
    )
    .unwrap()
}

/// Writes `memory/deploys.md` recorded as written 40 days ago (and an
/// hour, so that the day does not turn during the test), with a fresh
/// mtime and a body of 5,000 characters.
fn write_old_long_memory(dir: &std::path::Path) -> std::path::PathBuf {
    let folder = dir.join("memory");
    std::fs::create_dir_all(&folder).unwrap();
    let now = unix_millis(SystemTime::now());
    let path = folder.join("deploys.md");
    std::fs::write(
        &path,
        memory_text(
            Some(now - 40 * DAY - 3_600_000),
            &format!("How we deploy to staging.\n{}", long_body(5_000)),
        ),
    )
    .unwrap();
    path
}

#[test]
fn read_and_recall_give_an_agent_the_same_memory() {
    let tmp = memdir_testkit::Folders::new();
    let project = project(tmp.root.as_path());
    let path = write_old_long_memory(tmp.root.as_path());
    let read = project
        .read_memory_for_agent(Scope::Private, "deploys.md")
        .unwrap();
    assert_eq!(read.age_days, 40);
    assert!(read.truncated);
    assert!(
        read.text
            .contains("saved 40 days ago)\n<system-reminder>This memory is 40 days old.")
    );
    let recall = project
        .recall_for_agent(&RecallRequest {
            query: "how do we deploy to staging".to_owned(),
            ..RecallRequest::default()
        })
        .unwrap();
    assert_eq!(recall.memories.len(), 1, "{recall:?}");
    assert_eq!(recall.memories[0], read);
    assert_eq!(
        std::fs::canonicalize(&read.path).unwrap(),
        std::fs::canonicalize(path).unwrap()
    );
}

#[test]
fn what_is_not_a_memory_file_is_not_found() {
    let tmp = memdir_testkit::Folders::new();
    let project = project(tmp.root.as_path());
    // No folder yet.
    let err = project
        .read_memory_for_agent(Scope::Private, "deploys.md")
        .unwrap_err();
    assert!(
        matches!(err, OpsError::NotFound { ref file, .. } if file == "deploys.md"),
        "{err}"
    );
    write_old_long_memory(tmp.root.as_path());
    std::fs::write(tmp.root.as_path().join("outside.md"), "secret outside").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        tmp.root.as_path().join("outside.md"),
        tmp.root.as_path().join("memory/link.md"),
    )
    .unwrap();
    std::fs::create_dir(tmp.root.as_path().join("memory/folder.md")).unwrap();
    for file in ["missing.md", "link.md", "folder.md"] {
        let err = project
            .read_memory_for_agent(Scope::Private, file)
            .unwrap_err();
        assert!(matches!(err, OpsError::NotFound { .. }), "{file}: {err}");
    }
    let err = project
        .read_memory_for_agent(Scope::Private, "../outside.md")
        .unwrap_err();
    assert!(err.is_refusal(), "{err}");
}

#[test]
fn a_file_over_the_read_limit_is_given_cut_not_refused() {
    let tmp = memdir_testkit::Folders::new();
    let project = project(tmp.root.as_path());
    std::fs::create_dir_all(tmp.root.as_path().join("memory")).unwrap();
    let big = memory_text(None, &long_body(3_000_000));
    assert!(big.len() as u64 > MAX_MEMORY_BYTES);
    std::fs::write(tmp.root.as_path().join("memory/deploys.md"), big).unwrap();
    let m = project
        .read_memory_for_agent(Scope::Private, "deploys.md")
        .unwrap();
    assert!(m.truncated);
    assert!(m.content.chars().count() <= MAX_AGENT_MEMORY_CHARS);
}
