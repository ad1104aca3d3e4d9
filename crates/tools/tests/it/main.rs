//! The tools as a model would call them: friendly inputs, and the hostile
//! ones the policy exists for.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod memory;
mod read;
mod search;
