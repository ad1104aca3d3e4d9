//! The extraction step's bookkeeping, under contention.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod state;
