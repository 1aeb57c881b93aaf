//! A person's permission on a repository: who may run `/gitlore` commands (behaviour §6).

use serde::Deserialize;

use super::super::error::{Error, Result};
use super::super::repo::RepoClient;

/// A collaborator's role on a repository, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Permission {
    Admin,
    Maintain,
    Write,
    Triage,
    Read,
    /// Not a collaborator (or an unknown login).
    None,
}

impl Permission {
    /// Whether the role may push: write, maintain or admin.
    pub fn can_write(self) -> bool {
        matches!(
            self,
            Permission::Admin | Permission::Maintain | Permission::Write
        )
    }

    /// GitHub's role name (`role_name`), or the legacy `permission` value.
    fn parse(name: &str) -> Option<Permission> {
        Some(match name {
            "admin" => Permission::Admin,
            "maintain" => Permission::Maintain,
            "write" => Permission::Write,
            "triage" => Permission::Triage,
            "read" => Permission::Read,
            "none" => Permission::None,
            _ => return None,
        })
    }
}

/// A collaborator's permission as GitHub answers it.
#[derive(Deserialize)]
struct PermissionAnswer {
    /// Tells maintain and triage apart; the legacy `permission` does not.
    role_name: Option<String>,
    permission: Option<String>,
}

impl RepoClient<'_> {
    /// `login`'s permission on the repository; a login GitHub does not know as a collaborator
    /// (404) has none. A GET: retried. The login comes from a webhook payload, so one that is
    /// not a GitHub login (letters, digits, hyphens, maybe `[bot]`) is refused before it reaches
    /// a URL.
    pub async fn collaborator_permission(&self, login: &str) -> Result<Permission> {
        let Some(escaped) = url_login(login) else {
            return Err(Error::Refused(format!("{login:?} is not a GitHub login")));
        };
        let tail = format!("/collaborators/{escaped}/permission");
        let answer: PermissionAnswer = match self.get(&tail).await {
            Ok(answer) => answer,
            Err(error) if error.is_gone() => return Ok(Permission::None),
            Err(error) => return Err(error),
        };
        [answer.role_name, answer.permission]
            .iter()
            .flatten()
            .find_map(|name| Permission::parse(name))
            .ok_or_else(|| Error::Unexpected {
                url: self.path(&tail),
                reason: format!("no known permission for {login}"),
            })
    }
}

/// A login as a URL path segment (`[bot]` percent-encoded), or `None` when it is not a login.
fn url_login(login: &str) -> Option<String> {
    let (name, bot) = match login.strip_suffix("[bot]") {
        Some(name) => (name, true),
        None => (login, false),
    };
    // Underscores appear in the logins of enterprise managed users.
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    valid.then(|| {
        if bot {
            format!("{name}%5Bbot%5D")
        } else {
            name.to_string()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_logins_reach_the_url() {
        assert_eq!(url_login("alice-b").as_deref(), Some("alice-b"));
        assert_eq!(
            url_login("renovate[bot]").as_deref(),
            Some("renovate%5Bbot%5D")
        );
        assert_eq!(url_login("../../admin"), None);
        assert_eq!(url_login("a?b"), None);
        assert_eq!(url_login(""), None);
    }

    #[test]
    fn write_maintain_and_admin_can_write() {
        let can: Vec<_> = [
            Permission::Admin,
            Permission::Maintain,
            Permission::Write,
            Permission::Triage,
            Permission::Read,
            Permission::None,
        ]
        .map(Permission::can_write)
        .to_vec();
        assert_eq!(can, [true, true, true, false, false, false]);
    }
}
