//! Accepting and serving HTTP connections with bounds, so that slow or idle clients cannot
//! starve the service: request headers must arrive within a deadline, and at most
//! [`MAX_CONNECTIONS`] are open at once — fewer when the open-files limit leaves less room once
//! [`RESERVED_FILES`] are kept for the store, the logs and GitHub. When that many are open, or
//! the process runs out of file descriptors all the same, a connection makes room for the new
//! one: the oldest that is not serving a request, else the one whose request has run longest,
//! if that is over [`SLOW_REQUEST`] (GitHub sends a delivery at once: a request that slow is a
//! slow client's). (Bodies have their own deadline and budget, in the webhook handler.)

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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

/// File descriptors kept for everything but connections (the store's connections, the log,
/// clients of GitHub and the models) when the open-files limit bounds the connections.
pub const RESERVED_FILES: usize = 128;

/// A request running this long may be shed to make room for a new connection.
pub const SLOW_REQUEST: Duration = Duration::from_secs(2);

/// The connections to allow at most: `max`, or fewer when the open-files limit leaves less
/// room after [`RESERVED_FILES`] (never under 16).
pub fn connection_limit(max: usize) -> usize {
    match open_files_limit() {
        Some(files) => max.min(files.saturating_sub(RESERVED_FILES).max(16)),
        None => max,
    }
}

/// The process's soft limit on open files, if it has one.
fn open_files_limit() -> Option<usize> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the limit into the struct it is given, nothing else.
    let done = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    let soft = limit.rlim_cur;
    (done == 0 && soft != libc::RLIM_INFINITY).then(|| usize::try_from(soft).unwrap_or(usize::MAX))
}

/// How long a connection may take to finish its request once shutdown began.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// One open connection, as the registry sees it.
#[derive(Default)]
struct Connection {
    /// Requests being served on it right now.
    requests: AtomicUsize,
    /// When the request being served began; `None` while idle.
    busy_since: Mutex<Option<Instant>>,
    /// Told to close it to make room.
    evict: Notify,
}

impl Connection {
    /// A request begins on it at `now`.
    fn begin(&self, now: Instant) {
        if self.requests.fetch_add(1, Ordering::SeqCst) == 0 {
            *lock(&self.busy_since) = Some(now);
        }
    }

    /// A request on it ended.
    fn end(&self) {
        if self.requests.fetch_sub(1, Ordering::SeqCst) == 1 {
            *lock(&self.busy_since) = None;
        }
    }
}

/// The open connections, oldest first.
#[derive(Default)]
struct Registry {
    next_id: u64,
    open: BTreeMap<u64, Arc<Connection>>,
}

impl Registry {
    /// Registers a new connection, making room when `max` are open. None when no connection
    /// can make room: the new one is refused.
    fn admit(&mut self, max: usize, now: Instant) -> Option<(u64, Arc<Connection>)> {
        if self.open.len() >= max && !self.make_room(now) {
            return None;
        }
        let id = self.next_id;
        self.next_id += 1;
        let connection = Arc::new(Connection::default());
        self.open.insert(id, connection.clone());
        Some((id, connection))
    }

    /// Closes the oldest connection not serving a request, else the one whose request began
    /// longest ago, if over [`SLOW_REQUEST`] before `now`. Returns whether one was closed.
    fn make_room(&mut self, now: Instant) -> bool {
        let idle = self
            .open
            .iter()
            .find(|(_, connection)| connection.requests.load(Ordering::SeqCst) == 0)
            .map(|(id, _)| *id);
        let slowest = || {
            self.open
                .iter()
                .filter_map(|(id, connection)| Some(((*lock(&connection.busy_since))?, *id)))
                .filter(|(since, _)| now.saturating_duration_since(*since) >= SLOW_REQUEST)
                .min()
                .map(|(_, id)| id)
        };
        let shed = idle.or_else(slowest);
        match shed.and_then(|id| self.open.remove(&id)) {
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
    let max_connections = connection_limit(max_connections);
    tracing::debug!(max_connections, "connections bounded");
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
                        // idle or slow connection holds it, else wait a moment.
                        let freed = lock(&registry).make_room(Instant::now());
                        tracing::warn!(error = %error, freed, "cannot accept a connection");
                        if !freed {
                            tokio::time::sleep(Duration::from_millis(50)).await;
                        }
                        continue;
                    }
                };
                let admitted = lock(&registry).admit(max_connections, Instant::now());
                let Some((id, connection)) = admitted else {
                    tracing::warn!("every connection is serving a recent request: one refused");
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
            counted.begin(Instant::now());
            let response = router.call(request.map(Body::new)).await;
            counted.end();
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

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_registry_evicts_the_oldest_idle_connection_and_refuses_when_all_are_busy() {
        let now = Instant::now();
        let mut registry = Registry::default();
        let (first, busy) = registry.admit(2, now).unwrap();
        let (second, _) = registry.admit(2, now).unwrap();
        busy.begin(now);
        let (third, third_connection) = registry.admit(2, now).unwrap();
        assert_eq!(
            registry.open.keys().copied().collect::<Vec<_>>(),
            [first, third],
            "the idle second made room"
        );
        assert!(!registry.open.contains_key(&second));
        third_connection.begin(now);
        assert!(
            registry.admit(2, now).is_none(),
            "both remaining are serving"
        );
    }

    #[test]
    fn with_none_idle_the_request_running_longest_makes_room_once_it_is_slow() {
        let start = Instant::now();
        let mut registry = Registry::default();
        let (older, older_connection) = registry.admit(2, start).unwrap();
        let (slowest, slowest_connection) = registry.admit(2, start).unwrap();
        slowest_connection.begin(start);
        older_connection.begin(start + Duration::from_secs(1));
        let soon = start + SLOW_REQUEST - Duration::from_millis(1);
        assert!(registry.admit(2, soon).is_none(), "no request is slow yet");
        let later = start + SLOW_REQUEST;
        let (newest, _) = registry.admit(2, later).unwrap();
        assert_eq!(
            registry.open.keys().copied().collect::<Vec<_>>(),
            [older, newest],
            "the request running longest made room"
        );
        assert!(!registry.open.contains_key(&slowest));
    }

    #[test]
    fn the_open_files_limit_bounds_the_connections() {
        let files = open_files_limit().expect("a limit on open files");
        let limit = connection_limit(usize::MAX);
        assert_eq!(limit, files.saturating_sub(RESERVED_FILES).max(16));
        assert_eq!(connection_limit(8), 8);
    }
}
