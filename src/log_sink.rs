//! Where logs go: standard error, through a queue of bounded size that one writer thread empties,
//! so that logging never fails and never blocks the thread that logs.
//!
//! A line that cannot be written (stderr on a full disk, a closed pipe, `/dev/full`) is lost. A
//! line logged while the queue is full — stderr is a pipe nobody reads, so the writer thread is
//! stuck in `write` — is dropped and counted; once stderr takes lines again, a notice says how many
//! were dropped. (`tracing-subscriber` writing to stderr itself would block every thread that logs
//! on a full pipe, and would report a failed write with `eprintln!`, which panics.)

use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use tracing_subscriber::fmt::MakeWriter;

/// Bytes of log lines the queue holds while the writer is behind (the line being written
/// included): a few thousand lines.
pub const QUEUE_BYTES: u64 = 512 * 1024;

/// The log sink: cheap to clone, every clone feeds the same queue.
#[derive(Debug, Clone)]
pub struct StderrSink {
    queue: Sender<Vec<u8>>,
    capacity: u64,
    counts: Arc<Counts>,
}

/// What went through the queue.
#[derive(Debug, Default)]
struct Counts {
    /// Bytes queued and not yet written (or lost).
    pending: AtomicU64,
    /// Lines dropped since the last notice.
    dropped: AtomicU64,
    /// Lines dropped in all.
    dropped_total: AtomicU64,
}

impl StderrSink {
    /// Starts the writer thread for standard error; `json` formats the dropped-lines notice as a
    /// JSON log line.
    pub fn start(json: bool) -> StderrSink {
        StderrSink::to(io::stderr(), QUEUE_BYTES, json)
    }

    /// A sink writing to `output` with room for `capacity` bytes of lines. Without a writer
    /// thread (the system refused one), every line is dropped.
    pub fn to(output: impl Write + Send + 'static, capacity: u64, json: bool) -> StderrSink {
        let (queue, lines) = mpsc::channel();
        let counts = Arc::new(Counts::default());
        let shared = counts.clone();
        let _ = std::thread::Builder::new()
            .name("log-writer".into())
            .spawn(move || write_out(lines, output, &shared, json));
        StderrSink {
            queue,
            capacity,
            counts,
        }
    }

    /// Queues one line, or drops it when the queue has no room for it.
    pub fn line(&self, text: &[u8]) {
        let size = u64::try_from(text.len()).unwrap_or(u64::MAX);
        let capacity = self.capacity;
        let room = self
            .counts
            .pending
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |pending| {
                pending.checked_add(size).filter(|total| *total <= capacity)
            })
            .is_ok();
        if room && self.queue.send(text.to_vec()).is_ok() {
            return;
        }
        if room {
            self.counts.pending.fetch_sub(size, Ordering::SeqCst);
        }
        self.counts.dropped.fetch_add(1, Ordering::SeqCst);
        self.counts.dropped_total.fetch_add(1, Ordering::SeqCst);
    }

    /// Lines dropped so far because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.counts.dropped_total.load(Ordering::SeqCst)
    }

    /// Waits until the queued lines are written, for at most `within`; true if they were.
    pub fn flush(&self, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        while self.counts.pending.load(Ordering::SeqCst) > 0 {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        true
    }
}

/// The writer thread: writes each line, first saying how many were dropped since the last line.
fn write_out(lines: Receiver<Vec<u8>>, mut output: impl Write, counts: &Counts, json: bool) {
    for line in lines {
        let dropped = counts.dropped.swap(0, Ordering::SeqCst);
        if dropped > 0 {
            let _ = output.write_all(dropped_notice(dropped, json).as_bytes());
        }
        // A failed or partial write loses (the rest of) this line, nothing else.
        let _ = output.write_all(&line);
        let _ = output.flush();
        let size = u64::try_from(line.len()).unwrap_or(u64::MAX);
        counts.pending.fetch_sub(size, Ordering::SeqCst);
    }
}

/// The line that reports dropped lines, in the log's format.
fn dropped_notice(dropped: u64, json: bool) -> String {
    const MESSAGE: &str = "log lines dropped: standard error was not taking them";
    if json {
        let line = serde_json::json!({
            "level": "WARN",
            "fields": { "message": MESSAGE, "dropped": dropped },
            "target": module_path!(),
        });
        format!("{line}\n")
    } else {
        format!(" WARN {}: {MESSAGE} dropped={dropped}\n", module_path!())
    }
}

impl<'a> MakeWriter<'a> for StderrSink {
    type Writer = QueuedLine<'a>;

    fn make_writer(&'a self) -> QueuedLine<'a> {
        QueuedLine(self)
    }
}

/// One log event's writer: each write is queued as one line (the formatter writes an event whole).
#[derive(Debug)]
pub struct QueuedLine<'a>(&'a StderrSink);

impl Write for QueuedLine<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.line(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// An output that blocks every write until released, like a pipe nobody reads.
    #[derive(Clone, Default)]
    struct StuckPipe {
        released: Arc<(Mutex<bool>, std::sync::Condvar)>,
        written: Arc<Mutex<Vec<u8>>>,
    }

    impl StuckPipe {
        fn release(&self) {
            let (released, wake) = &*self.released;
            *released.lock().unwrap() = true;
            wake.notify_all();
        }

        fn text(&self) -> String {
            String::from_utf8(self.written.lock().unwrap().clone()).unwrap()
        }
    }

    impl Write for StuckPipe {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let (released, wake) = &*self.released;
            let _open = wake
                .wait_while(released.lock().unwrap(), |released| !*released)
                .unwrap();
            self.written.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_stuck_output_never_blocks_the_logging_thread_and_dropped_lines_are_counted() {
        let pipe = StuckPipe::default();
        // Room for about ten lines.
        let sink = StderrSink::to(pipe.clone(), 80, false);
        let logger = std::thread::spawn({
            let sink = sink.clone();
            move || {
                for n in 0..100 {
                    sink.make_writer()
                        .write_all(format!("line {n}\n").as_bytes())
                        .unwrap();
                }
            }
        });
        let start = Instant::now();
        while !logger.is_finished() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the logging thread is blocked"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(sink.dropped() >= 88, "dropped {}", sink.dropped());
        assert!(
            !sink.flush(Duration::from_millis(50)),
            "nothing written yet"
        );
        pipe.release();
        assert!(sink.flush(Duration::from_secs(10)));
        sink.make_writer().write_all(b"after\n").unwrap();
        assert!(sink.flush(Duration::from_secs(10)));
        let text = pipe.text();
        let written = text.lines().filter(|l| l.starts_with("line ")).count();
        assert_eq!(
            u64::try_from(written).unwrap() + sink.dropped(),
            100,
            "{text}"
        );
        let noticed: u64 = text
            .lines()
            .filter_map(|l| l.strip_prefix(" WARN gitlore::log_sink: log lines dropped: standard error was not taking them dropped="))
            .map(|n| n.parse::<u64>().unwrap())
            .sum();
        assert_eq!(noticed, sink.dropped(), "{text}");
        assert!(text.ends_with("\nafter\n"), "{text}");
    }

    /// An output whose every write fails like `/dev/full`.
    struct Full;

    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from_raw_os_error(28))
        }

        fn flush(&mut self) -> io::Result<()> {
            Err(io::Error::from_raw_os_error(28))
        }
    }

    #[test]
    fn a_failing_output_loses_lines_and_nothing_else() {
        let sink = StderrSink::to(Full, 80, true);
        for n in 0..5 {
            sink.make_writer()
                .write_all(format!("line {n}\n").as_bytes())
                .unwrap();
        }
        assert!(sink.flush(Duration::from_secs(10)));
        assert_eq!(sink.dropped(), 0);
    }

    #[test]
    fn the_dropped_notice_is_a_json_line_in_json_mode() {
        let line: serde_json::Value =
            serde_json::from_str(dropped_notice(3, true).trim_end()).unwrap();
        assert_eq!(line["fields"]["dropped"], 3);
        assert_eq!(line["level"], "WARN");
    }
}
