//! Liveness of the service's long-running parts (ingress writer, delivery worker, job runner,
//! scheduler). Each part holds a [`Vigil`] for as long as it runs; a part that ends before
//! shutdown began — a panic included — is reported dead: `/healthz` answers 503 naming it and
//! `serve` stops with an error, so that a supervisor restarts the process.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::watch;

/// The parts' liveness, shared by the parts and the HTTP server.
#[derive(Debug)]
pub struct Health {
    stopping: AtomicBool,
    dead: watch::Sender<Vec<&'static str>>,
}

impl Default for Health {
    fn default() -> Health {
        Health {
            stopping: AtomicBool::new(false),
            dead: watch::Sender::new(Vec::new()),
        }
    }
}

impl Health {
    /// A vigil for the part `name`: dropping it before [`Health::stopping`] marks the part dead.
    pub fn watch(self: &Arc<Self>, name: &'static str) -> Vigil {
        Vigil {
            health: self.clone(),
            name,
        }
    }

    /// Shutdown began: parts that end from now on end as asked.
    pub fn stopping(&self) {
        self.stopping.store(true, Ordering::SeqCst);
    }

    /// The parts that ended before shutdown, in the order they did.
    pub fn dead(&self) -> Vec<&'static str> {
        self.dead.borrow().clone()
    }

    /// Resolves once a part has died.
    pub async fn failure(&self) {
        let mut dead = self.dead.subscribe();
        // The sender lives as long as `self`, so waiting cannot fail.
        let _ = dead.wait_for(|dead| !dead.is_empty()).await;
    }
}

/// Held by a running part; see [`Health::watch`].
#[derive(Debug)]
pub struct Vigil {
    health: Arc<Health>,
    name: &'static str,
}

impl Drop for Vigil {
    fn drop(&mut self) {
        if !self.health.stopping.load(Ordering::SeqCst) {
            let name = self.name;
            self.health.dead.send_modify(|dead| dead.push(name));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_that_ends_before_shutdown_is_dead_and_one_that_ends_after_is_not() {
        let health = Arc::new(Health::default());
        let writer = health.watch("ingress writer");
        let worker = health.watch("delivery worker");
        let panicked = std::thread::spawn(move || {
            let _vigil = worker;
            panic!("a log write failed");
        });
        assert!(panicked.join().is_err());
        assert_eq!(health.dead(), ["delivery worker"]);
        health.stopping();
        drop(writer);
        assert_eq!(health.dead(), ["delivery worker"]);
    }

    #[tokio::test]
    async fn failure_resolves_when_a_part_dies() {
        let health = Arc::new(Health::default());
        let vigil = health.watch("scheduler");
        let waiting = tokio::spawn({
            let health = health.clone();
            async move { health.failure().await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        drop(vigil);
        tokio::time::timeout(std::time::Duration::from_secs(5), waiting)
            .await
            .expect("failure() resolved")
            .expect("no panic");
    }
}
