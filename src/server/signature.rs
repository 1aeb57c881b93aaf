//! GitHub's webhook signature: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>`.

use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Whether `header` is the right signature of `body` under `secret`. The comparison is constant
/// time (`verify_slice`), so an attacker learns nothing from how long a rejection takes.
pub fn verify(secret: &[u8], body: &[u8], header: &str) -> bool {
    let Some(hex_digest) = header.strip_prefix("sha256=") else {
        return false;
    };
    let Ok(expected) = hex::decode(hex_digest) else {
        return false;
    };
    let Ok(mut mac) = HmacSha256::new_from_slice(secret) else {
        return false;
    };
    mac.update(body);
    mac.verify_slice(&expected).is_ok()
}

/// The header value GitHub would send for `body` (for `replay`, tests and benchmarks).
pub fn sign(secret: &[u8], body: &[u8]) -> String {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac = HmacSha256::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_only_the_right_signature() {
        let header = sign(b"secret", b"{}");
        assert!(verify(b"secret", b"{}", &header));
        assert!(!verify(b"other", b"{}", &header));
        assert!(!verify(b"secret", b"{ }", &header));
        assert!(!verify(b"secret", b"{}", "sha1=abc"));
        assert!(!verify(b"secret", b"{}", "sha256=zz"));
        assert!(!verify(b"secret", b"{}", &header[..header.len() - 2]));
    }

    #[test]
    fn matches_githubs_documented_example() {
        // From GitHub's "Validating webhook deliveries" documentation.
        let header = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
        assert!(verify(
            b"It's a Secret to Everybody",
            b"Hello, World!",
            header
        ));
    }
}
