//! GitHub's web addresses, derived from the API address gitlore is configured with.

/// GitHub's web address for an API base URL: `https://api.github.com` → `https://github.com`,
/// GitHub Enterprise Server's `https://host/api/v3` → `https://host`, `https://api.x.ghe.com`
/// → `https://x.ghe.com`.
pub fn web_url(api_url: &str) -> String {
    let api = api_url.trim_end_matches('/');
    if let Some(host) = api.strip_suffix("/api/v3") {
        return host.to_string();
    }
    match api.split_once("://api.") {
        Some((scheme, host)) => format!("{scheme}://{host}"),
        None => api.to_string(),
    }
}

/// A repository path as a URL's path: each byte outside the unreserved set and `/`
/// percent-encoded.
pub fn path_in_url(path: &str) -> String {
    path.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_web_address_comes_from_the_api_address() {
        assert_eq!(web_url("https://api.github.com"), "https://github.com");
        assert_eq!(web_url("https://api.github.com/"), "https://github.com");
        assert_eq!(web_url("https://ghe.corp/api/v3"), "https://ghe.corp");
        assert_eq!(web_url("https://api.acme.ghe.com"), "https://acme.ghe.com");
    }

    #[test]
    fn a_path_is_encoded_for_a_url() {
        assert_eq!(path_in_url("src/a b#c?.rs"), "src/a%20b%23c%3F.rs");
        assert_eq!(path_in_url("docs/é.md"), "docs/%C3%A9.md");
    }
}
