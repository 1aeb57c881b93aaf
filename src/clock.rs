//! Time comes in through this trait so that tests control it (leases, backoff, schedules).

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::domain::UnixMs;

/// A source of the current time.
pub trait Clock: Send + Sync {
    fn now(&self) -> UnixMs;
}

/// The real clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> UnixMs {
        UnixMs::EPOCH
            + SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or(Duration::ZERO)
    }
}

/// A clock that moves only when told to.
#[derive(Debug, Default)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    pub fn new(start: UnixMs) -> ManualClock {
        ManualClock(AtomicI64::new(start.0))
    }

    /// Moves the clock forward.
    pub fn advance(&self, span: Duration) {
        let ms = i64::try_from(span.as_millis()).unwrap_or(i64::MAX);
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> UnixMs {
        UnixMs(self.0.load(Ordering::SeqCst))
    }
}
