//! `llm-quality`: the scorecard of the configured LLM classifier (`GITLORE_LLM_*`, or a model's
//! recorded answers with `--cassettes`) on the labelled corpus, printed as `quality` prints the
//! built-in one's. Each repository's comments go through the App's ingestion and the analysis's
//! classification (`scorecard::llm_verdicts`): the filter's sure noise stays out, the model judges
//! the rest, noise included. Its answers are kept in a store per repository (`--data-dir`), so
//! that a second run asks only what the first did not get.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Result, bail};

use gitlore::domain::classification::Label;
use gitlore::knowledge::classify::llm::prompt_version;
use gitlore::knowledge::filter::NoiseRules;
use gitlore::llm::LlmClient;
use gitlore_bench::quality;
use gitlore_bench::scorecard;
use gitlore_lab::corpus::{Corpus, Record, Split};

use crate::quality::{DEFAULT_CORPUS, print_labels, print_labels_side_by_side, print_summary};
use crate::recorded::RecordedArgs;

/// Per comment: whether it was called noise, and its labels.
type Prediction = (bool, Vec<Label>);

#[derive(Debug, clap::Args)]
pub struct LlmQualityArgs {
    /// The labelled corpus directory.
    #[arg(long, default_value = DEFAULT_CORPUS)]
    corpus: PathBuf,
    /// The comments to ask about: those of the `test` split, the `train` split, or `all`.
    #[arg(long, default_value = "test", value_parser = ["test", "train", "all"])]
    split: String,
    /// Only these repositories (owner/name, repeatable) of the split.
    #[arg(long = "repo")]
    repos: Vec<String>,
    /// Keep the model's answers in this directory (one gitlore store per repository), so that a
    /// second run asks only what changed: the prompt, the model or a comment. Default: temporary.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    #[command(flatten)]
    recorded: RecordedArgs,
}

/// Asks the configured model (or its recorded answers) about the split's comments, each
/// repository as the App's analysis asks, and prints its scorecard.
pub fn run(args: LlmQualityArgs) -> Result<()> {
    let (settings, replaying) = args.recorded.settings()?;
    let Some(llm) = settings.llm else {
        bail!(
            "llm-quality needs a model: set GITLORE_LLM_PROVIDER (openai or anthropic), \
             GITLORE_LLM_MODEL and GITLORE_LLM_API_KEY (and GITLORE_LLM_BASE_URL for another \
             endpoint), or replay recorded answers with --cassettes DIR"
        );
    };
    let model = format!("{} {}", llm.provider.as_str(), llm.model);
    let client = LlmClient::new(llm)?.metered(u64::MAX);
    let corpus = Corpus::load(&args.corpus)?;
    let records: Vec<&Record> = match args.split.as_str() {
        "test" => corpus.split(Split::Test),
        "train" => corpus.split(Split::Train),
        _ => corpus.records.iter().collect(),
    }
    .into_iter()
    .filter(|r| args.repos.is_empty() || args.repos.contains(&r.repo))
    .collect();

    let started = Instant::now();
    let (predictions, summary) = predict(&client, &corpus, &records, args.data_dir.as_deref())?;
    println!(
        "llm-quality: {model}, prompt {}, {} split: {} comments; {}; {:.1} s",
        prompt_version(),
        args.split,
        records.len(),
        summary,
        started.elapsed().as_secs_f64()
    );
    if let Some(replaying) = &replaying {
        println!("{}", replaying.summary(args.recorded.misses.as_deref()));
    }
    let scores = quality::score_predictions(&records, &predictions);
    print_labels(&scores);
    print_summary("all", &scores);
    for repo in corpus.repos() {
        let (mine, theirs): (Vec<&Record>, Vec<Prediction>) = records
            .iter()
            .zip(&predictions)
            .filter(|(r, _)| r.repo == repo)
            .map(|(r, p)| (*r, p.clone()))
            .unzip();
        if !mine.is_empty() {
            print_summary(repo, &quality::score_predictions(&mine, &theirs));
        }
    }
    print_second_pass(&corpus, &records, &predictions);
    Ok(())
}

/// What the App decides of each record, repository by repository as its analysis asks the model
/// (the filter's sure noise aside), with a sentence on how it was got. Fails when the model
/// answered none of them.
fn predict(
    client: &LlmClient,
    corpus: &Corpus,
    records: &[&Record],
    data_dir: Option<&Path>,
) -> Result<(Vec<Prediction>, String)> {
    let rules = NoiseRules::new(None, None, &[]);
    let mut by_id: HashMap<&str, Prediction> = HashMap::new();
    let mut notes = Vec::new();
    for repo in corpus.repos() {
        let mine: Vec<&Record> = records.iter().copied().filter(|r| r.repo == repo).collect();
        if mine.is_empty() {
            continue;
        }
        let dir = data_dir.map(|d| d.join(repo.replace('/', "__")));
        let (verdicts, repo_notes) =
            scorecard::llm_verdicts(&mine, &rules, client, dir.as_deref())?;
        notes.extend(repo_notes.into_iter().map(|note| format!("{repo}: {note}")));
        for (record, verdict) in mine.iter().zip(verdicts) {
            by_id.insert(record.id.as_str(), verdict);
        }
    }
    if !records.is_empty() && client.tokens_used() == 0 && !notes.is_empty() {
        bail!(
            "the model answered none of the comments asked about: {}",
            notes.join("; ")
        );
    }
    let predictions: Vec<Prediction> = records
        .iter()
        .map(|r| by_id.remove(r.id.as_str()).unwrap_or((true, Vec::new())))
        .collect();
    let classified = predictions.iter().filter(|p| !p.0).count();
    let tokens = client.tokens_used();
    let summary = format!(
        "{tokens} tokens ({:.0} per 1,000 comments), {classified} labelled{}",
        tokens as f64 * 1000.0 / records.len().max(1) as f64,
        if notes.is_empty() {
            String::new()
        } else {
            format!("; {}", notes.join("; "))
        }
    );
    Ok((predictions, summary))
}

/// The model beside the second labeller, on the comments of the second-pass sample it read.
fn print_second_pass(corpus: &Corpus, records: &[&Record], predictions: &[Prediction]) {
    let read: HashMap<&str, &Prediction> = records
        .iter()
        .map(|r| r.id.as_str())
        .zip(predictions)
        .collect();
    let mut sample = Vec::new();
    let (mut person, mut model) = (Vec::new(), Vec::new());
    for second in &corpus.second_pass {
        if let (Some(record), Some(prediction)) =
            (corpus.record(&second.id), read.get(second.id.as_str()))
        {
            sample.push(record);
            person.push((second.noise.is_some(), second.labels.clone()));
            model.push((*prediction).clone());
        }
    }
    if sample.is_empty() {
        return;
    }
    println!(
        "\n== the second-pass sample's comments read here ({} of {}): a second labeller against the first, and the model ==",
        sample.len(),
        corpus.second_pass.len()
    );
    let people = quality::score_predictions(&sample, &person);
    let ours = quality::score_predictions(&sample, &model);
    print_labels_side_by_side(&people, &ours, "model");
    print_summary("second labeller", &people);
    print_summary("model", &ours);
}
