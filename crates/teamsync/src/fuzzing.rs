//! Property checks over what a server may answer, for the fuzz targets in
//! `fuzz/` and their replay in `cargo xtask test`. Not a stable API: only
//! with the `fuzzing` feature.

use memdir_protocol::validate_team_mem_key_text;

use crate::error::{QUOTED_BODY_CHARS, SyncError};
use crate::http::Reply;
use crate::pull::accept_entries;

/// Checks the client's reading of one server answer. The first byte picks
/// the status; the rest is the body.
///
/// # Panics
///
/// When a property fails: an error that loses the status or quotes more
/// than 300 characters of the body, an accepted key that is not canonical or valid, two accepted entries for
/// one file, or an entry neither accepted nor skipped.
pub fn server_answer(data: &[u8]) {
    let Some((&first, body)) = data.split_first() else {
        return;
    };
    let status = [200, 404, 412, 401, 413, 500][usize::from(first) % 6];
    let reply = Reply {
        status,
        body: String::from_utf8_lossy(body).into_owned(),
        minimal: first & 0x80 != 0,
    };
    let error = reply.error();
    assert_eq!(error.status(), Some(status), "the status is kept as data");
    let (SyncError::Auth { body: quoted, .. }
    | SyncError::Unavailable { body: quoted, .. }
    | SyncError::Status { body: quoted, .. }) = &error
    else {
        panic!("an answer's error is one of the answer variants: {error:?}");
    };
    assert!(
        quoted.chars().count() <= QUOTED_BODY_CHARS && reply.body.starts_with(quoted.as_str()),
        "an error quotes at most 300 characters of the body, from its start"
    );
    assert_eq!(
        error.to_string(),
        format!("server answered {status}: {quoted}"),
        "the message names the status and quotes the body"
    );
    let Ok(data) = reply.data() else {
        return;
    };
    let (accepted, skipped) = accept_entries(&data.content.entries);
    assert_eq!(
        accepted.len() + skipped.len(),
        data.content.entries.len(),
        "every entry is accepted or skipped"
    );
    let mut names: Vec<&str> = accepted.iter().map(|(k, _)| k.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), accepted.len(), "one entry per file");
    for (key, text) in &accepted {
        assert_eq!(
            validate_team_mem_key_text(key).as_deref(),
            Ok(key.as_str()),
            "an accepted key is valid and canonical"
        );
        let from_server = data.content.entries.iter().any(|(raw, t)| {
            t == text && validate_team_mem_key_text(raw).as_deref() == Ok(key.as_str())
        });
        assert!(
            from_server,
            "{key:?} holds the text of one of its spellings"
        );
    }
}
