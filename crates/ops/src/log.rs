//! The daily log (SPEC R4.7, R7.1): in assistant mode the agent appends
//! timestamped bullets to today's log, and `dream` later folds the logs
//! into topic files and the index.

use memdir_folder::MemoryFolder;

use crate::{OpsError, Project};

/// The most bytes one day's log may grow to; an append beyond it is
/// refused rather than making the file unreadable for the prompt.
pub const MAX_LOG_BYTES: u64 = 1024 * 1024;

/// The most bytes one entry may have.
pub const MAX_LOG_ENTRY_BYTES: usize = 4096;

/// Where an entry went.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Logged {
    /// Today's log file.
    pub path: camino::Utf8PathBuf,
    /// The line appended (without its line break).
    pub line: String,
}

impl Project {
    /// Appends `- HH:MM — TEXT` (local time) to today's daily log,
    /// `<auto>/logs/YYYY/MM/YYYY-MM-DD.md`, under the folder's lock (read,
    /// append, atomic replace), so that concurrent writers lose nothing.
    /// Line breaks in `text` are folded into spaces: one entry, one line.
    ///
    /// Errors: auto memory off ([`OpsError::AutoMemoryOff`]); an empty or
    /// too long entry ([`OpsError::Empty`], [`OpsError::LogEntryTooLong`]);
    /// the log full ([`OpsError::LogFull`]); the folder refusing the write.
    pub fn append_log(&self, text: &str) -> Result<Logged, OpsError> {
        let resolution = self.resolution();
        if !resolution.enablement.enabled {
            return Err(OpsError::AutoMemoryOff {
                by: resolution.enablement.by.to_string(),
            });
        }
        let entry = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if entry.is_empty() {
            return Err(OpsError::Empty("the log entry is empty"));
        }
        if entry.len() > MAX_LOG_ENTRY_BYTES {
            return Err(OpsError::LogEntryTooLong {
                bytes: entry.len(),
                max: MAX_LOG_ENTRY_BYTES,
            });
        }
        let now = jiff::ZonedDateTime::now();
        let path = resolution.daily_log_path(now.date());
        let rel = path
            .strip_prefix(&resolution.auto_mem_path)
            .map_err(|_| OpsError::LogOutsideFolder { path: path.clone() })?
            .as_str()
            .replace('\\', "/");
        let line = format!("- {:02}:{:02} — {entry}", now.hour(), now.minute());
        let folder = MemoryFolder::create(resolution.auto_mem_path.as_std_path())?;
        let lock = folder.lock(self.lock_timeout())?;
        let mut contents = folder.read(&rel, MAX_LOG_BYTES)?.unwrap_or_default();
        if !contents.is_empty() && !contents.ends_with(b"\n") {
            contents.push(b'\n');
        }
        contents.extend_from_slice(line.as_bytes());
        contents.push(b'\n');
        if contents.len() as u64 > MAX_LOG_BYTES {
            return Err(OpsError::LogFull {
                path,
                max: MAX_LOG_BYTES,
            });
        }
        lock.write(&rel, &contents)?;
        drop(lock);
        Ok(Logged { path, line })
    }
}

/// What a dream did.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct DreamReport {
    /// What happened.
    pub outcome: memdir_extract::DreamOutcome,
}

impl Project {
    /// Distils the daily logs no dream has read yet into topic files and
    /// index lines, through the restricted extraction agent (its writes
    /// land only in the private memory folder). The logs it read are
    /// recorded under `<base>/memdir/dream/` once the run has not failed;
    /// with no new logs, no model call is made.
    ///
    /// Errors: auto memory off ([`OpsError::AutoMemoryOff`]); no model
    /// configured ([`OpsError::NoModel`], nothing read or written); the
    /// state unreadable or the agent impossible to set up
    /// ([`OpsError::Extract`]).
    pub fn dream(&self) -> Result<DreamReport, OpsError> {
        let resolution = self.resolution();
        if !resolution.enablement.enabled {
            return Err(OpsError::AutoMemoryOff {
                by: resolution.enablement.by.to_string(),
            });
        }
        let config =
            memdir_model::ModelConfig::from_lookup(|k| self.env().var(k).map(str::to_owned))
                .map_err(OpsError::Model)?
                .ok_or(OpsError::NoModel)?;
        let model: std::sync::Arc<dyn memdir_agent::ChatModel> =
            std::sync::Arc::new(memdir_model::ModelClient::new(config).map_err(OpsError::Model)?);
        let auto_dir = resolution.auto_mem_path.as_std_path().to_owned();
        let project_key = auto_dir.parent().and_then(|p| p.file_name()).map_or_else(
            || "project".to_owned(),
            |n| n.to_string_lossy().into_owned(),
        );
        let outcome = memdir_extract::dream(
            &model,
            &memdir_extract::DreamSetup {
                project_root: resolution.project.work_tree.as_std_path().to_owned(),
                auto_dir,
                base: resolution.base.as_std_path().to_owned(),
                project_key,
                max_turns: memdir_extract::DREAM_MAX_TURNS,
            },
        )?;
        Ok(DreamReport { outcome })
    }
}
