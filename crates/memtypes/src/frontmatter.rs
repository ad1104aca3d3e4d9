//! Tolerant reading of a memory file's YAML frontmatter, and rendering a
//! memory back to text (SPEC R2.1, R2.2, R2.5).
//!
//! Memory files are written by people and by models, so odd files are the
//! normal case: a UTF-8 BOM, CRLF line ends, an unclosed `---`, YAML that a
//! strict parser rejects (`description: Note: use pnpm`), unknown keys,
//! numbers where strings belong, bytes that are not UTF-8. [`parse_memory`]
//! never fails and never panics on any of them: it returns the fields it
//! could read and a [`Diagnostic`] for each thing that was wrong.
//!
//! YAML itself is parsed by `gray_matter`'s YAML engine, except for the
//! common block of plain `key: value` lines, which a fast path reads the
//! same way YAML would (see `simple`). The delimiter
//! handling is ours, because `gray_matter` does not see frontmatter behind a
//! BOM, silently drops an unclosed block, and rewrites the body's line ends.
//!
//! Two shapes are read (R2.5): the flat R2.1 block (`name`, `description`,
//! `type` at the top level), and the block the reference agent writes since
//! 2.1.146, where `type` (and `modified`, since 2.1.214) sit in a nested
//! `metadata:` mapping beside keys memdir does not use (`node_type`,
//! `originSessionId`). A top-level key wins over its `metadata.` twin.
//! [`update_memory`] rewrites an existing file in the shape it has.
//!
//! The work is split by job, one module each: `block` finds the block;
//! `parse` reads it (YAML through the `simple` fast path or `gray_matter`,
//! the keys of a mapping through `yaml`, their values through `values`);
//! `recover` reads what is not valid YAML line by line; `render` writes a
//! memory afresh and `update` rewrites one in place; `parsed` holds the
//! types they share. They form no circle: `parsed`, `block` and `simple`
//! import none of the others, `values` imports `parsed`, `yaml` and
//! `recover` import `values` and `parsed`, `parse` imports those below it,
//! `render` imports `parsed`, and `update` imports `block`, `parse`,
//! `parsed` and `render`. None imports this module's own items.

mod block;
mod extra;
mod parse;
mod parsed;
mod recover;
mod render;
mod simple;
mod update;
mod values;
mod yaml;

pub use extra::{MemdirValue, set_memdir_key, superseded_map};
pub use parse::{parse_memory, parse_memory_str};
pub use parsed::{Diagnostic, FrontmatterShape, Header, MEMDIR_KEYS, ParsedMemory};
pub use render::render_memory;
pub use update::update_memory;
pub use values::parse_iso_time;

#[cfg(test)]
mod tests;
