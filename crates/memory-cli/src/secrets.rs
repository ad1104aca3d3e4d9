//! `memdir secrets scan|redact|rules`: the secret scanner on files, folders
//! or stdin. Findings name the rule and the line, never the secret.

use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use clap::Subcommand;
use memdir_memtypes::walk::{EntryKind, Hidden, Walk, WalkError};
use memdir_memtypes::{ReadError, read_regular_file};
use memdir_secrets::{Scanner, SecretMatch};
use serde::Serialize;

use crate::Outcome;
use crate::context::GlobalArgs;
use crate::output::{print, print_json};

/// At most this many bytes of one file, or of stdin, are scanned or
/// redacted (SPEC R18.4): far more than any text worth checking before it
/// is shared, and a bound on memory when the input never ends.
pub(crate) const MAX_SCAN_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// At most this many bytes of a gitleaks configuration file are read
/// (gitleaks' own, with every rule, is about 100 KB).
pub(crate) const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

#[derive(Debug, Subcommand)]
pub(crate) enum SecretsCommand {
    /// Scan files, folders (recursively) or stdin (`-`, the default) for
    /// secrets. Exits 0 when clean, 1 when anything is found; the output
    /// names each finding's rule and line, never the secret.
    #[command(
        after_help = "JSON: [{file, ruleId, label, start, end, line}] — start and end are \
        byte offsets of the secret in its file (file is absent for stdin)."
    )]
    Scan {
        /// Files or folders to scan; `-` reads stdin. An input that starts
        /// with '-' needs -- before the inputs, options first (`scan --json
        /// -- -notes.txt`), or a `./` (`./-notes.txt`): options may follow
        /// the inputs, so such a name is not taken as an input on its own.
        #[arg(value_name = "FILE|-", default_value = "-")]
        inputs: Vec<PathBuf>,
        /// A gitleaks configuration file: its rules replace the built-in
        /// ones, or extend them with `[extend] useDefault = true`.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// Print a file (or stdin) with every secret replaced by
    /// `[REDACTED:<rule-id>]`. Redaction repeats until the output scans
    /// clean: replacing one secret can bring another to light.
    Redact {
        /// The file, or `-` for stdin. A FILE that starts with '-' is taken
        /// as it is; put -- before one that looks like an option
        /// (`redact -- --json`).
        #[arg(value_name = "FILE|-", default_value = "-", allow_hyphen_values = true)]
        input: PathBuf,
        /// A gitleaks configuration file, as for `scan`.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// List the rules: their ids and what they detect.
    #[command(after_help = "JSON: [{id, description, keywords}]")]
    Rules {
        /// A gitleaks configuration file, as for `scan`.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
}

pub(crate) fn run(cmd: &SecretsCommand, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    match cmd {
        SecretsCommand::Scan { inputs, config } => scan(inputs, config.as_deref(), global.json),
        SecretsCommand::Redact { input, config } => {
            let scanner = scanner(config.as_deref())?;
            let text = read_text(input)?;
            let redaction = scanner.redaction(&text);
            if redaction.residue {
                // Every secret found is replaced; what still scans as one is
                // the marker itself, matched by a rule of the config.
                eprintln!(
                    "memdir: warning: a rule matches the [REDACTED:…] marker itself, so the output still scans as holding a secret"
                );
            }
            print_raw(&redaction.text)?;
            Ok(Outcome::Success)
        }
        SecretsCommand::Rules { config } => rules(&scanner(config.as_deref())?, global.json),
    }
}

/// The built-in scanner, or one from a gitleaks configuration file.
fn scanner(config: Option<&Path>) -> anyhow::Result<Scanner> {
    let Some(path) = config else {
        return Ok(Scanner::builtin().clone());
    };
    let bytes = read_regular_file(path, MAX_CONFIG_BYTES)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("cannot read {}: it is not UTF-8 text", path.display()))?;
    Scanner::from_toml(&text).with_context(|| format!("{}", path.display()))
}

fn read_text(input: &Path) -> anyhow::Result<String> {
    let bytes = read_bytes(input)?;
    String::from_utf8(bytes).map_err(|_| {
        anyhow::anyhow!(
            "{} is not UTF-8 text; redaction needs text",
            input.display()
        )
    })
}

/// Reads stdin (`-`) or a regular file, at most [`MAX_SCAN_FILE_BYTES`].
fn read_bytes(input: &Path) -> anyhow::Result<Vec<u8>> {
    if input.as_os_str() == "-" {
        return read_stdin();
    }
    if input.is_dir() {
        bail!("{} is a folder; give a file", input.display());
    }
    read_file(input).map_err(file_error)
}

fn read_stdin() -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_SCAN_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .context("cannot read stdin")?;
    if bytes.len() as u64 > MAX_SCAN_FILE_BYTES {
        bail!("stdin is over the {} limit for one input", limit_text());
    }
    Ok(bytes)
}

fn read_file(path: &Path) -> Result<Vec<u8>, ReadError> {
    read_regular_file(path, MAX_SCAN_FILE_BYTES)
}

/// A file's read error as one line, naming the limit in a unit people use.
fn file_error(err: ReadError) -> anyhow::Error {
    match err {
        ReadError::TooLarge { path, .. } => anyhow::anyhow!(
            "cannot read {}: it is over the {} limit for one file",
            path.display(),
            limit_text()
        ),
        other => other.into(),
    }
}

/// [`MAX_SCAN_FILE_BYTES`] for messages: `64 MiB (67108864 bytes)`.
fn limit_text() -> String {
    format!(
        "{} MiB ({MAX_SCAN_FILE_BYTES} bytes)",
        MAX_SCAN_FILE_BYTES / (1024 * 1024)
    )
}

/// Prints text as it is, without adding a newline.
fn print_raw(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FindingJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    rule_id: &'a str,
    label: &'a str,
    start: usize,
    end: usize,
    line: usize,
}

fn scan(inputs: &[PathBuf], config: Option<&Path>, json: bool) -> anyhow::Result<Outcome> {
    let scanner = scanner(config)?;
    let mut files: Vec<Input> = Vec::new();
    let mut skipped = 0;
    for input in inputs {
        if input.as_os_str() != "-" && !input.exists() {
            bail!("cannot read {}: no such file or folder", input.display());
        }
        collect(input, true, &mut files, &mut skipped)
            .with_context(|| format!("cannot list {}", input.display()))?;
    }
    let mut results: Vec<(Option<String>, Vec<SecretMatch>)> = Vec::new();
    let mut scanned = 0;
    for Input { path: file, named } in &files {
        let bytes = if *named {
            read_bytes(file)?
        } else {
            // A file found in a folder that turned into a FIFO since it was
            // listed, or is too large, is skipped like the FIFOs the listing
            // skips: one file does not end the scan of a folder.
            match read_file(file) {
                Ok(bytes) => bytes,
                Err(e @ (ReadError::NotAFile { .. } | ReadError::TooLarge { .. })) => {
                    eprintln!("memdir: warning: {}; skipped", file_error(e));
                    skipped += 1;
                    continue;
                }
                Err(e) => return Err(file_error(e)),
            }
        };
        scanned += 1;
        let name = (file.as_os_str() != "-").then(|| file.display().to_string());
        let findings = scanner.scan_bytes(&bytes, name.as_deref());
        if !findings.is_empty() {
            results.push((name, findings));
        }
    }
    let total: usize = results.iter().map(|(_, f)| f.len()).sum();
    if json {
        let rows: Vec<FindingJson<'_>> = results
            .iter()
            .flat_map(|(file, findings)| {
                findings.iter().map(move |f| FindingJson {
                    file: file.clone(),
                    rule_id: &f.rule_id,
                    label: &f.label,
                    start: f.start,
                    end: f.end,
                    line: f.line,
                })
            })
            .collect();
        print_json(&rows)?;
    } else {
        let mut out = String::new();
        for (file, findings) in &results {
            for f in findings {
                let place = file.as_deref().unwrap_or("stdin");
                let _ = writeln!(out, "{place}:{}: {} ({})", f.line, f.rule_id, f.label);
            }
        }
        if total == 0 {
            let _ = write!(
                out,
                "no secrets found ({scanned} {} scanned",
                if scanned == 1 { "input" } else { "inputs" }
            );
            if skipped > 0 {
                let _ = write!(out, ", {skipped} skipped");
            }
            out.push_str(")\n");
        } else {
            let _ = writeln!(
                out,
                "{total} {} found; the secrets are not shown",
                if total == 1 { "secret" } else { "secrets" }
            );
        }
        print(&out)?;
    }
    Ok(if total == 0 {
        Outcome::Success
    } else {
        Outcome::ProblemsFound
    })
}

/// One thing to scan.
struct Input {
    path: PathBuf,
    /// Named on the command line (an error ends the scan), rather than
    /// found in a folder (skipped with a warning when it is not a file).
    named: bool,
}

/// `input` itself, or every file below it when it is a folder, listed by
/// the one folder walk of `memdir_memtypes::walk` with hidden entries
/// included (`.env` files are where secrets hide; `.git` excluded). A file
/// whose name is not UTF-8 is scanned all the same; a folder so named is
/// reported and not entered. Symbolic links are not followed. FIFOs,
/// sockets and devices in a folder are reported on stderr and counted in
/// `skipped`, never opened.
fn collect(
    input: &Path,
    named: bool,
    out: &mut Vec<Input>,
    skipped: &mut usize,
) -> std::io::Result<()> {
    if input.as_os_str() == "-" || !input.is_dir() {
        out.push(Input {
            path: input.to_owned(),
            named,
        });
        return Ok(());
    }
    let mut warn = |path: &Path, why: &str| {
        eprintln!("memdir: warning: {}: {why}; skipped", path.display());
        *skipped += 1;
    };
    let mut entries = Walk::new(input).hidden(Hidden::Include).into_iter();
    while let Some(item) = entries.next() {
        let (path, kind) = match item {
            Ok(entry) if entry.kind() == EntryKind::Folder && entry.name() == ".git" => {
                entries.skip_current_dir();
                continue;
            }
            Ok(entry) => (entry.path().to_owned(), entry.kind()),
            Err(WalkError::NonUtf8Name { path, kind }) => {
                if kind == EntryKind::Folder {
                    warn(&path, "name is not UTF-8, folder not entered");
                    continue;
                }
                (path, kind)
            }
            Err(e) => return Err(e.into_io_error()),
        };
        match kind {
            EntryKind::File => out.push(Input { path, named: false }),
            EntryKind::Folder | EntryKind::Symlink => {}
            kind => warn(
                &path,
                &format!("it is {}, not a regular file", kind.describe()),
            ),
        }
    }
    Ok(())
}

#[derive(Serialize)]
struct RuleJson<'a> {
    id: &'a str,
    description: &'a str,
    keywords: &'a [String],
}

fn rules(scanner: &Scanner, json: bool) -> anyhow::Result<Outcome> {
    let rules = scanner.rules();
    if json {
        let rows: Vec<RuleJson<'_>> = rules
            .iter()
            .map(|r| RuleJson {
                id: &r.id,
                description: &r.description,
                keywords: &r.keywords,
            })
            .collect();
        print_json(&rows)?;
    } else {
        let width = rules.iter().map(|r| r.id.len()).max().unwrap_or(0);
        let mut text = String::new();
        for r in &rules {
            let _ = writeln!(text, "{:<width$}  {}", r.id, r.description);
        }
        print(&format!("{text}{} rules", rules.len()))?;
    }
    Ok(Outcome::Success)
}
