//! Golden files: `memdir index check --json` and `memdir index show` on
//! every case under `fixtures/entrypoint/`, compared with snapshots.

use std::fmt::Write;

use crate::{memdir, root, stdout};

fn cases() -> Vec<String> {
    let mut cases: Vec<String> = std::fs::read_dir(root().join("fixtures/entrypoint"))
        .expect("fixtures/entrypoint")
        .filter_map(|e| {
            let e = e.ok()?;
            e.path()
                .join("MEMORY.md")
                .is_file()
                .then(|| e.file_name().to_string_lossy().into_owned())
        })
        .collect();
    cases.sort();
    cases
}

#[test]
fn there_are_enough_cases() {
    assert!(cases().len() >= 12, "{:?}", cases());
}

#[test]
fn index_check_and_show_match_snapshots() {
    for case in cases() {
        let file = format!("fixtures/entrypoint/{case}/MEMORY.md");
        let check = memdir(["index", "check", &file, "--json"]);
        let json: serde_json::Value =
            serde_json::from_slice(&check.stdout).expect("check prints JSON");
        let keys: Vec<&str> = json
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "byteCount",
                "droppedEntries",
                "lineCount",
                "lint",
                "warning",
                "wasByteTruncated",
                "wasLineTruncated"
            ],
            "{case}: check --json shape"
        );
        let problems = json["wasLineTruncated"] == true
            || json["wasByteTruncated"] == true
            || !json["lint"].as_array().expect("lint is a list").is_empty();
        assert_eq!(
            check.status.code(),
            Some(i32::from(problems)),
            "{case}: exit status"
        );

        // `show --json` is exactly `{content}` holding what `show` prints.
        let show_json = memdir(["index", "show", &file, "--json"]);
        let show_json: serde_json::Value =
            serde_json::from_slice(&show_json.stdout).expect("show prints JSON");
        let content = show_json["content"].as_str().expect("content is a string");
        assert_eq!(
            show_json.as_object().map(serde_json::Map::len),
            Some(1),
            "{case}: show --json shape"
        );
        let show = memdir(["index", "show", &file]);
        assert!(show.status.success());
        let printed = stdout(&show);
        // The terminal gets control characters escaped; JSON keeps them.
        let escaped: String = content
            .chars()
            .map(|c| {
                if c.is_control() && !matches!(c, '\n' | '\t' | '\r') {
                    c.escape_unicode().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect();
        assert_eq!(
            printed.strip_suffix('\n').unwrap_or(&printed),
            escaped,
            "{case}: show"
        );

        // The snapshot holds the whole check report and the end of the
        // injected text, where the cut and the warning are.
        let mut snapshot = stdout(&check);
        let tail: Vec<&str> = content.lines().rev().take(3).collect();
        let _ = writeln!(snapshot, "---- show: {} bytes, ending with:", content.len());
        for line in tail.iter().rev() {
            let line: String = if line.len() > 160 {
                let mut end = 160;
                while !line.is_char_boundary(end) {
                    end -= 1;
                }
                format!("{}…", &line[..end])
            } else {
                (*line).to_owned()
            };
            // Control characters are spelled out so the snapshot stays text.
            let line: String = line
                .chars()
                .map(|c| {
                    if c.is_control() && c != '\t' {
                        format!("\\u{{{:x}}}", u32::from(c))
                    } else {
                        c.to_string()
                    }
                })
                .collect();
            let _ = writeln!(snapshot, "{line}");
        }
        insta::assert_snapshot!(case.clone(), snapshot);
    }
}
