//! Integration tests of memdir-bashpolicy: the corpora, plans, running.

mod confined;
mod corpus;
mod git_programs;
mod globs;
mod plans;
mod props;
mod running;
