//! The built-in synthesizer (behaviour §3.3): offline and deterministic. It writes one finding per
//! strong theme, findings from git signals that review comments corroborate (hotspots reviewers
//! keep flagging, reverts of reviewed files, coupled files reviewers cite together), one per
//! high-confidence bug or security singleton on a file with a git signal, and reviewer focus
//! areas. Titles are a lesson taken from the theme's own comments; insights are its figures.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap, HashSet};

use super::figures::{self, coupling_id, coupling_text, hotspot_id, hotspot_text};
use super::title::{self, CutSwitches, TITLE_CHARS, says_something, states_lesson};
use super::wording::{cut, excerpt};
use super::{Input, Synthesis, finalize, subject_id, theme_finding_id};
use crate::domain::classification::Label;
use crate::domain::findings::SourceComment;
use crate::domain::findings::{Category, Evidence, EvidenceKind, Finding, Severity, Status};
use crate::domain::themes::Theme;
use crate::knowledge::embed::builtin::words;
use crate::knowledge::embed::prepare;
use crate::knowledge::filter::topic_text;
use crate::knowledge::history::{Hotspot, Revert};

/// Hotspots (count, by score) that count as a git signal.
const SIGNAL_HOTSPOTS: usize = 20;
/// Commits a file needs before it can be a hotspot signal.
const MIN_HOTSPOT_COMMITS: usize = 4;
/// Fix ratio from which a hotspot makes its findings more severe.
const FRAGILE_FIX_RATIO: f64 = 0.3;
/// Share of a hotspot's commits (0..1) that must be fixes for it to be called fragile at all.
const MIN_FRAGILE_FIX_RATIO: f64 = 0.15;
/// Review comments on a hotspot that flag a risk, and pull requests they come from, that make it
/// "kept flagging": one discussion in one pull request is no pattern.
const MIN_HOTSPOT_COMMENTS: usize = 2;
const MIN_HOTSPOT_PRS: usize = 2;
/// Days before a revert of its file within which a review comment can be about the reverted change
/// (its review, or the talk about taking it back); a remark on the same file years before says
/// nothing about it, nor does one on a later pull request (ruff's question on moving crates into
/// the workspace, seven weeks after a version bump to `Cargo.toml` was reverted).
const REVERT_REVIEW_DAYS: i64 = 60;
/// Revert landmines (count) kept, the most telling first: beyond a handful they bury the rest.
const MAX_REVERT_FINDINGS: usize = 5;
/// Review comments cited per finding.
const COMMENTS_PER_FINDING: usize = 5;
/// Git signals cited per finding.
const SIGNALS_PER_FINDING: usize = 3;
/// A reviewer's comments in one theme (and PRs) that make it their focus.
const FOCUS_MIN_COMMENTS: usize = 3;
const FOCUS_MIN_PRS: usize = 2;
/// Comments of a theme by other reviewers without which a reviewer's focus is the theme itself.
const FOCUS_MIN_OTHERS: usize = 2;
/// Comments of a theme (the most central first) its lesson is looked for in.
const LESSON_CANDIDATES: usize = 25;
/// Characters of a reviewer-focus title before its lesson.
const FOCUS_PREFIX_CHARS: usize = 60;

/// Words too common in review comments of every project to show that a comment makes a theme's
/// claim ("add", "change", "code"): the most frequent words of the training split's comments
/// that name no topic.
const GENERIC_WORDS: &[&str] = &[
    "add",
    "already",
    "better",
    "bit",
    "case",
    "change",
    "code",
    "comment",
    "example",
    "file",
    "find",
    "fix",
    "go",
    "going",
    "good",
    "idea",
    "instead",
    "know",
    "line",
    "look",
    "make",
    "may",
    "need",
    "new",
    "note",
    "part",
    "pr",
    "remove",
    "right",
    "seem",
    "since",
    "something",
    "suggestion",
    "sure",
    "thing",
    "time",
    "try",
    "two",
    "update",
    "use",
    "used",
    "using",
    "want",
    "way",
    "well",
    "work",
];

/// Runs the built-in synthesizer.
pub fn synthesize(input: &Input<'_>) -> Synthesis {
    let context = Context::new(input);
    let mut findings: Vec<Finding> = Vec::new();
    for theme in &input.themes.themes {
        let teaching = context.members(theme);
        // Most of a theme's comments must teach: a theme of questions or praise is no lesson.
        if 2 * teaching.len() < theme.members.len() {
            continue;
        }
        // A theme none of whose sentences states a lesson that comments of two pull requests
        // echo has nothing a maintainer could sign. One can hold more than one (in a large
        // repository, a lesson about locks beside one about comments): each lesson that the
        // members the lessons before it left echo on two pull requests is a finding of its own.
        // The first keeps the theme's finding id; the others add the id of the comment their
        // title is taken from.
        let mut rest = context.citable(theme, &teaching);
        let mut found = 0;
        while let Some((lesson, members)) = context.echoing(theme, &rest) {
            let id = match found {
                0 => theme_finding_id(&theme.id),
                _ => format!("{}-{}", theme_finding_id(&theme.id), members[0].id),
            };
            findings.extend(context.theme_finding(theme, id, &lesson, &members));
            if found == 0 {
                findings.extend(context.focus_findings(theme, &members));
            }
            rest.retain(|c| !members.iter().any(|m| m.id == c.id));
            found += 1;
        }
    }
    findings.extend(context.hotspot_findings());
    findings.extend(context.revert_findings());
    findings.extend(context.coupling_findings());
    findings.extend(context.singleton_findings());
    Synthesis {
        findings: finalize(findings, input),
        notes: Vec::new(),
    }
}

/// The category and base severity of a theme whose most frequent lesson-bearing label is
/// `label`; questions and praise teach nothing on their own.
fn category_of(label: Label) -> Option<(Category, Severity)> {
    Some(match label {
        Label::Bug => (Category::CodePattern, Severity::High),
        Label::Security => (Category::Landmine, Severity::High),
        Label::Performance => (Category::CodePattern, Severity::Medium),
        Label::Architecture => (Category::Architecture, Severity::Medium),
        Label::Testing => (Category::Testing, Severity::Medium),
        Label::Convention | Label::Documentation | Label::Nitpick => {
            (Category::Convention, Severity::Low)
        }
        Label::Question | Label::Praise => return None,
    })
}

/// Whether a comment with `label` flags a risk in the code it is on (a defect, a hole, a cost, a
/// design or test gap), as the reviews backing a fragile area or a revert must.
fn flags_risk(label: Label) -> bool {
    matches!(
        label,
        Label::Bug | Label::Security | Label::Performance | Label::Architecture | Label::Testing
    )
}

fn raise(severity: Severity) -> Severity {
    match severity {
        Severity::Low => Severity::Medium,
        _ => Severity::High,
    }
}

/// The input with its indexes.
struct Context<'a> {
    input: &'a Input<'a>,
    /// Inline comments that can back a lesson, per file.
    by_path: HashMap<&'a str, Vec<&'a SourceComment>>,
    /// Hotspots that count as a git signal, by path.
    hotspots: HashMap<&'a str, &'a Hotspot>,
    /// Git signals (figures and revert commits) per file.
    signals: HashMap<&'a str, Vec<Evidence>>,
    /// The words of the repository's name: every review of a project may name it, so
    /// "prettier" says nothing of a lesson in prettier/prettier.
    project: HashSet<String>,
}

impl<'a> Context<'a> {
    fn new(input: &'a Input<'a>) -> Context<'a> {
        let mut by_path: HashMap<&str, Vec<&SourceComment>> = HashMap::new();
        for comment in input.comments.values().filter(|c| c.teaches()) {
            if let Some(path) = &comment.path {
                by_path.entry(path.as_str()).or_default().push(comment);
            }
        }
        let hotspots: HashMap<&str, &Hotspot> = input
            .history
            .hotspots
            .iter()
            .take(SIGNAL_HOTSPOTS)
            .filter(|h| h.commits >= MIN_HOTSPOT_COMMITS)
            .map(|h| (h.path.as_str(), h))
            .collect();
        let mut signals: HashMap<&str, Vec<Evidence>> = HashMap::new();
        for (path, hotspot) in &hotspots {
            signals
                .entry(path)
                .or_default()
                .push(stat(hotspot_id(hotspot), hotspot_text(hotspot)));
        }
        for revert in &input.history.reverts {
            for file in &revert.files {
                signals.entry(file.as_str()).or_default().push(Evidence {
                    kind: EvidenceKind::Commit,
                    id: revert.sha.clone(),
                    text: revert.subject.clone(),
                });
            }
        }
        for fix in &input.history.fix_after {
            for file in &fix.files {
                signals.entry(file.as_str()).or_default().push(stat(
                    figures::fix_after_id(fix),
                    figures::fix_after_text(fix),
                ));
            }
        }
        Context {
            input,
            by_path,
            hotspots,
            signals,
            project: words(&input.repo.replace(['/', '-', '_', '.'], " ")),
        }
    }

    fn comment(&self, id: i64) -> Option<&'a SourceComment> {
        self.input.comments.get(&id)
    }

    /// The title cuts the repository leaves on.
    fn cuts(&self) -> &'a CutSwitches {
        &self.input.settings.title_cuts
    }

    /// The git signals of `paths`, each once, at most [`SIGNALS_PER_FINDING`].
    fn signals_of<'p>(&self, paths: impl IntoIterator<Item = &'p str>) -> Vec<Evidence> {
        let mut seen = HashSet::new();
        paths
            .into_iter()
            .flat_map(|path| self.signals.get(path).into_iter().flatten())
            .filter(|e| seen.insert(e.id.clone()))
            .take(SIGNALS_PER_FINDING)
            .cloned()
            .collect()
    }

    /// One finding per strong theme: a lesson-bearing label and comments from two PRs or more.
    fn theme_finding(
        &self,
        theme: &Theme,
        id: String,
        lesson: &str,
        members: &[&SourceComment],
    ) -> Option<Finding> {
        let (category, base) = theme
            .labels
            .iter()
            .find_map(|&(label, _)| category_of(label))?;
        let prs: HashSet<i64> = members.iter().map(|c| c.pr_number).collect();
        if prs.len() < 2 {
            return None;
        }
        // Its figures are those of the comments it cites.
        let members = &cited(members)[..];
        let on_paths = cited_paths(theme, members);
        let paths: Vec<&str> = on_paths.iter().map(|(p, _)| *p).collect();
        // The files' own history figures when they are often fixed; a busy file seldom fixed,
        // or a revert or a fix of some other change on the same file, says nothing about this
        // lesson.
        let signals: Vec<Evidence> = paths
            .iter()
            .filter_map(|p| self.hotspots.get(p))
            .filter(|h| h.fix_ratio >= MIN_FRAGILE_FIX_RATIO)
            .take(SIGNALS_PER_FINDING)
            .map(|h| stat(hotspot_id(h), hotspot_text(h)))
            .collect();
        let fragile = paths.iter().any(|p| {
            self.hotspots
                .get(p)
                .is_some_and(|h| h.fix_ratio >= FRAGILE_FIX_RATIO)
        });
        let severity = if fragile { raise(base) } else { base };
        let reviewers: HashSet<&str> = members.iter().map(|c| c.author.as_str()).collect();
        let reviewers = count(reviewers.len(), "reviewer", "reviewers");
        let written = members.iter().map(|c| c.created_at);
        let (from, to) = (
            figures::date(written.clone().min().unwrap_or(theme.first_comment_at)),
            figures::date(written.max().unwrap_or(theme.last_comment_at)),
        );
        let when = if from == to {
            format!("on {to}")
        } else {
            format!("from {from} to {to}")
        };
        let mut insight = format!(
            "{} from {reviewers} across {} ({}), {when}.",
            count(members.len(), "review comment", "review comments"),
            count(prs.len(), "pull request", "pull requests"),
            pr_list(&prs),
        );
        match resolved_share(members).map(figures::percent) {
            Some(0) => insight.push_str(" None of its review threads was marked resolved."),
            Some(share) => {
                insight.push_str(&format!(" {share}% of its review threads were resolved."))
            }
            None => {}
        }
        if let Some((_, most)) = on_paths.first() {
            let listed: Vec<String> = on_paths
                .iter()
                .map(|(path, n)| format!("`{path}` ({n})"))
                .collect();
            // "Mostly" only when one file holds most of the cited comments.
            let lead = if 2 * most > members.len() {
                "Mostly on"
            } else {
                "Comments on"
            };
            insight.push_str(&format!(" {lead} {}.", listed.join(", ")));
        }
        for signal in signals.iter().filter(|s| s.kind == EvidenceKind::Stat) {
            insight.push_str(&format!(" History: {}.", signal.text));
        }
        let mut evidence = comment_evidence(members, COMMENTS_PER_FINDING);
        evidence.extend(signals);
        Some(Finding {
            id,
            category,
            severity,
            title: lesson.to_string(),
            insight,
            evidence,
            files: paths.iter().map(|p| p.to_string()).collect(),
            first_seen: theme.first_seen,
            last_seen: self.input.settings.now,
            status: Status::Active,
        })
    }

    /// A theme's comments that can back a lesson, the most central first.
    fn members(&self, theme: &Theme) -> Vec<&'a SourceComment> {
        let medoid = self.comment(theme.medoid);
        let others = theme
            .members
            .iter()
            .filter(|&&id| id != theme.medoid)
            .filter_map(|&id| self.comment(id));
        medoid
            .into_iter()
            .chain(others)
            .filter(|c| c.teaches())
            .collect()
    }

    /// The members that can back the theme's lesson: those on one of its files, and those
    /// elsewhere (conversation, review bodies) that state a lesson themselves. When these come
    /// from two pull requests or more, remarks elsewhere that state a fact about the code join
    /// them; a remark without a file that only muses, asks or reports cannot make a lesson of
    /// its own.
    fn citable(&self, theme: &Theme, members: &[&'a SourceComment]) -> Vec<&'a SourceComment> {
        let anchored = |c: &SourceComment| {
            c.path
                .as_deref()
                .is_some_and(|p| theme.paths.iter().any(|(path, _)| path == p))
                || states_lesson(&c.body, self.cuts())
        };
        let prs: HashSet<i64> = members
            .iter()
            .filter(|c| anchored(c))
            .map(|c| c.pr_number)
            .collect();
        members
            .iter()
            .copied()
            .filter(|c| anchored(c) || (prs.len() >= 2 && says_something(&c.body, self.cuts())))
            .collect()
    }

    /// The theme's lesson, with the members that echo it: the comment it is taken from and those
    /// that share a word with the lesson or that comment's prose (as the embedder reads words,
    /// without [`GENERIC_WORDS`]; not the comment's code, see [`prose_of`]). A theme can hold
    /// comments alike only in words that say nothing of its lesson; citing them would back a
    /// claim they do not make. The lesson is the best-ranked one echoed by comments of two pull
    /// requests or more; `None` when there is none.
    fn echoing(
        &self,
        theme: &Theme,
        members: &[&'a SourceComment],
    ) -> Option<(String, Vec<&'a SourceComment>)> {
        let bodies: Vec<&str> = members
            .iter()
            .take(LESSON_CANDIDATES)
            .map(|c| c.body.as_str())
            .collect();
        let said: Vec<HashSet<String>> = members
            .iter()
            .map(|c| words(&prepare(&topic_text(&c.body), None).text))
            .collect();
        let candidates = title::ranked(&bodies, &theme.terms, TITLE_CHARS, self.cuts());
        candidates.iter().find_map(|lesson| {
            // A lesson in common words only ("Update this comment") is echoed by a comment that
            // says all of them.
            let whole: HashSet<String> = words(&lesson.text)
                .into_iter()
                .filter(|w| !self.project.contains(w))
                .collect();
            let mut claim = whole.clone();
            claim.extend(words(
                &prepare(&prose_of(&topic_text(bodies[lesson.source])), None).text,
            ));
            claim.retain(|w| {
                GENERIC_WORDS.binary_search(&w.as_str()).is_err() && !self.project.contains(w)
            });
            let echoing: Vec<usize> = (0..members.len())
                .filter(|&at| {
                    at == lesson.source
                        || !said[at].is_disjoint(&claim)
                        || (whole.len() >= 2 && said[at].is_superset(&whole))
                })
                .collect();
            let prs: HashSet<i64> = echoing.iter().map(|&at| members[at].pr_number).collect();
            if prs.len() < 2 {
                return None;
            }
            let echoes = |text: &str| {
                let said = words(text);
                !said.is_disjoint(&claim) || (whole.len() >= 2 && said.is_superset(&whole))
            };
            let title = title_of(lesson, &candidates, &echoing, echoes);
            // The comments the title and the lesson are taken from are cited first, so their PRs
            // are shown by them.
            let mut echoing: Vec<&SourceComment> = echoing.iter().map(|&at| members[at]).collect();
            echoing.sort_by_key(|c| {
                (
                    c.id != members[title.source].id,
                    c.id != members[lesson.source].id,
                )
            });
            Some((title.text.clone(), echoing))
        })
    }

    /// What a reviewer who wrote most of a theme consistently cares about (opted-out logins
    /// skipped). A theme of one reviewer has none: its own finding already says "by 1 reviewer"
    /// and cites the same comments. Nor has a theme all but one of whose comments are one
    /// reviewer's (laravel's saved reply, with one stray comment by another reviewer).
    fn focus_findings(&self, theme: &Theme, members: &[&SourceComment]) -> Vec<Finding> {
        let mut by_author: BTreeMap<&str, Vec<&SourceComment>> = BTreeMap::new();
        for comment in members {
            by_author
                .entry(comment.author.as_str())
                .or_default()
                .push(comment);
        }
        if by_author.len() < 2 {
            return Vec::new();
        }
        let Some(lesson) = theme_lesson(
            theme,
            members,
            TITLE_CHARS - FOCUS_PREFIX_CHARS,
            self.cuts(),
        ) else {
            return Vec::new();
        };
        let opted_out = &self.input.settings.reviewer_opt_out;
        by_author
            .into_iter()
            .filter(|(login, _)| !login.is_empty())
            .filter(|(login, _)| !opted_out.iter().any(|o| o.eq_ignore_ascii_case(login)))
            .filter_map(|(login, comments)| {
                let prs: HashSet<i64> = comments.iter().map(|c| c.pr_number).collect();
                let focused = comments.len() >= FOCUS_MIN_COMMENTS
                    && prs.len() >= FOCUS_MIN_PRS
                    && 2 * comments.len() >= members.len()
                    && members.len() - comments.len() >= FOCUS_MIN_OTHERS;
                focused.then(|| Finding {
                    id: subject_id(&format!(
                        "focus:{}:{}",
                        login.to_lowercase(),
                        theme.id
                    )),
                    category: Category::ReviewerFocus,
                    severity: Severity::Low,
                    title: format!("Reviews by {login} keep coming back to this: {lesson}"),
                    insight: format!(
                        "{login} wrote {} of the {} review comments on this, in {} ({}). Expect the same question on your pull requests and settle it before asking for review.",
                        comments.len(),
                        members.len(),
                        count(prs.len(), "pull request", "pull requests"),
                        pr_list(&prs),
                    ),
                    evidence: comment_evidence(&comments, COMMENTS_PER_FINDING),
                    files: cited_paths(theme, &comments)
                        .into_iter()
                        .map(|(p, _)| p.to_string())
                        .collect(),
                    first_seen: theme.first_seen,
                    last_seen: self.input.settings.now,
                    status: Status::Active,
                })
            })
            .collect()
    }

    /// A hotspot that reviewers keep flagging is a fragile area.
    fn hotspot_findings(&self) -> Vec<Finding> {
        let mut hotspots: Vec<&Hotspot> = self.hotspots.values().copied().collect();
        hotspots.sort_by(|a, b| a.path.cmp(&b.path));
        hotspots
            .into_iter()
            .filter_map(|hotspot| {
                // A file that changes often but is seldom fixed is busy, not fragile.
                if hotspot.fix_ratio < MIN_FRAGILE_FIX_RATIO {
                    return None;
                }
                // A documentation or style remark on a busy file flags nothing fragile.
                let comments: Vec<&SourceComment> = self
                    .by_path
                    .get(hotspot.path.as_str())?
                    .iter()
                    .copied()
                    .filter(|c| c.labels.iter().any(|&label| flags_risk(label)))
                    .collect();
                if comments.len() < MIN_HOTSPOT_COMMENTS {
                    return None;
                }
                let comments = newest_first(&comments);
                let prs: HashSet<i64> = comments.iter().map(|c| c.pr_number).collect();
                if prs.len() < MIN_HOTSPOT_PRS {
                    return None;
                }
                let severity = if hotspot.fix_ratio >= FRAGILE_FIX_RATIO {
                    Severity::High
                } else {
                    Severity::Medium
                };
                let mut evidence = vec![stat(hotspot_id(hotspot), hotspot_text(hotspot))];
                evidence.extend(comment_evidence(&comments, COMMENTS_PER_FINDING));
                Some(Finding {
                    id: subject_id(&format!("fragile:{}", hotspot.path)),
                    category: Category::FragileArea,
                    severity,
                    title: format!(
                        "Go carefully in `{}`: it changes often and reviewers keep flagging it",
                        hotspot.path
                    ),
                    insight: format!(
                        "History: {}. Reviewers commented on it {} times in {}, most recently on {}: “{}”",
                        hotspot_text(hotspot),
                        comments.len(),
                        count(prs.len(), "pull request", "pull requests"),
                        figures::date(comments[0].created_at),
                        excerpt(&comments[0].body),
                    ),
                    evidence,
                    files: vec![hotspot.path.clone()],
                    first_seen: self.input.settings.now,
                    last_seen: self.input.settings.now,
                    status: Status::Active,
                })
            })
            .collect()
    }

    /// Reverts of files that have review comments are landmines; reverts of reverts above all.
    fn revert_findings(&self) -> Vec<Finding> {
        let history = self.input.history;
        // Paths at the analysed head; `None` when no head is known (every path then counts).
        let at_head: Option<HashSet<&str>> = (history.head.is_some()
            && !history.reverts.is_empty())
        .then(|| history.files_at_head.iter().map(String::as_str).collect());
        let mut groups: BTreeMap<Vec<String>, Vec<&Revert>> = BTreeMap::new();
        for revert in &history.reverts {
            // A file deleted since is no landmine: nobody will change it again.
            let mut files: Vec<String> = revert
                .files
                .iter()
                .filter(|file| {
                    at_head
                        .as_ref()
                        .is_none_or(|head| head.contains(file.as_str()))
                })
                .cloned()
                .collect();
            files.sort();
            if !files.is_empty() {
                groups.entry(files).or_default().push(revert);
            }
        }
        let mut ranked: Vec<(Vec<String>, Vec<&Revert>)> = groups.into_iter().collect();
        // The most telling first: reverted reverts, then more reverts, then the most recent.
        ranked.sort_by_key(|(_, reverts)| {
            let depth = reverts.iter().map(|r| r.depth).max().unwrap_or(1);
            let newest = reverts.iter().map(|r| r.at).max().unwrap_or(0);
            (Reverse(depth), Reverse(reverts.len()), Reverse(newest))
        });
        ranked
            .into_iter()
            .filter_map(|(files, reverts)| {
                // A day's grace after the revert: comment and commit dates come from different
                // clocks and time zones.
                let near = |c: &SourceComment| {
                    reverts.iter().any(|r| {
                        (-86_400..=REVERT_REVIEW_DAYS * 86_400).contains(&(r.at - c.created_at))
                    })
                };
                // A documentation or style remark says nothing of why a change was undone.
                let comments: Vec<&SourceComment> = files
                    .iter()
                    .flat_map(|f| self.by_path.get(f.as_str()).into_iter().flatten())
                    .copied()
                    .filter(|c| near(c) && c.labels.iter().any(|&label| flags_risk(label)))
                    .collect();
                if comments.is_empty() {
                    return None;
                }
                let comments = newest_first(&comments);
                let depth = reverts.iter().map(|r| r.depth).max().unwrap_or(1);
                let subject = match files.len() {
                    1 => format!("`{}`", files[0]),
                    n => format!("`{}` and {}", files[0], count(n - 1, "other file", "other files")),
                };
                let (title, severity) = if depth >= 2 {
                    (
                        format!("A change to {subject} was reverted, then the revert reverted — agree on the approach with its reviewers first"),
                        Severity::High,
                    )
                } else {
                    (
                        format!("A change to {subject} had to be reverted — read why before changing it again"),
                        Severity::Medium,
                    )
                };
                let subjects: Vec<String> = reverts
                    .iter()
                    .map(|r| format!("{} “{}” on {}", figures::short(&r.sha), r.subject, figures::date(r.at)))
                    .collect();
                let insight = format!(
                    "{}: {}. Reviewers commented on these files {} around then; the latest: “{}”",
                    count(reverts.len(), "revert", "reverts"),
                    subjects.join("; "),
                    count(comments.len(), "time", "times"),
                    excerpt(&comments[0].body),
                );
                let mut cited = HashSet::new();
                let mut evidence: Vec<Evidence> = reverts
                    .iter()
                    .flat_map(|r| {
                        let reverted = r.reverted.as_ref().map(|sha| Evidence {
                            kind: EvidenceKind::Commit,
                            id: sha.clone(),
                            text: format!("the change {} reverted", figures::short(&r.sha)),
                        });
                        std::iter::once(Evidence {
                            kind: EvidenceKind::Commit,
                            id: r.sha.clone(),
                            text: r.subject.clone(),
                        })
                        .chain(reverted)
                    })
                    // A revert of a revert names the first revert, cited already.
                    .filter(|e| cited.insert(e.id.clone()))
                    .collect();
                evidence.extend(comment_evidence(&comments, COMMENTS_PER_FINDING));
                Some(Finding {
                    id: subject_id(&format!("landmine:{}", files.join("|"))),
                    category: Category::Landmine,
                    severity,
                    title,
                    insight,
                    evidence,
                    files,
                    first_seen: self.input.settings.now,
                    last_seen: self.input.settings.now,
                    status: Status::Active,
                })
            })
            .take(MAX_REVERT_FINDINGS)
            .collect()
    }

    /// Files that change together, when a review comment on one names the other.
    fn coupling_findings(&self) -> Vec<Finding> {
        self.input
            .history
            .couplings
            .iter()
            .filter_map(|coupling| {
                let cites = |on: &str, other: &str| -> Vec<&SourceComment> {
                    let name = file_name(other);
                    self.by_path
                        .get(on)
                        .into_iter()
                        .flatten()
                        .filter(|c| c.body.contains(name))
                        .copied()
                        .collect()
                };
                let mut comments = cites(&coupling.a, &coupling.b);
                comments.extend(cites(&coupling.b, &coupling.a));
                if comments.is_empty() {
                    return None;
                }
                let comments = newest_first(&comments);
                let mut evidence = vec![stat(coupling_id(coupling), coupling_text(coupling))];
                evidence.extend(comment_evidence(&comments, COMMENTS_PER_FINDING));
                Some(Finding {
                    id: subject_id(&format!("coupling:{}|{}", coupling.a, coupling.b)),
                    category: Category::Architecture,
                    severity: Severity::Medium,
                    title: format!(
                        "`{}` and `{}` go together — when you change one, check the other",
                        coupling.a, coupling.b
                    ),
                    insight: format!(
                        "History: {}. Reviewers pointed at the pair {}: “{}”",
                        coupling_text(coupling),
                        count(comments.len(), "time", "times"),
                        excerpt(&comments[0].body),
                    ),
                    evidence,
                    files: vec![coupling.a.clone(), coupling.b.clone()],
                    first_seen: self.input.settings.now,
                    last_seen: self.input.settings.now,
                    status: Status::Active,
                })
            })
            .collect()
    }

    /// A bug or security remark the classifier is sure of, on a file with a git signal.
    fn singleton_findings(&self) -> Vec<Finding> {
        self.input
            .themes
            .singletons
            .iter()
            .filter_map(|&id| {
                let comment = self.comment(id)?;
                let path = comment.path.as_deref()?;
                let signals = self.signals_of([path]);
                if signals.is_empty() {
                    return None;
                }
                let lesson = title::best(&[comment.body.as_str()], &[], 80, self.cuts())
                    .unwrap_or_else(|| cut(&excerpt(&comment.body), 80));
                let history: Vec<&str> = signals.iter().map(|s| s.text.as_str()).collect();
                let mut evidence = comment_evidence(&[comment], 1);
                evidence.extend(signals.iter().cloned());
                Some(Finding {
                    id: subject_id(&format!("singleton:{id}")),
                    category: Category::Landmine,
                    severity: Severity::High,
                    title: format!("{lesson} — in `{path}`"),
                    insight: format!(
                        "A reviewer flagged this in PR #{} on {}, and the file's history backs it up: {}.",
                        comment.pr_number,
                        figures::date(comment.created_at),
                        history.join("; "),
                    ),
                    evidence,
                    files: vec![path.to_string()],
                    first_seen: self.input.settings.now,
                    last_seen: self.input.settings.now,
                    status: Status::Active,
                })
            })
            .collect()
    }
}

/// A theme's lesson in at most `max` characters: the sentence of its comments (the most central
/// first) that best states one; `None` when none does.
fn theme_lesson(
    theme: &Theme,
    members: &[&SourceComment],
    max: usize,
    cuts: &CutSwitches,
) -> Option<String> {
    let bodies: Vec<&str> = members
        .iter()
        .take(LESSON_CANDIDATES)
        .map(|c| c.body.as_str())
        .collect();
    title::best(&bodies, &theme.terms, max, cuts)
}

/// The title of a finding on `lesson`, echoed by the members at `echoing`: the lesson itself when
/// the gate accepts it, else the best-ranked of the `candidates` the gate accepts that is taken
/// from an echoing member and `echoes` the lesson too; the lesson when there is none.
fn title_of<'c>(
    lesson: &'c title::Candidate,
    candidates: &'c [title::Candidate],
    echoing: &[usize],
    echoes: impl Fn(&str) -> bool,
) -> &'c title::Candidate {
    if lesson.accepted {
        return lesson;
    }
    candidates
        .iter()
        .filter(|c| c.accepted && echoing.contains(&c.source))
        .find(|c| echoes(&c.text))
        .unwrap_or(lesson)
}

/// `text` without its code: fenced blocks and `inline` spans. The code a comment shows names what
/// it is about at that place (`__duration__!`), not what its lesson is about.
fn prose_of(text: &str) -> String {
    let mut prose = String::with_capacity(text.len());
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            for (at, part) in line.split('`').enumerate() {
                if at % 2 == 0 {
                    prose.push_str(part);
                    prose.push(' ');
                }
            }
            prose.push('\n');
        }
    }
    prose
}

fn stat(id: String, text: String) -> Evidence {
    Evidence {
        kind: EvidenceKind::Stat,
        id,
        text,
    }
}

/// The comments a finding cites, in order: one per PR first (in the given order), then those
/// PRs' other inline comments. A PR's further comments without a file are left out: they carry
/// on the same discussion (a reply, a follow-up on the branch) and are not another time the
/// lesson was raised.
fn cited<'c>(comments: &[&'c SourceComment]) -> Vec<&'c SourceComment> {
    let mut prs = HashSet::new();
    let (first, rest): (Vec<&SourceComment>, Vec<&SourceComment>) =
        comments.iter().partition(|c| prs.insert(c.pr_number));
    first
        .into_iter()
        .chain(rest.into_iter().filter(|c| c.path.is_some()))
        .collect()
}

/// Up to `limit` of the comments a finding [`cited`] as evidence.
fn comment_evidence(comments: &[&SourceComment], limit: usize) -> Vec<Evidence> {
    cited(comments)
        .into_iter()
        .take(limit)
        .map(|c| Evidence {
            kind: EvidenceKind::Comment,
            id: c.id.to_string(),
            text: format!("PR #{}: {}", c.pr_number, excerpt(&c.body)),
        })
        .collect()
}

fn newest_first<'c>(comments: &[&'c SourceComment]) -> Vec<&'c SourceComment> {
    let mut sorted = comments.to_vec();
    sorted.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(a.id.cmp(&b.id)));
    sorted.dedup_by_key(|c| c.id);
    sorted
}

/// The theme's files that cited `members` are on, with how many of them each, the most first
/// (ties by path).
fn cited_paths<'t>(theme: &'t Theme, members: &[&SourceComment]) -> Vec<(&'t str, usize)> {
    let mut paths: Vec<(&str, usize)> = theme
        .paths
        .iter()
        .map(|(path, _)| {
            let on = members.iter().filter(|c| c.path.as_ref() == Some(path));
            (path.as_str(), on.count())
        })
        .filter(|&(_, n)| n > 0)
        .collect();
    paths.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    paths
}

/// The share (0..=1) of the cited inline comments whose review thread is resolved; `None`
/// without inline comments.
fn resolved_share(members: &[&SourceComment]) -> Option<f64> {
    let threads: Vec<bool> = members
        .iter()
        .filter(|c| c.path.is_some())
        .map(|c| c.resolved)
        .collect();
    let resolved = threads.iter().filter(|&&r| r).count();
    (!threads.is_empty()).then(|| resolved as f64 / threads.len() as f64)
}

/// `n` with its noun, e.g. "1 PR", "3 PRs".
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// PR numbers, ascending, as `#1, #2, #3` (at most six, then "…").
fn pr_list(prs: &HashSet<i64>) -> String {
    let mut sorted: Vec<i64> = prs.iter().copied().collect();
    sorted.sort();
    let mut listed: Vec<String> = sorted.iter().take(6).map(|n| format!("#{n}")).collect();
    if sorted.len() > 6 {
        listed.push("…".to_string());
    }
    listed.join(", ")
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}
