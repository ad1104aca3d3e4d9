//! The verdict cache: see [`VerdictCache`].

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::Checked;

/// The format version written; a file of another version is ignored.
const VERSION: u32 = 1;

/// The largest cache file read.
const MAX_CACHE_BYTES: u64 = 8 * 1024 * 1024;

/// How many literals a cache keeps; past that the oldest verdicts go.
pub const MAX_ENTRIES: usize = 4096;

/// A file changed more recently than this before a check is not recorded
/// as holding a literal (its times might not show a later change).
pub const RACY_WINDOW: Duration = Duration::from_secs(2);

/// How far cached verdicts are trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CachePolicy {
    /// How long after the walk that settled it "found nowhere" is still
    /// reported; older, the literal is searched for again.
    pub trust_absent_for: Duration,
    /// A "found nowhere" verdict older than this is still used, but the
    /// check asks for a refresh.
    pub refresh_after: Duration,
    /// No refresh is asked for within this long of the last one started.
    pub retry_after: Duration,
    /// A file changed within this long before a check is not recorded as
    /// holding a literal ([`RACY_WINDOW`] by default; a test on files it
    /// just wrote, and changes only by size, may set it to zero).
    pub racy_window: Duration,
}

impl Default for CachePolicy {
    /// One day, five minutes, thirty seconds, [`RACY_WINDOW`].
    fn default() -> Self {
        CachePolicy {
            trust_absent_for: Duration::from_secs(24 * 60 * 60),
            refresh_after: Duration::from_secs(5 * 60),
            retry_after: Duration::from_secs(30),
            racy_window: RACY_WINDOW,
        }
    }
}

/// The verdicts of a [`Checker::check_cached`](crate::Checker::check_cached).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CachedCheck {
    /// Each citation and its verdict, in order.
    pub checked: Vec<Checked>,
    /// Some literal was left unsettled or was settled by an old verdict,
    /// and no refresh was started lately: the caller should run
    /// [`Checker::refresh`](crate::Checker::refresh) (in the background).
    pub wants_refresh: bool,
}

/// What is known of one literal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub(crate) enum Entry {
    /// Found in `file` (relative to the root), which then had `stamp`.
    Found {
        file: String,
        stamp: Stamp,
        at_ms: u64,
    },
    /// A complete walk at `at_ms` found it nowhere.
    Absent { at_ms: u64 },
}

impl Entry {
    fn at_ms(&self) -> u64 {
        match self {
            Entry::Found { at_ms, .. } | Entry::Absent { at_ms } => *at_ms,
        }
    }
}

/// What tells that a file changed: its size and times (and, on Unix, its
/// inode and change time, which no program can set back).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Stamp {
    len: u64,
    mtime_ns: u64,
    #[serde(default)]
    ctime_ns: u64,
    #[serde(default)]
    ino: u64,
}

impl Stamp {
    pub(crate) fn of(meta: &std::fs::Metadata) -> Stamp {
        let mtime_ns = meta.modified().map_or(0, nanos_since_epoch);
        #[cfg(unix)]
        let (ctime_ns, ino) = {
            use std::os::unix::fs::MetadataExt;
            let ctime = u64::try_from(meta.ctime()).unwrap_or(0);
            let nsec = u64::try_from(meta.ctime_nsec()).unwrap_or(0);
            (
                ctime.saturating_mul(1_000_000_000).saturating_add(nsec),
                meta.ino(),
            )
        };
        #[cfg(not(unix))]
        let (ctime_ns, ino) = (0, 0);
        Stamp {
            len: meta.len(),
            mtime_ns,
            ctime_ns,
            ino,
        }
    }

    /// The later of its modification and change times.
    pub(crate) fn changed_ns(&self) -> u64 {
        self.mtime_ns.max(self.ctime_ns)
    }
}

/// The file as written.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CacheFile {
    version: u32,
    root: String,
    #[serde(default)]
    refreshed_ms: Option<u64>,
    #[serde(default)]
    attempted_ms: Option<u64>,
    #[serde(default)]
    entries: BTreeMap<String, Entry>,
}

/// [`CacheFile`] as written, borrowing the cache.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CacheFileRef<'a> {
    version: u32,
    root: &'a str,
    refreshed_ms: Option<u64>,
    attempted_ms: Option<u64>,
    entries: &'a BTreeMap<String, Entry>,
}

/// Verdicts on identifiers and flags kept between processes, so that a
/// recall in a large project need not walk it.
///
/// Searching a project for a literal costs a walk of its files (about
/// 10 ms per 1,000 files when the literal is nowhere); a recall has a few
/// milliseconds. So a [`VerdictCache`] remembers, per literal, where it
/// was found or that a complete walk did not find it, and
/// [`Checker::check_cached`](crate::Checker::check_cached) trusts that
/// only as far as it can be re-checked cheaply:
///
/// - **Found in a file**: the file's size and times are compared with
///   those recorded; when they differ the one file is searched again. A
///   literal removed from its file is noticed at once.
/// - **Found nowhere**: trusted for [`CachePolicy::trust_absent_for`]
///   after the walk that settled it, and still looked for in the files
///   the memory cites; past [`CachePolicy::refresh_after`] the check asks
///   for a refresh ([`CachedCheck::wants_refresh`]), which a front end
///   runs in the background with [`Checker::refresh`](crate::Checker::refresh).
///   A literal added to some other file is noticed by that refresh.
/// - **Paths** are never cached: a `stat` is cheap.
///
/// A file is recorded as holding a literal only when it was last changed
/// at least [`RACY_WINDOW`] before the check, since a second change within
/// the file system's clock tick would keep its times.
///
/// The cache is one JSON file, written whole by an atomic rename; a file
/// that is missing, damaged, of another version or for another project
/// root is an empty cache, never an error.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerdictCache {
    root: Option<String>,
    pub(crate) entries: BTreeMap<String, Entry>,
    refreshed_ms: Option<u64>,
    pub(crate) attempted_ms: Option<u64>,
    dirty: bool,
}

impl VerdictCache {
    /// An empty cache.
    #[must_use]
    pub fn new() -> VerdictCache {
        VerdictCache::default()
    }

    /// The cache kept in `path`; empty when the file is missing, damaged
    /// or of another format version.
    #[must_use]
    pub fn load(path: &Path) -> VerdictCache {
        let bytes = match memdir_memtypes::read_regular_file(path, MAX_CACHE_BYTES) {
            Ok(bytes) => bytes,
            Err(e) => {
                log::debug!("citations cache not read: {e}");
                return VerdictCache::new();
            }
        };
        match serde_json::from_slice::<CacheFile>(&bytes) {
            Ok(file) if file.version == VERSION => VerdictCache {
                root: Some(file.root),
                entries: file.entries,
                refreshed_ms: file.refreshed_ms,
                attempted_ms: file.attempted_ms,
                dirty: false,
            },
            Ok(file) => {
                log::debug!(
                    "citations cache {}: version {}",
                    path.display(),
                    file.version
                );
                VerdictCache::new()
            }
            Err(e) => {
                log::debug!("citations cache {} is damaged: {e}", path.display());
                VerdictCache::new()
            }
        }
    }

    /// Writes the cache to `path` whole (creating its folder), by an
    /// atomic rename: a reader sees the old file or the new one.
    ///
    /// # Panics
    ///
    /// Never: every key of the cache is a string, so it always serialises.
    pub fn save(&mut self, path: &Path) -> Result<(), crate::CitationsError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| crate::CitationsError::CacheFolder {
                path: dir.to_owned(),
                source,
            })?;
        }
        let file = CacheFileRef {
            version: VERSION,
            root: self.root.as_deref().unwrap_or_default(),
            refreshed_ms: self.refreshed_ms,
            attempted_ms: self.attempted_ms,
            entries: &self.entries,
        };
        let text = serde_json::to_vec(&file).expect("the cache always serialises");
        memdir_memtypes::atomic_write(path, &text)?;
        self.dirty = false;
        Ok(())
    }

    /// Whether a check changed the cache since it was loaded or saved.
    #[must_use]
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// How many literals have a verdict.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no literal has a verdict.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// When the last refresh that settled everything it checked started.
    #[must_use]
    pub fn refreshed_at(&self) -> Option<SystemTime> {
        self.refreshed_ms.map(from_millis)
    }

    /// When the last refresh started, finished or not.
    #[must_use]
    pub fn attempted_at(&self) -> Option<SystemTime> {
        self.attempted_ms.map(from_millis)
    }

    /// Whether a refresh is due at `now`: none settled everything within
    /// `policy.refresh_after`, and none started within `policy.retry_after`.
    #[must_use]
    pub fn refresh_due(&self, policy: &CachePolicy, now: SystemTime) -> bool {
        let older = |at: Option<u64>, limit: Duration| {
            at.is_none_or(|ms| age(ms, now).is_none_or(|a| a > limit))
        };
        older(self.refreshed_ms, policy.refresh_after)
            && older(self.attempted_ms, policy.retry_after)
    }

    /// Ties the cache to `root`: a cache of another root is emptied.
    pub(crate) fn bind(&mut self, root: &Path) {
        let root = root.to_string_lossy();
        if self.root.as_deref() != Some(&*root) {
            if self.root.is_some() || !self.entries.is_empty() {
                *self = VerdictCache::new();
            }
            self.root = Some(root.into_owned());
            self.dirty = true;
        }
    }

    pub(crate) fn set(&mut self, needle: &str, entry: Entry) {
        if self.entries.get(needle) != Some(&entry) {
            self.entries.insert(needle.to_owned(), entry);
            self.dirty = true;
        }
        if self.entries.len() > MAX_ENTRIES {
            let mut ages: Vec<(u64, String)> = self
                .entries
                .iter()
                .map(|(k, e)| (e.at_ms(), k.clone()))
                .collect();
            ages.sort();
            for (_, key) in ages.iter().take(self.entries.len() - MAX_ENTRIES) {
                self.entries.remove(key);
            }
        }
    }

    pub(crate) fn remove(&mut self, needle: &str) {
        if self.entries.remove(needle).is_some() {
            self.dirty = true;
        }
    }

    pub(crate) fn mark_attempt(&mut self, at_ms: u64) {
        self.attempted_ms = Some(at_ms);
        self.dirty = true;
    }

    pub(crate) fn mark_refreshed(&mut self, at_ms: u64) {
        self.refreshed_ms = Some(at_ms);
        self.dirty = true;
    }
}

/// `rel` joined to `root` when it names a place inside it (only plain
/// components): a cache file is data, and data does not choose which
/// files are read.
pub(crate) fn inside(root: &Path, rel: &str) -> Option<PathBuf> {
    let rel = Path::new(rel);
    let plain = rel.components().all(|c| matches!(c, Component::Normal(_)));
    (plain && rel.components().next().is_some()).then(|| root.join(rel))
}

pub(crate) fn millis_since_epoch(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn nanos_since_epoch(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

fn from_millis(ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

/// How long before `now` the moment `ms` was; `None` when it is in the
/// future (a clock set back): such a verdict is not trusted.
pub(crate) fn age(ms: u64, now: SystemTime) -> Option<Duration> {
    now.duration_since(from_millis(ms)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_relative_names_are_inside() {
        let root = Path::new("/p");
        assert_eq!(inside(root, "src/a.rs"), Some(PathBuf::from("/p/src/a.rs")));
        for hostile in ["", "/etc/passwd", "../x", "src/../../x", "./a", "a/./b/.."] {
            assert_eq!(inside(root, hostile), None, "{hostile:?}");
        }
    }

    #[test]
    fn the_oldest_verdicts_go_past_the_cap() {
        let mut cache = VerdictCache::new();
        for i in 0..(MAX_ENTRIES as u64 + 10) {
            cache.set(&format!("n{i}"), Entry::Absent { at_ms: i });
        }
        assert_eq!(cache.len(), MAX_ENTRIES);
        assert!(!cache.entries.contains_key("n0"));
        assert!(!cache.entries.contains_key("n9"));
        assert!(cache.entries.contains_key("n10"));
    }

    #[test]
    fn a_refresh_is_due_only_past_both_intervals() {
        let policy = CachePolicy::default();
        let now = SystemTime::now();
        let ms = |ago: u64| millis_since_epoch(now - Duration::from_secs(ago));
        let mut cache = VerdictCache::new();
        assert!(cache.refresh_due(&policy, now));
        cache.attempted_ms = Some(ms(10));
        assert!(!cache.refresh_due(&policy, now), "one started 10 s ago");
        cache.attempted_ms = Some(ms(60));
        assert!(cache.refresh_due(&policy, now));
        cache.refreshed_ms = Some(ms(60));
        assert!(
            !cache.refresh_due(&policy, now),
            "one settled all a minute ago"
        );
        cache.refreshed_ms = Some(ms(600));
        assert!(cache.refresh_due(&policy, now));
        // A time in the future is not trusted.
        cache.refreshed_ms = Some(ms(0) + 3_600_000);
        cache.attempted_ms = None;
        assert!(cache.refresh_due(&policy, now));
    }
}
