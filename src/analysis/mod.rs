//! One analysis of a repository (behaviour §3): themes of the window's review comments, synthesis with
//! the git history (both without what the repo config ignores), staleness, and the findings saved
//! with what the run read. The job runner and
//! `gitlore analyze` both run it; where the history comes from (a mirror, a local repository) is
//! theirs to decide.

pub mod effect;
pub mod history;
pub mod mirror_sync;
pub mod theme_run;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use anyhow::Result;

use crate::domain::classification::LlmVerdicts;
use crate::domain::findings::SourceComment;
use crate::domain::findings::{Category, Finding, Staleness};
use crate::domain::themes::ThemeRun;
use crate::domain::{RepoId, UnixMs};
use crate::ingest;
use crate::knowledge::classify::llm::model_tag;
use crate::knowledge::exclude::Exclusions;
use crate::knowledge::filter::NoiseRules;
use crate::knowledge::history::HistoryReport;
use crate::knowledge::synthesize::title::CutSwitches;
use crate::knowledge::synthesize::{self, Input, Limits, LlmSynthesizer, Synthesizer};
use crate::llm::LlmClient;
use crate::repo_config::RepoConfig;
use crate::store::Store;
use crate::store::findings::{self as stored, Listing};
use crate::store::{comments, llm_spend, publications};
use theme_run::{Models, run_themes_with};

/// Seconds in an average month, for windows given in months.
const MONTH_SECS: i64 = 2_629_746;

/// What an analysis reads besides the store.
pub struct Request<'a> {
    pub repo_id: RepoId,
    /// `owner/name`.
    pub repo: &'a str,
    pub config: &'a RepoConfig,
    pub history: &'a HistoryReport,
    /// A local clone or mirror, for the LLM's git tools.
    pub repo_path: Option<&'a Path>,
    /// When the run happens (its second is the first seen of new findings).
    pub now: UnixMs,
    /// Unix seconds: where the review window ends (`now`, or the newest input for `analyze`).
    pub window_end: i64,
    /// The LLM and embedder, when configured and allowed by the repo config.
    pub models: Models<'a>,
    /// Who is a bot and who is gitlore, for comments the current classifier has not read yet.
    pub rules: &'a NoiseRules,
}

/// What an analysis found, as the outputs need it.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub themes: ThemeRun,
    /// The comments of the window, by store id.
    pub comments: BTreeMap<i64, SourceComment>,
    /// The findings after this run: active, resolved by it, dismissed.
    pub listing: Listing,
    /// Ids of the active findings first seen in this run.
    pub new_ids: HashSet<String>,
    /// What fell back to a built-in component, and why.
    pub notes: Vec<String>,
    /// The review window the comments were taken from.
    pub window: Window,
    /// Whether the lessons help; the findings the hold-back keeps back are not in `listing`.
    pub effect: effect::Measured,
}

/// The review window of an analysis, and what it left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Unix seconds: the start (0 for the whole history).
    pub start: i64,
    /// Unix seconds: the end.
    pub end: i64,
    /// Review comments (not noise) written before the start.
    pub left_out: usize,
}

/// The start of a window of `months` ending at `end` (unix s); 0 months is everything.
pub fn window_start(end: i64, months: u32) -> i64 {
    if months == 0 {
        0
    } else {
        end - i64::from(months) * MONTH_SECS
    }
}

/// Runs one analysis of `request.repo_id` and saves its findings.
pub async fn run(store: &Store, request: &Request<'_>) -> Result<Outcome> {
    let analysis = &request.config.analysis;
    let window_start = window_start(request.window_end, analysis.window_months);
    let reclassified = store
        .write_derived(|tx| ingest::refresh_classifications(tx, request.repo_id, request.rules))?;
    if reclassified > 0 {
        tracing::info!(
            repo = request.repo,
            comments = reclassified,
            "comments reclassified by the current built-in classifier"
        );
    }
    let newest_comment = comments::newest_id(&store.reader()?, request.repo_id)?;
    let now = request.now.as_secs();
    let day = llm_spend::day_of(now);
    let mut budget_notes = Vec::new();
    let metered = match request.models.llm.filter(|_| analysis.llm) {
        Some(client) => metered_client(store, request.repo_id, &day, client, &mut budget_notes)?,
        None => None,
    };
    let models = Models {
        llm: metered.as_ref(),
        embedder: request.models.embedder,
    };
    let exclusions = Exclusions::from_config(analysis);
    let themes = run_themes_with(
        store,
        request.repo_id,
        window_start,
        now,
        models,
        &exclusions,
    )
    .await?;
    let tag = models.llm.map(model_tag);
    let verdicts = tag.as_deref().map_or(LlmVerdicts::Ignored, LlmVerdicts::Of);
    let mut comments =
        stored::load_source_comments(&store.reader()?, request.repo_id, window_start, verdicts)?;
    let left_out =
        stored::count_source_comments_before(&store.reader()?, request.repo_id, window_start)?;
    let before = Counted::of(&comments);
    comments.retain(|_, c| !exclusions.excludes_comment(&c.author, c.path.as_deref(), &c.body));
    let history = exclusions.filter_history(request.history);
    let excluded_everything = excluded_everything(
        &before,
        &Counted::of(&comments),
        !request.history.files_at_head.is_empty() && history.files_at_head.is_empty(),
    );
    if let Some(note) = excluded_everything {
        tracing::warn!(
            repo = request.repo,
            note,
            "the repo config leaves out everything"
        );
    }
    let history = &history;
    let settings = synthesize::Settings {
        window_start,
        now,
        reviewer_opt_out: analysis.reviewer_opt_out.clone(),
        categories: analysis
            .categories
            .iter()
            .filter_map(|name| name.parse::<Category>().ok())
            .collect(),
        // Checked when the repository's config was read: a bad name costs only its key.
        title_cuts: CutSwitches::parse(&analysis.title_cuts_off).unwrap_or_default(),
    };
    let input = Input {
        repo: request.repo,
        themes: &themes,
        comments: &comments,
        history,
        repo_path: request.repo_path,
        settings: &settings,
    };
    let synthesizer = match models.llm {
        Some(client) => Synthesizer::Llm(LlmSynthesizer {
            client,
            limits: Limits::default(),
        }),
        None => Synthesizer::BuiltIn,
    };
    let synthesis = synthesizer.run(&input).await;
    if let Some(client) = &metered {
        let used = client.tokens_used();
        store.write_derived(|tx| llm_spend::add(tx, request.repo_id, &day, used))?;
        if client.budget_spent() {
            budget_notes.push(budget_note(client, true));
        }
    }
    let mut findings: Vec<Finding> = synthesis.findings;
    let staleness = Staleness {
        files_at_head: history
            .head
            .as_ref()
            .map(|_| history.files_at_head.iter().cloned().collect()),
        comments_in_window: comments.keys().copied().collect(),
    };
    staleness.retain_fresh(&mut findings);
    store.write_derived(|tx| {
        stored::save_run(tx, request.repo_id, now, &findings)?;
        publications::save_couplings(tx, request.repo_id, &history.couplings)?;
        publications::record_analysis(
            tx,
            request.repo_id,
            UnixMs::from_secs(now),
            newest_comment,
            &request.config.schedule,
        )
    })?;
    let mut listing = stored::load(&store.reader()?, request.repo_id)?;
    let subject = effect::Subject {
        repo_id: request.repo_id,
        repo: request.repo,
        active: &listing.active,
        config: request.config,
        window_start,
        now,
    };
    let effect = effect::measure_lessons(store, &subject)?;
    listing.active.retain(|f| !effect.held_back.contains(&f.id));
    let new_ids = listing
        .active
        .iter()
        .filter(|f| f.first_seen == now)
        .map(|f| f.id.clone())
        .collect();
    let mut notes: Vec<String> = excluded_everything
        .map(str::to_string)
        .into_iter()
        .collect();
    notes.extend(themes.notes.iter().cloned());
    notes.extend(synthesis.notes);
    notes.extend(budget_notes);
    Ok(Outcome {
        themes,
        comments,
        listing,
        new_ids,
        notes,
        window: Window {
            start: window_start,
            end: request.window_end,
            left_out,
        },
        effect,
    })
}

/// The note when the repo config leaves out every review comment of the window.
pub const EVERY_COMMENT_EXCLUDED: &str = "The repo config (`ignore-authors`, `ignore-paths`, \
     `noise-commands`) leaves out every review comment in the window, so there is nothing to \
     learn from; check `.github/gitlore.toml`.";

/// The note when the repo config's `ignore-paths` leaves out every file.
pub const EVERY_FILE_EXCLUDED: &str = "The repo config's `ignore-paths` leaves out every file, so \
     no finding can point at code; check `.github/gitlore.toml`.";

/// Review comments of the window, and those of them on a file.
struct Counted {
    comments: usize,
    on_files: usize,
}

impl Counted {
    fn of(comments: &BTreeMap<i64, SourceComment>) -> Counted {
        Counted {
            comments: comments.len(),
            on_files: comments.values().filter(|c| c.path.is_some()).count(),
        }
    }
}

/// What to say when the repo config leaves out every review comment, or every file (each file
/// at the head, or each file commented on): nothing is left to learn from or point at.
fn excluded_everything(
    before: &Counted,
    after: &Counted,
    every_file_at_head: bool,
) -> Option<&'static str> {
    if before.comments > 0 && after.comments == 0 {
        Some(EVERY_COMMENT_EXCLUDED)
    } else if every_file_at_head || (before.on_files > 0 && after.on_files == 0) {
        Some(EVERY_FILE_EXCLUDED)
    } else {
        None
    }
}

/// The LLM client metered by what is left of the repository's budget for `day`; None (and a
/// note) when the budget is spent.
fn metered_client(
    store: &Store,
    repo_id: RepoId,
    day: &str,
    client: &LlmClient,
    notes: &mut Vec<String>,
) -> Result<Option<LlmClient>> {
    let Some(budget) = client.settings().daily_tokens else {
        return Ok(Some(client.metered(u64::MAX)));
    };
    let left = budget.saturating_sub(llm_spend::spent(&store.reader()?, repo_id, day)?);
    if left == 0 {
        tracing::info!(
            %repo_id,
            budget,
            "the LLM's daily token budget is spent: built-in components"
        );
        notes.push(budget_note(client, false));
        return Ok(None);
    }
    Ok(Some(client.metered(left)))
}

/// What the findings issue says when the daily budget ran out (`during` this analysis or before).
fn budget_note(client: &LlmClient, during: bool) -> String {
    let budget = client.settings().daily_tokens.unwrap_or(u64::MAX);
    let when = if during {
        "ran out during this analysis"
    } else {
        "is spent"
    };
    format!(
        "The LLM's daily budget for this repository ({budget} tokens) {when}: the built-in \
         components did the rest, and the LLM takes over again tomorrow (UTC)."
    )
}
