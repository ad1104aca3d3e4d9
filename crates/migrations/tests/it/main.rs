//! The migrations over real files: golden cases, idempotence, damaged
//! files, the dry run, and concurrent runs.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod golden;
mod props;
mod safety;
mod support;
