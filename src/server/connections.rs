//! Accepting and serving HTTP connections with bounds, so that slow or idle clients cannot
//! starve the service: request headers must arrive within a deadline, at most
//! [`MAX_CONNECTIONS`] are open at once, and when that many are — or the process runs out of
//! file descriptors — the oldest connection that is not serving a request makes room for the
//! new one. (Bodies have their own deadline, in the webhook handler.)

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};
use tokio::task::JoinSet;
use tower_service::Service;

/// How long a client may take to send a request's headers (and, between requests, to start
/// the next one). GitHub sends them at once.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Most connections open at once; below the usual 1,024 open files, with room for the store.
pub const MAX_CONNECTIONS: usize = 512;

/// How long a connection may take to finish its request once shutdown began.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// One open connection, as the registry sees it.
#[derive(Default)]
struct Connection {
    /// Requests being served on it right now.
    requests: AtomicUsize,
    /// Told to close it to make room.
    evict: Notify,
}

/// The open connections, oldest first.
#[derive(Default)]
struct Registry {
    next_id: u64,
    open: BTreeMap<u64, Arc<Connection>>,
}

impl Registry {
    /// Registers a new connection, evicting the oldest idle one when `max` are open. None when
    /// all `max` are serving requests: the new one is refused.
    fn admit(&mut self, max: usize) -> Option<(u64, Arc<Connection>)> {
        if self.open.len() >= max && !self.evict_idle() {
            return None;
        }
        let id = self.next_id;
        self.next_id += 1;
        let connection = Arc::new(Connection::default());
        self.open.insert(id, connection.clone());
        Some((id, connection))
    }

    /// Closes the oldest connection not serving a request. Returns whether there was one.
    fn evict_idle(&mut self) -> bool {
        let idle = self
            .open
            .iter()
            .find(|(_, connection)| connection.requests.load(Ordering::SeqCst) == 0)
            .map(|(id, _)| *id);
        match idle.and_then(|id| self.open.remove(&id)) {
            Some(connection) => {
                connection.evict.notify_one();
                true
            }
            None => false,
        }
    }
}

/// Serves `router` on `listener` until `shutdown` resolves, then lets open requests finish.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    max_connections: usize,
    shutdown: impl Future<Output = ()>,
) {
    let registry = Arc::new(Mutex::new(Registry::default()));
    let (stop, stopped) = watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(error) => {
                        // Out of file descriptors (or another passing error): free one if an
                        // idle connection holds it, else wait a moment.
                        let freed = lock(&registry).evict_idle();
                        tracing::warn!(error = %error, freed, "cannot accept a connection");
                        if !freed {
                            tokio::time::sleep(Duration::from_millis(50)).await;
                        }
                        continue;
                    }
                };
                let Some((id, connection)) = lock(&registry).admit(max_connections) else {
                    tracing::warn!("every connection is serving a request: one refused");
                    continue;
                };
                let registry = registry.clone();
                let (router, stopped) = (router.clone(), stopped.clone());
                connections.spawn(async move {
                    serve_connection(stream, router, &connection, stopped).await;
                    lock(&registry).open.remove(&id);
                });
            }
        }
    }
    let _ = stop.send(true);
    while connections.join_next().await.is_some() {}
}

/// Serves one connection until it ends, is evicted, or shutdown ends it gracefully.
async fn serve_connection(
    stream: TcpStream,
    router: Router,
    connection: &Arc<Connection>,
    mut stopped: watch::Receiver<bool>,
) {
    let counted = connection.clone();
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let (mut router, counted) = (router.clone(), counted.clone());
        async move {
            counted.requests.fetch_add(1, Ordering::SeqCst);
            let response = router.call(request.map(Body::new)).await;
            counted.requests.fetch_sub(1, Ordering::SeqCst);
            response
        }
    });
    let serving = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT)
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(serving);
    tokio::select! {
        _ = serving.as_mut() => return,
        () = connection.evict.notified() => return,
        _ = stopped.wait_for(|stopped| *stopped) => {}
    }
    serving.as_mut().graceful_shutdown();
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, serving).await;
}

fn lock(registry: &Mutex<Registry>) -> std::sync::MutexGuard<'_, Registry> {
    registry
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_registry_evicts_the_oldest_idle_connection_and_refuses_when_all_are_busy() {
        let mut registry = Registry::default();
        let (first, busy) = registry.admit(2).unwrap();
        let (second, _) = registry.admit(2).unwrap();
        busy.requests.fetch_add(1, Ordering::SeqCst);
        let (third, third_connection) = registry.admit(2).unwrap();
        assert_eq!(
            registry.open.keys().copied().collect::<Vec<_>>(),
            [first, third],
            "the idle second made room"
        );
        assert!(!registry.open.contains_key(&second));
        third_connection.requests.fetch_add(1, Ordering::SeqCst);
        assert!(registry.admit(2).is_none(), "both remaining are serving");
    }
}
