//! Primary rate limits as GitHub counts them: a budget per installation (or per App, or per
//! anonymous client) and resource (`core` for REST, `graphql` in points), renewed every hour of
//! the fake's clock. Every answer carries the `X-RateLimit-*` headers of its bucket.

use std::collections::HashMap;

/// Requests (REST) or points (GraphQL) per hour for an installation or an App: GitHub's minimum.
pub const AUTHENTICATED_LIMIT: i64 = 5_000;
/// Requests per hour without authentication.
pub const ANONYMOUS_LIMIT: i64 = 60;
/// Length of a rate-limit window, in s.
const WINDOW_S: i64 = 3_600;

/// Who is charged for a request.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Payer {
    Installation(i64),
    App,
    Anonymous,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    used: i64,
    reset_s: i64,
}

/// The state of a bucket after a request, for the headers.
#[derive(Debug, Clone, Copy)]
pub struct Snapshot {
    pub limit: i64,
    pub remaining: i64,
    pub used: i64,
    pub reset_s: i64,
    pub resource: &'static str,
}

#[derive(Debug)]
pub struct RateLimits {
    buckets: HashMap<(Payer, &'static str), Bucket>,
    /// The hourly budget of authenticated payers (tests may lower it).
    pub limit: i64,
}

impl Default for RateLimits {
    fn default() -> Self {
        RateLimits {
            buckets: HashMap::new(),
            limit: AUTHENTICATED_LIMIT,
        }
    }
}

impl RateLimits {
    fn limit_for(&self, payer: &Payer) -> i64 {
        match payer {
            Payer::Anonymous => ANONYMOUS_LIMIT,
            _ => self.limit,
        }
    }

    fn bucket(&mut self, payer: &Payer, resource: &'static str, now_s: i64) -> &mut Bucket {
        let bucket = self
            .buckets
            .entry((payer.clone(), resource))
            .or_insert(Bucket {
                used: 0,
                reset_s: now_s + WINDOW_S,
            });
        if now_s >= bucket.reset_s {
            *bucket = Bucket {
                used: 0,
                reset_s: now_s + WINDOW_S,
            };
        }
        bucket
    }

    /// The bucket as it stands.
    pub fn peek(&mut self, payer: &Payer, resource: &'static str, now_s: i64) -> Snapshot {
        let limit = self.limit_for(payer);
        let bucket = *self.bucket(payer, resource, now_s);
        Snapshot {
            limit,
            remaining: (limit - bucket.used).max(0),
            used: bucket.used,
            reset_s: bucket.reset_s,
            resource,
        }
    }

    /// Charges `cost` and returns the bucket after it.
    pub fn charge(
        &mut self,
        payer: &Payer,
        resource: &'static str,
        cost: i64,
        now_s: i64,
    ) -> Snapshot {
        self.bucket(payer, resource, now_s).used += cost;
        self.peek(payer, resource, now_s)
    }

    /// Spends what is left of a bucket (a test's way to reach the limit).
    pub fn exhaust(&mut self, payer: &Payer, resource: &'static str, now_s: i64) {
        let limit = self.limit_for(payer);
        self.bucket(payer, resource, now_s).used = limit;
    }
}
