//! Helpers for inline snapshots (`expect_test::expect![[…]]`, refreshed with
//! `UPDATE_EXPECT=1 cargo test --test NAME`): they cut the user-facing part out of a larger text
//! and take out what varies from run to run, so that the snapshot shows the wording itself.

/// The one line of `text` that contains `needle` (asserting there is exactly one).
pub fn line_containing(text: &str, needle: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(needle)).collect();
    assert_eq!(lines.len(), 1, "one line with {needle:?} in:\n{text}");
    lines[0].to_string()
}

/// `text` with the number `n` (as a whole word) written `N`, asserting it is there: for a
/// count the test computed on its own.
pub fn numbers_as_n(text: &str, n: usize) -> String {
    let n = n.to_string();
    let words: Vec<&str> = text.split(' ').collect();
    assert!(words.contains(&n.as_str()), "{n} in {text:?}");
    words
        .iter()
        .map(|w| if *w == n { "N" } else { w })
        .collect::<Vec<_>>()
        .join(" ")
}
