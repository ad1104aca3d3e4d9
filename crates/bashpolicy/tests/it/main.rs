//! Integration tests of memdir-bashpolicy: the corpora, plans, running.

mod confined;
mod corpus;
mod plans;
mod props;
mod running;
