//! Who may read which repository's page. A public repository is readable by anyone unless the
//! operator turned that off; otherwise — and always for a private repository — only by a
//! signed-in person GitHub says can read it, asked with their own token and remembered for a
//! few minutes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::clock::Clock;
use crate::domain::{RepoId, RepoName};
use crate::github::client::{GitHub, TokioPause};
use crate::store::pages::RepoEntry;
use crate::store::web_sessions::Session;

/// How long GitHub's answer on who can read a repository is trusted: a revoked member loses
/// access within this long.
pub const ACCESS_TTL: Duration = Duration::from_secs(5 * 60);
/// How long a page waits for GitHub's answer (the client would wait out a rate limit).
const GITHUB_WAIT: Duration = Duration::from_secs(10);
/// Answers kept at most; past this, expired ones are dropped, then all.
const MAX_CACHED: usize = 50_000;

/// Who asks for a page.
pub enum Viewer {
    Anonymous,
    SignedIn(Arc<Session>),
}

impl Viewer {
    pub fn session(&self) -> Option<&Session> {
        match self {
            Viewer::Anonymous => None,
            Viewer::SignedIn(session) => Some(session),
        }
    }
}

/// What GitHub answered, per (login, repository id).
pub struct Access {
    api_url: String,
    clock: Arc<dyn Clock>,
    public_repos_anonymous: bool,
    answers: Mutex<HashMap<(String, RepoId), (bool, Instant)>>,
}

impl Access {
    pub fn new(api_url: &str, clock: Arc<dyn Clock>, public_repos_anonymous: bool) -> Access {
        Access {
            api_url: api_url.to_string(),
            clock,
            public_repos_anonymous,
            answers: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `viewer` may read `repo`'s page. A failure to ask GitHub refuses (and is logged
    /// without the token).
    pub async fn can_read(&self, viewer: &Viewer, repo: &RepoEntry) -> bool {
        if !repo.private && self.public_repos_anonymous {
            return true;
        }
        let Some(session) = viewer.session() else {
            return false;
        };
        let key = (session.login.to_ascii_lowercase(), repo.id);
        if let Some((readable, at)) = self.lock().get(&key)
            && at.elapsed() < ACCESS_TTL
        {
            return *readable;
        }
        let readable = match self.ask_github(session, &repo.full_name).await {
            Ok(readable) => readable,
            Err(error) => {
                tracing::warn!(login = %session.login, repo = %repo.full_name, error = format!("{error:#}"), "cannot ask GitHub whether a repository is readable; refused");
                return false;
            }
        };
        let mut answers = self.lock();
        if answers.len() >= MAX_CACHED {
            answers.retain(|_, (_, at)| at.elapsed() < ACCESS_TTL);
            if answers.len() >= MAX_CACHED {
                answers.clear();
            }
        }
        answers.insert(key, (readable, Instant::now()));
        readable
    }

    /// The repositories of `repos` that `viewer` may read, asked in parallel.
    pub async fn readable(
        self: &Arc<Self>,
        viewer: &Arc<Viewer>,
        repos: Vec<RepoEntry>,
    ) -> Vec<RepoEntry> {
        let mut checks = tokio::task::JoinSet::new();
        for (index, repo) in repos.into_iter().enumerate() {
            let access = self.clone();
            let viewer = viewer.clone();
            checks.spawn(async move {
                let readable = access.can_read(&viewer, &repo).await;
                (index, readable.then_some(repo))
            });
        }
        let mut readable: Vec<(usize, RepoEntry)> = Vec::new();
        while let Some(joined) = checks.join_next().await {
            if let Ok((index, Some(repo))) = joined {
                readable.push((index, repo));
            }
        }
        readable.sort_by_key(|(index, _)| *index);
        readable.into_iter().map(|(_, repo)| repo).collect()
    }

    async fn ask_github(&self, session: &Session, full_name: &str) -> anyhow::Result<bool> {
        let Some(repo) = RepoName::parse(full_name) else {
            anyhow::bail!("{full_name:?} is not owner/name");
        };
        let github = GitHub::with_token(
            &self.api_url,
            session.token.clone(),
            self.clock.clone(),
            Arc::new(TokioPause),
        )?;
        tokio::time::timeout(GITHUB_WAIT, github.token_can_read(&repo))
            .await
            .map_err(|_| anyhow::anyhow!("GitHub did not answer within {GITHUB_WAIT:?}"))?
            .map_err(anyhow::Error::from)
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<(String, RepoId), (bool, Instant)>> {
        self.answers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
