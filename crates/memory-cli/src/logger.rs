//! The binary's logger: the message of each `info`, `warn` or `error`
//! record from a memdir crate, one line on stderr.
//!
//! The library crates never print; they log through the `log` facade and
//! leave the destination to the binary. A dozen lines here do all the
//! binary needs (the team server's request lines, already JSON, go out
//! unchanged), so no logger crate is added: `env_logger` and friends would
//! prefix a level and a timestamp, which would change those lines.
//!
//! Records from dependencies are left out: their wording is not part of
//! this binary's output, whose stderr is one line per error.

use std::io::Write;

use log::{Level, LevelFilter, Log, Metadata, Record};

struct StderrLogger;

impl Log for StderrLogger {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= Level::Info && metadata.target().starts_with("memdir")
    }

    fn log(&self, record: &Record<'_>) {
        if self.enabled(record.metadata()) {
            // One write per line, so that lines from worker threads do not
            // interleave; a closed stderr is nothing to report on.
            let line = format!("{}\n", record.args());
            let _ = std::io::stderr().lock().write_all(line.as_bytes());
        }
    }

    fn flush(&self) {
        let _ = std::io::stderr().flush();
    }
}

/// Installs the logger; called once, first thing in `main`.
pub(crate) fn init() {
    static LOGGER: StderrLogger = StderrLogger;
    // Fails only if a logger is already set, which nothing else here does.
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(LevelFilter::Info);
    }
}
