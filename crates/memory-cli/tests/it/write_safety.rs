//! Write safety (SPEC R18): many `memdir` processes writing one memory
//! folder at once, writers killed at any instant, and a lock held by
//! another process.
//!
//! Every run here is a real process of the built binary, and every wait is
//! bounded by [`TIMEOUT`], so a writer that hangs fails the test instead of
//! hanging the suite.

#![cfg(unix)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::{command, stderr, stdout};

/// How long one run may take before it is killed and the test fails: far
/// above any real run on a loaded machine, so only a hang reaches it.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The variable that sets how long a writer waits for the folder's lock.
const LOCK_TIMEOUT_VAR: &str = "MEMDIR_LOCK_TIMEOUT_MS";

/// A `memdir --memory-dir DIR ARGS…` command with the test environment of
/// [`crate::command`] and the default lock wait; output is captured.
fn memdir(dir: &Path, args: &[&str]) -> Command {
    let mut all = vec!["--memory-dir", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    let mut cmd = command(dir.parent().unwrap(), &[], all);
    cmd.env_remove(LOCK_TIMEOUT_VAR)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// One memory as `memdir add` is asked to write it.
#[derive(Debug, Clone)]
struct Memory {
    name: String,
    description: String,
    body: String,
}

impl Memory {
    fn new(name: &str, body: String) -> Self {
        Self {
            name: name.to_owned(),
            description: format!("Test note {name} written concurrently"),
            body,
        }
    }

    fn file(&self) -> String {
        format!("{}.md", self.name)
    }

    fn add(&self, dir: &Path) -> Command {
        memdir(
            dir,
            &[
                "add",
                "--type",
                "project",
                "--name",
                &self.name,
                "--description",
                &self.description,
                "--body",
                &self.body,
            ],
        )
    }

    /// The whole file `memdir add` writes for this memory.
    fn expected_text(&self) -> String {
        let newline = if self.body.ends_with('\n') { "" } else { "\n" };
        format!(
            "---\nname: {}\ndescription: {}\ntype: project\n---\n{}{newline}",
            self.name, self.description, self.body
        )
    }

    /// Its line in MEMORY.md.
    fn index_line(&self) -> String {
        format!("- [{}]({}) — {}", self.name, self.file(), self.description)
    }

    /// What is wrong with the file written for this memory, if anything.
    fn check_file(&self, dir: &Path) -> Option<String> {
        let path = dir.join(self.file());
        let bytes = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) => return Some(format!("{}: {e}", path.display())),
        };
        let parsed = memdir_memtypes::parse_memory(&bytes);
        if parsed.header.name.as_deref() != Some(self.name.as_str()) {
            return Some(format!(
                "{}: name is {:?}",
                path.display(),
                parsed.header.name
            ));
        }
        if bytes != self.expected_text().as_bytes() {
            return Some(format!(
                "{}: torn or foreign content ({} bytes, expected {}; body starts {:?})",
                path.display(),
                bytes.len(),
                self.expected_text().len(),
                parsed.body.chars().take(60).collect::<String>()
            ));
        }
        None
    }
}

/// Starts `cmd`.
fn spawn(mut cmd: Command) -> Child {
    cmd.spawn().expect("start memdir")
}

/// Waits for `child` at most [`TIMEOUT`]; one still running then is killed
/// and the test fails.
fn finish(mut child: Child, what: &str) -> Output {
    let deadline = Instant::now() + TIMEOUT;
    while child.try_wait().expect("poll memdir").is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("memdir ({what}) still running after {TIMEOUT:?}");
        }
        thread::sleep(Duration::from_millis(1));
    }
    // The child has exited: this only collects what it printed (a line or
    // two, well within a pipe's buffer).
    child.wait_with_output().expect("collect memdir's output")
}

/// Runs `cmd` to its end, bounded.
fn run(cmd: Command, what: &str) -> Output {
    finish(spawn(cmd), what)
}

fn read_index(dir: &Path) -> String {
    fs::read_to_string(dir.join("MEMORY.md")).unwrap_or_default()
}

/// The file an index line links to.
fn link_target(line: &str) -> Option<&str> {
    let start = line.find("](")? + 2;
    let len = line[start..].find(')')?;
    Some(&line[start..start + len])
}

/// Every file under `dir` (not following links), relative to it.
fn walk(dir: &Path) -> Vec<PathBuf> {
    fn visit(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if fs::symlink_metadata(&path).unwrap().is_dir() {
                visit(root, &path, out);
            } else {
                out.push(path.strip_prefix(root).unwrap().to_owned());
            }
        }
    }
    let mut out = Vec::new();
    visit(dir, dir, &mut out);
    out.sort();
    out
}

fn is_temp_file(rel: &Path) -> bool {
    rel.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(memdir_memtypes::is_temp_file_name)
}

/// The memory files of a folder: every `*.md` but the index.
fn memory_files(files: &[PathBuf]) -> BTreeSet<String> {
    files
        .iter()
        .filter_map(|p| p.to_str())
        .filter(|p| Path::new(p).extension().is_some_and(|e| e == "md") && *p != "MEMORY.md")
        .map(str::to_owned)
        .collect()
}

/// The lint of `memdir index check --json` of the kinds that a lost or
/// doubled write leaves.
fn write_lint(dir: &Path) -> Vec<serde_json::Value> {
    let out = run(
        memdir(dir, &["index", "check", "--json"]),
        "index check --json",
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("index check --json: {e}: {}", stderr(&out)));
    json["lint"]
        .as_array()
        .unwrap_or_else(|| panic!("index check --json has no lint: {json}"))
        .iter()
        .filter(|l| {
            matches!(
                l["kind"].as_str(),
                Some("unlinked-file" | "missing-file" | "duplicate-link")
            )
        })
        .cloned()
        .collect()
}

#[test]
fn eight_concurrent_adds_leave_eight_files_and_eight_lines() {
    const ROUNDS: usize = 20;
    const WRITERS: usize = 8;
    let mut lines = 0;
    let mut whole_files = 0;
    let mut losses = Vec::new();
    for round in 0..ROUNDS {
        let tmp = tempfile::tempdir().unwrap();
        // The folder does not exist yet: the writers also race to create it.
        let dir = tmp.path().join("memory");
        let memories: Vec<Memory> = (0..WRITERS)
            .map(|i| {
                let name = format!("note-{round}-{i}");
                let body = format!("Body of {name}.\nIt has two lines.\n");
                Memory::new(&name, body)
            })
            .collect();
        let children: Vec<Child> = memories.iter().map(|m| spawn(m.add(&dir))).collect();
        for (memory, child) in memories.iter().zip(children) {
            let out = finish(child, &memory.name);
            assert!(
                out.status.success(),
                "round {round}, add {}: {:?} {}",
                memory.name,
                out.status,
                stderr(&out)
            );
        }

        let index = read_index(&dir);
        let mut got: Vec<&str> = index.lines().collect();
        got.sort_unstable();
        let mut expected: Vec<String> = memories.iter().map(Memory::index_line).collect();
        expected.sort();
        lines += expected
            .iter()
            .filter(|l| got.contains(&l.as_str()))
            .count();
        if got != expected {
            losses.push(format!("round {round}: MEMORY.md is\n{index}"));
        }
        for memory in &memories {
            match memory.check_file(&dir) {
                None => whole_files += 1,
                Some(problem) => losses.push(format!("round {round}: {problem}")),
            }
        }
    }
    assert_eq!(
        (whole_files, lines, losses.len()),
        (ROUNDS * WRITERS, ROUNDS * WRITERS, 0),
        "lost writes:\n{}",
        losses.join("\n")
    );
}

#[test]
fn eight_concurrent_adds_of_one_name_have_exactly_one_winner() {
    const ROUNDS: usize = 20;
    const WRITERS: usize = 8;
    for round in 0..ROUNDS {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("memory");
        let memories: Vec<Memory> = (0..WRITERS)
            .map(|i| Memory::new("shared-name", format!("writer-{i}")))
            .collect();
        let children: Vec<Child> = memories.iter().map(|m| spawn(m.add(&dir))).collect();
        let outs: Vec<Output> = children
            .into_iter()
            .enumerate()
            .map(|(i, child)| finish(child, &format!("writer-{i}")))
            .collect();

        let winners: Vec<usize> = (0..WRITERS).filter(|&i| outs[i].status.success()).collect();
        assert_eq!(
            winners.len(),
            1,
            "round {round}: winners {winners:?}; stderr: {:?}",
            outs.iter().map(stderr).collect::<Vec<_>>()
        );
        let winner = winners[0];
        for (i, out) in outs.iter().enumerate().filter(|&(i, _)| i != winner) {
            let err = stderr(out);
            assert_eq!(
                out.status.code(),
                Some(1),
                "round {round}, writer-{i}: {err}"
            );
            assert!(
                err.contains("already exists") && err.lines().count() == 1,
                "round {round}, writer-{i}: {err}"
            );
        }
        let memory = &memories[winner];
        assert_eq!(
            memory.check_file(&dir),
            None,
            "round {round}: the file is not writer-{winner}'s"
        );
        assert_eq!(
            read_index(&dir),
            format!("{}\n", memory.index_line()),
            "round {round}"
        );
        assert_eq!(
            memory_files(&walk(&dir)),
            BTreeSet::from([memory.file()]),
            "round {round}"
        );
    }
}

#[test]
fn adds_and_index_fix_at_once_lose_nothing() {
    const WRITERS: usize = 4;
    const ADDS: usize = 15;
    const FIXERS: usize = 2;
    const FIXES: usize = 15;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    fs::create_dir(&dir).unwrap();
    let memories: Vec<Vec<Memory>> = (0..WRITERS)
        .map(|w| {
            (0..ADDS)
                .map(|k| {
                    let name = format!("writer-{w}-note-{k:02}");
                    let body = format!("Note {k} of writer {w}.\n");
                    Memory::new(&name, body)
                })
                .collect()
        })
        .collect();

    let fixes: Vec<Output> = thread::scope(|scope| {
        let writers: Vec<_> = memories
            .iter()
            .map(|mine| {
                let dir = &dir;
                scope.spawn(move || {
                    for memory in mine {
                        let out = run(memory.add(dir), &memory.name);
                        assert!(
                            out.status.success(),
                            "add {}: {:?} {}",
                            memory.name,
                            out.status,
                            stderr(&out)
                        );
                    }
                })
            })
            .collect();
        let fixers: Vec<_> = (0..FIXERS)
            .map(|_| {
                let dir = &dir;
                scope.spawn(move || {
                    (0..FIXES)
                        .map(|_| run(memdir(dir, &["index", "fix", "--json"]), "index fix"))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        fixers.into_iter().flat_map(|f| f.join().unwrap()).collect()
    });

    // Each writer holds the lock for its whole change, so a fix running
    // between two adds finds the folder whole: nothing to add or remove.
    for out in &fixes {
        assert!(out.status.success(), "index fix: {}", stderr(out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"added": [], "tempFilesRemoved": 0, "supersededLinesRemoved": [], "remaining": []}),
            "a fix saw a half-done add"
        );
    }
    let all: Vec<&Memory> = memories.iter().flatten().collect();
    let problems: Vec<String> = all.iter().filter_map(|m| m.check_file(&dir)).collect();
    assert_eq!(problems, Vec::<String>::new());
    let index = read_index(&dir);
    let mut got: Vec<&str> = index.lines().collect();
    got.sort_unstable();
    let mut expected: Vec<String> = all.iter().map(|m| m.index_line()).collect();
    expected.sort();
    assert_eq!(got.len(), WRITERS * ADDS, "MEMORY.md:\n{index}");
    assert_eq!(got, expected);
    assert_eq!(write_lint(&dir), Vec::<serde_json::Value>::new());
}

/// A tiny xorshift generator: reproducible from its seed, no crate needed.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        // Xorshift never leaves zero.
        Self(seed | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The seed of the kill harness: `MEMDIR_KILL_SEED` to replay a failure,
/// else the clock.
fn kill_seed() -> u64 {
    if let Some(seed) = std::env::var("MEMDIR_KILL_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
    {
        return seed;
    }
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    now.as_secs() ^ (u64::from(now.subsec_nanos()) << 20) ^ u64::from(std::process::id())
}

/// A body of about `bytes` bytes that names its memory and its own length
/// in lines, so that any torn, short or mixed-up file shows.
fn kill_body(name: &str, bytes: usize) -> String {
    const LINE: usize = 64;
    let lines = bytes / LINE;
    let mut body = format!("{name}: {lines} lines follow\n");
    for i in 0..lines {
        let start = body.len();
        write!(body, "{name} line {i:05} ").unwrap();
        while body.len() - start < LINE - 1 {
            body.push('x');
        }
        body.push('\n');
    }
    writeln!(body, "end of {name}").unwrap();
    body
}

/// One add of the kill harness, and when (if at all) it is killed.
struct Plan {
    memory: Memory,
    kill_after: Option<Duration>,
}

/// How one add of the kill harness ended.
struct Ended {
    killed: bool,
    output: Output,
}

#[test]
#[allow(
    clippy::too_many_lines,
    reason = "one scenario: run, kill, repair, then check every file and line"
)]
#[allow(
    clippy::print_stdout,
    reason = "the summary names the seed that replays the run"
)]
fn sigkill_during_adds_then_index_fix_leaves_nothing_torn_or_stray() {
    const PARALLEL: usize = 4;
    const LAST_KILLED: usize = 5 * PARALLEL;
    let runs: usize = if std::env::var_os("MEMDIR_SLOW_TESTS").is_some_and(|v| v == "1") {
        1_000
    } else {
        400
    };
    let seed = kill_seed();
    let mut rng = Rng::new(seed);
    let plans: Vec<Plan> = (0..runs)
        .map(|i| {
            let name = format!("killed-or-not-{i:04}");
            let bytes = 20_000 + usize::try_from(rng.below(40_001)).unwrap();
            // About half the writers are killed, at 0 to 15 ms after they
            // start: from before main to after the index line. The last
            // ones all are, so that a memory a kill left unindexed is not
            // always repaired by a later add before `index fix` runs.
            let last = i >= runs - LAST_KILLED;
            let kill_after =
                (last || rng.below(2) == 0).then(|| Duration::from_micros(rng.below(15_001)));
            Plan {
                memory: Memory::new(&name, kill_body(&name, bytes)),
                kill_after,
            }
        })
        .collect();

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    fs::create_dir(&dir).unwrap();
    let started = Instant::now();
    let ended: Vec<(usize, Ended)> = thread::scope(|scope| {
        let workers: Vec<_> = (0..PARALLEL)
            .map(|w| {
                let (dir, plans) = (&dir, &plans);
                scope.spawn(move || {
                    let mut ended = Vec::new();
                    for (i, plan) in plans.iter().enumerate().skip(w).step_by(PARALLEL) {
                        let mut child = spawn(plan.memory.add(dir));
                        if let Some(delay) = plan.kill_after {
                            thread::sleep(delay);
                            // Fails only when the child has been reaped, which
                            // it has not: its status says whether it died.
                            let _ = child.kill();
                        }
                        let output = finish(child, &plan.memory.name);
                        let killed = output.status.signal() == Some(9);
                        ended.push((i, Ended { killed, output }));
                    }
                    ended
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    let adds_took = started.elapsed();

    let mut problems = Vec::new();
    let mut killed = 0;
    let mut repaired_by_adds = 0;
    for (i, end) in &ended {
        let name = &plans[*i].memory.name;
        if end.killed {
            killed += 1;
        } else if end.output.status.success() {
            repaired_by_adds += stderr(&end.output)
                .lines()
                .filter(|l| l.contains("which an interrupted write had left"))
                .count();
        } else {
            problems.push(format!(
                "add {name} failed: {:?} {}",
                end.output.status,
                stderr(&end.output)
            ));
        }
    }

    let before = walk(&dir);
    let temp_before = before.iter().filter(|p| is_temp_file(p)).count();
    let index_before = read_index(&dir);
    let linked_before: BTreeSet<&str> = index_before.lines().filter_map(link_target).collect();
    let unindexed_before: BTreeSet<String> = memory_files(&before)
        .into_iter()
        .filter(|f| !linked_before.contains(f.as_str()))
        .collect();

    let fix = run(
        memdir(&dir, &["index", "fix", "--json"]),
        "index fix --json",
    );
    let report: serde_json::Value = serde_json::from_slice(&fix.stdout).unwrap_or_else(|e| {
        panic!(
            "seed {seed}: index fix --json: {e}: {} {}",
            stdout(&fix),
            stderr(&fix)
        )
    });
    let temp_removed = report["tempFilesRemoved"].as_u64().unwrap_or(u64::MAX);
    let added: BTreeSet<String> = report["added"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let summary = format!(
        "seed {seed} (MEMDIR_KILL_SEED={seed} replays it): {runs} adds, {PARALLEL} at a time, \
         in {adds_took:.1?}; {killed} killed by SIGKILL; before the fix {temp_before} temp files \
         and {} unindexed memories ({repaired_by_adds} more were indexed by later adds); \
         index fix removed {temp_removed} temp files and indexed {} memories",
        unindexed_before.len(),
        added.len(),
    );
    println!("{summary}");
    if !fix.status.success() {
        problems.push(format!(
            "index fix exited {:?}: {} {}",
            fix.status,
            stdout(&fix),
            stderr(&fix)
        ));
    }
    if report["remaining"] != serde_json::json!([]) {
        problems.push(format!("index fix left {}", report["remaining"]));
    }
    if temp_removed != temp_before as u64 {
        problems.push(format!(
            "index fix removed {temp_removed} temp files, {temp_before} were there"
        ));
    }
    if added != unindexed_before {
        problems.push(format!(
            "index fix indexed {added:?}, unindexed were {unindexed_before:?}"
        ));
    }

    // After the fix: no temp file anywhere, nothing but memories, the index
    // and the lock file; every memory whole, with exactly one line.
    let by_file: BTreeMap<String, &Plan> = plans.iter().map(|p| (p.memory.file(), p)).collect();
    let after = walk(&dir);
    for rel in &after {
        let rel = rel.to_str().unwrap();
        if is_temp_file(Path::new(rel)) {
            problems.push(format!("temp file {rel} left after index fix"));
        } else if rel != "MEMORY.md" && rel != ".memdir.lock" && !by_file.contains_key(rel) {
            problems.push(format!("stray file {rel}"));
        }
    }
    let files = memory_files(&after);
    for file in &files {
        if let Some(plan) = by_file.get(file)
            && let Some(problem) = plan.memory.check_file(&dir)
        {
            problems.push(problem);
        }
    }
    for (i, end) in &ended {
        let memory = &plans[*i].memory;
        if !end.killed && end.output.status.success() && !files.contains(&memory.file()) {
            problems.push(format!("{} was added (exit 0) but is gone", memory.file()));
        }
    }
    let index = read_index(&dir);
    let mut lines_per_file: BTreeMap<&str, usize> = BTreeMap::new();
    for (n, line) in index.lines().enumerate() {
        let Some(target) = link_target(line) else {
            problems.push(format!("MEMORY.md line {}: no link: {line:?}", n + 1));
            continue;
        };
        *lines_per_file.entry(target).or_default() += 1;
        match by_file.get(target) {
            Some(plan) if files.contains(target) => {
                if line != plan.memory.index_line() {
                    problems.push(format!("MEMORY.md line {}: {line:?}", n + 1));
                }
            }
            _ => problems.push(format!(
                "MEMORY.md line {} links to a missing file: {line:?}",
                n + 1
            )),
        }
    }
    for file in &files {
        match lines_per_file.get(file.as_str()) {
            Some(1) => {}
            count => problems.push(format!("{file} has {count:?} index lines")),
        }
    }
    problems.extend(
        write_lint(&dir)
            .into_iter()
            .map(|l| format!("index check: {l}")),
    );

    assert!(
        problems.is_empty(),
        "{summary}\n{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(
        killed > 0,
        "{summary}: no add was killed, so nothing was tested"
    );
}

#[test]
fn a_held_lock_is_reported_with_its_holder() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("memory");
    fs::create_dir(&dir).unwrap();
    let holder = "pid 4242, lock-holder-of-the-test, since 2026-01-01T00:00:00Z\n";
    let lock = fs::File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join(".memdir.lock"))
        .unwrap();
    lock.lock().unwrap();
    (&lock).write_all(holder.as_bytes()).unwrap();

    let memory = Memory::new("blocked", "Never written.".to_owned());
    let mut add = memory.add(&dir);
    add.env(LOCK_TIMEOUT_VAR, "300");
    let started = Instant::now();
    let out = run(add, "add under a held lock");
    let took = started.elapsed();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_secs(5),
        "gave up after {took:?}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("locked by another writer"), "{err}");
    assert!(
        err.contains(holder.trim_end()),
        "the holder is named: {err}"
    );
    assert_eq!(
        walk(&dir),
        [PathBuf::from(".memdir.lock")],
        "nothing is written"
    );
    assert_eq!(
        fs::read_to_string(dir.join(".memdir.lock")).unwrap(),
        holder
    );

    // Released, the same add goes through.
    drop(lock);
    let out = run(memory.add(&dir), "add after the lock is released");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(memory.check_file(&dir), None);
}
