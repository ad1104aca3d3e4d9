//! Integration tests of memdir-citations: extraction, checking, notes.

mod check;
mod extract;
