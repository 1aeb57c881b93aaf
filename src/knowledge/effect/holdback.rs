//! The hold-back (behaviour §3.4): a repository may have a random share of its new lessons
//! published some weeks late, so that lessons shown and lessons not yet shown can be compared in
//! those weeks. Which lessons is decided by a hash of the repository and the finding id: the same
//! on every run, and unrelated to anything about the lesson.

use sha2::{Digest, Sha256};

use crate::repo_config::Effect;

const WEEK_SECS: i64 = 7 * 86_400;

/// A repository's hold-back, when it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HoldBack {
    /// Of every hundred lessons, how many are held back.
    pub percent: u32,
    /// How long a held-back lesson waits, in seconds.
    pub delay_secs: i64,
}

impl HoldBack {
    /// The hold-back `config` asks for; `None` when off.
    pub fn from_config(config: &Effect) -> Option<HoldBack> {
        (config.holdback_percent > 0 && config.holdback_weeks > 0).then(|| HoldBack {
            percent: config.holdback_percent,
            delay_secs: i64::from(config.holdback_weeks) * WEEK_SECS,
        })
    }

    /// Whether finding `id` of `repo` is in the held-back share.
    pub fn selects(&self, repo: &str, id: &str) -> bool {
        let digest = Sha256::digest(format!("{repo}\n{id}").as_bytes());
        let mut head = [0u8; 8];
        head.copy_from_slice(&digest[..8]);
        u64::from_be_bytes(head) % 100 < u64::from(self.percent)
    }

    /// When finding `id` of `repo`, first seen at `first_seen` (unix s), is first shown.
    pub fn published_at(&self, repo: &str, id: &str, first_seen: i64) -> i64 {
        if self.selects(repo, id) {
            first_seen + self.delay_secs
        } else {
            first_seen
        }
    }

    /// Whether that finding is still held back at `now` (unix s).
    pub fn holds(&self, repo: &str, id: &str, first_seen: i64, now: i64) -> bool {
        self.published_at(repo, id, first_seen) > now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn about_the_configured_share_is_held_back_and_only_for_its_weeks() {
        let holdback = HoldBack {
            percent: 30,
            delay_secs: 4 * WEEK_SECS,
        };
        let held = (0..1000)
            .filter(|i| holdback.selects("acme/widgets", &format!("f-t-{i}")))
            .count();
        assert!((250..350).contains(&held), "{held} of 1000 held back");
        let id = (0..1000)
            .map(|i| format!("f-t-{i}"))
            .find(|id| holdback.selects("acme/widgets", id))
            .unwrap();
        assert!(holdback.holds("acme/widgets", &id, 0, 4 * WEEK_SECS - 1));
        assert!(!holdback.holds("acme/widgets", &id, 0, 4 * WEEK_SECS));
    }

    #[test]
    fn off_unless_both_keys_are_set() {
        let config = |percent, weeks| Effect {
            holdback_percent: percent,
            holdback_weeks: weeks,
        };
        assert_eq!(HoldBack::from_config(&config(0, 4)), None);
        assert_eq!(HoldBack::from_config(&config(20, 0)), None);
        assert!(HoldBack::from_config(&config(20, 4)).is_some());
    }
}
