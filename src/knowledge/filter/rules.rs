//! The noise filter's rules by name, registered here in the order they are tried: each decides
//! that a comment is noise. A deployment switches rules off with
//! `GITLORE_NOISE_RULES_OFF`; `gitlore-bench noise-rules` prints each rule's hits and mistakes on
//! the training split and what switching it off does. Each rule's doc comment, in the module
//! that implements it, says what it catches with corpus examples.

use std::collections::BTreeSet;
use std::fmt;

use anyhow::{Result, bail};

/// One named rule of the filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// The author is a bot: GitHub's type, a bot-like login, or `facts.toml` (`NoiseRules::is_bot`).
    BotAccount,
    /// A tool's notice posted through a person's account (`tool_notices.rs`).
    ToolNotice,
    /// The noise model reads the text as content-free.
    NoiseModel,
    /// Only commands to bots or CI and review-process lines (`trivial.rs`, `commands.rs`).
    OnlyCommands,
    /// A short remark about the process: rebase, ping, CI status (`trivial.rs`).
    ProcessRemark,
    /// A short remark of content-free words: "LGTM", "+1", "Thanks!" (`trivial.rs`).
    ContentFreeWords,
    /// A short acknowledgement or apology: "Done.", "Fixed in 3f2a1b." (`trivial.rs`).
    Acknowledgement,
    /// A contributor licence agreement notice or request (`process.rs`).
    AgreementNotice,
}

impl Rule {
    /// Every rule, in the order the filter tries them.
    pub const ALL: [Rule; 8] = [
        Rule::BotAccount,
        Rule::ToolNotice,
        Rule::NoiseModel,
        Rule::OnlyCommands,
        Rule::ProcessRemark,
        Rule::ContentFreeWords,
        Rule::Acknowledgement,
        Rule::AgreementNotice,
    ];

    /// Its name in settings and reports.
    pub fn name(self) -> &'static str {
        match self {
            Rule::BotAccount => "bot-account",
            Rule::ToolNotice => "tool-notice",
            Rule::NoiseModel => "noise-model",
            Rule::OnlyCommands => "only-commands",
            Rule::ProcessRemark => "process-remark",
            Rule::ContentFreeWords => "content-free-words",
            Rule::Acknowledgement => "acknowledgement",
            Rule::AgreementNotice => "agreement-notice",
        }
    }

    /// The rule of this name.
    pub fn parse(name: &str) -> Result<Rule> {
        let name = name.trim();
        match Rule::ALL.iter().find(|rule| rule.name() == name) {
            Some(rule) => Ok(*rule),
            None => bail!(
                "`{name}` is not a noise rule; the rules are: {}",
                Rule::ALL.map(Rule::name).join(", ")
            ),
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The rules switched off (none by default).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Switches {
    off: BTreeSet<Rule>,
}

impl Switches {
    /// Every rule on but `off`.
    pub fn off(off: impl IntoIterator<Item = Rule>) -> Switches {
        Switches {
            off: off.into_iter().collect(),
        }
    }

    /// The switches of rule names, as a deployment lists them.
    pub fn parse(names: &[String]) -> Result<Switches> {
        let off = names
            .iter()
            .filter(|name| !name.trim().is_empty())
            .map(|name| Rule::parse(name))
            .collect::<Result<_>>()?;
        Ok(Switches { off })
    }

    pub fn is_on(&self, rule: Rule) -> bool {
        !self.off.contains(&rule)
    }

    /// The part of the filter's revision they make: empty with every rule on.
    pub fn revision(&self) -> String {
        if self.off.is_empty() {
            String::new()
        } else {
            let names: Vec<&str> = self.off.iter().map(|rule| rule.name()).collect();
            format!("-off:{}", names.join(","))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_named_once_and_parses_back() {
        let names: BTreeSet<&str> = Rule::ALL.iter().map(|rule| rule.name()).collect();
        assert_eq!(names.len(), Rule::ALL.len());
        for rule in Rule::ALL {
            assert_eq!(Rule::parse(rule.name()).unwrap(), rule);
        }
        let error = Rule::parse("lgtm").unwrap_err().to_string();
        assert!(error.contains("`lgtm` is not a noise rule") && error.contains("agreement-notice"));
    }

    #[test]
    fn switches_name_what_is_off_in_the_revision() {
        assert_eq!(Switches::default().revision(), "");
        let off = Switches::parse(&["agreement-notice".into(), " noise-model".into()]).unwrap();
        assert!(!off.is_on(Rule::AgreementNotice) && off.is_on(Rule::BotAccount));
        assert_eq!(off.revision(), "-off:noise-model,agreement-notice");
        assert!(Switches::parse(&["nope".into()]).is_err());
    }
}
