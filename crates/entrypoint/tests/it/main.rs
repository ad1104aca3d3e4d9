//! Integration tests of `memdir-entrypoint` through its public API.

mod fixtures;
mod properties;
