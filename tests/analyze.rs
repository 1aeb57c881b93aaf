//! `gitlore analyze` as a user runs it: the real binary on git repositories built in temp dirs,
//! with review comments from a `--reviews` file (the shared corpus, so there are real themes) or
//! from the fake GitHub with a token, and the bundled example, which needs no repository.

mod common;
mod fake_github;

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;

use serde_json::{Value, json};

use common::APP_ID;
use common::cli::{REVIEWERS, THEME_FILES, gitlore_command};
use common::corpus::{THEMES, UNRELATED};
use common::git::git;
use common::snapshot::line_containing;
use fake_github::FakeGitHub;
use gitlore::clock::ManualClock;
use gitlore::domain::markers::FINDINGS_MARKER;
use gitlore::domain::{InstallationId, Secret, UnixMs};
use gitlore::github::auth::AppKey;
use gitlore::github::client::{GitHub, TokioPause};
use gitlore::knowledge::synthesize::answer::parse_findings;

/// Runs `gitlore` with a clean environment plus `env`, in `home`.
fn gitlore(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = gitlore_command(home, args);
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A repository with the corpus's files, changed in a few commits of 2021 (old on purpose: the
/// window ends at the newest input, not today).
fn repository(dir: &Path) -> PathBuf {
    let repo = dir.join("widgets");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"], "2021-01-01T00:00:00Z");
    for (round, day) in ["2021-03-01", "2021-04-01", "2021-05-01"]
        .iter()
        .enumerate()
    {
        for file in THEME_FILES {
            let path = repo.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, format!("// {file}, version {round}\n")).unwrap();
        }
        git(&repo, &["add", "-A"], day);
        let subject = if round == 2 {
            "fix: handle an empty config"
        } else {
            "feat: widgets"
        };
        git(
            &repo,
            &["commit", "-q", "-m", subject],
            &format!("{day}T10:00:00Z"),
        );
    }
    repo
}

/// One `--reviews` line.
fn line(id: &str, pr: i64, author: &str, body: &str, path: Option<&str>, day: u32) -> Value {
    let mut line = json!({
        "id": id, "pr": pr, "author": author, "body": body,
        "created_at": format!("2021-05-{day:02}T12:00:00Z"),
    });
    if let Some(path) = path {
        line["kind"] = json!("inline");
        line["path"] = json!(path);
        line["line"] = json!(3);
        line["url"] = json!(format!("https://github.com/acme/widgets/pull/{pr}#r-{id}"));
    }
    line
}

/// The corpus as a reviews file: each theme's comments inline on its file across eight PRs,
/// the unrelated remarks in the conversation, plus a bot's comment and a trivial one. Returns the
/// file and every id in it.
fn reviews_file(dir: &Path) -> (PathBuf, Vec<String>) {
    let mut lines = Vec::new();
    for (t, theme) in THEMES.iter().enumerate() {
        for (i, body) in theme.iter().enumerate() {
            let id = format!("theme{t}-{i}");
            let author = REVIEWERS[(t + i) % REVIEWERS.len()];
            let pr = 10 + i as i64;
            let day = 1 + (t * 3 + i) as u32 % 28;
            lines.push(line(&id, pr, author, body, Some(THEME_FILES[t]), day));
        }
    }
    for (i, body) in UNRELATED.iter().enumerate() {
        let author = format!("passer{i}");
        lines.push(line(
            &format!("other-{i}"),
            30 + i as i64,
            &author,
            body,
            None,
            20,
        ));
    }
    let mut bot = line(
        "bot-1",
        40,
        "ci-helper[bot]",
        "Coverage went down by 0.2%.",
        None,
        21,
    );
    bot["author_type"] = json!("Bot");
    lines.push(bot);
    lines.push(line("lgtm-1", 41, "ana", "LGTM", None, 22));
    let ids = lines
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let file = dir.join("reviews.jsonl");
    std::fs::write(&file, body).unwrap();
    (file, ids)
}

/// The repository and reviews file of most tests, and `analyze` run on them with `extra` args.
fn analyze_corpus(extra: &[&str]) -> (tempfile::TempDir, Output, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let repo = repository(dir.path());
    let (reviews, ids) = reviews_file(dir.path());
    let mut args = vec![
        "analyze",
        repo.to_str().unwrap(),
        "--reviews",
        reviews.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = gitlore(dir.path(), &args, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    (dir, out, ids)
}

fn keys(value: &Value) -> BTreeSet<&str> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect()
}

fn set(names: &[&'static str]) -> BTreeSet<&'static str> {
    names.iter().copied().collect()
}

#[test]
fn markdown_output_is_the_issue_body_with_findings_and_evidence() {
    let (_dir, out, _) = analyze_corpus(&[]);
    let body = text(&out.stdout);
    assert!(body.starts_with(FINDINGS_MARKER), "{body}");
    assert!(
        body.contains("from 48 review comments by 11 reviewers on 16 pull requests"),
        "the bot's and the trivial comment are left out: {body}"
    );
    assert!(body.contains("<summary>Evidence ("), "{body}");
    assert!(
        body.contains("(https://redirect.github.com/acme/widgets/pull/"),
        "review comments link to their URL, quietly: {body}"
    );
    assert!(
        body.contains("- [ ] Dismiss <!-- gitlore:dismiss f-"),
        "{body}"
    );
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("analyze: 50 review comments read"),
        "{stderr}"
    );
    assert!(
        stderr.contains("findings from"),
        "progress on stderr: {stderr}"
    );
}

#[test]
fn json_output_has_the_exact_shape_and_the_input_ids() {
    let (_dir, out, ids) = analyze_corpus(&["--format", "json"]);
    let output: Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON object");
    assert_eq!(
        keys(&output),
        set(&["comments", "themes", "findings", "effect"])
    );
    assert_eq!(
        keys(&output["effect"]),
        set(&["lessons", "summary"]),
        "whether the lessons help"
    );

    let comments = output["comments"].as_array().unwrap();
    let listed: Vec<&str> = comments.iter().map(|c| c["id"].as_str().unwrap()).collect();
    let expected: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    assert_eq!(listed.iter().copied().collect::<BTreeSet<_>>(), expected);
    assert_eq!(listed.len(), ids.len());
    for comment in comments {
        assert_eq!(
            keys(comment),
            set(&["id", "labels", "noise", "labelled_by"])
        );
        assert_eq!(comment["labelled_by"], "builtin", "no model is configured");
        assert!(
            comment["labels"]
                .as_array()
                .unwrap()
                .iter()
                .all(Value::is_string)
        );
    }
    let noise = |id: &str| {
        comments
            .iter()
            .find(|c| c["id"] == id)
            .map(|c| c["noise"].clone())
            .unwrap()
    };
    assert_eq!(noise("bot-1"), json!("bot"));
    assert_eq!(noise("lgtm-1"), json!("trivial"));
    assert_eq!(noise("theme0-0"), Value::Null);
    let unwrap_labels = &comments.iter().find(|c| c["id"] == "theme0-0").unwrap()["labels"];
    assert!(
        !unwrap_labels.as_array().unwrap().is_empty(),
        "{unwrap_labels}"
    );

    let themes = output["themes"].as_array().unwrap();
    assert!(themes.len() >= 3, "{themes:?}");
    for theme in themes {
        assert_eq!(keys(theme), set(&["id", "label", "comment_ids"]));
        assert!(theme["id"].as_str().unwrap().starts_with("t-"));
        let members = theme["comment_ids"].as_array().unwrap();
        assert!(members.len() >= 2);
        assert!(
            members
                .iter()
                .all(|m| expected.contains(m.as_str().unwrap())),
            "{theme}"
        );
    }

    let findings = output["findings"].as_array().unwrap();
    assert!(!findings.is_empty());
    let mut cited = 0;
    for finding in findings {
        assert_eq!(
            keys(finding),
            set(&[
                "id", "category", "severity", "title", "insight", "files", "evidence"
            ])
        );
        assert!(["high", "medium", "low"].contains(&finding["severity"].as_str().unwrap()));
        assert!(
            finding["files"]
                .as_array()
                .unwrap()
                .iter()
                .all(Value::is_string)
        );
        for evidence in finding["evidence"].as_array().unwrap() {
            assert_eq!(keys(evidence), set(&["kind", "id", "text"]));
            let kind = evidence["kind"].as_str().unwrap();
            assert!(
                ["comment", "commit", "file", "stat"].contains(&kind),
                "{evidence}"
            );
            if kind == "comment" {
                let id = evidence["id"].as_str().unwrap();
                assert!(expected.contains(id), "cites an input id: {evidence}");
                cited += 1;
            }
        }
    }
    assert!(cited >= 2, "{findings:?}");
}

#[test]
fn xml_output_parses_back_into_the_same_findings() {
    let (_dir, xml_out, ids) = analyze_corpus(&["--format", "xml"]);
    let xml = text(&xml_out.stdout);
    let parsed = parse_findings(&xml).expect("the findings XML parses");
    let (_dir2, json_out, _) = analyze_corpus(&["--format", "json"]);
    let json: Value = serde_json::from_slice(&json_out.stdout).unwrap();
    let from_json: Vec<(&str, &str)> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["id"].as_str().unwrap(), f["title"].as_str().unwrap()))
        .collect();
    let from_xml: Vec<(&str, &str)> = parsed
        .iter()
        .map(|f| (f.id.as_str(), f.title.as_str()))
        .collect();
    assert!(!from_xml.is_empty());
    assert_eq!(from_xml, from_json, "one run's findings are the other's");
    let ids: HashSet<&str> = ids.iter().map(String::as_str).collect();
    for finding in &parsed {
        assert!(!finding.category.is_empty() && !finding.severity.is_empty());
        for (kind, id) in &finding.refs {
            if kind == "comment" {
                assert!(ids.contains(id.as_str()), "{id}");
            }
        }
    }
}

#[test]
fn a_kept_data_dir_reads_only_new_commits_and_keeps_the_findings() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repository(dir.path());
    let (reviews, _) = reviews_file(dir.path());
    let data = dir.path().join("data");
    let args = [
        "analyze",
        repo.to_str().unwrap(),
        "--reviews",
        reviews.to_str().unwrap(),
        "--format",
        "json",
        "--data-dir",
        data.to_str().unwrap(),
    ];
    let first = gitlore(dir.path(), &args, &[]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert!(
        text(&first.stderr).contains("3 commits analysed (3 read from git)"),
        "{}",
        text(&first.stderr)
    );
    assert!(data.join("gitlore.db").exists());
    let second = gitlore(dir.path(), &args, &[]);
    assert!(second.status.success(), "{}", text(&second.stderr));
    assert!(
        text(&second.stderr).contains("3 commits analysed (0 read from git)"),
        "{}",
        text(&second.stderr)
    );
    let findings = |out: &Output| {
        let value: Value = serde_json::from_slice(&out.stdout).unwrap();
        value["findings"].clone()
    };
    assert_eq!(findings(&first), findings(&second));
}

#[test]
fn the_window_ends_at_the_newest_input_and_counts_back_from_there() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repository(dir.path());
    // Theme 0 was discussed in 2019, themes 1 and 2 in May 2021: a year back from the newest
    // comment holds themes 1 and 2 (a year back from today would hold nothing), everything
    // holds all three.
    let mut lines = Vec::new();
    for (t, year) in [(0, 2019), (1, 2021), (2, 2021)] {
        for (i, body) in THEMES[t].iter().enumerate() {
            let mut line = line(
                &format!("theme{t}-{i}"),
                10 + i as i64,
                REVIEWERS[i % 3],
                body,
                Some(THEME_FILES[t]),
                1 + i as u32,
            );
            line["created_at"] = json!(format!("{year}-05-{:02}T12:00:00Z", 1 + i));
            lines.push(line.to_string());
        }
    }
    let file = dir.path().join("reviews.jsonl");
    std::fs::write(&file, lines.join("\n")).unwrap();
    let themes = |months: &str| {
        let out = gitlore(
            dir.path(),
            &[
                "analyze",
                repo.to_str().unwrap(),
                "--reviews",
                file.to_str().unwrap(),
                "--format",
                "json",
                "--window-months",
                months,
            ],
            &[],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        let output: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut prefixes: Vec<String> = output["themes"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|t| t["comment_ids"].as_array().unwrap().clone())
            .map(|id| id.as_str().unwrap()[..6].to_string())
            .collect();
        prefixes.sort();
        prefixes.dedup();
        prefixes
    };
    assert_eq!(themes("12"), ["theme1", "theme2"]);
    assert_eq!(themes("0"), ["theme0", "theme1", "theme2"]);
}

#[test]
fn a_reviews_pr_author_is_stored_and_tells_the_authors_own_replies() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repository(dir.path());
    let mut opened = line(
        "a",
        5,
        "bo",
        "This unwrap panics on an empty body.",
        None,
        3,
    );
    opened["pr_author"] = json!("ana");
    let lines = [
        opened,
        // One line of PR 5 naming its author is enough.
        line("b", 5, "ana", "Done, it returns an error now.", None, 4),
        line("c", 6, "ana", "Why a Vec and not a slice?", None, 5),
    ];
    let file = dir.path().join("reviews.jsonl");
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, body).unwrap();
    let data = dir.path().join("data");
    let out = gitlore(
        dir.path(),
        &[
            "analyze",
            repo.to_str().unwrap(),
            "--reviews",
            file.to_str().unwrap(),
            "--data-dir",
            data.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let db = gitlore::store::Store::open(&data.join("gitlore.db"))
        .unwrap()
        .reader()
        .unwrap();
    let authors: Vec<(i64, Option<String>)> = db
        .prepare("SELECT number, author_login FROM pull_requests ORDER BY number")
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<gitlore::store::sql::Result<_>>()
        .unwrap();
    assert_eq!(authors, [(5, Some("ana".to_string())), (6, None)]);
    let by_pr_author: Vec<(String, bool)> =
        gitlore::store::inputs::list(&db, gitlore::analyze::reviews::local_repo("x").id)
            .unwrap()
            .iter()
            .map(|c| (c.author_login.clone(), c.by_pr_author()))
            .collect();
    assert_eq!(
        by_pr_author,
        [
            ("bo".to_string(), false),
            ("ana".to_string(), true),
            ("ana".to_string(), false)
        ]
    );
}

#[test]
fn a_bad_reviews_line_is_one_sentence_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repository(dir.path());
    let file = dir.path().join("reviews.jsonl");
    std::fs::write(
        &file,
        "{\"id\": \"a\", \"pr\": 1, \"author\": \"ana\", \"body\": \"Fine.\"}\n{\"id\": \"b\", \"pr\": 1}\n",
    )
    .unwrap();
    let out = gitlore(
        dir.path(),
        &[
            "analyze",
            repo.to_str().unwrap(),
            "--reviews",
            file.to_str().unwrap(),
        ],
        &[],
    );
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(
        stderr.contains("line 2: not a review comment object"),
        "{stderr}"
    );
    assert!(stderr.contains("missing field `author`"), "{stderr}");
}

#[test]
fn a_directory_that_is_not_a_repository_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    std::fs::create_dir(&plain).unwrap();
    let out = gitlore(dir.path(), &["analyze", plain.to_str().unwrap()], &[]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("is not a git repository"), "{stderr}");
}

#[test]
fn a_repository_without_commits_or_reviews_gives_an_empty_issue() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("empty");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q"], "2021-01-01T00:00:00Z");
    let out = gitlore(dir.path(), &["analyze", repo.to_str().unwrap()], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body = text(&out.stdout);
    assert!(body.starts_with(FINDINGS_MARKER), "{body}");
    assert!(body.contains("**0 findings**"), "{body}");
    let out = gitlore(
        dir.path(),
        &["analyze", repo.to_str().unwrap(), "--format", "json"],
        &[],
    );
    let output: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        output,
        json!({"comments": [], "themes": [], "findings": [],
               "effect": {"lessons": [], "summary": null}})
    );
}

#[test]
fn github_without_a_token_says_what_to_set() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repository(dir.path());
    let out = gitlore(
        dir.path(),
        &[
            "analyze",
            repo.to_str().unwrap(),
            "--github",
            "acme/widgets",
        ],
        &[],
    );
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--github needs GITHUB_TOKEN"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_with_a_token_reads_the_review_comments() {
    let gh = FakeGitHub::start().await;
    gh.with_test_app(APP_ID, "gitlore");
    let ids = gh.seed(|m| {
        m.add_installation(7, "acme", &["acme/widgets"]);
        let mut ids = Vec::new();
        for (t, theme) in THEMES.iter().enumerate().take(2) {
            for (i, body) in theme.iter().enumerate() {
                let number = m
                    .add_merged_pull("acme/widgets", &format!("Change {t}.{i}"), "dev")
                    .number;
                let author = REVIEWERS[i % REVIEWERS.len()];
                let thread = m.add_thread("acme/widgets", number, THEME_FILES[t], 3, author, body);
                ids.push(m.repo("acme/widgets").pulls[&number].threads[thread].comments[0].id);
            }
        }
        ids.push(m.add_issue_comment("acme/widgets", 1, "dee", UNRELATED[0]));
        ids
    });
    // A token the fake accepts; to gitlore it is an opaque personal token.
    let clock = Arc::new(ManualClock::new(UnixMs(gh.now_ms())));
    let key = AppKey::new(APP_ID, &Secret::new(fake_github::test_private_key_pem())).unwrap();
    let app = GitHub::new(&gh.base_url(), key, clock, Arc::new(TokioPause)).unwrap();
    let token = app.installation_token(InstallationId(7)).await.unwrap();

    let dir = tempfile::tempdir().unwrap();
    let repo = repository(dir.path());
    let api_url = gh.base_url();
    let token = token.expose().to_string();
    let out = tokio::task::spawn_blocking(move || {
        let out = gitlore(
            dir.path(),
            &[
                "analyze",
                repo.to_str().unwrap(),
                "--github",
                "acme/widgets",
                "--format",
                "json",
            ],
            &[
                ("GITHUB_TOKEN", &token),
                ("GITLORE_GITHUB_API_URL", &api_url),
            ],
        );
        (out, dir)
    })
    .await
    .unwrap()
    .0;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let output: Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed: BTreeSet<String> = output["comments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    let expected: BTreeSet<String> = ids.iter().map(i64::to_string).collect();
    assert_eq!(listed, expected, "the GitHub ids of the comments");
    assert!(!output["themes"].as_array().unwrap().is_empty(), "{output}");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("from GitHub"), "{stderr}");
}

#[test]
fn a_reader_that_stops_early_is_no_error() {
    // `gitlore analyze … | head -3`: the reader is gone before the output is written.
    let dir = tempfile::tempdir().unwrap();
    let repo = repository(dir.path());
    let mut child = gitlore_command(dir.path(), &["analyze", repo.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A model over both protocols: it calls every comment containing "LGTM" noise and labels the
/// others `testing`, and answers anything else (the synthesizer) with prose, as a weak model does.
async fn weak_model() -> String {
    use axum::routing::post;
    async fn answer(body: String) -> String {
        let request: Value = serde_json::from_str(&body).unwrap();
        let anthropic = request.get("system").is_some();
        let last = request["messages"].as_array().unwrap().last().unwrap()["content"]
            .as_str()
            .unwrap()
            .to_string();
        let text: String = if last.starts_with("Label each of these review comments") {
            last.split("<comment id=\"")
                .skip(1)
                .map(|rest| {
                    let id = rest.split('"').next().unwrap();
                    let body = rest.split("</comment>").next().unwrap();
                    let label = if body.contains("LGTM") {
                        "noise"
                    } else {
                        "testing"
                    };
                    format!("<c id=\"{id}\"><label>{label}</label></c>")
                })
                .collect()
        } else {
            "Sure! The team cares about quality.".to_string()
        };
        if anthropic {
            json!({"content": [{"type": "text", "text": text}], "usage": {"input_tokens": 10, "output_tokens": 5}})
        } else {
            json!({"choices": [{"message": {"role": "assistant", "content": text}}], "usage": {"prompt_tokens": 10, "completion_tokens": 5}})
        }
        .to_string()
    }
    let app = axum::Router::new()
        .route("/v1/chat/completions", post(answer))
        .route("/v1/messages", post(answer));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{address}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_weak_model_on_either_protocol_ends_in_a_report_naming_the_fallback() {
    let base = weak_model().await;
    for (provider, url) in [
        ("openai", format!("{base}/v1")),
        ("anthropic", base.clone()),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let repo = repository(dir.path());
        let (reviews, ids) = reviews_file(dir.path());
        let mut lines = std::fs::read_to_string(&reviews).unwrap();
        lines.push_str(&format!(
            "{}\n",
            line("thanks-1", 90, "maria", "Thanks!", None, 20)
        ));
        std::fs::write(&reviews, lines).unwrap();
        let env = [
            ("GITLORE_LLM_PROVIDER", provider),
            ("GITLORE_LLM_BASE_URL", url.as_str()),
            ("GITLORE_LLM_MODEL", "tiny"),
        ];
        let args = [
            "analyze",
            repo.to_str().unwrap(),
            "--reviews",
            reviews.to_str().unwrap(),
        ];
        let md = tokio::task::block_in_place(|| gitlore(dir.path(), &args, &env));
        assert!(md.status.success(), "{provider}: {}", text(&md.stderr));
        let body = text(&md.stdout);
        assert!(
            body.contains("LLM synthesizer") && body.contains("built-in findings are shown"),
            "{provider}: the fallback is named\n{body}"
        );
        let json_args = [&args[..], &["--format", "json"]].concat();
        let out = tokio::task::block_in_place(|| gitlore(dir.path(), &json_args, &env));
        let output: Value = serde_json::from_slice(&out.stdout).unwrap();
        let comment = |id: &str| {
            output["comments"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["id"] == id)
                .unwrap()
                .clone()
        };
        let tag = format!(
            "{provider}/tiny/{}",
            gitlore::knowledge::classify::llm::prompt_version()
        );
        let substantive = comment(&ids[0]);
        assert_eq!(
            substantive["labels"],
            json!(["testing"]),
            "{provider}: the model's labels"
        );
        assert_eq!(substantive["labelled_by"], tag.as_str());
        let ack = comment("lgtm-1");
        assert_eq!(
            ack["noise"], "trivial",
            "{provider}: the model's noise verdict"
        );
        assert_eq!(ack["labelled_by"], tag.as_str());
        let thanks = comment("thanks-1");
        assert_eq!(
            (&thanks["noise"], &thanks["labels"]),
            (&Value::Null, &json!(["testing"])),
            "{provider}: what the filter called trivial, the model may keep"
        );
        let bot = comment("bot-1");
        assert_eq!(
            (&bot["noise"], &bot["labelled_by"]),
            (&json!("bot"), &json!("builtin")),
            "{provider}: a bot's comment never reaches the model"
        );
    }
}

/// The bundled example's comment ids, read from the corpus file it embeds.
fn bundled_ids() -> HashSet<String> {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/corpus/home-assistant__core.jsonl"
    );
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["id"].to_string())
        .map(|id| id.trim_matches('"').to_string())
        .collect()
}

#[test]
fn the_example_finds_lessons_whose_evidence_cites_the_bundled_comments() {
    // Run where there is no repository at all: the example needs none.
    let dir = tempfile::tempdir().unwrap();
    let args = ["analyze", "--example", "home-assistant", "--format", "json"];
    let out = gitlore(dir.path(), &args, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let output: Value = serde_json::from_slice(&out.stdout).unwrap();
    let bundled = bundled_ids();
    let cited: Vec<Vec<&str>> = output["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| {
            let evidence = finding["evidence"].as_array().unwrap();
            evidence
                .iter()
                .filter(|e| e["kind"] == "comment")
                .map(|e| e["id"].as_str().unwrap())
                .collect()
        })
        .collect();
    assert!(
        cited
            .iter()
            .any(|ids| ids.len() >= 2 && ids.iter().all(|id| bundled.contains(*id))),
        "a finding cites two or more bundled comments: {cited:?}"
    );
}

/// The arguments of the README's first command (`cargo run --release -- ARGS  # what it does`).
fn readme_first_command() -> Vec<String> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let line = readme
        .lines()
        .find_map(|line| line.strip_prefix("cargo run --release -- "))
        .expect("a command in the README");
    let command = line.split('#').next().unwrap();
    command.split_whitespace().map(str::to_string).collect()
}

#[test]
fn the_readmes_first_command_says_what_it_is_and_ends_with_where_to_go_next() {
    let dir = tempfile::tempdir().unwrap();
    let args = readme_first_command();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(args, ["analyze", "--example", "home-assistant"]);
    let out = gitlore(dir.path(), &args, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body = text(&out.stdout);
    assert!(body.starts_with(FINDINGS_MARKER), "{body}");
    assert!(
        body.contains("(https://redirect.github.com/home-assistant/core/pull/"),
        "evidence links to the comments' pull requests: {body}"
    );
    expect_test::expect![[r#"
        > **Note:** gitlore learns a team's lessons from its pull-request reviews. This example is what it would publish for home-assistant/core from 64 of its real review comments (public threads, quoted from gitlore's corpus: tests/fixtures/corpus/README.md), offline, with the built-in components.
    "#]]
    .assert_eq(&format!("{}\n", line_containing(&body, "**Note:**")));
    expect_test::expect![[r#"
        Next: your own repository's reviews with `GITHUB_TOKEN=… gitlore analyze PATH --github owner/name`, or the App on GitHub with `gitlore setup` (README: "Register the app").
    "#]]
    .assert_eq(&format!("{}\n", body.lines().last().unwrap()));
}

#[test]
fn the_example_ignores_a_configured_model() {
    // A model that cannot be reached: the example never asks it, so nothing falls back.
    let dir = tempfile::tempdir().unwrap();
    let model = [
        ("GITLORE_LLM_PROVIDER", "openai"),
        ("GITLORE_LLM_BASE_URL", "http://127.0.0.1:9/v1"),
        ("GITLORE_LLM_MODEL", "absent"),
        ("GITLORE_LLM_API_KEY", "key"),
    ];
    let args = ["analyze", "--example", "rails"];
    let with_model = gitlore(dir.path(), &args, &model);
    assert!(with_model.status.success(), "{}", text(&with_model.stderr));
    let built_in = gitlore(dir.path(), &args, &[]);
    // The same issue, notes included (a model's failure would be one), but for its update time.
    let timeless = |out: &Output| {
        let body = text(&out.stdout);
        body.lines()
            .filter(|line| !line.contains(" UTC."))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(timeless(&with_model), timeless(&built_in));
}

#[test]
fn a_data_dir_belongs_to_the_repository_it_was_made_for() {
    let dir = tempfile::tempdir().unwrap();
    let widgets = repository(dir.path());
    let gadgets = dir.path().join("gadgets");
    std::fs::create_dir(&gadgets).unwrap();
    git(&gadgets, &["init", "-q"], "2021-01-01T00:00:00Z");
    let data = dir.path().join("data");
    let analyze = |repo: &Path| {
        let args = ["analyze", repo.to_str().unwrap(), "--data-dir"];
        gitlore(
            dir.path(),
            &[&args[..], &[data.to_str().unwrap()]].concat(),
            &[],
        )
    };
    let first = analyze(&widgets);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let second = analyze(&gadgets);
    assert!(
        !second.status.success(),
        "gadgets analysed in widgets' store"
    );
    let stderr = text(&second.stderr).replace(data.to_str().unwrap(), "DATA");
    expect_test::expect![[r#"
        error: The data directory DATA holds the analysis of local/widgets, not of local/gadgets: give each repository its own --data-dir
    "#]].assert_eq(&stderr);
    assert!(
        analyze(&widgets).status.success(),
        "its own repository again"
    );
}

#[test]
fn a_clone_of_a_github_repository_is_stored_under_its_github_name() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repository(dir.path());
    let origin = "https://github.com/acme/widgets.git";
    git(
        &repo,
        &["remote", "add", "origin", origin],
        "2021-06-01T00:00:00Z",
    );
    let (reviews, _) = reviews_file(dir.path());
    let data = dir.path().join("data");
    let data = data.to_str().unwrap();
    let args = [
        "analyze",
        repo.to_str().unwrap(),
        "--reviews",
        reviews.to_str().unwrap(),
    ];
    let out = gitlore(
        dir.path(),
        &[&args[..], &["--data-dir", data]].concat(),
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = export_md(dir.path(), data);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("acme/widgets"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn a_shallow_clone_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repository(dir.path());
    let shallow = dir.path().join("shallow");
    let source = format!("file://{}", repo.display());
    let clone = [
        "clone",
        "-q",
        "--depth",
        "1",
        &source,
        shallow.to_str().unwrap(),
    ];
    git(dir.path(), &clone, "2021-06-01T00:00:00Z");
    let out = gitlore(dir.path(), &["analyze", shallow.to_str().unwrap()], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr).replace(shallow.to_str().unwrap(), "PATH");
    expect_test::expect!["analyze: warning: PATH is a shallow clone, so the history figures see only its 1 commit; `git fetch --unshallow` there reads the whole history"].assert_eq(&line_containing(&stderr, "shallow"));
}

#[test]
fn an_uncommitted_config_is_said_to_apply() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repository(dir.path());
    std::fs::create_dir_all(repo.join(".github")).unwrap();
    std::fs::write(
        repo.join(".github/gitlore.toml"),
        "[analysis]\nwindow-months = 0\n",
    )
    .unwrap();
    let out = gitlore(dir.path(), &["analyze", repo.to_str().unwrap()], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    expect_test::expect!["analyze: .github/gitlore.toml differs from the last commit: this run applies the working tree's version (the App reads the one on the default branch)"].assert_eq(&line_containing(&stderr, "gitlore.toml"));
}

#[test]
fn the_summary_counts_the_comments_set_aside_as_noise() {
    let (_dir, out, _) = analyze_corpus(&[]);
    let stderr = text(&out.stderr);
    let summary = line_containing(&stderr, "findings from");
    let counts = &summary[summary.find("from").unwrap()..summary.find(" of ").unwrap()];
    expect_test::expect!["from 48 review comments (2 more set aside as noise)"].assert_eq(counts);
}

/// A history-only run over code, a changelog, a lockfile and a lint config all changed often,
/// with `src/generated.rs` ignored by the repository's config.
fn history_notes_of_busy_bookkeeping() -> String {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("busy");
    let files = |i: i64| {
        let mut files = vec!["CHANGES.rst", "Cargo.lock", ".pre-commit-config.yaml"];
        files.extend(if i % 2 == 0 {
            ["src/generated.rs", "src/engine.rs"]
        } else {
            ["src/generated.rs"; 2]
        });
        files
    };
    common::git::history(&repo, 1_600_000_000, 30, files);
    std::fs::create_dir_all(repo.join(".github")).unwrap();
    let config = "[analysis]\nignore-paths = [\"src/generated.rs\"]\n";
    std::fs::write(repo.join(".github/gitlore.toml"), config).unwrap();
    git(&repo, &["add", "-A"], "2021-01-01T00:00:00Z");
    git(
        &repo,
        &["commit", "-q", "-m", "Config"],
        "2021-01-01T00:00:00Z",
    );
    let out = gitlore(dir.path(), &["analyze", repo.to_str().unwrap()], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn history_notes_name_code_hotspots_only() {
    let body = history_notes_of_busy_bookkeeping();
    let hotspots: Vec<&str> = body.lines().filter(|l| l.contains("Hotspot:")).collect();
    expect_test::expect![[r#"
        [
            "> **Note:** Hotspot: src/engine.rs changed in 15 commits, 0 of them fixes (0%), last on 2020-10-11.",
        ]
    "#]].assert_debug_eq(&hotspots);
}

#[test]
fn a_store_named_after_the_directory_takes_the_github_name_once_known() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repository(dir.path());
    let data = dir.path().join("data");
    let data = data.to_str().unwrap();
    let analyze = ["analyze", repo.to_str().unwrap(), "--data-dir", data];
    assert!(gitlore(dir.path(), &analyze, &[]).status.success());
    let origin = "git@github.com:acme/widgets.git";
    git(
        &repo,
        &["remote", "add", "origin", origin],
        "2021-06-01T00:00:00Z",
    );
    let out = gitlore(dir.path(), &analyze, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = export_md(dir.path(), data);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn the_example_replays_a_model_s_recorded_answers_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let cassettes = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cassettes");
    let args = [
        "analyze",
        "--example",
        "home-assistant",
        "--recorded",
        cassettes,
    ];
    let out = gitlore(dir.path(), &args, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let body = text(&out.stdout);
    assert!(
        line_containing(&body, "Recorded, not live").contains("**Note:**"),
        "{body}"
    );
    assert!(
        !body.contains("built-in findings are shown") && !body.contains("no usable labels"),
        "every request found its recorded answer, nothing fell back: {body}"
    );
    assert!(body.contains("### "), "the model's findings: {body}");
}

/// `gitlore export --repo acme/widgets --format md` of the store in `data`, run in `home`.
fn export_md(home: &Path, data: &str) -> Output {
    let export = [
        "export",
        "--repo",
        "acme/widgets",
        "--format",
        "md",
        "--data-dir",
        data,
    ];
    gitlore(home, &export, &[])
}
