//! Integration tests of `memdir-model` through its public API, against a
//! scripted model server on 127.0.0.1 that speaks the real wire formats.

#![allow(clippy::unwrap_used, reason = "a failing test should fail loudly")]

mod anthropic;
mod chat;
mod config;
mod openai;
mod proxy;
mod secrets;
mod support;
mod transport;
