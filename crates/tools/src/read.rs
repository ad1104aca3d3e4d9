//! Read: a text file's lines, numbered, a window of them at a time.

use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;

use crate::{ToolError, resolve};

/// The most bytes Read loads of one file.
pub const MAX_READ_BYTES: u64 = 10 * 1024 * 1024;
/// The lines Read returns when the call names no limit.
pub const DEFAULT_READ_LINES: usize = 2000;
/// The longest line Read returns whole; longer ones are cut.
pub const MAX_LINE_CHARS: usize = 2000;

/// What Read is given.
#[derive(Debug, Clone, Deserialize)]
pub struct ReadInput {
    /// The file: absolute, or relative to the project root.
    pub file_path: String,
    /// The first line to return, from 1.
    #[serde(default)]
    pub offset: Option<usize>,
    /// How many lines to return.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Reads `input.file_path` (relative to `root` when not absolute) and
/// returns its lines numbered like `cat -n`, at most `limit` of them from
/// `offset`. FIFOs, devices and folders are refused without waiting; a
/// file with NUL bytes in its first 8 KiB is binary and refused.
pub fn read_file(root: &Path, input: &ReadInput) -> Result<String, ToolError> {
    let path = resolve(root, &input.file_path);
    let bytes = memdir_memtypes::read_regular_file(&path, MAX_READ_BYTES).map_err(|e| {
        if e.is_not_found() {
            ToolError::NotFound { path: path.clone() }
        } else {
            ToolError::Read(e)
        }
    })?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(ToolError::Binary { path });
    }
    let text = String::from_utf8_lossy(&bytes);
    if text.is_empty() {
        return Ok(format!("{} is empty", path.display()));
    }
    let first = input.offset.unwrap_or(1).max(1);
    let limit = input.limit.unwrap_or(DEFAULT_READ_LINES).max(1);
    let lines: Vec<&str> = text.lines().collect();
    if first > lines.len() {
        return Ok(format!(
            "{} has {} lines; offset {first} is past the end",
            path.display(),
            lines.len()
        ));
    }
    let mut out = String::new();
    let end = (first - 1 + limit).min(lines.len());
    for (i, line) in lines[first - 1..end].iter().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let shown: String = line.chars().take(MAX_LINE_CHARS).collect();
        let cut = if shown.len() < line.len() {
            " …(line cut)"
        } else {
            ""
        };
        let _ = writeln!(out, "{:>6}\t{shown}{cut}", first + i);
    }
    if end < lines.len() {
        let _ = writeln!(
            out,
            "… {} more lines; read on with offset {}",
            lines.len() - end,
            end + 1
        );
    }
    Ok(out)
}
