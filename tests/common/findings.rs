//! Realistic findings of a made-up `acme/widgets` and the issue view around them, for the
//! rendering tests.

use std::collections::{HashMap, HashSet};

use gitlore::domain::RepoName;
use gitlore::domain::effect::{EffectReport, LessonEffect, Ratio, Verdict, Window};
use gitlore::domain::findings::{Category, Evidence, EvidenceKind, Finding, Severity, Status};
use gitlore::render::issue::{BackfillProgress, IssueView, Summary};
use gitlore::render::links::LinkStyle;
use gitlore::render::wording::ReviewWindow;
use gitlore::repo_config::ConfigProblem;

/// 2026-11-22 21:00 UTC.
pub const NOW: i64 = 1_795_381_200;
/// 2026-09-03 09:30 UTC.
pub const EARLIER: i64 = 1_788_427_800;
pub const REPO: &str = "acme/widgets";

pub fn evidence(kind: EvidenceKind, id: &str, text: &str) -> Evidence {
    Evidence {
        kind,
        id: id.into(),
        text: text.into(),
    }
}

pub fn finding(
    id: &str,
    category: Category,
    severity: Severity,
    title: &str,
    insight: &str,
    files: &[&str],
    evidence: Vec<Evidence>,
) -> Finding {
    Finding {
        id: id.into(),
        category,
        severity,
        title: title.into(),
        insight: insight.into(),
        evidence,
        files: files.iter().map(|f| f.to_string()).collect(),
        first_seen: EARLIER,
        last_seen: NOW,
        status: Status::Active,
    }
}

/// Four findings a senior engineer would recognise, in no particular order.
pub fn realistic_findings() -> Vec<Finding> {
    use EvidenceKind::*;
    vec![
        finding(
            "f-t-1c9e04a7b2",
            Category::ReviewerFocus,
            Severity::Low,
            "Reviewers of the billing module ask about idempotency keys",
            "@dana-k and two other reviewers asked on 9 PRs whether a retried webhook could \
             charge twice; see #4411 for the incident that started it.",
            &["src/billing/"],
            vec![
                evidence(
                    Comment,
                    "311",
                    "What happens if Stripe retries this? Do we dedupe on the event id?",
                ),
                evidence(
                    Comment,
                    "318",
                    "cc @ops-team: this needs an idempotency key, like in acme/payments#88",
                ),
            ],
        ),
        finding(
            "f-t-8a41d6e0c3",
            Category::CodePattern,
            Severity::High,
            "Wrap storage errors with the operation and the key",
            "Reviewers asked for context on bare `?` in src/store/ on 14 PRs by 6 reviewers, \
             most recently 3 weeks ago; 80% of those threads were resolved by adding \
             `.with_context(|| format!(\"loading order {id}\"))`.",
            &[
                "src/store/orders.rs",
                "src/store/customers.rs",
                "src/store/",
            ],
            vec![
                evidence(
                    Comment,
                    "101",
                    "Please wrap this: a bare `?` here gives \"database is locked\" with no hint which order.",
                ),
                evidence(
                    Comment,
                    "102",
                    "Same as in https://github.com/acme/widgets/pull/1288 – add the key to the error.",
                ),
                evidence(
                    Comment,
                    "117",
                    "<details>nit</details> context please, otherwise the on-call has nothing to grep for",
                ),
                evidence(
                    Stat,
                    "theme:t-8a41d6e0c3",
                    "14 PRs, 6 reviewers, 80% of threads resolved",
                ),
            ],
        ),
        finding(
            "f-h-5d0b77e912",
            Category::FragileArea,
            Severity::High,
            "The cache invalidation in `src/cache/lru.rs` keeps being reverted",
            "23 commits in the last 6 months, 9 of them fixes, and a revert of a revert in \
             September. Reviewers flagged races here on 4 PRs.",
            &["src/cache/lru.rs"],
            vec![
                evidence(
                    Commit,
                    "9e3b1c0a4f5d6e7b8c9d0e1f2a3b4c5d6e7f8a9b",
                    "Revert \"Revert \"cache: evict on write\"\"",
                ),
                evidence(
                    Commit,
                    "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
                    "Revert \"cache: evict on write\"",
                ),
                evidence(
                    Comment,
                    "205",
                    "This eviction races with the refresh task; we had exactly this in March.",
                ),
                evidence(Stat, "hotspot:src/cache/lru.rs", "23 commits, 39% fixes"),
            ],
        ),
        finding(
            "f-t-44e2a9c1d8",
            Category::Testing,
            Severity::Medium,
            "Integration tests use the fake clock, never `sleep`",
            "On 7 PRs reviewers replaced `tokio::time::sleep` in tests/ with `ManualClock::advance`; \
             sleeping tests were the main source of flaky CI runs.",
            &["tests/"],
            vec![
                evidence(
                    Comment,
                    "140",
                    "Can we avoid the sleep? `clock.advance(Duration::from_secs(5))` does the same without flakiness.",
                ),
                evidence(
                    Comment,
                    "152",
                    "# Please no sleeps\nThe CI box is slow, this will flake.",
                ),
            ],
        ),
    ]
}

/// Web URLs of every comment cited above.
pub fn comment_links() -> HashMap<i64, String> {
    [
        (101, 1288, 1523456701),
        (102, 1301, 1523456702),
        (117, 1342, 1523456717),
        (140, 1377, 1523456740),
        (152, 1390, 1523456752),
        (205, 1402, 1523456805),
        (311, 1415, 1523456911),
        (318, 1420, 1523456918),
    ]
    .into_iter()
    .map(|(id, pr, discussion)| {
        (
            id,
            format!("https://github.com/{REPO}/pull/{pr}#discussion_r{discussion}"),
        )
    })
    .collect()
}

/// The view of a realistic run: one new finding, one resolved, a config problem, a note.
pub fn realistic_view() -> IssueView {
    let resolved = finding(
        "f-t-0b7c3e5a19",
        Category::Tooling,
        Severity::Medium,
        "Run `make lint` before pushing",
        "",
        &["Makefile"],
        vec![],
    );
    IssueView {
        repo: RepoName::parse(REPO).expect("a valid repo name"),
        findings: realistic_findings(),
        resolved: vec![resolved],
        new_ids: HashSet::from(["f-h-5d0b77e912".to_string()]),
        summary: Summary {
            comments: 412,
            reviewers: 17,
            pull_requests: 96,
            window: ReviewWindow {
                months: 12,
                start: NOW - 365 * 86_400,
                left_out: 0,
            },
            updated_at: NOW,
            head: Some("3f9c2ab4e1d07c5b6a8f9e0d1c2b3a4f5e6d7c8b".into()),
        },
        comment_links: comment_links(),
        commit_link_base: format!("https://github.com/{REPO}/commit/"),
        config_problems: vec![ConfigProblem {
            source: format!("{REPO}:.github/gitlore.toml"),
            line: Some(4),
            reason: "`window_months` must be a number from 1 to 36".into(),
        }],
        backfill: None::<BackfillProgress>,
        notes: vec![
            "The LLM did not answer in time; the built-in synthesizer wrote these findings.".into(),
        ],
        links: LinkStyle::github_com(),
        dashboard_url: None,
        effect: realistic_effect(),
    }
}

/// Two measured lessons: one raised less since it was written down, one too early to tell.
pub fn realistic_effect() -> EffectReport {
    let window = |days, raised, pull_requests| Window {
        days,
        raised,
        pull_requests,
    };
    let lesson = |id: &str, before: Window, since: Window, verdict, scope: &[&str]| LessonEffect {
        finding_id: id.into(),
        published_at: NOW - 90 * 86_400,
        before,
        since,
        ratio: Ratio {
            estimate: None,
            low: 0.0,
            high: None,
            verdict,
        },
        control_before: window(90, 20, 150),
        control_since: window(90, 19, 140),
        still_repeated: false,
        scope: scope.iter().map(|s| s.to_string()).collect(),
        held_back: false,
    };
    EffectReport {
        lessons: vec![
            lesson(
                "f-t-8a41d6e0c3",
                window(90, 6, 146),
                window(90, 1, 141),
                Verdict::Fewer,
                &["src/store/"],
            ),
            lesson(
                "f-t-44e2a9c1d8",
                window(12, 1, 4),
                window(12, 0, 3),
                Verdict::TooEarly,
                &["tests/", "docs/"],
            ),
        ],
        summary: None,
    }
}

/// The body with gitlore's own link targets, code spans and backslash-escaped characters taken
/// out: what markdown could still turn into a link or an image.
pub fn outside_code_and_own_links(body: &str) -> String {
    let own = "](https://redirect.github.com/acme/widgets/";
    let mut rest = body.to_string();
    while let Some(at) = rest.find(own) {
        let end = rest[at..].find(')').map_or(rest.len(), |e| at + e + 1);
        rest.replace_range(at..end, "]");
    }
    let chars: Vec<char> = rest.chars().collect();
    let mut open = String::new();
    let mut i = 0;
    while i < chars.len() {
        let run = chars[i..].iter().take_while(|c| **c == '`').count();
        if chars[i] == '\\' {
            open.push('_');
            i += 2;
        } else if run > 0 {
            let fence: String = "`".repeat(run);
            let after: String = chars[i + run..].iter().collect();
            let close = (0..after.len())
                .filter(|at| after.is_char_boundary(*at) && after[*at..].starts_with(&fence))
                .find(|at| !after[at + run..].starts_with('`') && !after[..*at].ends_with('`'));
            match close {
                Some(at) => i += run + after[..at].chars().count() + run,
                None => {
                    open.push_str(&fence);
                    i += run;
                }
            }
            open.push(' ');
        } else {
            open.push(chars[i]);
            i += 1;
        }
    }
    open
}
