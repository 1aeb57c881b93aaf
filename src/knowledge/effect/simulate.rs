//! Simulated review streams with a known effect, to check the estimator (not the product): a
//! lesson raised in a share of the pull requests before publication and in that share times the
//! effect since, beside unpublished themes, both under the same drift in review habits.

use crate::domain::effect::{MIN_PULL_REQUESTS, Verdict, Window};

use super::ratio::{rate_ratio, ratio_of_ratios};

/// A deterministic random stream (SplitMix64): the same seed gives the same runs.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// One simulated repository.
#[derive(Debug, Clone, Copy)]
pub struct Stream {
    /// Pull requests touching the lesson's paths in each window.
    pub pull_requests: u64,
    /// Share of them that raise the lesson before publication.
    pub raise_share: f64,
    /// The lesson's effect: its share since is `raise_share × effect × drift`.
    pub effect: f64,
    /// Every theme's change in habits since (1: none).
    pub drift: f64,
    /// Reviewed pull requests in each window, and the unpublished themes' share of them.
    pub control_pull_requests: u64,
    pub control_share: f64,
}

/// What one simulated run estimated.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    /// The lesson's own rate ratio covered `effect × drift`.
    pub ratio_covered: bool,
    /// The ratio against the control covered `effect`.
    pub relative_covered: bool,
    pub verdict: Verdict,
    pub relative_verdict: Verdict,
}

fn raised(rng: &mut Rng, pull_requests: u64, share: f64) -> u64 {
    (0..pull_requests)
        .filter(|_| rng.unit() < share.min(1.0))
        .count() as u64
}

fn window(raised: u64, pull_requests: u64) -> Window {
    Window {
        days: 90,
        raised,
        pull_requests,
    }
}

/// Simulates `stream` once and estimates it as the measurement does.
pub fn run(stream: &Stream, rng: &mut Rng) -> Run {
    let before = window(
        raised(rng, stream.pull_requests, stream.raise_share),
        stream.pull_requests,
    );
    let since_share = stream.raise_share * stream.effect * stream.drift;
    let since = window(
        raised(rng, stream.pull_requests, since_share),
        stream.pull_requests,
    );
    let control = |rng: &mut Rng, share: f64| {
        window(
            raised(rng, stream.control_pull_requests, share),
            stream.control_pull_requests,
        )
    };
    let control_before = control(rng, stream.control_share);
    let control_since = control(rng, stream.control_share * stream.drift);
    let ratio = rate_ratio(since, before, MIN_PULL_REQUESTS);
    let relative = ratio_of_ratios((since, before), (control_since, control_before), 1.0, true);
    let covers = |low: f64, high: Option<f64>, truth: f64| {
        low <= truth && high.is_none_or(|high| truth <= high)
    };
    Run {
        ratio_covered: covers(ratio.low, ratio.high, stream.effect * stream.drift),
        relative_covered: covers(relative.low, relative.high, stream.effect),
        verdict: ratio.verdict,
        relative_verdict: relative.verdict,
    }
}

/// Of `runs` simulations of `stream`: how many intervals covered the truth, and the verdicts.
#[derive(Debug, Clone, Copy, Default)]
pub struct Coverage {
    pub runs: usize,
    pub ratio_covered: usize,
    pub relative_covered: usize,
    /// Runs whose own ratio said fewer raises.
    pub fewer: usize,
    /// Runs whose ratio against the control said fewer raises.
    pub relative_fewer: usize,
}

/// Simulates `stream` `runs` times from `seed`.
pub fn coverage(stream: &Stream, runs: usize, seed: u64) -> Coverage {
    let mut rng = Rng::new(seed);
    let mut coverage = Coverage {
        runs,
        ..Coverage::default()
    };
    for _ in 0..runs {
        let run = run(stream, &mut rng);
        coverage.ratio_covered += usize::from(run.ratio_covered);
        coverage.relative_covered += usize::from(run.relative_covered);
        coverage.fewer += usize::from(run.verdict == Verdict::Fewer);
        coverage.relative_fewer += usize::from(run.relative_verdict == Verdict::Fewer);
    }
    coverage
}
