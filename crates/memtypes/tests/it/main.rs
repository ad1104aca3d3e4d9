//! Integration tests of `memdir-memtypes` through its public API.

mod properties;
