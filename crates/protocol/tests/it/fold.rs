//! `fold_team_mem_key`: which keys are one file on a case-insensitive or
//! normalisation-insensitive file system.

use memdir_protocol::fold_team_mem_key;

/// Whether `a` and `b` fold alike, checked both ways round.
fn check(a: &str, b: &str, one_file: bool) {
    assert_eq!(
        fold_team_mem_key(a) == fold_team_mem_key(b),
        one_file,
        "{a:?} {b:?}: {:?} {:?}",
        fold_team_mem_key(a),
        fold_team_mem_key(b)
    );
}

#[test]
fn case_and_normalisation_variants_are_one_file() {
    for (a, b) in [
        ("Deploy.md", "deploy.md"),
        ("DEPLOY.MD", "deploy.md"),
        ("MEMORY.md", "memory.md"),
        ("Notes/A.md", "notes/a.md"),
        // NFC and NFD spellings, in either case.
        ("caf\u{e9}.md", "cafe\u{301}.md"),
        ("CAF\u{c9}.md", "cafe\u{301}.md"),
        // Lowercasing alone keeps these apart; a case-insensitive file
        // system need not.
        (
            "\u{3c3}\u{3bf}\u{3c6}\u{3af}\u{3b1}.md",
            "\u{3c2}\u{3bf}\u{3c6}\u{3af}\u{3b1}.md",
        ),
        ("\u{17f}kip.md", "skip.md"),
        ("\u{131}d.md", "id.md"),
        ("stra\u{df}e.md", "STRASSE.md"),
        ("\u{1e9e}.md", "\u{df}.md"),
        ("\u{1e9e}.md", "ss.md"),
        ("\u{fb01}le.md", "FILE.md"),
        // The Kelvin and Ångström signs become letters under NFC.
        ("\u{212a}elvin.md", "kelvin.md"),
        ("\u{212b}.md", "\u{e5}.md"),
        // Title case.
        ("\u{1c5}.md", "\u{1c6}.md"),
    ] {
        check(a, b, true);
    }
}

#[test]
fn different_names_stay_apart() {
    for (a, b) in [
        ("notes/a.md", "notes/b.md"),
        ("a.md", "a.md.md"),
        ("notes/a.md", "notesa.md"),
        ("cafe.md", "caf\u{e9}.md"),
        // Compatibility forms are different files (NFC, not NFKC).
        ("\u{ff21}.md", "a.md"),
        ("x\u{b2}.md", "x2.md"),
    ] {
        check(a, b, false);
    }
}

#[test]
fn the_folded_form_is_lowercase_nfc() {
    assert_eq!(fold_team_mem_key("Deploy.md"), "deploy.md");
    assert_eq!(fold_team_mem_key("CAFE\u{301}.md"), "caf\u{e9}.md");
    assert_eq!(fold_team_mem_key("STRA\u{df}E.md"), "strasse.md");
    for key in [
        "Deploy.md",
        "CAFE\u{301}.md",
        "\u{130}stanbul.md",
        "\u{390}.md",
        "\u{1e9e}.md",
        "\u{1c5}.md",
        "\u{fb01}.md",
    ] {
        let once = fold_team_mem_key(key);
        assert_eq!(fold_team_mem_key(&once), once, "{key:?}");
    }
}

proptest::proptest! {
    /// Folding is a canonical form: folding it again changes nothing, and
    /// a key, its uppercase, its lowercase and its NFD spelling fold alike.
    #[test]
    fn folding_is_stable_and_ignores_case_and_normalisation(key in "\\PC{0,24}") {
        use unicode_normalization::UnicodeNormalization;
        let folded = fold_team_mem_key(&key);
        proptest::prop_assert_eq!(&fold_team_mem_key(&folded), &folded);
        for variant in [key.to_uppercase(), key.to_lowercase(), key.nfd().collect()] {
            proptest::prop_assert_eq!(&fold_team_mem_key(&variant), &folded, "{:?}", variant);
        }
    }
}
