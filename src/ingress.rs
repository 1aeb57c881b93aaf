//! The ingress writer: a dedicated thread that stores verified deliveries with group commit.
//!
//! HTTP handlers send a delivery and wait for the answer; the thread gathers whatever has arrived,
//! writes it all in one transaction (one fsync for many deliveries), then tells each handler its
//! delivery is durable — or that it is not, so the handler answers 5xx and GitHub shows a failure
//! that can be redelivered, and `/healthz` says the store cannot be written until it can.

use std::sync::Arc;
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

struct Request {
    delivery: NewDelivery,
    reply: oneshot::Sender<Result<Inserted, String>>,
}

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
                write_loop(receiver, &store, clock.as_ref(), &signal, vigil.health());
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

fn write_loop(
    mut receiver: mpsc::Receiver<Request>,
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
        let result = store.write(|tx| deliveries::insert(tx, &batch, now));
        match result {
            Ok(outcomes) => {
                for (reply, outcome) in replies.into_iter().zip(outcomes) {
                    // The handler may have gone (client disconnected): the delivery is stored.
                    let _ = reply.send(Ok(outcome));
                }
                signal.notify();
                health.store_written();
            }
            Err(e) => {
                let message = format!("{e:#}");
                health.store_failed(&message);
                error!(error = %message, count = batch.len(), "cannot store deliveries");
                for reply in replies {
                    let _ = reply.send(Err(message.clone()));
                }
            }
        }
    }
}
