//! Fix-after chains: a fix landing soon after a change to the same files, in three tiers of
//! evidence. Gaps are measured between author times.
//!
//! The quickest tier takes any message, so it does not link a commit that landed as a pull
//! request of its own: two pull requests the same author merged minutes apart are two reviewed
//! changes, and the second one is a fix only if its title says so (the next tier).

use std::collections::HashMap;

use super::words::{FixTarget, is_fix, is_pull_request, strong_fix_target};
use super::{FixAfter, FixTier, Prepared};
use crate::domain::history::Commit;

/// Same author, any message.
pub const SAME_AUTHOR_QUICK_SECS: i64 = 30 * 60;
/// Same author, with fix words.
pub const SAME_AUTHOR_FIX_WORDS_SECS: i64 = 4 * 60 * 60;
/// Any author, with a strong fix signal naming the change.
pub const STRONG_SIGNAL_SECS: i64 = 7 * 24 * 60 * 60;

/// One link per fix commit, to the newest earlier change of the same files that a tier allows;
/// newest fix first.
pub fn fix_after(history: &Prepared<'_>) -> Vec<FixAfter> {
    let mut by_path: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut links = Vec::new();
    for (index, (fix, paths)) in history.commits.iter().zip(&history.paths).enumerate() {
        let signal = Signal::of(fix);
        let window = signal.window();
        let mut candidates: Vec<usize> = paths
            .iter()
            .filter_map(|path| by_path.get(path.as_str()))
            .flat_map(|earlier| {
                earlier
                    .iter()
                    .rev()
                    .take_while(|&&change| {
                        fix.author_time - history.commits[change].author_time <= window
                    })
                    .copied()
            })
            .collect();
        candidates.sort_unstable_by(|a, b| b.cmp(a));
        candidates.dedup();
        let link = candidates.into_iter().find_map(|change| {
            let earlier = &history.commits[change];
            let gap = fix.author_time - earlier.author_time;
            let tier = signal.tier(earlier, fix, gap)?;
            let files = shared(&history.paths[change], paths);
            Some(FixAfter {
                change: earlier.sha.clone(),
                fix: fix.sha.clone(),
                tier,
                files,
                gap_secs: gap,
            })
        });
        links.extend(link.map(|link| (fix.author_time, link)));
        for path in paths {
            by_path.entry(path).or_default().push(index);
        }
    }
    links.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
    links.into_iter().map(|(_, link)| link).collect()
}

/// What the fix commit's message says.
struct Signal {
    fix_words: bool,
    pull_request: bool,
    target: Option<FixTarget>,
}

impl Signal {
    fn of(fix: &Commit) -> Signal {
        Signal {
            fix_words: is_fix(fix),
            pull_request: is_pull_request(fix),
            target: strong_fix_target(fix),
        }
    }

    /// The longest gap a tier could allow this fix (0: none can link it), so that only the
    /// commits inside it are looked at.
    fn window(&self) -> i64 {
        if self.target.is_some() {
            STRONG_SIGNAL_SECS
        } else if self.fix_words {
            SAME_AUTHOR_FIX_WORDS_SECS
        } else if !self.pull_request {
            SAME_AUTHOR_QUICK_SECS
        } else {
            0
        }
    }

    /// The first tier (quickest first) the pair qualifies for.
    fn tier(&self, change: &Commit, fix: &Commit, gap: i64) -> Option<FixTier> {
        if gap < 0 {
            return None;
        }
        let same_author = change.author_email.eq_ignore_ascii_case(&fix.author_email);
        if same_author && !self.pull_request && gap <= SAME_AUTHOR_QUICK_SECS {
            return Some(FixTier::SameAuthorQuick);
        }
        if same_author && self.fix_words && gap <= SAME_AUTHOR_FIX_WORDS_SECS {
            return Some(FixTier::SameAuthorFixWords);
        }
        let named = match &self.target {
            Some(FixTarget::Subject(subject)) => change.subject.trim() == subject,
            Some(FixTarget::Sha(sha)) => change.sha.starts_with(sha.as_str()),
            None => false,
        };
        (named && gap <= STRONG_SIGNAL_SECS).then_some(FixTier::StrongSignal)
    }
}

fn shared(a: &[String], b: &[String]) -> Vec<String> {
    a.iter().filter(|path| b.contains(path)).cloned().collect()
}
