//! Recall through the persistent index: reconcile, rank every memory,
//! then read again the few about to be returned, so that what is returned
//! is the memory as it is now.

use std::path::Path;

use memdir_scan::{MemoryHeader, read_memory_files};

use crate::index::{Depth, IndexError, IndexedMemory, RecallIndex};
use crate::{
    MAX_RELEVANT, Ranked, Recall, RecallOptions, RelevantMemory, Scored, SelectorUsed, Thresholds,
    apply_thresholds, is_redundant_tool_doc,
};

/// How many of the best-ranked memories, passing over those already
/// surfaced or superseded, are looked up before the thresholds (with any
/// that tie with the last): the thresholds keep at most this many.
const LOOKED_UP: usize = MAX_RELEVANT * 3;

/// How often a recall ranks again after finding that a memory it was about
/// to return changed under it.
const ATTEMPTS: usize = 3;

/// The local ranker's choice over every memory of `memory_dir`, through
/// the index `db`.
pub(crate) fn select(
    query: &str,
    memory_dir: &Path,
    db: &Path,
    options: &RecallOptions<'_>,
) -> Result<Recall, IndexError> {
    let mut index = RecallIndex::open(db, memory_dir)?;
    let reconciled = index.reconcile(Depth::Recall, &mut |_| {})?;
    let mut memories = Vec::new();
    let mut diagnostics = Vec::new();
    let mut embedding = options.embedding;
    // Memories without a vector rank by their words alone until the
    // background refresh has embedded them.
    let mut unembedded = 0;
    for attempt in 1..=ATTEMPTS {
        let chosen = match embedding {
            Some(model) => match choose_fused(
                &mut index,
                memory_dir,
                query,
                options,
                model,
                &mut unembedded,
            )? {
                Ok(chosen) => chosen,
                Err(why) => {
                    diagnostics.extend(why);
                    embedding = None;
                    choose(&mut index, memory_dir, query, options)?
                }
            },
            None => choose(&mut index, memory_dir, query, options)?,
        };
        let names: Vec<String> = chosen.iter().map(|(_, m)| m.filename.clone()).collect();
        let read = read_memory_files(memory_dir, &names, crate::index::now_ms());
        let mut stale = Vec::new();
        let mut fresh: Vec<MemoryHeader> = Vec::new();
        for ((_, indexed), read) in chosen.iter().zip(read) {
            match read {
                Ok((header, stamp)) if indexed.is_current(&header, stamp) => fresh.push(header),
                _ => stale.push(indexed.filename.clone()),
            }
        }
        if stale.is_empty() || attempt == ATTEMPTS {
            memories = fresh
                .into_iter()
                .filter(|m| !is_redundant_tool_doc(m, &options.recent_tools))
                .take(crate::MAX_RELEVANT)
                .map(|m| RelevantMemory {
                    path: m.file_path,
                    filename: m.filename,
                    mtime_ms: m.mtime_ms,
                })
                .collect();
            break;
        }
        // A memory changed or went since the index saw it: bring those up
        // to date and rank again.
        index.update_files(&stale)?;
    }
    let failed = match options.embedding {
        Some(model) if unembedded > 0 => index.embedding_failure(model.model_id()),
        _ => None,
    };
    if unembedded > 0 {
        diagnostics.push(match &failed {
            None => format!(
                "memories without a vector of the embedding model yet: {unembedded}; they are recalled by their words alone until the background refresh embeds them"
            ),
            Some(why) => format!(
                "memories without a vector of the embedding model: {unembedded}, recalled by their words alone; the last run to embed them failed ({why}); after `memdir model install` mends the model, `memdir recall-index refresh` embeds them (the background refresh tries again after an hour)"
            ),
        });
    }
    let index_refresh_due = reconciled.busy
        || (unembedded > 0 && failed.is_none())
        || index.refresh_due(&reconciled).unwrap_or(false);
    diagnostics.splice(0..0, index.notes().iter().cloned());
    if reconciled.deferred > 0 {
        diagnostics.push(format!(
            "the memory folder changed; above {} memories it is listed again in the background, \
             and a memory another program added since is recalled once that ends",
            crate::index::LIST_IN_FOREGROUND_UP_TO
        ));
    }
    Ok(Recall {
        memories,
        selector: SelectorUsed::Local,
        diagnostics,
        scan_diagnostics: Vec::new(),
        index_refresh_due,
    })
}

/// The memories the thresholds keep, best first, without those already
/// surfaced or superseded; a few more than [`MAX_RELEVANT`], for the
/// recent-tool filter.
fn choose(
    index: &mut RecallIndex,
    memory_dir: &Path,
    query: &str,
    options: &RecallOptions<'_>,
) -> Result<Vec<(Ranked, IndexedMemory)>, IndexError> {
    let scored = index.score(query)?;
    let mut kept = index.reading(|index| looked_up(index, memory_dir, &scored, options))?;
    // Ties go to the newer memory, then by name: a scan's order.
    kept.sort_by(|(a, ma), (b, mb)| {
        b.score
            .total_cmp(&a.score)
            .then(mb.time_ms.cmp(&ma.time_ms))
            .then_with(|| ma.filename.cmp(&mb.filename))
    });
    let limit = LOOKED_UP;
    let filtered = Scored {
        ranked: kept.iter().map(|(r, _)| *r).collect(),
        known_share: scored.known_share,
        terms: scored.terms,
    };
    let chosen = if options.abstain {
        apply_thresholds(query, filtered, Thresholds::default(), limit)
    } else {
        filtered.ranked.into_iter().take(limit).collect()
    };
    let mut by_index: std::collections::HashMap<usize, IndexedMemory> =
        kept.into_iter().map(|(r, m)| (r.index, m)).collect();
    Ok(chosen
        .into_iter()
        .filter_map(|r| by_index.remove(&r.index).map(|m| (r, m)))
        .collect())
}

/// Memories chosen, with their ranking.
type Chosen = Vec<(Ranked, IndexedMemory)>;

/// As [`choose`], with the lexical scores fused with the embedding
/// model's cosines ([`crate::fuse`]) over every memory that has a vector,
/// behind the abstention that reads both
/// ([`crate::abstain::SemanticFeatures`]), keeping those within
/// [`crate::FUSED_RELATIVE_CUT`] of the best. `Ok(Err(why))` when the
/// model is not used for this query (it failed, or fewer than
/// [`crate::FUSE_FROM`] memories have a vector): the caller ranks by words
/// alone, and says why when there is something to say. `unembedded`
/// hears how many memories have no vector yet.
fn choose_fused(
    index: &mut RecallIndex,
    memory_dir: &Path,
    query: &str,
    options: &RecallOptions<'_>,
    model: &dyn crate::Embedding,
    unembedded: &mut usize,
) -> Result<Result<Chosen, Option<String>>, IndexError> {
    let crate::index::Embedded { vectors, missing } = index.vectors(model.model_id())?;
    *unembedded = missing;
    if vectors.len() < crate::FUSE_FROM {
        // Too few to fuse (the abstention's cosine signals were fitted on
        // larger folders), or none embedded yet.
        return Ok(Err(None));
    }
    let embedded = model
        .embed(&[query])
        .and_then(|mut v| match v.len() {
            1 => Ok(v.remove(0)),
            _ => Err("it gave no vector".to_owned()),
        })
        .and_then(|q| model.no_need_vectors().map(|bank| (q, bank)));
    let (q, bank) = match embedded {
        Ok(both) => both,
        Err(e) => {
            return Ok(Err(Some(format!(
                "the embedding model failed ({e}); recalled by words alone"
            ))));
        }
    };
    let no_need = crate::abstain::nearest(&q, &bank);
    let scored = index.score(query)?;
    // Memories by position: those with a vector, then those the words
    // found that have none yet.
    let mut ids: Vec<u32> = vectors.iter().map(|(id, _)| *id).collect();
    let mut cosines: Vec<f64> = vectors
        .iter()
        .map(|(_, v)| crate::local::dot(v, &q))
        .collect();
    let mut position: std::collections::HashMap<u32, usize> =
        ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    let mut local = Vec::with_capacity(scored.ranked.len());
    for r in &scored.ranked {
        let id = u32::try_from(r.index).unwrap_or(u32::MAX);
        let at = *position.entry(id).or_insert_with(|| {
            ids.push(id);
            cosines.push(0.0);
            ids.len() - 1
        });
        local.push(Ranked { index: at, ..*r });
    }
    let local = Scored {
        ranked: local,
        known_share: scored.known_share,
        terms: scored.terms,
    };
    let fused = crate::fuse(&local, &cosines);
    let order = crate::order_by_score(&fused);
    if options.abstain {
        let need = crate::abstain::Features::of(query, &local)
            .with_cosines(&cosines, order.first().copied(), no_need)
            .need();
        if need < crate::abstain::SEMANTIC_NEED_THRESHOLD {
            return Ok(Ok(Vec::new()));
        }
    }
    let superseded = index.superseded()?;
    let best = order.first().map_or(0.0, |&at| fused[at]);
    let mut chosen = Vec::new();
    for at in order {
        if chosen.len() >= LOOKED_UP || fused[at] < best * crate::FUSED_RELATIVE_CUT {
            break;
        }
        let Some(m) = index.memory(ids[at])? else {
            continue;
        };
        if passed_over(&m, memory_dir, options, &superseded) {
            continue;
        }
        let ranked = Ranked {
            index: usize::try_from(ids[at]).unwrap_or(usize::MAX),
            score: fused[at],
            coverage: 0.0,
            head_coverage: 0.0,
        };
        chosen.push((ranked, m));
    }
    Ok(Ok(chosen))
}

/// Whether `m` is not to be recalled: already shown in this
/// conversation, or superseded.
fn passed_over(
    m: &IndexedMemory,
    memory_dir: &Path,
    options: &RecallOptions<'_>,
    superseded: &std::collections::BTreeMap<String, String>,
) -> bool {
    options.already_surfaced.contains(Path::new(&m.filename))
        || options
            .already_surfaced
            .contains(&memory_dir.join(&m.filename))
        || superseded.contains_key(&m.filename)
}

/// The best [`LOOKED_UP`] of `scored` (and any that tie with the last),
/// passing over those already surfaced or superseded.
fn looked_up(
    index: &RecallIndex,
    memory_dir: &Path,
    scored: &Scored,
    options: &RecallOptions<'_>,
) -> Result<Vec<(Ranked, IndexedMemory)>, IndexError> {
    let superseded = index.superseded()?;
    let mut kept: Vec<(Ranked, IndexedMemory)> = Vec::new();
    for r in &scored.ranked {
        if kept.len() >= LOOKED_UP && kept.last().is_some_and(|(last, _)| last.score > r.score) {
            break;
        }
        let Some(m) = index.memory(u32::try_from(r.index).unwrap_or(u32::MAX))? else {
            continue;
        };
        if passed_over(&m, memory_dir, options, &superseded) {
            continue;
        }
        kept.push((*r, m));
    }
    Ok(kept)
}
