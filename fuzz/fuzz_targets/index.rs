//! Fuzz target `index`: its properties are `memdir_fuzz_checks`' check of
//! the same name, which `cargo xtask test` also replays on every saved input.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| memdir_fuzz_checks::run("index", data));
