//! The App's webhook deliveries as GitHub records them (`GET /app/hook/deliveries`, newest
//! first, paged by cursor) and asking for one again (`POST /app/hook/deliveries/{id}/attempts`).
//! Both as the App (JWT).

use http::Method;
use serde::Deserialize;

use super::super::client::{As, GitHub, NoFields, PER_PAGE, Request, Retry};
use super::super::error::{Error, Result};
use crate::domain::UnixMs;

/// One attempt GitHub made to deliver a webhook. A redelivery is a new attempt with the same
/// `guid` (the `X-GitHub-Delivery` header).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookDelivery {
    /// The attempt's id, to ask for it again.
    pub id: i64,
    pub guid: String,
    pub delivered_at: UnixMs,
    pub redelivery: bool,
    /// `OK` when the receiver answered 2xx; otherwise why not (`Invalid HTTP Response: 503`,
    /// `timed out`).
    pub status: String,
    pub event: String,
}

impl HookDelivery {
    /// Whether the receiver took it.
    pub fn succeeded(&self) -> bool {
        self.status == "OK"
    }
}

/// A delivery as GitHub lists it (fields gitlore does not use left out).
#[derive(Deserialize)]
struct Listed {
    id: i64,
    guid: String,
    delivered_at: String,
    redelivery: bool,
    status: String,
    event: String,
}

/// The deliveries listed back to a point in time.
#[derive(Debug, Default)]
pub struct DeliveryListing {
    /// Newest first.
    pub deliveries: Vec<HookDelivery>,
    /// Whether the listing reached the point asked for (or GitHub's oldest); false when it
    /// stopped at the page limit.
    pub complete: bool,
}

impl GitHub {
    /// The App's deliveries made at or after `since`, newest first, reading at most `max_pages`
    /// pages of 100. GETs: retried.
    pub async fn hook_deliveries_since(
        &self,
        since: UnixMs,
        max_pages: usize,
    ) -> Result<DeliveryListing> {
        let mut url = format!("/app/hook/deliveries?per_page={PER_PAGE}");
        let mut listing = DeliveryListing::default();
        for _ in 0..max_pages {
            let reply = self.call(Request::get(&url, As::App)).await?;
            let page: Vec<Listed> = reply.json()?;
            for listed in page {
                let delivered_at = chrono::DateTime::parse_from_rfc3339(&listed.delivered_at)
                    .map(|at| UnixMs(at.timestamp_millis()))
                    .map_err(|e| Error::Unexpected {
                        url: url.clone(),
                        reason: format!("delivered_at is not a time: {e}"),
                    })?;
                if delivered_at < since {
                    listing.complete = true;
                    return Ok(listing);
                }
                listing.deliveries.push(HookDelivery {
                    id: listed.id,
                    guid: listed.guid,
                    delivered_at,
                    redelivery: listed.redelivery,
                    status: listed.status,
                    event: listed.event,
                });
            }
            match reply.next_page() {
                Some(next) => url = next,
                None => {
                    listing.complete = true;
                    return Ok(listing);
                }
            }
        }
        Ok(listing)
    }

    /// Asks GitHub to deliver attempt `id` again (it answers 202 and delivers soon after, with
    /// the same GUID). Not retried blindly: a lost answer is settled by the next sweep, which
    /// finds the delivery stored or still failed.
    pub async fn redeliver(&self, id: i64) -> Result<()> {
        let path = format!("/app/hook/deliveries/{id}/attempts");
        let request = Request::write(Method::POST, &path, As::App, &NoFields {}, Retry::Never)?;
        self.call(request).await.map(drop)
    }
}
