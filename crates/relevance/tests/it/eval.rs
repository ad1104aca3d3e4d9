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
