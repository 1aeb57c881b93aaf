//! Points in time as milliseconds since the Unix epoch ([`UnixMs`]), the unit of the clock, the
//! job queue and every stored timestamp the service writes itself. Spans of time are
//! [`std::time::Duration`]s: `UnixMs + Duration` is a later point, `later.since(earlier)` the span
//! between two. GitHub's own timestamps (comments, commits) stay Unix seconds where they are
//! kept; [`UnixMs::from_secs`] and [`UnixMs::as_secs`] cross between the two.

use std::fmt;
use std::ops::{Add, Sub};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Milliseconds since the Unix epoch. Arithmetic saturates rather than overflows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct UnixMs(pub i64);

impl UnixMs {
    /// The epoch itself: the time of "never".
    pub const EPOCH: UnixMs = UnixMs(0);

    /// The point `secs` seconds after the epoch.
    pub fn from_secs(secs: i64) -> UnixMs {
        UnixMs(secs.saturating_mul(1000))
    }

    /// Whole seconds since the epoch (rounded down).
    pub fn as_secs(self) -> i64 {
        self.0.div_euclid(1000)
    }

    /// How long after `earlier` this is; zero when it is not after it.
    pub fn since(self, earlier: UnixMs) -> Duration {
        Duration::from_millis(u64::try_from(self.0.saturating_sub(earlier.0)).unwrap_or(0))
    }
}

/// The whole milliseconds of `span`, saturated to `i64`.
fn millis(span: Duration) -> i64 {
    i64::try_from(span.as_millis()).unwrap_or(i64::MAX)
}

impl Add<Duration> for UnixMs {
    type Output = UnixMs;

    fn add(self, span: Duration) -> UnixMs {
        UnixMs(self.0.saturating_add(millis(span)))
    }
}

impl Sub<Duration> for UnixMs {
    type Output = UnixMs;

    fn sub(self, span: Duration) -> UnixMs {
        UnixMs(self.0.saturating_sub(millis(span)))
    }
}

/// The bare number of milliseconds.
impl fmt::Display for UnixMs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_add_and_subtract_and_seconds_round_down() {
        let t = UnixMs(10_500);
        assert_eq!(t + Duration::from_secs(2), UnixMs(12_500));
        assert_eq!(t - Duration::from_millis(500), UnixMs(10_000));
        assert_eq!(t.as_secs(), 10);
        assert_eq!(UnixMs(-1).as_secs(), -1, "before the epoch rounds down too");
        assert_eq!(UnixMs::from_secs(3), UnixMs(3_000));
        assert_eq!(t.since(UnixMs(10_000)), Duration::from_millis(500));
        assert_eq!(UnixMs(0).since(t), Duration::ZERO, "never negative");
        assert_eq!(UnixMs(i64::MAX) + Duration::from_secs(1), UnixMs(i64::MAX));
        assert_eq!(serde_json::to_string(&t).unwrap(), "10500");
    }
}
