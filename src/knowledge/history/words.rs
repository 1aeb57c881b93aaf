//! What a commit message says about the commit: fix words, the strong fix signals that name the
//! commit being fixed (`fixup!`, `squash!`, `amend!`, "fixes <sha>"), and whether it landed as a
//! pull request of its own. Titles are read through [`Commit::title`], so a merge speaks with its
//! pull request's title.

use crate::domain::history::Commit;

/// Words that make a subject a fix (matched as whole words, any case).
const FIX_WORDS: &[&str] = &[
    "fix",
    "fixes",
    "fixed",
    "fixing",
    "fixup",
    "bugfix",
    "hotfix",
    "bug",
    "bugs",
    "typo",
    "oops",
    "regression",
    "crash",
    "broke",
    "broken",
];

/// Subject prefixes git's autosquash understands; what follows is the fixed commit's subject.
const AUTOSQUASH_PREFIXES: &[&str] = &["fixup!", "squash!", "amend!"];

/// The shortest abbreviated sha a message may name.
const MIN_SHA_LEN: usize = 7;

/// Whether the title says the commit fixes something.
pub fn is_fix(commit: &Commit) -> bool {
    let title = commit.title();
    is_autosquash(title) || words(title).any(|word| is_one_of(word, FIX_WORDS))
}

/// Whether the commit landed as a pull request of its own: a merge, or a title that ends with
/// the number GitHub appends when it squashes or rebases one (`Add cache (#123)`).
pub fn is_pull_request(commit: &Commit) -> bool {
    commit.parents.len() > 1
        || commit
            .title()
            .trim_end()
            .strip_suffix(')')
            .and_then(|rest| rest.rsplit_once("(#"))
            .is_some_and(|(_, number)| {
                !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())
            })
}

/// What a strong fix signal says the fixed commit is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FixTarget {
    /// `fixup! <subject>` and friends: the fixed commit's subject.
    Subject(String),
    /// "fixes <sha>" / `Fixes: <sha>`: a (possibly abbreviated) sha, lower case.
    Sha(String),
}

/// The commit a strong fix signal names, if the message has one.
pub fn strong_fix_target(commit: &Commit) -> Option<FixTarget> {
    let title = commit.title();
    if is_autosquash(title) {
        let mut subject = title.trim();
        while let Some(rest) = AUTOSQUASH_PREFIXES
            .iter()
            .find_map(|prefix| subject.strip_prefix(prefix))
        {
            subject = rest.trim_start();
        }
        return Some(FixTarget::Subject(subject.to_owned()));
    }
    let mut words = words(title).chain(words(&commit.body)).peekable();
    while let Some(word) = words.next() {
        let named = words.peek().filter(|next| is_sha(next));
        if let Some(sha) = named.filter(|_| is_one_of(word, &["fix", "fixes", "fixed"])) {
            return Some(FixTarget::Sha(sha.to_ascii_lowercase()));
        }
    }
    None
}

/// Whether `word` is one of `words` (lower case), in any case.
fn is_one_of(word: &str, words: &[&str]) -> bool {
    words.iter().any(|known| word.eq_ignore_ascii_case(known))
}

fn is_autosquash(subject: &str) -> bool {
    AUTOSQUASH_PREFIXES
        .iter()
        .any(|prefix| subject.trim_start().starts_with(prefix))
}

/// Whether a word looks like an abbreviated or full sha.
pub fn is_sha(word: &str) -> bool {
    word.len() >= MIN_SHA_LEN && word.len() <= 64 && word.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Words of letters and digits.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(subject: &str, body: &str) -> Commit {
        Commit {
            subject: subject.to_owned(),
            body: body.to_owned(),
            ..Commit::default()
        }
    }

    #[test]
    fn fix_words_are_whole_words() {
        assert!(is_fix(&commit("Fix the parser", "")));
        assert!(is_fix(&commit("fix(api): off by one", "")));
        assert!(!is_fix(&commit("Add prefix handling", "")));
    }

    #[test]
    fn pull_requests_carry_their_number() {
        assert!(is_pull_request(&commit("Add a cache (#123)", "")));
        assert!(!is_pull_request(&commit("Add a cache (see #123 too)", "")));
        assert!(!is_pull_request(&commit("Add a cache", "")));
        let merge = Commit {
            parents: vec!["a".into(), "b".into()],
            ..commit("Merge branch 'x'", "")
        };
        assert!(is_pull_request(&merge));
    }

    #[test]
    fn strong_signals_name_their_target() {
        assert_eq!(
            strong_fix_target(&commit("fixup! fixup! Add parser", "")),
            Some(FixTarget::Subject("Add parser".into()))
        );
        assert_eq!(
            strong_fix_target(&commit("Handle empty input", "Fixes: 1a2b3c4d (\"Add\")")),
            Some(FixTarget::Sha("1a2b3c4d".into()))
        );
        assert_eq!(strong_fix_target(&commit("Fix the parser", "")), None);
    }
}
