//! The layer rule: every top-level module of `src/` has a rank, and a module imports only modules
//! of a lower rank, never its own rank's neighbours (so no circle is possible) nor anything above.
//! `docs/design.md` ("Layers") explains the ranks; this file is where they are written down.
//!
//! The crates have their own rule: the service (this crate) reads comments with the language lab
//! (`crates/gitlore-lab`) but never names its trainer nor the benches (`crates/gitlore-bench`),
//! so its tests train and score nothing; the lab names neither of the others.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The ranks, lowest first: `LAYERS[r]` names rank `r` and lists its top-level modules.
/// `main.rs` and `lib.rs` are above all of them.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "domain models and leaf utilities",
        &["domain", "health", "log_sink"],
    ),
    (
        "parsers and the LLM client",
        &["clock", "events", "commands", "repo_config", "llm"],
    ),
    (
        "knowledge, store, rendering",
        &["knowledge", "store", "render"],
    ),
    ("ingestion", &["ingest"]),
    (
        "analysis, GitHub, the worker",
        &["analysis", "github", "worker"],
    ),
    ("publishing, ingress", &["publish", "ingress"]),
    (
        "jobs, the redelivery sweep and the webhook server",
        &["runner", "scheduler", "redelivery", "server"],
    ),
    ("settings", &["config"]),
    ("web pages, setup, lessons", &["web", "setup", "lessons"]),
    ("app wiring, exports, replay", &["app", "export", "replay"]),
    ("command line", &["analyze", "mcp", "backfill_cli"]),
];

/// The rank of top-level module `module`, if it has one.
fn rank(module: &str) -> Option<usize> {
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

/// The top-level modules a source text names as `crate::X…`: in `use` statements, grouped
/// (`use crate::{a, b::c}`) or not, and in paths written inline. Comments are left out.
fn imported_modules(source: &str) -> BTreeSet<String> {
    let code = code(source);
    let mut modules = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        let preceded_by_ident = rest[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        rest = &rest[at + "crate::".len()..];
        if preceded_by_ident {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && (c.is_alphanumeric() || c == '_') => {
                        modules.insert(identifier(&group[i..]).to_string());
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            let name = identifier(rest);
            if !name.is_empty() {
                modules.insert(name.to_string());
            }
        }
    }
    modules
}

/// `source` without its `//` comments.
fn code(source: &str) -> String {
    source
        .lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The identifier `text` starts with.
fn identifier(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("read a source directory") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to; `None` for the crate roots.
fn owner(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    match first {
        "main.rs" | "lib.rs" => None,
        file => Some(file.trim_end_matches(".rs").to_string()),
    }
}

/// Every import that breaks the rule, one line each, and every module without a rank.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in files {
        let relative = file.strip_prefix(src).expect("under src/");
        let Some(module) = owner(relative) else {
            continue;
        };
        let Some(own) = rank(&module) else {
            found.push(format!(
                "{}: module `{module}` has no rank",
                relative.display()
            ));
            continue;
        };
        let source = fs::read_to_string(&file).expect("read a source file");
        for imported in imported_modules(&source) {
            if imported == module {
                continue;
            }
            match rank(&imported) {
                Some(theirs) if theirs < own => {}
                Some(theirs) => found.push(format!(
                    "{}: imports {imported} (rank {theirs}) from rank {own}",
                    relative.display()
                )),
                None => found.push(format!(
                    "{}: imports {imported}, which has no rank",
                    relative.display()
                )),
            }
        }
    }
    found.dedup();
    found
}

#[test]
fn lower_layers_never_import_higher_ones() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = violations(&src);
    assert!(
        found.is_empty(),
        "{} imports break the layer rule:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn every_ranked_module_exists_once() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut seen = BTreeSet::new();
    for (_, modules) in LAYERS {
        for module in *modules {
            assert!(seen.insert(*module), "{module} is ranked twice");
            assert!(
                src.join(format!("{module}.rs")).is_file() || src.join(module).is_dir(),
                "{module} is ranked but src/ has no such module"
            );
        }
    }
}

#[test]
fn the_parser_finds_plain_grouped_and_inline_paths() {
    let source = "\
//! Uses [`crate::ignored`] in a doc comment.
use crate::domain::RepoName;
use crate::{store::{self, Store}, knowledge::findings::Finding,
    render};
fn f(x: &crate::github::client::GitHub) -> crate::clock::Millis { notcrate::x(); todo!() } // crate::no
";
    let found: Vec<String> = imported_modules(source).into_iter().collect();
    assert_eq!(
        found,
        ["clock", "domain", "github", "knowledge", "render", "store"]
    );
}

#[test]
fn a_lower_layer_importing_a_higher_one_is_reported() {
    let dir = std::env::temp_dir().join(format!("gitlore-layers-{}", std::process::id()));
    let src = dir.join("src");
    fs::create_dir_all(src.join("store")).expect("create a fake src/");
    fs::write(src.join("domain.rs"), "use crate::health::Health;\n").expect("write");
    fs::write(src.join("health.rs"), "").expect("write");
    fs::write(
        src.join("store/mod.rs"),
        "use crate::{domain, knowledge::x};\n",
    )
    .expect("write");
    fs::write(src.join("knowledge.rs"), "use crate::domain;\n").expect("write");
    fs::write(src.join("nowhere.rs"), "").expect("write");
    let found = violations(&src);
    fs::remove_dir_all(&dir).expect("remove the fake src/");
    assert_eq!(
        found,
        [
            "domain.rs: imports health (rank 0) from rank 0",
            "nowhere.rs: module `nowhere` has no rank",
            "store/mod.rs: imports knowledge (rank 2) from rank 2",
        ]
    );
}

/// Every place in the `.rs` files under `dirs` (but this one, which lists the names) whose code
/// (comments left out) names one of `names` (`src/x.rs: names y`).
fn naming(dirs: &[PathBuf], names: &[&str]) -> Vec<String> {
    let this_file = Path::new(env!("CARGO_MANIFEST_DIR")).join(file!());
    let mut found = Vec::new();
    for dir in dirs {
        let mut files = Vec::new();
        rust_files(dir, &mut files);
        files.sort();
        for file in files.into_iter().filter(|file| *file != this_file) {
            let code = code(&fs::read_to_string(&file).expect("read a source file"));
            for name in names.iter().filter(|name| code.contains(**name)) {
                found.push(format!("{}: names {name}", file.display()));
            }
        }
    }
    found
}

/// The paths by which code reaches the trainer and the scorecards.
const TRAINING_AND_SCORING: &[&str] = &[
    "::train",
    "train::",
    "{train",
    " train}",
    " train,",
    "gitlore_bench",
    "scorecard",
    "quality::",
];

#[test]
fn the_service_never_names_the_trainer_or_the_benches() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = naming(
        &[root.join("src"), root.join("tests")],
        TRAINING_AND_SCORING,
    );
    assert!(found.is_empty(), "{}", found.join("\n"));
    let manifest = fs::read_to_string(root.join("Cargo.toml")).expect("read Cargo.toml");
    let dependencies = dependency_lines(&manifest);
    assert!(
        dependencies
            .iter()
            .any(|line| line.starts_with("gitlore-lab"))
    );
    assert!(
        !dependencies
            .iter()
            .any(|line| line.contains("gitlore-bench")),
        "{dependencies:?}"
    );
}

/// The lines of a manifest's `[dependencies]` and `[dev-dependencies]` sections.
fn dependency_lines(manifest: &str) -> Vec<&str> {
    let mut in_dependencies = false;
    let mut lines = Vec::new();
    for line in manifest.lines() {
        if line.starts_with('[') {
            in_dependencies = matches!(line, "[dependencies]" | "[dev-dependencies]");
        } else if in_dependencies {
            lines.push(line);
        }
    }
    lines
}

#[test]
fn the_lab_never_names_the_service_or_the_benches() {
    let lab = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/gitlore-lab");
    let found = naming(&[lab.join("src")], &["gitlore::", "gitlore_bench"]);
    assert!(found.is_empty(), "{}", found.join("\n"));
    let manifest = fs::read_to_string(lab.join("Cargo.toml")).expect("read the lab's Cargo.toml");
    let dependencies = dependency_lines(&manifest);
    assert!(dependencies.iter().any(|line| line.starts_with("serde")));
    assert!(
        !dependencies.iter().any(|line| line.starts_with("gitlore")),
        "{dependencies:?}"
    );
}

#[test]
fn naming_finds_the_trainer_in_use_lists_and_paths() {
    let dir = std::env::temp_dir().join(format!("gitlore-naming-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("create a fake tests/");
    for (file, source) in [
        ("a.rs", "use gitlore_lab::builtin::{model, train};\n"),
        (
            "b.rs",
            "fn f() { gitlore_lab::builtin::train::train(&[]); }\n",
        ),
        (
            "c.rs",
            "// builtin::train:: in a comment\nuse x::{read, version};\n",
        ),
    ] {
        fs::write(dir.join(file), source).expect("write");
    }
    let found = naming(std::slice::from_ref(&dir), TRAINING_AND_SCORING);
    fs::remove_dir_all(&dir).expect("remove the fake tests/");
    let files: Vec<&str> = found
        .iter()
        .map(|line| &line[dir.to_str().unwrap().len() + 1..line.find(':').unwrap()])
        .collect();
    assert_eq!(files, ["a.rs", "b.rs", "b.rs"], "{found:?}");
}
