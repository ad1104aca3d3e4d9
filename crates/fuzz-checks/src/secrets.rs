//! The secret scanner and its redaction, and the gitleaks config reader.

use memdir_secrets::{Redaction, Scanner};

/// Scanning any bytes: findings lie in the input, are non-empty, and say
/// the right line. Redacting any text: the result scans clean, keeps every
/// byte outside the redacted spans in place, covers every finding, and is
/// its own redaction.
pub(crate) fn scan_and_redact(data: &[u8]) {
    let scanner = Scanner::builtin();
    findings_hold(scanner, data);
    if let Some(text) = crate::text(data) {
        redaction_holds(scanner, text);
    }
}

fn findings_hold(scanner: &Scanner, data: &[u8]) {
    for f in scanner.scan_bytes(data, None) {
        assert!(
            f.start < f.end && f.end <= data.len(),
            "{f:?} outside the input"
        );
        #[allow(
            clippy::naive_bytecount,
            reason = "a count of its own, not the scanner's"
        )]
        let line = 1 + data[..f.start].iter().filter(|&&b| b == b'\n').count();
        assert_eq!(f.line, line, "{f:?} names the wrong line");
    }
}

fn redaction_holds(scanner: &Scanner, text: &str) {
    let findings = scanner.scan(text);
    let Redaction {
        text: out,
        spans,
        residue,
    } = scanner.redaction(text);
    assert!(!residue, "a built-in rule matched a marker");
    let left = scanner.scan(&out);
    assert!(left.is_empty(), "redaction left {left:?} in {out:?}");
    // The output is the text with each span replaced by its marker.
    let mut expected = String::new();
    let mut pos = 0;
    for s in &spans {
        assert!(pos <= s.start && s.start < s.end && s.end <= text.len());
        assert!(pos == 0 || pos < s.start, "spans touch: {spans:?}");
        expected.push_str(&text[pos..s.start]);
        expected.push_str("[REDACTED:");
        expected.push_str(&s.rule_id);
        expected.push(']');
        pos = s.end;
    }
    expected.push_str(&text[pos..]);
    assert_eq!(out, expected, "text outside the spans changed");
    for f in &findings {
        assert!(
            spans.iter().any(|s| s.start <= f.start && f.end <= s.end),
            "{f:?} is not redacted"
        );
    }
    if findings.is_empty() {
        assert!(spans.is_empty(), "a clean text was changed");
    }
    assert_eq!(scanner.redact(&out), out, "redaction is not idempotent");
}

/// Reading any gitleaks configuration: an error is one line; rules that
/// compile scan the config's own text and a sample within bounds.
pub(crate) fn config(data: &[u8]) {
    let Some(toml) = crate::text(data) else {
        return;
    };
    match Scanner::from_toml(toml) {
        Err(e) => {
            let message = e.to_string();
            assert!(!message.contains('\n'), "a multi-line error: {message:?}");
        }
        Ok(scanner) => {
            for sample in [toml.as_bytes(), SAMPLE.as_bytes()] {
                for f in scanner.scan_bytes(sample, Some("notes/config.md")) {
                    assert!(f.start < f.end && f.end <= sample.len(), "{f:?}");
                }
            }
            let r = scanner.redaction(SAMPLE);
            assert!(r.residue || scanner.scan(&r.text).is_empty());
        }
    }
}

/// Text with a few secrets, for the rules of a fuzzed configuration.
const SAMPLE: &str = "token = ghp_RQxGWd7uCkA2ZXbwfvTN3OpLQsE8mV1Ji6YS\n\
    aws_access_key_id = AKIAZ4Q7WXRTLMN3KPV2\npassword: hunter2hunter2\n";
