//! Fits the abstention model of `memdir_relevance::abstain` on labelled
//! prompts and prints the trade-off it gives, so that its weights and
//! threshold are a measurement anyone can repeat:
//!
//! ```text
//! cargo run --release -p memdir-relevance --example fit_abstention
//! ```
//!
//! The prompts are the coding-agent set (`fixtures/recall/coding/`:
//! answerable and no-memory prompts), the bundled regression cases
//! (`crates/relevance/tests/fixtures/recall-eval/`), and the `LoCoMo`
//! development split
//! (`../shared/testdata/locomo-dev/`, answerable questions; skipped when
//! absent). Each prompt's label is whether it needs a memory; its
//! features are [`Features::of`] over the ranking before abstention.
//!
//! It prints, under leave-one-folder-out cross-validation (each folder's
//! prompts judged by a model fitted on the other folders), the hit@5 and
//! false injection on the coding set and the hit@5 and nothing-returned
//! rate on `LoCoMo` at each threshold, then the model fitted on every
//! folder, in the form `abstain.rs` holds it.
//!
//! Built with `--features semantic` and given an embedding model
//! (`--model DIR` or `MEMDIR_EMBED_MODEL`), it does the same for the
//! model with the cosines' signals (`SEMANTIC_MODEL`), judged on the fused
//! ranking.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_precision_loss,
    clippy::many_single_char_names,
    clippy::needless_range_loop,
    clippy::struct_excessive_bools,
    reason = "an example program whose output is the fit and its trade-off"
)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use memdir_relevance::LocalRanker;
use memdir_relevance::abstain::Features;
use memdir_relevance::eval::{Label, coding, locomo};
use memdir_scan::{CancelToken, ScanOptions, scan_memory_dir};

/// One labelled prompt: its folder, features, whether it needs a memory,
/// and whether the ranking before abstention has a relevant memory in its
/// top five.
struct Sample {
    folder: String,
    locomo: bool,
    /// A bundled regression case: fitted on, not counted in the coding
    /// figures.
    bundled: bool,
    x: Vec<f64>,
    needs: bool,
    top5_hit: bool,
    /// With an embedding model: the signals with the cosines', and whether
    /// the fused ranking has a relevant memory in its top five.
    semantic: Option<(Vec<f64>, bool)>,
}

/// Which signals and which ranking a fit judges.
#[derive(Clone, Copy, PartialEq)]
enum View {
    Lexical,
    Semantic,
}

impl View {
    fn x(self, s: &Sample) -> &[f64] {
        match (self, &s.semantic) {
            (View::Semantic, Some((x, _))) => x,
            _ => &s.x,
        }
    }

    fn hit(self, s: &Sample) -> bool {
        match (self, &s.semantic) {
            (View::Semantic, Some((_, hit))) => *hit,
            _ => s.top5_hit,
        }
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fit_abstention: {e}");
            ExitCode::FAILURE
        }
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run() -> Result<(), String> {
    let model = load_model()?;
    let model = model.as_ref();
    let mut samples = Vec::new();
    let coding_root = workspace().join("fixtures/recall/coding");
    let set = coding::load(&coding_root).map_err(|e| e.to_string())?;
    for folder in &set.folders {
        collect(&folder.path, &folder.cases, false, model, &mut samples)?;
    }
    let coding_end = samples.len();
    // The bundled regression cases: terse queries, every script.
    let bundled = memdir_relevance::eval::bundled(
        &workspace().join("crates/relevance/tests/fixtures/recall-eval"),
    )
    .map_err(|e| e.to_string())?;
    for folder in &bundled.folders {
        collect(&folder.path, &folder.cases, false, model, &mut samples)?;
    }
    for s in &mut samples[coding_end..] {
        s.bundled = true;
    }
    let file = workspace().join("../shared/testdata/locomo-dev/locomo-dev.json");
    let temp = tempfile::tempdir().map_err(|e| e.to_string())?;
    if file.is_file() {
        let conversations = locomo::load(&file).map_err(|e| e.to_string())?;
        for c in &conversations {
            let dir = locomo::folder_of(c, temp.path());
            write_conversation(c, &dir)?;
            collect(&dir, &c.cases, true, model, &mut samples)?;
        }
    } else {
        println!("LoCoMo dev split: absent, fitted on the coding set alone");
    }
    report(&samples, View::Lexical, "MODEL", "NEED_THRESHOLD");
    if samples.iter().all(|s| s.semantic.is_some()) && !samples.is_empty() {
        println!("\nwith the embedding model's cosines, on the fused ranking:");
        report(
            &samples,
            View::Semantic,
            "SEMANTIC_MODEL",
            "SEMANTIC_NEED_THRESHOLD",
        );
    }
    Ok(())
}

/// Prints the cross-validated trade-off of `view`'s model, and the model
/// fitted on every folder as the constants `model` and `threshold`.
fn report(samples: &[Sample], view: View, model_name: &str, threshold_name: &str) {
    let folders: Vec<String> = {
        let mut seen = Vec::new();
        for s in samples {
            if !seen.contains(&s.folder) {
                seen.push(s.folder.clone());
            }
        }
        seen
    };
    // Leave one folder out: each folder judged by a model of the others.
    let mut cv = vec![0.0; samples.len()];
    for f in &folders {
        let train: Vec<&Sample> = samples.iter().filter(|s| &s.folder != f).collect();
        let model = fit(&train, view);
        for (i, s) in samples.iter().enumerate() {
            if &s.folder == f {
                cv[i] = model.predict(view.x(s));
            }
        }
    }
    println!("cross-validated (leave one folder out):");
    println!("  threshold  coding hit@5  coding false-inj  locomo hit@5  locomo nothing");
    // The lowest threshold (the most recalled) at which at most 15% of
    // no-memory prompts get a memory.
    let mut chosen = None;
    for step in 1..100 {
        let t = f64::from(step) * 0.01;
        let r = trade_off(samples, view, &cv, t);
        if step % 5 == 0 {
            println!(
                "  {t:9.2}  {:12.3}  {:15.1}%  {:12.3}  {:13.1}%",
                r.0,
                r.1 * 100.0,
                r.2,
                r.3 * 100.0
            );
        }
        if chosen.is_none() && r.1 <= 0.15 {
            chosen = Some(t);
        }
    }
    let all: Vec<&Sample> = samples.iter().collect();
    let model = fit(&all, view);
    let t = chosen.unwrap_or(0.5);
    let r = trade_off(samples, view, &cv, t);
    println!(
        "threshold {t:.2}: coding hit@5 {:.3} at {:.1}% false injection; LoCoMo hit@5 {:.3}, nothing {:.1}% (cross-validated)",
        r.0,
        r.1 * 100.0,
        r.2,
        r.3 * 100.0
    );
    println!(
        "\nthe model fitted on every folder ({} prompts):",
        samples.len()
    );
    println!("pub const {model_name}: Model<_> = Model {{");
    println!("    mean: {:?},", round(&model.mean));
    println!("    scale: {:?},", round(&model.scale));
    println!("    weights: {:?},", round(&model.weights));
    println!("    bias: {:.4},", model.bias);
    println!("}};");
    println!("pub const {threshold_name}: f64 = {t:.2};");
}

fn round(v: &[f64]) -> Vec<f64> {
    v.iter()
        .map(|x| (x * 10_000.0).round() / 10_000.0)
        .collect()
}

/// (coding hit@5, coding false injection, `LoCoMo` hit@5, `LoCoMo` nothing)
/// when prompts whose estimate is below `t` get nothing.
fn trade_off(samples: &[Sample], view: View, p: &[f64], t: f64) -> (f64, f64, f64, f64) {
    let mut c = [0usize; 6];
    for (s, &p) in samples.iter().zip(p).filter(|(s, _)| !s.bundled) {
        let recalled = p >= t;
        match (s.locomo, s.needs) {
            (false, true) => {
                c[0] += 1;
                c[1] += usize::from(recalled && view.hit(s));
            }
            (false, false) => {
                c[2] += 1;
                c[3] += usize::from(recalled);
            }
            (true, _) => {
                c[4] += 1;
                c[5] += usize::from(recalled && view.hit(s));
            }
        }
    }
    let rate = |a: usize, b: usize| a as f64 / b.max(1) as f64;
    let locomo_nothing = samples
        .iter()
        .zip(p)
        .filter(|(s, p)| s.locomo && **p < t)
        .count();
    (
        rate(c[1], c[0]),
        rate(c[3], c[2]),
        rate(c[5], c[4]),
        rate(locomo_nothing, c[4]),
    )
}

fn collect(
    dir: &Path,
    cases: &[memdir_relevance::eval::Case],
    is_locomo: bool,
    model: Option<&Model>,
    out: &mut Vec<Sample>,
) -> Result<(), String> {
    let options = ScanOptions {
        max_files: usize::MAX,
        ..ScanOptions::default()
    };
    let mut scan =
        scan_memory_dir(dir, &options, &CancelToken::new()).map_err(|e| e.to_string())?;
    scan.remove_superseded();
    let memories = scan.memories;
    let ranker = LocalRanker::new(&memories);
    let folder = dir.display().to_string();
    for case in cases {
        let relevant = match &case.label {
            Label::Relevant(files) => Some(files),
            Label::NoMemory => None,
            Label::Unlabelled => continue,
        };
        let scored = ranker.score_query(&case.query);
        let ranked = &scored.ranked;
        let x = Features::of(&case.query, &scored).0;
        let top5_hit = relevant.is_some_and(|files| {
            ranked
                .iter()
                .take(5)
                .any(|r| files.contains(&memories[r.index].filename))
        });
        let semantic = semantic_signals(model, dir, &case.query, &memories, &scored, relevant)?;
        out.push(Sample {
            folder: folder.clone(),
            locomo: is_locomo,
            bundled: false,
            x: x.to_vec(),
            needs: relevant.is_some(),
            top5_hit,
            semantic,
        });
    }
    Ok(())
}

/// The embedding model whose cosines are read, when built with the
/// `semantic` feature.
#[cfg(feature = "semantic")]
type Model = memdir_relevance::eval::semantic::SemanticCache;
#[cfg(not(feature = "semantic"))]
type Model = ();

#[cfg(feature = "semantic")]
fn load_model() -> Result<Option<Model>, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let given = args
        .iter()
        .position(|a| a == "--model")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("MEMDIR_EMBED_MODEL")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        });
    let Some(dir) = given else {
        println!("no embedding model (--model DIR or MEMDIR_EMBED_MODEL): the lexical model only");
        return Ok(None);
    };
    let model = memdir_embed::Embedder::load(&dir).map_err(|e| e.to_string())?;
    Ok(Some(Model::new(model)))
}

#[cfg(not(feature = "semantic"))]
#[allow(
    clippy::unnecessary_wraps,
    reason = "the same signature as with the feature, which can fail"
)]
fn load_model() -> Result<Option<Model>, String> {
    Ok(None)
}

/// The signals with the cosines', and whether the fused ranking has a
/// relevant memory in its top five.
#[cfg(feature = "semantic")]
fn semantic_signals(
    model: Option<&Model>,
    dir: &Path,
    query: &str,
    memories: &[memdir_scan::MemoryHeader],
    scored: &memdir_relevance::Scored,
    relevant: Option<&Vec<String>>,
) -> Result<Option<(Vec<f64>, bool)>, String> {
    let Some(model) = model else {
        return Ok(None);
    };
    let by_name = model.cosines(dir, query).map_err(|e| e.to_string())?;
    let q = model.embed(query).map_err(|e| e.to_string())?;
    let no_need = model.no_need(&q).map_err(|e| e.to_string())?;
    let cosines: Vec<f64> = memories
        .iter()
        .map(|m| by_name.get(&m.filename).copied().unwrap_or(0.0))
        .collect();
    let order = memdir_relevance::order_by_score(&memdir_relevance::fuse(scored, &cosines));
    let x = Features::of(query, scored)
        .with_cosines(&cosines, order.first().copied(), no_need)
        .0
        .to_vec();
    let hit = relevant.is_some_and(|files| {
        order
            .iter()
            .take(5)
            .any(|&i| files.contains(&memories[i].filename))
    });
    Ok(Some((x, hit)))
}

#[cfg(not(feature = "semantic"))]
#[allow(
    clippy::unnecessary_wraps,
    reason = "the same signature as with the feature, which can fail"
)]
fn semantic_signals(
    _: Option<&Model>,
    _: &Path,
    _: &str,
    _: &[memdir_scan::MemoryHeader],
    _: &memdir_relevance::Scored,
    _: Option<&Vec<String>>,
) -> Result<Option<(Vec<f64>, bool)>, String> {
    Ok(None)
}

/// A logistic model over standardised features.
struct Fitted {
    mean: Vec<f64>,
    scale: Vec<f64>,
    weights: Vec<f64>,
    bias: f64,
}

impl Fitted {
    fn predict(&self, x: &[f64]) -> f64 {
        let z: f64 = (0..self.weights.len())
            .map(|j| (x[j] - self.mean[j]) / self.scale[j] * self.weights[j])
            .sum::<f64>()
            + self.bias;
        1.0 / (1.0 + (-z).exp())
    }
}

/// L2-regularised logistic regression by Newton's method. The two
/// datasets weigh the same in total, so the larger one does not decide
/// alone.
fn fit(samples: &[&Sample], view: View) -> Fitted {
    let n = samples.len() as f64;
    let features = samples.first().map_or(0, |s| view.x(s).len());
    let mut mean = vec![0.0; features];
    let mut scale = vec![0.0; features];
    for s in samples {
        for j in 0..features {
            mean[j] += view.x(s)[j] / n;
        }
    }
    for s in samples {
        for j in 0..features {
            scale[j] += (view.x(s)[j] - mean[j]).powi(2) / n;
        }
    }
    for v in &mut scale {
        *v = v.sqrt().max(1e-6);
    }
    let locomo = samples.iter().filter(|s| s.locomo).count().max(1) as f64;
    let other = samples.iter().filter(|s| !s.locomo).count().max(1) as f64;
    let weight = |s: &Sample| if s.locomo { other / locomo } else { 1.0 };
    let d = features + 1;
    let z = |s: &Sample| -> Vec<f64> {
        let mut v: Vec<f64> = (0..features)
            .map(|j| (view.x(s)[j] - mean[j]) / scale[j])
            .collect();
        v.push(1.0);
        v
    };
    let lambda = 1.0;
    let mut beta = vec![0.0; d];
    for _ in 0..50 {
        let mut grad = vec![0.0; d];
        let mut hess = vec![vec![0.0; d]; d];
        for s in samples {
            let x = z(s);
            let w = weight(s);
            let eta: f64 = x.iter().zip(&beta).map(|(a, b)| a * b).sum();
            let p = 1.0 / (1.0 + (-eta).exp());
            let y = f64::from(u8::from(s.needs));
            for a in 0..d {
                grad[a] += w * (p - y) * x[a];
                for b in 0..d {
                    hess[a][b] += w * p * (1.0 - p) * x[a] * x[b];
                }
            }
        }
        for a in 0..features {
            grad[a] += lambda * beta[a];
            hess[a][a] += lambda;
        }
        let step = solve(hess, grad);
        for a in 0..d {
            beta[a] -= step[a];
        }
    }
    Fitted {
        mean,
        scale,
        weights: beta[..features].to_vec(),
        bias: beta[features],
    }
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))
            .unwrap_or(col);
        a.swap(col, pivot);
        b.swap(col, pivot);
        let p = a[col][col];
        if p.abs() < 1e-12 {
            continue;
        }
        for row in col + 1..n {
            let f = a[row][col] / p;
            for k in col..n {
                a[row][k] -= f * a[col][k];
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = if a[row][row].abs() < 1e-12 {
            0.0
        } else {
            (b[row] - s) / a[row][row]
        };
    }
    x
}

/// Writes a conversation's memory files, each with its session's date as
/// its modification time, and its `MEMORY.md` (as the evaluation does).
fn write_conversation(c: &locomo::Conversation, dir: &Path) -> Result<(), String> {
    let fail = |path: &Path, e: std::io::Error| format!("cannot write {}: {e}", path.display());
    std::fs::create_dir_all(dir).map_err(|e| fail(dir, e))?;
    for m in &c.memories {
        let path = dir.join(&m.filename);
        let mtime = SystemTime::try_from(m.modified).map_err(|e| format!("{}: {e}", m.filename))?;
        std::fs::write(&path, &m.text).map_err(|e| fail(&path, e))?;
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(mtime))
            .map_err(|e| fail(&path, e))?;
    }
    std::fs::write(dir.join("MEMORY.md"), &c.index).map_err(|e| fail(dir, e))
}
