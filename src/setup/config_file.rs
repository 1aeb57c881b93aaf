//! Writes the new App's credentials to a `gitlore.toml` that `Settings::load` reads, created
//! with mode 0600 so the secrets are never readable by others, not even for an instant.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::github::ops::app::NewApp;

/// Owner read and write, nobody else anything.
const PRIVATE_MODE: u32 = 0o600;

/// The keys of `gitlore.toml` setup fills in.
#[derive(Serialize)]
struct Written<'a> {
    app_id: i64,
    app_slug: &'a str,
    github_api_url: &'a str,
    webhook_secret: &'a str,
    oauth_client_id: &'a str,
    oauth_client_secret: &'a str,
    private_key: &'a str,
}

/// Whether `path` may be written: it does not exist yet, or `force` allows replacing it.
pub fn check_writable(path: &Path, force: bool) -> Result<()> {
    if !force && path.exists() {
        bail!(
            "{} exists already; pass --force to replace it",
            path.display()
        );
    }
    Ok(())
}

/// Writes app id, slug, API URL, webhook secret, OAuth client and the PEM key (inline) to `path`. Without
/// `force` an existing file is never replaced; with it, the new file is written next to the old
/// one and renamed over it, so it too is created with mode 0600.
pub fn write(path: &Path, app: &NewApp, api_url: &str, force: bool) -> Result<()> {
    let text = toml::to_string(&Written {
        app_id: app.id,
        app_slug: &app.slug,
        github_api_url: api_url,
        webhook_secret: app.webhook_secret.expose(),
        oauth_client_id: &app.client_id,
        oauth_client_secret: app.client_secret.expose(),
        private_key: app.pem.expose(),
    })
    .context("Cannot encode the configuration")?;
    let text = format!(
        "# Written by `gitlore setup` for the GitHub App {} ({}).\n# It holds the App's private key, webhook secret and OAuth client secret: keep it mode 0600, out of version control.\n{text}",
        app.slug, app.html_url
    );
    if !force {
        return create_private(path, &text);
    }
    let name = path
        .file_name()
        .with_context(|| format!("{} names no file", path.display()))?;
    let temporary = path.with_file_name(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    create_private(&temporary, &text)?;
    if let Err(error) = std::fs::rename(&temporary, path) {
        let _ = std::fs::remove_file(&temporary);
        return Err(error).with_context(|| format!("Cannot replace {}", path.display()));
    }
    Ok(())
}

/// Creates a new file with mode 0600 holding `text`, flushed to disk.
fn create_private(path: &Path, text: &str) -> Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(PRIVATE_MODE)
        .open(path)
        .with_context(|| format!("Cannot create {}", path.display()))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("Cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;
    use crate::config::Settings;
    use crate::domain::Secret;

    fn app() -> NewApp {
        NewApp {
            id: 77,
            slug: "gitlore-acme".into(),
            html_url: "https://github.com/apps/gitlore-acme".into(),
            pem: Secret::new(include_str!("../../tests/fixtures/test-app-key.pem")),
            webhook_secret: Secret::new("whsec \"quoted\""),
            client_id: "Iv1.abc".into(),
            client_secret: Secret::new("oauth-shh"),
        }
    }

    #[test]
    fn the_file_is_private_reads_back_and_is_replaced_only_with_force() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gitlore.toml");
        std::fs::write(&path, "old = true\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(check_writable(&path, false).is_err());
        assert!(write(&path, &app(), "https://ghe.corp/api/v3", false).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old = true\n");

        write(&path, &app(), "https://ghe.corp/api/v3", true).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let settings = Settings::from_sources(Some(&path), &|_| None).unwrap();
        assert_eq!(settings.app_id, Some(77));
        assert_eq!(settings.app_slug.as_deref(), Some("gitlore-acme"));
        assert_eq!(settings.github_api_url, "https://ghe.corp/api/v3");
        assert_eq!(
            settings.webhook_secret.unwrap().expose(),
            "whsec \"quoted\""
        );
        assert_eq!(settings.private_key.unwrap().expose(), app().pem.expose());
        let oauth = settings.web.oauth.unwrap();
        assert_eq!(
            (oauth.client_id.as_str(), oauth.client_secret.expose()),
            ("Iv1.abc", "oauth-shh")
        );
        let shown = format!("{:?}", app());
        assert!(
            !shown.contains("whsec")
                && !shown.contains("PRIVATE KEY")
                && !shown.contains("oauth-shh"),
            "{shown}"
        );
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file left behind");
    }
}
