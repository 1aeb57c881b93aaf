//! `llm-quality`: the scorecard of the configured LLM classifier (`GITLORE_LLM_*`) on the labelled
//! corpus, printed as `quality` prints the built-in one's. The comments go through the built-in
//! noise filter first, as in the App; the model labels the rest, asked exactly as the analysis
//! asks it (`classify::llm::classify_comments`), and its answers are kept in a store so that a
//! second run asks only what the first did not get.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use gitlore::config::Settings;
use gitlore::domain::classification::Label;
use gitlore::knowledge::classify::llm::{Asked, Source, classify_comments, prompt_version};
use gitlore::knowledge::corpus::{Corpus, Record, Split};
use gitlore::knowledge::filter::NoiseRules;
use gitlore::knowledge::quality::{self, Models};
use gitlore::llm::LlmClient;
use gitlore::store::{self, Store};

use crate::quality::{DEFAULT_CORPUS, print_labels, print_labels_side_by_side, print_summary};

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
    /// Keep the model's answers in this directory (a gitlore store), so that a second run asks
    /// only what changed: the prompt, the model or a comment. Default: a temporary directory.
    #[arg(long)]
    data_dir: Option<PathBuf>,
}

/// Asks the configured model about the split's comments and prints its scorecard.
pub fn run(args: LlmQualityArgs) -> Result<()> {
    let settings = Settings::load(None).context("Cannot read the GITLORE_* settings")?;
    let Some(llm) = settings.llm else {
        bail!(
            "llm-quality needs a model: set GITLORE_LLM_PROVIDER (openai or anthropic), \
             GITLORE_LLM_MODEL and GITLORE_LLM_API_KEY (and GITLORE_LLM_BASE_URL for another endpoint)"
        );
    };
    let model = format!("{} {}", llm.provider.as_str(), llm.model);
    let client = LlmClient::new(llm)?;
    let corpus = Corpus::load(&args.corpus)?;
    let records: Vec<&Record> = match args.split.as_str() {
        "test" => corpus.split(Split::Test),
        "train" => corpus.split(Split::Train),
        _ => corpus.records.iter().collect(),
    };
    let temporary = tempfile::tempdir().context("Cannot create a temporary directory")?;
    let dir = args.data_dir.as_deref().unwrap_or(temporary.path());
    std::fs::create_dir_all(dir).with_context(|| format!("Cannot create {}", dir.display()))?;
    let store = Store::open(&store::database_path(dir))?;

    let started = Instant::now();
    let (predictions, summary) = predict(&client, &store, &records)?;
    println!(
        "llm-quality: {model}, prompt {}, {} split: {} comments; {}; {:.1} s",
        prompt_version(),
        args.split,
        records.len(),
        summary,
        started.elapsed().as_secs_f64()
    );
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

/// What the App stores for each record: the built-in filter's verdict, and the model's labels of
/// the comments it keeps (the built-in labels where the model gave no usable answer), with a
/// sentence on how they were got. Fails when the model answered none of them.
fn predict(
    client: &LlmClient,
    store: &Store,
    records: &[&Record],
) -> Result<(Vec<Prediction>, String)> {
    let rules = NoiseRules::new(None, None, &[]);
    let judged: Vec<Prediction> = records
        .iter()
        .map(|record| quality::predict(&rules, Models::shipped(), record))
        .collect();
    let kept: Vec<usize> = (0..records.len()).filter(|&i| !judged[i].0).collect();
    let asked: Vec<Asked<'_>> = kept
        .iter()
        .map(|&i| Asked {
            body: &records[i].body,
            path: records[i].path.as_deref(),
            diff_hunk: records[i].diff_hunk.as_deref(),
        })
        .collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("Cannot start the async runtime")?;
    let (answers, stats) = runtime.block_on(classify_comments(client, store, &asked))?;
    let first_error = stats.errors.first();
    if !asked.is_empty() && stats.cached + stats.answered == 0 {
        bail!(
            "the model answered none of the {} comments asked about{}",
            asked.len(),
            first_error.map(|e| format!(": {e}")).unwrap_or_default()
        );
    }
    let mut predictions = judged;
    for (&at, (labels, source)) in kept.iter().zip(answers) {
        if source != Source::Fallback {
            predictions[at].1 = labels.into_iter().map(|s| s.label).collect();
        }
    }
    let fallbacks = if stats.fallbacks == 0 {
        String::new()
    } else {
        format!(
            ", {} got the built-in labels (no usable answer{})",
            stats.fallbacks,
            first_error
                .map(|e| format!("; first error: {e}"))
                .unwrap_or_default()
        )
    };
    let summary = format!(
        "{} kept by the built-in noise filter and asked about: {} answered by the model in {} requests, {} from the cache{fallbacks}; {} tokens",
        asked.len(),
        stats.answered,
        stats.requests,
        stats.cached,
        client.tokens_used()
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
