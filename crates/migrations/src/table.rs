//! The eleven migrations (SPEC R14), each a function from the files as
//! they are to a decision, editing copies of the files it changes.
//!
//! A migration never writes: it edits [`Edit`]s, which the run commits
//! (target files first, then the file the old value is removed from) only
//! when it says [`Decision::Applied`]. A migration that finds a value of an
//! unexpected type returns `Err` (blocked) before editing anything.

use std::path::Path;

use memdir_settings::SettingsDocument;
use serde_json::{Value, json};

use crate::Subscription;

/// One file as the run read it: its bytes and document, or why it is left
/// alone.
pub(crate) struct Slot {
    pub(crate) path: std::path::PathBuf,
    /// How the file is reached to read and write it.
    pub(crate) target: memdir_settings::SettingsPath,
    pub(crate) state: Result<Read, String>,
    /// What is wrong with the file, when it is left alone: reported once
    /// as a problem.
    pub(crate) damage: Option<(crate::ProblemKind, String)>,
}

/// A file's bytes as read (`None`: no file) and its document.
#[derive(Clone)]
pub(crate) struct Read {
    pub(crate) bytes: Option<Vec<u8>>,
    pub(crate) doc: SettingsDocument,
}

/// A copy-on-write view of one file for one migration.
pub(crate) struct Edit<'a> {
    slot: &'a Slot,
    edited: Option<SettingsDocument>,
}

impl<'a> Edit<'a> {
    pub(crate) fn new(slot: &'a Slot) -> Self {
        Edit { slot, edited: None }
    }

    pub(crate) fn get(&self) -> Result<&SettingsDocument, String> {
        match (&self.edited, &self.slot.state) {
            (Some(doc), _) => Ok(doc),
            (None, Ok(read)) => Ok(&read.doc),
            (None, Err(why)) => Err(why.clone()),
        }
    }

    /// The document to change.
    pub(crate) fn edit(&mut self) -> Result<&mut SettingsDocument, String> {
        if self.edited.is_none() {
            let doc = self.get()?.clone();
            self.edited = Some(doc);
        }
        Ok(self.edited.as_mut().expect("set just above"))
    }

    /// The file's short name for messages: `.claude.json`, `settings.json`.
    fn name(&self) -> String {
        self.slot.path.file_name().map_or_else(
            || self.slot.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    /// The edited document, when this migration changed the file.
    pub(crate) fn into_changed(self) -> Option<SettingsDocument> {
        self.edited.filter(SettingsDocument::is_changed)
    }
}

/// What a migration has to work with.
pub(crate) struct Context<'a> {
    pub(crate) global: Edit<'a>,
    pub(crate) user: Edit<'a>,
    /// `None` when the run has no project.
    pub(crate) local: Option<Edit<'a>>,
    pub(crate) project_dir: Option<&'a Path>,
    pub(crate) subscription: &'a Result<Subscription, String>,
}

/// What a migration decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decision {
    /// It changed the files it edited, as described.
    Applied(String),
    /// Its guard says there is nothing to do, and why.
    NotNeeded(String),
}

/// When a migration runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Guard {
    /// Whenever its condition holds (the old value is there).
    Condition,
    /// Once: a done-flag in memdir's state records the run.
    DoneFlag,
}

/// One row of the table.
pub(crate) struct Migration {
    pub(crate) id: &'static str,
    pub(crate) guard: Guard,
    pub(crate) run: fn(&mut Context<'_>) -> Result<Decision, String>,
}

/// The table, in the order the migrations run.
pub(crate) const TABLE: [Migration; 11] = [
    Migration {
        id: "auto-updates-to-settings",
        guard: Guard::Condition,
        run: auto_updates_to_settings,
    },
    Migration {
        id: "bypass-permissions-accepted-to-settings",
        guard: Guard::Condition,
        run: bypass_permissions_accepted_to_settings,
    },
    Migration {
        id: "project-mcp-approvals-to-local-settings",
        guard: Guard::Condition,
        run: crate::mcp_approvals::project_mcp_approvals_to_local_settings,
    },
    Migration {
        id: "repl-bridge-to-remote-control",
        guard: Guard::Condition,
        run: repl_bridge_to_remote_control,
    },
    Migration {
        id: "fennec-to-opus",
        guard: Guard::Condition,
        run: fennec_to_opus,
    },
    Migration {
        id: "legacy-opus-to-current",
        guard: Guard::Condition,
        run: legacy_opus_to_current,
    },
    Migration {
        id: "opus-to-opus-1m",
        guard: Guard::DoneFlag,
        run: opus_to_opus_1m,
    },
    Migration {
        id: "sonnet-1m-to-sonnet-45-1m",
        guard: Guard::DoneFlag,
        run: sonnet_1m_to_sonnet_45_1m,
    },
    Migration {
        id: "sonnet-45-to-sonnet-46",
        guard: Guard::DoneFlag,
        run: sonnet_45_to_sonnet_46,
    },
    Migration {
        id: "reset-auto-mode-opt-in",
        guard: Guard::DoneFlag,
        run: reset_auto_mode_opt_in,
    },
    Migration {
        id: "reset-pro-to-opus-default",
        guard: Guard::DoneFlag,
        run: reset_pro_to_opus_default,
    },
];

/// The explicit Opus 4.0 and 4.1 names that `legacy-opus-to-current`
/// replaces.
const LEGACY_OPUS: [&str; 4] = [
    "claude-opus-4-20250514",
    "claude-opus-4-0",
    "claude-opus-4-1-20250805",
    "claude-opus-4-1",
];

/// The Sonnet 4.5 pins that `sonnet-45-to-sonnet-46` replaces.
const SONNET_45: [&str; 3] = [
    "claude-sonnet-4-5-20250929",
    "claude-sonnet-4-5",
    "sonnet-4-5-20250929",
];

/// The model a Pro plan defaulted to before Opus, as the model picker
/// wrote it: this project's reading of "the old default" (SPEC R14 #11).
pub const OLD_PRO_DEFAULT: &str = "sonnet";

fn not_needed(why: impl Into<String>) -> Decision {
    Decision::NotNeeded(why.into())
}

/// How a JSON value's type reads in a message: `null`, `a list`, ….
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A top-level boolean, `None` when absent; another type blocks.
fn boolean(edit: &Edit<'_>, key: &str) -> Result<Option<bool>, String> {
    match edit.get()?.get(key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b)),
        Some(other) => Err(format!(
            "{key} in {} is {}, not a boolean",
            edit.name(),
            kind(&other)
        )),
    }
}

/// The nested object under `key` as a document (an empty one when
/// absent); another type blocks.
pub(crate) fn object(edit: &Edit<'_>, key: &str) -> Result<SettingsDocument, String> {
    match edit.get()?.object(key) {
        None => Ok(SettingsDocument::new()),
        Some(Ok(doc)) => Ok(doc),
        Some(Err(_)) => Err(format!("{key} in {} is not an object", edit.name())),
    }
}

fn auto_updates_to_settings(cx: &mut Context<'_>) -> Result<Decision, String> {
    match boolean(&cx.global, "autoUpdates")? {
        None => return Ok(not_needed("autoUpdates is not set")),
        Some(true) => return Ok(not_needed("autoUpdates is true")),
        Some(false) => {}
    }
    let mut env = object(&cx.user, "env")?;
    let already = env.get("DISABLE_AUTOUPDATER").is_some();
    if !already {
        env.set("DISABLE_AUTOUPDATER", &json!("1"));
        cx.user.edit()?.set_object("env", &env);
    }
    cx.global.edit()?.remove("autoUpdates");
    Ok(Decision::Applied(if already {
        "removed autoUpdates: false from .claude.json (env.DISABLE_AUTOUPDATER was already set in settings.json)".into()
    } else {
        "autoUpdates: false in .claude.json -> env.DISABLE_AUTOUPDATER = \"1\" in settings.json"
            .into()
    }))
}

fn bypass_permissions_accepted_to_settings(cx: &mut Context<'_>) -> Result<Decision, String> {
    const OLD: &str = "bypassPermissionsModeAccepted";
    const NEW: &str = "skipDangerousModePermissionPrompt";
    match boolean(&cx.global, OLD)? {
        None => return Ok(not_needed(format!("{OLD} is not set"))),
        Some(false) => return Ok(not_needed(format!("{OLD} is false"))),
        Some(true) => {}
    }
    let already = cx.user.get()?.get(NEW).is_some();
    if !already {
        cx.user.edit()?.set(NEW, &json!(true));
    }
    cx.global.edit()?.remove(OLD);
    Ok(Decision::Applied(if already {
        format!("removed {OLD}: true from .claude.json ({NEW} was already set in settings.json)")
    } else {
        format!("{OLD}: true in .claude.json -> {NEW}: true in settings.json")
    }))
}

fn repl_bridge_to_remote_control(cx: &mut Context<'_>) -> Result<Decision, String> {
    const OLD: &str = "replBridgeEnabled";
    const NEW: &str = "remoteControlAtStartup";
    let Some(value) = boolean(&cx.global, OLD)? else {
        return Ok(not_needed(format!("{OLD} is not set")));
    };
    let already = cx.global.get()?.get(NEW).is_some();
    let global = cx.global.edit()?;
    if !already {
        global.set(NEW, &json!(value));
    }
    global.remove(OLD);
    Ok(Decision::Applied(if already {
        format!("removed {OLD} from .claude.json ({NEW} was already set)")
    } else {
        format!("{OLD}: {value} -> {NEW}: {value} in .claude.json")
    }))
}

/// The user settings' `model`, `None` when absent; another type blocks.
fn model(cx: &Context<'_>) -> Result<Option<String>, String> {
    match cx.user.get()?.get("model") {
        None => Ok(None),
        Some(Value::String(model)) => Ok(Some(model)),
        Some(other) => Err(format!(
            "model in {} is {}, not a string",
            cx.user.name(),
            kind(&other)
        )),
    }
}

/// Replaces the user settings' `model` when it is one of `from`.
fn replace_model(
    cx: &mut Context<'_>,
    from: &[&str],
    to: &str,
    eligible: impl FnOnce(&Subscription) -> Option<String>,
) -> Result<Decision, String> {
    let Some(model) = model(cx)? else {
        return Ok(not_needed("model is not set"));
    };
    if !from.contains(&model.as_str()) {
        return Ok(not_needed(format!("model is {model:?}")));
    }
    let subscription = cx.subscription.as_ref().map_err(Clone::clone)?;
    if let Some(why) = eligible(subscription) {
        return Ok(not_needed(why));
    }
    cx.user.edit()?.set("model", &json!(to));
    Ok(Decision::Applied(format!(
        "model: {model:?} -> {to:?} in settings.json"
    )))
}

/// Any subscription.
#[allow(
    clippy::unnecessary_wraps,
    reason = "one shape for every eligibility test"
)]
fn anyone(_: &Subscription) -> Option<String> {
    None
}

/// `None` when `subscription` is one of `plans`, else why not.
fn only(subscription: &Subscription, plans: &[Subscription], named: &str) -> Option<String> {
    (!plans.contains(subscription))
        .then(|| format!("the subscription is {subscription}, not {named}"))
}

fn fennec_to_opus(cx: &mut Context<'_>) -> Result<Decision, String> {
    match model(cx)?.as_deref() {
        Some("fennec-fast-latest") => {
            let user = cx.user.edit()?;
            user.set("model", &json!("opus[1m]"));
            user.set("fastMode", &json!(true));
            Ok(Decision::Applied(
                "model: \"fennec-fast-latest\" -> \"opus[1m]\" and fastMode: true in settings.json"
                    .into(),
            ))
        }
        _ => replace_model(cx, &["fennec-latest"], "opus", anyone),
    }
}

fn legacy_opus_to_current(cx: &mut Context<'_>) -> Result<Decision, String> {
    replace_model(cx, &LEGACY_OPUS, "opus", anyone)
}

fn opus_to_opus_1m(cx: &mut Context<'_>) -> Result<Decision, String> {
    replace_model(cx, &["opus"], "opus[1m]", |s| {
        only(
            s,
            &[Subscription::Max, Subscription::TeamPremium],
            "Max or Team Premium",
        )
    })
}

fn sonnet_1m_to_sonnet_45_1m(cx: &mut Context<'_>) -> Result<Decision, String> {
    replace_model(cx, &["sonnet[1m]"], "sonnet-4-5-20250929[1m]", anyone)
}

fn sonnet_45_to_sonnet_46(cx: &mut Context<'_>) -> Result<Decision, String> {
    replace_model(cx, &SONNET_45, "claude-sonnet-4-6", |s| {
        only(
            s,
            &[
                Subscription::Pro,
                Subscription::Max,
                Subscription::TeamPremium,
            ],
            "Pro, Max or Team Premium",
        )
    })
}

fn reset_auto_mode_opt_in(cx: &mut Context<'_>) -> Result<Decision, String> {
    const KEY: &str = "skipAutoPermissionPrompt";
    if cx.user.get()?.get(KEY).is_none() {
        return Ok(not_needed(format!("{KEY} is not set")));
    }
    cx.user.edit()?.remove(KEY);
    Ok(Decision::Applied(format!(
        "removed {KEY} from settings.json"
    )))
}

fn reset_pro_to_opus_default(cx: &mut Context<'_>) -> Result<Decision, String> {
    let Some(model) = model(cx)? else {
        return Ok(not_needed("model is not set"));
    };
    if model != OLD_PRO_DEFAULT {
        return Ok(not_needed(format!("model is {model:?}")));
    }
    let subscription = cx.subscription.as_ref().map_err(Clone::clone)?;
    if let Some(why) = only(subscription, &[Subscription::Pro], "Pro") {
        return Ok(not_needed(why));
    }
    cx.user.edit()?.remove("model");
    Ok(Decision::Applied(format!(
        "removed model: {model:?} from settings.json (the default, Opus, applies)"
    )))
}
