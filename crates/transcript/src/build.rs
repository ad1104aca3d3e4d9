//! Assembling a [`Transcript`] line by line: merging the lines of one API
//! response, counting each response's usage once, dropping repeated lines.

use std::collections::{HashMap, HashSet};

use crate::diagnostic::quoted;
use crate::{Block, Message, Role, SkipReason, Skipped, Transcript, Usage};

/// One line's message, before merging.
pub(crate) struct Piece {
    pub(crate) line: usize,
    pub(crate) role: Role,
    pub(crate) blocks: Vec<Block>,
    pub(crate) uuid: Option<String>,
    pub(crate) parent_uuid: Option<String>,
    pub(crate) message_id: Option<String>,
    pub(crate) timestamp: Option<String>,
    pub(crate) usage: Option<Usage>,
    pub(crate) is_sidechain: bool,
    pub(crate) is_compact_summary: bool,
}

#[derive(Default)]
pub(crate) struct Builder {
    pub(crate) transcript: Transcript,
    /// The message each assistant `message.id` was merged into.
    by_message_id: HashMap<String, usize>,
    /// Every line uuid read so far.
    seen: HashSet<String>,
    /// The usage of messages without an id: nothing to merge them by, so
    /// each line is its own response.
    unmerged_usage: Usage,
}

impl Builder {
    /// Whether a line with this uuid was already read; notes it as a
    /// repeated line if so.
    pub(crate) fn is_repeat(&mut self, line: usize, uuid: Option<&str>) -> bool {
        let Some(uuid) = uuid else {
            return false;
        };
        if self.seen.insert(uuid.to_owned()) {
            return false;
        }
        self.transcript.skipped.push(Skipped {
            line,
            reason: SkipReason::DuplicateLine { uuid: quoted(uuid) },
        });
        true
    }

    /// Records the session id of a kept line; the first one is the file's.
    pub(crate) fn note_session(&mut self, id: Option<String>) {
        if self.transcript.session_id.is_none() {
            self.transcript.session_id = id;
        }
    }

    pub(crate) fn push(&mut self, piece: Piece) {
        let merge_into = match (&piece.message_id, piece.role) {
            (Some(id), Role::Assistant) => self.by_message_id.get(id).copied(),
            _ => None,
        };
        if let Some(index) = merge_into {
            let message = &mut self.transcript.messages[index];
            message.blocks.extend(piece.blocks);
            message.lines.push(piece.line);
            message.uuids.extend(piece.uuid);
            message.usage = match (message.usage, piece.usage) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            return;
        }
        if piece.role == Role::Assistant
            && let Some(id) = &piece.message_id
        {
            self.by_message_id
                .insert(id.clone(), self.transcript.messages.len());
        } else if let Some(usage) = piece.usage {
            self.unmerged_usage = self.unmerged_usage.add(usage);
        }
        self.transcript.messages.push(Message {
            role: piece.role,
            blocks: piece.blocks,
            uuids: piece.uuid.into_iter().collect(),
            parent_uuid: piece.parent_uuid,
            message_id: piece.message_id,
            timestamp: piece.timestamp,
            usage: piece.usage,
            is_sidechain: piece.is_sidechain,
            is_compact_summary: piece.is_compact_summary,
            lines: vec![piece.line],
        });
    }

    pub(crate) fn finish(mut self) -> Transcript {
        let merged = self
            .by_message_id
            .values()
            .filter_map(|&i| self.transcript.messages[i].usage)
            .fold(Usage::default(), Usage::add);
        self.transcript.usage = merged.add(self.unmerged_usage);
        // Notes are pushed as lines are read, and a line's own notes in the
        // order found; keep that order, by line.
        self.transcript.skipped.sort_by_key(|s| s.line);
        self.transcript
    }
}
