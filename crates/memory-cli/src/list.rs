//! `memdir list`: the memories of the project's folder, newest first.

use memdir_scan::{CancelToken, ScanOptions, format_manifest, scan_memory_dir};
use serde::Serialize;

use crate::Outcome;
use crate::context::GlobalArgs;
use crate::output::{print, print_json};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListJson {
    filename: String,
    file_path: String,
    mtime_ms: i64,
    description: Option<String>,
    #[serde(rename = "type")]
    memory_type: Option<&'static str>,
}

pub(crate) fn run(global: &GlobalArgs) -> anyhow::Result<Outcome> {
    let project = global.project()?;
    let resolution = project.resolution();
    let dir = resolution.auto_mem_path.as_std_path();
    let mut scan = match scan_memory_dir(dir, &ScanOptions::default(), &CancelToken::new()) {
        Ok(scan) => scan,
        Err(e) if e.is_not_found() => {
            eprintln!("memdir: no memory folder yet at {}", dir.display());
            memdir_scan::Scan::default()
        }
        Err(e) => return Err(e.into()),
    };
    for d in &scan.diagnostics {
        eprintln!(
            "memdir: warning: {}",
            crate::output::escape_controls(&d.to_string())
        );
    }
    if scan.total_files > scan.memories.len() + scan.diagnostics.len() {
        eprintln!(
            "memdir: note: {} memory files; only the {} newest are read",
            scan.total_files,
            scan.memories.len()
        );
    }
    let superseded = scan.remove_superseded();
    if !superseded.is_empty() {
        eprintln!(
            "memdir: note: {} superseded memories not listed ({})",
            superseded.len(),
            superseded
                .iter()
                .map(|(old, new)| format!("{old} by {new}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if global.json {
        let rows: Vec<ListJson> = scan
            .memories
            .iter()
            .map(|m| ListJson {
                filename: m.filename.clone(),
                file_path: m.file_path.to_string(),
                mtime_ms: m.mtime_ms,
                description: m.description.clone(),
                memory_type: m.memory_type.map(memdir_memtypes::MemoryType::as_str),
            })
            .collect();
        print_json(&rows)?;
    } else if !scan.memories.is_empty() {
        print(&format_manifest(&scan.memories))?;
    }
    Ok(Outcome::Success)
}
