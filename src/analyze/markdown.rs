//! `--format md` (the default): the findings issue's body exactly as `render_issue` would
//! publish it, linked to the repository on GitHub when it is known, plain otherwise.

use super::report::Report;
use crate::domain::RepoName;
use crate::domain::github_web::web_url;
use crate::publish::{IssueContext, issue_view};
use crate::render::issue::render_issue;
use crate::render::links::LinkStyle;
use crate::repo_config::ConfigProblem;

/// Where the repository lives on the web, for links.
pub struct WebHome {
    /// The web host, e.g. `https://github.com`.
    pub base: String,
    pub links: LinkStyle,
}

impl WebHome {
    /// github.com, with links through its redirector.
    pub fn github_com() -> WebHome {
        WebHome {
            base: "https://github.com".into(),
            links: LinkStyle::github_com(),
        }
    }

    /// The web home of a repository on the GitHub whose REST API is at `api_url`: github.com
    /// (links through its redirector) or a GitHub Enterprise Server (links kept as they are).
    pub fn for_api(api_url: &str) -> WebHome {
        let base = web_url(api_url);
        if base == "https://github.com" {
            return WebHome::github_com();
        }
        WebHome {
            links: LinkStyle {
                web_base: base.clone(),
                redirect_base: None,
            },
            base,
        }
    }
}

/// What the body needs besides the report.
pub struct Context<'a> {
    pub repo: &'a RepoName,
    /// `None` for a repository with no known web page: commits are then not linked.
    pub web: Option<&'a WebHome>,
    pub window_months: u32,
    /// Unix seconds of this run.
    pub now: i64,
    pub head: Option<&'a str>,
    pub config_problems: &'a [ConfigProblem],
    /// Notes shown after the analysis's own.
    pub notes: Vec<String>,
}

/// The issue body for `report`.
pub fn render(report: &Report, context: &Context) -> String {
    let view = issue_view(
        report.outcome,
        &IssueContext {
            repo: context.repo,
            window_months: context.window_months,
            problems: context.config_problems,
            head: context.head,
            backfill: None,
            links: context.web.map(|web| &web.links),
            now: context.now,
            notes: context.notes.clone(),
        },
    );
    render_issue(&view)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_homes_follow_the_api_url() {
        let dotcom = WebHome::for_api("https://api.github.com/");
        assert_eq!(dotcom.base, "https://github.com");
        assert_eq!(dotcom.links, LinkStyle::github_com());
        let ghes = WebHome::for_api("https://git.example.com/api/v3");
        assert_eq!(ghes.base, "https://git.example.com");
        assert_eq!(ghes.links.redirect_base, None);
    }
}
