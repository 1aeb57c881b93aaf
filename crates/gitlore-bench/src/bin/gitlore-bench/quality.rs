//! `quality`: the scorecard of the noise filter and the classifier on the labelled corpus, per
//! split and per repository, with leave-one-repository-out figures and the classifier's speed.
//! `train`: fits the built-in classifier on the corpus's training split and writes `model.tsv`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};

use gitlore::domain::classification::Label;
use gitlore_bench::quality::{self, Counts, MACRO_MIN_SUPPORT, Models, Scores};
use gitlore_lab::builtin::train::Options;
use gitlore_lab::corpus::{Corpus, Record, Split};

/// The corpus of the repository, relative to the crate.
pub const DEFAULT_CORPUS: &str = "tests/fixtures/corpus";
/// Where `train` writes the models.
const MODEL_DIR: &str = "crates/gitlore-lab/src/builtin";

#[derive(Debug, clap::Args)]
pub struct QualityArgs {
    /// The labelled corpus directory.
    #[arg(long, default_value = DEFAULT_CORPUS)]
    corpus: PathBuf,
    /// Also leave each repository of the whole corpus out in turn (slower; trains on the test
    /// split's repositories too, so it is a figure about the method, not about the shipped model).
    #[arg(long)]
    all_repos_out: bool,
    /// Print the noise filter's mistakes on the training split, each repository read by models
    /// trained without it (never the test split's: looking at them would be tuning on them),
    /// then stop.
    #[arg(long)]
    noise_errors: bool,
    /// Print the classifier's mistakes on one label (`bug`, `testing`, …) on the training split's
    /// substantive comments, read as `--noise-errors` reads them, then stop.
    #[arg(long, value_name = "LABEL", value_parser = parse_label)]
    label_errors: Option<Label>,
    /// Print only the speed of the noise filter and the classifier, then stop.
    #[arg(long)]
    throughput_only: bool,
    /// Hyperparameters of the leave-one-out training (defaults: those `train` uses).
    #[command(flatten)]
    options: OptionArgs,
}

/// Training hyperparameters, to compare settings by their leave-one-out figures.
#[derive(Debug, clap::Args)]
struct OptionArgs {
    #[arg(long)]
    epochs: Option<usize>,
    #[arg(long)]
    l2: Option<f32>,
    #[arg(long)]
    learning_rate: Option<f32>,
    #[arg(long)]
    min_groups: Option<usize>,
    #[arg(long)]
    rule_prior: Option<f32>,
    #[arg(long)]
    balance: Option<f32>,
    /// Skip the scorecards of the shipped model (only the leave-one-out figures).
    #[arg(long)]
    loro_only: bool,
}

impl OptionArgs {
    fn options(&self) -> Options {
        let defaults = Options::default();
        Options {
            epochs: self.epochs.unwrap_or(defaults.epochs),
            l2: self.l2.unwrap_or(defaults.l2),
            learning_rate: self.learning_rate.unwrap_or(defaults.learning_rate),
            min_groups: self.min_groups.unwrap_or(defaults.min_groups),
            rule_prior: self.rule_prior.unwrap_or(defaults.rule_prior),
            balance: self.balance.unwrap_or(defaults.balance),
            ..defaults
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct TrainArgs {
    /// The labelled corpus directory.
    #[arg(long, default_value = DEFAULT_CORPUS)]
    corpus: PathBuf,
    /// The directory to write `labels.tsv` and `noise.tsv` into.
    #[arg(long, default_value = MODEL_DIR)]
    out: PathBuf,
}

/// Trains on the training split only and writes the model file.
pub fn train(args: TrainArgs) -> Result<()> {
    let corpus = Corpus::load(&args.corpus)?;
    let records = corpus.split(Split::Train);
    let started = Instant::now();
    let (labels, noise) = quality::train_models(&records, Options::default());
    let repos = corpus
        .repos()
        .into_iter()
        .filter(|repo| corpus.split_of(repo) == Split::Train)
        .collect::<Vec<_>>()
        .join(", ");
    let what = [
        (
            "labels.tsv",
            &labels,
            format!(
                "{} substantive comments, one output per label",
                quality::label_examples(&records).len()
            ),
        ),
        (
            "noise.tsv",
            &noise,
            format!(
                "{} comments by authors not known as bots, one output: content-free or not",
                quality::noise_examples(&records).len()
            ),
        ),
    ];
    for (file, model, examples) in what {
        let header = format!(
            "gitlore's built-in classifier, written by `gitlore-bench train`: do not edit by hand.\n\
             Logistic regression on the {examples}, of the corpus's training split ({repos}).\n\
             Thresholds: per output, the best F1 on predictions for repositories held out of training."
        );
        let path = args.out.join(file);
        std::fs::write(&path, model.to_tsv(&header))
            .with_context(|| format!("Cannot write {}", path.display()))?;
        let thresholds: Vec<String> = model
            .outputs
            .iter()
            .zip(&model.thresholds)
            .map(|(output, threshold)| format!("{output} {threshold:.3}"))
            .collect();
        println!(
            "{}: {} features, thresholds {}",
            path.display(),
            model.features.len(),
            thresholds.join(", ")
        );
    }
    println!("trained in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

fn parse_label(name: &str) -> Result<Label, String> {
    Label::parse(name).ok_or_else(|| {
        let names: Vec<&str> = Label::ALL.iter().map(|l| l.as_str()).collect();
        format!("not a label; one of {}", names.join(", "))
    })
}

/// The held-out classifier's false positives (`+`) and misses (`-`) of `label` on the training
/// split's substantive comments that the filter keeps.
fn print_label_errors(corpus: &Corpus, label: Label, options: Options) {
    let train_records = corpus.split(Split::Train);
    for held in quality::held_out_predictions(&train_records, options) {
        let record = held.record;
        if held.noise || record.noise.is_some() {
            continue;
        }
        let predicted = held.labels.contains(&label);
        if predicted == record.labels.contains(&label) {
            continue;
        }
        let gold: Vec<&str> = record.labels.iter().map(|l| l.as_str()).collect();
        println!(
            "{} {} gold [{}] {}: {:?}",
            if predicted { "+" } else { "-" },
            record.id,
            gold.join(","),
            record.kind,
            record.body
        );
    }
}

/// Prints the scorecard.
pub fn run(args: QualityArgs) -> Result<()> {
    let corpus = Corpus::load(Path::new(&args.corpus))?;
    if args.throughput_only {
        println!("{}", throughput(&corpus));
        return Ok(());
    }
    if let Some(label) = args.label_errors {
        print_label_errors(&corpus, label, args.options.options());
        return Ok(());
    }
    if args.noise_errors {
        // Models trained without the comment's repository, as for a repository never seen.
        let train_records = corpus.split(Split::Train);
        for held in quality::held_out_predictions(&train_records, args.options.options()) {
            let record = held.record;
            if held.noise != record.noise.is_some() {
                let gold = record.noise.as_deref().unwrap_or("-");
                let rules = if held.noise_by_rules {
                    "rules"
                } else {
                    "model"
                };
                println!(
                    "{} gold {gold} ({rules}) by {}{}: {:?}",
                    record.id,
                    record.author,
                    if record.by_pr_author() {
                        " (PR author)"
                    } else {
                        ""
                    },
                    record.body
                );
            }
        }
        return Ok(());
    }
    println!(
        "corpus: {} comments, {} repositories, {} gold themes",
        corpus.records.len(),
        corpus.repos().len(),
        corpus.themes.len()
    );
    // Measured before the training runs below, as `--throughput-only` measures it (after them
    // the same code read about 88,000 comments/s on days it read 91,000 or more alone); printed
    // last.
    let speed = (!args.options.loro_only).then(|| throughput(&corpus));
    let splits = if args.options.loro_only {
        Vec::new()
    } else {
        vec![Split::Train, Split::Test]
    };
    for split in splits {
        let records = corpus.split(split);
        let scores = quality::score(&records, Models::shipped());
        println!("\n== {} split (shipped model) ==", split.as_str());
        print_labels(&scores);
        print_summary("all", &scores);
        for repo in corpus.repos() {
            if corpus.split_of(repo) != split {
                continue;
            }
            let mine: Vec<&Record> = records.iter().copied().filter(|r| r.repo == repo).collect();
            print_summary(repo, &quality::score(&mine, Models::shipped()));
        }
    }
    let started = Instant::now();
    let train_records = corpus.split(Split::Train);
    let held = quality::held_out_predictions(&train_records, args.options.options());
    let (pooled, each) = quality::pooled_and_each(&held);
    println!(
        "\n== leave one repository out, within the training split ({:.1} s) ==",
        started.elapsed().as_secs_f64()
    );
    print_labels(&pooled);
    print_summary("pooled", &pooled);
    for (repo, scores) in &each {
        print_summary(repo, scores);
    }
    if !corpus.second_pass.is_empty() {
        println!(
            "\n== the second-pass sample ({} comments): a second labeller against the first, and gitlore on repositories it has not seen ==",
            corpus.second_pass.len()
        );
        let people = quality::second_labeller(&corpus);
        let unseen = quality::unseen_on_second_pass(&corpus, &held);
        print_labels_side_by_side(&people, &unseen, "gitlore");
        print_summary("second labeller", &people);
        print_summary("gitlore, unseen repositories", &unseen);
    }
    if args.all_repos_out {
        let all: Vec<&Record> = corpus.records.iter().collect();
        let (pooled, each) = quality::leave_one_repo_out(&all, args.options.options());
        println!("\n== leave one repository out, over every repository ==");
        print_labels(&pooled);
        print_summary("pooled", &pooled);
        for (repo, scores) in &each {
            print_summary(repo, scores);
        }
    }
    if let Some(speed) = speed {
        println!("{speed}");
    }
    Ok(())
}

pub fn print_labels(scores: &Scores) {
    println!(
        "{:<14} {:>6} {:>6} {:>6} {:>5}",
        "label", "P", "R", "F1", "n"
    );
    for label in Label::ALL {
        let counts = scores.labels[label as usize];
        println!(
            "{:<14} {:>6.3} {:>6.3} {:>6.3} {:>5}{}",
            label.as_str(),
            counts.precision(),
            counts.recall(),
            counts.f1(),
            counts.support(),
            macro_mark(counts)
        );
    }
}

/// Per-label F1 of two scorecards of the same comments: a person's and `name`'s.
pub fn print_labels_side_by_side(people: &Scores, gitlore: &Scores, name: &str) {
    println!("{:<14} {:>5} {:>8} {:>8}", "label", "n", "person", name);
    for label in Label::ALL {
        let (person, model) = (
            people.labels[label as usize],
            gitlore.labels[label as usize],
        );
        println!(
            "{:<14} {:>5} {:>8.3} {:>8.3}{}",
            label.as_str(),
            person.support(),
            person.f1(),
            model.f1(),
            macro_mark(person)
        );
    }
}

/// A note after a label too rare to count towards macro-F1.
fn macro_mark(counts: Counts) -> &'static str {
    if counts.support() >= MACRO_MIN_SUPPORT {
        ""
    } else {
        "  (not in macro-F1)"
    }
}

pub fn print_summary(name: &str, scores: &Scores) {
    println!(
        "{name:<28} comments {:>4}  macro-F1 {:.3}  noise P {:.3} R {:.3} (n {:>3})  labelled {:.3} of {}",
        scores.comments,
        scores.macro_f1(),
        scores.noise.precision(),
        scores.noise.recall(),
        scores.noise.support(),
        scores.labelled_share(),
        scores.substantive
    );
}

/// Comments per second through the noise filter and the classifier, over the corpus's bodies: the
/// median of 50 rounds, so that a round slowed by a busy neighbour does not set the figure.
fn throughput(corpus: &Corpus) -> String {
    let rules = gitlore::knowledge::filter::NoiseRules::new(None, None, &[]);
    let rounds = 50;
    let mut labels = 0_usize;
    let mut seconds: Vec<f64> = (0..rounds)
        .map(|_| {
            let started = Instant::now();
            for record in &corpus.records {
                let (noise, predicted) = quality::predict(&rules, Models::shipped(), record);
                labels += usize::from(noise) + predicted.len();
            }
            started.elapsed().as_secs_f64()
        })
        .collect();
    seconds.sort_by(f64::total_cmp);
    let (fastest, median, slowest) = (seconds[0], seconds[rounds / 2], seconds[rounds - 1]);
    let comments = corpus.records.len() as f64;
    format!(
        "\nnoise filter + classifier: {:.0} comments/s (median of {rounds} rounds over {} comments; fastest round {:.0}/s, slowest {:.0}/s; {labels} outputs; one core)",
        comments / median,
        corpus.records.len(),
        comments / fastest,
        comments / slowest
    )
}
