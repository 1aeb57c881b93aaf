//! Seeding the model: the App, installations, repositories, pull requests with review threads,
//! reviews, issues and comments, with fresh ids and node ids, as tests and the routes create them.

use std::collections::{BTreeMap, HashMap};

use super::{
    Actor, App, CheckRun, FIRST_ID, Installation, Issue, IssueComment, ManifestConversion, Model,
    NodeRef, Pull, Reaction, Repo, Review, ReviewComment, Role, Thread, node_id, repo_key,
};

impl Model {
    pub fn new(now_ms: i64) -> Model {
        Model {
            app: None,
            installations: BTreeMap::new(),
            repos: BTreeMap::new(),
            tokens: HashMap::new(),
            manifest_codes: HashMap::new(),
            oauth: Default::default(),
            actors: HashMap::new(),
            nodes: HashMap::new(),
            hooks: Default::default(),
            now_ms,
            next_id: FIRST_ID,
        }
    }

    /// A fresh database id.
    pub fn next_id(&mut self) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// The actor with this login, created on first use; `renovate[bot]` is the bot `renovate`.
    pub fn actor(&mut self, login: &str) -> Actor {
        let (login, bot) = match login.strip_suffix("[bot]") {
            Some(bare) => (bare, true),
            None => (login, false),
        };
        let key = login.to_ascii_lowercase();
        if let Some(actor) = self.actors.get(&key) {
            return actor.clone();
        }
        let actor = Actor {
            login: login.to_string(),
            bot,
            id: self.next_id(),
        };
        self.actors.insert(key, actor.clone());
        actor
    }

    /// The App's own bot user (`{slug}[bot]`), author of whatever an installation token writes.
    pub fn app_bot(&mut self) -> Actor {
        let slug = self
            .app
            .as_ref()
            .map_or_else(|| "app".to_string(), |a| a.slug.clone());
        self.actor(&format!("{slug}[bot]"))
    }

    /// Registers the App whose JWTs the fake accepts.
    pub fn set_app(&mut self, id: i64, slug: &str, public_key_pem: &str) {
        self.app = Some(App {
            id,
            slug: slug.to_string(),
            name: slug.to_string(),
            owner: "fake-owner".to_string(),
            public_key_pem: public_key_pem.to_string(),
        });
    }

    /// Adds an installation covering `repos` (`owner/name`), creating missing repositories.
    pub fn add_installation(&mut self, id: i64, account: &str, repos: &[&str]) {
        let mut keys = Vec::new();
        for full_name in repos {
            self.add_repo(full_name);
            keys.push(repo_key(full_name));
        }
        self.installations.insert(
            id,
            Installation {
                id,
                account: account.to_string(),
                repos: keys,
                suspended: false,
            },
        );
    }

    /// Adds a repository (default branch `main`, no files), or returns the existing one.
    pub fn add_repo(&mut self, full_name: &str) -> &mut Repo {
        let key = repo_key(full_name);
        if !self.repos.contains_key(&key) {
            let (owner, name) = full_name
                .split_once('/')
                .unwrap_or_else(|| panic!("repository name {full_name:?} is not owner/name"));
            let id = self.next_id();
            let node = node_id("R", id);
            self.nodes
                .insert(node.clone(), NodeRef::Repository(key.clone()));
            let repo = Repo {
                id,
                node_id: node,
                owner: owner.to_string(),
                name: name.to_string(),
                default_branch: "main".to_string(),
                files: BTreeMap::new(),
                binary_files: BTreeMap::new(),
                pulls: BTreeMap::new(),
                issues: BTreeMap::new(),
                issue_comments: Vec::new(),
                check_runs: Vec::new(),
                collaborators: BTreeMap::new(),
                created_at_ms: self.now_ms,
                private: true,
            };
            self.repos.insert(key.clone(), repo);
        }
        self.repos.get_mut(&key).expect("just inserted")
    }

    pub fn repo(&self, full_name: &str) -> &Repo {
        self.repos
            .get(&repo_key(full_name))
            .unwrap_or_else(|| panic!("the fake has no repository {full_name}"))
    }

    pub fn repo_mut(&mut self, full_name: &str) -> &mut Repo {
        self.repos
            .get_mut(&repo_key(full_name))
            .unwrap_or_else(|| panic!("the fake has no repository {full_name}"))
    }

    /// Gives the App an OAuth client, for signing in on gitlore's pages.
    pub fn set_oauth_client(&mut self, client_id: &str, client_secret: &str) {
        self.oauth.client = Some((client_id.to_string(), client_secret.to_string()));
    }

    /// Sets a collaborator's role on a repository.
    pub fn set_role(&mut self, full_name: &str, login: &str, role: Role) {
        self.actor(login);
        self.repo_mut(full_name)
            .collaborators
            .insert(login.to_ascii_lowercase(), role);
    }

    /// Adds a merged pull request with the next free number (merged and updated now).
    pub fn add_merged_pull(&mut self, full_name: &str, title: &str, author: &str) -> &mut Pull {
        let number = self.repo(full_name).next_number();
        let now = self.now_ms;
        let pull = self.add_pull_numbered(full_name, number, title, author);
        pull.open = false;
        pull.merged = true;
        pull.merged_at_ms = Some(now);
        pull
    }

    /// Adds an open pull request with the next free number.
    pub fn add_open_pull(&mut self, full_name: &str, title: &str, author: &str) -> &mut Pull {
        let number = self.repo(full_name).next_number();
        self.add_pull_numbered(full_name, number, title, author)
    }

    fn add_pull_numbered(
        &mut self,
        full_name: &str,
        number: u64,
        title: &str,
        author: &str,
    ) -> &mut Pull {
        let author = self.actor(author);
        let id = self.next_id();
        let node = node_id("PR", id);
        let key = repo_key(full_name);
        self.nodes
            .insert(node.clone(), NodeRef::PullRequest(key.clone(), number));
        let now = self.now_ms;
        let pull = Pull {
            id,
            node_id: node,
            number,
            title: title.to_string(),
            body: None,
            author,
            open: true,
            merged: false,
            merged_at_ms: None,
            head_sha: format!("{:040x}", id),
            head_ref: format!("branch-{number}"),
            changed_files: Vec::new(),
            created_at_ms: now,
            updated_at_ms: now,
            threads: Vec::new(),
            reviews: Vec::new(),
        };
        let repo = self.repo_mut(full_name);
        repo.pulls.insert(number, pull);
        repo.pulls.get_mut(&number).expect("just inserted")
    }

    pub fn pull_mut(&mut self, full_name: &str, number: u64) -> &mut Pull {
        self.repo_mut(full_name)
            .pulls
            .get_mut(&number)
            .unwrap_or_else(|| panic!("the fake has no pull request {full_name}#{number}"))
    }

    /// Starts a review thread on `path`/`line` with its first comment; returns the thread index.
    pub fn add_thread(
        &mut self,
        full_name: &str,
        number: u64,
        path: &str,
        line: u64,
        author: &str,
        body: &str,
    ) -> usize {
        let id = self.next_id();
        let node = node_id("PRRT", id);
        let key = repo_key(full_name);
        let pull = self.pull_mut(full_name, number);
        let index = pull.threads.len();
        pull.threads.push(Thread {
            node_id: node.clone(),
            path: path.to_string(),
            line: Some(line),
            original_line: Some(line),
            resolved: false,
            comments: Vec::new(),
        });
        self.nodes.insert(node, NodeRef::Thread(key, number, index));
        self.add_reply(full_name, number, index, author, body);
        index
    }

    /// Adds a comment to a thread, replying to its first comment; returns its database id.
    pub fn add_reply(
        &mut self,
        full_name: &str,
        number: u64,
        thread: usize,
        author: &str,
        body: &str,
    ) -> i64 {
        let author = self.actor(author);
        let id = self.next_id();
        let node = node_id("PRRC", id);
        let now = self.now_ms;
        let key = repo_key(full_name);
        let pull = self.pull_mut(full_name, number);
        let t = pull
            .threads
            .get_mut(thread)
            .unwrap_or_else(|| panic!("no thread {thread} on #{number}"));
        let reply_to = t.comments.first().map(|c| c.id);
        let index = t.comments.len();
        let line = t.line.unwrap_or(1);
        t.comments.push(ReviewComment {
            id,
            node_id: node.clone(),
            author,
            author_association: "MEMBER".to_string(),
            body: body.to_string(),
            diff_hunk: format!("@@ -{line},3 +{line},4 @@\n context\n+added line"),
            created_at_ms: now,
            updated_at_ms: now,
            reply_to,
            review_id: None,
            reactions: Vec::new(),
        });
        self.nodes
            .insert(node, NodeRef::ReviewComment(key, number, thread, index));
        id
    }

    /// Adds a submitted review; returns its database id.
    pub fn add_review(
        &mut self,
        full_name: &str,
        number: u64,
        author: &str,
        state: &str,
        body: &str,
    ) -> i64 {
        let author = self.actor(author);
        let id = self.next_id();
        let node = node_id("PRR", id);
        let now = self.now_ms;
        let key = repo_key(full_name);
        let pull = self.pull_mut(full_name, number);
        let index = pull.reviews.len();
        pull.reviews.push(Review {
            id,
            node_id: node.clone(),
            author,
            author_association: "MEMBER".to_string(),
            state: state.to_string(),
            body: body.to_string(),
            submitted_at_ms: now,
            updated_at_ms: now,
        });
        self.nodes.insert(node, NodeRef::Review(key, number, index));
        id
    }

    /// Adds an issue with the next free number.
    pub fn add_issue(
        &mut self,
        full_name: &str,
        title: &str,
        body: &str,
        author: &str,
    ) -> &mut Issue {
        let author = self.actor(author);
        let id = self.next_id();
        let node = node_id("I", id);
        let now = self.now_ms;
        let key = repo_key(full_name);
        let number = self.repo(full_name).next_number();
        self.nodes.insert(node.clone(), NodeRef::Issue(key, number));
        let repo = self.repo_mut(full_name);
        repo.issues.insert(
            number,
            Issue {
                id,
                node_id: node,
                number,
                title: title.to_string(),
                body: Some(body.to_string()),
                author,
                labels: Vec::new(),
                open: true,
                state_reason: None,
                pinned: false,
                created_at_ms: now,
                updated_at_ms: now,
                closed_at_ms: None,
            },
        );
        repo.issues.get_mut(&number).expect("just inserted")
    }

    /// Adds a conversation comment to issue or pull request `number`; returns its database id.
    pub fn add_issue_comment(
        &mut self,
        full_name: &str,
        number: u64,
        author: &str,
        body: &str,
    ) -> i64 {
        let author = self.actor(author);
        let id = self.next_id();
        let node = node_id("IC", id);
        let now = self.now_ms;
        let key = repo_key(full_name);
        self.nodes
            .insert(node.clone(), NodeRef::IssueComment(key, id));
        self.repo_mut(full_name).issue_comments.push(IssueComment {
            id,
            node_id: node,
            issue_number: number,
            author,
            author_association: "MEMBER".to_string(),
            body: body.to_string(),
            created_at_ms: now,
            updated_at_ms: now,
            reactions: Vec::new(),
        });
        id
    }

    /// A new reaction by `user`.
    pub fn new_reaction(&mut self, content: &str, user: Actor) -> Reaction {
        let id = self.next_id();
        Reaction {
            id,
            node_id: node_id("REA", id),
            content: content.to_string(),
            user,
            created_at_ms: self.now_ms,
        }
    }

    /// A new check run (not yet stored).
    pub fn new_check_run(&mut self, head_sha: &str, name: &str) -> CheckRun {
        let id = self.next_id();
        CheckRun {
            id,
            node_id: node_id("CR", id),
            head_sha: head_sha.to_string(),
            name: name.to_string(),
            status: "queued".to_string(),
            conclusion: None,
            started_at_ms: Some(self.now_ms),
            completed_at_ms: None,
            details_url: None,
            external_id: None,
            title: None,
            summary: None,
            text: None,
            annotations: Vec::new(),
            actions: Vec::new(),
            app_id: None,
        }
    }

    /// Stores a new issue (created through the API) and indexes its node id.
    pub fn insert_issue(&mut self, repo_key: &str, issue: Issue) {
        self.nodes.insert(
            issue.node_id.clone(),
            NodeRef::Issue(repo_key.to_string(), issue.number),
        );
        if let Some(repo) = self.repos.get_mut(repo_key) {
            repo.issues.insert(issue.number, issue);
        }
    }

    /// A new issue (not yet stored) authored by `author`.
    pub fn new_issue(&mut self, number: u64, title: &str, author: Actor) -> Issue {
        let id = self.next_id();
        Issue {
            id,
            node_id: node_id("I", id),
            number,
            title: title.to_string(),
            body: None,
            author,
            labels: Vec::new(),
            open: true,
            state_reason: None,
            pinned: false,
            created_at_ms: self.now_ms,
            updated_at_ms: self.now_ms,
            closed_at_ms: None,
        }
    }

    /// A new conversation comment (not yet stored), indexed by node id.
    pub fn new_issue_comment(
        &mut self,
        repo_key: &str,
        number: u64,
        author: Actor,
        body: &str,
    ) -> IssueComment {
        let id = self.next_id();
        let node = node_id("IC", id);
        self.nodes.insert(
            node.clone(),
            NodeRef::IssueComment(repo_key.to_string(), id),
        );
        IssueComment {
            id,
            node_id: node,
            issue_number: number,
            author,
            author_association: "NONE".to_string(),
            body: body.to_string(),
            created_at_ms: self.now_ms,
            updated_at_ms: self.now_ms,
            reactions: Vec::new(),
        }
    }

    /// Makes a one-time manifest code that converts into an App with this key pair.
    pub fn add_manifest_code(&mut self, code: &str, conversion: ManifestConversion) {
        self.manifest_codes.insert(code.to_string(), conversion);
    }

    /// The number of pinned issues of a repository.
    pub fn pinned_count(&self, repo_key: &str) -> usize {
        self.repos
            .get(repo_key)
            .map_or(0, |r| r.issues.values().filter(|i| i.pinned).count())
    }
}
