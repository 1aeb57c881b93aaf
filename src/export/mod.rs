//! `gitlore export`: a repository's report from the store, in the format its reader wants — the
//! whole report for people (`md`, `html`), the data for scripts (`json`, `xml`, the shapes
//! `gitlore analyze` prints), or short path-scoped lessons for coding agents (`agents-md`,
//! `claude-md`, `copilot`, `cursor`). Single-file formats go to stdout or `--out FILE`;
//! `copilot` and `cursor` write their files under `--out DIR` (the repository's root).

pub mod agents;
pub mod html;
pub mod markdown;
pub mod section;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::config::Settings;
use crate::lessons::report::RepoReport;
use crate::lessons::{self, Source};
use crate::publish::link_style;
use crate::render::findings_xml::findings_document;
use crate::render::links::LinkStyle;
use crate::render::wording;
use agents::{AgentFile, Content};

/// What `export` (and `analyze`) can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The whole report as markdown (with `analyze`: the findings issue's body).
    Md,
    /// The whole report as one self-contained HTML page.
    Html,
    /// The findings JSON (`analyze`'s shape; the export adds links and couplings).
    Json,
    /// The findings XML.
    Xml,
    /// gitlore's section of AGENTS.md.
    AgentsMd,
    /// gitlore's section of CLAUDE.md.
    ClaudeMd,
    /// `.github/copilot-instructions.md` and `.github/instructions/*.instructions.md`.
    Copilot,
    /// `.cursor/rules/*.mdc`.
    Cursor,
}

/// The arguments of `gitlore export`.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The repository, owner/name (optional when the store holds only one).
    #[arg(long, value_name = "OWNER/NAME")]
    pub repo: Option<String>,
    #[arg(long, value_enum)]
    pub format: Format,
    /// The file to write (AGENTS.md and CLAUDE.md: only gitlore's section is replaced), or for
    /// `copilot` and `cursor` the repository's root; stdout when not given.
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// The store's directory (default: the configured data directory).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
}

/// Runs `gitlore export`.
pub fn run(settings: &Settings, args: &ExportArgs) -> Result<()> {
    let source = Source::Store {
        data_dir: args.data_dir.clone(),
        repo: args.repo.clone(),
    };
    let report = lessons::open(settings, &source)?;
    let links = link_style(
        &settings.github_api_url,
        settings.link_redirect_url.as_deref(),
    );
    write(&report, args.format, args.out.as_deref(), &links)
}

/// Writes `report` in `format` to `out` (stdout when `None`).
pub fn write(
    report: &RepoReport,
    format: Format,
    out: Option<&Path>,
    links: &LinkStyle,
) -> Result<()> {
    let single = match format {
        Format::Md => markdown::render(report, links),
        Format::Html => html::render(report, &links.web_base),
        Format::Json => serde_json::to_string_pretty(&report.json())
            .context("Cannot write the report as JSON")?,
        Format::Xml => findings_document(&report.findings, |e| e.id.clone()),
        Format::AgentsMd | Format::ClaudeMd => {
            let lessons = agents::lessons(report);
            let body = agents::agents_body(&lessons);
            return match out {
                None => print(&section::section(&body)),
                Some(path) => {
                    let default = if format == Format::AgentsMd {
                        "AGENTS.md"
                    } else {
                        "CLAUDE.md"
                    };
                    let file = if path.is_dir() {
                        path.join(default)
                    } else {
                        path.to_path_buf()
                    };
                    write_section(&file, Some(&body))
                }
            };
        }
        Format::Copilot | Format::Cursor => {
            let Some(root) = out else {
                bail!(
                    "This format writes several files: give the repository's root with --out DIR"
                );
            };
            let lessons = agents::lessons(report);
            let (files, own_dir) = if format == Format::Copilot {
                (agents::copilot(&lessons), agents::COPILOT_DIR)
            } else {
                (agents::cursor(&lessons), agents::CURSOR_DIR)
            };
            return write_files(root, &files, own_dir);
        }
    };
    match out {
        None => print(&single),
        Some(path) => {
            std::fs::write(path, single).with_context(|| format!("Cannot write {}", path.display()))
        }
    }
}

/// One line on the report: findings, themes, comments, and when it was analysed.
pub fn summary(report: &RepoReport) -> String {
    let analysed = report
        .analysed_at
        .map(|at| format!(", analysed {}", wording::utc_minute(at)))
        .unwrap_or_default();
    let head = report
        .head
        .as_deref()
        .map(|sha| format!(" at `{}`", sha.chars().take(7).collect::<String>()))
        .unwrap_or_default();
    let comments = report.comments.iter().filter(|c| c.noise.is_none()).count();
    format!(
        "{} findings and {} themes from {comments} review comments{analysed}{head}. Generated by `gitlore export`.",
        report.findings.len(),
        report.themes.len(),
    )
}

fn print(text: &str) -> Result<()> {
    lessons::cli::print(&format!("{}\n", text.trim_end()))
}

/// Sets (or removes) gitlore's section of `file`, keeping the rest.
fn write_section(file: &Path, body: Option<&str>) -> Result<()> {
    let existing = match std::fs::read_to_string(file) {
        Ok(text) => Some(text),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => {
            return Err(error).with_context(|| format!("Cannot read {}", file.display()));
        }
    };
    let written = section::apply(existing.as_deref(), body)
        .with_context(|| format!("Cannot update {}", file.display()))?;
    if let Some(text) = written {
        if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("Cannot create {}", dir.display()))?;
        }
        if text.chars().count() > agents::AGENT_FILE_LIMIT {
            eprintln!(
                "export: {} is over {} characters: its readers may not see its end",
                file.display(),
                agents::AGENT_FILE_LIMIT
            );
        }
        std::fs::write(file, text).with_context(|| format!("Cannot write {}", file.display()))?;
    }
    Ok(())
}

/// Writes a multi-file format under `root`, and removes gitlore's files of lessons gone since
/// from the format's own directory `own_dir`.
fn write_files(root: &Path, files: &[AgentFile], own_dir: &str) -> Result<()> {
    for file in files {
        let path = root.join(&file.path);
        match &file.content {
            Content::Section(body) => write_section(&path, body.as_deref())?,
            Content::Whole(text) => {
                let dir = path.parent().unwrap_or(root).to_path_buf();
                std::fs::create_dir_all(&dir)
                    .with_context(|| format!("Cannot create {}", dir.display()))?;
                std::fs::write(&path, text)
                    .with_context(|| format!("Cannot write {}", path.display()))?;
            }
        }
    }
    let written: Vec<PathBuf> = files.iter().map(|f| root.join(&f.path)).collect();
    if let Ok(entries) = std::fs::read_dir(root.join(own_dir)) {
        for entry in entries.flatten() {
            let path = entry.path();
            let ours = entry
                .file_name()
                .to_str()
                .is_some_and(agents::is_gitlore_file);
            if ours && !written.contains(&path) {
                std::fs::remove_file(&path)
                    .with_context(|| format!("Cannot remove {}", path.display()))?;
            }
        }
    }
    eprintln!(
        "export: {} files written under {}",
        files.len(),
        root.display()
    );
    Ok(())
}
