//! The App manifest `gitlore setup` posts to GitHub, and the local page that posts it.

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// `app-manifest.json`: the events and least permissions the App needs.
const MANIFEST: &str = include_str!("../../app-manifest.json");

/// The manifest with this run's callback (`redirect_url`) and webhook URL, and the web pages'
/// sign-in callback (`callback_urls`) on the webhook's host: `gitlore serve` serves both.
pub fn manifest(redirect_url: &str, webhook_url: &str) -> Result<Value> {
    let mut manifest: Value =
        serde_json::from_str(MANIFEST).context("The embedded app-manifest.json is not JSON")?;
    manifest["redirect_url"] = redirect_url.into();
    manifest["hook_attributes"]["url"] = webhook_url.into();
    let origin = reqwest::Url::parse(webhook_url)
        .with_context(|| format!("The webhook URL {webhook_url:?} is not a URL"))?
        .origin()
        .ascii_serialization();
    manifest["callback_urls"] = vec![format!("{origin}/auth/callback")].into();
    Ok(manifest)
}

/// Where the manifest form goes: the new-App page of the user, or of organisation `org`, with
/// the `state` GitHub hands back on the redirect.
pub fn form_target(web_url: &str, org: Option<&str>, state: &str) -> Result<String> {
    match org {
        None => Ok(format!("{web_url}/settings/apps/new?state={state}")),
        Some(org) if is_login(org) => Ok(format!(
            "{web_url}/organizations/{org}/settings/apps/new?state={state}"
        )),
        Some(org) => bail!("{org:?} is not a GitHub organisation name"),
    }
}

fn is_login(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// The page with one button that posts the manifest to `target`.
pub fn page(target: &str, manifest: &Value) -> String {
    let manifest = escape(&manifest.to_string());
    let target = escape(target);
    format!(
        r#"<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>gitlore setup</title></head>
<body>
<h1>Register gitlore as a GitHub App</h1>
<p>GitHub shows the App's name, permissions and events before it creates the App; change the
name there if it is taken. GitHub then sends you back here and gitlore writes its
configuration.</p>
<form id="manifest" action="{target}" method="post">
<input type="hidden" name="manifest" value="{manifest}">
<button type="submit">Create the App on GitHub</button>
</form>
</body>
</html>
"#
    )
}

/// A short page with one message.
pub fn message_page(title: &str, message: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>gitlore setup</title></head>\n<body>\n<h1>{}</h1>\n<p>{}</p>\n</body>\n</html>\n",
        escape(title),
        escape(message)
    )
}

/// Text escaped for HTML content and double-quoted attributes.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_organisation_gets_its_own_form_target() {
        let web = "https://github.com";
        assert_eq!(
            form_target(web, None, "s1").unwrap(),
            "https://github.com/settings/apps/new?state=s1"
        );
        assert_eq!(
            form_target(web, Some("acme-inc"), "s1").unwrap(),
            "https://github.com/organizations/acme-inc/settings/apps/new?state=s1"
        );
        assert!(form_target(web, Some("acme/../x"), "s1").is_err());
    }

    #[test]
    fn the_page_carries_the_manifest_escaped() {
        let manifest = manifest(
            "http://127.0.0.1:1/callback",
            "https://h.example/webhook?a=1&b=\"2\"",
        )
        .unwrap();
        assert_eq!(
            manifest["callback_urls"][0],
            "https://h.example/auth/callback"
        );
        let html = page("https://github.com/settings/apps/new?state=s", &manifest);
        assert!(html.contains("https://h.example/webhook?a=1&amp;b=\\&quot;2\\&quot;"));
        assert!(!html.contains("b=\\\"2"), "no raw quote ends the attribute");
    }
}
