//! Themes end to end with the built-in components: embed hand-written comments around five
//! themes plus unrelated ones, cluster them, and check identity across runs.

mod common;

use common::corpus::{THEMES, UNRELATED};
use gitlore::knowledge::cluster::{Params, cluster};
use gitlore::knowledge::embed::builtin::TfIdf;
use gitlore::knowledge::embed::prepare;
use gitlore::knowledge::themes::{distinctive_terms, match_themes};

/// (key, body) of every comment: `t{theme}-{i}` and `u{i}`.
fn corpus() -> Vec<(String, &'static str)> {
    let themed = THEMES.iter().enumerate().flat_map(|(t, bodies)| {
        bodies
            .iter()
            .enumerate()
            .map(move |(i, body)| (format!("t{t}-{i}"), *body))
    });
    let unrelated = UNRELATED
        .iter()
        .enumerate()
        .map(|(i, body)| (format!("u{i}"), *body));
    themed.chain(unrelated).collect()
}

/// Clusters `comments` and returns each cluster's keys (sorted), clusters sorted.
fn themes_of(comments: &[(String, &str)]) -> Vec<Vec<String>> {
    let prepared: Vec<_> = comments
        .iter()
        .map(|(_, body)| prepare(body, None))
        .collect();
    let vectors = TfIdf::fit(&prepared).vectors();
    let keys: Vec<&String> = comments.iter().map(|(key, _)| key).collect();
    let result = cluster(&keys, &vectors, Params::default());
    let mut clusters: Vec<Vec<String>> = result
        .clusters
        .iter()
        .map(|c| {
            let mut members: Vec<String> =
                c.members.iter().map(|&m| comments[m].0.clone()).collect();
            members.sort();
            members
        })
        .collect();
    clusters.sort();
    clusters
}

#[test]
fn five_themes_come_out_as_five_clusters_without_the_noise() {
    let clusters = themes_of(&corpus());
    assert_eq!(clusters.len(), 5, "{clusters:?}");
    for (t, members) in clusters.iter().enumerate() {
        assert!(
            members.iter().all(|key| key.starts_with(&format!("t{t}-"))),
            "{members:?}"
        );
        assert!(members.len() >= 6, "{members:?}");
    }
}

#[test]
fn shuffling_the_input_gives_the_same_clusters() {
    let comments = corpus();
    let mut shuffled = comments.clone();
    // A fixed permutation: reverse, then rotate by a prime.
    shuffled.reverse();
    shuffled.rotate_left(17);
    assert_ne!(shuffled, comments);
    assert_eq!(themes_of(&shuffled), themes_of(&comments));
}

#[test]
fn a_theme_that_grows_keeps_its_id() {
    let before = themes_of(&corpus());
    let previous: Vec<(String, Vec<String>)> = before
        .iter()
        .enumerate()
        .map(|(i, members)| (format!("theme-{i}"), members.clone()))
        .collect();
    let mut grown = corpus();
    grown.push((
        "t2-new1".into(),
        "Yet another query inside a loop, an N+1 query against the database.",
    ));
    grown.push((
        "t2-new2".into(),
        "N+1 query again: batch the query instead of one per row in the loop.",
    ));
    let after = themes_of(&grown);
    let ids = match_themes(&previous, &after);
    let query_theme = after
        .iter()
        .position(|m| m.contains(&"t2-new1".to_string()));
    assert_eq!(
        query_theme.and_then(|i| ids[i].clone()),
        Some("theme-2".to_string())
    );
    assert!(ids.iter().all(Option::is_some), "{ids:?}");
}

#[test]
fn distinctive_terms_name_the_theme() {
    let comments = corpus();
    let prepared: Vec<_> = comments
        .iter()
        .map(|(_, body)| prepare(body, None))
        .collect();
    let model = TfIdf::fit(&prepared);
    let terms = distinctive_terms(&model, &[(0..8).collect(), (16..24).collect()], 3);
    assert!(terms[0].contains(&"unwrap".to_string()), "{terms:?}");
    assert!(terms[1].iter().any(|t| t.contains("query")), "{terms:?}");
}
