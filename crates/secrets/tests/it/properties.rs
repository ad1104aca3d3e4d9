//! Invariants of scanning and redaction, as proptest properties. The
//! number of cases comes from `PROPTEST_CASES` (default 256).

use memdir_secrets::{Scanner, redact_secrets, scan_for_secrets};
use proptest::prelude::*;

/// Lines that each hold one secret (made up for these tests; the formats
/// are the providers' public ones).
pub(crate) const SECRET_LINES: &[&str] = &[
    "GITHUB_TOKEN=ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS",
    "aws_access_key_id = AKIAZ4Q7WXRTLMN3KPV2",
    "\"slack\": \"xoxb-4826193057-9384751062-Qm3xTb7ZkP2vLw9RcY5nHdJs\"",
    "ANTHROPIC_API_KEY=sk-ant-api03-u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8dKLzdocJ2isAjIhKtJ0RlgLKOmxgJTeKdNnFRIBXuDL7DxtpYlSXpfKtHFAA",
    "token: glpat-Xq3Tb7ZkP2vLw9RcY5nH",
];

fn clean_line() -> impl Strategy<Value = String> {
    "[a-zA-Z ,.()]{0,60}"
}

#[test]
fn every_sample_line_is_a_finding() {
    for line in SECRET_LINES {
        assert!(!scan_for_secrets(line).is_empty(), "{line}");
    }
}

proptest! {
    #[test]
    fn scanning_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = Scanner::builtin().scan_bytes(&bytes, None);
    }

    #[test]
    fn redaction_leaves_no_finding_behind(
        parts in proptest::collection::vec(prop_oneof![
            clean_line(),
            proptest::sample::select(SECRET_LINES).prop_map(str::to_owned),
            "\\PC{0,30}",
        ], 0..12),
    ) {
        let text = parts.join("\n");
        let redacted = redact_secrets(&text);
        prop_assert!(scan_for_secrets(&redacted).is_empty(), "left behind in {:?}", redacted);
        if scan_for_secrets(&text).is_empty() {
            prop_assert_eq!(redacted, text);
        }
    }

    #[test]
    fn a_finding_moves_with_its_line(
        before in proptest::collection::vec(clean_line(), 0..6),
        after in proptest::collection::vec(clean_line(), 0..6),
        secret in proptest::sample::select(SECRET_LINES),
    ) {
        let alone = scan_for_secrets(secret);
        let mut lines: Vec<&str> = before.iter().map(String::as_str).collect();
        let offset: usize = lines.iter().map(|l| l.len() + 1).sum();
        let line_no = lines.len();
        lines.push(secret);
        lines.extend(after.iter().map(String::as_str));
        let text = lines.join("\n");
        let found = scan_for_secrets(&text);
        let shifted: Vec<_> = alone
            .iter()
            .map(|f| (f.rule_id.clone(), f.start + offset, f.end + offset, f.line + line_no))
            .collect();
        let got: Vec<_> = found.iter().map(|f| (f.rule_id.clone(), f.start, f.end, f.line)).collect();
        prop_assert_eq!(got, shifted);
    }
}
