//! A store on a temporary database with repositories in it, for tests of the store's own
//! functions: `write` and `read` unwrap, so a test reads as the calls it makes.

use gitlore::domain::{InstallationId, Repo, RepoId, RepoName};
use gitlore::store::{Store, repos};

pub struct TestStore {
    _dir: tempfile::TempDir,
    _database: super::backend::TestDatabase,
    pub store: std::sync::Arc<Store>,
}

impl TestStore {
    /// A fresh database with the repositories `(id, "owner/name")`, installed as
    /// `installation` when given.
    pub fn with_repos(repos: &[(i64, &str)], installation: Option<i64>) -> TestStore {
        let dir = tempfile::tempdir().unwrap();
        let database = super::backend::fresh_store(dir.path());
        let store = database.store.clone();
        store
            .write(|tx| {
                for (id, name) in repos {
                    let repo = Repo {
                        id: RepoId(*id),
                        name: RepoName::parse(name).unwrap(),
                        default_branch: Some("main".into()),
                        private: false,
                    };
                    repos::upsert_repo(tx, &repo, installation.map(InstallationId), true)?;
                }
                Ok(())
            })
            .unwrap();
        TestStore {
            _dir: dir,
            _database: database,
            store,
        }
    }

    /// Runs `f` in a write transaction.
    pub fn write<T>(
        &self,
        f: impl FnOnce(&mut gitlore::store::Transaction<'_>) -> anyhow::Result<T>,
    ) -> T {
        self.store.write(f).unwrap()
    }

    /// Runs `f` on a read connection.
    pub fn read<T>(
        &self,
        f: impl FnOnce(&gitlore::store::Connection<'_>) -> anyhow::Result<T>,
    ) -> T {
        f(&self.store.reader().unwrap()).unwrap()
    }
}
