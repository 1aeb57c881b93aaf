//! The linear models: one logistic regression per output over the features of
//! [`super::features`], with a decision threshold per output. Two are shipped, both trained from
//! the labelled corpus by `gitlore-bench train` and stored as reviewed text files beside this
//! one: `labels.tsv` (the ten labels) and `noise.tsv` (one output: content-free or not).
//!
//! ```text
//! # comment lines
//! outputs    bug  security  …      (the outputs, for labels in canonical order)
//! bias       -2.1 -4.0      …
//! threshold  0.35 0.40      …
//! w:leak     1.52 0         …      (one line per feature: its name, then a weight per output)
//! ```

use std::fmt::Write as _;
use std::sync::LazyLock;

use anyhow::{Context, Result, bail};

use super::features::{Hashed, hash_name};
use crate::label::Label;

/// A trained model.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// What each output predicts.
    pub outputs: Vec<String>,
    pub bias: Vec<f32>,
    /// Probability from which an output is predicted.
    pub thresholds: Vec<f32>,
    /// Feature name and its weight per output, sorted by name (what the file lists).
    pub features: Vec<(String, Vec<f32>)>,
    /// Feature hash to the offset of its weights in `weights`.
    index: Index,
    /// The weights of `features`, one row of `outputs.len()` after another, for fast reading.
    weights: Vec<f32>,
}

/// The shipped label model's text.
pub const LABELS_TSV: &str = include_str!("labels.tsv");
/// The shipped noise model's text.
pub const NOISE_TSV: &str = include_str!("noise.tsv");
/// The noise model's one output.
pub const NOISE_OUTPUT: &str = "noise";

/// The shipped label model. Its file is checked by a unit test; were it broken, no label would
/// be given rather than the service going down.
pub static LABELS: LazyLock<Model> =
    LazyLock::new(|| Model::parse(LABELS_TSV).unwrap_or_else(|_| Model::empty(&label_names())));

/// The shipped noise model (see [`LABELS`] for a broken file).
pub static NOISE: LazyLock<Model> =
    LazyLock::new(|| Model::parse(NOISE_TSV).unwrap_or_else(|_| Model::empty(&[NOISE_OUTPUT])));

/// The ten label names, in canonical order: the outputs of a label model.
pub fn label_names() -> Vec<&'static str> {
    Label::ALL.iter().map(|label| label.as_str()).collect()
}

impl Model {
    /// A model from its parts; `features` need not be sorted.
    pub fn new(
        outputs: Vec<String>,
        bias: Vec<f32>,
        thresholds: Vec<f32>,
        mut features: Vec<(String, Vec<f32>)>,
    ) -> Model {
        features.sort_by(|a, b| a.0.cmp(&b.0));
        let width = outputs.len();
        let index = Index::new(
            features
                .iter()
                .enumerate()
                .map(|(at, (name, _))| (hash_name(name), at * width)),
        );
        let weights = features
            .iter()
            .flat_map(|(_, row)| (0..width).map(|output| row.get(output).copied().unwrap_or(0.0)))
            .collect();
        Model {
            outputs,
            bias,
            thresholds,
            features,
            index,
            weights,
        }
    }

    /// A model that predicts nothing (every threshold above any probability).
    fn empty(outputs: &[&str]) -> Model {
        let n = outputs.len();
        let names = outputs.iter().map(|name| name.to_string()).collect();
        Model::new(names, vec![-10.0; n], vec![1.1; n], Vec::new())
    }

    /// The probability of each output for a comment's (deduplicated) features.
    pub fn probabilities(&self, features: &Hashed) -> Vec<f32> {
        let mut scores = self.bias.clone();
        let width = self.outputs.len();
        for (hash, value) in &features.0 {
            if let Some(at) = self.index.get(*hash) {
                for (score, weight) in scores.iter_mut().zip(&self.weights[at..at + width]) {
                    *score += weight * value;
                }
            }
        }
        scores
            .into_iter()
            .map(|score| 1.0 / (1.0 + (-score).exp()))
            .collect()
    }

    /// Reads the file format described in the module documentation.
    pub fn parse(text: &str) -> Result<Model> {
        let mut rows = text
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.starts_with('#') && !line.trim().is_empty());
        let mut header = |name: &str| -> Result<Vec<String>> {
            let (number, line) = rows
                .next()
                .with_context(|| format!("the model has no `{name}` line"))?;
            let mut cells = line.split('\t');
            if cells.next() != Some(name) {
                bail!("line {}: expected `{name}`", number + 1);
            }
            Ok(cells.map(str::to_string).collect())
        };
        let outputs = header("outputs")?;
        if outputs.is_empty() {
            bail!("the model has no outputs");
        }
        let n = outputs.len();
        let bias = numbers(&header("bias")?, n).context("bad `bias` line")?;
        let thresholds = numbers(&header("threshold")?, n).context("bad `threshold` line")?;
        let mut features = Vec::new();
        for (number, line) in rows {
            let mut cells = line.split('\t');
            let name = cells.next().unwrap_or_default().to_string();
            let cells: Vec<String> = cells.map(str::to_string).collect();
            let weights =
                numbers(&cells, n).with_context(|| format!("line {}: bad weights", number + 1))?;
            features.push((name, weights));
        }
        Ok(Model::new(outputs, bias, thresholds, features))
    }

    /// Writes the file format described in the module documentation.
    pub fn to_tsv(&self, comment: &str) -> String {
        let mut out = String::new();
        for line in comment.lines() {
            let _ = writeln!(out, "# {line}");
        }
        let row = |out: &mut String, name: &str, values: &[f32]| {
            out.push_str(name);
            for value in values {
                out.push('\t');
                out.push_str(&format_weight(*value));
            }
            out.push('\n');
        };
        out.push_str("outputs");
        for output in &self.outputs {
            out.push('\t');
            out.push_str(output);
        }
        out.push('\n');
        row(&mut out, "bias", &self.bias);
        row(&mut out, "threshold", &self.thresholds);
        for (name, weights) in &self.features {
            row(&mut out, name, weights);
        }
        out
    }
}

/// Three decimals, zero as `0`, no trailing zeros.
fn format_weight(value: f32) -> String {
    let text = format!("{value:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    match text {
        "" | "-0" | "-" => "0".to_string(),
        text => text.to_string(),
    }
}

fn numbers(cells: &[String], n: usize) -> Result<Vec<f32>> {
    if cells.len() != n {
        bail!("{} values, expected {n}", cells.len());
    }
    let mut values = vec![0.0; n];
    for (value, cell) in values.iter_mut().zip(cells) {
        *value = cell
            .parse()
            .with_context(|| format!("`{cell}` is not a number"))?;
    }
    Ok(values)
}

/// An open-addressing table from feature hash to weight offset: a lookup is one or two probes
/// of a flat array, several times cheaper than a general hash map's (it runs for every feature of
/// every comment).
#[derive(Debug, Clone, PartialEq)]
struct Index {
    /// `(hash, offset)`; [`Index::EMPTY`] as the offset marks a free slot.
    slots: Vec<(u64, usize)>,
    /// The number of bits of a slot number.
    bits: u32,
}

impl Index {
    const EMPTY: usize = usize::MAX;

    /// An index of `entries`, at most a quarter full; of two equal hashes the first is kept.
    fn new(entries: impl ExactSizeIterator<Item = (u64, usize)>) -> Index {
        let bits = (entries.len().max(1) * 4)
            .next_power_of_two()
            .trailing_zeros();
        let mut index = Index {
            slots: vec![(0, Index::EMPTY); 1 << bits],
            bits,
        };
        for (hash, offset) in entries {
            let mut slot = index.home(hash);
            while index.slots[slot].1 != Index::EMPTY && index.slots[slot].0 != hash {
                slot = (slot + 1) & (index.slots.len() - 1);
            }
            if index.slots[slot].1 == Index::EMPTY {
                index.slots[slot] = (hash, offset);
            }
        }
        index
    }

    /// The slot where a search for `hash` starts: its top bits after a Fibonacci multiply, which
    /// mixes FNV's weakly mixed low bits.
    fn home(&self, hash: u64) -> usize {
        (hash.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - self.bits)) as usize
    }

    fn get(&self, hash: u64) -> Option<usize> {
        let mut slot = self.home(hash);
        loop {
            let (key, offset) = self.slots[slot];
            if offset == Index::EMPTY {
                return None;
            }
            if key == hash {
                return Some(offset);
            }
            slot = (slot + 1) & (self.slots.len() - 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_models_parse_and_round_trip() {
        for (text, outputs) in [(LABELS_TSV, label_names()), (NOISE_TSV, vec![NOISE_OUTPUT])] {
            let model = Model::parse(text).expect("the shipped model parses");
            assert_eq!(model.outputs, outputs);
            assert!(
                model.features.len() > 100,
                "{} features",
                model.features.len()
            );
            let again = Model::parse(&model.to_tsv("")).expect("round trip");
            assert_eq!(again, model);
        }
    }

    #[test]
    fn the_index_finds_every_feature_and_nothing_else() {
        let entries: Vec<(u64, usize)> = (0..1000_u64)
            .map(|n| (hash_name(&format!("w:{n}")), n as usize))
            .collect();
        let index = Index::new(entries.iter().copied());
        for (hash, offset) in &entries {
            assert_eq!(index.get(*hash), Some(*offset));
        }
        assert_eq!(index.get(hash_name("w:1000")), None);
        assert_eq!(Index::new(std::iter::empty()).get(0), None);
    }

    #[test]
    fn weights_are_written_short() {
        assert_eq!(format_weight(0.0), "0");
        assert_eq!(format_weight(-0.0001), "0");
        assert_eq!(format_weight(1.5), "1.5");
        assert_eq!(format_weight(-2.125), "-2.125");
    }

    #[test]
    fn errors_name_the_line() {
        let error = Model::parse("labels\tbug\n").expect_err("no outputs line");
        assert!(format!("{error:#}").contains("outputs"), "{error:#}");
        let two = vec!["a".to_string(), "b".to_string()];
        let header = Model::new(two, vec![0.0; 2], vec![0.5; 2], Vec::new()).to_tsv("");
        let error = Model::parse(&format!("{header}w:x\t1\n")).expect_err("short row");
        assert!(format!("{error:#}").contains("line 4"), "{error:#}");
    }
}
