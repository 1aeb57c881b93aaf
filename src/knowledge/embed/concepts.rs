//! Words of review vocabulary folded onto one term per concept, so that two comments making the
//! same point in different inflections or synonyms share a term: "backported" and "cherry-pick"
//! both read as `backport`, "mutex" and "locking" as `lock`. Only general software-review
//! vocabulary, never a project's own names; chosen on the corpus's training split.

/// `(concept, words)`: each word (lower-cased, plural already folded) reads as its concept.
const CONCEPTS: &[(&str, &[&str])] = &[
    (
        "backport",
        &[
            "backported",
            "backporting",
            "cherry-pick",
            "cherry-picked",
            "cherrypick",
        ],
    ),
    (
        "benchmark",
        &["benchmarked", "benchmarking", "bench", "asv"],
    ),
    ("changelog", &["changelogs", "whatsnew"]),
    ("copy", &["copied", "copying"]),
    ("deprecate", &["deprecated", "deprecation", "deprecating"]),
    (
        "document",
        &[
            "doc",
            "documented",
            "documentation",
            "documenting",
            "docstring",
        ],
    ),
    (
        "exception",
        &[
            "except", "catch", "catching", "raise", "raising", "throw", "throwing",
        ],
    ),
    (
        "indent",
        &["indentation", "indented", "whitespace", "tab", "tabulation"],
    ),
    (
        "lock",
        &[
            "locking",
            "locked",
            "unlock",
            "unlocking",
            "mutex",
            "rwmutex",
        ],
    ),
    (
        "parametrize",
        &[
            "parametrized",
            "parametrization",
            "parameterize",
            "parameterized",
            "parameterization",
            "parametrise",
        ],
    ),
    ("private", &["internal", "internals", "nodoc", "underscore"]),
    ("rebase", &["rebased", "rebasing"]),
    ("sign-off", &["signoff", "signed-off", "dco"]),
    ("squash", &["squashed", "squashing"]),
    ("test", &["tested", "testing", "unittest"]),
    (
        "translate",
        &["translated", "translation", "translating", "i18n"],
    ),
    ("typo", &["spelling", "misspelled", "misspelling"]),
];

/// The concept `word` reads as, if it is one of the folded words.
pub fn concept_of(word: &str) -> Option<&'static str> {
    CONCEPTS
        .iter()
        .find(|(_, words)| words.contains(&word))
        .map(|(concept, _)| *concept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inflections_and_synonyms_read_as_their_concept() {
        assert_eq!(concept_of("backported"), Some("backport"));
        assert_eq!(concept_of("cherry-pick"), Some("backport"));
        assert_eq!(concept_of("mutex"), Some("lock"));
        assert_eq!(
            concept_of("backport"),
            None,
            "a concept's own word stays as it is"
        );
        assert_eq!(concept_of("unwrap"), None);
    }
}
