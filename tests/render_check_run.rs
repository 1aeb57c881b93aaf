//! The check run: which findings apply to a pull request and why, the summary a reviewer reads,
//! the short sentence when nothing applies, and annotations where past comments cluster.

mod common;

use common::findings::{REPO, comment_links, realistic_findings};
use expect_test::expect;
use gitlore::domain::findings::Status;
use gitlore::domain::history::Coupling;
use gitlore::render::check_run::{
    Annotation, CheckRunView, MAX_OUTPUT_LEN, PastComment, Why, annotation_batches, annotations,
    applicable_findings, refresh_action, render_check_run,
};
use gitlore::render::links::LinkStyle;

fn changed(paths: &[&str]) -> Vec<String> {
    paths.iter().map(|p| p.to_string()).collect()
}

fn coupling(a: &str, b: &str, confidence: f64) -> Coupling {
    Coupling {
        a: a.into(),
        b: b.into(),
        support: 5.0,
        confidence,
        lift: 3.0,
        commits: 6,
    }
}

/// A pull request changing a cached repository's store, a test and the cache's config.
fn story() -> (Vec<String>, Vec<Coupling>) {
    let changed = changed(&[
        "src/store/orders.rs",
        "src/cache/config.rs",
        "tests/orders.rs",
    ]);
    let couplings = vec![
        coupling("src/cache/config.rs", "src/cache/lru.rs", 0.7),
        coupling("src/billing/charge.rs", "tests/orders.rs", 0.9),
        coupling("README.md", "src/billing/invoice.rs", 0.2),
    ];
    (changed, couplings)
}

#[test]
fn findings_apply_directly_by_directory_or_through_coupling() {
    let (changed, couplings) = story();
    let applicable = applicable_findings(&realistic_findings(), &changed, &couplings);
    let whys: Vec<(&str, &Why)> = applicable
        .iter()
        .map(|(f, why)| (f.id.as_str(), why))
        .collect();
    assert_eq!(
        whys,
        vec![
            // High first; among equals, in the issue's category order.
            (
                "f-h-5d0b77e912",
                &Why::SameDirectory {
                    changed: "src/cache/config.rs".into(),
                    directory: "src/cache/".into()
                }
            ),
            ("f-t-8a41d6e0c3", &Why::Direct("src/store/orders.rs".into())),
            (
                "f-t-44e2a9c1d8",
                &Why::SameDirectory {
                    changed: "tests/orders.rs".into(),
                    directory: "tests/".into()
                }
            ),
            (
                "f-t-1c9e04a7b2",
                &Why::Coupled {
                    changed: "tests/orders.rs".into(),
                    coupled: "src/billing/charge.rs".into()
                }
            ),
        ]
    );
}

#[test]
fn weak_couplings_root_files_and_dismissed_findings_do_not_apply() {
    let mut findings = realistic_findings();
    findings[1].status = Status::Dismissed; // storage errors
    let changed = changed(&["README.md", "src/store/orders.rs"]);
    let couplings = vec![coupling("README.md", "src/billing/invoice.rs", 0.3)];
    assert!(applicable_findings(&findings, &changed, &couplings).is_empty());
}

#[test]
fn the_summary_names_each_finding_with_one_line_of_why() {
    let (changed, couplings) = story();
    let applicable = applicable_findings(&realistic_findings(), &changed, &couplings);
    let links = comment_links();
    let style = LinkStyle::github_com();
    let commits = format!("https://github.com/{REPO}/commit/");
    let output = render_check_run(&CheckRunView {
        applicable: &applicable,
        annotations: &[],
        issue_url: Some("https://github.com/acme/widgets/issues/7"),
        comment_links: &links,
        commit_link_base: &commits,
        links: &style,
    });
    assert_eq!(output.title, "4 past lessons apply to this change");
    expect![[r#"
        Past reviews of this repository taught 4 lessons that touch the files this pull request changes:

        - **The cache invalidation in `src/cache/lru.rs` keeps being reverted** ([high severity, fragile area](https://redirect.github.com/acme/widgets/issues/7)): changes `src/cache/config.rs` in `src/cache/`, where this applies
        - **Wrap storage errors with the operation and the key** ([high severity, code pattern](https://redirect.github.com/acme/widgets/issues/7)): changes `src/store/orders.rs`
        - **Integration tests use the fake clock, never `sleep`** ([medium severity, testing](https://redirect.github.com/acme/widgets/issues/7)): changes `tests/orders.rs` in `tests/`, where this applies
        - **Reviewers of the billing module ask about idempotency keys** ([low severity, reviewer focus](https://redirect.github.com/acme/widgets/issues/7)): changes `tests/orders.rs`, which usually changes together with `src/billing/charge.rs`

        Everything gitlore learned is in [the findings issue](https://redirect.github.com/acme/widgets/issues/7).
    "#]].assert_eq(&output.summary);
    let text = output.text.expect("details when findings apply");
    assert!(
        text.contains("This pull request changes `src/store/orders.rs`."),
        "{text}"
    );
    assert!(
        !text.contains("https://github.com/") && !output.summary.contains("https://github.com/")
    );
}

#[test]
fn a_huge_summary_and_text_stay_within_githubs_limit() {
    let (changed, couplings) = story();
    let one = applicable_findings(&realistic_findings(), &changed, &couplings);
    let applicable: Vec<_> = one.iter().cycle().take(2_000).cloned().collect();
    let links = comment_links();
    let style = LinkStyle::github_com();
    let output = render_check_run(&CheckRunView {
        applicable: &applicable,
        annotations: &[],
        issue_url: Some("https://github.com/acme/widgets/issues/7"),
        comment_links: &links,
        commit_link_base: "https://github.com/acme/widgets/commit/",
        links: &style,
    });
    let text = output.text.expect("details when findings apply");
    for part in [&output.summary, &text] {
        assert!(part.encode_utf16().count() <= MAX_OUTPUT_LEN);
        assert!(
            part.contains(" more; see the findings issue."),
            "the cut is said"
        );
    }
    assert!(
        output.summary.ends_with(
            "[the findings issue](https://redirect.github.com/acme/widgets/issues/7).\n"
        )
    );
}

#[test]
fn nothing_applicable_gives_the_short_sentence() {
    let style = LinkStyle::github_com();
    let links = comment_links();
    let output = render_check_run(&CheckRunView {
        applicable: &[],
        annotations: &[],
        issue_url: Some("https://github.com/acme/widgets/issues/7"),
        comment_links: &links,
        commit_link_base: "",
        links: &style,
    });
    assert_eq!(output.title, "No past lessons apply");
    assert_eq!(
        output.summary,
        "Nothing gitlore learned from past reviews touches the files this pull request changes."
    );
    assert_eq!(output.text, None);
}

#[test]
fn past_comments_that_cluster_become_annotations() {
    let comment = |path: &str, line: u32, excerpt: &str| PastComment {
        path: path.into(),
        line,
        excerpt: excerpt.into(),
    };
    let past = vec![
        comment("src/cache/lru.rs", 18, "this races with refresh"),
        comment(
            "src/cache/lru.rs",
            10,
            "Eviction here <details>races</details> with @bob's refresh\u{202E} task",
        ),
        comment("src/cache/lru.rs", 12, "lock order?"),
        comment("src/cache/lru.rs", 40, "a lone comment"),
        comment("src/billing/charge.rs", 5, "not changed in this PR"),
        comment("src/billing/charge.rs", 6, "not changed in this PR"),
    ];
    let found = annotations(&past, &changed(&["src/cache/lru.rs"]));
    assert_eq!(
        found,
        vec![Annotation {
            path: "src/cache/lru.rs".into(),
            start_line: 10,
            end_line: 18,
            annotation_level: "notice",
            message: "3 review comments on these lines in past pull requests, e.g.: “Eviction \
                      here <details>races</details> with @bob's refresh task”"
                .into(),
            title: "Reviewers often comment here (3)".into(),
        }]
    );
}

#[test]
fn annotations_go_fifty_per_request() {
    let many: Vec<Annotation> = (0..120)
        .map(|i| Annotation {
            path: format!("src/f{i}.rs"),
            start_line: 1,
            end_line: 2,
            annotation_level: "notice",
            message: "m".into(),
            title: "t".into(),
        })
        .collect();
    let sizes: Vec<usize> = annotation_batches(&many).map(<[Annotation]>::len).collect();
    assert_eq!(sizes, vec![50, 50, 20]);
}

#[test]
fn the_refresh_button_fits_githubs_limits() {
    let action = refresh_action();
    assert!(action.label.chars().count() <= 20);
    assert!(action.description.chars().count() <= 40);
    assert!(action.identifier.chars().count() <= 20);
    assert_eq!(
        serde_json::to_value(&action).unwrap(),
        serde_json::json!({
            "label": "Refresh",
            "description": "Re-run the analysis for this repository",
            "identifier": "refresh"
        })
    );
}
