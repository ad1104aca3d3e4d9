//! `memdir prompt`: the memory section of the system prompt.

// clap shows the argument doc comments as help text, where backticks would
// print literally.
#![allow(clippy::doc_markdown)]

use clap::Args;
use memdir_prompt::{MemoryPrompt, PromptOptions, load_memory_prompt};
use serde::Serialize;

use crate::Outcome;
use crate::context::GlobalArgs;
use crate::output::{print, print_json};

#[derive(Debug, Args)]
#[command(
    after_help = "JSON: {mode, prompt, reason} — mode is single, combined, daily-log or off; \
    prompt is null and reason says why when memory is off."
)]
pub(crate) struct PromptArgs {
    /// Assistant mode: long-running sessions append to a daily log instead
    /// of maintaining MEMORY.md (daily-log mode). Also on with
    /// MEMDIR_ASSISTANT=1.
    #[arg(long)]
    assistant: bool,
    /// Add the section on searching past sessions' context.
    #[arg(long)]
    search_section: bool,
}

#[derive(Serialize)]
struct PromptJson<'a> {
    mode: &'a str,
    prompt: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

pub(crate) fn run(args: &PromptArgs, global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    let resolution = project.resolution();
    let assistant =
        args.assistant || std::env::var("MEMDIR_ASSISTANT").is_ok_and(|v| v.trim() == "1");
    let options = PromptOptions {
        assistant_mode: assistant,
        include_search_section: args.search_section,
    };
    let prompt = load_memory_prompt(resolution, &options)?;
    match &prompt {
        MemoryPrompt::Prompt { mode, text } => {
            if global.json {
                print_json(&PromptJson {
                    mode: mode.as_str(),
                    prompt: Some(text),
                    reason: None,
                })?;
            } else {
                print(text)?;
            }
        }
        MemoryPrompt::Off { reason } => {
            if global.json {
                print_json(&PromptJson {
                    mode: "off",
                    prompt: None,
                    reason: Some(reason),
                })?;
            }
            eprintln!("memdir: no memory prompt: {reason}");
        }
    }
    Ok(Outcome::Success)
}
