//! A snapshot of the process environment that path resolution reads, so
//! that resolution is a pure function of its inputs and testable.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Environment variables and the home folder, as resolution sees them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    vars: BTreeMap<String, String>,
    home: Option<PathBuf>,
}

impl Environment {
    /// An empty environment: no variables, no home folder.
    #[must_use]
    pub fn new() -> Self {
        Environment::default()
    }

    /// The current process's environment. Variables whose name or value is
    /// not UTF-8 are left out; the home folder is `$HOME`, or the platform's
    /// idea of it when `$HOME` is unset or empty.
    #[must_use]
    pub fn from_process() -> Self {
        let vars = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or_else(std::env::home_dir);
        Environment { vars, home }
    }

    /// Sets a variable.
    #[must_use]
    pub fn with_var(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.vars.insert(key.into(), value.into());
        self
    }

    /// Sets the home folder.
    #[must_use]
    pub fn with_home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = Some(home.into());
        self
    }

    /// A variable's value; an empty value counts as unset.
    #[must_use]
    pub fn var(&self, key: &str) -> Option<&str> {
        self.vars
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// A variable's value exactly as set, an empty value included: for the
    /// few variables where "set but empty" deserves a warning rather than
    /// silence.
    #[must_use]
    pub fn raw_var(&self, key: &str) -> Option<&str> {
        self.vars.get(key).map(String::as_str)
    }

    /// The user's home folder, if known.
    #[must_use]
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// Whether a variable is set to a truthy value: `1`, `true`, `yes` or
    /// `on`, in any case.
    #[must_use]
    pub fn is_truthy(&self, key: &str) -> bool {
        self.var(key).is_some_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            )
        })
    }
}
