//! What a project brings: its settings files, its folder name, its git
//! configuration.

use std::path::{Component, Path, PathBuf};

use memdir_paths::{
    Environment, MAX_SLUG_PREFIX, auto_memory_enabled, git_config_value, project_slug,
    sanitize_path, validate_memory_path,
};
use memdir_settings::{Settings, SettingsFile, SettingsSource};
use memdir_teamsync::parse_github_remote;

/// Reading any settings file from every source: deciding whether memory
/// is on warns on one line per bad value; an accepted
/// `autoMemoryDirectory` is absolute, normal, below the root and not the
/// home folder or above it.
pub(crate) fn settings(data: &[u8]) {
    let Ok(serde_json::Value::Object(values)) = serde_json::from_slice(data) else {
        return;
    };
    let files = SettingsSource::ALL
        .iter()
        .map(|&source| SettingsFile {
            source,
            path: PathBuf::from(format!("/etc/memdir/{source}.json")),
            values: values.clone(),
            committed: false,
        })
        .collect();
    let settings = Settings::from_files(files);
    let mut warnings = Vec::new();
    let _ = auto_memory_enabled(&Environment::new(), &settings, &mut warnings);
    for w in &warnings {
        assert!(!w.contains('\n'), "a multi-line warning: {w:?}");
    }
    if let Some(serde_json::Value::String(dir)) = values.get("autoMemoryDirectory") {
        memory_dir_holds(dir);
    }
}

fn memory_dir_holds(raw: &str) {
    let home = Path::new("/home/me");
    let Ok(dir) = validate_memory_path(raw, true, Some(home)) else {
        return;
    };
    let shown = &dir;
    assert!(dir.is_absolute(), "{shown} from {raw:?}");
    assert!(
        dir.as_std_path()
            .components()
            .all(|c| matches!(c, Component::RootDir | Component::Normal(_))),
        "{shown} is not normal"
    );
    assert!(dir.components().count() > 1, "{shown} is the root");
    assert!(
        !home.starts_with(&dir),
        "{shown} is the home folder or above it"
    );
    let again = validate_memory_path(dir.as_str(), true, Some(home));
    assert_eq!(again.as_ref(), Ok(&dir), "validation is not idempotent");
}

/// Any folder path's slug is a valid folder name: dashes and ASCII
/// alphanumerics, bounded, and sanitising is idempotent.
pub(crate) fn slug(data: &[u8]) {
    let Some(root) = crate::text(data) else {
        return;
    };
    let slug = project_slug(root);
    assert!(
        slug.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
        "{slug:?}"
    );
    // The cut name, a dash, and a 32-bit hash in at most six base-36 digits.
    assert!(
        slug.len() <= MAX_SLUG_PREFIX + 1 + 6,
        "{} bytes",
        slug.len()
    );
    assert!(!slug.is_empty() || root.is_empty());
    let s = sanitize_path(root);
    assert_eq!(sanitize_path(&s), s, "sanitising is not idempotent");
}

/// Any git configuration: the origin remote, when it names a GitHub
/// repository, gives `owner/name` with two plain segments.
pub(crate) fn git_config(data: &[u8]) {
    let Some(config) = crate::text(data) else {
        return;
    };
    let url = git_config_value(config, "remote", Some("origin"), "url");
    for url in url.iter().map(String::as_str).chain(config.lines()) {
        let Some(repo) = parse_github_remote(url) else {
            continue;
        };
        let (owner, name) = repo.split_once('/').expect("owner/name");
        for segment in [owner, name] {
            assert!(!segment.is_empty() && !segment.contains('/'), "{repo:?}");
            assert!(!matches!(segment, "." | ".."), "{repo:?}");
            assert!(!segment.contains(char::is_whitespace), "{repo:?}");
        }
    }
}
