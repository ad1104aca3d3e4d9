//! The floor of the bundled recall evaluation: quality cannot regress
//! silently. `cargo xtask eval` prints the same table.

use std::path::{Path, PathBuf};

use memdir_relevance::eval::{dataset_in, evaluate, load_queries};
use memdir_relevance::{LocalRanker, Thresholds};
use memdir_scan::{CancelToken, ScanOptions, scan_memory_dir};

/// The labelled set of this crate's tests.
fn bundled() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recall-eval")
}

#[test]
#[allow(
    clippy::print_stdout,
    reason = "the table and the wrong answers show in the test output"
)]
fn the_local_ranker_meets_its_targets_on_the_bundled_dataset() {
    let (memories, queries) = dataset_in(&bundled());
    let queries = load_queries(&queries).unwrap();
    assert!(queries.len() >= 80, "{} queries", queries.len());
    assert!(queries.iter().filter(|q| q.expect.is_none()).count() >= 20);
    let report = evaluate(&memories, &queries).unwrap();
    println!("{}", report.table());
    for f in &report.failures {
        println!("  {f}");
    }
    assert!(
        report.top1_accuracy() >= 0.95,
        "top-1 {:.3}\n{}",
        report.top1_accuracy(),
        report.table()
    );
    assert!(
        report.abstain_accuracy() >= 0.95,
        "abstain {:.3}\n{}",
        report.abstain_accuracy(),
        report.table()
    );
    for category in [
        "english",
        "chinese",
        "japanese",
        "korean",
        "mixed-script",
        "nfkc",
        "inflection-order",
        "body-only",
        "no-result",
    ] {
        assert!(
            report.categories.contains_key(category),
            "category {category} is missing"
        );
    }
}

#[test]
fn a_bad_dataset_line_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q.jsonl");
    std::fs::write(
        &path,
        "{\"id\": \"a\", \"category\": \"x\", \"query\": \"q\", \"expect\": null}\n\nnot json\n",
    )
    .unwrap();
    let err = load_queries(&path).unwrap_err();
    assert!(err.to_string().contains("q.jsonl:3: "), "{err}");
    std::fs::write(&path, b"\n\n{\"id\": \"\xff\"}\n").unwrap();
    let err = load_queries(&path).unwrap_err();
    assert_eq!(err.to_string(), format!("{}:3: not UTF-8", path.display()));
}

/// The query file is read bounded: a FIFO or a device is refused at once,
/// and a file over the limit is refused without being read whole.
#[cfg(unix)]
#[test]
fn the_query_file_is_read_bounded() {
    use memdir_memtypes::ReadError;
    use memdir_relevance::RelevanceError;
    use memdir_relevance::eval::MAX_QUERIES_BYTES;
    let err = load_queries(Path::new("/dev/zero")).unwrap_err();
    assert!(
        matches!(
            err,
            RelevanceError::Read(ReadError::NotAFile {
                kind: "a device",
                ..
            })
        ),
        "{err:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q.jsonl");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(MAX_QUERIES_BYTES + 1).unwrap();
    let err = load_queries(&path).unwrap_err();
    assert!(
        matches!(err, RelevanceError::Read(ReadError::TooLarge { .. })),
        "{err:?}"
    );
    let missing = load_queries(&dir.path().join("none.jsonl")).unwrap_err();
    assert!(
        matches!(&missing, RelevanceError::Read(e) if e.is_not_found()),
        "{missing:?}"
    );
}

/// A recall indexes only its query's terms; that must not change a single
/// score, so the full index and the query's index are compared on every
/// query of the dataset.
#[test]
fn the_index_for_one_query_scores_as_the_full_index_does() {
    let (memories, queries) = dataset_in(&bundled());
    let queries = load_queries(&queries).unwrap();
    let scan = scan_memory_dir(&memories, &ScanOptions::default(), &CancelToken::new()).unwrap();
    let full = LocalRanker::new(&scan.memories);
    let extra = [
        "deploying staging servers again",
        "Ｒｅｄｉｓ 缓存 キャッシュ",
        "the",
    ];
    for query in queries.iter().map(|q| q.query.as_str()).chain(extra) {
        let one = LocalRanker::for_query(&scan.memories, query, Thresholds::default());
        assert_eq!(one.score_all(query), full.score_all(query), "{query:?}");
    }
}

/// Without abstention, the local ranker gives its best five by score
/// however weak the evidence: the ranking the evaluation measures as
/// "before abstention". With it (the default), weak evidence gives
/// nothing.
#[test]
fn recall_without_abstention_returns_the_best_five_by_score() {
    use memdir_relevance::{RecallOptions, find_relevant_memories};
    let dir = tempfile::tempdir().unwrap();
    for i in 0..7 {
        crate::memory(
            dir.path(),
            &format!("note-{i}.md"),
            "project",
            &format!("Team note number {i}"),
            "We deploy on Tuesdays.",
        );
    }
    crate::memory(dir.path(), "pnpm.md", "feedback", "Use pnpm, not npm", "");
    let query = "deploy chocolate cake";
    let recall = |abstain: bool| {
        let options = RecallOptions {
            abstain,
            ..RecallOptions::default()
        };
        find_relevant_memories(query, dir.path(), &CancelToken::new(), &options)
            .unwrap()
            .memories
            .into_iter()
            .map(|m| m.filename)
            .collect::<Vec<_>>()
    };
    assert!(RecallOptions::default().abstain);
    assert!(recall(true).is_empty());
    let before = recall(false);
    assert_eq!(before.len(), 5, "{before:?}");
    assert!(before.iter().all(|f| f.starts_with("note-")), "{before:?}");
}

/// A LoCoMo-shaped file (invented text, the benchmark's structure): two
/// sessions, two speakers, an observation drawn from two turns, evidence
/// entries holding several turns, a turn with no observation, and an
/// adversarial question.
const LOCOMO: &str = r#"[{
  "sample_id": "conv-x",
  "conversation": {
    "speaker_a": "Ana", "speaker_b": "Bo",
    "session_1_date_time": "9:05 am on 3 March, 2023",
    "session_1": [],
    "session_2_date_time": "4:40 pm on 12 April, 2023",
    "session_2": [],
    "session_3_date_time": "1:00 pm on 1 May, 2023"
  },
  "observation": {
    "session_2_observation": {
      "Bo": [["Bo adopted a grey kitten called Pixel.", "D2:4"]]
    },
    "session_1_observation": {
      "Ana": [
        ["Ana repairs vintage bicycles in her garage.", "D1:2"],
        ["Ana plans a cycling trip: through the Alps, in June.", ["D1:5", "D1:7"]]
      ],
      "Bo": [["Bo teaches chemistry at a night school.", "D1:3"]]
    }
  },
  "event_summary": {},
  "session_summary": {},
  "qa": [
    {"question": "What does Ana repair?", "answer": "bicycles", "evidence": ["D1:2"], "category": 4},
    {"question": "Where and when is Ana's trip, and what is Bo's cat called?", "answer": 2023, "evidence": ["D1:7; D2:4", "D1:5"], "category": 1},
    {"question": "What did Ana sing?", "answer": "x", "evidence": ["D1:9"], "category": 2},
    {"question": "What bicycles does Bo repair?", "evidence": ["D1:2"], "category": 5, "adversarial_answer": "vintage"}
  ]
}]"#;

#[test]
fn locomo_conversations_become_memory_folders_and_labelled_questions() {
    use memdir_memtypes::{MemoryType, parse_memory_str};
    use memdir_relevance::eval::{Label, locomo};
    let convs = locomo::parse(LOCOMO.as_bytes(), Path::new("l.json")).unwrap();
    assert_eq!(convs.len(), 1);
    let c = &convs[0];
    assert_eq!(c.id, "conv-x");
    let names: Vec<&str> = c.memories.iter().map(|m| m.filename.as_str()).collect();
    assert_eq!(
        names,
        ["s1-Ana-1.md", "s1-Ana-2.md", "s1-Bo-1.md", "s2-Bo-1.md"]
    );
    // Each file: type user, description and body the observation, and
    // the session's date recorded as `modified`.
    let trip = parse_memory_str(&c.memories[1].text);
    assert!(trip.diagnostics.is_empty(), "{:?}", trip.diagnostics);
    assert_eq!(trip.header.name.as_deref(), Some("s1-Ana-2"));
    assert_eq!(trip.header.memory_type, Some(MemoryType::User));
    let text = "Ana plans a cycling trip: through the Alps, in June.";
    assert_eq!(trip.header.description.as_deref(), Some(text));
    assert_eq!(trip.body.trim_end(), text);
    assert_eq!(
        trip.modified.map(|t| t.to_string()).as_deref(),
        Some("2023-03-03T09:05:00Z")
    );
    assert_eq!(c.memories[3].modified.to_string(), "2023-04-12T16:40:00Z");
    assert_eq!(c.index.lines().count(), 4);
    assert!(
        c.index.contains("- [s2-Bo-1](s2-Bo-1.md) — Bo adopted"),
        "{}",
        c.index
    );

    let labels: Vec<(&str, &str, &Label)> = c
        .cases
        .iter()
        .map(|q| (q.id.as_str(), q.groups[0].as_str(), &q.label))
        .collect();
    let relevant = |f: &[&str]| Label::Relevant(f.iter().map(|&s| s.to_owned()).collect());
    assert_eq!(
        labels[0],
        ("conv-x:q1", "cat4 single-hop", &relevant(&["s1-Ana-1.md"]))
    );
    assert_eq!(
        labels[1],
        (
            "conv-x:q2",
            "cat1 multi-hop",
            &relevant(&["s1-Ana-2.md", "s2-Bo-1.md"])
        )
    );
    // Evidence without an observation: answerable, never a hit.
    assert_eq!(labels[2], ("conv-x:q3", "cat2 temporal", &relevant(&[])));
    assert_eq!(
        labels[3],
        ("conv-x:q4", "cat5 adversarial", &Label::Unlabelled)
    );
    assert_eq!(locomo::ceiling(&convs), (2, 3));

    let dataset = locomo::dataset(&convs, Path::new("/tmp/x"));
    assert_eq!(dataset.folders[0].path, Path::new("/tmp/x/conv-x"));
    assert_eq!(dataset.cases().count(), 4);
}

#[test]
fn a_bad_locomo_file_is_named() {
    use memdir_relevance::eval::{EvalError, locomo};
    let path = Path::new("l.json");
    let bad_date = LOCOMO.replace("4:40 pm on 12 April, 2023", "sometime in April");
    let err = locomo::parse(bad_date.as_bytes(), path).unwrap_err();
    assert!(matches!(err, EvalError::Invalid { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("l.json: conv-x: session_2_date_time \"sometime in April\" is not a date"),
        "{err}"
    );
    let no_date = LOCOMO.replace("\"session_2_date_time\"", "\"session_9_date_time\"");
    let err = locomo::parse(no_date.as_bytes(), path).unwrap_err();
    assert_eq!(
        err.to_string(),
        "l.json: conv-x: conversation.session_2_date_time is missing"
    );
    let category = LOCOMO.replace("\"category\": 2", "\"category\": 7");
    let err = locomo::parse(category.as_bytes(), path).unwrap_err();
    assert_eq!(
        err.to_string(),
        "l.json: conv-x: question 3 has unknown category 7"
    );
    let err = locomo::parse(b"[{\"sample_id\": 1}]", path).unwrap_err();
    assert!(
        err.to_string().starts_with("l.json:1: invalid type"),
        "{err}"
    );
}

/// Writes a coding-set folder: memories and prompt lines.
fn coding_folder(root: &Path, name: &str, memories: &[(&str, &str)], prompts: &[&str]) {
    let memory = root.join(name).join("memory");
    std::fs::create_dir_all(&memory).unwrap();
    for (file, description) in memories {
        crate::memory(&memory, file, "project", description, "");
    }
    std::fs::write(root.join(name).join("prompts.jsonl"), prompts.join("\n")).unwrap();
}

#[test]
fn the_coding_set_loads_folder_by_folder_with_kinds_and_languages() {
    use memdir_relevance::eval::{Label, coding};
    let root = tempfile::tempdir().unwrap();
    coding_folder(
        root.path(),
        "web-app",
        &[(
            "staging-deploys.md",
            "Staging deploys go through the release channel",
        )],
        &[
            r#"{"id": "p1", "prompt": "deploy to staging", "relevant": ["staging-deploys.md"], "kind": "direct", "lang": "en"}"#,
            "",
            r#"{"id": "p2", "prompt": "fix the typo", "relevant": [], "kind": "none", "lang": "en", "note": "extra keys pass"}"#,
        ],
    );
    coding_folder(
        root.path(),
        "cli",
        &[("pnpm.md", "Use pnpm, not npm")],
        &[r#"{"id": "p1", "prompt": "pnpm 安装", "relevant": ["pnpm.md"], "kind": "direct"}"#],
    );
    std::fs::create_dir(root.path().join(".hidden")).unwrap();
    std::fs::write(root.path().join("README.md"), "about the set").unwrap();

    let dataset = coding::load(root.path()).unwrap();
    let folders: Vec<&Path> = dataset.folders.iter().map(|f| f.path.as_path()).collect();
    assert_eq!(
        folders,
        [
            root.path().join("cli/memory"),
            root.path().join("web-app/memory")
        ]
    );
    let cases: Vec<_> = dataset.cases().collect();
    assert_eq!(cases.len(), 3);
    assert_eq!(cases[0].id, "cli/p1");
    assert_eq!(cases[0].groups, ["kind direct"]);
    assert_eq!(cases[1].groups, ["kind direct", "lang en"]);
    assert_eq!(
        cases[1].label,
        Label::Relevant(vec!["staging-deploys.md".into()])
    );
    assert_eq!(cases[2].label, Label::NoMemory);
}

#[test]
fn a_coding_prompt_naming_a_file_not_in_its_memory_folder_is_refused() {
    use memdir_relevance::eval::coding;
    for bad in ["missing.md", "../prompts.jsonl", "/etc/passwd"] {
        let root = tempfile::tempdir().unwrap();
        let line =
            format!(r#"{{"id": "p1", "prompt": "q", "relevant": ["{bad}"], "kind": "direct"}}"#);
        coding_folder(root.path(), "a", &[("pnpm.md", "Use pnpm")], &["", &line]);
        let err = coding::load(root.path()).unwrap_err().to_string();
        let prompts = root.path().join("a/prompts.jsonl");
        assert!(
            err.starts_with(&format!(
                "{}:2: relevant file {bad:?} is not a file of",
                prompts.display()
            )),
            "{err}"
        );
    }
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("a/memory")).unwrap();
    let err = coding::load(root.path()).unwrap_err().to_string();
    assert!(err.contains("prompts.jsonl"), "{err}");
    let missing = coding::load(&root.path().join("none"))
        .unwrap_err()
        .to_string();
    assert!(missing.starts_with("cannot list "), "{missing}");
}

/// The evaluation runs memdir and the floor over the folders on disk and
/// can fail: a prompt whose memory shares no word with it is a miss for
/// both, and the coding targets are then not met.
#[test]
fn the_evaluation_measures_memdir_beside_the_floor_and_can_miss_its_targets() {
    use memdir_relevance::eval::{coding, evaluate_dataset};
    let root = tempfile::tempdir().unwrap();
    coding_folder(
        root.path(),
        "app",
        &[
            (
                "staging-deploys.md",
                "Staging deploys go through the release channel",
            ),
            ("pnpm.md", "Use pnpm, not npm"),
            ("db-tests.md", "Integration tests hit a real database"),
        ],
        &[
            r#"{"id": "hit", "prompt": "how do staging deploys work", "relevant": ["staging-deploys.md"], "kind": "direct"}"#,
            r#"{"id": "miss", "prompt": "which package manager", "relevant": ["pnpm.md"], "kind": "paraphrase"}"#,
            r#"{"id": "none", "prompt": "buy a real hammer, nails, saw and drill", "relevant": [], "kind": "none"}"#,
            r#"{"id": "none2", "prompt": "banana bread", "relevant": [], "kind": "none"}"#,
        ],
    );
    let dataset = coding::load(root.path()).unwrap();
    let e = evaluate_dataset(&dataset).unwrap();
    let m = &e.memdir.all;
    assert_eq!((m.answerable, m.hit5, m.no_memory), (2, 1, 2));
    assert_eq!(m.hit_at_5(), Some(0.5));
    // The floor has no threshold: "real" puts a memory before the
    // no-memory prompt, which memdir leaves alone.
    assert_eq!(m.injected, 0);
    assert_eq!(e.floor.all.injected, 1);
    assert_eq!(e.floor.all.hit5, 1);
    // Calibrated to at most 15% of two prompts: none may get anything.
    let (threshold, kept) = e.floor_threshold.as_ref().unwrap();
    assert!(*threshold > 0.0);
    assert_eq!(kept.all.injected, 0);
    assert_eq!(e.memdir.groups["kind paraphrase"].hit5, 0);
    assert_eq!(e.memdir.groups["kind direct"].hit5, 1);
    assert_eq!(e.memories, [3]);
    assert_eq!(e.failures.len(), 1);
    assert!(
        e.failures[0].starts_with("app/miss [kind paraphrase]"),
        "{:?}",
        e.failures
    );

    let targets = coding::targets(&e);
    let met: Vec<bool> = targets.iter().map(|t| t.met).collect();
    assert_eq!(met, [false, true, false], "{targets:?}");
    let table = e.table();
    assert!(
        table.contains("coding set: 1 folder(s), 3 memories"),
        "{table}"
    );
    assert!(table.contains("BM25 floor, top score > "), "{table}");
    assert!(table.contains("  kind paraphrase\n"), "{table}");
    assert!(table.contains("latency per recall"), "{table}");
}
