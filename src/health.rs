//! Liveness of the service's long-running parts (ingress writer, delivery worker, job runner,
//! scheduler). Each part holds a [`Vigil`] for as long as it runs; a part that ends before
//! shutdown began — a panic included — is reported dead: `/healthz` answers 503 naming it and
//! `serve` stops with an error, so that a supervisor restarts the process.
//!
//! Also here: whether deliveries can be stored. While the last attempt failed (a full disk),
//! `/healthz` answers 503 saying so; the next delivery stored clears it. And whether GitHub
//! accepts the App's credentials: refused at start (a wrong App id or key), `/healthz` answers 503
//! naming GitHub authentication.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

/// The parts' liveness, shared by the parts and the HTTP server.
#[derive(Debug)]
pub struct Health {
    stopping: AtomicBool,
    dead: watch::Sender<Vec<&'static str>>,
    /// Why the last attempt to store deliveries failed, until one succeeds.
    store_error: Mutex<Option<String>>,
    /// Why GitHub refused the App's credentials, if it did.
    github_auth_error: Mutex<Option<String>>,
}

impl Default for Health {
    fn default() -> Health {
        Health {
            stopping: AtomicBool::new(false),
            dead: watch::Sender::new(Vec::new()),
            store_error: Mutex::new(None),
            github_auth_error: Mutex::new(None),
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

    /// Deliveries were stored: the store takes writes.
    pub fn store_written(&self) {
        *self.store_error.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// Deliveries could not be stored, for `error`.
    pub fn store_failed(&self, error: &str) {
        *self.store_error.lock().unwrap_or_else(|p| p.into_inner()) = Some(error.to_string());
    }

    /// Why the store did not take the last deliveries, unless it took them.
    pub fn store_error(&self) -> Option<String> {
        self.store_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// GitHub refused the App's credentials, for `reason`.
    pub fn github_auth_failed(&self, reason: &str) {
        *self
            .github_auth_error
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(reason.to_string());
    }

    /// Why GitHub refused the App's credentials, if it did.
    pub fn github_auth_error(&self) -> Option<String> {
        self.github_auth_error
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
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

impl Vigil {
    /// The health this part reports to.
    pub fn health(&self) -> &Health {
        &self.health
    }
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

    #[test]
    fn a_failed_store_write_is_reported_until_one_succeeds() {
        let health = Arc::new(Health::default());
        let writer = health.watch("ingress writer");
        assert_eq!(health.store_error(), None);
        writer.health().store_failed("database or disk is full");
        assert_eq!(
            health.store_error().as_deref(),
            Some("database or disk is full")
        );
        writer.health().store_written();
        assert_eq!(health.store_error(), None);
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
