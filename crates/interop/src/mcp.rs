//! The MCP reference memory server's JSONL knowledge graph.

use std::path::Path;

use memdir_memtypes::MemoryType;
use serde_json::{Value, json};

use crate::collect::Collector;
use crate::files::read_text;
use crate::{ExportFile, Imported, InteropError, Memory};

/// The first observation of an entity memdir wrote: the description.
const DESCRIPTION_PREFIX: &str = "memdir-description: ";

/// The file name the server keeps its graph in.
const FILE_NAME: &str = "memory.jsonl";

struct Entity {
    at: String,
    name: String,
    kind: String,
    observations: Vec<String>,
}

struct Relation {
    from: String,
    to: String,
    kind: String,
}

fn text_field<'a>(value: &'a Value, key: &str) -> Result<&'a str, String> {
    value
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("the record has no text field {key:?}"))
}

fn entity(value: &Value, at: String) -> Result<Entity, String> {
    let observations = match value.get("observations") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|o| o.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or("an observation is not text")?,
        Some(_) => return Err("\"observations\" is not a list".to_owned()),
    };
    Ok(Entity {
        at,
        name: text_field(value, "name")?.to_owned(),
        kind: text_field(value, "entityType")?.to_owned(),
        observations,
    })
}

fn relation(value: &Value) -> Result<Relation, String> {
    Ok(Relation {
        from: text_field(value, "from")?.to_owned(),
        to: text_field(value, "to")?.to_owned(),
        kind: text_field(value, "relationType")?.to_owned(),
    })
}

/// One line of the file, read.
enum Line {
    Entity(Entity),
    Relation(Relation),
    Broken(String, String),
}

fn read_line(line: &str, at: String) -> Line {
    let value: Value = match serde_json::from_str(line) {
        Ok(value) => value,
        Err(err) => return Line::Broken(at, format!("not a JSON object: {err}")),
    };
    let parsed = match value.get("type").and_then(Value::as_str) {
        Some("entity") => entity(&value, at.clone()).map(Line::Entity),
        Some("relation") => relation(&value).map(Line::Relation),
        Some(other) => Err(format!("unknown record type {other:?}")),
        None => Err("the record has no \"type\"".to_owned()),
    };
    parsed.unwrap_or_else(|reason| Line::Broken(at, reason))
}

/// Reads the graph: every entity a memory, its relations in its body.
/// Relations are gathered first (they may come after their entities), then
/// the lines are taken in order, so skipped lines are listed in order too.
pub(crate) fn import(path: &Path) -> Result<Imported, InteropError> {
    let text = read_text(path)?;
    let lines: Vec<Line> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| read_line(line, format!("{}:{}", path.display(), index + 1)))
        .collect();
    let (relations, rest): (Vec<Line>, Vec<Line>) = lines
        .into_iter()
        .partition(|l| matches!(l, Line::Relation(_)));
    let relations: Vec<Relation> = relations
        .into_iter()
        .filter_map(|l| match l {
            Line::Relation(r) => Some(r),
            _ => None,
        })
        .collect();
    let mut collector = Collector::default();
    for line in rest {
        match line {
            Line::Entity(entity) => add_entity(&mut collector, entity, &relations),
            Line::Broken(at, reason) => collector.skip(at, reason),
            Line::Relation(_) => {}
        }
    }
    Ok(collector.finish())
}

fn add_entity(collector: &mut Collector, entity: Entity, relations: &[Relation]) {
    let memory_type = MemoryType::parse(&entity.kind);
    let mut observations = entity.observations.into_iter();
    let first = observations.next();
    if let (Some(memory_type), Some(description)) = (
        memory_type,
        first
            .as_deref()
            .and_then(|o| o.strip_prefix(DESCRIPTION_PREFIX)),
    ) {
        // Written by memdir: the other observations are the body's lines.
        let body = observations.collect::<Vec<_>>().join("\n");
        collector.add(entity.at, &entity.name, memory_type, description, body);
        return;
    }
    let description = match &first {
        Some(first) => format!("{}: {first}", entity.kind),
        None => entity.kind.clone(),
    };
    let mut body = String::new();
    for observation in first.into_iter().chain(observations) {
        body.push_str("- ");
        body.push_str(&observation);
        body.push('\n');
    }
    let own: Vec<&Relation> = relations
        .iter()
        .filter(|r| r.from == entity.name || r.to == entity.name)
        .collect();
    if !own.is_empty() {
        if !body.is_empty() {
            body.push('\n');
        }
        for r in own {
            body.push_str(&[r.from.as_str(), &r.kind, &r.to].join(" "));
            body.push('\n');
        }
    }
    let memory_type = memory_type.unwrap_or(MemoryType::User);
    collector.add(entity.at, &entity.name, memory_type, &description, body);
}

/// One entity a memory; the body's lines are kept verbatim, so that an
/// import gives the same memory back.
pub(crate) fn export(memories: &[Memory]) -> ExportFile {
    let mut contents = String::new();
    for m in memories {
        let mut observations = vec![format!("{DESCRIPTION_PREFIX}{}", m.description)];
        if !m.body.is_empty() {
            observations.extend(m.body.split('\n').map(str::to_owned));
        }
        let record = json!({
            "type": "entity",
            "name": m.name,
            "entityType": m.memory_type.as_str(),
            "observations": observations,
        });
        contents.push_str(&record.to_string());
        contents.push('\n');
    }
    ExportFile {
        rel_path: FILE_NAME.to_owned(),
        contents,
    }
}
