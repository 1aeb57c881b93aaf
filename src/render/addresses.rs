//! Addresses withheld from published notes. A note (the LLM fell back, the embedder failed)
//! quotes the error it met, and errors name the address they could not reach — a model or
//! embedder on the private network. The findings issue and the web page may be public, so every
//! URL and every host given with a port or as an IP address becomes `‹address withheld›`; the
//! server's log keeps the full error.

/// What stands in for a withheld address.
pub const WITHHELD: &str = "‹address withheld›";

/// `text` with every address in it withheld: URLs of any scheme, `host:port`, IPv4 addresses
/// (with or without a port) and bracketed IPv6 ones. Spaces and the punctuation around each
/// word are kept.
pub fn withhold_addresses(text: &str) -> String {
    text.split(' ')
        .map(withhold_word)
        .collect::<Vec<_>>()
        .join(" ")
}

/// One space-separated word, its address (without the punctuation around it) withheld.
fn withhold_word(word: &str) -> String {
    let core = word.trim_start_matches(['(', '"', '\'', '<', '`', '“']);
    let start = word.len() - core.len();
    let core = core.trim_end_matches([')', '"', '\'', '>', '`', '”', ',', ';', '.', ':']);
    let end = start + core.len();
    if is_address(core) {
        format!("{}{WITHHELD}{}", &word[..start], &word[end..])
    } else {
        word.to_string()
    }
}

/// Whether `word` is a URL, a `host:port`, an IPv4 address or a bracketed IPv6 address.
fn is_address(word: &str) -> bool {
    if word.contains("://") {
        return true;
    }
    if word.starts_with('[') && word.contains("]") && word.contains(':') {
        return true;
    }
    let (host, port) = match word.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
            (host, Some(port))
        }
        _ => (word, None),
    };
    is_ipv4(host) || (port.is_some() && is_host_name(host))
}

/// Four dot-separated numbers below 256.
fn is_ipv4(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    parts.len() == 4 && parts.iter().all(|part| part.parse::<u8>().is_ok())
}

/// A host name as DNS writes one: letters, digits, `-` and `.`, starting with a letter or digit,
/// with at least one letter (so that `21:00` is a time).
fn is_host_name(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_alphanumeric())
        && text.contains(|c: char| c.is_ascii_alphabetic())
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_that_only_look_like_addresses_stay() {
        let text = "3 of 12: v1.2.3 in src/cache/lru.rs at 21:00, ratio 2:1 (see step 4.)";
        assert_eq!(withhold_addresses(text), text);
    }
}
