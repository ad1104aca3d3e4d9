//! Section rewrites: only memdir's section changes, and rewriting the
//! output again changes nothing.

use memdir_interop::{Format, export};

use crate::{five_memories, fixture};

const SECTION_FORMATS: [Format; 4] = [
    Format::GeminiMd,
    Format::QwenMemory,
    Format::AgentsMd,
    Format::ClaudeMd,
];

fn rewrite(format: Format, existing: &str) -> String {
    let files = export(format, &five_memories(), Some(existing)).unwrap();
    assert_eq!(files.len(), 1);
    files[0].contents.clone()
}

#[test]
fn exporting_into_its_own_output_changes_nothing() {
    let user_text = "# Mine\n\nDo not touch this.\r\nNor this line without an end";
    for format in SECTION_FORMATS {
        for existing in ["", user_text] {
            let once = rewrite(format, existing);
            assert_eq!(rewrite(format, &once), once, "{format}");
            assert!(once.starts_with(existing), "{format}: {once:?}");
        }
    }
}

/// The text before and after the section, as the fixture has it.
fn around<'a>(text: &'a str, start: &str, stop: &str) -> (&'a str, &'a str) {
    let at = text.find(start).unwrap();
    let after = text[at..].find(stop).map_or("", |end| &text[at + end..]);
    (&text[..at], after)
}

#[test]
fn user_text_around_the_section_stays_byte_for_byte() {
    let cases = [
        (
            Format::GeminiMd,
            "GEMINI.md",
            "## Gemini Added Memories",
            "\n\n## Style",
        ),
        (
            Format::QwenMemory,
            "QWEN.md",
            "## Qwen Added Memories",
            "\u{0}none",
        ),
        (
            Format::AgentsMd,
            "AGENTS.md",
            "<!-- memdir:begin -->",
            "\n\n## Your own notes",
        ),
    ];
    for (format, file, start, stop) in cases {
        let existing = std::fs::read_to_string(fixture(format).join(file)).unwrap();
        let out = rewrite(format, &existing);
        assert_ne!(out, existing, "{format}");
        assert_eq!(
            around(&out, start, stop),
            around(&existing, start, stop),
            "{format}"
        );
        assert_eq!(rewrite(format, &out), out, "{format}");
    }
}

#[test]
fn claude_md_without_markers_gets_the_block_appended() {
    let existing = std::fs::read_to_string(fixture(Format::ClaudeMd).join("CLAUDE.md")).unwrap();
    let out = rewrite(Format::ClaudeMd, &existing);
    assert!(out.starts_with(&existing));
    let block = &out[existing.len()..];
    assert!(
        block.starts_with("\n<!-- memdir:begin -->\n- user-role — "),
        "{block:?}"
    );
    assert!(block.ends_with("<!-- memdir:end -->\n"));
}

#[test]
fn an_unclosed_block_is_refused() {
    let existing = "# Mine\n<!-- memdir:begin -->\nmy text\n";
    let err = export(Format::AgentsMd, &five_memories(), Some(existing)).unwrap_err();
    assert!(
        err.to_string().contains("without `<!-- memdir:end -->`"),
        "{err}"
    );
}

/// The tool's own memories in its section are kept: export adds bullets,
/// never removes one, and does not add a description twice.
#[test]
fn the_tools_own_bullets_are_kept() {
    for (format, heading) in [
        (Format::GeminiMd, "## Gemini Added Memories"),
        (Format::QwenMemory, "## Qwen Added Memories"),
    ] {
        let memories = five_memories();
        let already = &memories[0].description;
        let existing = format!(
            "# Notes\n\n{heading}\n- I prefer tea to coffee\n- {already}\n\n## Later\nkept\n"
        );
        let out = rewrite(format, &existing);
        assert!(
            out.contains("- I prefer tea to coffee\n"),
            "{format}: {out}"
        );
        assert_eq!(
            out.matches(&format!("- {already}\n")).count(),
            1,
            "{format}: {out}"
        );
        for m in &memories[1..] {
            assert!(
                out.contains(&format!("- {}\n", m.description)),
                "{format}: {out}"
            );
        }
        assert!(out.ends_with("\n## Later\nkept\n"), "{format}: {out}");
        assert_eq!(rewrite(format, &out), out, "{format}");
    }
}
