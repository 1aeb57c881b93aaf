//! Server configuration (behaviour §4): defaults, then an optional `gitlore.toml`, then environment
//! variables (GitLore's names first, then Probot's). A missing or broken setting is one sentence
//! naming it and how to fix it.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use thiserror::Error;

use crate::domain::Secret;
use crate::knowledge::embed::remote::RemoteSettings;
use crate::knowledge::filter::Switches;
use crate::llm::{LlmSettings, Provider};
use crate::redelivery::SweepSettings;
use crate::runner::DEFAULT_JOB_LEASE;
use crate::worker::WorkerSettings;

/// A configuration problem, worded for the operator.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("{name} is not set. Register the app with `gitlore setup`, or set {name} ({hint}).")]
    Missing {
        name: &'static str,
        hint: &'static str,
    },
    #[error("{name} is invalid: {reason}")]
    Invalid { name: &'static str, reason: String },
    #[error("cannot read {path}: {reason}")]
    Unreadable { path: PathBuf, reason: String },
    #[error("{path} is not a valid gitlore.toml: {reason}")]
    File { path: PathBuf, reason: String },
    #[error("the private key in {origin} is invalid: {reason}")]
    PrivateKey { origin: String, reason: String },
}

/// The web pages' settings.
#[derive(Debug, Clone)]
pub struct WebSettings {
    /// The App's OAuth client, for signing in with GitHub; `None` turns signing in off.
    pub oauth: Option<OAuthClient>,
    /// What session cookies are signed with; `None` derives a key from the App's private key.
    pub session_secret: Option<Secret>,
    /// Whether public repositories' pages are readable without signing in.
    pub public_repos_anonymous: bool,
}

/// The App's OAuth client, as `gitlore setup` writes it.
#[derive(Debug, Clone)]
pub struct OAuthClient {
    pub client_id: String,
    pub client_secret: Secret,
}

/// Everything the server and the CLI read from configuration.
#[derive(Debug, Clone)]
pub struct Settings {
    pub app_id: Option<i64>,
    pub app_slug: Option<String>,
    pub private_key: Option<Secret>,
    pub webhook_secret: Option<Secret>,
    pub listen: SocketAddr,
    pub webhook_path: String,
    pub data_dir: PathBuf,
    /// A PostgreSQL database for several replicas (`GITLORE_DATABASE_URL`); without it, the
    /// SQLite file in the data directory.
    pub database_url: Option<Secret>,
    /// Extra certificate authorities for the database's TLS (`GITLORE_DATABASE_CA_FILE`).
    pub database_ca_file: Option<PathBuf>,
    pub github_api_url: String,
    pub public_url: Option<String>,
    /// What replaces the GitHub web host in published links (quiet links); on github.com
    /// `https://redirect.github.com` unless set, elsewhere none unless set.
    pub link_redirect_url: Option<String>,
    /// Extra automation logins to treat as bots, besides the built-in list.
    pub bot_logins: Vec<String>,
    /// The noise filter's rules switched off (`GITLORE_NOISE_RULES_OFF`, rule names).
    pub noise_rules_off: Switches,
    pub log_filter: String,
    pub log_json: bool,
    pub worker: WorkerSettings,
    /// How long a running job's lease lasts between renewals: after a crash, a restart resumes
    /// the job's repository within this long.
    pub job_lease: Duration,
    /// Time between two redelivery sweeps (`GITLORE_REDELIVERY_SWEEP_SECS`).
    pub redelivery_sweep: Duration,
    /// The LLM, when one is configured; `None` means the built-in components.
    pub llm: Option<LlmSettings>,
    /// The remote embedder, when one is configured; `None` means the built-in embedder.
    pub embed: Option<RemoteSettings>,
    /// The web pages: sign-in with GitHub and who may read what.
    pub web: WebSettings,
}

/// What `gitlore serve` cannot run without.
#[derive(Debug, Clone)]
pub struct AppCredentials {
    pub app_id: i64,
    pub private_key: Secret,
    pub webhook_secret: Secret,
}

/// The keys of `gitlore.toml`; unknown keys are an error, so a typo is never silently ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    app_id: Option<i64>,
    app_slug: Option<String>,
    private_key: Option<String>,
    private_key_path: Option<PathBuf>,
    webhook_secret: Option<String>,
    listen: Option<String>,
    webhook_path: Option<String>,
    data_dir: Option<PathBuf>,
    database_url: Option<String>,
    database_ca_file: Option<PathBuf>,
    github_api_url: Option<String>,
    public_url: Option<String>,
    link_redirect_url: Option<String>,
    bot_logins: Option<Vec<String>>,
    noise_rules_off: Option<Vec<String>>,
    log: Option<String>,
    log_format: Option<String>,
    worker_lease_secs: Option<i64>,
    job_lease_secs: Option<i64>,
    redelivery_sweep_secs: Option<i64>,
    llm_provider: Option<String>,
    llm_base_url: Option<String>,
    llm_api_key: Option<String>,
    llm_model: Option<String>,
    llm_timeout_secs: Option<i64>,
    llm_max_tokens: Option<i64>,
    llm_context_tokens: Option<i64>,
    llm_daily_tokens: Option<i64>,
    embed_base_url: Option<String>,
    embed_api_key: Option<String>,
    embed_model: Option<String>,
    oauth_client_id: Option<String>,
    oauth_client_secret: Option<String>,
    session_secret: Option<String>,
    web_public: Option<bool>,
}

const DEFAULT_LISTEN: &str = "0.0.0.0:3000";
const DEFAULT_DATA_DIR: &str = "./gitlore-data";
const DEFAULT_API_URL: &str = "https://api.github.com";
const DEFAULT_WEBHOOK_PATH: &str = "/webhook";

impl Settings {
    /// Reads the process environment and, when given, a `gitlore.toml`.
    pub fn load(file: Option<&Path>) -> Result<Settings, ConfigError> {
        Settings::from_sources(file, &|name| std::env::var(name).ok())
    }

    /// Reads configuration from `file` and an environment lookup (injected for tests).
    pub fn from_sources(
        file: Option<&Path>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Settings, ConfigError> {
        let file_config = match file {
            Some(path) => read_file(path)?,
            None => FileConfig::default(),
        };
        // Empty variables count as unset: `FOO= gitlore serve` should not mean "empty secret".
        let var = |names: &[&str]| {
            names
                .iter()
                .find_map(|name| env(name).filter(|value| !value.trim().is_empty()))
        };
        let app_id = match var(&["GITLORE_APP_ID", "APP_ID"]) {
            Some(text) => Some(
                text.trim()
                    .parse::<i64>()
                    .map_err(|_| ConfigError::Invalid {
                        name: "GITLORE_APP_ID",
                        reason: format!("`{text}` is not a number"),
                    })?,
            ),
            None => file_config.app_id,
        };
        // The key and where it came from, for an error that says which setting to fix.
        let in_file = |key: &str| match file {
            Some(path) => format!("`{key}` of {}", path.display()),
            None => format!("`{key}`"),
        };
        let key_var = ["GITLORE_PRIVATE_KEY", "PRIVATE_KEY"]
            .into_iter()
            .find_map(|name| var(&[name]).map(|pem| (pem, name.to_string())));
        let key_path = ["GITLORE_PRIVATE_KEY_PATH", "PRIVATE_KEY_PATH"]
            .into_iter()
            .find_map(|name| var(&[name]).map(|path| (PathBuf::from(path), name.to_string())))
            .or_else(|| {
                let path = file_config.private_key_path.clone()?;
                Some((path, in_file("private_key_path")))
            });
        let private_key = match (key_var, key_path) {
            (Some(found), _) => Some(found),
            (None, Some((path, setting))) => {
                let pem = std::fs::read_to_string(&path).map_err(|e| ConfigError::Unreadable {
                    path: path.clone(),
                    reason: e.to_string(),
                })?;
                Some((pem, format!("{} (from {setting})", path.display())))
            }
            (None, None) => file_config
                .private_key
                .clone()
                .map(|pem| (pem, in_file("private_key"))),
        };
        let private_key = private_key
            .map(|(pem, source)| check_private_key(pem, source))
            .transpose()?;
        let listen = listen_address(
            var(&["GITLORE_LISTEN"]).or(file_config.listen.clone()),
            var(&["PORT"]),
        )?;
        let github_api_url = var(&["GITLORE_GITHUB_API_URL"])
            .or(file_config.github_api_url.clone())
            .unwrap_or_else(|| DEFAULT_API_URL.to_string());
        check_url("GITLORE_GITHUB_API_URL", &github_api_url)?;
        let public_url = var(&["GITLORE_PUBLIC_URL"]).or(file_config.public_url.clone());
        if let Some(url) = &public_url {
            check_url("GITLORE_PUBLIC_URL", url)?;
        }
        let link_redirect_url =
            var(&["GITLORE_LINK_REDIRECT_URL"]).or(file_config.link_redirect_url.clone());
        if let Some(url) = &link_redirect_url {
            check_url("GITLORE_LINK_REDIRECT_URL", url)?;
        }
        let webhook_path = var(&["GITLORE_WEBHOOK_PATH"])
            .or(file_config.webhook_path.clone())
            .unwrap_or_else(|| DEFAULT_WEBHOOK_PATH.to_string());
        if !webhook_path.starts_with('/') {
            return Err(ConfigError::Invalid {
                name: "GITLORE_WEBHOOK_PATH",
                reason: format!("`{webhook_path}` must start with `/`"),
            });
        }
        let log_format = var(&["GITLORE_LOG_FORMAT"]).or(file_config.log_format.clone());
        let log_json = match log_format.as_deref() {
            None | Some("text") => false,
            Some("json") => true,
            Some(other) => {
                return Err(ConfigError::Invalid {
                    name: "GITLORE_LOG_FORMAT",
                    reason: format!("`{other}` is neither `text` nor `json`"),
                });
            }
        };
        let bot_logins = match var(&["GITLORE_BOT_LOGINS"]) {
            Some(list) => list
                .split(',')
                .map(|login| login.trim().to_string())
                .filter(|login| !login.is_empty())
                .collect(),
            None => file_config.bot_logins.clone().unwrap_or_default(),
        };
        let noise_rules_off = match var(&["GITLORE_NOISE_RULES_OFF"]) {
            Some(list) => list.split(',').map(str::to_string).collect(),
            None => file_config.noise_rules_off.clone().unwrap_or_default(),
        };
        let noise_rules_off =
            Switches::parse(&noise_rules_off).map_err(|error| ConfigError::Invalid {
                name: "GITLORE_NOISE_RULES_OFF",
                reason: error.to_string(),
            })?;
        let mut worker = WorkerSettings::default();
        let lease_secs = positive(
            &var,
            "GITLORE_WORKER_LEASE_SECS",
            file_config.worker_lease_secs,
        )?;
        if let Some(secs) = lease_secs {
            worker.lease = seconds(secs);
        }
        let job_lease = positive(&var, "GITLORE_JOB_LEASE_SECS", file_config.job_lease_secs)?
            .map_or(DEFAULT_JOB_LEASE, seconds);
        let redelivery_sweep = positive(
            &var,
            "GITLORE_REDELIVERY_SWEEP_SECS",
            file_config.redelivery_sweep_secs,
        )?
        .map_or(SweepSettings::default().period, seconds);
        Ok(Settings {
            app_id,
            app_slug: var(&["GITLORE_APP_SLUG"]).or(file_config.app_slug.clone()),
            private_key,
            webhook_secret: var(&["GITLORE_WEBHOOK_SECRET", "WEBHOOK_SECRET"])
                .or(file_config.webhook_secret.clone())
                .map(Secret::new),
            listen,
            webhook_path,
            data_dir: var(&["GITLORE_DATA_DIR"])
                .map(PathBuf::from)
                .or(file_config.data_dir.clone())
                .unwrap_or_else(|| PathBuf::from(DEFAULT_DATA_DIR)),
            database_url: database_url(&var, &file_config)?,
            database_ca_file: var(&["GITLORE_DATABASE_CA_FILE"])
                .map(PathBuf::from)
                .or(file_config.database_ca_file.clone()),
            github_api_url,
            public_url,
            link_redirect_url,
            bot_logins,
            noise_rules_off,
            log_filter: check_log_filter(
                var(&["GITLORE_LOG"])
                    .or(file_config.log.clone())
                    .unwrap_or_else(|| "info".to_string()),
            )?,
            log_json,
            worker,
            job_lease,
            redelivery_sweep,
            llm: llm_settings(&var, &file_config)?,
            embed: embed_settings(&var, &file_config)?,
            web: web_settings(&var, &file_config)?,
        })
    }

    /// The App credentials `serve` needs, or the first one missing.
    pub fn app_credentials(&self) -> Result<AppCredentials, ConfigError> {
        let app_id = self.app_id.ok_or(ConfigError::Missing {
            name: "GITLORE_APP_ID",
            hint: "or APP_ID, or app_id in gitlore.toml",
        })?;
        let private_key = self.private_key.clone().ok_or(ConfigError::Missing {
            name: "GITLORE_PRIVATE_KEY",
            hint: "the PEM text, or a file path in GITLORE_PRIVATE_KEY_PATH; Probot's PRIVATE_KEY and PRIVATE_KEY_PATH work too",
        })?;
        let webhook_secret = self.webhook_secret.clone().ok_or(ConfigError::Missing {
            name: "GITLORE_WEBHOOK_SECRET",
            hint: "or WEBHOOK_SECRET, or webhook_secret in gitlore.toml",
        })?;
        Ok(AppCredentials {
            app_id,
            private_key,
            webhook_secret,
        })
    }

    /// The SQLite database file.
    pub fn database_path(&self) -> PathBuf {
        crate::store::database_path(&self.data_dir)
    }

    /// The database the store lives in: PostgreSQL when a URL is set, else the SQLite file.
    pub fn database(&self) -> crate::store::Database {
        match &self.database_url {
            Some(url) => crate::store::Database::Postgres {
                url: url.expose().to_owned(),
                ca_file: self.database_ca_file.clone(),
            },
            None => crate::store::Database::Sqlite(self.database_path()),
        }
    }
}

/// `GITLORE_DATABASE_URL` (or `database_url`): a `postgres://` or `postgresql://` URL.
fn database_url(var: &Lookup<'_>, file_config: &FileConfig) -> Result<Option<Secret>, ConfigError> {
    let Some(url) = var(&["GITLORE_DATABASE_URL"]).or(file_config.database_url.clone()) else {
        return Ok(None);
    };
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        return Err(ConfigError::Invalid {
            name: "GITLORE_DATABASE_URL",
            reason: "it must be a postgres:// URL (leave it unset for the embedded SQLite store)"
                .into(),
        });
    }
    Ok(Some(Secret::new(url)))
}

/// How long one LLM or embedding request may take.
const MODEL_TIMEOUT: Duration = Duration::from_secs(120);
/// Most tokens one LLM answer may have: a batch of 20 labelled comments needs far fewer. A small
/// context keeps at most a quarter of itself for the answer.
const LLM_MAX_TOKENS: u32 = 4096;
/// The context window assumed when none is set: today's hosted models have at least this.
const LLM_CONTEXT_TOKENS: u32 = 128_000;
/// Tokens the LLM may spend on one repository per UTC day: a few full analyses.
const LLM_DAILY_TOKENS: u64 = 1_000_000;
/// The longest `Retry-After` an LLM call waits for once.
const LLM_MAX_RETRY_WAIT: Duration = Duration::from_secs(30);

type Lookup<'a> = dyn Fn(&[&str]) -> Option<String> + 'a;

/// A positive whole number from the environment variable `name`, else from the file.
/// `secs` (positive, as [`positive`] returns them) as a span of time.
fn seconds(secs: i64) -> Duration {
    Duration::from_secs(u64::try_from(secs).unwrap_or(0))
}

fn positive(
    var: &Lookup<'_>,
    name: &'static str,
    file: Option<i64>,
) -> Result<Option<i64>, ConfigError> {
    let Some(text) = var(&[name]) else {
        return match file {
            Some(value) if value <= 0 => Err(ConfigError::Invalid {
                name,
                reason: format!("`{value}` is not a positive number"),
            }),
            other => Ok(other),
        };
    };
    let value = text.trim().parse::<i64>().ok().filter(|value| *value > 0);
    value.map(Some).ok_or(ConfigError::Invalid {
        name,
        reason: format!("`{text}` is not a positive number"),
    })
}

/// `GITLORE_LLM_*`: unset provider means the built-in components.
fn llm_settings(var: &Lookup<'_>, file: &FileConfig) -> Result<Option<LlmSettings>, ConfigError> {
    let Some(name) = var(&["GITLORE_LLM_PROVIDER"]).or(file.llm_provider.clone()) else {
        return Ok(None);
    };
    let provider = Provider::parse(&name).ok_or(ConfigError::Invalid {
        name: "GITLORE_LLM_PROVIDER",
        reason: format!("`{name}` is neither `openai` nor `anthropic`"),
    })?;
    let base_url = var(&["GITLORE_LLM_BASE_URL"])
        .or(file.llm_base_url.clone())
        .unwrap_or_else(|| match provider {
            Provider::OpenAi => "https://api.openai.com/v1".into(),
            Provider::Anthropic => "https://api.anthropic.com".into(),
        });
    check_url("GITLORE_LLM_BASE_URL", &base_url)?;
    let model = var(&["GITLORE_LLM_MODEL"])
        .or(file.llm_model.clone())
        .ok_or(ConfigError::Invalid {
            name: "GITLORE_LLM_MODEL",
            reason: "a model is needed when GITLORE_LLM_PROVIDER is set".into(),
        })?;
    let tokens = |value: i64| u32::try_from(value).unwrap_or(u32::MAX);
    let context_tokens = positive(var, "GITLORE_LLM_CONTEXT_TOKENS", file.llm_context_tokens)?
        .map_or(LLM_CONTEXT_TOKENS, tokens);
    let max_tokens = positive(var, "GITLORE_LLM_MAX_TOKENS", file.llm_max_tokens)?
        .map_or(LLM_MAX_TOKENS.min(context_tokens / 4), tokens);
    if max_tokens >= context_tokens {
        return Err(ConfigError::Invalid {
            name: "GITLORE_LLM_CONTEXT_TOKENS",
            reason: format!(
                "`{context_tokens}` leaves no room for a prompt beside the answer's {max_tokens} tokens (GITLORE_LLM_MAX_TOKENS)"
            ),
        });
    }
    Ok(Some(LlmSettings {
        provider,
        base_url,
        api_key: var(&["GITLORE_LLM_API_KEY"])
            .or(file.llm_api_key.clone())
            .map(Secret::new),
        model,
        timeout: positive(var, "GITLORE_LLM_TIMEOUT_SECS", file.llm_timeout_secs)?
            .map_or(MODEL_TIMEOUT, |secs| {
                Duration::from_secs(secs.unsigned_abs())
            }),
        max_tokens,
        context_tokens,
        max_retry_wait: LLM_MAX_RETRY_WAIT,
        daily_tokens: Some(
            positive(var, "GITLORE_LLM_DAILY_TOKENS", file.llm_daily_tokens)?
                .map_or(LLM_DAILY_TOKENS, i64::unsigned_abs),
        ),
    }))
}

/// `GITLORE_EMBED_*`: unset base URL means the built-in embedder.
fn embed_settings(
    var: &Lookup<'_>,
    file: &FileConfig,
) -> Result<Option<RemoteSettings>, ConfigError> {
    let Some(base_url) = var(&["GITLORE_EMBED_BASE_URL"]).or(file.embed_base_url.clone()) else {
        return Ok(None);
    };
    check_url("GITLORE_EMBED_BASE_URL", &base_url)?;
    let model = var(&["GITLORE_EMBED_MODEL"])
        .or(file.embed_model.clone())
        .ok_or(ConfigError::Invalid {
            name: "GITLORE_EMBED_MODEL",
            reason: "a model is needed when GITLORE_EMBED_BASE_URL is set".into(),
        })?;
    Ok(Some(RemoteSettings {
        base_url,
        api_key: var(&["GITLORE_EMBED_API_KEY"])
            .or(file.embed_api_key.clone())
            .map(Secret::new),
        model,
        timeout: MODEL_TIMEOUT,
    }))
}

/// `GITLORE_OAUTH_*`, `GITLORE_SESSION_SECRET`, `GITLORE_WEB_PUBLIC`: sign-in needs both OAuth
/// values; public repositories are readable without signing in unless turned off.
fn web_settings(var: &Lookup<'_>, file: &FileConfig) -> Result<WebSettings, ConfigError> {
    let client_id = var(&["GITLORE_OAUTH_CLIENT_ID"]).or(file.oauth_client_id.clone());
    let client_secret = var(&["GITLORE_OAUTH_CLIENT_SECRET"]).or(file.oauth_client_secret.clone());
    let oauth = match (client_id, client_secret) {
        (Some(client_id), Some(secret)) => Some(OAuthClient {
            client_id,
            client_secret: Secret::new(secret),
        }),
        (None, None) => None,
        (Some(_), None) => {
            return Err(ConfigError::Invalid {
                name: "GITLORE_OAUTH_CLIENT_SECRET",
                reason: "it is needed when GITLORE_OAUTH_CLIENT_ID is set".into(),
            });
        }
        (None, Some(_)) => {
            return Err(ConfigError::Invalid {
                name: "GITLORE_OAUTH_CLIENT_ID",
                reason: "it is needed when GITLORE_OAUTH_CLIENT_SECRET is set".into(),
            });
        }
    };
    let public = match var(&["GITLORE_WEB_PUBLIC"]) {
        Some(text) => match text.trim() {
            "true" | "1" | "yes" => true,
            "false" | "0" | "no" => false,
            _ => {
                return Err(ConfigError::Invalid {
                    name: "GITLORE_WEB_PUBLIC",
                    reason: format!("`{text}` is neither `true` nor `false`"),
                });
            }
        },
        None => file.web_public.unwrap_or(true),
    };
    Ok(WebSettings {
        oauth,
        session_secret: var(&["GITLORE_SESSION_SECRET"])
            .or(file.session_secret.clone())
            .map(Secret::new),
        public_repos_anonymous: public,
    })
}

fn read_file(path: &Path) -> Result<FileConfig, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Unreadable {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    toml::from_str(&text).map_err(|e| ConfigError::File {
        path: path.to_path_buf(),
        reason: e.to_string().trim().to_string(),
    })
}

/// A PEM RSA private key, as GitHub issues them (PKCS#1 `RSA PRIVATE KEY`) or as `openssl
/// genrsa` writes them (PKCS#8 `PRIVATE KEY`); `source` names where it came from.
fn check_private_key(pem: String, source: String) -> Result<Secret, ConfigError> {
    // Some platforms store multi-line secrets with literal `\n`.
    let pem = pem.replace("\\n", "\n");
    let trimmed = pem.trim_start();
    let invalid = |reason: &str| ConfigError::PrivateKey {
        origin: source.clone(),
        reason: reason.to_string(),
    };
    if !(trimmed.starts_with("-----BEGIN RSA PRIVATE KEY-----")
        || trimmed.starts_with("-----BEGIN PRIVATE KEY-----"))
    {
        return Err(invalid(
            "it is not a PEM private key (expected `-----BEGIN RSA PRIVATE KEY-----`, as GitHub issues them, or `-----BEGIN PRIVATE KEY-----`)",
        ));
    }
    jsonwebtoken::EncodingKey::from_rsa_pem(pem.as_bytes()).map_err(|_| {
        invalid("it is not a valid RSA key (download a new one from the App's settings)")
    })?;
    Ok(Secret::new(pem))
}

/// A log filter `tracing` understands (`info`, `warn,gitlore=debug`, …).
fn check_log_filter(filter: String) -> Result<String, ConfigError> {
    match tracing_subscriber::EnvFilter::try_new(&filter) {
        Ok(_) => Ok(filter),
        Err(error) => Err(ConfigError::Invalid {
            name: "GITLORE_LOG",
            reason: format!(
                "`{filter}` is not a log filter ({error}); try `info` or `warn,gitlore=debug`"
            ),
        }),
    }
}

fn listen_address(listen: Option<String>, port: Option<String>) -> Result<SocketAddr, ConfigError> {
    let invalid = |name, value: &str, what: &str| ConfigError::Invalid {
        name,
        reason: format!("`{value}` is not {what}"),
    };
    let mut address: SocketAddr = match listen {
        Some(text) => text
            .trim()
            .parse()
            .map_err(|_| invalid("GITLORE_LISTEN", &text, "an address like 127.0.0.1:3000"))?,
        None => DEFAULT_LISTEN
            .parse()
            .map_err(|_| invalid("GITLORE_LISTEN", DEFAULT_LISTEN, "valid"))?,
    };
    if let Some(port) = port {
        address.set_port(
            port.trim()
                .parse()
                .map_err(|_| invalid("PORT", &port, "a port number"))?,
        );
    }
    Ok(address)
}

fn check_url(name: &'static str, url: &str) -> Result<(), ConfigError> {
    if url.starts_with("https://") || url.starts_with("http://") {
        Ok(())
    } else {
        Err(ConfigError::Invalid {
            name,
            reason: format!("`{url}` is not an http(s) URL"),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    const KEY: &str = include_str!("../tests/fixtures/test-app-key.pem");

    fn settings(vars: &[(&str, &str)], file: Option<&Path>) -> Result<Settings, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::from_sources(file, &|name| map.get(name).cloned())
    }

    #[test]
    fn the_server_example_is_a_valid_gitlore_toml_of_defaults() {
        let example =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/gitlore.server.example.toml");
        let from_example = settings(&[], Some(&example)).unwrap();
        let defaults = settings(&[], None).unwrap();
        assert_eq!(format!("{from_example:?}"), format!("{defaults:?}"));
        // Every key it shows, commented out or not, is a key of the file.
        let text = std::fs::read_to_string(&example).unwrap();
        let keys = text
            .lines()
            .map(|line| line.trim_start_matches("# "))
            .filter_map(|line| line.split_once(" = ").map(|(key, _)| key))
            .filter(|key| key.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
        for key in keys {
            let uncommented = format!("{key} = 1");
            let error = toml::from_str::<FileConfig>(&uncommented)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(!error.contains("unknown field"), "{key}: {error}");
        }
    }

    #[test]
    fn noise_rules_are_switched_off_by_name_and_an_unknown_one_is_named() {
        let s = settings(
            &[(
                "GITLORE_NOISE_RULES_OFF",
                "agreement-notice, acknowledgement",
            )],
            None,
        )
        .unwrap();
        assert_eq!(
            s.noise_rules_off.revision(),
            "-off:acknowledgement,agreement-notice"
        );
        let error = settings(&[("GITLORE_NOISE_RULES_OFF", "lgtm")], None)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("GITLORE_NOISE_RULES_OFF is invalid: `lgtm` is not a noise rule"),
            "{error}"
        );
    }

    #[test]
    fn missing_credentials_name_the_variable() {
        let s = settings(&[("GITLORE_APP_ID", "7")], None).unwrap();
        let message = s.app_credentials().unwrap_err().to_string();
        assert!(
            message.starts_with("GITLORE_PRIVATE_KEY is not set"),
            "{message}"
        );
        assert!(message.contains("gitlore setup"), "{message}");
    }

    #[test]
    fn probot_names_and_precedence() {
        let s = settings(
            &[
                ("APP_ID", "12"),
                ("PRIVATE_KEY", KEY),
                ("WEBHOOK_SECRET", "probot"),
                ("GITLORE_WEBHOOK_SECRET", "ours"),
                ("PORT", "8080"),
            ],
            None,
        )
        .unwrap();
        let creds = s.app_credentials().unwrap();
        assert_eq!((creds.app_id, creds.webhook_secret.expose()), (12, "ours"));
        assert_eq!(s.listen.port(), 8080);
        assert!(
            !format!("{s:?}").contains("ours"),
            "secrets must not appear in Debug output"
        );
    }

    #[test]
    fn file_values_and_env_override() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gitlore.toml");
        std::fs::write(
            &path,
            "app_id = 5\nwebhook_secret = \"file\"\ndata_dir = \"/tmp/x\"\n",
        )
        .unwrap();
        let s = settings(&[("GITLORE_APP_ID", "6")], Some(&path)).unwrap();
        assert_eq!(s.app_id, Some(6));
        assert_eq!(s.webhook_secret.unwrap().expose(), "file");
        assert_eq!(s.data_dir, PathBuf::from("/tmp/x"));
    }

    #[test]
    fn llm_and_embedding_settings() {
        let s = settings(&[], None).unwrap();
        assert!(s.llm.is_none() && s.embed.is_none(), "built-in by default");
        let s = settings(
            &[
                ("GITLORE_LLM_PROVIDER", "anthropic"),
                ("GITLORE_LLM_MODEL", "claude-x"),
                ("GITLORE_LLM_API_KEY", "sk-1"),
            ],
            None,
        )
        .unwrap();
        let llm = s.llm.unwrap();
        assert_eq!(
            (llm.provider, llm.base_url.as_str()),
            (Provider::Anthropic, "https://api.anthropic.com")
        );
        assert!(!format!("{:?}", llm.api_key).contains("sk-1"));
        let message = settings(&[("GITLORE_LLM_PROVIDER", "gpt")], None)
            .unwrap_err()
            .to_string();
        assert_eq!(
            message,
            "GITLORE_LLM_PROVIDER is invalid: `gpt` is neither `openai` nor `anthropic`"
        );
        let message = settings(
            &[("GITLORE_EMBED_BASE_URL", "http://localhost:8080/v1")],
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            message.starts_with("GITLORE_EMBED_MODEL is invalid"),
            "{message}"
        );
    }

    #[test]
    fn web_settings_need_both_oauth_values_and_hide_the_secret() {
        let s = settings(&[], None).unwrap();
        assert!(s.web.oauth.is_none() && s.web.public_repos_anonymous);
        let s = settings(
            &[
                ("GITLORE_OAUTH_CLIENT_ID", "Iv1.abc"),
                ("GITLORE_OAUTH_CLIENT_SECRET", "oauth-shh"),
                ("GITLORE_WEB_PUBLIC", "false"),
            ],
            None,
        )
        .unwrap();
        let oauth = s.web.oauth.clone().unwrap();
        assert_eq!(
            (oauth.client_id.as_str(), oauth.client_secret.expose()),
            ("Iv1.abc", "oauth-shh")
        );
        assert!(!s.web.public_repos_anonymous);
        assert!(!format!("{s:?}").contains("oauth-shh"));
        let message = settings(&[("GITLORE_OAUTH_CLIENT_ID", "Iv1.abc")], None)
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with("GITLORE_OAUTH_CLIENT_SECRET is invalid"),
            "{message}"
        );
    }

    #[test]
    fn llm_limits_come_from_the_file_or_the_environment() {
        let base = [
            ("GITLORE_LLM_PROVIDER", "openai"),
            ("GITLORE_LLM_MODEL", "m"),
        ];
        let llm = |vars: &[(&str, &str)], file: Option<&Path>| {
            let vars: Vec<(&str, &str)> = base.iter().chain(vars).copied().collect();
            settings(&vars, file).map(|s| s.llm.unwrap())
        };
        let defaults = llm(&[], None).unwrap();
        assert_eq!(
            (
                defaults.timeout,
                defaults.max_tokens,
                defaults.context_tokens
            ),
            (MODEL_TIMEOUT, LLM_MAX_TOKENS, LLM_CONTEXT_TOKENS)
        );
        assert_eq!(defaults.daily_tokens, Some(LLM_DAILY_TOKENS));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gitlore.toml");
        std::fs::write(
            &path,
            "llm_timeout_secs = 9\nllm_max_tokens = 500\nllm_context_tokens = 8000\nllm_daily_tokens = 70\n",
        )
        .unwrap();
        let from_file = llm(&[], Some(&path)).unwrap();
        assert_eq!(
            (
                from_file.timeout,
                from_file.max_tokens,
                from_file.context_tokens
            ),
            (Duration::from_secs(9), 500, 8000)
        );
        assert_eq!(from_file.daily_tokens, Some(70));
        let from_env = llm(&[("GITLORE_LLM_CONTEXT_TOKENS", "6000")], Some(&path)).unwrap();
        assert_eq!(
            from_env.context_tokens, 6000,
            "the environment overrides the file"
        );
        let small = llm(&[("GITLORE_LLM_CONTEXT_TOKENS", "2048")], None).unwrap();
        assert_eq!(
            small.max_tokens, 512,
            "a small context keeps a quarter for the answer"
        );
        let message = llm(
            &[
                ("GITLORE_LLM_CONTEXT_TOKENS", "4096"),
                ("GITLORE_LLM_MAX_TOKENS", "4096"),
            ],
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            message.starts_with("GITLORE_LLM_CONTEXT_TOKENS is invalid: `4096` leaves no room"),
            "{message}"
        );
        let message = llm(&[("GITLORE_LLM_CONTEXT_TOKENS", "lots")], None)
            .unwrap_err()
            .to_string();
        assert!(message.contains("not a positive number"), "{message}");
    }

    #[test]
    fn bad_values_are_one_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gitlore.toml");
        std::fs::write(&path, "app_idd = 5\n").unwrap();
        let message = settings(&[], Some(&path)).unwrap_err().to_string();
        assert!(message.contains("unknown field `app_idd`"), "{message}");
        let message = settings(&[("GITLORE_APP_ID", "abc")], None)
            .unwrap_err()
            .to_string();
        assert_eq!(message, "GITLORE_APP_ID is invalid: `abc` is not a number");
        let message = settings(&[("GITLORE_PRIVATE_KEY", "hunter2")], None)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("not a PEM private key") && !message.contains("hunter2"),
            "{message}"
        );
        let message = settings(
            &[("GITLORE_PRIVATE_KEY_PATH", "/nonexistent/key.pem")],
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(
            message.starts_with("cannot read /nonexistent/key.pem"),
            "{message}"
        );
        let message = settings(&[("GITLORE_LOG", "warn,gitlore=loud")], None)
            .unwrap_err()
            .to_string();
        assert!(message.starts_with("GITLORE_LOG is invalid"), "{message}");
    }

    #[test]
    fn a_private_key_error_names_where_the_key_came_from() {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("key.pem");
        std::fs::write(
            &key,
            "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n",
        )
        .unwrap();
        let path = key.to_str().unwrap();
        let message = settings(&[("GITLORE_PRIVATE_KEY_PATH", path)], None)
            .unwrap_err()
            .to_string();
        assert!(message.contains(path), "{message}");
        let config = dir.path().join("gitlore.toml");
        std::fs::write(&config, "private_key = \"hunter2\"\n").unwrap();
        let message = settings(&[], Some(&config)).unwrap_err().to_string();
        assert!(
            message.contains("private_key") && message.contains("gitlore.toml"),
            "{message}"
        );
        assert!(!message.contains("hunter2"), "{message}");
    }

    #[test]
    fn a_pkcs8_key_as_openssl_writes_it_signs() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/test-app-key.pkcs8.pem"
        );
        let settings = settings(
            &[
                ("GITLORE_APP_ID", "7"),
                ("GITLORE_PRIVATE_KEY_PATH", path),
                ("GITLORE_WEBHOOK_SECRET", "s"),
            ],
            None,
        )
        .unwrap();
        let credentials = settings.app_credentials().unwrap();
        let key = crate::github::auth::AppKey::new(7, &credentials.private_key).unwrap();
        assert!(
            !key.jwt(crate::domain::UnixMs(1_000_000))
                .unwrap()
                .expose()
                .is_empty()
        );
    }
}
