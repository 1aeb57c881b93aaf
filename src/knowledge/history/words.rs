//! What a commit message says about the commit: fix words, and the strong fix signals that name
//! the commit being fixed (`fixup!`, `squash!`, `amend!`, "fixes <sha>").

use super::log::Commit;

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

/// Whether the subject says the commit fixes something.
pub fn is_fix(commit: &Commit) -> bool {
    is_autosquash(&commit.subject)
        || words(&commit.subject).any(|word| FIX_WORDS.contains(&word.as_str()))
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
    if is_autosquash(&commit.subject) {
        let mut subject = commit.subject.trim();
        while let Some(rest) = AUTOSQUASH_PREFIXES
            .iter()
            .find_map(|prefix| subject.strip_prefix(prefix))
        {
            subject = rest.trim_start();
        }
        return Some(FixTarget::Subject(subject.to_owned()));
    }
    let message = format!("{}\n{}", commit.subject, commit.body);
    let words: Vec<String> = words(&message).collect();
    words.windows(2).find_map(|pair| {
        let names_fix = matches!(pair[0].as_str(), "fix" | "fixes" | "fixed");
        (names_fix && is_sha(&pair[1])).then(|| FixTarget::Sha(pair[1].clone()))
    })
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

/// Lower-cased words of letters and digits.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
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
