//! Prints the recall evaluation: memdir's recall beside a plain BM25 floor
//! computed in the same run, on three datasets, and whether each target
//! is met.
//!
//! - `LoCoMo`, development split, read from `../shared/testdata/locomo-dev/`
//!   beside the workspace (its licence keeps it out of the repository):
//!   its conversations are written as memory folders to a temporary
//!   folder, removed afterwards. Skipped, and said so, when absent.
//! - The coding-agent set, `fixtures/recall/coding/` (skipped when absent).
//! - This crate's bundled set, `tests/fixtures/recall-eval/`.
//!
//! `cargo xtask eval` runs it, in release; so does
//! `cargo run --release -p memdir-relevance --example recall_eval -- [OPTIONS] [BUNDLED_DIR]`.
//! It exits 0 whatever the figures (it is a report) unless `--check` is
//! given, and then 1 when a target is not met.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "an example program whose output is the evaluation table"
)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

use memdir_relevance::eval::{
    self, Dataset, Evaluation, Target, bundled, bundled_targets, coding, dataset_in,
    evaluate_dataset, load_queries, locomo,
};

const USAGE: &str = "\
usage: recall_eval [OPTIONS] [BUNDLED_DIR]

Prints memdir's recall beside a plain BM25 floor on each dataset, and
whether each target is met.

Options:
  --failures        list memdir's misses (answerable queries with nothing
                    relevant in the top five, no-memory queries that got
                    something)
  --check           exit 1 when a target is not met (the default exit
                    status is 0: the output is a report)
  --only SETS       run only these datasets: locomo, coding, bundled,
                    comma-separated
  --locomo PATH     the LoCoMo file, or a folder holding locomo-dev.json
                    (default ../shared/testdata/locomo-dev beside the
                    workspace)
  --coding DIR      the coding set (default fixtures/recall/coding)
  --model DIR       an embedding model folder (as `memdir model install`
                    leaves it; default $MEMDIR_EMBED_MODEL): adds the model's
                    cosine alone and fused with the local ranker as rows
                    of the same run (built with --features semantic)
  BUNDLED_DIR       the bundled set (default
                    crates/relevance/tests/fixtures/recall-eval)
";

struct Options {
    failures: bool,
    check: bool,
    only: Option<Vec<String>>,
    locomo: Option<PathBuf>,
    coding: Option<PathBuf>,
    bundled: Option<PathBuf>,
    model: Option<PathBuf>,
}

impl Options {
    fn parse(args: &[String]) -> Result<Self, String> {
        let mut o = Options {
            failures: false,
            check: false,
            only: None,
            locomo: None,
            coding: None,
            bundled: None,
            model: std::env::var_os("MEMDIR_EMBED_MODEL")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| {
                args.next()
                    .cloned()
                    .ok_or_else(|| format!("{name} needs a value"))
            };
            match arg.as_str() {
                "--failures" => o.failures = true,
                "--check" => o.check = true,
                "--only" => {
                    let sets: Vec<String> =
                        value("--only")?.split(',').map(str::to_owned).collect();
                    if let Some(bad) = sets
                        .iter()
                        .find(|s| !["locomo", "coding", "bundled"].contains(&s.as_str()))
                    {
                        return Err(format!("--only: unknown dataset {bad:?}"));
                    }
                    o.only = Some(sets);
                }
                "--locomo" => o.locomo = Some(value("--locomo")?.into()),
                "--coding" => o.coding = Some(value("--coding")?.into()),
                "--model" => o.model = Some(value("--model")?.into()),
                other if other.starts_with('-') => {
                    return Err(format!("unknown option {other:?}"));
                }
                dir if o.bundled.is_none() => o.bundled = Some(dir.into()),
                extra => return Err(format!("unexpected argument {extra:?}")),
            }
        }
        Ok(o)
    }

    fn runs(&self, set: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|only| only.iter().any(|s| s == set))
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let options = match Options::parse(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("recall_eval: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(targets) => {
            let missed = targets.iter().filter(|t| !t.met).count();
            println!(
                "targets: {} met, {missed} not met{}",
                targets.len() - missed,
                if options.check {
                    ""
                } else {
                    " (report only; --check fails on a miss)"
                }
            );
            if options.check && missed > 0 {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("recall_eval: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root: two folders above this crate.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs each dataset asked for and returns every target printed.
fn run(options: &Options) -> Result<Vec<Target>, String> {
    let model = load_model(options)?;
    let model = model.as_ref();
    let mut targets = Vec::new();
    if options.runs("locomo") {
        targets.extend(run_locomo(options, model)?);
    }
    if options.runs("coding") {
        let root = options
            .coding
            .clone()
            .unwrap_or_else(|| workspace().join("fixtures/recall/coding"));
        if root.is_dir() {
            let dataset = coding::load(&root).map_err(|e| e.to_string())?;
            let e = evaluate(&dataset, options, model)?;
            let mut wanted = coding::targets(&e);
            wanted.extend(semantic_targets(&e, "coding"));
            targets.extend(print_targets(wanted));
        } else {
            println!("coding set: skipped, {} not found\n", shown(&root));
        }
    }
    if options.runs("bundled") {
        let folder = options.bundled.clone().unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recall-eval")
        });
        let dataset = bundled(&folder).map_err(|e| e.to_string())?;
        let e = evaluate(&dataset, options, model)?;
        // The regression test's own measure: the full index, top-1.
        let (memories, queries) = dataset_in(&folder);
        let report = load_queries(&queries)
            .and_then(|q| eval::evaluate(&memories, &q))
            .map_err(|e| e.to_string())?;
        println!(
            "  regression measure (LocalRanker::new, tests/it/eval.rs): top-1 {:.1}%, abstain {:.1}%",
            report.top1_accuracy() * 100.0,
            report.abstain_accuracy() * 100.0
        );
        targets.extend(print_targets(bundled_targets(&e)));
    }
    Ok(targets)
}

fn run_locomo(options: &Options, model: Option<&Model>) -> Result<Vec<Target>, String> {
    let given = options
        .locomo
        .clone()
        .unwrap_or_else(|| workspace().join("../shared/testdata/locomo-dev"));
    let file = if given.is_dir() {
        given.join("locomo-dev.json")
    } else {
        given.clone()
    };
    if !file.is_file() {
        let name = if options.locomo.is_some() {
            shown(&given)
        } else {
            "../shared/testdata/locomo-dev".to_owned()
        };
        println!("LoCoMo dev split: skipped, {name} not found\n");
        return Ok(Vec::new());
    }
    let conversations = locomo::load(&file).map_err(|e| e.to_string())?;
    // The folders live only as long as this run: the data's licence keeps
    // anything derived from it out of the repository.
    let temp = tempfile::tempdir().map_err(|e| format!("cannot make a temporary folder: {e}"))?;
    for c in &conversations {
        write_conversation(c, &locomo::folder_of(c, temp.path()))?;
    }
    let dataset = locomo::dataset(&conversations, temp.path());
    let e = evaluate(&dataset, options, model)?;
    let (reachable, answerable) = locomo::ceiling(&conversations);
    println!(
        "  ceiling: {reachable} of {answerable} answerable questions have their evidence among the observations ({:.3})",
        ratio(reachable, answerable)
    );
    let mut wanted = locomo::targets(&e);
    wanted.extend(semantic_targets(&e, "locomo"));
    Ok(print_targets(wanted))
}

/// Writes a conversation's memory files, each with its session's date as
/// its modification time, and its `MEMORY.md`.
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
    let index = dir.join("MEMORY.md");
    std::fs::write(&index, &c.index).map_err(|e| fail(&index, e))
}

/// The embedding model whose systems are measured beside memdir's.
#[cfg(feature = "semantic")]
type Model = memdir_relevance::eval::semantic::SemanticCache;
#[cfg(not(feature = "semantic"))]
type Model = ();

#[cfg(feature = "semantic")]
fn load_model(options: &Options) -> Result<Option<Model>, String> {
    let Some(dir) = &options.model else {
        println!("semantic rows: skipped, no model (--model DIR or MEMDIR_EMBED_MODEL)\n");
        return Ok(None);
    };
    let model = memdir_embed::Embedder::load(dir).map_err(|e| e.to_string())?;
    println!("semantic rows: the model in {}\n", shown(dir));
    Ok(Some(Model::new(model)))
}

#[cfg(not(feature = "semantic"))]
#[allow(
    clippy::unnecessary_wraps,
    reason = "the same signature as with the feature, which can fail"
)]
fn load_model(options: &Options) -> Result<Option<Model>, String> {
    if options.model.is_some() {
        println!("semantic rows: skipped, built without --features semantic\n");
    }
    Ok(None)
}

#[cfg(feature = "semantic")]
fn evaluate_systems(dataset: &Dataset, model: Option<&Model>) -> Result<Evaluation, String> {
    let Some(model) = model else {
        return evaluate_dataset(dataset).map_err(|e| e.to_string());
    };
    let (mut alone, mut fused) = (model.cosine_alone(), model.fused());
    let mut others: [(String, &mut dyn eval::Runner); 2] = [
        (eval::semantic::ALONE.to_owned(), &mut alone),
        (eval::semantic::FUSED.to_owned(), &mut fused),
    ];
    memdir_relevance::eval::evaluate_dataset_with(dataset, &mut others).map_err(|e| e.to_string())
}

/// The targets of the fused system's row, when there is one.
#[cfg(feature = "semantic")]
fn semantic_targets(e: &Evaluation, set: &str) -> Vec<Target> {
    use memdir_relevance::eval::semantic;
    match set {
        "locomo" => semantic::locomo_targets(e),
        _ => semantic::coding_targets(e),
    }
}

#[cfg(not(feature = "semantic"))]
fn semantic_targets(_: &Evaluation, _: &str) -> Vec<Target> {
    Vec::new()
}

#[cfg(not(feature = "semantic"))]
fn evaluate_systems(dataset: &Dataset, _: Option<&Model>) -> Result<Evaluation, String> {
    evaluate_dataset(dataset).map_err(|e| e.to_string())
}

fn evaluate(
    dataset: &Dataset,
    options: &Options,
    model: Option<&Model>,
) -> Result<Evaluation, String> {
    let e = evaluate_systems(dataset, model)?;
    print!("{}", e.table());
    if options.failures {
        println!("  memdir's misses:");
        for f in &e.failures {
            println!("    {f}");
        }
    }
    Ok(e)
}

fn print_targets(targets: Vec<Target>) -> Vec<Target> {
    for t in &targets {
        println!("  {t}");
    }
    println!();
    targets
}

/// `path` relative to the workspace when it is inside it.
fn shown(path: &Path) -> String {
    path.strip_prefix(workspace())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[allow(clippy::cast_precision_loss, reason = "counts are far below 2^52")]
fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}
