//! The deployment files agree with each other and with the README: each runs `serve` on the
//! credentials its operator provides (the file `gitlore setup` writes, or Fly's secrets), checks
//! `/healthz`, raises the open-files limit where it can, runs as a created unprivileged user, and
//! no credential reaches the image or the repo. Docker is not available to the tests, so each
//! recipe is also run as its platform would run it: the real binary with the recipe's command
//! (the image's entrypoint and command, or what the recipe puts in their place) and environment,
//! its container paths mapped into a temporary directory. It must answer the image's health
//! check, or, without the operator's credentials, stop with a message naming what is missing.

mod common;
mod fake_github;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::port::spare_port;
use fake_github::FakeGitHub;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn lines(path: &str) -> Vec<String> {
    read(path).lines().map(|l| l.trim().to_string()).collect()
}

const IMAGE: &str = "ghcr.io/gitlore/gitlore";
const CONFIG: &str = "/etc/gitlore/gitlore.toml";

#[test]
fn credentials_stay_out_of_the_image_and_the_repository() {
    let docker = lines(".dockerignore");
    for entry in ["target/", "gitlore.toml", "*.pem", ".env"] {
        assert!(
            docker.iter().any(|l| l == entry),
            ".dockerignore lacks {entry}"
        );
    }
    let git = lines(".gitignore");
    for entry in ["gitlore.toml", "*.pem", ".env"] {
        assert!(git.iter().any(|l| l == entry), ".gitignore lacks {entry}");
    }
}

#[test]
fn every_deployment_runs_serve_with_the_setup_file_and_checks_healthz() {
    let readme = read("README.md");
    assert!(readme.contains(IMAGE), "the README names the image");
    let dockerfile = read("deploy/Dockerfile");
    assert!(dockerfile.contains(&format!("-t {IMAGE}")));
    assert!(dockerfile.contains(&format!(r#"CMD ["serve", "--config", "{CONFIG}"]"#)));
    assert!(dockerfile.contains("useradd --system --uid 10001"));
    assert!(dockerfile.contains("USER gitlore"));
    assert!(dockerfile.contains("HEALTHCHECK") && dockerfile.contains("gitlore-healthcheck"));
    let probe = read("deploy/healthcheck.sh");
    assert!(probe.contains("GET /healthz") && probe.contains("\"200\""));

    let compose = read("deploy/docker-compose.yml");
    yaml_shape("deploy/docker-compose.yml", &compose);
    assert!(compose.contains(&format!("image: {IMAGE}:latest")));
    assert!(compose.contains(&format!(r#"command: ["serve", "--config", "{CONFIG}"]"#)));
    assert!(
        compose.contains(&format!("- ../gitlore.toml:{CONFIG}:ro")),
        "the file `gitlore setup` writes at the repository root, mounted read-only"
    );
    assert!(compose.contains("nofile: { soft: 65536, hard: 65536 }"));
    assert!(compose.contains("gitlore-healthcheck"));

    let kubernetes = read("deploy/kubernetes/gitlore.yaml");
    yaml_shape("deploy/kubernetes/gitlore.yaml", &kubernetes);
    assert!(kubernetes.contains(&format!("image: {IMAGE}:latest")));
    assert!(kubernetes.contains(&format!(r#"args: ["serve", "--config", "{CONFIG}"]"#)));
    assert!(kubernetes.contains("--from-file=gitlore.toml"));
    assert!(kubernetes.contains("mountPath: /etc/gitlore, readOnly: true"));
    assert!(
        kubernetes.contains("fsGroup: 10001") && kubernetes.contains("defaultMode: 0440"),
        "the mounted key is group-readable by the container's user"
    );
    assert_eq!(
        kubernetes.matches("path: /healthz").count(),
        2,
        "readiness and liveness"
    );

    let unit = read("deploy/gitlore.service");
    assert!(
        unit.contains("DynamicUser=yes"),
        "systemd creates the service user"
    );
    assert!(unit.contains(&format!("LoadCredential=gitlore.toml:{CONFIG}")));
    assert!(unit.contains("serve --config ${CREDENTIALS_DIRECTORY}/gitlore.toml"));
    assert!(unit.contains("LimitNOFILE=65536"));
    assert!(unit.contains("Restart=on-failure"));
}

#[test]
fn the_health_check_script_is_valid_bash_and_executable() {
    use std::os::unix::fs::PermissionsExt;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/healthcheck.sh");
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_ne!(mode & 0o111, 0, "executable");
    let syntax = std::process::Command::new("bash")
        .arg("-n")
        .arg(&path)
        .status()
        .unwrap();
    assert!(syntax.success());
}

/// How a recipe runs gitlore: the command after the image's entrypoint, the environment (the
/// image's and the recipe's own), where the operator's settings file is mounted (when the
/// recipe reads one) and the secrets the operator sets as environment variables.
#[derive(Debug)]
struct Recipe {
    name: &'static str,
    args: Vec<String>,
    env: BTreeMap<String, String>,
    settings_file: Option<String>,
    secret_vars: Vec<String>,
}

const APP_ID: &str = "4242";
const WEBHOOK_SECRET: &str = "deploy-test-secret";
/// The directory `CREDENTIALS_DIRECTORY` names in the systemd unit.
const SYSTEMD_CREDENTIALS: &str = "/run/credentials/gitlore.service";

/// The image: `ENV`, `ENTRYPOINT` and `CMD` of the Dockerfile.
struct Image {
    env: BTreeMap<String, String>,
    entrypoint: Vec<String>,
    cmd: Vec<String>,
}

fn image() -> Image {
    let dockerfile = read("deploy/Dockerfile");
    let mut env = BTreeMap::new();
    let mut entrypoint = Vec::new();
    let mut cmd = Vec::new();
    for line in dockerfile.lines() {
        if let Some(pairs) = line.strip_prefix("ENV ") {
            for pair in pairs.split_whitespace() {
                let (name, value) = pair.split_once('=').expect("ENV NAME=value");
                env.insert(name.to_string(), value.to_string());
            }
        } else if let Some(list) = line.strip_prefix("ENTRYPOINT ") {
            entrypoint = json_list(list);
        } else if let Some(list) = line.strip_prefix("CMD ") {
            cmd = json_list(list);
        }
    }
    // tini starts the binary: what follows `--` is the command line.
    let after_tini = entrypoint
        .iter()
        .position(|arg| arg == "--")
        .map_or(0, |i| i + 1);
    Image {
        env,
        entrypoint: entrypoint[after_tini..].to_vec(),
        cmd,
    }
}

fn json_list(text: &str) -> Vec<String> {
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A YAML line's `key: [...]` flow list (JSON-compatible in these files).
fn yaml_list(text: &str, key: &str) -> Vec<String> {
    let line = text
        .lines()
        .find_map(|line| line.trim().strip_prefix(&format!("{key}: ")))
        .unwrap_or_else(|| panic!("no `{key}:`"));
    json_list(line)
}

fn recipes() -> Vec<Recipe> {
    let image = image();
    let binary = |args: &[String]| -> Vec<String> {
        assert_eq!(
            args.first().map(String::as_str),
            Some("/usr/local/bin/gitlore"),
            "the image runs the binary it installs: {args:?}"
        );
        args[1..].to_vec()
    };
    let mut recipes = Vec::new();

    // docker run: the image as built, the settings file mounted (the Dockerfile's header).
    recipes.push(Recipe {
        name: "Dockerfile",
        args: binary(&[image.entrypoint.clone(), image.cmd.clone()].concat()),
        env: image.env.clone(),
        settings_file: Some(CONFIG.into()),
        secret_vars: Vec::new(),
    });

    // docker compose: `command` replaces CMD; `environment` adds to the image's.
    let compose = read("deploy/docker-compose.yml");
    let mut env = image.env.clone();
    for line in compose.lines().map(str::trim) {
        if let Some((name, value)) = line.split_once(": ")
            && name.starts_with("GITLORE_")
            && !value.starts_with("${")
        {
            env.insert(name.into(), value.into());
        }
    }
    let mount = compose
        .lines()
        .find_map(|line| line.trim().strip_prefix("- ../gitlore.toml:"))
        .expect("compose mounts the settings file");
    recipes.push(Recipe {
        name: "docker-compose.yml",
        args: binary(&[image.entrypoint.clone(), yaml_list(&compose, "command")].concat()),
        env,
        settings_file: Some(mount.trim_end_matches(":ro").into()),
        secret_vars: Vec::new(),
    });

    // Kubernetes: `args` replaces CMD; `env` adds to the image's; the secret's file is mounted.
    let kubernetes = read("deploy/kubernetes/gitlore.yaml");
    let mut env = image.env.clone();
    for line in kubernetes.lines().map(str::trim) {
        if let Some(entry) = line.strip_prefix("- { name: ")
            && let Some((name, value)) = entry.trim_end_matches(" }").split_once(", value: ")
        {
            env.insert(name.into(), value.into());
        }
    }
    let mount = kubernetes
        .lines()
        .find_map(|line| line.trim().strip_prefix("- { name: config, mountPath: "))
        .and_then(|rest| rest.split(',').next())
        .expect("the settings secret is mounted");
    recipes.push(Recipe {
        name: "kubernetes/gitlore.yaml",
        args: binary(&[image.entrypoint.clone(), yaml_list(&kubernetes, "args")].concat()),
        env,
        settings_file: Some(format!("{mount}/gitlore.toml")),
        secret_vars: Vec::new(),
    });

    // Fly.io: a process group's command replaces CMD; `[env]` adds to the image's; the
    // operator's settings are the secrets `fly secrets set` names in the header.
    let fly_text = read("deploy/fly.toml");
    let fly: toml::Table = toml::from_str(&fly_text).unwrap();
    let mut env = image.env.clone();
    for (name, value) in fly["env"].as_table().expect("[env]") {
        env.insert(name.clone(), value.as_str().unwrap().to_string());
    }
    let cmd = match fly.get("processes").and_then(|p| p.get("app")) {
        Some(command) => command
            .as_str()
            .unwrap()
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        None => image.cmd.clone(),
    };
    let secrets = fly_text
        .lines()
        .find_map(|line| line.split_once("fly secrets set ").map(|(_, rest)| rest))
        .expect("the header says which secrets to set");
    let secret_vars = secrets
        .split_whitespace()
        .filter_map(|word| word.split_once('=').map(|(name, _)| name.to_string()))
        .collect();
    recipes.push(Recipe {
        name: "fly.toml",
        args: binary(&[image.entrypoint.clone(), cmd].concat()),
        env,
        settings_file: None,
        secret_vars,
    });

    // systemd: ExecStart with the settings handed over as a credential.
    let unit = read("deploy/gitlore.service");
    let mut env = BTreeMap::new();
    for line in unit.lines() {
        if let Some(pair) = line.strip_prefix("Environment=") {
            let (name, value) = pair.split_once('=').unwrap();
            env.insert(name.into(), value.into());
        }
    }
    let exec = unit
        .lines()
        .find_map(|line| line.strip_prefix("ExecStart="))
        .unwrap()
        .replace("${CREDENTIALS_DIRECTORY}", SYSTEMD_CREDENTIALS);
    let exec: Vec<String> = exec.split_whitespace().map(str::to_string).collect();
    env.insert("CREDENTIALS_DIRECTORY".into(), SYSTEMD_CREDENTIALS.into());
    recipes.push(Recipe {
        name: "gitlore.service",
        args: binary(&exec),
        env,
        settings_file: Some(format!("{SYSTEMD_CREDENTIALS}/gitlore.toml")),
        secret_vars: Vec::new(),
    });
    recipes
}

/// A running recipe, stopped when dropped.
struct Running {
    child: Child,
    port: u16,
    stderr: PathBuf,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Recipe {
    /// Starts the recipe in `root` (its container paths mapped under it), with the operator's
    /// credentials or without them. The only changes to what the recipe sets: the port (a free
    /// one on 127.0.0.1, not 3000 on every interface) and GitHub's API (the fake, so that
    /// nothing leaves the machine).
    fn start(&self, root: &Path, gh: &FakeGitHub, with_credentials: bool) -> Running {
        let local = |value: &str| -> String {
            if value.starts_with('/') {
                root.join(value.trim_start_matches('/'))
                    .to_string_lossy()
                    .into_owned()
            } else {
                value.to_string()
            }
        };
        let key = fake_github::test_private_key_pem();
        if with_credentials && let Some(file) = &self.settings_file {
            // As `gitlore setup` writes it.
            let path = PathBuf::from(local(file));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(
                &path,
                format!(
                    "app_id = {APP_ID}\napp_slug = \"gitlore\"\ngithub_api_url = \"{}\"\nwebhook_secret = \"{WEBHOOK_SECRET}\"\nprivate_key = \"\"\"\n{key}\"\"\"\n",
                    gh.base_url()
                ),
            )
            .unwrap();
        }
        let port = spare_port();
        let mut command = Command::new(env!("CARGO_BIN_EXE_gitlore"));
        command
            .args(self.args.iter().map(|arg| local(arg)))
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .current_dir(root);
        for (name, value) in &self.env {
            let value = if name == "GITLORE_LISTEN" {
                format!("127.0.0.1:{port}")
            } else {
                local(value)
            };
            command.env(name, value);
        }
        if !self.env.contains_key("GITLORE_LISTEN") {
            command.env("GITLORE_LISTEN", format!("127.0.0.1:{port}"));
        }
        if let Some(data) = self.env.get("GITLORE_DATA_DIR") {
            std::fs::create_dir_all(local(data)).unwrap();
        }
        command.env("GITLORE_GITHUB_API_URL", gh.base_url());
        if with_credentials {
            for name in &self.secret_vars {
                let value = match name.as_str() {
                    "GITLORE_APP_ID" => APP_ID.to_string(),
                    "GITLORE_WEBHOOK_SECRET" => WEBHOOK_SECRET.to_string(),
                    "GITLORE_PRIVATE_KEY" => key.clone(),
                    other => panic!("{}: a secret the test does not know: {other}", self.name),
                };
                command.env(name, value);
            }
        }
        let stderr = root.join("stderr.log");
        let child = command
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        Running {
            child,
            port,
            stderr,
        }
    }
}

impl Running {
    /// Whether the image's health check passes before the process ends or 30 s pass.
    async fn healthy(&mut self) -> Result<(), String> {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/healthcheck.sh");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Err(format!("exited ({status}): {}", self.log()));
            }
            let check = Command::new("bash")
                .arg(&script)
                .env("GITLORE_HEALTH_PORT", self.port.to_string())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            if check.success() {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!("no healthy answer in 30 s: {}", self.log()));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// What the process printed when it stopped by itself within 30 s.
    async fn failure(&mut self) -> Option<String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return (!status.success()).then(|| self.log());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        None
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_recipe_starts_with_the_credentials_its_operator_provides() {
    let gh = FakeGitHub::start().await;
    gh.with_test_app(APP_ID.parse().unwrap(), "gitlore");
    let recipes = recipes();
    assert_eq!(recipes.len(), 5);
    let mut failures = Vec::new();
    for recipe in &recipes {
        let root = tempfile::tempdir().unwrap();
        let mut running = recipe.start(root.path(), &gh, true);
        if let Err(problem) = running.healthy().await {
            failures.push(format!("{} ({:?}): {problem}", recipe.name, recipe.args));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_its_credentials_each_recipe_stops_and_names_what_is_missing() {
    let gh = FakeGitHub::start().await;
    for recipe in recipes() {
        let root = tempfile::tempdir().unwrap();
        let mut running = recipe.start(root.path(), &gh, false);
        let log = running
            .failure()
            .await
            .unwrap_or_else(|| panic!("{} ran without credentials", recipe.name));
        let expected = match &recipe.settings_file {
            Some(file) => format!("cannot read {}", root.path().join(&file[1..]).display()),
            None => "GITLORE_APP_ID is not set".to_string(),
        };
        assert!(log.contains(&expected), "{}: {log}", recipe.name);
    }
}

/// YAML by shape: no tabs, indentation in steps of two, brackets and braces balanced per line.
fn yaml_shape(name: &str, text: &str) {
    for (number, line) in text.lines().enumerate() {
        let at = format!("{name}:{}", number + 1);
        assert!(!line.contains('\t'), "{at}: tab");
        let indent = line.len() - line.trim_start().len();
        assert_eq!(indent % 2, 0, "{at}: odd indentation");
        if line.trim_start().starts_with('#') {
            continue;
        }
        for (open, close) in [('[', ']'), ('{', '}')] {
            assert_eq!(
                line.matches(open).count(),
                line.matches(close).count(),
                "{at}: unbalanced {open}{close}"
            );
        }
    }
}
