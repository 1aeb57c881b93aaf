//! The handlers: the pages, signing in and out. Every answer is `no-store` with a strict
//! content security policy (no script, no frame, images and forms only from here).

use std::sync::Arc;

use axum::extract::{Form, Path, Query, State};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, LOCATION, REFERRER_POLICY, SET_COOKIE,
    X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use maud::Markup;
use serde::{Deserialize, Serialize};

use super::access::Viewer;
use super::pages::{self, Frame};
use super::sessions::{self, SESSION_LIFETIME, random_token};
use super::{WebState, cookies, view};
use crate::store::pages as stored;

/// The session cookie: a signed session id.
const SESSION_COOKIE: &str = "gitlore_session";
/// The sign-in cookie: the signed `state` and return path of a sign-in under way.
const SIGN_IN_COOKIE: &str = "gitlore_signin";
/// How long a sign-in may take at GitHub.
const SIGN_IN_SECS: u64 = 600;

const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; \
                   frame-ancestors 'none'; base-uri 'none'";

/// An HTML page with the security headers.
fn page(status: StatusCode, markup: Markup) -> Response {
    let mut response = (status, markup).into_response();
    secure(response.headers_mut());
    response
}

/// A `303 See Other` to a path of this server (or GitHub's authorize page), with cookies.
fn redirect(location: &str, cookies: &[String]) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(location) {
        headers.insert(LOCATION, value);
    }
    for cookie in cookies {
        if let Ok(value) = HeaderValue::from_str(cookie) {
            headers.append(SET_COOKIE, value);
        }
    }
    secure(headers);
    response
}

fn secure(headers: &mut HeaderMap) {
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
}

/// The session id of the request's signed session cookie, if it holds one.
fn session_id(state: &WebState, headers: &HeaderMap) -> Option<String> {
    let signed = cookies::read(headers, SESSION_COOKIE)?;
    state
        .key
        .verify(SESSION_COOKIE, &signed)
        .map(str::to_string)
}

/// Who sent the request: the session its signed cookie names, if live.
async fn viewer(state: &WebState, headers: &HeaderMap) -> anyhow::Result<Viewer> {
    let Some(id) = session_id(state, headers) else {
        return Ok(Viewer::Anonymous);
    };
    Ok(sessions::find(state, id)
        .await?
        .map_or(Viewer::Anonymous, |session| {
            Viewer::SignedIn(Arc::new(session))
        }))
}

fn frame<'a>(state: &'a WebState, viewer: &'a Viewer) -> Frame<'a> {
    Frame {
        viewer,
        github_web: &state.github_web,
        sign_in: state.flow.is_some(),
        now: state.clock.now().as_secs(),
    }
}

fn trouble(state: &WebState, viewer: &Viewer, error: &anyhow::Error) -> Response {
    tracing::error!(error = format!("{error:#}"), "a web page failed");
    page(
        StatusCode::INTERNAL_SERVER_ERROR,
        pages::problem(
            &frame(state, viewer),
            "Something went wrong",
            "gitlore could not show this page; its log says why.",
        ),
    )
}

/// `GET /`.
pub async fn index(State(state): State<WebState>, headers: HeaderMap) -> Response {
    let viewer = match viewer(&state, &headers).await {
        Ok(viewer) => Arc::new(viewer),
        Err(error) => return trouble(&state, &Viewer::Anonymous, &error),
    };
    let repos = match state
        .on_store(|store| stored::repos(&store.reader()?))
        .await
    {
        Ok(repos) => repos,
        Err(error) => return trouble(&state, &viewer, &error),
    };
    let readable = state.access.readable(&viewer, repos).await;
    page(
        StatusCode::OK,
        pages::index(&frame(&state, &viewer), &readable),
    )
}

/// `GET /repos/{owner}/{repo}`.
pub async fn repository(
    State(state): State<WebState>,
    Path((owner, name)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let viewer = match viewer(&state, &headers).await {
        Ok(viewer) => viewer,
        Err(error) => return trouble(&state, &Viewer::Anonymous, &error),
    };
    let full_name = format!("{owner}/{name}");
    let entry = match state
        .on_store(move |store| stored::repo(&store.reader()?, &full_name))
        .await
    {
        Ok(entry) => entry,
        Err(error) => return trouble(&state, &viewer, &error),
    };
    let Some(entry) = entry else {
        return page(
            StatusCode::NOT_FOUND,
            pages::not_found(&frame(&state, &viewer)),
        );
    };
    if !state.access.can_read(&viewer, &entry).await {
        return page(
            StatusCode::NOT_FOUND,
            pages::not_found(&frame(&state, &viewer)),
        );
    }
    match state.on_store(move |store| view::load(store, entry)).await {
        Ok(view) => page(
            StatusCode::OK,
            pages::repository(&frame(&state, &viewer), &view),
        ),
        Err(error) => trouble(&state, &viewer, &error),
    }
}

#[derive(Deserialize)]
pub struct Next {
    next: Option<String>,
}

/// `GET /signin`: the page with the sign-in button.
pub async fn sign_in_page(
    State(state): State<WebState>,
    Query(query): Query<Next>,
    headers: HeaderMap,
) -> Response {
    let viewer = match viewer(&state, &headers).await {
        Ok(viewer) => viewer,
        Err(error) => return trouble(&state, &Viewer::Anonymous, &error),
    };
    let next = local_path(query.next.as_deref());
    let start = state.flow.as_ref().map(|_| {
        reqwest::Url::parse_with_params("http://x/auth/github", &[("next", next)])
            .map(|url| format!("{}?{}", url.path(), url.query().unwrap_or_default()))
            .unwrap_or_else(|_| "/auth/github".to_string())
    });
    page(
        StatusCode::OK,
        pages::sign_in(&frame(&state, &viewer), start.as_deref()),
    )
}

/// A sign-in under way, in the signed sign-in cookie.
#[derive(Serialize, Deserialize)]
struct Pending {
    state: String,
    next: String,
}

/// `GET /auth/github`: remembers a random `state` in the sign-in cookie and sends the browser
/// to GitHub's authorize page.
pub async fn start_sign_in(State(state): State<WebState>, Query(query): Query<Next>) -> Response {
    let viewer = Viewer::Anonymous;
    let Some(flow) = &state.flow else {
        return page(
            StatusCode::NOT_FOUND,
            pages::sign_in(&frame(&state, &viewer), None),
        );
    };
    let started = random_token().and_then(|oauth_state| {
        let pending = Pending {
            next: local_path(query.next.as_deref()).to_string(),
            state: oauth_state,
        };
        let value = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&pending)?);
        Ok((flow.authorize_url(&pending.state)?, value))
    });
    match started {
        Ok((url, value)) => redirect(
            &url,
            &[cookies::set(
                SIGN_IN_COOKIE,
                &state.key.sign(SIGN_IN_COOKIE, &value),
                SIGN_IN_SECS,
            )],
        ),
        Err(error) => trouble(&state, &viewer, &error),
    }
}

#[derive(Deserialize)]
pub struct Callback {
    code: Option<String>,
    state: Option<String>,
}

/// `GET /auth/callback`: checks the `state` against the sign-in cookie, exchanges the code for
/// the person's token, asks GitHub who they are and starts their session.
pub async fn callback(
    State(state): State<WebState>,
    Query(query): Query<Callback>,
    headers: HeaderMap,
) -> Response {
    let viewer = Viewer::Anonymous;
    let refused = |message: &str| {
        let mut response = page(
            StatusCode::BAD_REQUEST,
            pages::problem(&frame(&state, &viewer), "Sign-in failed", message),
        );
        if let Ok(value) = HeaderValue::from_str(&cookies::clear(SIGN_IN_COOKIE)) {
            response.headers_mut().append(SET_COOKIE, value);
        }
        response
    };
    let Some(flow) = &state.flow else {
        return refused("Signing in is not configured on this server.");
    };
    let pending: Option<Pending> = cookies::read(&headers, SIGN_IN_COOKIE)
        .and_then(|signed| {
            state
                .key
                .verify(SIGN_IN_COOKIE, &signed)
                .map(str::to_string)
        })
        .and_then(|value| URL_SAFE_NO_PAD.decode(value).ok())
        .and_then(|json| serde_json::from_slice(&json).ok());
    let (Some(pending), Some(code), Some(returned)) = (pending, query.code, query.state) else {
        return refused(
            "This sign-in link is not one this browser started, or it expired. Try again.",
        );
    };
    if !constant_time_eq(pending.state.as_bytes(), returned.as_bytes()) {
        tracing::warn!("a sign-in came back with another state than it was sent with; refused");
        return refused("This sign-in link is not one this browser started. Try again.");
    }
    let signed_in = async {
        let token = flow.exchange(&code).await?;
        let login = state.user_login(&token).await?;
        let id = sessions::start(&state, login.clone(), token).await?;
        anyhow::Ok((login, id))
    };
    match signed_in.await {
        Ok((login, id)) => {
            tracing::info!(%login, "signed in with GitHub");
            redirect(
                &pending.next,
                &[
                    cookies::clear(SIGN_IN_COOKIE),
                    cookies::set(
                        SESSION_COOKIE,
                        &state.key.sign(SESSION_COOKIE, &id),
                        SESSION_LIFETIME.as_secs(),
                    ),
                ],
            )
        }
        Err(error) => {
            tracing::warn!(error = format!("{error:#}"), "a sign-in failed");
            refused("GitHub did not confirm the sign-in. Try again.")
        }
    }
}

#[derive(Deserialize)]
pub struct SignOut {
    csrf: String,
}

/// `POST /signout`: ends the session, if the form carries its CSRF token.
pub async fn sign_out(
    State(state): State<WebState>,
    headers: HeaderMap,
    Form(form): Form<SignOut>,
) -> Response {
    let viewer = match viewer(&state, &headers).await {
        Ok(viewer) => viewer,
        Err(error) => return trouble(&state, &Viewer::Anonymous, &error),
    };
    let (Viewer::SignedIn(session), Some(id)) = (&viewer, session_id(&state, &headers)) else {
        return redirect("/", &[cookies::clear(SESSION_COOKIE)]);
    };
    if !constant_time_eq(session.csrf.as_bytes(), form.csrf.as_bytes()) {
        return page(
            StatusCode::FORBIDDEN,
            pages::problem(
                &frame(&state, &viewer),
                "Not signed out",
                "This form is stale. Reload the page and try again.",
            ),
        );
    }
    if let Err(error) = sessions::end(&state, id).await {
        return trouble(&state, &viewer, &error);
    }
    redirect("/", &[cookies::clear(SESSION_COOKIE)])
}

/// `GET /assets/gitlore.css`.
pub async fn style() -> Response {
    let mut response = pages::STYLE.into_response();
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/css; charset=utf-8"),
    );
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}

/// Where to go after signing in: a path of this server (`/`, `/repos/o/r`), never elsewhere.
fn local_path(next: Option<&str>) -> &str {
    match next {
        Some(path)
            if path.starts_with('/')
                && !path.starts_with("//")
                && path
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "/-_.".contains(c)) =>
        {
            path
        }
        _ => "/",
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_paths_are_returned_to() {
        assert_eq!(
            local_path(Some("/repos/acme/widgets")),
            "/repos/acme/widgets"
        );
        for outside in [
            "//evil.example",
            "https://evil.example",
            "/a?b",
            "/a\\b",
            "x",
        ] {
            assert_eq!(local_path(Some(outside)), "/", "{outside}");
        }
        assert_eq!(local_path(None), "/");
    }
}
