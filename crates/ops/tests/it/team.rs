//! Which server, token and repository a team client gets.

use memdir_ops::{OpsError, TeamOverrides};

use crate::World;

fn settings(world: &World, rel: &str, url: &str) {
    let path = world.path(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!(r#"{{"teamMemory": {{"url": "{url}"}}}}"#)).unwrap();
}

#[test]
fn the_url_comes_from_the_override_the_environment_then_trusted_settings() {
    let world = World::new();
    let env = world.env().with_var("MEMDIR_TEAM", "1");
    let project = world.project(env.clone());
    assert!(matches!(
        project.team_client(&TeamOverrides::default()),
        Err(OpsError::NoTeamServer)
    ));

    // The project's committed settings may not choose the server.
    settings(
        &world,
        "project/.claude/settings.json",
        "http://evil.example",
    );
    let project = world.project(env.clone());
    assert!(matches!(
        project.team_client(&TeamOverrides::default()),
        Err(OpsError::NoTeamServer)
    ));

    settings(&world, "home/.claude/settings.json", "http://user.example");
    let project = world.project(env.clone());
    let client = project.team_client(&TeamOverrides::default()).unwrap();
    assert_eq!(client.base_url(), "http://user.example");

    settings(
        &world,
        "project/.claude/settings.local.json",
        "http://local.example",
    );
    let project = world.project(env.clone());
    let client = project.team_client(&TeamOverrides::default()).unwrap();
    assert_eq!(client.base_url(), "http://local.example");

    let project = world.project(
        env.clone()
            .with_var("MEMDIR_TEAM_URL", "http://env.example"),
    );
    let client = project.team_client(&TeamOverrides::default()).unwrap();
    assert_eq!(client.base_url(), "http://env.example");

    let client = project
        .team_client(&TeamOverrides {
            url: Some("http://flag.example".to_owned()),
            repo: Some("acme/app".to_owned()),
        })
        .unwrap();
    assert_eq!(client.base_url(), "http://flag.example");
    assert_eq!(client.repo(), Some("acme/app"));
    assert_eq!(client.team_dir(), world.path("memory/team/"));
}

#[test]
fn team_memory_off_is_an_error_before_anything_else() {
    let world = World::new();
    let project = world.project(world.env().with_var("MEMDIR_TEAM_URL", "http://x"));
    let err = project.team_client(&TeamOverrides::default()).unwrap_err();
    assert!(matches!(err, OpsError::TeamOff { .. }), "{err}");
}
