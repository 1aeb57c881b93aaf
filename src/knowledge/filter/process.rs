//! Lines about the review process rather than the code: review-tool status lines (Reviewable's
//! "Reviewed 3 of 5 files at r2, all commit messages."), label toggles
//! (`-S-awaiting-review +S-needs-code-changes`), merge-bot status lines (":pushpin: Commit abc
//! has been approved by `x`"), and merge, backport and release notices ("Released in v0.12.",
//! "Backported to `7.x` in 473b47e", "This PR was merged into the repository by commit …") and
//! pointers to other pull requests ("Superseded by #12", "Closing in favour of #99"), short CI
//! status lines ("Test failure is unrelated", "Tests are green now") and closing notes for
//! inactivity ("Closing as stale.") and requests for a review ("Could someone take a look?") or
//! for someone's opinion on the whole ("@laurynmm What do you think?").
//! A line that is one of them says nothing a reviewer could learn from.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::facts::{FACTS, texts};

/// The status-line openings of `facts.toml` by their first word (each has a space after it), so
/// that a line is compared only with the openings that can start it.
static OPENINGS_BY_FIRST_WORD: LazyLock<HashMap<&str, Vec<&str>>> = LazyLock::new(|| {
    let mut by_first: HashMap<&str, Vec<&str>> = HashMap::new();
    for opening in texts(&FACTS.status_openings) {
        let first = opening.split(' ').next().unwrap_or_default();
        by_first.entry(first).or_default().push(opening);
    }
    by_first
});

/// Words that make a short remark say more than it acknowledges, notices or asks for: a reason, a
/// contrast, a doubt, a condition, a preference or a requirement ("Released in 1.2, but the fix
/// is incomplete because …", "Yes it needs to be static: <link>. Thanks, fixed." in dotnet-0010).
/// Notices here and acknowledgements (`super::trivial`) read it.
pub(super) const SAYS_MORE: &[&str] = &[
    "but",
    "however",
    "though",
    "although",
    "because",
    "since",
    "except",
    "unless",
    "why",
    "what",
    "how",
    "instead",
    "not",
    "don't",
    "doesn't",
    "isn't",
    "wouldn't",
    "shouldn't",
    "can't",
    "won't",
    "didn't",
    "still",
    "also",
    "maybe",
    "perhaps",
    "wonder",
    "think",
    "if",
    "when",
    "whether",
    "rather",
    "prefer",
    "would",
    "could",
    "should",
    "please",
    "needs",
    "must",
];

/// The longest merge, backport or release notice, in words.
const MAX_NOTICE_WORDS: usize = 12;

/// Whether `line` (one line of a comment, trimmed) is a status line of the review process.
pub fn is_process_line(line: &str) -> bool {
    let lower = without_leading_mentions(line.trim()).to_lowercase();
    if lower.is_empty() {
        return false;
    }
    // Counted once for the rules that read only short lines, and only as far as they read.
    let word_count = lower
        .split_whitespace()
        .take(MAX_SHORT_RULE_WORDS + 1)
        .count();
    is_review_tool_line(&lower)
        || is_label_toggle(&lower)
        || is_notice(&lower)
        || is_ci_status(&lower, word_count)
        || is_inactivity_closure(&lower, word_count)
        || is_review_request(&lower, word_count)
        || is_lifecycle_remark(&lower, word_count)
        || is_decision_announcement(&lower, word_count)
        || is_merge_request(&lower, word_count)
        || is_opinion_ping(&lower)
}

/// The longest line any of the rules that read only short lines reads, in words: they are given
/// a line's `word_count` counted up to one more than this.
const MAX_SHORT_RULE_WORDS: usize = 25;
const _: () = assert!(
    MAX_SHORT_RULE_WORDS >= MAX_CI_STATUS_WORDS
        && MAX_SHORT_RULE_WORDS >= MAX_CLOSING_WORDS
        && MAX_SHORT_RULE_WORDS >= MAX_REQUEST_WORDS
        && MAX_SHORT_RULE_WORDS >= MAX_LIFECYCLE_WORDS
        && MAX_SHORT_RULE_WORDS >= MAX_DECISION_WORDS
        && MAX_SHORT_RULE_WORDS >= MAX_MERGE_REQUEST_WORDS
);

/// `line` without the `@login`s that open it ("@dylhunn Commits squashed into 06d7c2f"): who a
/// notice is addressed to does not make it say more.
fn without_leading_mentions(line: &str) -> &str {
    let mut rest = line;
    while let Some(login) = rest.strip_prefix('@') {
        let end = login
            .find(|c: char| !(c.is_ascii_alphanumeric() || "-_/".contains(c)))
            .unwrap_or(login.len());
        rest = login[end..].trim_start_matches([',', ':']).trim_start();
    }
    rest
}

/// Reviewable's header of a comment on a file: `<sup>**[src/lib.rs, line 191 \[r4\]](https://reviewable.io/…)** ([raw file](…)):</sup>`.
pub fn is_review_tool_header(line: &str) -> bool {
    let line = line.trim();
    line.starts_with("<sup>") && line.contains("reviewable.io") && line.ends_with("</sup>")
}

/// Reviewable's per-revision lines: "Reviewed 3 of 5 files at r2, all commit messages.",
/// "Reviewed all commit messages.", "- path/to/file.rs @ r3".
fn is_review_tool_line(lower: &str) -> bool {
    let reviewed = lower.starts_with("reviewed ")
        && (lower.contains(" files at r")
            || lower.contains(" file at r")
            || lower.contains("commit messages"));
    let file_at_revision = lower.starts_with("- ")
        && lower
            .rsplit_once(" @ r")
            .is_some_and(|(_, n)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    reviewed || file_at_revision
}

/// A line made only of label toggles: `-S-awaiting-review +S-needs-code-changes`.
fn is_label_toggle(lower: &str) -> bool {
    lower.split_whitespace().all(|word| {
        let mut chars = word.chars();
        matches!(chars.next(), Some('+' | '-'))
            && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && word[1..].contains('-')
            && word[1..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

/// A status opening, or a short merge, backport or release notice without a reason or request.
fn is_notice(lower: &str) -> bool {
    let first_word = lower.split(' ').next().unwrap_or_default();
    let Some(opening) = OPENINGS_BY_FIRST_WORD
        .get(first_word)
        .and_then(|openings| openings.iter().find(|opening| lower.starts_with(*opening)))
    else {
        return false;
    };
    let is_notice = !opening.starts_with(':')
        && !opening.starts_with("review")
        && !opening.starts_with("state")
        && !opening.contains("reviewable");
    if !is_notice {
        return true;
    }
    let words = words_of(lower);
    words.len() <= MAX_NOTICE_WORDS
        && !lower.contains('?')
        && !words.iter().any(|word| SAYS_MORE.contains(word))
}

/// Whether `lower` (a lower-cased line) has a word of any of `lists`, quotes and `?`/`:` around it
/// ignored.
fn says_any(lower: &str, lists: &[&[&str]]) -> bool {
    words_of(lower).iter().any(|word| {
        let word = word.trim_matches(['?', ':', '\'', '"']);
        lists.iter().any(|list| list.contains(&word))
    })
}

/// The words of a lower-cased line, without punctuation around them.
fn words_of(lower: &str) -> Vec<&str> {
    lower
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '!' | '.'))
        .filter(|word| !word.is_empty())
        .collect()
}

/// What a CI status line is about ("Test failure is unrelated", "Tests are green now").
const CI_SUBJECTS: &[&str] = &[
    "ci", "test", "tests", "build", "builds", "check", "checks", "job", "jobs", "pipeline", "doc",
    "docs", "failure", "failures", "error", "errors",
];
/// What a CI status line says of it.
const CI_STATES: &[&str] = &[
    "green",
    "passing",
    "passes",
    "passed",
    "unrelated",
    "flaky",
    "flake",
    "red",
];
/// The other words a CI status line may have.
const CI_FILLERS: &[&str] = &[
    "is", "are", "now", "all", "the", "this", "that", "these", "seems", "seem", "appears",
    "appear", "looks", "look", "to", "be", "again", "one", "failing", "failed",
];
/// The longest CI status line, in words.
const MAX_CI_STATUS_WORDS: usize = 8;

/// A short line that only says how CI went: "Test failure is unrelated", "Flaky test,
/// unrelated.", "Tests are green now". A line with anything else ("the new test is failing
/// because …") is no status line.
fn is_ci_status(lower: &str, word_count: usize) -> bool {
    // Most lines are longer: tell them without collecting their words.
    if word_count > MAX_CI_STATUS_WORDS {
        return false;
    }
    let words = words_of(lower);
    words.len() <= MAX_CI_STATUS_WORDS
        && words.iter().any(|w| CI_SUBJECTS.contains(w))
        && words.iter().any(|w| CI_STATES.contains(w))
        && words
            .iter()
            .all(|w| CI_SUBJECTS.contains(w) || CI_STATES.contains(w) || CI_FILLERS.contains(w))
}

/// Openings of a closing note ("Closing as stale.", "I'm going to close this …").
const CLOSING_OPENINGS: &[&str] = &[
    "closing",
    "i'm closing",
    "i am closing",
    "i'm going to close",
    "i am going to close",
    "i'll close",
    "i will close",
    "let me close",
    "let's close",
];
/// Why a pull request closed for inactivity was closed (phrases: "stale" alone may be the
/// code's, as in "Closing the stale socket here avoids a leak").
const INACTIVITY: &[&str] = &[
    "as stale",
    "stale pr",
    "stale pull request",
    "due to inactivity",
    "for inactivity",
    "because of inactivity",
    "no activity",
    "lack of activity",
    "no response",
    "as abandoned",
];
/// The longest closing note for inactivity, in words.
const MAX_CLOSING_WORDS: usize = 25;

/// A pull request closed for inactivity: "Closing as stale.", "I'm going to close this ticket due
/// to inactivity, but please re-open if this still needs to be addressed." Whatever else it says
/// (an invitation to reopen, thanks), it says nothing about the code.
fn is_inactivity_closure(lower: &str, word_count: usize) -> bool {
    CLOSING_OPENINGS.iter().any(|o| {
        lower.starts_with(o) && !lower[o.len()..].starts_with(|c: char| c.is_alphanumeric())
    }) && INACTIVITY.iter().any(|reason| lower.contains(reason))
        && word_count <= MAX_CLOSING_WORDS
}

/// Phrases that ask someone to review, or look at, the pull request (each says "look" or
/// "review").
const REVIEW_REQUESTS: &[&str] = &[
    "take a look",
    "have a look",
    "another look",
    "right reviewer",
    "right person to review",
    "best person to review",
    "next review",
    "someone to review",
    "review from @",
    // after the author addressed a review ("Could you review again?", "Please have a review of it.")
    "review again",
    "have a review",
    "can someone look",
];
/// Words that make a review request say something about the change: a reason, a doubt, a
/// problem ("Could you take a look at why the test fails on Windows?").
const REQUEST_CONTENT: &[&str] = &[
    "but", "however", "because", "since", "why", "how", "what", "not", "should", "instead",
    "whether", "fail", "fails", "failing", "error", "bug", "crash", "leak", "race", "wrong",
];
/// The longest review request, in words.
const MAX_REQUEST_WORDS: usize = 16;

/// A line that only asks someone to review or look at the pull request: routing, as "cc @bob"
/// is ("Hey @malfet are you the right reviewer for this?", "would you mind giving it another
/// look? I've rebased it and squashed my commits."). Code, or a word about what is wrong,
/// makes it a remark on the change.
fn is_review_request(lower: &str, word_count: usize) -> bool {
    // Most lines are longer, or ask nothing of the kind: tell them with the fewest searches.
    if word_count > MAX_REQUEST_WORDS
        || !(lower.contains("look") || lower.contains("review"))
        || lower.contains('`')
    {
        return false;
    }
    REVIEW_REQUESTS.iter().any(|phrase| lower.contains(phrase))
        && !says_any(lower, &[REQUEST_CONTENT])
}

/// Whole lines that ask someone for their opinion of the pull request as a whole, naming nothing
/// in it (after the mentions that open them; lower-cased, without the closing `?`).
const OPINION_PINGS: &[&str] = &[
    "what do you think",
    "wdyt",
    "thoughts",
    "any thoughts",
    "are you ok with this",
    "are you okay with this",
    "are you fine with this",
    "does this look ok",
    "does this look okay",
    "does this look good",
    "does this look good to you",
    "any objections",
    "anyone feel like looking over this",
];

/// A line that only asks someone's opinion of the whole pull request: routing, as a review
/// request is ("@laurynmm What do you think?", "@eviltrout are you ok with this?"). A question
/// about anything in it ("what do you think of the new flag?") is not one.
fn is_opinion_ping(lower: &str) -> bool {
    let asked = lower.trim_end_matches(['?', '.', '!', ' ']);
    OPINION_PINGS.contains(&asked)
}

/// Phrases that ask someone to merge or approve the pull request, or say that it is ready for
/// that.
const MERGE_REQUESTS: &[&str] = &[
    "mind merging",
    "please merge",
    "could you merge",
    "can you merge",
    "can someone merge",
    "feel free to merge",
    "ok to merge",
    "okay to merge",
    "good to merge",
    "anyone can merge",
    "approve and merge",
    "mind to approve",
    "mind approving",
    "ready for review",
    "ready for another",
];
/// Words that make such a line say something about the change ("Argument Clinic seems to have no
/// dedicated tests; marking as ready for review.").
const MERGE_REQUEST_CONTENT: &[&str] = &["no", "test", "tests", "missing"];
/// The longest request to merge, in words.
const MAX_MERGE_REQUEST_WORDS: usize = 20;

/// A short line that only asks someone to merge or approve the pull request, or says it is ready
/// for review: routing ("@jhuber6 Do you mind merging for me if we don't need any more
/// reviews?", "Anyone can merge on green CI"). A reason, a doubt or a word about what is wrong or
/// missing makes it a remark on the change.
fn is_merge_request(lower: &str, word_count: usize) -> bool {
    if word_count > MAX_MERGE_REQUEST_WORDS
        || !(lower.contains("merg") || lower.contains("approv") || lower.contains("ready"))
        || lower.contains('`')
    {
        return false;
    }
    MERGE_REQUESTS.iter().any(|phrase| lower.contains(phrase))
        && !says_any(lower, &[REQUEST_CONTENT, MERGE_REQUEST_CONTENT])
}

/// Phrases of a question whether a pull request goes on or is wanted ("Is this still desired?",
/// "Should we close this PR?", "What is the status on this one?").
const LIFECYCLE_PHRASES: &[&str] = &[
    "status on this",
    "status of this",
    "status here",
    "still desired",
    "still needed",
    "still relevant",
    "still interested",
    "still willing",
    "still working on this",
    "move forward with this",
    "moving forward with this",
    "holding this up",
    "close this?",
    "close this pr",
    "close this pull request",
    "close this one",
    "merge this?",
];
/// Phrases saying that another pull request replaced this one, when a reference follows
/// ("superseded by #2344"; "deprecate it in favour of the new flag" is a remark on the code).
const REPLACED_PHRASES: &[&str] = &["superseded by", "in favour of", "in favor of"];
/// Words that make such a line say something about the change ("Should we close this? The fix
/// is wrong, because …").
const LIFECYCLE_CONTENT: &[&str] = &[
    "but", "however", "because", "since", "why", "how", "instead", "fail", "fails", "failing",
    "error", "bug", "crash", "leak", "race", "wrong", "broken", "breaks", "test", "tests",
];
/// The longest line about a pull request's fate, in words.
const MAX_LIFECYCLE_WORDS: usize = 16;

/// A short line that only asks or tells whether the pull request goes on: a status ping, a
/// question whether to close or merge it, or a note that another one replaced it. Code, or a
/// word about what is wrong, makes it a remark on the change.
fn is_lifecycle_remark(lower: &str, word_count: usize) -> bool {
    // Most lines ask nothing and name no replacement: tell them before building `spaced`.
    let may_be = lower.contains('?') || lower.contains("superseded") || lower.contains("favo");
    if !may_be || word_count > MAX_LIFECYCLE_WORDS || lower.contains('`') {
        return false;
    }
    let spaced = lower.split_whitespace().collect::<Vec<_>>().join(" ");
    let replaced = REPLACED_PHRASES.iter().any(|phrase| {
        spaced.split_once(phrase).is_some_and(|(_, after)| {
            let after = after.trim_start();
            after.starts_with("http") || after.starts_with('#') || after.contains("/pull/")
        })
    });
    // Asked, not told: "This TODO was still relevant" is a remark on the code.
    let asks = lower.contains('?')
        && LIFECYCLE_PHRASES
            .iter()
            .any(|phrase| spaced.contains(phrase));
    (replaced || asks) && !says_any(lower, &[LIFECYCLE_CONTENT])
}

/// How a line announcing that the pull request is merged or closed opens.
const DECISION_OPENINGS: &[&str] = &[
    "merging ",
    "merged ",
    "merged,",
    "closing ",
    "closing,",
    "closed ",
    "i'm merging ",
    "i am merging ",
    "i'll merge ",
    "i will merge ",
    "i'm going to merge ",
    "i'm going to close ",
    "i'll close ",
    "i will close ",
    "i guess i'll close ",
    "i think i'll merge ",
    "i think i'll just merge ",
    "let me close ",
];
/// Words that make such a line a judgement of the change ("Closing as breaks backward
/// compatibility.", "Closing due to bug in update_cc_test_checks") or a request of its author.
const DECISION_CONTENT: &[&str] = &[
    "bug",
    "bugs",
    "break",
    "breaks",
    "breaking",
    "compatibility",
    "incorrect",
    "wrong",
    "leak",
    "crash",
    "race",
    "unsafe",
    "slow",
    "please",
    "don't",
    "won't",
];
/// The longest line announcing a decision, in words.
const MAX_DECISION_WORDS: usize = 25;

/// A short line announcing that the pull request is merged or closed, with a reason about the
/// process ("Merging for now since we already reached an agreement and avoid conflicts with other
/// PRs.", "I'm going to close this since it's easy to regenerate this later."). A reason about
/// what is wrong with the change, a request, a question or code makes it a remark on the change.
fn is_decision_announcement(lower: &str, word_count: usize) -> bool {
    DECISION_OPENINGS
        .iter()
        .any(|opening| lower.starts_with(opening))
        && !lower.contains(['?', '`'])
        && word_count <= MAX_DECISION_WORDS
        && !says_any(lower, &[DECISION_CONTENT])
}

/// Whether `text` is about a contributor license agreement: the notices CLA bots post on a
/// first pull request ("Please sign the [Contributor License Agreement](…)", "CLAs are signed"),
/// or a request to sign one. Paperwork, not a lesson about the code.
pub fn is_agreement_notice(text: &str) -> bool {
    // Lower-casing is dear; most comments do not say "agreement" in any common casing.
    let names_agreement = (text.contains("greement") || text.contains("GREEMENT")) && {
        let lower = text.to_lowercase();
        lower.contains("contributor license agreement")
            || lower.contains("contribution license agreement")
    };
    names_agreement
        || text.contains("CLA")
            && text
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|word| word == "CLA" || word == "CLAs")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreement_notices_of_cla_bots_but_not_dco_sign_offs() {
        // Verbatim openings of spring-boot's, googlebot's and facebook-github-bot's notices.
        for text in [
            "@GH-xingGe Please sign the [Contributor License Agreement](https://cla.pivotal.io/sign/spring)!",
            "All (the pull request submitter and all commit authors) CLAs are signed, **but** one or more commits were authored",
            "Thank you for your pull request and welcome to our community. We require contributors to sign our Contributor License Agreement",
        ] {
            assert!(is_agreement_notice(text), "{text:?}");
        }
        for text in [
            "Would you mind signing off on the commit for the DCO?",
            "The clause here is wrong: `cla` is not a flag.",
            "This closes the handle twice.",
        ] {
            assert!(!is_agreement_notice(text), "{text:?}");
        }
    }

    #[test]
    fn every_status_opening_is_found_by_its_first_word() {
        for opening in texts(&FACTS.status_openings) {
            assert!(
                opening.contains(' '),
                "{opening:?} needs a word after its first"
            );
            assert!(is_process_line(opening), "{opening:?}");
        }
    }

    #[test]
    fn status_lines_and_notices() {
        for line in [
            "Reviewed 3 of 5 files at r2, all commit messages.",
            "Reviewed 1 of 1 files at r1.",
            "Reviewed all commit messages.",
            "Review status: all files reviewed at latest revision, 1 unresolved discussion.",
            "Comments from the [review on Reviewable.io](https://reviewable.io/reviews/a/b/1)",
            "- components/script/dom/document.rs @ r3",
            "-S-awaiting-review +S-needs-code-changes",
            ":pushpin: Commit 7879edb has been approved by `nox`",
            "Released in [bat v0.12](https://github.com/sharkdp/bat/releases/tag/v0.12.0).",
            "Backported to `7.x` in 473b47e3bdf",
            "Backported in b0e6234",
            // godot's and cpython's maintainers, verbatim (godot-0038, cpython-0008).
            "Cherry-picked for the `master` branch as bd3b958a2.",
            "Backport merged to 3.11,thanks all!",
            "This PR was merged into the repository by commit cfed97d2a9d.",
            "Merged via https://github.com/a/b/commit/daa3edd",
            "Landed in 3f2a1b9",
            "Superseded by https://github.com/a/b/pull/2344.",
            "Closing in favour of #99",
            // angular's ng-0089, verbatim: a notice addressed to someone.
            "@dylhunn Commits squashed into 06d7c2f",
            // numpy's and matplotlib's reviewers, verbatim (numpy-0090, mpl-0046).
            "Test failure is unrelated",
            "Doc failure appears unrelated.",
            "Tests are green now.",
            // helm's maintainer, verbatim (helm-0028).
            "I'm going to close this ticket due to inactivity, but please re-open if this still needs to be addressed. Thanks!",
            "Closing as stale.",
        ] {
            assert!(is_process_line(line), "{line:?} is a process line");
        }
        for line in [
            "Reviewed the locking: the guard is dropped too early.",
            "Released in 1.2, but the fix is incomplete because the cache keeps the old value.",
            "- remove the unwrap",
            "-1 from me, the API is wrong",
            "Merged into one function, why not keep them apart?",
            "--verbose-mode",
            "The new test is failing because the fixture is unrelated to the change.",
            "Tests?",
            "This test is flaky on Windows, please mark it.",
            // helm's maintainer, verbatim (helm-0009): a reason about the change.
            "Closing as breaks backward compatibility.",
            "Closes the stale file handle before returning.",
            "Close the stale connection before reuse.",
            "Closing the stale socket here avoids a leak.",
        ] {
            assert!(!is_process_line(line), "{line:?} is not a process line");
        }
    }

    #[test]
    fn questions_about_a_pull_requests_fate_are_process() {
        for line in [
            // Verbatim, from training repositories (godot-0049, godot-0099, helm-0069,
            // flutter-0076, bevy-0031, ansible-0047, rg-0038).
            "What is the status on this one?",
            "@hbina Is this still desired? If so, it needs to be rebased on the latest master branch.",
            "@donggangcj  Are you still willing to work on this? It needs rebased.",
            "@goderbauer do you want to move forward with this change?",
            "@mockersf do you have any outstanding complaints or can I merge this?",
            "Any specific issues holding this up that I can address?",
            "Looks like this was superseded by https://github.com/BurntSushi/ripgrep/pull/2344.",
        ] {
            assert!(is_process_line(line), "{line:?} is about the PR's fate");
        }
        for line in [
            // react-0075, verbatim: told, not asked.
            "@acdlite This TODO was still relevant. We should re-add it, I think.",
            "What is the status code when the body is empty?",
            "Is this still needed? The test fails without it on Windows.",
            "Should we close this file handle before returning?",
            "Let's deprecate the old flag in favour of the new one.",
            "Can we merge this with `parse_args` instead?",
        ] {
            assert!(!is_process_line(line), "{line:?} is about the change");
        }
    }

    #[test]
    fn announcements_that_the_pull_request_is_merged_or_closed_are_process() {
        for line in [
            // Verbatim, from training repositories (etcd-0095, mpl-0055, ts-0065, llvm-0108,
            // numpy-0067, sf-0049, zulip-0011, zulip-0067, ansible-0028).
            "Merging for now since we already reached an agreement and avoid conflicts with other PRs.",
            "Merging because this doesn't really require tests and doc builds are broken.",
            "I'm going to close this since it's easy to regenerate this later.",
            "I guess I'll close this and reopen when I have something that actually works for handling trailing whitespace.",
            "I think I'll just merge this with the sloppy commit message. Closes https://github.com/numpy/numpy/issues/6878.",
            "I'm merging this to get a green CI on 5.4.",
            "Closing, since this is intended for the zulip/zulip-gci repo.",
            "Closed and re-opened to re-run travis tests after #253 was merged into master.",
            "merged in, that can be a seperate PR if you want.",
        ] {
            assert!(is_process_line(line), "{line:?} announces a decision");
        }
        for line in [
            // Verbatim (helm-0009, llvm-0055, sklearn-0005, ansible-0049's first line): a
            // judgement of the change, or a request of its author.
            "Closing as breaks backward compatibility.",
            "Closing due to bug in update_cc_test_checks",
            "I'll merge this as I think it won't show up on scikit-learn.org/stable before the release.",
            "merged in, thanks very much! BTW, if you can, please don't reformat code in future commits",
            "Merging this would change `Config::default`, so let's wait.",
            "Closing the file twice is a bug here?",
        ] {
            assert!(!is_process_line(line), "{line:?} is about the change");
        }
    }

    #[test]
    fn requests_to_merge_or_approve_are_routing() {
        for line in [
            // Verbatim, from training repositories (llvm-0021, cpython-0054, cpython-0014,
            // etcd-0033, mpl-0045).
            "@jhuber6 Do you mind merging for me if we don't need any more reviews? Thx!",
            "I'm away from my computer for the next hour or so, so feel free to merge when ready.",
            "@encukou: Would you just mind to approve the change in that case?",
            "Leave it to @serathius to approve and merge.",
            "Anyone can merge on green CI",
        ] {
            assert!(is_process_line(line), "{line:?} asks for a merge");
        }
        for line in [
            // cpython-0084, verbatim: it says what is missing.
            "Argument Clinic seems to have no dedicated tests; marking as ready for review.",
            "Anyone can merge, but I won't if @timhoffm wants to address @QuLogic's suggestion...",
            "Is it ok to merge `Config` into `Settings`?",
            "Good to merge once the leak in the reader is fixed.",
        ] {
            assert!(!is_process_line(line), "{line:?} is about the change");
        }
    }

    #[test]
    fn requests_for_a_review_are_routing() {
        // The cheap test before the phrases relies on this.
        for phrase in REVIEW_REQUESTS {
            assert!(
                phrase.contains("look") || phrase.contains("review"),
                "{phrase}"
            );
        }
        for line in [
            // A pytorch reviewer and a rails PR author, verbatim (torch-0079, rails-0058).
            "Hey @malfet are you the right reviewer for this?",
            "@kaspth hello, would you mind giving it another look? I've rebased it and squashed my commits.",
            "Could someone take a look?",
            // PR authors after a review, verbatim (prettier-0003, sympy-0023).
            " Can someone look at this?",
            "@NikhilPappu I have altered the code as asked by you.Please have a review of it.",
            "@Cyrilvallez Could you review again?",
        ] {
            assert!(is_process_line(line), "{line:?} is routing");
        }
        for line in [
            "Could you take a look at why the test fails on Windows?",
            "Take a look at `Vec::retain`, it does this in place.",
            "Have a look at how the parser handles this: the same check is missing there, so the two disagree on empty input.",
            "I'd take a look at the allocator instead.",
            "Could you review again whether the lock is released on error?",
        ] {
            assert!(!is_process_line(line), "{line:?} is about the change");
        }
    }
}
