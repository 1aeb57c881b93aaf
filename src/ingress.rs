//! The ingress writer: a dedicated thread that stores verified deliveries with group commit.
//!
//! HTTP handlers send a delivery and wait for the answer; the thread gathers whatever has arrived
//! and writes it all in one transaction. A second thread, the syncer, puts what was committed on
//! disk (one sync for every group committed since the last) while the writer stores the next
//! group, then tells each handler its delivery is durable — or that it is not, so the handler
//! answers 5xx and GitHub shows a failure that can be redelivered, and `/healthz` says the store
//! cannot be written until it can.

use std::sync::Arc;
use std::sync::mpsc as std_mpsc;
use std::thread::JoinHandle;

use anyhow::{Context, Result, anyhow};
use tokio::sync::{mpsc, oneshot};
use tracing::error;

use crate::clock::Clock;
use crate::health::{Health, Vigil};
use crate::store::Store;
use crate::store::deliveries::{self, Inserted, NewDelivery};
use crate::worker::Signal;

/// Deliveries waiting for the writer before handlers feel backpressure.
const QUEUE_CAPACITY: usize = 8192;

/// Most deliveries in one transaction; bounds the latency of the first one in a burst.
const MAX_GROUP: usize = 512;

type Reply = oneshot::Sender<Result<Inserted, String>>;

struct Request {
    delivery: NewDelivery,
    reply: Reply,
}

/// A committed group's handlers and what each delivery's insert found, waiting for the sync.
type Committed = Vec<(Reply, Inserted)>;

/// The handle handlers use to store deliveries. Cloning is cheap.
#[derive(Clone)]
pub struct Ingress {
    sender: mpsc::Sender<Request>,
}

impl Ingress {
    /// Starts the writer thread, which holds `vigil` while it runs. It ends when every handle is
    /// dropped.
    pub fn start(
        store: Arc<Store>,
        clock: Arc<dyn Clock>,
        signal: Arc<Signal>,
        vigil: Vigil,
    ) -> Result<(Ingress, JoinHandle<()>)> {
        let (sender, receiver) = mpsc::channel(QUEUE_CAPACITY);
        let thread = std::thread::Builder::new()
            .name("ingress-writer".into())
            .spawn(move || {
                let health = vigil.health();
                let (committed, to_sync) = std_mpsc::channel();
                std::thread::scope(|scope| {
                    scope.spawn(|| sync_loop(to_sync, &store, health));
                    write_loop(receiver, committed, &store, clock.as_ref(), &signal, health);
                });
            })
            .context("Cannot start the ingress writer thread")?;
        Ok((Ingress { sender }, thread))
    }

    /// Stores a delivery durably; returns once it is committed.
    pub async fn store(&self, delivery: NewDelivery) -> Result<Inserted> {
        let (reply, answer) = oneshot::channel();
        self.sender
            .send(Request { delivery, reply })
            .await
            .map_err(|_| anyhow!("the ingress writer has stopped"))?;
        answer
            .await
            .map_err(|_| anyhow!("the ingress writer has stopped"))?
            .map_err(|message| anyhow!(message))
    }
}

/// Commits each group of waiting deliveries and hands it to the syncer; ends when every handle
/// is dropped (and then so does the syncer).
fn write_loop(
    mut receiver: mpsc::Receiver<Request>,
    committed: std_mpsc::Sender<Committed>,
    store: &Store,
    clock: &dyn Clock,
    signal: &Signal,
    health: &Health,
) {
    while let Some(first) = receiver.blocking_recv() {
        let mut group = vec![first];
        while group.len() < MAX_GROUP {
            match receiver.try_recv() {
                Ok(next) => group.push(next),
                Err(_) => break,
            }
        }
        let (batch, replies): (Vec<NewDelivery>, Vec<_>) = group
            .into_iter()
            .map(|request| (request.delivery, request.reply))
            .unzip();
        let now = clock.now();
        match store.write_synced_later(|tx| deliveries::insert(tx, &batch, now)) {
            Ok(outcomes) => {
                // The worker may read them now: a power cut before the sync loses its work on
                // them with them, as its commits follow theirs in the log.
                signal.notify();
                let _ = committed.send(replies.into_iter().zip(outcomes).collect());
            }
            Err(e) => fail(replies, &format!("{e:#}"), batch.len(), health),
        }
    }
}

/// Syncs once for every group committed since the last sync, then answers their handlers.
fn sync_loop(to_sync: std_mpsc::Receiver<Committed>, store: &Store, health: &Health) {
    while let Ok(first) = to_sync.recv() {
        let mut groups = vec![first];
        groups.extend(to_sync.try_iter());
        let answers = groups.into_iter().flatten();
        match store.sync() {
            Ok(()) => {
                health.store_written();
                for (reply, outcome) in answers {
                    // The handler may have gone (client disconnected): the delivery is stored.
                    let _ = reply.send(Ok(outcome));
                }
            }
            Err(e) => {
                let (replies, _): (Vec<Reply>, Vec<Inserted>) = answers.unzip();
                let count = replies.len();
                fail(replies, &format!("{e:#}"), count, health);
            }
        }
    }
}

/// Tells each handler its delivery is not stored, and `/healthz` why.
fn fail(replies: Vec<Reply>, message: &str, count: usize, health: &Health) {
    health.store_failed(message);
    error!(error = %message, count, "cannot store deliveries");
    for reply in replies {
        let _ = reply.send(Err(message.to_owned()));
    }
}
