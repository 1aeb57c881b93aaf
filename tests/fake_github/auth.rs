//! App authentication as GitHub does it: an RS256 JWT signed with the App's private key, checked
//! against its public key and the fake's clock, exchanged for an installation token that expires
//! one hour later and opens only the installation's repositories.

use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;

use super::model::{Model, Token};

/// Lifetime of an installation token, as GitHub issues them: one hour, in ms.
pub const TOKEN_LIFETIME_MS: i64 = 3_600_000;
/// GitHub refuses a JWT whose `exp - iat` is over ten minutes, in s.
const MAX_JWT_LIFETIME_S: i64 = 600;
/// Clock drift GitHub tolerates on `iat` (a JWT from slightly in the future), in s.
const IAT_LEEWAY_S: i64 = 60;

#[derive(Debug, Deserialize)]
struct Claims {
    iat: Option<i64>,
    exp: Option<i64>,
    iss: Option<serde_json::Value>,
}

/// Why a JWT is refused: GitHub answers 401 with this message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

/// Checks a JWT the way GitHub does and returns the App id it authenticates.
pub fn verify_jwt(model: &Model, jwt: &str) -> Result<i64, Refusal> {
    let Some(app) = &model.app else {
        return Err(Refusal("Integration not found".to_string()));
    };
    let key = DecodingKey::from_rsa_pem(app.public_key_pem.as_bytes())
        .unwrap_or_else(|e| panic!("the fake's App public key is not an RSA PEM: {e}"));
    let mut validation = Validation::new(Algorithm::RS256);
    // Time is the fake's clock, checked below, not the system's.
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.required_spec_claims.clear();
    let data = jsonwebtoken::decode::<Claims>(jwt, &key, &validation)
        .map_err(|_| Refusal("A JSON web token could not be decoded".to_string()))?;
    let claims = data.claims;
    let now_s = model.now_ms.div_euclid(1000);
    let Some(iat) = claims.iat else {
        return Err(Refusal(
            "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued".to_string(),
        ));
    };
    if iat > now_s + IAT_LEEWAY_S {
        return Err(Refusal(
            "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued".to_string(),
        ));
    }
    let Some(exp) = claims.exp else {
        return Err(Refusal(
            "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires".to_string(),
        ));
    };
    if exp <= now_s {
        return Err(Refusal(
            "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires".to_string(),
        ));
    }
    if exp - iat > MAX_JWT_LIFETIME_S {
        return Err(Refusal(
            "'Expiration time' claim ('exp') is too far in the future".to_string(),
        ));
    }
    let iss = match claims.iss {
        Some(serde_json::Value::Number(n)) => n.as_i64(),
        Some(serde_json::Value::String(s)) => s.parse::<i64>().ok(),
        _ => None,
    };
    if iss != Some(app.id) {
        return Err(Refusal("Integration not found".to_string()));
    }
    Ok(app.id)
}

/// Issues a token for an installation, optionally narrowed to some of its repositories
/// (`repositories` are names without the owner, as in GitHub's request body).
pub fn issue_token(
    model: &mut Model,
    installation_id: i64,
    repositories: Option<&[String]>,
) -> Option<Token> {
    let installation = model.installations.get(&installation_id)?;
    let repos: Vec<String> = match repositories {
        None => installation.repos.clone(),
        Some(names) => installation
            .repos
            .iter()
            .filter(|key| {
                let name = key.split_once('/').map_or(key.as_str(), |(_, n)| n);
                names.iter().any(|n| n.eq_ignore_ascii_case(name))
            })
            .cloned()
            .collect(),
    };
    let serial = model.next_id();
    let token = Token {
        token: format!("ghs_fake{serial:0>28}"),
        installation_id,
        expires_at_ms: model.now_ms + TOKEN_LIFETIME_MS,
        repos,
    };
    model.tokens.insert(token.token.clone(), token.clone());
    Some(token)
}

/// The token of an `Authorization: token …` or `Bearer …` header value, if any.
pub fn bearer(header: Option<&str>) -> Option<&str> {
    let value = header?.trim();
    let (scheme, rest) = value.split_once(' ')?;
    if scheme.eq_ignore_ascii_case("token") || scheme.eq_ignore_ascii_case("bearer") {
        Some(rest.trim())
    } else {
        None
    }
}

/// A valid, unexpired installation token, or `None`.
pub fn live_token<'m>(model: &'m Model, token: &str) -> Option<&'m Token> {
    let found = model.tokens.get(token)?;
    let installation = model.installations.get(&found.installation_id)?;
    if installation.suspended || found.expires_at_ms <= model.now_ms {
        return None;
    }
    Some(found)
}
