//! Statements of a project's norms: "we don't accept cosmetic changes", "We never add new
//! contracts to existing interfaces on patch release". However politely a closing note wraps
//! them in thanks and apologies, they teach what the project does: a title may be one.

/// Adverbs that may stand around the negation ("we generally do not accept").
const ADVERBS: &[&str] = &[
    "generally",
    "usually",
    "normally",
    "typically",
    "currently",
    "really",
];
/// What limits the verb: "do not", "don't", "never", "no longer", "only", "won't", "will not".
const LIMITS: &[&[&str]] = &[
    &["do", "not"],
    &["don't"],
    &["never"],
    &["no", "longer"],
    &["only"],
    &["won't"],
    &["will", "not"],
];
/// What a project accepts or does.
const VERBS: &[&str] = &[
    "accept", "merge", "take", "allow", "add", "backport", "support", "include",
];

/// Words that, beside "policy", say what the policy allows or rules out.
const POLICY_LIMITS: &[&str] = &["allow", "allows", "only", "never", "not", "no"];

/// Whether `text` states what the project (`we`) does not or only accepts, merges, adds …, what
/// its policy allows ("a backporting policy which allows a bug-fix only"), or that code is no
/// longer maintained here ("This module is no longer maintained in this repository").
pub fn states_a_norm(text: &str) -> bool {
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .collect();
    states_a_policy(&words) || no_longer_maintained_here(&words) || states_what_we_do(text, &words)
}

/// "policy" beside what it allows or rules out.
fn states_a_policy(words: &[&str]) -> bool {
    words.iter().any(|w| same(w, "policy"))
        && words
            .iter()
            .any(|w| POLICY_LIMITS.iter().any(|t| same(w, t)))
}

/// "no longer maintained in this repository".
fn no_longer_maintained_here(words: &[&str]) -> bool {
    words.windows(5).any(|w| {
        ["no", "longer", "maintained", "in", "this"]
            .iter()
            .zip(w)
            .all(|(t, w)| same(w, t))
    })
}

/// "we (generally) do not / never / only accept, merge, add …".
fn states_what_we_do(text: &str, words: &[&str]) -> bool {
    if !text.contains("we") && !text.contains("We") && !text.contains("WE") {
        return false;
    }
    let is = |at: usize, list: &[&str]| {
        words
            .get(at)
            .is_some_and(|w| list.iter().any(|t| same(w, t)))
    };
    let skip_adverbs = |mut at: usize| {
        while is(at, ADVERBS) {
            at += 1;
        }
        at
    };
    (0..words.len()).any(|at| {
        if !same(words[at], "we") {
            return false;
        }
        let at = skip_adverbs(at + 1);
        LIMITS.iter().any(|limit| {
            let end = at + limit.len();
            (at..end).zip(limit.iter()).all(|(i, word)| is(i, &[word]))
                && is(skip_adverbs(end), VERBS)
        })
    })
}

/// Whether `word` is `target` (lower-case), whatever its case and apostrophe.
fn same(word: &str, target: &str) -> bool {
    word.chars()
        .map(|c| {
            if c == '’' {
                '\''
            } else {
                c.to_ascii_lowercase()
            }
        })
        .eq(target.chars())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_norm_is_stated_however_politely() {
        // rails', laravel's, spring-boot's and elasticsearch's maintainers, verbatim (corpus).
        for text in [
            "Thank you for the pull request, but we do not accept cosmetic changes so I'm going to have to close this.",
            "Hello @brian-davis, sorry but we do not accept cosmetic changes! Thanks anyway!",
            "Thank you but we generally do not accept cosmetic changes.",
            "Sorry, we don’t merge things without descriptions. Please re-submit with one.",
            "We never add new contracts to existing interfaces on patch release",
            "Thanks, but we don't add `@since` tags to private fields.",
            "Generally we don't accept refactoring changes for their own sake",
            // apache/spark's spark-0105 and ansible/ansible's ansible-0051, their norm sentences.
            "However, Apache Spark community has a backporting policy which allows a bug-fix only.",
            "This module is no longer maintained in this repository and has been moved to https://github.com/ansible-collections/community.general",
        ] {
            assert!(states_a_norm(text), "{text:?}");
        }
        for text in [
            "Thanks, merged!",
            "We don't need this anymore, closing.",
            "I don't accept that the test is flaky.",
            "We cannot accept your pull request until you sign the CLA.",
            "weird, we never saw that",
            "The retry policy is exponential backoff.",
        ] {
            assert!(!states_a_norm(text), "{text:?}");
        }
    }
}
