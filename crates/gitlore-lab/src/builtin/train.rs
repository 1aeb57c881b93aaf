//! Training a linear model: one logistic regression per output (one-vs-rest over the labels, or
//! the single noise output) fitted by AdaGrad with L2, and a decision threshold per output chosen on out-of-fold predictions where each fold holds out whole
//! repositories, so that the thresholds are those that work on a repository the model has not
//! seen. Deterministic: the same examples give the same model, byte for byte.
//!
//! Only features seen in at least [`Options::min_groups`] repositories are kept: a word only one
//! project uses teaches nothing about the next one.

use std::collections::{HashMap, HashSet};

use super::super::CommentText;
use super::features::{Hashed, Named, extract, extract_noise, hash_name};
use super::model::Model;
use super::text::Text;

/// One labelled comment.
#[derive(Debug, Clone)]
pub struct Example {
    pub features: HashMap<String, f32>,
    /// Per output, whether the comment has it.
    pub targets: Vec<bool>,
    /// Its repository: folds never split one.
    pub group: String,
}

impl Example {
    /// Featurizes a comment with `targets`, from repository `group`.
    pub fn new(text: &CommentText, targets: Vec<bool>, group: &str) -> Example {
        let mut sink = Named::default();
        extract(text, &Text::parse(text.body), &mut sink);
        Example::of(sink, targets, group)
    }

    /// Featurizes a comment as the noise model reads it, with `targets`, from repository `group`.
    pub fn for_noise(text: &CommentText, targets: Vec<bool>, group: &str) -> Example {
        let mut sink = Named::default();
        extract_noise(text, &Text::parse(text.body), &mut sink);
        Example::of(sink, targets, group)
    }

    fn of(sink: Named, targets: Vec<bool>, group: &str) -> Example {
        Example {
            features: sink.0,
            targets,
            group: group.to_string(),
        }
    }
}

/// Hyperparameters.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub epochs: usize,
    pub learning_rate: f32,
    pub l2: f32,
    /// A feature must occur in this many repositories of the training set.
    pub min_groups: usize,
    /// Weights below this (absolute, on every label) are dropped from the stored model.
    pub prune_below: f32,
    /// The weight a rule's evidence for a label starts at and is regularized towards.
    pub rule_prior: f32,
    /// Thresholds maximize F-beta: 1 weighs precision and recall alike, below 1 favours
    /// precision.
    pub beta: f32,
    /// Class balance: an output's positive examples weigh (negatives / positives) to this power
    /// (0: every example alike; 0.5: the square root of the imbalance), at most [`MAX_WEIGHT`].
    pub balance: f32,
}

/// The largest weight class balance gives a positive example.
pub const MAX_WEIGHT: f32 = 10.0;

impl Default for Options {
    fn default() -> Options {
        Options {
            epochs: 30,
            learning_rate: 0.1,
            l2: 0.2,
            min_groups: 3,
            prune_below: 0.01,
            beta: 1.0,
            rule_prior: 3.0,
            balance: 0.0,
        }
    }
}

/// Fits a model with `outputs` on `examples` and sets its thresholds from repository-held-out
/// predictions.
pub fn train(examples: &[Example], outputs: &[&str], options: Options) -> Model {
    let probabilities = out_of_fold(examples, outputs, options);
    let thresholds = best_thresholds(examples, &probabilities, outputs.len(), options.beta);
    let mut model = fit(examples, outputs, options);
    model.thresholds = thresholds;
    model
}

/// Each example's probabilities from a model fitted on the other repositories (thresholds 0.5).
pub fn out_of_fold(examples: &[Example], outputs: &[&str], options: Options) -> Vec<Vec<f32>> {
    let groups: Vec<&str> = {
        let mut groups: Vec<&str> = examples.iter().map(|e| e.group.as_str()).collect();
        groups.sort_unstable();
        groups.dedup();
        groups
    };
    let held_out = |group: &str| -> Vec<(usize, Vec<f32>)> {
        let training: Vec<Example> = examples
            .iter()
            .filter(|e| e.group != group)
            .cloned()
            .collect();
        let model = fit(&training, outputs, options);
        examples
            .iter()
            .enumerate()
            .filter(|(_, e)| e.group == group)
            .map(|(at, e)| (at, predict_named(&model, &e.features)))
            .collect()
    };
    let mut probabilities = vec![vec![0.0; outputs.len()]; examples.len()];
    let results: Vec<Vec<(usize, Vec<f32>)>> = std::thread::scope(|scope| {
        let (left, right) = groups.split_at(groups.len() / 2);
        let other = scope.spawn(|| left.iter().flat_map(|g| held_out(g)).collect::<Vec<_>>());
        let mine: Vec<_> = right.iter().flat_map(|g| held_out(g)).collect();
        vec![other.join().unwrap_or_default(), mine]
    });
    for (at, p) in results.into_iter().flatten() {
        probabilities[at] = p;
    }
    probabilities
}

/// Per output, the threshold that maximizes F-beta over `probabilities` (0.5 for an unseen
/// output).
pub fn best_thresholds(
    examples: &[Example],
    probabilities: &[Vec<f32>],
    n: usize,
    beta: f32,
) -> Vec<f32> {
    let b2 = beta * beta;
    let mut thresholds = vec![0.5; n];
    for l in 0..n {
        let mut best = (0.0_f32, 0.5_f32);
        for step in 2..=38 {
            let threshold = step as f32 * 0.025;
            let (mut tp, mut fp, mut fn_) = (0_u32, 0_u32, 0_u32);
            for (example, p) in examples.iter().zip(probabilities) {
                match (p[l] >= threshold, example.targets[l]) {
                    (true, true) => tp += 1,
                    (true, false) => fp += 1,
                    (false, true) => fn_ += 1,
                    (false, false) => {}
                }
            }
            let f1 = if tp == 0 {
                0.0
            } else {
                let tp = tp as f32;
                (1.0 + b2) * tp / ((1.0 + b2) * tp + b2 * fn_ as f32 + fp as f32)
            };
            let closer = (threshold - 0.5).abs() < (best.1 - 0.5).abs();
            if f1 > best.0 + 1e-6 || ((f1 - best.0).abs() <= 1e-6 && closer) {
                best = (f1, threshold);
            }
        }
        thresholds[l] = best.1;
    }
    thresholds
}

/// Probabilities of a model for named features (training-time prediction).
pub fn predict_named(model: &Model, features: &HashMap<String, f32>) -> Vec<f32> {
    let mut hashed = Hashed(
        features
            .iter()
            .map(|(name, value)| (hash_name(name), *value))
            .collect(),
    );
    hashed.dedup();
    model.probabilities(&hashed)
}

/// Fits the weights (thresholds left at 0.5).
pub fn fit(examples: &[Example], outputs: &[&str], options: Options) -> Model {
    let n = outputs.len();
    let vocabulary = vocabulary(examples, options.min_groups);
    let rows: Vec<Vec<(usize, f32)>> = examples
        .iter()
        .map(|example| {
            let mut row: Vec<(usize, f32)> = example
                .features
                .iter()
                .filter_map(|(name, value)| vocabulary.get(name).map(|&at| (at, *value)))
                .collect();
            row.sort_unstable_by_key(|(at, _)| *at);
            row
        })
        .collect();
    // The rules' evidence for an output starts as (and is pulled towards) a clear cue for it, so
    // that a label the corpus has few examples of keeps what the rules know.
    let mut prior = vec![0.0_f32; vocabulary.len() * n];
    for (l, output) in outputs.iter().enumerate() {
        if let Some(&at) = vocabulary.get(&format!("r:{output}")) {
            prior[at * n + l] = options.rule_prior;
        }
    }
    let positive_weight: Vec<f32> = (0..n)
        .map(|l| {
            let positives = examples.iter().filter(|e| e.targets[l]).count().max(1) as f32;
            let negatives = (examples.len() as f32 - positives).max(1.0);
            (negatives / positives)
                .powf(options.balance)
                .clamp(1.0, MAX_WEIGHT)
        })
        .collect();
    let mut weights = prior.clone();
    let mut squares = vec![1e-8_f32; vocabulary.len() * n];
    let mut bias = vec![0.0_f32; n];
    let mut bias_squares = vec![1e-8_f32; n];
    let mut score = vec![0.0_f32; n];
    let mut error = vec![0.0_f32; n];
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    for _ in 0..options.epochs {
        shuffle(&mut order, &mut seed);
        for &at in &order {
            let row = &rows[at];
            score.copy_from_slice(&bias);
            for &(feature, value) in row {
                for (s, w) in score
                    .iter_mut()
                    .zip(&weights[feature * n..(feature + 1) * n])
                {
                    *s += w * value;
                }
            }
            for (l, e) in error.iter_mut().enumerate() {
                let p = 1.0 / (1.0 + (-score[l]).exp());
                let target = examples[at].targets[l];
                let weight = if target { positive_weight[l] } else { 1.0 };
                *e = weight * (p - f32::from(u8::from(target)));
                bias_squares[l] += *e * *e;
                bias[l] -= options.learning_rate * *e / bias_squares[l].sqrt();
            }
            for &(feature, value) in row {
                for (l, e) in error.iter().enumerate() {
                    let at = feature * n + l;
                    let gradient = e * value + options.l2 * (weights[at] - prior[at]);
                    squares[at] += gradient * gradient;
                    weights[at] -= options.learning_rate * gradient / squares[at].sqrt();
                }
            }
        }
    }
    let mut names: Vec<(&String, &usize)> = vocabulary.iter().collect();
    names.sort_unstable_by_key(|(_, at)| **at);
    let features = names
        .into_iter()
        .map(|(name, &at)| (name.clone(), weights[at * n..(at + 1) * n].to_vec()))
        .filter(|(_, w)| w.iter().any(|w| w.abs() >= options.prune_below))
        .collect();
    let outputs = outputs.iter().map(|name| name.to_string()).collect();
    Model::new(outputs, bias, vec![0.5; n], features)
}

/// Feature name to index, for features seen in at least `min_groups` groups; sorted by name so
/// that indices do not depend on hash order.
fn vocabulary(examples: &[Example], min_groups: usize) -> HashMap<String, usize> {
    let mut groups: HashMap<&str, HashSet<&str>> = HashMap::new();
    for example in examples {
        for name in example.features.keys() {
            groups.entry(name).or_default().insert(&example.group);
        }
    }
    let mut kept: Vec<&str> = groups
        .into_iter()
        .filter(|(_, seen)| seen.len() >= min_groups)
        .map(|(name, _)| name)
        .collect();
    kept.sort_unstable();
    kept.into_iter()
        .enumerate()
        .map(|(at, name)| (name.to_string(), at))
        .collect()
}

/// Fisher–Yates with a 64-bit LCG: deterministic and platform-independent.
fn shuffle(order: &mut [usize], seed: &mut u64) {
    for i in (1..order.len()).rev() {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let j = ((*seed >> 33) % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::Label;

    const OUTPUTS: [&str; 4] = ["bug", "testing", "nitpick", "question"];

    fn example(body: &str, labels: &[Label], group: &str) -> Example {
        let targets = OUTPUTS
            .iter()
            .map(|output| labels.iter().any(|l| l.as_str() == *output))
            .collect();
        Example::new(
            &CommentText {
                body,
                ..Default::default()
            },
            targets,
            group,
        )
    }

    fn corpus() -> Vec<Example> {
        let mut examples = Vec::new();
        for group in ["a", "b", "c"] {
            examples.push(example("this leaks the handle", &[Label::Bug], group));
            examples.push(example("please add a test", &[Label::Testing], group));
            examples.push(example("typo in word", &[Label::Nitpick], group));
            examples.push(example("why is this here?", &[Label::Question], group));
        }
        examples.push(example("only here: frobnicate", &[Label::Bug], "a"));
        examples
    }

    #[test]
    fn learns_separable_labels_deterministically() {
        let examples = corpus();
        let model = train(&examples, &OUTPUTS, Options::default());
        let again = train(&examples, &OUTPUTS, Options::default());
        assert_eq!(model, again);
        let p = predict_named(&model, &example("this leaks", &[], "d").features);
        assert!(p[0] > p[1], "{p:?}");
        assert!(
            !model
                .features
                .iter()
                .any(|(name, _)| name == "w:frobnicate"),
            "a word of one repository is not kept"
        );
    }

    #[test]
    fn thresholds_maximize_f1() {
        let examples = corpus();
        let mut probabilities = vec![vec![0.1; 4]; examples.len()];
        for (p, e) in probabilities.iter_mut().zip(&examples) {
            if e.targets[0] {
                p[0] = 0.3;
            }
        }
        let thresholds = best_thresholds(&examples, &probabilities, 4, 1.0);
        let bug = thresholds[0];
        assert!(bug > 0.1 && bug <= 0.3, "{bug}");
    }
}
