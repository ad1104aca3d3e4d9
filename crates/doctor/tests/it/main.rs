//! The doctor checks against the labelled folder `fixtures/doctor/memory/`
//! and the date repair's guarantees.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod fixture;
mod not_to_save;
mod not_to_save_set;
mod repair;
mod secrets;
