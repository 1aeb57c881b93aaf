//! Notices that tools post through a person's account: the login is a human's, the text is the
//! tool's. Meta's import tool writes "@alice has imported this pull request. If you are a
//! Facebook employee, …"; Graphite lists a PR's stack, "This stack of pull requests is managed by
//! Graphite". They are automation, as a bot account's comments are.

/// Phrases of which a tool's notice holds every one (lower-cased), per tool.
const NOTICES: &[&[&str]] = &[
    &["has imported this pull request", "employee"],
    &["this pull request was exported from phabricator"],
    &["this stack of pull requests is managed by", "graphite"],
];

/// Whether `text` is a tool's notice posted through a person's account.
pub fn is_tool_notice(text: &str) -> bool {
    // Lower-casing is dear; every notice names a pull request.
    if !(text.contains("pull request") || text.contains("Pull Request")) {
        return false;
    }
    let lower = text.to_lowercase();
    NOTICES
        .iter()
        .any(|phrases| phrases.iter().all(|phrase| lower.contains(phrase)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_of_import_and_stacking_tools_but_not_remarks_about_them() {
        // torch-0027 and llvm-0054 of the corpus, verbatim (the stack list shortened).
        for text in [
            "@soulitzer has imported this pull request.  If you are a Facebook employee, you can view this diff [on Phabricator](https://www.internalfb.com/diff/D33991620).",
            "* `main`\n\n<h2></h2>\n\nThis stack of pull requests is managed by <a href=\"https://graphite.dev?utm-source=stack-comment\"><b>Graphite</b></a>. Learn more about <a href=\"https://stacking.dev/?utm_source=stack-comment\">stacking</a>.",
            "This pull request was exported from Phabricator. Differential Revision: D12345",
        ] {
            assert!(is_tool_notice(text), "{text:?}");
        }
        for text in [
            "Who imported this pull request? The import drops the test changes.",
            "Can you split this pull request into a stack? Graphite makes that easy.",
            "This leaks the handle when the read fails.",
        ] {
            assert!(!is_tool_notice(text), "{text:?}");
        }
    }
}
