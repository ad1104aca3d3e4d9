//! Each memory's vector from an embedding model, kept in the index beside
//! its terms: keyed by the model and by the hash of what was indexed, so
//! that a changed memory, or another model, is embedded anew and an
//! unchanged one never is. Embedding is slow (tens of milliseconds a
//! memory on a small machine), so it is done apart from recall, in
//! batches that each commit: a kill loses at most one batch, and the next
//! run goes on from there.

use memdir_memtypes::{parse_memory, read_regular_file};
use rusqlite::{TransactionBehavior, params};

use super::{IndexError, Progress, RecallIndex};
use crate::Embedding;
use crate::corpus::DocId;

/// The vectors of one model in the index ([`RecallIndex::vectors`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Embedded {
    /// Each memory's number and vector, by number.
    pub vectors: Vec<(DocId, Vec<f32>)>,
    /// How many indexed memories have no vector of the model yet.
    pub missing: usize,
}

/// Memories embedded and stored at a time.
const BATCH: usize = 16;

/// The largest memory read for its vector; the model reads only the
/// start of a text anyway.
const MAX_MEMORY_BYTES: u64 = 4 << 20;

impl RecallIndex {
    /// The vector of `model` of every indexed memory that has one, by
    /// memory number, and how many have none yet. The vectors are read in
    /// one pass in their table's order and matched to the memories here:
    /// probing the vectors table once per memory (each vector lies on its
    /// own overflow page), and again to count those without one, made
    /// `memdir recall` with the model take 344 ms at 10,000 memories; this
    /// way 196 ms.
    pub fn vectors(&self, model: &str) -> Result<Embedded, IndexError> {
        let mut docs: std::collections::HashMap<Vec<u8>, Vec<DocId>> =
            std::collections::HashMap::new();
        {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT id, hash FROM docs")
                .map_err(self.fail())?;
            let rows = stmt
                .query_map([], |r| Ok((r.get::<_, DocId>(0)?, r.get::<_, Vec<u8>>(1)?)))
                .map_err(self.fail())?;
            for row in rows {
                let (id, hash) = row.map_err(self.fail())?;
                docs.entry(hash).or_default().push(id);
            }
        }
        let mut stmt = self
            .conn
            .prepare_cached("SELECT hash, v FROM vectors WHERE model = ?1")
            .map_err(self.fail())?;
        let rows = stmt
            .query_map([model], |r| {
                Ok((
                    r.get::<_, Vec<u8>>(0)?,
                    r.get_ref(1)?.as_blob().map(decode)?,
                ))
            })
            .map_err(self.fail())?;
        let mut vectors = Vec::with_capacity(docs.len());
        for row in rows {
            let (hash, v) = row.map_err(self.fail())?;
            if let Some(ids) = docs.remove(&hash) {
                for id in ids {
                    vectors.push((id, v.clone()));
                }
            }
        }
        vectors.sort_unstable_by_key(|(id, _)| *id);
        Ok(Embedded {
            vectors,
            missing: docs.values().map(Vec::len).sum(),
        })
    }

    /// Embeds every indexed memory that has no vector of `embedding`'s
    /// model, [`BATCH`] at a time, each batch committed on its own;
    /// `progress` hears after each. When none is left, the vectors of
    /// other models and of memories no longer indexed are dropped.
    /// Returns how many memories were embedded. A memory that cannot be
    /// read now is left for the next run (the index will see its change).
    /// One run at a time: while another process embeds, this one returns 0
    /// at once rather than embed the same memories twice.
    pub fn embed_missing(
        &mut self,
        embedding: &dyn Embedding,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<usize, IndexError> {
        let lock_path = self.db.with_extension("embedding.lock");
        let Ok(lock) = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
        else {
            return Ok(0);
        };
        if rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_err() {
            return Ok(0);
        }
        let model = embedding.model_id().to_owned();
        let todo: Vec<(String, Vec<u8>)> = {
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT d.filename, d.hash FROM docs d WHERE NOT EXISTS \
                     (SELECT 1 FROM vectors v WHERE v.model = ?1 AND v.hash = d.hash) \
                     ORDER BY d.filename",
                )
                .map_err(self.fail())?;
            let rows = stmt
                .query_map([&model], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(self.fail())?;
            rows.collect::<Result<_, _>>().map_err(self.fail())?
        };
        let total = todo.len();
        let mut done = 0;
        progress(Progress { done, total });
        for batch in todo.chunks(BATCH) {
            let mut texts = Vec::with_capacity(batch.len());
            let mut keys = Vec::with_capacity(batch.len());
            for (filename, hash) in batch {
                let Ok(bytes) = read_regular_file(&self.folder.join(filename), MAX_MEMORY_BYTES)
                else {
                    continue;
                };
                texts.push(text_of(&bytes));
                keys.push(hash);
            }
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let vectors = match embedding.embed(&refs) {
                Ok(vectors) => vectors,
                Err(message) => {
                    // Recall reads this and stops starting runs that
                    // would fail the same way (see `embedding_failure`).
                    // A link in its place is replaced, never followed.
                    let _ = memdir_memtypes::atomic_write(
                        &self.failure_path(),
                        format!("{model}\n{message}").as_bytes(),
                    );
                    return Err(IndexError::Embedding { message });
                }
            };
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(|source| IndexError::Database {
                    path: self.db.clone(),
                    source,
                })?;
            for (hash, v) in keys.iter().zip(&vectors) {
                tx.execute(
                    "INSERT OR REPLACE INTO vectors(model, hash, v) VALUES (?1, ?2, ?3)",
                    params![model, hash, encode(v)],
                )
                .map_err(|source| IndexError::Database {
                    path: self.db.clone(),
                    source,
                })?;
            }
            tx.commit().map_err(|source| IndexError::Database {
                path: self.db.clone(),
                source,
            })?;
            done += batch.len();
            progress(Progress { done, total });
        }
        self.conn
            .execute(
                "DELETE FROM vectors WHERE model != ?1 \
                 OR hash NOT IN (SELECT hash FROM docs)",
                [&model],
            )
            .map_err(self.fail())?;
        self.fold_log(false);
        let _ = std::fs::remove_file(self.failure_path());
        Ok(total)
    }

    /// Why the last embedding run with `model` failed, if it failed less
    /// than an hour ago: a model whose files were damaged
    /// after it was installed fails every run, and recall should not start
    /// one per request. A run that succeeds, or another model, clears it.
    #[must_use]
    pub fn embedding_failure(&self, model: &str) -> Option<String> {
        let path = self.failure_path();
        let meta = std::fs::symlink_metadata(&path).ok()?;
        let age = meta.modified().ok()?.elapsed().unwrap_or_default();
        if !meta.is_file() || age > RETRY_FAILED_AFTER {
            return None;
        }
        let bytes = read_regular_file(&path, 64 * 1024).ok()?;
        let text = String::from_utf8_lossy(&bytes);
        let (failed_model, why) = text.split_once('\n')?;
        (failed_model == model).then(|| why.trim().to_owned())
    }

    /// Where a failed embedding run is recorded: beside the index.
    fn failure_path(&self) -> std::path::PathBuf {
        self.db.with_extension("embedding-failed")
    }
}

/// How long recall waits after a failed embedding run before it starts
/// another.
pub(crate) const RETRY_FAILED_AFTER: std::time::Duration = std::time::Duration::from_secs(3600);

/// What a memory's vector is of: its name, description and body.
pub(crate) fn text_of(bytes: &[u8]) -> String {
    let parsed = parse_memory(bytes);
    format!(
        "{}\n{}\n{}",
        parsed.header.name.unwrap_or_default(),
        parsed.header.description.unwrap_or_default(),
        parsed.body
    )
}

fn encode(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn decode(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
