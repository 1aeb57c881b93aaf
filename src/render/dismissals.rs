//! The dismiss checkbox under each finding, and reading ticked boxes back from an edit of the
//! findings issue (behaviour §5.1).
//!
//! A box is a task-list item carrying the finding's id in a hidden comment:
//! `- [ ] Dismiss <!-- gitlore:dismiss f-1a2b3c -->`. Untrusted text in the issue has its `<`
//! escaped, so only gitlore writes such comments.

use std::collections::HashMap;

use crate::domain::markers::{DISMISS_OPEN, HIDDEN_CLOSE};
use crate::render::wording;

/// The dismiss box of finding `id` (characters outside `[A-Za-z0-9._:-]` dropped from the id, so
/// it cannot end the comment).
pub fn dismiss_box(id: &str) -> String {
    format!(
        "- [ ] {} {DISMISS_OPEN}{}{HIDDEN_CLOSE}",
        wording::DISMISS_LABEL,
        safe_id(id)
    )
}

/// The finding ids whose box is ticked in `new_body` but was unticked in `old_body`, in the order
/// of `new_body`. Boxes already ticked before, boxes not in `old_body` and other edits are
/// ignored; `[x]` and `[X]` both count as ticked.
pub fn ticked_dismissals(old_body: &str, new_body: &str) -> Vec<String> {
    let before: HashMap<String, bool> = boxes(old_body).collect();
    let mut ticked: Vec<String> = Vec::new();
    for (id, is_ticked) in boxes(new_body) {
        if is_ticked && before.get(&id) == Some(&false) && !ticked.contains(&id) {
            ticked.push(id);
        }
    }
    ticked
}

/// Every dismiss box in `body`: (finding id, ticked).
fn boxes(body: &str) -> impl Iterator<Item = (String, bool)> + '_ {
    body.lines().filter_map(parse_box)
}

/// A line that is a dismiss box: `- [ ]`, `- [x]` or `- [X]` (any list marker, any indent),
/// then the hidden id comment.
fn parse_box(line: &str) -> Option<(String, bool)> {
    let item = line
        .trim_start()
        .strip_prefix(['-', '*', '+'])?
        .trim_start();
    let ticked = match item.get(..3)? {
        "[ ]" => false,
        "[x]" | "[X]" => true,
        _ => return None,
    };
    let (_, after) = item[3..].split_once(DISMISS_OPEN)?;
    let (id, _) = after.split_once(HIDDEN_CLOSE)?;
    (!id.is_empty() && id == safe_id(id)).then(|| (id.to_string(), ticked))
}

fn safe_id(id: &str) -> String {
    id.chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_reads_back_as_its_id() {
        let rendered = dismiss_box("f-1a2b");
        assert_eq!(rendered, "- [ ] Dismiss <!-- gitlore:dismiss f-1a2b -->");
        assert_eq!(parse_box(&rendered), Some(("f-1a2b".into(), false)));
        assert_eq!(
            dismiss_box("f-x --> <b>"),
            "- [ ] Dismiss <!-- gitlore:dismiss f-x--b -->"
        );
    }

    #[test]
    fn only_boxes_with_an_id_comment_count() {
        assert_eq!(parse_box("- [x] Dismiss"), None);
        assert_eq!(parse_box("[x] Dismiss <!-- gitlore:dismiss f-1 -->"), None);
        assert_eq!(
            parse_box("  * [X] whatever <!-- gitlore:dismiss f-1 -->"),
            Some(("f-1".into(), true))
        );
    }
}
