//! Words of review vocabulary folded onto one term per concept, so that two comments making the
//! same point in different inflections or synonyms share a term: "backported" and "cherry-pick"
//! both read as `backport`, "mutex" and "locking" as `lock`. Only general software-review
//! vocabulary, never a project's own names; chosen on the corpus's training split.

/// `(word, concept)`, sorted by word: each word (lower-cased, plural already folded) reads as its
/// concept.
const FOLDED: &[(&str, &str)] = &[
    ("asv", "benchmark"),
    ("backported", "backport"),
    ("backporting", "backport"),
    ("bench", "benchmark"),
    ("benchmarked", "benchmark"),
    ("benchmarking", "benchmark"),
    ("catch", "exception"),
    ("catching", "exception"),
    ("changelogs", "changelog"),
    ("cherry-pick", "backport"),
    ("cherry-picked", "backport"),
    ("cherrypick", "backport"),
    ("copied", "copy"),
    ("copying", "copy"),
    ("dco", "sign-off"),
    ("deprecated", "deprecate"),
    ("deprecating", "deprecate"),
    ("deprecation", "deprecate"),
    ("doc", "document"),
    ("docstring", "document"),
    ("documentation", "document"),
    ("documented", "document"),
    ("documenting", "document"),
    ("except", "exception"),
    ("i18n", "translate"),
    ("indentation", "indent"),
    ("indented", "indent"),
    ("internal", "private"),
    ("internals", "private"),
    ("locked", "lock"),
    ("locking", "lock"),
    ("misspelled", "typo"),
    ("misspelling", "typo"),
    ("mutex", "lock"),
    ("nodoc", "private"),
    ("parameterization", "parametrize"),
    ("parameterize", "parametrize"),
    ("parameterized", "parametrize"),
    ("parametrise", "parametrize"),
    ("parametrization", "parametrize"),
    ("parametrized", "parametrize"),
    ("raise", "exception"),
    ("raising", "exception"),
    ("rebased", "rebase"),
    ("rebasing", "rebase"),
    ("rwmutex", "lock"),
    ("signed-off", "sign-off"),
    ("signoff", "sign-off"),
    ("spelling", "typo"),
    ("squashed", "squash"),
    ("squashing", "squash"),
    ("tab", "indent"),
    ("tabulation", "indent"),
    ("tested", "test"),
    ("testing", "test"),
    ("throw", "exception"),
    ("throwing", "exception"),
    ("translated", "translate"),
    ("translating", "translate"),
    ("translation", "translate"),
    ("underscore", "private"),
    ("unittest", "test"),
    ("unlock", "lock"),
    ("unlocking", "lock"),
    ("whatsnew", "changelog"),
    ("whitespace", "indent"),
];

/// The concept `word` reads as, if it is one of the folded words.
pub fn concept_of(word: &str) -> Option<&'static str> {
    FOLDED
        .binary_search_by(|(folded, _)| (*folded).cmp(word))
        .ok()
        .map(|index| FOLDED[index].1)
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

    #[test]
    fn folded_words_are_sorted_for_binary_search() {
        assert!(FOLDED.windows(2).all(|pair| pair[0].0 < pair[1].0));
    }
}
