//! The one place an import adds a memory: names made safe, descriptions
//! made present, duplicates and the count limit skipped.

use std::collections::HashSet;

use memdir_memtypes::MemoryType;

use crate::name::{description_or_derived, sanitize_name};
use crate::{Imported, MAX_MEMORIES, Memory, Skipped};

/// Gathers an import's memories and skipped entries.
#[derive(Default)]
pub(crate) struct Collector {
    out: Imported,
    names: HashSet<String>,
}

impl Collector {
    /// Whether the limit is reached: later memories are only skipped.
    pub(crate) fn is_full(&self) -> bool {
        self.out.memories.len() >= MAX_MEMORIES
    }

    /// Records something not taken.
    pub(crate) fn skip(&mut self, at: impl Into<String>, reason: impl Into<String>) {
        self.out.skipped.push(Skipped {
            at: at.into(),
            reason: reason.into(),
        });
    }

    /// Records that `at` is over the count limit.
    pub(crate) fn skip_full(&mut self, at: impl Into<String>) {
        self.skip(
            at,
            format!("over the limit of {MAX_MEMORIES} memories in one import"),
        );
    }

    /// Adds a memory found at `at` under the raw name `raw_name`.
    pub(crate) fn add(
        &mut self,
        at: impl Into<String>,
        raw_name: &str,
        memory_type: MemoryType,
        description: &str,
        body: String,
    ) {
        let at = at.into();
        if self.is_full() {
            self.skip_full(at);
            return;
        }
        let Some(name) = sanitize_name(raw_name) else {
            self.skip(
                at,
                format!("the name {raw_name:?} has no letter or digit to make a memory name of"),
            );
            return;
        };
        if !self.names.insert(name.clone()) {
            self.skip(
                at,
                format!("a memory named {name:?} came earlier in this import"),
            );
            return;
        }
        let description = description_or_derived(description, &body, &name);
        self.out.memories.push(Memory {
            name,
            memory_type,
            description,
            body,
        });
    }

    /// The result.
    pub(crate) fn finish(self) -> Imported {
        self.out
    }
}
