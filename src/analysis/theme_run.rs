//! One theme analysis of a repository over the store (behaviour §3.1): its analysable comments in a
//! window are embedded (built-in, or the configured remote embedder), clustered, described (terms, labels, PRs,
//! reviewers, paths, dates), matched to the themes of earlier runs so that a continued theme keeps
//! its id and first-seen date, and saved. Comments left out of every cluster that the built-in
//! classifier is sure are about a bug or a security problem are reported as notable singletons.
//!
//! The result depends only on the store's contents, not on the order comments arrived in: the
//! corpus and the clustering are ordered by (kind, GitHub id), and a new theme's id is derived from
//! the repository and its medoid comment.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

use crate::domain::body_hash;
use crate::domain::classification::LLM_NAME;
use crate::domain::classification::Label;
use crate::domain::themes::{ModelLabels, Theme, ThemeRun};
use crate::domain::{CommentKind, RepoId};
use crate::knowledge::classify::llm::{Asked, Source, classify_comments, model_tag};
use crate::knowledge::cluster::{Cluster, Clustering, Params, cluster};
use crate::knowledge::embed::Vector;
use crate::knowledge::embed::builtin::TfIdf;
use crate::knowledge::embed::remote::RemoteEmbedder;
use crate::knowledge::embed::{Prepared, prepare};
use crate::knowledge::exclude::Exclusions;
use crate::knowledge::filter::{analysable_text, is_bot_command, topic_text};
use crate::knowledge::themes::{distinctive_terms, match_themes};
use crate::llm::LlmClient;
use crate::store::themes::{self as stored, CorpusComment, SavedTheme, StoredTheme};
use crate::store::{Store, comments};

/// Distinctive terms (count) kept per theme: enough to tell themes apart at a glance.
pub const TERMS_PER_THEME: usize = 5;
/// Paths (count) listed per theme, most frequent first.
pub const TOP_PATHS: usize = 5;
/// Terms (count) a theme's label is made of: a short name, not a summary.
const LABEL_TERMS: usize = 3;
/// Words (count) of the medoid's text that name a theme without distinctive terms.
const LABEL_FALLBACK_WORDS: usize = 8;
/// Built-in confidence (0..=1) from which a bug or security comment outside every theme is a
/// notable singleton: well above the classifier's 0.5 threshold, so that one comment alone is
/// reported only when the classifier found several cues.
pub const SINGLETON_MIN_CONFIDENCE: f32 = 0.8;
/// Pull requests (count) a theme's comments must come from.
pub const MIN_PRS: usize = 2;
/// Hex digits (of a sha256) in a theme id: 40 bits, so ids of one repository do not collide in
/// practice, and a collision (with any repository) is detected and salted away.
const ID_HEX_DIGITS: usize = 10;

/// Analyses the themes of `repo_id` from the comments created at or after `window_start` (unix
/// s; 0 for all) with the built-in components and saves them as found at `now` (unix s). Too few
/// comments give no themes; themes of earlier runs that this one does not continue become
/// inactive.
pub fn run_themes(store: &Store, repo_id: RepoId, window_start: i64, now: i64) -> Result<ThemeRun> {
    let (mut corpus, previous) = load(store, repo_id, window_start, false)?;
    corpus.retain(|comment| !comment.by_pr_author());
    analyse(store, repo_id, now, corpus, previous, None, Vec::new())
}

/// The external models a run may use; each `None` means the built-in component.
#[derive(Clone, Copy, Default)]
pub struct Models<'a> {
    pub llm: Option<&'a LlmClient>,
    pub embedder: Option<&'a RemoteEmbedder>,
}

/// [`run_themes`] with the configured models (behaviour §2, §3.1): the LLM's labels (cached; a
/// comment without an answer keeps its built-in labels) count in each theme's label
/// distribution and pick the notable singletons, and the remote embedder's vectors are
/// clustered. A model that fails costs nothing but itself: the LLM's failures leave the built-in
/// labels, a failing embedder makes the whole run use the built-in embedder (vectors of two
/// models never mix). What fell back is said in [`ThemeRun::notes`].
pub async fn run_themes_with(
    store: &Store,
    repo_id: RepoId,
    window_start: i64,
    now: i64,
    models: Models<'_>,
    exclusions: &Exclusions,
) -> Result<ThemeRun> {
    let (mut corpus, previous) = load(store, repo_id, window_start, models.llm.is_some())?;
    corpus.retain(|c| !exclusions.excludes_comment(&c.author_login, c.path.as_deref(), &c.body));
    let mut notes = Vec::new();
    let model_labels = match models.llm {
        Some(client) => Some(relabel(store, client, &mut corpus, &mut notes).await?),
        None => None,
    };
    // A PR author's replies explain their own change: no reviewer's lesson.
    corpus.retain(|comment| !comment.by_pr_author());
    let mut vectors = None;
    if let Some(embedder) = models.embedder {
        let texts: Vec<String> = corpus.iter().map(|c| prepared(c).to_text()).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        match embedder.embed(store, &refs).await {
            Ok((found, _)) => vectors = Some(found),
            Err(error) => notes.push(format!(
                "the embedding model failed ({error:#}); the built-in embedder was used"
            )),
        }
    }
    let mut run = analyse(store, repo_id, now, corpus, previous, vectors, notes)?;
    run.model_labels = model_labels;
    Ok(run)
}

/// Has the LLM judge the corpus (the filter's trivial comments included, but for commands to
/// bots): a comment it calls noise leaves, one the filter called trivial stays when the model
/// labels it, and its labels replace the built-in ones. Where it gave no answer, the built-in
/// verdict stands. Its verdicts are stored (`LLM_NAME`) for the readers of the analysis.
async fn relabel(
    store: &Store,
    client: &LlmClient,
    corpus: &mut Vec<CorpusComment>,
    notes: &mut Vec<String>,
) -> Result<ModelLabels> {
    corpus.retain(|c| !(c.trivial && is_bot_command(&analysable_text(&c.body))));
    let ids: Vec<i64> = corpus.iter().map(|c| c.id).collect();
    let hunks = stored::diff_hunks(&store.reader()?, &ids)?;
    let asked: Vec<Asked<'_>> = corpus
        .iter()
        .map(|c| Asked {
            body: &c.body,
            path: c.path.as_deref(),
            diff_hunk: hunks.get(&c.id).map(String::as_str),
        })
        .collect();
    let (verdicts, stats) = classify_comments(client, store, &asked).await?;
    let tag = model_tag(client);
    let judged = ModelLabels {
        model: tag.clone(),
        asked: asked.len(),
        judged: stats.answered + stats.cached,
    };
    let mut kept = Vec::with_capacity(corpus.len());
    let mut stored_verdicts = Vec::new();
    for (mut comment, (labels, source)) in corpus.drain(..).zip(verdicts) {
        if source == Source::Fallback {
            if !comment.trivial {
                kept.push(comment);
            }
            continue;
        }
        let key = format!("{tag}:{}", body_hash(&comment.body));
        stored_verdicts.push((comment.id, key, serde_json::to_string(&labels)?));
        if !labels.is_empty() {
            comment.labels = labels;
            kept.push(comment);
        }
    }
    *corpus = kept;
    store.write_derived(|tx| {
        for (id, key, labels) in &stored_verdicts {
            comments::set_classification(tx, *id, LLM_NAME, key, labels)?;
        }
        Ok(())
    })?;
    if stats.fallbacks > 0 {
        notes.push(format!(
            "the LLM gave no usable labels for {} comments (built-in labels used; asked again next run){}",
            stats.fallbacks,
            stats
                .errors
                .first()
                .map(|e| format!(": {e}"))
                .unwrap_or_default()
        ));
    }
    Ok(judged)
}

/// The corpus and the earlier themes, from one snapshot.
fn load(
    store: &Store,
    repo_id: RepoId,
    window_start: i64,
    with_trivial: bool,
) -> Result<(Vec<CorpusComment>, Vec<StoredTheme>)> {
    let conn = store.reader()?;
    let snapshot = conn.snapshot()?;
    let corpus = stored::load_corpus(&snapshot, repo_id, window_start, with_trivial)?;
    let previous = stored::load_themes(&snapshot, repo_id)?;
    Ok((corpus, previous))
}

fn prepared(comment: &CorpusComment) -> Prepared {
    prepare(&topic_text(&comment.body), comment.path.as_deref())
}

/// Clusters the corpus (with `vectors` when given, else the built-in embedder's), describes,
/// identifies and saves the themes.
fn analyse(
    store: &Store,
    repo_id: RepoId,
    now: i64,
    corpus: Vec<CorpusComment>,
    previous: Vec<StoredTheme>,
    vectors: Option<Vec<Vector>>,
    notes: Vec<String>,
) -> Result<ThemeRun> {
    let prepared: Vec<Prepared> = corpus.iter().map(prepared).collect();
    let model = TfIdf::fit(&prepared);
    let keys: Vec<(&str, i64)> = corpus
        .iter()
        .map(|comment| (comment.kind.as_str(), comment.github_id))
        .collect();
    let mut clustering = match vectors {
        Some(vectors) => cluster(&keys, &vectors, Params::default()),
        None => cluster(&keys, &model.vectors(), Params::default()),
    };
    recurring_only(&mut clustering, &corpus);
    let positions: Vec<Vec<usize>> = clustering
        .clusters
        .iter()
        .map(|cluster| cluster.members.clone())
        .collect();
    let terms = distinctive_terms(&model, &positions, TERMS_PER_THEME);
    let conn = store.reader()?;
    let identities = identify(
        &conn,
        repo_id,
        now,
        &previous,
        &corpus,
        &clustering.clusters,
    )?;
    drop(conn);

    let mut themes: Vec<Theme> = clustering
        .clusters
        .iter()
        .zip(terms)
        .zip(identities)
        .map(|((cluster, terms), identity)| {
            describe(&corpus, &prepared, cluster, terms, identity, now)
        })
        .collect();
    save(store, repo_id, now, &themes)?;
    themes.sort_by(|a, b| {
        b.members
            .len()
            .cmp(&a.members.len())
            .then_with(|| a.id.cmp(&b.id))
    });
    let singletons: Vec<i64> = clustering
        .noise
        .iter()
        .map(|&position| &corpus[position])
        .filter(|comment| is_notable(comment))
        .map(|comment| comment.id)
        .collect();
    tracing::info!(
        %repo_id,
        comments = corpus.len(),
        themes = themes.len(),
        singletons = singletons.len(),
        "themes analysed"
    );
    Ok(ThemeRun {
        themes,
        singletons,
        comments: corpus.len(),
        notes,
        model_labels: None,
    })
}

/// Keeps the clusters whose comments come from two pull requests or more: a remark repeated in
/// one pull request is not a recurring theme. The others' members become noise.
fn recurring_only(clustering: &mut Clustering, corpus: &[CorpusComment]) {
    let (recurring, single): (Vec<Cluster>, Vec<Cluster>) =
        std::mem::take(&mut clustering.clusters)
            .into_iter()
            .partition(|cluster| {
                let prs: HashSet<i64> = cluster
                    .members
                    .iter()
                    .map(|&p| corpus[p].pr_number)
                    .collect();
                prs.len() >= MIN_PRS
            });
    clustering.clusters = recurring;
    clustering
        .noise
        .extend(single.into_iter().flat_map(|cluster| cluster.members));
    clustering
        .noise
        .sort_by_key(|&p| (&corpus[p].kind, corpus[p].github_id));
}

/// Who a cluster is: the theme it continues, or a new one.
struct Identity {
    id: String,
    /// Unix seconds.
    first_seen: i64,
}

/// The identity of each cluster: a cluster that continues an earlier theme (active or retired)
/// takes its id and first-seen date; any other gets a new id, first seen `now`.
fn identify(
    conn: &crate::store::Connection,
    repo_id: RepoId,
    now: i64,
    previous: &[StoredTheme],
    corpus: &[CorpusComment],
    clusters: &[Cluster],
) -> Result<Vec<Identity>> {
    let continued = continuations(previous, corpus, clusters);
    let first_seen: HashMap<&str, i64> = previous
        .iter()
        .map(|theme| (theme.id.as_str(), theme.first_seen))
        .collect();
    let mut assigned: HashSet<String> = continued.iter().flatten().cloned().collect();
    let mut identities = Vec::with_capacity(clusters.len());
    for (cluster, continues) in clusters.iter().zip(continued) {
        identities.push(match continues {
            Some(id) => Identity {
                first_seen: first_seen.get(id.as_str()).copied().unwrap_or(now),
                id,
            },
            None => {
                let id = new_id(conn, repo_id, &corpus[cluster.medoid], &assigned)?;
                assigned.insert(id.clone());
                Identity {
                    id,
                    first_seen: now,
                }
            }
        });
    }
    Ok(identities)
}

/// Saves the run in one derived write: the themes can always be computed again.
fn save(store: &Store, repo_id: RepoId, now: i64, themes: &[Theme]) -> Result<()> {
    let saved: Vec<SavedTheme<'_>> = themes
        .iter()
        .map(|theme| SavedTheme {
            id: &theme.id,
            label: &theme.label,
            terms: &theme.terms,
            first_seen: theme.first_seen,
            members: &theme.members,
        })
        .collect();
    store
        .write_derived(|tx| stored::save_run(tx, repo_id, now, &saved))
        .with_context(|| format!("Cannot save the themes of repository {repo_id}"))
}

/// For each cluster, the id of the earlier theme (active or retired) it continues, if any.
fn continuations(
    previous: &[StoredTheme],
    corpus: &[CorpusComment],
    clusters: &[Cluster],
) -> Vec<Option<String>> {
    let previous: Vec<(String, Vec<String>)> = previous
        .iter()
        .map(|theme| {
            let members = theme.members.iter().map(i64::to_string).collect();
            (theme.id.clone(), members)
        })
        .collect();
    let clusters: Vec<Vec<String>> = clusters
        .iter()
        .map(|cluster| {
            cluster
                .members
                .iter()
                .map(|&position| corpus[position].id.to_string())
                .collect()
        })
        .collect();
    match_themes(&previous, &clusters)
}

/// A new theme's id: `t-` + the first hex digits of sha256 of the repository and the medoid
/// comment, salted with a counter while the id is taken (in this run or in the store).
fn new_id(
    conn: &crate::store::Connection,
    repo_id: RepoId,
    medoid: &CorpusComment,
    assigned: &HashSet<String>,
) -> Result<String> {
    let mut salt = 0_u32;
    loop {
        let mut seed = format!("{repo_id}/{}/{}", medoid.kind, medoid.github_id);
        if salt > 0 {
            seed.push_str(&format!("/{salt}"));
        }
        let digest = hex::encode(Sha256::digest(seed.as_bytes()));
        let id = format!("t-{}", &digest[..ID_HEX_DIGITS]);
        if !assigned.contains(&id) && !stored::id_taken(conn, &id)? {
            return Ok(id);
        }
        salt += 1;
    }
}

/// The figures of one cluster.
fn describe(
    corpus: &[CorpusComment],
    prepared: &[Prepared],
    cluster: &Cluster,
    terms: Vec<String>,
    identity: Identity,
    now: i64,
) -> Theme {
    let members: Vec<&CorpusComment> = cluster.members.iter().map(|&p| &corpus[p]).collect();
    let mut labels: BTreeMap<Label, usize> = BTreeMap::new();
    let mut paths: HashMap<&str, usize> = HashMap::new();
    for comment in &members {
        for scored in &comment.labels {
            *labels.entry(scored.label).or_default() += 1;
        }
        if let Some(path) = &comment.path {
            *paths.entry(path.as_str()).or_default() += 1;
        }
    }
    let mut labels: Vec<(Label, usize)> = labels.into_iter().collect();
    labels.sort_by_key(|&(_, count)| Reverse(count)); // stable: ties stay in canonical order
    let mut paths: Vec<(String, usize)> = paths
        .into_iter()
        .map(|(path, count)| (path.to_string(), count))
        .collect();
    paths.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    paths.truncate(TOP_PATHS);
    let inline = members
        .iter()
        .filter(|c| c.kind == CommentKind::Inline.as_str());
    let (threads, resolved) = inline.fold((0, 0), |(threads, resolved), comment| {
        (threads + 1, resolved + usize::from(comment.resolved))
    });
    let resolved_share = (threads > 0).then(|| resolved as f64 / threads as f64);
    let created = members.iter().map(|comment| comment.created_at);
    Theme {
        label: label(&terms, &prepared[cluster.medoid]),
        terms,
        members: members.iter().map(|comment| comment.id).collect(),
        medoid: corpus[cluster.medoid].id,
        labels,
        prs: members
            .iter()
            .map(|c| c.pr_number)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        reviewers: members
            .iter()
            .map(|c| c.author_login.as_str())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .map(str::to_string)
            .collect(),
        paths,
        first_comment_at: created.clone().min().unwrap_or(now),
        last_comment_at: created.max().unwrap_or(now),
        resolved_share,
        id: identity.id,
        first_seen: identity.first_seen,
        last_seen: now,
    }
}

/// A theme's short name: its first distinctive terms, or the start of its medoid's text.
fn label(terms: &[String], medoid: &Prepared) -> String {
    if terms.is_empty() {
        let words: Vec<&str> = medoid
            .text
            .split_whitespace()
            .take(LABEL_FALLBACK_WORDS)
            .collect();
        return words.join(" ");
    }
    terms
        .iter()
        .take(LABEL_TERMS)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a comment outside every theme is still worth a finding on its own.
fn is_notable(comment: &CorpusComment) -> bool {
    comment.labels.iter().any(|scored| {
        matches!(scored.label, Label::Bug | Label::Security)
            && scored.confidence >= SINGLETON_MIN_CONFIDENCE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_id_taken_in_this_run_or_in_the_store_is_salted() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("gitlore.db")).unwrap();
        let medoid = CorpusComment {
            id: 1,
            kind: "inline".into(),
            github_id: 7,
            pr_number: 1,
            author_login: "alice".into(),
            pr_author: None,
            path: None,
            body: String::new(),
            created_at: 0,
            resolved: false,
            labels: Vec::new(),
            trivial: false,
        };
        let conn = store.reader().unwrap();
        let plain = new_id(&conn, RepoId(5), &medoid, &HashSet::new()).unwrap();
        assert!(plain.starts_with("t-") && plain.len() == 2 + ID_HEX_DIGITS);
        let salted = new_id(&conn, RepoId(5), &medoid, &HashSet::from([plain.clone()])).unwrap();
        assert_ne!(salted, plain);
        // The same id held by another repository's theme in the store.
        store
            .write(|tx| {
                tx.execute(
                    "INSERT INTO repos (id, full_name) VALUES (9, 'o/other')",
                    [],
                )?;
                let theme = SavedTheme {
                    id: &plain,
                    label: "x",
                    terms: &[],
                    first_seen: 0,
                    members: &[],
                };
                stored::save_run(tx, RepoId(9), 0, &[theme])
            })
            .unwrap();
        assert_eq!(
            new_id(&conn, RepoId(5), &medoid, &HashSet::new()).unwrap(),
            salted
        );
    }
}
