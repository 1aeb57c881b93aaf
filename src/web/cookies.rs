//! Signed cookies: `value.signature`, the signature an HMAC-SHA256 of the cookie's name and
//! value under the server's session key, checked in constant time. Every cookie is `HttpOnly`,
//! `Secure` and `SameSite=Lax`, for the whole site.

use axum::http::HeaderMap;
use axum::http::header::COOKIE;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The key cookies are signed with.
#[derive(Clone)]
pub struct CookieKey([u8; 32]);

impl CookieKey {
    /// A key derived from a secret (the configured session secret, or the App's private key):
    /// HMAC-SHA256 of a fixed label, so the key is never the secret itself.
    pub fn derive(secret: &str) -> CookieKey {
        let mut mac = mac(secret.as_bytes());
        mac.update(b"gitlore web session cookies v1");
        CookieKey(mac.finalize().into_bytes().into())
    }

    /// `value` signed for the cookie `name`. `value` must be a cookie-safe token (no `;`, `,`,
    /// spaces or quotes): callers pass hex or base64url.
    pub fn sign(&self, name: &str, value: &str) -> String {
        let signature = URL_SAFE_NO_PAD.encode(self.mac(name, value).finalize().into_bytes());
        format!("{value}.{signature}")
    }

    /// The value of a signed cookie `name`, if its signature holds.
    pub fn verify<'a>(&self, name: &str, signed: &'a str) -> Option<&'a str> {
        let (value, signature) = signed.rsplit_once('.')?;
        let signature = URL_SAFE_NO_PAD.decode(signature).ok()?;
        self.mac(name, value)
            .verify_slice(&signature)
            .is_ok()
            .then_some(value)
    }

    fn mac(&self, name: &str, value: &str) -> HmacSha256 {
        let mut mac = mac(&self.0);
        mac.update(name.as_bytes());
        mac.update(b"=");
        mac.update(value.as_bytes());
        mac
    }
}

fn mac(key: &[u8]) -> HmacSha256 {
    <HmacSha256 as Mac>::new_from_slice(key).expect("HMAC takes keys of any length")
}

/// The value of cookie `name` in the request, if sent.
pub fn read(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|line| line.split(';'))
        .find_map(|pair| {
            let (key, value) = pair.trim().split_once('=')?;
            (key == name).then(|| value.to_string())
        })
}

/// A `Set-Cookie` value: `HttpOnly`, `Secure`, `SameSite=Lax`, path `/`, for `max_age_secs`.
pub fn set(name: &str, value: &str, max_age_secs: u64) -> String {
    format!("{name}={value}; Path=/; Max-Age={max_age_secs}; HttpOnly; Secure; SameSite=Lax")
}

/// A `Set-Cookie` value that deletes cookie `name`.
pub fn clear(name: &str) -> String {
    set(name, "", 0)
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    #[test]
    fn a_signed_value_verifies_only_unchanged_and_under_its_name() {
        let key = CookieKey::derive("server secret");
        let signed = key.sign("session", "abc123");
        assert_eq!(key.verify("session", &signed), Some("abc123"));
        assert_eq!(key.verify("other", &signed), None);
        let forged = signed.replacen("abc123", "abc124", 1);
        assert_eq!(key.verify("session", &forged), None);
        assert_eq!(key.verify("session", "abc123"), None);
        let other_key = CookieKey::derive("another secret");
        assert_eq!(other_key.verify("session", &signed), None);
    }

    #[test]
    fn cookies_are_read_by_name_and_set_with_every_flag() {
        let mut headers = HeaderMap::new();
        headers.insert(COOKIE, HeaderValue::from_static("a=1; session=xyz.s; b=2"));
        assert_eq!(read(&headers, "session").as_deref(), Some("xyz.s"));
        assert_eq!(read(&headers, "missing"), None);
        let cookie = set("session", "v", 60);
        for flag in ["HttpOnly", "Secure", "SameSite=Lax", "Path=/", "Max-Age=60"] {
            assert!(cookie.contains(flag), "{cookie}");
        }
        assert!(clear("session").contains("Max-Age=0"));
    }
}
