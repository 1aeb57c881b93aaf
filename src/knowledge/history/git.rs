//! Running the `git` command line: a clean environment (no prompts, no tracing, no lazy fetches),
//! a time limit, and errors that quote git's own message.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// How often a running git is checked against its time limit.
const POLL: Duration = Duration::from_millis(5);

/// Settings every git we run gets, whatever the user's configuration says: log output that the
/// parser understands, and no credential helper that could be asked for (or store) a secret.
const FORCED_CONFIG: &[(&str, &str)] = &[
    ("log.showSignature", "false"),
    ("core.quotePath", "false"),
    ("credential.helper", ""),
];

/// Environment variables that would make git print what it sends (headers included).
const TRACE_VARIABLES: &[&str] = &[
    "GIT_TRACE",
    "GIT_TRACE_CURL",
    "GIT_TRACE_PACKET",
    "GIT_TRACE2",
    "GIT_TRACE2_EVENT",
    "GIT_TRACE2_PERF",
    "GIT_CURL_VERBOSE",
];

/// One git invocation being prepared.
pub(crate) struct Git {
    command: Command,
    /// Configuration passed through `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`.
    config: Vec<(String, String)>,
    timeout: Duration,
    stdin: Option<Vec<u8>>,
    /// What to strip from error messages (the secret header value, if any).
    redact: Vec<String>,
}

impl Git {
    /// `git` run in `dir` (a repository, or where a clone goes), with a time limit.
    pub(crate) fn new(dir: &Path, timeout: Duration) -> Git {
        let mut command = Command::new("git");
        command
            .current_dir(dir)
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_NO_LAZY_FETCH", "1")
            .env("GCM_INTERACTIVE", "never")
            .env("LC_ALL", "C");
        for variable in TRACE_VARIABLES {
            command.env_remove(variable);
        }
        Git {
            command,
            config: FORCED_CONFIG
                .iter()
                .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
                .collect(),
            timeout,
            stdin: None,
            redact: Vec::new(),
        }
    }

    /// Adds an HTTP header to every request git makes, through the environment (never argv, the
    /// URL or a config file), and keeps its value out of error messages.
    pub(crate) fn http_header(mut self, header: &str, secret_part: &str) -> Git {
        self.config
            .push(("http.extraHeader".to_owned(), header.to_owned()));
        self.redact.push(secret_part.to_owned());
        self
    }

    /// Keeps `secret` out of error messages.
    pub(crate) fn redacting(mut self, secret: &str) -> Git {
        self.redact.push(secret.to_owned());
        self
    }

    /// Appends arguments.
    pub(crate) fn args<I, S>(mut self, args: I) -> Git
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.command.args(args);
        self
    }

    /// Bytes written to git's standard input.
    pub(crate) fn stdin(mut self, input: Vec<u8>) -> Git {
        self.stdin = Some(input);
        self
    }

    /// Runs git and returns its standard output; a failure or a timeout is an error carrying
    /// git's message.
    pub(crate) fn output(self) -> Result<Vec<u8>> {
        let (status, stdout, stderr) = self.run()?;
        match status {
            Some(0) => Ok(stdout),
            _ => bail!("{}", stderr),
        }
    }

    /// Runs git and returns its standard output with, when it failed, git's message: what a
    /// failing `git log` printed before it stopped is kept. A timeout or a failure to start is
    /// an error.
    pub(crate) fn output_even_if_failed(self) -> Result<(Vec<u8>, Option<String>)> {
        let (status, stdout, stderr) = self.run()?;
        Ok((stdout, (status != Some(0)).then_some(stderr)))
    }

    /// Runs git and returns its standard output, or `None` when it exits with 1 (git's "no" of
    /// `rev-parse --verify --quiet`); any other failure is an error.
    pub(crate) fn output_or_none(self) -> Result<Option<Vec<u8>>> {
        let (status, stdout, stderr) = self.run()?;
        match status {
            Some(0) => Ok(Some(stdout)),
            Some(1) => Ok(None),
            _ => bail!("{}", stderr),
        }
    }

    /// Runs git and returns whether it exited with 0 (for yes/no questions like
    /// `merge-base --is-ancestor`); a timeout or a failure to start is an error.
    pub(crate) fn succeeds(self) -> Result<bool> {
        Ok(self.run()?.0 == Some(0))
    }

    /// Exit code (None when killed by a signal), stdout, and stderr made safe to show.
    fn run(mut self) -> Result<(Option<i32>, Vec<u8>, String)> {
        let what = describe(&self.command);
        self.command
            .env("GIT_CONFIG_COUNT", self.config.len().to_string());
        for (index, (key, value)) in self.config.iter().enumerate() {
            self.command
                .env(format!("GIT_CONFIG_KEY_{index}"), key)
                .env(format!("GIT_CONFIG_VALUE_{index}"), value);
        }
        let mut child = self
            .command
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("Cannot run {what}: is git installed?"))?;
        let writer = self.stdin.take().and_then(|input| {
            let mut pipe = child.stdin.take()?;
            Some(thread::spawn(move || {
                // git may exit before reading everything (an error); that is reported by its
                // exit status, not here.
                let _ = pipe.write_all(&input);
            }))
        });
        let stdout = read_in_background(child.stdout.take());
        let stderr = read_in_background(child.stderr.take());
        let status = wait_with_timeout(&mut child, self.timeout)
            .with_context(|| format!("{what} did not finish"))?;
        if let Some(writer) = writer {
            let _ = writer.join();
        }
        let stdout = stdout.join().unwrap_or_default();
        let mut message = String::from_utf8_lossy(&stderr.join().unwrap_or_default())
            .trim()
            .to_owned();
        for secret in self.redact.iter().filter(|secret| !secret.is_empty()) {
            message = message.replace(secret.as_str(), "[redacted]");
        }
        if status.code() != Some(0) {
            message = format!("{what} failed: {message}");
        }
        Ok((status.code(), stdout, message))
    }
}

/// `git <subcommand>` for messages: never the other arguments, which may hold URLs.
fn describe(command: &Command) -> String {
    let subcommand = command
        .get_args()
        .map(|arg| arg.to_string_lossy())
        .find(|arg| !arg.starts_with('-'))
        .unwrap_or_default();
    format!("git {subcommand}")
}

fn read_in_background(pipe: Option<impl Read + Send + 'static>) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buffer = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut buffer);
        }
        buffer
    })
}

fn wait_with_timeout(child: &mut Child, timeout: Duration) -> Result<std::process::ExitStatus> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            bail!("timed out after {} s and was stopped", timeout.as_secs());
        }
        thread::sleep(POLL);
    }
}
