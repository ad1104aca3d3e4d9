//! A snapshot of the process environment that path resolution reads, so
//! that resolution is a pure function of its inputs and testable.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// Environment variables and the home folder, as resolution sees them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    vars: BTreeMap<String, String>,
    /// Variables whose value is not UTF-8, kept so that resolution can
    /// refuse or warn about them by name instead of taking them as unset.
    not_utf8: BTreeMap<String, OsString>,
    home: Option<PathBuf>,
}

impl Environment {
    /// An empty environment: no variables, no home folder.
    #[must_use]
    pub fn new() -> Self {
        Environment::default()
    }

    /// The current process's environment. Variables whose name is not
    /// UTF-8 are left out; one whose value is not is kept apart
    /// ([`Environment::not_utf8_var`]); the home folder is `$HOME`, or the
    /// platform's idea of it when `$HOME` is unset or empty.
    #[must_use]
    pub fn from_process() -> Self {
        let mut env = Environment::new();
        for (key, value) in std::env::vars_os() {
            if let Ok(key) = key.into_string() {
                env = env.with_var_os(key, value);
            }
        }
        env.home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or_else(std::env::home_dir);
        env
    }

    /// Sets a variable.
    #[must_use]
    pub fn with_var(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        let key = key.into();
        self.not_utf8.remove(&key);
        self.vars.insert(key, value.into());
        self
    }

    /// Sets a variable to a value that may not be UTF-8, as the process
    /// environment can hold.
    #[must_use]
    pub fn with_var_os(mut self, key: impl Into<String>, value: impl Into<OsString>) -> Self {
        let key = key.into();
        match value.into().into_string() {
            Ok(value) => {
                self.not_utf8.remove(&key);
                self.vars.insert(key, value);
            }
            Err(value) => {
                self.vars.remove(&key);
                self.not_utf8.insert(key, value);
            }
        }
        self
    }

    /// The value of a variable that is set to something not UTF-8, which
    /// [`Environment::var`] does not give.
    #[must_use]
    pub fn not_utf8_var(&self, key: &str) -> Option<&OsStr> {
        self.not_utf8.get(key).map(OsString::as_os_str)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_value_that_is_not_utf8_is_kept_apart_not_dropped() {
        use std::os::unix::ffi::OsStrExt;
        let bad = OsStr::from_bytes(b"/x\xff");
        let env = Environment::new()
            .with_var_os("A", bad)
            .with_var_os("B", "ok");
        assert_eq!((env.var("A"), env.not_utf8_var("A")), (None, Some(bad)));
        assert_eq!((env.var("B"), env.not_utf8_var("B")), (Some("ok"), None));
        // Setting a variable again replaces whichever kind it was.
        let env = env.with_var("A", "fine").with_var_os("B", bad);
        assert_eq!((env.var("A"), env.not_utf8_var("A")), (Some("fine"), None));
        assert_eq!((env.var("B"), env.not_utf8_var("B")), (None, Some(bad)));
    }
}
