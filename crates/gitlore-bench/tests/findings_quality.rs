//! What the App publishes from real review comments, checked against the labelled corpus
//! (`tests/fixtures/corpus`): a lesson taught on several PRs becomes one finding whatever else is
//! around it, and on the test split the findings recover gold themes with precise evidence.

use std::collections::HashSet;
use std::path::Path;

use gitlore::knowledge::filter::NoiseRules;
use gitlore_bench::scorecard::{self, RepoScore};
use gitlore_lab::corpus::{Corpus, Record, Split};

/// Floors at or a little below the figures `gitlore-bench findings` measures on the test split
/// (README, "findings"): gold themes recovered by a finding, evidence precision, theme purity.
/// The targets are 0.75 recovered, 0.9 precision and no finding citing noise; the first two are
/// not met. A floor is raised when a change measures above it and never lowered to pass.
const RECOVERED_FLOOR: f64 = 0.43;
const PRECISION_FLOOR: f64 = 0.75;
const PURITY_FLOOR: f64 = 0.7;
/// The share of the built-in path's findings whose title is a whole sentence of advice
/// (`synthesize::title::check`): issue 48's target.
const ACCEPTED_TITLES_FLOOR: f64 = 0.9;

fn corpus() -> Corpus {
    Corpus::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/corpus"))
        .expect("the corpus loads")
}

fn rules() -> NoiseRules {
    NoiseRules::new(None, None, &[])
}

/// What the App publishes from one corpus repository's comments.
fn published_for(corpus: &Corpus, repo: &str) -> scorecard::Published {
    let records: Vec<&Record> = corpus.records.iter().filter(|r| r.repo == repo).collect();
    scorecard::publish(&records, &rules(), None).expect("the analysis runs")
}

/// The corpus records with `ids`, each of them there.
fn records_with<'a>(corpus: &'a Corpus, ids: &[&str]) -> Vec<&'a Record> {
    let records: Vec<&Record> = corpus
        .records
        .iter()
        .filter(|r| ids.contains(&r.id.as_str()))
        .collect();
    assert_eq!(records.len(), ids.len(), "{ids:?}");
    records
}

/// Five rails reviewers asking for `[ci skip]` on documentation-only commits.
const CI_SKIP: &str = "rails-t2";

/// The ids of the comments of gold theme `id`.
fn comments_of<'a>(corpus: &'a Corpus, id: &str) -> HashSet<&'a str> {
    corpus
        .themes
        .iter()
        .find(|t| t.id == id)
        .expect("the gold theme exists")
        .comment_ids
        .iter()
        .map(String::as_str)
        .collect()
}

/// Whether some theme of `published` holds comment `id`.
fn themed(published: &scorecard::Published, id: &str) -> bool {
    published.themes.iter().any(|t| t.iter().any(|m| m == id))
}

/// Whether a finding's `cited` comments include `id`.
fn cites(cited: &[Option<String>], id: &str) -> bool {
    cited.iter().flatten().any(|c| c == id)
}

#[test]
fn one_lesson_on_five_prs_among_unrelated_remarks_is_exactly_one_finding() {
    let corpus = corpus();
    let taught = comments_of(&corpus, CI_SKIP);
    let gold: HashSet<&str> = corpus
        .themes
        .iter()
        .flat_map(|t| t.comment_ids.iter().map(String::as_str))
        .collect();
    // One substantive remark of each other training repository, in no gold theme.
    let unrelated: Vec<&Record> = corpus
        .repos()
        .into_iter()
        .filter(|repo| corpus.split_of(repo) == Split::Train && *repo != "rails/rails")
        .filter_map(|repo| {
            corpus.records.iter().find(|r| {
                r.repo == repo
                    && r.noise.is_none()
                    && !gold.contains(r.id.as_str())
                    && r.body.split_whitespace().count() >= 8
            })
        })
        .collect();
    assert!(unrelated.len() >= 10);
    let mut records: Vec<&Record> = corpus
        .records
        .iter()
        .filter(|r| taught.contains(r.id.as_str()))
        .collect();
    records.extend(unrelated);

    let published = scorecard::publish(&records, &rules(), None).expect("the analysis runs");
    assert_eq!(published.findings.len(), 1, "{:#?}", published.findings);
    let (finding, cited) = &published.findings[0];
    let cited: Vec<&str> = cited
        .iter()
        .map(|id| id.as_deref().unwrap_or("?"))
        .collect();
    assert!(cited.len() >= 2, "{cited:?}");
    assert!(cited.iter().all(|id| taught.contains(id)), "{cited:?}");
    assert!(
        finding.title.to_lowercase().contains("ci skip"),
        "{}",
        finding.title
    );
}

/// The training split read as the comments of one repository (4,475 comments, 45 projects'
/// vocabulary): themes still hold and findings still cite what supports them. Measured: evidence
/// precision 0.770 and purity 0.538 (0.759 and 0.566 over the 3,853 comments of 39 projects;
/// there 0.691 and 0.393 when every vector had 256 components, whatever the vocabulary). And a lesson is still one finding, titled by it, citing at least
/// two of its comments and only comments about CI: numpy's "add `[ci skip]` to the commit
/// message" teaches it too, and prettier's "do the same to avoid running CI repeatedly" is cited.
#[test]
fn themes_hold_when_the_training_split_is_read_as_one_repository() {
    let corpus = corpus();
    let repos: Vec<&str> = corpus
        .repos()
        .into_iter()
        .filter(|repo| corpus.split_of(repo) == Split::Train)
        .collect();
    let pooled = scorecard::pool(&corpus.split(Split::Train), &repos, "pooled/train");
    let records: Vec<&Record> = pooled.iter().collect();
    assert!(records.len() > 3_000);
    let gold: Vec<_> = corpus
        .themes
        .iter()
        .filter(|t| repos.contains(&t.repo.as_str()))
        .collect();

    let published = scorecard::publish(&records, &rules(), None).expect("the analysis runs");
    let score = scorecard::score("pooled/train", &records, &gold, &published);
    assert!(score.evidence_precision() >= 0.72, "{score:?}");
    assert!(score.purity() >= 0.5, "{score:?}");

    let taught = comments_of(&corpus, CI_SKIP);
    let citing: Vec<_> = published
        .findings
        .iter()
        .filter(|(_, cited)| taught.iter().any(|id| cites(cited, id)))
        .collect();
    assert_eq!(citing.len(), 1, "{citing:#?}");
    let (finding, cited) = citing[0];
    let cited: Vec<&str> = cited.iter().flatten().map(String::as_str).collect();
    assert!(
        cited.iter().filter(|id| taught.contains(*id)).count() >= 2,
        "{cited:?}"
    );
    for id in &cited {
        let body = &records
            .iter()
            .find(|r| r.id == *id)
            .expect("a cited comment exists")
            .body;
        let mentions_ci = body
            .split(|c: char| !c.is_alphanumeric())
            .any(|word| word.eq_ignore_ascii_case("ci"));
        assert!(mentions_ci, "{id}: {body}");
    }
    assert!(
        finding.title.to_lowercase().contains("ci skip"),
        "{}",
        finding.title
    );
}

#[test]
fn findings_on_the_test_split_recover_gold_themes_with_precise_evidence_and_titles_of_advice() {
    let corpus = corpus();
    let rules = rules();
    let mut total = RepoScore::default();
    for repo in corpus.repos() {
        if corpus.split_of(repo) != Split::Test {
            continue;
        }
        let records: Vec<&Record> = corpus.records.iter().filter(|r| r.repo == repo).collect();
        let gold: Vec<_> = corpus.themes.iter().filter(|t| t.repo == repo).collect();
        let published = scorecard::publish(&records, &rules, None).expect("the analysis runs");
        total.add(&scorecard::score(repo, &records, &gold, &published));
    }
    // The targets are 0.75 recovered, 0.9 precision and no finding citing noise.
    assert!(total.recovered_share() >= RECOVERED_FLOOR, "{total:?}");
    assert!(total.evidence_precision() >= PRECISION_FLOOR, "{total:?}");
    assert_eq!(total.citing_noise, 0, "{total:?}");
    assert!(total.purity() >= PURITY_FLOOR, "{total:?}");
    assert!(
        total.accepted_titles() >= ACCEPTED_TITLES_FLOOR,
        "{total:?}"
    );
}

#[test]
fn a_theme_whose_comments_state_no_lesson_gives_no_finding() {
    let corpus = corpus();
    // Two prometheus reviewers on `cmd/prometheus/main.go` in two PRs, about a line, stating
    // nothing to learn: "Seem to have lost this line." and "Why the blank line here?".
    let records = records_with(&corpus, &["prom-0091", "prom-0097"]);

    let published = scorecard::publish(&records, &rules(), None).expect("the analysis runs");
    assert_eq!(published.themes.len(), 1, "{:?}", published.themes);
    assert!(published.findings.is_empty(), "{:#?}", published.findings);
}

#[test]
fn a_lesson_of_one_reviewer_is_one_finding_not_also_their_focus() {
    let corpus = corpus();
    // taylorotwell closing five laravel PRs with the same saved reply about the PR's benefit.
    let ids = [
        "laravel-0002",
        "laravel-0003",
        "laravel-0014",
        "laravel-0016",
        "laravel-0021",
    ];
    let records = records_with(&corpus, &ids);

    let published = scorecard::publish(&records, &rules(), None).expect("the analysis runs");
    let categories: Vec<&str> = published
        .findings
        .iter()
        .map(|(f, _)| f.category.as_str())
        .collect();
    assert_eq!(categories.len(), 1, "{:#?}", published.findings);
    assert_ne!(categories[0], "reviewer_focus");
}

#[test]
fn a_finding_says_mostly_on_a_file_only_when_that_file_holds_most_of_its_comments() {
    let corpus = corpus();
    // The findings of bat, ripgrep and grafana that list their files.
    let mut listing_files = 0;
    for repo in ["sharkdp/bat", "BurntSushi/ripgrep", "grafana/grafana"] {
        let published = published_for(&corpus, repo);
        for (finding, _) in &published.findings {
            listing_files += usize::from(finding.insight.contains(" on `"));
            let Some((_, after)) = finding.insight.split_once("Mostly on `") else {
                continue;
            };
            let held: usize = after
                .split_once("` (")
                .and_then(|(_, rest)| rest.split_once(')'))
                .and_then(|(n, _)| n.parse().ok())
                .expect("a count after the file");
            let comments: usize = finding
                .insight
                .split_whitespace()
                .next()
                .and_then(|n| n.parse().ok())
                .expect("the insight opens with its number of comments");
            assert!(2 * held > comments, "{}", finding.insight);
        }
    }
    assert!(
        listing_files >= 2,
        "only {listing_files} findings that list their files were checked"
    );
}

#[test]
fn a_remark_off_the_files_that_states_no_lesson_cannot_make_a_lesson_with_one_other_pr() {
    let corpus = corpus();
    let published = published_for(&corpus, "helm/helm");
    // "tossing into 2.10 to fix a regression" shares a word with "Per policy, this needs a
    // regression test." (another PR) and reports, without a file: it backs no lesson.
    let report = "helm-0045";
    assert!(themed(&published, report), "the report is in a theme");
    for (finding, cited) in &published.findings {
        assert!(!cites(cited, report), "{}", finding.title);
    }
}

#[test]
fn a_theme_member_that_shares_no_word_with_the_lesson_is_not_cited() {
    let corpus = corpus();
    let published = published_for(&corpus, "sharkdp/bat");
    // bat's syntax-test lesson ("provide a tests/syntax-tests/highlighted version") draws in a
    // bare suggestion on `CHANGELOG.md` ("Add missing mappings for various bash/zsh files"),
    // alike only through "bash": it is in the theme, and backs nothing the finding says — nor
    // does its review thread, the theme's only one.
    let changelog = "bat-0058";
    assert!(
        published
            .themes
            .iter()
            .any(|t| t.iter().any(|id| id == changelog) && t.iter().any(|id| id == "bat-0060")),
        "the suggestion is in the syntax-test theme"
    );
    let (finding, cited) = published
        .findings
        .iter()
        .find(|(_, cited)| cites(cited, "bat-0060"))
        .expect("the syntax-test lesson is a finding");
    let cited: Vec<&str> = cited.iter().flatten().map(String::as_str).collect();
    assert!(cited.contains(&"bat-0067"), "{cited:?}");
    assert!(!cited.contains(&changelog), "{}: {cited:?}", finding.title);
    assert!(
        !finding.files.iter().any(|f| f == "CHANGELOG.md")
            && !finding.insight.contains("CHANGELOG")
            && !finding.insight.contains("review threads"),
        "{}",
        finding.insight
    );
}

#[test]
fn two_saved_replies_of_one_maintainer_stay_two_lessons() {
    let corpus = corpus();
    let published = published_for(&corpus, "laravel/framework");
    // taylorotwell's "I am closing this pull request because it lacks sufficient explanation,
    // tests, or both" and "I'm going to delay merging this code for now. To preserve our ability
    // to adequately maintain the framework …" share their greeting and closing words only.
    let (description, burden) = ("laravel-0002", "laravel-0001");
    assert!(
        published
            .findings
            .iter()
            .any(|(_, cited)| cites(cited, description)),
        "the description lesson is a finding"
    );
    assert!(
        published
            .findings
            .iter()
            .any(|(_, cited)| cites(cited, burden)),
        "the maintenance lesson is a finding"
    );
    for (finding, cited) in &published.findings {
        assert!(
            !(cites(cited, description) && cites(cited, burden)),
            "{}",
            finding.title
        );
    }
}

#[test]
fn a_reviewers_focus_is_not_published_beside_the_same_lesson() {
    // taylorotwell's saved reply about a PR's lacking explanation and tests, on six laravel PRs,
    // and the same reply once by another maintainer (a copy of one, on a PR of its own): the
    // theme's finding already says whose lesson it is, so no focus finding repeats it.
    let corpus = corpus();
    let ids = [
        "laravel-0002",
        "laravel-0003",
        "laravel-0014",
        "laravel-0016",
        "laravel-0021",
        "laravel-0059",
    ];
    let mut records: Vec<Record> = records_with(&corpus, &ids).into_iter().cloned().collect();
    let mut other = records[0].clone();
    other.id = "laravel-copy".to_string();
    other.author = "driesvints".to_string();
    other.pr += 1;
    records.push(other);
    let records: Vec<&Record> = records.iter().collect();
    let published = scorecard::publish(&records, &rules(), None).expect("the analysis runs");
    assert_eq!(published.themes.len(), 1, "{:?}", published.themes);
    assert_eq!(published.themes[0].len(), 7, "{:?}", published.themes);
    let categories: Vec<&str> = published
        .findings
        .iter()
        .map(|(f, _)| f.category.as_str())
        .collect();
    assert_eq!(categories.len(), 1, "{:#?}", published.findings);
    assert_ne!(categories[0], "reviewer_focus");
}
