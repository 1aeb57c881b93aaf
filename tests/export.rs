//! `gitlore export`, `gitlore lessons` and `gitlore mcp` as a user runs them: the real binary on
//! a store that `gitlore analyze --data-dir` filled from a git repository built in a temp dir and
//! a `--reviews` file (the shared corpus, so there are real themes and findings), with one
//! finding dismissed as a maintainer would. `gitlore mcp` is driven by the MCP SDK's client.

mod common;

use std::collections::BTreeMap;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use quick_xml::events::Event;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ClientRequest,
    ContentBlock, ErrorCode, Implementation, ProtocolVersion, ServerResult,
};
use rmcp::service::{ClientLifecycleMode, RunningService, ServiceError};
use rmcp::{ClientServiceExt, RoleClient};
use serde_json::{Value, json};
use tokio::net::unix::pipe;

use common::cli::{REVIEWERS, THEME_FILES, gitlore_command};
use common::corpus::THEMES;
use common::git::git;
use gitlore::domain::RepoId;
use gitlore::export::agents::AGENT_FILE_LIMIT;
use gitlore::export::section::{BEGIN, END};
use gitlore::knowledge::synthesize::answer::parse_findings;
use gitlore::store::{Store, findings};

/// A file that always changes with `src/db.rs` (and no finding names).
const COUPLED: &str = "migrations/0001.sql";

fn gitlore(home: &Path, args: &[&str]) -> Output {
    command(home, args).output().unwrap()
}

fn command(home: &Path, args: &[&str]) -> Command {
    gitlore_command(home, args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(out: Output) -> String {
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

fn commit(repo: &Path, files: &[&str], version: usize, day: &str) {
    commit_titled(repo, files, version, day, &format!("change {version}"));
}

fn commit_titled(repo: &Path, files: &[&str], version: usize, day: &str, title: &str) {
    for file in files {
        let path = repo.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("-- {file}, version {version}\n")).unwrap();
    }
    git(repo, &["add", "-A"], day);
    git(
        repo,
        &["commit", "-q", "-m", title],
        &format!("{day}T10:00:00Z"),
    );
}

/// The corpus's files changed together three times, `src/db.rs` with [`COUPLED`] four times
/// (two of them fixes), and the README alone six times (so the pair changes together far more
/// often than chance).
fn repository(dir: &Path) -> PathBuf {
    let repo = dir.join("widgets");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"], "2021-01-01T00:00:00Z");
    let mut version = 0;
    let mut next = || {
        version += 1;
        version
    };
    for _ in 0..3 {
        commit(&repo, &THEME_FILES, next(), "2021-03-01");
    }
    for n in 0..4 {
        let version = next();
        let title = if n % 2 == 0 {
            format!("Fix the query of change {version}")
        } else {
            format!("change {version}")
        };
        commit_titled(
            &repo,
            &["src/db.rs", COUPLED],
            version,
            "2021-04-01",
            &title,
        );
    }
    for _ in 0..6 {
        commit(&repo, &["README.md"], next(), "2021-04-15");
    }
    repo
}

/// Each theme's comments inline on its file across eight PRs, with their web pages.
fn reviews_file(dir: &Path) -> PathBuf {
    let mut lines = String::new();
    for (t, theme) in THEMES.iter().enumerate() {
        for (i, body) in theme.iter().enumerate() {
            let pr = 10 + i;
            let line = json!({
                "id": format!("theme{t}-{i}"), "pr": pr,
                "author": REVIEWERS[(t + i) % REVIEWERS.len()], "body": body,
                "created_at": format!("2021-05-{:02}T12:00:00Z", 1 + (t * 3 + i) % 28),
                "kind": "inline", "path": THEME_FILES[t], "line": 3,
                "url": format!("https://github.com/acme/widgets/pull/{pr}#discussion_r{t}{i}"),
            });
            lines.push_str(&format!("{line}\n"));
        }
    }
    let file = dir.join("reviews.jsonl");
    std::fs::write(&file, lines).unwrap();
    file
}

/// A store analysed by `gitlore analyze --data-dir`, with its last finding dismissed.
struct Analysed {
    dir: tempfile::TempDir,
    data: String,
    /// The dismissed finding's id and title.
    dismissed: String,
    dismissed_title: String,
}

impl Analysed {
    fn new() -> Analysed {
        let dir = tempfile::tempdir().unwrap();
        let repo = repository(dir.path());
        let reviews = reviews_file(dir.path());
        let data = dir.path().join("data");
        let args = [
            "analyze",
            repo.to_str().unwrap(),
            "--reviews",
            reviews.to_str().unwrap(),
            "--data-dir",
            data.to_str().unwrap(),
        ];
        ok(gitlore(dir.path(), &args));
        let store = Store::open(&data.join("gitlore.db")).unwrap();
        let listing = findings::load(&store.reader().unwrap(), RepoId(1)).unwrap();
        assert!(listing.active.len() >= 4, "{listing:?}");
        // The lesson about the config file: not one the MCP session asks for.
        let dismissed = listing
            .active
            .iter()
            .find(|f| f.files == ["src/config.rs"])
            .unwrap_or_else(|| panic!("no finding about src/config.rs: {listing:?}"));
        let (dismissed, dismissed_title) = (dismissed.id.clone(), dismissed.title.clone());
        let done =
            store.write(|tx| findings::dismiss(tx, RepoId(1), &dismissed, "ana", 1_700_000_000));
        assert!(done.unwrap());
        Analysed {
            dir,
            data: data.to_str().unwrap().to_string(),
            dismissed,
            dismissed_title,
        }
    }

    fn home(&self) -> &Path {
        self.dir.path()
    }

    fn export(&self, format: &str, out: Option<&Path>) -> String {
        let mut args = vec!["export", "--data-dir", &self.data, "--format", format];
        let out_arg;
        if let Some(out) = out {
            out_arg = out.to_str().unwrap().to_string();
            args.extend(["--out", &out_arg]);
        }
        ok(gitlore(self.home(), &args))
    }

    /// The export JSON's findings.
    fn findings(&self) -> Vec<Value> {
        let json: Value = serde_json::from_str(&self.export("json", None)).unwrap();
        json["findings"].as_array().unwrap().clone()
    }
}

fn files_of(finding: &Value) -> Vec<&str> {
    finding["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect()
}

/// `---`-fenced front matter as key/value pairs (YAML's flat mappings: a double-quoted scalar is
/// unquoted), and the body after it.
fn front_matter(text: &str) -> (BTreeMap<String, String>, String) {
    let rest = text.strip_prefix("---\n").expect("front matter opens");
    let (front, body) = rest.split_once("\n---\n").expect("front matter closes");
    let pairs = front
        .lines()
        .map(|line| {
            let (key, value) = line.split_once(": ").unwrap_or_else(|| panic!("{line}"));
            let value = match value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
                Some(quoted) => {
                    assert!(
                        !quoted.replace("\\\\", "").replace("\\\"", "").contains('"'),
                        "{value}"
                    );
                    quoted.replace("\\\"", "\"").replace("\\\\", "\\")
                }
                None => value.to_string(),
            };
            (key.to_string(), value)
        })
        .collect();
    (pairs, body.to_string())
}

/// Every file under `dir`, relative to it.
fn files_under(dir: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(next).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let name = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_string();
                found.insert(name, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    found
}

#[test]
fn the_human_and_script_formats_hold_every_active_finding_and_parse() {
    let analysed = Analysed::new();
    let findings = analysed.findings();
    assert!(findings.len() >= 3);
    let ids: Vec<&str> = findings.iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert!(
        !ids.contains(&analysed.dismissed.as_str()),
        "dismissed findings never appear"
    );

    // JSON: analyze's shape, plus links and couplings.
    let json: Value = serde_json::from_str(&analysed.export("json", None)).unwrap();
    assert_eq!(json["repo"], "local/widgets");
    let links: Vec<&str> = findings
        .iter()
        .flat_map(|f| f["evidence"].as_array().unwrap())
        .filter_map(|e| e["url"].as_str())
        .collect();
    assert!(
        links
            .iter()
            .all(|l| l.starts_with("https://github.com/acme/widgets/pull/"))
    );
    assert!(!links.is_empty());
    let couplings = json["couplings"].as_array().unwrap();
    assert!(
        couplings
            .iter()
            .any(|c| c["a"] == COUPLED && c["b"] == "src/db.rs"),
        "{couplings:?}"
    );

    // XML: the findings document parses back into the same findings.
    let xml = analysed.export("xml", None);
    let parsed = parse_findings(&xml).unwrap();
    let xml_ids: Vec<&str> = parsed.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(xml_ids, ids);

    // Markdown: every finding with every piece of evidence, nothing left out.
    let md = analysed.export("md", None);
    // Its section is left out (its title, a reviewer's sentence, may still be read in its theme).
    let dismissed_heading = format!("### {}\n", analysed.dismissed_title);
    assert!(!md.contains(&dismissed_heading), "{md}");
    let evidence_lines = md
        .lines()
        .filter(|l| l.starts_with("- review comment") || l.starts_with("- [review comment"))
        .count();
    let comment_evidence = findings
        .iter()
        .flat_map(|f| f["evidence"].as_array().unwrap())
        .filter(|e| e["kind"] == "comment")
        .count();
    assert_eq!(evidence_lines, comment_evidence, "{md}");
    assert_eq!(
        md.matches("\n### ").count(),
        findings.len() + json["themes"].as_array().unwrap().len()
    );
    assert!(
        md.contains("## History\n\n") && md.contains(&format!("- `{COUPLED}` + `src/db.rs`")),
        "the history's figures and couplings: {md}"
    );

    // HTML: well-formed, nothing loaded from outside the page, links only to GitHub (passing
    // on no ranking and no access to the page), evidence folded, the history's figures.
    let html = analysed.export("html", None);
    assert!(!html.contains(&format!("id=\"{}\"", analysed.dismissed)));
    let mut reader = quick_xml::Reader::from_str(&html);
    let (mut sections, mut details, mut links) = (0, 0, 0);
    loop {
        match reader.read_event().expect("the page is well-formed") {
            Event::Eof => break,
            Event::Start(tag) | Event::Empty(tag) => {
                let name = String::from_utf8(tag.name().as_ref().to_vec()).unwrap();
                assert!(
                    !["script", "img", "link", "iframe", "object", "embed", "form"]
                        .contains(&name.as_str()),
                    "<{name}> in the page"
                );
                let mut rel = None;
                for attribute in tag.attributes() {
                    let attribute = attribute.unwrap();
                    let key = String::from_utf8(attribute.key.as_ref().to_vec()).unwrap();
                    let value = attribute.unescape_value().unwrap();
                    if name == "a" && key == "href" {
                        assert!(value.starts_with("https://github.com/"), "{value}");
                        links += 1;
                        continue;
                    }
                    if name == "a" && key == "rel" {
                        rel = Some(value.to_string());
                        continue;
                    }
                    assert!(
                        !["src", "href", "srcset", "action", "style"].contains(&key.as_str())
                            && !key.starts_with("on"),
                        "{key} on <{name}>"
                    );
                }
                if name == "a" {
                    assert_eq!(rel.as_deref(), Some("nofollow noopener"));
                }
                sections += usize::from(name == "section");
                details += usize::from(name == "details");
            }
            Event::Text(text) => {
                let text = text.decode().unwrap();
                assert!(!text.contains("url("), "{text}");
                assert!(!text.contains("@import"), "{text}");
            }
            _ => {}
        }
    }
    assert_eq!(sections, findings.len());
    assert!(details >= findings.len());
    assert!(links > 0, "the review comments' pages on GitHub are linked");
    assert!(html.contains("<h2>History</h2>") && html.contains("Files that change together"));
}

#[test]
fn the_agent_formats_are_short_scoped_and_parse() {
    let analysed = Analysed::new();
    let findings = analysed.findings();
    let scoped: Vec<&Value> = findings
        .iter()
        .filter(|f| f["category"] != "reviewer_focus" && !files_of(f).is_empty())
        .collect();
    assert!(!scoped.is_empty());

    // AGENTS.md section: markers, lessons only, no figures, within the limit.
    let section = analysed.export("agents-md", None);
    assert!(
        section.starts_with(BEGIN) && section.trim_end().ends_with(END),
        "{section}"
    );
    assert!(section.chars().count() <= AGENT_FILE_LIMIT);
    let lessons: Vec<&str> = section.lines().filter(|l| l.starts_with("- ")).collect();
    assert_eq!(lessons.len(), scoped.len(), "{section}");
    for lesson in &lessons {
        assert!(!lesson.contains("raised in"), "no counts: {lesson}");
        assert!(lesson.contains("(`"), "names its paths: {lesson}");
    }
    let taught = analysed.dismissed_title.split(" — ").next().unwrap();
    assert!(!section.contains(taught), "dismissed: {section}");
    let claude = analysed.export("claude-md", None);
    assert_eq!(claude, section);

    // Copilot: path-scoped files with applyTo globs covering the finding's files.
    let root = analysed.home().join("copilot");
    analysed.export("copilot", Some(&root));
    let files = files_under(&root);
    let scoped_files: Vec<(&String, &String)> = files
        .iter()
        .filter(|(name, _)| name.starts_with(".github/instructions/"))
        .collect();
    assert_eq!(scoped_files.len(), scoped.len(), "{files:?}");
    for (name, content) in &scoped_files {
        assert!(name.ends_with(".instructions.md"));
        assert!(content.chars().count() <= AGENT_FILE_LIMIT);
        let (front, body) = front_matter(content);
        let globs: Vec<&str> = front["applyTo"].split(',').collect();
        let finding = scoped
            .iter()
            .find(|f| globs == files_of(f))
            .unwrap_or_else(|| panic!("{name}: {globs:?} is no finding's files"));
        assert!(!body.trim().is_empty(), "{name}");
        assert!(!name.contains(&analysed.dismissed), "{name}");
        assert!(finding["category"] != "reviewer_focus");
    }

    // Cursor: `.mdc` rules with description, globs and a boolean alwaysApply.
    let root = analysed.home().join("cursor");
    analysed.export("cursor", Some(&root));
    let rules = files_under(&root);
    assert_eq!(rules.len(), scoped.len(), "{rules:?}");
    for (name, content) in &rules {
        assert!(name.starts_with(".cursor/rules/gitlore-") && name.ends_with(".mdc"));
        assert!(content.chars().count() <= AGENT_FILE_LIMIT);
        let (front, _) = front_matter(content);
        assert_eq!(
            front.keys().map(String::as_str).collect::<Vec<_>>(),
            ["alwaysApply", "description", "globs"]
        );
        assert_eq!(front["alwaysApply"], "false");
        assert!(!front["description"].is_empty());
        assert!(
            scoped
                .iter()
                .any(|f| front["globs"].split(',').eq(files_of(f)))
        );
    }

    // A second export replaces gitlore's files, and removes those of lessons gone since.
    let stale = root.join(".cursor/rules/gitlore-f-gone.mdc");
    std::fs::write(&stale, "---\nglobs: x\n---\n").unwrap();
    std::fs::write(root.join(".cursor/rules/team.mdc"), "ours").unwrap();
    analysed.export("cursor", Some(&root));
    assert!(!stale.exists());
    assert_eq!(
        std::fs::read_to_string(root.join(".cursor/rules/team.mdc")).unwrap(),
        "ours"
    );
}

#[test]
fn exporting_into_an_existing_agents_md_replaces_only_its_section() {
    let analysed = Analysed::new();
    let file = analysed.home().join("AGENTS.md");
    let before = "# Agents\r\n\nRun `make check` before pushing.\n\n";
    let after = "\n## Team notes\n\nKeep this   \n\tand this.";
    std::fs::write(
        &file,
        format!("{before}{BEGIN}\n- an old lesson\n{END}{after}"),
    )
    .unwrap();
    analysed.export("agents-md", Some(&file));
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(
        written.starts_with(&format!("{before}{BEGIN}\n")),
        "{written}"
    );
    assert!(written.ends_with(&format!("{END}{after}")), "{written}");
    assert!(!written.contains("an old lesson"));
    let section = analysed.export("agents-md", None);
    assert_eq!(written, format!("{before}{}{after}", section.trim_end()));
    analysed.export("agents-md", Some(analysed.home()));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        written,
        "the directory's AGENTS.md, unchanged"
    );
}

#[test]
fn a_small_report_reads_as_expected() {
    let analysed = Analysed::new();
    let md = analysed.export("md", None);
    // The run's time is the only thing that changes from run to run.
    let (head, rest) = md.split_once(", analysed ").unwrap();
    let (_, rest) = rest.split_once(" UTC").unwrap();
    let md = format!("{head}, analysed <time> UTC{rest}");
    let agents = analysed.export("agents-md", None);
    expect_test::expect_file!["snapshots/export_report.md"].assert_eq(&md);
    expect_test::expect_file!["snapshots/export_agents.md"].assert_eq(&agents);
}

/// An MCP session with `gitlore mcp`: the SDK's client over the child's pipes. (The SDK's
/// `TokioChildProcess` would end the child itself, hiding whether the server exits cleanly at the
/// end of its input; the pipes are tokio's Unix pipes, so that tokio needs no `process` feature
/// of its own for the tests.)
struct Session {
    child: std::process::Child,
    client: RunningService<RoleClient, ClientConfig>,
}

impl Session {
    /// A session on the protocol revision the SDK prefers.
    async fn start(home: &Path, args: &[&str]) -> Session {
        Session::spawn(command(home, args), ClientLifecycleMode::Initialize, None).await
    }

    /// `command`'s session: begun as `lifecycle` says, asking for protocol revision `version`
    /// (the SDK's preference when `None`).
    async fn spawn(
        mut command: Command,
        lifecycle: ClientLifecycleMode,
        version: Option<ProtocolVersion>,
    ) -> Session {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let output = OwnedFd::from(child.stdout.take().unwrap());
        let input = OwnedFd::from(child.stdin.take().unwrap());
        let pipes = (
            pipe::Receiver::from_owned_fd(output).unwrap(),
            pipe::Sender::from_owned_fd(input).unwrap(),
        );
        let mut config = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("test", "1"),
        );
        if let Some(version) = version {
            config = config.with_protocol_version(version);
        }
        let client = config.serve_with_lifecycle(pipes, lifecycle).await.unwrap();
        Session { child, client }
    }

    /// The protocol revision the server agreed to.
    fn protocol_version(&self) -> ProtocolVersion {
        self.client.peer_info().unwrap().protocol_version.clone()
    }

    async fn call(&self, tool: &str, arguments: Value) -> CallToolResult {
        let Value::Object(arguments) = arguments else {
            panic!("arguments are an object: {arguments}");
        };
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        self.client.call_tool(params).await.unwrap()
    }

    /// Closes the server's stdin: it ends, successfully.
    async fn finish(mut self) {
        self.client.close().await.unwrap();
        assert!(self.child.wait().unwrap().success());
    }
}

/// A tool result's text, and whether it is an error.
fn outcome(result: &CallToolResult) -> (&str, bool) {
    let [ContentBlock::Text(content)] = result.content.as_slice() else {
        panic!("one text: {result:?}");
    };
    (content.text.as_str(), result.is_error.unwrap())
}

#[tokio::test]
async fn an_mcp_session_returns_the_lessons_of_two_paths() {
    let analysed = Analysed::new();
    let findings = analysed.findings();
    let asked = ["tests/parser.rs", COUPLED];
    // Expected: the lessons about the test file's directory, and those about `src/db.rs`, which
    // changes with the migration every time.
    let expected: Vec<&Value> = findings
        .iter()
        .filter(|f| {
            files_of(f)
                .iter()
                .any(|file| file.starts_with("tests/") || *file == "src/db.rs")
        })
        .collect();
    assert!(expected.len() >= 3, "{findings:?}");
    assert!(expected.iter().any(|f| files_of(f) == ["tests/parser.rs"]));

    let command = command(analysed.home(), &["mcp", "--data-dir", &analysed.data]);
    let version = ProtocolVersion::V_2025_06_18;
    let session = Session::spawn(command, ClientLifecycleMode::Initialize, Some(version)).await;
    assert_eq!(session.protocol_version(), ProtocolVersion::V_2025_06_18);
    let server = session.client.peer_info().unwrap();
    assert_eq!(server.server_info.as_ref().unwrap().name, "gitlore");
    assert!(server.capabilities.tools.is_some());

    let tools = session.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["lessons_for_paths", "search_lessons"]);
    assert!(
        tools
            .iter()
            .all(|t| t.annotations.as_ref().unwrap().read_only_hint == Some(true))
    );

    let arguments = json!({ "paths": asked, "budget": 100000 });
    let call = session.call("lessons_for_paths", arguments).await;
    let (lessons, is_error) = outcome(&call);
    assert!(!is_error, "{lessons}");
    let lessons = lessons.to_string();
    let headings: Vec<&str> = lessons.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(headings.len(), expected.len(), "{lessons}");
    for finding in &expected {
        let title = finding["title"].as_str().unwrap();
        let words: Vec<&str> = title.split_whitespace().take(3).collect();
        assert!(
            headings.iter().any(|h| h.contains(&words.join(" "))),
            "{title} missing from {lessons}"
        );
    }
    assert!(
        lessons.contains(&format!("`{COUPLED}` usually changes with `src/db.rs`")),
        "{lessons}"
    );
    assert!(
        lessons.contains("<https://github.com/acme/widgets/pull/"),
        "{lessons}"
    );

    let search = session
        .call("search_lessons", json!({ "query": "QUERY loop" }))
        .await;
    let (found, _) = outcome(&search);
    assert!(found.starts_with("## "), "{found}");

    // A tool the server has not is a protocol error (invalid params), and the session goes on.
    let params = CallToolRequestParams::new("rm_rf").with_arguments(Default::default());
    match session.client.call_tool(params).await {
        Err(ServiceError::McpError(error)) => assert_eq!(error.code, ErrorCode::INVALID_PARAMS),
        other => panic!("{other:?}"),
    }
    let ping = ClientRequest::PingRequest(Default::default());
    let pong = session.client.send_request(ping).await.unwrap();
    assert!(matches!(pong, ServerResult::EmptyResult(_)), "{pong:?}");
    session.finish().await;

    // `gitlore lessons` prints the same, from the store and from an export file.
    let budget = ["--budget", "100000"];
    let mut args = vec!["lessons", asked[0], asked[1], "--data-dir", &analysed.data];
    args.extend(budget);
    assert_eq!(ok(gitlore(analysed.home(), &args)), lessons);
    // An absolute path under the current directory counts as relative to it.
    let absolute = analysed.home().canonicalize().unwrap().join(asked[0]);
    let mut args = vec![
        "lessons",
        absolute.to_str().unwrap(),
        asked[1],
        "--data-dir",
        &analysed.data,
    ];
    args.extend(budget);
    assert_eq!(ok(gitlore(analysed.home(), &args)), lessons);
    let file = analysed.home().join("export.json");
    std::fs::write(&file, analysed.export("json", None)).unwrap();
    let mut args = vec![
        "lessons",
        asked[0],
        asked[1],
        "--from",
        file.to_str().unwrap(),
    ];
    args.extend(budget);
    assert_eq!(ok(gitlore(analysed.home(), &args)), lessons);
}

#[test]
fn analyze_writes_the_export_formats_too() {
    let dir = tempfile::tempdir().unwrap();
    let repo = repository(dir.path());
    let reviews = reviews_file(dir.path());
    let data = dir.path().join("data");
    let analyze = |format: &str| {
        let args = [
            "analyze",
            repo.to_str().unwrap(),
            "--reviews",
            reviews.to_str().unwrap(),
            "--data-dir",
            data.to_str().unwrap(),
            "--format",
            format,
        ];
        ok(gitlore(dir.path(), &args))
    };
    let section = analyze("agents-md");
    assert!(
        section.starts_with(BEGIN) && section.contains("(`src/db.rs`)"),
        "{section}"
    );
    let data = data.to_str().unwrap();
    let export = ok(gitlore(
        dir.path(),
        &["export", "--data-dir", data, "--format", "agents-md"],
    ));
    assert_eq!(section, export);
    let page = analyze("html");
    assert!(
        page.starts_with("<!DOCTYPE html>") && page.contains("<details>"),
        "{page}"
    );
}

/// A second repository beside the analysed one, `acme/gadgets`, with one lesson about
/// `src/gadget.rs`, as the App's store holds several.
fn add_gadgets(analysed: &Analysed) {
    use gitlore::domain::findings::{Category, Finding, Severity, Status};
    use gitlore::domain::{Repo, RepoName};
    use gitlore::store::repos;
    let store = Store::open(&Path::new(&analysed.data).join("gitlore.db")).unwrap();
    let gadgets = Repo {
        id: RepoId(2),
        name: RepoName::parse("acme/gadgets").unwrap(),
        default_branch: Some("main".into()),
        private: false,
    };
    let lesson = Finding {
        id: "f-gadget".into(),
        category: Category::CodePattern,
        severity: Severity::High,
        title: "Gadgets close their sockets".into(),
        insight: "Every gadget closes its socket on drop.".into(),
        evidence: vec![],
        files: vec!["src/gadget.rs".into()],
        first_seen: 1_700_000_000,
        last_seen: 1_700_000_000,
        status: Status::Active,
    };
    store
        .write(|tx| {
            repos::upsert_repo(tx, &gadgets, None, true)?;
            findings::save_run(tx, RepoId(2), 1_700_000_000, &[lesson])
        })
        .unwrap();
}

#[tokio::test]
async fn an_mcp_server_on_a_store_of_several_repositories_takes_the_repository_from_the_call() {
    let analysed = Analysed::new();
    let widgets = analysed.findings();
    add_gadgets(&analysed);
    let asked = json!(["src/gadget.rs"]);

    let session = Session::start(analysed.home(), &["mcp", "--data-dir", &analysed.data]).await;
    // No repository named and no `origin` to go by: the tool says which there are.
    let unnamed = session
        .call("lessons_for_paths", json!({ "paths": asked }))
        .await;
    let (text, is_error) = outcome(&unnamed);
    assert!(is_error, "{text}");
    assert!(text.contains("acme/gadgets, local/widgets"), "{text}");
    let arguments = json!({ "paths": asked, "repo": "acme/gadgets" });
    let named = session.call("lessons_for_paths", arguments).await;
    let (text, is_error) = outcome(&named);
    assert!(!is_error, "{text}");
    assert!(text.starts_with("## Gadgets close their sockets"), "{text}");
    let arguments = json!({ "query": "", "repo": "local/widgets" });
    let other = session.call("search_lessons", arguments).await;
    let (text, _) = outcome(&other);
    let headings = text.matches("\n## ").count() + 1;
    assert_eq!(headings, widgets.len(), "{text}");
    let arguments = json!({ "query": "", "repo": "acme/nope" });
    let unknown = session.call("search_lessons", arguments).await;
    let (text, is_error) = outcome(&unknown);
    assert!(is_error, "{text}");
    session.finish().await;

    // Started in a clone whose `origin` is one of them, the server answers for that one.
    let clone = analysed.home().join("gadgets");
    std::fs::create_dir_all(&clone).unwrap();
    git(&clone, &["init", "-q"], "2021-01-01T00:00:00Z");
    let url = "git@github.com:Acme/gadgets.git";
    git(
        &clone,
        &["remote", "add", "origin", url],
        "2021-01-01T00:00:00Z",
    );
    let mut command = command(analysed.home(), &["mcp", "--data-dir", &analysed.data]);
    command.current_dir(&clone);
    let session = Session::spawn(command, ClientLifecycleMode::Initialize, None).await;
    let from_origin = session
        .call("lessons_for_paths", json!({ "paths": asked }))
        .await;
    let (text, is_error) = outcome(&from_origin);
    assert!(!is_error, "{text}");
    assert!(text.starts_with("## Gadgets close their sockets"), "{text}");
    session.finish().await;
}

#[tokio::test]
async fn mcp_tool_arguments_that_do_not_fit_are_tool_errors_and_a_small_budget_cuts_the_best_lesson()
 {
    let analysed = Analysed::new();
    let session = Session::start(analysed.home(), &["mcp", "--data-dir", &analysed.data]).await;
    let bad = [
        ("lessons_for_paths", json!({ "paths": [] }), "paths"),
        ("lessons_for_paths", json!({}), "paths"),
        ("search_lessons", json!({ "query": 3 }), "query"),
        (
            "search_lessons",
            json!({ "query": "x", "budget": 5 }),
            "budget",
        ),
    ];
    for (tool, arguments, named) in bad {
        let result = session.call(tool, arguments).await;
        let (text, is_error) = outcome(&result);
        assert!(is_error, "{text}");
        assert!(text.contains(named), "{text}");
    }
    let small = session
        .call("search_lessons", json!({ "query": "", "budget": 200 }))
        .await;
    let (text, is_error) = outcome(&small);
    assert!(!is_error, "{text}");
    assert!(text.chars().count() <= 200, "{text}");
    assert!(text.starts_with("## "), "{text}");
    assert!(text.contains('…'), "{text}");
    session.finish().await;
}

/// Each protocol revision the SDK's client may ask for is answered in it: one the server knows as
/// asked, the SDK's newest (2026-07-28, which has no `initialize`) over `initialize` as the
/// newest revision that has one, and over its own `server/discover` lifecycle as asked.
#[tokio::test]
async fn mcp_clients_get_the_protocol_revision_they_ask_for_or_the_newest_that_fits() {
    let analysed = Analysed::new();
    let args = ["mcp", "--data-dir", &analysed.data];
    let asking = |version: ProtocolVersion, lifecycle| {
        Session::spawn(command(analysed.home(), &args), lifecycle, Some(version))
    };
    let initialize = ClientLifecycleMode::Initialize;
    let oldest = asking(ProtocolVersion::V_2024_11_05, initialize.clone()).await;
    assert_eq!(oldest.protocol_version(), ProtocolVersion::V_2024_11_05);
    oldest.finish().await;
    let newest = asking(ProtocolVersion::LATEST, initialize).await;
    assert_ne!(
        ProtocolVersion::LATEST,
        ProtocolVersion::LATEST_WITH_INITIALIZE
    );
    assert_eq!(
        newest.protocol_version(),
        ProtocolVersion::LATEST_WITH_INITIALIZE
    );
    newest.finish().await;
    let preferred_versions = vec![ProtocolVersion::LATEST];
    let discover = ClientLifecycleMode::Discover { preferred_versions };
    let discovered = asking(ProtocolVersion::LATEST, discover).await;
    assert_eq!(discovered.protocol_version(), ProtocolVersion::LATEST);
    let search = discovered
        .call("search_lessons", json!({ "query": "QUERY loop" }))
        .await;
    let (text, is_error) = outcome(&search);
    assert!(!is_error && text.starts_with("## "), "{text}");
    discovered.finish().await;
}
