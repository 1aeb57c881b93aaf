//! Content-free remarks: approvals (also with a little content: "Approved with one nit"),
//! thanks and greetings (with mentions and emoji codes), acknowledgements ("Done", "Yes, I added
//! a sentence.", "It's fixed now"), bare issue references, requests about the process only
//! ("Could you rebase?", "friendly ping"), and comments made only of commands to bots and CI or
//! of status lines of the review process. A remark that gives a reason, asks something about the
//! code or shows code is never trivial, even when it opens with thanks.

use super::commands::is_command_line;
use super::process::{SAYS_MORE, is_process_line};
use super::rules::{Rule, Switches};

/// Words that carry no review content on their own. A short remark made only of these (once
/// mentions, emoji, references and punctuation are gone) is trivial.
const CONTENT_FREE: &[&str] = &[
    // approvals
    "lgtm",
    "sgtm",
    "lgtm!",
    "+1",
    "lg",
    "ship",
    "shipit",
    "approved",
    "approve",
    "approving",
    "looks",
    "look",
    "looking",
    "good",
    "great",
    "fine",
    "ok",
    "okay",
    "k",
    "ack",
    "concept",
    "til",
    "nice",
    "sweet",
    "cool",
    "awesome",
    "excellent",
    "perfect",
    "wonderful",
    "neat",
    "brilliant",
    "amazing",
    "alright",
    "helpful",
    "glad",
    "super",
    "like",
    "addition",
    "cleanup",
    "improvement",
    "checked",
    "tested",
    "verified",
    "works",
    "worked",
    "fantastic",
    "lovely",
    "beautiful",
    "bang",
    "on",
    "spot",
    "yay",
    "woohoo",
    "wow",
    "congrats",
    "congratulations",
    "welcome",
    "work",
    "job",
    "stuff",
    "catch",
    "point",
    // what an approval says about the review itself ("LGTM, one nit", "Left a few comments")
    "nit",
    "nits",
    "note",
    "change",
    "nitpick",
    "nitpicks",
    "comment",
    "comments",
    "suggestion",
    "suggestions",
    "minor",
    "small",
    "tiny",
    "few",
    "one",
    "two",
    "some",
    "otherwise",
    "overall",
    "just",
    "left",
    "non-blocking",
    "editorial",
    "codewise",
    "modulo",
    "from",
    "my",
    "side",
    "couple",
    "changes",
    "questions",
    "question",
    "except",
    "below",
    "inline",
    // what thanks are for ("many thanks for your investigation", "thanks for the quick answer")
    "many",
    "investigation",
    "quick",
    "answer",
    "feedback",
    "pointers",
    "input",
    "explanation",
    "clarification",
    "report",
    "info",
    "information",
    "patience",
    "perseverance",
    // thanks and greetings
    "thanks",
    "thank",
    "thx",
    "ty",
    "tysm",
    "cheers",
    "kudos",
    "appreciated",
    "hi",
    "hello",
    "hey",
    "sorry",
    "delay",
    "again",
    "both",
    "everyone",
    "folks",
    "guys",
    "all",
    "checking",
    "reviewing",
    "review",
    "reviews",
    "contribution",
    "contributions",
    "patch",
    "pr",
    "fix",
    "help",
    "effort",
    "taking",
    "care",
    "much",
    "lot",
    "very",
    "so",
    "really",
    "indeed",
    // acknowledgements
    "done",
    "fixed",
    "addressed",
    "updated",
    "resolved",
    "rebased",
    "squashed",
    "pushed",
    "changed",
    "added",
    "removed",
    "applied",
    "merged",
    "merging",
    "merge",
    "agreed",
    "agree",
    "same",
    "yes",
    "yep",
    "yeah",
    "yup",
    "sure",
    "right",
    "true",
    "fair",
    "enough",
    "makes",
    "sense",
    "sounds",
    "will",
    "do",
    "did",
    "does",
    "would",
    "now",
    "it",
    "it's",
    "its",
    "this",
    "that",
    "is",
    "was",
    "has",
    "been",
    "should",
    "be",
    "i",
    "i've",
    "i'll",
    "we",
    "you",
    "me",
    "us",
    "your",
    "a",
    "an",
    "the",
    "for",
    "to",
    "of",
    "and",
    "in",
    "as",
    "with",
    "too",
    "also",
    "here",
    "there",
    "👍",
    "🎉",
    "🎯",
    "❤",
    "❤️",
    "🚀",
    "💯",
    "✅",
    "🙏",
    "😄",
    "😀",
    "🙂",
    "😊",
];

/// Words of requests and remarks about the process only: rebasing, pinging, merging, CI status.
/// A short remark, question or not, made of these, [`REQUEST_WORDS`] and content-free words
/// says nothing about the code ("Could you rebase?", "friendly ping", "Any update on this?",
/// "CI failure is unrelated"). Not backporting: which release branches get a fix is the
/// project's policy ("Could you backport the fix to 3.5?"), while a notice that it was
/// backported is a process line (`super::process`).
const PROCESS_WORDS: &[&str] = &[
    "rebase",
    "rebasing",
    "ping",
    "pinging",
    "gentle",
    "reminder",
    "bump",
    "update",
    "updates",
    "news",
    "status",
    "ready",
    "ptal",
    "conflicts",
    "conflict",
    "cc",
    "unrelated",
    "flaky",
    "ci",
    "green",
    "failure",
    "failures",
    "failing",
    "passing",
    "passes",
    "merge",
    "merged",
    "landed",
    "released",
    "squash",
    "commits",
    "upstream",
    "master",
    "branch",
    "thoughts",
    "idea",
    "ideas",
    "maintainers",
    "maintainer",
    "committer",
    "approval",
    "approvals",
    "review",
    "workflow",
    "workflows",
    "presubmit",
    "rerun",
    "resolved",
    "discuss",
    "discussed",
    "discussion",
    "close",
    "closing",
    "closed",
];

/// Words that make a request of a remark about the process ("Would you mind …", "Any …").
const REQUEST_WORDS: &[&str] = &[
    "friendly", "can", "could", "would", "please", "kindly", "mind", "take", "another", "resolve",
    "needs", "need", "any", "when", "are", "still", "working", "willing", "on", "get", "got",
    "chance", "someone", "anyone", "else", "more", "time", "once", "after", "round", "latest",
    "main", "appears", "seems", "will", "over", "seem", "they", "both",
];

/// The longest content-free remark, in words ("Thanks a lot for the review, looks good to me!").
const MAX_CONTENT_FREE_WORDS: usize = 12;

/// Verbs of a change made, which open an acknowledgement ("Done.", "Fixed in 3f2a1b.") alone or
/// after "I" ([`reports_a_change_made`]).
const CHANGES_MADE: &[&str] = &[
    "done",
    "fixed",
    "addressed",
    "updated",
    "resolved",
    "rebased",
    "squashed",
    "pushed",
    "changed",
    "added",
    "removed",
    "applied",
    "reverted",
    "renamed",
    "moved",
    "inlined",
    "dropped",
];

/// Other words that open an acknowledgement ("Yes, I added a sentence.") or an apology ("Sorry,
/// my fault, wrong repository").
const ACK_OPENERS: &[&str] = &[
    "yes", "yep", "yeah", "yup", "sure", "ok", "okay", "agreed", "ack", "thanks", "thank", "good",
    "great", "nice", "fair", "makes", "sounds", "will", "it's", "oops", "whoops", "whups", "sorry",
    "right",
];

/// The longest acknowledgement, in words; a PR author's own replies may be longer
/// ("Fixed, and updated the test accordingly.").
const MAX_ACK_WORDS: usize = 6;
const MAX_AUTHOR_ACK_WORDS: usize = 10;

/// Whether a comment (its analysable text) says nothing a reviewer could learn from.
/// `by_pr_author`: it is the pull request author's own reply. `extra_commands`: a repository's
/// own bot commands, lower-cased.
pub fn is_trivial(text: &str, by_pr_author: bool, extra_commands: &[String]) -> bool {
    trivial_rule(text, by_pr_author, extra_commands, &Switches::default()).is_some()
}

/// The rule by which a comment (its analysable text) says nothing a reviewer could learn from,
/// with `switches`' rules only; `None` when none says so.
pub fn trivial_rule(
    text: &str,
    by_pr_author: bool,
    extra_commands: &[String],
    switches: &Switches,
) -> Option<Rule> {
    let fires = |rule: Rule, holds: bool| (holds && switches.is_on(rule)).then_some(rule);
    let longest = MAX_CONTENT_FREE_WORDS.max(MAX_AUTHOR_ACK_WORDS);
    let mut kept = Vec::new();
    let mut rough_words = 0;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('>') || is_separator(trimmed) {
            continue;
        }
        if is_command_line(trimmed, extra_commands) {
            skip_code_argument(&mut lines);
        } else if !is_process_line(trimmed) {
            rough_words += trimmed.split_whitespace().count();
            if rough_words > 2 * longest {
                return None;
            }
            kept.push(trimmed);
        }
    }
    if kept.is_empty() {
        return fires(Rule::OnlyCommands, true);
    }
    let prose = kept.join("\n");
    if prose.contains('`') {
        return None;
    }
    let lower = prose.to_lowercase();
    let words = content_words(&lower);
    if words.is_empty() {
        return fires(Rule::ContentFreeWords, true);
    }
    let about_process = words.len() <= MAX_CONTENT_FREE_WORDS
        && !asks_to_change_code_comments(&words)
        && words.iter().any(|w| PROCESS_WORDS.contains(w))
        && words
            .iter()
            .all(|w| PROCESS_WORDS.contains(w) || REQUEST_WORDS.contains(w) || is_content_free(w));
    if let Some(rule) = fires(Rule::ProcessRemark, about_process) {
        return Some(rule);
    }
    if prose.contains('?') {
        return None;
    }
    let content_free =
        words.len() <= MAX_CONTENT_FREE_WORDS && words.iter().all(|w| is_content_free(w));
    if let Some(rule) = fires(Rule::ContentFreeWords, content_free) {
        return Some(rule);
    }
    let limit = if by_pr_author {
        MAX_AUTHOR_ACK_WORDS
    } else {
        MAX_ACK_WORDS
    };
    let says_more = words.iter().any(|w| SAYS_MORE.contains(w));
    let acknowledges = words.len() <= limit && opens_acknowledgement(&words) && !says_more;
    fires(Rule::Acknowledgement, acknowledges)
}

/// Skips a fenced code block that opens on the line after a command: the command's argument, as
/// the code a benchmark bot is asked to run (`@EgorBot -amd` then ```` ```cs ````).
fn skip_code_argument(lines: &mut std::iter::Peekable<std::str::Lines>) {
    if !lines
        .peek()
        .is_some_and(|next| next.trim_start().starts_with("```"))
    {
        return;
    }
    lines.next();
    for line in lines.by_ref() {
        if line.trim_start().starts_with("```") {
            return;
        }
    }
}

/// Whether `words` ask to update, add or fix comments ("Please update comments.", "Can we update
/// this comment?"): comments in the code, not the review's, which one addresses or resolves.
fn asks_to_change_code_comments(words: &[&str]) -> bool {
    let is_comment = |w: &str| matches!(w, "comment" | "comments");
    words.windows(3).chain(words.windows(2)).any(|run| {
        let object = match run {
            [_, determiner, object] if DETERMINERS.contains(determiner) => object,
            [_, object] => object,
            _ => return false,
        };
        matches!(run[0], "update" | "add" | "fix") && is_comment(object)
    })
}

/// Words between a verb and its object in a request ("update this comment").
const DETERMINERS: &[&str] = &["this", "that", "the", "these", "those", "a", "your", "its"];

/// A word of [`CONTENT_FREE`], a number ("Left 2 comments"), or an emoji or other symbol with no
/// letter or digit ("😁", "🥳").
fn is_content_free(word: &str) -> bool {
    CONTENT_FREE.contains(&word)
        || word.chars().all(|c| c.is_ascii_digit())
        || !word.chars().any(char::is_alphanumeric)
}

/// Whether `words` open as an acknowledgement, an apology or a bare vote of agreement ("I agree,
/// lets revert.").
fn opens_acknowledgement(words: &[&str]) -> bool {
    ACK_OPENERS.contains(&words[0])
        || CHANGES_MADE.contains(&words[0])
        || (words[0] == "i" && words.get(1) == Some(&"agree"))
        || reports_a_change_made(words)
}

/// Whether `words` open by saying the speaker made a change ("I just inlined the variable.", "I've
/// updated it now"): `i` or `i've`, perhaps `have` or `just`, then a word of [`CHANGES_MADE`].
fn reports_a_change_made(words: &[&str]) -> bool {
    if !matches!(words[0], "i" | "i've") {
        return false;
    }
    words[1..]
        .iter()
        .find(|word| !matches!(**word, "have" | "just" | "also" | "now"))
        .is_some_and(|word| CHANGES_MADE.contains(word))
}

/// The words of `lower` (lower-cased text) without mentions, emoji codes (`:+1:`), issue and
/// commit references, links and punctuation.
fn content_words(lower: &str) -> Vec<&str> {
    lower
        .split(|c: char| {
            c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '[' | ']' | '!' | '?')
        })
        .map(|word| word.trim_matches(|c: char| matches!(c, '.' | '"' | '\'' | '*' | '_' | '~')))
        .filter(|word| !word.is_empty())
        .filter(|word| !is_reference(word))
        .flat_map(split_emoji_codes)
        .map(|word| {
            word.trim_matches(|c: char| matches!(c, '.' | ':' | '"' | '\'' | '*' | '_' | '~' | '-'))
        })
        .filter(|word| word.chars().any(|c| !c.is_ascii_punctuation()))
        .collect()
}

/// An empty line or a markdown rule (`---`).
fn is_separator(line: &str) -> bool {
    let line = line.trim();
    line.is_empty() || (line.len() >= 3 && line.chars().all(|c| "-*_".contains(c)))
}

/// Mentions, issue references (`#12`, `owner/repo#12`, `GH-12`), links, commit hashes and
/// version numbers (`v0.12`, `2.48.1`, `7.x`).
fn is_reference(word: &str) -> bool {
    let word = word.trim_end_matches(['.', ':']);
    let hex = |w: &str| w.len() >= 7 && w.len() <= 40 && w.chars().all(|c| c.is_ascii_hexdigit());
    let version = word.strip_prefix('v').unwrap_or(word);
    let is_version = version.starts_with(|c: char| c.is_ascii_digit())
        && version.contains('.')
        && version
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == 'x');
    is_version
        || word.starts_with('@')
        || word.starts_with("http://")
        || word.starts_with("https://")
        || word
            .rsplit_once('#')
            .is_some_and(|(_, n)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        || (hex(word) && word.chars().any(|c| c.is_ascii_digit()))
}

/// `:+1::tada:` and `thanks:+1:` into the words around the codes; the codes themselves go.
fn split_emoji_codes(word: &str) -> Vec<&str> {
    let parts: Vec<&str> = word.split(':').collect();
    if parts.len() < 3 {
        return vec![word];
    }
    // Odd positions between colons are codes when they look like one (`+1`, `white_check_mark`).
    parts
        .iter()
        .enumerate()
        .filter(|(at, part)| {
            let is_code = at % 2 == 1
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_+-".contains(c));
            !is_code && !part.is_empty()
        })
        .map(|(_, part)| *part)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_free_remarks_are_trivial() {
        for text in [
            // Verbatim, from training repositories (spark-0053, ansible-0055, react-0065,
            // react-0076).
            "looks alright",
            "This is a super helpful addition, thanks.",
            ":) glad to be of help.",
            "This looks like a great cleanup overall! 😁",
            // Verbatim (ansible-0027, spark-0091, grafana-0013, grafana-0059, helm-0050).
            "indeed it would!",
            "LGTM except one minor comment",
            "it does! 🚀",
            "I've left 1 question below.",
            "Also checked that this worked. LGTM.",
            "LGTM",
            "lgtm, thanks!",
            "+1",
            "Done.",
            "👍",
            "> please rename\n\ndone",
            "Thanks a lot for the review!",
            "",
            "/gitlore refresh",
            "@alice Thanks :+1:",
            "Thanks both for checking",
            "Nice!",
            "Sweet!",
            "Good work!",
            "Bang on. 🎯",
            "Fair enough, thank you.",
            "#5127",
            "Yes, I added a sentence.",
            "It's fixed now",
            "@bors r+ rollup=never",
            "Thanks!\n\n@bors r+",
            ":tada::tada:",
            "Fixed in 3f2a1b9.",
            "Could you rebase?",
            "@brancz friendly ping",
            "Any update on this?",
            "Approved with tiny nit",
            "LGTM, one nit",
            "two small comments, otherwise LGTM!",
            "Reviewed 3 of 5 files at r2, all commit messages.",
            "Reviewed 2 of 2 files at r1.\nReview status: all files reviewed at latest revision.\n\n---\n\nComments from the [review on Reviewable.io](https://reviewable.io/reviews/a/b/1)",
            "Released in [bat v0.12](https://github.com/sharkdp/bat/releases/tag/v0.12.0).",
            "Backported to `7.x` in 473b47e3bdf",
            "CI failure is unrelated.",
            "Will take a look after the workflow failures are resolved.",
            "The failure seems unrelated, rerun please",
            "LGTM once CI passes.",
            "@eps1lon could you review?",
            "@x many thanks for your contribution here!",
            // rg-0003 and prom-0035 of the corpus, verbatim.
            "Sorry, my fault, wrong repository",
            "Whups",
            "Sorry for the delay.",
            // sklearn-0101 and dotnet-0022 of the corpus, verbatim.
            "I agree, lets revert.",
            "I agree ;-)",
            // prettier-0087, verbatim: the discussion is elsewhere.
            "Please discuss this over in #4924.",
            // ansible-0100, vault-0118, spark-0051, duckdb-0007, btc-0049, vault-0030, es-0095,
            // grafana-0076 and es-0068, verbatim.
            "This change looks good.",
            "One small note, otherwise looks good!",
            "Mind closing this PR?",
            "I've checked both failures and they seem unrelated",
            "Concept ACK. Needs rebase! :-)",
            "TIL",
            "https://github.com/elastic/elasticsearch/issues/8688 is closed",
            "Introduced in https://github.com/grafana/grafana/pull/106433",
            "@elasticmachine run elasticsearch-ci/packaging-tests-unix-sample",
            // julia-0026, zulip-0077, discourse-0095 and julia-0074, verbatim; dotnet-0087's
            // command with its code shortened.
            "@nanosoldier `runbenchmarks(\"sort\")`",
            "@laurynmm  What do you think?",
            "@eviltrout are you ok with this?",
            "Anyone feel like looking over this?",
            "@EgorBot -amd -windows_x64\n```cs\nusing System;\npublic class Benchmarks { }\n```",
        ] {
            assert!(is_trivial(text, false, &[]), "{text:?} should be trivial");
        }
    }

    #[test]
    fn an_authors_reply_that_says_what_the_code_requires_is_not_an_acknowledgement() {
        // dotnet-0010, verbatim.
        let reply = "Yes it needs to be static: https://github.com/dotnet/arcade/blob/82b37b7f7a37ae812b028519fe2c1835e5dc6d5d/src/Microsoft.DotNet.XUnitExtensions/src/Discoverers/ConditionalTestDiscoverer.cs#L135. Thanks, fixed.";
        assert!(!is_trivial(reply, true, &[]));
        assert!(!is_trivial(
            "Done, it must stay public for the FFI.",
            true,
            &[]
        ));
        assert!(is_trivial("Yes, fixed. Thanks!", true, &[]));
    }

    #[test]
    fn an_authors_report_of_a_change_made_is_an_acknowledgement() {
        // ts-0073, verbatim.
        assert!(is_trivial("I just inlined the variable.", true, &[]));
        assert!(is_trivial("I've updated it now, thanks!", true, &[]));
        for text in [
            "I just inlined the variable, but the copy is still made.",
            "I think the variable should be inlined.",
            "I inlined it because the closure captured the lock.",
        ] {
            assert!(!is_trivial(text, true, &[]), "{text:?}");
        }
    }

    #[test]
    fn remarks_with_content_are_not() {
        for text in [
            "I'd like a test for the empty case",
            "Tested on Windows: the build fails.",
            "Works on Linux only",
            "Line 42",
            // sklearn-0085, verbatim: it repeats a remark made above.
            "as above.",
            "Like this 😁 but without the allocation",
            "This cleanup breaks the Windows build 😕",
            "LGTM but please add a test for the empty case",
            "Done, but this breaks on Windows",
            "nit: rename",
            "Thanks! But this leaks the handle when the read fails.",
            "/gitlore refresh\nThis unwrap still panics on an empty body.",
            "Why not `Vec::new`?",
            "Good catch, though the same bug is in the writer too.",
            "Removed the lock since the caller already holds one for the whole batch.",
            "Could you add a test for the empty input?",
            "Why does CI fail on Windows here?",
            "The workflow seems to skip the integration tests on macOS.",
            "Could you fix this?",
            "Reviewed 3 of 5 files at r2.\n\nThis unwrap panics when the file is empty.",
            // Which release branches get a fix is the project's policy (etcd-0055, verbatim).
            "LGTM\n\nThanks @lucasrod16 \n\nCould you please backport the fix to 3.5 and. 3.4? Thanks.",
            "Should this be backported to 3.3.1?",
            "Sorry, but this breaks the build on Windows.",
            "Whoops, this still panics when the file is empty.",
            "I agree but it's not really the purpose of this PR",
            "I agree that the copy is already made for sparse input, so drop this one.",
            // llvm-0077, verbatim: comments in the code, not the review's.
            "Please update comments.",
            "Could you add a comment here?",
            // vault-0014, verbatim.
            "Can we update this comment?",
            "Can we discuss whether this should be public?",
            "Could you close the file handle here?",
            "Note: this leaks the handle when the file is empty.",
            "This change breaks the Windows build.",
            "Introduced in #123, but it only fails on Windows.",
            "@EgorBot -amd\n```cs\nusing System;\n```\nThis allocates on every call.",
            "@alice what do you think of the new flag?",
            "What do you think about renaming it to `open_file`?",
            // sklearn-0005, verbatim: a reason.
            "I'll merge this as I think it won't show up on scikit-learn.org/stable before the release.",
            "I'll be honest: this leaks the handle on every error path.",
        ] {
            assert!(
                !is_trivial(text, false, &[]),
                "{text:?} should not be trivial"
            );
        }
    }

    #[test]
    fn pr_authors_acknowledgements_may_be_longer() {
        let reply = "Fixed, and updated the test to match the new output.";
        assert!(is_trivial(reply, true, &[]));
        assert!(!is_trivial(reply, false, &[]));
    }
}
