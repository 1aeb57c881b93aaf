//! Pauses for the GitHub client that never sleep: [`NoPause`] returns at once; [`Recorder`]
//! records each wait and moves a manual clock by it, so that retries and rate-limit waits run at
//! once and can be checked.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gitlore::clock::ManualClock;
use gitlore::github::client::Pause;

/// Waits never: the client's retries run at once.
pub struct NoPause;

impl Pause for NoPause {
    fn pause(&self, _: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async {})
    }
}

/// Records every wait instead of sleeping, and moves the client's clock by it.
pub struct Recorder {
    waits: Mutex<Vec<Duration>>,
    clock: Arc<ManualClock>,
}

impl Recorder {
    pub fn new(clock: Arc<ManualClock>) -> Recorder {
        Recorder {
            waits: Mutex::new(Vec::new()),
            clock,
        }
    }

    /// The waits asked for so far, in order.
    pub fn waits(&self) -> Vec<Duration> {
        self.waits.lock().unwrap().clone()
    }
}

impl Pause for Recorder {
    fn pause(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        self.waits.lock().unwrap().push(duration);
        self.clock.advance(duration);
        Box::pin(async {})
    }
}
