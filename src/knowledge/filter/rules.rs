//! The noise filter's rules by name, registered here in the order they are tried: each decides
//! that a comment is noise. A deployment switches rules off with
//! `GITLORE_NOISE_RULES_OFF`; `gitlore-bench noise-rules` prints each rule's hits and mistakes on
//! the training split and what switching it off does. Each rule's doc comment, in the module
//! that implements it, says what it catches with corpus examples.

use std::fmt;

use crate::knowledge::switches::{self, Named};

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
}

impl Named for Rule {
    const KIND: &'static str = "noise rule";
    const ALL: &'static [Rule] = &Rule::ALL;

    fn name(self) -> &'static str {
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
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The rules switched off (none by default).
pub type Switches = switches::Switches<Rule>;

impl Switches {
    /// The part of the filter's revision they make: empty with every rule on.
    pub fn revision(&self) -> String {
        let off = self.names_off();
        if off.is_empty() {
            String::new()
        } else {
            format!("-off:{}", off.join(","))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

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
