//! The checks, one module each.

pub(crate) mod citations;
pub(crate) mod duplicates;
pub(crate) mod frontmatter;
pub(crate) mod index;
pub(crate) mod not_to_save;
pub(crate) mod relative_dates;
pub(crate) mod secrets;
