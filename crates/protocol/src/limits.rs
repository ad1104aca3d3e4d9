//! The size limits both sides of the protocol share (SPEC R8.3, R9).

/// The largest entry, in bytes of its UTF-8 text: a client does not push
/// a larger file (`MAX_FILE_SIZE_BYTES`, R8.3) and a server answers 413
/// `entry_too_large` to one (its default limit).
pub const MAX_ENTRY_BYTES: usize = 250_000;

/// The largest PUT body, in bytes: a client packs its entries into bodies
/// of at most this much (`MAX_PUT_BODY_BYTES`, R8.3) and a server refuses a
/// larger one with 413 `body_too_large` (its default limit).
pub const MAX_PUT_BODY_BYTES: usize = 200_000;

/// The most entries a repository may hold, by default: a server answers
/// 413 `too_many_entries` to a PUT that would leave more (R9; a server
/// may be configured otherwise).
pub const DEFAULT_MAX_ENTRIES: usize = 2_000;
