//! Quiet markdown: links that create no "mentioned this" events on old pull requests, and
//! untrusted text (titles, insights, excerpts of review comments) made harmless before it is
//! published.
//!
//! - Links to the GitHub web host go through a redirector (`https://redirect.github.com/…`, as
//!   Dependabot and Renovate do): GitHub records no cross-reference for them.
//! - `@login` is written `@&#8203;login` (a zero-width space after the `@`, as Dependabot and
//!   Renovate write it): it reads the same and notifies nobody. `#123`, `owner/repo#123` and
//!   `GH-123` get the same treatment, so they link and reference nothing.
//! - Untrusted text is flattened to one line, capped in length, stripped of invisible and
//!   direction-changing characters, and its HTML (`<details>`, comments, entities) and markdown
//!   link syntax escaped, so it can neither break the layout, forge a dismiss box, show an image
//!   nor link anywhere: URLs in it are shown as code. Its code spans stay as written: markdown
//!   shows them literally.
//! - Text for plain-text fields (check-run annotations) is only flattened, capped and stripped
//!   of invisible characters: GitHub shows it as is.

use super::inline::closing_run;

/// Where links point and how they are made quiet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkStyle {
    /// The web host of GitHub, e.g. `https://github.com` or a GitHub Enterprise Server's URL.
    pub web_base: String,
    /// What replaces `web_base` in every link, e.g. `https://redirect.github.com`; `None` keeps
    /// links as they are (a GitHub Enterprise Server without a redirector).
    pub redirect_base: Option<String>,
}

/// The zero-width space, as an entity: visible in the markdown source, invisible on the page.
const ZERO_WIDTH_SPACE: &str = "&#8203;";

impl LinkStyle {
    /// github.com through GitHub's own redirector.
    pub fn github_com() -> LinkStyle {
        LinkStyle {
            web_base: "https://github.com".into(),
            redirect_base: Some("https://redirect.github.com".into()),
        }
    }

    /// `url` through the redirector when it points at the web host; other URLs unchanged.
    pub fn quiet_url(&self, url: &str) -> String {
        match (&self.redirect_base, self.web_prefix_len(url)) {
            (Some(redirect), Some(len)) => {
                format!("{}{}", redirect.trim_end_matches('/'), &url[len..])
            }
            _ => url.to_string(),
        }
    }

    /// A markdown link to `url` (made quiet) labelled `label` (which must already be safe).
    pub fn link(&self, label: &str, url: &str) -> String {
        format!("[{label}]({})", escape_link_target(&self.quiet_url(url)))
    }

    /// The length of the `scheme://host` prefix of `text` when it is a URL on the web host
    /// (`http` or `https`, with or without `www.`, case-insensitive), followed by `/`.
    fn web_prefix_len(&self, text: &str) -> Option<usize> {
        let host = self
            .web_base
            .split_once("://")
            .map_or(self.web_base.as_str(), |(_, host)| host)
            .trim_end_matches('/');
        let starts = |s: &str, prefix: &str| {
            s.len() >= prefix.len()
                && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
        };
        let after_scheme = ["https://", "http://"]
            .into_iter()
            .find(|scheme| starts(text, scheme))?
            .len();
        let rest = &text[after_scheme..];
        let www = if starts(rest, "www.") { 4 } else { 0 };
        let len = after_scheme + www + host.len();
        (starts(&rest[www..], host) && text[len..].starts_with('/')).then_some(len)
    }
}

/// Untrusted text made safe to publish: one line, at most `max_chars` characters of the original
/// (an ellipsis marks a cut), no invisible characters, URLs shown as code (never a link or an
/// image), mentions and references defused, HTML and link syntax escaped, and no markdown block
/// syntax at its start. Code spans are kept as written (markdown shows them literally: no HTML,
/// no link, no mention, no reference inside), only their URLs made quiet.
pub fn untrusted(text: &str, style: &LinkStyle, max_chars: usize) -> String {
    let mut flat = truncate(&flatten(text, max_chars.saturating_add(1)), max_chars);
    // A backslash before a backtick escapes it in markdown; dropping such backslashes makes every
    // backtick run below mean what it means to GitHub.
    while flat.contains("\\`") {
        flat = flat.replace("\\`", "`");
    }
    let mut safe = String::with_capacity(flat.len());
    let mut rest = flat.as_str();
    while let Some(open) = rest.find('`') {
        let run = rest[open..].bytes().take_while(|b| *b == b'`').count();
        let after = &rest[open + run..];
        match closing_run(after, run) {
            Some(close) => {
                safe.push_str(&safe_words(&rest[..open], style, true));
                safe.push_str(&rest[open..open + run]);
                safe.push_str(&safe_words(&after[..close], style, false));
                safe.push_str(&rest[open..open + run]);
                rest = &after[close + run..];
            }
            // No closing run: the backticks are plain text (escaped in `safe_word`).
            None => {
                safe.push_str(&safe_words(&rest[..open + run], style, true));
                rest = after;
            }
        }
    }
    safe.push_str(&safe_words(rest, style, true));
    escape_block_start(safe)
}

/// Each space-separated word with its links made quiet, and, outside code (`defuse`), its HTML
/// escaped and its mentions and references defused.
fn safe_words(text: &str, style: &LinkStyle, defuse: bool) -> String {
    text.split(' ')
        .map(|word| {
            if defuse {
                safe_word(word, style)
            } else {
                quiet_word(word, style)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A word inside code: only a URL in it is made quiet.
fn quiet_word(word: &str, style: &LinkStyle) -> String {
    match url_start(word) {
        Some(start) => format!("{}{}", &word[..start], style.quiet_url(&word[start..])),
        None => word.to_string(),
    }
}

/// Where an `http://` or `https://` URL starts in `word`.
fn url_start(word: &str) -> Option<usize> {
    let lower = word.to_ascii_lowercase();
    ["https://", "http://"]
        .into_iter()
        .filter_map(|scheme| lower.find(scheme))
        .min()
}

/// `text` as an inline code span (flattened to one line): shown as is, never a mention or link.
pub fn code_span(text: &str) -> String {
    let flat = flatten(text, usize::MAX);
    let longest_run = flat.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest_run + 1);
    if flat.starts_with('`') || flat.ends_with('`') {
        format!("{fence} {flat} {fence}")
    } else {
        format!("{fence}{flat}{fence}")
    }
}

/// `text` cut to at most `max_chars` characters, with `…` in place of what was cut.
pub fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_string(),
        Some(_) => {
            let keep: String = text.chars().take(max_chars.saturating_sub(1)).collect();
            format!("{}…", keep.trim_end())
        }
    }
}

/// Untrusted text for a field GitHub shows as plain text: one line, invisible characters dropped,
/// at most `max_chars` characters. Nothing is escaped (an entity would show as typed).
pub fn plain(text: &str, max_chars: usize) -> String {
    truncate(&flatten(text, max_chars.saturating_add(1)), max_chars)
}

/// Characters that show nothing or reorder what follows: zero-width spaces and joiners, bidi
/// marks, embeddings, overrides and isolates, the byte-order mark and their kin.
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
    )
}

/// Whitespace runs (newlines included) as single spaces, control and invisible characters
/// dropped; stops at `max_chars` characters (so a long text costs no more than its kept part).
fn flatten(text: &str, max_chars: usize) -> String {
    let mut flat = String::with_capacity(text.len().min(max_chars.saturating_mul(4)));
    let mut space = false;
    let mut count = 0;
    for c in text.chars() {
        if count >= max_chars {
            break;
        }
        if c.is_whitespace() {
            space = !flat.is_empty();
        } else if !c.is_control() && !invisible(c) {
            if space {
                flat.push(' ');
                space = false;
                count += 1;
            }
            flat.push(c);
            count += 1;
        }
    }
    flat
}

/// One whitespace-free word made inert: a link in it (`scheme://…`, `www.…`) is shown as code
/// (made quiet, so that even a copy of it records no reference), the text around it escaped and
/// defused.
fn safe_word(word: &str, style: &LinkStyle) -> String {
    if !word.contains(['&', '<', '>', '@', '#', '-', ':', '.', '[', ']', '\\', '`']) {
        return word.to_string();
    }
    match link_start(word) {
        Some(start) => {
            let link = &word[start..];
            let end = link.trim_end_matches(TRAILING_PUNCTUATION).len().max(1);
            format!(
                "{}{}{}",
                defuse(&escape_markdown(&word[..start])),
                code_span(&style.quiet_url(&link[..end])),
                defuse(&escape_markdown(&link[end..]))
            )
        }
        None => defuse(&escape_markdown(word)),
    }
}

/// What ends a sentence rather than a URL, as GitHub's autolinker reads it.
const TRAILING_PUNCTUATION: &[char] = &['.', ',', ':', ';', '!', '?', '"', '\'', ')', ']'];

/// Where something GitHub would turn into a link starts in `word`: a `scheme://` (any scheme) or
/// `www.`, case-insensitive.
fn link_start(word: &str) -> Option<usize> {
    let lower = word.to_ascii_lowercase();
    let scheme = lower.find("://").map(|colon| {
        lower[..colon]
            .trim_end_matches(|c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            .len()
    });
    let www = lower.find("www.");
    scheme.into_iter().chain(www).min()
}

/// HTML made text (`&`, `<` and `>` as entities, so no tag, comment or entity of the original
/// survives) and markdown's link and code syntax (`[`, `]`, backticks, backslashes) escaped, so
/// no link, image or code span opens.
fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '[' | ']' | '`' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// A zero-width space after every `@` before a name, every `#` before a digit, and inside every
/// `GH-` before a digit: no mention, no issue reference.
fn defuse(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied().unwrap_or(' ');
        let gh_before = i >= 2
            && chars[i - 2].eq_ignore_ascii_case(&'g')
            && chars[i - 1].eq_ignore_ascii_case(&'h');
        if c == '-' && gh_before && next.is_ascii_digit() {
            out.push_str(ZERO_WIDTH_SPACE);
        }
        out.push(c);
        let mention = c == '@' && (next.is_ascii_alphanumeric() || next == '-' || next == '_');
        let reference = c == '#' && next.is_ascii_digit();
        if mention || reference {
            out.push_str(ZERO_WIDTH_SPACE);
        }
    }
    out
}

/// A backslash before a leading character that would start a heading, quote, list, table or
/// rule.
fn escape_block_start(text: String) -> String {
    let ordered_item = {
        let digits = text.chars().take_while(char::is_ascii_digit).count();
        digits > 0 && matches!(text[digits..].chars().next(), Some('.' | ')'))
    };
    if ordered_item || text.starts_with(['#', '-', '+', '*', '=', '|', '~', '_']) {
        format!("\\{text}")
    } else {
        text
    }
}

/// A URL made safe as a markdown link target: characters that end or break one percent-encoded.
fn escape_link_target(url: &str) -> String {
    url.replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
        .replace('<', "%3C")
        .replace('>', "%3E")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_to_the_web_host_are_redirected_and_others_kept() {
        let style = LinkStyle::github_com();
        let pr = "https://github.com/o/r/pull/7#discussion_r1";
        assert_eq!(
            style.quiet_url(pr),
            "https://redirect.github.com/o/r/pull/7#discussion_r1"
        );
        assert_eq!(
            style.quiet_url("HTTP://WWW.GitHub.com/o/r"),
            "https://redirect.github.com/o/r"
        );
        assert_eq!(
            style.quiet_url("https://github.community/x"),
            "https://github.community/x"
        );
        assert_eq!(
            style.quiet_url("https://example.com/o/r"),
            "https://example.com/o/r"
        );
        let ghes = LinkStyle {
            web_base: "https://ghe.corp.example/".into(),
            redirect_base: None,
        };
        assert_eq!(
            ghes.quiet_url("https://ghe.corp.example/o/r/pull/1"),
            "https://ghe.corp.example/o/r/pull/1"
        );
    }

    #[test]
    fn untrusted_text_is_defused_escaped_and_flattened() {
        let style = LinkStyle::github_com();
        let text = "# Heading\n@alice see #12, o/r#3, gh-4 and <details> &#64;bob\n```\ncode";
        assert_eq!(
            untrusted(text, &style, 500),
            "\\# Heading @&#8203;alice see #&#8203;12, o/r#&#8203;3, gh&#8203;-4 and \
             &lt;details&gt; &amp;#&#8203;64;bob \\`\\`\\` code"
        );
        assert_eq!(
            untrusted("(@carol,https://github.com/o/r/pull/9)", &style, 500),
            "(@&#8203;carol,`https://redirect.github.com/o/r/pull/9`)"
        );
        assert_eq!(untrusted("12. step", &style, 500), "\\12. step");
        assert_eq!(
            untrusted(
                "`Vec<String>` & <b> ``a`@x`` `@y https://github.com/o`",
                &style,
                500
            ),
            "`Vec<String>` &amp; &lt;b&gt; ``a`@x`` `@y https://redirect.github.com/o`"
        );
        assert_eq!(
            untrusted("\\`<b>` and ``<i>`", &style, 500),
            "`<b>` and \\`\\`&lt;i&gt;\\`"
        );
    }

    #[test]
    fn quoted_markdown_is_inert_text() {
        let style = LinkStyle::github_com();
        assert_eq!(
            untrusted(
                "![t](https://tracker.example/p.gif) [Click to dismiss](https://evil.example/x).",
                &style,
                500
            ),
            "!\\[t\\](`https://tracker.example/p.gif`) \\[Click to dismiss\\](`https://evil.example/x`)."
        );
        assert_eq!(
            untrusted(
                "\\[a\\](b) see www.evil.example or HTTP://@alice",
                &style,
                500
            ),
            "\\\\\\[a\\\\\\](b) see `www.evil.example` or `HTTP://@alice`"
        );
        assert_eq!(
            untrusted("` https://evil.example/x", &style, 500),
            "\\` `https://evil.example/x`"
        );
        assert_eq!(
            untrusted("ad\u{202E}min\u{200B}\u{2066}s \u{FEFF}ok", &style, 500),
            "admins ok"
        );
    }

    #[test]
    fn plain_text_is_flattened_capped_and_visible() {
        assert_eq!(
            plain("<details>x</details>\n@bob \u{202E}done", 500),
            "<details>x</details> @bob done"
        );
        assert_eq!(plain("abcdef", 4), "abc…");
    }

    #[test]
    fn untrusted_text_is_capped_in_characters() {
        let style = LinkStyle::github_com();
        assert_eq!(untrusted("ééééé ééééé", &style, 8), "ééééé é…");
        assert_eq!(untrusted("short", &style, 8), "short");
    }

    #[test]
    fn code_spans_outlast_the_backticks_inside() {
        assert_eq!(code_span("src/a.rs"), "`src/a.rs`");
        assert_eq!(code_span("a``b"), "```a``b```");
        assert_eq!(code_span("`x"), "`` `x ``");
    }
}
