//! `findings`: the findings scorecard on the labelled corpus, per split and per repository — gold
//! themes recovered by a theme and by a finding, evidence precision, findings citing noise, and
//! the findings' titles: the share accepted as a whole sentence of advice, and their mean
//! similarity to the gold title of the gold theme each recovers best.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};

use gitlore::analysis::theme_run::Models as AnalysisModels;
use gitlore::domain::findings::Finding;
use gitlore::knowledge::embed::remote::RemoteEmbedder;
use gitlore::knowledge::filter::NoiseRules;
use gitlore::knowledge::synthesize::title::whole_sentence_of_advice;
use gitlore::llm::LlmClient;
use gitlore_bench::quality::{self, Models};
use gitlore_bench::scorecard::{self, RepoScore, Setup};
use gitlore_lab::builtin::train::Options;
use gitlore_lab::corpus::{Corpus, GoldTheme, Record, Split};

use crate::recorded::{RecordedArgs, Replaying};

#[derive(Debug, clap::Args)]
pub struct FindingsArgs {
    /// The labelled corpus directory.
    #[arg(long, default_value = "tests/fixtures/corpus")]
    corpus: PathBuf,
    /// On the training split, also print each finding's title and cited comments (in its gold
    /// theme, about its files, noise), each theme's members and the gold themes missed; with
    /// `--pooled`, the pooled training split's findings too. The test split is only ever scored.
    #[arg(long)]
    verbose: bool,
    /// Read each training repository with models trained on the other training repositories, as
    /// an unseen repository is read (the shipped models have seen it). Trains once per repository.
    #[arg(long)]
    held_out: bool,
    /// Also read each split's repositories as the comments of one repository (the training
    /// split's are about 3,800), with the shipped models: whether themes and findings hold at a
    /// size no repository of the corpus has. A gold theme is still one repository's.
    #[arg(long)]
    pooled: bool,
    /// Analyse with the configured LLM and embedder (`GITLORE_LLM_*`, `GITLORE_EMBED_*`) as the
    /// App does when they are set: LLM labels, remote vectors, the LLM synthesizer. What fell
    /// back to a built-in component is printed per repository on stderr.
    #[arg(long, conflicts_with = "pooled")]
    configured_models: bool,
    /// Keep each repository's store in this directory (one folder per repository), so that a
    /// second run reuses the configured models' cached answers. Default: throw-away stores.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Only these repositories (owner/name, repeatable).
    #[arg(long = "repo")]
    repos: Vec<String>,
    /// With --configured-models: a model's recorded answers instead of the configured LLM.
    #[command(flatten)]
    recorded: RecordedArgs,
}

/// The configured LLM and embedder, when asked for.
struct Configured {
    llm: Option<LlmClient>,
    embedder: Option<RemoteEmbedder>,
}

impl Configured {
    fn load(wanted: bool, recorded: &RecordedArgs) -> Result<(Configured, Option<Replaying>)> {
        if !wanted {
            if recorded.cassettes.is_some() {
                bail!("--cassettes replays a model's answers: it goes with --configured-models");
            }
            let none = Configured {
                llm: None,
                embedder: None,
            };
            return Ok((none, None));
        }
        let (settings, replaying) = recorded.settings()?;
        if settings.llm.is_none() && settings.embed.is_none() {
            bail!(
                "--configured-models needs a model: set GITLORE_LLM_PROVIDER, GITLORE_LLM_MODEL and \
                 GITLORE_LLM_API_KEY, or GITLORE_EMBED_BASE_URL and GITLORE_EMBED_MODEL, or replay \
                 recorded answers with --cassettes DIR"
            );
        }
        let configured = Configured {
            llm: settings.llm.map(LlmClient::new).transpose()?,
            embedder: settings.embed.map(RemoteEmbedder::new).transpose()?,
        };
        Ok((configured, replaying))
    }
}

pub fn run(args: FindingsArgs) -> Result<()> {
    let corpus = Corpus::load(&args.corpus)?;
    let rules = NoiseRules::new(None, None, &[]);
    let (configured, replaying) = Configured::load(args.configured_models, &args.recorded)?;
    let started = Instant::now();
    if args.held_out {
        println!("training repositories read by models trained without them");
    }
    println!(
        "{:<28} {:>5} {:>5} {:>8} {:>10} {:>7} {:>9} {:>8} {:>10} {:>6} {:>9} {:>9}",
        "repository",
        "split",
        "gold",
        "themes",
        "by theme",
        "purity",
        "findings",
        "by find",
        "precision",
        "noisy",
        "titles ok",
        "title sim"
    );
    for split in [Split::Train, Split::Test] {
        let mut total = RepoScore {
            repo: format!("all {}", split.as_str()),
            ..RepoScore::default()
        };
        for repo in corpus.repos() {
            if corpus.split_of(repo) != split
                || !(args.repos.is_empty() || args.repos.iter().any(|r| r == repo))
            {
                continue;
            }
            let records: Vec<_> = corpus.records.iter().filter(|r| r.repo == repo).collect();
            let gold: Vec<_> = corpus.themes.iter().filter(|t| t.repo == repo).collect();
            let trained = (args.held_out && split == Split::Train).then(|| {
                let others: Vec<&Record> = corpus
                    .split(Split::Train)
                    .into_iter()
                    .filter(|r| r.repo != repo)
                    .collect();
                quality::train_models(&others, Options::default())
            });
            let classifier = trained
                .as_ref()
                .map(|(labels, noise)| Models { labels, noise });
            let store_dir = args
                .data_dir
                .as_ref()
                .map(|dir| dir.join(repo.replace('/', "__")));
            let metered = configured.llm.as_ref().map(|llm| llm.metered(u64::MAX));
            let setup = Setup {
                classifier,
                models: AnalysisModels {
                    llm: metered.as_ref(),
                    embedder: configured.embedder.as_ref(),
                },
                store_dir: store_dir.as_deref(),
                ..Setup::default()
            };
            let published = scorecard::publish_with(&records, &rules, &setup)?;
            for note in &published.notes {
                eprintln!("{repo}: {note}");
            }
            if let Some(llm) = &metered {
                eprintln!("{repo}: {} LLM tokens", llm.tokens_used());
            }
            let score = scorecard::score(repo, &records, &gold, &published);
            print_row(&score, split);
            // The test split is only ever scored, never read.
            if args.verbose && split == Split::Train {
                print_findings(&records, &gold, &published.findings);
                let models = classifier.unwrap_or(Models::shipped());
                let set_aside = |record: &Record| quality::predict(&rules, models, record).0;
                print_themes(&records, &gold, &published, set_aside);
            }
            total.add(&score);
        }
        print_row(&total, split);
        if args.pooled {
            // The test split is only ever scored, never read.
            let verbose = args.verbose && split == Split::Train;
            print_row(&pooled_score(&corpus, split, &rules, verbose)?, split);
        }
        println!(
            "  {}: {:.0}% of gold themes recovered by a finding, evidence precision {:.3}, {} citing noise, theme purity {:.3}, {:.0}% of titles accepted, title similarity {:.3}",
            split.as_str(),
            100.0 * total.recovered_share(),
            total.evidence_precision(),
            match total.citing_noise {
                1 => "1 finding".to_string(),
                n => format!("{n} findings"),
            },
            total.purity(),
            100.0 * total.accepted_titles(),
            total.mean_title_similarity()
        );
    }
    if let Some(replaying) = &replaying {
        println!("{}", replaying.summary(args.recorded.misses.as_deref()));
    }
    println!("({:.1} s)", started.elapsed().as_secs_f64());
    Ok(())
}

/// The score of one split's repositories read as one repository; with `verbose`, each finding's
/// title and cited comments too.
fn pooled_score(
    corpus: &Corpus,
    split: Split,
    rules: &NoiseRules,
    verbose: bool,
) -> Result<RepoScore> {
    let name = format!("pooled {}", split.as_str());
    let repos: Vec<&str> = corpus
        .repos()
        .into_iter()
        .filter(|r| corpus.split_of(r) == split)
        .collect();
    let pooled = scorecard::pool(&corpus.split(split), &repos, &name);
    let records: Vec<&Record> = pooled.iter().collect();
    let gold: Vec<&GoldTheme> = corpus
        .themes
        .iter()
        .filter(|t| repos.contains(&t.repo.as_str()))
        .collect();
    let published = scorecard::publish(&records, rules, None)?;
    if verbose {
        print_findings(&records, &gold, &published.findings);
    }
    Ok(scorecard::score(&name, &records, &gold, &published))
}

fn print_row(score: &RepoScore, split: Split) {
    println!(
        "{:<28} {:>5} {:>5} {:>8} {:>10} {:>7.3} {:>9} {:>8} {:>10.3} {:>6} {:>9.3} {:>9.3}",
        score.repo,
        split.as_str(),
        score.gold_themes,
        score.themes,
        score.by_theme,
        score.purity(),
        score.findings,
        score.by_finding,
        score.evidence_precision(),
        score.citing_noise,
        score.accepted_titles(),
        score.mean_title_similarity()
    );
}

/// Each finding's title (marked when not accepted) and cited ids, then its citations.
fn print_findings(
    records: &[&Record],
    gold: &[&GoldTheme],
    findings: &[(Finding, Vec<Option<String>>)],
) {
    for (finding, cited) in findings {
        let ids: Vec<&str> = cited
            .iter()
            .map(|id| id.as_deref().unwrap_or("?"))
            .collect();
        let mark = if whole_sentence_of_advice(&finding.title) {
            ""
        } else {
            "(title not accepted) "
        };
        println!("    - {mark}{} [{}]", finding.title, ids.join(" "));
        print_citations(records, gold, finding, cited);
    }
}

/// The gold theme holding the most of `ids`, when one holds any.
fn best_gold<'g>(gold: &[&'g GoldTheme], ids: &[&str]) -> Option<&'g GoldTheme> {
    let holds = |t: &GoldTheme| {
        ids.iter()
            .filter(|id| t.comment_ids.iter().any(|c| c == *id))
            .count()
    };
    gold.iter()
        .copied()
        .max_by_key(|t| holds(t))
        .filter(|t| holds(t) > 0)
}

/// One line per cited comment: `+` in the finding's gold theme, `f` substantive about its files,
/// `-` neither, `N` noise; then the author (`*` for the PR author) and an excerpt.
fn print_citations(
    records: &[&Record],
    gold: &[&GoldTheme],
    finding: &Finding,
    cited: &[Option<String>],
) {
    let ids: Vec<&str> = cited.iter().flatten().map(String::as_str).collect();
    let best = best_gold(gold, &ids);
    if let Some(theme) = best {
        println!("      gold {}: {}", theme.id, theme.title);
    }
    for id in &ids {
        let Some(record) = records.iter().find(|r| r.id == *id) else {
            continue;
        };
        let on_files = record
            .path
            .as_ref()
            .is_some_and(|p| finding.files.contains(p));
        println!(
            "      {} {}",
            mark(record, best, on_files),
            describe(record)
        );
    }
}

/// A comment's mark: `N` noise, `+` in the best gold theme, `f` about the finding's files, `-`.
fn mark(record: &Record, best: Option<&GoldTheme>, on_files: bool) -> &'static str {
    if record.noise.is_some() {
        "N"
    } else if best.is_some_and(|t| t.comment_ids.contains(&record.id)) {
        "+"
    } else if on_files {
        "f"
    } else {
        "-"
    }
}

/// Each theme's members, marked as in [`print_citations`] against the theme's best gold theme.
/// A missed gold theme's comments are marked with the theme they went to, `n` when the filter set
/// them aside (`set_aside`), or `·`.
fn print_themes(
    records: &[&Record],
    gold: &[&GoldTheme],
    published: &scorecard::Published,
    set_aside: impl Fn(&Record) -> bool,
) {
    for (i, members) in published.themes.iter().enumerate() {
        let ids: Vec<&str> = members.iter().map(String::as_str).collect();
        let best = best_gold(gold, &ids);
        println!(
            "    theme {i} ({} members) gold {}",
            members.len(),
            best.map_or("-", |t| t.id.as_str())
        );
        for id in &ids {
            let Some(record) = records.iter().find(|r| r.id == *id) else {
                continue;
            };
            println!("      {} {}", mark(record, best, false), describe(record));
        }
    }
    for theme in gold {
        let found = published
            .themes
            .iter()
            .any(|t| t.iter().filter(|id| theme.comment_ids.contains(id)).count() >= 2);
        if !found {
            println!("    missed gold {}: {}", theme.id, theme.title);
            for id in &theme.comment_ids {
                if let Some(record) = records.iter().find(|r| r.id == *id) {
                    let placed = published.themes.iter().position(|t| t.contains(id));
                    let mark = match placed {
                        Some(theme) => theme.to_string(),
                        None if set_aside(record) => "n".to_string(),
                        None => "·".to_string(),
                    };
                    println!("      {mark} {}", describe(record));
                }
            }
        }
    }
}

fn describe(record: &Record) -> String {
    let body: String = record.body.split_whitespace().collect::<Vec<_>>().join(" ");
    let body: String = body.chars().take(150).collect();
    format!(
        "{} #{} {}{} {} [{}] {}",
        record.id,
        record.pr,
        record.author,
        if record.by_pr_author() { "*" } else { "" },
        record.kind,
        record.path.as_deref().unwrap_or(""),
        body
    )
}
