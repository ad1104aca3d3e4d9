//! Choosing the prompt's mode from a path resolution (SPEC R7.1) and reading
//! the index files it shows.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use memdir_entrypoint::{MAX_INDEX_READ_BYTES, decode_index};
use memdir_memtypes::{ReadError, read_regular_file};
use memdir_paths::{Resolution, today_local};

use crate::{
    PromptError, PromptOptions, build_combined_prompt, build_daily_log_prompt, build_single_prompt,
};

/// Which of the three prompts was built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PromptMode {
    /// Assistant mode with auto memory on: append to today's log.
    DailyLog,
    /// Team memory on: a private and a team folder.
    Combined,
    /// Auto memory on, team memory off: one folder.
    Single,
}

impl PromptMode {
    /// A stable identifier: `daily-log`, `combined` or `single`.
    ///
    /// ```
    /// assert_eq!(memdir_prompt::PromptMode::DailyLog.as_str(), "daily-log");
    /// ```
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            PromptMode::DailyLog => "daily-log",
            PromptMode::Combined => "combined",
            PromptMode::Single => "single",
        }
    }
}

impl fmt::Display for PromptMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The memory section of a system prompt, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryPrompt {
    /// Memory is on: the text to add to the system prompt.
    Prompt {
        /// The mode that was chosen.
        mode: PromptMode,
        /// The prompt text, ending with a newline.
        text: String,
    },
    /// Auto memory is off, so no memory prompt is added.
    Off {
        /// Why, naming the rule that turned memory off, e.g.
        /// `auto memory is off (env:CLAUDE_CODE_DISABLE_AUTO_MEMORY)`.
        reason: String,
    },
}

impl MemoryPrompt {
    /// The mode, or `None` when memory is off.
    #[must_use]
    pub fn mode(&self) -> Option<PromptMode> {
        match self {
            MemoryPrompt::Prompt { mode, .. } => Some(*mode),
            MemoryPrompt::Off { .. } => None,
        }
    }

    /// The mode's identifier, `off` when memory is off.
    #[must_use]
    pub fn mode_str(&self) -> &'static str {
        self.mode().map_or("off", PromptMode::as_str)
    }

    /// The prompt text, or `None` when memory is off.
    #[must_use]
    pub fn text(&self) -> Option<&str> {
        match self {
            MemoryPrompt::Prompt { text, .. } => Some(text),
            MemoryPrompt::Off { .. } => None,
        }
    }
}

/// Builds the memory prompt for a resolved project, choosing the first mode
/// that applies (SPEC R7.1): daily log (assistant mode and auto memory on),
/// combined (team memory on), single folder (auto memory on), or off.
///
/// The index files are read here. A missing index (or a missing memory
/// folder) is an empty index, not an error; an index that exists but cannot
/// be read is [`PromptError::ReadIndex`]: a folder, a FIFO, a socket or a
/// device in its place (never waited on), one over
/// [`MAX_INDEX_READ_BYTES`], missing permissions. Bytes that are not UTF-8
/// are shown as U+FFFD, as the index lint reports them.
pub fn load_memory_prompt(
    resolution: &Resolution,
    options: &PromptOptions,
) -> Result<MemoryPrompt, PromptError> {
    if !resolution.enablement.enabled {
        return Ok(MemoryPrompt::Off {
            reason: format!("auto memory is off ({})", resolution.enablement.by),
        });
    }
    let auto_dir = &resolution.auto_mem_path;
    let index = read_index(resolution.entrypoint().as_std_path())?;
    let (mode, text) = if options.assistant_mode {
        let log_path = resolution.daily_log_path(today_local());
        let text = build_daily_log_prompt(auto_dir, &log_path, &index, options);
        (PromptMode::DailyLog, text)
    } else if resolution.team_enabled {
        let team_index = read_index(resolution.team_entrypoint().as_std_path())?;
        let text = build_combined_prompt(
            auto_dir,
            &resolution.team_mem_path(),
            &index,
            &team_index,
            options,
        );
        (PromptMode::Combined, text)
    } else {
        (
            PromptMode::Single,
            build_single_prompt(auto_dir, &index, options),
        )
    };
    Ok(MemoryPrompt::Prompt { mode, text })
}

/// Reads an index file, at most [`MAX_INDEX_READ_BYTES`]; a missing file
/// is an empty index.
fn read_index(path: &Path) -> Result<String, PromptError> {
    let source = match read_regular_file(path, MAX_INDEX_READ_BYTES) {
        Ok(bytes) => return Ok(decode_index(&bytes).0.into_owned()),
        Err(e) if e.is_not_found() => return Ok(String::new()),
        Err(ReadError::Io { source, .. }) => source,
        // The error names the path, which `ReadIndex` names already: keep
        // only what was wrong.
        Err(ReadError::NotAFile { kind, .. }) => io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("it is {kind}, not a regular file"),
        ),
        Err(ReadError::TooLarge { limit, .. }) => io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("it is over the {limit}-byte limit for an index"),
        ),
        Err(other) => io::Error::other(other.to_string()),
    };
    Err(PromptError::ReadIndex {
        path: PathBuf::from(path),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_identifiers_are_stable() {
        let got: Vec<&str> = [
            PromptMode::DailyLog,
            PromptMode::Combined,
            PromptMode::Single,
        ]
        .iter()
        .map(|m| m.as_str())
        .collect();
        assert_eq!(got, ["daily-log", "combined", "single"]);
        let off = MemoryPrompt::Off { reason: "x".into() };
        assert_eq!((off.mode_str(), off.text()), ("off", None));
    }

    #[test]
    fn a_missing_index_is_empty_and_a_folder_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_index(&dir.path().join("MEMORY.md")).unwrap(), "");
        assert_eq!(
            read_index(&dir.path().join("nowhere/MEMORY.md")).unwrap(),
            ""
        );
        std::fs::create_dir(dir.path().join("MEMORY.md")).unwrap();
        let err = read_index(&dir.path().join("MEMORY.md")).unwrap_err();
        assert!(err.to_string().starts_with("cannot read memory index "));
        assert!(err.to_string().ends_with("MEMORY.md"));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_device_is_an_error_not_a_wait() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("MEMORY.md");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let err = read_index(&fifo).unwrap_err();
        let PromptError::ReadIndex { path, source } = &err;
        assert_eq!(path, &fifo);
        assert_eq!(source.to_string(), "it is a FIFO, not a regular file");
        let err = read_index(Path::new("/dev/zero")).unwrap_err();
        let PromptError::ReadIndex { source, .. } = &err;
        assert_eq!(source.to_string(), "it is a device, not a regular file");
    }

    #[test]
    fn an_index_over_the_read_limit_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("MEMORY.md");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(MAX_INDEX_READ_BYTES + 1).unwrap();
        let err = read_index(&path).unwrap_err();
        let PromptError::ReadIndex { source, .. } = &err;
        assert_eq!(source.kind(), io::ErrorKind::FileTooLarge);
        assert!(
            source.to_string().contains("4194304-byte limit"),
            "{source}"
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_are_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("MEMORY.md");
        std::fs::write(&path, b"- [a](a.md) \xff hook\n").unwrap();
        assert_eq!(read_index(&path).unwrap(), "- [a](a.md) \u{fffd} hook\n");
    }
}
