//! `test-lengths`: how long the integration tests are. Reads `tests/*.rs` of the service and of
//! the benches (`crates/gitlore-bench/tests/`), finds each
//! `#[test]` / `#[tokio::test]` function and counts its lines from `fn` to the closing brace;
//! counts `assert*!` invocations per file (test files and the shared harness under
//! `tests/common/` apart); prints the median and 90th percentile, the counts, and the files
//! with the longest tests on average.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

#[derive(Debug, clap::Args)]
pub struct TestLengthsArgs {
    /// The directories of the integration tests (repeat `--dir` for more than one).
    #[arg(long = "dir", default_values = ["tests", "crates/gitlore-bench/tests"])]
    dirs: Vec<PathBuf>,
    /// How many of the longest files (by average test length) to list.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Also list every test as `lines file::name`, longest first.
    #[arg(long)]
    each: bool,
}

/// One test file's figures.
struct FileFigures {
    name: String,
    lengths: Vec<usize>,
    /// The tests' names, in the order of `lengths`.
    tests: Vec<String>,
    assertions: usize,
}

pub fn run(args: TestLengthsArgs) -> Result<()> {
    let mut files = Vec::new();
    for dir in &args.dirs {
        files.extend(rust_files(dir)?);
    }
    let mut figures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
        let code = strip_comments_and_strings(&text);
        let (tests, lengths) = test_lengths(&code).into_iter().unzip();
        figures.push(FileFigures {
            name: path.display().to_string(),
            lengths,
            tests,
            assertions: assertions(&code),
        });
    }
    let harness: Vec<PathBuf> = args
        .dirs
        .iter()
        .flat_map(|dir| rust_files(&dir.join("common")).unwrap_or_default())
        .collect();
    let mut harness_assertions = 0;
    for path in &harness {
        let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
        harness_assertions += assertions(&strip_comments_and_strings(&text));
    }
    let mut all: Vec<usize> = figures.iter().flat_map(|f| f.lengths.clone()).collect();
    all.sort_unstable();
    let assertions: usize = figures.iter().map(|f| f.assertions).sum();
    println!("test files:       {}", figures.len());
    println!("tests:            {}", all.len());
    println!("median length:    {} lines", percentile(&all, 50));
    println!("90th percentile:  {} lines", percentile(&all, 90));
    println!(
        "longest test:     {} lines",
        all.last().copied().unwrap_or(0)
    );
    println!("assertions:       {assertions} in test files, {harness_assertions} in tests/common/");
    figures.retain(|f| !f.lengths.is_empty());
    figures.sort_by(|a, b| average(&b.lengths).total_cmp(&average(&a.lengths)));
    println!("\nlongest files by average test length:");
    println!(
        "{:>8} {:>7} {:>6} {:>10}  file",
        "average", "median", "tests", "assertions"
    );
    for f in figures.iter().take(args.top) {
        let mut sorted = f.lengths.clone();
        sorted.sort_unstable();
        println!(
            "{:>8.1} {:>7} {:>6} {:>10}  {}",
            average(&f.lengths),
            percentile(&sorted, 50),
            f.lengths.len(),
            f.assertions,
            f.name
        );
    }
    if args.each {
        let mut each: Vec<(usize, String)> = figures
            .iter()
            .flat_map(|f| {
                let tests = f.tests.iter().map(|t| format!("{}::{t}", f.name));
                f.lengths.iter().copied().zip(tests)
            })
            .collect();
        each.sort_by(|a, b| b.cmp(a));
        println!("\nevery test, longest first:");
        for (length, name) in each {
            println!("{length:>5}  {name}");
        }
    }
    Ok(())
}

/// The `.rs` files directly in `dir`, sorted.
fn rust_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| dir.display().to_string())? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// The nearest-rank percentile of sorted `values` (0 when empty).
fn percentile(sorted: &[usize], p: usize) -> usize {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted[rank - 1]
}

fn average(values: &[usize]) -> f64 {
    values.iter().sum::<usize>() as f64 / values.len().max(1) as f64
}

/// The name and line count, `fn` line to closing brace, of every function marked `#[test]` or
/// `#[tokio::test…]` in `code` (comments and literals already blanked).
fn test_lengths(code: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut lengths = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim();
        if (line == "#[test]" || line.starts_with("#[tokio::test"))
            && let Some((name, length)) = function_length(&lines[i + 1..])
        {
            lengths.push((name, length));
        }
    }
    lengths
}

/// The name of the first function in `lines` and its lines from `fn` through its matching
/// closing brace.
fn function_length(lines: &[&str]) -> Option<(String, usize)> {
    let start = lines.iter().position(|l| {
        let l = l.trim_start();
        l.starts_with("fn ") || l.starts_with("async fn ")
    })?;
    let name = lines[start]
        .split("fn ")
        .nth(1)
        .unwrap_or_default()
        .split(['(', '<'])
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    let mut depth = 0_i64;
    let mut opened = false;
    for (offset, line) in lines[start..].iter().enumerate() {
        for c in line.chars() {
            match c {
                '{' => {
                    depth += 1;
                    opened = true;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        if opened && depth == 0 {
            return Some((name, offset + 1));
        }
    }
    None
}

/// The `assert!`, `assert_eq!`, `assert_ne!`, `assert_matches!`… invocations in `code`,
/// `expect_test`'s snapshot checks (`.assert_eq(` / `.assert_debug_eq(`), and calls of the
/// tests' own `assert_…(` helpers (their definitions, `fn assert_…(`, are not counted).
fn assertions(code: &str) -> usize {
    let bytes = code.as_bytes();
    let mut count = 0;
    let mut at = 0;
    while let Some(found) = code[at..].find("assert") {
        let start = at + found;
        let before = start.checked_sub(1).map(|i| bytes[i]);
        let word_start = !before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
        let rest = &code[start..];
        let name_len = rest
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        let next = rest.as_bytes().get(name_len).copied();
        let is_macro = next == Some(b'!');
        let is_snapshot = before == Some(b'.') && next == Some(b'(');
        let is_helper_call = word_start
            && next == Some(b'(')
            && rest.starts_with("assert_")
            && !code[..start].trim_end().ends_with("fn");
        if (word_start && is_macro) || is_snapshot || is_helper_call {
            count += 1;
        }
        at = start + name_len.max(1);
    }
    count
}

/// `text` with comments, string literals and char literals replaced by spaces (newlines kept),
/// so that braces and `assert` inside them are not counted.
fn strip_comments_and_strings(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && matches!(next, Some('#') | Some('"')) && !ident_before(&chars, i) {
            let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let close: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let body_start = i + 2 + hashes;
            let rest: String = chars[body_start..].iter().collect();
            let end = rest.find(&close).map_or(chars.len(), |e| {
                body_start + rest[..e].chars().count() + close.len()
            });
            for c in &chars[i..end] {
                out.push(blank(*c));
            }
            i = end;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && is_char_literal(&chars, i) {
            let end = chars[i + 1..]
                .iter()
                .enumerate()
                .skip(1)
                .find(|(k, c)| **c == '\'' && chars[i + *k] != '\\')
                .map_or(i + 1, |(k, _)| i + 1 + k + 1);
            for _ in i..end {
                out.push(' ');
            }
            i = end;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// Whether the `'` at `i` opens a char literal (`'x'`, `'\n'`, `'{'`) rather than a lifetime.
fn is_char_literal(chars: &[char], i: usize) -> bool {
    matches!(
        (chars.get(i + 1), chars.get(i + 2)),
        (Some('\\'), _) | (Some(_), Some('\''))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_a_test_from_fn_to_its_brace_ignoring_braces_in_literals() {
        let code = "#[test]\nfn a() {\n    let s = \"{\";\n    let c = '}';\n    assert!(true);\n}\n\n#[tokio::test]\nasync fn b() {\n    assert_eq!(1, 1); // assert!(x)\n}\n";
        let code = strip_comments_and_strings(code);
        let found = test_lengths(&code);
        assert_eq!(found, vec![("a".to_string(), 5), ("b".to_string(), 3)]);
        assert_eq!(assertions(&code), 2);
    }

    #[test]
    fn counts_calls_of_assert_helpers_but_not_their_definitions() {
        let code = "fn assert_gone(e: &E) {\n    assert!(e.is_gone());\n}\nfn t() {\n    assert_gone(&a);\n    assert_gone(&b);\n    my_assert_x(1);\n}\n";
        assert_eq!(assertions(&strip_comments_and_strings(code)), 3);
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let values: Vec<usize> = (1..=10).collect();
        assert_eq!(percentile(&values, 50), 5);
        assert_eq!(percentile(&values, 90), 9);
        assert_eq!(percentile(&[], 50), 0);
    }
}
