//! Where a sentence may be cut and leave its reviewer's own words: the clause boundaries a title
//! may start or end at, one [`Cut`] each. A cut drops what lies beyond a boundary and
//! never rewords what it keeps: a clause taken from inside a sentence only gets a capital first
//! letter, and a title loses its closing stop. A repository switches cuts off with
//! `[analysis] title-cuts-off`; `gitlore-bench title-cuts` prints what switching each off does.

use crate::knowledge::switches::{self, Named};
use crate::repo_config::TITLE_CUTS;

use super::words::{CONNECTIVES, COURTESIES, EMOJI_CODES, FRAMES, SMILEYS, words_of};

/// One kind of clause boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cut {
    /// After an address, a label or a reply word (two words at most) at a comma, colon, dash or
    /// semicolon, or after the `@login` it opens with: "Nit: use …", "Hi @bob, we don't …", "Yup,
    /// please …", "@bob can you …".
    Address,
    /// After a leading subordinate clause, at its comma: "If so, add …", "As mentioned in the
    /// issue, …".
    Opening,
    /// After a connective that ties the clause to what came before: "Also, …", "But …",
    /// "…, however we do not accept …", "Thank you but we …", "Lgtm although we …".
    Connective,
    /// After a clause that frames the rest as the writer's view: "I think …", "Note that …", "Given
    /// that … I think …".
    Framing,
    /// Before a clause that follows a comma, colon, dash or semicolon: "Add a test, since …".
    Trailing,
    /// Before a reason or a contrast: "… because …", "… since …", "… but …".
    Reason,
    /// Before an aside or a decoration at the end: " (…)", ", e.g. …", ":)", " please", " tbh".
    Aside,
}

/// Boundaries that end a clause and open the next (outside code and parentheses).
const PUNCTUATION: &[&str] = &[", ", ": ", " — ", " – ", " - ", "; "];
/// Words an address, a label or a reply word dropped from the front may have ("Hi @bob", "Nit",
/// "Yup"), and an opening that runs to its contrast ("Lgtm although …").
const OPENING_WORDS: usize = 2;
/// Words that open a subordinate clause, which may be dropped from the front whatever its length
/// ("If `babel` is included, add …").
const SUBORDINATORS: &[&str] = &[
    "while", "although", "though", "if", "when", "since", "as", "because", "whereas", "unless",
    "to", "in", "before", "after", "once", "given", "for",
];
/// Words that open a reason or a contrast after the lesson.
const REASONS: &[&str] = &[
    " because ",
    " since ",
    " so that ",
    " but ",
    " so ",
    " which ",
];
/// Openings of an example after the lesson.
const EXAMPLES: &[&str] = &[
    ", e.g.", " e.g.", " (e.g.", ", i.e.", " i.e.", " (i.e.", ", like ",
];
/// Words that close a sentence without adding to it.
const TAGS: &[&str] = &[
    " please", " tbh", " imo", " thx", " thanks", " though", " too",
];

impl Cut {
    /// Every cut, starts first, those that drop only an opener before the others.
    pub const ALL: [Cut; 7] = [
        Cut::Address,
        Cut::Connective,
        Cut::Framing,
        Cut::Opening,
        Cut::Trailing,
        Cut::Reason,
        Cut::Aside,
    ];

    /// Whether the cut drops the front of a sentence (rather than its end).
    pub fn drops_front(self) -> bool {
        matches!(
            self,
            Cut::Address | Cut::Opening | Cut::Connective | Cut::Framing
        )
    }

    /// Whether the cut drops only what opens the sentence without adding to its lesson (an
    /// address, a connective, a frame).
    pub fn drops_an_opener(self) -> bool {
        matches!(self, Cut::Address | Cut::Connective | Cut::Framing)
    }

    /// The offsets in `text` at which a clause may start (front cuts) or end (end cuts), given
    /// that the clause now starts or ends at `at`.
    fn boundaries(self, text: &str, at: usize) -> Vec<usize> {
        let lower = text.to_ascii_lowercase();
        match self {
            Cut::Address => outside(text, PUNCTUATION)
                .into_iter()
                .filter(|&(start, _)| {
                    start >= at && lower[at..start].split_whitespace().count() <= OPENING_WORDS
                })
                .map(|(_, end)| end)
                .chain(after_mention(text, at))
                .collect(),
            Cut::Opening => outside(text, &[", "])
                .into_iter()
                .filter(|&(start, _)| start >= at && subordinate(&lower[at..start]))
                .map(|(_, end)| end)
                .collect(),
            Cut::Connective => {
                let mut found = opening(&lower, at, CONNECTIVES);
                let turns = outside(text, &[", however ", ", but ", ", so "]);
                found.extend(turns.into_iter().filter(|&(s, _)| s >= at).map(|(_, e)| e));
                // "Thank you for the PR but we …", "Lgtm although we …": a courtesy or a short
                // opening runs to its contrast.
                let courtesy = words_of(&lower[at..])
                    .first()
                    .is_some_and(|w| COURTESIES.contains(w));
                let contrasts = outside(text, &[" but ", " although ", " though "]).into_iter();
                found.extend(
                    contrasts
                        .filter(|&(s, _)| s >= at)
                        .find(|&(s, _)| {
                            courtesy || lower[at..s].split_whitespace().count() <= OPENING_WORDS
                        })
                        .map(|(_, e)| e),
                );
                found
            }
            Cut::Framing => {
                let mut found = opening(&lower, at, FRAMES);
                // "Given that … is undefined I think this should …": the frame closes a leading
                // subordinate clause that has no comma.
                if subordinate(&lower[at..]) {
                    let framed = outside(text, &[" i think that ", " i think "]).into_iter();
                    found.extend(framed.filter(|&(s, _)| s >= at).map(|(_, e)| e));
                }
                found
            }
            Cut::Trailing => outside(text, PUNCTUATION)
                .into_iter()
                .filter(|&(start, _)| start <= at)
                .map(|(start, _)| start)
                .collect(),
            Cut::Reason => outside(text, REASONS)
                .into_iter()
                .filter(|&(start, _)| start <= at)
                .map(|(start, _)| start)
                .collect(),
            Cut::Aside => aside_before(text, &lower, at).into_iter().collect(),
        }
    }
}

impl Named for Cut {
    const KIND: &'static str = "title cut";
    const ALL: &'static [Cut] = &Cut::ALL;

    /// [`TITLE_CUTS`], which a repository's config is checked against.
    fn name(self) -> &'static str {
        TITLE_CUTS[self as usize]
    }
}

/// The cuts switched off (none by default).
pub type CutSwitches = switches::Switches<Cut>;

/// A clause of a sentence: its words as written (capitalised, without a closing stop) and the
/// cuts that made it.
#[derive(Debug, Clone, PartialEq)]
pub struct Clause {
    pub text: String,
    pub cuts: Vec<Cut>,
}

/// The sentence itself and every clause the cuts switched on leave of it, each once, the fewest
/// cuts first.
pub fn clauses(sentence: &str, switches: &CutSwitches) -> Vec<Clause> {
    let sentence = sentence.trim();
    let starts = reachable(sentence, 0, true, switches);
    let ends = reachable(sentence, sentence.len(), false, switches);
    let mut out: Vec<Clause> = Vec::new();
    for (start, front) in &starts {
        for (end, back) in &ends {
            if start >= end {
                continue;
            }
            let text = tidy(&sentence[*start..*end]);
            if text.is_empty() || out.iter().any(|c| c.text == text) {
                continue;
            }
            let cuts: Vec<Cut> = front.iter().chain(back).copied().collect();
            out.push(Clause { text, cuts });
        }
    }
    out.sort_by_key(|c| c.cuts.len());
    out
}

/// Every offset a clause of `text` can start (`front`) or end at from `at`, with the cuts that
/// lead there, each offset once (by the fewest cuts).
fn reachable(text: &str, at: usize, front: bool, switches: &CutSwitches) -> Vec<(usize, Vec<Cut>)> {
    let mut found: Vec<(usize, Vec<Cut>)> = vec![(at, Vec::new())];
    let mut next = 0;
    while next < found.len() {
        let (from, cuts) = found[next].clone();
        next += 1;
        let on = Cut::ALL.into_iter().filter(|c| switches.is_on(*c));
        for cut in on.filter(|c| c.drops_front() == front) {
            for to in cut.boundaries(text, from) {
                if to != from && !found.iter().any(|(seen, _)| *seen == to) {
                    let mut path = cuts.clone();
                    path.push(cut);
                    found.push((to, path));
                }
            }
        }
    }
    found
}

/// Where each of `marks` occurs in `text` outside code spans and parentheses: (start, end).
fn outside(text: &str, marks: &[&str]) -> Vec<(usize, usize)> {
    let lower = text.to_ascii_lowercase();
    let mut found = Vec::new();
    for mark in marks {
        for (start, _) in lower.match_indices(mark) {
            let before = &text[..start];
            let in_code = before.matches('`').count() % 2 == 1;
            let in_parens = before.matches('(').count() > before.matches(')').count();
            if !in_code && !in_parens {
                found.push((start, start + mark.len()));
            }
        }
    }
    found
}

/// The offset after one of `openers` that opens `lower` at `at` as words of their own (a comma
/// may follow them).
fn opening(lower: &str, at: usize, openers: &[&str]) -> Vec<usize> {
    let rest = &lower[at..];
    openers
        .iter()
        .filter_map(|opener| {
            let after = rest.strip_prefix(opener)?;
            let gap = after.len() - after.trim_start_matches([',', ' ']).len();
            (after.starts_with([' ', ',']) && gap < after.len()).then_some(at + opener.len() + gap)
        })
        .collect()
}

/// Whether `text` opens with a subordinator.
fn subordinate(text: &str) -> bool {
    words_of(text)
        .first()
        .is_some_and(|w| SUBORDINATORS.contains(w))
}

/// The offset after the `@login` that opens `text` at `at`, whom the sentence addresses ("@bob
/// can you …").
fn after_mention(text: &str, at: usize) -> Option<usize> {
    let rest = &text[at..];
    let login = rest.strip_prefix('@')?;
    let end = login.find([' ', ',', ':'])?;
    let after = &login[end..];
    let gap = after.len() - after.trim_start_matches([',', ':', ' ']).len();
    (end > 0 && gap < after.len()).then_some(at + 1 + end + gap)
}

/// Where the aside or decoration that ends `text` before `at` starts: a parenthesis closing at
/// the end, an example, a smiley or an emoji code, a tag word.
fn aside_before(text: &str, lower: &str, at: usize) -> Option<usize> {
    let head = text[..at].trim_end_matches(['.', '!', ' ']);
    let lower_head = &lower[..head.len()];
    if head.ends_with(')')
        && let Some(open) = head.rfind(" (")
        && !head[open..].contains('`')
    {
        return Some(open);
    }
    if let Some(start) = EXAMPLES.iter().filter_map(|e| lower_head.find(e)).min() {
        return Some(start);
    }
    let last = head.rsplit(' ').next().unwrap_or_default();
    let decoration = SMILEYS.contains(&last)
        || EMOJI_CODES.contains(last)
        || last.chars().all(|c| !c.is_ascii() && !c.is_alphanumeric());
    if decoration && !last.is_empty() {
        return Some(head.len() - last.len());
    }
    TAGS.iter()
        .find(|tag| lower_head.ends_with(*tag))
        .map(|tag| head.len() - tag.len())
}

/// A clause as a title shows it: trimmed, without the punctuation a cut leaves at its end nor
/// its closing stop, its first letter a capital when its first word is a plain word (a path or
/// an identifier keeps its case).
fn tidy(clause: &str) -> String {
    let kept = clause
        .trim()
        .trim_end_matches([',', ';', ':', '-', '—', '–', '.', '!', ' ']);
    let first_word = kept.split_whitespace().next().unwrap_or_default();
    let plain = first_word
        .trim_end_matches([',', ':', ';'])
        .chars()
        .all(|c| c.is_alphabetic() || c == '\'' || c == '’');
    let mut chars = kept.chars();
    match chars.next() {
        Some(first) if plain => first.to_uppercase().chain(chars).collect(),
        _ => kept.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(sentence: &str) -> Vec<String> {
        clauses(sentence, &CutSwitches::default())
            .into_iter()
            .map(|c| c.text)
            .collect()
    }

    #[test]
    fn every_cut_is_named_once_parses_back_and_switches_off() {
        let mut names: Vec<&str> = Cut::ALL.iter().map(|cut| cut.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Cut::ALL.len());
        for cut in Cut::ALL {
            assert_eq!(Cut::parse(cut.name()).unwrap(), cut);
        }
        let error = Cut::parse("comma").unwrap_err().to_string();
        assert!(error.contains("`comma` is not a title cut") && error.contains("aside"));
        let sentence = "Also, please add a test for the empty input (see above)";
        let without_aside = CutSwitches::parse(&[" aside".into()]).unwrap();
        let kept: Vec<String> = clauses(sentence, &without_aside)
            .into_iter()
            .map(|c| c.text)
            .collect();
        assert!(texts(sentence).contains(&"Please add a test for the empty input".to_string()));
        assert!(
            !kept
                .iter()
                .any(|t| t == "Please add a test for the empty input")
        );
        assert!(kept.contains(&"Please add a test for the empty input (see above)".to_string()));
    }

    #[test]
    fn a_clause_keeps_its_reviewers_words() {
        let all = texts("Hi @bob, thanks for the PR but we do not accept cosmetic changes.");
        assert!(
            all.contains(&"We do not accept cosmetic changes".to_string()),
            "{all:?}"
        );
        let all = texts("I think we should keep the flag private, since nobody uses it.");
        assert!(
            all.contains(&"We should keep the flag private".to_string()),
            "{all:?}"
        );
        let all = texts("Also, please add a test for the empty input (see above) :)");
        assert!(
            all.contains(&"Please add a test for the empty input".to_string()),
            "{all:?}"
        );
        let all = texts("@sberyozkin can you squash the 2 commits?");
        assert!(
            all.contains(&"Can you squash the 2 commits?".to_string()),
            "{all:?}"
        );
        let all = texts("If `babel` include, add `babel-flow` `babel-ts`.");
        assert!(
            all.contains(&"Add `babel-flow` `babel-ts`".to_string()),
            "{all:?}"
        );
        // The sentence itself comes first, without its stop.
        assert_eq!(all[0], "If `babel` include, add `babel-flow` `babel-ts`");
        // A path keeps its case.
        let all = texts("BTW, docs/PUBLIC_API.md also needs to be updated.");
        assert!(
            all.contains(&"docs/PUBLIC_API.md also needs to be updated".to_string()),
            "{all:?}"
        );
    }

    #[test]
    fn no_cut_falls_inside_code_or_parentheses() {
        for clause in texts("Use `a, b` here (or `c, d`), not `e`.") {
            assert_eq!(clause.matches('`').count() % 2, 0, "{clause}");
            assert_eq!(
                clause.matches('(').count(),
                clause.matches(')').count(),
                "{clause}"
            );
        }
    }
}
