//! Running every migration twice equals running it once, on generated
//! configurations: old keys of every type, already-migrated values, the
//! plans, damaged shapes. The number of cases comes from `PROPTEST_CASES`
//! (default 256).

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use crate::support::World;

/// A value of any of the types a hand-edited file may hold.
fn any_value(typical: Vec<Value>) -> impl Strategy<Value = Option<Value>> {
    let mut pool = typical;
    pool.extend([json!(null), json!("x"), json!(1), json!([]), json!({})]);
    proptest::option::weighted(0.7, proptest::sample::select(pool))
}

fn names() -> impl Strategy<Value = Option<Value>> {
    let lists = vec![
        json!(["github"]),
        json!(["github", "postgres"]),
        json!(["postgres", "sentry"]),
        json!([]),
        json!(["sentry", 3]),
    ];
    any_value(lists)
}

fn object(entries: Vec<(&'static str, Option<Value>)>) -> Value {
    let mut map = Map::new();
    map.insert("keepMe".into(), json!({"z": 1, "a": [true]}));
    for (key, value) in entries {
        if let Some(value) = value {
            map.insert(key.into(), value);
        }
    }
    Value::Object(map)
}

prop_compose! {
    fn project_entry()(all in any_value(vec![json!(true), json!(false)]), enabled in names(), disabled in names()) -> Value {
        object(vec![
            ("enableAllProjectMcpServers", all),
            ("enabledMcpjsonServers", enabled),
            ("disabledMcpjsonServers", disabled),
        ])
    }
}

prop_compose! {
    fn global()(
        auto in any_value(vec![json!(true), json!(false)]),
        bypass in any_value(vec![json!(true), json!(false)]),
        bridge in any_value(vec![json!(true), json!(false)]),
        remote in any_value(vec![json!(true)]),
        entry in project_entry(),
        projects_shape in 0..4u8,
    ) -> Value {
        let projects = match projects_shape {
            0 => None,
            1 => Some(json!({"@PROJECT@": entry})),
            2 => Some(json!({"@PROJECT@": null, "/other": entry})),
            _ => Some(json!(["@PROJECT@"])),
        };
        object(vec![
            ("autoUpdates", auto),
            ("bypassPermissionsModeAccepted", bypass),
            ("replBridgeEnabled", bridge),
            ("remoteControlAtStartup", remote),
            ("projects", projects),
        ])
    }
}

fn model() -> impl Strategy<Value = Option<Value>> {
    let models = [
        "fennec-latest",
        "fennec-fast-latest",
        "claude-opus-4-0",
        "claude-opus-4-1",
        "opus",
        "opus[1m]",
        "sonnet",
        "sonnet[1m]",
        "claude-sonnet-4-5",
        "claude-sonnet-4-5-20250929",
        "sonnet-4-5-20250929",
        "haiku",
    ];
    any_value(models.iter().map(|m| json!(m)).collect())
}

prop_compose! {
    fn settings()(
        model in model(),
        env in any_value(vec![json!({"DISABLE_AUTOUPDATER": "0"}), json!({"FOO": "1"})]),
        skip_auto in any_value(vec![json!(true)]),
        skip_danger in any_value(vec![json!(false)]),
    ) -> Value {
        object(vec![
            ("model", model),
            ("env", env),
            ("skipAutoPermissionPrompt", skip_auto),
            ("skipDangerousModePermissionPrompt", skip_danger),
        ])
    }
}

prop_compose! {
    fn local()(enabled in names(), disabled in names(), all in any_value(vec![json!(false)])) -> Value {
        object(vec![
            ("enabledMcpjsonServers", enabled),
            ("disabledMcpjsonServers", disabled),
            ("enableAllProjectMcpServers", all),
        ])
    }
}

fn credentials() -> impl Strategy<Value = Option<String>> {
    let plans = [
        ("pro", "default_claude_pro"),
        ("max", "default_claude_max_20x"),
        ("team", "default_claude_max_5x"),
        ("team", "default_raven"),
        ("enterprise", ""),
    ];
    let mut pool: Vec<String> = plans
        .iter()
        .map(|(kind, tier)| {
            json!({"claudeAiOauth": {"accessToken": "t", "subscriptionType": kind, "rateLimitTier": tier}})
                .to_string()
        })
        .collect();
    pool.push("{\"claudeAiOauth\": ".into());
    proptest::option::weighted(0.8, proptest::sample::select(pool))
}

proptest! {
    #[test]
    fn twice_is_once(
        global in proptest::option::weighted(0.9, global()),
        settings in proptest::option::weighted(0.9, settings()),
        local in proptest::option::weighted(0.5, local()),
        credentials in credentials(),
    ) {
        let world = World::new();
        if let Some(global) = &global {
            world.put("claude.json", &serde_json::to_string_pretty(global).unwrap());
        }
        if let Some(settings) = &settings {
            world.put("settings.json", &serde_json::to_string_pretty(settings).unwrap());
        }
        if let Some(local) = &local {
            world.put("settings.local.json", &serde_json::to_string_pretty(local).unwrap());
        }
        if let Some(credentials) = &credentials {
            world.put("credentials.json", credentials);
        }
        world.run(false);
        let once = world.agent_files();
        let again = world.run(false);
        prop_assert_eq!(again.applied().count(), 0, "{:?}", again.outcomes);
        prop_assert_eq!(&world.agent_files(), &once);
        // No key the migrations do not own is ever lost.
        for text in once.values() {
            let value: Value = serde_json::from_str(text).unwrap();
            prop_assert!(value.get("keepMe").is_some() || !text.contains("keepMe"));
        }
        for (name, was) in [("claude.json", &global), ("settings.json", &settings), ("settings.local.json", &local)] {
            if was.is_some() {
                prop_assert!(once[name].contains("\"keepMe\""), "{} lost a key", name);
            }
        }
    }
}
