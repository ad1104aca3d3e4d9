//! The walk and the reads of [`scan_memory_dir`].

use std::cell::OnceCell;
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use camino::{Utf8Path, Utf8PathBuf};
use memdir_memtypes::walk::{Entry, EntryKind, Walk, WalkError};
use memdir_memtypes::{ENTRYPOINT_NAME, effective_time_ms, not_a_file, parse_memory, unix_millis};

use crate::open::Folders;
use crate::{
    CancelToken, DiagnosticKind, FileStamp, MAX_HEAD_BYTES, MemoryHeader, Scan, ScanDiagnostic,
    ScanError, ScanOptions,
};

/// A memory file found by the walk.
struct Candidate {
    filename: String,
    path: Utf8PathBuf,
    /// The folder it was listed in, as an index into the walk's folders.
    folder: usize,
    /// Opened only if it is not a link (it was not one when it was
    /// checked): a link swapped in since is refused, never followed.
    no_link: bool,
}

/// Scans a memory folder (SPEC R5.3, R5.5). Fails only when the folder
/// itself cannot be opened; everything wrong with a file becomes a
/// diagnostic. Hidden files and folders (names starting with `.`: memdir's
/// temporary files, `.conflicts/`, sync state) are not memories and are
/// passed over silently. A folder whose path is not UTF-8 is refused
/// ([`ScanError::FolderNotUtf8`]): every memory's path is UTF-8.
pub fn scan_memory_dir(
    dir: &Path,
    options: &ScanOptions,
    cancel: &CancelToken,
) -> Result<Scan, ScanError> {
    if dir.to_str().is_none() {
        return Err(ScanError::FolderNotUtf8 {
            path: dir.to_owned(),
        });
    }
    let root = Root {
        given: dir,
        real: OnceCell::new(),
    };
    let mut scan = Scan::default();
    let mut candidates = Vec::new();
    let mut folders = Folders::default();
    walk(
        &root,
        options,
        cancel,
        &mut folders,
        &mut candidates,
        &mut scan,
    )?;
    scan.total_files = candidates.len();
    if scan.cancelled {
        return Ok(scan);
    }

    let now_ms = options
        .now_ms
        .unwrap_or_else(|| unix_millis(std::time::SystemTime::now()));
    let reader = Reader {
        folders: &folders,
        max_lines: options.max_lines,
        now_ms,
        cancel,
    };

    // Which files are read, and in which order they are listed, are two
    // choices (SPEC R5.3 with R2.5):
    //
    // - Which: with more files than the cap, all are stat'ed and the newest
    //   by file mtime are read, as R5.3 says. A `modified` time is only
    //   known once a file is read, and reading every file to pick the
    //   newest would undo the cap's point, which is to bound the reads.
    //   A file among them that cannot be read (binary, unreadable, a link
    //   to a FIFO, vanished) is reported and the next newest is read in its
    //   place, so the scan holds the cap's number of *readable* memories
    //   whenever the folder has that many.
    // - Order: newest first by each memory's effective time (its recorded
    //   `modified`, else its mtime), the time the manifest shows and ages
    //   are judged by, so that the list reads newest first by the times it
    //   shows. Ties go by file name, so the order is deterministic.
    //
    // With at most the cap's number of files, one pass: the open file gives
    // both the lines and the mtime.
    if candidates.len() > options.max_files {
        let mut stamped: Vec<(i64, Candidate)> = Vec::with_capacity(candidates.len());
        for c in candidates {
            match fs::metadata(c.path.as_std_path()).and_then(|m| m.modified()) {
                Ok(t) => stamped.push((unix_millis(t), c)),
                Err(e) => scan
                    .diagnostics
                    .push(io_diagnostic(c.path.as_std_path(), &e)),
            }
        }
        stamped.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.filename.cmp(&b.1.filename)));
        let mut newest_first = stamped.into_iter().map(|(_, c)| c);
        while !scan.cancelled {
            let missing = options.max_files - scan.memories.len().min(options.max_files);
            let batch: Vec<Candidate> = newest_first.by_ref().take(missing).collect();
            if batch.is_empty() {
                break;
            }
            reader.read_all(batch, &mut scan);
        }
    } else {
        reader.read_all(candidates, &mut scan);
    }
    scan.memories.sort_by(|a, b| {
        b.mtime_ms
            .cmp(&a.mtime_ms)
            .then_with(|| a.filename.cmp(&b.filename))
    });
    scan.memories.truncate(options.max_files);
    Ok(scan)
}

/// What every read of one scan shares.
struct Reader<'a> {
    folders: &'a Folders,
    max_lines: usize,
    /// The time a `modified` in the future counts as.
    now_ms: i64,
    cancel: &'a CancelToken,
}

/// Below this many files, reading on one thread is as fast as splitting.
const PARALLEL_THRESHOLD: usize = 32;

impl Reader<'_> {
    /// Reads the candidates' headers, on several threads when there are many:
    /// opening and reading files is most of a scan's time, and the cores would
    /// otherwise wait on each other's system calls. Results keep the
    /// candidates' order, so diagnostics are deterministic.
    fn read_all(&self, candidates: Vec<Candidate>, scan: &mut Scan) {
        let read_chunk = |chunk: Vec<Candidate>| {
            let mut headers = Vec::with_capacity(chunk.len());
            let mut diagnostics = Vec::new();
            let mut cancelled = false;
            for c in chunk {
                if self.cancel.is_cancelled() {
                    cancelled = true;
                    break;
                }
                headers.extend(self.read_header(c, &mut diagnostics).map(|(h, _)| h));
            }
            (headers, diagnostics, cancelled)
        };
        let results = in_chunks(candidates, read_chunk);
        for (headers, diagnostics, cancelled) in results {
            scan.memories.extend(headers);
            scan.diagnostics.extend(diagnostics);
            scan.cancelled |= cancelled;
        }
    }
}

/// `f` over `items` cut into chunks, on up to four threads when there are
/// many (opening and reading files is most of a read's time, and the cores
/// would otherwise wait on each other's system calls); the results in the
/// items' order.
fn in_chunks<T: Send, R: Send>(mut items: Vec<T>, f: impl Fn(Vec<T>) -> R + Sync) -> Vec<R> {
    if items.len() < PARALLEL_THRESHOLD {
        return vec![f(items)];
    }
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(4);
    if workers < 2 {
        return vec![f(items)];
    }
    let per = items.len().div_ceil(workers);
    let mut chunks = Vec::with_capacity(workers);
    while items.len() > per {
        let tail = items.split_off(per);
        chunks.push(items);
        items = tail;
    }
    chunks.push(items);
    std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| s.spawn(|| f(chunk)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// The memory folder as given, and its real path, resolved only when a
/// symbolic link needs a containment check (most folders have none).
struct Root<'a> {
    given: &'a Path,
    real: OnceCell<Option<PathBuf>>,
}

impl Root<'_> {
    fn real(&self) -> Option<&Path> {
        self.real
            .get_or_init(|| fs::canonicalize(self.given).ok())
            .as_deref()
    }
}

/// Collects the memory files below the root with the one folder walk of
/// [`memdir_memtypes::walk`]: hidden entries are passed over, links are
/// judged here (followed only to a file inside the folder), special files
/// are reported unopened. Only an error listing the root itself is
/// returned; errors below it become diagnostics.
fn walk(
    root: &Root<'_>,
    options: &ScanOptions,
    cancel: &CancelToken,
    folders: &mut Folders,
    out: &mut Vec<Candidate>,
    scan: &mut Scan,
) -> Result<(), ScanError> {
    // The root's descriptor, and then one per folder: `open_at[d]` is the
    // folder at depth `d` of the walk's current branch.
    let mut open_at = vec![folders.add(root.given)];
    let mut entries = Walk::new(root.given).into_iter();
    while let Some(item) = entries.next() {
        if cancel.is_cancelled() {
            scan.cancelled = true;
            return Ok(());
        }
        let entry = match item {
            Ok(entry) => entry,
            Err(WalkError::Root { path, source }) => {
                return Err(ScanError::Folder { path, source });
            }
            Err(WalkError::NonUtf8Name { path, .. }) => {
                scan.diagnostics.push(ScanDiagnostic {
                    path,
                    kind: DiagnosticKind::NonUtf8Name,
                });
                continue;
            }
            Err(e) => {
                let path = e.path().to_owned();
                scan.diagnostics
                    .push(io_diagnostic(&path, &e.into_io_error()));
                continue;
            }
        };
        let depth = entry.depth();
        let Some(&folder) = open_at.get(depth - 1) else {
            continue;
        };
        let name = entry.name();
        match entry.kind() {
            EntryKind::Folder => {
                if options.exclude.iter().any(|x| x == entry.rel()) {
                    entries.skip_current_dir();
                } else {
                    open_at.truncate(depth);
                    open_at.push(folders.add(entry.path()));
                }
            }
            EntryKind::Symlink => {
                // A link counts only when it resolves to a file inside the
                // folder.
                let path = entry.path();
                let diagnostic = |kind| ScanDiagnostic {
                    path: path.to_owned(),
                    kind,
                };
                match fs::canonicalize(path) {
                    Ok(target) if !root.real().is_some_and(|real| target.starts_with(real)) => {
                        scan.diagnostics
                            .push(diagnostic(DiagnosticKind::SymlinkOutside));
                    }
                    Ok(target) if target.is_dir() => {
                        scan.diagnostics
                            .push(diagnostic(DiagnosticKind::SymlinkedFolder));
                    }
                    Ok(_) if is_memory_name(name) => scan.add_candidate(out, &entry, folder),
                    Ok(_) => {}
                    Err(_) => scan
                        .diagnostics
                        .push(diagnostic(DiagnosticKind::SymlinkOutside)),
                }
            }
            EntryKind::File => {
                if is_memory_name(name) {
                    scan.add_candidate(out, &entry, folder);
                }
            }
            kind => {
                // A FIFO, socket or device with a memory's name is never
                // opened: opening or reading it could block the scan forever.
                if is_memory_name(name) {
                    scan.diagnostics
                        .push(not_a_file_diagnostic(entry.into_path(), kind.describe()));
                }
            }
        }
    }
    Ok(())
}

/// A memory file found by the walk. Its path is UTF-8 because the root's
/// is (checked before the walk) and every relative path the walk yields
/// is; a path that is not is reported, never converted lossily.
fn candidate(entry: &Entry, folder: usize) -> Result<Candidate, ScanDiagnostic> {
    match Utf8Path::from_path(entry.path()) {
        Some(path) => Ok(Candidate {
            filename: entry.rel().to_owned(),
            path: path.to_owned(),
            folder,
            no_link: false,
        }),
        None => Err(ScanDiagnostic {
            path: entry.path().to_owned(),
            kind: DiagnosticKind::NonUtf8Name,
        }),
    }
}

impl Scan {
    fn add_candidate(&mut self, out: &mut Vec<Candidate>, entry: &Entry, folder: usize) {
        match candidate(entry, folder) {
            Ok(c) => out.push(c),
            Err(d) => self.diagnostics.push(d),
        }
    }
}

/// Whether a file of this name is a memory: `*.md`, except `MEMORY.md`.
#[allow(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "memory files are `*.md` exactly, as the reference agent globs them"
)]
#[must_use]
pub fn is_memory_name(name: &str) -> bool {
    name.len() > 3 && name.ends_with(".md") && name != ENTRYPOINT_NAME
}

/// Whether `path` (a link, or a name below a subfolder) resolves to a
/// file inside the folder whose real path is `real_root`: the rule that
/// decides whether a link counts as a memory, for the scan and for
/// everything that lists or reads memories by name.
#[must_use]
pub fn resolves_inside(real_root: &Path, path: &Path) -> bool {
    fs::canonicalize(path).is_ok_and(|target| target.starts_with(real_root) && target.is_file())
}

/// A file skipped because it is a FIFO, a socket, a device or a folder.
fn not_a_file_diagnostic(path: PathBuf, kind: &str) -> ScanDiagnostic {
    ScanDiagnostic {
        path,
        kind: DiagnosticKind::Unreadable {
            error: format!("it is {kind}, not a regular file"),
        },
    }
}

fn io_diagnostic(path: &Path, e: &io::Error) -> ScanDiagnostic {
    let kind = if e.kind() == io::ErrorKind::NotFound {
        DiagnosticKind::Vanished
    } else {
        DiagnosticKind::Unreadable {
            error: e.to_string(),
        }
    };
    ScanDiagnostic {
        path: path.to_owned(),
        kind,
    }
}

impl Reader<'_> {
    /// Opens a memory file without blocking, checks on the open descriptor
    /// that it is a regular file (it may have been swapped for a FIFO since it
    /// was listed), takes its mtime from the open file and reads at most
    /// `max_lines` lines (and [`MAX_HEAD_BYTES`] bytes) of it.
    fn read_header(
        &self,
        c: Candidate,
        diagnostics: &mut Vec<ScanDiagnostic>,
    ) -> Option<(MemoryHeader, FileStamp)> {
        let (folders, max_lines) = (self.folders, self.max_lines);
        let name = c.filename.rsplit('/').next().unwrap_or(&c.filename);
        let mut file = match folders.open(c.folder, name, c.path.as_std_path(), c.no_link) {
            Ok(file) => file,
            Err(e) => {
                // Opening a socket fails (ENXIO); name what it is rather than
                // the error's obscure text.
                let kind = fs::metadata(c.path.as_std_path())
                    .ok()
                    .and_then(|m| not_a_file(&m));
                diagnostics.push(match kind {
                    Some(kind) => not_a_file_diagnostic(c.path.into_std_path_buf(), kind),
                    None => io_diagnostic(c.path.as_std_path(), &e),
                });
                return None;
            }
        };
        let mut fail = |e: &io::Error| diagnostics.push(io_diagnostic(c.path.as_std_path(), e));
        let meta = match file.metadata() {
            Ok(meta) => meta,
            Err(e) => {
                fail(&e);
                return None;
            }
        };
        if let Some(kind) = not_a_file(&meta) {
            diagnostics.push(not_a_file_diagnostic(c.path.into_std_path_buf(), kind));
            return None;
        }
        let stamp = FileStamp::of(&meta);
        let mtime_ms = match meta.modified() {
            Ok(t) => unix_millis(t),
            Err(e) => {
                fail(&e);
                return None;
            }
        };
        let head = match read_head(&mut file, meta.len(), max_lines) {
            Ok(head) => head,
            Err(e) => {
                fail(&e);
                return None;
            }
        };
        if head.contains(&0) {
            diagnostics.push(ScanDiagnostic {
                path: c.path.into_std_path_buf(),
                kind: DiagnosticKind::Binary,
            });
            return None;
        }
        let parsed = parse_memory(&head);
        for d in parsed.diagnostics {
            // A frontmatter block longer than the lines read looks unclosed; that
            // is the cost of reading only the head, not a fault of the file.
            let cut_short = matches!(d, memdir_memtypes::Diagnostic::UnclosedFrontmatter)
                && head.split(|&b| b == b'\n').count() > max_lines;
            if !cut_short {
                diagnostics.push(ScanDiagnostic {
                    path: c.path.clone().into_std_path_buf(),
                    kind: DiagnosticKind::Frontmatter(d),
                });
            }
        }
        Some((
            MemoryHeader {
                filename: c.filename,
                file_path: c.path,
                mtime_ms: effective_time_ms(parsed.modified, mtime_ms, self.now_ms),
                name: parsed.header.name,
                description: parsed.header.description,
                memory_type: parsed.header.memory_type,
                body_head: parsed.body,
                supersedes: parsed.supersedes,
                superseded_by: parsed.superseded_by,
            },
            stamp,
        ))
    }
}

/// Reads the headers of some memory files of the folder `dir`, named by
/// their paths relative to it (`/`-separated), as a scan reads them, with
/// the identity of each file as it was read; on several threads when there
/// are many. A file that cannot be read is a diagnostic (a vanished one is
/// [`DiagnosticKind::Vanished`]), in the order given. What a persistent
/// recall index uses to bring single memories up to date.
///
/// The scan's rule for links holds for a name given here too: a link, or a
/// name below a subfolder (which may itself be a link), is read only when
/// it resolves to a file inside `dir`; otherwise it is
/// [`DiagnosticKind::SymlinkOutside`], never opened. A name handed in by
/// another program (an agent's hook) cannot make a file outside the
/// folder a memory.
#[must_use]
pub fn read_memory_files(
    dir: &Path,
    filenames: &[String],
    now_ms: i64,
) -> Vec<Result<(MemoryHeader, FileStamp), ScanDiagnostic>> {
    let Some(root) = Utf8Path::from_path(dir) else {
        return filenames
            .iter()
            .map(|f| {
                Err(ScanDiagnostic {
                    path: dir.join(f),
                    kind: DiagnosticKind::NonUtf8Name,
                })
            })
            .collect();
    };
    let folders = Folders::default();
    let cancel = CancelToken::new();
    let reader = Reader {
        folders: &folders,
        max_lines: crate::FRONTMATTER_MAX_LINES,
        now_ms,
        cancel: &cancel,
    };
    let real_root: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    // Whether the name may be read, and whether it is a plain file of the
    // folder itself (then opened without following a link).
    let inside = |filename: &str, path: &Path| -> Option<bool> {
        let Ok(meta) = fs::symlink_metadata(path) else {
            // Gone: the read says so.
            return Some(true);
        };
        if !meta.file_type().is_symlink() && !filename.contains('/') {
            return Some(true);
        }
        let real = real_root
            .get_or_init(|| fs::canonicalize(dir).ok())
            .as_ref()?;
        resolves_inside(real, path).then_some(false)
    };
    let read_one = |filename: &String| {
        let mut diagnostics = Vec::new();
        let path = root.join(filename).into_std_path_buf();
        let Some(no_link) = inside(filename, &path) else {
            return Err(ScanDiagnostic {
                path,
                kind: DiagnosticKind::SymlinkOutside,
            });
        };
        let c = Candidate {
            filename: filename.clone(),
            path: root.join(filename),
            folder: usize::MAX,
            no_link,
        };
        // A frontmatter diagnostic does not keep the memory out.
        match reader.read_header(c, &mut diagnostics) {
            Some(found) => Ok(found),
            None => Err(diagnostics.pop().unwrap_or(ScanDiagnostic {
                path,
                kind: DiagnosticKind::Vanished,
            })),
        }
    };
    in_chunks(filenames.iter().collect(), |chunk: Vec<&String>| {
        chunk.into_iter().map(&read_one).collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// Reads the first `max_lines` lines of a file whose size is `len`: one
/// read for a typical memory, and no extra read to discover the end when
/// the size says it has been reached.
fn read_head(file: &mut File, len: u64, max_lines: usize) -> io::Result<Vec<u8>> {
    const CHUNK: usize = 8 * 1024;
    // Read into a stack buffer and keep only what arrived: no zero-filled
    // heap buffer per file, and an exact-size copy.
    let mut buf = [0u8; CHUNK];
    let mut head = Vec::new();
    let mut lines = 0;
    loop {
        let want = CHUNK.min(MAX_HEAD_BYTES - head.len());
        let n = match file.read(&mut buf[..want]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let chunk = &buf[..n];
        // Stop after the line that completes `max_lines`.
        let mut end = n;
        for (i, _) in chunk.iter().enumerate().filter(|&(_, &b)| b == b'\n') {
            lines += 1;
            if lines == max_lines {
                end = i + 1;
                break;
            }
        }
        head.extend_from_slice(&chunk[..end]);
        let at_end =
            n == 0 || lines == max_lines || u64::try_from(head.len()).is_ok_and(|l| l >= len);
        if at_end || head.len() >= MAX_HEAD_BYTES {
            return Ok(head);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader<'a>(folders: &'a Folders, cancel: &'a CancelToken) -> Reader<'a> {
        Reader {
            folders,
            max_lines: 30,
            now_ms: 0,
            cancel,
        }
    }

    fn read(path: &Path) -> (Option<MemoryHeader>, Vec<ScanDiagnostic>) {
        let mut diags = Vec::new();
        let c = Candidate {
            filename: "x.md".into(),
            path: Utf8PathBuf::from_path_buf(path.to_owned()).unwrap(),
            folder: 0,
            no_link: false,
        };
        let folders = Folders::default();
        (
            reader(&folders, &CancelToken::new())
                .read_header(c, &mut diags)
                .map(|(h, _)| h),
            diags,
        )
    }

    #[test]
    fn a_file_that_vanished_after_listing_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let (header, diags) = read(&dir.path().join("gone.md"));
        assert!(header.is_none());
        assert_eq!(diags[0].kind, DiagnosticKind::Vanished);
    }

    #[test]
    fn a_file_that_cannot_be_read_is_reported() {
        // A folder opens, and its descriptor says it is not a file.
        let dir = tempfile::tempdir().unwrap();
        let (header, diags) = read(dir.path());
        assert!(header.is_none());
        assert!(
            matches!(diags[0].kind, DiagnosticKind::Unreadable { .. }),
            "{diags:?}"
        );
        assert!(diags[0].to_string().contains("cannot read"));
    }

    #[cfg(unix)]
    fn mkfifo(path: &Path) {
        use rustix::fs::{CWD, Mode, mkfifoat};
        mkfifoat(CWD, path, Mode::RUSR | Mode::WUSR).unwrap();
    }

    #[cfg(unix)]
    fn assert_skipped_as(diags: &[ScanDiagnostic], path: &Path, kind: &str) {
        let found = diags.iter().find(|d| d.path == path);
        let Some(ScanDiagnostic {
            kind: DiagnosticKind::Unreadable { error },
            ..
        }) = found
        else {
            panic!("no unreadable diagnostic for {}: {diags:?}", path.display());
        };
        assert_eq!(error, &format!("it is {kind}, not a regular file"));
    }

    /// A memory swapped for a FIFO between listing and opening: opening
    /// by full path and relative to the folder's descriptor both return
    /// at once, and the file is skipped unread.
    #[cfg(unix)]
    #[test]
    fn a_fifo_swapped_in_after_listing_is_skipped_unread() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("x.md");
        mkfifo(&fifo);
        let (header, diags) = read(&fifo);
        assert!(header.is_none());
        assert_skipped_as(&diags, &fifo, "a FIFO");
        assert!(diags[0].to_string().ends_with("; skipped"), "{}", diags[0]);

        let mut folders = Folders::default();
        let folder = folders.add(dir.path());
        let c = Candidate {
            filename: "x.md".into(),
            path: Utf8PathBuf::from_path_buf(fifo.clone()).unwrap(),
            folder,
            no_link: false,
        };
        let mut diags = Vec::new();
        assert!(
            reader(&folders, &CancelToken::new())
                .read_header(c, &mut diags)
                .is_none()
        );
        assert_skipped_as(&diags, &fifo, "a FIFO");
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_skipped_unread() {
        let (header, diags) = read(Path::new("/dev/zero"));
        assert!(header.is_none());
        assert_skipped_as(&diags, Path::new("/dev/zero"), "a device");
    }

    /// FIFOs, sockets and links to them with memory names are reported and
    /// never opened; the ordinary memories beside them are read.
    #[cfg(unix)]
    #[test]
    fn special_files_in_the_folder_are_reported_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("a.md"), "---\ndescription: a\n---\n").unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/b.md"), "b\n").unwrap();
        mkfifo(&root.join("fifo.md"));
        mkfifo(&root.join("sub/notes.txt")); // not a memory name: passed over
        let _socket = std::os::unix::net::UnixListener::bind(root.join("sock.md")).unwrap();
        std::os::unix::fs::symlink(root.join("fifo.md"), root.join("link.md")).unwrap();

        let scan =
            crate::scan_memory_dir(root, &crate::ScanOptions::default(), &CancelToken::new())
                .unwrap();
        let mut names: Vec<&str> = scan.memories.iter().map(|m| m.filename.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, ["a.md", "sub/b.md"]);
        assert_eq!(scan.diagnostics.len(), 3, "{:?}", scan.diagnostics);
        assert_skipped_as(&scan.diagnostics, &root.join("fifo.md"), "a FIFO");
        assert_skipped_as(&scan.diagnostics, &root.join("sock.md"), "a socket");
        assert_skipped_as(&scan.diagnostics, &root.join("link.md"), "a FIFO");
    }

    #[test]
    fn head_reads_stop_at_the_line_limit_or_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, "1\n2\n3\n4\n").unwrap();
        let mut file = File::open(&path).unwrap();
        assert_eq!(read_head(&mut file, 8, 2).unwrap(), b"1\n2\n");
        let mut file = File::open(&path).unwrap();
        assert_eq!(read_head(&mut file, 8, 30).unwrap(), b"1\n2\n3\n4\n");
        // A size that is out of date (the file grew) only costs a read.
        let mut file = File::open(&path).unwrap();
        assert_eq!(read_head(&mut file, 2, 30).unwrap(), b"1\n2\n3\n4\n");
    }
}
