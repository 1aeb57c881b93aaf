//! gitlore's marked section in a file people also write (AGENTS.md, CLAUDE.md,
//! `.github/copilot-instructions.md`): written between two HTML comments, replaced on the next
//! export, and everything outside it kept byte for byte.

use anyhow::{Result, bail};

/// Where gitlore's section starts.
pub const BEGIN: &str =
    "<!-- gitlore:lessons:begin (written by `gitlore export`; edits here are replaced) -->";
/// Where it ends.
pub const END: &str = "<!-- gitlore:lessons:end -->";
/// What identifies the begin marker, whatever its note says.
const BEGIN_PREFIX: &str = "<!-- gitlore:lessons:begin";

/// The section around `body`, markers included, without a final newline.
pub fn section(body: &str) -> String {
    format!("{BEGIN}\n{}\n{END}", body.trim_end())
}

/// `existing` (the file's text, `None` when there is none) with gitlore's section set to `body`,
/// or removed when `body` is `None`. The section replaces the old one in place, or is appended
/// after a blank line. `None` means there is nothing to write (no file and no section). A begin
/// marker without its end is refused rather than guessed at.
pub fn apply(existing: Option<&str>, body: Option<&str>) -> Result<Option<String>> {
    let text = existing.unwrap_or("");
    let found = match text.find(BEGIN_PREFIX) {
        None => None,
        Some(begin) => match text[begin..].find(END) {
            Some(end) => Some((begin, begin + end + END.len())),
            None => bail!("gitlore's section has a begin marker but no `{END}`: fix it by hand"),
        },
    };
    Ok(match (found, body) {
        (Some((begin, end)), Some(body)) => Some(format!(
            "{}{}{}",
            &text[..begin],
            section(body),
            &text[end..]
        )),
        (Some((begin, end)), None) => {
            let after = &text[end..];
            let after = after.strip_prefix('\n').unwrap_or(after);
            Some(format!("{}{after}", &text[..begin]))
        }
        (None, Some(body)) => {
            let separator = match text {
                "" => "",
                t if t.ends_with("\n\n") => "",
                t if t.ends_with('\n') => "\n",
                _ => "\n\n",
            };
            Some(format!("{text}{separator}{}\n", section(body)))
        }
        (None, None) => existing.map(str::to_string),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_section_is_appended_after_a_blank_line() {
        let written = apply(Some("# Agents\nRun `make`."), Some("- one")).unwrap();
        assert_eq!(
            written.unwrap(),
            format!("# Agents\nRun `make`.\n\n{BEGIN}\n- one\n{END}\n")
        );
        assert_eq!(
            apply(None, Some("- one")).unwrap().unwrap(),
            format!("{BEGIN}\n- one\n{END}\n")
        );
    }

    #[test]
    fn only_the_section_changes() {
        let before = format!("top\r\n\n{BEGIN}\n- old\n{END}\nbottom  \n");
        let after = apply(Some(&before), Some("- new")).unwrap().unwrap();
        assert_eq!(after, format!("top\r\n\n{BEGIN}\n- new\n{END}\nbottom  \n"));
        let removed = apply(Some(&before), None).unwrap().unwrap();
        assert_eq!(removed, "top\r\n\nbottom  \n");
        assert_eq!(apply(None, None).unwrap(), None);
    }

    #[test]
    fn a_broken_section_is_refused() {
        assert!(apply(Some(&format!("{BEGIN}\n- old\n")), Some("- new")).is_err());
    }
}
