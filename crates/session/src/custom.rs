//! A user's own template and update prompt (SPEC R11.3):
//! `<base>/session-memory/config/template.md` and `…/prompt.md` replace
//! the defaults when present. A file that cannot be used is warned about
//! and the default is used instead.

use std::path::{Path, PathBuf};

use crate::{MAX_TEMPLATE_BYTES, Template};

/// The default update instructions. `{{notes_path}}`,
/// `{{max_section_tokens}}` and `{{max_total_tokens}}` are filled in; a
/// custom prompt may use them too.
pub const DEFAULT_UPDATE_PROMPT: &str = include_str!("text/prompt.md");

/// The template and instructions an update uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Customization {
    /// The template: the user's, or the default.
    pub template: Template,
    /// The update instructions: the user's, or [`DEFAULT_UPDATE_PROMPT`].
    pub prompt: String,
    /// A custom file that was present but could not be used, one line each.
    pub warnings: Vec<String>,
}

impl Default for Customization {
    fn default() -> Self {
        Customization {
            template: Template::default(),
            prompt: DEFAULT_UPDATE_PROMPT.to_owned(),
            warnings: Vec::new(),
        }
    }
}

/// The folder of the custom files: `<base>/session-memory/config/`.
#[must_use]
pub fn config_dir(base: &Path) -> PathBuf {
    base.join("session-memory").join("config")
}

/// A custom file's text; `None` when it is absent, and a warning when it
/// cannot be used.
fn read_custom(path: &Path, warnings: &mut Vec<String>) -> Option<String> {
    let limit = MAX_TEMPLATE_BYTES as u64;
    let bytes = match memdir_memtypes::read_regular_file(path, limit) {
        Ok(bytes) => bytes,
        Err(e) if e.is_not_found() => return None,
        Err(e) => {
            warnings.push(format!("{e}; using the default"));
            return None;
        }
    };
    match String::from_utf8(bytes) {
        Ok(text) if text.trim().is_empty() => {
            warnings.push(format!("{} is empty; using the default", path.display()));
            None
        }
        Ok(text) => Some(text),
        Err(_) => {
            warnings.push(format!(
                "{} is not UTF-8 text; using the default",
                path.display()
            ));
            None
        }
    }
}

impl Customization {
    /// Reads the custom template and prompt under `base`, the agent's
    /// configuration folder (`~/.claude`).
    #[must_use]
    pub fn load(base: &Path) -> Customization {
        let dir = config_dir(base);
        let mut out = Customization::default();
        let template_path = dir.join("template.md");
        if let Some(text) = read_custom(&template_path, &mut out.warnings) {
            match Template::parse(&text) {
                Ok(template) => out.template = template,
                Err(e) => out.warnings.push(format!(
                    "{}: {e}; using the default",
                    template_path.display()
                )),
            }
        }
        if let Some(text) = read_custom(&dir.join("prompt.md"), &mut out.warnings) {
            out.prompt = text;
        }
        for warning in &out.warnings {
            log::warn!("session notes: {warning}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_files_replace_the_defaults_and_broken_ones_do_not() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(Customization::load(tmp.path()), Customization::default());

        let dir = config_dir(tmp.path());
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("template.md"), "# Goal\n_the aim_\n# Done\n").unwrap();
        std::fs::write(dir.join("prompt.md"), "Keep {{notes_path}} short.").unwrap();
        let custom = Customization::load(tmp.path());
        assert_eq!(custom.template.sections().len(), 2);
        assert_eq!(custom.prompt, "Keep {{notes_path}} short.");
        assert!(custom.warnings.is_empty());

        std::fs::write(dir.join("template.md"), "no headings at all\n").unwrap();
        std::fs::write(dir.join("prompt.md"), [0xff, 0xfe]).unwrap();
        let broken = Customization::load(tmp.path());
        assert_eq!(broken.template, Template::default());
        assert_eq!(broken.prompt, DEFAULT_UPDATE_PROMPT);
        assert_eq!(broken.warnings.len(), 2, "{:?}", broken.warnings);
        assert!(broken.warnings[0].contains("no `# ` heading"));

        std::fs::remove_file(dir.join("template.md")).unwrap();
        std::fs::create_dir(dir.join("template.md")).unwrap();
        std::fs::write(dir.join("prompt.md"), "  \n").unwrap();
        let odd = Customization::load(tmp.path());
        assert_eq!(odd.template, Template::default());
        assert!(
            odd.warnings[0].contains("not a regular file"),
            "{:?}",
            odd.warnings
        );
        assert!(odd.warnings[1].contains("empty"));
    }
}
