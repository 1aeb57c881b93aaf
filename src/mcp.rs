//! `gitlore mcp`: a Model Context Protocol server over stdio, so that a coding agent can ask for
//! the lessons of the files it is about to change. The protocol (the handshake and its version
//! negotiation, framing, errors) is the official SDK's, `rmcp`; this file holds the two read-only
//! tools: `lessons_for_paths` (what `gitlore lessons` prints) and `search_lessons`.
//!
//! The report is read again for each call, so a running server sees the App's newest analysis.
//! A call names its repository (`repo`), or gets the server's `--repo`, the store's only one, or
//! the one the working directory's `origin` remote names.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::{RequestContext, ServerInitializeError};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

use crate::config::Settings;
use crate::lessons::Source;
use crate::lessons::cli::{SourceArgs, under_cwd};
use crate::lessons::report::RepoReport;
use crate::lessons::select::{self, DEFAULT_BUDGET};

/// The largest budget a caller may ask for, in characters.
const MAX_BUDGET: u64 = 100_000;

/// What the server tells the agent at the handshake.
const INSTRUCTIONS: &str = "Lessons this repository's reviewers keep teaching, learned from its \
    pull-request reviews and git history. Call lessons_for_paths with the files you are about to \
    change, before changing them.";

/// Runs `gitlore mcp` on stdin and stdout until the client closes stdin. A file is read once; a
/// store at each call.
///
/// The session runs on a current-thread runtime of its own (of the commands, only `serve` starts
/// one, a multi-threaded one): one client's requests need no second worker thread. A call reads
/// the report on tokio's blocking threads, so that the session goes on reading messages (a
/// cancellation, a ping) meanwhile.
pub fn run(settings: &Settings, args: &SourceArgs) -> Result<()> {
    let reports = Reports::open(settings, args)?;
    let server = LessonsServer {
        reports: Arc::new(reports),
    };
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(async {
            let session = match server.serve(rmcp::transport::stdio()).await {
                Ok(session) => session,
                // Stdin ended before the handshake: the client went away.
                Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
                Err(error) => return Err(error).context("The MCP handshake failed"),
            };
            session.waiting().await.context("The MCP session failed")?;
            Ok(())
        })
}

/// Where the server reads the report a call is about.
enum Reports {
    /// An export file, read once at start.
    File {
        path: PathBuf,
        report: Box<RepoReport>,
    },
    /// A store, read at each call. `origin` is the URL of the working directory's `origin`
    /// remote, read once at start.
    Store {
        settings: Box<Settings>,
        data_dir: Option<PathBuf>,
        repo: Option<String>,
        origin: Option<String>,
    },
}

impl Reports {
    /// Opens `args`' source, failing on one that cannot be read rather than at the first call.
    fn open(settings: &Settings, args: &SourceArgs) -> Result<Reports> {
        let source = args.source();
        let names = crate::lessons::repositories(settings, &source)?;
        if names.is_empty() {
            bail!("The store has no analysed repository yet");
        }
        Ok(match source {
            Source::File(path) => Reports::File {
                report: Box::new(crate::lessons::open(settings, &Source::File(path.clone()))?),
                path,
            },
            Source::Store { data_dir, repo } => {
                if repo.is_some() {
                    crate::lessons::open(settings, &args.source())?;
                }
                Reports::Store {
                    settings: Box::new(settings.clone()),
                    data_dir,
                    repo,
                    origin: origin_url(),
                }
            }
        })
    }

    /// The report of the repository a call names (`None`: the server's default one).
    fn load(&self, asked: Option<&str>) -> Result<RepoReport> {
        match self {
            Reports::File { path, report } => match asked {
                Some(asked) if !asked.trim().eq_ignore_ascii_case(&report.repo) => bail!(
                    "This server reads {}, the lessons of {}, not of {asked}",
                    path.display(),
                    report.repo
                ),
                _ => Ok(RepoReport::clone(report)),
            },
            Reports::Store {
                settings,
                data_dir,
                repo,
                origin,
            } => {
                let store = |repo| Source::Store {
                    data_dir: data_dir.clone(),
                    repo,
                };
                let repo = match asked.or(repo.as_deref()) {
                    Some(repo) => repo.to_string(),
                    None => {
                        let names = crate::lessons::repositories(settings, &store(None))?;
                        default_repo(&names, origin.as_deref())?
                    }
                };
                crate::lessons::open(settings, &store(Some(repo)))
            }
        }
    }
}

/// The repository a call that names none is about: the store's only one, or the one the working
/// directory's `origin` remote names.
fn default_repo(names: &[String], origin: Option<&str>) -> Result<String> {
    if let [only] = names {
        return Ok(only.clone());
    }
    match origin.and_then(|url| named_by(url, names)) {
        Some(name) => Ok(name.clone()),
        None => bail!(
            "The store holds several repositories: name one in the tool's `repo` argument ({})",
            names.join(", ")
        ),
    }
}

/// The repository of `names` (`owner/name`) that a remote URL names: it ends in `/owner/name`
/// or `:owner/name`, with or without `.git`, in any case.
fn named_by<'a>(url: &str, names: &'a [String]) -> Option<&'a String> {
    let url = url.trim().trim_end_matches('/').to_ascii_lowercase();
    let url = url.strip_suffix(".git").unwrap_or(&url);
    names.iter().find(|name| {
        let name = name.to_ascii_lowercase();
        url.strip_suffix(name.as_str())
            .is_some_and(|rest| rest.ends_with('/') || rest.ends_with(':'))
    })
}

/// The URL of the `origin` remote of the clone the server runs in (agents start it at the
/// repository's root), if any.
fn origin_url() -> Option<String> {
    let output = std::process::Command::new("git")
        .args(["remote", "get-url", "origin"])
        .env("GIT_TERMINAL_PROMPT", "0")
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// The MCP server: the tools, over the reports.
struct LessonsServer {
    reports: Arc<Reports>,
}

impl ServerHandler for LessonsServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("gitlore", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    /// A call that names no known tool is a protocol error; arguments that do not fit, and a
    /// report that cannot be read, are the tool's failure, told to the model as a result with
    /// `isError` so that it can correct itself.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.into_owned();
        if !["lessons_for_paths", "search_lessons"].contains(&name.as_str()) {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {name}"),
                None,
            ));
        }
        let reports = Arc::clone(&self.reports);
        let arguments = request.arguments.unwrap_or_default();
        let answer = tokio::task::spawn_blocking(move || run_tool(&reports, &name, &arguments))
            .await
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        Ok(match answer {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(error) => CallToolResult::error(vec![ContentBlock::text(format!("{error:#}"))]),
        }
        .into())
    }
}

fn tools() -> Vec<Tool> {
    let budget = json!({
        "type": "integer",
        "minimum": 200,
        "maximum": MAX_BUDGET,
        "description": format!("Most characters to return (default {DEFAULT_BUDGET})."),
    });
    let repo = json!({
        "type": "string",
        "description": "The repository, owner/name (default: the one the server was started \
            for, or whose clone it runs in).",
    });
    let read_only = ToolAnnotations::new().read_only(true).open_world(false);
    vec![
        Tool::new(
            "lessons_for_paths",
            "The lessons from past code review that apply to the given paths (relative to the \
            repository's root, or absolute under it; a directory ends with /): about the file \
            itself, its directory, or a file that usually changes with it. Closest and most \
            severe first, with links to the review comments behind them.",
            schema(json!({
                "type": "object",
                "properties": {
                    "paths": { "type": "array", "items": { "type": "string" }, "minItems": 1 },
                    "budget": budget,
                    "repo": repo,
                },
                "required": ["paths"],
            })),
        )
        .with_title("Lessons for paths")
        .with_annotations(read_only.clone()),
        Tool::new(
            "search_lessons",
            "The lessons from past code review whose text, files or evidence contain every word \
            of the query, most severe first.",
            schema(json!({
                "type": "object",
                "properties": {
                    "query": { "type": "string" },
                    "budget": budget,
                    "repo": repo,
                },
                "required": ["query"],
            })),
        )
        .with_title("Search lessons")
        .with_annotations(read_only),
    ]
}

/// A tool's input schema, a JSON object.
fn schema(value: Value) -> JsonObject {
    match value {
        Value::Object(schema) => schema,
        other => unreachable!("a schema is an object: {other}"),
    }
}

/// The text tool `name` answers `arguments` with.
fn run_tool(reports: &Reports, name: &str, arguments: &JsonObject) -> Result<String> {
    let budget = match arguments.get("budget") {
        None | Some(Value::Null) => DEFAULT_BUDGET,
        Some(value) => match value.as_u64().filter(|b| (200..=MAX_BUDGET).contains(b)) {
            Some(budget) => budget as usize,
            None => bail!("budget must be a whole number from 200 to {MAX_BUDGET}"),
        },
    };
    let repo = match arguments.get("repo") {
        None | Some(Value::Null) => None,
        Some(Value::String(repo)) => Some(repo.as_str()),
        Some(_) => bail!("repo must be a string, owner/name"),
    };
    let chosen = |report: &RepoReport| {
        if name == "search_lessons" {
            let query = arguments.get("query").and_then(Value::as_str);
            let Some(query) = query else {
                bail!("query must be a string");
            };
            return Ok(select::search(report, query));
        }
        let paths: Vec<String> = arguments
            .get("paths")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        if paths.is_empty() {
            bail!("paths must be a list of one or more paths");
        }
        Ok(select::for_paths(report, &under_cwd(&paths)))
    };
    // The arguments are checked before the report is read: a mistake is named as such.
    chosen(&RepoReport::default())?;
    let report = reports.load(repo)?;
    Ok(select::render(&report, &chosen(&report)?, budget))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_url_names_the_repository_of_its_path() {
        let names = ["acme/gadgets".to_string(), "acme/widgets".to_string()];
        for url in [
            "git@github.com:Acme/Widgets.git",
            "https://github.com/acme/widgets/",
            "ssh://git@git.example.com/acme/widgets",
        ] {
            assert_eq!(named_by(url, &names), Some(&names[1]), "{url}");
        }
        assert_eq!(named_by("https://github.com/xacme/widgets", &names), None);
        let error = default_repo(&names, None).unwrap_err().to_string();
        assert!(error.contains("(acme/gadgets, acme/widgets)"), "{error}");
    }
}
