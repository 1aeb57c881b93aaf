//! Every hidden marker, action identifier and name gitlore publishes on GitHub, in one place:
//! what gitlore writes here is what it recognises again later.

/// The first line of the findings issue's body: how gitlore tells its issue from any other.
pub const FINDINGS_MARKER: &str = "<!-- gitlore:findings -->";

/// Opens the hidden comment after a Dismiss box that names the box's finding:
/// `<!-- gitlore:dismiss f-1a2b -->`.
pub const DISMISS_OPEN: &str = "<!-- gitlore:dismiss ";

/// Closes a hidden comment.
pub const HIDDEN_CLOSE: &str = " -->";

/// The identifier of the check run's "Refresh" button (GitHub allows 20 characters);
/// `check_run.requested_action` brings it back.
pub const REFRESH_ACTION: &str = "refresh";

/// The name of gitlore's check run.
pub const CHECK_RUN_NAME: &str = "gitlore";

/// The findings issue's title when the repo config names none.
pub const DEFAULT_ISSUE_TITLE: &str = "What our reviews keep teaching us (gitlore)";

/// The findings issue's label when the repo config names none.
pub const DEFAULT_ISSUE_LABEL: &str = "gitlore";

/// The hidden marker of gitlore's reply to comment `comment_id`: a retried reply finds the one
/// already posted by it.
pub fn reply_marker(comment_id: i64) -> String {
    format!("<!-- gitlore:reply {comment_id}{HIDDEN_CLOSE}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_html_comments_and_the_action_fits_github() {
        for marker in [FINDINGS_MARKER, &reply_marker(7)] {
            assert!(marker.starts_with("<!-- gitlore:") && marker.ends_with(" -->"));
        }
        assert_eq!(reply_marker(7), "<!-- gitlore:reply 7 -->");
        assert!(REFRESH_ACTION.chars().count() <= 20);
    }
}
