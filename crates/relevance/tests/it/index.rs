//! The persistent recall index: the same choice as a scan, kept current as
//! files change under it, and a cache that heals.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use memdir_relevance::index::{Depth, RecallIndex};
use memdir_relevance::{LocalRanker, RecallOptions, find_relevant_memories};
use memdir_scan::{CancelToken, ScanOptions, scan_memory_dir};
use proptest::prelude::*;

use super::memory;

fn coding_sets() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/recall/coding");
    let mut sets: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("prompts.jsonl").is_file())
        .collect();
    sets.sort();
    sets
}

fn recall(query: &str, dir: &Path, index: Option<&Path>, abstain: bool) -> Vec<String> {
    let options = RecallOptions {
        index,
        abstain,
        ..RecallOptions::default()
    };
    let recall = find_relevant_memories(query, dir, &CancelToken::new(), &options).unwrap();
    assert!(
        recall.diagnostics.is_empty(),
        "{query}: {:?}",
        recall.diagnostics
    );
    recall.memories.into_iter().map(|m| m.filename).collect()
}

#[test]
fn recall_through_the_index_chooses_what_a_scan_chooses_on_the_coding_set() {
    let tmp = tempfile::tempdir().unwrap();
    let mut prompts = 0;
    for set in coding_sets() {
        let dir = set.join("memory");
        let db = tmp.path().join(format!(
            "{}.sqlite",
            set.file_name().unwrap().to_string_lossy()
        ));
        let text = fs::read_to_string(set.join("prompts.jsonl")).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            let prompt = value["prompt"].as_str().unwrap();
            for abstain in [true, false] {
                assert_eq!(
                    recall(prompt, &dir, Some(&db), abstain),
                    recall(prompt, &dir, None, abstain),
                    "{prompt:?} (abstain: {abstain})"
                );
            }
            prompts += 1;
        }
    }
    assert!(prompts >= 300, "{prompts} prompts");
}

#[test]
fn a_memory_written_by_another_program_is_found_at_the_next_recall() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    fs::create_dir(&dir).unwrap();
    let db = tmp.path().join("index.sqlite");
    memory(
        &dir,
        "tabs.md",
        "feedback",
        "Indent with tabs in Go files",
        "",
    );
    let q = "how do we deploy the billing service to staging";
    assert!(recall(q, &dir, Some(&db), true).is_empty());

    // A new file, as an agent's Write tool makes it.
    memory(
        &dir,
        "deploy-billing.md",
        "project",
        "Deploy the billing service to staging with make ship-staging",
        "",
    );
    assert_eq!(recall(q, &dir, Some(&db), true), ["deploy-billing.md"]);

    // Rewritten in place: same inode, the folder's mtime untouched.
    let path = dir.join("deploy-billing.md");
    let ino = inode(&path);
    {
        use std::io::Write as _;
        let mut f = fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        f.write_all(
            b"---\nname: lunch\ndescription: Lunch is at noon on Fridays\ntype: user\n---\n",
        )
        .unwrap();
    }
    assert_eq!(inode(&path), ino);
    assert_eq!(
        recall(q, &dir, Some(&db), true),
        recall(q, &dir, None, true)
    );
    assert_eq!(
        recall("when is lunch on fridays", &dir, Some(&db), true),
        ["deploy-billing.md"]
    );

    // Deleted: never returned again.
    fs::remove_file(&path).unwrap();
    assert!(recall("when is lunch on fridays", &dir, Some(&db), true).is_empty());

    // A new subfolder, and one removed.
    fs::create_dir(dir.join("team")).unwrap();
    memory(
        &dir.join("team"),
        "oncall.md",
        "project",
        "The on-call rotation changes every Monday at 10:00",
        "",
    );
    assert_eq!(
        recall("who is on call this monday rotation", &dir, Some(&db), true),
        ["team/oncall.md"]
    );
    fs::remove_dir_all(dir.join("team")).unwrap();
    assert!(recall("who is on call this monday rotation", &dir, Some(&db), true).is_empty());
}

/// Rewrites `path` in place at the same size (same inode, the folder's
/// mtime untouched), with the description `description`, and dates it
/// `age` ago: what an edit tool that writes into the file does.
fn rewrite_in_place(path: &Path, old: &str, description: &str, age: std::time::Duration) {
    use std::io::Write as _;
    let text = fs::read_to_string(path).unwrap();
    assert!(description.len() <= old.len());
    let new = text.replace(old, &format!("{description:<width$}", width = old.len()));
    assert_eq!(new.len(), text.len());
    let mut f = fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all(new.as_bytes()).unwrap();
    f.set_modified(std::time::SystemTime::now() - age).unwrap();
}

#[test]
fn a_memory_rewritten_in_place_ranks_on_its_new_text_at_the_next_recall_in_a_folder_of_512() {
    use std::time::{Duration, SystemTime};
    for (fillers, within) in [(400usize, 1usize), (700, 700usize.div_ceil(128) + 1)] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("memory");
        fs::create_dir(&dir).unwrap();
        let db = tmp.path().join("index.sqlite");
        let old = "Lunch is at noon on Fridays in the atrium";
        for i in 0..fillers {
            memory(
                &dir,
                &format!("filler-{i:04}.md"),
                "project",
                &format!("Widget note {i}"),
                "",
            );
        }
        memory(&dir, "target.md", "user", old, "");
        // Every file an hour old: none too recent for the index to trust.
        for entry in fs::read_dir(&dir).unwrap() {
            let f = fs::File::options()
                .write(true)
                .open(entry.unwrap().path())
                .unwrap();
            f.set_modified(SystemTime::now() - Duration::from_secs(3600))
                .unwrap();
        }
        let q = "when are tacos served on tuesday";
        assert!(recall(q, &dir, Some(&db), false).is_empty());
        rewrite_in_place(
            &dir.join("target.md"),
            old,
            "Tacos are served on Tuesday",
            Duration::from_secs(1800),
        );
        let found_at = (1..=within).find(|_| recall(q, &dir, Some(&db), false) == ["target.md"]);
        assert!(
            found_at.is_some(),
            "{fillers} memories: the rewrite was not seen within {within} recalls"
        );
    }
}

/// In a folder too large to list at every recall, the listing a changed
/// directory needs is left to a background refresh, and the recall says
/// so; the write an agent's hook settles is listed at once.
#[test]
fn above_the_foreground_limit_a_changed_folder_is_listed_by_the_refresh_not_the_recall() {
    use memdir_relevance::index::LIST_IN_FOREGROUND_UP_TO;
    use std::time::{Duration, SystemTime};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    fs::create_dir(&dir).unwrap();
    let db = tmp.path().join("index.sqlite");
    let fillers = usize::try_from(LIST_IN_FOREGROUND_UP_TO).unwrap() + 1;
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    for i in 0..fillers {
        let path = dir.join(format!("n{i}.md"));
        fs::write(&path, format!("---\ndescription: widget {i}\n---\n")).unwrap();
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
    }
    // The folder's own time past the 20 ms in which it is not trusted.
    std::thread::sleep(Duration::from_millis(30));
    let mut index = RecallIndex::open(&db, &dir).unwrap();
    index.reconcile(Depth::Full, &mut |_| {}).unwrap();
    let q = "how do we deploy the billing service to staging";
    let recall_with_notes = || {
        let options = RecallOptions {
            index: Some(&db),
            abstain: false,
            ..RecallOptions::default()
        };
        let r = find_relevant_memories(q, &dir, &CancelToken::new(), &options).unwrap();
        let names: Vec<String> = r.memories.into_iter().map(|m| m.filename).collect();
        (names, r.diagnostics, r.index_refresh_due)
    };
    let (names, notes, due) = recall_with_notes();
    assert!(!names.contains(&"deploy.md".to_owned()));
    assert!(notes.is_empty(), "{notes:?}");
    assert!(!due);

    // Another program adds a memory: the recall does not list the folder,
    // says so, and asks for the refresh.
    memory(
        &dir,
        "deploy.md",
        "project",
        "Deploy the billing service to staging with make ship-staging",
        "",
    );
    std::thread::sleep(Duration::from_millis(30));
    let (names, notes, due) = recall_with_notes();
    assert!(!names.contains(&"deploy.md".to_owned()), "{names:?}");
    assert!(
        notes
            .iter()
            .any(|n| n.contains("listed again in the background")),
        "{notes:?}"
    );
    assert!(due);
    let mut index = RecallIndex::open(&db, &dir).unwrap();
    let report = index.reconcile(Depth::Recall, &mut |_| {}).unwrap();
    assert_eq!((report.deferred, report.listed, report.added), (1, 0, 0));

    // The refresh lists it; the next recall finds it, with nothing to say.
    let report = index.refresh(&mut |_| {}).unwrap();
    assert_eq!(report.added, 1);
    let (names, notes, _) = recall_with_notes();
    assert_eq!(names.first().map(String::as_str), Some("deploy.md"));
    assert!(notes.is_empty(), "{notes:?}");

    // An agent's write that its hook settles is listed then and there.
    memory(&dir, "lunch.md", "user", "Lunch is at noon on Fridays", "");
    let report = index.settle_after_write(&["lunch.md".to_owned()]).unwrap();
    assert_eq!(report.deferred, 0);
    let report = index.reconcile(Depth::Recall, &mut |_| {}).unwrap();
    assert_eq!((report.deferred, report.listed), (0, 0));
}

#[cfg(unix)]
fn inode(path: &Path) -> u64 {
    std::os::unix::fs::MetadataExt::ino(&fs::metadata(path).unwrap())
}

#[cfg(not(unix))]
fn inode(_: &Path) -> u64 {
    0
}

#[test]
fn a_damaged_index_is_rebuilt_and_says_so_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    fs::create_dir(&dir).unwrap();
    memory(
        &dir,
        "deploy.md",
        "project",
        "Never deploy on Fridays; ship with make ship",
        "",
    );
    let db = tmp.path().join("index.sqlite");
    let q = "how do we deploy this service";
    assert_eq!(recall(q, &dir, Some(&db), true), ["deploy.md"]);
    let len = fs::metadata(&db).unwrap().len();
    let damages: [(bool, Damage); 4] = [
        (true, |db: &Path, _len: u64| {
            fs::write(db, b"this is not a database").unwrap();
        }),
        (true, |db: &Path, len: u64| {
            let f = fs::OpenOptions::new().write(true).open(db).unwrap();
            f.set_len(len / 2).unwrap();
        }),
        (true, |db: &Path, _len: u64| {
            // Garbage over every page after the first.
            let mut bytes = fs::read(db).unwrap();
            for b in bytes.iter_mut().skip(4096) {
                *b = 0xA5;
            }
            fs::write(db, bytes).unwrap();
        }),
        (false, |db: &Path, _len: u64| fs::remove_file(db).unwrap()),
    ];
    for (damaged, damage) in damages {
        // Fold the write-ahead log into the file first (a refresh does),
        // so that the damage is to what the index holds.
        RecallIndex::open(&db, &dir)
            .unwrap()
            .reconcile(Depth::Full, &mut |_| {})
            .unwrap();
        damage(&db, len);
        let options = RecallOptions {
            index: Some(&db),
            ..RecallOptions::default()
        };
        let first = find_relevant_memories(q, &dir, &CancelToken::new(), &options).unwrap();
        assert_eq!(first.memories.len(), 1, "{:?}", first.diagnostics);
        assert_eq!(
            first.diagnostics.iter().any(|d| d.contains("rebuilt")),
            damaged,
            "{:?}",
            first.diagnostics
        );
        let second = find_relevant_memories(q, &dir, &CancelToken::new(), &options).unwrap();
        assert_eq!(second.memories.len(), 1);
        assert!(second.diagnostics.is_empty(), "{:?}", second.diagnostics);
    }
}

/// A way to damage the index file, given its length when sound.
type Damage = fn(&Path, u64);

/// A file of the generated folders: a few words from a small vocabulary,
/// so that terms are shared and scores tie.
fn words() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop::sample::select(vec![
            "deploy",
            "staging",
            "billing",
            "tabs",
            "cache",
            "redis",
            "lint",
            "release",
            "部署",
            "流程",
            "テスト",
            "monday",
            "friday",
            "docker",
        ]),
        1..6,
    )
    .prop_map(|w| w.join(" "))
}

#[derive(Debug, Clone)]
enum Op {
    Write(usize, String, String),
    Rewrite(usize, String),
    Replace(usize, String),
    Delete(usize),
    Full,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0usize..12, words(), words()).prop_map(|(i, d, b)| Op::Write(i, d, b)),
        2 => (0usize..12, words()).prop_map(|(i, d)| Op::Rewrite(i, d)),
        2 => (0usize..12, words()).prop_map(|(i, d)| Op::Replace(i, d)),
        2 => (0usize..12).prop_map(Op::Delete),
        1 => Just(Op::Full),
    ]
}

/// Every memory's score for `query`, by file name, from a fresh scan.
fn scan_scores(dir: &Path, query: &str) -> BTreeMap<String, String> {
    let scan = scan_memory_dir(
        dir,
        &ScanOptions {
            max_files: usize::MAX,
            ..ScanOptions::default()
        },
        &CancelToken::new(),
    )
    .unwrap();
    LocalRanker::new(&scan.memories)
        .score_all(query)
        .into_iter()
        .map(|r| {
            (
                scan.memories[r.index].filename.clone(),
                format!("{:.9} {:.9}", r.score, r.coverage),
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// Whatever happens to the folder, and whichever segment holds a
    /// memory, the index scores every memory as a fresh scan does.
    #[test]
    fn the_index_scores_as_a_fresh_scan_does(ops in proptest::collection::vec(op(), 1..25)) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("memory");
        fs::create_dir(&dir).unwrap();
        fs::create_dir(dir.join("team")).unwrap();
        let db = tmp.path().join("index.sqlite");
        let mut index = RecallIndex::open(&db, &dir).unwrap();
        // A third of the memories in a subfolder, which the index lists
        // and digests on its own.
        let file = |i: usize| if i % 3 == 2 { format!("team/m{i}.md") } else { format!("m{i}.md") };
        for op in ops {
            match op {
                Op::Write(i, d, b) => memory(&dir, &file(i), "project", &d, &b),
                Op::Rewrite(i, d) => {
                    let path = dir.join(file(i));
                    if path.exists() {
                        use std::io::Write as _;
                        let mut f = fs::OpenOptions::new().write(true).truncate(true).open(&path).unwrap();
                        write!(f, "---\nname: m{i}\ndescription: {d}\n---\n").unwrap();
                    }
                }
                Op::Replace(i, d) => {
                    // A new file renamed over the old, as editors and
                    // memdir write: a new inode under the same name.
                    let tmp_file = dir.join(".replacing");
                    fs::write(&tmp_file, format!("---\nname: m{i}\ndescription: {d}\n---\nnew\n")).unwrap();
                    fs::rename(&tmp_file, dir.join(file(i))).unwrap();
                }
                Op::Delete(i) => { let _ = fs::remove_file(dir.join(file(i))); }
                Op::Full => { index.reconcile(Depth::Full, &mut |_| {}).unwrap(); }
            }
            index.reconcile(Depth::Recall, &mut |_| {}).unwrap();
            for query in ["deploy staging", "部署 billing", "テスト friday cache"] {
                let scored = index.score(query).unwrap();
                let got: BTreeMap<String, String> = scored
                    .ranked
                    .iter()
                    .map(|r| {
                        let m = index.memory(u32::try_from(r.index).unwrap()).unwrap().unwrap();
                        (m.filename, format!("{:.9} {:.9}", r.score, r.coverage))
                    })
                    .collect();
                prop_assert_eq!(got, scan_scores(&dir, query), "{}", query);
            }
        }
    }
}

/// Runs `f` on a thread and fails if it takes longer than a minute: a
/// recall that blocks on a FIFO would otherwise hang the test run.
fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("recall blocked on what stood in the index's place")
}

#[test]
#[cfg(unix)]
fn a_fifo_or_link_in_the_index_s_place_is_removed_never_read_or_written_through() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    fs::create_dir(&dir).unwrap();
    memory(
        &dir,
        "deploy.md",
        "project",
        "Never deploy on Fridays; ship with make ship",
        "",
    );
    let db = tmp.path().join("index.sqlite");
    let outside = tmp.path().join("outside.txt");
    fs::write(&outside, "the user's own file\n").unwrap();
    let with = |suffix: &str| {
        let mut p = db.clone().into_os_string();
        p.push(suffix);
        PathBuf::from(p)
    };
    // What stands where a file of the index belongs: a FIFO (`None`) or a
    // link to the user's own file.
    let plants = [
        ("a FIFO as the database", db.clone(), None),
        (
            "a FIFO as the sweep's file",
            db.with_extension("sweep"),
            None,
        ),
        ("a FIFO as the write-ahead log", with("-wal"), None),
        (
            "a link as the write-ahead log",
            with("-wal"),
            Some(&outside),
        ),
        ("a link as the database", db.clone(), Some(&outside)),
    ];
    for (what, path, link_to) in plants {
        for p in [
            db.clone(),
            with("-wal"),
            with("-shm"),
            db.with_extension("sweep"),
        ] {
            let _ = fs::remove_file(p);
        }
        if let Some(target) = link_to {
            std::os::unix::fs::symlink(target, &path).unwrap();
        } else {
            let made = std::process::Command::new("mkfifo").arg(&path).status();
            assert!(made.unwrap().success());
        }
        let (dir2, db2) = (dir.clone(), db.clone());
        let found = within_a_minute(move || {
            let options = RecallOptions {
                index: Some(&db2),
                ..RecallOptions::default()
            };
            find_relevant_memories(
                "how do we deploy this service",
                &dir2,
                &CancelToken::new(),
                &options,
            )
            .unwrap()
        });
        let names: Vec<&str> = found.memories.iter().map(|m| m.filename.as_str()).collect();
        assert_eq!(names, ["deploy.md"], "{what}");
        assert!(
            found.diagnostics.iter().any(|d| d.contains("rebuilt")),
            "{what}: {:?}",
            found.diagnostics
        );
        assert!(fs::symlink_metadata(&db).unwrap().is_file(), "{what}");
        assert_eq!(
            fs::read_to_string(&outside).unwrap(),
            "the user's own file\n",
            "{what}"
        );
    }
}

#[test]
fn the_log_kept_between_processes_stays_small() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    fs::create_dir(&dir).unwrap();
    let db = tmp.path().join("index.sqlite");
    let mut wal = db.as_os_str().to_owned();
    wal.push("-wal");
    let mut largest = 0;
    // Each write by its own opening of the index, as each process does:
    // nothing folds the log in when the connection closes.
    for i in 0..150 {
        let body = (0..400)
            .map(|w| format!("word{i}x{w}"))
            .collect::<Vec<_>>()
            .join(" ");
        memory(
            &dir,
            &format!("m{i}.md"),
            "project",
            &format!("note {i}"),
            &body,
        );
        let mut index = RecallIndex::open(&db, &dir).unwrap();
        index.update_files(&[format!("m{i}.md")]).unwrap();
        drop(index);
        largest = largest.max(fs::metadata(&wal).map_or(0, |m| m.len()));
    }
    assert!(largest > 0, "the log is kept between openings");
    assert!(largest < 3 << 20, "the log grew to {largest} bytes");
    let found = recall("word77x5", &dir, Some(&db), false);
    assert_eq!(found, ["m77.md"]);
}

/// An embedding model that fails, as a model whose files were damaged
/// after it was installed does, or gives one fixed vector.
#[derive(Debug)]
struct FakeModel {
    fails: bool,
}

impl memdir_relevance::Embedding for FakeModel {
    fn model_id(&self) -> &'static str {
        "fake"
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        if self.fails {
            return Err("cannot read model.safetensors".to_owned());
        }
        Ok(texts.iter().map(|_| vec![0.6, 0.8]).collect())
    }
}

#[test]
fn a_failed_embedding_run_stops_recall_from_starting_another_until_one_succeeds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    fs::create_dir(&dir).unwrap();
    memory(&dir, "deploy.md", "project", "Never deploy on Fridays", "");
    memory(&dir, "pnpm.md", "feedback", "Use pnpm, not npm", "");
    let db = tmp.path().join("index.sqlite");
    assert_eq!(
        recall("deploy on fridays", &dir, Some(&db), true),
        ["deploy.md"]
    );
    let recall_with = |model: &FakeModel| {
        let options = RecallOptions {
            index: Some(&db),
            embedding: Some(model),
            ..RecallOptions::default()
        };
        find_relevant_memories("deploy on fridays", &dir, &CancelToken::new(), &options).unwrap()
    };
    let broken = FakeModel { fails: true };
    // Before any run: the missing vectors are a reason to refresh.
    let r = recall_with(&broken);
    assert!(r.index_refresh_due);
    assert!(
        r.diagnostics.iter().any(|d| d.contains("without a vector")),
        "{:?}",
        r.diagnostics
    );
    let mut index = RecallIndex::open(&db, &dir).unwrap();
    let err = index.embed_missing(&broken, &mut |_| {}).unwrap_err();
    assert!(
        err.to_string().contains("cannot read model.safetensors"),
        "{err}"
    );
    assert_eq!(
        index.embedding_failure("fake").as_deref(),
        Some("cannot read model.safetensors")
    );
    assert_eq!(index.embedding_failure("another model"), None);
    // After it: words alone, no new run, and the note says why.
    let r = recall_with(&broken);
    assert_eq!(
        r.memories
            .iter()
            .map(|m| m.filename.as_str())
            .collect::<Vec<_>>(),
        ["deploy.md"]
    );
    assert!(!r.index_refresh_due, "{:?}", r.diagnostics);
    assert!(
        r.diagnostics
            .iter()
            .any(|d| d.contains("failed (cannot read model.safetensors)")),
        "{:?}",
        r.diagnostics
    );
    // A run that succeeds (`memdir recall-index refresh`) clears it.
    let working = FakeModel { fails: false };
    assert_eq!(index.embed_missing(&working, &mut |_| {}).unwrap(), 2);
    assert_eq!(index.embedding_failure("fake"), None);
    let r = recall_with(&working);
    assert!(
        !r.diagnostics.iter().any(|d| d.contains("vector")),
        "{:?}",
        r.diagnostics
    );
}
