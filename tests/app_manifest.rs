//! `app-manifest.json` asks for the events of behaviour §1 and the least permissions they need.

use std::collections::BTreeMap;

use serde_json::Value;

fn manifest() -> Value {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/app-manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn subscribes_to_every_event_gitlore_handles_and_no_other() {
    let manifest = manifest();
    let events: Vec<&str> = manifest["default_events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    // `installation` and `installation_repositories` reach every App without subscribing.
    let expected = [
        "check_run",
        "issue_comment",
        "issues",
        "pull_request",
        "pull_request_review",
        "pull_request_review_comment",
        "pull_request_review_thread",
        "push",
    ];
    assert_eq!(events, expected);
    let skipped = format!("{:?}", gitlore::events::parse("sponsorship", b"{}"));
    assert!(
        skipped.contains("event `sponsorship` is not used"),
        "the check below can fail: {skipped}"
    );
    for event in events {
        // Every subscribed event is one the parser reads: it looks into the payload (here it
        // finds an unused action, or misses a field it needs) instead of skipping the event.
        let parsed = format!(
            "{:?}",
            gitlore::events::parse(event, br#"{"action":"unused-action"}"#)
        );
        assert!(
            !parsed.contains(&format!("event `{event}` is not used")),
            "{event}: {parsed}"
        );
    }
}

#[test]
fn asks_for_the_least_permissions() {
    let permissions: BTreeMap<String, String> =
        serde_json::from_value(manifest()["default_permissions"].clone()).unwrap();
    let expected: BTreeMap<String, String> = [
        ("checks", "write"),
        ("contents", "read"),
        ("issues", "write"),
        ("metadata", "read"),
        ("pull_requests", "read"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(permissions, expected);
    assert_eq!(manifest()["public"], false);
}
