//! Integration tests of memdir-citations: extraction, checking, notes.

mod cache;
mod check;
mod extract;
