//! The LLM synthesizer (behaviour §3.3): an agent loop over the configured provider. The model calls
//! read-only tools with `<tool>` elements in its text (any OpenAI-compatible server can do this)
//! and ends with the findings XML, whose every citation is checked (`validate`); then one more
//! request asks the model which cited comments carry each finding (`check`).
//!
//! Hard limits: turns, total tokens, tool output per call, and wall time. Review text, file
//! contents and commit messages reach the model only escaped inside `<data>` blocks. On any
//! failure (transport, invalid XML, a spent budget, nothing valid left) the built-in result is
//! used and the failure is reported in the notes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};
use quick_xml::escape::escape;

use super::answer::{Reply, ToolCall, parse_reply};
use super::validate::validate;
use super::wording::cut;
use super::{Input, Synthesis, builtin, check, figures, finalize, meets_evidence_rule, tools};
use crate::domain::findings::Finding;
use crate::domain::findings::SourceComment;
use crate::llm::{LlmClient, Message, estimate_tokens, prompt_tokens};

/// The system prompt's template; its first line is its version, and [`system_prompt`] fills in the
/// limits.
pub const PROMPT: &str = include_str!("../../../prompts/synthesize.md");

/// The system prompt as sent: the template with `limits` written in, so that what the model is
/// told and what the loop enforces come from one place.
pub fn system_prompt(limits: &Limits) -> String {
    PROMPT
        .replace("{max_turns}", &limits.max_turns.to_string())
        .replace(
            "{max_calls_per_turn}",
            &limits.max_calls_per_turn.to_string(),
        )
        .replace("{max_tool_output}", &limits.max_tool_output.to_string())
        .replace("{page_size}", &tools::COMMENTS_PER_PAGE.to_string())
}

/// The prompt's version line, e.g. `synthesize/2`.
pub fn prompt_version() -> &'static str {
    PROMPT
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("Prompt version: "))
        .unwrap_or("unknown")
}

/// Figures (count) of each kind quoted in the first turn; the rest are reachable with tools.
const FIGURES_PER_KIND: usize = 15;

/// The agent's hard limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Model calls, the final answer included.
    pub max_turns: usize,
    /// Input plus output tokens over the whole run, as the provider reports them.
    pub max_tokens: u64,
    /// Characters of one tool's output; longer output is cut and says so.
    pub max_tool_output: usize,
    /// Tool calls run per turn; more are refused.
    pub max_calls_per_turn: usize,
    /// The whole run, model calls and tools included.
    pub wall_time: Duration,
    /// Characters of review comments quoted in the first turn; the rest are counted by path and
    /// read with `list_comments`.
    pub opening_chars: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_turns: 12,
            max_tokens: 200_000,
            max_tool_output: 8_000,
            max_calls_per_turn: 4,
            wall_time: Duration::from_secs(300),
            opening_chars: 60_000,
        }
    }
}

/// The LLM synthesizer over one client.
pub struct LlmSynthesizer<'a> {
    pub client: &'a LlmClient,
    pub limits: Limits,
}

impl LlmSynthesizer<'_> {
    /// Runs the agent; on any failure, the built-in synthesizer's result with the failure in the
    /// notes.
    pub async fn synthesize(&self, input: &Input<'_>) -> Synthesis {
        let started = Instant::now();
        let outcome = tokio::time::timeout(self.limits.wall_time, self.agent(input))
            .await
            .unwrap_or_else(|_| {
                Err(anyhow!(
                    "it did not finish within the {:?} wall-time limit",
                    self.limits.wall_time
                ))
            });
        let (proposed, mut notes, tokens) = match outcome {
            Ok(found) => found,
            Err(error) => {
                return fallback(input, format!("the LLM synthesizer failed: {error:#}"));
            }
        };
        let time_left = self.limits.wall_time.saturating_sub(started.elapsed());
        let tokens_left = self.limits.max_tokens.saturating_sub(tokens);
        let checked = tokio::time::timeout(
            time_left,
            check::check(self.client, proposed.clone(), input, tokens_left),
        )
        .await
        .unwrap_or_else(|_| check::Checked {
            findings: proposed,
            notes: vec![format!(
                "the model's evidence check did not finish within the {:?} wall-time limit; its findings are shown unchecked",
                self.limits.wall_time
            )],
            tokens: 0,
        });
        tracing::info!(
            repo = input.repo,
            tokens = tokens + checked.tokens,
            "LLM synthesis and its evidence check done"
        );
        notes.extend(checked.notes);
        let proposed = checked.findings;
        for finding in &proposed {
            if !meets_evidence_rule(finding, input.comments) {
                notes.push(format!(
                    "the model's finding “{}” was dropped: its real evidence is not two review comments from distinct PRs, or one and a git signal",
                    cut(&finding.title, 60)
                ));
            }
        }
        let findings = finalize(proposed, input);
        if findings.is_empty() {
            let builtin = builtin::synthesize(input);
            if !builtin.findings.is_empty() {
                notes.push(
                    "the LLM synthesizer produced no finding that passed the checks; the built-in findings are shown".to_string(),
                );
                return Synthesis {
                    findings: builtin.findings,
                    notes,
                };
            }
        }
        Synthesis { findings, notes }
    }

    /// The loop: returns the validated findings, a note per dropped one, and the tokens spent.
    async fn agent(&self, input: &Input<'_>) -> Result<(Vec<Finding>, Vec<String>, u64)> {
        let limits = self.limits;
        let system = system_prompt(&limits);
        let owned = Arc::new(OwnedInput::from(input));
        let (first, left_out) = opening(input, limits.opening_chars);
        let mut messages = vec![Message::user(first)];
        let mut tokens = 0_u64;
        // Why the coming turn is the last one, once it is.
        let mut last: Option<String> = None;
        for turn in 1..=limits.max_turns {
            let completion = self.client.chat(&system, &messages).await?;
            tokens += completion.input_tokens + completion.output_tokens;
            if tokens > limits.max_tokens {
                bail!(
                    "the token budget ({} tokens) was spent after {turn} turns",
                    limits.max_tokens
                );
            }
            let reply = parse_reply(&completion.text)?;
            let results = match reply {
                Reply::Findings(proposed) => {
                    tracing::info!(repo = input.repo, turn, tokens, "LLM synthesis answered");
                    let (findings, mut notes) = validate(proposed, input);
                    notes.extend(left_out);
                    return Ok((findings, notes, tokens));
                }
                Reply::Tools(calls) => self.run_tools(&owned, calls).await?,
                Reply::Prose => {
                    "Answer with tool calls or with the findings XML, nothing else.".to_string()
                }
            };
            if let Some(why) = &last {
                bail!("the model gave no findings within {why}");
            }
            // The next call sends what this one did, its answer and the results (as the provider
            // counted them, else as estimated), and the call after it about as much more: when
            // that would spend the budget, the next turn is the last.
            let sent = if completion.input_tokens > 0 {
                completion.input_tokens + completion.output_tokens
            } else {
                prompt_tokens(&system, &messages) + estimate_tokens(&completion.text)
            };
            let next = sent.saturating_add(estimate_tokens(&results));
            last = if turn + 1 >= limits.max_turns {
                Some(format!("the turn budget ({} turns)", limits.max_turns))
            } else if tokens.saturating_add(next.saturating_mul(2)) > limits.max_tokens {
                Some(format!("the token budget ({} tokens)", limits.max_tokens))
            } else {
                None
            };
            messages.push(Message::assistant(completion.text));
            messages.push(Message::user(format!(
                "{results}{}",
                status(turn, limits, last.is_some())
            )));
        }
        bail!(
            "the model gave no findings within the turn budget ({} turns)",
            limits.max_turns
        )
    }

    /// Runs a turn's tool calls off the async threads and quotes their results as data.
    async fn run_tools(&self, input: &Arc<OwnedInput>, calls: Vec<ToolCall>) -> Result<String> {
        let max = self.limits.max_tool_output;
        let refused = calls.len().saturating_sub(self.limits.max_calls_per_turn);
        let calls: Vec<ToolCall> = calls
            .into_iter()
            .take(self.limits.max_calls_per_turn)
            .collect();
        let owned = Arc::clone(input);
        let outputs = tokio::task::spawn_blocking(move || {
            let input = owned.as_input();
            calls
                .iter()
                .map(|call| (call.name.clone(), tools::run(&input, call, max)))
                .collect::<Vec<_>>()
        })
        .await
        .map_err(|error| anyhow!("a tool panicked: {error}"))?;
        let mut out = String::from("Tool results:\n<data>\n");
        for (name, output) in outputs {
            out.push_str(&format!(
                "<result tool=\"{}\">\n{output}\n</result>\n",
                escape(&name)
            ));
        }
        out.push_str("</data>\n");
        if refused > 0 {
            out.push_str(&format!(
                "{refused} more tool calls were refused: at most {} per turn.\n",
                self.limits.max_calls_per_turn
            ));
        }
        Ok(out)
    }
}

/// The built-in result with `why` in its notes.
fn fallback(input: &Input<'_>, why: String) -> Synthesis {
    tracing::warn!(repo = input.repo, reason = %why, "LLM synthesis fell back to the built-in one");
    let mut synthesis = builtin::synthesize(input);
    synthesis
        .notes
        .insert(0, format!("{why}; the built-in findings are shown"));
    synthesis
}

/// The line after a turn's tool results: the turns left, or that the next is the last.
fn status(turn: usize, limits: Limits, last: bool) -> String {
    if last {
        return "\nThis is your last turn: answer now with the findings XML.".to_string();
    }
    let left = limits.max_turns - turn;
    format!(
        "\n{left} turns left, this answer included; at most {} tool calls each.",
        limits.max_calls_per_turn
    )
}

/// The first user turn: the run's figures, the themes, the review comments (as many as fit in
/// `max_chars`: the themes' first, then the others by file) and the analyzer figures, as data;
/// and a note when some comments were only counted.
fn opening(input: &Input<'_>, max_chars: usize) -> (String, Vec<String>) {
    let history = input.history;
    let mut data = String::new();
    data.push_str(&format!(
        "<repository name=\"{}\" head=\"{}\" commits=\"{}\" comments=\"{}\" window_start=\"{}\"/>\n",
        escape(input.repo),
        escape(history.head.as_deref().unwrap_or("unknown")),
        history.commits,
        input.comments.len(),
        figures::date(input.settings.window_start),
    ));
    data.push_str("<themes>\n");
    data.push_str(&tools::run(
        input,
        &ToolCall {
            name: "list_themes".into(),
            args: Default::default(),
        },
        usize::MAX,
    ));
    data.push_str("</themes>\n");
    let (quoted, left_out) = quoted_comments(input, max_chars);
    data.push_str(&quoted);
    let mut notes = Vec::new();
    if !left_out.is_empty() {
        let count: usize = left_out.values().sum();
        notes.push(format!(
            "{count} of {} review comments did not fit the model's first turn; they were counted by directory, for the model to read with list_comments",
            input.comments.len()
        ));
    }
    data.push_str("<figures>\n");
    let hotspots = history
        .hotspots
        .iter()
        .take(FIGURES_PER_KIND)
        .map(|h| (figures::hotspot_id(h), figures::hotspot_text(h)));
    let couplings = history
        .couplings
        .iter()
        .take(FIGURES_PER_KIND)
        .map(|c| (figures::coupling_id(c), figures::coupling_text(c)));
    let fixes = history
        .fix_after
        .iter()
        .take(FIGURES_PER_KIND)
        .map(|f| (figures::fix_after_id(f), figures::fix_after_text(f)));
    for (id, text) in hotspots.chain(couplings).chain(fixes) {
        data.push_str(&format!(
            "<figure id=\"{}\">{}</figure>\n",
            escape(&id),
            escape(&text)
        ));
    }
    data.push_str("</figures>\n<reverts>\n");
    for revert in history.reverts.iter().take(FIGURES_PER_KIND) {
        data.push_str(&format!(
            "<revert sha=\"{}\" depth=\"{}\" files=\"{}\">{}</revert>\n",
            escape(&revert.sha),
            revert.depth,
            escape(revert.files.join(" ")),
            escape(&revert.subject)
        ));
    }
    data.push_str("</reverts>\n");
    let text = format!(
        "Find what a newcomer to this repository must know. The data:\n<data>\n{data}</data>\nRead what you need with the tools, then answer with the findings XML."
    );
    (text, notes)
}

/// The comments quoted in the opening, within `max_chars`: each theme's members, then the other
/// comments by file (conversation comments last), each once; and the count of those left out by
/// directory.
fn quoted_comments(
    input: &Input<'_>,
    max_chars: usize,
) -> (String, std::collections::BTreeMap<String, usize>) {
    let mut order: Vec<(Option<&str>, &SourceComment)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for theme in &input.themes.themes {
        for id in &theme.members {
            if let Some(comment) = input.comments.get(id)
                && seen.insert(*id)
            {
                order.push((Some(theme.id.as_str()), comment));
            }
        }
    }
    let mut others: Vec<&SourceComment> = input
        .comments
        .values()
        .filter(|c| !seen.contains(&c.id))
        .collect();
    others.sort_by(|a, b| {
        (a.path.is_none(), &a.path, a.created_at, a.id).cmp(&(
            b.path.is_none(),
            &b.path,
            b.created_at,
            b.id,
        ))
    });
    order.extend(others.into_iter().map(|c| (None, c)));
    let mut out = String::from("<comments>\n");
    let mut used = 0_usize;
    let mut group: Option<Option<&str>> = None;
    let mut left_out = std::collections::BTreeMap::new();
    for (theme, comment) in order {
        let element = tools::comment_element(comment);
        if used + element.len() > max_chars {
            let dir = comment
                .path
                .as_deref()
                .and_then(|p| p.rsplit_once('/').map(|(d, _)| format!("{d}/")))
                .unwrap_or_else(|| {
                    if comment.path.is_some() {
                        "./"
                    } else {
                        "(conversation)"
                    }
                    .to_string()
                });
            *left_out.entry(dir).or_insert(0) += 1;
            continue;
        }
        if group != Some(theme) {
            if matches!(group, Some(Some(_))) {
                out.push_str("</theme>\n");
            }
            if let Some(id) = theme {
                out.push_str(&format!("<theme id=\"{}\">\n", escape(id)));
            }
            group = Some(theme);
        }
        used += element.len();
        out.push_str(&element);
    }
    if matches!(group, Some(Some(_))) {
        out.push_str("</theme>\n");
    }
    out.push_str("</comments>\n");
    if !left_out.is_empty() {
        out.push_str("<left_out>\n");
        for (dir, count) in &left_out {
            out.push_str(&format!(
                "<directory path=\"{}\" comments=\"{count}\"/>\n",
                escape(dir)
            ));
        }
        out.push_str("</left_out>\n");
    }
    (out, left_out)
}

/// The input, owned (copied once per run), so that tools can run on a blocking thread.
struct OwnedInput {
    repo: String,
    themes: crate::domain::themes::ThemeRun,
    comments: std::collections::BTreeMap<i64, crate::domain::findings::SourceComment>,
    history: crate::knowledge::history::HistoryReport,
    repo_path: Option<std::path::PathBuf>,
    settings: super::Settings,
}

impl OwnedInput {
    fn from(input: &Input<'_>) -> OwnedInput {
        OwnedInput {
            repo: input.repo.to_string(),
            themes: input.themes.clone(),
            comments: input.comments.clone(),
            history: input.history.clone(),
            repo_path: input.repo_path.map(|p| p.to_path_buf()),
            settings: input.settings.clone(),
        }
    }

    fn as_input(&self) -> Input<'_> {
        Input {
            repo: &self.repo,
            themes: &self.themes,
            comments: &self.comments,
            history: &self.history,
            repo_path: self.repo_path.as_deref(),
            settings: &self.settings,
        }
    }
}
