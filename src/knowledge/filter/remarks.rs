//! Remarks on the code that the noise model's verdict alone cannot make content-free, however
//! few their words or politely wrapped: an objection after thanks or an approval ("Thanks! But
//! this leaks the handle when the connection drops.", "Yes, but the locks are different") and a
//! typo pointed out ("Typo: recieve", the labelling guide's nitpick).

use super::trivial::is_trivial;

/// Words that open a clause about the code or the change: "but this …", "however, the …".
const SUBJECTS: &[&str] = &["this", "the", "that", "these", "those"];
/// The fewest words of that clause, its subject included.
const MIN_WORDS: usize = 4;

/// Whether `text` objects to the code or points out a typo.
pub fn remarks_on_the_code(text: &str) -> bool {
    objects_to_the_code(text) || points_out_a_typo(text)
}

/// Whether `text` opens by pointing out a typo: "typo:" or "typo in" ("Typo: recieve", "typo in
/// the docstring"), not an apology for one ("bad typo").
fn points_out_a_typo(text: &str) -> bool {
    let lower = text.trim_start().to_lowercase();
    lower.starts_with("typo:") || lower.starts_with("typo in ")
}

/// Whether `text`'s first "but" or "however" opens a clause of [`MIN_WORDS`] words or more whose
/// first word is one of [`SUBJECTS`] and that is not itself content-free ("…, but the PR is
/// good. Thank you!").
fn objects_to_the_code(text: &str) -> bool {
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
    fn a_typo_pointed_out_is_a_remark_an_apology_for_one_is_not() {
        assert!(remarks_on_the_code("Typo: recieve"));
        assert!(remarks_on_the_code("typo in the docstring"));
        // ansible/ansible, verbatim (ansible-0005).
        assert!(!remarks_on_the_code("autch... bad typo."));
        assert!(!remarks_on_the_code("Typos fixed."));
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
