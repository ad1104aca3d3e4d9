//! The floor of the bundled recall evaluation: quality cannot regress
//! silently. `cargo xtask eval` prints the same table.

use std::path::Path;

use memdir_relevance::eval::{bundled_dataset, evaluate, load_queries};
use memdir_relevance::{LocalRanker, Thresholds};
use memdir_scan::{CancelToken, ScanOptions, scan_memory_dir};

#[test]
#[allow(
    clippy::print_stdout,
    reason = "the table and the wrong answers show in the test output"
)]
fn the_local_ranker_meets_its_targets_on_the_bundled_dataset() {
    let (memories, queries) = bundled_dataset(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."));
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
}

/// A recall indexes only its query's terms; that must not change a single
/// score, so the full index and the query's index are compared on every
/// query of the dataset.
#[test]
fn the_index_for_one_query_scores_as_the_full_index_does() {
    let (memories, queries) = bundled_dataset(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."));
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
