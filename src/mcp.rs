//! `gitlore mcp`: a Model Context Protocol server over stdio, so that a coding agent can ask for
//! the lessons of the files it is about to change. JSON-RPC 2.0, one message per line
//! (`initialize`, `notifications/initialized`, `ping`, `tools/list`, `tools/call`); the tools
//! are read-only: `lessons_for_paths` (what `gitlore lessons` prints) and `search_lessons`.
//!
//! Hand-written rather than an SDK: the five methods fit in this file, and gitlore needs no
//! async transport for them. The report is read again for each call, so a running server sees
//! the App's newest analysis.

use std::io::{BufRead, Write};

use anyhow::{Context, Result};
use serde_json::{Value, json};

use crate::config::Settings;
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
    let first = crate::lessons::open(settings, &source)?;
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    match source {
        crate::lessons::Source::File(_) => serve(&|| Ok(first.clone()), stdin, stdout),
        store => serve(&|| crate::lessons::open(settings, &store), stdin, stdout),
    }
}

/// Serves requests from `input` until it ends, answering on `output`; `load` reads the report.
pub fn serve(
    load: &dyn Fn() -> Result<RepoReport>,
    input: impl BufRead,
    mut output: impl Write,
) -> Result<()> {
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
fn answer(load: &dyn Fn() -> Result<RepoReport>, line: &str) -> Option<Value> {
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
                },
                "required": ["query"],
            },
            "annotations": { "readOnlyHint": true, "openWorldHint": false },
        },
    ])
}

fn call_tool(load: &dyn Fn() -> Result<RepoReport>, params: &Value) -> Result<Value, RpcError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::new(INVALID_PARAMS, "tools/call needs the tool's name"))?;
    let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
    let budget = match arguments.get("budget") {
        None | Some(Value::Null) => DEFAULT_BUDGET,
        Some(value) => value
            .as_u64()
            .filter(|b| (200..=MAX_BUDGET).contains(b))
            .map(|b| b as usize)
            .ok_or_else(|| {
                RpcError::new(
                    INVALID_PARAMS,
                    format!("budget must be a whole number from 200 to {MAX_BUDGET}"),
                )
            })?,
    };
    enum Ask {
        Paths(Vec<String>),
        Query(String),
    }
    let ask = match name {
        "lessons_for_paths" => {
            let paths: Vec<String> = arguments
                .get("paths")
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(|p| p.as_str().map(str::to_string))
                        .collect()
                })
                .filter(|paths: &Vec<String>| !paths.is_empty())
                .ok_or_else(|| {
                    RpcError::new(INVALID_PARAMS, "paths must be a list of one or more paths")
                })?;
            Ask::Paths(paths)
        }
        "search_lessons" => Ask::Query(
            arguments
                .get("query")
                .and_then(Value::as_str)
                .ok_or_else(|| RpcError::new(INVALID_PARAMS, "query must be a string"))?
                .to_string(),
        ),
        other => {
            return Err(RpcError::new(
                INVALID_PARAMS,
                format!("Unknown tool: {other}"),
            ));
        }
    };
    // A report that cannot be read is the tool's failure, told to the model, not a protocol one.
    let report = match load() {
        Ok(report) => report,
        Err(error) => return Ok(tool_result(format!("{error:#}"), true)),
    };
    let chosen = match &ask {
        Ask::Paths(paths) => select::for_paths(&report, &under_cwd(paths)),
        Ask::Query(query) => select::search(&report, query),
    };
    Ok(tool_result(select::render(&report, &chosen, budget), false))
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
        answer(&|| Ok(RepoReport::default()), line)
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
        let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lessons_for_paths","arguments":{"paths":[]}}}"#;
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
}
