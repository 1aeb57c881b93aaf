//! Reads one page of a repository's merged and closed-unmerged pull requests through GraphQL, complete: every nested
//! connection that has more than its first page (review threads, the comments of each thread,
//! reviews, conversation comments) is read on with the sibling documents through `node(id:)`.

use anyhow::{Context, Result};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::nodes::{
    self, ConversationNode, Page, PullRequestNode, RateLimit, Repository, ReviewCommentNode,
    ReviewNode, ThreadNode,
};
use crate::domain::{Comment, PullRequest, Repo, RepoName};
use crate::github::client::{As, GitHub};

const BACKFILL_PULL_REQUESTS: &str = include_str!("../graphql/backfill_pull_requests.graphql");
const PULL_REQUEST_THREADS: &str = include_str!("../graphql/pull_request_threads.graphql");
const THREAD_COMMENTS: &str = include_str!("../graphql/thread_comments.graphql");
const PULL_REQUEST_REVIEWS: &str = include_str!("../graphql/pull_request_reviews.graphql");
const PULL_REQUEST_COMMENTS: &str = include_str!("../graphql/pull_request_comments.graphql");

/// Pull requests per page: about one request per 25 PRs, within GitHub's node limit with the
/// nested first pages (see the document's header).
pub const PULL_REQUESTS_PER_PAGE: i64 = 25;

/// One review thread with every comment.
#[derive(Debug)]
pub struct Thread {
    pub node_id: String,
    pub resolved: bool,
    pub comments: Vec<Comment>,
}

/// One pull request with everything the backfill keeps of it.
#[derive(Debug)]
pub struct PullRequestHistory {
    pub pr: PullRequest,
    pub threads: Vec<Thread>,
    pub reviews: Vec<Comment>,
    pub conversation: Vec<Comment>,
}

/// One page of pull requests, complete.
#[derive(Debug)]
pub struct PullRequestPage {
    pub repo: Repo,
    /// The page's pull requests updated inside the window.
    pub pull_requests: Vec<PullRequestHistory>,
    /// Where the next page starts.
    pub end_cursor: Option<String>,
    /// Whether another page is to be read: GitHub has more and the window is not passed.
    pub more: bool,
}

/// Reads pages as `who`, counting requests and the last known rate-limit budget.
pub struct Fetcher<'a> {
    client: &'a GitHub,
    who: As,
    pub requests: u64,
    pub rate_limit_remaining: Option<i64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answer<T> {
    rate_limit: Option<RateLimit>,
    #[serde(alias = "node")]
    repository: Option<T>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ThreadsOf {
    review_threads: Page<ThreadNode>,
}

#[derive(Deserialize)]
struct CommentsOf<T> {
    comments: Page<T>,
}

#[derive(Deserialize)]
struct ReviewsOf {
    reviews: Page<ReviewNode>,
}

impl<'a> Fetcher<'a> {
    pub fn new(client: &'a GitHub, who: As) -> Fetcher<'a> {
        Fetcher {
            client,
            who,
            requests: 0,
            rate_limit_remaining: None,
        }
    }

    /// The page of `repo`'s merged and closed pull requests after `cursor`, newest activity first, keeping
    /// those updated at or after `window_start` (unix s).
    pub async fn page(
        &mut self,
        repo: &RepoName,
        cursor: Option<&str>,
        window_start: i64,
    ) -> Result<PullRequestPage> {
        let (owner, name) = repo
            .as_str()
            .split_once('/')
            .with_context(|| format!("`{repo}` is not owner/name"))?;
        let variables = json!({
            "owner": owner, "name": name, "first": PULL_REQUESTS_PER_PAGE, "after": cursor,
        });
        let repository: Repository = self
            .query(BACKFILL_PULL_REQUESTS, variables)
            .await
            .with_context(|| format!("Cannot read the pull requests of {repo}"))?;
        let repo_info = Repo {
            id: repository.database_id,
            name: RepoName::parse(&repository.name_with_owner).with_context(|| {
                format!(
                    "GitHub named the repository `{}`",
                    repository.name_with_owner
                )
            })?,
            default_branch: None,
            private: repository.is_private,
        };
        let page = repository.pull_requests;
        let mut passed_window = false;
        let mut pull_requests = Vec::new();
        for node in page.nodes.into_iter().flatten() {
            if nodes::seconds(&node.updated_at)? < window_start {
                passed_window = true;
                break;
            }
            pull_requests.push(self.complete(node).await?);
        }
        Ok(PullRequestPage {
            repo: repo_info,
            pull_requests,
            more: page.page_info.has_next_page && !passed_window,
            end_cursor: page.page_info.end_cursor,
        })
    }

    /// A pull request with every page of its nested connections.
    async fn complete(&mut self, node: PullRequestNode) -> Result<PullRequestHistory> {
        let pr = nodes::pull_request(&node)?;
        let number = node.number;
        let context = || format!("Cannot read pull request #{number}");
        let mut thread_nodes = Vec::new();
        let mut threads_page = node.review_threads;
        loop {
            let next = threads_page.next().map(str::to_string);
            thread_nodes.extend(threads_page.nodes.into_iter().flatten());
            let Some(after) = next else { break };
            threads_page = self
                .nested::<ThreadsOf>(PULL_REQUEST_THREADS, &node.id, &after)
                .await
                .with_context(context)?
                .review_threads;
        }
        let mut threads = Vec::with_capacity(thread_nodes.len());
        for thread in thread_nodes {
            threads.push(self.thread(thread).await.with_context(context)?);
        }

        let mut reviews = Vec::new();
        let mut reviews_page = node.reviews;
        loop {
            for review in reviews_page.nodes.iter().flatten() {
                reviews.extend(nodes::review(review)?);
            }
            let Some(after) = reviews_page.next().map(str::to_string) else {
                break;
            };
            reviews_page = self
                .nested::<ReviewsOf>(PULL_REQUEST_REVIEWS, &node.id, &after)
                .await
                .with_context(context)?
                .reviews;
        }

        let mut conversation = Vec::new();
        let mut comments_page = node.comments;
        loop {
            for comment in comments_page.nodes.iter().flatten() {
                conversation.extend(nodes::conversation(comment)?);
            }
            let Some(after) = comments_page.next().map(str::to_string) else {
                break;
            };
            comments_page = self
                .nested::<CommentsOf<ConversationNode>>(PULL_REQUEST_COMMENTS, &node.id, &after)
                .await
                .with_context(context)?
                .comments;
        }

        Ok(PullRequestHistory {
            pr,
            threads,
            reviews,
            conversation,
        })
    }

    /// A review thread with every comment.
    async fn thread(&mut self, node: ThreadNode) -> Result<Thread> {
        let mut comments = Vec::new();
        let mut page = node.comments;
        loop {
            for comment in page.nodes.iter().flatten() {
                comments.extend(nodes::inline_comment(comment)?);
            }
            let Some(after) = page.next().map(str::to_string) else {
                break;
            };
            page = self
                .nested::<CommentsOf<ReviewCommentNode>>(THREAD_COMMENTS, &node.id, &after)
                .await?
                .comments;
        }
        Ok(Thread {
            node_id: node.id,
            resolved: node.is_resolved,
            comments,
        })
    }

    /// The next page of a nested connection of node `id`.
    async fn nested<T: DeserializeOwned>(
        &mut self,
        document: &str,
        id: &str,
        after: &str,
    ) -> Result<T> {
        self.query(document, json!({ "id": id, "after": after }))
            .await
    }

    /// Runs a backfill document and reads its `repository` (or `node`) and `rateLimit`.
    async fn query<T: DeserializeOwned>(&mut self, document: &str, variables: Value) -> Result<T> {
        self.requests += 1;
        let data = self
            .client
            .graphql_as(self.who, document, variables)
            .await?;
        let answer: Answer<T> = serde_json::from_value(data)
            .context("GitHub's GraphQL answer has an unexpected shape")?;
        if let Some(rate) = answer.rate_limit {
            self.rate_limit_remaining = Some(rate.remaining);
        }
        answer
            .repository
            .context("GitHub answered no repository or node: it is not visible to this token")
    }
}
