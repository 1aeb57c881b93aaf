//! The side-by-side report, and where the CPU went while each test ran.

use std::time::Instant;

use super::load::Target;
use super::{EVENT, Plan, ServerFigures};

/// Linux reports process CPU time in clock ticks of USER_HZ, 100 on every mainstream build.
const CLOCK_TICKS_PER_SEC: f64 = 100.0;
/// Other programs' CPU use, in cores, above which the report warns that its figures are skewed:
/// a tenth of the spec's 2 cores (the kernel's own threads, measured here, stay under 0.05).
const OTHER_LOAD_WARNING_CORES: f64 = 0.2;

/// CPU time counters at one instant, in clock ticks; `None` where /proc is not there.
pub(super) struct CpuSample {
    at: Instant,
    answered: u64,
    server: Option<u64>,
    loadgen: Option<u64>,
    /// All CPUs' busy time, whoever used it.
    machine: Option<u64>,
}

impl CpuSample {
    pub(super) fn take(server_pid: &str, target: &Target) -> Self {
        Self {
            at: Instant::now(),
            answered: target.answered(),
            server: process_cpu_ticks(server_pid),
            loadgen: process_cpu_ticks("self"),
            machine: machine_busy_ticks(),
        }
    }
}

/// Where the CPU went during one test (warm-up included: CPU time cannot be split at an instant).
pub(super) struct CpuUse {
    server_us_per_request: Option<f64>,
    loadgen_us_per_request: Option<f64>,
    /// Cores kept busy by everything else on the machine (other programs, and kernel work that
    /// no process is charged for): taken from the server and the load generator alike, so a
    /// high figure makes the test's figures unreliable.
    other_cores: Option<f64>,
}

impl CpuUse {
    pub(super) fn between(from: &CpuSample, to: &CpuSample) -> Self {
        let ticks = |a: Option<u64>, b: Option<u64>| Some(b?.checked_sub(a?)? as f64);
        let answered = to.answered.saturating_sub(from.answered).max(1) as f64;
        let per_request = |t: f64| t / CLOCK_TICKS_PER_SEC * 1e6 / answered;
        let server = ticks(from.server, to.server);
        let loadgen = ticks(from.loadgen, to.loadgen);
        let seconds = to.at.saturating_duration_since(from.at).as_secs_f64();
        let other = ticks(from.machine, to.machine)
            .zip(server.zip(loadgen))
            .filter(|_| seconds > 0.0)
            .map(|(all, (s, l))| (all - s - l).max(0.0) / CLOCK_TICKS_PER_SEC / seconds);
        Self {
            server_us_per_request: server.map(per_request),
            loadgen_us_per_request: loadgen.map(per_request),
            other_cores: other,
        }
    }
}

pub(super) fn print_report(
    plan: &Plan,
    payload_len: usize,
    gitlore: &ServerFigures,
    probot: &Result<ServerFigures, String>,
    stored: &anyhow::Result<u64>,
) {
    let cell = |f: &dyn Fn(&ServerFigures) -> String| match probot {
        Ok(p) => f(p),
        Err(_) => "-".to_owned(),
    };
    let row = |label: &str, f: &dyn Fn(&ServerFigures) -> String| {
        println!("{label:<34} {:>12} {:>12}", f(gitlore), cell(f));
    };
    let us = |v: Option<f64>| v.map_or("?".to_owned(), |v| format!("{v:.0}"));
    let cores = |v: Option<f64>| v.map_or("?".to_owned(), |v| format!("{v:.2}"));
    println!();
    println!(
        "webhook ingress (behaviour §9): {EVENT} of {payload_len} bytes, {} connections, {} s warm-up, {} s per test",
        plan.connections,
        plan.warmup.as_secs(),
        plan.duration.as_secs()
    );
    println!("{:<34} {:>12} {:>12}", "", "gitlore", "probot");
    row("peak (closed loop) req/s", &|s| {
        format!("{:.0}", s.peak.rate)
    });
    row("  p50 ms", &|s| format!("{:.2}", s.peak.p50_ms));
    row("  p99 ms", &|s| format!("{:.2}", s.peak.p99_ms));
    row("  non-2xx / failed", &|s| {
        format!("{} / {}", s.peak.rejected, s.peak.failed)
    });
    row("  server CPU µs per request", &|s| {
        us(s.peak_cpu.server_us_per_request)
    });
    row("  load-generator CPU µs per request", &|s| {
        us(s.peak_cpu.loadgen_us_per_request)
    });
    row("  other programs, cores busy", &|s| {
        cores(s.peak_cpu.other_cores)
    });
    row("half peak (open loop) offered/s", &|s| {
        format!("{:.0}", s.peak.rate / 2.0)
    });
    row("  answered 2xx/s", &|s| format!("{:.0}", s.half_peak.rate));
    row("  p50 ms", &|s| format!("{:.2}", s.half_peak.p50_ms));
    row("  p99 ms", &|s| format!("{:.2}", s.half_peak.p99_ms));
    row("  non-2xx / failed / shed", &|s| {
        format!(
            "{} / {} / {}",
            s.half_peak.rejected, s.half_peak.failed, s.half_peak.shed
        )
    });
    row("  server CPU µs per request", &|s| {
        us(s.half_peak_cpu.server_us_per_request)
    });
    row("  load-generator CPU µs per request", &|s| {
        us(s.half_peak_cpu.loadgen_us_per_request)
    });
    row("  other programs, cores busy", &|s| {
        cores(s.half_peak_cpu.other_cores)
    });
    for (name, figures) in [("gitlore", Some(gitlore)), ("probot", probot.as_ref().ok())] {
        let Some(figures) = figures else { continue };
        let problems = [
            &figures.peak.first_problem,
            &figures.half_peak.first_problem,
        ];
        for problem in problems.into_iter().flatten() {
            println!("{name}: first problem: {problem}");
        }
    }
    for (name, figures) in [("gitlore", Some(gitlore)), ("probot", probot.as_ref().ok())] {
        let Some(figures) = figures else { continue };
        let busiest = [&figures.peak_cpu, &figures.half_peak_cpu]
            .iter()
            .filter_map(|cpu| cpu.other_cores)
            .fold(0.0, f64::max);
        if busiest > OTHER_LOAD_WARNING_CORES {
            println!(
                "warning: other programs kept {busiest:.2} cores busy during {name}'s tests: \
                 its figures are unreliable, rerun on a quiet machine"
            );
        }
    }
    let verdict = |pass: bool| if pass { "PASS" } else { "FAIL" };
    match probot {
        Ok(p) => {
            let ratio = gitlore.peak.rate / p.peak.rate;
            println!(
                "ratio gitlore/probot peak req/s: {ratio:.2}x (target >= 3x: {})",
                verdict(ratio >= 3.0)
            );
        }
        Err(why) => println!("ratio gitlore/probot: n/a, probot skipped: {why}"),
    }
    println!(
        "gitlore p99 at half peak: {:.2} ms (target < 5 ms: {})",
        gitlore.half_peak.p99_ms,
        verdict(gitlore.half_peak.p99_ms < 5.0)
    );
    match stored {
        Ok(n) if *n == gitlore.answered_2xx => {
            println!("durability: {n} deliveries stored = {n} 2xx answers: OK");
        }
        Ok(n) if *n > gitlore.answered_2xx => println!(
            "durability: {n} deliveries stored, {} 2xx answers: OK (the extra ones were stored but their answer was lost or not 2xx)",
            gitlore.answered_2xx
        ),
        Ok(n) => println!(
            "durability: {n} deliveries stored < {} 2xx answers: FAIL",
            gitlore.answered_2xx
        ),
        Err(e) => println!("durability: could not count: {e:#}"),
    }
}

/// Busy time of all CPUs (everything but idle and iowait) in clock ticks; Linux only.
fn machine_busy_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let fields: Vec<u64> = stat
        .lines()
        .next()?
        .strip_prefix("cpu ")?
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    // user nice system idle iowait irq softirq steal [guest guest_nice, already in user/nice]
    let total: u64 = fields.iter().take(8).sum();
    Some(total - fields.get(3)? - fields.get(4)?)
}

/// Total CPU time (user + system, all threads) of `/proc/<pid>` in clock ticks; Linux only.
fn process_cpu_ticks(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the parenthesized command name start at field 3 (state); utime and stime
    // are fields 14 and 15.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}
