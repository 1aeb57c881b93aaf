//! Child servers and scratch space that clean up after themselves, whatever happens.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::Context;

/// Lines of a child's log shown when it fails.
const LOG_TAIL_LINES: usize = 30;

/// A server child process, killed and reaped when dropped, whatever happened.
pub(super) struct ChildGuard {
    pub(super) name: &'static str,
    pub(super) child: Child,
    log: PathBuf,
}

impl ChildGuard {
    pub(super) fn spawn(
        name: &'static str,
        mut cmd: Command,
        log: PathBuf,
    ) -> anyhow::Result<Self> {
        let out = File::create(&log)?;
        let err = out.try_clone()?;
        let child = cmd
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .with_context(|| format!("starting {name} ({:?})", cmd.get_program()))?;
        Ok(Self { name, child, log })
    }

    pub(super) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills (SIGKILL: nothing it has not committed may count) and reaps; idempotent.
    pub(super) fn stop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    pub(super) fn log_tail(&self) -> String {
        tail(&self.log)
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        self.stop();
    }
}

pub(super) fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(LOG_TAIL_LINES)..].join("\n")
}

/// A directory removed with everything in it when dropped.
pub(super) struct TempDir(PathBuf);

impl TempDir {
    pub(super) fn create(nonce: u32) -> anyhow::Result<Self> {
        let path =
            std::env::temp_dir().join(format!("gitlore-bench-{}-{nonce:08x}", std::process::id()));
        std::fs::create_dir(&path).with_context(|| format!("creating {}", path.display()))?;
        Ok(Self(path))
    }

    pub(super) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
