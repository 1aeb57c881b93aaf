//! `gitlore mcp`: a Model Context Protocol server over stdio, so that a coding agent can ask for
//! the lessons of the files it is about to change. JSON-RPC 2.0, one message per line
//! (`initialize`, `notifications/initialized`, `ping`, `tools/list`, `tools/call`); the tools
//! are read-only: `lessons_for_paths` (what `gitlore lessons` prints) and `search_lessons`.
//!
//! Hand-written rather than an SDK: the five methods fit in this file, and gitlore needs no
//! async transport for them. The report is read again for each call, so a running server sees
//! the App's newest analysis. A call names its repository (`repo`), or gets the server's `--repo`,
//! the store's only one, or the one the working directory's `origin` remote names.

use std::io::{BufRead, Write};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::config::Settings;
use crate::lessons::Source;
use crate::lessons::cli::{SourceArgs, under_cwd};
use crate::lessons::report::RepoReport;
use crate::lessons::select::{self, DEFAULT_BUDGET};

/// The protocol revisions this server speaks, newest first; a client asking for another gets the
/// newest.
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// JSON-RPC error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// The largest budget a caller may ask for, in characters.
const MAX_BUDGET: u64 = 100_000;

/// A JSON-RPC error answer.
struct RpcError {
    code: i64,
    message: String,
}

impl RpcError {
    fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
        }
    }
}

/// Runs `gitlore mcp` on stdin and stdout. A file is read once; a store at each call.
pub fn run(settings: &Settings, args: &SourceArgs) -> Result<()> {
    let source = args.source();
    // Fail at start on a source that cannot be read, rather than at the first call.
    let names = crate::lessons::repositories(settings, &source)?;
    if names.is_empty() {
        bail!("The store has no analysed repository yet");
    }
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    match source {
        crate::lessons::Source::File(ref file) => {
            let report = crate::lessons::open(settings, &source)?;
            let load = |asked: Option<&str>| match asked {
                Some(asked) if !asked.trim().eq_ignore_ascii_case(&report.repo) => bail!(
                    "This server reads {}, the lessons of {}, not of {asked}",
                    file.display(),
                    report.repo
                ),
                _ => Ok(report.clone()),
            };
            serve(&load, stdin, stdout)
        }
        crate::lessons::Source::Store { data_dir, repo } => {
            if let Some(repo) = &repo {
                crate::lessons::open(
                    settings,
                    &Source::Store {
                        data_dir: data_dir.clone(),
                        repo: Some(repo.clone()),
                    },
                )?;
            }
            let origin = origin_url();
            let load = |asked: Option<&str>| {
                let repo = match asked.or(repo.as_deref()) {
                    Some(repo) => repo.to_string(),
                    None => {
                        let source = Source::Store {
                            data_dir: data_dir.clone(),
                            repo: None,
                        };
                        let names = crate::lessons::repositories(settings, &source)?;
                        default_repo(&names, origin.as_deref())?
                    }
                };
                let repo = Some(repo);
                crate::lessons::open(
                    settings,
                    &Source::Store {
                        data_dir: data_dir.clone(),
                        repo,
                    },
                )
            };
            serve(&load, stdin, stdout)
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

/// Reads the report of the repository a tool call names (`None`: the server's default one).
pub type Load<'a> = dyn Fn(Option<&str>) -> Result<RepoReport> + 'a;

/// Serves requests from `input` until it ends, answering on `output`; `load` reads the report.
pub fn serve(load: &Load, input: impl BufRead, mut output: impl Write) -> Result<()> {
    for line in input.split(b'\n') {
        let line = line.context("Cannot read the MCP client's message")?;
        // Bytes that are not UTF-8 cannot be JSON: the parse error says so.
        let line = String::from_utf8_lossy(&line);
        if line.trim().is_empty() {
            continue;
        }
        if let Some(answer) = answer(load, &line) {
            writeln!(output, "{answer}").context("Cannot answer the MCP client")?;
            output.flush().context("Cannot answer the MCP client")?;
        }
    }
    Ok(())
}

/// The answer to one line, or `None` for a notification.
fn answer(load: &Load, line: &str) -> Option<Value> {
    let message: Value = match serde_json::from_str(line) {
        Ok(message) => message,
        Err(error) => {
            return Some(error_answer(
                Value::Null,
                RpcError::new(PARSE_ERROR, format!("Parse error: {error}")),
            ));
        }
    };
    let id = message.get("id").cloned();
    let valid_id = matches!(&id, None | Some(Value::String(_) | Value::Number(_)));
    let method = message.get("method").and_then(Value::as_str);
    let (Some(method), true, Some("2.0")) = (
        method,
        valid_id && message.is_object(),
        message.get("jsonrpc").and_then(Value::as_str),
    ) else {
        return Some(error_answer(
            id.filter(|_| valid_id).unwrap_or(Value::Null),
            RpcError::new(
                INVALID_REQUEST,
                "Invalid Request: a JSON-RPC 2.0 object with a method",
            ),
        ));
    };
    // A notification (no id) gets no answer, whatever it says.
    let id = id?;
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    let result = match method {
        "initialize" => Ok(initialize(&params)),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(json!({ "tools": tools() })),
        "tools/call" => call_tool(load, &params),
        other => Err(RpcError::new(
            METHOD_NOT_FOUND,
            format!("Method not found: {other}"),
        )),
    };
    Some(match result {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        Err(error) => error_answer(id, error),
    })
}

fn error_answer(id: Value, error: RpcError) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": error.code, "message": error.message },
    })
}

fn initialize(params: &Value) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let version = PROTOCOL_VERSIONS
        .into_iter()
        .find(|v| Some(*v) == asked)
        .unwrap_or(PROTOCOL_VERSIONS[0]);
    json!({
        "protocolVersion": version,
        "capabilities": { "tools": { "listChanged": false } },
        "serverInfo": { "name": "gitlore", "version": env!("CARGO_PKG_VERSION") },
        "instructions": "Lessons this repository's reviewers keep teaching, learned from its \
            pull-request reviews and git history. Call lessons_for_paths with the files you are \
            about to change, before changing them.",
    })
}

fn tools() -> Value {
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
    json!([
        {
            "name": "lessons_for_paths",
            "title": "Lessons for paths",
            "description": "The lessons from past code review that apply to the given paths \
                (relative to the repository's root, or absolute under it; a directory ends with \
                /): about the file \
                itself, its directory, or a file that usually changes with it. Closest and most \
                severe first, with links to the review comments behind them.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "paths": { "type": "array", "items": { "type": "string" }, "minItems": 1 },
                    "budget": budget,
                    "repo": repo,
                },
                "required": ["paths"],
            },
            "annotations": { "readOnlyHint": true, "openWorldHint": false },
        },
        {
            "name": "search_lessons",
            "title": "Search lessons",
            "description": "The lessons from past code review whose text, files or evidence \
                contain every word of the query, most severe first.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": { "type": "string" },
                    "budget": budget,
                    "repo": repo,
                },
                "required": ["query"],
            },
            "annotations": { "readOnlyHint": true, "openWorldHint": false },
        },
    ])
}

/// A `tools/call`: a request that names no known tool is a protocol error; arguments that do not
/// fit, and a report that cannot be read, are the tool's failure, told to the model as a result
/// with `isError` (MCP 2025-11-25) so that it can correct itself.
fn call_tool(load: &Load, params: &Value) -> Result<Value, RpcError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::new(INVALID_PARAMS, "tools/call needs the tool's name"))?;
    if !["lessons_for_paths", "search_lessons"].contains(&name) {
        return Err(RpcError::new(
            INVALID_PARAMS,
            format!("Unknown tool: {name}"),
        ));
    }
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => json!({}),
        Some(arguments) if arguments.is_object() => arguments.clone(),
        Some(_) => {
            return Err(RpcError::new(
                INVALID_PARAMS,
                "tools/call's arguments must be an object",
            ));
        }
    };
    Ok(match run_tool(load, name, &arguments) {
        Ok(text) => tool_result(text, false),
        Err(error) => tool_result(format!("{error:#}"), true),
    })
}

/// The text tool `name` answers `arguments` with.
fn run_tool(load: &Load, name: &str, arguments: &Value) -> Result<String> {
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
    let report = load(repo)?;
    Ok(select::render(&report, &chosen(&report)?, budget))
}

fn tool_result(text: String, is_error: bool) -> Value {
    json!({
        "content": [{ "type": "text", "text": text }],
        "isError": is_error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(line: &str) -> Option<Value> {
        answer(&|_| Ok(RepoReport::default()), line)
    }

    #[test]
    fn bad_messages_get_json_rpc_errors() {
        assert_eq!(ask("{not json").unwrap()["error"]["code"], PARSE_ERROR);
        assert_eq!(ask("[]").unwrap()["error"]["code"], INVALID_REQUEST);
        let no_version = ask(r#"{"id": 1, "method": "ping"}"#).unwrap();
        assert_eq!(no_version["error"]["code"], INVALID_REQUEST);
        assert_eq!(no_version["id"], 1);
        let unknown = ask(r#"{"jsonrpc": "2.0", "id": "a", "method": "resources/list"}"#);
        assert_eq!(unknown.unwrap()["error"]["code"], METHOD_NOT_FOUND);
        let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lessons_for_paths","arguments":[]}}"#;
        assert_eq!(ask(call).unwrap()["error"]["code"], INVALID_PARAMS);
    }

    #[test]
    fn notifications_get_no_answer_and_versions_are_negotiated() {
        assert_eq!(
            ask(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            None
        );
        let old = ask(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#,
        );
        assert_eq!(old.unwrap()["result"]["protocolVersion"], "2025-06-18");
        let future = ask(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2999-01-01"}}"#,
        );
        assert_eq!(
            future.unwrap()["result"]["protocolVersion"],
            PROTOCOL_VERSIONS[0]
        );
    }

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
