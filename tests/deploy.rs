//! The deployment files agree with each other and with the README: each runs `serve --config`
//! on the file `gitlore setup` writes, checks `/healthz`, raises the open-files limit where it
//! can, runs as a created unprivileged user, and no credential reaches the image or the repo.
//! (Docker is not available to the tests: these are structural checks, YAML by indentation.)

use std::path::Path;

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
