//! The floor of the bundled recall evaluation: quality cannot regress
//! silently. `cargo xtask eval` prints the same table.

use std::path::Path;

use memdir_relevance::eval::{bundled_dataset, evaluate, load_queries};

#[test]
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
