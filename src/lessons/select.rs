//! The lessons for a coding agent or a person about to change some files: the findings that apply
//! to the given paths — directly, by directory, or through a file that usually changes with them
//! (the check run's rule) — or whose text matches a query, ranked, and written as plain markdown
//! within a size budget, each with its evidence links.

use crate::domain::findings::{Category, Finding};
use crate::lessons::report::RepoReport;
use crate::render::check_run::{Why, applicable_findings};
use crate::render::links::{LinkStyle, code_span, untrusted};

/// The size budget when none is given, in characters: about a thousand tokens, a small share of
/// an agent's context.
pub const DEFAULT_BUDGET: usize = 4_000;
/// Characters of a lesson's title kept.
const TITLE_CHARS: usize = 150;
/// Characters of a lesson's insight kept.
const INSIGHT_CHARS: usize = 600;
/// Evidence links per lesson.
const EVIDENCE_LINKS: usize = 3;
/// Characters of an evidence excerpt.
const EXCERPT_CHARS: usize = 120;

/// Review text for an agent: defused as in the findings issue, but without the zero-width
/// entities that keep `@login` and `#12` from notifying anyone on GitHub — an agent's context
/// notifies nobody, and the entities are noise to a model.
pub fn for_agents(text: &str, max_chars: usize) -> String {
    let links = LinkStyle {
        web_base: String::new(),
        redirect_base: None,
    };
    untrusted(text, &links, max_chars).replace("&#8203;", "")
}

/// A lesson chosen for the request, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Chosen {
    pub finding: Finding,
    /// Why it applies to the paths; `None` for a text match.
    pub why: Option<Why>,
}

/// The lessons that apply to `paths` (relative to the repository's root; a directory ends with
/// `/`), the closest first: a lesson about the path itself, then about its directory, then about
/// a file coupled to it; more severe first within each.
pub fn for_paths(report: &RepoReport, paths: &[String]) -> Vec<Chosen> {
    let mut asked: Vec<String> = paths.iter().map(|p| normalise(p)).collect();
    // A directory asks for every lesson about a file under it.
    for directory in paths
        .iter()
        .map(|p| normalise(p))
        .filter(|p| p.ends_with('/'))
    {
        for finding in &report.findings {
            asked.extend(
                finding
                    .files
                    .iter()
                    .filter(|file| file.starts_with(&directory))
                    .cloned(),
            );
        }
    }
    asked.sort();
    asked.dedup();
    let mut chosen: Vec<Chosen> = applicable_findings(&report.findings, &asked, &report.couplings)
        .into_iter()
        .map(|(finding, why)| Chosen {
            finding,
            why: Some(why),
        })
        .collect();
    chosen.sort_by_key(|c| {
        (
            closeness(c.why.as_ref()),
            c.finding.severity,
            rank(&c.finding),
        )
    });
    chosen
}

/// The lessons whose title, insight, files or evidence contain every word of `query`
/// (case-insensitive), more severe first; all of them for an empty query.
pub fn search(report: &RepoReport, query: &str) -> Vec<Chosen> {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let mut chosen: Vec<Chosen> = report
        .findings
        .iter()
        .filter(|finding| {
            let haystack = haystack(finding);
            words.iter().all(|word| haystack.contains(word.as_str()))
        })
        .map(|finding| Chosen {
            finding: finding.clone(),
            why: None,
        })
        .collect();
    chosen.sort_by_key(|c| (c.finding.severity, rank(&c.finding)));
    chosen
}

/// `chosen` as markdown of at most `budget` characters: whole lessons in order while they fit
/// (the first one cut to fit when even it does not), then a line saying how many were left out. Review text is defused as in the findings issue.
pub fn render(report: &RepoReport, chosen: &[Chosen], budget: usize) -> String {
    if chosen.is_empty() {
        return "No lesson gitlore learned applies.\n".to_string();
    }
    let mut out = String::new();
    let mut shown = 0;
    for lesson in chosen {
        let block = lesson_block(report, lesson);
        let left = chosen.len() - shown - 1;
        let reserve = if left > 0 {
            left_out(left).chars().count()
        } else {
            0
        };
        let room = budget.saturating_sub(out.chars().count() + reserve);
        if block.chars().count() > room {
            // The best lesson, cut to fit, says more than none at all.
            if shown == 0 {
                out.push_str(&cut_to(&block, room));
                shown += 1;
            }
            break;
        }
        out.push_str(&block);
        shown += 1;
    }
    if shown < chosen.len() {
        out.push_str(&left_out(chosen.len() - shown));
    }
    out
}

/// `block` cut to at most `chars` characters, ending in `…` and a line break.
fn cut_to(block: &str, chars: usize) -> String {
    let kept: String = block.chars().take(chars.saturating_sub(2)).collect();
    format!("{}…\n", kept.trim_end())
}

fn left_out(lessons: usize) -> String {
    format!("_{lessons} more left out for the size budget._\n")
}

fn lesson_block(report: &RepoReport, lesson: &Chosen) -> String {
    let finding = &lesson.finding;
    let mut block = format!(
        "## {}\n\n{} · {}",
        for_agents(&finding.title, TITLE_CHARS),
        finding.severity.as_str(),
        finding.category.as_str().replace('_', " "),
    );
    if let Some(why) = &lesson.why {
        block.push_str(&format!(" · {}", why_line(why)));
    }
    block.push_str(&format!(
        "\n\n{}\n",
        for_agents(&finding.insight, INSIGHT_CHARS)
    ));
    let cited: Vec<String> = finding
        .evidence
        .iter()
        .filter_map(|e| report.url(e).map(|url| (e, url)))
        .take(EVIDENCE_LINKS)
        .map(|(e, url)| {
            format!(
                "- {} <{}>",
                for_agents(&e.text, EXCERPT_CHARS),
                url.replace(['<', '>', ' '], "")
            )
        })
        .collect();
    if !cited.is_empty() {
        block.push_str(&format!("\nEvidence:\n{}\n", cited.join("\n")));
    }
    block.push('\n');
    block
}

/// Why a lesson applies, as a short phrase.
pub fn why_line(why: &Why) -> String {
    match why {
        Why::Direct(path) => format!("about {}", code_span(path)),
        Why::SameDirectory { changed, directory } => {
            format!("{} is in {}", code_span(changed), code_span(directory))
        }
        Why::Coupled { changed, coupled } => format!(
            "{} usually changes with {}",
            code_span(changed),
            code_span(coupled)
        ),
    }
}

/// `./src/x.rs` and `src\x.rs` as `src/x.rs`.
fn normalise(path: &str) -> String {
    let path = path.trim().replace('\\', "/");
    path.trim_start_matches("./")
        .trim_start_matches('/')
        .to_string()
}

fn closeness(why: Option<&Why>) -> u8 {
    match why {
        Some(Why::Direct(_)) | None => 0,
        Some(Why::SameDirectory { .. }) => 1,
        Some(Why::Coupled { .. }) => 2,
    }
}

fn rank(finding: &Finding) -> Option<usize> {
    Category::ALL.iter().position(|c| *c == finding.category)
}

fn haystack(finding: &Finding) -> String {
    let mut text = format!(
        "{}\n{}\n{}",
        finding.title,
        finding.insight,
        finding.files.join("\n")
    );
    for evidence in &finding.evidence {
        text.push('\n');
        text.push_str(&evidence.text);
    }
    text.to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::findings::{Evidence, EvidenceKind, Severity, Status};
    use crate::domain::history::Coupling;

    fn finding(id: &str, severity: Severity, files: &[&str]) -> Finding {
        Finding {
            id: id.into(),
            category: Category::CodePattern,
            severity,
            title: format!("Lesson {id}"),
            insight: format!("Insight of {id}."),
            evidence: vec![Evidence {
                kind: EvidenceKind::Comment,
                id: format!("{id}1"),
                text: "Return an error instead.".into(),
            }],
            files: files.iter().map(|f| f.to_string()).collect(),
            first_seen: 0,
            last_seen: 0,
            status: Status::Active,
        }
    }

    fn report() -> RepoReport {
        let mut report = RepoReport {
            findings: vec![
                finding("a", Severity::Low, &["lib/db.rs"]),
                finding("b", Severity::High, &["src/api/"]),
                finding("c", Severity::High, &["src/other.rs"]),
                finding("d", Severity::Medium, &["docs/guide.md"]),
            ],
            couplings: vec![Coupling {
                a: "src/other.rs".into(),
                b: "tests/other.rs".into(),
                confidence: 0.8,
                ..Default::default()
            }],
            ..Default::default()
        };
        report.urls.insert(
            (EvidenceKind::Comment, "a1".into()),
            "https://github.com/o/r/pull/1#discussion_r1".into(),
        );
        report
    }

    fn ids(chosen: &[Chosen]) -> Vec<&str> {
        chosen.iter().map(|c| c.finding.id.as_str()).collect()
    }

    #[test]
    fn direct_lessons_come_before_directory_and_coupled_ones() {
        let asked = ["tests/other.rs", "./src/api/routes.rs", "lib/db.rs"].map(String::from);
        let chosen = for_paths(&report(), &asked);
        assert_eq!(ids(&chosen), ["a", "b", "c"]);
        assert!(matches!(chosen[2].why, Some(Why::Coupled { .. })));
    }

    #[test]
    fn a_directory_asks_for_the_lessons_under_it() {
        let chosen = for_paths(&report(), &["docs/".to_string()]);
        assert_eq!(ids(&chosen), ["d"]);
    }

    #[test]
    fn search_needs_every_word() {
        assert_eq!(ids(&search(&report(), "LESSON of c.")), ["c"]);
        assert_eq!(ids(&search(&report(), "error instead")).len(), 4);
        assert!(search(&report(), "nothing like this").is_empty());
    }

    #[test]
    fn the_budget_keeps_whole_lessons_and_counts_the_rest() {
        let report = report();
        let all = search(&report, "");
        let full = render(&report, &all, usize::MAX);
        assert!(full.contains("<https://github.com/o/r/pull/1#discussion_r1>"));
        let small = render(&report, &all, 200);
        assert!(small.chars().count() <= 200, "{small}");
        assert!(
            small.ends_with("more left out for the size budget._\n"),
            "{small}"
        );
        assert!(small.starts_with("## Lesson"), "{small}");
    }

    #[test]
    fn a_lesson_longer_than_the_budget_is_cut_to_fit_rather_than_left_out() {
        let mut report = report();
        report.findings[2].insight = "A very long insight. ".repeat(40);
        let chosen = for_paths(&report, &["src/other.rs".to_string()]);
        let cut = render(&report, &chosen, 200);
        assert!(cut.chars().count() <= 200, "{cut}");
        assert!(cut.starts_with("## Lesson c\n\nhigh"), "{cut}");
        assert!(cut.ends_with("…\n"), "{cut}");
    }
}
