//! `memdir log`: today's daily log, appended to under the folder's lock.

use memdir_testkit::Folders;
use serde_json::Value;

use crate::{memdir_in, stderr, stdout};

fn log(f: &Folders, memory: &std::path::Path, text: &[&str]) -> std::process::Output {
    let home = f.home.display().to_string();
    let mut args = vec!["log", "--json", "--memory-dir", memory.to_str().unwrap()];
    args.extend_from_slice(text);
    memdir_in(&f.project, &[("HOME", home.as_str())], args)
}

#[test]
fn an_entry_lands_in_todays_log_as_a_timestamped_bullet() {
    let f = Folders::new();
    let memory = f.root.join("memory");
    let out = log(&f, &memory, &["staging needs", "the VPN\nfirst"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let path = report["path"].as_str().unwrap();
    let today = jiff::ZonedDateTime::now().date();
    let expected = memory
        .join("logs")
        .join(format!("{:04}", today.year()))
        .join(format!("{:02}", today.month()))
        .join(format!("{today}.md"));
    assert_eq!(std::path::Path::new(path), expected);
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{text}");
    let (stamp, rest) = lines[0]
        .strip_prefix("- ")
        .and_then(|l| l.split_once(" — "))
        .unwrap_or_else(|| panic!("not a bullet: {text}"));
    assert_eq!(stamp.len(), 5, "{stamp}");
    assert_eq!(&stamp[2..3], ":");
    assert!(stamp[..2].parse::<u8>().unwrap() < 24);
    assert!(stamp[3..].parse::<u8>().unwrap() < 60);
    assert_eq!(rest, "staging needs the VPN first");
    // A second entry is appended, the first is kept.
    let out = log(&f, &memory, &["second"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.lines().nth(1).unwrap().ends_with(" — second"));
    // No index line is made for a log.
    assert!(
        !memory.join("MEMORY.md").exists() || {
            let index = std::fs::read_to_string(memory.join("MEMORY.md")).unwrap();
            !index.contains("logs/")
        }
    );
}

#[test]
fn an_empty_entry_is_refused_and_nothing_is_written() {
    let f = Folders::new();
    let memory = f.root.join("memory");
    let out = log(&f, &memory, &["  \n "]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    assert!(!memory.join("logs").exists());
}

#[test]
fn concurrent_entries_are_all_kept_once() {
    let f = Folders::new();
    let memory = f.root.join("memory");
    let home = f.home.display().to_string();
    let children: Vec<_> = (0..10)
        .map(|i| {
            let mut cmd = crate::command(
                &f.project,
                &[("HOME", home.as_str())],
                [
                    "log".to_owned(),
                    "--memory-dir".to_owned(),
                    memory.display().to_string(),
                    format!("entry number {i}"),
                ],
            );
            cmd.stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect();
    let mut path = None;
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        path = Some(stdout(&out).trim().to_owned());
    }
    let text = std::fs::read_to_string(path.unwrap()).unwrap();
    assert_eq!(text.lines().count(), 10, "{text}");
    for i in 0..10 {
        let want = format!(" — entry number {i}");
        assert_eq!(
            text.lines().filter(|l| l.ends_with(&want)).count(),
            1,
            "{i}: {text}"
        );
    }
}

#[cfg(unix)]
#[test]
fn writers_killed_at_any_moment_leave_whole_lines_and_lose_no_finished_one() {
    let f = Folders::new();
    let memory = f.root.join("memory");
    let home = f.home.display().to_string();
    let mut children: Vec<(usize, std::process::Child)> = (0..24)
        .map(|i| {
            let mut cmd = crate::command(
                &f.project,
                &[("HOME", home.as_str())],
                [
                    "log".to_owned(),
                    "--memory-dir".to_owned(),
                    memory.display().to_string(),
                    format!("entry number {i}"),
                ],
            );
            cmd.stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            (i, cmd.spawn().unwrap())
        })
        .collect();
    // Every third writer is killed after a different short while: before,
    // during or after its write.
    for (i, child) in &mut children {
        if *i % 3 == 0 {
            std::thread::sleep(std::time::Duration::from_millis((*i as u64 % 7) * 3));
            let _ = child.kill();
        }
    }
    let mut finished = Vec::new();
    for (i, child) in children {
        let out = child.wait_with_output().unwrap();
        if out.status.success() {
            finished.push(i);
        }
    }
    let today = jiff::ZonedDateTime::now().date();
    let file = memory
        .join("logs")
        .join(format!("{:04}", today.year()))
        .join(format!("{:02}", today.month()))
        .join(format!("{today}.md"));
    let text = std::fs::read_to_string(&file).unwrap();
    for line in text.lines() {
        assert!(
            line.starts_with("- ") && line.contains(" — entry number "),
            "a torn line: {line:?}\n{text}"
        );
    }
    for i in &finished {
        let want = format!(" — entry number {i}");
        assert_eq!(
            text.lines().filter(|l| l.ends_with(&want)).count(),
            1,
            "{i}: {text}"
        );
    }
    assert!(
        finished.len() >= 16,
        "the writers that were not killed all finished"
    );
    // A write after the kills goes through; a writer killed between its
    // temporary file and the rename can leave that file (a write sweeps
    // only those older than the stale age: a writer of `team/` holds
    // another lock), and the repair removes it.
    let out = log(&f, &memory, &["after the kills"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let home = f.home.display().to_string();
    let fix = crate::memdir_in(
        &f.project,
        &[("HOME", home.as_str())],
        [
            "index".to_owned(),
            "fix".to_owned(),
            memory.join("MEMORY.md").display().to_string(),
        ],
    );
    assert!(fix.status.success(), "{}", stderr(&fix));
    let leftovers: Vec<_> = std::fs::read_dir(file.parent().unwrap())
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("memdir-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
