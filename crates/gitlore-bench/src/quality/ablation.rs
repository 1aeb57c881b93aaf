//! Each noise rule's worth on labelled comments: how many comments it decides and how many of
//! those the corpus does not call noise, and what switching it off alone changes (comments whose
//! verdict flips, whether the rule had them right, noise precision and recall without it).
//! Printed by `gitlore-bench noise-rules`.

use gitlore::knowledge::filter::{self, NoiseRules, Rule, Switches};
use gitlore_lab::corpus::Record;

use super::{Counts, HeldOut, Models, github_author, read};

/// A labelled comment and the noise model's verdict on its text.
#[derive(Debug, Clone, Copy)]
pub struct Read<'a> {
    pub record: &'a Record,
    pub content_free: bool,
}

/// `records` as the shipped noise model reads them (it has seen the training split).
pub fn shipped<'a>(records: &[&'a Record]) -> Vec<Read<'a>> {
    records
        .iter()
        .map(|record| Read {
            record,
            content_free: read(Models::shipped(), record).1.content_free,
        })
        .collect()
}

/// Leave-one-repository-out predictions as reads.
pub fn held_out<'a>(held: &[HeldOut<'a>]) -> Vec<Read<'a>> {
    held.iter()
        .map(|held| Read {
            record: held.record,
            content_free: held.content_free,
        })
        .collect()
}

/// One rule's part.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleEffect {
    pub rule: Rule,
    /// Comments it decides with every rule on (an override: comments it keeps out of the noise
    /// that the rules after it would have put in).
    pub decided: u32,
    /// Of those, the ones the corpus disagrees with.
    pub decided_wrong: u32,
    /// Comments whose verdict flips when it alone is off, and how many of them it had right.
    pub flipped: u32,
    pub flipped_right: u32,
    /// Noise against the corpus with it off.
    pub off: Counts,
}

/// Noise against the corpus with every rule on, and each rule's part, in the filter's order.
pub fn ablate(reads: &[Read]) -> (Counts, Vec<RuleEffect>) {
    let base = NoiseRules::new(None, None, &[]);
    let all_on = verdicts(&base, reads);
    let on = counts(reads, &all_on);
    let effects = Rule::ALL
        .into_iter()
        .map(|rule| {
            let rules = base.clone().with_switches(Switches::off([rule]));
            let off = verdicts(&rules, reads);
            let mut effect = RuleEffect {
                rule,
                decided: 0,
                decided_wrong: 0,
                flipped: 0,
                flipped_right: 0,
                off: counts(reads, &off),
            };
            for ((read, with), without) in reads.iter().zip(&all_on).zip(&off) {
                let gold = read.record.noise.is_some();
                if with.1 == Some(rule) {
                    effect.decided += 1;
                    effect.decided_wrong += u32::from(with.0 != gold);
                }
                if with.0 != without.0 {
                    effect.flipped += 1;
                    effect.flipped_right += u32::from(with.0 == gold);
                }
            }
            effect
        })
        .collect();
    (on, effects)
}

/// Per comment: whether `rules` call it noise, and the rule that decided.
fn verdicts(rules: &NoiseRules, reads: &[Read]) -> Vec<(bool, Option<Rule>)> {
    reads
        .iter()
        .map(|read| {
            let record = read.record;
            let body = filter::analysable_text(&record.body);
            match rules.decide(
                &github_author(record),
                &body,
                record.by_pr_author(),
                read.content_free,
            ) {
                Some((_, rule)) => (true, rule),
                None => (false, None),
            }
        })
        .collect()
}

fn counts(reads: &[Read], verdicts: &[(bool, Option<Rule>)]) -> Counts {
    let mut counts = Counts::default();
    for (read, (noise, _)) in reads.iter().zip(verdicts) {
        counts.add(*noise, read.record.noise.is_some());
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, body: &str, noise: Option<&str>) -> Record {
        Record {
            id: id.to_string(),
            repo: "acme/widgets".to_string(),
            pr: 1,
            url: None,
            pr_author: Some("bob".to_string()),
            author: "alice".to_string(),
            author_type: None,
            kind: "conversation".to_string(),
            path: None,
            line: None,
            diff_hunk: None,
            created_at: None,
            body: body.to_string(),
            noise: noise.map(str::to_string),
            labels: Vec::new(),
        }
    }

    #[test]
    fn a_rule_is_credited_with_what_it_decides_and_what_switching_it_off_changes() {
        let records = [
            record("a", "LGTM", Some("trivial")),
            record("b", "Thanks!", None),
            record("c", "This leaks the handle when the read fails.", None),
            record(
                "d",
                "We will talk it over at the weekly meeting on Tuesday.",
                Some("trivial"),
            ),
        ];
        let reads: Vec<Read> = records
            .iter()
            .map(|record| Read {
                record,
                content_free: record.id == "d",
            })
            .collect();
        let (on, effects) = ablate(&reads);
        assert_eq!((on.tp, on.fp, on.fn_), (2, 1, 0));
        let effect = |rule| effects.iter().find(|e| e.rule == rule).unwrap();
        let words = effect(Rule::ContentFreeWords);
        assert_eq!((words.decided, words.decided_wrong), (2, 1), "{words:?}");
        // Off, it loses "LGTM" (which it had right); "Thanks!" is caught by a later rule.
        assert_eq!((words.flipped, words.flipped_right), (1, 1));
        assert_eq!((words.off.tp, words.off.fp, words.off.fn_), (1, 1, 1));
        let model = effect(Rule::NoiseModel);
        assert_eq!(
            (model.decided, model.flipped, model.flipped_right),
            (1, 1, 1)
        );
        assert_eq!(effect(Rule::AgreementNotice).decided, 0);
    }
}
