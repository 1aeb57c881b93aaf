//! Objections: after thanks or an approval, "but" or "however" and a clause about the code
//! ("Thanks! But this leaks the handle when the connection drops.", "Yes, but the locks are
//! different"). Whatever came first, such a comment says something: the noise model's verdict
//! that it is content-free does not stand.

use super::trivial::is_trivial;

/// Words that open a clause about the code or the change: "but this …", "however, the …".
const SUBJECTS: &[&str] = &["this", "the", "that", "these", "those"];
/// The fewest words of that clause, its subject included.
const MIN_WORDS: usize = 4;

/// Whether `text`'s first "but" or "however" opens a clause of [`MIN_WORDS`] words or more whose
/// first word is one of [`SUBJECTS`] and that is not itself content-free ("…, but the PR is
/// good. Thank you!").
pub fn objects_to_the_code(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    let bare = |word: &str| {
        word.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    };
    let Some(at) = words
        .iter()
        .position(|word| matches!(bare(word).as_str(), "but" | "however"))
    else {
        return false;
    };
    let clause = &words[at + 1..];
    clause.len() >= MIN_WORDS
        && SUBJECTS.contains(&bare(clause[0]).as_str())
        && !is_trivial(&clause.join(" "), false, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clause_about_the_code_after_but_is_an_objection() {
        for text in [
            "Thanks! But this leaks the handle when the connection drops.",
            // prometheus/prometheus, verbatim (prom-0120).
            "Yes, but the locks are different :P",
            "LGTM. However, these two calls race on the cache.",
        ] {
            assert!(objects_to_the_code(text), "{text}");
        }
    }

    #[test]
    fn thanks_a_short_clause_or_one_about_people_or_process_is_not() {
        for text in [
            "Thanks!",
            "Thanks, but the CI.",
            // elastic/elasticsearch and helm/helm, verbatim (es-0114, helm-0017).
            "LGTM - I thought I fixed this, but it must have been on a branch that never made it to a PR.\nThanks.",
            "This all looks great. I'm LGTMing it, but have to wait until we fix CircleCI to merge it.",
            "Butter is not a word we use here.",
            // elastic/elasticsearch, verbatim (es-0062).
            "Wow. That was quick and without my own PR, which was not my intention. I more or less wanted an opinion first. But the PR is good. Thank you!",
        ] {
            assert!(!objects_to_the_code(text), "{text}");
        }
    }
}
