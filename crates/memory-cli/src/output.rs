//! Writing to stdout without panicking when the reader goes away.

use std::io::{self, Write};

/// Writes `text` to stdout, adding a final newline when it has none.
/// Control characters other than line ends and tabs are shown escaped
/// (see [`escape_controls`]): what memdir prints comes from files anyone
/// may have written, and must never drive the terminal.
pub(crate) fn print(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(escape_controls(text).as_bytes())?;
    if !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// Writes a value as pretty JSON to stdout.
pub(crate) fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(value)?;
    print(&text)?;
    Ok(())
}

/// Whether an error is stdout's reader having gone away (`memdir … | head`),
/// which is not a failure of memdir.
pub(crate) fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|e| e.downcast_ref::<io::Error>())
        .any(|e| e.kind() == io::ErrorKind::BrokenPipe)
}

/// `text` with every control character but line ends and tabs, and every
/// bidirectional control, written as `\u{…}`: an escape sequence in a
/// memory's description or a file name must not retitle or clear the
/// terminal, nor reorder what it shows.
pub(crate) fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    let escaped = |c: char| {
        (c.is_control() && !matches!(c, '\n' | '\t' | '\r'))
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    };
    if !text.contains(escaped) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escaped(c) {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::escape_controls;

    #[test]
    fn controls_are_escaped_and_text_kept() {
        assert_eq!(escape_controls("plain\n\ttext"), "plain\n\ttext");
        assert_eq!(
            escape_controls("a\u{1b}]0;x\u{7}b\u{0}\u{202e}c"),
            "a\\u{1b}]0;x\\u{7}b\\u{0}\\u{202e}c"
        );
    }
}
