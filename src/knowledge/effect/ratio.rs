//! The two ratios the lesson-effect figures rest on, with their 90 % intervals: a ratio of two
//! Poisson rates (exact: Clopper–Pearson on the share of raises that fall "since", given their
//! total), and a ratio of two such ratios (a difference in differences on the log scale, Woolf's
//! interval from the four counts).

use crate::domain::effect::{Ratio, Verdict, Window};

/// Two-sided confidence of every interval.
pub const CONFIDENCE: f64 = 0.90;
/// The standard normal quantile of `1 - (1 - CONFIDENCE) / 2`.
const Z: f64 = 1.644_853_626_951_472_2;
/// Bisection steps for a Clopper–Pearson bound: 2⁻⁶⁰ is far below any printed digit.
const BISECTION_STEPS: usize = 60;

/// The rate of `since` over the rate of `before`, exact 90 % interval. `min_pull_requests`: the
/// fewest pull requests each window needs for a verdict other than [`Verdict::TooEarly`].
pub fn rate_ratio(since: Window, before: Window, min_pull_requests: u64) -> Ratio {
    let (a, b) = (since.raised, before.raised);
    let (ea, eb) = (since.pull_requests as f64, before.pull_requests as f64);
    if since.pull_requests == 0 || before.pull_requests == 0 {
        return Ratio {
            estimate: None,
            low: 0.0,
            high: None,
            verdict: Verdict::TooEarly,
        };
    }
    let n = a + b;
    let odds_to_ratio = |share: f64| share / (1.0 - share) * eb / ea;
    let alpha = (1.0 - CONFIDENCE) / 2.0;
    let low = if a == 0 {
        0.0
    } else {
        odds_to_ratio(bisect(|p| 1.0 - binomial_cdf(a - 1, n, p), alpha))
    };
    let high = (a < n).then(|| odds_to_ratio(bisect(|p| -binomial_cdf(a, n, p), -alpha)));
    let estimate = (b > 0).then(|| (a as f64 / ea) / (b as f64 / eb));
    let enough =
        since.pull_requests >= min_pull_requests && before.pull_requests >= min_pull_requests;
    Ratio {
        estimate,
        low,
        high,
        verdict: verdict(enough, low, high),
    }
}

/// The ratio of two rate ratios, `(a / b) / (c / d)` in rates, with Woolf's 90 % interval on the
/// log scale; `scale` divides the second pair's counts in the variance (the control's counts
/// summed over `scale` overlapping windows). Half a raise is added to every count when one is
/// zero.
pub fn ratio_of_ratios(
    (since, before): (Window, Window),
    (control_since, control_before): (Window, Window),
    scale: f64,
    enough: bool,
) -> Ratio {
    let windows = [since, before, control_since, control_before];
    if windows.iter().any(|w| w.pull_requests == 0) {
        return Ratio {
            estimate: None,
            low: 0.0,
            high: None,
            verdict: Verdict::TooEarly,
        };
    }
    let correction = if windows.iter().any(|w| w.raised == 0) {
        0.5
    } else {
        0.0
    };
    let count = |w: &Window, divide: f64| w.raised as f64 / divide + correction;
    let (a, b) = (count(&since, 1.0), count(&before, 1.0));
    let (c, d) = (count(&control_since, scale), count(&control_before, scale));
    let rate = |raised: f64, w: &Window, divide: f64| raised / (w.pull_requests as f64 / divide);
    let log_ratio = (rate(a, &since, 1.0) / rate(b, &before, 1.0)).ln()
        - (rate(c, &control_since, scale) / rate(d, &control_before, scale)).ln();
    let spread = Z * (1.0 / a + 1.0 / b + 1.0 / c + 1.0 / d).sqrt();
    let (low, high) = ((log_ratio - spread).exp(), (log_ratio + spread).exp());
    Ratio {
        estimate: Some(log_ratio.exp()),
        low,
        high: Some(high),
        verdict: verdict(enough, low, Some(high)),
    }
}

fn verdict(enough: bool, low: f64, high: Option<f64>) -> Verdict {
    match high {
        _ if !enough => Verdict::TooEarly,
        Some(high) if high < 1.0 => Verdict::Fewer,
        _ if low > 1.0 => Verdict::More,
        _ => Verdict::NoEffect,
    }
}

/// The `p` in (0, 1) at which the increasing function `f` reaches `target`.
fn bisect(f: impl Fn(f64) -> f64, target: f64) -> f64 {
    let (mut low, mut high) = (0.0_f64, 1.0_f64);
    for _ in 0..BISECTION_STEPS {
        let middle = (low + high) / 2.0;
        if f(middle) < target {
            low = middle;
        } else {
            high = middle;
        }
    }
    (low + high) / 2.0
}

/// P(X ≤ k) for X ~ Binomial(n, p), summed in log space (no underflow for thousands of trials).
fn binomial_cdf(k: u64, n: u64, p: f64) -> f64 {
    if k >= n {
        return 1.0;
    }
    let (log_p, log_q) = (p.ln(), (1.0 - p).ln());
    let mut log_choose = 0.0_f64;
    let mut terms = Vec::with_capacity(k as usize + 1);
    for i in 0..=k {
        if i > 0 {
            log_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        terms.push(log_choose + i as f64 * log_p + (n - i) as f64 * log_q);
    }
    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (top + terms.iter().map(|t| (t - top).exp()).sum::<f64>().ln())
        .min(0.0)
        .exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(raised: u64, pull_requests: u64) -> Window {
        Window {
            days: 90,
            raised,
            pull_requests,
        }
    }

    #[test]
    fn the_binomial_tail_matches_a_hand_computed_value() {
        // P(X ≤ 1) for Bin(4, 0.5) = (1 + 4) / 16.
        assert!((binomial_cdf(1, 4, 0.5) - 5.0 / 16.0).abs() < 1e-12);
    }

    #[test]
    fn clopper_pearson_matches_its_textbook_bounds() {
        // 2 of 10 since, equal exposures: the share's exact 90 % interval is 0.0368–0.5069.
        let ratio = rate_ratio(window(2, 100), window(8, 100), 10);
        let share = |ratio: f64| ratio / (1.0 + ratio);
        assert!((share(ratio.low) - 0.0368).abs() < 1e-3, "{ratio:?}");
        assert!(
            (share(ratio.high.unwrap()) - 0.5069).abs() < 1e-3,
            "{ratio:?}"
        );
        assert_eq!(ratio.estimate, Some(0.25));
    }

    #[test]
    fn a_clear_drop_is_fewer_a_flat_rate_no_effect_and_few_pull_requests_too_early() {
        assert_eq!(
            rate_ratio(window(2, 200), window(30, 200), 10).verdict,
            Verdict::Fewer
        );
        assert_eq!(
            rate_ratio(window(12, 200), window(10, 200), 10).verdict,
            Verdict::NoEffect
        );
        assert_eq!(
            rate_ratio(window(40, 200), window(10, 200), 10).verdict,
            Verdict::More
        );
        assert_eq!(
            rate_ratio(window(0, 5), window(9, 200), 10).verdict,
            Verdict::TooEarly
        );
    }

    #[test]
    fn no_raise_at_all_is_an_unbounded_interval_that_shows_no_effect() {
        let ratio = rate_ratio(window(0, 50), window(0, 50), 10);
        assert_eq!((ratio.low, ratio.high, ratio.estimate), (0.0, None, None));
        assert_eq!(ratio.verdict, Verdict::NoEffect);
    }

    #[test]
    fn the_same_drift_in_the_control_cancels_out() {
        let lesson = (window(10, 100), window(20, 100));
        let control = (window(50, 100), window(100, 100));
        let ratio = ratio_of_ratios(lesson, control, 1.0, true);
        assert!((ratio.estimate.unwrap() - 1.0).abs() < 1e-9);
        assert_eq!(ratio.verdict, Verdict::NoEffect);
        let steady = (window(100, 100), window(100, 100));
        assert_eq!(
            ratio_of_ratios(lesson, steady, 1.0, true).verdict,
            Verdict::Fewer
        );
    }
}
