//! A person's permission on a repository: who may run `/gitlore` commands (behaviour §6).

use anyhow::{Context, Result, bail};
use http::Method;

use super::super::client::{As, GitHub, is_not_found};
use crate::domain::RepoName;

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

impl GitHub {
    /// `login`'s permission on `repo`; a login GitHub does not know as a collaborator (404) has
    /// none. A GET: retried. The login comes from a webhook payload, so one that is not a GitHub
    /// login (letters, digits, hyphens, maybe `[bot]`) is refused before it reaches a URL.
    pub async fn collaborator_permission(
        &self,
        installation: i64,
        repo: &RepoName,
        login: &str,
    ) -> Result<Permission> {
        let Some(escaped) = url_login(login) else {
            bail!("{login:?} is not a GitHub login");
        };
        let path = format!("/repos/{repo}/collaborators/{escaped}/permission");
        let reply = match self
            .call(
                Method::GET,
                &path,
                As::Installation(installation),
                None,
                true,
            )
            .await
        {
            Ok(reply) => reply,
            Err(error) if is_not_found(&error) => return Ok(Permission::None),
            Err(error) => {
                return Err(error.context(format!("Cannot read {login}'s permission on {repo}")));
            }
        };
        let body = reply.json()?;
        // `role_name` tells maintain and triage apart; the legacy `permission` does not.
        [&body["role_name"], &body["permission"]]
            .iter()
            .find_map(|v| v.as_str().and_then(Permission::parse))
            .with_context(|| format!("GitHub named no known permission for {login} on {repo}"))
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
