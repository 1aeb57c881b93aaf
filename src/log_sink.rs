//! Where logs go: standard error, through a writer that never fails. A log line that cannot be
//! written (stderr on a full disk, a closed pipe, `/dev/full`) is dropped; the thread that logged
//! carries on. (`tracing-subscriber` would otherwise report the failure with `eprintln!`, which
//! panics when stderr cannot be written: the logging thread would die.)

use std::io::{self, Write};

use tracing_subscriber::fmt::MakeWriter;

/// Makes [`LossyStderr`] writers for the log subscriber.
#[derive(Debug, Clone, Copy, Default)]
pub struct StderrSink;

impl<'a> MakeWriter<'a> for StderrSink {
    type Writer = LossyStderr;

    fn make_writer(&'a self) -> LossyStderr {
        LossyStderr(io::stderr())
    }
}

/// Standard error, losing what cannot be written.
#[derive(Debug)]
pub struct LossyStderr(io::Stderr);

impl Write for LossyStderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // A failed or partial write loses (the rest of) this line, nothing else.
        let _ = self.0.write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let _ = self.0.flush();
        Ok(())
    }
}
