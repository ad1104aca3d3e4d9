//! Fuzzes the scanner and the redactor with arbitrary input: neither may
//! panic, every finding must lie within the input, and redacted text must
//! scan clean.

#![no_main]

use libfuzzer_sys::fuzz_target;
use memdir_secrets::Scanner;

fuzz_target!(|data: &[u8]| {
    let scanner = Scanner::builtin();
    for f in scanner.scan_bytes(data, None) {
        assert!(f.start <= f.end && f.end <= data.len());
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let redacted = scanner.redact(text);
        assert!(scanner.scan(&redacted).is_empty(), "redaction left a finding");
    }
});
