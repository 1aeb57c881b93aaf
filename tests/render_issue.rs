//! The findings issue's body: a realistic snapshot, quietness (no mentions, no links that
//! reference old PRs), the size limit, and dismiss boxes read back from an edit.

mod common;

use common::findings::{evidence, finding, outside_code_and_own_links, realistic_view};
use common::snapshot::line_containing;
use expect_test::expect;
use gitlore::domain::findings::{Category, EvidenceKind, Severity};
use gitlore::domain::markers::FINDINGS_MARKER;
use gitlore::render::dismissals::ticked_dismissals;
use gitlore::render::issue::{BackfillProgress, IssueView, MAX_BODY_LEN, render_issue};
use gitlore::repo_config::ConfigProblem;

#[test]
fn a_realistic_issue_reads_well() {
    let body = render_issue(&realistic_view());
    expect![[r#"
        <!-- gitlore:findings -->
        **4 findings** from 412 review comments by 17 reviewers on 96 pull requests in the last 12 months (since 2025-11-22). Updated 2026-11-22 21:00 UTC at [`3f9c2ab`](https://redirect.github.com/acme/widgets/commit/3f9c2ab4e1d07c5b6a8f9e0d1c2b3a4f5e6d7c8b).

        > **Config problem:** acme/widgets:.github/gitlore.toml line 4: `window_months` must be a number from 1 to 36. gitlore uses the rest of the file, and the defaults for what it could not read; fix the file on the default branch and the next update picks it up.

        > **Note:** The LLM did not answer in time; the built-in synthesizer wrote these findings.

        ## Fragile areas

        ### The cache invalidation in `src/cache/lru.rs` keeps being reverted

        **high severity** · **new** · `src/cache/lru.rs`

        23 commits in the last 6 months, 9 of them fixes, and a revert of a revert in September. Reviewers flagged races here on 4 PRs.

        <details><summary>Evidence (4)</summary>

        - commit [`9e3b1c0`](https://redirect.github.com/acme/widgets/commit/9e3b1c0a4f5d6e7b8c9d0e1f2a3b4c5d6e7f8a9b): Revert "Revert "cache: evict on write""
        - commit [`1a2b3c4`](https://redirect.github.com/acme/widgets/commit/1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b): Revert "cache: evict on write"
        - [review comment](https://redirect.github.com/acme/widgets/pull/1402#discussion_r1523456805): This eviction races with the refresh task; we had exactly this in March.
        - figure: 23 commits, 39% fixes

        </details>

        - [ ] Dismiss <!-- gitlore:dismiss f-h-5d0b77e912 -->

        ## Code patterns

        ### Wrap storage errors with the operation and the key

        **high severity** · `src/store/orders.rs`, `src/store/customers.rs`, `src/store/`

        Reviewers asked for context on bare `?` in src/store/ on 14 PRs by 6 reviewers, most recently 3 weeks ago; 80% of those threads were resolved by adding `.with_context(|| format!("loading order {id}"))`.

        Raised in 6 pull requests in the 90 days before it was written down, 1 in the 90 days since; 4.1 → 0.7 per 100 pull requests touching `src/store/`. Reviewers raise it less since.

        <details><summary>Evidence (4)</summary>

        - [review comment](https://redirect.github.com/acme/widgets/pull/1288#discussion_r1523456701): Please wrap this: a bare `?` here gives "database is locked" with no hint which order.
        - [review comment](https://redirect.github.com/acme/widgets/pull/1301#discussion_r1523456702): Same as in `https://redirect.github.com/acme/widgets/pull/1288` – add the key to the error.
        - [review comment](https://redirect.github.com/acme/widgets/pull/1342#discussion_r1523456717): &lt;details&gt;nit&lt;/details&gt; context please, otherwise the on-call has nothing to grep for
        - figure: 14 PRs, 6 reviewers, 80% of threads resolved

        </details>

        - [ ] Dismiss <!-- gitlore:dismiss f-t-8a41d6e0c3 -->

        ## Testing

        ### Integration tests use the fake clock, never `sleep`

        **medium severity** · `tests/`

        On 7 PRs reviewers replaced `tokio::time::sleep` in tests/ with `ManualClock::advance`; sleeping tests were the main source of flaky CI runs.

        Raised in 1 pull request in the 12 days before it was written down, 0 in the 12 days since; too early to tell whether that is a change: 3 pull requests touching `tests/`, `docs/` since and 4 before, 10 needed in each.

        <details><summary>Evidence (2)</summary>

        - [review comment](https://redirect.github.com/acme/widgets/pull/1377#discussion_r1523456740): Can we avoid the sleep? `clock.advance(Duration::from_secs(5))` does the same without flakiness.
        - [review comment](https://redirect.github.com/acme/widgets/pull/1390#discussion_r1523456752): \# Please no sleeps The CI box is slow, this will flake.

        </details>

        - [ ] Dismiss <!-- gitlore:dismiss f-t-44e2a9c1d8 -->

        ## Reviewer focus

        ### Reviewers of the billing module ask about idempotency keys

        **low severity** · `src/billing/`

        @&#8203;dana-k and two other reviewers asked on 9 PRs whether a retried webhook could charge twice; see #&#8203;4411 for the incident that started it.

        <details><summary>Evidence (2)</summary>

        - [review comment](https://redirect.github.com/acme/widgets/pull/1415#discussion_r1523456911): What happens if Stripe retries this? Do we dedupe on the event id?
        - [review comment](https://redirect.github.com/acme/widgets/pull/1420#discussion_r1523456918): cc @&#8203;ops-team: this needs an idempotency key, like in acme/payments#&#8203;88

        </details>

        - [ ] Dismiss <!-- gitlore:dismiss f-t-1c9e04a7b2 -->

        ## Resolved since the last update

        - ~~Run `make lint` before pushing~~ (tooling)

        Tick **Dismiss** under a finding to hide it for good (needs write access). Comment `/gitlore refresh` on a pull request to update now, or `/gitlore help` for more.
    "#]].assert_eq(&body);
}

#[test]
fn nothing_published_mentions_anyone_or_references_an_old_pull_request() {
    let body = render_issue(&realistic_view());
    for (at, _) in body.match_indices('@') {
        assert!(
            body[at + 1..].starts_with("&#8203;"),
            "raw mention at {at}: {body}"
        );
    }
    for (hash, _) in body.match_indices('#') {
        let entity = body[..hash].ends_with('&');
        let next = body[hash + 1..].chars().next();
        assert!(
            entity || !next.is_some_and(|c| c.is_ascii_digit()),
            "raw #ref: {body}"
        );
    }
    assert!(!body.contains("https://github.com/"), "{body}");
    assert!(
        body.contains("https://redirect.github.com/acme/widgets/pull/1288#discussion_r1523456701")
    );
    assert!(
        !body.contains("<details>nit"),
        "untrusted HTML survived: {body}"
    );
}

/// A repository with so many findings that they cannot all be shown.
fn huge_view(findings: usize) -> IssueView {
    let severities = [Severity::High, Severity::Medium, Severity::Low];
    let mut view = realistic_view();
    view.findings = (0..findings)
        .map(|i| {
            let evidence = (0..15)
                .map(|e| {
                    let excerpt = format!(
                        "Comment {e} on finding {i}: {}",
                        "please wrap this error ".repeat(20)
                    );
                    evidence(EvidenceKind::Comment, "101", &excerpt)
                })
                .collect();
            finding(
                &format!("f-t-{i:010x}"),
                Category::ALL[i % Category::ALL.len()],
                severities[i % 3],
                &format!("Finding number {i} about error handling"),
                &"Reviewers keep asking for this in the storage layer. ".repeat(30),
                &["src/store/orders.rs", "src/store/"],
                evidence,
            )
        })
        .collect();
    view
}

#[test]
fn a_huge_issue_fits_keeps_the_marker_and_says_what_was_shortened() {
    let view = huge_view(400);
    let body = render_issue(&view);
    assert!(
        body.encode_utf16().count() <= MAX_BODY_LEN,
        "{} long",
        body.len()
    );
    assert!(body.starts_with(FINDINGS_MARKER));
    assert!(
        body.contains("**Shortened to fit GitHub's size limit:**"),
        "{body}"
    );
    assert!(body.contains("left out (the least severe)"));
    assert!(body.contains("`gitlore export --repo acme/widgets --format html` where gitlore runs"));
    assert!(body.contains("`gitlore analyze --github acme/widgets --format html` in a clone"));
    let shown: Vec<&str> = body
        .lines()
        .filter(|line| line.starts_with("### Finding number"))
        .collect();
    let boxes = body
        .matches("- [ ] Dismiss <!-- gitlore:dismiss f-t-")
        .count();
    assert_eq!(
        shown.len(),
        boxes,
        "every finding shown has its dismiss box"
    );
    assert!(
        shown.len() < 400 && shown.len() > 10,
        "{} shown",
        shown.len()
    );
    // High severity is kept before anything less severe is.
    let high_shown = (0..400)
        .step_by(3)
        .filter(|i| body.contains(&format!("### Finding number {i} about")))
        .count();
    assert!(
        high_shown == 134 || high_shown == shown.len(),
        "{high_shown} of 134 high shown"
    );
}

#[test]
fn a_slightly_too_long_issue_loses_only_low_severity_evidence() {
    let view = huge_view(14);
    let mut unlimited = view.clone();
    unlimited.findings.truncate(1);
    let one_finding = render_issue(&unlimited).len();
    assert!(
        one_finding * 14 > MAX_BODY_LEN,
        "the view must be too long to start with"
    );
    let body = render_issue(&view);
    assert!(body.encode_utf16().count() <= MAX_BODY_LEN);
    assert!(body.contains("evidence shortened for"), "{body}");
    assert!(!body.contains("left out (the least severe)"));
    // Finding 0 is high severity: it keeps its full evidence.
    let first = body
        .find("### Finding number 0 about")
        .expect("finding 0 shown");
    let next = body[first..].find("- [ ] Dismiss").expect("its box") + first;
    assert_eq!(body[first..next].matches("- [review comment]").count(), 12);
}

#[test]
fn backfill_progress_and_an_empty_repository_are_said_plainly() {
    let mut view = realistic_view();
    view.findings.clear();
    view.resolved.clear();
    view.config_problems.clear();
    view.notes.clear();
    view.backfill = Some(BackfillProgress {
        pull_requests_read: 120,
        pull_requests_total: Some(400),
    });
    view.summary.head = None;
    expect![[r#"
        <!-- gitlore:findings -->
        **0 findings** from 412 review comments by 17 reviewers on 96 pull requests in the last 12 months (since 2025-11-22). Updated 2026-11-22 21:00 UTC.

        > **Still reading past reviews:** 120 of 400 pull requests so far. Findings will fill in as it goes.

        Nothing to report yet: a lesson needs review comments that raise it on at least two pull requests, or one comment backed by the git history.

        Tick **Dismiss** under a finding to hide it for good (needs write access). Comment `/gitlore refresh` on a pull request to update now, or `/gitlore help` for more.
    "#]].assert_eq(&render_issue(&view));
}

#[test]
fn a_ticked_box_reads_back_as_a_dismissal() {
    let old = render_issue(&realistic_view());
    let ticked = old
        .replace(
            "- [ ] Dismiss <!-- gitlore:dismiss f-t-44e2a9c1d8 -->",
            "- [X] Dismiss <!-- gitlore:dismiss f-t-44e2a9c1d8 -->",
        )
        .replace("Wrap storage errors", "Wrap all storage errors");
    assert_eq!(ticked_dismissals(&old, &ticked), vec!["f-t-44e2a9c1d8"]);

    // Ticking a second box later reports only that one.
    let again = ticked.replace(
        "- [ ] Dismiss <!-- gitlore:dismiss f-h-5d0b77e912 -->",
        "- [x] Dismiss <!-- gitlore:dismiss f-h-5d0b77e912 -->",
    );
    assert_eq!(ticked_dismissals(&ticked, &again), vec!["f-h-5d0b77e912"]);
    // Unticking, editing text and a box added already ticked are no dismissals.
    assert!(ticked_dismissals(&again, &old).is_empty());
    let forged = format!("{old}\n- [x] Dismiss <!-- gitlore:dismiss f-forged -->\n");
    assert!(ticked_dismissals(&old, &forged).is_empty());
}

#[test]
fn only_findings_first_seen_in_this_run_are_new() {
    let mut view = realistic_view();
    assert_eq!(render_issue(&view).matches("**new**").count(), 1);
    view.new_ids.clear();
    assert!(!render_issue(&view).contains("**new**"));
}

/// Review text written to deceive: a tracking image, a fake dismiss link, a linked image, a bare
/// and a `www.` link, hidden characters; and a config value that would mention someone.
const HOSTILE: &str = "![t](https://tracker.example/p.gif) [Click to dismiss all findings](https://evil.example/x) \
     [![b](https://tracker.example/b.png)](https://evil.example/y) https://evil.example/z www.evil.example \
     \\[x\\](https://evil.example/w) ad\u{202E}nim\u{200B}";

#[test]
fn hostile_review_text_renders_as_inert_text() {
    let mut view = realistic_view();
    view.findings[0].title = HOSTILE.into();
    view.findings[0].insight = HOSTILE.into();
    view.findings[0].evidence[0].text = HOSTILE.into();
    view.config_problems[0].reason = "`issue.label` \"http://@alice\" is not a string".into();
    let body = render_issue(&view);
    let open = outside_code_and_own_links(&body);
    for needle in ["://", "www.", "](", "![", "@alice", "\u{202E}", "\u{200B}"] {
        assert!(!open.contains(needle), "{needle:?} outside code in: {open}");
    }
    let ours = ["[ ] Dismiss", "[review comment]", "[ ]"];
    let foreign_bracket = open
        .match_indices('[')
        .any(|(at, _)| !ours.iter().any(|own| open[at..].starts_with(own)));
    assert!(!foreign_bracket, "a link could open in: {open}");
}

#[test]
fn config_problems_beyond_those_shown_are_counted() {
    let mut view = realistic_view();
    let first = view.config_problems[0].clone();
    view.config_problems = (1..=7)
        .map(|line| ConfigProblem {
            line: Some(line),
            reason: format!("[analysis] unknown field `key-{line}` (it is ignored)"),
            ..first.clone()
        })
        .collect();
    let body = render_issue(&view);
    assert_eq!(body.matches("**Config problem:**").count(), 5);
    expect!["> **2 more config problems** not shown here: fix the ones above and the next update lists the rest."].assert_eq(&line_containing(&body, "more config problem"));
}

#[test]
fn notes_never_show_an_internal_url_or_host() {
    let mut view = realistic_view();
    view.notes = vec![
        "the LLM synthesizer failed: cannot reach the model at http://10.0.0.5:8080/v1/chat/completions: \
         error sending request for url (http://10.0.0.5:8080/v1/chat/completions)"
            .into(),
        "the embedding model failed (cannot reach the embedding model at \
         https://embed.corp.internal/v1/embeddings: connection refused); the built-in embedder was used"
            .into(),
        "the LLM gave no usable labels for 3 comments (llm.corp.internal:11434 refused, \
         then 192.168.1.20 and [fd00::5]:8080 timed out)"
            .into(),
    ];
    let body = render_issue(&view);
    let notes: Vec<&str> = body
        .lines()
        .filter(|line| line.contains("**Note:**"))
        .collect();
    expect![[r#"
        [
            "> **Note:** the LLM synthesizer failed: cannot reach the model at ‹address withheld›: error sending request for url (‹address withheld›)",
            "> **Note:** the embedding model failed (cannot reach the embedding model at ‹address withheld›: connection refused); the built-in embedder was used",
            "> **Note:** the LLM gave no usable labels for 3 comments (‹address withheld› refused, then ‹address withheld› and ‹address withheld› timed out)",
        ]
    "#]].assert_debug_eq(&notes);
}
