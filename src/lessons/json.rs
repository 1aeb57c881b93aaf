//! The findings JSON: the object `gitlore analyze --format json` prints (comments with labels,
//! themes, findings), which `gitlore export --format json` extends with the repository's name,
//! its last run, evidence links and strong couplings, so that `gitlore lessons --from` and
//! `gitlore mcp --from` can answer from the file alone. The extensions are optional: an
//! `analyze` output reads back too.

use serde::{Deserialize, Serialize};

use crate::domain::effect::EffectReport;
use crate::domain::findings::{Evidence, Finding};

/// The whole object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportJson {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    /// Unix seconds of the last findings run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysed_at: Option<i64>,
    pub comments: Vec<CommentJson>,
    pub themes: Vec<ThemeJson>,
    pub findings: Vec<FindingJson>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub couplings: Option<Vec<CouplingJson>>,
    /// Whether the lessons help (behaviour §3.4): per lesson and for the repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<EffectReport>,
}

/// A review comment: its id, the labels and noise class the analysis used, and who gave them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommentJson {
    pub id: String,
    pub labels: Vec<String>,
    /// `bot` or `trivial`; the App's own comments count as a bot's.
    pub noise: Option<String>,
    /// `builtin`, or the model's provider/model/prompt version.
    #[serde(default = "builtin_name")]
    pub labelled_by: String,
}

fn builtin_name() -> String {
    crate::domain::classification::BUILTIN_NAME.to_string()
}

/// A theme and the comments it groups.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThemeJson {
    pub id: String,
    pub label: String,
    pub comment_ids: Vec<String>,
}

/// An active finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingJson {
    pub id: String,
    pub category: String,
    pub severity: String,
    pub title: String,
    pub insight: String,
    pub files: Vec<String>,
    pub evidence: Vec<EvidenceJson>,
}

impl FindingJson {
    /// `finding`, its evidence cited by `id_of` and linked by `url_of`.
    pub fn of(
        finding: &Finding,
        id_of: impl Fn(&Evidence) -> String,
        url_of: impl Fn(&Evidence) -> Option<String>,
    ) -> FindingJson {
        FindingJson {
            id: finding.id.clone(),
            category: finding.category.as_str().to_string(),
            severity: finding.severity.as_str().to_string(),
            title: finding.title.clone(),
            insight: finding.insight.clone(),
            files: finding.files.clone(),
            evidence: finding
                .evidence
                .iter()
                .map(|e| EvidenceJson {
                    kind: e.kind.as_str().to_string(),
                    id: id_of(e),
                    text: e.text.clone(),
                    url: url_of(e),
                })
                .collect(),
        }
    }
}

/// One cited source; comments are cited by the input's ids (GitHub's ids from the store).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceJson {
    pub kind: String,
    pub id: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// Two files that usually change together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CouplingJson {
    pub a: String,
    pub b: String,
    pub confidence: f64,
    pub commits: usize,
}

/// `noise` as the JSON names it: `trivial`, or `bot` for every other class.
pub fn noise_name(noise: Option<&str>) -> Option<String> {
    noise.map(|noise| match noise {
        "trivial" => "trivial".to_string(),
        _ => "bot".to_string(),
    })
}
