//! What gitlore publishes, as pure functions from findings to markdown: the findings issue, the
//! check run, and the wording of every reply. No I/O here; the publisher sends what these build.

pub mod addresses;
pub mod check_run;
pub mod dismissals;
pub mod effect;
pub mod evidence;
pub mod findings_xml;
pub mod inline;
pub mod issue;
pub mod links;
pub mod wording;
