//! Running plans without a shell.
