//! Redaction where findings meet: each way two findings can overlap, touch
//! or reveal one another, and the redacted text always scans clean.

use memdir_secrets::{Redaction, Scanner, redact_secrets, scan_for_secrets};

/// The redaction by the built-in rules, as (text, spans).
fn redact(text: &str) -> (String, Vec<(usize, usize, String)>) {
    let Redaction {
        text: out,
        spans,
        residue,
    } = Scanner::builtin().redaction(text);
    assert!(!residue);
    assert!(
        scan_for_secrets(&out).is_empty(),
        "{out:?} still holds a secret"
    );
    assert_eq!(redact_secrets(&out), out, "redaction is idempotent");
    let spans = spans
        .into_iter()
        .map(|s| (s.start, s.end, s.rule_id))
        .collect();
    (out, spans)
}

fn span(start: usize, end: usize, rule: &str) -> (usize, usize, String) {
    (start, end, rule.to_owned())
}

#[test]
fn findings_apart_get_a_marker_each_and_the_text_between_stays() {
    let text = "feed glft-Xq3Tb7ZkP2vLw9RcY5nH and runner glrt-Tb7ZkP2vLw9RcY5nHq3X.";
    let (out, spans) = redact(text);
    assert_eq!(
        out,
        "feed [REDACTED:gitlab-feed-token] and runner [REDACTED:gitlab-runner-authentication-token]."
    );
    assert_eq!(
        spans,
        [
            span(5, 30, "gitlab-feed-token"),
            span(42, 67, "gitlab-runner-authentication-token")
        ]
    );
}

#[test]
fn findings_that_touch_become_one_marker() {
    let text = "glft-Xq3Tb7ZkP2vLw9RcY5nHglrt-Tb7ZkP2vLw9RcY5nHq3X end";
    assert_eq!(scan_for_secrets(text).len(), 2);
    let (out, spans) = redact(text);
    assert_eq!(out, "[REDACTED:gitlab-feed-token] end");
    assert_eq!(spans, [span(0, 50, "gitlab-feed-token")]);
}

#[test]
fn findings_of_two_rules_that_overlap_become_one_marker() {
    // The feed token's 20 characters run into the runner token's prefix.
    let text = "x glft-Xq3Tb7ZkP2vLglrt-Tb7ZkP2vLw9RcY5nHq3Xa y";
    let found = scan_for_secrets(text);
    assert_eq!(found.len(), 2);
    assert!(found[0].start < found[1].end && found[1].start < found[0].end);
    let (out, spans) = redact(text);
    assert_eq!(out, "x [REDACTED:gitlab-feed-token]a y");
    assert_eq!(spans, [span(2, 44, "gitlab-feed-token")]);
}

#[test]
fn a_finding_inside_another_is_covered_by_the_outer_marker() {
    let scanner = Scanner::from_toml(
        "[[rules]]\nid = \"outer\"\nregex = '''outer\\([a-z0-9_]+\\)'''\n\
         [[rules]]\nid = \"inner\"\nregex = '''in_[0-9]{4}'''\n",
    )
    .unwrap();
    let text = "a outer(x_in_1234_y) b";
    let r = scanner.redaction(text);
    assert_eq!(r.text, "a [REDACTED:outer] b");
    assert_eq!(
        (r.spans.len(), r.spans[0].start, r.spans[0].end),
        (1, 2, 20)
    );
}

#[test]
fn a_dropped_match_does_not_hide_a_token_inside_it() {
    // The runner rule's first match is `glrt-aaaaaaaaaaaaaaaglrt-`, too
    // low in entropy to count; the real token starts inside it.
    let text = "glrt-aaaaaaaaaaaaaaaglrt-Xq3Tb7ZkP2vLw9RcY5nH";
    let found = scan_for_secrets(text);
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].start, found[0].end), (20, 45));
    let (out, _) = redact(text);
    assert_eq!(
        out,
        "glrt-aaaaaaaaaaaaaaa[REDACTED:gitlab-runner-authentication-token]"
    );
}

#[test]
fn a_secret_that_a_marker_brings_to_light_is_redacted_too() {
    // The AWS key ends at a word boundary, which the GitLab token glued to
    // it denies; once the token is a marker, the key is a finding.
    let text = "aws: AKIAZ4Q7WXRTLMN3KPV2glpat-Xq3Tb7ZkP2vLw9RcY5nH";
    let found: Vec<_> = scan_for_secrets(text)
        .into_iter()
        .map(|f| f.rule_id)
        .collect();
    assert_eq!(found, ["gitlab-pat"]);
    let (out, spans) = redact(text);
    assert_eq!(out, "aws: [REDACTED:aws-access-token]");
    assert_eq!(spans, [span(5, 51, "aws-access-token")]);
}

#[test]
fn a_boundary_rule_revealed_by_a_marker_with_custom_rules() {
    let scanner = Scanner::from_toml(
        "[[rules]]\nid = \"tok\"\nregex = '''tok_[a-z]{4}'''\n\
         [[rules]]\nid = \"word\"\nregex = '''\\bsecret_[0-9]{8}\\b'''\n",
    )
    .unwrap();
    let text = "tok_abcdsecret_12345678 rest";
    assert_eq!(scanner.scan(text).len(), 1);
    let r = scanner.redaction(text);
    assert_eq!(r.text, "[REDACTED:tok] rest");
    assert!(scanner.scan(&r.text).is_empty());
}

#[test]
fn a_span_that_cuts_a_character_widens_to_the_whole_character() {
    let scanner = Scanner::from_toml("[[rules]]\nid = \"r\"\nregex = '''.zzzz'''\n").unwrap();
    // `.` matches one byte: the second byte of `é`.
    let text = "x\u{e9}zzzz!";
    let found = scanner.scan(text);
    assert_eq!((found[0].start, found[0].end), (2, 7));
    let r = scanner.redaction(text);
    assert_eq!(r.text, "x[REDACTED:r]!");
    assert_eq!((r.spans[0].start, r.spans[0].end), (1, 7));
}

#[test]
fn a_rule_that_matches_the_marker_leaves_a_residue_and_ends() {
    let scanner =
        Scanner::from_toml("[[rules]]\nid = \"REDACTED\"\nregex = '''REDACTED|tok_[a-z]{4}'''\n")
            .unwrap();
    let r = scanner.redaction("a tok_abcd b");
    assert!(r.residue, "the marker names the rule, which matches it");
    assert_eq!(r.text, "a [REDACTED:REDACTED] b");
}

#[test]
fn an_empty_secret_is_no_finding() {
    // The secret group is optional and takes no part.
    let scanner =
        Scanner::from_toml("[[rules]]\nid = \"r\"\nregex = '''key=(x+)?'''\nsecretGroup = 1\n")
            .unwrap();
    assert!(scanner.scan("key= and key=").is_empty());
    assert_eq!(scanner.scan("key=xxx").len(), 1);
}

#[test]
fn the_fuzzer_s_overlapping_gitlab_tokens() {
    let text =
        "sglsglft-gLggentglfsglrt-gldt-spprdcglft-sglft-gLggentglfsglft-gtt-iglft--hpcaAhtoca";
    let (out, _) = redact(text);
    assert!(!out.contains("glft-g"), "{out}");
}
