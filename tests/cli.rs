//! The `gitlore` binary as an operator uses it: clear errors, replay, deliveries, clean shutdown.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn gitlore(data_dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gitlore"))
        .args(args)
        .env_clear()
        .env("GITLORE_DATA_DIR", data_dir)
        .env("GITLORE_LOG", "warn")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn serve_without_credentials_says_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let out = gitlore(dir.path(), &["serve"]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert_eq!(
        stderr.lines().count(),
        1,
        "one sentence, no backtrace: {stderr}"
    );
    assert!(
        stderr.starts_with("error: GITLORE_APP_ID is not set"),
        "{stderr}"
    );
    assert!(stderr.contains("gitlore setup"), "{stderr}");
}

#[test]
fn a_broken_config_file_is_one_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("gitlore.toml");
    std::fs::write(&config, "listen = 3000\n").unwrap();
    let out = gitlore(dir.path(), &["--config", config.to_str().unwrap(), "serve"]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("is not a valid gitlore.toml") && stderr.contains("listen"),
        "{stderr}"
    );
}

#[test]
fn replay_ingests_the_fixtures_once() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/webhooks");
    let first = gitlore(dir.path(), &["replay", fixtures.to_str().unwrap()]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let stdout = text(&first.stdout);
    let files = std::fs::read_dir(&fixtures).unwrap().count();
    assert!(
        stdout.contains(&format!("replayed {files} files: {files} new deliveries")),
        "{stdout}"
    );
    assert!(stdout.contains(" 0 failed"), "{stdout}");
    let again = text(&gitlore(dir.path(), &["replay", fixtures.to_str().unwrap()]).stdout);
    assert!(
        again.contains(&format!("0 new deliveries, {files} seen before")),
        "{again}"
    );

    let listed = text(&gitlore(dir.path(), &["deliveries"]).stdout);
    assert!(listed.starts_with("deliveries: 0 pending,"), "{listed}");
}

#[test]
fn replay_of_a_file_without_an_event_name_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("My Payload.json");
    std::fs::write(&file, "{}").unwrap();
    let out = gitlore(dir.path(), &["replay", file.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("Cannot tell the event of"),
        "{}",
        text(&out.stderr)
    );
    std::fs::write(dir.path().join("My Payload.json.event"), "ping\n").unwrap();
    let out = gitlore(dir.path(), &["replay", file.to_str().unwrap()]);
    assert!(
        text(&out.stdout).contains("1 applied"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn sigterm_stops_serve_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gitlore"))
        .arg("serve")
        .env("GITLORE_APP_ID", "1")
        .env(
            "GITLORE_PRIVATE_KEY_PATH",
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/test-app-key.pem"),
        )
        .env("GITLORE_WEBHOOK_SECRET", "s")
        .env("GITLORE_LISTEN", format!("127.0.0.1:{port}"))
        .env("GITLORE_DATA_DIR", dir.path())
        .env("GITLORE_LOG", "warn")
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(Instant::now() < deadline, "serve did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_command_the_shortened_issue_points_to_exists() {
    let notice = gitlore::render::wording::shortening_notice(3, 1, 2, "acme/widgets", None);
    let command = notice
        .split('`')
        .find(|part| part.starts_with("gitlore "))
        .unwrap_or_else(|| panic!("no command in: {notice}"));
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<&str> = command.split(' ').skip(1).collect();
    args.push("--help");
    let out = gitlore(dir.path(), &args);
    assert!(out.status.success(), "{command}: {}", text(&out.stderr));
}

#[test]
fn a_replay_with_failed_deliveries_and_a_retry_of_an_unknown_id_exit_non_zero() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("issue_comment.broken.json");
    std::fs::write(&file, "{not json").unwrap();
    let out = gitlore(dir.path(), &["replay", file.to_str().unwrap()]);
    assert!(!out.status.success(), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    let last = stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("error: 1 delivery failed"), "{stderr}");

    let out = gitlore(dir.path(), &["deliveries", "retry", "no-such-delivery"]);
    assert!(!out.status.success(), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no-such-delivery"), "{stderr}");
}

#[test]
fn an_invalid_log_filter_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gitlore"))
        .args(["deliveries"])
        .env_clear()
        .env("GITLORE_DATA_DIR", dir.path())
        .env("GITLORE_LOG", "warn,gitlore=loud")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("GITLORE_LOG is invalid"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn serve_help_lists_the_environment_variables() {
    let dir = tempfile::tempdir().unwrap();
    let out = gitlore(dir.path(), &["serve", "--help"]);
    let help = text(&out.stdout);
    for name in [
        "GITLORE_APP_ID",
        "GITLORE_PRIVATE_KEY",
        "GITLORE_PRIVATE_KEY_PATH",
        "GITLORE_WEBHOOK_SECRET",
        "GITLORE_DATA_DIR",
        "GITLORE_LISTEN",
        "GITLORE_LOG",
        "GITLORE_LLM_PROVIDER",
        "GITLORE_LLM_TIMEOUT_SECS",
        "GITLORE_LLM_MAX_TOKENS",
        "GITLORE_LLM_CONTEXT_TOKENS",
        "GITLORE_LLM_DAILY_TOKENS",
    ] {
        assert!(help.contains(name), "{name} missing from: {help}");
    }
}
