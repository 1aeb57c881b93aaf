//! What git history gives the analysis and the store keeps: commits with the files they
//! changed, and pairs of files that change together.

/// One file a commit changed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileChange {
    /// The path after the commit.
    pub path: String,
    /// The path before, when the commit renamed the file.
    pub old_path: Option<String>,
}

/// A commit as the analyzers need it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Commit {
    pub sha: String,
    pub parents: Vec<String>,
    pub author_name: String,
    pub author_email: String,
    /// Unix seconds.
    pub author_time: i64,
    /// Unix seconds.
    pub committer_time: i64,
    pub subject: String,
    pub body: String,
    pub files: Vec<FileChange>,
    /// False when renames could not be detected (a blob they need is missing): a renamed file
    /// shows as a deletion and an addition.
    pub complete: bool,
}

impl Commit {
    /// The title its authors wrote: the subject, or for a merge commit that kept git's or the
    /// forge's merge subject ("Merge pull request #12 from …"), the first line of its body, where
    /// GitHub and GitLab put the pull request's title.
    pub fn title(&self) -> &str {
        let pull_request_title = self.body.lines().next().map(str::trim);
        match pull_request_title {
            Some(line)
                if !line.is_empty()
                    && self.parents.len() > 1
                    && is_merge_subject(&self.subject) =>
            {
                line
            }
            _ => &self.subject,
        }
    }
}

/// Whether a subject is one git or a forge writes for a merge commit.
pub fn is_merge_subject(subject: &str) -> bool {
    [
        "Merge pull request #",
        "Merge branch ",
        "Merge remote-tracking branch ",
    ]
    .iter()
    .any(|prefix| subject.starts_with(prefix))
}

/// Two files that change together more often than chance.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Coupling {
    /// The pair, `a < b`.
    pub a: String,
    pub b: String,
    /// Commits that changed both, each weighted (large commits weigh less).
    pub support: f64,
    /// The larger of P(b | a) and P(a | b).
    pub confidence: f64,
    /// Confidence over the base rate of the other file.
    pub lift: f64,
    /// Unweighted count of commits that changed both.
    pub commits: usize,
}
