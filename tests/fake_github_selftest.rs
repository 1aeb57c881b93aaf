//! Tests of the fake GitHub itself, through plain HTTP (reqwest), as a client would see it:
//! App authentication, token scope and expiry, pagination, faults, rate limits, GraphQL paging with
//! the bot's own documents, `pinIssue`, and REST answers checked against GitHub's description.

mod fake_github;
#[path = "fake_github_selftest/openapi.rs"]
mod openapi;

use std::time::Duration;

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use reqwest::StatusCode;
use serde_json::{Value, json};

use fake_github::{FakeGitHub, Fault, Role, Target};

const APP_ID: i64 = 4242;
const INSTALLATION: i64 = 7;
const OTHER_INSTALLATION: i64 = 8;
const REPO: &str = "acme/widgets";

/// A JWT signed with the test App's key, `iat`/`exp` in seconds relative to the fake's clock.
fn jwt(gh: &FakeGitHub, iat_offset_s: i64, exp_offset_s: i64, iss: i64) -> String {
    let now_s = gh.now_ms() / 1000;
    let claims =
        json!({"iat": now_s + iat_offset_s, "exp": now_s + exp_offset_s, "iss": iss.to_string()});
    let key = EncodingKey::from_rsa_pem(fake_github::test_private_key_pem().as_bytes())
        .expect("the test key is an RSA PEM");
    jsonwebtoken::encode(&Header::new(Algorithm::RS256), &claims, &key).expect("sign")
}

/// A fake with the test App, installation 7 on acme/widgets and 8 on other/thing.
async fn fake() -> FakeGitHub {
    let gh = FakeGitHub::start().await;
    gh.with_test_app(APP_ID, "gitlore");
    gh.seed(|m| {
        m.add_installation(INSTALLATION, "acme", &[REPO]);
        m.add_installation(OTHER_INSTALLATION, "other", &["other/thing"]);
    });
    gh
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .expect("client")
}

async fn exchange(gh: &FakeGitHub, installation: i64, jwt: &str) -> reqwest::Response {
    http()
        .post(format!(
            "{}/app/installations/{installation}/access_tokens",
            gh.base_url()
        ))
        .bearer_auth(jwt)
        .send()
        .await
        .expect("token exchange")
}

async fn token(gh: &FakeGitHub, installation: i64) -> String {
    let response = exchange(gh, installation, &jwt(gh, -60, 540, APP_ID)).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.expect("json");
    body["token"].as_str().expect("token").to_string()
}

async fn get(gh: &FakeGitHub, token: Option<&str>, path: &str) -> reqwest::Response {
    let mut request = http().get(format!("{}{path}", gh.base_url()));
    if let Some(t) = token {
        request = request.header("Authorization", format!("token {t}"));
    }
    request.send().await.expect("GET")
}

async fn send(
    gh: &FakeGitHub,
    token: &str,
    method: &str,
    path: &str,
    body: Value,
) -> reqwest::Response {
    let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
    http()
        .request(method, format!("{}{path}", gh.base_url()))
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .expect("request")
}

async fn graphql(gh: &FakeGitHub, token: &str, query: &str, variables: Value) -> Value {
    let response = http()
        .post(gh.graphql_url())
        .bearer_auth(token)
        .json(&json!({"query": query, "variables": variables}))
        .send()
        .await
        .expect("GraphQL");
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.expect("json")
}

fn document(file: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/github/graphql")
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

#[tokio::test]
async fn the_token_exchange_accepts_a_good_jwt_and_refuses_bad_ones() {
    let gh = fake().await;
    let good = exchange(&gh, INSTALLATION, &jwt(&gh, -60, 540, APP_ID)).await;
    assert_eq!(good.status(), StatusCode::CREATED);
    let body: Value = good.json().await.expect("json");
    openapi::assert_conforms(
        "POST",
        "/app/installations/{installation_id}/access_tokens",
        201,
        &body,
    );
    let expires =
        chrono::DateTime::parse_from_rfc3339(body["expires_at"].as_str().expect("expires_at"))
            .expect("RFC 3339");
    assert_eq!(
        expires.timestamp(),
        gh.now_ms() / 1000 + 3600,
        "one hour ahead on the fake's clock"
    );

    let too_long = jwt(&gh, -60, 600, APP_ID); // exp - iat = 660 s
    let expired = jwt(&gh, -660, -60, APP_ID);
    let from_the_future = jwt(&gh, 300, 500, APP_ID);
    let wrong_app = jwt(&gh, -60, 540, APP_ID + 1);
    let mut tampered = jwt(&gh, -60, 540, APP_ID);
    tampered.push('A');
    let hmac = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &json!({"iat": gh.now_ms() / 1000, "exp": gh.now_ms() / 1000 + 500, "iss": APP_ID}),
        &EncodingKey::from_secret(b"not the key"),
    )
    .expect("sign");
    for bad in [
        too_long,
        expired,
        from_the_future,
        wrong_app,
        tampered,
        hmac,
        "garbage".to_string(),
    ] {
        let response = exchange(&gh, INSTALLATION, &bad).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{bad}");
        let body: Value = response.json().await.expect("json");
        assert!(body["message"].is_string());
    }
    let unknown = exchange(&gh, 999, &jwt(&gh, -60, 540, APP_ID)).await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    assert_eq!(gh.count("POST", "/app/installations/"), 9);
    assert!(
        gh.writes().is_empty(),
        "token exchanges are not content writes"
    );
}

#[tokio::test]
async fn the_apps_jwt_finds_installations_and_a_token_lists_its_repositories() {
    let gh = fake().await;
    let app_jwt = jwt(&gh, -60, 540, APP_ID);
    let with_jwt = |path: &str| {
        http()
            .get(format!("{}{path}", gh.base_url()))
            .bearer_auth(&app_jwt)
            .send()
    };
    let list: Value = with_jwt("/app/installations")
        .await
        .expect("GET")
        .json()
        .await
        .expect("json");
    openapi::assert_conforms("GET", "/app/installations", 200, &list);
    assert_eq!(list.as_array().expect("array").len(), 2);
    let one: Value = with_jwt("/app/installations/7")
        .await
        .expect("GET")
        .json()
        .await
        .expect("json");
    openapi::assert_conforms("GET", "/app/installations/{installation_id}", 200, &one);
    let for_repo: Value = with_jwt("/repos/acme/widgets/installation")
        .await
        .expect("GET")
        .json()
        .await
        .expect("json");
    assert_eq!(for_repo["id"], INSTALLATION);
    assert_eq!(
        with_jwt("/repos/acme/nothing/installation")
            .await
            .expect("GET")
            .status(),
        StatusCode::NOT_FOUND
    );
    let app: Value = with_jwt("/app")
        .await
        .expect("GET")
        .json()
        .await
        .expect("json");
    assert_eq!(app["slug"], "gitlore");

    let token = token(&gh, INSTALLATION).await;
    let repos = get(&gh, Some(&token), "/installation/repositories").await;
    assert_eq!(repos.status(), StatusCode::OK);
    let repos: Value = repos.json().await.expect("json");
    openapi::assert_conforms("GET", "/installation/repositories", 200, &repos);
    assert_eq!(repos["total_count"], 1);
    assert_eq!(repos["repositories"][0]["full_name"], REPO);
    assert_eq!(
        get(&gh, Some(&token), "/app/installations").await.status(),
        StatusCode::UNAUTHORIZED,
        "an installation token is not a JWT"
    );
}

#[tokio::test]
async fn installation_tokens_open_their_repositories_only_and_expire_on_the_fakes_clock() {
    let gh = fake().await;
    let token = token(&gh, INSTALLATION).await;
    let other = token_for_other(&gh).await;
    assert_ne!(token, other, "two installations never share a token");

    let ok = get(&gh, Some(&token), "/repos/acme/widgets").await;
    assert_eq!(ok.status(), StatusCode::OK);
    let body: Value = ok.json().await.expect("json");
    openapi::assert_conforms("GET", "/repos/{owner}/{repo}", 200, &body);
    assert_eq!(body["default_branch"], "main");

    assert_eq!(
        get(&gh, Some(&token), "/repos/other/thing").await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&gh, None, "/repos/acme/widgets").await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&gh, Some("ghs_wrong"), "/repos/acme/widgets")
            .await
            .status(),
        StatusCode::UNAUTHORIZED
    );
    let bearer = http()
        .get(format!("{}/repos/acme/widgets", gh.base_url()))
        .bearer_auth(&token)
        .send()
        .await
        .expect("GET");
    assert_eq!(
        bearer.status(),
        StatusCode::OK,
        "`Bearer` works like `token`"
    );

    gh.advance(Duration::from_secs(3599));
    assert_eq!(
        get(&gh, Some(&token), "/repos/acme/widgets").await.status(),
        StatusCode::OK
    );
    gh.advance(Duration::from_secs(1));
    assert_eq!(
        get(&gh, Some(&token), "/repos/acme/widgets").await.status(),
        StatusCode::UNAUTHORIZED
    );

    let log = gh.requests();
    let last = log.last().expect("logged");
    assert_eq!(last.token.as_deref(), Some(token.as_str()));
    assert_eq!(last.installation_id, Some(INSTALLATION));
    assert_eq!(last.status, 401);
}

async fn token_for_other(gh: &FakeGitHub) -> String {
    token(gh, OTHER_INSTALLATION).await
}

#[tokio::test]
async fn unknown_routes_answer_404_json() {
    let gh = fake().await;
    let token = token(&gh, INSTALLATION).await;
    for path in ["/nope", "/repos/acme/widgets/nope"] {
        let response = get(&gh, Some(&token), path).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        let body: Value = response.json().await.expect("json");
        assert_eq!(body["message"], "Not Found");
    }
    let outside = http()
        .get(format!("{}/graphql", gh.base_url()))
        .send()
        .await
        .expect("GET");
    assert_eq!(
        outside.status(),
        StatusCode::NOT_FOUND,
        "GraphQL is at /api/graphql, not under /api/v3"
    );
}

#[tokio::test]
async fn lists_paginate_with_absolute_link_urls_on_the_fakes_host() {
    let gh = fake().await;
    gh.seed(|m| {
        for i in 0..75 {
            let issue = m.add_issue(REPO, &format!("issue {i}"), "body", "alice");
            issue.labels = vec!["gitlore".to_string()];
            issue.created_at_ms += i;
        }
        m.add_issue(REPO, "unlabelled", "", "bob");
    });
    let token = token(&gh, INSTALLATION).await;
    let mut url = format!(
        "{}/repos/acme/widgets/issues?labels=gitlore&state=all&per_page=30",
        gh.base_url()
    );
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let response = http()
            .get(&url)
            .bearer_auth(&token)
            .send()
            .await
            .expect("page");
        assert_eq!(response.status(), StatusCode::OK, "{url}");
        pages += 1;
        let link = header(&response, "link");
        let body: Value = response.json().await.expect("json");
        if pages == 1 {
            openapi::assert_conforms("GET", "/repos/{owner}/{repo}/issues", 200, &body);
        }
        seen.extend(
            body.as_array()
                .expect("array")
                .iter()
                .map(|i| i["number"].as_u64().expect("number")),
        );
        let Some(next) = link.as_deref().and_then(|l| {
            l.split(", ")
                .find(|part| part.ends_with("rel=\"next\""))
                .map(|part| {
                    part.trim_start_matches('<')
                        .split('>')
                        .next()
                        .expect("url")
                        .to_string()
                })
        }) else {
            break;
        };
        assert!(
            next.starts_with(&gh.base_url()),
            "absolute URL on the fake's host: {next}"
        );
        assert!(
            next.contains("labels=gitlore") && next.contains("per_page=30"),
            "{next}"
        );
        url = next;
    }
    assert_eq!(pages, 3);
    assert_eq!(seen.len(), 75);
    assert_eq!(seen.first(), Some(&75), "newest first");

    // Page 2 without the token is what a client that drops it on other hosts would send.
    let page2 = get(&gh, None, &url.replacen(&gh.base_url(), "", 1)).await;
    assert_eq!(page2.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        gh.count("GET", "/repositories/"),
        3,
        "pages 2 and 3, then the token-less one"
    );
}

#[tokio::test]
async fn an_injected_502_fails_then_the_request_succeeds() {
    let gh = fake().await;
    let token = token(&gh, INSTALLATION).await;
    gh.inject(
        Target::rest("GET", "/repos/acme/widgets"),
        Fault::ServerError(502),
        1,
    );
    let first = get(&gh, Some(&token), "/repos/acme/widgets").await;
    assert_eq!(first.status(), StatusCode::BAD_GATEWAY);
    assert!(header(&first, "x-ratelimit-remaining").is_some());
    let second = get(&gh, Some(&token), "/repos/acme/widgets").await;
    assert_eq!(second.status(), StatusCode::OK);
    let faults: Vec<Option<String>> = gh
        .requests()
        .iter()
        .skip(1)
        .map(|r| r.fault.clone())
        .collect();
    assert!(faults[0].as_deref().is_some_and(|f| f.contains("502")) && faults[1].is_none());
}

#[tokio::test]
async fn secondary_rate_limits_answer_403_or_429_with_retry_after() {
    let gh = fake().await;
    let token = token(&gh, INSTALLATION).await;
    gh.inject(
        Target::rest("POST", "/repos/acme/widgets/issues"),
        Fault::SecondaryRateLimit { retry_after_s: 2 },
        1,
    );
    gh.inject(
        Target::rest("POST", "/repos/acme/widgets/issues"),
        Fault::TooManyRequests { retry_after_s: 3 },
        1,
    );
    let first = send(
        &gh,
        &token,
        "POST",
        "/repos/acme/widgets/issues",
        json!({"title": "x"}),
    )
    .await;
    assert_eq!(first.status(), StatusCode::FORBIDDEN);
    assert_eq!(header(&first, "retry-after").as_deref(), Some("2"));
    let body: Value = first.json().await.expect("json");
    assert!(
        body["message"]
            .as_str()
            .expect("message")
            .contains("secondary rate limit")
    );
    let second = send(
        &gh,
        &token,
        "POST",
        "/repos/acme/widgets/issues",
        json!({"title": "x"}),
    )
    .await;
    assert_eq!(second.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(header(&second, "retry-after").as_deref(), Some("3"));
    let third = send(
        &gh,
        &token,
        "POST",
        "/repos/acme/widgets/issues",
        json!({"title": "x"}),
    )
    .await;
    assert_eq!(third.status(), StatusCode::CREATED);
    assert_eq!(
        gh.inspect(|m| m.repo(REPO).issues.len()),
        1,
        "refused creates wrote nothing"
    );
    assert_eq!(gh.writes().len(), 3, "every attempt is logged as a write");
}

#[tokio::test]
async fn an_exhausted_primary_limit_answers_403_with_remaining_0_and_the_reset() {
    let gh = fake().await;
    let token = token(&gh, INSTALLATION).await;
    let now_s = gh.now_ms() / 1000;
    gh.inject(
        Target::rest_any("/repos/"),
        Fault::PrimaryExhausted { reset_in_s: 120 },
        1,
    );
    let limited = get(&gh, Some(&token), "/repos/acme/widgets").await;
    assert_eq!(limited.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        header(&limited, "x-ratelimit-remaining").as_deref(),
        Some("0")
    );
    assert_eq!(
        header(&limited, "x-ratelimit-reset"),
        Some((now_s + 120).to_string())
    );
    let body: Value = limited.json().await.expect("json");
    assert!(
        body["message"]
            .as_str()
            .expect("message")
            .starts_with("API rate limit exceeded")
    );

    // The real bucket: spent, then renewed when the fake's clock passes the reset.
    let ok = get(&gh, Some(&token), "/repos/acme/widgets").await;
    let remaining: i64 = header(&ok, "x-ratelimit-remaining")
        .expect("remaining")
        .parse()
        .expect("number");
    assert_eq!(header(&ok, "x-ratelimit-limit").as_deref(), Some("5000"));
    assert!(remaining < 5000);
    gh.exhaust_rate_limit(INSTALLATION, false);
    let spent = get(&gh, Some(&token), "/repos/acme/widgets").await;
    assert_eq!(spent.status(), StatusCode::FORBIDDEN);
    let reset: i64 = header(&spent, "x-ratelimit-reset")
        .expect("reset")
        .parse()
        .expect("number");
    gh.set_now_ms(reset * 1000);
    let fresh = token_for_renewed(&gh).await;
    assert_eq!(
        get(&gh, Some(&fresh), "/repos/acme/widgets").await.status(),
        StatusCode::OK
    );
}

async fn token_for_renewed(gh: &FakeGitHub) -> String {
    token(gh, INSTALLATION).await
}

#[tokio::test]
async fn a_low_hourly_limit_runs_out_and_every_answer_says_how_much_is_left() {
    let gh = fake().await;
    gh.set_rate_limit(3);
    let token = token(&gh, INSTALLATION).await;
    let mut remaining = Vec::new();
    for _ in 0..4 {
        let response = get(&gh, Some(&token), "/repos/acme/widgets").await;
        remaining.push((
            response.status().as_u16(),
            header(&response, "x-ratelimit-remaining").expect("remaining"),
        ));
    }
    let expected = [(200, "2"), (200, "1"), (200, "0"), (403, "0")];
    let expected: Vec<(u16, String)> = expected.iter().map(|(s, r)| (*s, r.to_string())).collect();
    assert_eq!(remaining, expected);
    gh.stop().await;
}

#[tokio::test]
async fn a_delay_fault_holds_the_answer() {
    let gh = fake().await;
    let token = token(&gh, INSTALLATION).await;
    gh.inject(
        Target::rest("GET", "/repos/"),
        Fault::Delay(Duration::from_millis(300)),
        1,
    );
    let started = std::time::Instant::now();
    assert_eq!(
        get(&gh, Some(&token), "/repos/acme/widgets").await.status(),
        StatusCode::OK
    );
    assert!(started.elapsed() >= Duration::from_millis(300));
}

#[tokio::test]
async fn graphql_faults_and_exhaustion_target_operations() {
    let gh = fake().await;
    let token = token(&gh, INSTALLATION).await;
    let query = document("rate_limit.graphql");
    gh.inject(Target::graphql("RateLimit"), Fault::ServerError(502), 1);
    let failed = http()
        .post(gh.graphql_url())
        .bearer_auth(&token)
        .json(&json!({"query": query}))
        .send()
        .await
        .expect("post");
    assert_eq!(failed.status(), StatusCode::BAD_GATEWAY);
    let ok = graphql(&gh, &token, &query, json!({})).await;
    assert_eq!(ok["data"]["rateLimit"]["cost"], 1);
    assert_eq!(ok["data"]["rateLimit"]["limit"], 5000);
    gh.exhaust_rate_limit(INSTALLATION, true);
    let limited = graphql(&gh, &token, &query, json!({})).await;
    assert_eq!(limited["errors"][0]["type"], "RATE_LIMITED");
    assert_eq!(
        gh.graphql_operations(),
        vec!["RateLimit", "RateLimit", "RateLimit"]
    );
}

#[tokio::test]
async fn graphql_rejects_fields_github_does_not_have_and_pages_over_100() {
    let gh = fake().await;
    let token = token(&gh, INSTALLATION).await;
    let unknown = graphql(
        &gh,
        &token,
        "query { repository(owner: \"acme\", name: \"widgets\") { severity } }",
        json!({}),
    )
    .await;
    let messages = unknown["errors"].as_array().expect("errors");
    assert!(
        messages.iter().any(|e| e["message"]
            .as_str()
            .is_some_and(|m| m.contains("severity"))),
        "{unknown}"
    );
    assert!(unknown.get("data").is_none());
    let big = graphql(
        &gh,
        &token,
        "query { repository(owner: \"acme\", name: \"widgets\") { pullRequests(first: 101) { nodes { number } } } }",
        json!({}),
    )
    .await;
    assert_eq!(big["errors"][0]["type"], "EXCESSIVE_PAGINATION");
    let unbounded = graphql(&gh, &token, "query { repository(owner: \"acme\", name: \"widgets\") { pullRequests { nodes { number } } } }", json!({})).await;
    assert_eq!(
        unbounded["errors"][0]["type"],
        "MISSING_PAGINATION_BOUNDARIES"
    );
    let other = graphql(
        &gh,
        &token,
        "query { repository(owner: \"other\", name: \"thing\") { id } }",
        json!({}),
    )
    .await;
    assert_eq!(other["data"]["repository"], Value::Null);
    assert_eq!(other["errors"][0]["type"], "NOT_FOUND");
    let unknown_operation = http()
        .post(gh.graphql_url())
        .bearer_auth(&token)
        .json(&json!({"query": "query A { rateLimit { cost } }", "operationName": "B"}))
        .send()
        .await
        .expect("post");
    let unknown_operation: Value = unknown_operation.json().await.expect("json");
    assert!(
        unknown_operation["errors"][0]["message"]
            .as_str()
            .expect("message")
            .contains("B")
    );
    let anonymous = http()
        .post(gh.graphql_url())
        .json(&json!({"query": "{ rateLimit { cost } }"}))
        .send()
        .await
        .expect("post");
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn pin_issue_pins_three_and_refuses_a_fourth() {
    let gh = fake().await;
    let ids: Vec<String> = gh.seed(|m| {
        (0..4)
            .map(|i| {
                m.add_issue(REPO, &format!("issue {i}"), "", "alice")
                    .node_id
                    .clone()
            })
            .collect()
    });
    let token = token(&gh, INSTALLATION).await;
    let mutation = document("pin_issue.graphql");
    for id in &ids[..3] {
        let answer = graphql(&gh, &token, &mutation, json!({"issueId": id})).await;
        assert_eq!(
            answer["data"]["pinIssue"]["issue"]["isPinned"], true,
            "{answer}"
        );
    }
    let fourth = graphql(&gh, &token, &mutation, json!({"issueId": ids[3]})).await;
    assert_eq!(fourth["data"]["pinIssue"], Value::Null, "{fourth}");
    assert_eq!(fourth["errors"][0]["type"], "UNPROCESSABLE", "{fourth}");
    assert_eq!(fourth["errors"][0]["path"], json!(["pinIssue"]));
    assert_eq!(
        gh.inspect(|m| m.repo(REPO).issues.values().filter(|i| i.pinned).count()),
        3
    );
    assert_eq!(gh.writes().len(), 4, "mutations are writes");
    assert!(
        gh.writes()
            .iter()
            .all(|w| w.graphql_operation.as_deref() == Some("PinIssue"))
    );
}

/// Reads every review thread and comment of a repository's merged PRs with the bot's documents.
async fn backfill(gh: &FakeGitHub, token: &str) -> (usize, usize, usize, usize) {
    let (mut prs, mut threads, mut comments, mut reviews) = (0, 0, 0, 0);
    let mut after: Option<String> = None;
    loop {
        let page = graphql(
            gh,
            token,
            &document("backfill_pull_requests.graphql"),
            json!({"owner": "acme", "name": "widgets", "after": after}),
        )
        .await;
        assert!(page.get("errors").is_none(), "{page}");
        let connection = &page["data"]["repository"]["pullRequests"];
        for pr in connection["nodes"].as_array().expect("nodes") {
            prs += 1;
            reviews += pr["reviews"]["nodes"].as_array().expect("reviews").len();
            let mut thread_page = pr["reviewThreads"].clone();
            loop {
                for thread in thread_page["nodes"].as_array().expect("threads") {
                    threads += 1;
                    let mut comment_page = thread["comments"].clone();
                    loop {
                        comments += comment_page["nodes"].as_array().expect("comments").len();
                        if comment_page["pageInfo"]["hasNextPage"] != true {
                            break;
                        }
                        let next = graphql(gh, token, &document("thread_comments.graphql"), json!({"id": thread["id"], "after": comment_page["pageInfo"]["endCursor"]})).await;
                        comment_page = next["data"]["node"]["comments"].clone();
                    }
                }
                if thread_page["pageInfo"]["hasNextPage"] != true {
                    break;
                }
                let next = graphql(
                    gh,
                    token,
                    &document("pull_request_threads.graphql"),
                    json!({"id": pr["id"], "after": thread_page["pageInfo"]["endCursor"]}),
                )
                .await;
                thread_page = next["data"]["node"]["reviewThreads"].clone();
            }
        }
        if connection["pageInfo"]["hasNextPage"] != true {
            break;
        }
        after = connection["pageInfo"]["endCursor"]
            .as_str()
            .map(str::to_string);
    }
    (prs, threads, comments, reviews)
}

#[tokio::test]
async fn the_backfill_documents_page_through_a_pr_with_120_threads_and_a_thread_of_120_comments() {
    let gh = fake().await;
    gh.seed(|m| {
        for i in 0..30 {
            let number = m.add_merged_pull(REPO, &format!("PR {i}"), "alice").number;
            m.add_thread(REPO, number, "src/lib.rs", 10, "bob", "please add a test");
            m.add_review(REPO, number, "carol", "APPROVED", "");
        }
        let big = m.add_merged_pull(REPO, "big", "alice").number;
        for t in 0..120 {
            m.add_thread(REPO, big, &format!("src/f{t}.rs"), 3, "bob", "why?");
        }
        for c in 0..119 {
            m.add_reply(
                REPO,
                big,
                0,
                if c % 2 == 0 { "alice" } else { "renovate[bot]" },
                "reply",
            );
        }
        m.add_open_pull(REPO, "not merged", "dave");
    });
    let token = token(&gh, INSTALLATION).await;
    let (prs, threads, comments, reviews) = backfill(&gh, &token).await;
    assert_eq!(prs, 31);
    assert_eq!(threads, 30 + 120);
    assert_eq!(comments, 30 + 120 + 119);
    assert_eq!(reviews, 30);
    let ops = gh.graphql_operations();
    let count = |name: &str| ops.iter().filter(|o| *o == name).count();
    // 31 PRs at 25 a page; 120 threads = 50 + one page of 70; 120 comments = 50 + one of 70.
    assert_eq!(count("BackfillPullRequests"), 2);
    assert_eq!(count("PullRequestThreads"), 1);
    assert_eq!(count("ThreadComments"), 1);
    assert_eq!(ops.len(), 4);
}

#[tokio::test]
async fn graphql_shows_bots_without_the_suffix_and_replies_by_database_id() {
    let gh = fake().await;
    let first = gh.seed(|m| {
        let number = m.add_merged_pull(REPO, "PR", "alice").number;
        m.add_thread(REPO, number, "src/a.rs", 1, "bob", "first");
        m.add_reply(REPO, number, 0, "renovate[bot]", "second");
        m.repo(REPO).pulls[&number].threads[0].comments[0].id
    });
    let token = token(&gh, INSTALLATION).await;
    let page = graphql(
        &gh,
        &token,
        &document("backfill_pull_requests.graphql"),
        json!({"owner": "acme", "name": "widgets"}),
    )
    .await;
    let comments = &page["data"]["repository"]["pullRequests"]["nodes"][0]["reviewThreads"]["nodes"]
        [0]["comments"]["nodes"];
    assert_eq!(
        comments[1]["author"],
        json!({"login": "renovate", "__typename": "Bot"})
    );
    assert_eq!(comments[1]["replyTo"]["databaseId"], first);
    assert_eq!(comments[0]["replyTo"], Value::Null);
    assert!(
        comments[1]["url"]
            .as_str()
            .expect("url")
            .starts_with(&gh.origin())
    );
    assert_eq!(page["data"]["rateLimit"]["cost"], 13);
}

#[tokio::test]
async fn rest_routes_answer_in_githubs_shapes() {
    let gh = fake().await;
    let (pr, comment) = gh.seed(|m| {
        m.repo_mut(REPO).files.insert(
            ".github/gitlore.toml".to_string(),
            "window_months = 6\n".to_string(),
        );
        let pr = m.add_open_pull(REPO, "PR", "alice");
        pr.changed_files = (0..35)
            .map(|i| fake_github::model::ChangedFile {
                filename: format!("src/f{i}.rs"),
                status: "modified".to_string(),
                additions: 3,
                deletions: 1,
                patch: Some("@@ -1 +1 @@".to_string()),
            })
            .collect();
        let number = pr.number;
        let comment = m.add_issue_comment(REPO, number, "alice", "/gitlore refresh");
        m.set_role(REPO, "alice", Role::Maintain);
        (number, comment)
    });
    let token = token(&gh, INSTALLATION).await;

    let file = get(
        &gh,
        Some(&token),
        "/repos/acme/widgets/contents/.github/gitlore.toml?ref=main",
    )
    .await;
    assert_eq!(file.status(), StatusCode::OK);
    let body: Value = file.json().await.expect("json");
    openapi::assert_conforms("GET", "/repos/{owner}/{repo}/contents/{path}", 200, &body);
    let content: String = body["content"]
        .as_str()
        .expect("content")
        .split('\n')
        .collect();
    use base64::Engine as _;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(content)
        .expect("base64");
    assert_eq!(decoded, b"window_months = 6\n");
    assert_eq!(
        get(
            &gh,
            Some(&token),
            "/repos/acme/widgets/contents/missing.toml"
        )
        .await
        .status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(
            &gh,
            Some(&token),
            "/repos/acme/widgets/contents/.github/gitlore.toml?ref=feature"
        )
        .await
        .status(),
        StatusCode::NOT_FOUND
    );
    let dir: Value = get(&gh, Some(&token), "/repos/acme/widgets/contents/.github")
        .await
        .json()
        .await
        .expect("json");
    openapi::assert_conforms("GET", "/repos/{owner}/{repo}/contents/{path}", 200, &dir);

    let files = get(
        &gh,
        Some(&token),
        &format!("/repos/acme/widgets/pulls/{pr}/files?per_page=30"),
    )
    .await;
    assert!(
        header(&files, "link")
            .expect("link")
            .contains("rel=\"next\"")
    );
    let body: Value = files.json().await.expect("json");
    openapi::assert_conforms(
        "GET",
        "/repos/{owner}/{repo}/pulls/{pull_number}/files",
        200,
        &body,
    );
    assert_eq!(body.as_array().expect("array").len(), 30);

    let permission: Value = get(
        &gh,
        Some(&token),
        "/repos/acme/widgets/collaborators/alice/permission",
    )
    .await
    .json()
    .await
    .expect("json");
    openapi::assert_conforms(
        "GET",
        "/repos/{owner}/{repo}/collaborators/{username}/permission",
        200,
        &permission,
    );
    assert_eq!(
        (
            permission["permission"].as_str(),
            permission["role_name"].as_str()
        ),
        (Some("write"), Some("maintain"))
    );
    assert_eq!(
        get(
            &gh,
            Some(&token),
            "/repos/acme/widgets/collaborators/mallory/permission"
        )
        .await
        .status(),
        StatusCode::NOT_FOUND
    );

    let created = send(
        &gh,
        &token,
        "POST",
        "/repos/acme/widgets/issues",
        json!({"title": "gitlore findings", "body": "<!-- gitlore -->", "labels": ["gitlore"]}),
    )
    .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    assert!(
        header(&created, "location")
            .expect("location")
            .starts_with(&gh.base_url())
    );
    let issue: Value = created.json().await.expect("json");
    openapi::assert_conforms("POST", "/repos/{owner}/{repo}/issues", 201, &issue);
    assert_eq!(issue["user"]["login"], "gitlore[bot]");
    assert_eq!(issue["user"]["type"], "Bot");
    let number = issue["number"].as_u64().expect("number");
    let too_long = send(
        &gh,
        &token,
        "PATCH",
        &format!("/repos/acme/widgets/issues/{number}"),
        json!({"body": "x".repeat(65_537)}),
    )
    .await;
    assert_eq!(too_long.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let edited = send(
        &gh,
        &token,
        "PATCH",
        &format!("/repos/acme/widgets/issues/{number}"),
        json!({"body": "new"}),
    )
    .await;
    assert_eq!(edited.status(), StatusCode::OK);
    let edited: Value = edited.json().await.expect("json");
    openapi::assert_conforms(
        "PATCH",
        "/repos/{owner}/{repo}/issues/{issue_number}",
        200,
        &edited,
    );
    let fetched: Value = get(
        &gh,
        Some(&token),
        &format!("/repos/acme/widgets/issues/{number}"),
    )
    .await
    .json()
    .await
    .expect("json");
    openapi::assert_conforms(
        "GET",
        "/repos/{owner}/{repo}/issues/{issue_number}",
        200,
        &fetched,
    );
    assert_eq!(fetched["body"], "new");
    let missing_title = send(
        &gh,
        &token,
        "POST",
        "/repos/acme/widgets/issues",
        json!({"body": "no title"}),
    )
    .await;
    assert_eq!(missing_title.status(), StatusCode::UNPROCESSABLE_ENTITY);

    let reply = send(
        &gh,
        &token,
        "POST",
        &format!("/repos/acme/widgets/issues/{pr}/comments"),
        json!({"body": "Refreshing."}),
    )
    .await;
    assert_eq!(reply.status(), StatusCode::CREATED);
    let reply: Value = reply.json().await.expect("json");
    openapi::assert_conforms(
        "POST",
        "/repos/{owner}/{repo}/issues/{issue_number}/comments",
        201,
        &reply,
    );
    let listed: Value = get(
        &gh,
        Some(&token),
        &format!("/repos/acme/widgets/issues/{pr}/comments"),
    )
    .await
    .json()
    .await
    .expect("json");
    openapi::assert_conforms(
        "GET",
        "/repos/{owner}/{repo}/issues/{issue_number}/comments",
        200,
        &listed,
    );
    assert_eq!(listed.as_array().expect("array").len(), 2);

    let reactions = format!("/repos/acme/widgets/issues/comments/{comment}/reactions");
    let eyes = send(&gh, &token, "POST", &reactions, json!({"content": "eyes"})).await;
    assert_eq!(eyes.status(), StatusCode::CREATED);
    let eyes: Value = eyes.json().await.expect("json");
    openapi::assert_conforms(
        "POST",
        "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
        201,
        &eyes,
    );
    let again = send(&gh, &token, "POST", &reactions, json!({"content": "eyes"})).await;
    assert_eq!(
        again.status(),
        StatusCode::OK,
        "an existing reaction answers 200"
    );
    assert_eq!(
        send(&gh, &token, "POST", &reactions, json!({"content": "tada"}))
            .await
            .status(),
        StatusCode::UNPROCESSABLE_ENTITY
    );

    let head = gh.inspect(|m| m.repo(REPO).pulls[&pr].head_sha.clone());
    let run = send(&gh, &token, "POST", "/repos/acme/widgets/check-runs", json!({
        "name": "gitlore", "head_sha": head, "status": "in_progress",
        "output": {"title": "gitlore", "summary": "Looking."},
        "actions": [{"label": "Refresh", "description": "Run the analysis again", "identifier": "refresh"}]
    })).await;
    assert_eq!(run.status(), StatusCode::CREATED);
    let run: Value = run.json().await.expect("json");
    openapi::assert_conforms("POST", "/repos/{owner}/{repo}/check-runs", 201, &run);
    assert_eq!(run["app"]["id"], APP_ID);
    let id = run["id"].as_i64().expect("id");
    let done = send(&gh, &token, "PATCH", &format!("/repos/acme/widgets/check-runs/{id}"), json!({"conclusion": "neutral", "output": {"title": "gitlore", "summary": "2 lessons apply."}})).await;
    assert_eq!(done.status(), StatusCode::OK);
    let done: Value = done.json().await.expect("json");
    openapi::assert_conforms(
        "PATCH",
        "/repos/{owner}/{repo}/check-runs/{check_run_id}",
        200,
        &done,
    );
    assert_eq!(
        (done["status"].as_str(), done["conclusion"].as_str()),
        (Some("completed"), Some("neutral"))
    );
    let annotations: Vec<Value> = (0..51).map(|i| json!({"path": "a.rs", "start_line": i + 1, "end_line": i + 1, "annotation_level": "notice", "message": "m"})).collect();
    let too_many = send(
        &gh,
        &token,
        "PATCH",
        &format!("/repos/acme/widgets/check-runs/{id}"),
        json!({"output": {"title": "t", "summary": "s", "annotations": annotations}}),
    )
    .await;
    assert_eq!(too_many.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let for_ref: Value = get(
        &gh,
        Some(&token),
        &format!("/repos/acme/widgets/commits/{head}/check-runs?check_name=gitlore"),
    )
    .await
    .json()
    .await
    .expect("json");
    assert_eq!(for_ref["total_count"], 1);
    assert_eq!(for_ref["check_runs"][0]["id"], id);

    assert_eq!(gh.count("POST", "/repos/acme/widgets/check-runs"), 1);
    assert_eq!(gh.writes().len(), 11, "refused writes count too");
}

#[tokio::test]
async fn a_manifest_code_converts_once() {
    let gh = FakeGitHub::start().await;
    gh.seed(|m| {
        m.add_manifest_code(
            "abc123",
            fake_github::ManifestConversion {
                app_id: 99,
                slug: "gitlore-acme".to_string(),
                name: "gitlore (acme)".to_string(),
                owner: "acme".to_string(),
                pem: fake_github::test_private_key_pem(),
                public_key_pem: fake_github::test_public_key_pem(),
                webhook_secret: "whsec".to_string(),
                client_id: "Iv1.abc".to_string(),
                client_secret: "shh".to_string(),
            },
        );
        m.add_installation(INSTALLATION, "acme", &[REPO]);
    });
    let url = format!("{}/app-manifests/abc123/conversions", gh.base_url());
    let first = http().post(&url).send().await.expect("post");
    assert_eq!(first.status(), StatusCode::CREATED);
    let app: Value = first.json().await.expect("json");
    openapi::assert_conforms("POST", "/app-manifests/{code}/conversions", 201, &app);
    assert_eq!(
        (app["id"].as_i64(), app["webhook_secret"].as_str()),
        (Some(99), Some("whsec"))
    );
    assert_eq!(
        http().post(&url).send().await.expect("post").status(),
        StatusCode::NOT_FOUND
    );
    // The converted App's key now signs valid JWTs.
    assert_eq!(
        exchange(&gh, INSTALLATION, &jwt(&gh, -60, 540, 99))
            .await
            .status(),
        StatusCode::CREATED
    );
}

#[tokio::test]
async fn the_dotcom_layout_serves_rest_at_the_root_and_graphql_at_slash_graphql() {
    let gh = FakeGitHub::start_dotcom_layout().await;
    gh.with_test_app(APP_ID, "gitlore");
    gh.seed(|m| m.add_installation(INSTALLATION, "acme", &[REPO]));
    assert_eq!(gh.base_url(), gh.origin());
    assert_eq!(gh.graphql_url(), format!("{}/graphql", gh.origin()));
    let token = token(&gh, INSTALLATION).await;
    assert_eq!(
        get(&gh, Some(&token), "/repos/acme/widgets").await.status(),
        StatusCode::OK
    );
    let answer = graphql(
        &gh,
        &token,
        "{ repository(owner: \"acme\", name: \"widgets\") { nameWithOwner } }",
        json!({}),
    )
    .await;
    assert_eq!(answer["data"]["repository"]["nameWithOwner"], REPO);
}

#[tokio::test]
async fn the_apps_deliveries_list_newest_first_by_cursor_and_one_is_sent_again_when_asked() {
    let gh = fake().await;
    let nobody_listens = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let target = format!("http://{}/webhook", nobody_listens.local_addr().unwrap());
    drop(nobody_listens);
    gh.set_hook_target(&target, "secret");
    let hook = gh.installation_event("created", INSTALLATION);
    for _ in 0..3 {
        let attempt = gh.deliver_hook(&hook).await;
        assert_eq!(
            (attempt.status.as_str(), attempt.status_code),
            ("failed to connect to host", 0)
        );
    }
    let attempts = gh.hook_attempts();
    let app_jwt = jwt(&gh, -60, 540, APP_ID);
    let list = |url: String| http().get(url).bearer_auth(&app_jwt).send();
    let first = list(format!("{}/app/hook/deliveries?per_page=2", gh.base_url()))
        .await
        .expect("GET");
    let next = header(&first, "link").expect("a Link to the next page");
    let first: Value = first.json().await.expect("json");
    openapi::assert_conforms("GET", "/app/hook/deliveries", 200, &first);
    let ids = |page: &Value| -> Vec<i64> {
        let items = page.as_array().expect("array").iter();
        items.map(|item| item["id"].as_i64().unwrap()).collect()
    };
    assert_eq!(
        ids(&first),
        [attempts[2].id, attempts[1].id],
        "newest first"
    );
    assert_eq!(first[0]["installation_id"], INSTALLATION);
    let next_url = next
        .strip_prefix('<')
        .and_then(|rest| rest.split_once(">; rel=\"next\""))
        .expect("rel=next")
        .0;
    assert!(next_url.contains("cursor="), "{next_url}");
    let last = list(next_url.to_string()).await.expect("GET");
    assert!(header(&last, "link").is_none(), "the last page");
    assert_eq!(ids(&last.json().await.expect("json")), [attempts[0].id]);

    let unsigned = http()
        .post(format!(
            "{}/app/hook/deliveries/{}/attempts",
            gh.base_url(),
            attempts[0].id
        ))
        .send()
        .await
        .expect("POST");
    assert_eq!(unsigned.status(), StatusCode::UNAUTHORIZED);
    let asked = http()
        .post(format!(
            "{}/app/hook/deliveries/{}/attempts",
            gh.base_url(),
            attempts[0].id
        ))
        .bearer_auth(&app_jwt)
        .send()
        .await
        .expect("POST");
    assert_eq!(asked.status(), StatusCode::ACCEPTED);
    openapi::assert_conforms(
        "POST",
        "/app/hook/deliveries/{delivery_id}/attempts",
        202,
        &asked.json().await.expect("json"),
    );
    assert_eq!(gh.redelivery_requests(), [attempts[0].id]);
    let mut sent_again = None;
    for _ in 0..100 {
        sent_again = gh.hook_attempts().get(3).cloned();
        if sent_again.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let sent_again = sent_again.expect("the redelivery was attempted");
    assert_eq!(
        (sent_again.guid.as_str(), sent_again.redelivery),
        (attempts[0].guid.as_str(), true)
    );
}

#[tokio::test]
async fn open_pull_requests_list_newest_first_and_read_as_github_describes_them() {
    let gh = fake().await;
    let (merged, older, newer) = gh.seed(|m| {
        let merged = m.add_merged_pull(REPO, "merged", "erin").number;
        m.now_ms += 1_000;
        let older = m.add_open_pull(REPO, "older", "erin").number;
        m.now_ms += 1_000;
        let newer = m.add_open_pull(REPO, "newer", "erin").number;
        (merged, older, newer)
    });
    let token = token(&gh, INSTALLATION).await;
    let read = |path: String| {
        let (gh, token) = (&gh, token.clone());
        async move {
            let response = get(gh, Some(&token), &format!("/repos/acme/widgets{path}")).await;
            assert_eq!(response.status(), StatusCode::OK, "{path}");
            response.json::<Value>().await.expect("json")
        }
    };
    let open = read("/pulls?state=open&sort=created&direction=desc&per_page=30".into()).await;
    openapi::assert_conforms("GET", "/repos/{owner}/{repo}/pulls", 200, &open);
    let numbers: Vec<u64> = open
        .as_array()
        .expect("array")
        .iter()
        .map(|p| p["number"].as_u64().expect("number"))
        .collect();
    assert_eq!(numbers, [newer, older], "open ones, the newest first");
    let one = read(format!("/pulls/{merged}")).await;
    openapi::assert_conforms(
        "GET",
        "/repos/{owner}/{repo}/pulls/{pull_number}",
        200,
        &one,
    );
    assert_eq!(
        (one["state"].as_str(), one["merged"].as_bool()),
        (Some("closed"), Some(true))
    );
}
