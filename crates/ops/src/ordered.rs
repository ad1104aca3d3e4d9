//! JSON written back in the order a person wrote it: a changed value is
//! printed with each object's keys in the order of the text it came from
//! (new keys after, in a preferred order), so that editing one entry of a
//! settings value does not re-sort everything around it.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

/// A JSON value whose objects keep their keys in order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ordered {
    /// Anything but an array or an object, as `serde_json` holds it.
    Scalar(Value),
    /// An array.
    Array(Vec<Ordered>),
    /// An object, its entries in order.
    Object(Vec<(String, Ordered)>),
}

impl Ordered {
    /// The same value as a `serde_json` value (keys sorted).
    fn to_value(&self) -> Value {
        match self {
            Ordered::Scalar(v) => v.clone(),
            Ordered::Array(items) => Value::Array(items.iter().map(Ordered::to_value).collect()),
            Ordered::Object(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OrderedVisitor;
        impl<'de> Visitor<'de> for OrderedVisitor {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::from(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::from(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::String(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::String(v)))
            }
            fn visit_unit<E>(self) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::Null))
            }
            fn visit_none<E>(self) -> Result<Ordered, E> {
                Ok(Ordered::Scalar(Value::Null))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Ordered, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Ordered::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, Ordered>()? {
                    entries.push(entry);
                }
                Ok(Ordered::Object(entries))
            }
        }
        deserializer.deserialize_any(OrderedVisitor)
    }
}

impl Serialize for Ordered {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Ordered::Scalar(v) => v.serialize(serializer),
            Ordered::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Ordered::Object(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// `value` in the order of `guide` (the value it was edited from): an
/// object's keys that the guide has come in the guide's order, new ones
/// after in the order of `preferred`, then the rest sorted; an array's
/// element takes as its guide the guide element equal to it, else the one
/// at its position.
pub(crate) fn in_order_of(value: &Value, guide: Option<&Ordered>, preferred: &[&str]) -> Ordered {
    match value {
        Value::Array(items) => {
            let guides: &[Ordered] = match guide {
                Some(Ordered::Array(g)) => g,
                _ => &[],
            };
            Ordered::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        let same = guides.iter().find(|g| &g.to_value() == item);
                        in_order_of(item, same.or_else(|| guides.get(i)), preferred)
                    })
                    .collect(),
            )
        }
        Value::Object(map) => {
            let guide_entries: &[(String, Ordered)] = match guide {
                Some(Ordered::Object(e)) => e,
                _ => &[],
            };
            let mut keys: Vec<&String> = guide_entries
                .iter()
                .map(|(k, _)| k)
                .filter(|k| map.contains_key(*k))
                .collect();
            let mut rest: Vec<&String> = map.keys().filter(|k| !keys.contains(k)).collect();
            rest.sort_by_key(|k| {
                (
                    preferred.iter().position(|p| p == k).unwrap_or(usize::MAX),
                    (*k).clone(),
                )
            });
            keys.extend(rest);
            Ordered::Object(
                keys.into_iter()
                    .map(|k| {
                        let sub = guide_entries.iter().find(|(g, _)| g == k).map(|(_, v)| v);
                        (k.clone(), in_order_of(&map[k], sub, preferred))
                    })
                    .collect(),
            )
        }
        scalar => Ordered::Scalar(scalar.clone()),
    }
}

/// Pretty JSON text of `value`, indented to sit as a top-level settings
/// value (as `SettingsDocument` prints the values it sets).
pub(crate) fn pretty(value: &Ordered) -> String {
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".to_owned());
    text.replace('\n', "\n  ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edited_value_keeps_the_order_it_was_written_in() {
        let original = r#"{"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "x", "timeout": 5}]}],
                           "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "y"}]}]}"#;
        let guide: Ordered = serde_json::from_str(original).unwrap();
        let mut value: Value = serde_json::from_str(original).unwrap();
        value["SessionStart"] = serde_json::json!([{"hooks": [{"command": "memdir hook session-start", "type": "command"}], "matcher": ""}]);
        let ordered = in_order_of(
            &value,
            Some(&guide),
            &["matcher", "hooks", "type", "command"],
        );
        let text = serde_json::to_string(&ordered).unwrap();
        assert_eq!(
            text,
            r#"{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"x","timeout":5}]}],"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"y"}]}],"SessionStart":[{"matcher":"","hooks":[{"type":"command","command":"memdir hook session-start"}]}]}"#
        );
        assert_eq!(ordered.to_value(), value);
    }
}
