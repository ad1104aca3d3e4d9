//! `find_relevant_memories` with the local selector: the flow of R6.2 and
//! the rules of R6.3.

use std::collections::HashSet;
use std::path::PathBuf;

use memdir_relevance::{RecallOptions, SelectorUsed, find_relevant_memories};
use memdir_scan::CancelToken;

use crate::memory;

fn recall(dir: &std::path::Path, query: &str, options: &RecallOptions<'_>) -> Vec<String> {
    let r = find_relevant_memories(query, dir, &CancelToken::new(), options).unwrap();
    assert_eq!(r.selector, SelectorUsed::Local);
    r.memories.into_iter().map(|m| m.filename).collect()
}

#[test]
fn finds_drops_surfaced_and_caps_at_five() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..8 {
        memory(
            dir.path(),
            &format!("deploy-{i}.md"),
            "project",
            &format!("Deploy step {i} for the staging cluster"),
            "",
        );
    }
    memory(dir.path(), "pnpm.md", "feedback", "Use pnpm, not npm", "");
    let all = recall(
        dir.path(),
        "deploy to the staging cluster",
        &RecallOptions::default(),
    );
    assert_eq!(all.len(), 5);
    assert!(all.iter().all(|f| f.starts_with("deploy-")));

    let surfaced: HashSet<PathBuf> = all.iter().map(PathBuf::from).collect();
    let rest = recall(
        dir.path(),
        "deploy to the staging cluster",
        &RecallOptions {
            already_surfaced: surfaced,
            ..Default::default()
        },
    );
    assert_eq!(rest.len(), 3);
    assert!(rest.iter().all(|f| !all.contains(f)));

    // Full paths count as surfaced too.
    let full: HashSet<PathBuf> = [dir.path().join("pnpm.md")].into();
    assert!(
        recall(
            dir.path(),
            "pnpm",
            &RecallOptions {
                already_surfaced: full,
                ..Default::default()
            }
        )
        .is_empty()
    );
}

#[test]
fn abstains_without_evidence() {
    let dir = tempfile::tempdir().unwrap();
    memory(
        dir.path(),
        "pnpm.md",
        "feedback",
        "Use pnpm, not npm",
        "Run pnpm install.",
    );
    for query in ["", "the", "a", "?", "的", "banana bread", "これは"] {
        assert!(
            recall(dir.path(), query, &RecallOptions::default()).is_empty(),
            "{query:?}"
        );
    }
}

#[test]
fn a_missing_folder_recalls_nothing() {
    let r = find_relevant_memories(
        "pnpm",
        "/no/such/memory".as_ref(),
        &CancelToken::new(),
        &RecallOptions::default(),
    )
    .unwrap();
    assert!(r.memories.is_empty());
}

#[test]
fn recently_used_tools_drop_their_docs_but_keep_their_gotchas() {
    let dir = tempfile::tempdir().unwrap();
    memory(
        dir.path(),
        "grep-usage.md",
        "reference",
        "How the Grep tool's flags and regex syntax work",
        "Use -i for case.",
    );
    memory(
        dir.path(),
        "grep-gotcha.md",
        "feedback",
        "Grep tool gotcha: it skips files in .gitignore",
        "Careful with ignored files.",
    );
    memory(
        dir.path(),
        "grep-warning-ref.md",
        "reference",
        "Grep tool warning: binary files are skipped",
        "",
    );
    let query = "search with the grep tool for the regex";
    let without = recall(dir.path(), query, &RecallOptions::default());
    assert!(without.contains(&"grep-usage.md".to_owned()), "{without:?}");
    let with = recall(
        dir.path(),
        query,
        &RecallOptions {
            recent_tools: vec!["Grep".into()],
            ..Default::default()
        },
    );
    assert!(!with.contains(&"grep-usage.md".to_owned()), "{with:?}");
    assert!(with.contains(&"grep-gotcha.md".to_owned()), "{with:?}");
    assert!(with.contains(&"grep-warning-ref.md".to_owned()), "{with:?}");
}

#[test]
fn cjk_and_fullwidth_queries() {
    let dir = tempfile::tempdir().unwrap();
    memory(
        dir.path(),
        "deploy-zh.md",
        "project",
        "生产环境部署流程需要审批",
        "",
    );
    memory(
        dir.path(),
        "api-keys.md",
        "reference",
        "API keys rotate every 90 days",
        "",
    );
    memory(
        dir.path(),
        "deploy-ja.md",
        "project",
        "本番デプロイは火曜日のみ",
        "",
    );
    memory(
        dir.path(),
        "deploy-ko.md",
        "project",
        "배포는 금요일에 하지 않는다",
        "",
    );
    assert_eq!(
        recall(dir.path(), "部署", &RecallOptions::default()),
        ["deploy-zh.md"]
    );
    assert_eq!(
        recall(dir.path(), "ＡＰＩ ｋｅｙｓ", &RecallOptions::default()),
        ["api-keys.md"]
    );
    assert_eq!(
        recall(dir.path(), "ﾃﾞﾌﾟﾛｲ", &RecallOptions::default()),
        ["deploy-ja.md"]
    );
    assert_eq!(
        recall(dir.path(), "배포를 언제 하나요", &RecallOptions::default()),
        ["deploy-ko.md"]
    );
}

#[test]
fn kana_only_queries() {
    let dir = tempfile::tempdir().unwrap();
    memory(dir.path(), "faq.md", "project", "よくあるしつもん", "");
    memory(
        dir.path(),
        "cache.md",
        "feedback",
        "ステージングサーバーのキャッシュ・パージは朝会のあと",
        "",
    );
    memory(
        dir.path(),
        "deploy-ja.md",
        "project",
        "本番デプロイは火曜日のみ",
        "",
    );
    let find = |q: &str| recall(dir.path(), q, &RecallOptions::default());
    assert_eq!(find("よくあるしつもん"), ["faq.md"]);
    assert_eq!(find("キャッシュ"), ["cache.md"]);
    assert_eq!(find("ｷｬｯｼｭ･ﾊﾟｰｼﾞ"), ["cache.md"]);
    assert_eq!(find("ステージングサーバ"), ["cache.md"]);
    assert!(find("これは").is_empty());
    assert!(find("きょうのてんき").is_empty());
}

#[test]
fn a_fused_ranking_lets_a_close_meaning_outrank_a_shared_word() {
    use memdir_relevance::{FUSION_WEIGHT, Ranked, Scored, fuse, order_by_score};
    let ranked = |index, score| Ranked {
        index,
        score,
        coverage: 0.5,
        head_coverage: 0.5,
    };
    // Memory 0 shares a word with the query; memory 2 shares none but
    // means the same; memory 1 neither.
    let scored = Scored {
        ranked: vec![ranked(0, 6.0), ranked(1, 3.0)],
        known_share: 0.5,
        terms: 2,
    };
    let fused = fuse(&scored, &[0.1, 0.0, 0.7]);
    assert!((fused[0] - (1.0 + 0.1 * FUSION_WEIGHT)).abs() < 1e-12);
    assert!((fused[1] - 0.5).abs() < 1e-12);
    assert_eq!(order_by_score(&fused), [2, 0, 1]);
    // Without lexical matches the cosine alone orders them.
    let none = Scored {
        ranked: Vec::new(),
        known_share: 0.0,
        terms: 0,
    };
    assert_eq!(order_by_score(&fuse(&none, &[0.2, 0.9, 0.5])), [1, 2, 0]);
}
