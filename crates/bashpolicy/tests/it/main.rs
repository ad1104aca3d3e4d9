//! Integration tests of memdir-bashpolicy: the corpora, plans, running.

mod corpus;
mod plans;
mod props;
mod running;
