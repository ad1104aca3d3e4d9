//! When file persistence runs (R15.1, R15.2).

use std::path::Path;

use memdir_filepersist::{
    Credential, DisabledReason, Enablement, EnvironmentKind, PersistEnv, PersistError,
};

fn on() -> PersistEnv {
    PersistEnv {
        environment_kind: Some("byoc".into()),
        session_token: Some("tok-session".into()),
        session_id: Some("session_01abc".into()),
        ..PersistEnv::default()
    }
}

fn disabled(env: &PersistEnv) -> DisabledReason {
    match env.enablement() {
        Enablement::Disabled(reason) => reason,
        Enablement::Enabled(e) => panic!("enabled: {e:?}"),
    }
}

#[test]
fn the_kind_is_read_exactly() {
    assert_eq!(EnvironmentKind::parse("byoc"), Some(EnvironmentKind::Byoc));
    assert_eq!(
        EnvironmentKind::parse("anthropic_cloud"),
        Some(EnvironmentKind::AnthropicCloud)
    );
    for other in ["", "Byoc", " byoc", "cloud", "anthropic-cloud"] {
        assert_eq!(EnvironmentKind::parse(other), None, "{other:?}");
    }
}

#[test]
fn every_condition_is_needed_and_its_reason_names_the_variable() {
    for value in ["0", "false", "OFF", "off"] {
        let env = PersistEnv {
            feature: Some(value.into()),
            ..on()
        };
        let reason = disabled(&env);
        assert_eq!(
            reason,
            DisabledReason::FeatureOff {
                value: value.into()
            }
        );
        assert!(
            reason.to_string().contains("MEMDIR_FILE_PERSISTENCE"),
            "{reason}"
        );
    }
    let cloud = disabled(&PersistEnv {
        environment_kind: Some("anthropic_cloud".into()),
        ..on()
    });
    assert_eq!(
        cloud,
        DisabledReason::NotByoc {
            kind: Some(EnvironmentKind::AnthropicCloud)
        }
    );
    assert!(
        cloud
            .to_string()
            .contains("CLAUDE_CODE_ENVIRONMENT_KIND=byoc"),
        "{cloud}"
    );
    let none = disabled(&PersistEnv {
        environment_kind: None,
        ..on()
    });
    assert_eq!(none, DisabledReason::NotByoc { kind: None });
    let no_credential = disabled(&PersistEnv {
        session_token: Some(String::new()),
        ..on()
    });
    assert_eq!(no_credential, DisabledReason::NoCredential);
    assert!(
        no_credential
            .to_string()
            .contains("CLAUDE_CODE_SESSION_ACCESS_TOKEN")
    );
    let no_session = disabled(&PersistEnv {
        session_id: None,
        ..on()
    });
    assert_eq!(no_session, DisabledReason::NoSessionId);
    assert!(
        no_session
            .to_string()
            .contains("CLAUDE_CODE_REMOTE_SESSION_ID")
    );
    for reason in [cloud, none, no_credential, no_session] {
        let text = reason.to_string();
        assert!(!text.contains('\n') && !text.ends_with('.'), "{text}");
    }
}

#[test]
fn the_switch_is_on_unless_turned_off() {
    for value in ["1", "true", "yes", ""] {
        let env = PersistEnv {
            feature: Some(value.into()),
            ..on()
        };
        assert!(
            matches!(env.enablement(), Enablement::Enabled(_)),
            "{value:?}"
        );
    }
}

#[test]
fn a_session_token_wins_over_an_api_key_and_the_key_is_the_fallback() {
    let both = PersistEnv {
        api_key: Some("sk-key".into()),
        ..on()
    };
    let Enablement::Enabled(enabled) = both.enablement() else {
        panic!("disabled")
    };
    assert_eq!(
        enabled.credential,
        Credential::SessionToken("tok-session".into())
    );
    assert_eq!(enabled.base_url, "https://api.anthropic.com");
    let key_only = PersistEnv {
        session_token: None,
        api_key: Some("sk-key".into()),
        base_url: Some("http://127.0.0.1:9/".into()),
        ..on()
    };
    let Enablement::Enabled(enabled) = key_only.enablement() else {
        panic!("disabled")
    };
    assert_eq!(enabled.credential, Credential::ApiKey("sk-key".into()));
    assert_eq!(enabled.base_url, "http://127.0.0.1:9");
    // Neither Debug shows a credential.
    let shown = format!("{key_only:?} {enabled:?}");
    assert!(
        !shown.contains("sk-key") && !shown.contains("tok-session"),
        "{shown}"
    );
}

#[test]
fn the_outputs_folder_is_under_the_session_and_a_path_like_id_is_refused() {
    let Enablement::Enabled(mut enabled) = on().enablement() else {
        panic!("disabled")
    };
    let cwd = Path::new("/work/app");
    assert_eq!(
        enabled.outputs_dir(cwd).unwrap(),
        Path::new("/work/app/session_01abc/outputs")
    );
    for hostile in ["..", ".", "../../etc", "a/b", "a\\b", "a\0b", "/abs"] {
        enabled.session_id = hostile.into();
        let err = enabled.outputs_dir(cwd).unwrap_err();
        assert!(
            matches!(err, PersistError::UnsafeSessionId { .. }),
            "{hostile:?}: {err}"
        );
    }
}

#[test]
fn values_come_from_the_lookup_given() {
    let env = PersistEnv::from_lookup(|name| match name {
        "CLAUDE_CODE_ENVIRONMENT_KIND" => Some("byoc".into()),
        "ANTHROPIC_API_KEY" => Some("sk-x".into()),
        "CLAUDE_CODE_REMOTE_SESSION_ID" => Some("s1".into()),
        "ANTHROPIC_BASE_URL" => Some("http://127.0.0.1:1".into()),
        _ => None,
    });
    let Enablement::Enabled(enabled) = env.enablement() else {
        panic!("disabled")
    };
    assert_eq!(enabled.session_id, "s1");
    assert_eq!(enabled.base_url, "http://127.0.0.1:1");
}
